"""A session state in parts, so a call writes only what it changed.

The guard's state is one JSON-ready dict (``tether.loops.state``), but most of it does not change
on a given call: of 70 signature records one is touched, of 64 window entries one is appended.
A store that keeps the state in parts stores the head (every small top-level value) as one part,
each entry of the tables (``sigs``, ``files``, ``pending``, ``agents``, ``echo``, ``tools``) as a
part of its own, and each window entry as a part keyed by its position in the session, then
writes per call the head and only the other parts that call touched: a *delta*
``{"put": {part: value}, "del": [part, …]}``, which is absolute (applying it twice changes
nothing) and small.

``Tracked`` is the state dict handed to the update function: a plain ``dict`` whose tables are
``PartDict`` (a dict that notes every entry read or written: what is read may be changed in
place) and whose window is a ``PartList`` (notes appends and entries dropped from the front).
Code that does not know about parts (the guard, a test's update function) uses them as the
dicts and lists they are. An update function that returns another dict replaces the state.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from tether.store import State

# Top-level dicts stored one entry per part (the rest, the head, is small and written whole).
TABLES = ("sigs", "files", "pending", "agents", "echo", "tools")
WINDOW = "window"  # the top-level list stored one entry per part
HEAD = "h"
_BASE = "_wi"  # in the head: the window position of window[0]
_TABLES = "_t"  # in the head: the tables the state has (an empty one has no parts)
_ORDER = "_k"  # in the head: the state's top-level keys in their order


def table_key(table: str, key: str) -> str:
    """Return the part holding ``table[key]``."""
    return f"{table}/{key}"


def window_key(position: int) -> str:
    """Return the part holding the window entry at ``position`` (sortable as text)."""
    return f"w/{position:012d}"


class PartDict(dict[str, Any]):
    """A table that notes the entries read or written (``touched``) and removed (``gone``)."""

    __slots__ = ("gone", "touched")

    def __init__(self, items: Iterable[tuple[str, Any]] = ()) -> None:
        super().__init__(items)
        self.touched: set[str] = set()
        self.gone: set[str] = set()

    def __getitem__(self, key: str) -> Any:
        value = dict.__getitem__(self, key)
        self.touched.add(key)
        return value

    def get(self, key: str, default: Any = None) -> Any:
        if dict.__contains__(self, key):
            self.touched.add(key)
            return dict.__getitem__(self, key)
        return default

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.touched.add(key)
        self.gone.discard(key)
        return dict.setdefault(self, key, default)

    def __setitem__(self, key: str, value: Any) -> None:
        self.touched.add(key)
        self.gone.discard(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: str) -> None:
        dict.__delitem__(self, key)
        self.touched.discard(key)
        self.gone.add(key)

    def pop(self, key: str, *default: Any) -> Any:
        if dict.__contains__(self, key):
            self.touched.discard(key)
            self.gone.add(key)
        return dict.pop(self, key, *default)

    def values(self) -> Any:
        self.touched.update(dict.keys(self))  # values handed out may be changed in place
        return dict.values(self)

    def items(self) -> Any:
        self.touched.update(dict.keys(self))
        return dict.items(self)


class PartList(list[Any]):
    """The window: notes what was appended and how many entries left from the front."""

    __slots__ = ("base", "dropped", "grown")

    def __init__(self, items: Iterable[Any] = (), base: int = 0) -> None:
        super().__init__(items)
        self.base = base  # the position of self[0] in the session
        self.grown = 0  # entries appended since loaded
        self.dropped = 0  # entries removed from the front since loaded

    def append(self, item: Any) -> None:
        list.append(self, item)
        self.grown += 1

    def __delitem__(self, index: Any) -> None:
        if not isinstance(index, slice) or index.start not in (None, 0) or index.step:
            raise TypeError("the window only drops entries from its front")
        count = len(range(*index.indices(len(self))))
        list.__delitem__(self, index)
        self.dropped += count


class Tracked(dict[str, Any]):
    """A state whose tables and window note what changed since it was loaded.

    The head (every other top-level value: counters, a few short lists) is written whole on
    every call: it changes on nearly every call anyway, and writing it costs less than finding
    out what in it changed. A table replaced or removed since it was loaded has every part it
    had deleted, so no entry of the old one comes back on the next load.
    """

    __slots__ = ("_loaded", "_split")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self._loaded: dict[str, PartDict] = {}  # the tables as loaded (or last stored)
        self._split: list[str] = []  # head parts stored one value each (an older layout)

    def delta(self) -> dict[str, Any] | None:
        """Return the parts changed since loaded (or the last ``settle``); None: write it all.

        None when the window was replaced by a plain list (the parts it had are not known
        then): the store rewrites the whole state.
        """
        put: dict[str, Any] = {}
        gone: list[str] = list(self._split)
        head: dict[str, Any] = {_TABLES: [], _ORDER: list(dict.keys(self))}
        for name, value in list(dict.items(self)):
            if name in TABLES:
                if type(value) is not PartDict:  # a table started (or replaced) by this call
                    value = PartDict(value.items() if isinstance(value, dict) else ())
                    value.touched.update(dict.keys(value))
                    dict.__setitem__(self, name, value)
                head[_TABLES].append(name)
                for key in value.touched:
                    if dict.__contains__(value, key):
                        put[table_key(name, key)] = dict.__getitem__(value, key)
                gone += [table_key(name, key) for key in value.gone]
            elif name == WINDOW:
                if type(value) is not PartList:
                    return None
                start = value.base + value.dropped
                gone += [window_key(p) for p in range(value.base, start)]
                first = len(value) - value.grown
                for n in range(max(0, first), len(value)):
                    put[window_key(start + n)] = list.__getitem__(value, n)
                head[_BASE] = start
            else:
                head[name] = value
        for name, was in self._loaded.items():
            if dict.get(self, name) is not was:  # replaced or removed: its parts go
                gone += [table_key(name, key) for key in (*dict.keys(was), *was.gone)]
        put[HEAD] = head
        return {"put": put, "del": gone}

    def settle(self) -> None:
        """Forget what changed: the state is stored as it is now."""
        self._split = []
        loaded: dict[str, PartDict] = {}
        for name, value in dict.items(self):
            if type(value) is PartDict:
                value.touched.clear()
                value.gone.clear()
                loaded[name] = value
            elif type(value) is PartList:
                value.base += value.dropped
                value.dropped = value.grown = 0
        self._loaded = loaded


def split(state: State) -> dict[str, Any]:
    """Return every part of a plain state (a full delta's ``put``): head values one by one."""
    put: dict[str, Any] = {}
    head: dict[str, Any] = {_TABLES: [], _ORDER: list(state)}
    for name, value in state.items():
        if name in TABLES and isinstance(value, dict):
            head[_TABLES].append(name)
            for key, entry in value.items():
                put[table_key(name, str(key))] = entry
        elif name == WINDOW and isinstance(value, list):
            base = value.base + value.dropped if isinstance(value, PartList) else 0
            for n, entry in enumerate(value):
                put[window_key(base + n)] = entry
            head[_BASE] = base
        else:
            head[name] = value
    put[HEAD] = head
    return put


def assemble(parts: Iterable[tuple[str, Any]]) -> Tracked | None:
    """Return the tracked state made of ``parts`` (part name, value), or None without a head."""
    head: dict[str, Any] | None = None
    split_head: list[str] = []
    tables: dict[str, PartDict] = {}
    window: list[tuple[str, Any]] = []
    for name, value in parts:
        if name == HEAD:  # a head stored whole
            head = (
                value
                if not isinstance(head, dict) or not isinstance(value, dict)
                else {**head, **value}
            )
        elif name.startswith(HEAD + "/"):
            split_head.append(name)
            if head is None:
                head = {}
            if isinstance(head, dict):
                head[name[len(HEAD) + 1 :]] = value
        elif name.startswith("w/"):
            window.append((name, value))
        else:
            table, _, key = name.partition("/")
            tables.setdefault(table, PartDict())
            dict.__setitem__(tables[table], key, value)
    if not isinstance(head, dict):
        return None
    values = dict(head)
    base = values.pop(_BASE, None)
    order = values.pop(_ORDER, None)
    present = values.pop(_TABLES, None)
    for table in present if present is not None else [t for t in TABLES if t in tables]:
        values[table] = tables.get(table, PartDict())
    if base is not None:
        window.sort()
        first = int(window[0][0][2:]) if window else int(base)
        values[WINDOW] = PartList((v for _, v in window), first)
    keys = [k for k in order or () if k in values] + [k for k in values if k not in (order or ())]
    state = Tracked((k, values[k]) for k in keys)
    state.settle()
    state._split = split_head
    return state


def apply(parts: dict[str, Any], delta: dict[str, Any]) -> None:
    """Apply a delta to a mapping of part name -> value, in place."""
    for name in delta.get("del", ()):
        parts.pop(name, None)
    parts.update(delta.get("put", {}))


def entries(parts: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Return the parts as (name, value) pairs, for ``assemble``."""
    return iter(parts.items())


def patch(state: Tracked, changed: dict[str, Any]) -> bool:
    """Bring ``state`` up to date with the parts others changed (None: deleted), in place.

    Cheaper than ``assemble`` when few parts changed; False when the changes do not fit the
    state (a window moved in a way it cannot follow): assemble it whole then.
    """
    window = dict.get(state, WINDOW)
    moves: list[tuple[int, Any]] = []
    for name, value in changed.items():
        if name == HEAD or name.startswith(HEAD + "/"):
            continue
        if name.startswith("w/"):
            moves.append((int(name[2:]), value))
            continue
        table, _, key = name.partition("/")
        found = dict.get(state, table)
        if type(found) is not PartDict:
            found = PartDict()
            dict.__setitem__(state, table, found)
        if value is None:
            dict.pop(found, key, None)
        else:
            dict.__setitem__(found, key, value)
    if moves and not _move_window(window, sorted(moves, key=lambda m: (m[1] is not None, m[0]))):
        return False
    head = changed.get(HEAD)
    if isinstance(head, dict):
        present = set(head.get(_TABLES, ()))
        for name in list(dict.keys(state)):
            kept = name in present if name in TABLES else name == WINDOW or name in head
            if not kept:
                dict.__delitem__(state, name)
        for name, value in head.items():
            if name not in (_TABLES, _ORDER, _BASE):
                dict.__setitem__(state, name, value)
        for name in present:
            if type(dict.get(state, name)) is not PartDict:
                dict.__setitem__(state, name, PartDict())
        base = head.get(_BASE)
        if base is not None and (type(window) is not PartList or window.base != base):
            return False
    state.settle()
    return True


def _move_window(window: Any, moves: list[tuple[int, Any]]) -> bool:
    """Drop entries from the window's front and append or replace entries (deletions first)."""
    if type(window) is not PartList:
        return False
    for position, value in moves:
        if value is None:
            if position < window.base:
                continue
            if position != window.base or not len(window):
                return False
            list.__delitem__(window, 0)
            window.base += 1
        elif position == window.base + len(window):
            list.append(window, value)
        elif window.base <= position < window.base + len(window):
            list.__setitem__(window, position - window.base, value)
        else:
            return False
    return True
