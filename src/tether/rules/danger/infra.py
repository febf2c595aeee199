"""DG5xx: infrastructure: teardown and publishing (data stores: ``stores.py``)."""

from __future__ import annotations

from collections.abc import Iterator

from tether.rules.base import Rule, Tier
from tether.rules.danger._base import Hit, Scope, name_of, options_of
from tether.shell.model import SimpleCommand, Word
from tether.shell.options import Parsed, parse
from tether.shell.tools import (
    CLUSTER,
    DOCKER_SUBCOMMANDS,
    INTERPRETERS,
    TERRAFORM,
    go_flags,
    subcommand_words,
    tool_grammar,
)

INFRASTRUCTURE_TEARDOWN = Rule(
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
        "terraform apply -destroy=true",
        "terraform -chdir=infra apply --destroy -auto-approve",
        "terraform apply -var env=prod -destroy",
        "docker rm -vf web",
        "docker container rm --force web",
        "docker -H ssh://h image rm -f img",
        "docker compose -f prod.yml down --volumes",
        "docker compose -p shop down -v",
        "docker-compose down -v",
        "docker image prune --all",
        "tofu destroy",
        "terragrunt run-all destroy",
        "kubectl scale deploy web --replicas=0",
        "kubectl -n prod scale statefulset db --replicas 0",
        "kubectl apply --prune -f manifests/ -l app=web",
        "oc apply -f dir --prune --all",
    ),
    not_match=(
        "terraform apply -destroy=false",
        "terraform plan -destroy",
        "terraform apply -var destroy=1",
        "docker rm -v web",
        "docker run --rm -f x img",
        "docker compose -f down.yml up",
        "docker image prune",
        "docker logs -f web",
        "terraform plan",
        "kubectl get pods",
        "docker ps",
        "docker compose down",
        "docker rm web",
        "kubectl scale deploy web --replicas=3",
        "kubectl apply -f deploy.yaml",
        "kubectl apply --prune=false -f dir",
    ),
)

PACKAGE_PUBLISH = Rule(
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
        "npm --registry http://x publish",
        "npm --reg=https://r.example publish --access public",
        "npm -w packages/a publish",
        "npm --loglevel silly --userconfig ./.npmrc publish",
        "npm -n publish",
        "npm publish --dry-run false",
        "npm publish --dry-run=false",
        "pnpm -C packages/a publish",
        "pnpm --filter @x/a publish",
        "yarn --cwd packages/a publish",
        "poetry -n publish",
        "cargo +nightly publish",
        "cargo --config registry.token=x publish",
        "cargo -Z unstable-options publish",
        "mvn -s settings.xml deploy",
        "mvn -P release -pl core deploy",
        "./mvnw -B -T 4 deploy",
        "./gradlew -p lib -x test publish",
        "poetry -C packages/a publish",
    ),
    not_match=(
        "npm pack",
        "cargo build",
        "poetry build",
        "mvn package",
        "npm --registry http://x view pkg",
        "npm -w publish run build",
        "npm publish --dry-run",
        "cargo publish -n",
        "pnpm --filter publish test",
        "yarn --cwd publish build",
        "cargo +nightly build",
        "cargo --config publish build",
        "mvn -s deploy.xml package",
        "gradle -m publish",
        "./gradlew -x publish build",
    ),
)

RULES = (
    INFRASTRUCTURE_TEARDOWN,
    PACKAGE_PUBLISH,
)


def _terraform(name: str, args: tuple[Word, ...]) -> Iterator[Hit]:
    words = go_flags(args)  # Go's flag package: -chdir is --chdir
    top = parse(TERRAFORM[""], words, stop_at=1).operands
    verb = top[0].value if top else ""
    rest = top[1:]
    if verb == "run-all" and rest:  # terragrunt runs the command in every module
        verb, rest = rest[0].value, rest[1:]
    if verb == "destroy":
        yield INFRASTRUCTURE_TEARDOWN.hit(f"{name} destroy")
    elif verb in ("apply", "plan"):
        parsed = parse(TERRAFORM[verb], rest)
        on = [v for o, v in parsed.options if o == "--destroy"]
        if verb == "apply" and any(v is None or v.lower() not in _GO_FALSE for v in on):
            yield INFRASTRUCTURE_TEARDOWN.hit(f"{name} apply -destroy")
    elif verb in ("state", "workspace"):
        sub = [w.value for w in options_of(name, rest).operands[:1]]
        if (verb, sub[:1]) in (("state", ["rm"]), ("workspace", ["delete"])):
            yield INFRASTRUCTURE_TEARDOWN.hit(f"{name} {verb} {sub[0]}")


_GO_FALSE = frozenset({"false", "0", "f"})


