"""Client process of ``arena bench grpc`` (grpc.aio): prints latency samples as JSON.

Modes:

- ``game``: Zooloretto Mini matches (CreateMatch, both seats played here, random legal
  indices, no think time); each sample is the time from writing a Move's bytes to
  holding the next Turn of that match decoded (one full move exchange: request,
  validation, engine step, chance steps, next observation and legal actions, response,
  decoding); ``client_us``: per Turn, this client's own part (decoding the Turn,
  choosing, encoding the Move). With ``--pingpong-block B``, ``pingpong_us`` too: after
  every B moves, B ping-pong round trips on a stream of the same channel
  (:class:`PingPongs`), so that the two figures of ``bench grpc``'s ratio are taken in
  the same seconds;
- ``sdk``: the same matches, each seat played by the Python SDK (``bots.sdk.run``, a
  random legal index); ``client_us``: per Turn, the SDK's part before the bot's
  ``choose`` (decoding the observation, the legal moves; ``Clock.elapsed_ms``);
- ``load``: ``--matches`` matches kept running at once, each bot thinking
  ``--think-ms`` before it answers; samples as in ``game`` (think time excluded);
  ``--address`` may list several servers (comma-separated): matches go round-robin;
- ``flood``: ``--matches`` CreateMatch calls at once (nobody joins), while a health
  check runs every 10 ms on another connection; samples are the health round trips,
  plus the count of each CreateMatch status code;
- ``burst``: ``--matches`` concurrent GetMatch calls on one channel; the count of each
  status code (the CANCELLED bursts of issue 16).

``--token`` is the admin token of an ``arena serve`` (metadata of CreateMatch/GetMatch).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from menagerie.v1 import game_service_pb2 as pb
from menagerie.v1 import game_service_pb2_grpc as pb_grpc

from arena.server.hub import GC_THRESHOLD
from arena.server.probe import LoadProbe, window

ECHO = "/menagerie.bench.Echo/PingPong"
GIVE_UP_S = 60.0
"""A match slot whose every match failed for this long ends the client (the server is
gone), instead of retrying until its parent's timeout."""
PLAY = "/menagerie.v1.GameService/Play"
"""Played on raw bytes, so that the client times its own decoding and encoding."""
PAYLOAD = bytes(200)
METADATA: list[tuple[str, str]] = []
"""The admin token's metadata (``--token``), sent with CreateMatch and GetMatch."""


@dataclass
class Samples:
    latencies_us: list[float] = field(default_factory=list)
    client_us: list[float] = field(default_factory=list)
    """Per Turn: decoding it, choosing, encoding the Move (this client's part)."""
    collect_from: float = 0.0
    stop_at: float = float("inf")
    wanted: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    """Failed calls by status and details (a match that failed is replaced)."""

    def add(self, seconds: float) -> None:
        if time.perf_counter() >= self.collect_from:
            self.latencies_us.append(seconds * 1e6)

    def add_client(self, seconds: float) -> None:
        if time.perf_counter() >= self.collect_from:
            self.client_us.append(seconds * 1e6)

    def done(self) -> bool:
        if self.wanted and len(self.latencies_us) >= self.wanted:
            return True
        return time.perf_counter() >= self.stop_at


class PingPongs:
    """The raw ping-pong, measured between a match's moves: after every ``block`` moves,
    ``block`` round trips of :data:`PAYLOAD` on the echo stream of the same channel.

    Both figures of a ratio are then taken in the same seconds, in blocks a fraction of a
    second long. Measured one after the other (a ping-pong run, then a game run), they
    were not: on a shared machine the speed changes between runs by more than the ratio's
    margin (the ping-pong alone moved 176-250 us from one run to the next here)."""

    def __init__(self, block: int) -> None:
        self.block = block
        self.latencies_us: list[float] = []
        self.blocks = 0
        """Blocks run (a measurement of N moves has at least N / ``block``)."""
        self._moves = 0
        self._call: grpc.aio.StreamStreamCall[bytes, bytes] | None = None

    def open(self, channel: grpc.aio.Channel) -> None:
        self._call = channel.stream_stream(
            ECHO, request_serializer=None, response_deserializer=None
        )()

    async def after_move(self, last: bool) -> bool:
        """Count a timed move; after every ``block``-th, and after the ``last``, as many
        round trips as moves since the previous block (the match waits: its seat answers
        after them). So there are as many round trips as moves. True if a block ran."""
        self._moves += 1
        due = self._moves - len(self.latencies_us)
        if (due < self.block and not last) or self._call is None:
            return False
        for _ in range(due):
            t0 = time.perf_counter()
            await self._call.write(PAYLOAD)
            await self._call.read()
            self.latencies_us.append((time.perf_counter() - t0) * 1e6)
        self.blocks += 1
        return True


class MatchClock:
    """When the last Move of a match was sent (a Turn after it closes one exchange)."""

    def __init__(self) -> None:
        self.sent: float | None = None


PlayCall = grpc.aio.StreamStreamCall[bytes, bytes]


