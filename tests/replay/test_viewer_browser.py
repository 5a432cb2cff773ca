"""The HTML viewer in a real headless Chromium, one generated viewer per game.

Opens the file (file:// URL), steps with the buttons, the slider, the keyboard and
play/pause, switches the seat view, checks that the board is drawn and changes, that
the final scores shown equal the record's, and that the page fetches nothing. A
screenshot per game is saved as ``test-artifacts/viewer-<game>.png``.

Needs the system Chromium (``apt-get install -y chromium chromium-driver``; ``.ci/run``
installs it) and the ``playwright`` Python package (dev extras), which drives it;
Playwright never downloads a browser here. Either missing fails the test loudly.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.replay.model import load_replay
from arena.replay.viewer import write_viewer
from tests.replay.helpers import GAMES

CHROMIUM = os.environ.get("MENAGERIE_CHROMIUM", "/usr/bin/chromium")
INSTALL = "apt-get update && apt-get install -y chromium chromium-driver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

# One Chromium (the module's browser fixture) on one xdist worker.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium with a new, empty profile (``--user-data-dir``)."""
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        pytest.fail(
            f"headless Chromium ({CHROMIUM}) is needed by the viewer test and is missing; "
            f"install it with: {INSTALL}"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(
            "the viewer test drives Chromium with the playwright package, which is missing; "
            "install the dev extras: .venv/bin/pip install -e '.[dev]' (or pip install playwright)"
        )
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1400, "height": 900},
        )
        context.set_default_timeout(120_000)  # waits for the page: generous on a busy machine
        try:
            yield context
        finally:
            context.close()


def _board(page: Any) -> str:
    """The drawing itself (the SVG's content, not its step attribute)."""
    html: str = page.eval_on_selector("#board > *", "el => el.innerHTML")
    return html


def _counter(page: Any) -> str:
    text: str = page.inner_text("#counter")
    return text


@pytest.mark.parametrize("game", GAMES)
def test_viewer_in_chromium(
    game: str, game_records: dict[str, dict[str, Any]], browser: Any, tmp_path: Path
) -> None:
    record = game_records[game]
    last = len(record["steps"])
    path = write_viewer(record, tmp_path / f"viewer-{game}.html")
    page = browser.new_page()
    errors: list[str] = []
    fetched: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on(
        "request",
        lambda req: None if req.url.startswith(("file:", "data:")) else fetched.append(req.url),
    )
    page.goto(path.as_uri())
    page.wait_for_selector("#board svg")
    assert _counter(page) == f"step 0 / {last}"
    assert page.eval_on_selector("#board svg", "el => el.getBBox().width") > 100
    first = _board(page)

    boards = [first]
    for _ in range(6):
        page.click("#btn-next")
        boards.append(_board(page))
    assert _counter(page) == f"step 6 / {last}"
    assert len(set(boards)) > 1, "the board does not change while stepping"
    page.click("#btn-prev")
    assert _counter(page) == f"step 5 / {last}"
    assert page.inner_text("#step-info").startswith("step 5: ")

    mid = last // 2
    page.eval_on_selector(
        "#slider", "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", mid
    )
    assert _counter(page) == f"step {mid} / {last}"
    assert not page.is_visible("#final")  # no spoiler before the end
    spectator = _board(page)
    page.select_option("#seat", "2")
    assert _board(page) != spectator, "the seat view is not drawn"
    steps = load_replay(record).steps
    for option, view in (("2", 1), ("0", None)):  # the log reads as that view may read it
        page.select_option("#seat", option)
        log = page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)")
        assert [line.split(": ", 1)[1] for line in log] == [
            s.text_for(view)
            + ("  ⚠ " + ", ".join(str(e["kind"]) for e in s.events) if s.events else "")
            for s in steps
        ]

    page.select_option("#speed", "40")
    page.click("#btn-play")
    for _ in range(1200):  # the page's CSP forbids eval, so no wait_for_function
        if page.evaluate("window.menagerieViewer.k") >= mid + 3:
            break
        page.wait_for_timeout(50)  # up to a minute: fails only if play never advances
    assert page.evaluate("window.menagerieViewer.k") >= mid + 3, "play does not advance"
    page.click("#btn-play")
    paused = page.evaluate("window.menagerieViewer.k")
    page.wait_for_timeout(150)
    assert page.evaluate("window.menagerieViewer.k") == paused

    page.keyboard.press("End")
    assert _counter(page) == f"step {last} / {last}"
    assert _board(page) != first
    assert page.is_visible("#final")
    shown = page.eval_on_selector_all(
        "#final .final-score", "els => els.map(e => [Number(e.dataset.score), e.textContent])"
    )
    assert [s for s, _ in shown] == [float(x) for x in record["result"]["scores"]]
    assert [t for _, t in shown] == [
        str(int(x)) if x == int(x) else str(x) for x in record["result"]["scores"]
    ]
    if record["events"]:
        assert page.locator("#log li.has-event").count() == len(
            {e["step"] for e in record["events"]}
        )
    page.keyboard.press("Home")
    assert _counter(page) == f"step 0 / {last}"
    page.keyboard.press("End")

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"viewer-{game}.png"), full_page=True)
    page.close()
    assert not errors, errors
    assert not fetched, f"the viewer fetched {fetched}"
