"""Place new values in a round-trip YAML document without disturbing its layout.

ruamel.yaml keeps comments, but it attaches the blank lines and comments that follow a block to
that block's deepest last entry; these helpers move them so that an appended key lands before
them, and they write strings YAML cannot hold raw in double quotes.
"""

from __future__ import annotations

import io
from typing import Any, cast

from tether.config.yamlio import new_yaml


def new_map() -> Any:
    """Return an empty round-trip mapping."""
    from ruamel.yaml.comments import CommentedMap

    return CommentedMap()


def put(node: Any, name: str, value: Any, *, root: bool = False) -> None:
    """Set ``node[name]``; when appending, keep blank lines and comments after the new key.

    ruamel attaches the blank lines and comments that follow a block (often the spacing and
    heading comment of the next section) to the block's deepest last entry, so a plain append
    would land after them. Moving the part after that entry's own end-of-line comment onto the
    new key keeps the layout. At the document's end, blank lines stay where they are: they
    separate the new section from the one before.
    """
    old = node.get(name)
    replacing = (hasattr(old, "items") or isinstance(old, list)) and len(old) > 0
    if replacing:
        # The old block's last line goes away with it, but what followed it must stay.
        slot = _trailing(old)
    else:
        slot = _trailing(node) if name not in node and len(node) > 0 else None
    node[name] = value
    if slot is None:
        return
    entry, index = slot
    own, _, rest = entry[index].value.partition("\n")
    if not rest or (root and not replacing and "#" not in rest):
        return
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    if own:
        entry[index].value = own + "\n"
    else:
        entry[index] = None
    token = CommentToken("\n" + rest, CommentMark(0), None)
    # The new key may be a block itself: the comment goes after its deepest last entry.
    holder, key, index = node, cast(Any, name), 2
    while (hasattr(holder[key], "items") or isinstance(holder[key], list)) and holder[key]:
        holder = holder[key]
        key, index = (list(holder)[-1], 2) if hasattr(holder, "items") else (len(holder) - 1, 0)
    slots: list[Any] = [None, None, None, None]
    slots[index] = token
    holder.ca.items[key] = slots


def _trailing(node: Any) -> tuple[list[Any], int] | None:
    """Return the comment slot (entry, index) holding what follows ``node``'s last line."""
    while True:
        if hasattr(node, "items"):
            if not node:
                return None
            last: Any = list(node)[-1]
            index = 2
        elif isinstance(node, list):
            if not node:
                return None
            last, index = len(node) - 1, 0
        else:
            return None
        child = node[last]
        if (hasattr(child, "items") or isinstance(child, list)) and child:
            node = child
            continue
        entry = node.ca.items.get(last) if hasattr(node, "ca") else None
        if entry and len(entry) > index and entry[index] is not None:
            return entry, index
        return None


def to_yaml(value: Any) -> Any:
    """Return ``value`` as round-trip YAML nodes (lists and mappings in block style)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, dict):
        mapping = CommentedMap()
        for name, item in value.items():
            mapping[_scalar(name)] = _scalar(item)
        return mapping
    if isinstance(value, list | tuple):
        return CommentedSeq(_scalar(item) for item in value)
    return _scalar(value)


def _scalar(value: Any) -> Any:
    # ruamel writes some characters (NEL, line and paragraph separators) raw in single-quoted
    # scalars, where they read back as line breaks; double quotes escape every one of them.
    if isinstance(value, str) and not value.isprintable():
        from ruamel.yaml.scalarstring import DoubleQuotedScalarString

        return DoubleQuotedScalarString(value)
    return value


def dump(document: Any) -> str:
    """Return the document's text, ending with a newline."""
    stream = io.StringIO()
    new_yaml().dump(document, stream)
    text = stream.getvalue()
    # ruamel drops the final newline when the last key it attached to was removed.
    return text if text.endswith("\n") or not text else text + "\n"


__all__ = ["dump", "new_map", "put", "to_yaml"]
