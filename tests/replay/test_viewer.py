"""The HTML viewer file: its data, self-containment, sampling and logging to MLflow."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from arena.replay.model import load_replay
from arena.replay.viewer import (
    render_html,
    sample_games_for_viewers,
    viewer_data,
    write_sample_viewers,
    write_viewer,
)
from tests.replay.helpers import GAMES, arena


def decode(data: dict[str, Any], k: int, v: int) -> Any:
    """What viewer.js does to get the observation of view ``v`` after step ``k``."""

    def child(code: Any) -> Any:
        if isinstance(code, bool) or not isinstance(code, int):
            return code
        entry = data["pool"][code]
        if not isinstance(entry, list):
            return entry
        if entry[0] == -1:
            return [child(c) for c in entry[1:]]
        keys = data["keysets"][entry[0]]
        return {key: child(c) for key, c in zip(keys, entry[1:], strict=True)}

    return child(data["frames"][k][v])


@pytest.mark.parametrize("game", GAMES)
def test_viewer_data_holds_every_observation_of_every_view(
    game: str, game_records: dict[str, dict[str, Any]]
) -> None:
    rp = load_replay(game_records[game])
    data = json.loads(json.dumps(viewer_data(rp)))
    assert data["views"] == [None, 0, 1, 2]
    assert len(data["frames"]) == rp.last + 1
    for k in range(rp.last + 1):
        for v, seat in enumerate(data["views"]):
            assert decode(data, k, v) == json.loads(json.dumps(rp.observation(k, seat)))
    assert data["result"] == game_records[game]["result"]
    views = data["views"]
    assert [s["texts"] for s in data["steps"]] == [[s.text_for(v) for v in views] for s in rp.steps]
    one = viewer_data(rp, [1])  # one seat's viewer: that seat's view and texts only
    assert one["views"] == [1] and one["seed"] is None
    assert one["steps"] == [{**s, "texts": [s["texts"][2]]} for s in data["steps"]]
    assert data["components"] or game in ("zooloretto_mini",)


def test_viewer_file_is_self_contained(
    game_records: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    record = copy.deepcopy(game_records["zooloretto_mini"])
    record["players"][0]["name"] = "</script><script>alert(1)</script>"
    html = render_html(load_replay(record))
    assert html.count("<script") == html.count("</script>") == 4  # data, svg, game, viewer
    assert "<link" not in html and " src=" not in html
    urls = set(re.findall(r"https?://[^\s\"'`)]+", html))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls
    assert "default-src 'none'" in html  # the page may not fetch anything
    assert "MenagerieGames.zooloretto_mini" in html and "MenagerieGames.panorama" not in html
    path = write_viewer(record, tmp_path / "sub" / "v.html")
    assert path.read_text() == html


def test_cli_html(game_records: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text(json.dumps(game_records["dziobaki"]))
    out = tmp_path / "out" / "viewer.html"
    proc = arena("replay", str(path), "--html", str(out))
    assert proc.exit_code == 0, proc.stderr
    assert out.exists() and "record verified" in proc.stderr
    assert proc.stdout == ""


def test_sample_prefers_each_bots_lost_games_and_events(league: list[dict[str, Any]]) -> None:
    picked = sample_games_for_viewers(league, per_bot_lost=1, limit=4)
    assert len(picked) == 4
    names = ["alice", "bob", "carol"]
    for bot, rec in zip(names, picked[:3], strict=False):
        seats = [s for s, p in enumerate(rec["players"]) if p["name"] == bot]
        assert any(rec["standing"]["ranks"][s] > 1 for s in seats)
    ids = [r["game_id"] for r in picked]
    assert len(set(ids)) == len(ids)
    assert all(r["events"] for r in picked)  # games with failures come first
    assert len(sample_games_for_viewers(league, per_bot_lost=0, limit=100)) == len(league)
    assert sample_games_for_viewers([], 2, 10) == []


def test_write_sample_viewers_skips_bad_records(
    league: list[dict[str, Any]], tmp_path: Path
) -> None:
    bad = copy.deepcopy(league[0])
    bad["digest"] = "0" * 64
    warnings: list[str] = []
    paths = write_sample_viewers([bad, *league[1:3]], tmp_path, 2, 10, warnings.append)
    assert len(paths) == 2 and all(p.exists() for p in paths)
    assert len(warnings) == 1 and "final digest differs" in warnings[0]


@pytest.mark.slow
@pytest.mark.xdist_group("mlflow")
def test_log_viewers_to_the_run(logged_run: tuple[str, str, list[dict[str, Any]]]) -> None:
    from mlflow import MlflowClient

    from arena.replay.viewer import log_viewers

    uri, run_id, _ = logged_run
    names = log_viewers(run_id, tracking_uri=uri, per_bot_lost=1, limit=3)
    assert len(names) == 3 and all(n.startswith("replays/replay-") for n in names)
    listed = {f.path for f in MlflowClient(tracking_uri=uri).list_artifacts(run_id, "replays")}
    assert set(names) <= listed


def test_a_game_without_a_drawing_shows_the_observation(
    game_records: dict[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.replay.viewer as viewer

    real = viewer._asset

    def no_game_js(name: str) -> str:
        if name.startswith("games/"):
            raise FileNotFoundError(name)
        return real(name)

    monkeypatch.setattr(viewer, "_asset", no_game_js)
    html = render_html(load_replay(game_records["panorama"]))
    assert "no drawing for this game" in html and "MenagerieGames.panorama" not in html
