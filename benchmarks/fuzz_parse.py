"""Fuzz the shell parser and the whole classify/danger path: crashes, exceptions, hangs.

Every input goes through ``tether.shell.parse_command`` and ``tether.classify.classify_command``
(parse, read-only catalogue, danger catalogue, interpreter scanner, nested reparses). A finding
is an input that raises, kills the process (a signal inside tree-sitter's C code: SIGSEGV,
SIGABRT), or takes longer than ``--hang`` seconds. The fuzzing runs in a child process that a
supervisor restarts after each finding, so one crash does not end the run; each finding is
written to ``--out`` (the input's bytes, and a line in ``findings.jsonl``).

Two engines. ``atheris`` (coverage-guided libFuzzer over the Python code, when ``pip install
atheris`` works here) and ``random`` (a mutator: token soup of shell syntax, byte flips, splices
of real commands, deep nesting, lone surrogates and control characters, as JSON can deliver
them). Both start from the catalogue's examples and a sample of the real corpus.

    .venv/bin/python benchmarks/fuzz_parse.py --seconds 600 [--engine atheris|random]
        [--out /tmp/tether-fuzz] [--hang 5] [--json]

Prints the executions, the rate and every finding; exits 1 when there was one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "real" / "commands.jsonl"
SEED_SAMPLE = 3000

TOKENS = (
    "$(", ")", "`", "${", "}", "{", "(", "((", "))", "[[", "]]", "[", "]", "<<", "<<-", "<<<",
    ">", ">>", "&>", ">&", "<&", "<(", ">(", "|", "|&", "||", "&&", ";", ";;", ";&", "&", "\n",
    "\\\n", "'", '"', "$'", '$"', "\\", "#", "!", "=", "+=", "*", "?", "~", "-", "--", "EOF",
    "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until", "case",
    "esac", "function", "select", "time", "coproc", "declare", "export", "eval", "exec",
    "bash -c", "sh -c", "sudo", "env", "xargs", "rm -rf /", "cat", "echo", "git", "python3 -c",
    "$x", "$@", "$#", "$?", "${x:-", "${x//", "${!x}", "$((", "1+", "x=", "a[", "]=",
    " ", "\t", "\x00", "\x01", "\x1b", "\u202e", "\ud800", "\udcff", "\uffff", "é",
)  # fmt: skip


def seeds() -> list[str]:
    """Return the starting inputs: every rule example and a sample of real commands."""
    from tether.rules import all_rules

    found = [ex for rule in all_rules() for ex in (*rule.match, *rule.not_match)]
    if CORPUS.is_file():
        lines = CORPUS.read_text(encoding="utf-8").splitlines()
        rng = random.Random(7)
        found += [json.loads(line)["command"] for line in rng.sample(lines, SEED_SAMPLE)]
    return found


def target(text: str) -> None:
    """Run one input through the parser and the whole classification."""
    from tether.classify import classify_command
    from tether.shell import parse_command

    parse_command(text)
    classify_command(text)


# --- the random engine ----------------------------------------------------------------------


def mutate(rng: random.Random, pool: list[str]) -> str:
    """Return a new input made from ``pool`` by one of a few mutation kinds."""
    base = rng.choice(pool)
    kind = rng.randrange(7)
    if kind == 0:  # token soup
        return "".join(rng.choice(TOKENS) for _ in range(rng.randrange(1, 80)))
    if kind == 1:  # insert tokens
        text = base
        for _ in range(rng.randrange(1, 8)):
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(TOKENS) + text[i:]
        return text
    if kind == 2:  # splice two inputs
        other = rng.choice(pool)
        return base[: rng.randrange(len(base) + 1)] + other[rng.randrange(len(other) + 1) :]
    if kind == 3:  # flip characters
        chars = list(base) or [" "]
        for _ in range(rng.randrange(1, 6)):
            chars[rng.randrange(len(chars))] = chr(rng.randrange(0x110000))
        return "".join(chars)
    if kind == 4:  # nest
        opener, closer = rng.choice(
            (("$(", ")"), ("(", ")"), ("{ ", ";}"), ("`", "`"), ("<(", ")"))
        )
        depth = rng.randrange(1, 60)
        return opener * depth + base + closer * rng.randrange(depth + 1)
    if kind == 5:  # repeat
        return (base + rng.choice((" | ", "; ", " && ", "\n", " "))) * rng.randrange(2, 40)
    return base[: rng.randrange(len(base) + 1)]  # truncate (unclosed quotes, heredocs)


def random_child(current: Path, seconds: float, hang: float, seed: int) -> int:
    """Fuzz until ``seconds`` pass; write each input to ``current`` first (a crash leaves it)."""
    rng = random.Random(seed)
    pool = seeds()
    target("warm up")
    deadline = time.monotonic() + seconds
    fd = os.open(current, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    runs = 0
    while time.monotonic() < deadline:
        text = mutate(rng, pool)
        data = text.encode("utf-8", "surrogatepass")
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        # No handler: if the input hangs in C code, SIGALRM's default action ends the process.
        signal.setitimer(signal.ITIMER_REAL, hang)
        try:
            target(text)
        except Exception as exc:  # a finding: report it and go on
            sys.stderr.write(json.dumps({"exception": f"{type(exc).__name__}: {exc}"}) + "\n")
            os.replace(current, f"{current}.exception-{runs}")
            fd = os.open(current, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        signal.setitimer(signal.ITIMER_REAL, 0)
        runs += 1
        if len(text) < 4000 and rng.random() < 0.01:
            pool.append(text)  # keep some mutants: mutations compound
        if runs % 1000 == 0:
            sys.stdout.write(f"{runs}\n")
            sys.stdout.flush()
    sys.stdout.write(f"{runs}\n")
    return 0


# --- the atheris engine ---------------------------------------------------------------------


def atheris_child(out: Path, seconds: float, hang: float) -> int:
    """Run libFuzzer (atheris) over the Python code; it writes crash-*/timeout-* artifacts."""
    import atheris

    corpus = out / "corpus"
    if not corpus.is_dir():
        corpus.mkdir(parents=True)
        for i, text in enumerate(seeds()):
            (corpus / f"seed-{i}").write_bytes(text.encode("utf-8", "surrogatepass"))
    with atheris.instrument_imports(include=["tether"]):
        import tether.classify
        import tether.shell.parse  # noqa: F401  (imported here only so atheris instruments it)

    def one(data: bytes) -> None:
        target(data.decode("utf-8", "surrogateescape"))

    atheris.Setup(
        [
            sys.argv[0],
            f"-max_total_time={int(seconds)}",
            f"-timeout={int(max(hang, 1))}",
            "-rss_limit_mb=2048",
            "-max_len=4096",
            f"-artifact_prefix={out}/",
            "-print_final_stats=1",
            str(corpus),
        ],
        one,
    )
    atheris.Fuzz()
    return 0


# --- the supervisor -------------------------------------------------------------------------


def supervise(args: argparse.Namespace) -> dict[str, object]:
    """Run the child engine until the time is up, restarting it after each finding."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    current = out / "current"
    findings: list[dict[str, object]] = []
    runs = 0
    start = time.monotonic()
    restarts = 0
    while True:
        left = args.seconds - (time.monotonic() - start)
        if restarts and left <= 5:  # one run however short the budget; restarts need 5 s
            break
        left = max(1.0, left)
        seed = str(args.seed + restarts)
        cmd = [sys.executable, __file__, "--child", args.engine, "--seconds", f"{left:.0f}",
               "--hang", str(args.hang), "--out", str(out), "--seed", seed]  # fmt: skip
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        lines = [x for x in done.stdout.splitlines() if x.isdigit()]
        runs += int(lines[-1]) if lines else 0
        for line in done.stderr.splitlines():
            if line.startswith('{"exception"'):
                findings.append(json.loads(line))
        if args.engine == "atheris":
            runs += sum(
                int(x.split()[-1])
                for x in done.stderr.splitlines()
                if "stat::number_of_executed_units" in x
            )
        if done.returncode != 0:
            kept = out / f"crash-{restarts}"
            if current.is_file():
                current.replace(kept)
            finding = {"status": done.returncode, "signal": _signal_name(done.returncode),
                       "input": str(kept), "stderr": done.stderr[-2000:]}  # fmt: skip
            findings.append(finding)
        restarts += 1
    elapsed = time.monotonic() - start
    report: dict[str, object] = {
        "engine": args.engine,
        "seconds": round(elapsed, 1),
        "executions": runs,
        "per_second": round(runs / elapsed, 1) if elapsed else 0,
        "findings": findings,
    }
    with (out / "findings.jsonl").open("a", encoding="utf-8") as f:
        for finding in findings:
            f.write(json.dumps(finding) + "\n")
    return report


