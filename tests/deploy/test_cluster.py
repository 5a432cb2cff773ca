"""A real cluster on one machine: two Ray nodes (127.0.0.3 head, 127.0.0.2 a second node
with its own resource ``second_node``), token authentication, PostgreSQL and an MLflow
tracking server on it with artifacts proxied (``deploy.localstack``, as ``make
cluster-up`` starts them). Drivers are the ``arena`` command line, as a user runs it.

- a tournament with ``--address`` plays on both nodes; its ``cmd:`` bot (a script in the
  tournament's working directory) is shipped to and started on the second node; it logs
  to MLflow, whose artifacts land in the server's store;
- a bot that cannot start on a worker fails the run loudly, naming the bot and the file;
- a driver without the cluster's token gets one line saying what to set, no traceback;
  with the token in ``~/.ray/auth_token`` and ``RAY_AUTH_MODE`` unset it connects;
- the ladder runs on the cluster, its store on the same PostgreSQL, tracked in MLflow; a
  submitted archive reaches the workers through Ray's object store and plays from their own
  ladder home;
- killing the second node mid-run still leaves every game recorded exactly once.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from deploy.localstack import LocalStack
from tests.procs import MissingTool

pytestmark = [pytest.mark.server, pytest.mark.slow, pytest.mark.xdist_group("cluster")]

RUN_BOUND_S = 240.0
"""A driver's safety bound (a tournament here takes seconds)."""

BOT = '''\
"""A command bot that notes where it runs, then plays random moves."""
import os
from pathlib import Path

markers = os.environ.get("DEPLOY_TEST_MARKERS")
if markers:
    Path(markers, f"{os.getpid()}.txt").write_text(
        os.environ.get("DEPLOY_TEST_NODE", "head") + "\\n" + os.getcwd() + "\\n"
    )
from bots.random_client import main

main()
'''


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    root = tmp_path_factory.mktemp("stack")
    markers = root / "markers"
    markers.mkdir()
    try:
        local = LocalStack(
            root, {"DEPLOY_TEST_MARKERS": str(markers), "DEPLOY_TEST_NODE": "second"}
        )
    except MissingTool as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        local.start()
        print(f"local stack up in {local.seconds:.1f} s", file=sys.stderr)
        yield local
    finally:
        local.stop()


def two_nodes(stack: LocalStack) -> None:
    """Start the second node again if the node-killing test (any order) stopped it."""
    node = stack.ray.node
    if node is None or node.process.poll() is not None:
        stack.ray.start_node(stack.node_env)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """The tournament's working directory: a bot script and what must not be shipped."""
    folder = tmp_path / "work"
    (folder / ".venv").mkdir(parents=True)
    (folder / ".venv" / "marker").write_text("never shipped")
    (folder / "mybot.py").write_text(BOT)
    return folder


