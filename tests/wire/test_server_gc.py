"""What a game server leaves to the collector: a dedicated server (``gc_threshold`` set)
runs its young collections itself on its event loop (``arena.server.hub.GC_PACE_S``),
a pending turn does not keep its observation JSON alive once it is encoded (a resend
after a rejoin still carries the observation: it sends the encoded bytes), and a match the
server forgets is freed by reference counting, not left to a full collection."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from typing import Any

import pytest

from arena.server.hub import GC_THRESHOLD
from bots.base import Turn
from tests.wire.helpers import BotThread, host, running_server
from tests.wire.rawclient import RawSeat

pytestmark = pytest.mark.server


def test_a_dedicated_server_runs_young_collections_on_its_loop() -> None:
    """At least 20 young collections on the event loop of an idle server: the allocation
    count alone would trigger none (nothing is allocated)."""
    on_loop: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and threading.current_thread().name == "game-server-loop":
            on_loop.append(info["generation"])

    previous = gc.get_threshold()
    gc.callbacks.append(note)
    try:
        with running_server(gc_threshold=GC_THRESHOLD):
            assert gc.get_threshold() == GC_THRESHOLD
            deadline = time.monotonic() + 30  # (a safety net: 10 ms apart when idle)
            while len(on_loop) < 20 and time.monotonic() < deadline:
                time.sleep(0.05)
        assert len(on_loop) >= 20
        assert set(on_loop) <= {0, 1}  # full collections are left to the automatic trigger
    finally:
        gc.callbacks.remove(note)
        gc.set_threshold(*previous)
        gc.unfreeze()


def test_a_pending_turn_drops_its_observation_and_a_rejoin_still_gets_it() -> None:
    with running_server(rejoin_grace_s=30.0) as server:
        table = host(server)
        seats = [RawSeat(server.address) for _ in range(2)]
        try:
            for seat, credential in zip(seats, table.credentials.values(), strict=True):
                seat.join(credential)
            deadline = time.monotonic() + 30  # (a safety net: the first turn is issued now)
            while table.current is None and time.monotonic() < deadline:
                time.sleep(0.01)
            assert table.current is not None
            mover = table.current.seat.seat  # it gets a Turn; the other only its MatchStart
            turn = seats[mover].recv_kind("turn")
            assert turn.observation.WhichOneof("game") == "zooloretto_mini"
            gc.collect()
            pending = [
                t
                for t in gc.get_objects()
                if type(t) is Turn
                and t.seat == mover
                and t.step == turn.step
                and len(t.legal) == len(turn.legal_actions)
            ]
            assert pending and all(t.observation == {} for t in pending)
            seats[mover].cancel()  # the stream breaks; the same credential rejoins
            again = RawSeat(server.address)
            seats.append(again)
            again.join(table.credentials[mover])
            resent = again.recv_kind("turn")
            assert resent.sequence == turn.sequence
            assert resent.observation == turn.observation
        finally:
            for seat in seats:
                seat.cancel()


def test_a_forgotten_match_is_freed_without_the_collector() -> None:
    """Table and remote seats point at each other: the purge breaks those cycles, so the
    table (its record, its last state) goes when the hub lets go of it, collector off."""
    with running_server(keep_finished_s=0.0, join_timeout_s=1.0) as server:
        table = host(server)
        bots = [BotThread(server.address, c) for c in table.credentials.values()]
        for bot in bots:
            bot.join(60)
        assert table.done.wait(30) and all(b.error is None for b in bots)
        gone = weakref.ref(table)
        del table, bots
        gc.disable()
        try:
            host(server, seed=1)  # opening a table purges the finished ones
            deadline = time.monotonic() + 30  # (the join deadline's timer holds it 1 s)
            while gone() is not None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert gone() is None
        finally:
            gc.enable()


class _Cycle:
    """An object in a reference cycle (only the cycle collector frees it)."""

    def __init__(self) -> None:
        self.me = self


def _tracked(obj: object) -> bool:
    """Whether ``obj`` is in one of the collector's generations (a frozen object is not)."""
    return any(o is obj for o in gc.get_objects())


def _wait_frozen(obj: object) -> None:
    deadline = time.monotonic() + 30  # (a safety net: frozen within ``gc_freeze_s``)
    while _tracked(obj) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _tracked(obj)


def test_a_dedicated_server_freezes_survivors_and_frees_cycles_in_its_full_collection() -> None:
    """What survives the young collections is frozen (no middle collection scans it again),
    and a frozen cycle that became garbage is freed by the next full collection."""
    previous = gc.get_threshold()
    try:
        with running_server(gc_threshold=GC_THRESHOLD, gc_freeze_s=0.05, gc_full_s=600.0):
            survivor = _Cycle()
            _wait_frozen(survivor)
            assert gc.get_freeze_count() > 0
        with running_server(gc_threshold=GC_THRESHOLD, gc_freeze_s=0.05, gc_full_s=1.0):
            garbage = _Cycle()
            _wait_frozen(garbage)
            ref = weakref.ref(garbage)
            del garbage
            deadline = time.monotonic() + 30  # (a safety net: the full collection is due in 1 s)
            while ref() is not None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert ref() is None
    finally:
        gc.set_threshold(*previous)
        gc.unfreeze()
