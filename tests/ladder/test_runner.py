"""The ladder runner with real components: the store on SQLite (and once on PostgreSQL),
real games, the records file, Ray (the session's local cluster) and MLflow's SQLite store.

What is proved: every result is counted exactly once and never lost (``helpers.audit``),
whether the runner plays in process or on Ray, on SQLite or PostgreSQL; a dead runner's
recorded game is counted from its record and its unrecorded one played again; a new
version is placed within a stated number of matches and never shares a game with the
version it replaces; a bot that fails at start is broken with its reason while the
ladder goes on; the reference bots finish in the order of their strength.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import pickle
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from arena.ladder.hosting import LadderFiles, ShippedArchives, game_id, hosted_spec
from arena.ladder.matchmaking import MatchmakingSettings
from arena.ladder.runner import LadderRunner, RunnerConfig
from arena.ladder.store import LadderStore
from arena.ladder.submission import Archives
from arena.ladder.validation import validate_version
from arena.ladder.views import VersionInfo
from arena.sandbox.limits import DEFAULT_LIMITS, SandboxLimits
from arena.tournament.journal import Journal, read_journal
from arena.tournament.ray_runner import GameSetup, play_batch
from arena.tournament.schedule import ScheduledGame
from tests.ladder.helpers import (
    CRASH,
    EXITS,
    FIRST,
    INTERRUPT,
    REPO,
    audit,
    cli_env,
    make_ladder,
    run,
)

BOTS = {"rnd": "random", "grd": "greedy", "first": FIRST}


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[LadderStore]:
    with LadderStore(str(tmp_path / "ladder.db")) as store:
        yield store


def test_the_runner_plays_records_and_counts_every_match_once(
    sqlite_store: LadderStore, tmp_path: Path
) -> None:
    store, home = sqlite_store, tmp_path / "home"
    ladder = make_ladder(store, BOTS)
    summary = run(store, ladder, home, games=24)
    assert (summary.counted, summary.voided, summary.stale) == (24, [], 0)
    done = audit(store, ladder, home)
    assert len(done) == 24
    assert store.match_counts(ladder) == {
        "queued": 0, "running": 0, "done": 24, "void": 0, "sets": 12,
    }  # fmt: skip
    # every group played as a duplicate set: each rotation on the set's one seed
    sets: dict[str, list[tuple[int, ...]]] = {}
    for m in done:
        sets.setdefault(m.set_key, []).append(m.seats)
        assert len({x.seed for x in done if x.set_key == m.set_key}) == 1
    assert all(sorted(g) == sorted([g[0], g[0][::-1]]) for g in sets.values())
    rows = store.standings(ladder)
    assert sum(r.games for r in rows) == 48 and max(r.games for r in rows) - min(
        r.games for r in rows
    ) <= MatchmakingSettings().spread_bound(2)
    assert store.lease(ladder) is None  # released
    files = LadderFiles.of(home, ladder)
    assert "grd@1" in files.standings("md").read_text()
    assert {p.name for p in files.replays.iterdir()} == {
        "latest-rnd.v1.html", "latest-grd.v1.html", "latest-first.v1.html",
    }  # fmt: skip
    # the next run continues the ladder (new match ids, the same file)
    assert run(store, ladder, home, games=4).counted == 4
    assert len(audit(store, ladder, home)) == 28


def test_the_runner_is_deterministic_in_process(tmp_path: Path) -> None:
    results = []
    for name in ("a", "b"):
        with LadderStore(str(tmp_path / f"{name}.db")) as store:
            ladder = make_ladder(store, BOTS)
            run(store, ladder, tmp_path / name, games=10)
            results.append([(m.seats, m.seed, m.result) for m in store.matches(ladder)])
    assert results[0] == results[1]


@pytest.mark.server
@pytest.mark.xdist_group("ray")
@pytest.mark.usefixtures("ray_cluster")
def test_the_runner_on_ray_counts_every_match_once(
    sqlite_store: LadderStore, tmp_path: Path
) -> None:
    store, home = sqlite_store, tmp_path / "home"
    ladder = make_ladder(store, {**BOTS, "rnd2": "random"})
    summary = run(store, ladder, home, games=40, workers=2, in_flight=8)
    assert summary.counted == 40 and summary.voided == []
    assert len(audit(store, ladder, home)) == 40


@pytest.mark.server
@pytest.mark.xdist_group("postgres")
def test_the_runner_on_postgresql(postgres_url: str, tmp_path: Path) -> None:
    with LadderStore(postgres_url) as store:
        ladder = make_ladder(store, BOTS)
        summary = run(store, ladder, tmp_path / "home", games=12)
        assert summary.counted == 12
        assert len(audit(store, ladder, tmp_path / "home")) == 12
        assert store.engine.dialect.name == "postgresql"


def test_an_interrupted_runner_puts_the_game_in_flight_back_in_the_queue(
    sqlite_store: LadderStore, tmp_path: Path
) -> None:
    """A second Ctrl-C (KeyboardInterrupt) in the middle of a game: the runner stops, the
    match goes back to the queue (its attempt not counted), the lease is released."""
    store, home = sqlite_store, tmp_path / "home"
    ladder = make_ladder(store, {"rnd": "random", "grd": "greedy", "stop": INTERRUPT})
    summary = run(store, ladder, home, games=20)
    assert summary.stopped.startswith("interrupted") and summary.requeued_at_stop == 1
    queued = store.matches(ladder, statuses=["queued"])
    stop = store.version(ladder, "stop").id
    back = [m for m in queued if stop in m.seats and m.attempts == 0]
    assert back and store.lease(ladder) is None
    assert len(audit(store, ladder, home)) == summary.counted


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_dead_runners_recorded_game_is_counted_from_its_record_not_replayed(
    sqlite_store: LadderStore, tmp_path: Path
) -> None:
    """A runner of this host died after appending one game's record and before its
    commit, with a second game in flight and no record of it."""
    store, home = sqlite_store, tmp_path / "home"
    ladder = make_ladder(store, BOTS)
    dead = f"{socket.gethostname()}:{_dead_pid()}"
    lease = store.acquire_lease(ladder, dead, 600)
    versions = {v.id: v for v in store.versions(ladder)}
    group = [v.id for v in versions.values()][:2]
    store.queue_set(ladder, group, seed=77)
    recorded, lost = store.claim(lease, 2)
    gid = game_id(ladder, recorded.id, recorded.attempts)
    files = LadderFiles.of(home, ladder)
    setup = GameSetup("dziobaki", 2, {}, f"ladder:{ladder}")
    game = ScheduledGame(
        recorded.id, 1, recorded.id, 0,
        tuple(versions[v].label for v in recorded.seats),
        tuple(versions[v].spec or "" for v in recorded.seats),
        recorded.seed, gid, recorded.set_key,
    )  # fmt: skip
    played = play_batch(setup, [game])
    with Journal(files.records) as journal:
        journal.append(played.lines)

    # the lease is live (600 s), but its holder is a process of this host that is gone
    summary = run(store, ladder, home, games=2)
    assert summary.salvaged == 1 and summary.requeued_at_start == (lost.id,)
    first = store.match(recorded.id)
    assert first.status == "done" and first.attempts == 1
    assert first.record_location is not None and first.record_location.endswith(gid)
    second = store.match(lost.id)
    assert second.status == "done" and second.attempts == 2  # played again, new id
    assert second.record_location is not None and second.record_location.endswith("-a2")
    done = audit(store, ladder, home)
    assert len(done) == 1 + 2  # the salvaged one and the run's two


PLACEMENT_MATCHES = 60
"""The stated bound: ladder matches (2 players, 4 bots) until a new version's σ is at most
β. Measured (deterministic): 53 for greedy replacing a weak bot in a field of two random
bots and greedy (45 of them its own games: results against weaker bots say little), 33
for a random newcomer (all its own)."""


def test_a_new_version_is_placed_quickly_and_never_shares_a_game_with_the_old(
    sqlite_store: LadderStore, tmp_path: Path
) -> None:
    store, home = sqlite_store, tmp_path / "home"
    ladder = make_ladder(store, {"a": "random", "b": "random", "c": "greedy", "d": FIRST})
    run(store, ladder, home, games=60)
    old = store.version(ladder, "d")
    new = store.add_version(ladder, "d", spec="greedy")
    new = validate_version(store, new, Archives(home))[0]
    assert new.status == "active"
    assert store.version_by_id(old.id).reason == "replaced by d@2"
    first_new = store.match_counts(ladder)["sets"]

    placed: list[int] = []
    runner: LadderRunner

    def check(counted: int) -> None:
        row = next(r for r in store.standings(ladder) if r.version_id == new.id)
        if not row.provisional and not placed:
            placed.append(counted)
            runner.request_stop("placed")

    config = RunnerConfig(workers=0, games=200, tracking=False)
    runner = LadderRunner(store, ladder, home=home, config=config, log=lambda _: None)
    runner.on_commit = check
    runner.run()
    # PLACEMENT_MATCHES: the bound the docs state for a 2-player ladder of 4 bots
    assert placed and placed[0] <= PLACEMENT_MATCHES, placed
    matches = store.matches(ladder, statuses=["done"])
    assert not [m for m in matches if old.id in m.seats and new.id in m.seats]
    assert max(m.id for m in matches if old.id in m.seats) < min(
        m.id for m in matches if new.id in m.seats
    )
    # the newcomer anchors every pick of its placement burst
    sets = [m for m in matches if m.rotation == 0]
    burst = MatchmakingSettings().placement_picks(2)
    assert all(new.id in m.seats for m in sets[first_new : first_new + burst])
    audit(store, ladder, home)


def test_a_bot_failing_at_start_is_broken_with_its_reason_and_the_ladder_goes_on(
    sqlite_store: LadderStore, tmp_path: Path
) -> None:
    store, home = sqlite_store, tmp_path / "home"
    ladder = make_ladder(store, {"rnd": "random", "grd": "greedy"})
    # refused at validation: the author reads why
    submitted = store.add_version(ladder, "quits", spec=EXITS)
    after, outcome = validate_version(store, submitted, Archives(home))
    assert not outcome.ok and after.status == "broken"
    assert after.reason is not None and "ended before joining" in after.reason
    assert "exited with code 3" in after.reason
    # one that passed validation and breaks in the ladder: out after broken_after games
    crashes = store.add_version(ladder, "crashes", spec=CRASH, status="active")
    summary = run(store, ladder, home, games=16)
    broken = store.version_by_id(crashes.id)
    assert broken.status == "broken" and summary.broken == ["crashes@1"]
    assert broken.reason == "failed 3 games in a row (last: crash: RuntimeError: boom)"
    assert summary.counted == 16  # the ladder went on without it
    assert len(store.history(crashes.id)) == 3
    assert all(h.forfeited and h.rank == 2 for h in store.history(crashes.id))
    audit(store, ladder, home)


def test_a_submitted_archive_plays_from_its_unpacked_folder(
    sqlite_store: LadderStore, tmp_path: Path
) -> None:
    store, home = sqlite_store, tmp_path / "home"
    ladder = make_ladder(store, {"rnd": "random"})
    source = tmp_path / "mybot"
    source.mkdir()
    (source / "helper.py").write_text("SEED = 5\n")
    (source / "bot.py").write_text(
        "import os, sys\nfrom helper import SEED\nfrom bots.random_client import main\n"
        "assert os.path.exists('helper.py')\nmain(sys.argv[1:] + ['--seed', str(SEED)])\n"
    )
    archives = Archives(home)
    packed = archives.pack(source)
    version = store.add_version(ladder, "mine", archive_sha256=packed.sha256, entry="python bot.py")
    assert validate_version(store, version, archives)[0].status == "active"
    summary = run(store, ladder, home, games=4)
    assert summary.counted == 4
    assert (archives.cache / packed.sha256 / "bot.py").exists()
    assert len(store.history(version.id)) == 4
    assert not any(h.forfeited for h in store.history(version.id))
    audit(store, ladder, home)


def test_the_ladder_run_in_mlflow(sqlite_store: LadderStore, tmp_path: Path) -> None:
    from mlflow import MlflowClient

    store, home = sqlite_store, tmp_path / "home"
    ladder = make_ladder(store, BOTS)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    first = run(store, ladder, home, games=6, tracking=True, tracking_uri=uri)
    second = run(store, ladder, home, games=4, tracking=True, tracking_uri=uri)
    assert first.tracked and second.tracked and first.run_id == second.run_id  # one run
    client = MlflowClient(uri)
    mlrun = client.get_run(first.run_id or "")
    assert mlrun.info.run_name == f"ladder-{ladder}" and mlrun.data.params["game"] == "dziobaki"
    history = client.get_metric_history(mlrun.info.run_id, "rating/grd.v1/mu")
    assert history and [m.step for m in history] == sorted(m.step for m in history)
    assert max(m.step for m in history) <= 10
    assert client.get_metric_history(mlrun.info.run_id, "rating/rnd.v1/ordinal")
    names = {a.path for a in client.list_artifacts(mlrun.info.run_id)}
    assert {"records", "replays", "standings.csv", "standings.md", "standings.html"} <= names
    local = client.download_artifacts(mlrun.info.run_id, "records", str(tmp_path / "dl"))
    lines = [
        json.loads(line) for part in sorted(Path(local).glob("*.jsonl")) for line in part.open()
    ]
    assert len(lines) == 10 and len({r["game_id"] for r in lines}) == 10


@pytest.mark.slow
@pytest.mark.parametrize("game", ["manatee_sanctuary", "zooloretto_mini"])
def test_the_reference_bots_finish_in_the_order_of_their_strength(
    game: str, sqlite_store: LadderStore, tmp_path: Path
) -> None:
    """36 matches (12 per pairing) of random, greedy and ISMCTS at 40 iterations: the
    standings (by ordinal) put ismcts above greedy above random. In process, so the run
    is deterministic (same seeds, same picks, same games)."""
    store = sqlite_store
    bots = {"random": "random", "greedy": "greedy", "ismcts": "ismcts:iterations=40"}
    ladder = make_ladder(store, bots, game=game)
    run(store, ladder, tmp_path / "home", games=36)
    rows = store.standings(ladder)
    assert [r.bot for r in rows] == ["ismcts", "greedy", "random"]
    assert all(r.games == 24 for r in rows)
    assert math.isclose(sum(r.games for r in rows), 72)


# ---------------------------------------------------------------------------
# Per-ladder sandbox limits, archives shipped to workers without the ladder home
# ---------------------------------------------------------------------------

FORKBOMB = f"cmd:{sys.executable} {REPO / 'tests' / 'sandbox' / 'attacker.py'} --mode forkbomb"
"""Forks until fork fails, reports how many it made (``RESULT {...}`` on stderr), exits."""


def forks_of(home: Path, ladder: str) -> list[int]:
    """How many processes the fork bomb made in each of the ladder's recorded games."""
    found = []
    for record in read_journal(LadderFiles.of(home, ladder).records):
        for event in record["events"]:
            if event["kind"] == "stderr" and "RESULT " in event["reason"]:
                line = event["reason"].split("RESULT ")[-1].splitlines()[0]
                found.append(int(json.loads(line)["forks"]))
    return found


