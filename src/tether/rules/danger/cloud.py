"""DG5xx (remote data): cloud, SaaS, secrets and backup CLIs deleting resources; HTTP DELETEs."""

from __future__ import annotations

import re
from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.shell.model import SimpleCommand, Word
from tether.shell.options import Parsed, parse
from tether.shell.tools import tool_grammar

CLOUD_RESOURCE_DELETE = Rule(
    code="DG503",
    name="cloud-resource-delete",
    tier=Tier.ASK,
    summary="A cloud, SaaS or backup CLI deleting resources (buckets, secrets, backups)",
    why="`aws s3 rm --recursive`, `gsutil rm -r`, `vault kv destroy`, `restic forget --prune` "
    "and their kind delete remote data that no local undo can restore. Ask, not hardline: "
    "remote resources are not this machine, and cleaning up a test bucket is routine.",
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
        "gsutil -m rsync -rd ./src gs://bucket",
        "aws s3 sync . s3://b --delete",
        "kafka-topics --bootstrap-server k:9092 --delete --topic t",
        "aws kms schedule-key-deletion --key-id 1234abcd --pending-window-in-days 7",
        "aws kms disable-key --key-id 1234abcd",
        "gcloud kms keys versions destroy 1 --key k --keyring r --location global",
        "aws secretsmanager delete-secret --secret-id prod/db --force-delete-without-recovery",
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
        "aws kms describe-key --key-id 1234abcd",
        "aws kms cancel-key-deletion --key-id 1234abcd",
    ),
)

HTTP_DELETE_REQUEST = Rule(
    code="DG504",
    name="http-delete-request",
    tier=Tier.ASK,
    summary="An HTTP DELETE (or delete endpoint) sent to an API",
    why="A DELETE against a live API removes remote data (indices, projects, users) at once. "
    "Ask, not hardline: a DELETE to a local dev server is everyday work.",
    instead="GET the resource first, show it, and let the user send the delete.",
    match=(
        "curl -X DELETE http://localhost:9200/my-index",
        "curl --request DELETE https://api.x/v1/p/1",
        "http DELETE :9200/idx",
        "gh api -X DELETE /repos/o/r",
        "curl -X POST http://localhost:9200/i/_delete_by_query",
        "curl -sXDELETE http://localhost:9200/i",
        "curl -s --request DELETE https://api.x/v1/p/1",
        "wget --meth=delete https://api.x/v1/p/1",
        "gh api --method=DELETE /repos/o/r",
        "gh api -XDELETE /repos/o/r",
    ),
    not_match=(
        "curl -o -XDELETE.txt http://localhost:9200/i",
        "curl -H 'X-Reason: DELETE' https://api.x",
        "gh api -f note=DELETE /repos/o/r/issues",
        "curl -X GET http://localhost:9200/_cat/indices",
        "curl https://example.com",
        "http GET :7700/health",
    ),
)