async def play_seat(
    channel: grpc.aio.Channel,
    credential: str,
    clock: MatchClock,
    samples: Samples,
    think_s: float,
    rng: random.Random,
    pings: PingPongs | None = None,
) -> None:
    call: PlayCall = channel.stream_stream(
        PLAY, request_serializer=None, response_deserializer=None
    )()
    join = pb.PlayRequest(join=pb.Join(credential=credential, bot_name="bench"))
    await call.write(join.SerializeToString())
    while True:
        raw = await call.read()
        if raw is grpc.aio.EOF:
            return
        received = time.perf_counter()
        response = pb.PlayResponse.FromString(cast(bytes, raw))  # read() is typed object
        kind = response.WhichOneof("message")
        if samples.done():
            call.cancel()
            return
        if kind == "turn":
            if clock.sent is not None:
                samples.add(time.perf_counter() - clock.sent)
                clock.sent = None
                if pings is not None and await pings.after_move(samples.done()):
                    received = time.perf_counter()  # (the block is nobody's overhead)
            if think_s:
                await asyncio.sleep(think_s * (0.5 + rng.random()))
                received = time.perf_counter()  # (the think time is nobody's overhead)
            index = rng.randrange(len(response.turn.legal_actions))
            move = pb.Move(sequence=response.turn.sequence, index=index)
            data = pb.PlayRequest(move=move).SerializeToString()
            clock.sent = time.perf_counter()
            samples.add_client(clock.sent - received)
            await call.write(data)
        elif kind == "game_over":
            await call.done_writing()
            return


async def play_matches(
    address: str,
    concurrent: int,
    samples: Samples,
    think_s: float,
    seed: int,
    pings: PingPongs | None = None,
) -> int:
    """Keep ``concurrent`` matches running until ``samples`` is done; returns matches
    played. ``address``: one server, or several comma-separated (round-robin).
    ``pings``: the ping-pong between moves, on the first server's channel."""
    rng = random.Random(seed)
    played = 0
    channels = [grpc.aio.insecure_channel(a) for a in address.split(",")]
    if pings is not None:
        pings.open(channels[0])
    try:
        stubs = [pb_grpc.GameServiceStub(c) for c in channels]

        async def one_match(stub: pb_grpc.GameServiceAsyncStub, channel: grpc.aio.Channel) -> None:
            nonlocal played
            failed_since: float | None = None
            while not samples.done():
                try:
                    created = await stub.CreateMatch(
                        pb.CreateMatchRequest(
                            game="zooloretto_mini", num_players=2, seed=rng.randrange(1 << 30)
                        ),
                        metadata=METADATA,
                    )
                    clock = MatchClock()
                    await asyncio.gather(
                        *(
                            play_seat(channel, s.credential, clock, samples, think_s, rng, pings)
                            for s in created.seats
                        )
                    )
                    played += 1
                    failed_since = None
                except grpc.aio.AioRpcError as exc:  # counted, and the next match starts
                    samples.errors[f"{exc.code().name}: {exc.details()}"[:120]] += 1
                    now = time.perf_counter()
                    failed_since = now if failed_since is None else failed_since
                    if now - failed_since > GIVE_UP_S:  # the server is gone: say so, exit
                        raise SystemExit(
                            f"no match could be played for {GIVE_UP_S:g} s: {exc.code().name}: "
                            f"{exc.details()}"
                        ) from None
                    await asyncio.sleep(0.1)

        await asyncio.gather(
            *(
                one_match(stubs[i % len(stubs)], channels[i % len(channels)])
                for i in range(concurrent)
            )
        )
    finally:
        for channel in channels:
            await channel.close()
    return played


def sdk_matches(address: str, wanted: int, warmup: int, seed: int) -> dict[str, object]:
    """Zooloretto Mini matches whose seats the Python SDK plays (one thread per seat, as
    two bot processes would) until ``wanted`` Turns after ``warmup`` were answered;
    ``client_us``: per Turn, the SDK's time from the Turn's arrival to ``choose``."""
    from bots import sdk

    rng = random.Random(seed)
    client_us: list[float] = []
    lock = threading.Lock()

    class TimedRandom:
        name = "bench-sdk"

        def choose(self, observation: object, legal: list[sdk.LegalMove], clock: sdk.Clock) -> int:
            with lock:
                client_us.append(clock.elapsed_ms() * 1000)
                return rng.randrange(len(legal))

    played = 0
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        while len(client_us) < wanted + warmup:
            created = stub.CreateMatch(
                pb.CreateMatchRequest(
                    game="zooloretto_mini", num_players=2, seed=rng.randrange(1 << 30)
                ),
                metadata=tuple(METADATA),
                timeout=60,
            )
            with ThreadPoolExecutor(max_workers=2) as pool:
                seats = [
                    pool.submit(sdk.run, TimedRandom(), address, s.credential)
                    for s in created.seats
                ]
                for seat in seats:
                    seat.result(timeout=120)
            played += 1
    return {"matches": played, "client_us": client_us[warmup:], "latencies_us": []}