@pytest.mark.server  # sandboxed bot programs against a game server
def test_a_ladders_own_sandbox_limits_stop_a_fork_bomb(tmp_path: Path) -> None:
    """The ladder's limit (24 processes), not the default (64), stops the fork bomb; an
    explicit RunnerConfig.sandbox still wins over the ladder's."""
    home = tmp_path / "home"
    with LadderStore(str(tmp_path / "ladder.db")) as store:
        store.create_ladder(
            "tight", "zooloretto_mini", 2, options={"start_player": 0},
            sandbox=SandboxLimits(processes=24),
        )  # fmt: skip
        bomb = store.add_version("tight", "bomb", spec=FORKBOMB, status="active")
        store.add_version("tight", "rnd", spec="random", status="active")
        assert run(store, "tight", home, games=1).counted == 1
        (first,) = forks_of(home, "tight")
        assert 0 < first < 24 < DEFAULT_LIMITS.processes
        assert store.history(bomb.id)[0].forfeited  # it exited: its seat forfeited
        assert run(store, "tight", home, games=1, sandbox=SandboxLimits(processes=48)).counted
        second = forks_of(home, "tight")[1]
        assert first < second < 48, (first, second)


@pytest.mark.server  # a sandboxed program against the bot check's game server
def test_a_submission_is_validated_under_the_ladders_own_limits(tmp_path: Path) -> None:
    """The random client passes validation under the defaults (the archive test above);
    under a ladder's 64 MB address space it cannot start its threads: broken, saying so."""
    with LadderStore(str(tmp_path / "ladder.db")) as store:
        store.create_ladder("small", "dziobaki", 2, sandbox=SandboxLimits(address_space_mb=64))
        version = store.add_version(
            "small", "rc", spec=f"cmd:{sys.executable} -m bots.random_client"
        )
        after, outcome = validate_version(store, version, Archives(tmp_path / "home"))
    assert after.status == "broken" and not outcome.ok
    assert "validation failed: joins" in outcome.reason


