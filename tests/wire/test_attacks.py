"""The game server under attack: each test provokes one attack of issue 16 (loopback only,
bounded request counts; waits are safety nets, never the assertion)."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2 as refl_pb2
from menagerie.v1 import game_service_pb2 as pb
from menagerie.v1 import game_service_pb2_grpc as pb_grpc

from arena.match.records import verify_record
from arena.server.app import GameServer
from tests.wire.helpers import host, play_with_sdk, running_server, server_config
from tests.wire.rawclient import RawSeat

WAIT_S = 60.0
"""The bound of a wait for an event: only reached when the event never comes."""

pytestmark = pytest.mark.server


def _health(channel: grpc.Channel) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return stub.Check(health_pb2.HealthCheckRequest(), timeout=WAIT_S).status


def _match_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("match-")]


def test_create_match_flood_is_bounded_costs_no_thread_and_spares_others() -> None:
    """600 CreateMatch calls at once against limits of 300 pending / 400 live matches:
    the excess is RESOURCE_EXHAUSTED, no match gets a thread while its seats join, health
    answers throughout, a normal match alongside finishes, and the unjoined matches are
    aborted and recorded at the join timeout."""
    records: list[dict[str, Any]] = []
    config = server_config(max_pending=300, max_matches=400, join_timeout_s=3.0)
    server = GameServer(config, on_record=records.append)
    server.start("127.0.0.1", 0)
    try:
        normal = host(server, "zooloretto_mini", 2, seed=1)
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            request = pb.CreateMatchRequest(game="zooloretto_mini", num_players=2)
            calls = [stub.CreateMatch.future(request, timeout=WAIT_S) for _ in range(600)]
            health = [_health(channel) for _ in range(5)]
            codes = [c.exception().code() if c.exception() else grpc.StatusCode.OK for c in calls]
            assert codes.count(grpc.StatusCode.OK) == 299  # (the normal match is the 300th)
            assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 301
            assert "matches whose seats are still joining" in (calls[-1].exception().details())
            assert health == [health_pb2.HealthCheckResponse.SERVING] * 5
            assert _match_threads() == [], "no match is driven before its seats have joined"
            for bot in play_with_sdk(server, normal):
                bot.join(WAIT_S)
            assert normal.done.wait(WAIT_S) and normal.status == pb.MATCH_STATUS_FINISHED
            deadline = time.monotonic() + WAIT_S
            while len(records) < 300 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _health(channel) == health_pb2.HealthCheckResponse.SERVING
    finally:
        server.stop(grace_s=0.0)
    by_id = {r["match_id"]: r for r in records}
    assert len(records) == len(by_id) == 300
    assert verify_record(by_id.pop(normal.match_id)).ok
    assert all(r["aborted"] and "no seat joined" in r["reason"] for r in by_id.values())


def test_stream_without_join_is_closed() -> None:
    with running_server(join_first_s=0.5) as server:
        raw = RawSeat(server.address)
        code, message = raw.wait_status(WAIT_S)
        raw.cancel()
    assert code == grpc.StatusCode.UNAUTHENTICATED and "no Join within 0.5 s" in message


def test_idle_sockets_are_closed_and_lock_nobody_out() -> None:
    """300 raw TCP connections that never speak HTTP/2: health still answers while they
    are open, and the server closes them all at its handshake timeout."""
    with running_server(handshake_timeout_s=1.0) as server:
        socks = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(300)]
        try:
            with grpc.insecure_channel(server.address) as channel:
                assert _health(channel) == health_pb2.HealthCheckResponse.SERVING
            closed = 0
            for sock in socks:
                sock.settimeout(WAIT_S)
                try:
                    while sock.recv(4096):  # (the server's preface/GOAWAY, then EOF)
                        pass
                    closed += 1
                except ConnectionResetError:
                    closed += 1
            assert closed == 300
        finally:
            for sock in socks:
                sock.close()


def test_idle_connections_are_closed() -> None:
    """A connection that makes no call for ``idle_connection_s`` is closed by the server
    (GOAWAY): the client's channel leaves READY without anything on its side."""
    with running_server(idle_connection_s=0.5) as server:
        channel = grpc.insecure_channel(server.address)
        states: list[grpc.ChannelConnectivity] = []
        left = threading.Event()

        def seen(state: grpc.ChannelConnectivity) -> None:
            if states and states[-1] == grpc.ChannelConnectivity.READY and state != states[-1]:
                left.set()
            states.append(state)

        try:
            assert _health(channel) == health_pb2.HealthCheckResponse.SERVING
            channel.subscribe(seen)
            assert left.wait(WAIT_S), states
        finally:
            channel.close()
    assert states[-1] in (grpc.ChannelConnectivity.IDLE, grpc.ChannelConnectivity.TRANSIENT_FAILURE)


