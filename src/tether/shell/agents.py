"""The table of program specs, continued: the agent hosts' CLIs and Tether's own.

The self-protection rules (``rules/danger/self_hosts.py``, ``self_protection.py``) read a
nested ``claude``/``codex``/``gemini`` run and a ``tether`` run with these grammars, so an
option is seen however it is spelt (``-cKEY=V``, ``--config=KEY=V``, a unique prefix where
the CLI takes one). Each was read from the real program:

- Claude Code 2.1.197 and 2.1.332 (``claude --help``; commander: long names spelt whole,
  ``--opt=v`` or ``--opt v``, clusters, options after operands; ``<x...>`` takes every word up
  to the next option; ``[x]`` takes a word only when one follows, read here as attached only,
  which leaves that word an operand);
- Codex CLI 0.171.0 (``codex --help``, ``codex exec --help``, ``codex features --help``; clap:
  names spelt whole, ``-cV`` attached, options anywhere): one grammar, the union of the
  top-level options and ``exec``'s (each takes both sets after its subcommand);
- Gemini CLI 0.61.0 (``gemini --help``; yargs: names spelt whole, camelCase spellings too);
- Tether itself: its argparse parsers (``tether.cli``; unique prefixes, options anywhere, an
  exact subcommand, then an exact action for ``config`` and ``session``).
  ``tests/test_agent_specs.py`` builds those parsers and fails when one option differs.
"""

from __future__ import annotations

from functools import partial

from tether.shell.options import Grammar, LazyTable, grammar

CLAUDE_CHECKED = "Claude Code 2.1.197, 2.1.332"
CODEX_CHECKED = "Codex CLI 0.171.0"
GEMINI_CHECKED = "Gemini CLI 0.61.0"

_CLAUDE = (
    "allow-dangerously-skip-permissions ax-screen-reader bg|background bare brief chrome "
    "no-chrome c|continue dangerously-skip-permissions desktop disable-slash-commands "
    "exclude-dynamic-system-prompt-sections fork-session forward-subagent-text h|help ide "
    "include-hook-events include-partial-messages no-session-persistence p|print "
    "replay-user-messages restricted safe-mode strict-mcp-config verbose v|version "
    "agent: agents: append-system-prompt: append-system-prompt-file: autocompact: debug-file: "
    "effort: environment: fallback-model: input-format: json-schema: max-budget-usd: model: "
    "n|name: output-format: permission-mode: permission-prompts: permission-prompt-tool: "
    "plugin-dir: plugin-url: remote-control-session-name-prefix: session-id: "
    "setting-sources: settings: system-prompt: system-prompt-file: system-prompt-snapshot: "
    "cloud:: d|debug:: from-pr:: prompt-suggestions:: remote-control:: r|resume:: teleport:: "
    "tmux:: w|worktree:: add-dir* allowedTools|allowed-tools* betas* "
    "disallowedTools|disallowed-tools* file* mcp-config* tools*"
)
_CODEX = (
    "c|config: enable: disable: remote: remote-auth-token-env: m|model: local-provider: "
    "p|profile: s|sandbox: C|cd: add-dir: a|ask-for-approval: i|image* approve-for-me "
    "dangerously-bypass-approvals-and-sandbox dangerously-bypass-hook-trust no-alt-screen "
    "no-daemon oss search strict-config worktree h|help V|version "
    # codex exec's own
    "thread-source: cyber-access-program: output-schema: color: o|output-last-message: "
    "skip-git-repo-check trust ephemeral ignore-user-config ignore-rules json last"
)
_GEMINI = (
    "d|debug s|sandbox y|yolo skip-trust acp experimental-acp l|list-extensions list-sessions "
    "screen-reader raw-output accept-raw-output-risk v|version h|help m|model: p|prompt: "
    "i|prompt-interactive: w|worktree: approval-mode: r|resume: session-file: session-id: "
    "delete-session: o|output-format: policy* admin-policy* allowed-mcp-server-names* "
    "allowed-tools* e|extensions* include-directories*"
)


def _camel(options: str) -> str:
    """Add yargs' camelCase spelling to each hyphenated long name (``--skip-trust``: skipTrust)."""
    out = []
    for item in options.split():
        body = item.rstrip(":*")
        names = body.split("|")
        extra = [
            n.split("-")[0] + "".join(p.title() for p in n.split("-")[1:])
            for n in names
            if "-" in n
        ]
        out.append("|".join([*names, *extra]) + item[len(body) :])
    return " ".join(out)


AGENT_CLIS: LazyTable[Grammar] = LazyTable(
    {
        "claude": lambda: grammar("claude", _CLAUDE, abbreviate=False),
        "codex": lambda: grammar("codex", _CODEX, abbreviate=False),
        "gemini": lambda: grammar("gemini", _camel(_GEMINI), abbreviate=False),
    }
)

# ``tether COMMAND``: the dispatcher takes the command word spelt whole (``tether.cli``).
_SET = "set:"
TETHER_COMMANDS: LazyTable[Grammar] = LazyTable(
    {
        name: partial(grammar, f"tether {name}", options)
        for name, options in {
            "classify": "h|help json jsonl",
            "check": f"h|help unattended host: json {_SET}",
            "rules": "h|help json markdown program:",
            "verify": "h|help json jsonl timeout: trace",
            "replay": f"h|help jsonl json html: {_SET}",
            "config": "h|help",
            "trust": "h|help list revoke json",
            "hook": f"h|help {_SET}",
            "install": "h|help user project dry-run json http url: command: managed python: "
            "no-start codex:",
            "plugin": "h|help out: install trust exe: json",
            "uninstall": "h|help user project dry-run json managed codex:",
            "doctor": f"h|help fix json host: {_SET}",
            "session": "h|help",
            "stats": f"h|help top: json {_SET}",
            "serve": f"h|help host: port: token: max-body: lock: {_SET}",
            "daemon": "h|help json",
            "mcp-proxy": f"h|help {_SET} session: init-timeout:",
        }.items()
    }
)
# ``tether config ACTION`` and ``tether session ACTION``: the action word spelt whole.
TETHER_ACTIONS: LazyTable[Grammar] = LazyTable(
    {
        f"{sub} {action}": partial(grammar, f"tether {sub} {action}", options)
        for sub, actions in {
            "config": {
                "get": f"h|help json {_SET}",
                "set": "h|help project",
                "unset": "h|help project",
                "list": f"h|help json {_SET}",
                "check": f"h|help json {_SET}",
                "path": "h|help project json",
                "docs": "h|help example",
            },
            "session": {
                "list": f"h|help json {_SET}",
                "show": f"h|help json {_SET}",
                "reset": f"h|help {_SET}",
            },
        }.items()
        for action, options in actions.items()
    }
)

__all__ = [
    "AGENT_CLIS",
    "CLAUDE_CHECKED",
    "CODEX_CHECKED",
    "GEMINI_CHECKED",
    "TETHER_ACTIONS",
    "TETHER_COMMANDS",
]
