"""Protocol errors (issue 7, item 4): status codes and messages, nothing else disturbed.

Stream-ending errors are asserted on the stream's gRPC status; recoverable ones on the
in-stream ``Error`` message (code + message), the stream staying usable. Meanwhile a
background match between two SDK bots runs on the same server and must finish cleanly,
and the server must stay healthy.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from menagerie.v1 import game_service_pb2 as pb

from arena.server.app import GameServer
from arena.server.table import Table
from tests.wire.helpers import BotThread, host, play_with_sdk, running_server
from tests.wire.rawclient import RawSeat
from wire.convert import action_to_proto

WAIT_S = 120.0
"""The bound of a wait for an event: only reached when the event never comes."""


class SlowRandom:
    """A random SDK bot that takes a little time, so the background match overlaps."""

    def __init__(self, seed: int) -> None:
        import random

        self.rng = random.Random(seed)

    def choose(self, observation: object, legal: list, clock: object) -> int:
        import time

        time.sleep(0.005)
        return self.rng.randrange(len(legal))


@pytest.fixture(scope="module")
def server() -> Iterator[GameServer]:
    with running_server(stall_ms=60_000) as server:
        background = host(server, "zooloretto_mini", 2, seed=99, move_ms=60_000)
        bots = [BotThread(server.address, background.credentials[s], SlowRandom(s)) for s in (0, 1)]
        yield server
        for bot in bots:
            bot.join(WAIT_S)
        assert background.done.wait(WAIT_S)
        assert background.record is not None
        assert background.record["events"] == [], "the background match was disturbed"
        assert all(b.result is not None and b.result.status == "finished" for b in bots)
        assert _healthy(server)


def _healthy(server: GameServer) -> bool:
    with grpc.insecure_channel(server.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="menagerie.v1.GameService"))
        return reply.status == health_pb2.HealthCheckResponse.SERVING


def _joined(server: GameServer, table: Table, seat: int = 0) -> RawSeat:
    raw = RawSeat(server.address)
    raw.join(table.credentials[seat])
    assert raw.recv_kind("match_start").seat == seat
    return raw


def _first_turn(server: GameServer, **kw: object) -> tuple[Table, RawSeat, pb.Turn]:
    """A match whose seat 0 is this raw client (start player fixed) and seat 1 a bot."""
    table = host(server, options={"start_player": 0}, **kw)  # type: ignore[arg-type]  # kw typed object
    play_with_sdk(server, table, seats=[1])
    raw = _joined(server, table)
    turn = raw.recv_kind("turn")
    assert turn is not None
    return table, raw, turn


def _error(raw: RawSeat) -> pb.Error:
    error = raw.recv_kind("error")
    assert error is not None, f"stream ended: {raw.wait_status()}"
    return error


# -- errors that end the stream -------------------------------------------------------


def test_wrong_credential_is_unauthenticated(server: GameServer) -> None:
    raw = RawSeat(server.address)
    raw.join("not-a-credential")
    assert raw.wait_status() == (
        grpc.StatusCode.UNAUTHENTICATED,
        "unknown credential: it opens no seat here",
    )


def test_missing_credential_is_unauthenticated(server: GameServer) -> None:
    raw = RawSeat(server.address)
    raw.join("")
    code, message = raw.wait_status()
    assert code == grpc.StatusCode.UNAUTHENTICATED and "missing credential" in message


def test_move_before_join_is_unauthenticated(server: GameServer) -> None:
    raw = RawSeat(server.address)
    raw.move(1, index=0)
    code, message = raw.wait_status()
    assert code == grpc.StatusCode.UNAUTHENTICATED and "first message must be a Join" in message


def test_acting_for_another_seat_is_permission_denied(server: GameServer) -> None:
    table = host(server)
    raw = RawSeat(server.address)
    raw.join(table.credentials[0], seat=1)
    code, message = raw.wait_status()
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert message == f"the credential is for seat 0 of match {table.match_id}, not seat 1"
    raw = RawSeat(server.address)
    raw.join(table.credentials[0], match_id="m-other")
    code, message = raw.wait_status()
    assert code == grpc.StatusCode.PERMISSION_DENIED and "not m-other" in message
    table.request_abort("test over")


def test_second_stream_for_a_seat_already_exists(server: GameServer) -> None:
    table = host(server)
    first = _joined(server, table)
    second = RawSeat(server.address)
    second.join(table.credentials[0])
    code, message = second.wait_status()
    assert code == grpc.StatusCode.ALREADY_EXISTS and "already connected" in message
    first.cancel()
    table.request_abort("test over")


def test_join_after_game_over_is_failed_precondition(server: GameServer) -> None:
    table = host(server)
    for bot in play_with_sdk(server, table):
        bot.join(WAIT_S)
    assert table.done.wait(WAIT_S)
    raw = RawSeat(server.address)
    raw.join(table.credentials[0])
    assert raw.wait_status() == (
        grpc.StatusCode.FAILED_PRECONDITION,
        f"match {table.match_id} is over",
    )


def test_oversize_message_is_resource_exhausted(server: GameServer) -> None:
    table, raw, turn = _first_turn(server)
    huge = pb.Move(sequence=turn.sequence)
    huge.action.zooloretto_mini.place.tile = "x" * 70_000
    raw.send(pb.PlayRequest(move=huge))
    code, message = raw.wait_status()
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "larger than max" in message
    assert table.done.wait(WAIT_S)
    events = [e for e in table.record["events"] if e["seat"] == 0]
    assert events[0]["kind"] == "disconnect" and "64 KB" in events[0]["reason"]
    assert table.record["standing"]["forfeited"] == [0]


def test_flooding_is_resource_exhausted(server: GameServer) -> None:
    table, raw, turn = _first_turn(server)
    for _ in range(60):
        raw.move(turn.sequence + 1000, index=0)
    code, message = raw.wait_status()
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert message.startswith("flooding: more than 20 messages that answer no turn")
    assert table.done.wait(WAIT_S)
    assert table.record["events"][0]["kind"] == "disconnect"
    assert "flooding" in table.record["events"][0]["reason"]


# -- recoverable errors (in-stream Error; the stream goes on) ----------------------------


def test_out_of_turn_is_failed_precondition(server: GameServer) -> None:
    table, raw, turn = _first_turn(server)
    raw.move(turn.sequence + 5, index=0)
    error = _error(raw)
    assert error.code == pb.ERROR_CODE_FAILED_PRECONDITION
    assert error.message == (
        f"out of turn: no turn {turn.sequence + 5} was issued; the pending turn is {turn.sequence}"
    )
    raw.move(turn.sequence, index=0)  # the pending turn is still answerable
    nxt = raw.recv_kind("turn")
    assert nxt is not None and nxt.sequence > turn.sequence
    raw.cancel()
    table.request_abort("test over")


def test_stale_sequence_is_aborted_and_resend_is_idempotent(server: GameServer) -> None:
    table, raw, turn = _first_turn(server)
    raw.move(turn.sequence, index=0)
    nxt = raw.recv_kind("turn")
    assert nxt is not None
    # An exact resend of the accepted move is acknowledged again, not applied twice.
    raw.move(turn.sequence, index=0)
    again = raw.recv_kind("move_accepted")
    assert again.sequence == turn.sequence and again.duplicate and again.index == 0
    # The same sequence with a different move is stale.
    raw.move(turn.sequence, index=1)
    error = _error(raw)
    assert error.code == pb.ERROR_CODE_ABORTED
    assert error.message == f"sequence {turn.sequence} was already answered with a different move"
    raw.move(nxt.sequence, index=0)
    third = raw.recv_kind("turn")
    assert third is not None
    # A resend of an older accepted move is stale.
    raw.move(turn.sequence, index=0)
    error = _error(raw)
    assert error.code == pb.ERROR_CODE_ABORTED
    assert error.message.startswith(f"sequence {turn.sequence} is stale: that turn is closed")
    raw.cancel()
    table.request_abort("test over")
    assert table.done.wait(WAIT_S)
    draws = [s for s in table.record["steps"] if s["seat"] == 0]
    assert len(draws) >= 2


@pytest.mark.parametrize(
    ("make_move", "expected"),
    [
        (
            lambda seq: pb.Move(sequence=seq),
            "malformed move: it holds neither an index nor an action",
        ),
        (lambda seq: pb.Move(sequence=seq, index=999), "index 999 is out of range 0..0"),
        (
            lambda seq: pb.Move(
                sequence=seq, action=action_to_proto("dziobaki", {"kind": "reveal", "tile": "D01"})
            ),
            "malformed action: it is a dziobaki action, this match plays zooloretto_mini",
        ),
        (
            lambda seq: pb.Move(
                sequence=seq,
                action=action_to_proto("zooloretto_mini", {"kind": "load", "truck": "T9"}),
            ),
            "malformed action: load.truck must be one of 'T1', 'T2', 'T3', 'T4', 'T5', got 'T9'",
        ),
        (
            lambda seq: pb.Move(
                sequence=seq,
                action=action_to_proto("zooloretto_mini", {"kind": "take_truck", "truck": "T1"}),
            ),
            "illegal action take_truck T1: not one of the 1 legal actions (kinds now: draw)",
        ),
    ],
    ids=["empty", "index-out-of-range", "other-game", "bad-field", "not-legal"],
)
def test_bad_move_is_invalid_argument_and_counts_as_illegal(
    server: GameServer, make_move: object, expected: str
) -> None:
    table, raw, turn = _first_turn(server)
    assert len(turn.legal_actions) == 1  # round 1 always starts with the forced draw
    raw.send(pb.PlayRequest(move=make_move(turn.sequence)))  # type: ignore[operator]  # a parametrized callable
    error = _error(raw)
    assert error.code == pb.ERROR_CODE_INVALID_ARGUMENT
    assert error.message == f"{expected}; seat 0 forfeits"
    assert error.forfeited and error.sequence == turn.sequence
    assert table.done.wait(WAIT_S)
    first = table.record["events"][0]
    assert (first["seat"], first["kind"], first["reason"]) == (0, "illegal", expected)
    assert table.record["standing"]["ranks"][0] == 2
    assert raw.recv_kind("game_over").status == pb.MATCH_STATUS_FINISHED


def test_garbage_bytes_are_invalid_argument(server: GameServer) -> None:
    table, raw, turn = _first_turn(server)
    raw.send(b"\xff\xff\xff\xff not protobuf")
    error = _error(raw)
    assert error.code == pb.ERROR_CODE_INVALID_ARGUMENT
    assert error.message == "malformed message: not a PlayRequest"
    raw.move(turn.sequence, index=0)  # still playing
    assert raw.recv_kind("turn") is not None
    raw.cancel()
    table.request_abort("test over")


def test_second_join_on_a_stream_is_failed_precondition(server: GameServer) -> None:
    table, raw, _turn = _first_turn(server)
    raw.join(table.credentials[0])
    error = _error(raw)
    assert error.code == pb.ERROR_CODE_FAILED_PRECONDITION and "already joined" in error.message
    raw.cancel()
    table.request_abort("test over")
