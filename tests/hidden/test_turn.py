"""In-process bots never touch the true state (issue 17, part 1).

``Snoop`` (``tests/hidden/snoop_bot.py``), a ``py:`` bot, plays seat 0 of every game and
searches everything it can reach through its Turn and the project's globals; the test
then judges by identity whether any of it is the match's true state (caught with the
runner's step hook), a frame or generator (the runner's locals) or a record. It also
checks the determinizations a bot gets and that scribbling over the Turn changes nothing.
"""

from __future__ import annotations

import random

import pytest

from arena.match.runner import MatchSpec, play_match
from arena.match.specs import make_bot
from bots.base import Turn
from engine import GAMES, Action, State
from tests.hidden import snoop_bot

GAME_IDS = sorted(GAMES)
SNOOP = "py:tests.hidden.snoop_bot:Snoop:turns=2"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_py_bot_reaches_no_hidden_information(game_id: str) -> None:
    snoop_bot.FINDINGS = findings = snoop_bot.Findings()
    true_states: list[State] = []

    def keep(state: State, player: int, action: Action) -> None:
        if not true_states:
            true_states.append(state)

    spec = MatchSpec(game_id, 2, seed=7)
    record = play_match(spec, [make_bot(SNOOP), make_bot("random")], on_step=keep)
    (true_state,) = true_states
    assert findings.turns == 2
    assert all("carries no game state" in s for s in findings.state_attribute)
    assert not [s for s in findings.states if s is true_state], "the true state was reached"
    assert findings.frames == [] and findings.records == []
    dets = findings.determinizations
    assert dets and all(d is not true_state and d.history == [] for d in dets)
    if game_id in ("carson_city_zoo", "manatee_sanctuary"):  # cards hidden from seat 0
        assert len({d.digest() for d in dets}) > 1, "hidden cards are drawn, not copied"
    # Snoop moves as `random` does and scribbled over its observation and options: the
    # game is the same one move for move, so nothing it held was the true state's.
    plain = play_match(spec, [make_bot("random"), make_bot("random")])
    assert [s["action"] for s in record["steps"]] == [s["action"] for s in plain["steps"]]
    assert record["digest"] == plain["digest"]


def test_a_turn_holds_no_state_and_says_what_to_use() -> None:
    state = GAMES["manatee_sanctuary"].new_game(2, None)
    while state.current_player < 0:
        state.apply(state.chance_outcomes()[0][0])
    turn = Turn.of(state, state.current_player, random.Random(1))
    assert not hasattr(turn, "__dict__")
    assert not any(isinstance(getattr(turn, name), State) for name in Turn.__slots__)
    with pytest.raises(AttributeError, match="determinize"):
        turn.state  # noqa: B018  # the attribute a bot used to read
    det = turn.determinize()
    assert det.observation(turn.seat) == state.observation(turn.seat)
    assert det.legal_actions() == turn.legal
    assert det.history == [] and det.current_player == turn.seat


class _Smuggler:
    """Appends an action of its own to its Turn's legal list and chooses it."""

    name = "smuggler"

    def choose(self, turn: Turn) -> int:
        turn.legal.append(turn.legal[0])
        turn.legal[0] = object()  # type: ignore[call-overload]
        return len(turn.legal) - 1


def test_a_bot_that_changes_its_legal_list_changes_only_its_own() -> None:
    """The runner judges a choice against its own copy of the legal actions: the match
    goes on, the smuggled index is an illegal move of that seat."""
    spec = MatchSpec("dziobaki", 2, seed=3)
    record = play_match(spec, [_Smuggler(), make_bot("random")])
    illegal = [e for e in record["events"] if e["kind"] == "illegal"]
    assert illegal and all(e["seat"] == 0 and "out of range" in e["reason"] for e in illegal)
    assert record["result"]["ranks"]
