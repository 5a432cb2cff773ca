"""``arena bench server``: how much one ``arena serve`` process holds, and two.

Servers are real ``arena serve`` processes (their own GIL, the command's settings). The
load generator (``--load-client``) is the Go program ``bots/go/loadgen`` (one process,
goroutines, ``GO_CONNECTIONS`` HTTP/2 connections per server; the default when ``make -C
bots/go`` builds it) or ``arena.bench.grpc_client`` processes (grpc.aio; one per
``MATCHES_PER_CLIENT`` matches, at least two). Both take the same samples (a match's Move
written -> its next Turn decoded, think time excluded). On 2 cores the Python generators
burned as much CPU per move as the server they measured, so they, not the server, set the
tail at 1,000 matches; the Go one burns a fraction of it (each run prints the CPU per
move of both). Three measurements:

1. ``flood``: ``--flood`` CreateMatch calls at once against one server (nobody joins)
   while a health check runs every 10 ms on its own connection: the health round trip's
   p99 (goal <= 100 ms) and the CreateMatch status codes (RESOURCE_EXHAUSTED beyond
   ``--max-pending``);
2. ``burst``: ``--burst`` concurrent GetMatch calls on one channel: every call gets its
   answer (NOT_FOUND here), none is CANCELLED;
3. ``scale``: for each of ``--sizes`` and 1 then 2 server processes, that many matches
   at once with bots thinking ``--think-ms`` (0.5x-1.5x) per move: p99 of the move
   exchange (think time excluded) and moves/s, against the **baseline**: the p99 of
   :data:`BASELINE_MATCHES` matches with the same bots on an otherwise idle server
   (what one match sees, sampled faster; see there). Goal: p99 <= 2x the baseline's;
   the largest size that meets it is reported per process count. The p99 of one match
   whose bots answer at once (no think time) is printed too, and each run's ratio to
   it: that match keeps the server's caches and threads hot, which no thinking bot does.

Every load run also says where its tail comes from (:mod:`arena.server.probe`): each
server's event-loop delay (how long a ready callback waits for the loop), its loop
thread's wait for a CPU, its collector pauses and CPU (``arena serve --probe-file``);
the same of the load generators (their own loop delay counts as latency: when it is as
long as the tail, the generator is what is measured); and what the rest of the machine
burns meanwhile. The clients share the machine with the servers: on a machine with few
cores the figures are bounds on the servers, not their limits.

As every ``arena bench`` (:mod:`arena.bench.report`): the machine's cores and load are
printed, the single-match p99 and each run's p99 are repeated until stable (or say they
are not), and ``--compare FILE`` prints the change against an earlier ``--json`` run.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from arena.bench import report
from arena.bench.grpc import REPO, _clients, summary
from arena.errors import UserError
from arena.server.probe import read_snapshot, window

HEALTH_GOAL_MS = 100.0
LOAD_GOAL = 2.0
"""A load run's p99 at most this many times the baseline's (``BASELINE_MATCHES``)."""
MATCHES_PER_CLIENT = 250
"""Matches per load client process (at least 2 processes): one Python process is one
event loop, and at 500 matches (1,000 streams, ~1,000 moves/s) a client's own loop delay
reached the server's, so the generator, not the server, set the tail."""
BASELINE_MATCHES = 10
"""Matches of the baseline run (the scale runs' bots, think time included, one server):
at 500 ms of think time they ask ~20 moves/s of a server that handles thousands, so each
is served as if it were alone, and the p99 has ~600 samples in ``BASELINE_RUNS`` x 10 s
(one match would take ten times longer to get them). Measured on this kind of machine:
one match alone for 150 s, median 1.18 ms and p99 4.7 ms (296 moves); 10 matches for
40 s, median 1.04 ms and p99 2.1 ms (795 moves)."""
BASELINE_RUNS = 3
"""The baseline's runs last this many times ``--seconds``."""
WARMUP_S = 3.0
"""Load runs take no samples this long after they start (at most ``--seconds``: the
connections, the first CreateMatch calls), plus ``WARMUP_PER_1000_S`` per 1,000 matches."""
WARMUP_PER_1000_S = 2.0
SETTLE_TIMEOUT_S = 120.0
"""Each load run starts once the servers host no match (their probes' ``hosted_matches``
gauge), waiting at most this long. The previous run's matches are still being played
out when it ends (its bots leave at once: each seat gets the rejoin grace, forfeits,
and the game is played to its end with random moves): measured, a run of 1,000
matches started 1-2 s after another had 700-3,200 moves over 100 ms (p99 0.4-1.2 s),
one started 30 s after had none."""
PROBE_POLL_S = 0.25
"""How often the servers' probe files are read during a load run."""
GO_DIR = REPO / "bots" / "go"
LOADGEN = GO_DIR / "bin" / "menagerie-loadgen"
"""The Go load generator (``bots/go/loadgen``, built by ``make -C bots/go``)."""
GO_TOOLS = ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc", "make")
GO_CONNECTIONS = 4
"""HTTP/2 connections per server of the Go load generator: a few, as a few bot hosts
would open (one connection would put every stream of a server on one socket)."""
LOAD_CLIENTS = ("auto", "go", "python")
"""``--load-client``: ``auto`` is ``go`` when it builds, ``python`` otherwise."""


