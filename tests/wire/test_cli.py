"""The command line: ``arena serve``, ``arena play`` with a command bot, ``arena bench grpc``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from menagerie.v1 import game_service_pb2 as pb
from menagerie.v1 import game_service_pb2_grpc as pb_grpc

ARENA = [sys.executable, "-m", "arena.cli"]
REPO = Path(__file__).resolve().parents[2]


@pytest.mark.server
def test_serve_plays_matches_and_shuts_down_gracefully(tmp_path: Path, run_cli: Any) -> None:
    """A real `arena serve` process: it prints its address, serves, and stops on SIGTERM."""
    records = tmp_path / "records.jsonl"
    proc = subprocess.Popen(
        [
            *ARENA,
            "serve",
            "--port",
            "0",
            "--records",
            str(records),
            "--grace",
            "5",
            "--admin-token",
            "t0ken",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("serving menagerie.v1.GameService on 127.0.0.1:"), line
        address = line.split(" on ")[1].split()[0]
        with grpc.insecure_channel(address) as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            assert health.status == health_pb2.HealthCheckResponse.SERVING
            created = pb_grpc.GameServiceStub(channel).CreateMatch(
                pb.CreateMatchRequest(game="zooloretto_mini", num_players=2, seed=4),
                metadata=[("authorization", "Bearer t0ken")],
            )
        bots = [
            subprocess.Popen(
                [sys.executable, "-m", "bots.random_client", "--seed", str(s.seat)],
                env={
                    **os.environ,
                    "MENAGERIE_ADDRESS": address,
                    "MENAGERIE_CREDENTIAL": s.credential,
                },
                cwd=REPO,
            )
            for s in created.seats
        ]
        for bot in bots:
            assert bot.wait(300) == 0
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopped; 0 match(es) aborted" in out
    (record,) = [json.loads(x) for x in records.read_text().splitlines()]
    assert record["match_id"] == created.match_id and record["events"] == []
    verify = run_cli("verify", str(records))
    assert verify.exit_code == 0 and "1 of 1 record(s) verified" in verify.stdout


def test_serve_bad_port_is_a_user_error(run_cli: Any) -> None:
    done = run_cli("serve", "--port", "99999")
    assert done.exit_code == 2
    assert done.stderr.strip() == "error: --port must be 0-65535, got 99999"


@pytest.mark.server
def test_play_with_a_command_bot(tmp_path: Path, run_cli: Any) -> None:
    record = tmp_path / "game.json"
    done = run_cli(
        "play", "panorama", "--bots", "random,cmd:python -m bots.random_client --seed 1",
        "--seed", "3", "--move-ms", "60000", "--record", str(record),
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert "cmd:python -m bots.random_client --seed 1" in done.stdout
    data = json.loads(record.read_text())
    assert data["events"] == [] and data["players"][1]["version"] == "1"


def test_play_with_a_missing_program_is_a_user_error(run_cli: Any) -> None:
    done = run_cli("play", "dziobaki", "--bots", "random,cmd:/no/such/bot")
    assert done.exit_code == 2
    assert done.stderr.strip().startswith("error: 'cmd:/no/such/bot': cannot start '/no/such/bot'")


@pytest.mark.server
def test_bench_grpc_json(run_cli: Any, tmp_path: Path) -> None:
    """The exchange vs the ping-pong (interleaved, as many of each), the per-move split of
    the protobuf client and the SDK (server, client, transport add up to the cycle), the
    load, and --compare."""
    done = run_cli(
        "bench", "grpc", "--json", "--moves", "100", "--matches", "4", "--seconds", "1",
        "--think-ms", "20", "--clients", "sdk", "--repeats", "1", "--max-repeats", "1",
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["machine"]["cpus"] >= 1 and len(report["machine"]["load_average"]) == 3
    assert report["ping_pong"]["n"] == 100 and report["move_exchange"]["n"] == 100
    assert (
        report["ping_pong"]["blocks"] == 3
    )  # interleaved: after 100, 200, 300 moves (warm-up 200)
    assert report["ratio_median"] > 0 and report["stability"]["repeats"] == 1
    assert report["load"]["matches"] == 4 and report["load"]["n"] > 0
    rows = report["clients"]
    assert set(rows) == {"python", "sdk"}
    for row in rows.values():
        assert row["moves"] >= 50 and row["server_us"] > 0 and row["client_us"] > 0
        parts = row["server_us"] + row["client_us"] + row["transport_us"]
        assert parts == pytest.approx(row["cycle_us"], abs=0.3)  # (each rounded to 0.1)
        assert row["server_step_us"] > 0 and row["server_turn_us"] > 0  # the server's parts
    earlier = tmp_path / "earlier.json"
    earlier.write_text(done.stdout)
    again = run_cli(
        "bench", "grpc", "--moves", "50", "--matches", "0", "--clients", "python",
        "--repeats", "1", "--max-repeats", "1", "--compare", str(earlier),
    )  # fmt: skip
    assert again.exit_code == 0, again.stderr
    assert again.stdout.startswith("machine: ") and "python  cycle" in again.stdout
    assert "compared with the earlier run" in again.stdout
    assert "clients.python.server_us" in again.stdout  # rows line up by client name
    assert "ratio_median" in again.stdout and "concurrent matches" not in again.stdout
    bad = run_cli("bench", "grpc", "--clients", "python,cobol")
    assert bad.exit_code != 0 and "unknown client 'cobol'" in bad.stderr
