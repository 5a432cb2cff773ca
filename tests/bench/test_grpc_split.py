"""``arena bench grpc``'s per-move split: the server's timings and how a row adds up.

No wall-clock figure is asserted: the server's recorder is fed given readings (its
clock is what it reads, the order of the calls is what is checked), and the rows are
computed from given samples. The command itself runs in tests/wire/test_cli.py (Python
clients) and tests/bots/test_example_bots.py (the Node and Go bots).
"""

from __future__ import annotations

import time

import pytest

from arena.bench.grpc import parse_clients, split_line, split_row
from arena.errors import UserError
from arena.server.timing import MAX_SAMPLES, MoveClock, MoveTimes


def test_move_times_count_a_turn_that_answers_a_move() -> None:
    """The first Turn of a match (no Move before it), a resent Turn and a Turn after a
    refused Move give no sample; a Turn after a good Move gives a server time (from the
    Move's reading), a handling time and a cycle (from the previous Turn), whether the
    Turn is written while the Move is handled (its writer waited) or after."""
    times = MoveTimes()
    times.turn_written("m1")  # the first Turn
    assert times.server_us == [] and times.cycle_us == []
    read_at = time.perf_counter()
    times.move_read("m1", read_at)
    times.turn_written("m1")  # written at once, while the Move is handled
    times.move_handled("m1", read_at, answered=True)
    assert len(times.server_us) == len(times.cycle_us) == len(times.handle_us) == 1
    assert 0 <= times.server_us[0] <= times.handle_us[0]
    assert times.server_us[0] <= times.cycle_us[0]
    read_at = time.perf_counter()
    times.move_read("m1", read_at)
    times.move_handled("m1", read_at, answered=True)
    times.turn_written("m1")  # queued for the writer, written after
    assert len(times.server_us) == len(times.handle_us) == 2
    assert times.handle_us[1] <= times.server_us[1]
    times.turn_written("m1")  # a resend (a rejoin): no Move before it
    assert len(times.server_us) == 2
    read_at = time.perf_counter()
    times.move_read("m1", read_at)
    times.move_handled("m1", read_at, answered=False)  # refused: no Turn answers it
    times.turn_written("m1")
    assert len(times.server_us) == len(times.handle_us) == 2
    times.move_read("m2", time.perf_counter())  # another match's clock is its own
    times.turn_written("m1")
    assert len(times.server_us) == 2
    times.match_over("m2")
    assert "m2" not in times.clocks
    times.clear()
    assert times.server_us == times.cycle_us == times.handle_us == [] and not times.clocks


def test_move_times_are_bounded() -> None:
    times = MoveTimes()
    times.server_us.extend([1.0] * MAX_SAMPLES)
    times.move_read("m", time.perf_counter())
    times.turn_written("m")
    assert len(times.server_us) == MAX_SAMPLES


def test_split_row_adds_up_to_the_cycle() -> None:
    times = MoveTimes(server_us=[80.0, 100.0, 90.0], cycle_us=[300.0, 320.0, 310.0])
    row = split_row("python", times, [12.0, 10.0, 14.0])
    assert (row["cycle_us"], row["server_us"], row["client_us"]) == (310.0, 90.0, 12.0)
    assert row["transport_us"] == 208.0 and row["client_and_transport_us"] == 220.0
    assert "client   12.0 + transport  208.0" in split_line(row)
    blind = split_row("go", times, None)  # a bot that reports no client time
    assert blind["client_us"] is None and blind["transport_us"] is None
    assert blind["client_and_transport_us"] == 220.0
    assert "client and transport  220.0" in split_line(blind)
    assert "skipped: not built" in split_line({"client": "go", "skipped": "not built"})
    with pytest.raises(UserError, match="no move"):
        split_row("node", MoveTimes(), None)


def test_clients_are_named_and_python_always_runs() -> None:
    assert parse_clients("go") == ["python", "go"]
    assert parse_clients("python,sdk,node,go") == ["python", "sdk", "node", "go"]
    with pytest.raises(UserError, match="unknown client 'rust'; known: python, sdk, node, go"):
        parse_clients("sdk,rust")


def test_server_parts_are_recorded_bounded_and_shown() -> None:
    """A Move advanced inline gives its step and Turn times (given readings; a Turn written
    at once ends where gRPC's send begins); they are bounded like the rest, cleared with
    them, and shown after the split's sum."""
    times = MoveTimes()
    times.advanced("m", 10.0, 10.000040, 10.000060)
    assert times.step_us == pytest.approx([40.0]) and times.turn_us == pytest.approx([20.0])
    times.clocks["m"] = MoveClock(turn_written=10.000050)  # written at once, inside the Turn
    times.advanced("m", 10.0, 10.000040, 10.000090)  # (gRPC's start of the send excluded)
    assert times.turn_us[1] == pytest.approx(10.0)
    times.step_us.extend([1.0] * (MAX_SAMPLES - 2))
    times.advanced("m", 0.0, 1.0, 2.0)
    assert len(times.step_us) == MAX_SAMPLES and len(times.turn_us) == 2
    times.clear()
    assert times.step_us == times.turn_us == []
    times = MoveTimes(
        server_us=[80.0], cycle_us=[300.0], handle_us=[70.0], step_us=[40.0], turn_us=[20.0]
    )
    row = split_row("python", times, [10.0])
    assert (row["server_step_us"], row["server_turn_us"]) == (40.0, 20.0)
    assert split_line(row).endswith("transport  210.0; server's step 40.0 + Turn 20.0")
