"""Issue 27's classes, each with realistic sessions of its own (and the productive variant).

Every scenario runs through a real Guard with hard stops on, the way a hook host drives it:
before each call, then its result, with the time passing as it would. Outputs are written the
way the tools print them (cargo, gh, kubectl, pytest, tqdm, Claude Code's tools).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tether.config import DEFAULT_CONFIG
from tether.guard import Guard
from tether.model import Action, Decision, ToolCall, ToolResult

HARD = DEFAULT_CONFIG.with_values({"loops.hard_stop": True})
PROGRESS = HARD.with_values({"progress.enabled": True})

# (tool, args, output, exit code) | ("user", text) | ("say", text) | ("wait", seconds)
Event = tuple[Any, ...]


class Run:
    """One session's decisions, with the codes each call drew."""

    def __init__(self, config: Any = HARD, agent: str | None = None) -> None:
        self.guard = Guard(config)
        self.agent = agent
        self.t = 1_700_000_000.0
        self.n = 0
        self.decisions: list[Decision] = []

    def play(self, events: Iterable[Event]) -> Run:
        for event in events:
            if event[0] == "user":
                self.guard.user_message("s", event[1])
            elif event[0] == "say":
                self.decisions.append(self.guard.assistant_message("s", event[1], self.agent))
            elif event[0] == "wait":
                self.t += event[1]
            else:
                self.call(*event)
        return self

    def call(self, tool: str, args: dict[str, Any], output: Any, code: int | None = None) -> None:
        self.n += 1
        call = ToolCall("s", tool, args, f"toolu_{self.n:04d}", self.agent, self.t)
        before = self.guard.before_call(call)
        self.t += float(args.get("_took", 2.0))
        if not before.allowed:
            self.decisions.append(before)
            return
        after = self.guard.after_call(ToolResult(call, output, code, bool(code), self.t))
        self.decisions.append(after if after.action >= before.action else before)
        self.t += 1.0

    @property
    def actions(self) -> list[Action]:
        return [d.action for d in self.decisions]

    def codes(self) -> list[str]:
        return [c for d in self.decisions for c in d.codes]

    def first(self, action: Action) -> int | None:
        """Return the 1-based number of the first decision at least ``action``."""
        return next((n for n, a in enumerate(self.actions, 1) if a >= action), None)

    def warnings(self) -> int:
        return sum(1 for a in self.actions if a == Action.WARN)


def bash(command: str, output: str, code: int | None = 0, took: float = 2.0) -> Event:
    return ("Bash", {"command": command, "_took": took}, output, code)


# -- class 1: productive work is never blocked -------------------------------------------------

CRATES = ["serde", "tokio", "hyper", "rustls", "sqlx", "axum", "tower", "tracing", "clap", "regex"]


def _timed_out_build(n: int, progressing: bool) -> str:
    k = (n + 1) * 40 if progressing else 40
    crate = CRATES[n % len(CRATES)] if progressing else CRATES[0]
    return (
        f"   Compiling {crate} v1.0.{k} \n    Building [=======>         ] {k}/412: {crate}\n"
        f"Command timed out after 2m 0.0s"
    )


def test_a_build_that_times_out_further_along_each_time_is_never_blocked() -> None:
    events = [bash("cargo build --release", _timed_out_build(n, True), 124, 120) for n in range(5)]
    run = Run().play(events)
    assert run.first(Action.WARN) is None
    assert "TL203" not in run.codes()


def test_a_build_that_times_out_at_the_same_place_is_a_replay() -> None:
    events = [bash("cargo build --release", _timed_out_build(0, False), 124, 120)] * 6
    run = Run().play(events)
    assert run.first(Action.WARN) == 2 and run.first(Action.BLOCK) == 6
    assert "TL203" in run.codes()


CI_WAIT = (
    "Refreshing run status every 3 seconds. Press Ctrl+C to quit.\n\n"
    "* main CI · 9876543\nTriggered via push about 4 minutes ago\n\nJOBS\n"
    "✓ lint in 41s (ID 2233)\n* test (ubuntu-latest) (ID 2234)\n"
    "Command timed out after 2m 0.0s"
)