def arena(
    *args: str, cwd: Path, env: dict[str, str], timeout: float = RUN_BOUND_S
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def flat(text: str) -> str:
    """``text`` without whitespace: the arena's console wraps long lines (paths) anywhere."""
    return re.sub(r"\s+", "", text)


def journal_ids(out: Path) -> list[str]:
    lines = (out / "journal.jsonl").read_text().splitlines()
    return [json.loads(line)["game_id"] for line in lines if line.strip()]


def test_tournament_plays_on_both_nodes_with_shipped_cmd_bots(
    stack: LocalStack, workdir: Path, tmp_path: Path
):
    two_nodes(stack)
    out = tmp_path / "out"
    done = arena(
        "tournament", "--game", "dziobaki", "--bots", "random,cmd:python mybot.py",
        "--rounds", "8", "--batch-size", "2", "--out", str(out), "--no-progress",
        "--address", stack.ray.address, "--tracking-uri", stack.mlflow_url,
        "--experiment", "deploy-cluster",
        cwd=workdir, env=stack.ray.driver_env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "played on 2 Ray nodes: 127.0.0.2, 127.0.0.3" in done.stderr
    assert f"shipping{workdir}" in flat(done.stderr)
    ids = journal_ids(out)
    assert len(ids) == len(set(ids)) == 16
    records = [json.loads(x) for x in (out / "journal.jsonl").read_text().splitlines()]
    assert all(not any(e.get("kind") == "forfeit" for e in r.get("events", [])) for r in records)
    # the command bot (sandboxed: it can write nothing outside its own tmpfs, so the
    # record says where each game was played) started and played on the second node
    assert {r["node"] for r in records} == {"127.0.0.2", "127.0.0.3"}
    assert any(r["node"] == "127.0.0.2" for r in records if "cmd:" in json.dumps(r["players"]))
    # ... from the copy of the working directory Ray shipped (without its .venv)
    shipped = list(stack.ray.temp_dir.glob("session_*/runtime_resources/**/mybot.py"))
    assert shipped and all(p.read_text() == BOT for p in shipped)
    assert not any((p.parent / ".venv").exists() for p in shipped)
    # the run and its artifacts reached MLflow, through the server (proxied artifacts)
    import mlflow
    from mlflow.tracking import MlflowClient

    client = MlflowClient(stack.mlflow_url)
    (run,) = client.search_runs([client.get_experiment_by_name("deploy-cluster").experiment_id])
    assert run.info.artifact_uri.startswith("mlflow-artifacts:")
    assert run.data.metrics  # ratings were logged
    names = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert "leaderboard.csv" in names
    stored = list((stack.root / "mlflow-artifacts").rglob("leaderboard.csv"))
    assert stored, "the server stored the artifact it proxied"
    del mlflow


def test_a_bot_missing_on_the_worker_fails_the_tournament_loudly(
    stack: LocalStack, workdir: Path, tmp_path: Path
):
    done = arena(
        "tournament", "--game", "dziobaki", "--bots", "random,cmd:python bots/gone.py",
        "--rounds", "20", "--out", str(tmp_path / "out"), "--no-progress", "--no-tracking",
        "--address", stack.ray.address,
        cwd=workdir, env=stack.ray.driver_env(),
    )  # fmt: skip
    assert done.returncode != 0
    assert re.search(
        r"error: 'cmd:python bots/gone.py': cannot start 'bots/gone.py' on ", done.stderr
    )
    assert "the script does not exist" in done.stderr and "Traceback" not in done.stderr
    assert len(journal_ids(tmp_path / "out")) < 40  # it stopped instead of forfeiting all


def test_a_driver_without_the_token_is_told_what_to_set(stack: LocalStack, tmp_path: Path):
    env = stack.ray.driver_env()
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
        env.pop(name)
    env["HOME"] = str(tmp_path)  # no ~/.ray/auth_token either: a new user's machine
    env["RAY_gcs_server_port_wait_time_s"] = "2"  # Ray's connect retries: ~20 s by default
    done = arena(
        "tournament", "--game", "dziobaki", "--bots", "random,random", "--rounds", "1",
        "--out", str(tmp_path / "out"), "--no-progress", "--no-tracking",
        "--address", stack.ray.address,
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    (message,) = [x for x in done.stderr.splitlines() if x.startswith("error:")]
    assert "requires token authentication" in message and "RAY_AUTH_MODE=token" in message
    assert "RAY_AUTH_TOKEN" in message
    # the token in ~/.ray/auth_token, RAY_AUTH_MODE still unset: the arena switches token
    # mode on (a bare ray.init fails here with a traceback)
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text(stack.ray.token)
    done = arena(
        "tournament", "--game", "dziobaki", "--bots", "random,random", "--rounds", "1",
        "--out", str(tmp_path / "out"), "--no-progress", "--no-tracking",
        "--address", stack.ray.address,
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(journal_ids(tmp_path / "out")) == 2


def test_ladder_on_the_cluster_with_its_store_on_postgres(stack: LocalStack, tmp_path: Path):
    env = stack.ray.driver_env()
    db = ["--db", stack.ladder_db]
    assert (
        arena(
            "ladder", "create", "dziobaki", "--players", "2", *db, cwd=tmp_path, env=env
        ).returncode
        == 0
    )
    files = tmp_path / "files"  # a submitted archive: shipped to the workers, no shared home
    files.mkdir()
    (files / "bot.py").write_text(BOT)
    home = ["--home", str(tmp_path / "home")]
    for name, spec in (("rnd", "random"), ("grd", "greedy"), ("files", str(files))):
        done = arena(
            "ladder",
            "submit",
            "dziobaki-2p",
            "--name",
            name,
            spec,
            "--owner",
            "t",
            *db,
            *home,
            cwd=tmp_path,
            env=env,
        )
        assert done.returncode == 0, done.stderr
    two_nodes(stack)
    done = arena(
        "ladder", "run", "dziobaki-2p", "--games", "12", *db, *home,
        "--tracking-uri", stack.mlflow_url, "--experiment", "deploy-ladder",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert flat(f"Ray cluster at {stack.ray.address}") in flat(done.stdout + done.stderr)
    # the archive reached the workers through the object store: each node's workers kept
    # and unpacked it in their own ladder home (in Ray's runtime resources), not the driver's
    (status,) = json.loads(arena("ladder", "status", "files", "--json", *db, cwd=tmp_path,
                                 env=env).stdout)  # fmt: skip
    sha = status["program"].split()[1].rstrip(",")
    assert status["games"] > 0 and status["status"] == "active", status
    unpacked = list(stack.ray.temp_dir.glob(f"session_*/runtime_resources/**/cache/{sha}/bot.py"))
    assert unpacked, "the workers unpacked the shipped archive in their own ladder home"
    records = (tmp_path / "home" / "ladders" / "dziobaki-2p" / "records.jsonl").read_text()
    played = [json.loads(line) for line in records.splitlines() if "files@1" in line]
    assert played and not any(e["kind"] == "forfeit" for r in played for e in r["events"])
    import psycopg

    with psycopg.connect(stack.postgres.dsn("ladder")) as conn:
        tables = {
            r[0]
            for r in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        }
    assert tables, "the ladder's store is on the stack's PostgreSQL"
    from mlflow.tracking import MlflowClient

    client = MlflowClient(stack.mlflow_url)
    experiment = client.get_experiment_by_name("deploy-ladder")
    assert experiment is not None and client.search_runs([experiment.experiment_id])


def test_killing_the_second_node_mid_run_loses_no_game_and_doubles_none(
    stack: LocalStack, tmp_path: Path
):
    two_nodes(stack)
    out = tmp_path / "out"
    total = 3 * 2 * 30  # three bots, two seat rotations, 30 rounds
    process = subprocess.Popen(
        [
            sys.executable, "-m", "arena.cli", "tournament", "--game", "dziobaki",
            "--bots", "random,random,greedy", "--rounds", "30", "--batch-size", "4",
            "--out", str(out), "--no-progress", "--no-tracking", "--address", stack.ray.address,
        ],
        cwd=tmp_path, env=stack.ray.driver_env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + RUN_BOUND_S
        journal = out / "journal.jsonl"
        while time.monotonic() < deadline and process.poll() is None:
            # kill it once it has played (each record says where it was played)
            lines = journal.read_text().splitlines() if journal.exists() else []
            if len(lines) >= total // 5 and any('"node":"127.0.0.2"' in x for x in lines):
                break
            time.sleep(0.05)
        assert process.poll() is None, "the tournament ended before the node could be killed"
        assert stack.ray.node is not None
        stack.ray.node.stop()  # SIGTERM to the second node's `ray start`
        _, stderr = process.communicate(timeout=RUN_BOUND_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr[-3000:]
    assert "played on 2 Ray nodes" in stderr  # the second node had played before it died
    ids = journal_ids(out)
    assert len(ids) == len(set(ids)) == total
    assert os.path.exists(out / "leaderboard.csv")
