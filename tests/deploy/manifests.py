"""The deployment's test kit: render a kustomize overlay, load the vendored KubeRay CRD
schemas, walk the rendered objects' pod specs.

Rendering uses ``kubectl kustomize`` (kubectl comes with the machine's image; where it is
missing the tests fail naming it). The prod overlay reads its credentials from
``secrets/*.env``, which are never committed: it is rendered from a copy of ``k8s/`` in
which each ``*.env.example`` stands in for its ``*.env``.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
OVERLAYS = ("dev", "prod")
KUBERAY_SCHEMAS = K8S / "schemas" / "kuberay-v1.7.0"
KUBERNETES_VERSION = "1.33.0"
"""The Kubernetes version core kinds are validated against (kubernetes-validate's schemas)."""

RENDER_BOUND_S = 60.0

Manifest = dict[str, Any]


def kubectl() -> str:
    found = shutil.which("kubectl")
    if found is None:
        pytest.fail(
            "kubectl not found on PATH: the deployment tests render k8s/ with "
            "`kubectl kustomize` (install kubectl, e.g. apt-get install kubectl from the "
            "Kubernetes apt repository)",
            pytrace=False,
        )
    return found


def render(overlay: str, tmp: Path) -> list[Manifest]:
    """The objects ``kubectl kustomize k8s/overlays/<overlay>`` renders."""
    tree = tmp / f"k8s-{overlay}"
    shutil.copytree(K8S, tree, ignore=shutil.ignore_patterns("schemas"))
    for example in tree.glob("overlays/*/secrets/*.env.example"):
        target = example.with_suffix("")
        if not target.exists():
            shutil.copy(example, target)
    done = subprocess.run(
        [kubectl(), "kustomize", str(tree / "overlays" / overlay)],
        capture_output=True,
        text=True,
        timeout=RENDER_BOUND_S,
    )
    assert done.returncode == 0, f"kubectl kustomize {overlay} failed:\n{done.stderr}"
    return [d for d in yaml.load_all(done.stdout, Loader=yaml.CSafeLoader) if d]


@cache
def crd_schema(kind: str) -> dict[str, Any]:
    """The openAPIV3Schema of the served ``ray.io/v1`` version of a vendored KubeRay CRD."""
    path = KUBERAY_SCHEMAS / f"ray.io_{kind.lower()}s.yaml"
    with open(path, "rb") as f:
        crd = yaml.load(f, Loader=yaml.CSafeLoader)  # 1-2 MB: the C loader, not the pure one
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    schema: dict[str, Any] = version["schema"]["openAPIV3Schema"]
    return schema


@cache
def crd_validator(kind: str, closed_: bool = False) -> jsonschema.protocols.Validator:
    """A validator of the CRD's schema (``closed_``: with :func:`closed` applied), built
    once: checking a 1 MB schema against the metaschema costs seconds."""
    schema = crd_schema(kind)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    return cls(closed(schema) if closed_ else schema)


def closed(schema: Any) -> Any:
    """A copy of ``schema`` in which every object that lists its properties allows no
    others (``additionalProperties: false``), so that a misspelt field fails."""
    if isinstance(schema, list):
        return [closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: closed(v) for k, v in schema.items()}
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


def by_kind(objects: list[Manifest], kind: str) -> list[Manifest]:
    return [o for o in objects if o["kind"] == kind]


def named(objects: list[Manifest], kind: str, name: str) -> Manifest:
    found = [o for o in objects if o["kind"] == kind and o["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


def pod_specs(objects: list[Manifest]) -> Iterator[tuple[str, Manifest, dict[str, Any]]]:
    """(where, pod template metadata, pod spec) of every pod the manifests create."""
    for o in objects:
        kind, name, spec = o["kind"], o["metadata"]["name"], o.get("spec", {})
        if kind in ("Deployment", "StatefulSet", "Job", "DaemonSet"):
            yield f"{kind}/{name}", spec["template"].get("metadata", {}), spec["template"]["spec"]
        elif kind == "RayCluster":
            head = spec["headGroupSpec"]["template"]
            yield f"RayCluster/{name} head", head.get("metadata", {}), head["spec"]
            for group in spec["workerGroupSpecs"]:
                t = group["template"]
                yield f"RayCluster/{name} {group['groupName']}", t.get("metadata", {}), t["spec"]
        elif kind == "RayJob" and "submitterPodTemplate" in spec:
            t = spec["submitterPodTemplate"]
            yield f"RayJob/{name} submitter", t.get("metadata", {}), t["spec"]
