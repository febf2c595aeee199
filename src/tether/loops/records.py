"""Typed records over the session state: named, typed fields on the stored dicts and lists.

The guard reads and changes the state of :mod:`tether.loops.state` through ``Session``,
``SigRecord``, ``Pending``, ``ToolStreak``, ``Talk`` and ``AgentRounds``: slotted views over
those very dicts and lists, so a field has a name and a type and what is stored stays the same
JSON. A view costs one small object when it is used; converting the whole state to objects and
back on every call would walk every record (the state is read and written once per call).
Records stay packed (a field at its default is left out), so nothing repacks them per call.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar, overload

from tether.loops.state import (
    P_ANSWER,
    P_BLOCKED,
    P_KIND,
    P_SEQ,
    P_SIG,
    P_TIME,
    P_TOOL,
    P_WARNED,
    State,
    repair,
)

# The streak fields progress elsewhere resets.
_PROGRESS_FIELDS = ("fails", "same", "blocked")


T = TypeVar("T")


_REQUIRED: Any = object()


class _Key(Generic[T]):
    """A field of a record stored as a JSON object: ``record.name`` is ``data["name"]``.

    A field with a ``default`` is stored packed: absent while it holds the default (see
    ``pack``), so setting it back to the default removes it.
    """

    __slots__ = ("default", "name")

    def __init__(self, default: Any = _REQUIRED) -> None:
        self.default = default
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type) -> _Key[T]: ...
    @overload
    def __get__(self, obj: _Record, owner: type) -> T: ...
    def __get__(self, obj: _Record | None, owner: type) -> _Key[T] | T:
        if obj is None:
            return self
        value: T = (
            obj.data[self.name]
            if self.default is _REQUIRED
            else obj.data.get(self.name, self.default)
        )
        return value

    def __set__(self, obj: _Record, value: T) -> None:
        default = self.default
        if default is not _REQUIRED and (
            value is default or (type(value) is type(default) and value == default)
        ):
            obj.data.pop(self.name, None)
        else:
            obj.data[self.name] = value


class _At(Generic[T]):
    """A field of a record stored as a JSON array: ``record.name`` is ``row[index]``.

    ``default`` is what a shorter row (written by an older Tether) holds there.
    """

    __slots__ = ("default", "index")

    def __init__(self, index: int, default: Any = None) -> None:
        self.index, self.default = index, default

    @overload
    def __get__(self, obj: None, owner: type) -> _At[T]: ...
    @overload
    def __get__(self, obj: _Row, owner: type) -> T: ...
    def __get__(self, obj: _Row | None, owner: type) -> _At[T] | T:
        if obj is None:
            return self
        row = obj.row
        value: Any = row[self.index] if self.index < len(row) else None
        found: T = self.default if value is None else value
        return found

    def __set__(self, obj: _Row, value: T) -> None:
        row = obj.row
        while len(row) <= self.index:
            row.append(None)
        row[self.index] = value


class _Record:
    __slots__ = ("data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data


class _Row:
    __slots__ = ("row",)

    def __init__(self, row: list[Any]) -> None:
        self.row = row


class SigRecord(_Record):
    """One signature's streaks (see ``new_record``)."""

    __slots__ = ()
    tool: _Key[str] = _Key()
    kind: _Key[str] = _Key()
    preview: _Key[str] = _Key()
    res: _Key[str] = _Key("")  # canonical fingerprint of the last result ("" until needed)
    raw: _Key[str] = _Key("")  # raw fingerprint of the last result
    epoch: _Key[int] = _Key(0)  # the session's progress epoch its streaks belong to
    same: _Key[int] = _Key(0)  # identical successful results in a row
    since: _Key[str] = _Key("")  # call id where that streak began
    fails: _Key[int] = _Key(0)  # failures since progress
    fail_since: _Key[str] = _Key("")
    stubborn: _Key[int] = _Key(0)  # identical failures in a row, even across changes
    blocked: _Key[int] = _Key(0)  # refusals since the streak began
    poll_t0: _Key[float | None] = _Key(None)
    poll_s: _Key[float] = _Key(0.0)  # seconds the poll streak waited
    wait: _Key[float | None] = _Key(None)  # seconds the call sleeps by itself
    last: _Key[int] = _Key(0)  # seq of the last use, for eviction
    t: _Key[float | None] = _Key(None)  # time of the last result
    size: _Key[int] = _Key(0)  # length of the last result's canonical text (did it grow?)
    reads_at: _Key[int] = _Key(0)  # the session's read count at this read's last result
    rereads_at: _Key[int] = _Key(0)  # the session's unchanged re-read count then
    passes: _Key[int] = _Key(0)  # unchanged re-reads in passes of unchanged re-reads


