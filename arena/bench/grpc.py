"""``arena bench grpc``: what the wire protocol costs, on which side, and how the server
holds load.

The game server runs in this process (as in ``arena play``), with the settings of
``arena serve`` (switch interval, collector thresholds and freeze) and its per-move
timings on (:class:`arena.server.timing.MoveTimes`); clients are separate processes
(``arena.bench.grpc_client``, grpc.aio, same collector settings; the SDK; the example
bots) so they do not share its GIL.

1. ``ping_pong``: round trip of a raw 200-byte message on a bidi stream of the same
   server (an echo method registered next to GameService for the benchmark).
2. ``move_exchange``: in real Zooloretto Mini matches hosted by the server, played by
   a protobuf client (``grpc_client --mode game``), the time from the bot writing its
   Move to holding the next Turn decoded: request parsing, sequence and legality
   checks, the engine step (and chance steps), the next observation and legal actions
   as typed messages, the response and its decoding. Goal: median and p99 within
   1.5x of the ping-pong. Both are measured by one client on one channel, interleaved
   in blocks of :data:`PINGPONG_BLOCK` (a block of round trips after every block of
   moves), so a change of the machine's speed moves both; repeated until the median
   ratio is stable (:mod:`arena.bench.report`).
3. ``clients``: where a move goes, per client: the Python protobuf client, the Python
   SDK (``bots.sdk``), the Node bot (``bots/node``) and the Go bot (``bots/go``), each
   the client of the same matches. Per move: ``cycle`` (on the server: from one Turn
   of a match handed to gRPC to the next), ``server`` (on the server: from reading the
   Move to handing the next Turn to gRPC), ``client`` (the client's own report: decoding
   the Turn, choosing, encoding the Move; the Node and Go bots report none) and
   ``transport``, the remainder (both gRPC stacks, the sockets, the scheduling).
   So a regression points at its side. Within ``server``: ``step`` (the match's step:
   the move applied and recorded, chance steps, the next observation and legal actions
   from the engine) and ``Turn`` (encoding the next Turn and handing it to gRPC: at
   once, as the next seat's stream waits for it; gRPC's send counts as transport); the
   rest is parsing the Move and its checks.
4. ``load``: ``--matches`` matches at once with bots thinking ``--think-ms`` per move
   (randomised 0.5x-1.5x); p99 of the same exchange latency (think time excluded),
   and its ratio to the exchange's p99 above. That exchange has no think time (a hot
   server), so the ratio is not the concurrency goal's: ``arena bench server`` measures
   that one, against bots with the same think time on an idle server.
"""

from __future__ import annotations

import gc
import json
import shutil
import statistics
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc

from arena.bench import report
from arena.errors import UserError
from arena.match.runner import MatchConfig, MatchSpec
from arena.server.app import GameServer
from arena.server.hub import GC_THRESHOLD, SWITCH_INTERVAL_S, ServerConfig
from arena.server.timing import MoveTimes
from arena.stats import percentile

RATIO_GOAL = 1.5
PINGPONG_BLOCK = 100
"""Moves, then ping-pong round trips, per block of the interleaved measurement (a
fraction of a second each: the pairs see the same machine)."""
LOAD_PROCESSES = 2
CLIENTS = ("python", "sdk", "node", "go")
"""The clients of ``--clients``: the protobuf client, the SDK, the example bots."""
REPO = Path(__file__).resolve().parents[2]
NODE_BOT = REPO / "bots" / "node"
GO_BOT = REPO / "bots" / "go" / "bin" / "menagerie-go-bot"
BOT_TIMEOUT_S = 120.0
"""How long one match of an example bot may take (a safety net: seconds normally)."""


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


