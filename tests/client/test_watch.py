"""``arena watch``: a real process follows a real match on a real game server."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from arena.client.connection import Connection
from arena.client.matches import create_match
from arena.client.render import OBSERVATION_RENDERERS, render_observation
from engine import CHANCE, GAMES
from engine.core import sample_outcome
from tests.cli import run_cli
from tests.client.helpers import (
    TOKEN,
    WAIT_S,
    admin_server,
    arena_process,
    finish,
    read_until,
)
from tests.wire.helpers import BotThread


@pytest.mark.server
def test_watch_shows_every_step_and_the_final_score(tmp_path: Path) -> None:
    with admin_server() as server, Connection(server.address, TOKEN) as conn:
        match = create_match(conn, "dziobaki", 2, names=["ann", "bob"], seed=3, remember=False)
        watcher = arena_process(
            "watch", server.address, match.match_id, tmp_path=tmp_path, stdin=None
        )
        # MatchStart arrived: the watcher sees every step from here on
        first = read_until(watcher, "spectator view")
        assert f"dziobaki match {match.match_id}: 0 ann, 1 bob" in first
        brief = arena_process(
            "watch", server.address, match.match_id, "--brief", tmp_path=tmp_path, stdin=None
        )
        read_until(brief, "spectator view")
        bots = [BotThread(server.address, c) for c in match.credentials]
        for bot in bots:
            bot.join(WAIT_S)
            assert bot.result is not None, bot.error
        code, out, err = finish(watcher)
        out = first + out
        brief_code, brief_out, _ = finish(brief)
    assert code == 0, err
    steps = int(re.search(r"finished after (\d+) steps", out).group(1))  # type: ignore[union-attr]
    shown = re.findall(r"^step +(\d+) +(seat \d \w+|chance)$", out, re.MULTILINE)
    assert [int(k) for k, _ in shown] == list(range(1, steps + 1))
    assert {who for _, who in shown} >= {"seat 0 ann", "seat 1 bob"}
    assert "Dziobaki - round 1/" in out  # the game's own drawing of the public view
    assert "final score" in out and "rank" in out
    assert brief_code == 0
    brief_steps = re.findall(r"^step +(\d+) +(?:seat \d \w+|chance)$", brief_out, re.MULTILINE)
    assert len(brief_steps) == steps and "Dziobaki" not in brief_out  # no views drawn


def test_watch_an_unknown_match_or_server_says_so(tmp_path: Path) -> None:
    with admin_server() as server:
        result = run_cli("watch", server.address, "nope")
    assert result.exit_code == 2 and "has no match 'nope'" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_spectator_views_are_drawn_by_the_games_renderer(game_id: str) -> None:
    """The table of observation renderers draws what ``state.render(None)`` draws."""
    game = GAMES[game_id]
    state = game.new_game(max(game.min_players, 2))
    rng = random.Random(1)
    for _ in range(30):
        if state.is_terminal():
            break
        if state.current_player == CHANCE:
            state.apply(sample_outcome(state.chance_outcomes(), rng))
        else:
            state.apply(rng.choice(state.legal_actions()))
        text = render_observation(game_id, state.observation(None))
        if game_id in OBSERVATION_RENDERERS and not state.is_terminal():
            assert text == state.render(None)
        else:
            assert text.startswith("{")
