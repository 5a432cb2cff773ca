"""Tournaments on a real local Ray with a real MLflow store (no mocks).

One Ray session serves the whole test run (``ray_cluster`` in tests/conftest.py), on one
xdist worker (group ``ray``); each test has its own SQLite MLflow store and output dir in
``tmp_path``. Every wait for an event (a worker busy, a journal line, a server up) has a
bound that fails the test only if the event never comes, even on a very busy machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena.match.records import verify_record
from arena.replay.sources import run_source
from arena.tournament.config import TournamentConfig, load_config
from arena.tournament.journal import read_journal
from arena.tournament.run import run_tournament
from arena.tournament.schedule import Schedule
from tests.arena.helpers import pick_game

GAME = pick_game()
REPO = Path(__file__).resolve().parents[2]
FIRST = "py:tests.arena.helpers:FirstBot"
CRASH = "py:tests.arena.helpers:CrashBot"

pytestmark = [
    pytest.mark.usefixtures("ray_cluster"),
    pytest.mark.server,
    pytest.mark.xdist_group("ray"),
]
WAIT_S = 300.0
"""The bound of a wait for an event: only reached when the event never comes."""


def config(tmp_path: Path, bots: list[str], **kw: Any) -> TournamentConfig:
    overrides: dict[str, Any] = {
        "game": GAME,
        "bots": bots,
        "seed": 3,
        "workers": 2,
        "tracking_uri": f"sqlite:///{tmp_path / 'mlflow.db'}",
        "experiment": "arena-tests",
        "out": str(tmp_path / "out"),
    }
    overrides.update(kw)
    return load_config(None, overrides)


def scheduled_ids(cfg: TournamentConfig) -> set[str]:
    roster = [(e.name, e.spec) for e in cfg.roster]
    return {
        g.game_id
        for g in Schedule(cfg.tournament_id, roster, cfg.num_players, cfg.rounds, cfg.seed)
    }


def journal_ids(out: Path) -> list[str]:
    return [r["game_id"] for r in read_journal(out / "journal.jsonl")]


def run_records(uri: str, run_id: str) -> list[dict[str, Any]]:
    return run_source(run_id, uri).records


def results_by_game(records: list[dict[str, Any]]) -> dict[str, Any]:
    return {r["game_id"]: (r["result"], r["standing"], r["digest"]) for r in records}


def test_a_tournament_is_one_mlflow_run_with_every_game_exactly_once(tmp_path: Path) -> None:
    from mlflow import MlflowClient

    cfg = config(tmp_path, ["random", FIRST, CRASH], rounds=3, batch_size=3)
    result = run_tournament(cfg, quiet=True)
    total = 3 * 3 * 2
    assert (result.total, result.played, result.lost, result.complete) == (total, total, [], True)
    assert result.tracked and result.run_id

    client = MlflowClient(tracking_uri=cfg.tracking_uri)
    run = client.get_run(result.run_id)
    params = run.data.params
    assert params["game"] == GAME and params["rounds"] == "3" and params["players"] == "2"
    assert (
        params["roster.random"] == "random"
        and params["roster.py_tests.arena.helpers_CrashBot"] == CRASH
    )
    tags = run.data.tags
    assert tags["game"] == GAME and tags["format"] == "menagerie.record/1" and tags["code_version"]
    assert run.info.status == "FINISHED"
    names = [e.name for e in cfg.roster]
    for name in names:
        history = client.get_metric_history(result.run_id, f"elo/{name}")
        assert history and history[-1].step == total
        assert client.get_metric_history(result.run_id, f"score/{name}")[-1].step == total
    artifacts = {a.path for a in client.list_artifacts(result.run_id)}
    assert {
        "records",
        "leaderboard.csv",
        "leaderboard.md",
        "leaderboard.html",
        "ratings.json",
        "elo.png",
        "config.yaml",
        "replays",
    } <= artifacts
    replays = [a.path for a in client.list_artifacts(result.run_id, "replays")]
    assert replays and all(p.endswith(".html") for p in replays)
    assert run.info.artifact_uri.startswith((tmp_path / "mlartifacts").as_uri())

    records = run_records(cfg.tracking_uri or "", result.run_id)
    ids = [r["game_id"] for r in records]
    assert len(ids) == len(set(ids)) == total and set(ids) == scheduled_ids(cfg)
    assert all(verify_record(r).ok for r in records[:6])
    rows = {r.name: r for r in result.rows}
    crash = rows["py_tests.arena.helpers_CrashBot"]
    assert crash.failures == {"crash": 12, "forfeit": 12} and crash.win_rate == 0.0
    assert rows["random"].failures == {}
    ratings = json.loads((tmp_path / "out" / "ratings.json").read_text())
    assert ratings["games"] == total and ratings["complete"]

    # the same config again: nothing to play, nothing uploaded twice
    again = run_tournament(cfg, quiet=True)
    assert (again.already, again.played, again.run_id) == (total, 0, result.run_id)
    assert len(run_records(cfg.tracking_uri or "", result.run_id)) == total
    # one more round: only the new games are played
    more = run_tournament(config(tmp_path, ["random", FIRST, CRASH], rounds=4), quiet=True)
    assert (more.already, more.played) == (total, 6)
    assert len(run_records(cfg.tracking_uri or "", result.run_id)) == total + 6


def test_a_killed_worker_loses_no_game_and_duplicates_none(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    pid_a = f"py:tests.arena.helpers:PidBot:dir={pids},ms=1"
    pid_b = f"py:tests.arena.helpers:PidBot:dir={pids},ms=2"
    # every game has a PidBot: 2 rotations x (2 + 1 + 1) PidBots a round
    cfg = config(tmp_path, [pid_a, pid_b, FIRST], rounds=4, batch_size=2, tracking=False)
    killed: list[tuple[int, int]] = []  # (pid, start time): the pid alone may be reused

    def kill_a_busy_worker(done: int) -> None:
        if killed or done < 6:
            return
        (pids / "hold").touch()  # the next PidBot decision waits, in the middle of a task
        deadline = time.monotonic() + WAIT_S
        try:
            while not killed and time.monotonic() < deadline:
                busy = [p for p in pids.iterdir() if p.name.startswith("busy-")]
                if busy:
                    from tests.procs import proc_stat

                    pid = int(busy[0].name.removeprefix("busy-"))
                    stat = proc_stat(pid)
                    assert stat is not None, f"the busy worker {pid} is gone"
                    os.kill(pid, signal.SIGKILL)
                    killed.append((pid, stat.start))
                time.sleep(0.01)
        finally:
            (pids / "hold").unlink()

    result = run_tournament(cfg, quiet=True, on_progress=kill_a_busy_worker)
    assert killed, "no busy worker was found to kill"
    from tests.procs import same_process

    assert same_process(*killed[0]) is None, "the killed worker was not reaped"
    ids = journal_ids(tmp_path / "out")
    assert len(ids) == len(set(ids)) == result.total == 24
    assert set(ids) == scheduled_ids(cfg) and result.lost == []
    # the killed worker's task was played again: more PidBots built than scheduled (32)
    built = (pids / "games.log").read_text().split()
    assert len([p for p in built if int(p) != os.getpid()]) > 32


def test_a_killed_driver_resumes_with_only_the_missing_games(
    tmp_path: Path, ray_cluster: str
) -> None:
    # GatedRandom plays its first games freely, then waits at the gate: the driver (a real
    # `arena tournament` process, killed with SIGKILL) journals at least 10 games and
    # cannot finish before it is killed, however the machine schedules it
    gates = tmp_path / "gates"
    gated = f"py:tests.arena.helpers:GatedRandom:dir={gates}"
    bots = ["random", gated, FIRST]
    cmd = [
        sys.executable, "-m", "arena.cli", "tournament", "--game", GAME, "--bots", ",".join(bots),
        "--rounds", "8", "--seed", "3", "--batch-size", "1", "--no-tracking", "--no-progress",
        "--name", "resume", "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    env = {**os.environ, "RAY_ADDRESS": ray_cluster, "PYTHONPATH": str(REPO)}
    gates.mkdir()
    (gates / "gate").touch()
    proc = subprocess.Popen(
        cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    journal = tmp_path / "out" / "journal.jsonl"
    try:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") >= 10:
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.01)
        proc.wait(timeout=WAIT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        (gates / "gate").unlink()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode() if proc.stderr else ""
    before = len(journal_ids(tmp_path / "out"))
    total = 3 * 2 * 8
    assert 10 <= before < total

    cfg = config(tmp_path, bots, rounds=8, name="resume", tracking=False, batch_size=1)
    resumed = run_tournament(cfg, quiet=True)
    assert (resumed.already, resumed.played) == (before, total - before)
    ids = journal_ids(tmp_path / "out")
    assert len(ids) == len(set(ids)) == total and set(ids) == scheduled_ids(cfg)

    straight_cfg = config(
        tmp_path, bots, rounds=8, name="resume", tracking=False, out=str(tmp_path / "straight")
    )
    assert straight_cfg.tournament_id == cfg.tournament_id
    straight = run_tournament(straight_cfg, quiet=True)
    a = results_by_game(list(read_journal(tmp_path / "out" / "journal.jsonl")))
    b = results_by_game(list(read_journal(tmp_path / "straight" / "journal.jsonl")))
    assert a == b
    assert [r.to_json() for r in resumed.rows] == [r.to_json() for r in straight.rows]


def _start_mlflow(tmp_path: Path, port: int) -> subprocess.Popen[bytes]:
    import urllib.request

    mlflow = Path(sys.executable).parent / "mlflow"
    proc = subprocess.Popen(
        [
            str(mlflow), "server", "--host", "127.0.0.1", "--port", str(port), "--workers", "1",
            "--backend-store-uri", f"sqlite:///{tmp_path / 'server.db'}",
            "--artifacts-destination", str(tmp_path / "server-artifacts"),
        ],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
        # no job-runner process: the arena runs no MLflow jobs, and it is one more start-up
        env={**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"},
    )  # fmt: skip
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.3)
    _stop(proc)
    raise AssertionError(f"mlflow server did not start (exit status {proc.returncode})")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # (the server's group may be gone)
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@pytest.mark.slow
def test_a_tracking_server_that_goes_away_loses_nothing_after_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free_port: int
) -> None:
    import arena.tournament.tracking
    from arena.tournament.run import sync_out_dir

    monkeypatch.setattr(arena.tournament.tracking, "PART_SIZE", 8)
    monkeypatch.setattr(arena.tournament.tracking, "TICK_SECONDS", 0.0)
    port = free_port  # outside the ephemeral range: still free when the server comes back
    uri = f"http://127.0.0.1:{port}"
    server = _start_mlflow(tmp_path, port)
    state_file = tmp_path / "out" / "tracking.json"
    stopped: list[int] = []

    def state() -> dict[str, Any]:
        return json.loads(state_file.read_text()).get(uri, {}) if state_file.exists() else {}

    def stop_server(done: int) -> None:
        # once some records are up (and well before the end), the server goes away
        if stopped or done < 8:
            return
        deadline = time.monotonic() + WAIT_S
        while state().get("uploaded", 0) < 8 and time.monotonic() < deadline:
            time.sleep(0.05)
        _stop(server)
        stopped.append(done)

    slow = "py:tests.arena.helpers:SlowRandom:ms=0.2"
    cfg = config(tmp_path, ["random", slow, FIRST], rounds=8, tracking_uri=uri, batch_size=2)
    try:
        result = run_tournament(cfg, quiet=True, on_progress=stop_server)
        assert stopped and result.complete and not result.tracked
        state = json.loads(state_file.read_text())[uri]
        assert 8 <= state["uploaded"] < result.total
        server = _start_mlflow(tmp_path, port)
        run_id, complete, uploaded, where = sync_out_dir(tmp_path / "out")
        assert complete and run_id == result.run_id and where == uri
        assert uploaded == result.total - state["uploaded"]
        records = run_records(uri, run_id)
        ids = [r["game_id"] for r in records]
        assert len(ids) == len(set(ids)) == result.total and set(ids) == scheduled_ids(cfg)
        from mlflow import MlflowClient

        client = MlflowClient(tracking_uri=uri)
        for e in cfg.roster:
            assert client.get_metric_history(run_id, f"elo/{e.name}")[-1].step == result.total
        assert "leaderboard.md" in {a.path for a in client.list_artifacts(run_id)}
        # a second sync uploads nothing new
        assert sync_out_dir(tmp_path / "out")[2] == 0
        assert len(run_records(uri, run_id)) == result.total
    finally:
        if server.poll() is None:
            _stop(server)


def test_a_game_that_kills_its_worker_every_time_costs_only_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import arena.tournament.ray_runner

    monkeypatch.setattr(arena.tournament.ray_runner, "TASK_MAX_RETRIES", 1)
    killer = "py:tests.arena.helpers:KillerBot"
    cfg = config(tmp_path, ["random", FIRST, killer], rounds=1, batch_size=3, tracking=False)
    result = run_tournament(cfg, quiet=True)
    names = {e.spec: e.name for e in cfg.roster}
    lost = {gid for gid, _ in result.lost}
    assert len(lost) == 4 and result.played == 2 and not result.complete
    for record in read_journal(tmp_path / "out" / "journal.jsonl"):
        assert names[killer] not in [p["name"] for p in record["players"]]


def test_an_sprt_stops_a_match_once_it_has_decided(tmp_path: Path) -> None:
    """random against a bot that crashes every game: H1 long before the 60-round budget;
    the decision is printed, in ratings.json and in MLflow; the run is finished, and
    running it again plays nothing."""
    from mlflow import MlflowClient

    cfg = config(tmp_path, ["random", CRASH], rounds=60, batch_size=2, sprt="elo0=0,elo1=50")
    result = run_tournament(cfg, quiet=True)
    assert result.stopped is not None and result.stopped.startswith("SPRT")
    assert "H1 accepted" in result.stopped and result.finished and not result.complete
    assert 0 < result.played < result.total
    ratings = json.loads((tmp_path / "out" / "ratings.json").read_text())
    assert ratings["stopped"] == result.stopped and ratings["stopping"]["sprt/decision"] == 1.0
    client = MlflowClient(tracking_uri=cfg.tracking_uri)
    run = client.get_run(str(result.run_id))
    assert run.info.status == "FINISHED" and run.data.tags["stopped"] == result.stopped
    assert run.data.metrics["sprt/llr"] >= run.data.metrics["sprt/upper"]
    rows = {r.name: r for r in result.rows}
    assert run.data.metrics["rating/random"] == pytest.approx(rows["random"].rating, abs=1e-3)
    assert run.data.metrics["elo/random"] == pytest.approx(rows["random"].elo, abs=1e-3)
    assert "crosstable.csv" in {a.path for a in client.list_artifacts(str(result.run_id))}
    again = run_tournament(cfg, quiet=True)
    assert again.played == 0 and again.stopped == result.stopped


def test_an_sprt_is_not_outrun_by_a_slow_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk that takes 20 ms per fsync (a busy machine): games are played much faster
    than they become durable, yet the rule still decides long before the budget is
    handed out, because each result is durable and seen by the rule before the next
    game goes out."""
    import arena.tournament.journal as journal_module

    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        time.sleep(0.02)
        real_fsync(fd)

    monkeypatch.setattr(journal_module.os, "fsync", slow_fsync)
    cfg = config(
        tmp_path,
        ["random", CRASH],
        rounds=60,
        batch_size=2,
        sprt="elo0=0,elo1=50",
        workers=0,
        tracking=False,
    )
    result = run_tournament(cfg, quiet=True)
    assert result.stopped is not None and "H1 accepted" in result.stopped
    assert 0 < result.played < result.total // 2