def test_a_ci_watch_whose_waits_time_out_is_a_budgeted_wait_not_a_failure() -> None:
    events = [bash("gh run watch 9876543 --exit-status", CI_WAIT, 124, 120)] * 8
    events.append(bash("gh run watch 9876543 --exit-status", "✓ main CI · 9876543\n", 0, 40))
    run = Run().play(events)
    assert run.first(Action.BLOCK) is None
    assert not {"TL203", "TL204"} & set(run.codes())


def test_a_rerun_count_the_user_asked_for_is_honoured() -> None:
    test = bash("pytest -q tests/test_checkout.py::test_total", "1 passed in 0.42s")
    asked = [("user", "test_total is flaky in CI. Run it 10 times and tell me how often it fails.")]
    run = Run().play(asked + [test] * 10)
    assert run.first(Action.WARN) is None
    unasked = Run().play([("user", "Check test_total.")] + [test] * 10)
    assert unasked.first(Action.BLOCK) == 7  # the 7th identical pass, as before


def _rollout(ready: int) -> str:
    return (
        f'Waiting for deployment "web" rollout to finish: {ready} of 5 updated replicas are '
        "available...\nerror: timed out waiting for the condition"
    )


def test_a_rollout_check_that_exits_1_while_progressing_draws_few_warnings() -> None:
    events: list[Event] = []
    for n in range(27):
        ready = min(5, n // 5)
        events.append(
            bash("kubectl rollout status deploy/web --timeout=10s", _rollout(ready), 1, 10)
        )
        events.append(bash("kubectl get pods -l app=web", f"web-{n} 1/1 Running 0 {n + 2}m", 0))
    run = Run().play(events)
    assert run.first(Action.BLOCK) is None
    assert run.warnings() <= 3, [(n, d.codes) for n, d in enumerate(run.decisions) if d.codes]


def _dag_states(n: int) -> str:
    tasks = ["extract", "transform", "validate", "load"]
    done = min(len(tasks), n // 3)
    return "\n".join(
        f"{t}  {'success' if i < done else 'running' if i == done else 'none'}"
        for i, t in enumerate(tasks)
    )


def test_a_bare_sleep_between_dag_polls_is_never_a_poll_of_its_own() -> None:
    events: list[Event] = []
    for n in range(14):
        events.append(bash("sleep 30", "", 0, 30))
        command = "airflow tasks states-for-dag-run etl manual__2024-05-01"
        events.append(bash(command, _dag_states(n), 0))
    run = Run().play(events)
    assert "TL206" not in run.codes() and run.first(Action.WARN) is None


# -- class 2: file flip-flops ------------------------------------------------------------------

UPDATED = (
    "The file src/client.py has been updated. Here's the result of running `cat -n` on a snippet"
)


def _edit(old: str, new: str) -> Event:
    return ("Edit", {"file_path": "src/client.py", "old_string": old, "new_string": new}, UPDATED)


def test_an_edit_undone_and_redone_with_other_context_is_a_flip_flop() -> None:
    events = [
        _edit("    timeout = 30\n    retries = 3", "    timeout = 30\n    retries = 5"),
        _edit("    retries = 5\n    backoff = 1.5", "    retries = 3\n    backoff = 1.5"),
        _edit("def connect(self):\n    retries = 3", "def connect(self):\n    retries = 5"),
        _edit("    retries = 5\n\n    # jitter", "    retries = 3\n\n    # jitter"),
        _edit("    timeout = 30\n    retries = 3\n", "    timeout = 30\n    retries = 5\n"),
    ]
    run = Run().play(events)
    assert run.first(Action.WARN) == 3 and run.first(Action.BLOCK) == 5
    assert "TL211" in run.codes()


def test_edits_that_move_forward_are_not_flip_flops() -> None:
    events = [_edit(f"    retries = {n}", f"    retries = {n + 1}") for n in range(3, 9)]
    events += [_edit("    retries = 9", "    retries = 3")]  # back once: a decision, not a loop
    assert Run().play(events).first(Action.WARN) is None


# -- class 3: whole-repository re-reads --------------------------------------------------------

FILES = {
    "src/app.py": "     1→from flask import Flask\n     2→app = Flask(__name__)\n",
    "src/models.py": "     1→class User:\n     2→    id: int\n     3→    email: str\n",
    "src/views.py": "     1→@app.route('/')\n     2→def index():\n     3→    return 'ok'\n",
    "src/db.py": "     1→engine = create_engine(URL)\n     2→Session = sessionmaker(engine)\n",
}


def _pass() -> list[Event]:
    reads: list[Event] = [("Read", {"file_path": p}, text) for p, text in FILES.items()]
    reads.append(("Grep", {"pattern": "TODO", "path": "src"}, "No matches found"))
    return reads


def test_reading_the_same_unchanged_files_pass_after_pass_is_flagged() -> None:
    run = Run().play(_pass() * 5)
    first_warn = run.first(Action.WARN)
    assert first_warn is not None and first_warn <= 15  # in the third pass
    assert "TL212" in run.codes() and run.first(Action.BLOCK) is not None


def test_rereading_files_as_they_change_is_not_flagged() -> None:
    events: list[Event] = []
    for n in range(5):
        for path, text in FILES.items():
            events.append(("Read", {"file_path": path}, text + f"     9→# revision {n}\n"))
        events.append(("Grep", {"pattern": "TODO", "path": "src"}, f"src/app.py:{n}: TODO"))
    assert Run().play(events).first(Action.WARN) is None


# -- class 4: the same result from different arguments -----------------------------------------

RESULTS = (
    "1. asyncio — Asynchronous I/O — Python 3.12 documentation\n"
    "   https://docs.python.org/3/library/asyncio.html\n"
    "2. asyncio.wait_for: cancel a task after a timeout\n"
    "   https://docs.python.org/3/library/asyncio-task.html#asyncio.wait_for"
)
PAGE = '[{"id": 101, "user": {"login": "octo"}, "body": "LGTM once CI passes"}]'


def test_search_variants_returning_the_same_results_are_flagged() -> None:
    queries = [
        "python asyncio timeout",
        "asyncio timeout python",
        "python asyncio wait_for timeout",
    ]
    events = [("WebSearch", {"query": q}, RESULTS) for q in [*queries, "asyncio timeout example"]]
    run = Run().play(events)
    assert run.first(Action.WARN) == 3 and "TL213" in run.codes()
    assert run.first(Action.BLOCK) is None


def test_a_page_parameter_the_server_ignores_is_flagged() -> None:
    url = "gh api 'repos/acme/widget/issues/7/comments?per_page=1&page={}'"
    events = [bash(url.format(n), PAGE) for n in range(1, 5)]
    assert "TL213" in Run().play(events).codes()


def test_pages_that_differ_and_empty_results_are_not_flagged() -> None:
    url = "gh api 'repos/acme/widget/issues/7/comments?per_page=1&page={}'"
    events = [bash(url.format(n), PAGE.replace("101", str(100 + n))) for n in range(1, 5)]
    events += [bash(url.format(n), "[]") for n in range(5, 9)]
    assert Run().play(events).first(Action.WARN) is None


# -- class 5: long cycles, and a cycle with a growing append -----------------------------------


def _round(n: int) -> list[Event]:
    return [
        ("Read", {"file_path": f"deploy/step_{k}.yaml"}, f"step: {k}\nimage: web:1.4.2\n")
        for k in range(n)
    ]


def test_a_cycle_of_eight_calls_is_flagged_and_then_blocked() -> None:
    run = Run().play(_round(8) * 5)
    cycle = [n for n, d in enumerate(run.decisions, 1) if "TL205" in d.codes]
    assert cycle[0] == 24  # three laps: a cycle over 6 calls warns one lap later
    assert run.first(Action.BLOCK) == 33  # the call that would start a fifth lap


def test_a_cycle_whose_append_leg_grows_is_still_a_cycle() -> None:
    events: list[Event] = []
    log = ""
    for lap in range(5):
        log += f"attempt {lap + 1}: ImportError: cannot import name 'Gauge'\n"
        events += [
            bash("pytest -q tests/test_metrics.py", "E ImportError: cannot import name 'Gauge'", 1),
            ("Read", {"file_path": "src/metrics.py"}, "     1→from prometheus import Counter\n"),
            bash("echo 'retry' >> notes.md && cat notes.md", log),
        ]
    run = Run().play(events)
    assert "TL205" in run.codes()


def test_a_cycle_whose_leg_really_changes_is_not_flagged() -> None:
    events: list[Event] = []
    for lap in range(5):
        events += [
            bash("pytest -q tests/test_metrics.py", f"{5 - lap} failed, {lap + 10} passed", 1),
            ("Read", {"file_path": "src/metrics.py"}, f"     1→VERSION = {lap}\n"),
        ]
    assert "TL205" not in Run().play(events).codes()


# -- class 6: volatile tokens ------------------------------------------------------------------


def test_pod_ages_do_not_hide_a_loop() -> None:
    def pods(n: int) -> str:
        return (
            "NAME                   READY   STATUS             RESTARTS   AGE\n"
            f"web-7d9c5b-abcde       0/1     CrashLoopBackOff   7          {15 + n}m\n"
            f"worker-6f8d7-fghij     1/1     Running            0          2h{3 + n}m\n"
        )

    run = Run().play([bash("kubectl get pods", pods(n)) for n in range(6)])
    assert run.first(Action.WARN) is not None


def test_tqdm_timings_and_rates_do_not_hide_a_loop() -> None:
    def epoch(n: int) -> str:
        return (
            f"100%|██████████| 50/50 [00:{12 + n:02d}<00:00,  {4.0 + n / 10:.2f}it/s]\n"
            "val_loss: 0.4312 (no improvement)"
        )

    # A call seen for the first time is masked only once it repeats with another raw output, so
    # a loop whose output differs in timings from its first run on is counted from the second.
    run = Run().play([bash("python train.py --epochs 1", epoch(n)) for n in range(8)])
    assert run.first(Action.BLOCK) is not None and "TL202" in run.codes()


def test_a_process_group_id_does_not_hide_a_loop() -> None:
    def started(n: int) -> str:
        return f"Started dev server\nProcess Group PGID: {48213 + n}\nListening on :3000"

    run = Run().play([bash("./scripts/dev.sh", started(n)) for n in range(8)])
    assert run.first(Action.BLOCK) is not None


def test_a_progress_bar_that_moves_is_progress() -> None:
    def bar(n: int) -> str:
        return f" {n * 10}%|{'█' * n}{' ' * (10 - n)}| {n * 5}/50 [00:{n:02d}<00:30, 3.2it/s]"

    assert (
        Run().play([bash("python train.py --resume", bar(n)) for n in range(7)]).first(Action.WARN)
        is None
    )


# -- class 7: sub-agent progress that is not progress ------------------------------------------


def _reads(start: int, count: int) -> list[Event]:
    return [
        ("Read", {"file_path": f"pkg/mod_{n}.go"}, f"     1→package pkg\n     2→func F{n}() {{}}\n")
        for n in range(start, start + count)
    ]


def test_a_filler_sentence_every_few_reads_does_not_keep_a_subagent_alive() -> None:
    events: list[Event] = []
    for n in range(8):
        events += _reads(3 * n, 3)
        events.append(("say", ["Let me keep looking.", "Checking the next file now."][n % 2]))
    run = Run(PROGRESS, agent="researcher").play(events)
    assert "TL210" in run.codes()


def test_a_subagent_reporting_new_findings_is_progressing() -> None:
    findings = [
        "mod_2 registers the HTTP handlers but never closes the listener on shutdown.",
        "mod_5 retries database writes without idempotency keys, duplicating orders.",
        "mod_8 reads the signing secret from an environment variable with no fallback check.",
        "mod_11 caches tokens in a package-level map guarded by no mutex at all.",
        "mod_14 parses dates with the local timezone, shifting invoices by a day near midnight.",
        "mod_17 logs full request bodies including card numbers at debug level.",
        "mod_20 builds SQL by string formatting from the search query parameter.",
        "mod_23 swallows the context cancellation error and keeps the worker spinning.",
    ]
    events: list[Event] = []
    for n in range(8):
        events += _reads(3 * n, 3)
        events.append(("say", findings[n]))
    assert "TL210" not in Run(PROGRESS, agent="researcher").play(events).codes()


# -- class 8: a harness's automatic "continue" -------------------------------------------------


def test_a_harness_continue_does_not_restart_the_counts() -> None:
    poll = bash("cargo autopilot issue ready", "No ready issues available")
    events: list[Event] = []
    for _ in range(4):
        events += [poll, poll, ("user", "Continue from where you left off.")]
    run = Run().play(events)
    assert run.first(Action.BLOCK) == 7  # the count ran on through three "continue"s


def test_a_real_user_message_does_restart_them() -> None:
    poll = bash("cargo autopilot issue ready", "No ready issues available")
    events: list[Event] = []
    for n in range(4):
        events += [poll, poll, ("user", f"Create issue #{n} for the flaky login test, then poll.")]
    assert Run().play(events).first(Action.WARN) is None
