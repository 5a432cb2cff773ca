"""k8s/ checked offline: every overlay renders (kubectl kustomize), core kinds validate
strictly against a pinned Kubernetes version (kubernetes-validate), RayCluster and RayJob
against the vendored KubeRay v1.7.0 CRDs (as published, and closed so typos fail), and
what one manifest refers to in another (Secrets, ConfigMaps, volumes, images, ports,
probes, service names in URLs) exists and agrees. Every pod is bounded (requests and
limits) and locked down (non-root, no escalation, no capabilities, read-only root), and
the network policies allow exactly the paths the design names."""

from __future__ import annotations

import copy
import re
import shlex
from typing import Any
from urllib.parse import urlparse

import jsonschema
import kubernetes_validate
import pytest

from tests.deploy.manifests import (
    KUBERNETES_VERSION,
    OVERLAYS,
    ROOT,
    Manifest,
    by_kind,
    crd_validator,
    named,
    pod_specs,
)

RAY_KINDS = ("RayCluster", "RayJob")


def containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return [*pod.get("initContainers", []), *pod["containers"]]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_overlay_renders_the_whole_stack(rendered: dict[str, list[Manifest]], overlay: str):
    objects = rendered[overlay]
    kinds = {(o["kind"], o["metadata"]["name"]) for o in objects}
    for expected in [
        ("RayCluster", "menagerie-ray"),
        ("RayJob", "tournament"),
        ("ConfigMap", "tournament"),
        ("Deployment", "game-server"),
        ("Service", "game-server"),
        ("PodDisruptionBudget", "game-server"),
        ("Deployment", "ladder-runner"),
        ("Deployment", "mlflow"),
        ("Service", "mlflow"),
        ("StatefulSet", "postgres"),
        ("Service", "postgres"),
        ("NetworkPolicy", "default-deny"),
    ]:
        assert expected in kinds, f"{overlay} lacks {expected}"
    assert {o["metadata"].get("namespace") for o in objects if o["kind"] != "Namespace"} == {
        "menagerie"
    }


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_core_kinds_validate_strictly(rendered: dict[str, list[Manifest]], overlay: str):
    checked = 0
    for o in rendered[overlay]:
        if o["kind"] in RAY_KINDS:
            continue
        kubernetes_validate.validate(o, KUBERNETES_VERSION, strict=True)
        checked += 1
    assert checked >= 15


def test_strict_validation_catches_a_misspelt_field(rendered: dict[str, list[Manifest]]):
    deployment = copy.deepcopy(named(rendered["dev"], "Deployment", "game-server"))
    deployment["spec"]["template"]["spec"]["containers"][0]["resource"] = {}  # not "resources"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize("overlay", OVERLAYS)
@pytest.mark.parametrize("kind", RAY_KINDS)
def test_kuberay_kinds_match_the_crd(rendered: dict[str, list[Manifest]], overlay: str, kind: str):
    (resource,) = by_kind(rendered[overlay], kind)
    assert resource["apiVersion"] == "ray.io/v1"
    crd_validator(kind).validate(resource)
    crd_validator(kind, closed_=True).validate(resource)


def test_closed_schema_catches_what_the_published_one_lets_through(
    rendered: dict[str, list[Manifest]],
):
    cluster = copy.deepcopy(named(rendered["dev"], "RayCluster", "menagerie-ray"))
    cluster["spec"]["workerGroupSpecs"][0]["minReplica"] = 1  # a typo of minReplicas
    crd_validator("RayCluster").validate(cluster)  # the published schema does not mind...
    with pytest.raises(jsonschema.ValidationError, match="minReplica"):
        crd_validator("RayCluster", closed_=True).validate(cluster)  # ...the closed one does
    cluster = copy.deepcopy(named(rendered["dev"], "RayCluster", "menagerie-ray"))
    cluster["spec"]["headGroupSpec"]["rayStartParams"]["num-cpus"] = 0  # not a string
    with pytest.raises(jsonschema.ValidationError, match="is not of type 'string'"):
        crd_validator("RayCluster").validate(cluster)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_ray_cluster_is_sized_and_matches_the_image(
    rendered: dict[str, list[Manifest]], overlay: str
):
    cluster = named(rendered[overlay], "RayCluster", "menagerie-ray")["spec"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    image_ray = re.search(r"^ARG RAY_VERSION=(\S+)$", dockerfile, re.M)
    assert image_ray is not None and cluster["rayVersion"] == image_ray.group(1)
    import ray

    assert cluster["rayVersion"] == ray.__version__, "the image's Ray is pyproject's Ray"
    for group in [cluster["headGroupSpec"], *cluster["workerGroupSpecs"]]:
        assert all(isinstance(v, str) for v in group["rayStartParams"].values())
    for group in cluster["workerGroupSpecs"]:
        assert "minReplicas" in group and "maxReplicas" in group, group["groupName"]
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]
        # Ray's CPUs of a worker are the container's CPU limit (no oversubscription)
        (container,) = group["template"]["spec"]["containers"]
        assert group["rayStartParams"]["num-cpus"] == str(container["resources"]["limits"]["cpu"])