def load_client(choice: str) -> tuple[str, str]:
    """The load generator ``--load-client`` names (``go`` or ``python``) and why. ``go``
    and ``auto`` run ``make -C bots/go`` (nothing to do when it is built); ``go`` fails
    with what is missing when it cannot be built, ``auto`` falls back to ``python``."""
    if choice not in LOAD_CLIENTS:
        raise UserError(f"--load-client must be one of {', '.join(LOAD_CLIENTS)}, got {choice!r}")
    if choice == "python":
        return "python", "--load-client python"
    missing = [t for t in GO_TOOLS if shutil.which(t) is None]
    if missing:
        why = f"Go toolchain missing ({', '.join(missing)}); see bots/go/README.md"
    else:
        try:
            made = subprocess.run(
                ["make", "-C", str(GO_DIR), "build"], capture_output=True, text=True, timeout=600
            )
        except subprocess.TimeoutExpired:
            why = "make -C bots/go took over 600 s"
        else:
            if made.returncode == 0 and LOADGEN.is_file():
                return "go", f"{LOADGEN.relative_to(REPO)}"
            last = " | ".join((made.stdout + made.stderr).strip().splitlines()[-4:])
            why = f"make -C bots/go failed: {last or '?'}"
    if choice == "go":
        raise UserError(f"--load-client go: {why}")
    return "python", f"the Go load generator is unavailable: {why}"


class ServeProcess:
    """One ``arena serve --port 0`` child; ``address`` once it listens; ``stop`` SIGINTs it.
    Its load probe file (``probe``) is in a temporary directory removed at ``stop``."""

    def __init__(self, token: str, max_pending: int) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="arena-bench-serve-")
        self.probe = Path(self._dir.name) / "probe.json"
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "arena.cli", "serve", "--port", "0", "--grace", "0",
                "--admin-token", token, "--max-pending", str(max_pending),
                "--max-matches", str(max(max_pending, 10_000)), "--probe-file", str(self.probe),
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
        self._dir.cleanup()


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