def test_streams_per_connection_are_bounded() -> None:
    """With 3 streams per connection, 3 open Watch streams on one channel hold a 4th call
    back (queued by the client, not refused) until one of them ends."""
    with running_server(max_streams_per_connection=3) as server:
        table = host(server)
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            watches = [stub.Watch(pb.WatchRequest(match_id=table.match_id)) for _ in range(3)]
            for watch in watches:
                assert next(watch).match_start.seat == -1
            request = pb.GetMatchRequest(match_id=table.match_id)
            with pytest.raises(grpc.RpcError) as held:
                stub.GetMatch(request, timeout=1.0)
            assert held.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            watches[0].cancel()
            assert stub.GetMatch(request, timeout=WAIT_S).status == pb.MATCH_STATUS_WAITING


BAD_FIELDS: list[tuple[dict[str, Any], str]] = [
    ({"options_json": "[" * 1000}, "nested 1000 levels deep"),
    ({"options_json": "[" * 500 + "]" * 500}, "nested 500 levels deep"),
    ({"options_json": json.dumps({"k": "v" * 20_000})}, "bytes (at most"),
    ({"on_failure": 99}, "on_failure 99 is not a FailurePolicy"),
    ({"player_names": ["x" * 65, "y"]}, "player_names[0] is 65 characters"),
    ({"player_names": ["a\x00", "b"]}, "control characters"),
    ({"game": "x" * 1000}, "game is 1000 characters"),
    ({"num_players": -5}, "num_players must be"),
    ({"time_limit_ms": 4_000_000_000}, "time_limit_ms"),
]
"""CreateMatch fields a hostile client sends (on top of a good dziobaki request)."""


@pytest.mark.parametrize(("fields", "expected"), BAD_FIELDS)
def test_bad_create_match_fields_are_invalid_argument(
    fields: dict[str, Any], expected: str
) -> None:
    request = pb.CreateMatchRequest(**{"game": "dziobaki", "num_players": 2, **fields})
    with (
        running_server() as server,
        grpc.insecure_channel(server.address) as channel,
        pytest.raises(grpc.RpcError) as bad,
    ):
        pb_grpc.GameServiceStub(channel).CreateMatch(request, timeout=WAIT_S)
    assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert expected in (bad.value.details() or "")


def test_bad_ids_and_join_fields_are_invalid_argument() -> None:
    with running_server() as server, grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        for match_id in ("", "m" * 129):
            with pytest.raises(grpc.RpcError) as bad:
                stub.GetMatch(pb.GetMatchRequest(match_id=match_id), timeout=WAIT_S)
            assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        raw = RawSeat(server.address)
        raw.join("c" * 10_000)
        code, message = raw.wait_status(WAIT_S)
        raw.cancel()
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "Join.credential" in message


def test_reflection_serves_v1_and_v1alpha() -> None:
    with running_server() as server, grpc.insecure_channel(server.address) as channel:
        listed = {}
        for version in ("v1", "v1alpha"):
            method = channel.stream_stream(
                f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
                request_serializer=refl_pb2.ServerReflectionRequest.SerializeToString,
                response_deserializer=refl_pb2.ServerReflectionResponse.FromString,
            )
            requests = [
                refl_pb2.ServerReflectionRequest(list_services=""),
                refl_pb2.ServerReflectionRequest(
                    file_containing_symbol=f"grpc.reflection.{version}.ServerReflection"
                ),
            ]
            services, described = method(iter(requests), timeout=WAIT_S)
            listed[version] = {s.name for s in services.list_services_response.service}
            assert described.file_descriptor_response.file_descriptor_proto
    expected = {
        "menagerie.v1.GameService",
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    }
    assert listed["v1"] == listed["v1alpha"] and expected <= listed["v1"]


def _play_raw(raw: RawSeat) -> pb.GameOver | None:
    """Answer every Turn on ``raw`` with index 0 until GameOver (None if the stream ends)."""
    while True:
        message = raw.recv(WAIT_S)
        if message is None:
            return None
        kind = message.WhichOneof("message")
        if kind == "turn":
            raw.move(message.turn.sequence, 0)
        elif kind == "game_over":
            return message.game_over


def _rejoin(address: str, credential: str) -> RawSeat:
    """A new stream for a seat whose old one was just cancelled (the server may not have
    seen the cancellation yet: ALREADY_EXISTS, then try again)."""
    for _ in range(100):
        raw = RawSeat(address)
        raw.join(credential)
        first = raw.recv(WAIT_S)
        if first is not None:
            assert first.WhichOneof("message") == "match_start"
            return raw
        assert raw.code == grpc.StatusCode.ALREADY_EXISTS, raw.details
        raw.cancel()
        time.sleep(0.02)
    raise AssertionError("could not rejoin")


