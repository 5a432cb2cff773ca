"""The game server: health, reflection, CreateMatch/GetMatch, spectators, shutdown."""

from __future__ import annotations

import json
import threading
import time

import grpc
import pytest
from google.protobuf.descriptor_pool import DescriptorPool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)
from menagerie.v1 import game_service_pb2 as pb
from menagerie.v1 import game_service_pb2_grpc as pb_grpc

from arena.match.records import verify_record
from arena.server.app import GameServer
from engine import get_game
from tests.wire.helpers import BotThread, host, play_with_sdk, running_server, server_config
from wire.convert import observation_from_proto

WAIT_S = 120.0
"""The bound of a wait for an event: only reached when the event never comes."""


def _health(address: str, service: str = "") -> int:
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=60).status


def test_health_and_reflection() -> None:
    with running_server() as server:
        assert _health(server.address) == health_pb2.HealthCheckResponse.SERVING
        assert (
            _health(server.address, "menagerie.v1.GameService")
            == health_pb2.HealthCheckResponse.SERVING
        )
        with grpc.insecure_channel(server.address) as channel:
            db = ProtoReflectionDescriptorDatabase(channel)
            services = set(db.get_services())
            assert {"menagerie.v1.GameService", "grpc.health.v1.Health"} <= services
            pool = DescriptorPool(db)
            service = pool.FindServiceByName("menagerie.v1.GameService")
            assert {m.name for m in service.methods} == {
                "Play",
                "Watch",
                "CreateMatch",
                "GetMatch",
                "ListMatches",
            }
            turn = pool.FindMessageTypeByName("menagerie.v1.Turn")
            assert "legal_actions" in turn.fields_by_name
            for game in ("zooloretto_mini", "panorama"):
                name = "".join(p.title() for p in game.split("_")) + "Observation"
                assert pool.FindMessageTypeByName(f"menagerie.v1.{name}").fields


