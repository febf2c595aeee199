"""What a pipeline of literal text and decoders prints, when that is known before it runs.

``printf '\\x72\\x6d …'``, ``echo -e '\\x..'``, ``echo cm0gLXJmIC8= | base64 -d``, ``xxd -r -p
<<< 726d…``, ``rev``, ``tr`` rot13 …: the bytes are static, so the text a shell would be fed
can be computed and judged like a typed command. ``static_output`` returns it, or None when any
part is only known at run time (a file, a variable, a download, a decompressor).
"""

from __future__ import annotations

import binascii
from collections.abc import Sequence

from tether.shell.model import SimpleCommand, command_name
from tether.shell.options import Parsed, parse
from tether.shell.readers import PRINTF, xxd_words
from tether.shell.specs import grammar_of
from tether.shell.tools import TOOLS
from tether.shell.words import decode_ansi_c

MAX_DECODED = 65_536  # bytes of decoded text judged; more is not "static" for our purpose


def _name(cmd: SimpleCommand) -> str:
    return command_name(cmd.argv[0].value).rpartition("/")[2].lower() if cmd.argv else ""


def _escapes(text: str) -> str:
    """Decode printf's/``echo -e``'s backslash escapes (``\\xHH``, ``\\0NNN``, ``\\n`` …)."""
    if "\\" not in text:
        return text
    # printf and echo -e write octal as \0NNN (echo) or \NNN (printf): both read here.
    return decode_ansi_c(text.replace("\\0", "\\"))


def printf_output(args: Sequence[str]) -> str | None:
    """Return what ``printf FORMAT ARGS…`` prints (None for conversions we do not model)."""
    if not args:
        return None
    fmt, rest = args[0], list(args[1:])
    out: list[str] = []
    while True:
        i, n, used = 0, len(fmt), 0
        piece: list[str] = []
        while i < n:
            c = fmt[i]
            if c != "%":
                piece.append(c)
                i += 1
                continue
            if fmt[i : i + 2] == "%%":
                piece.append("%")
                i += 2
                continue
            j = i + 1
            while j < n and fmt[j] in "-+ #0123456789.":
                j += 1
            if j >= n or fmt[j] not in "sbdic":
                return None
            value = rest[used] if used < len(rest) else ""
            used += 1
            piece.append("\x00" + (_escapes(value) if fmt[j] == "b" else value) + "\x01")
            i = j + 1
        text = _escapes("".join(piece))
        # Escapes apply to the format, not to %s arguments (kept apart by the markers).
        out.append(text.replace("\x00", "").replace("\x01", ""))
        rest = rest[used:]
        if not rest or not used:
            break
    return "".join(out)


def echo_output(args: Sequence[str]) -> str:
    """Return what bash's ``echo`` prints (``-e`` decodes escapes, ``-n`` drops the newline)."""
    escapes, newline = False, True
    words = list(args)
    while words and len(words[0]) > 1 and words[0][0] == "-" and set(words[0][1:]) <= set("neE"):
        flags = words.pop(0)[1:]
        for f in flags:
            if f == "n":
                newline = False
            else:
                escapes = f == "e"
    text = " ".join(words)
    return (_escapes(text) if escapes else text) + ("\n" if newline else "")


def _tr_set(spec: str) -> str | None:
    out: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-":
            lo, hi = ord(spec[i]), ord(spec[i + 2])
            if hi < lo or hi - lo > 256:
                return None
            out.extend(chr(c) for c in range(lo, hi + 1))
            i += 3
        elif spec[i] in "[\\":
            return None  # classes and escapes: not modelled
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


def _decode(cmd: SimpleCommand, data: str) -> str | None:
    """Return ``data`` after the decoder ``cmd`` (None: not a decoder we can run statically)."""
    name = _name(cmd)
    args = cmd.args
    if not all(w.literal for w in args):
        return None
    if name in ("base64", "base32"):
        parsed = parse(TOOLS[name], args)
        if not parsed.has("--decode", "-D") or parsed.operands or parsed.has("--input"):
            return None
        compact = "".join(data.split())
        try:
            if name == "base64":
                # base64 -d stops at the first byte outside the alphabet; -i skips them.
                strict = not parsed.has("--ignore-garbage")
                raw = binascii.a2b_base64(compact, strict_mode=strict)
            else:
                import base64  # only here: base32 payloads are rare

                raw = base64.b32decode(compact)
        except (binascii.Error, ValueError):
            return None
        return raw.decode("utf-8", "replace")
    if name == "xxd":
        parsed = parse(TOOLS["xxd"], xxd_words(args))
        if not (parsed.has("-r") and parsed.has("-p")) or parsed.operands:
            return None
        try:
            return bytes.fromhex("".join(data.split())).decode("utf-8", "replace")
        except ValueError:
            return None
    if name == "rev" and not args:
        return "\n".join(line[::-1] for line in data.split("\n"))
    if name == "tr":
        return _tr(parse(TOOLS["tr"], args), data)
    return None