def _signal_name(status: int) -> str:
    if status >= 0:
        return ""
    try:
        return signal.Signals(-status).name
    except ValueError:
        return str(-status)


def main() -> int:
    """Parse the options and fuzz."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to fuzz (default 60)")
    parser.add_argument("--engine", choices=("atheris", "random"), default=None,
                        help="atheris when importable, else random")  # fmt: skip
    parser.add_argument("--out", default="/tmp/tether-fuzz", help="where findings are written")
    parser.add_argument("--hang", type=float, default=5.0, help="seconds one input may take")
    parser.add_argument("--seed", type=int, default=1, help="the random engine's seed")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--child", choices=("atheris", "random"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "random":
        return random_child(Path(args.out) / "current", args.seconds, args.hang, args.seed)
    if args.child == "atheris":
        return atheris_child(Path(args.out), args.seconds, args.hang)
    if args.engine is None:
        import importlib.util

        args.engine = "atheris" if importlib.util.find_spec("atheris") else "random"
    report = supervise(args)
    findings = report["findings"]
    assert isinstance(findings, list)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{report['engine']}: {report['executions']:,} inputs in {report['seconds']} s "
              f"({report['per_second']}/s), {len(findings)} findings")  # fmt: skip
        for finding in findings:
            print(" ", json.dumps(finding)[:400])
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