class Pending(_Row):
    """A call begun and not finished: [seq, sig, kind, tool, time, blocked, warned, answer]."""

    __slots__ = ()
    seq: _At[int] = _At(P_SEQ)
    sig: _At[str] = _At(P_SIG)
    kind: _At[str] = _At(P_KIND)
    tool: _At[str] = _At(P_TOOL)
    time: _At[float | None] = _At(P_TIME)
    blocked: _At[bool] = _At(P_BLOCKED, False)
    warned: _At[bool] = _At(P_WARNED, False)
    # [action, codes, message] given before the call ran, or None (an ALLOW).
    answer: _At[list[Any] | None] = _At(P_ANSWER)

    @property
    def answered(self) -> bool:
        """Return True when the row records the answer (rows from before answers were kept)."""
        return len(self.row) > P_ANSWER


class ToolStreak(_Row):
    """One tool's failures in a row: [count, call id of the first, fingerprint of the last]."""

    __slots__ = ()
    count: _At[int] = _At(0, 0)
    first: _At[str] = _At(1, "")
    res: _At[str] = _At(2, "")


class Talk(_Row):
    """The assistant's visible text: [hash of the last, identical in a row, texts in a row]."""

    __slots__ = ()
    digest: _At[str] = _At(0, "")
    same: _At[int] = _At(1, 0)
    total: _At[int] = _At(2, 0)


class AgentRounds(_Row):
    """A watched agent's progress, judged by effect.

    [rounds, warned this stretch, round of the last progress, {tree: first round there},
    hashes of the content words it has said]. Rounds without progress are counted from the
    later of the last progress (new text, a fail→pass) and the round the files first reached
    the state they are in now: a write a later revert undoes gives its progress back.
    """

    __slots__ = ("tree",)
    rounds: _At[int] = _At(0, 0)
    warned: _At[bool] = _At(1, False)
    moved: _At[int] = _At(2, 0)
    trees: _At[dict[str, int]] = _At(3, None)
    words: _At[list[str]] = _At(4, None)

    def __init__(self, row: list[Any], tree: str = "0") -> None:
        super().__init__(row)
        self.tree = tree

    def stalled(self) -> int:
        """Return the rounds since the agent last made progress that still stands."""
        trees = self.trees or {"0": 0}
        reached = trees.get(self.tree, int(self.rounds))
        return int(self.rounds) - max(int(self.moved), reached)


class FileState(_Record):
    """A file's content as the write and edit tools left it (``files[path]`` in the state).

    ``token`` names the content: ``""`` for the content the session found (never seen), the
    hash of a written content, or the hash of that base with the lines edits removed and added
    (a multiset of line hashes in ``delta``, so an edit quoting different context still lands on
    the same token). ``seen`` lists the tokens it had, oldest first.
    """

    __slots__ = ("path", "would_return")
    token: _Key[str] = _Key("")
    base: _Key[str] = _Key("")  # the token edits count from (a write sets it)
    delta: _Key[dict[str, int]] = _Key({})  # line hash -> lines added minus removed
    seen: _Key[list[str]] = _Key([])
    returns: _Key[int] = _Key(0)  # times it went back to an earlier token
    last: _Key[int] = _Key(0)  # seq of the last change, for eviction

    def __init__(self, data: dict[str, Any], path: str = "") -> None:
        super().__init__(data)
        self.path = path
        self.would_return = False  # before a write: it would go back to an earlier token


class Echo(_Row):
    """One tool's calls in a row with different arguments and the same result.

    [result fingerprint, distinct signatures, call id of the first, last signature]
    """

    __slots__ = ()
    res: _At[str] = _At(0, "")
    count: _At[int] = _At(1, 0)
    since: _At[str] = _At(2, "")
    sig: _At[str] = _At(3, "")