@pytest.mark.parametrize("policy", ["random", "forfeit"])
def test_rejoin_within_the_grace_loses_nothing(policy: str) -> None:
    """Seat 0 drops its stream with a turn pending and rejoins: it gets the same turn
    again, answers it, and plays on; no decision is replaced, nobody forfeits."""
    with running_server(rejoin_grace_s=30.0) as server:
        table = host(server, "zooloretto_mini", 2, seed=2, move_ms=60_000, policy=policy)
        (other,) = play_with_sdk(server, table, [1])
        raw = RawSeat(server.address)
        raw.join(table.credentials[0])
        turn = raw.recv_kind("turn", WAIT_S)
        raw.cancel()
        again = _rejoin(server.address, table.credentials[0])
        resent = again.recv_kind("turn", WAIT_S)
        assert resent.sequence == turn.sequence
        again.move(resent.sequence, 0)
        over = _play_raw(again)
        other.join(WAIT_S)
        again.cancel()
    assert over is not None and over.status == pb.MATCH_STATUS_FINISHED
    assert not any(over.forfeited)
    assert table.record is not None and table.record["events"] == []


def test_no_rejoin_within_the_grace_is_a_disconnect() -> None:
    with running_server(rejoin_grace_s=0.5) as server:
        table = host(server, "zooloretto_mini", 2, seed=2, move_ms=60_000)
        (other,) = play_with_sdk(server, table, [1])
        raw = RawSeat(server.address)
        raw.join(table.credentials[0])
        raw.recv_kind("turn", WAIT_S)
        raw.cancel()
        other.join(WAIT_S)
        assert table.done.wait(WAIT_S)
    assert table.record is not None
    (event,) = [e for e in table.record["events"] if e["kind"] == "disconnect"]
    assert event["seat"] == 0 and "no rejoin within 0.5 s" in event["reason"]


def test_serve_needs_its_admin_token_and_shuts_down_under_load(tmp_path: Any) -> None:
    """A real `arena serve` prints a generated admin token and refuses CreateMatch without
    it; SIGINT with 400 matches (10 of them mid-game, their bots silent) exits 0 without a
    traceback and leaves exactly one record (finished or aborted) per match."""
    import signal
    import subprocess
    import sys
    from pathlib import Path

    records = tmp_path / "records.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "arena.cli",
            "serve",
            "--port",
            "0",
            "--grace",
            "1",
            "--records",
            str(records),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env={k: v for k, v in __import__("os").environ.items() if k != "MENAGERIE_ADMIN_TOKEN"},
    )
    seats: list[RawSeat] = []
    try:
        assert proc.stdout is not None
        address = proc.stdout.readline().split(" on ")[1].split()[0]
        token = proc.stdout.readline().strip().rsplit(" ", 1)[1]
        admin = [("authorization", f"Bearer {token}")]
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            request = pb.CreateMatchRequest(game="zooloretto_mini", num_players=2)
            with pytest.raises(grpc.RpcError) as denied:
                stub.CreateMatch(request, timeout=WAIT_S)
            assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
            create = stub.CreateMatch.future
            calls = [create(request, metadata=admin, timeout=WAIT_S) for _ in range(400)]
            created = [c.result() for c in calls]
        for match in created[:10]:
            for seat in match.seats:
                raw = RawSeat(address)
                raw.join(seat.credential)
                seats.append(raw)
        for raw in seats:
            assert raw.recv_kind("match_start", WAIT_S) is not None
        with grpc.insecure_channel(address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            get = pb.GetMatchRequest(match_id=created[9].match_id)
            deadline = time.monotonic() + WAIT_S
            while (
                stub.GetMatch(get, metadata=admin, timeout=WAIT_S).status != pb.MATCH_STATUS_RUNNING
            ):
                assert time.monotonic() < deadline
                time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        for raw in seats:
            raw.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Traceback" not in err, err[-3000:]
    assert "stopped; 400 match(es) aborted" in out
    lines = records.read_text().splitlines() if records.exists() else []
    aborted = records.with_name("records.aborted.jsonl").read_text().splitlines()
    ids = [json.loads(line)["match_id"] for line in lines + aborted]
    assert sorted(ids) == sorted(m.match_id for m in created)


def test_bench_server_runs_at_a_tiny_size(run_cli: Any) -> None:
    done = run_cli(
        "bench", "server", "--json", "--flood", "50", "--burst", "200", "--sizes", "2",
        "--seconds", "1", "--think-ms", "10", "--repeats", "1", "--max-repeats", "1",
        "--load-client", "python",  # (go would build bots/go: the go group's, not this test's)
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["flood"]["codes"] == {"OK": 50} and report["flood"]["health_n"] > 0
    assert report["burst"]["codes"] == {"NOT_FOUND": 200}
    for k in ("1_process", "2_process"):
        (run,) = report["scale"][k]["runs"]
        assert run["matches"] == 2 and run["n"] > 0 and run["moves_per_s"] > 0
