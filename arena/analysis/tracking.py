"""An analysis logged to the tournament's MLflow run: the report and the annotations as
artifacts under ``analysis/``, each bot's mean loss per move as a metric."""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.analysis.evaluate import Annotation
from arena.analysis.report import BotLoss, write_csv
from arena.analysis.sidecar import write_annotations
from arena.errors import UserError

ARTIFACT_DIR = "analysis"


def log_analysis(
    run_id: str,
    report: Sequence[BotLoss],
    annotations: Sequence[Annotation],
    tracking_uri: str | None = None,
    records: Sequence[dict[str, Any]] | None = None,
) -> str:
    """Log to MLflow run ``run_id``: ``analysis/report.csv``, ``analysis/annotations.jsonl``,
    the run's sample of viewers (``replays/``, :func:`arena.replay.viewer.log_viewers`)
    again with the analysis drawn when ``records`` (the analysed games) are given,
    and the metrics ``analysis.mean_loss/<bot>`` and ``analysis.blunders/<bot>``
    (names as the tournament's metrics: ``arena.tournament.tracking.metric_key``);
    returns where the artifacts went."""
    from mlflow import MlflowClient

    from arena.replay.sources import default_tracking_uri
    from arena.tournament.tracking import metric_key

    client = MlflowClient(tracking_uri=tracking_uri or default_tracking_uri())
    try:
        client.get_run(run_id)
    except Exception as exc:
        raise UserError(f"cannot log the analysis to MLflow run {run_id}: {exc}") from None
    with tempfile.TemporaryDirectory(prefix="mnr-analysis-") as tmp:
        write_csv(list(report), Path(tmp) / "report.csv")
        write_annotations(annotations, Path(tmp) / "annotations.jsonl")
        client.log_artifacts(run_id, tmp, ARTIFACT_DIR)
    where = f"{ARTIFACT_DIR}/report.csv, {ARTIFACT_DIR}/annotations.jsonl"
    if records:
        from arena.replay.viewer import log_viewers

        notes = [a.to_json() for a in annotations]
        viewers = log_viewers(run_id, list(records), client=client, analysis=notes)
        where += f", {len(viewers)} viewers with the analysis under replays/"
    for b in report:
        client.log_metric(run_id, metric_key("analysis.mean_loss", b.bot), b.mean_loss)
        client.log_metric(run_id, metric_key("analysis.blunders", b.bot), b.marks["blunder"])
    return where