class Session(_Record):
    """The whole session state (the module docstring's layout), typed."""

    __slots__ = ()
    calls: _Key[int] = _Key()
    warnings: _Key[int] = _Key()
    blocks: _Key[int] = _Key()
    streaks: _Key[dict[str, int]] = _Key()
    updated: _Key[float] = _Key()
    seq: _Key[int] = _Key()
    turn: _Key[int] = _Key()
    turn_calls: _Key[int] = _Key()
    window: _Key[list[list[Any]]] = _Key()
    done: _Key[list[str]] = _Key()
    halted: _Key[str] = _Key()
    reruns: _Key[int] = _Key(0)  # a rerun count the user asked for in this turn
    paused: _Key[float] = _Key(0.0)  # seconds the last call slept (`sleep N` alone), or 0
    reads: _Key[int] = _Key(0)  # read results recorded
    rereads: _Key[int] = _Key(0)  # of them, unchanged re-reads
    tree: _Key[str] = _Key("0")  # hash of the files' net changes (0: none)

    @classmethod
    def load(cls, state: State | None) -> Session:
        """Return the typed state of a stored one (old or foreign states repaired, see coerce).

        Records stay packed: their fields read their defaults when absent. A record stored in
        full (by a Tether from before packing) reads the same and sheds a field each time one
        goes back to its default; the window evicts it soon anyway. Nothing walks every record
        here: the state is loaded on every call.
        """
        return cls(repair(state))

    @property
    def talk(self) -> Talk:
        """Return the assistant-text counters."""
        return Talk(self.data["talk"])

    def record(self, sig: str) -> SigRecord | None:
        """Return the record of signature ``sig``, or None.

        A record whose streaks predate progress made elsewhere (a later epoch) gets them back
        at zero here, when it is next used, rather than every record at the time.
        """
        found = self.data["sigs"].get(sig)
        if found is None:
            return None
        epoch = self.data.get("epoch", 0)
        if found.get("epoch", 0) != epoch:
            for key in _PROGRESS_FIELDS:
                found.pop(key, None)
            if epoch:
                found["epoch"] = epoch
            else:
                found.pop("epoch", None)
        return SigRecord(found)

    def add_record(self, sig: str, tool: str, kind: str, preview: str) -> SigRecord:
        """Start the record of signature ``sig``."""
        rec = self.data["sigs"][sig] = {"tool": tool, "kind": kind, "preview": preview}
        epoch = self.data.get("epoch", 0)
        if epoch:
            rec["epoch"] = epoch
        return SigRecord(rec)  # packed: every other field at its default (see new_record)

    def progress_besides(self, rec: SigRecord) -> None:
        """Restart every other signature's streaks: something changed since they ran.

        O(1): the session's epoch moves on and ``record`` resets an older record when used.
        """
        epoch = self.data["epoch"] = int(self.data.get("epoch", 0)) + 1
        rec.epoch = epoch

    def sigs(self) -> dict[str, Any]:
        """Return the raw signature table (for the cycle detector's previews)."""
        table: dict[str, Any] = self.data["sigs"]
        return table

    def pending(self, call_id: str) -> Pending | None:
        """Return the unfinished call ``call_id``, or None."""
        row = self.data["pending"].get(call_id)
        return Pending(row) if row is not None else None

    def begin(
        self,
        call_id: str,
        seq: int,
        sig: str,
        kind: str,
        tool: str,
        time: float | None,
        blocked: bool,
        warned: bool,
        answer: list[Any] | None,
    ) -> None:
        """Record that call ``call_id`` was answered and may now run."""
        self.data["pending"][call_id] = [seq, sig, kind, tool, time, blocked, warned, answer]

    def finish(self, call_id: str) -> Pending | None:
        """Remove and return the unfinished call ``call_id`` (None if unknown)."""
        row = self.data["pending"].pop(call_id, None)
        return Pending(row) if row is not None else None

    def oldest_pending(self, sig: str) -> str | None:
        """Return the id of the oldest unnamed pending call with ``sig`` (FIFO pairing)."""
        best: str | None = None
        best_seq = 0
        for cid, row in self.data["pending"].items():
            if (
                row[P_SIG] == sig
                and cid.startswith("#")
                and (best is None or row[P_SEQ] < best_seq)
            ):
                best, best_seq = cid, row[P_SEQ]
        return best

    def finished(
        self, seq: int, call_id: str, sig: str, res: str, kind: str, status: str, grew: bool = False
    ) -> None:
        """Append a finished (or refused) call to the window (``grew``: its output extended)."""
        entry: list[Any] = [seq, call_id, sig, res, kind, status]
        if grew:
            entry.append(1)
        self.data["window"].append(entry)

    def tool_streak(self, tool: str) -> ToolStreak | None:
        """Return the failure streak of ``tool``, or None."""
        row = self.data["tools"].get(tool)
        return ToolStreak(row) if row is not None else None

    def start_tool_streak(self, tool: str, call_id: str, res: str) -> ToolStreak:
        """Start (or restart) the failure streak of ``tool`` at zero."""
        row = self.data["tools"][tool] = [0, call_id, res]
        return ToolStreak(row)

    def forget_tool(self, tool: str) -> None:
        """End ``tool``'s failure streak (it succeeded)."""
        self.data["tools"].pop(tool, None)

    def end_tool_streaks(self, keep: str | None = None) -> None:
        """Forget every tool's failure streak but ``keep``'s."""
        tools: dict[str, Any] = self.data["tools"]
        for name in [t for t in tools if t != keep]:
            del tools[name]

    def agent(self, key: str) -> AgentRounds:
        """Return the progress counters of agent ``key``, starting them if new."""
        return AgentRounds(self.data["agents"].setdefault(key, [0, False]), self.tree)

    def start_agent(self, key: str) -> None:
        """Start tracking agent ``key`` from zero."""
        self.data["agents"][key] = [0, False]

    def preview_of(self, sig: str) -> str:
        """Return the preview of signature ``sig`` (the signature itself if evicted)."""
        rec = self.data["sigs"].get(sig)
        return str(rec["preview"]) if rec is not None else sig

    def file(self, path: str) -> FileState:
        """Return the content record of ``path``, starting it if new."""
        files: dict[str, Any] = self.data.setdefault("files", {})
        found = files.get(path)
        if found is None:
            found = files[path] = {}
        return FileState(found, path)

    def files(self) -> dict[str, Any]:
        """Return the raw file table (path -> record)."""
        table: dict[str, Any] = self.data.setdefault("files", {})
        return table

    def echo(self, tool: str) -> Echo | None:
        """Return the same-result streak of ``tool``, or None."""
        row = self.data.setdefault("echo", {}).get(tool)
        return Echo(row) if row is not None else None

    def start_echo(self, tool: str, res: str, call_id: str, sig: str) -> Echo:
        """Start ``tool``'s same-result streak at one call."""
        echoes: dict[str, Any] = self.data.setdefault("echo", {})
        if len(echoes) >= 32 and tool not in echoes:
            del echoes[next(iter(echoes))]
        row = echoes[tool] = [res, 1, call_id, sig]
        return Echo(row)

    def stop_agent(self, key: str) -> None:
        """Stop tracking agent ``key``."""
        self.data["agents"].pop(key, None)

    def count_codes(self, codes: tuple[str, ...]) -> None:
        """Add one intervention per code to the tally ``tether stats`` shows."""
        tally = self.data.get("codes")
        if not isinstance(tally, dict):
            tally = self.data["codes"] = {}
        for code in codes:
            tally[code] = int(tally.get(code, 0)) + 1

    def note_unguarded(self, tool: str, preview: str) -> dict[str, Any] | None:
        """Count a result that came back without its call (no decision was asked for it).

        Return the session's tally the first time, for the user to be told once per session;
        None after that. Kept as ``unguarded`` beside ``codes`` for ``tether stats`` and the
        doctor: ``{"n", "tools": {tool: n}, "first": preview, "told"}``.
        """
        tally = self.data.get("unguarded")
        if not isinstance(tally, dict):
            tally = self.data["unguarded"] = {"n": 0, "tools": {}, "first": preview}
        tally["n"] = int(tally.get("n", 0)) + 1
        tools = tally.get("tools")
        if not isinstance(tools, dict):
            tools = tally["tools"] = {}
        tools[tool] = int(tools.get(tool, 0)) + 1
        if tally.get("told"):
            return None
        tally["told"] = True
        return {"n": tally["n"], "tools": dict(tools), "first": str(tally.get("first", ""))}
