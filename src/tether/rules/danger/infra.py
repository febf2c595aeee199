"""DG5xx: data stores and infrastructure: SQL drops, teardown, publishing."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.rules.danger.interp import literal_output
from tether.shell.model import SimpleCommand
from tether.shell.tools import CLUSTER, subcommand_words

RULES = (
    Rule(
        code="DG501",
        name="sql-destructive",
        tier=Tier.ASK,
        summary="SQL DROP, TRUNCATE or an unqualified DELETE sent to a database client",
        why="Dropped tables and unqualified deletes are gone unless someone restores a backup. "
        "Ask, not hardline: the database may be a scratch or test one; only a human knows.",
        instead="Run a SELECT to show what would go, back the table up, or add a WHERE clause.",
        match=(
            "psql -c 'DROP TABLE users'",
            "mysql -e 'TRUNCATE orders' shop",
            'sqlite3 app.db "DELETE FROM users"',
            "echo 'DROP DATABASE prod;' | psql",
            "redis-cli FLUSHALL",
            "dropdb prod",
            "mysqladmin drop mydb",
        ),
        not_match=(
            "psql -c 'SELECT 1'",
            'sqlite3 app.db "DELETE FROM users WHERE id = 1"',
            "echo 'DROP TABLE x' >> notes.md",
            "redis-cli GET key",
        ),
    ),
    Rule(
        code="DG502",
        name="infrastructure-teardown",
        tier=Tier.ASK,
        summary="Destroy infrastructure: terraform destroy, kubectl delete, docker prune, helm",
        why="These remove running infrastructure, cluster objects or volumes, often shared and "
        "often in production; -auto-approve and --force skip the tool's own prompt. Ask, not "
        "hardline: tearing down a dev stack is routine, and only a human knows which one it is.",
        instead="Show the plan first (`terraform plan -destroy`, `kubectl get …`), and let the "
        "user run the teardown.",
        match=(
            "terraform destroy -auto-approve",
            "terraform apply -destroy",
            "kubectl delete namespace prod",
            "kubectl delete all --all",
            "docker system prune -af",
            "docker volume rm data",
            "docker rm -f $(docker ps -aq)",
            "helm uninstall web",
            "pulumi destroy --yes",
            "docker compose down -v",
        ),
        not_match=(
            "terraform plan",
            "kubectl get pods",
            "docker ps",
            "docker compose down",
            "docker rm web",
        ),
    ),
    Rule(
        code="DG505",
        name="package-publish",
        tier=Tier.ASK,
        summary="Publish a package or release to a public registry",
        why="A published version cannot be taken back cleanly; mirrors and users pick it up. "
        "Ask, not hardline: publishing is a release step the user may have asked for.",
        instead="Build and test locally (`npm pack`, `cargo package`), and let the user publish.",
        match=(
            "npm publish",
            "cargo publish",
            "twine upload dist/*",
            "poetry publish",
            "mvn deploy",
            "gradle publish",
        ),
        not_match=("npm pack", "cargo build", "poetry build", "mvn package"),
    ),
)

_SQL_CLIENTS = frozenset(
    {
        "psql",
        "mysql",
        "mariadb",
        "sqlite3",
        "duckdb",
        "clickhouse-client",
        "clickhouse",
        "cockroach",
        "sqlcmd",
        "mongosh",
        "mongo",
        "snowsql",
        "bq",
        "pgcli",
        "mycli",
        "litecli",
    }
)
_SQL_DANGER = re.compile(
    r"\b(drop\s+(?:table|database|schema|index|view|collection|keyspace|user|role)\b|truncate\b"
    r"|delete\s+from\s+[\w.\"`\[\]]+\s*(?:;|$)|\.drop(?:Database)?\(\)|dropDatabase|\.deleteMany\(\s*\{\s*\}\s*\))",
    re.I | re.M,
)


def sql_danger(text: str) -> str | None:
    """Return the destructive SQL statement found in ``text`` (an unqualified DELETE too)."""
    for statement in re.split(r";", text):
        m = _SQL_DANGER.search(
            statement.strip() + ";" if "delete" in statement.lower() else statement
        )
        if m is None:
            continue
        if m.group(0).lower().startswith("delete") and re.search(r"\bwhere\b", statement, re.I):
            continue
        return " ".join(m.group(0).split())[:60]
    return None


def check_sql(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag destructive SQL given to a database client by flag, operand, heredoc or pipe."""
    name = name_of(cmd)
    vals = [w.value for w in cmd.args]
    if name in ("dropdb", "dropuser"):
        yield Hit("DG501", f"{name} {' '.join(vals[-1:])}")
        return
    if name == "mysqladmin" and "drop" in vals:
        yield Hit("DG501", "mysqladmin drop")
        return
    if name in ("redis-cli", "valkey-cli"):
        if any(v.upper() in ("FLUSHALL", "FLUSHDB") for v in vals):
            yield Hit("DG501", "redis FLUSHALL/FLUSHDB")
        return
    if name not in _SQL_CLIENTS:
        return
    texts = [v for v in vals if not v.startswith("-") or " " in v]
    texts += [r.body for r in cmd.redirects if r.body]
    texts += [r.target.value for r in cmd.redirects if r.op == "<<<" and r.target is not None]
    for up in scope.upstream(cmd):
        texts += literal_output(up)
    for text in texts:
        found = sql_danger(text)
        if found:
            yield Hit("DG501", f"{name}: {found}")
            return


