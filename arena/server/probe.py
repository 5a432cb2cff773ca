"""``LoadProbe``: where the latency tail of an asyncio process comes from.

A move that waits is waiting for one of four things, and each has its own figure:

* the event loop, busy with other callbacks (or without the GIL): the **loop delay**,
  how long a callback made ready waits until the loop runs it (a timer every
  ``interval_s`` makes one ready with ``call_soon`` and times it; a timer's own lateness
  would mix in the selector's 1 ms rounding);
* the collector, which stops every thread: **GC pauses** (``gc.callbacks``), count per
  generation, total and longest;
* a CPU, when the machine has more runnable threads than cores: the loop thread's
  **run-queue wait** (``/proc/thread-self/schedstat``, Linux; None elsewhere);
* and the CPU the process itself burns (``time.process_time``), beside what the whole
  machine burns (``/proc/stat``), so a reader sees whether the server, the load
  generator or other processes hold the cores.

A :meth:`LoadProbe.snapshot` holds cumulative counters only (histograms as bucket
counts), so the figures of any time window are the difference of two snapshots
(:func:`window`), taken in the same process or read from the file that
:meth:`LoadProbe.write_every` keeps current (``arena serve --probe-file``: how ``arena
bench server`` reads a server process from outside).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BUCKETS_PER_OCTAVE = 4
"""Histogram resolution: a bucket spans a factor 2**(1/4) (19 %)."""
BUCKETS = 25 * BUCKETS_PER_OCTAVE
"""Buckets of a histogram: up to 2**25 us (33 s); longer waits land in the last one."""


THREAD_READ_EVERY = 10
"""The loop thread's CPU time and run-queue wait are read every this many loop delay
samples (50 ms): reading ``/proc/thread-self/schedstat`` at every 5 ms sample was 3 % of
a loaded server's GIL time (py-spy, 1,000 matches), and the figures are read over windows
of seconds."""


def bucket_of(us: float) -> int:
    """The histogram bucket of a duration in microseconds (bucket 0 holds < 1 us).

    >>> bucket_of(0.5), bucket_of(1.0), bucket_of(1000.0), bucket_of(1e12) == BUCKETS - 1
    (0, 0, 39, True)
    """
    if us < 1.0:
        return 0
    return min(BUCKETS - 1, int(math.log2(us) * BUCKETS_PER_OCTAVE))


def bucket_top_us(bucket: int) -> float:
    """The upper edge of ``bucket`` in microseconds (a percentile is reported as the top
    of its bucket: an upper bound within 19 %)."""
    return float(2.0 ** ((bucket + 1) / BUCKETS_PER_OCTAVE))


def histogram_percentile_us(counts: list[int], q: float) -> float:
    """The ``q`` percentile (0..100) of a histogram, as the top of its bucket (0 if empty).

    >>> histogram_percentile_us([0] * 39 + [99, 1] + [0] * 60, 50) == bucket_top_us(39)
    True
    >>> histogram_percentile_us([0] * 39 + [99, 1] + [0] * 60, 100) == bucket_top_us(40)
    True
    """
    n = sum(counts)
    if n == 0:
        return 0.0
    rank = max(1, math.ceil(q / 100 * n))
    seen = 0
    for b, c in enumerate(counts):
        seen += c
        if seen >= rank:
            return bucket_top_us(b)
    return bucket_top_us(len(counts) - 1)  # (unreachable: seen reaches n)


def thread_runqueue_wait_s() -> float | None:
    """Seconds the calling thread has waited on a run queue for a CPU (Linux schedstat)."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return None