def test_create_match_and_get_match_over_grpc() -> None:
    with running_server() as server, grpc.insecure_channel(server.address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        created = stub.CreateMatch(
            pb.CreateMatchRequest(
                game="panorama",
                num_players=2,
                seed=5,
                options_json="{}",
                time_limit_ms=60_000,
                player_names=["alice", "bob"],
            )
        )
        assert [s.seat for s in created.seats] == [0, 1]
        status = stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id))
        assert status.status == pb.MATCH_STATUS_WAITING
        bots = [BotThread(server.address, s.credential) for s in created.seats]
        for bot in bots:
            bot.join(WAIT_S)
        assert all(b.result is not None and b.result.status == "finished" for b in bots)
        # the bots have their GameOver; the server records the end right after it
        deadline = time.monotonic() + WAIT_S
        status = stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id))
        while status.status != pb.MATCH_STATUS_FINISHED and time.monotonic() < deadline:
            time.sleep(0.01)
            status = stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id))
        assert status.status == pb.MATCH_STATUS_FINISHED
        record = json.loads(status.record_json)
        assert [p["name"] for p in record["players"]] == ["alice", "bob"]
        assert verify_record(record).ok
        with pytest.raises(grpc.RpcError) as bad:
            stub.CreateMatch(pb.CreateMatchRequest(game="chess", num_players=2))
        assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "unknown game 'chess'" in (bad.value.details() or "")
        with pytest.raises(grpc.RpcError) as bad:
            stub.CreateMatch(pb.CreateMatchRequest(game="panorama", num_players=9))
        assert bad.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as missing:
            stub.GetMatch(pb.GetMatchRequest(match_id="m-nope"))
        assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def test_admin_token_guards_create_match() -> None:
    with (
        running_server(admin_token="s3cret") as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        stub = pb_grpc.GameServiceStub(ch)
        request = pb.CreateMatchRequest(game="dziobaki", num_players=1)
        with pytest.raises(grpc.RpcError) as denied:
            stub.CreateMatch(request)
        assert denied.value.code() == grpc.StatusCode.UNAUTHENTICATED
        created = stub.CreateMatch(request, metadata=[("authorization", "Bearer s3cret")])
        assert len(created.seats) == 1


def test_spectator_gets_the_public_view() -> None:
    with running_server() as server:
        table = host(server, "dziobaki", 2, seed=3, move_ms=60_000)
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            stream = stub.Watch(pb.WatchRequest(match_id=table.match_id))
            first = next(stream)
            assert first.match_start.seat == -1 and first.match_start.game == "dziobaki"
            bots = play_with_sdk(server, table)
            updates = []
            over = None
            for message in stream:
                kind = message.WhichOneof("message")
                if kind == "update":
                    updates.append(message.update)
                elif kind == "game_over":
                    over = message.game_over
            for bot in bots:
                bot.join(WAIT_S)
        assert over is not None and over.status == pb.MATCH_STATUS_FINISHED
        assert list(over.ranks) == table.record["result"]["ranks"]
        assert [u.step for u in updates] == list(range(1, len(table.record["steps"]) + 1))
        # Every update is the spectator view: replaying the record gives the same JSON.
        state = get_game("dziobaki").new_game(2)
        game = get_game("dziobaki")
        for update, step in zip(updates, table.record["steps"], strict=True):
            state.apply(game.action_from_json(step["action"]))
            assert observation_from_proto(update.observation)[1] == state.observation(None)
        with grpc.insecure_channel(server.address) as channel:
            stub = pb_grpc.GameServiceStub(channel)
            with pytest.raises(grpc.RpcError) as missing:
                next(stub.Watch(pb.WatchRequest(match_id="m-nope")))
            assert missing.value.code() == grpc.StatusCode.NOT_FOUND


def test_graceful_shutdown_waits_for_running_matches_and_reports_not_serving() -> None:
    """During the grace period health says NOT_SERVING and a running match still
    finishes: its bots only start once NOT_SERVING has been seen, so the order of events
    is fixed, whatever the machine's speed (the grace period is far longer than needed)."""
    records: list[dict] = []
    server = GameServer(
        server_config(stall_ms=60_000, join_timeout_s=WAIT_S), on_record=records.append
    )
    server.start("127.0.0.1", 0)
    address = server.address
    quick = host(server, "zooloretto_mini", 2, seed=1)
    for bot in play_with_sdk(server, quick):
        bot.join(WAIT_S)
    late = host(server, "zooloretto_mini", 2, seed=3)  # its bots join during the grace period
    seen: list[int] = []
    bots: list[BotThread] = []

    def play_late_once_not_serving() -> None:
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            status = _health(address)
            if status != health_pb2.HealthCheckResponse.SERVING:
                seen.append(status)
                break
            time.sleep(0.01)
        bots.extend(play_with_sdk(server, late))

    watcher = threading.Thread(target=play_late_once_not_serving)
    watcher.start()
    aborted = server.stop(grace_s=WAIT_S)
    watcher.join()
    for bot in bots:
        bot.join(WAIT_S)
    assert seen == [health_pb2.HealthCheckResponse.NOT_SERVING], "NOT_SERVING during the grace"
    assert aborted == [], "a match that finishes within the grace period is not aborted"
    assert all(b.result is not None and b.result.status == "finished" for b in bots)
    by_id = {r.get("match_id"): r for r in records}
    assert verify_record(by_id[quick.match_id]).ok and verify_record(by_id[late.match_id]).ok


def test_graceful_shutdown_records_the_matches_it_aborts() -> None:
    """A match that cannot finish (nobody joins) is aborted when the grace period
    expires, with a partial record saying why."""
    records: list[dict] = []
    server = GameServer(server_config(stall_ms=60_000), on_record=records.append)
    server.start("127.0.0.1", 0)
    quick = host(server, "zooloretto_mini", 2, seed=1)
    for bot in play_with_sdk(server, quick):
        bot.join(WAIT_S)
    assert quick.done.wait(WAIT_S)
    stuck = host(server, "zooloretto_mini", 2, seed=2)  # nobody joins: it cannot finish
    aborted = server.stop(grace_s=0.5)
    assert aborted == [stuck]
    by_id = {r.get("match_id"): r for r in records}
    assert verify_record(by_id[quick.match_id]).ok
    partial = by_id[stuck.match_id]
    assert partial["aborted"] is True and "grace period of 0.5 s expired" in partial["reason"]
    assert stuck.status == pb.MATCH_STATUS_ABORTED


def test_hosted_match_mixes_in_process_and_remote_seats() -> None:
    from arena.match.runner import MatchConfig, MatchSpec
    from bots.random_bot import RandomBot

    with running_server() as server:
        table = server.create_match(
            MatchSpec("carson_city_zoo", 2, 8),
            MatchConfig(),
            names=["local", "remote"],
            in_process={0: RandomBot()},
        )
        assert list(table.credentials) == [1]
        (bot,) = play_with_sdk(server, table)
        bot.join(WAIT_S)
        assert table.done.wait(WAIT_S) and verify_record(table.record).ok
        assert bot.result is not None and bot.result.rank in (1, 2)
