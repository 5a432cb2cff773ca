"""``arena bench grpc``: what the wire protocol costs, and how the server holds load.

The game server runs in this process (as in ``arena play``), with the settings of
``arena serve`` (switch interval, collector thresholds and freeze); clients are separate
processes (``arena.bench.grpc_client``, grpc.aio, same collector settings) so they do not
share its GIL.

1. ``ping_pong``: round trip of a raw 200-byte message on a bidi stream of the same
   server (an echo method registered next to GameService for the benchmark).
2. ``move_exchange``: in real Zooloretto Mini matches hosted by the server, the time
   from a bot sending its Move to receiving the next Turn: request parsing, sequence
   and legality checks, the engine step (and chance steps), the next observation and
   legal actions as typed messages, and the response. Goal: median and p99 within
   1.5x of the ping-pong.
3. ``load``: ``--matches`` matches at once with bots thinking ``--think-ms`` per move
   (randomised 0.5x-1.5x); p99 of the same exchange latency (think time excluded).
   Goal: 200 matches with p99 within 2x of the single-match p99.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import grpc

from arena.errors import UserError
from arena.server.app import GameServer
from arena.server.hub import GC_THRESHOLD, SWITCH_INTERVAL_S, ServerConfig
from arena.stats import percentile

RATIO_GOAL = 1.5
LOAD_GOAL = 2.0
LOAD_PROCESSES = 2


async def _echo(
    request_iterator: AsyncIterator[bytes], context: grpc.aio.ServicerContext[bytes, bytes]
) -> None:
    """The raw ping-pong: read/write on a bidi stream exactly like the Play handler."""
    while True:
        raw = await context.read()
        if raw is grpc.aio.EOF:  # type: ignore[comparison-overlap]  # the stubs' ServicerContext.read() omits EOF
            return
        await context.write(raw)


def echo_handler() -> grpc.GenericRpcHandler:
    method: grpc.RpcMethodHandler[bytes, bytes] = grpc.stream_stream_rpc_method_handler(
        _echo, request_deserializer=None, response_serializer=None
    )
    return grpc.method_handlers_generic_handler("menagerie.bench.Echo", {"PingPong": method})


def summary(latencies_us: list[float]) -> dict[str, float]:
    if not latencies_us:
        raise UserError("the benchmark collected no samples")
    return {
        "n": len(latencies_us),
        "median_us": round(percentile(latencies_us, 50), 1),
        "p99_us": round(percentile(latencies_us, 99), 1),
    }


def _clients(address: str, runs: list[list[str]], timeout_s: float) -> list[dict[str, Any]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "arena.bench.grpc_client", "--address", address, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in runs
    ]
    out = []
    for proc in procs:
        try:
            stdout, stderr = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise UserError("a benchmark client did not finish in time") from None
        if proc.returncode != 0:
            last = " | ".join(stderr.strip().splitlines()[-6:]) or "?"
            raise UserError(f"a benchmark client failed: {last}")
        out.append(json.loads(stdout))
    return out


def run_bench(moves: int, matches: int, think_ms: float, seconds: float) -> dict[str, Any]:
    config = ServerConfig(
        stall_ms=120_000,
        join_timeout_s=60,
        switch_interval_s=SWITCH_INTERVAL_S,
        gc_threshold=GC_THRESHOLD,
    )
    previous = sys.getswitchinterval()
    previous_gc = gc.get_threshold()
    server = GameServer(config, extra_handlers=[echo_handler()])
    server.start("127.0.0.1", 0)
    try:
        address = server.address
        (pp,) = _clients(address, [["--mode", "pingpong", "--moves", str(moves)]], 300)
        (game,) = _clients(address, [["--mode", "game", "--moves", str(moves)]], 300)
        k = LOAD_PROCESSES
        per_proc = [matches // k + (i < matches % k) for i in range(k)]
        load_runs = [
            [
                "--mode", "load", "--matches", str(m), "--think-ms", str(think_ms),
                "--seconds", str(seconds), "--warmup-s", str(min(3.0, seconds)),
                "--seed", str(i),
            ]
            for i, m in enumerate(per_proc)
            if m > 0
        ]  # fmt: skip
        loads = _clients(address, load_runs, seconds + 120)
    finally:
        server.stop(grace_s=0.0)
        sys.setswitchinterval(previous)
        gc.set_threshold(*previous_gc)
        gc.unfreeze()
    ping = summary(pp["latencies_us"])
    exchange = summary(game["latencies_us"])
    load = summary([x for run in loads for x in run["latencies_us"]])
    return {
        "ping_pong": {**ping, "payload_bytes": 200},
        "move_exchange": {**exchange, "game": "zooloretto_mini", "players": 2},
        "ratio_median": round(exchange["median_us"] / ping["median_us"], 2),
        "ratio_p99": round(exchange["p99_us"] / ping["p99_us"], 2),
        "ratio_goal": RATIO_GOAL,
        "load": {
            **load,
            "matches": matches,
            "think_ms": think_ms,
            "seconds": seconds,
            "moves_per_s": round(load["n"] / seconds, 1),
            "p99_vs_single": round(load["p99_us"] / exchange["p99_us"], 2),
            "goal": LOAD_GOAL,
        },
    }


def print_report(report: dict[str, Any]) -> None:
    pp, ex, ld = report["ping_pong"], report["move_exchange"], report["load"]
    print(f"raw ping-pong (200 B)   median {pp['median_us']:8.1f} us   p99 {pp['p99_us']:8.1f} us")
    print(f"move exchange (ZM, 2p)  median {ex['median_us']:8.1f} us   p99 {ex['p99_us']:8.1f} us")
    ok = "ok" if max(report["ratio_median"], report["ratio_p99"]) <= RATIO_GOAL else "over goal"
    print(
        f"ratio                   median {report['ratio_median']:8.2f}x     "
        f"p99 {report['ratio_p99']:8.2f}x   (goal <= {RATIO_GOAL}x: {ok})"
    )
    ok = "ok" if ld["p99_vs_single"] <= LOAD_GOAL else "over goal"
    print(
        f"{ld['matches']} concurrent matches (think {ld['think_ms']:g} ms): "
        f"median {ld['median_us']:.1f} us, p99 {ld['p99_us']:.1f} us = "
        f"{ld['p99_vs_single']:.2f}x single-match p99 (goal <= {LOAD_GOAL}x: {ok}); "
        f"{ld['moves_per_s']} moves/s"
    )
