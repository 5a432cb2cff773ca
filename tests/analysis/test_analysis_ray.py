"""A tournament's analysis on Ray equals the sequential one, and is logged to its MLflow
run (report and annotations as artifacts, per-bot metrics)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.analysis.sidecar import read_annotations
from tests.cli import CliResult
from tests.replay.helpers import log_run

Cli = Callable[..., CliResult]


@pytest.mark.server
@pytest.mark.xdist_group("ray")
def test_ray_analysis_equals_sequential_and_is_logged(
    tmp_path: Path, run_cli: Cli, ray_cluster: str
) -> None:
    records = []
    for seed, bots in ((1, "random,greedy"), (2, "greedy,random"), (3, "random,random")):
        path = tmp_path / f"g{seed}.json"
        res = run_cli("play", "panorama", "--bots", bots, "--seed", str(seed), "--record", path)
        assert res.exit_code == 0, res.stderr
        rec = json.loads(path.read_text())
        rec["game_id"] = f"g{seed}"
        records.append(rec)
    uri, run_id = log_run(records, tmp_path)
    common = ("--tracking-uri", uri, "--budget", "iterations=2")

    def content(path: Path) -> list[dict[str, object]]:
        out = []
        for a in read_annotations(path):
            data = a.to_json()
            del data["ms"]
            out.append(data)
        return out

    seq = tmp_path / "seq.jsonl"
    res = run_cli("analyse", run_id, *common, "--out", seq)
    assert res.exit_code == 0, res.stderr
    par = tmp_path / "ray.jsonl"
    res = run_cli("analyse", run_id, *common, "--workers", "2", "--out", par, "--log")
    assert res.exit_code == 0, res.stderr
    assert content(seq) == content(par)
    assert {a["game_id"] for a in content(par)} == {"g1", "g2", "g3"}

    from mlflow import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    arts = {a.path for a in client.list_artifacts(run_id, "analysis")}
    assert arts == {"analysis/report.csv", "analysis/annotations.jsonl"}
    metrics = client.get_run(run_id).data.metrics
    assert {"analysis.mean_loss/random", "analysis.mean_loss/greedy"} <= set(metrics)
    assert metrics["analysis.mean_loss/random"] > 0
    viewers = [a.path for a in client.list_artifacts(run_id, "replays")]
    assert viewers  # the run's sample of viewers, now drawing the analysis
    local = Path(client.download_artifacts(run_id, viewers[0], str(tmp_path)))
    assert 'id="menagerie-analysis"' in local.read_text()