def _env(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in container.get("env", [])}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_references_between_manifests_resolve(rendered: dict[str, list[Manifest]], overlay: str):
    objects = rendered[overlay]
    secrets = {o["metadata"]["name"]: o for o in by_kind(objects, "Secret")}
    maps = {o["metadata"]["name"]: o for o in by_kind(objects, "ConfigMap")}
    claims = {o["metadata"]["name"] for o in by_kind(objects, "PersistentVolumeClaim")}
    used_secrets: set[str] = set()
    for where, _meta, pod in pod_specs(objects):
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        templates = set()
        for o in objects:
            if o["kind"] == "StatefulSet" and where == f"StatefulSet/{o['metadata']['name']}":
                templates = {t["metadata"]["name"] for t in o["spec"]["volumeClaimTemplates"]}
        for volume in volumes.values():
            if "configMap" in volume:
                assert volume["configMap"]["name"] in maps, f"{where}: {volume}"
            if "secret" in volume:
                assert volume["secret"]["secretName"] in secrets, f"{where}: {volume}"
            if "persistentVolumeClaim" in volume:
                assert volume["persistentVolumeClaim"]["claimName"] in claims, f"{where}"
        for c in containers(pod):
            for mount in c.get("volumeMounts", []):
                assert mount["name"] in volumes or mount["name"] in templates, f"{where}: {mount}"
            for e in c.get("env", []):
                ref = e.get("valueFrom", {})
                if "secretKeyRef" in ref:
                    name, key = ref["secretKeyRef"]["name"], ref["secretKeyRef"]["key"]
                    assert name in secrets, f"{where}: Secret {name} missing"
                    assert key in secrets[name].get("data", {}), f"{where}: {name} has no {key}"
                    used_secrets.add(name)
                if "configMapKeyRef" in ref:
                    name, key = ref["configMapKeyRef"]["name"], ref["configMapKeyRef"]["key"]
                    assert key in maps[name]["data"], f"{where}: ConfigMap {name} has no {key}"
    assert used_secrets == set(secrets), "every Secret is used, every used one exists"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_services_ports_and_probes_agree(rendered: dict[str, list[Manifest]], overlay: str):
    objects = rendered[overlay]
    pods = list(pod_specs(objects))
    for service in by_kind(objects, "Service"):
        selector = service["spec"]["selector"]
        matching = [(w, p) for w, m, p in pods if selector.items() <= m.get("labels", {}).items()]
        assert matching, f"Service {service['metadata']['name']} selects no pod"
        ports = {
            port["containerPort"]
            for _, p in matching
            for c in p["containers"]
            for port in c.get("ports", [])
        }
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in ports, f"{service['metadata']['name']}: {port}"
    # the game server: one port in the args, the container, both probes and the Service
    deployment = named(objects, "Deployment", "game-server")["spec"]["template"]["spec"]
    (server,) = deployment["containers"]
    args = server["args"]
    port = int(args[args.index("--port") + 1])
    assert args[:2] == ["arena", "serve"] and args[args.index("--host") + 1] == "0.0.0.0"
    assert [p["containerPort"] for p in server["ports"]] == [port]
    for probe in ("readinessProbe", "livenessProbe"):
        assert server[probe]["grpc"]["port"] == port, "a native gRPC probe, numeric port"
    service = named(objects, "Service", "game-server")["spec"]["ports"]
    assert [p["targetPort"] for p in service] == [port]
    grace = float(args[args.index("--grace") + 1])
    assert deployment["terminationGracePeriodSeconds"] > grace + 5
    assert "MENAGERIE_ADMIN_TOKEN" in _env(server)
    pdb = named(objects, "PodDisruptionBudget", "game-server")["spec"]["selector"]["matchLabels"]
    assert (
        pdb.items()
        <= named(objects, "Deployment", "game-server")["spec"]["template"]["metadata"][
            "labels"
        ].items()
    )


