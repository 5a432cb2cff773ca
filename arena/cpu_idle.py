"""What the machine's idle cores do, and the wake-up limit a latency-bound process asks for.

A core with nothing to run goes idle: Linux's ``cpuidle`` driver picks a state (on a KVM
guest ``haltpoll``: poll a little, then halt the virtual CPU, which hands it back to the
host; on bare metal the processor's C-states). Waking from a deep state is slow, and the
code that runs right after the wake-up runs slow too (its caches went cold meanwhile).
A game server waits for every move, so every move pays it. Measured on a 2-vCPU KVM
guest, a Zooloretto Mini step and its Turn bytes, the same code each time:

* in a loop: 40 us; after a 200 us busy wait: 41 us;
* after a 200 us ``sleep`` or ``select`` (the core idles): 79-91 us;
* the same, with the wake-up limit at 0 us: 43-47 us.

``arena bench grpc``'s raw ping-pong measured 193-336 us without that limit, 112-151 us with it.

Linux's PM QoS interface lets a process cap the wake-up latency for as long as it keeps
``/dev/cpu_dma_latency`` open with the limit written to it (:func:`wakeup_limit`); the
kernel then keeps the cores out of the idle states that wake slower. The cost: idle
cores poll instead of halting, so they burn power, and on a virtual machine the host's
CPU time. It is an operator's choice (``arena serve --cpu-wakeup-us``), never a default.
Every benchmark reports the idle driver and the limit in force (:func:`cpu_idle`), since
they move latency figures by more than most changes of code.
"""

from __future__ import annotations

import contextlib
import os
import struct
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from arena.errors import UserError

DEVICE = Path("/dev/cpu_dma_latency")
"""The PM QoS CPU latency device: reading it gives the limit in force (us, native
32-bit integer); a process's request lasts while it keeps the device open."""
SYSFS = Path("/sys/devices/system/cpu")
NO_LIMIT_US = 2_000_000_000
"""What the device reads when no process asks for a limit (the kernel's default)."""


def cpu_idle(sysfs: Path = SYSFS, device: Path = DEVICE) -> dict[str, Any]:
    """The idle driver, the idle states of the first core, and the wake-up limit in force.

    ``driver`` and ``states`` are None where sysfs does not say (not Linux, or a
    container without it); ``wakeup_limit_us`` is None when no process asks for a limit
    or when the device cannot be read (``wakeup_limit_known`` tells which: reading it
    needs root on most systems).
    """
    driver = _read_text(sysfs / "cpuidle" / "current_driver")
    state_dirs = sorted(
        (sysfs / "cpu0" / "cpuidle").glob("state*"), key=lambda p: (len(p.name), p.name)
    )  # state0, state1, ..., state10
    names = [_read_text(d / "name") for d in state_dirs]
    states = [n for n in names if n is not None] or None
    limit: int | None = None
    known = False
    try:
        with device.open("rb") as f:
            raw = f.read(4)
    except OSError:
        pass
    else:
        if len(raw) == 4:
            (value,) = struct.unpack("i", raw)
            known = True
            limit = None if value >= NO_LIMIT_US else value
    return {
        "driver": driver,
        "states": states,
        "wakeup_limit_us": limit,
        "wakeup_limit_known": known,
    }


def describe(info: Mapping[str, Any]) -> str:
    """One phrase for a benchmark's header line (the states are in the JSON only).

    >>> describe({"driver": "haltpoll", "states": ["POLL", "haltpoll"],
    ...           "wakeup_limit_us": None, "wakeup_limit_known": True})
    'idle cores: haltpoll, no wake-up limit'
    >>> describe({"driver": None, "states": None, "wakeup_limit_us": 0,
    ...           "wakeup_limit_known": True})
    'idle cores: driver unknown, wake-up limit 0 us'
    """
    text = f"idle cores: {info.get('driver') or 'driver unknown'}"
    if not info.get("wakeup_limit_known"):
        return text + ", wake-up limit unknown"  # (the device is unreadable: not root, or absent)
    limit = info.get("wakeup_limit_us")
    return text + (", no wake-up limit" if limit is None else f", wake-up limit {limit} us")


@contextlib.contextmanager
def wakeup_limit(us: int | None, device: Path = DEVICE) -> Iterator[None]:
    """Ask the kernel to keep every core's wake-up latency under ``us`` microseconds
    until the block ends (None: ask nothing). A UserError says why it cannot (no such
    device, no permission, a limit out of range)."""
    if us is None:
        yield
        return
    if not 0 <= us < NO_LIMIT_US:
        raise UserError(f"--cpu-wakeup-us must be 0 to {NO_LIMIT_US - 1}, got {us}")
    try:
        fd = os.open(device, os.O_WRONLY)
    except FileNotFoundError:
        raise UserError(
            f"--cpu-wakeup-us: {device} does not exist (Linux's PM QoS CPU latency device; "
            "in a container, pass it in with --device)"
        ) from None
    except OSError as exc:
        raise UserError(
            f"--cpu-wakeup-us: cannot open {device} for writing ({exc.strerror or exc}): "
            "it needs root, or write permission given to this user"
        ) from None
    try:
        try:
            os.write(fd, struct.pack("i", us))
        except OSError as exc:
            raise UserError(
                f"--cpu-wakeup-us: {device} refused the limit ({exc.strerror or exc})"
            ) from None
        yield
    finally:
        os.close(fd)  # the kernel drops the request with the last reference


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text().strip() or None
    except OSError:
        return None