def _clients(
    address: str, runs: list[list[str]], timeout_s: float, command: list[str] | None = None
) -> list[dict[str, Any]]:
    """One client process per run (``command``, default the Python client
    :mod:`arena.bench.grpc_client`), each printing one JSON object: those objects."""
    command = command or [sys.executable, "-m", "arena.bench.grpc_client"]
    procs = [
        subprocess.Popen(
            [*command, "--address", address, *args],
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


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 1) if values else None


def split_row(client: str, times: MoveTimes, client_us: list[float] | None) -> dict[str, Any]:
    """One client's per-move split (medians, us): ``cycle`` = ``server`` + ``client`` +
    ``transport``; without the client's report, ``client_and_transport`` instead."""
    if not times.cycle_us:
        raise UserError(f"the {client} client played no move the server could time")
    cycle = statistics.median(times.cycle_us)
    server = statistics.median(times.server_us)
    row: dict[str, Any] = {
        "client": client,
        "moves": len(times.cycle_us),
        "cycle_us": round(cycle, 1),
        "server_us": round(server, 1),
        "server_handle_us": _median(times.handle_us),
        "server_step_us": _median(times.step_us),
        "server_turn_us": _median(times.turn_us),
        "client_us": None,
        "transport_us": None,
        "client_and_transport_us": round(cycle - server, 1),
    }
    if client_us:
        own = statistics.median(client_us)
        row["client_us"] = round(own, 1)
        row["transport_us"] = round(cycle - server - own, 1)
    return row


class Bench:
    """One run of ``arena bench grpc`` against a game server in this process."""

    def __init__(self, server: GameServer, times: MoveTimes, moves: int) -> None:
        self.server = server
        self.times = times
        self.moves = moves
        self.runs: list[dict[str, Any]] = []
        """Per repeat: the ping-pong, the exchange and the protobuf client's split."""

    def repeat(self) -> float:
        """One measurement of the protobuf client, the ping-pong interleaved; returns the
        median ratio."""
        self.times.clear()
        args = [
            "--mode", "game", "--moves", str(self.moves), "--pingpong-block", str(PINGPONG_BLOCK),
        ]  # fmt: skip
        (game,) = _clients(self.server.address, [args], 300)
        ping = {**summary(game["pingpong_us"]), "blocks": game["pingpong_blocks"]}
        exchange = summary(game["latencies_us"])
        run: dict[str, Any] = {
            "ping_pong": ping,
            "move_exchange": exchange,
            "ratio_median": exchange["median_us"] / ping["median_us"],
            "ratio_p99": exchange["p99_us"] / ping["p99_us"],
            "split": split_row("python", self.times, game["client_us"]),
        }
        self.runs.append(run)
        return float(run["ratio_median"])

    def sdk(self) -> dict[str, Any]:
        self.times.clear()
        args = ["--mode", "sdk", "--moves", str(self.moves), "--warmup", "50"]
        (got,) = _clients(self.server.address, [args], 600)
        return split_row("sdk", self.times, got["client_us"])

    def bot(self, client: str, command: list[str]) -> dict[str, Any]:
        """``--moves`` moves (at least) of matches whose two seats are ``command`` processes."""
        self.times.clear()
        seed = 0
        while len(self.times.cycle_us) < self.moves:
            seed += 1
            table = self.server.create_match(
                MatchSpec("zooloretto_mini", 2, seed, {}), MatchConfig(), [client, client]
            )
            procs = [
                subprocess.Popen(
                    [*command, "--address", self.server.address, "--credential", secret,
                     "--seed", str(seed * 2 + s)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    text=True,
                )
                for s, secret in sorted(table.credentials.items())
            ]  # fmt: skip
            for proc in procs:
                try:
                    _, stderr = proc.communicate(timeout=BOT_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    for p in procs:
                        p.kill()
                        p.communicate()
                    raise UserError(f"the {client} bot did not finish a match in time") from None
                if proc.returncode != 0:
                    last = " | ".join(stderr.strip().splitlines()[-4:]) or "?"
                    raise UserError(f"the {client} bot failed: {last}")
        return split_row(client, self.times, None)


def bot_command(client: str) -> tuple[list[str] | None, str]:
    """The command line of an example bot, or None and what to do to build it."""
    if client == "node":
        if shutil.which("node") is None:
            return None, "Node.js is not installed"
        if not (NODE_BOT / "node_modules").is_dir():
            return None, "not built: run `npm ci` in bots/node"
        return ["node", str(NODE_BOT / "bot.js")], ""
    if not GO_BOT.is_file():
        return None, "not built: run `make -C bots/go`"
    return [str(GO_BOT)], ""


def parse_clients(text: str) -> list[str]:
    """``--clients`` (comma-separated, from :data:`CLIENTS`); a UserError names the bad one.

    >>> parse_clients("python, go")
    ['python', 'go']
    """
    names = [c.strip() for c in text.split(",") if c.strip()]
    for name in names:
        if name not in CLIENTS:
            raise UserError(f"--clients: unknown client {name!r}; known: {', '.join(CLIENTS)}")
    if "python" not in names:
        names.insert(0, "python")  # the exchange and its ratio are measured with it
    return names


def _load(address: str, matches: int, think_ms: float, seconds: float) -> list[dict[str, Any]]:
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
    return _clients(address, load_runs, seconds + 120)


def run_bench(
    moves: int,
    matches: int,
    think_ms: float,
    seconds: float,
    *,
    clients: str = ",".join(CLIENTS),
    repeats: int = report.WINDOW,
    max_repeats: int = report.MAX_REPEATS,
    as_json: bool = False,
    earlier: Any = None,
) -> dict[str, Any]:
    """Measure (see the module docstring); print text or JSON (``machine``, the figures,
    and the change against ``earlier``, an earlier run's JSON, when given)."""
    names = parse_clients(clients)
    info = report.machine()
    say: Callable[[str], None] = (lambda _text: None) if as_json else print_flush
    say(report.header_line(info))
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
    times = MoveTimes()
    server.hub.move_times = times
    out: dict[str, Any] = {"machine": info}
    try:
        bench = Bench(server, times, moves)
        verdict, _ = report.until_stable(bench.repeat, repeats, max(repeats, max_repeats))
        out.update(_exchange_figures(bench.runs, verdict))
        say_exchange(out, verdict, say)
        rows: list[dict[str, Any]] = [out.pop("python_split")]
        for name in names[1:]:
            if name == "sdk":
                rows.append(bench.sdk())
                continue
            command, why = bot_command(name)
            if command is None:
                rows.append({"client": name, "skipped": why})
            else:
                rows.append(bench.bot(name, command))
        out["clients"] = {row["client"]: row for row in rows}  # (--compare lines up by name)
        for row in rows:
            say(split_line(row))
        if matches > 0:
            loads = _load(server.address, matches, think_ms, seconds)
            out["load"] = _load_figures(loads, matches, think_ms, seconds, out)
            say(load_line(out["load"]))
    finally:
        server.hub.move_times = None
        server.stop(grace_s=0.0)
        sys.setswitchinterval(previous)
        gc.set_threshold(*previous_gc)
        gc.unfreeze()
    report.finish(out, earlier, as_json)
    return out


def print_flush(text: str) -> None:
    print(text, flush=True)


def _exchange_figures(runs: list[dict[str, Any]], verdict: report.Stability) -> dict[str, Any]:
    """The medians over the repeats (the split row of the protobuf client included)."""
    merged = report.median_figures(runs)
    split = merged.pop("split")
    split["client"] = "python"
    ping, exchange = merged["ping_pong"], merged["move_exchange"]
    return {
        "ping_pong": {**ping, "payload_bytes": 200},
        "move_exchange": {**exchange, "game": "zooloretto_mini", "players": 2},
        "ratio_median": round(verdict.median, 2),
        "ratio_p99": round(merged["ratio_p99"], 2),
        "ratio_goal": RATIO_GOAL,
        "stability": verdict.as_json(),
        "python_split": split,
    }


def _load_figures(
    loads: list[dict[str, Any]], matches: int, think_ms: float, seconds: float, out: Any
) -> dict[str, Any]:
    load = summary([x for run in loads for x in run["latencies_us"]])
    return {
        **load,
        "matches": matches,
        "think_ms": think_ms,
        "seconds": seconds,
        "moves_per_s": round(load["n"] / seconds, 1),
        "p99_vs_single": round(load["p99_us"] / out["move_exchange"]["p99_us"], 2),
    }


def say_exchange(
    out: dict[str, Any], verdict: report.Stability, say: Callable[[str], None]
) -> None:
    pp, ex = out["ping_pong"], out["move_exchange"]
    say(f"raw ping-pong (200 B)   median {pp['median_us']:8.1f} us   p99 {pp['p99_us']:8.1f} us")
    say(f"move exchange (ZM, 2p)  median {ex['median_us']:8.1f} us   p99 {ex['p99_us']:8.1f} us")
    ok = "ok" if max(out["ratio_median"], out["ratio_p99"]) <= RATIO_GOAL else "over goal"
    say(
        f"ratio                   median {out['ratio_median']:8.2f}x     "
        f"p99 {out['ratio_p99']:8.2f}x   (goal <= {RATIO_GOAL}x: {ok}; "
        f"{verdict.repeats} repeats){verdict.note()}"
    )
    say("per move (medians): cycle = server + client + transport")


def split_line(row: dict[str, Any]) -> str:
    """One client's split, as text."""
    name = f"{row['client']:<7}"
    if "skipped" in row:
        return f"  {name} skipped: {row['skipped']}"
    head = f"  {name} cycle {row['cycle_us']:7.1f} us = server {row['server_us']:6.1f}"
    if row["client_us"] is None:
        both = row["client_and_transport_us"]
        line = f"{head} + client and transport {both:6.1f} (the bot reports no client time)"
    else:
        line = f"{head} + client {row['client_us']:6.1f} + transport {row['transport_us']:6.1f}"
    step, turn = row.get("server_step_us"), row.get("server_turn_us")
    if step is not None and turn is not None:
        line += f"; server's step {step:.1f} + Turn {turn:.1f}"
    return line


def load_line(load: dict[str, Any]) -> str:
    return (
        f"{load['matches']} concurrent matches (think {load['think_ms']:g} ms): "
        f"median {load['median_us']:.1f} us, p99 {load['p99_us']:.1f} us = "
        f"{load['p99_vs_single']:.2f}x the no-think exchange's p99 (the concurrency goal "
        f"is arena bench server's); {load['moves_per_s']} moves/s"
    )