def _service_port(objects: list[Manifest], url: str) -> None:
    """The host:port of ``url`` is a Service of the render with that port."""
    parsed = urlparse(url)
    host = parsed.hostname or ""
    names = {s["metadata"]["name"]: s for s in by_kind(objects, "Service")}
    cluster = named(objects, "RayCluster", "menagerie-ray")
    if host == f"{cluster['metadata']['name']}-head-svc":  # KubeRay's head Service
        head = cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]
        assert parsed.port in {p["containerPort"] for p in head["ports"]}, url
        return
    assert host in names, f"{url}: no Service {host}"
    assert parsed.port in {p["port"] for p in names[host]["spec"]["ports"]}, url


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_urls_name_services_that_exist(rendered: dict[str, list[Manifest]], overlay: str):
    objects = rendered[overlay]
    secrets = {o["metadata"]["name"]: o for o in by_kind(objects, "Secret")}
    import base64

    def secret(name: str, key: str) -> str:
        return base64.b64decode(secrets[name]["data"][key]).decode()

    postgres = named(objects, "StatefulSet", "postgres")["spec"]["template"]["spec"]
    pg_env = _env(postgres["containers"][0])
    init = named(objects, "ConfigMap", "postgres-init")["data"]["init.sql"]
    databases = {pg_env["POSTGRES_DB"]["value"], *re.findall(r"CREATE DATABASE (\w+)", init)}
    user = secret("postgres-credentials", "username")
    for name in ("mlflow-db", "ladder-db"):
        url = secret(name, "url")
        _service_port(objects, url)
        parsed = urlparse(url)
        assert parsed.username == user and parsed.path.lstrip("/") in databases, name
    ladder = named(objects, "Deployment", "ladder-runner")["spec"]["template"]["spec"]
    (runner,) = ladder["containers"]
    _service_port(objects, _env(runner)["RAY_ADDRESS"]["value"])
    args = runner["args"]
    assert args[:3] == ["arena", "ladder", "run"] and "--forever" in args
    assert args[args.index("--db") + 1] == "$(MENAGERIE_LADDER_DB)"
    _service_port(objects, args[args.index("--tracking-uri") + 1])
    mlflow = named(objects, "Deployment", "mlflow")["spec"]["template"]["spec"]["containers"][0]
    assert "--serve-artifacts" in mlflow["args"]
    assert _env(mlflow)["MLFLOW_SERVER_ENABLE_JOB_EXECUTION"]["value"] == "false"
    destination = _env(mlflow)["MLFLOW_ARTIFACTS_DESTINATION"]["value"]
    assert any(m["mountPath"] == destination for m in mlflow["volumeMounts"])


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_rayjob_runs_the_tournament_of_its_configmap(
    rendered: dict[str, list[Manifest]], overlay: str, tmp_path
):
    objects = rendered[overlay]
    job = named(objects, "RayJob", "tournament")["spec"]
    cluster = named(objects, "RayCluster", "menagerie-ray")
    assert job["clusterSelector"] == {"ray.io/cluster": cluster["metadata"]["name"]}
    argv = shlex.split(job["entrypoint"])
    assert argv[:2] == ["arena", "tournament"]
    _service_port(objects, argv[argv.index("--tracking-uri") + 1])
    head = cluster["spec"]["headGroupSpec"]["template"]["spec"]
    mounts = {m["mountPath"]: m["name"] for m in head["containers"][0]["volumeMounts"]}
    volumes = {v["name"]: v for v in head["volumes"]}
    config_path = argv[2]
    folder, _, key = config_path.rpartition("/")
    config_map = volumes[mounts[folder]]["configMap"]["name"]
    text = named(objects, "ConfigMap", config_map)["data"][key]
    out = argv[argv.index("--out") + 1]
    assert any(out.startswith(path + "/") for path in mounts), "the output is on a volume"
    # the tournament itself is valid (the arena's own loader, as the driver will load it)
    from arena.tournament.config import load_config

    path = tmp_path / "tournament.yaml"
    path.write_text(text)
    cfg = load_config(path, {"out": str(tmp_path / "out")})
    assert len(cfg.schedule()) > 0


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_pod_is_bounded_and_locked_down(rendered: dict[str, list[Manifest]], overlay: str):
    objects = rendered[overlay]
    images = set()
    pods = list(pod_specs(objects))
    assert len(pods) == 7  # head, workers, submitter, game server, ladder, MLflow, PostgreSQL
    for where, _meta, pod in pods:
        pod_ctx = pod.get("securityContext", {})
        assert pod_ctx.get("runAsNonRoot") is True, where
        assert pod_ctx.get("seccompProfile") == {"type": "RuntimeDefault"}, where
        for c in containers(pod):
            resources = c.get("resources", {})
            for part in ("requests", "limits"):
                assert {"cpu", "memory"} <= set(resources.get(part, {})), f"{where}: {part}"
            ctx = c.get("securityContext", {})
            assert ctx.get("allowPrivilegeEscalation") is False, where
            assert ctx.get("readOnlyRootFilesystem") is True, where
            assert ctx.get("capabilities") == {"drop": ["ALL"]}, where
            if "postgres" not in c["image"]:
                images.add(c["image"])
    assert len(images) == 1, f"one Menagerie image everywhere, got {images}"
    ours = next(iter(images))
    assert ours.endswith(":dev" if overlay == "dev" else ":0.1.0")
    autoscaler = named(objects, "RayCluster", "menagerie-ray")["spec"]["autoscalerOptions"]
    assert autoscaler["securityContext"]["runAsNonRoot"] is True
    assert {"requests", "limits"} <= set(autoscaler["resources"])


