"""Command-line tools whose options or operands hold a command: git ``-c alias.X='!…'``,
``find -exec``, ``ssh -o ProxyCommand``, ``rsync -e``, ``tar --to-command``,
tmux, screen, and environment variables such as ``GIT_SSH_COMMAND``."""

from __future__ import annotations

from tether.shell.model import Word
from tether.shell.options import parse
from tether.shell.payloads._model import Payload, render
from tether.shell.tools import (
    FIND_EXEC,
    GIT,
    TMUX,
    TMUX_ALIASES,
    TMUX_COMMANDS,
    TOOLS,
    find_parts,
    find_primaries,
)
from tether.shell.words import decode_ansi_c

# --- git -c alias.NAME=!cmd NAME ------------------------------------------------------------------

# Keys whose value git runs through the shell (``!``-aliases aside).
_GIT_SHELL_KEYS = frozenset(
    {"core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "sequence.editor",
     "diff.external", "core.askpass", "credential.helper"}
)  # fmt: skip


def from_git(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the ``!`` alias invoked and the shell-run keys set with ``git -c``.

    And the value ``git config`` stores in such a key: ``git config alias.x '!cmd'`` makes
    every later ``git x`` run cmd (the next command on the line, or any later call), so the
    stored command is judged where it is written.
    """
    config = any(w.value == "config" for w in args)
    if not config and not any(w.value == "-c" for w in args):
        return []  # most git commands: git reads -c only as a word of its own
    parsed = parse(GIT, args)
    sub = parsed.operands[0].value.lower() if parsed.operands else ""
    rest = parsed.operands[1:]
    out: list[Payload] = []
    if sub == "config":
        out.extend(_git_config_set(rest))
    if not parsed.has("-c"):
        return out
    for setting in parsed.values("-c"):
        key, eq, value = setting.partition("=")
        key = key.lower()
        if key.startswith("alias.") and value.startswith("!") and key[6:] == sub:
            # git runs ``sh -c 'VALUE "$@"' VALUE ARGS``: the arguments follow the value.
            out.append(Payload(f"git alias {sub}", f"{value[1:]} {render(rest)}".strip()))
        elif eq and (key in _GIT_SHELL_KEYS or key.startswith("pager.")) and value:
            out.append(Payload(f"git -c {key}", value.removeprefix("!")))
    return out


# ``git config`` options that read, list or remove rather than set a value.
_GIT_CONFIG_NO_SET = ("--get", "--unset", "--list", "-l", "--remove-section", "--rename-section",
                      "--edit", "-e", "--show-origin", "--name-only")  # fmt: skip


def _git_config_set(words: tuple[Word, ...]) -> list[Payload]:
    """Return the command ``git config [set] KEY VALUE`` stores in a key git runs."""
    if any(w.value.startswith(_GIT_CONFIG_NO_SET) for w in words):
        return []
    operands = [w for w in words if not w.value.startswith("-")]
    if operands and operands[0].value in ("set", "--add"):
        operands = operands[1:]
    if len(operands) < 2:
        return []
    key, value = operands[0].value.lower(), operands[1]
    shell = key.startswith("alias.") and value.value.startswith("!")
    if not (shell or key in _GIT_SHELL_KEYS or key.startswith("pager.")):
        return []
    if not value.literal:
        return [Payload(f"git config {key} of a run-time string", dynamic=True)]
    return [Payload(f"git config {key}", value.value.removeprefix("!"))]


def git_env_settings(env: dict[str, Word]) -> tuple[Word, ...]:
    """Return ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n`` as ``-c`` words.

    git reads those variables as one ``-c KEY=VALUE`` each (git 2.31), so
    ``GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!cmd' git x`` runs cmd.
    """
    count = env.get("GIT_CONFIG_COUNT")
    if count is None or not count.literal or not count.value.isdigit():
        return ()
    words: list[Word] = []
    for n in range(min(int(count.value), 64)):
        key, value = env.get(f"GIT_CONFIG_KEY_{n}"), env.get(f"GIT_CONFIG_VALUE_{n}")
        if key is not None and value is not None and key.literal and value.literal:
            words += [Word("-c"), Word(f"{key.value}={value.value}")]
    return tuple(words)


def from_git_env(args: tuple[Word, ...], env: dict[str, Word]) -> list[Payload]:
    """Return what ``git --config-env=KEY=VAR`` runs when ``VAR`` is set beside it.

    ``FOO='!rm -rf /' git --config-env=alias.st=FOO st`` is ``git -c 'alias.st=!rm -rf /' st``
    (git 2.39 reads the value from the environment): each setting whose variable is set here
    is spelt as ``-c`` and read like one.
    """
    if not env:
        return []
    counted = git_env_settings(env)
    if counted:
        return from_git("git", (*counted, *args))
    if not any("config-env" in w.value for w in args):
        return []
    parsed = parse(GIT, args, stop_at=1)
    settings = []
    for given in parsed.values("--config-env"):
        key, _, var = given.partition("=")
        value = env.get(var)
        if value is not None and value.literal:
            settings += [Word("-c"), Word(f"{key}={value.value}")]
    if not settings:
        return []
    return from_git("git", (*settings, *parsed.operands))


# --- find -exec -----------------------------------------------------------------------------------


def from_find(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the commands ``find -exec/-execdir/-ok/-okdir`` run."""
    if not any(w.value in FIND_EXEC for w in args):
        return []
    out: list[Payload] = []
    starts, expression = find_parts(args)  # the one find reading (tether.shell.tools)
    # The first match is the starting point itself: ``find / -exec sh -c 'rm -rf {}' \;``
    # runs ``rm -rf /`` first. Only a root, a home or a top-level directory is put in for {}
    # (a workspace path is what every cleanup names: its matches are judged by deletion rules).
    first = starts[0] if starts and starts[0].literal and _top_level(starts[0].value) else None
    for primary, words in find_primaries(expression):
        if primary not in FIND_EXEC or not words:
            continue
        found = [
            Word(w.value.replace("{}", first.value)) if w.literal and "{}" in w.value else w
            for w in words
        ] if first is not None else list(words)  # fmt: skip
        out.append(Payload(f"find {primary}", argv=tuple(found)))
        if found != list(words):
            # And every later match: ``{}`` is a path only known at run time.
            out.append(Payload(f"find {primary}", argv=words))
    return out


# fd's placeholders for the path it found (``{}``, ``{/}``, ``{//}``, ``{.}``, ``{/.}``).
_FD_HOLDERS = ("{}", "{/}", "{//}", "{.}", "{/.}")
_FD_EXEC = frozenset({"-x", "--exec", "-X", "--exec-batch"})


def from_fd(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the commands ``fd -x/--exec`` and ``-X/--exec-batch`` run on what fd finds."""
    out: list[Payload] = []
    for i, w in enumerate(args):
        if w.value not in _FD_EXEC or not w.literal:
            continue
        parsed = parse(TOOLS["fd"], args[: i + 1])
        if not parsed.options or parsed.options[-1][0] not in ("--exec", "--exec-batch"):
            continue  # the value of an option before it (``fd -e -x``), not fd's -x
        j = i + 1
        while j < len(args) and not (args[j].literal and args[j].value == ";"):
            j += 1
        # The found paths: below the workspace (``{}``, as find's from ``.``), or only known at
        # run time when fd searches from an absolute path or a home; appended when not placed.
        found = Word("{}", literal=not _fd_searches_outside(args))
        words = [found if any(h in v.value for h in _FD_HOLDERS) else v for v in args[i + 1 : j]]
        if words and found not in words:
            words.append(found)
        if words:
            out.append(Payload(f"{name} {w.value}", argv=tuple(words)))
    return out


def _fd_searches_outside(args: tuple[Word, ...]) -> bool:
    """Return True when fd searches from an absolute path, a home or a computed one."""
    parsed = parse(TOOLS["fd"], args)
    roots = [w.value for w in parsed.operands[1:]]
    roots += parsed.values("--search-path", "--base-directory")
    return any(r[:1] in ("/", "~", "$") for r in roots)


def _top_level(path: str) -> bool:
    """Return True for ``/``, ``~``, ``~/`` or a directory right under the root (``/etc``)."""
    if path in ("~", "~/", "/"):
        return True
    return path.startswith("/") and "/" not in path.strip("/") and ".." not in path


# --- ssh -o ProxyCommand, rsync -e ----------------------------------------------------------------

# ssh_config keys whose value is a command ssh runs on this machine through the user's shell.
_SSH_COMMANDS = frozenset({"proxycommand", "localcommand", "knownhostscommand"})


def from_ssh(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the local commands ssh's ``-o ProxyCommand``-like settings run."""
    if not any("ommand" in w.value.lower() for w in args):
        return []
    out: list[Payload] = []
    for setting in parse(TOOLS["ssh"], args).values("-o"):
        key, _, value = setting.replace("=", " ", 1).partition(" ")
        value = value.strip()
        if key.lower() in _SSH_COMMANDS and value and value.lower() != "none":
            out.append(Payload(f"ssh -o {key}", value))
    return out


def from_rsync(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the remote-shell programs rsync runs (``-e``/``--rsh``)."""
    if not any(w.value[:1] == "-" and ("e" in w.value or "rsh" in w.value) for w in args):
        return []
    # rsync runs its -e/--rsh program to reach the other side (split into words like a shell).
    return [Payload("rsync -e", v) for v in parse(TOOLS["rsync"], args).values("--rsh")]


_TAR_RUNS = ("--to-command", "--use-compress-program", "--rsh-command", "--info-script")


def from_tar(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the commands tar runs (``--to-command``, ``-I``, checkpoint actions)."""
    if not any(
        w.value[:1] == "-"
        and (
            "-t" in w.value
            or "-c" in w.value
            or "I" in w.value
            or "-r" in w.value
            or "F" in w.value
        )
        for w in args
    ):
        return []  # fmt: skip
    parsed = parse(TOOLS["tar"], args)
    out = [Payload(f"tar {o}", v) for o, v in parsed.options if o in _TAR_RUNS and v]
    for action in parsed.values("--checkpoint-action"):
        if action.startswith("exec="):
            out.append(Payload("tar --checkpoint-action=exec", action[5:]))
    return out


_ENTER = frozenset({"Enter", "C-m", "KPEnter", "C-j"})


def from_tmux(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the commands tmux starts and the lines it types into a pane."""
    parsed = parse(TMUX, args)
    out = [Payload("tmux -c", v) for v in parsed.values("-c")]
    commands: list[list[Word]] = [[]]
    for w in parsed.operands:  # ``tmux new -d 'a' \; send-keys …``: commands split at ``;``
        if w.literal and w.value == ";":
            commands.append([])
        else:
            commands[-1].append(w)
    for words in commands:
        if not words:
            continue
        sub = TMUX_ALIASES.get(words[0].value, words[0].value)
        g = TMUX_COMMANDS.get(sub)
        if g is None:
            continue
        rest = parse(g, words[1:]).operands
        how = f"tmux {sub}"
        if sub == "send-keys":
            # Keys typed into the pane's shell: what comes before Enter runs there.
            typed = [w for w in rest if w.value not in _ENTER]
            if typed and len(typed) < len(rest):
                out.append(Payload(how, " ".join(w.value for w in typed)))
        elif sub == "if-shell":
            out.extend(Payload(how, w.value) for w in rest[:1])
        elif len(rest) == 1:
            out.append(Payload(how, rest[0].value) if rest[0].literal else
                       Payload(f"{how} of a run-time string", dynamic=True))  # fmt: skip
        elif rest:
            out.append(Payload(how, argv=tuple(rest)))
    return out


def from_screen(name: str, args: tuple[Word, ...]) -> list[Payload]:
    """Return the command screen starts, or the line ``-X stuff`` types."""
    parsed = parse(TOOLS["screen"], args)
    if parsed.has("-X"):
        # ``screen -S s -X stuff 'rm -rf /\n'``: text typed into the session's shell.
        rest = [w.value for w in parsed.operands]
        if parsed.values("-X")[-1:] == ["stuff"] and rest:
            typed = decode_ansi_c(rest[0].replace("^M", "\n"))
            if "\n" in typed or "\r" in typed:
                return [Payload("screen -X stuff", typed)]
        return []
    return [Payload("screen", argv=parsed.operands)] if parsed.operands else []


# --- environment variables whose value is a command ---------------------------------------------

# Programs run these through a shell (git, man, less, crontab -e, ssh …): ``GIT_SSH_COMMAND='…'
# git fetch`` runs the value. BASH_ENV/ENV name a file, judged elsewhere.
ENV_COMMANDS = frozenset(
    {"GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
     "GIT_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "EDITOR", "VISUAL", "PAGER",
     "MANPAGER", "SYSTEMD_PAGER", "LESSOPEN", "LESSCLOSE", "SSH_ASKPASS", "SUDO_ASKPASS",
     "PROMPT_COMMAND", "RSYNC_RSH", "CVS_RSH", "BROWSER"}
)  # fmt: skip


def env_payloads(assignments: list[tuple[str, Word]]) -> list[Payload]:
    """Return the commands held by ``NAME=value`` assignments programs run (``GIT_SSH_COMMAND``)."""
    out: list[Payload] = []
    for key, value in assignments:
        if key not in ENV_COMMANDS or not value.value.strip():
            continue
        if value.literal:
            out.append(Payload(f"{key}=…", value.value.lstrip("|")))  # LESSOPEN='|cmd %s'
        else:
            out.append(Payload(f"{key} built at run time", dynamic=True))
    return out
