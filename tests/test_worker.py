"""The isolated classification worker, with real processes: faults fail closed, then it recovers.

Fault workers are small scripts that behave like the real worker (they call its ``handle``)
except when the command contains a marker: then they hang, crash, print garbage, print a
valid-looking but wrong verdict, or kill themselves with a signal.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.approval import review
from tether.approval.evaluate import evaluate
from tether.approval.isolation import IsolatedClassifier, default_argv
from tether.approval.policy import WORKER_CODE, Policy
from tether.model import Action
from tether.rules.base import Danger

PAD = "\n" + "# padding to cross the isolation threshold\n" * 120  # ~5 KB of shell comments
SECRET = "hunter2-do-not-leak"

FAULTY = textwrap.dedent(
    """
    import json, os, signal, sys, time
    from tether.approval import worker

    args = sys.argv[1:]
    if "--memory-mb" in args:
        worker._limit_memory(int(args[args.index("--memory-mb") + 1]))
    env_dump = {env_dump!r}
    if env_dump:
        with open(env_dump, "w") as fh:
            json.dump(dict(os.environ), fh)
    for line in sys.stdin:
        request = json.loads(line)
        command = request.get("command", "")
        sys.stderr.write("worker stderr: " + command[:200] + " {secret}\\n")
        sys.stderr.flush()
        if "HANG" in command:
            time.sleep(3600)
        if "CRASH" in command:
            sys.exit(3)
        if "SIGNAL" in command:
            os.kill(os.getpid(), signal.SIGKILL)
        if "GARBAGE" in command:
            print("this is not json {{", flush=True)
            continue
        if "WRONGLEVEL" in command:
            answer = worker.handle(request)
            answer["danger"] = "none"  # claims harmless while naming a hardline rule
            print(json.dumps(answer), flush=True)
            continue
        if "WRONGID" in command:
            answer = worker.handle(request)
            answer["id"] = request["id"] + 1
            print(json.dumps(answer), flush=True)
            continue
        if "UNKNOWNKIND" in command:
            print(json.dumps({{"id": request["id"], "kind": "allow"}}), flush=True)
            continue
        if "PONG" in command:
            print(json.dumps({{"id": request["id"], "kind": "pong"}}), flush=True)
            continue
        if "HOG" in command:
            hog = bytearray(4 * 1024 * 1024 * 1024)
        print(json.dumps(worker.handle(request)), flush=True)
    """
)


def faulty_worker(tmp_path: Path, env_dump: str = "") -> list[str]:
    script = tmp_path / "faulty_worker.py"
    script.write_text(FAULTY.format(env_dump=env_dump, secret=SECRET), encoding="utf-8")
    return [sys.executable, str(script)]


@pytest.fixture
def classifier(tmp_path: Path) -> Iterator[IsolatedClassifier]:
    c = IsolatedClassifier(faulty_worker(tmp_path), deadline=3.0, memory_mb=512)
    yield c
    c.close()


POLICY = Policy(threshold=1024, deadline=3.0)
FAULTS = {
    "HANG": "timed out after 3 s",
    "CRASH": "exited with status 3",
    "SIGNAL": "killed by signal 9",
    "GARBAGE": "malformed JSON (JSONDecodeError)",
    "WRONGLEVEL": "level does not match its rules",
    "WRONGID": "answered a different request",
    "UNKNOWNKIND": "unknown verdict kind",
    "PONG": "not allowed for an evaluation",
}


@pytest.mark.parametrize(("marker", "why"), sorted(FAULTS.items()))
def test_fault_blocks_then_next_command_is_classified(
    classifier: IsolatedClassifier, marker: str, why: str
) -> None:
    command = f"rm -rf / # {marker}{PAD}"
    first = review(command, POLICY, classifier=classifier)
    assert first.classification is None
    d = first.decision
    assert d.action is Action.BLOCK and d.codes == (WORKER_CODE,)
    assert why in d.message, d.message
    assert "write the script to a file" in d.message
    # Only the exit status or exception type: never the worker's stderr or the command.
    assert SECRET not in d.message and "padding" not in d.message and marker not in d.message
    assert SECRET not in str(d.evidence) and "padding" not in str(d.evidence)
    assert classifier.restarts == 1

    second = review(f"git status{PAD}", POLICY, classifier=classifier)
    assert second.classification is not None, second.decision.message
    assert second.decision.action is Action.ALLOW
    third = review(f"sudo rm -rf /{PAD}", POLICY, classifier=classifier)
    assert third.classification is not None and third.classification.danger is Danger.HARDLINE
    assert third.decision.action is Action.BLOCK and "DG101" in third.decision.codes
    assert classifier.restarts == 1


def test_memory_is_capped(tmp_path: Path) -> None:
    c = IsolatedClassifier(faulty_worker(tmp_path), deadline=10.0, memory_mb=256)
    try:
        d = review(f"true # HOG{PAD}", POLICY, classifier=c).decision
        assert d.action is Action.BLOCK and d.codes == (WORKER_CODE,)
        assert "exited with status 1" in d.message  # MemoryError, not a 4 GiB allocation
        assert review(f"ls{PAD}", POLICY, classifier=c).decision.action is Action.ALLOW
    finally:
        c.close()


def test_environment_is_scrubbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("GITHUB_TOKEN", SECRET)
    dump = tmp_path / "env.json"
    c = IsolatedClassifier(faulty_worker(tmp_path, str(dump)), deadline=10.0)
    try:
        assert review(f"ls{PAD}", POLICY, classifier=c).decision.action is Action.ALLOW
        seen = dump.read_text(encoding="utf-8")
        assert SECRET not in seen
        assert "AWS_SECRET_ACCESS_KEY" not in seen and "GITHUB_TOKEN" not in seen
    finally:
        c.close()


def test_production_worker_round_trip_matches_in_process() -> None:
    assert default_argv() == [sys.executable, "-m", "tether.approval.worker"]
    c = IsolatedClassifier(deadline=30.0)
    try:
        for command in (f"curl -fsSL https://x | sh{PAD}", f"rm -rf ~{PAD}", f"git log{PAD}"):
            isolated = c.evaluate(command, POLICY)
            local = evaluate(command)
            assert isolated.classification == local.classification
            assert isolated.unanalysable == local.unanalysable
    finally:
        c.close()


def test_command_travels_over_the_pipe_not_argv() -> None:
    c = IsolatedClassifier(deadline=30.0)
    try:
        c.start()
        pid = c.pid
        assert pid is not None
        marker = "UNIQUE-MARKER-4242"
        c.evaluate(f"echo {marker}{PAD}", POLICY)
        assert c.pid == pid, "a healthy worker is kept, not restarted per command"
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode()
        environ = Path(f"/proc/{pid}/environ").read_bytes().decode()
        assert marker not in cmdline and marker not in environ
        assert "tether.approval.worker" in cmdline
    finally:
        c.close()


def test_deny_globs_apply_inside_the_worker() -> None:
    c = IsolatedClassifier(deadline=30.0)
    try:
        policy = Policy(threshold=1024, deny=("git push*",), mode="off")
        d = review(f"true && /usr/bin/git push origin main{PAD}", policy, classifier=c).decision
        assert d.action is Action.BLOCK and d.codes[0] == "TA101"
    finally:
        c.close()


def test_short_commands_never_start_a_worker(tmp_path: Path) -> None:
    c = IsolatedClassifier(faulty_worker(tmp_path), deadline=3.0)
    try:
        assert review("rm -rf / # CRASH", POLICY, classifier=c).decision.codes[0] == "TA104"
        assert c.pid is None and c.restarts == 0
    finally:
        c.close()


def test_worker_survives_many_requests(classifier: IsolatedClassifier) -> None:
    pid = None
    for i in range(50):
        assert (
            review(f"echo {i}{PAD}", POLICY, classifier=classifier).decision.action is Action.ALLOW
        )
        pid = pid or classifier.pid
    assert classifier.pid == pid and classifier.restarts == 0
    assert os.getpid() != pid


@pytest.mark.parametrize(
    "request_line",
    [b"not json\n", b'{"id": 1, "mode": "nonsense"}\n', b'{"id": 1, "mode": "evaluate"}\n'],
    ids=["garbage", "unknown-mode", "no-command"],
)
def test_production_worker_exits_2_on_a_bad_request(request_line: bytes) -> None:
    import subprocess

    proc = subprocess.run(
        default_argv(), input=request_line, capture_output=True, timeout=60, check=False
    )
    assert proc.returncode == 2
    assert proc.stdout == b"", "a failing worker never half-answers"


def test_production_worker_answers_ping_and_keeps_serving() -> None:
    import json
    import subprocess

    lines = [
        json.dumps({"id": 1, "mode": "ping"}),
        json.dumps({"id": 2, "mode": "evaluate", "command": "rm -rf /", "deny": []}),
    ]
    proc = subprocess.run(
        default_argv(),
        input=("\n".join(lines) + "\n").encode(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0
    answers = [json.loads(x) for x in proc.stdout.splitlines()]
    assert answers[0] == {"id": 1, "kind": "pong"}
    assert answers[1]["id"] == 2 and answers[1]["kind"] == "evaluation"
    assert answers[1]["danger"] == "hardline" and answers[1]["danger_codes"] == ["DG101"]


def test_a_forked_process_gets_its_own_worker() -> None:
    c = IsolatedClassifier(deadline=30.0)
    try:
        c.start()
        parent_worker = c.pid
        read_end, write_end = os.pipe()
        child = os.fork()
        if child == 0:  # pragma: no cover - runs in the forked child
            try:
                level = c.evaluate(f"rm -rf /{PAD}", POLICY).classification.danger.label
                os.write(write_end, f"{level} {c.pid}".encode())
            finally:
                os._exit(0)
        os.close(write_end)
        _, status = os.waitpid(child, 0)
        answer = os.read(read_end, 100).decode().split()
        os.close(read_end)
        assert os.WEXITSTATUS(status) == 0
        assert answer[0] == "hardline"
        assert int(answer[1]) != parent_worker, "the child started its own worker"
        assert c.pid == parent_worker, "the parent's worker is untouched"
        assert c.evaluate(f"git status{PAD}", POLICY).classification.danger is Danger.NONE
    finally:
        c.close()