# -- network policies, evaluated ---------------------------------------------------------


def _selects(selector: dict[str, Any], labels: dict[str, str]) -> bool:
    return selector.get("matchLabels", {}).items() <= labels.items()


def _peer_allows(rules: list[dict[str, Any]], peer: dict[str, str], port: int) -> bool:
    """Whether one of ``rules`` (ingress ``from`` or egress ``to``) admits ``peer``:``port``
    (peers in this namespace; a rule without peers admits every peer)."""
    for rule in rules:
        peers = rule.get("from", rule.get("to"))
        ports = rule.get("ports")
        if ports is not None and port not in {p["port"] for p in ports}:
            continue
        if peers is None:
            return True
        for p in peers:
            if (
                "podSelector" in p
                and "namespaceSelector" not in p
                and _selects(p["podSelector"], peer)
            ):
                return True
    return False


def allowed(policies: list[Manifest], src: dict[str, str], dst: dict[str, str], port: int) -> bool:
    """Kubernetes' rule: a connection needs an egress allowance of the source's policies
    (if any select it for Egress) and an ingress allowance of the destination's."""
    egress = [p["spec"] for p in policies if _selects(p["spec"]["podSelector"], src)]
    egress = [s for s in egress if "Egress" in s["policyTypes"]]
    ingress = [p["spec"] for p in policies if _selects(p["spec"]["podSelector"], dst)]
    ingress = [s for s in ingress if "Ingress" in s["policyTypes"]]
    out = not egress or any(_peer_allows(s.get("egress", []), dst, port) for s in egress)
    into = not ingress or any(_peer_allows(s.get("ingress", []), src, port) for s in ingress)
    return out and into


def test_network_policies_allow_exactly_the_designed_paths(rendered: dict[str, list[Manifest]]):
    objects = rendered["dev"]
    policies = by_kind(objects, "NetworkPolicy")
    deny = named(objects, "NetworkPolicy", "default-deny")["spec"]
    assert deny["podSelector"] == {} and set(deny["policyTypes"]) == {"Ingress", "Egress"}
    labels = {
        w.split()[0] + ("" if " " not in w else w.split()[1]): m["labels"]
        for w, m, _ in pod_specs(objects)
    }
    game = labels["Deployment/game-server"]
    pg = labels["StatefulSet/postgres"]
    mlflow = labels["Deployment/mlflow"]
    ladder = labels["Deployment/ladder-runner"]
    head = labels["RayCluster/menagerie-rayhead"]
    worker = labels["RayCluster/menagerie-raygames"]
    bot = {"menagerie.io/role": "bot", "app.kubernetes.io/name": "my-bot"}
    cases = [
        (bot, game, 50051, True),
        (bot, pg, 5432, False),
        (bot, mlflow, 5000, False),
        (bot, head, 10001, False),
        (mlflow, pg, 5432, True),
        (ladder, pg, 5432, True),
        (game, pg, 5432, False),
        (head, pg, 5432, False),
        (worker, pg, 5432, False),
        (ladder, head, 10001, True),
        (ladder, mlflow, 5000, True),
        (head, mlflow, 5000, True),
        (worker, head, 6379, True),
        (game, mlflow, 5000, False),
    ]
    wrong = [
        (s.get("app.kubernetes.io/name"), d.get("app.kubernetes.io/name"), port, want)
        for s, d, port, want in cases
        if allowed(policies, s, d, port) != want
    ]
    assert not wrong, f"(from, to, port, expected) the policies get wrong: {wrong}"