def archive_bot(tmp_path: Path) -> Path:
    source = tmp_path / "mybot"
    source.mkdir()
    (source / "bot.py").write_text(
        "import sys\nfrom bots.random_client import main\nmain(sys.argv[1:])\n"
    )
    return source


@pytest.mark.server  # a worker process plays a sandboxed archive bot
def test_a_worker_without_the_ladder_home_gets_the_archive_and_plays(tmp_path: Path) -> None:
    """The runner's shipped archives (bytes here, a Ray ObjectRef on a cluster) reach a
    worker whose ladder home is elsewhere: it verifies, keeps and unpacks them there and
    plays; bytes that are not the archive fail that game, naming the archive."""
    driver = Archives(tmp_path / "driver")
    packed = driver.pack(archive_bot(tmp_path))
    version = VersionInfo(1, "zoo", "mine", "me", 1, "hosted", None, packed.sha256,
                          "python bot.py", "active", None, 0, datetime.now(UTC))  # fmt: skip
    spec = hosted_spec(version, driver)
    data = packed.path.read_bytes()
    shutil.rmtree(driver.home)  # nothing of the driver's home is left to share
    game = ScheduledGame(0, 0, 0, 0, ("mine@1", "rnd"), (spec, "random"), 7, "zoo-m1-a1", "s1")
    good = GameSetup("dziobaki", 2, {}, "ladder:zoo",
                     prepare=ShippedArchives({packed.sha256: data}, str(driver.home)))  # fmt: skip
    bad = dataclasses.replace(
        good, prepare=ShippedArchives({packed.sha256: gzip.compress(b"junk")}, str(driver.home))
    )
    script = (
        "import pickle, sys\nfrom arena.tournament.ray_runner import play_batch\n"
        "setup, games = pickle.load(sys.stdin.buffer)\n"
        "res = play_batch(setup, games)\n"
        "pickle.dump((res.lines, res.errors), sys.stdout.buffer)\n"
    )
    results = []
    for n, setup in enumerate((good, bad)):
        worker = tmp_path / f"worker{n}"
        proc = subprocess.run(
            [sys.executable, "-c", script], input=pickle.dumps((setup, [game])),
            capture_output=True, timeout=120, cwd=REPO,
            env={**cli_env(), "MENAGERIE_LADDER_HOME": str(worker)},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr.decode()
        results.append(pickle.loads(proc.stdout))
    (lines, errors), (bad_lines, bad_errors) = results
    assert errors == [] and len(lines) == 1
    record = json.loads(lines[0][1])
    assert [e for e in record["events"] if e["kind"] != "stderr"] == []  # it played
    worker = Archives(tmp_path / "worker0")
    assert (worker.cache / packed.sha256 / "bot.py").exists() and worker.path(packed.sha256)
    assert bad_lines == [] and len(bad_errors) == 1
    assert f"archive {packed.sha256[:12]} arrived corrupt" in bad_errors[0][1]
    assert not (tmp_path / "worker1" / "cache" / packed.sha256).exists()


@pytest.mark.server
@pytest.mark.xdist_group("ray")
@pytest.mark.usefixtures("ray_cluster")
def test_a_ladder_on_ray_ships_its_archives_to_the_workers(
    sqlite_store: LadderStore, tmp_path: Path
) -> None:
    """With shipping on (as on a cluster) the Ray workers play a submitted archive from
    their own ladder home, filled from the object store, not the driver's."""
    store, home, workers = sqlite_store, tmp_path / "home", tmp_path / "workers"
    ladder = make_ladder(store, {"rnd": "random"})
    packed = Archives(home).pack(archive_bot(tmp_path))
    mine = store.add_version(
        ladder, "mine", archive_sha256=packed.sha256, entry="python bot.py", status="active"
    )
    summary = run(store, ladder, home, games=4, workers=2, ship_archives=True,
                  worker_home=str(workers))  # fmt: skip
    assert (summary.counted, summary.voided) == (4, [])
    assert (workers / "cache" / packed.sha256 / "bot.py").exists()
    assert (workers / "archives" / f"{packed.sha256}.tar.gz").exists()
    assert not any(h.forfeited for h in store.history(mine.id))
    audit(store, ladder, home)
