"""Fuzzing every RPC of the game server: thousands of random and mutated requests, and
only the documented status codes come back (proto/README.md); the server then still
plays a normal match. Seeded: a failure is reproducible."""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from menagerie.v1 import game_service_pb2 as pb

from arena.match.records import verify_record
from engine import GAMES
from tests.wire.helpers import host, play_with_sdk, running_server

pytestmark = pytest.mark.server

SERVICE = "/menagerie.v1.GameService/"
CALL_S = 1.5
"""Client deadline of one fuzz call (a stream that authenticated stays open until it)."""
SERVER_CODES = {
    grpc.StatusCode.OK,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.ALREADY_EXISTS,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
}
"""What the server may answer (proto/README.md); never UNKNOWN or INTERNAL."""
CLIENT_CODES = {grpc.StatusCode.DEADLINE_EXCEEDED}
"""What this client causes itself (its deadline)."""
CLIENT_WRITE_RACE = (grpc.StatusCode.INTERNAL, "Internal error from Core")
"""The status grpc's aio client gives a stream itself when it writes a message just as
the server ends the stream (``_call.py``: ``set_internal_error``); never sent by a server."""


def _mutate(rng: random.Random, data: bytes) -> bytes:
    """``data`` with random damage: flipped or inserted bytes, a cut, a repeated slice."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        at = rng.randint(0, len(out))
        if op == 0 and out:
            out[min(at, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            out[at:at] = rng.randbytes(rng.randint(1, 8))
        elif op == 2:
            del out[at:]
        elif op == 3:
            out[at:at] = out[: rng.randint(0, 64)]
        else:
            out[at : at + 1] = bytes([rng.choice([0x00, 0x7F, 0x80, 0xFF])])
    return bytes(out)


def _random_json(rng: random.Random, depth: int) -> Any:
    if depth <= 0 or rng.random() < 0.3:
        return rng.choice([0, -1, 2**70, 1.5, "x" * rng.randint(0, 40), None, True, "\u0000"])
    if rng.random() < 0.5:
        return [_random_json(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    return {rng.choice(["players", "variant", "x", ""]): _random_json(rng, depth - 1)}


def _text(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return ""
    if kind == 1:
        return "".join(chr(rng.randint(0, 0x2FFF)) for _ in range(rng.randint(1, 20)))
    if kind == 2:
        return "n" * rng.choice([64, 65, 128, 129, 5000])
    return rng.choice(["seat", "alice", "m-" + "0" * 12])


def _create(rng: random.Random) -> bytes:
    games = [*GAMES, "chess", "", "panorama\x00"]
    request = pb.CreateMatchRequest(
        game=rng.choice(games),
        num_players=rng.choice([0, 1, 2, 3, 4, 5, -1, 2**31 - 1, -(2**31)]),
        seed=rng.randint(-(2**63), 2**63 - 1),
        time_limit_ms=rng.choice([0, 1, 1000, 2**32 - 1]),
        on_failure=rng.choice([0, 1, 2, 3, 99, -1, 2**31 - 1]),  # type: ignore[arg-type]  # any int32 on the wire
        player_names=[_text(rng) for _ in range(rng.choice([0, 1, 2, 3, 40]))],
    )
    shape = rng.randrange(5)
    if shape == 0:
        request.options_json = json.dumps(_random_json(rng, rng.randint(0, 30)))
    elif shape == 1:
        request.options_json = rng.choice(["[" * 2000, '{"a":' * 300, "{", "null", "1e999999"])
    elif shape == 2:
        request.options_json = _text(rng)
    data = request.SerializeToString()
    return _mutate(rng, data) if rng.random() < 0.4 else data


class Fuzzer:
    """Sends fuzz calls with bounded concurrency and counts their status codes."""

    def __init__(self, channel: grpc.aio.Channel, rng: random.Random, known: dict[str, Any]):
        self.channel = channel
        self.rng = rng
        self.known = known
        self.codes: Counter[tuple[str, grpc.StatusCode]] = Counter()
        self.details: dict[grpc.StatusCode, str] = {}
        self.limit = asyncio.Semaphore(64)
        self.write_races = 0

    def _note(self, rpc: str, code: grpc.StatusCode, details: str) -> None:
        self.codes[(rpc, code)] += 1
        self.details.setdefault(code, f"{rpc}: {details}")

    async def unary(self, rpc: str, data: bytes) -> None:
        method = self.channel.unary_unary(SERVICE + rpc)
        async with self.limit:
            try:
                await method(data, timeout=CALL_S)
            except grpc.aio.AioRpcError as exc:
                self._note(rpc, exc.code(), exc.details() or "")
            else:
                self._note(rpc, grpc.StatusCode.OK, "")

    async def stream(self, rpc: str, messages: list[bytes]) -> None:
        async with self.limit:
            write_failed = False
            if rpc == "Watch":
                call: Any = self.channel.unary_stream(SERVICE + rpc)(messages[0], timeout=CALL_S)
            else:
                call = self.channel.stream_stream(SERVICE + rpc)(timeout=CALL_S)
                for message in messages:
                    try:
                        await call.write(message)
                    except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                        write_failed = True
                        break
            try:
                async for _ in call:
                    pass
            except grpc.aio.AioRpcError:
                pass
            code, details = await call.code(), await call.details() or ""
            if write_failed and (code, details) == CLIENT_WRITE_RACE:
                self.write_races += 1  # (the server's own status is lost: not counted)
                return
            self._note(rpc, code, details)

    def watch_request(self) -> bytes:
        rng = self.rng
        match_id = rng.choice([self.known["match_id"], "m-nope", _text(rng)])
        request = pb.WatchRequest(match_id=match_id)
        if rng.random() < 0.5:  # a seat's view: its credential, or a wrong one
            request.credential = rng.choice([self.known["credential"], _text(rng)])
        data = request.SerializeToString()
        return _mutate(rng, data) if rng.random() < 0.7 else data

    def get_request(self) -> bytes:
        data = pb.GetMatchRequest(
            match_id=self.rng.choice([self.known["match_id"], _text(self.rng)])
        ).SerializeToString()
        return _mutate(self.rng, data) if self.rng.random() < 0.6 else self.rng.randbytes(30)

    def list_request(self) -> bytes:
        rng = self.rng
        data = pb.ListMatchesRequest(
            page_size=rng.choice([0, 1, 2, 100, 101, 2**32 - 1]),
            page_token=rng.choice(["", "0", "1", "99999999999999999999", _text(rng)]),
            status=rng.choice([0, 1, 2, 3, 4, 5, -1, 2**31 - 1]),  # type: ignore[arg-type]  # any int32 on the wire
        ).SerializeToString()
        return _mutate(rng, data) if rng.random() < 0.5 else data

    def play_messages(self) -> list[bytes]:
        rng = self.rng
        join = pb.Join(
            credential=rng.choice([self.known["credential"], _text(rng)]),
            bot_name=_text(rng),
            match_id=rng.choice(["", self.known["match_id"], _text(rng)]),
        )
        if rng.random() < 0.3:
            join.seat = rng.choice([0, 1, -1, 99])
        first = pb.PlayRequest(join=join).SerializeToString()
        first = _mutate(rng, first) if rng.random() < 0.6 else first
        moves = [
            _mutate(
                rng,
                pb.PlayRequest(
                    move=pb.Move(sequence=rng.randint(0, 9), index=rng.randint(0, 9))
                ).SerializeToString(),
            )
            for _ in range(rng.randint(0, 5))
        ]
        return [first, *moves]


async def _fuzz(address: str, known: dict[str, Any]) -> Fuzzer:
    rng = random.Random(16)
    async with grpc.aio.insecure_channel(address) as channel:
        fuzzer = Fuzzer(channel, rng, known)
        calls = [fuzzer.unary("CreateMatch", _create(rng)) for _ in range(1500)]
        calls += [fuzzer.unary("GetMatch", fuzzer.get_request()) for _ in range(1000)]
        calls += [fuzzer.unary("ListMatches", fuzzer.list_request()) for _ in range(300)]
        calls += [fuzzer.stream("Watch", [fuzzer.watch_request()]) for _ in range(300)]
        calls += [fuzzer.stream("Play", fuzzer.play_messages()) for _ in range(300)]
        rng.shuffle(calls)
        await asyncio.gather(*calls)
    return fuzzer


def test_fuzzed_requests_get_only_documented_codes_and_the_server_plays_on() -> None:
    with running_server(join_first_s=1.0, flood_rate=5.0) as server:
        target = host(server, "zooloretto_mini", 2, seed=7)
        known = {"match_id": target.match_id, "credential": target.credentials[0]}
        fuzzer = asyncio.run(_fuzz(server.address, known))
        total = sum(fuzzer.codes.values())
        assert total + fuzzer.write_races == 3400 and fuzzer.write_races < 30
        unexpected = {
            code: fuzzer.details[code]
            for (_rpc, code) in fuzzer.codes
            if code not in SERVER_CODES | CLIENT_CODES
        }
        assert unexpected == {}, unexpected
        assert fuzzer.codes[("CreateMatch", grpc.StatusCode.INVALID_ARGUMENT)] > 100
        assert fuzzer.codes[("CreateMatch", grpc.StatusCode.OK)] > 0
        assert fuzzer.codes[("ListMatches", grpc.StatusCode.INVALID_ARGUMENT)] > 10
        assert fuzzer.codes[("ListMatches", grpc.StatusCode.OK)] > 10
        with grpc.insecure_channel(server.address) as channel:
            health = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=60
            )
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        normal = host(server, "panorama", 2, seed=3)
        for bot in play_with_sdk(server, normal):
            bot.join(60)
        assert normal.done.wait(60) and normal.record is not None
        assert verify_record(normal.record).ok and normal.record["events"] == []
