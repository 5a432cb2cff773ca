"""The viewer's analysis layer in a real headless Chromium: the evaluation graph is drawn,
clicking a point jumps to its step, the step list carries the marks, and the current
step shows the best move beside the one played (browser set-up as in
``tests/replay/test_viewer_browser.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.analysis.sidecar import read_annotations
from tests.cli import CliResult
from tests.replay.test_viewer_browser import browser as _browser  # noqa: F401  # the fixture

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


@pytest.fixture
def viewer(tmp_path: Path, run_cli: Callable[..., CliResult]) -> Iterator[tuple[Path, Path]]:
    record = tmp_path / "game.json"
    side = tmp_path / "analysis.jsonl"
    html = tmp_path / "viewer.html"
    for args in (
        ("play", "panorama", "--bots", "random,greedy", "--seed", "1", "--record", record),
        ("analyse", record, "--budget", "iterations=4", "--out", side),
        ("replay", record, "--html", html, "--analysis", side),
    ):
        res = run_cli(*args)
        assert res.exit_code == 0, res.stderr
    yield html, side


def test_analysis_layer_in_chromium(viewer: tuple[Path, Path], _browser: Any) -> None:  # noqa: F811  # the fixture
    html, side = viewer
    anns = read_annotations(side)
    marked = [a for a in anns if a.mark is not None]
    assert marked, "the test game has no marked move"
    page = _browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(html.as_uri())
    page.wait_for_selector("#analysis svg.eval-graph")
    assert page.eval_on_selector_all("#analysis circle.pt", "els => els.length") == len(anns)
    target = marked[-1]
    page.click(f'#analysis circle.pt[data-step="{target.step}"]')
    assert page.inner_text("#counter").startswith(f"step {target.step} /")
    note = page.inner_text("#analysis-step")
    assert f"played {target.played}" in note and f"best {target.best}" in note
    assert target.mark in note
    log_marks = page.eval_on_selector_all("#log .mark." + str(target.mark), "els => els.length")
    assert log_marks == sum(1 for a in anns if a.mark == target.mark)
    tie = next(a for a in anns if a.tie)  # a move within the noise of the best: a tie
    page.click(f'#analysis circle.pt[data-step="{tie.step}"]')
    assert f"tie with the best {tie.best}" in page.inner_text("#analysis-step")
    page.select_option("#seat", "1")  # the step list is rebuilt: its marks come back
    assert page.eval_on_selector_all("#log .mark", "els => els.length") == len(anns)
    assert not errors, json.dumps(errors)
    page.close()