RULES = (
    CLOUD_RESOURCE_DELETE,
    HTTP_DELETE_REQUEST,
)

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
    # A KMS key scheduled for deletion or disabled makes every secret it encrypts unreadable.
    "aws": frozenset(
        {
            "put-secret-value",
            "update-secret",
            "unsubscribe",
            "create-invalidation",
            "rb",
            "schedule-key-deletion",
            "disable-key",
        }
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


_KAFKA_DELETES = ("--delete", "--remove", "--delete-config", "--reset-offsets")


def check_service_cli(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag delete verbs in cloud, SaaS, secrets and backup CLIs."""
    name = name_of(cmd)
    args = cmd.args
    if name == "java":
        jar = next((i for i, w in enumerate(args) if "jenkins-cli" in w.value), -1)
        if jar >= 0:
            name, args = "jenkins-cli", args[jar + 1 :]
    # Most of these CLIs have no grammar in the table: options are flags and a value given as
    # a separate word reads as an operand, so the verb is looked for among the first four.
    parsed = options_of(name, args)
    operands = [w.value for w in parsed.operands]
    if name.startswith("kafka-") and parsed.has(*_KAFKA_DELETES):
        yield CLOUD_RESOURCE_DELETE.hit(
            f"{name} {next(o for o in parsed.names() if o in _KAFKA_DELETES)}"
        )
        return
    if name == "gitlab-rails" and any(
        re.search(r"\.(?:destroy|delete)(?:_all)?\b", v) for v in operands
    ):
        yield CLOUD_RESOURCE_DELETE.hit("gitlab-rails runner deletes records")
        return
    if (
        name == "aws"
        and "change-resource-record-sets" in operands
        and any('"DELETE"' in v for v in [*operands, *parsed.values(*parsed.names())])
    ):
        yield CLOUD_RESOURCE_DELETE.hit("aws route53 change-resource-record-sets DELETE")
        return
    if name == "kafka-delete-records":
        yield CLOUD_RESOURCE_DELETE.hit(name)
        return
    if name not in _SERVICE_CLIS and name != "jenkins-cli":
        return
    if parsed.has(*_DRY):
        return
    positionals = operands[:4]
    if name in ("gh", "glab") and positionals[:1] == ["api"]:
        # The words after ``api``, options included (the first operand ends gh's own).
        yield from _api_method(
            f"{name} api", parse(tool_grammar(name), args, stop_at=1).operands[1:]
        )
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
            yield CLOUD_RESOURCE_DELETE.hit(f"{name} {' '.join(positionals[:3])}")
            return
    head = positionals[:1]
    if name == "aws" and positionals[:2] == ["s3", "sync"] and parsed.has("--delete"):
        yield CLOUD_RESOURCE_DELETE.hit("aws s3 sync --delete")
    elif name == "gsutil" and "rsync" in positionals and parsed.has("-d"):
        yield CLOUD_RESOURCE_DELETE.hit("gsutil rsync -d")
    elif name == "rclone" and head == ["sync"]:
        yield CLOUD_RESOURCE_DELETE.hit(
            "rclone sync deletes destination files missing from the source"
        )
    elif (
        name == "azcopy"
        and head == ["sync"]
        and parsed.has("--delete-destination")
        and not all(v.lower() == "false" for v in parsed.values("--delete-destination") or ["x"])
    ):
        yield CLOUD_RESOURCE_DELETE.hit("azcopy sync --delete-destination")
    elif name == "mc" and head == ["mirror"] and parsed.has("--remove"):
        yield CLOUD_RESOURCE_DELETE.hit("mc mirror --remove")
    elif name == "restic" and head == ["unlock"] and parsed.has("--remove-all"):
        yield CLOUD_RESOURCE_DELETE.hit("restic unlock --remove-all")
    elif name == "restic" and head == ["key"] and "remove" in positionals:
        yield CLOUD_RESOURCE_DELETE.hit("restic key remove")
    elif name == "restic" and head == ["cache"] and parsed.has("--cleanup"):
        yield CLOUD_RESOURCE_DELETE.hit("restic cache --cleanup")


# Where each HTTP client takes the request method.
_METHOD_OPTION = {"curl": "--request", "wget": "--method", "gh api": "--method",
                  "glab api": "--method"}  # fmt: skip


def _api_method(name: str, args: tuple[Word, ...]) -> Iterator[Hit]:
    yield from _method_hits(name, options_of(name, args))


def _method_hits(name: str, parsed: Parsed) -> Iterator[Hit]:
    if any(m.upper() == "DELETE" for m in parsed.values(_METHOD_OPTION[name])):
        yield HTTP_DELETE_REQUEST.hit(f"{name} DELETE request")


_DELETE_PATH = re.compile(
    r"(?:_delete_by_query|/doDelete\b|delete_series|delete-batch|/_close\b|_cluster/settings)"
)


def check_http(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag HTTP clients sending DELETE (or hitting well-known delete endpoints)."""
    name = name_of(cmd)
    parsed = options_of(name, cmd.args)
    if name in ("curl", "wget"):
        hits = list(_method_hits(name, parsed))
        if hits:
            yield from hits
            return
    elif name in ("http", "https", "xh"):
        # httpie: ``http [METHOD] URL [ITEM …]``; the method is a leading operand.
        if any(w.value.upper() == "DELETE" for w in parsed.operands[:1]):
            yield HTTP_DELETE_REQUEST.hit(f"{name} DELETE request")
            return
    else:
        return
    texts = [w.value for w in parsed.operands] + [v for _, v in parsed.options if v]
    for v in texts:
        if ("://" in v or v.startswith((":", "localhost", "127."))) and _DELETE_PATH.search(v):
            yield HTTP_DELETE_REQUEST.hit(f"{name} {v[:60]}")
            return
        if "mutation" in v and re.search(r"\bdelete\w*\s*\(", v, re.I):
            yield HTTP_DELETE_REQUEST.hit(f"{name} GraphQL delete mutation")
            return


CHECKS = {
    **{n: check_service_cli for n in (*_SERVICE_CLIS, "java", "gitlab-rails")},
    **{n: check_http for n in ("curl", "wget", "http", "https", "xh")},
}
PREFIXES = (("kafka-", check_service_cli),)