def machine_cpu_s() -> tuple[float, float] | None:
    """(busy, total) CPU seconds of the whole machine since boot (``/proc/stat``), or None."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # (guest time is already counted in user)
    return (total - idle) / tick, total / tick


class LoadProbe:
    """Measures an event loop's delay, the collector's pauses and CPU (see the module
    docstring); ``start`` on the loop, ``snapshot`` from anywhere, ``stop`` to end."""

    def __init__(self, interval_s: float = 0.005) -> None:
        self.interval_s = interval_s
        """How often the loop delay is sampled."""
        self._delay = [0] * BUCKETS
        """Loop delay histogram (bucket counts)."""
        self._delay_sum_us = 0.0
        self._gc_pause = [0] * BUCKETS
        """Collector pause histogram (bucket counts)."""
        self._gc_sum_us = 0.0
        self._gc_by_generation = [0, 0, 0]
        self._gc_cpu_us = 0.0
        """CPU time of the collections (the rest of a pause: waiting for a CPU)."""
        self._gc_collected = 0
        """Objects the collections freed (0: everything they scanned was alive)."""
        self._gc_started: tuple[float, float] | None = None
        self._loop_cpu_s = 0.0
        """The loop thread's CPU time, as last read on the loop."""
        self._loop_wait_s: float | None = None
        """The loop thread's run-queue wait, as last read on the loop."""
        self._ticks = 0
        """Loop delay samples taken (the loop thread's counters are read every
        :data:`THREAD_READ_EVERY` th)."""
        self.gauges: Callable[[], dict[str, float]] | None = None
        """Levels to add to each snapshot as they are then (e.g. the game server's hosted
        matches: ``arena bench server`` waits for them to end between load runs)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle: asyncio.TimerHandle | None = None
        self._writer: asyncio.Task[None] | None = None

    # -- life cycle (start/stop on the loop) --------------------------------------------

    def start(self) -> None:
        """Start sampling (call on the event loop's thread) and watching the collector."""
        self._loop = asyncio.get_running_loop()
        gc.callbacks.append(self._on_gc)
        self._read_loop_thread()
        self._handle = self._loop.call_later(self.interval_s, self._tick)

    def stop(self) -> None:
        """Stop sampling (on the loop's thread); snapshots keep their last values."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        if self._writer is not None:
            self._writer.cancel()
            self._writer = None
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._on_gc)

    def _tick(self) -> None:
        assert self._loop is not None
        self._loop.call_soon(self._ran, time.perf_counter())
        self._handle = self._loop.call_later(self.interval_s, self._tick)

    def _ran(self, made_ready: float) -> None:
        us = (time.perf_counter() - made_ready) * 1e6
        self._delay[bucket_of(us)] += 1
        self._delay_sum_us += us
        self._ticks += 1
        if self._ticks % THREAD_READ_EVERY == 0:
            self._read_loop_thread()

    def _read_loop_thread(self) -> None:
        self._loop_cpu_s = time.thread_time()
        self._loop_wait_s = thread_runqueue_wait_s()

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = (time.perf_counter(), time.thread_time())
            return
        if self._gc_started is None:
            return
        wall, cpu = self._gc_started
        us = (time.perf_counter() - wall) * 1e6
        self._gc_cpu_us += (time.thread_time() - cpu) * 1e6
        self._gc_collected += info.get("collected", 0)
        self._gc_started = None
        self._gc_pause[bucket_of(us)] += 1
        self._gc_sum_us += us
        generation = info.get("generation", 0)
        if 0 <= generation < 3:
            self._gc_by_generation[generation] += 1

    # -- figures ------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Cumulative counters now (JSON-ready); :func:`window` turns two into figures."""
        machine = machine_cpu_s()
        return {
            "time": time.time(),
            "wall_s": time.perf_counter(),
            "cpu_s": time.process_time(),
            "loop_cpu_s": self._loop_cpu_s,
            "loop_wait_s": self._loop_wait_s,
            "delay": list(self._delay),
            "delay_sum_us": self._delay_sum_us,
            "gc_pause": list(self._gc_pause),
            "gc_sum_us": self._gc_sum_us,
            "gc_by_generation": list(self._gc_by_generation),
            "gc_cpu_us": self._gc_cpu_us,
            "gc_collected": self._gc_collected,
            "machine_busy_s": None if machine is None else machine[0],
            "machine_total_s": None if machine is None else machine[1],
            "gauges": {} if self.gauges is None else self.gauges(),
        }

    def write_every(self, path: Path, every_s: float = 0.5) -> None:
        """Keep ``path`` holding a current snapshot (replaced atomically every ``every_s``),
        so another process can read this one's figures (on the loop's thread)."""
        assert self._loop is not None, "start the probe first"

        async def write() -> None:
            tmp = path.with_name(path.name + ".tmp")
            while True:
                tmp.write_text(json.dumps(self.snapshot()))
                os.replace(tmp, path)
                await asyncio.sleep(every_s)

        self._writer = self._loop.create_task(write())


def read_snapshot(path: Path) -> dict[str, Any] | None:
    """The snapshot a probe last wrote to ``path`` (None if there is none yet)."""
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data


def window(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The figures of the time between two snapshots of one probe.

    ``cpu_cores``: CPU the process used, in cores (1.0: one core all the time);
    ``loop_cpu_cores`` the loop thread's share of it; ``loop_runqueue_share``: the share
    of the time the loop thread waited for a CPU (None off Linux); ``delay_*``: the loop
    delay (top of its histogram bucket); ``gc_*``: the collector's pauses;
    ``machine_busy_cores``: the CPU every process of the machine used.
    """
    wall = max(after["wall_s"] - before["wall_s"], 1e-9)
    delay = [a - b for a, b in zip(after["delay"], before["delay"], strict=True)]
    pauses = [a - b for a, b in zip(after["gc_pause"], before["gc_pause"], strict=True)]
    n = sum(delay)
    out: dict[str, Any] = {
        "from": before["time"],
        "to": after["time"],
        "seconds": round(wall, 2),
        "cpu_cores": round((after["cpu_s"] - before["cpu_s"]) / wall, 3),
        "loop_cpu_cores": round((after["loop_cpu_s"] - before["loop_cpu_s"]) / wall, 3),
        "loop_runqueue_share": None,
        "delay_samples": n,
        "delay_mean_ms": round(
            (after["delay_sum_us"] - before["delay_sum_us"]) / max(n, 1) / 1e3, 3
        ),
        "delay_p99_ms": round(histogram_percentile_us(delay, 99) / 1e3, 3),
        "delay_max_ms": round(histogram_percentile_us(delay, 100) / 1e3, 3),
        "gc_collections": [
            a - b
            for a, b in zip(after["gc_by_generation"], before["gc_by_generation"], strict=True)
        ],
        "gc_pause_total_ms": round((after["gc_sum_us"] - before["gc_sum_us"]) / 1e3, 2),
        "gc_pause_max_ms": round(histogram_percentile_us(pauses, 100) / 1e3, 3),
        "gc_cpu_ms": round((after["gc_cpu_us"] - before["gc_cpu_us"]) / 1e3, 2),
        "gc_collected": after["gc_collected"] - before["gc_collected"],
        "machine_busy_cores": None,
    }
    if after["loop_wait_s"] is not None and before["loop_wait_s"] is not None:
        out["loop_runqueue_share"] = round((after["loop_wait_s"] - before["loop_wait_s"]) / wall, 3)
    if after["machine_busy_s"] is not None and before["machine_busy_s"] is not None:
        busy = after["machine_busy_s"] - before["machine_busy_s"]
        out["machine_busy_cores"] = round(busy / wall, 2)
    return out
