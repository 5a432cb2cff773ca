"""What a sandboxed bot still sees under the private places (/tmp, ...): a checkout and
its virtualenv there work as they do elsewhere (found when a fresh clone under /tmp
could not start a single sandboxed bot: its interpreter was covered by the bot's /tmp)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.sandbox import launch


def test_the_arenas_environment_and_project_under_tmp_stay_visible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "checkout"
    venv = checkout / ".venv"
    (venv / "bin").mkdir(parents=True)
    script = tmp_path / "bots" / "mine.py"
    script.parent.mkdir()
    script.write_text("print(1)\n")
    monkeypatch.setattr(sys, "prefix", str(venv))
    kept = launch.kept_paths([str(venv / "bin"), str(script), "-m", "relative/x.py"])
    # the venv is inside nothing else kept here; the script's folder is not the project
    assert str(venv.resolve()) in kept and str(script.resolve()) in kept
    assert all(p.startswith("/tmp/") or p == "/tmp" for p in kept if "checkout" in p)


def test_a_path_inside_another_kept_path_is_kept_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outer = tmp_path / "home"
    inner = outer / "archives" / "bot.py"
    inner.parent.mkdir(parents=True)
    inner.write_text("")
    monkeypatch.setattr(sys, "prefix", "/nonexistent-prefix")
    kept = launch.kept_paths([str(inner), str(outer)])
    assert [p for p in kept if p.startswith(str(tmp_path.resolve()))] == [str(outer.resolve())]


def test_paths_outside_the_private_places_are_not_rebound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "prefix", "/usr")
    assert "/usr" not in launch.kept_paths(["/usr/bin/env"])
