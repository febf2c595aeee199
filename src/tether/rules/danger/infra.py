"""DG5xx: data stores and infrastructure: SQL drops, cloud and cluster teardown, remote deletes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, split_options
from tether.rules.danger.interp import literal_output
from tether.shell.model import SimpleCommand, Word

RULES = (
    Rule(
        code="DG501",
        name="sql-destructive",
        tier=Tier.ASK,
        summary="SQL DROP, TRUNCATE or an unqualified DELETE sent to a database client",
        why="Dropped tables and unqualified deletes are gone unless someone restores a backup.",
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
        "often in production; -auto-approve and --force skip the tool's own prompt.",
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
        code="DG503",
        name="cloud-resource-delete",
        tier=Tier.ASK,
        summary="A cloud, SaaS or backup CLI deleting resources (buckets, secrets, backups)",
        why="`aws s3 rm --recursive`, `gsutil rm -r`, `vault kv destroy`, `restic forget --prune` "
        "and their kind delete remote data that no local undo can restore.",
        instead="List what would be deleted first (ls/list/describe, --dry-run) and let the user "
        "run the delete.",
        match=(
            "aws s3 rm s3://bucket --recursive",
            "aws ec2 terminate-instances --instance-ids i-1",
            "gsutil -m rm -r gs://bucket",
            "gcloud storage rm gs://b/f",
            "vault kv destroy -versions=1 secret/x",
            "restic forget --keep-last 1 --prune",
            "rclone purge remote:bucket",
            "gh repo delete owner/repo",
            "doppler secrets delete API_KEY",
            "az storage account delete -n acct",
        ),
        not_match=(
            "aws s3 ls",
            "aws s3 cp f s3://b/",
            "gsutil ls gs://b",
            "vault kv get secret/x",
            "restic snapshots",
            "rclone sync /src remote:b --dry-run",
            "gh repo view",
            "unleash features disable t",
        ),
    ),
    Rule(
        code="DG504",
        name="http-delete-request",
        tier=Tier.ASK,
        summary="An HTTP DELETE (or delete endpoint) sent to an API",
        why="A DELETE against a live API removes remote data (indices, projects, users) at once.",
        instead="GET the resource first, show it, and let the user send the delete.",
        match=(
            "curl -X DELETE http://localhost:9200/my-index",
            "curl --request DELETE https://api.x/v1/p/1",
            "http DELETE :9200/idx",
            "gh api -X DELETE /repos/o/r",
            "curl -X POST http://localhost:9200/i/_delete_by_query",
        ),
        not_match=(
            "curl -X GET http://localhost:9200/_cat/indices",
            "curl https://example.com",
            "http GET :7700/health",
        ),
    ),
    Rule(
        code="DG505",
        name="package-publish",
        tier=Tier.ASK,
        summary="Publish a package or release to a public registry",
        why="A published version cannot be taken back cleanly; mirrors and users pick it up.",
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


# Service CLIs whose subcommand words name the action. A verb anywhere in the first positional
# words (or an aws-style ``delete-thing`` operation) is a remote delete.
_DELETE_VERBS = frozenset(
    {
        "delete",
        "destroy",
        "rm",
        "rb",
        "remove",
        "purge",
        "prune",
        "drop",
        "del",
        "terminate",
        "deletefile",
        "rdelete",
        "repo-delete",
        "uninstall",
        "unregister",
        "forget",
        "rmdir",
    }
)
_EXTRA_VERBS: dict[str, frozenset[str]] = {
    "vault": frozenset({"destroy", "disable", "revoke"}),
    "borg": frozenset({"compact", "break-lock", "recreate"}),
    "restic": frozenset(),
    "rclone": frozenset({"cleanup", "dedupe", "move", "moveto"}),
    "rabbitmqctl": frozenset(
        {
            "reset",
            "force_reset",
            "delete_user",
            "delete_vhost",
            "clear_permissions",
            "forget_cluster_node",
            "delete_queue",
            "purge_queue",
        }
    ),
    "wrangler": frozenset({"rollback"}),
    "gh": frozenset({"archive"}),
    "glab": frozenset({"archive"}),
    "ldcli": frozenset({"archive"}),
    "unleash": frozenset({"archive"}),
    "split": frozenset({"kill"}),
    "deck": frozenset({"reset", "sync"}),
    "stripe": frozenset({"roll"}),
    "mc": frozenset({"disable", "unset"}),
    "gcloud": frozenset({"undeploy"}),
    "az": frozenset({"untag"}),
    "splunk": frozenset({"clean"}),
    "gitlab-runner": frozenset(),
    "fastly": frozenset({"activate"}),
    "aws": frozenset(
        {"put-secret-value", "update-secret", "unsubscribe", "create-invalidation", "rb"}
    ),
    "algolia": frozenset({"clear"}),
    "gitlab-rake": frozenset({"gitlab:backup:restore", "gitlab:cleanup:orphan_job_artifact_files"}),
    "rpk": frozenset(),
}
_SERVICE_CLIS = frozenset(
    {
        "aws",
        "gcloud",
        "gsutil",
        "az",
        "azcopy",
        "vault",
        "op",
        "doppler",
        "rclone",
        "restic",
        "borg",
        "velero",
        "mc",
        "fastly",
        "circleci",
        "glab",
        "gh",
        "nats",
        "rabbitmqctl",
        "rabbitmqadmin",
        "wrangler",
        "stripe",
        "algolia",
        "apigeecli",
        "flipt",
        "ldcli",
        "unleash",
        "split",
        "pd",
        "newrelic",
        "datadog-ci",
        "deck",
        "splunk",
        "gitlab-runner",
        "square",
        "rpk",
        "heroku",
        "fly",
        "flyctl",
        "vercel",
        "netlify",
        "doctl",
        "linode-cli",
        "hcloud",
        "railway",
        "supabase",
        "firebase",
        "s3cmd",
        "b2",
        "infisical",
        "akeyless",
        "grafana-cli",
        "tsh",
        "consul",
        "gitlab-rake",
        "nomad",
        "etcdctl",
        "scw",
        "oci",
        "ibmcloud",
        "aliyun",
        "kaf",
    }
)
_DRY = ("--dry-run", "--dryrun", "--dry_run", "--whatif")


def check_service_cli(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag delete verbs in cloud, SaaS, secrets and backup CLIs."""
    name = name_of(cmd)
    vals = [w.value for w in cmd.args]
    if name == "java" and any("jenkins-cli" in v for v in vals):
        name = "jenkins-cli"
        vals = vals[next(i for i, v in enumerate(vals) if "jenkins-cli" in v) + 1 :]
    kafka_flags = [
        v for v in vals if v in ("--delete", "--remove", "--delete-config", "--reset-offsets")
    ]
    if name.startswith("kafka-") and kafka_flags:
        yield Hit("DG503", f"{name} {kafka_flags[0]}")
        return
    if name == "gitlab-rails" and any(
        re.search(r"\.(?:destroy|delete)(?:_all)?\b", v) for v in vals
    ):
        yield Hit("DG503", "gitlab-rails runner deletes records")
        return
    if (
        name == "aws"
        and "change-resource-record-sets" in vals
        and any('"DELETE"' in v for v in vals)
    ):
        yield Hit("DG503", "aws route53 change-resource-record-sets DELETE")
        return
    if name == "kafka-delete-records":
        yield Hit("DG503", name)
        return
    if name not in _SERVICE_CLIS and name != "jenkins-cli":
        return
    if any(v in _DRY for v in vals):
        return
    positionals = [v for v in vals if not v.startswith("-")][:4]
    if name in ("gh", "glab") and positionals[:1] == ["api"]:
        yield from _api_method(name, cmd.args)
        return
    extra = _EXTRA_VERBS.get(name, frozenset())
    for v in positionals:
        low = v.lower()
        if (
            low in _DELETE_VERBS
            or low in extra
            or re.match(
                r"^(?:batch-)?(?:delete|terminate|deregister|purge|destroy|remove)[-_]", low
            )
        ):
            yield Hit("DG503", f"{name} {' '.join(positionals[:3])}")
            return
    if name == "aws" and positionals[:2] == ["s3", "sync"] and "--delete" in vals:
        yield Hit("DG503", "aws s3 sync --delete")
    elif name == "gsutil" and "rsync" in positionals and any(v in ("-d",) for v in vals):
        yield Hit("DG503", "gsutil rsync -d")
    elif name == "rclone" and positionals[:1] == ["sync"]:
        yield Hit("DG503", "rclone sync deletes destination files missing from the source")
    elif (
        name == "azcopy"
        and positionals[:1] == ["sync"]
        and any(v.startswith("--delete-destination") for v in vals)
    ):
        yield Hit("DG503", "azcopy sync --delete-destination")
    elif name == "mc" and positionals[:1] == ["mirror"] and "--remove" in vals:
        yield Hit("DG503", "mc mirror --remove")
    elif name in ("gh", "glab") and positionals[:1] == ["api"]:
        yield from _api_method(name, cmd.args)
    elif name == "restic" and positionals[:1] == ["unlock"] and "--remove-all" in vals:
        yield Hit("DG503", "restic unlock --remove-all")
    elif name == "restic" and positionals[:1] == ["key"] and "remove" in positionals:
        yield Hit("DG503", "restic key remove")
    elif name == "restic" and positionals[:1] == ["cache"] and "--cleanup" in vals:
        yield Hit("DG503", "restic cache --cleanup")


