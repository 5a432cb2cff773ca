"""``arena bench server``: how much one ``arena serve`` process holds, and two.

Servers are real ``arena serve`` processes (their own GIL, the command's settings);
clients are ``arena.bench.grpc_client`` processes (grpc.aio). Three measurements:

1. ``flood``: ``--flood`` CreateMatch calls at once against one server (nobody joins)
   while a health check runs every 10 ms on its own connection: the health round trip's
   p99 (goal <= 100 ms) and the CreateMatch status codes (RESOURCE_EXHAUSTED beyond
   ``--max-pending``);
2. ``burst``: ``--burst`` concurrent GetMatch calls on one channel: every call gets its
   answer (NOT_FOUND here), none is CANCELLED;
3. ``scale``: for each of ``--sizes`` and 1 then 2 server processes, that many matches
   at once with bots thinking ``--think-ms`` (0.5x-1.5x) per move: p99 of the move
   exchange (think time excluded) against the single-match p99 (one match, no think
   time, one server) and moves/s. Goal: p99 <= 2x the single-match p99; the largest
   size that meets it is reported per process count.

The clients share the machine with the servers: on a machine with few cores the figures
are bounds on the servers, not their limits.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
from typing import Any

from arena.bench.grpc import LOAD_GOAL, _clients, summary
from arena.errors import UserError

HEALTH_GOAL_MS = 100.0
CLIENT_PROCESSES = 2
"""Load client processes per measurement (one Python process is a single core)."""


class ServeProcess:
    """One ``arena serve --port 0`` child; ``address`` once it listens; ``stop`` SIGINTs it."""

    def __init__(self, token: str, max_pending: int) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "arena.cli", "serve", "--port", "0", "--grace", "0",
                "--admin-token", token, "--max-pending", str(max_pending),
                "--max-matches", str(max(max_pending, 10_000)),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if " on " not in line:
            self.stop()
            raise UserError(f"arena serve did not start: {line.strip() or 'no output'}")
        self.address = line.split(" on ")[1].split()[0]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.communicate()


def _serving(k: int, token: str, max_pending: int) -> list[ServeProcess]:
    servers: list[ServeProcess] = []
    try:
        for _ in range(k):
            servers.append(ServeProcess(token, max_pending))
    except BaseException:
        for server in servers:
            server.stop()
        raise
    return servers


def _load(address: str, token: str, matches: int, think_ms: float, seconds: float) -> Any:
    k = CLIENT_PROCESSES
    per = [matches // k + (i < matches % k) for i in range(k)]
    runs = [
        ["--mode", "load", "--token", token, "--matches", str(m), "--think-ms", str(think_ms),
         "--seconds", str(seconds), "--warmup-s", str(min(3.0, seconds)), "--seed", str(i)]
        for i, m in enumerate(per)
        if m > 0
    ]  # fmt: skip
    loads = _clients(address, runs, seconds + 180)
    load = summary([x for run in loads for x in run["latencies_us"]])
    errors: dict[str, int] = {}
    for run in loads:
        for key, count in run.get("errors", {}).items():
            errors[key] = errors.get(key, 0) + count
    moves_per_s = round(load["n"] / seconds, 1)
    return {**load, "matches": matches, "moves_per_s": moves_per_s, "errors": errors}


def run_server_bench(
    flood: int, burst: int, sizes: list[int], think_ms: float, seconds: float, max_pending: int
) -> dict[str, Any]:
    """Two ``arena serve`` processes for the load: the single match, the burst and the
    1-process runs on the first, the 2-process runs on both; then the flood on a fresh
    one (its unjoined matches would hold ``--max-pending`` for the other measurements,
    and matches left over from a load run would share its CPU)."""
    token = secrets.token_urlsafe(16)
    report: dict[str, Any] = {"think_ms": think_ms, "seconds": seconds}
    servers = _serving(2, token, max_pending)
    first = servers[0].address
    try:
        game = ["--mode", "game", "--token", token, "--moves", "1000"]
        (single,) = _clients(first, [game], 300)
        report["single_match"] = summary(single["latencies_us"])
        if burst:
            args = ["--mode", "burst", "--token", token, "--matches", str(burst)]
            (got,) = _clients(first, [args], 300)
            report["burst"] = {"calls": burst, "codes": got["codes"]}
        single_p99 = report["single_match"]["p99_us"]
        scale: dict[str, Any] = {}
        for k in (1, 2):
            addresses = ",".join(s.address for s in servers[:k])
            rows = []
            for size in sizes:
                row = _load(addresses, token, size, think_ms, seconds)
                row["p99_vs_single"] = round(row["p99_us"] / single_p99, 2)
                rows.append(row)
            held = [r["matches"] for r in rows if r["p99_vs_single"] <= LOAD_GOAL]
            scale[f"{k}_process"] = {"runs": rows, "held_matches": max(held, default=0)}
        report["scale"] = scale
        report["goal"] = LOAD_GOAL
    finally:
        for server in servers:
            server.stop()
    if flood:  # on a server of its own: nothing else running
        (server,) = _serving(1, token, max_pending)
        try:
            args = ["--mode", "flood", "--token", token, "--matches", str(flood)]
            (got,) = _clients(server.address, [args], 600)
            health = summary(got["latencies_us"])
            report["flood"] = {
                "calls": flood,
                "codes": got["codes"],
                "flood_s": got["flood_s"],
                "health_n": health["n"],
                "health_median_ms": round(health["median_us"] / 1000, 2),
                "health_p99_ms": round(health["p99_us"] / 1000, 2),
                "goal_ms": HEALTH_GOAL_MS,
            }
        finally:
            server.stop()
    return report


def print_server_report(report: dict[str, Any]) -> None:
    single = report["single_match"]
    print(
        f"single match (no think): median {single['median_us']:.0f} us, "
        f"p99 {single['p99_us']:.0f} us"
    )
    if "burst" in report:
        b = report["burst"]
        print(f"{b['calls']} concurrent GetMatch on one channel: {b['codes']}")
    if "flood" in report:
        f = report["flood"]
        ok = "ok" if f["health_p99_ms"] <= f["goal_ms"] else "over goal"
        print(
            f"{f['calls']} CreateMatch at once ({f['flood_s']} s): {f['codes']}; health "
            f"median {f['health_median_ms']} ms, p99 {f['health_p99_ms']} ms "
            f"(goal <= {f['goal_ms']:g} ms: {ok}; {f['health_n']} checks)"
        )
    for name, scale in report["scale"].items():
        for r in scale["runs"]:
            print(
                f"{name.replace('_', ' ')}: {r['matches']} matches "
                f"(think {report['think_ms']:g} ms): p99 {r['p99_us']:.0f} us = "
                f"{r['p99_vs_single']:.2f}x single; {r['moves_per_s']} moves/s"
                + (f"; failed calls: {r['errors']}" if r["errors"] else "")
            )
        print(
            f"{name.replace('_', ' ')}: held {scale['held_matches']} matches at p99 <= "
            f"{report['goal']:g}x single"
        )
