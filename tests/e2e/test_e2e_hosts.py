"""The real hosts end to end: each pinned CLI from npm, a fake model, Tether installed for real.

One session per host version runs the model's script: a hardline probe, a read, then the same
read-only command again and again with ``loops.hard_stop`` on, then another command. What the
model was sent is what is asserted: the probe's deny reason, the read's output, the loop warning
from the 2nd identical result (once), the refusal of the 6th, the halt on the 8th, and then the
agent stopped (where the host honours ``continue: false``) or every later call refused.

``honours.HONOURS`` is what each tested version did; ``docs/hosts.md``'s table is generated
from it (``python tests/e2e/honours.py --write``), and these tests fail when a version stops
matching it.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import tomllib
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from harness import TETHER, Host, Run, describe
from honours import HONOURS, host_versions

PROBE = "touch probe-ran; mkfs.ext4 /dev/sdz9"  # hardline DG401; /dev/sdz9 does not exist
READ = "cat hello.txt"
LOOP = "cat same.txt"
AFTER = "echo after-halt > after-ran"
# loops.hard_stop on: warn_after.idempotent_no_progress 2, hard_stop_after 5, halt at the
# third refusal of the same call.
SCRIPT = [PROBE, READ] + [LOOP] * 8 + [AFTER]
LOOP0 = 2  # index of the first LOOP call
WARN_AT, REFUSE_AT, HALT_AT = LOOP0 + 1, LOOP0 + 5, LOOP0 + 7
HARD = {"TETHER_LOOPS__HARD_STOP": "true"}

CASES = host_versions()
IDS = [f"{h}-{v}" for h, v in CASES]


def first(run: Run, text: str) -> int | None:
    """Return the first tool call after which the model had been sent ``text``."""
    for i in range(len(run.script.commands) + 1):
        if text in run.after(i):
            return i
    return None


def delivered(run: Run, text: str) -> int:
    """Return how many times ``text`` is in the conversation the model was last sent."""
    last = [r["body"] for r in run.script.requests if r["body"].get("tools")]
    return json.dumps(last[-1], ensure_ascii=False).count(text) if last else 0


@pytest.mark.parametrize(("host", "version"), CASES, ids=IDS)
def test_a_session_probe_read_loop_halt(host: str, version: str, make_host: Any) -> None:
    h: Host = make_host(host, version)
    run = session(h)
    assert_session(h, run)


def session(h: Host, install: Any = ()) -> Run:
    """Run the session script (probe, read, loop to the halt) on ``h``."""
    (h.project / "hello.txt").write_text("hello-e2e\n")
    (h.project / "same.txt").write_text("[]\n")
    return h.run(SCRIPT, env=HARD, install=install)


def assert_session(h: Host, run: Run) -> None:
    """Deny, read, warn, block and halt as this host version honours them."""
    host, version = h.host, h.version
    story = describe(run)
    honours = HONOURS[f"{host} {version}"]
    assert run.proc.returncode == 0, story
    # The hardline probe: denied, never executed, the reason in what the model read.
    assert not (h.project / "probe-ran").exists(), story
    assert "DG401" in run.after(0) and "Tether blocked this call" in run.after(0), story
    # A read runs clean.
    assert "hello-e2e" in run.after(1) and "Tether" not in run.script.results[1], story
    # The loop: warned with the 2nd identical result, once; the 6th call refused.
    assert first(run, "same result 2 times in a row") == WARN_AT, story
    assert first(run, "same result 3 times in a row") == WARN_AT + 1, story
    assert delivered(run, "same result 2 times in a row") == 1, story
    assert first(run, "Only this exact call is refused") == REFUSE_AT, story
    # The halt (third refusal): the agent stops, or every later call is refused.
    assert not (h.project / "after-ran").exists(), story
    if honours["stop"]:
        assert run.script.calls == HALT_AT, story  # the halted call never came back
    else:
        assert "TL208" in run.after(HALT_AT), story
        assert "Stop now" in run.after(HALT_AT + 1), story
    # What the headless run prints about the halt (docs/hosts.md, "A halted headless run").
    if host == "gemini":
        assert "Agent execution stopped by hook: " in run.proc.stderr, story
        assert "TL208" in run.proc.stderr.split("Agent execution stopped by hook: ", 1)[1]
    elif honours["stop"]:  # Claude Code 2.1.332: nothing at all, and exit 0
        assert run.proc.stdout.strip() == "", story


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_a_halted_claude_p_run_can_fail_ci(version: str, make_host: Any) -> None:
    """`claude -p` exits 0 after a halt; its JSON output says so, and Tether says why.

    The recipe in docs/hosts.md: fail the job on ``terminal_reason == "hook_stopped"`` (the
    host honours the halt) or on a halted Tether session (it refused every later call), and
    print ``tether session show ID``'s ``halted`` line.
    """
    h: Host = make_host("claude-code", version)
    (h.project / "hello.txt").write_text("hello-e2e\n")
    (h.project / "same.txt").write_text("[]\n")
    h._argv = lambda *_: [  # type: ignore[method-assign]
        str(h.exe),
        "-p",
        "go",
        "--allowedTools",
        "Bash",
        "--output-format",
        "json",
    ]
    run = h.run(SCRIPT, env=HARD)
    result = json.loads(run.proc.stdout)
    assert run.proc.returncode == 0 and result["is_error"] is False, describe(run)
    stopped = result.get("terminal_reason") == "hook_stopped"
    assert stopped is HONOURS[f"claude-code {version}"]["stop"], result
    shown = h.tether("session", "show", result["session_id"])
    assert shown.returncode == 0, shown.stderr
    [halted] = [line for line in shown.stdout.splitlines() if line.startswith("halted ")]
    assert "TL208" in halted, shown.stdout


@pytest.mark.parametrize(("host", "version"), CASES, ids=IDS)
def test_a_broken_store_fails_closed(host: str, version: str, make_host: Any) -> None:
    h: Host = make_host(host, version)
    broken = {"TETHER_STORE__BACKEND": "redis", "TETHER_STORE__URL": "redis://127.0.0.1:1/0"}
    run = h.run(["touch store-ran"], env=broken)
    story = describe(run)
    assert not (h.project / "store-ran").exists(), story
    assert "Tether could not check this call" in run.after(0), story


@pytest.mark.parametrize(("host", "version"), CASES, ids=IDS)
def test_a_hook_that_cannot_start(host: str, version: str, make_host: Any) -> None:
    """What the host does when the hook command does not exist (exit 127): per version."""
    h: Host = make_host(host, version)
    missing = f"/nonexistent/bin/tether hook {host}"
    run = h.run(["touch ran-anyway"], install=("--command", missing))
    story = describe(run)
    blocked = not (h.project / "ran-anyway").exists()
    assert blocked is HONOURS[f"{host} {version}"]["on_failure"], story


def test_codex_runs_the_hooks_install_trusted_and_doctor_sees_what_it_skips(
    make_host: Any,
) -> None:
    """No --dangerously-bypass-hook-trust anywhere: Codex runs only hooks it trusts."""
    h: Host = make_host("codex", "0.171.0")
    installed = h.tether("install", "codex", "--json")
    report = json.loads(installed.stdout)
    assert installed.returncode == 0 and report["codex"]["active"], installed.stdout
    assert {x["status"] for x in report["codex"]["hooks"]} == {"trusted"}
    assert h.tether("doctor", "--host", "codex").returncode == 0
    # Edit the hooks by hand: Codex calls them "modified" and skips them without a word.
    path = h.home / ".codex" / "hooks.json"
    path.write_text(path.read_text().replace('"timeout": 30', '"timeout": 31'))
    doctor = h.tether("doctor", "--host", "codex")
    assert doctor.returncode == 1 and "(modified)" in doctor.stdout, doctor.stdout
    skipped = h.run([PROBE], install=None)
    assert (h.project / "probe-ran").exists(), describe(skipped)  # what doctor warned about
    (h.project / "probe-ran").unlink()
    # Installing again makes them active again.
    guarded = h.run([PROBE])
    assert not (h.project / "probe-ran").exists(), describe(guarded)
    assert "DG401" in guarded.after(0)


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_doctor_warns_about_a_claude_code_that_ignores_on_failure(
    version: str, make_host: Any
) -> None:
    h: Host = make_host("claude-code", version)
    assert h.tether("install", "claude-code").returncode == 0
    proc = h.tether("doctor", "--json", "--host", "claude-code")
    checks = json.loads(proc.stdout)["checks"]
    about = [c for c in checks if f"Claude Code {version}" in c["message"]]
    honours = HONOURS[f"claude-code {version}"]
    assert len(about) == 1, checks
    assert about[0]["status"] == ("ok" if honours["on_failure"] else "warn"), about


@pytest.mark.parametrize("version", ["2.1.197", "2.1.332"])
def test_install_http_with_a_stalled_sidecar_neither_waits_on_it_nor_counts_twice(
    version: str, make_host: Any
) -> None:
    """The retired ``--http``: a hung ``tether serve`` (SIGSTOP) is never asked by Claude Code.

    Before, every event waited the HTTP handler's 30 s on it while the fallback decided, and the
    sidecar, once let go, recorded the abandoned requests again: one call counted twice
    (``benchmarks/bench_stalled_sidecar.py`` measures it).
    """
    h: Host = make_host("claude-code", version)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    serve = subprocess.Popen(
        [str(TETHER), "serve", "--port", str(port)],
        env=h.env,
        cwd=h.project,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert serve.stderr is not None and "listening" in serve.stderr.readline()
        serve.send_signal(signal.SIGSTOP)
        run = h.run(
            ["echo one > one", "echo two > two"],
            install=("--http", "--url", f"http://127.0.0.1:{port}"),
        )
        story = describe(run)
        assert (h.project / "one").exists() and (h.project / "two").exists(), story
        serve.send_signal(signal.SIGCONT)
        token = (Path(h.env["XDG_STATE_HOME"]) / "tether" / "serve.token").read_text().strip()
        req = urllib.request.Request(
            f"http://127.0.0.1:{port}/health", headers={"Authorization": f"Bearer {token}"}
        )
        with urllib.request.urlopen(req, timeout=30) as resp:
            health = json.loads(resp.read())
        assert health["requests"] == 0, health  # Claude Code never posted to the sidecar
    finally:
        serve.send_signal(signal.SIGCONT)
        serve.terminate()
        serve.wait(timeout=30)
    sessions = json.loads(h.tether("session", "list", "--json").stdout)
    assert sum(s["calls"] for s in sessions) == 2, sessions  # each call counted once


def test_codex_uninstall_forgets_exactly_the_trust_it_gave(make_host: Any) -> None:
    """Trust entries in config.toml go with Tether's hooks; another hook keeps its trust."""
    from tether.hosts.codex_trust import AppServer
    from tether.hosts.settings import is_tether_command

    h: Host = make_host("codex", "0.171.0")
    assert h.tether("install", "codex").returncode == 0
    hooks_file = h.home / ".codex" / "hooks.json"
    config = h.home / ".codex" / "config.toml"
    # Someone else's hook after Tether's group: removing Tether's moves it up one place.
    doc = json.loads(hooks_file.read_text())
    other = {"type": "command", "command": "echo other-guard", "timeout": 5}
    doc["hooks"]["PreToolUse"].append({"matcher": "Bash", "hooks": [other]})
    hooks_file.write_text(json.dumps(doc))
    config.write_text(config.read_text() + '\n[hooks.state."/elsewhere/hooks.json:stop:0:0"]\n'
                      'trusted_hash = "sha256:foreign"\n')  # fmt: skip
    with AppServer(str(h.exe), h.project, h.env) as server:
        listed = server.hooks(h.project)
        [theirs] = [x for x in listed if x.command == "echo other-guard"]
        server.call(
            "config/batchWrite",
            {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert",
                        "value": {theirs.key: {"trusted_hash": theirs.current_hash}}}]},
        )  # fmt: skip
        ours = [x.key for x in listed if is_tether_command(x.command, "codex")]
    assert ours and all(key in config.read_text() for key in ours)

    gone = h.tether("uninstall", "codex", "--json")
    assert gone.returncode == 0, gone.stdout + gone.stderr
    report = json.loads(gone.stdout)["codex"]
    text = config.read_text()
    state = tomllib.loads(text)["hooks"]["state"]
    with AppServer(str(h.exe), h.project, h.env) as server:
        after = server.hooks(h.project)
    [moved] = [x for x in after if x.command == "echo other-guard"]
    assert moved.active, (moved, report)  # still trusted at its new place
    assert not [x for x in after if is_tether_command(x.command, "codex")]
    assert state["/elsewhere/hooks.json:stop:0:0"] == {"trusted_hash": "sha256:foreign"}
    assert set(state) == {"/elsewhere/hooks.json:stop:0:0", theirs.key, moved.key}, state
    assert sorted(report["removed"]) == sorted(k for k in ours if k != moved.key), report
