"""``Watch`` with a seat's credential: that seat's view, no more; ``arena watch --credential``.

A real embedded game server on loopback, real SDK bots; what a watcher received is
compared step by step with the engine's own observations, replayed from the record.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from menagerie.v1 import game_service_pb2 as pb

from arena.client.connection import ClientError, Connection
from arena.client.matches import create_match, get_match
from arena.client.watch import watch_stream
from arena.match.records import replay_states
from tests.cli import run_cli
from tests.client.helpers import TOKEN, WAIT_S, admin_server, arena_process, finish, read_until
from tests.wire.helpers import BotThread, running_server
from wire.convert import observation_to_proto

GAME = "manatee_sanctuary"
"""A game with hidden cards: each seat's dealt cards and split are its own."""


class Collector(threading.Thread):
    """Reads a Watch stream to its end in a thread, after its MatchStart was read here
    (so the watcher is registered before any step is played)."""

    def __init__(self, stream: Iterator[pb.WatchResponse]) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.start_message = next(stream).match_start
        self.updates: list[pb.Update] = []
        self.over: pb.GameOver | None = None
        self.start()

    def run(self) -> None:
        for message in self.stream:
            if message.HasField("update"):
                self.updates.append(message.update)
            elif message.HasField("game_over"):
                self.over = message.game_over


@pytest.mark.server
def test_a_seat_watcher_gets_its_seats_observations_and_never_the_other_seats() -> None:
    with admin_server() as server, Connection(server.address, TOKEN) as conn:
        match = create_match(conn, GAME, 2, names=["ann", "bob"], seed=5, remember=False)
        seat0 = Collector(watch_stream(conn, match.match_id, match.credentials[0]))
        public = Collector(watch_stream(conn, match.match_id))
        bots = [BotThread(server.address, c) for c in match.credentials]
        for thread in [*bots, seat0, public]:
            thread.join(WAIT_S)
        assert all(b.result is not None for b in bots), [b.error for b in bots]
        record = get_match(conn, match.match_id).record
    assert record is not None and seat0.over is not None and public.over is not None
    assert seat0.start_message.seat == 0 and public.start_message.seat == -1
    assert [p.name for p in seat0.start_message.players] == ["ann", "bob"]

    # the engine's views after every step, from the record
    views: dict[int, dict[int | None, pb.Observation]] = {}
    for k, state in replay_states(record):
        views[k] = {s: observation_to_proto(GAME, state.observation(s)) for s in (0, 1, None)}
    steps = len(record["steps"])
    assert [u.step for u in seat0.updates] == list(range(1, steps + 1))
    assert [u.step for u in public.updates] == list(range(1, steps + 1))
    hidden = 0
    for seen, spectator in zip(seat0.updates, public.updates, strict=True):
        mine, theirs, everyone = views[seen.step][0], views[seen.step][1], views[seen.step][None]
        assert seen.observation == mine, f"step {seen.step}: not seat 0's observation"
        assert spectator.observation == everyone, f"step {seen.step}: not the public view"
        if mine != everyone:  # seat 0 holds something hidden from the public ...
            hidden += 1
            assert seen.observation != theirs  # ... and never sees seat 1's own
            dealt = seen.observation.manatee_sanctuary.dealt
            assert list(dealt) == list(mine.manatee_sanctuary.dealt)
            other = theirs.manatee_sanctuary.dealt
            assert not other or list(dealt) != list(other)
    assert hidden > 10  # the seat's own hidden cards were shown, many times
    assert any(u.observation.manatee_sanctuary.dealt for u in seat0.updates)
    assert not any(u.observation.manatee_sanctuary.dealt for u in public.updates)


def _watch_code(conn: Connection, match_id: str, credential: str | None) -> grpc.StatusCode:
    try:
        for _ in watch_stream(conn, match_id, credential):
            pass
    except ClientError as exc:
        assert exc.code is not None
        return exc.code
    return grpc.StatusCode.OK


def test_a_bad_credential_is_refused_and_seat_watchers_count_against_the_limit() -> None:
    with (
        running_server(admin_token=TOKEN, max_watchers=2) as server,
        Connection(server.address, TOKEN) as conn,
    ):
        one = create_match(conn, "dziobaki", 2, remember=False)
        two = create_match(conn, "dziobaki", 2, remember=False)
        unknown = _watch_code(conn, one.match_id, "f" * 48)
        empty = _watch_code(conn, one.match_id, "")
        other_match = _watch_code(conn, one.match_id, two.credentials[0])
        too_long = _watch_code(conn, one.match_id, "x" * 500)
        # two watchers (a spectator and a seat) fill the match's limit of 2
        first = watch_stream(conn, one.match_id)
        second = watch_stream(conn, one.match_id, one.credentials[1])
        assert next(first).match_start.seat == -1
        assert next(second).match_start.seat == 1
        third = _watch_code(conn, one.match_id, one.credentials[0])
        first.close()
        second.close()
    assert unknown == grpc.StatusCode.UNAUTHENTICATED
    assert empty == grpc.StatusCode.UNAUTHENTICATED
    assert other_match == grpc.StatusCode.PERMISSION_DENIED
    assert too_long == grpc.StatusCode.INVALID_ARGUMENT
    assert third == grpc.StatusCode.RESOURCE_EXHAUSTED


@pytest.mark.server
def test_arena_watch_with_a_credential_shows_the_seats_view(tmp_path: Path) -> None:
    with admin_server() as server, Connection(server.address, TOKEN) as conn:
        match = create_match(conn, GAME, 2, names=["ann", "bob"], seed=2, remember=False)
        watcher = arena_process(
            "watch", server.address, match.match_id, "--credential", match.credentials[1],
            tmp_path=tmp_path, stdin=None,
        )  # fmt: skip
        first = read_until(watcher, "the view of seat 1 bob")
        bots = [BotThread(server.address, c) for c in match.credentials]
        for bot in bots:
            bot.join(WAIT_S)
            assert bot.result is not None, bot.error
        code, out, err = finish(watcher)
        refused = run_cli(
            "watch", server.address, match.match_id, "--credential", match.credentials[1] + "0"
        )
    assert code == 0, err
    assert f"{GAME} match {match.match_id}: 0 ann, 1 bob" in first
    assert '"you": 1' in out and '"you": 0' not in out and "final score" in out
    assert refused.exit_code == 2 and "refused the seat credential" in refused.stderr
    assert "UNAUTHENTICATED" in refused.stderr and "Traceback" not in refused.stderr
