"""Fixtures of the deployment tests: each overlay rendered once per session."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.deploy.manifests import OVERLAYS, Manifest, render


@pytest.fixture(scope="session")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Manifest]]:
    """overlay name -> its rendered objects."""
    tmp: Path = tmp_path_factory.mktemp("k8s")
    return {overlay: render(overlay, tmp) for overlay in OVERLAYS}
