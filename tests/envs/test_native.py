"""The compiled build of envs.direct (envs.native, envs.build): ``make test`` loads it, and
a build is loaded only while it is a build of the current sources, so an edited source
is never shadowed by an old build. (That the build writes the same tensors as the source:
tests/envs/test_direct.py checks both against the observations' encoding.)"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
from pathlib import Path

import pytest

import envs.direct
from envs import native


def test_make_test_runs_the_compiled_encoders() -> None:
    """`make test` builds first (make native); a source run here instead means the build
    is missing or stale, and the bench's figures would not be the ones users get."""
    _, why = native.status()
    if os.environ.get(native.SWITCH) == "0":
        assert envs.direct.__file__.endswith(".py"), why
        return
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    assert envs.direct.__file__.endswith(suffixes), f"{why}; run `make native`"
    assert why.startswith("compiled")


@pytest.fixture()
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the compiled sources and a build folder stamped as their build."""
    root, build = tmp_path / "repo", tmp_path / "build"
    for module in native.MODULES:
        (root / module).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(native.ROOT / module, root / module)
    build.mkdir()
    (build / "stamp.json").write_text(json.dumps({**native.identity(root), "mypy": "x"}))
    return root, build


def test_a_build_of_the_sources_loads(tree: tuple[Path, Path]) -> None:
    root, build = tree
    assert native.status(root, build) == (build, f"compiled: {build}")


def test_an_edited_source_is_not_shadowed_by_its_old_build(tree: tuple[Path, Path]) -> None:
    root, build = tree
    source = root / native.MODULES[0]
    source.write_text(source.read_text() + "\n# edited\n")
    found, why = native.status(root, build)
    assert found is None and "other sources" in why


@pytest.mark.parametrize(
    "stamp, reason",
    [(None, "no build"), ("{not json", "unreadable"), ('["a list"]', "other sources")],
)
def test_a_missing_or_broken_stamp_runs_the_source(
    tree: tuple[Path, Path], stamp: str | None, reason: str
) -> None:
    root, build = tree
    if stamp is None:
        (build / "stamp.json").unlink()
    else:
        (build / "stamp.json").write_text(stamp)
    found, why = native.status(root, build)
    assert found is None and reason in why


def test_the_switch_keeps_the_build_from_loading(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, build = tree
    monkeypatch.setenv(native.SWITCH, "0")
    assert native.status(root, build) == (None, f"interpreted: {native.SWITCH}=0")


def test_only_a_compiled_module_has_an_interpreted_twin() -> None:
    assert native.interpreted("envs.direct").__file__ == str(native.ROOT / "envs/direct.py")
    with pytest.raises(ValueError, match="not one of the compiled modules"):
        native.interpreted("envs.tensors")