class ProbeReader:
    """Reads the servers' probe files every ``PROBE_POLL_S`` while a load runs (a thread),
    so the servers' figures can be cut to the clients' sampling window afterwards."""

    def __init__(self, servers: list[ServeProcess]) -> None:
        self.servers = servers
        self.snapshots: list[list[dict[str, Any]]] = [[] for _ in servers]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="probe-reader", daemon=True)

    def __enter__(self) -> ProbeReader:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._read()

    def _read(self) -> None:
        for server, seen in zip(self.servers, self.snapshots, strict=True):
            snap = read_snapshot(server.probe)
            if snap is not None and (not seen or snap["time"] > seen[-1]["time"]):
                seen.append(snap)

    def _poll(self) -> None:
        while not self._stop.wait(PROBE_POLL_S):
            self._read()

    def windows(self, start: float, end: float) -> list[dict[str, Any]]:
        """Each server's figures from its last snapshot at or before ``start`` to its first
        at or after ``end`` (epoch seconds; the snapshots are 0.5 s apart)."""
        out = []
        for seen in self.snapshots:
            if len(seen) < 2:
                raise UserError("a server's load probe wrote no figures during the run")
            first = max(
                (s for s in seen if s["time"] <= start), key=lambda s: s["time"], default=seen[0]
            )
            last = min(
                (s for s in seen if s["time"] >= end), key=lambda s: s["time"], default=seen[-1]
            )
            out.append(window(first, last))
        return out


def tail_of(servers: list[dict[str, Any]], loads: list[dict[str, Any]]) -> dict[str, Any]:
    """Where a load run's tail comes from: the servers' and load generators' probe windows
    folded into one set of figures (the worst delay, the summed CPU) and the largest of
    the three waits a move can have (server loop, server collector, load generator loop).

    >>> w = {"cpu_cores": 0.5, "loop_cpu_cores": 0.4, "loop_runqueue_share": 0.1,
    ...      "delay_p99_ms": 2.0, "delay_max_ms": 9.0, "gc_collections": [3, 0, 0],
    ...      "gc_pause_total_ms": 4.0, "gc_pause_max_ms": 2.0, "gc_cpu_ms": 3.0,
    ...      "gc_collected": 0, "machine_busy_cores": 1.8}
    >>> t = tail_of([w], [{**w, "delay_p99_ms": 5.0}, w])
    >>> t["largest"], t["load_cpu_cores"], t["other_cpu_cores"]
    ('load generator loop delay', 1.0, 0.3)
    """
    busy = [w["machine_busy_cores"] for w in servers if w["machine_busy_cores"] is not None]
    shares = [w["loop_runqueue_share"] for w in servers if w["loop_runqueue_share"] is not None]
    out: dict[str, Any] = {
        "server_delay_p99_ms": max(w["delay_p99_ms"] for w in servers),
        "server_delay_max_ms": max(w["delay_max_ms"] for w in servers),
        "server_runqueue_share": max(shares) if shares else None,
        "server_gc_collections": [sum(w["gc_collections"][g] for w in servers) for g in range(3)],
        "server_gc_pause_total_ms": round(sum(w["gc_pause_total_ms"] for w in servers), 2),
        "server_gc_pause_max_ms": max(w["gc_pause_max_ms"] for w in servers),
        "server_gc_cpu_ms": round(sum(w["gc_cpu_ms"] for w in servers), 2),
        "server_gc_collected": sum(w["gc_collected"] for w in servers),
        "server_cpu_cores": round(sum(w["cpu_cores"] for w in servers), 2),
        "server_loop_cpu_cores": round(sum(w["loop_cpu_cores"] for w in servers), 2),
        "load_delay_p99_ms": max(w["delay_p99_ms"] for w in loads),
        "load_delay_max_ms": max(w["delay_max_ms"] for w in loads),
        "load_gc_pause_max_ms": max(w["gc_pause_max_ms"] for w in loads),
        "load_cpu_cores": round(sum(w["cpu_cores"] for w in loads), 2),
        "machine_busy_cores": max(busy) if busy else None,
        "other_cpu_cores": None,
    }
    if busy:
        ours = out["server_cpu_cores"] + out["load_cpu_cores"]
        out["other_cpu_cores"] = round(max(0.0, max(busy) - ours), 2)
    waits = {
        "server loop delay": out["server_delay_p99_ms"],
        "server GC pause": out["server_gc_pause_max_ms"],
        "load generator loop delay": out["load_delay_p99_ms"],
    }
    out["largest"] = max(waits, key=lambda k: waits[k])
    return out


