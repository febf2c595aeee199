"""DG413, DG414: deleting user accounts, removing passwords and locking root out."""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger._registry import program_check
from tether.rules.danger._stdin import stdin_texts
from tether.shell.model import SimpleCommand

ACCOUNT_DELETE = Rule(
    code="DG413",
    name="account-delete",
    tier=Tier.ASK,
    summary="Delete a user account (userdel, deluser, net user /delete)",
    why="Ask, not hardline: a deleted account takes its logins, cron jobs and the owner of "
    "its files with it (`userdel -r` its home too), for a person or a service; an "
    "administrator can recreate it, so it is not irreversible damage to the machine.",
    instead="Lock the account instead (`usermod -L NAME`) and let the user delete it.",
    match=(
        "userdel bob",
        "sudo userdel -r bob",
        "userdel --remove --force deploy",
        "deluser bob",
        "deluser --remove-home bob",
        "deluser --rem bob",
        "net user bob /delete",
    ),
    not_match=(
        "userdel --help",
        "deluser bob docker",
        "deluser --group devs",
        "id bob",
        "echo userdel bob",
        "net user bob",
    ),
)

ACCOUNT_PASSWORD_REMOVE = Rule(
    code="DG414",
    name="account-password-remove",
    tier=Tier.ASK,
    summary="Remove an account's password, or lock root out",
    why="Ask, not hardline: `passwd -d`, `usermod -p ''` and an empty password fed to "
    "chpasswd let anyone log in as that user without a password; `passwd -l root`, "
    "`usermod -L root`, an expiry date or a nologin shell for root lock the administrator "
    "out. Both are undone by an administrator who can still get in.",
    instead="Set a strong password or an SSH key (`passwd NAME`, `ssh-copy-id`), or ask "
    "the user to change accounts themselves.",
    match=(
        "passwd -d root",
        "sudo passwd --delete bob",
        "passwd -d",
        "usermod -p '' bob",
        "usermod --password= bob",
        "usermod -L root",
        "usermod --lock root",
        "usermod -e 1 root",
        "chage -E 0 root",
        "passwd -l root",
        "passwd -l",
        "usermod -s /usr/sbin/nologin root",
        "echo 'root:' | chpasswd",
        "printf 'bob:\\n' | sudo chpasswd -e",
        "chpasswd <<< 'root:'",
        "chpasswd <<EOF\nalice:pw\nroot:\nEOF",
    ),
    not_match=(
        "passwd",
        "passwd bob",
        "passwd -S root",
        "usermod -aG docker bob",
        "usermod -L bob",
        "usermod -e '' root",
        "chage -l root",
        "chage -E -1 root",
        "chage -M 90 root",
        "usermod -s /bin/bash root",
        "echo 'bob:s3cret' | chpasswd",
        "passwd -l bob",
    ),
)

RULES = (
    ACCOUNT_DELETE,
    ACCOUNT_PASSWORD_REMOVE,
)

_ROOT = frozenset({"root", "0"})
_NO_LOGIN = frozenset({"nologin", "false"})


_NAMES = ("userdel", "deluser", "passwd", "usermod", "chage", "chpasswd", "net")


@program_check(*_NAMES, rules=(ACCOUNT_DELETE, ACCOUNT_PASSWORD_REMOVE))
def check_accounts(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag account deletions, password removals and root lock-outs."""
    name = name_of(cmd)
    parsed = options_of(name, cmd.args)
    if parsed.has("--help", "--version"):
        return
    users = [w.value for w in parsed.operands]
    if name == "userdel" and users:
        yield ACCOUNT_DELETE.hit(f"userdel {users[0]}")
    elif name == "deluser" and len(users) == 1 and not parsed.has("--group"):
        yield ACCOUNT_DELETE.hit(f"deluser {users[0]}")
    elif name == "passwd":
        target = users[0] if users else "the current user"
        if parsed.has("--delete"):
            yield ACCOUNT_PASSWORD_REMOVE.hit(f"passwd -d {target} (no password at all)")
        elif parsed.has("--lock") and (not users or users[0] in _ROOT):
            yield ACCOUNT_PASSWORD_REMOVE.hit(f"passwd -l {target} (locks the account out)")
    elif name == "usermod" and users:
        user = users[-1]
        if "" in parsed.values("--password"):
            yield ACCOUNT_PASSWORD_REMOVE.hit(f"usermod -p '' {user} (no password at all)")
        elif user in _ROOT and parsed.has("--lock"):
            yield ACCOUNT_PASSWORD_REMOVE.hit("usermod -L root (locks root out)")
        elif user in _ROOT and any(v not in ("", "-1") for v in parsed.values("--expiredate")):
            yield ACCOUNT_PASSWORD_REMOVE.hit("usermod -e root (expires root's account)")
        elif user in _ROOT and any(
            v.rpartition("/")[2] in _NO_LOGIN for v in parsed.values("--shell")
        ):
            yield ACCOUNT_PASSWORD_REMOVE.hit("usermod -s nologin root (locks root out)")
    elif name == "chage" and users and users[-1] in _ROOT:
        if any(v not in ("", "-1") for v in parsed.values("--expiredate")):
            yield ACCOUNT_PASSWORD_REMOVE.hit("chage -E root (expires root's account)")
    elif name == "chpasswd":
        if any(_empty_password(text) for text in stdin_texts(cmd, scope)):
            yield ACCOUNT_PASSWORD_REMOVE.hit("chpasswd given an empty password")
    elif name == "net" and [w.value.lower() for w in parsed.operands[:2:2]] == ["user"]:
        words = [w.value.lower() for w in parsed.operands]
        if "/delete" in words:
            yield ACCOUNT_DELETE.hit("net user … /delete")


def _empty_password(text: str) -> bool:
    """Return True when ``text`` has a ``name:`` line with nothing after the colon."""
    for line in text.splitlines():
        user, colon, password = line.strip().partition(":")
        if colon and user and not user.startswith("-") and not password:
            return True
    return False