def test_until_separated_stops_once_the_intervals_part(tmp_path: Path) -> None:
    cfg = config(
        tmp_path, ["random", CRASH], rounds=40, batch_size=2, until_separated=True, tracking=False
    )
    result = run_tournament(cfg, quiet=True)
    assert result.stopped is not None and result.stopped.startswith("until-separated")
    assert 0 < result.played < result.total and result.finished
    best, worst = result.rows
    assert best.name == "random" and best.low > worst.high  # type: ignore[operator]  # rated


@pytest.mark.slow
def test_arena_bench_runs_and_reports_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    from arena.bench.arena import run_arena_bench

    out = run_arena_bench(GAME, 40, as_json=True, workers=(1, 2, 3))
    printed = json.loads(capsys.readouterr().out)
    assert printed["games"] == out["games"] == 40
    for key in ("sequential", "ray_1_worker", "ray_2_workers", "ray_3_workers"):
        assert out[key]["games"] == 40 and out[key]["games_per_s"] > 0
    for key in ("ray_1_worker", "ray_2_workers", "ray_3_workers"):
        figures = out[key]
        assert figures["worker_cpu_ms_per_game"] > 0 and figures["driver_cpu_ms_per_game"] > 0
        assert figures["ray_system_cpu_ms_per_game"] >= 0 and figures["speedup"] > 0
        assert figures["cpu_ms_per_game"] >= figures["worker_cpu_ms_per_game"]
    assert 0 <= out["logging_share_max"] < 1 and out["speedup_2_workers"] > 0