def _load(
    servers: list[ServeProcess],
    token: str,
    matches: int,
    think_ms: float,
    seconds: float,
    client: str = "python",
) -> dict[str, Any]:
    warmup = min(WARMUP_S, seconds) + WARMUP_PER_1000_S * matches / 1000
    common = ["--token", token, "--think-ms", str(think_ms), "--seconds", str(seconds),
              "--warmup-s", str(warmup)]  # fmt: skip
    command: list[str] | None = None
    if client == "go":  # one process: its goroutines use every core
        command = [str(LOADGEN)]
        runs = [[*common, "--matches", str(matches), "--connections", str(GO_CONNECTIONS)]]
    else:
        k = max(2, -(-matches // MATCHES_PER_CLIENT))
        per = [matches // k + (i < matches % k) for i in range(k)]
        runs = [
            ["--mode", "load", *common, "--matches", str(m), "--seed", str(i)]
            for i, m in enumerate(per)
            if m > 0
        ]
    settle_s = settle(servers, SETTLE_TIMEOUT_S)
    addresses = ",".join(s.address for s in servers)
    with ProbeReader(servers) as reader:
        loads = _clients(addresses, runs, warmup + seconds + 180, command)
    for run in loads:
        if "marks" in run:  # (the Go generator: its probe's two snapshots)
            run["probe"] = window(*run.pop("marks"))
    probes = [run["probe"] for run in loads]
    load = summary([x for run in loads for x in run["latencies_us"]])
    errors: dict[str, int] = {}
    for run in loads:
        for key, count in run.get("errors", {}).items():
            errors[key] = errors.get(key, 0) + count
    start, end = min(p["from"] for p in probes), max(p["to"] for p in probes)
    tail = tail_of(reader.windows(start, end), probes)
    moves_per_s = round(load["n"] / seconds, 1)
    per_move = 1e6 / max(load["n"] / seconds, 1e-9)  # (us of CPU per move, per core busy)
    tail["server_cpu_us_per_move"] = round(tail["server_cpu_cores"] * per_move, 1)
    tail["load_cpu_us_per_move"] = round(tail["load_cpu_cores"] * per_move, 1)
    return {
        **load,
        "matches": matches,
        "moves_per_s": moves_per_s,
        "settle_s": settle_s,
        "tail": tail,
        "errors": errors,
    }


def settle(servers: list[ServeProcess], timeout_s: float) -> float | None:
    """Wait until every server's probe reports no hosted match (see
    :data:`SETTLE_TIMEOUT_S`): the seconds waited, or None if ``timeout_s`` passed first."""
    start = time.monotonic()
    while True:
        snaps = [read_snapshot(server.probe) for server in servers]
        if all(
            snap is not None and snap.get("gauges", {}).get("hosted_matches", 1) == 0
            for snap in snaps
        ):
            return round(time.monotonic() - start, 2)
        if time.monotonic() - start > timeout_s:
            return None
        time.sleep(PROBE_POLL_S)


def _repeated_load(
    servers: list[ServeProcess],
    token: str,
    size: int,
    think_ms: float,
    seconds: float,
    repeats: int,
    max_repeats: int,
    client: str = "python",
) -> dict[str, Any]:
    """Load runs of ``size`` matches until their p99 is stable: the median figures of the
    runs, the failed calls of all of them, and the p99's stability."""
    rows: list[dict[str, Any]] = []
    errors: dict[str, int] = {}

    def measure() -> float:
        row = _load(servers, token, size, think_ms, seconds, client)
        for key, count in row.pop("errors").items():
            errors[key] = errors.get(key, 0) + count
        rows.append(row)
        return float(row["p99_us"])

    verdict, _ = report.until_stable(measure, repeats, max_repeats)
    waits = [r.pop("settle_s") for r in rows]
    row = report.median_figures(rows)
    row["settle_s"] = None if None in waits else max(waits)
    row["matches"] = size
    row["p99_us"] = verdict.median
    row["tail"]["largest"] = max(
        (r["tail"]["largest"] for r in rows), key=[r["tail"]["largest"] for r in rows].count
    )
    return {**row, "errors": errors, "stability": verdict.as_json()}


def run_server_bench(
    flood: int,
    burst: int,
    sizes: list[int],
    think_ms: float,
    seconds: float,
    max_pending: int,
    repeats: int = report.WINDOW,
    max_repeats: int = 5,
    as_json: bool = False,
    earlier: Any = None,
    load_choice: str = "auto",
) -> dict[str, Any]:
    """Two ``arena serve`` processes for the load: the single match, the baseline, the
    burst and the 1-process runs on the first, the 2-process runs on both; then the
    flood on a fresh one (its unjoined matches would hold ``--max-pending`` for the other
    measurements, and matches left over from a load run would share its CPU). Prints as
    it goes (text) or the JSON at the end."""
    # hex: never starts with "-", which argparse would take for an option
    token = secrets.token_hex(16)
    info = report.machine()
    out: dict[str, Any] = {"machine": info, "think_ms": think_ms, "seconds": seconds}

    def say(line: str) -> None:
        if not as_json:
            print(line, flush=True)

    say(report.header_line(info))
    client, why = load_client(load_choice)
    out["load_client"] = client
    say(f"load generator: {client} ({why})")
    servers = _serving(2, token, max_pending)
    first = servers[0].address
    try:
        game = ["--mode", "game", "--token", token, "--moves", "1000"]
        singles: list[dict[str, float]] = []

        def single() -> float:
            (got,) = _clients(first, [game], 300)
            singles.append(summary(got["latencies_us"]))
            return singles[-1]["p99_us"]

        verdict, _ = report.until_stable(single, repeats, max_repeats)
        out["single_match"] = {
            **report.median_figures(singles),
            "p99_us": verdict.median,
            "stability": verdict.as_json(),
        }
        say(single_line(out["single_match"]))
        out["baseline"] = _repeated_load(
            servers[:1],
            token,
            BASELINE_MATCHES,
            think_ms,
            BASELINE_RUNS * seconds,
            repeats,
            max_repeats,
            client,
        )
        say(baseline_line(out["baseline"], think_ms))
        if burst:
            args = ["--mode", "burst", "--token", token, "--matches", str(burst)]
            (got,) = _clients(first, [args], 300)
            out["burst"] = {"calls": burst, "codes": got["codes"]}
            say(f"{burst} concurrent GetMatch on one channel: {got['codes']}")
        single_p99 = out["single_match"]["p99_us"]
        baseline_p99 = out["baseline"]["p99_us"]
        scale: dict[str, Any] = {}
        for k in (1, 2):
            name = f"{k}_process"
            rows = []
            for size in sizes:
                row = _repeated_load(
                    servers[:k],
                    token,
                    size,
                    think_ms,
                    seconds,
                    repeats,
                    max_repeats,
                    client,
                )
                row["p99_vs_baseline"] = round(row["p99_us"] / baseline_p99, 2)
                row["p99_vs_single"] = round(row["p99_us"] / single_p99, 2)
                rows.append(row)
                say("\n".join(run_lines(name, row, think_ms)))
            held = [r["matches"] for r in rows if r["p99_vs_baseline"] <= LOAD_GOAL]
            scale[name] = {"runs": rows, "held_matches": max(held, default=0)}
            say(
                f"{k} process: held {scale[name]['held_matches']} matches at p99 <= "
                f"{LOAD_GOAL:g}x the baseline"
            )
        out["scale"] = scale
        out["goal"] = LOAD_GOAL
    finally:
        for server in servers:
            server.stop()
    if flood:  # on a server of its own: nothing else running
        (server,) = _serving(1, token, max_pending)
        try:
            args = ["--mode", "flood", "--token", token, "--matches", str(flood)]
            (got,) = _clients(server.address, [args], 600)
            health = summary(got["latencies_us"])
            out["flood"] = {
                "calls": flood,
                "codes": got["codes"],
                "flood_s": got["flood_s"],
                "health_n": health["n"],
                "health_median_ms": round(health["median_us"] / 1000, 2),
                "health_p99_ms": round(health["p99_us"] / 1000, 2),
                "goal_ms": HEALTH_GOAL_MS,
            }
            say(flood_line(out["flood"]))
        finally:
            server.stop()
    report.finish(out, earlier, as_json)
    return out


def _note(stability: dict[str, Any]) -> str:
    return "" if stability["stable"] else f" [NOT STABLE after {stability['repeats']} repeats]"


def single_line(single: dict[str, Any]) -> str:
    return (
        f"single match (no think): median {single['median_us']:.0f} us, "
        f"p99 {single['p99_us']:.0f} us{_note(single['stability'])}"
    )


def baseline_line(baseline: dict[str, Any], think_ms: float) -> str:
    return (
        f"baseline: {baseline['matches']} matches (think {think_ms:g} ms; what one match "
        f"sees): median {baseline['median_us']:.0f} us, p99 {baseline['p99_us']:.0f} us "
        f"({baseline['n']:.0f} moves){_note(baseline['stability'])}"
    )


def flood_line(f: dict[str, Any]) -> str:
    ok = "ok" if f["health_p99_ms"] <= f["goal_ms"] else "over goal"
    return (
        f"{f['calls']} CreateMatch at once ({f['flood_s']} s): {f['codes']}; health "
        f"median {f['health_median_ms']} ms, p99 {f['health_p99_ms']} ms "
        f"(goal <= {f['goal_ms']:g} ms: {ok}; {f['health_n']} checks)"
    )


def _ms(x: float | None) -> str:
    return "n/a" if x is None else f"{x:g} ms"


def run_lines(name: str, r: dict[str, Any], think_ms: float) -> list[str]:
    """The text of one size's load run: the p99 against the goal, then where the tail is."""
    t = r["tail"]
    note = _note(r["stability"])
    ok = "ok" if r["p99_vs_baseline"] <= LOAD_GOAL else "over goal"
    runq = t["server_runqueue_share"]
    other = t["other_cpu_cores"]
    lines = [
        f"{name.replace('_', ' ')}: {r['matches']} matches (think {think_ms:g} ms): median "
        f"{r['median_us']:.0f} us, p99 {r['p99_us']:.0f} us = {r['p99_vs_baseline']:.2f}x the "
        f"baseline (goal <= {LOAD_GOAL:g}x: {ok}), {r['p99_vs_single']:.2f}x the no-think "
        f"match; {r['moves_per_s']:g} moves/s{note}"
        + (f"; failed calls: {r['errors']}" if r["errors"] else "")
        + (
            f" [started while the servers still hosted earlier matches: {SETTLE_TIMEOUT_S:g} s "
            "passed]"
            if r["settle_s"] is None
            else ""
        ),
        f"  server: loop delay p99 {_ms(t['server_delay_p99_ms'])} (max "
        f"{_ms(t['server_delay_max_ms'])}); loop thread waited for a CPU "
        + ("n/a" if runq is None else f"{100 * runq:.0f}%")
        + f" of the time; GC {'/'.join(str(int(g)) for g in t['server_gc_collections'])} "
        f"collections (gen 0/1/2), {t['server_gc_pause_total_ms']:g} ms in all "
        f"({t['server_gc_cpu_ms']:g} ms of CPU), longest {_ms(t['server_gc_pause_max_ms'])}, "
        f"{int(t['server_gc_collected'])} objects freed",
        f"  load generators: loop delay p99 {_ms(t['load_delay_p99_ms'])} (max "
        f"{_ms(t['load_delay_max_ms'])}); longest GC pause {_ms(t['load_gc_pause_max_ms'])}",
        f"  CPU (cores): server {t['server_cpu_cores']:g} (its loop thread "
        f"{t['server_loop_cpu_cores']:g}), load generators {t['load_cpu_cores']:g}, "
        + ("other processes n/a" if other is None else f"other processes {other:g}")
        + f"; largest wait: {t['largest']}",
        f"  CPU per move: server {t['server_cpu_us_per_move']:g} us, load generators "
        f"{t['load_cpu_us_per_move']:g} us",
    ]
    return lines
