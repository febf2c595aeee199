"""Compare two checkouts' parser and read-only verdicts on every command we have: same or not.

A speed change to the parser or the read-only catalogue must not change one result. This runs
each checkout's ``src`` in its own interpreter over the same inputs and compares, per input,
the whole ``CommandModel`` (every command's argv values and literal/glob flags, assignments,
redirects and heredoc bodies, wrappers, context flags, text; the model's pipelines,
substitutions, functions, errors, unprovable reason) and the read-only verdict (read_only,
codes, reason). ``--danger`` adds the danger verdict.

    .venv/bin/python benchmarks/compare_parse.py OLD_SRC NEW_SRC [--mutants N] [--danger] [--json]
        [--ignore-field NAME]

``--ignore-field split`` leaves out a field the baseline's model does not have (``Word.split``).

Inputs: every command of ../shared/corpus/real/commands.jsonl and ../shared/corpus/peers/,
every rule's match / not_match example, every string constant in tests/ and N seeded mutants
of them made by benchmarks/fuzz_parse.py's mutator (deep nesting, spliced and truncated
inputs, random code points). An input whose walk ran out of the parser's time budget on
either side is counted apart: that outcome depends on the machine's load, not the code.
Exits 1 when any other input differs.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from _checkout import checkout_env  # benchmarks/_checkout.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
BUDGET_MARK = "ms budget"  # in the unprovable reason of a walk that ran out of time


def _corpus_commands() -> list[str]:
    found: list[str] = []
    files = [CORPUS / "real" / "commands.jsonl", *sorted((CORPUS / "peers").glob("*.jsonl"))]
    for path in files:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                row = json.loads(line)
                if isinstance(row.get("command"), str):
                    found.append(row["command"])
    return found


def _test_strings() -> list[str]:
    """Return every string constant of the test files (most are commands or parts of them)."""
    found: list[str] = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and 0 < len(value) <= 20_000:
                found.append(value)
    return found


def _rule_examples() -> list[str]:
    from tether.rules import all_rules

    return [ex for rule in all_rules() for ex in (*rule.match, *rule.not_match)]


def inputs(mutants: int) -> list[str]:
    """Return the inputs, distinct, in a stable order."""
    base = list(dict.fromkeys([*_corpus_commands(), *_rule_examples(), *_test_strings()]))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from fuzz_parse import mutate

    rng = random.Random(13)
    extra = [mutate(rng, base) for _ in range(mutants)]
    return list(dict.fromkeys([*base, *extra]))


def dump(inputs_path: str, out_path: str, danger: bool) -> int:
    """Child: write one ASCII line per input: the model and the verdicts, as ``ascii()``."""
    from tether.rules import readonly
    from tether.shell import parse_command

    assess_danger = None
    if danger:
        from tether.rules import danger as danger_rules

        assess_danger = danger_rules.assess
    texts = json.loads(Path(inputs_path).read_text(encoding="utf-8"))
    with open(out_path, "w", encoding="ascii") as out:
        for text in texts:
            model = parse_command(text)
            ro = readonly.assess(model)
            fields = [ascii(model), ascii((ro.read_only, ro.codes, ro.reason))]
            if assess_danger is not None:
                dg = assess_danger(model)
                fields.append(ascii((dg.level, dg.codes, dg.reason)))
            out.write("\t".join(fields).replace("\n", "\\n") + "\n")
    return 0


def _run(src: str, inputs_path: str, out_path: str, danger: bool) -> None:
    env = checkout_env(src)
    argv = [sys.executable, __file__, "--child", inputs_path, out_path]
    subprocess.run([*argv, *(["--danger"] if danger else [])], env=env, check=True)


def main() -> int:
    """Parse the arguments, run both checkouts and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old_src", nargs="?", help="the baseline's src directory")
    parser.add_argument("new_src", nargs="?", help="the changed checkout's src directory")
    parser.add_argument("--mutants", type=int, default=20_000, help="seeded mutants to add")
    parser.add_argument("--danger", action="store_true", help="compare the danger verdict too")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument(
        "--ignore-field",
        action="append",
        default=[],
        metavar="NAME",
        help="leave out a model field one side lacks (``--ignore-field split``: Word.split, "
        "new in the changed checkout); repeatable",
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return dump(args.child[0], args.child[1], args.danger)
    if not args.old_src or not args.new_src:
        parser.error("OLD_SRC and NEW_SRC are required (each a checkout's src directory)")
    texts = inputs(args.mutants)
    with tempfile.TemporaryDirectory() as tmp:
        inputs_path = os.path.join(tmp, "inputs.json")
        Path(inputs_path).write_text(json.dumps(texts), encoding="utf-8")
        outputs = []
        for i, src in enumerate((args.old_src, args.new_src)):
            path = os.path.join(tmp, f"out{i}.txt")
            _run(str(Path(src).resolve()), inputs_path, path, args.danger)
            outputs.append(Path(path).read_text(encoding="ascii").split("\n")[:-1])
    if args.ignore_field:
        fields = re.compile(rf", (?:{'|'.join(map(re.escape, args.ignore_field))})=[^,)]*")
        outputs = [[fields.sub("", line) for line in lines] for lines in outputs]
    same = timing = 0
    differ: list[int] = []
    for i, (old, new) in enumerate(zip(*outputs, strict=True)):
        if old == new:
            same += 1
        elif BUDGET_MARK in old or BUDGET_MARK in new:
            timing += 1
        else:
            differ.append(i)
    counts = {"inputs": len(texts), "identical": same, "differ": len(differ),
              "over_time_budget": timing}  # fmt: skip
    if args.json:
        print(json.dumps(counts))
    else:
        print(", ".join(f"{k}: {v:,}" for k, v in counts.items()))
        for i in differ[:20]:
            old, new = outputs[0][i], outputs[1][i]
            at = next(k for k in range(len(old) + 1) if old[k : k + 1] != new[k : k + 1])
            window = slice(max(0, at - 150), at + 150)
            print(f"\ninput {texts[i][:300]!a}\n  old …{old[window]}…\n  new …{new[window]}…")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