def check_teardown(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag terraform/pulumi destroy, kubectl/helm deletes and docker data removal."""
    name = name_of(cmd)
    vals = [w.value for w in cmd.args]
    if name in CLUSTER:
        verbs = subcommand_words(name, cmd.args)
    else:
        verbs = [v for v in vals if not v.startswith("-")]
    if name in ("terraform", "tofu", "terragrunt"):
        if "destroy" in verbs[:2] or ("apply" in verbs[:2] and "-destroy" in vals):
            yield Hit("DG502", f"{name} destroy")
        elif verbs[:2] == ["state", "rm"] or verbs[:2] == ["workspace", "delete"]:
            yield Hit("DG502", f"{name} {' '.join(verbs[:2])}")
    elif name in ("pulumi", "cdk", "sst", "serverless", "sls", "cdktf"):
        if "destroy" in verbs[:2] or verbs[:2] == ["stack", "rm"]:
            yield Hit("DG502", f"{name} destroy")
    elif name in ("kubectl", "oc", "kubecolor"):
        if "delete" in verbs[:1] or verbs[:1] == ["drain"]:
            yield Hit("DG502", f"kubectl {' '.join(verbs[:3])}")
    elif name == "helm" and verbs[:1] and verbs[0] in ("uninstall", "delete", "del"):
        yield Hit("DG502", f"helm {verbs[0]}")
    elif name in ("docker", "podman", "nerdctl"):
        yield from _docker(name, vals, verbs)
    elif name in ("docker-compose",):
        yield from _docker(name, ["compose", *vals], ["compose", *verbs])
    elif name in ("eksctl", "kind", "minikube", "k3d") and verbs[:1] == ["delete"]:
        yield Hit("DG502", f"{name} delete")


def _docker(name: str, vals: list[str], verbs: list[str]) -> Iterator[Hit]:
    head = verbs[:2]
    force = any(
        v in ("-f", "--force") or (v.startswith("-") and not v.startswith("--") and "f" in v)
        for v in vals
    )
    if (
        head == ["system", "prune"]
        or head == ["volume", "prune"]
        or head in (["volume", "rm"], ["volume", "remove"])
    ):
        yield Hit("DG502", f"{name} {' '.join(head)}")
    elif head == ["image", "prune"] and any(v in ("-a", "--all") or v == "-af" for v in vals):
        yield Hit("DG502", f"{name} image prune -a")
    elif verbs[:1] in (["rm"], ["rmi"]) and force:
        yield Hit("DG502", f"{name} {verbs[0]} --force")
    elif verbs[:2] == ["compose", "down"] and any(v in ("-v", "--volumes") for v in vals):
        yield Hit("DG502", f"{name} compose down --volumes")


_PUBLISH = {
    ("npm", "publish"),
    ("pnpm", "publish"),
    ("yarn", "publish"),
    ("yarn", "npm"),
    ("cargo", "publish"),
    ("poetry", "publish"),
    ("twine", "upload"),
    ("gem", "push"),
    ("mvn", "deploy"),
    ("gradle", "publish"),
    ("./gradlew", "publish"),
    ("gradlew", "publish"),
    ("./mvnw", "deploy"),
    ("mvnw", "deploy"),
    ("uv", "publish"),
    ("hatch", "publish"),
    ("flit", "publish"),
    ("dotnet", "nuget"),
    ("mvn", "release:perform"),
    ("./mvnw", "release:perform"),
    ("bun", "publish"),
    ("jsr", "publish"),
    ("deno", "publish"),
}


def check_publish(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag publishing a package to a registry."""
    name = name_of(cmd)
    raw = cmd.argv[0].value if cmd.argv else ""
    positionals = [w.value for w in cmd.args if not w.value.startswith("-")][:2]
    if options_of(name, cmd.args).has("--dry-run", "-n"):
        return
    for p in positionals[:1]:
        if (name, p) in _PUBLISH or (raw, p) in _PUBLISH:
            if name == "yarn" and p == "npm" and positionals[1:2] != ["publish"]:
                return
            yield Hit("DG505", f"{raw} {p}")
            return


CHECKS = {
    **{
        n: check_sql
        for n in (*_SQL_CLIENTS, "dropdb", "dropuser", "mysqladmin", "redis-cli", "valkey-cli")
    },
    **{
        n: check_teardown
        for n in (
            "terraform",
            "tofu",
            "terragrunt",
            "pulumi",
            "cdk",
            "sst",
            "serverless",
            "sls",
            "cdktf",
            "kubectl",
            "oc",
            "kubecolor",
            "helm",
            "docker",
            "podman",
            "nerdctl",
            "docker-compose",
            "eksctl",
            "kind",
            "minikube",
            "k3d",
        )
    },
    **{n: check_publish for n in {p[0].rpartition("/")[2] for p in _PUBLISH}},
}
