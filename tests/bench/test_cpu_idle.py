"""What idle cores do (the benchmarks' header) and the wake-up limit a process holds.

The kernel's PM QoS device is stood in for by a regular file where the test needs to
control what it reads (a file takes the same 4-byte write and keeps it); the machine's
own sysfs and device are read as they are.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from arena import cpu_idle
from arena.bench import report
from arena.errors import UserError
from tests.cli import run_cli


def _sysfs(root: Path, driver: str | None, states: list[str]) -> Path:
    if driver is not None:
        (root / "cpuidle").mkdir(parents=True)
        (root / "cpuidle" / "current_driver").write_text(driver + "\n")
    for i, name in enumerate(states):
        state = root / "cpu0" / "cpuidle" / f"state{i}"
        state.mkdir(parents=True)
        state.joinpath("name").write_text(name + "\n")
    return root


def _device(path: Path, value: int) -> Path:
    path.write_bytes(struct.pack("i", value))
    return path


def test_idle_facts_read_the_driver_the_states_in_order_and_the_limit(tmp_path: Path) -> None:
    names = [f"S{i}" for i in range(12)]  # state10 and state11 sort after state9
    sysfs = _sysfs(tmp_path / "cpu", "haltpoll", names)
    info = cpu_idle.cpu_idle(sysfs, _device(tmp_path / "qos", 25))
    assert info == {
        "driver": "haltpoll",
        "states": names,
        "wakeup_limit_us": 25,
        "wakeup_limit_known": True,
    }
    assert cpu_idle.describe(info) == "idle cores: haltpoll, wake-up limit 25 us"


def test_no_request_reads_as_no_limit_and_an_unreadable_device_as_unknown(tmp_path: Path) -> None:
    sysfs = _sysfs(tmp_path / "cpu", None, [])
    none = cpu_idle.cpu_idle(sysfs, _device(tmp_path / "qos", cpu_idle.NO_LIMIT_US))
    assert none["wakeup_limit_us"] is None and none["wakeup_limit_known"] is True
    assert none["driver"] is None and none["states"] is None
    assert cpu_idle.describe(none) == "idle cores: driver unknown, no wake-up limit"
    missing = cpu_idle.cpu_idle(sysfs, tmp_path / "absent")
    assert missing["wakeup_limit_us"] is None and missing["wakeup_limit_known"] is False
    assert cpu_idle.describe(missing) == "idle cores: driver unknown, wake-up limit unknown"


def test_the_benchmark_header_says_what_idle_cores_do_on_this_machine() -> None:
    info = report.machine()
    idle = info["cpu_idle"]
    assert set(idle) == {"driver", "states", "wakeup_limit_us", "wakeup_limit_known"}
    assert report.header_line(info).endswith("; " + cpu_idle.describe(idle))


def _open_on(path: Path) -> bool:
    """Whether this process has ``path`` open."""
    fds = Path("/proc/self/fd")
    return any(os.path.realpath(fd) == str(path.resolve()) for fd in fds.iterdir())


def test_the_limit_is_written_and_held_while_the_block_runs(tmp_path: Path) -> None:
    device = _device(tmp_path / "qos", cpu_idle.NO_LIMIT_US)
    with cpu_idle.wakeup_limit(0, device):
        assert device.read_bytes() == struct.pack("i", 0)
        assert _open_on(device)  # the kernel keeps a request while the file is open
    assert not _open_on(device)
    with cpu_idle.wakeup_limit(None, device):  # asks nothing
        assert not _open_on(device)
    assert device.read_bytes() == struct.pack("i", 0)


def test_a_limit_that_cannot_be_held_is_a_clear_error(tmp_path: Path) -> None:
    def hold(us: int, device: Path) -> None:
        with cpu_idle.wakeup_limit(us, device):
            pass

    with pytest.raises(UserError, match=r"absent does not exist \(Linux's PM QoS"):
        hold(0, tmp_path / "absent")
    with pytest.raises(UserError, match=r"cannot open .* for writing"):
        hold(0, tmp_path)  # a directory
    with pytest.raises(UserError, match="must be 0 to 1999999999, got -1"):
        hold(-1, tmp_path / "qos")
    assert not (tmp_path / "qos").exists()  # refused before anything was opened


@pytest.mark.parametrize(
    "command", [["serve", "--port", "0"], ["bench", "grpc"], ["bench", "server"]]
)
def test_a_limit_out_of_range_is_refused_before_serving_or_measuring(command: list[str]) -> None:
    done = run_cli(*command, "--cpu-wakeup-us", "-5")
    assert done.exit_code == 2
    assert "--cpu-wakeup-us must be 0 to 1999999999, got -5" in done.stderr
    assert done.stdout == ""  # no "serving ...", no machine line


def test_compare_warns_when_the_runs_idle_cores_differ() -> None:
    def run(limit: int | None, ms: float) -> dict[str, object]:
        idle = {"driver": "haltpoll", "wakeup_limit_us": limit, "wakeup_limit_known": True}
        return {"machine": {"cpus": 2, "cpu_idle": idle}, "exchange_ms": ms}

    differ = report.compare_lines(run(None, 0.3), run(0, 0.2))
    assert differ[1] == (
        "  (the runs' idle cores differ: before haltpoll, no wake-up limit; now haltpoll, "
        "wake-up limit 0 us: latencies are not comparable)"
    )
    same = report.compare_lines(run(0, 0.3), run(0, 0.2))
    old = report.compare_lines({"exchange_ms": 0.3}, run(0, 0.2))  # JSON from before it was kept
    assert not any("differ" in line for line in same + old)