async def probed_load(
    address: str, concurrent: int, samples: Samples, think_s: float, seed: int
) -> tuple[int, dict[str, Any]]:
    """``play_matches`` under a :class:`LoadProbe`: the load generator's own loop delay,
    collector pauses and CPU over the time its samples were taken (if those are as long
    as the latencies, the generator is what is measured, not the server)."""
    probe = LoadProbe()
    probe.start()
    marks: list[dict[str, Any]] = []

    async def mark() -> None:
        for at in (samples.collect_from, samples.stop_at):
            await asyncio.sleep(max(0.0, at - time.perf_counter()))
            marks.append(probe.snapshot())

    marker = asyncio.create_task(mark())
    played = await play_matches(address, concurrent, samples, think_s, seed)
    marker.cancel()
    while len(marks) < 2:
        marks.append(probe.snapshot())
    probe.stop()
    return played, window(marks[0], marks[1])


async def flood(address: str, n: int) -> dict[str, object]:
    """``n`` CreateMatch calls at once; health round trips (us) meanwhile."""
    latencies: list[float] = []
    codes: Counter[str] = Counter()
    async with (
        grpc.aio.insecure_channel(address) as channel,
        grpc.aio.insecure_channel(
            address, options=[("grpc.use_local_subchannel_pool", 1)]
        ) as probe,
    ):
        stub = pb_grpc.GameServiceStub(channel)
        health: Any = health_pb2_grpc.HealthStub(probe)  # (grpc_health ships no stubs)
        await health.Check(health_pb2.HealthCheckRequest(), timeout=30)
        request = pb.CreateMatchRequest(game="zooloretto_mini", num_players=2)

        async def create() -> None:
            try:
                await stub.CreateMatch(request, metadata=METADATA, timeout=120)
                codes["OK"] += 1
            except grpc.aio.AioRpcError as exc:
                codes[exc.code().name] += 1

        async def check_health(stop: asyncio.Event) -> None:
            while not stop.is_set():
                t0 = time.perf_counter()
                await health.Check(health_pb2.HealthCheckRequest(), timeout=120)
                latencies.append((time.perf_counter() - t0) * 1e6)
                await asyncio.sleep(0.01)

        stop = asyncio.Event()
        checker = asyncio.create_task(check_health(stop))
        t0 = time.perf_counter()
        await asyncio.gather(*(create() for _ in range(n)))
        seconds = time.perf_counter() - t0
        await asyncio.sleep(0.5)  # (and right after)
        stop.set()
        await checker
    return {"latencies_us": latencies, "codes": dict(codes), "flood_s": round(seconds, 2)}


async def burst(address: str, n: int) -> dict[str, object]:
    """``n`` concurrent GetMatch calls on one channel: the count of each status code."""
    codes: Counter[str] = Counter()
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)

        async def get() -> None:
            try:
                await stub.GetMatch(
                    pb.GetMatchRequest(match_id="m-none"), metadata=METADATA, timeout=120
                )
                codes["OK"] += 1
            except grpc.aio.AioRpcError as exc:
                codes[exc.code().name] += 1

        await asyncio.gather(*(get() for _ in range(n)))
    return {"codes": dict(codes), "latencies_us": []}


def main() -> None:
    parser = argparse.ArgumentParser(description="arena bench grpc client")
    parser.add_argument("--address", required=True)
    parser.add_argument("--mode", choices=("game", "sdk", "load", "flood", "burst"), required=True)
    parser.add_argument("--token", default="")
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--matches", type=int, default=1)
    parser.add_argument("--think-ms", type=float, default=0.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup-s", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pingpong-block", type=int, default=0)
    args = parser.parse_args()
    # The client's own collector pauses would count as server latency: same settings as
    # the server (arena.server.hub.GC_THRESHOLD), everything loaded so far frozen.
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
    out: dict[str, object] = {}
    if args.token:
        METADATA.append(("authorization", f"Bearer {args.token}"))
    if args.mode == "flood":
        out = asyncio.run(flood(args.address, args.matches))
    elif args.mode == "burst":
        out = asyncio.run(burst(args.address, args.matches))
    elif args.mode == "game":
        samples = Samples(wanted=args.moves + args.warmup)
        pings = PingPongs(args.pingpong_block) if args.pingpong_block > 0 else None
        out["matches"] = asyncio.run(play_matches(args.address, 1, samples, 0.0, args.seed, pings))
        out["latencies_us"] = samples.latencies_us[args.warmup :]
        out["client_us"] = samples.client_us[args.warmup :]
        if pings is not None:
            out["pingpong_us"] = pings.latencies_us[args.warmup :]
            out["pingpong_blocks"] = pings.blocks
    elif args.mode == "sdk":
        out = sdk_matches(args.address, args.moves, args.warmup, args.seed)
    else:
        now = time.perf_counter()
        start = now + args.warmup_s
        samples = Samples(collect_from=start, stop_at=start + args.seconds)
        out["matches"], out["probe"] = asyncio.run(
            probed_load(args.address, args.matches, samples, args.think_ms / 1000, args.seed)
        )
        out["latencies_us"] = samples.latencies_us
        out["errors"] = dict(samples.errors)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
