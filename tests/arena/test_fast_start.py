"""A small tournament starts fast (issue 19, part 6): it is played in this process, its
MLflow store is opened in the background from the start, and it imports neither Ray nor
matplotlib, yet MLflow ends with everything (one run, every game exactly once, the
artifacts). The wall time itself is a benchmark figure (``docs/benchmarks.md``), not an
assertion here."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from arena.tournament.journal import read_journal
from arena.tournament.leaderboard import PLOT_COLORS, PLOT_SIZE, nice_ticks, plot_ratings

RUN = """
import json, sys
from arena.cli.app import main
sys.argv = ["arena", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print(json.dumps({"code": code, "ray": "ray" in sys.modules,
                  "matplotlib": "matplotlib" in sys.modules}))
"""


def test_a_small_tracked_run_logs_everything_without_ray_or_matplotlib(tmp_path: Path) -> None:
    from mlflow import MlflowClient

    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    out = tmp_path / "out"
    args = ["tournament", "--game", "dziobaki", "--players", "2", "--bots", "random,greedy"]
    args += ["--tracking-uri", uri, "--experiment", "fast", "--out", str(out), "-q"]
    proc = subprocess.run(
        [sys.executable, "-c", RUN, *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={
            k: v for k, v in os.environ.items() if k not in ("MLFLOW_TRACKING_URI", "RAY_ADDRESS")
        },
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {"code": 0, "ray": False, "matplotlib": False}, proc.stderr

    ids = [r["game_id"] for r in read_journal(out / "journal.jsonl")]
    assert len(ids) == 2
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("fast")
    assert experiment is not None
    runs = client.search_runs([experiment.experiment_id])
    assert len(runs) == 1 and runs[0].info.status == "FINISHED"
    run_id = runs[0].info.run_id
    folder = Path(client.download_artifacts(run_id, "records", str(tmp_path / "dl")))
    logged = [
        json.loads(line)["game_id"]
        for part in sorted(folder.glob("part-*.jsonl"))
        for line in part.read_text().splitlines()
    ]
    assert sorted(logged) == sorted(ids)  # every game, exactly once
    artifacts = {a.path for a in client.list_artifacts(run_id)}
    assert {"elo.png", "leaderboard.md", "ratings.json", "replays"} <= artifacts
    assert client.get_metric_history(run_id, "elo/random")[-1].step == 2


def png_pixels(path: Path) -> tuple[int, int, set[tuple[int, int, int]]]:
    """Width, height and the set of colours of an 8-bit RGB PNG (read with Pillow)."""
    from PIL import Image

    with Image.open(path) as image:
        rgb = image.convert("RGB")
        return rgb.width, rgb.height, {c for _, c in rgb.getcolors(1 << 20) or []}


def hex_rgb(color: str) -> tuple[int, int, int]:
    r, g, b = struct.unpack("BBB", bytes.fromhex(color[1:]))
    return r, g, b


@pytest.mark.parametrize("steps", [2, 120])
def test_the_elo_plot_draws_one_line_per_bot(tmp_path: Path, steps: int) -> None:
    bots = ["greedy", "ismcts:iterations=100", "random"]
    trajectory = [
        (i, {b: 1500 + (k - 1) * 3.0 * i for k, b in enumerate(bots)}, {})
        for i in range(1, steps + 1)
    ]
    path = tmp_path / "elo.png"
    plot_ratings(trajectory, path, "Elo over games: t (dziobaki)")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, colors = png_pixels(path)
    assert (width, height) == PLOT_SIZE
    assert {hex_rgb(c) for c in PLOT_COLORS[: len(bots)]} <= colors
    assert hex_rgb(PLOT_COLORS[len(bots)]) not in colors


def test_ticks_are_round_and_cover_the_range() -> None:
    assert nice_ticks(1480, 1523) == [1480, 1490, 1500, 1510, 1520, 1530]
    assert nice_ticks(1, 2, most=8, min_step=1) == [1, 2]
    assert nice_ticks(1500, 1500)[0] < 1500 < nice_ticks(1500, 1500)[-1]
    ticks = nice_ticks(0, 300, most=8)
    assert ticks[0] == 0 and ticks[-1] >= 300 and len(ticks) <= 9


def test_a_store_that_cannot_open_is_opened_again_on_the_next_try(tmp_path: Path) -> None:
    from arena.tournament.tracking import open_store

    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    uri = f"sqlite:///{blocker / 'mlflow.db'}"  # its folder is a file: it cannot open
    first = open_store(uri)
    assert open_store(uri) is first or first.done()  # one opening at a time
    assert first.exception(timeout=120) is not None
    again = open_store(uri)
    assert again is not first
    assert again.exception(timeout=120) is not None