def _tr(parsed: Parsed, data: str) -> str | None:
    """Return what ``tr SET1 SET2`` or ``tr -d SET1`` prints (None: any other form)."""
    sets = [_tr_set(w.value) for w in parsed.operands]
    if parsed.error is not None or not all(sets):
        return None
    if parsed.names() == ["--delete"] and len(sets) == 1:
        return data.translate(dict.fromkeys(map(ord, sets[0] or "")))
    if parsed.options or len(sets) != 2:
        return None  # -c, -s, -t: not modelled
    src, dst = sets[0] or "", sets[1] or ""
    dst = dst + dst[-1] * max(0, len(src) - len(dst))
    return data.translate(str.maketrans(src, dst[: len(src)]))


def _source(cmd: SimpleCommand) -> str | None:
    """Return the text a command reads on stdin from its own here-string or heredoc."""
    for r in cmd.redirects:
        if r.op in ("<<", "<<-") and r.body is not None:
            return r.body
        if r.op == "<<<" and r.target is not None:
            return r.target.value + "\n" if r.target.literal else None
        if r.op == "<":
            return None
    return None


def produced(cmd: SimpleCommand) -> str | None:
    """Return what ``echo``/``printf`` of literals or ``cat`` of a heredoc prints."""
    name = _name(cmd)
    if name in ("echo", "printf"):
        if not all(w.literal for w in cmd.args):
            return None
        if name == "echo":
            return echo_output([w.value for w in cmd.args])
        parsed = parse(grammar_of(PRINTF), cmd.args)  # the catalogue's printf
        if parsed.error is not None or parsed.options:
            return None  # -v VAR prints nothing; an unknown option is an error
        return printf_output([w.value for w in parsed.operands])
    if name == "cat" and not cmd.args:
        return _source(cmd)
    return None


def is_decoder(cmd: SimpleCommand) -> bool:
    """Return True for the decoders ``static_output`` can run (base64 -d, xxd -r -p …)."""
    return _name(cmd) in ("base64", "base32", "xxd", "rev", "tr")


def static_output(stages: Sequence[SimpleCommand]) -> str | None:
    """Return what the pipeline ``stages`` (first stage first) prints, when it is static."""
    if not stages or len(stages) > 8:
        return None
    first, decoders = stages[0], stages[1:]
    text = produced(first)
    if text is None and is_decoder(first):
        text = _source(first)
        decoders = stages
    if text is None:
        return None
    for decoder in decoders:
        if not is_decoder(decoder) or len(text) > MAX_DECODED * 2:
            return None
        text = _decode(decoder, text)
        if text is None:
            return None
    return text if len(text) <= MAX_DECODED else None  # too big to call static


def static_input(stages: Sequence[SimpleCommand]) -> str | None:
    """Return what the last of ``stages`` hands the next stage, from its nearest static source.

    ``ls | echo cm0= | base64 -d``: echo ignores its input, so the text starts at echo.
    """
    for start in range(len(stages) - 1, -1, -1):
        text = static_output(stages[start:])
        if text is not None or not is_decoder(stages[start]):
            return text
    return None


def substitution_output(word: str) -> str | None:
    """Return what ``$(…)``, `` `…` `` or ``<(…)`` prints, when it is a static pipeline."""
    if word.startswith(("$(", "<(")) and word.endswith(")") and not word.startswith("$(("):
        inner = word[2:-1]
    elif word.startswith("`") and word.endswith("`") and len(word) > 1:
        inner = word[1:-1]
    else:
        return None
    if len(inner) > MAX_DECODED or "$" in inner or "`" in inner:
        return None
    from tether.shell.parse import parse_command  # only here: a nested parse

    model = parse_command(inner)
    if not model.ok or len(model.pipelines) > 1:
        return None
    if model.pipelines and len(model.pipelines[0]) != len(model.commands):
        return None
    stages = list(model.commands)
    if [c.stage for c in stages] != list(range(len(stages))):
        return None
    return static_output(stages)


__all__ = [
    "echo_output",
    "is_decoder",
    "printf_output",
    "produced",
    "static_output",
    "substitution_output",
    "xxd_words",
]
