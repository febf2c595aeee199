"""Compare two checkouts' danger verdicts on the same inputs: a speed change must change none.

Run from the repository root (the corpora are read from ../shared/corpus):

    .venv/bin/python benchmarks/compare_danger.py OLD_SRC NEW_SRC [--json]

OLD_SRC and NEW_SRC are ``src`` folders (``/tmp/main/src``, ``src``). Each is imported in its
own subprocess (``PYTHONPATH=SRC``), which parses and judges every input with its own code:
every real corpus command, every peer vector (``peers/*.jsonl`` rows with a ``command``), and
every danger rule's ``match``/``not_match`` example of either checkout, each also under a few
wrappings that exercise the cross-command facts (``cd`` before it, a redirect, ``sudo``, a
``bash -c`` payload, an environment prefix). The verdict compared is the whole
``DangerVerdict``: level, codes in order, reason and advice. Exit status 0 when every verdict
is identical, 1 otherwise (the first differences are printed).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from _checkout import checkout_env  # benchmarks/_checkout.py, beside this script

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
WRAPPINGS = (
    "sudo {c}",
    "cd /etc && {c}",
    "cd ~ && {c}",
    "cd && {c}",
    "{c} > /tmp/out",
    "bash -c {q}",
    "env TETHER_HOME=/tmp {c}",
    "ls | {c}",
)


def _corpus() -> list[str]:
    real = SHARED / "real" / "commands.jsonl"
    if not real.is_file():
        raise SystemExit(f"corpus missing: expected {real} (../shared/corpus beside the repo)")
    found = [json.loads(line)["command"] for line in real.open(encoding="utf-8")]
    for peers in sorted((SHARED / "peers").glob("*.jsonl")):
        for line in peers.open(encoding="utf-8"):
            row = json.loads(line)
            if isinstance(row.get("command"), str):
                found.append(row["command"])
    return found


def _child_examples() -> None:
    from tether.rules.danger import RULES

    print(json.dumps([e for r in RULES for e in (*r.match, *r.not_match)]))


def _child_judge(path: str) -> None:
    from tether.rules.danger import assess
    from tether.shell import parse_command

    out = []
    for text in json.loads(Path(path).read_text(encoding="utf-8")):
        v = assess(parse_command(text))
        out.append([v.level.label, list(v.codes), v.reason, v.instead])
    print(json.dumps(out))


def _run(src: str, *args: str) -> object:
    env = checkout_env(src)
    done = subprocess.run(
        [sys.executable, __file__, *args], env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{src}: the child failed ({' '.join(args)}):\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def _examples(src: str) -> list[str]:
    found = _run(src, "--child-examples")
    if not (isinstance(found, list) and all(isinstance(e, str) for e in found)):
        raise SystemExit(f"{src}: the child printed no list of example commands")
    return found


def main() -> int:
    """Judge every input with both checkouts and report whether any verdict differs."""
    if len(sys.argv) >= 2 and sys.argv[1] == "--child-examples":
        _child_examples()
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "--child-judge":
        _child_judge(sys.argv[2])
        return 0
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    old, new = sys.argv[1], sys.argv[2]
    as_json = "--json" in sys.argv[3:]
    examples = dict.fromkeys([*_examples(old), *_examples(new)])
    wrapped = [w.format(c=e, q=shlex.quote(e)) for e in examples for w in WRAPPINGS]
    inputs = list(dict.fromkeys([*_corpus(), *examples, *wrapped]))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(inputs, fh)
    try:
        a = _run(old, "--child-judge", fh.name)
        b = _run(new, "--child-judge", fh.name)
    finally:
        os.unlink(fh.name)
    assert isinstance(a, list) and isinstance(b, list)
    differ = [i for i in range(len(inputs)) if a[i] != b[i]]
    flagged = sum(1 for v in b if v[0] != "none")
    summary = {
        "inputs": len(inputs),
        "examples": len(examples),
        "wrapped": len(wrapped),
        "flagged": flagged,
        "different": len(differ),
    }
    if as_json:
        print(json.dumps(summary))
    else:
        print(
            f"{len(inputs):,} inputs ({len(examples):,} rule examples, {len(wrapped):,} wrapped"
            f" forms, the rest corpus and peers), {flagged:,} flagged: "
            f"{len(differ):,} verdicts differ"
        )
    for i in differ[:20]:
        print(f"\n{inputs[i]!r}\n  old: {a[i]}\n  new: {b[i]}")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