def check_teardown(cmd: SimpleCommand, scope: Scope) -> Iterator[Hit]:
    """Flag terraform/pulumi destroy, kubectl/helm deletes and docker data removal."""
    name = name_of(cmd)
    if name in ("terraform", "tofu", "terragrunt"):
        yield from _terraform(name, cmd.args)
        return
    if name in ("docker", "podman", "nerdctl"):
        top = parse(CLUSTER[name], cmd.args, stop_at=1).operands
        yield from _docker(name, top)
        return
    if name == "docker-compose":
        yield from _docker(name, (Word("compose"), *cmd.args))
        return
    if name in CLUSTER:
        verbs = subcommand_words(name, cmd.args)
    else:
        verbs = [w.value for w in options_of(name, cmd.args).operands]
    if name in ("pulumi", "cdk", "sst", "serverless", "sls", "cdktf"):
        if "destroy" in verbs[:2] or verbs[:2] == ["stack", "rm"]:
            yield INFRASTRUCTURE_TEARDOWN.hit(f"{name} destroy")
    elif name in ("kubectl", "oc", "kubecolor"):
        if "delete" in verbs[:1] or verbs[:1] == ["drain"]:
            yield INFRASTRUCTURE_TEARDOWN.hit(f"kubectl {' '.join(verbs[:3])}")
        elif verbs[:1] in (["scale"], ["apply"]):
            yield from _kubectl_scale_prune(name, verbs[0], cmd.args)
    elif name == "helm" and verbs[:1] and verbs[0] in ("uninstall", "delete", "del"):
        yield INFRASTRUCTURE_TEARDOWN.hit(f"helm {verbs[0]}")
    elif name in ("eksctl", "kind", "minikube", "k3d") and verbs[:1] == ["delete"]:
        yield INFRASTRUCTURE_TEARDOWN.hit(f"{name} delete")


def _kubectl_scale_prune(name: str, verb: str, args: tuple[Word, ...]) -> Iterator[Hit]:
    """Flag ``kubectl scale --replicas=0`` and ``kubectl apply --prune`` (deletes objects)."""
    words = [w.value for w in args]
    for i, w in enumerate(words):
        if verb == "scale" and w.startswith("--replicas"):
            value = (
                w.partition("=")[2] if "=" in w else (words[i + 1] if i + 1 < len(words) else "")
            )
            if value.strip() == "0":
                yield INFRASTRUCTURE_TEARDOWN.hit(
                    f"{name} scale --replicas=0 stops every pod of the workload"
                )
                return
        elif (
            verb == "apply"
            and (w == "--prune" or w.startswith("--prune="))
            and (w.partition("=")[2].lower() != "false")
        ):
            yield INFRASTRUCTURE_TEARDOWN.hit(
                f"{name} apply --prune deletes objects missing from the files"
            )
            return


def _docker(name: str, words: tuple[Word, ...]) -> Iterator[Hit]:
    """Judge ``docker SUB …`` from the subcommand on (``words[0]`` is the subcommand)."""
    if not words:
        return
    sub, rest = words[0].value, words[1:]
    if sub == "compose":
        inner = parse(DOCKER_SUBCOMMANDS["compose"], rest, stop_at=1).operands
        sub, rest = "compose " + (inner[0].value if inner else ""), inner[1:]
    elif sub in ("container", "image", "volume", "system") and rest:
        first = parse(DOCKER_SUBCOMMANDS.get(sub) or tool_grammar(""), rest, stop_at=1)
        if first.operands:
            sub, rest = f"{sub} {first.operands[0].value}", first.operands[1:]
    g = DOCKER_SUBCOMMANDS.get(sub)
    parsed = parse(g, rest) if g is not None else options_of("", rest)
    if sub in ("system prune", "volume prune", "volume rm", "volume remove"):
        yield INFRASTRUCTURE_TEARDOWN.hit(f"{name} {sub}")
    elif sub == "image prune" and parsed.has("--all"):
        yield INFRASTRUCTURE_TEARDOWN.hit(f"{name} image prune -a")
    elif sub in ("rm", "rmi", "container rm", "image rm") and parsed.has("--force"):
        yield INFRASTRUCTURE_TEARDOWN.hit(f"{name} {sub} --force")
    elif sub == "compose down" and parsed.has("--volumes"):
        yield INFRASTRUCTURE_TEARDOWN.hit(f"{name} compose down --volumes")


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
    args = cmd.args
    if name == "bun":
        # bun's global options (the interpreter's grammar: ``bun --cwd DIR publish``) end at
        # its subcommand, whose own options follow it (``bun publish --dry-run``).
        args = parse(INTERPRETERS["bun"], args).operands
    parsed = options_of(name, args)
    positionals = [w.value for w in parsed.operands[:3]]
    if name == "cargo" and positionals[:1] and positionals[0].startswith("+"):
        positionals = positionals[1:]  # ``cargo +nightly publish``: rustup picks the toolchain
    if _dry_run(name, parsed):
        return
    for p in positionals[:1]:
        if (name, p) in _PUBLISH or (raw, p) in _PUBLISH:
            if name == "yarn" and p == "npm" and positionals[1:2] != ["publish"]:
                return
            yield PACKAGE_PUBLISH.hit(f"{raw} {p}")
            return


def _dry_run(name: str, parsed: Parsed) -> bool:
    """Return True when the publish only rehearses (``--dry-run``; cargo's ``-n`` too).

    npm, pnpm and yarn read ``--dry-run false`` and ``--dry-run=false`` as off (nopt), and
    their ``-n`` is ``--no-yes``, poetry's ``--no-interaction``.
    """
    if name == "cargo" and parsed.has("-n"):
        return True
    given = [v for o, v in parsed.options if o == "--dry-run"]
    if not given:
        return False
    off = given[-1] is not None and given[-1].lower() == "false"
    return not (off or any(w.value == "false" for w in parsed.operands))


CHECKS = {
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