def _api_method(name: str, args: tuple[Word, ...]) -> Iterator[Hit]:
    vals = [w.value for w in args]
    for i, v in enumerate(vals):
        method = ""
        if v in ("-X", "--method", "--request") and i + 1 < len(vals):
            method = vals[i + 1]
        elif v.startswith(("-X", "--method=", "--request=")) and len(v) > 2:
            method = v.split("=", 1)[1] if "=" in v else v[2:]
        if method.upper() == "DELETE":
            yield Hit("DG504", f"{name} DELETE request")
            return


_DELETE_PATH = re.compile(
    r"(?:_delete_by_query|/doDelete\b|delete_series|delete-batch|/_close\b|_cluster/settings)"
)


def check_http(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag HTTP clients sending DELETE (or hitting well-known delete endpoints)."""
    name = name_of(cmd)
    vals = [w.value for w in cmd.args]
    if name in ("curl", "wget"):
        yield from _api_method(name, cmd.args)
        if any(v.upper() == "--METHOD=DELETE" for v in vals):
            yield Hit("DG504", f"{name} DELETE request")
            return
    elif name in ("http", "https", "xh"):
        if any(v.upper() == "DELETE" for v in vals[:3]):
            yield Hit("DG504", f"{name} DELETE request")
            return
    else:
        return
    for v in vals:
        if ("://" in v or v.startswith((":", "localhost", "127."))) and _DELETE_PATH.search(v):
            yield Hit("DG504", f"{name} {v[:60]}")
            return
        if "mutation" in v and re.search(r"\bdelete\w*\s*\(", v, re.I):
            yield Hit("DG504", f"{name} GraphQL delete mutation")
            return


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
    _opts, _ = split_options(cmd.args)
    if any(o in ("--dry-run", "-n") for o in _opts):
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
    **{n: check_service_cli for n in (*_SERVICE_CLIS, "java", "gitlab-rails")},
    **{n: check_http for n in ("curl", "wget", "http", "https", "xh")},
    **{n: check_publish for n in {p[0].rpartition("/")[2] for p in _PUBLISH}},
}
PREFIXES = (("kafka-", check_service_cli),)
