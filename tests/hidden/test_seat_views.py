"""Seat views show only what the seat can see (issue 17, part 4): a property test.

For every game, a 3-player game (2 where 3 is not allowed) between random bots is
replayed, and for every view (the spectator and each seat):

- **no hidden value is named**: a component id (card, tile: ``S62``, ``Z42``) in a step's
  action that the view has not seen in any of its observations up to that step never
  appears in the step's text as that view reads it, in ``arena replay --steps --seat``'s
  output, or anywhere in the one-view viewer's data;
- **nothing the view cannot tell apart is told apart**: at every step, each other action
  or chance outcome that would have left the view's observation exactly as it is must
  read the same. This catches hidden values that are not ids (a Dziobaki placement's
  space and rotation) and is the information-set property itself, with
  ``observation(seat)`` as the judge.

And records keep everything: the full action stays in the record and in the step's
``text``.
"""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.match.records import write_record
from arena.match.runner import MatchSpec, play_match
from arena.match.specs import make_bot
from arena.replay.model import Replay, load_replay
from arena.replay.terminal import print_steps
from arena.replay.viewer import viewer_data
from engine import CHANCE, GAMES
from engine.core import JSON
from tests.cli import CliResult

GAME_IDS = sorted(GAMES)
COMPONENT_ID = re.compile(r"[A-Z][A-Za-z]*\d[A-Za-z0-9]*")
"""A component id as the games write them (``S62``, ``Z42``, ``T15``, ``RB5``)."""
HIDING = ("carson_city_zoo", "dziobaki", "manatee_sanctuary")
"""The games whose rules hide something from some view (``docs/rules/<game>.md``)."""
ALTERNATIVES = 6
"""Other actions or outcomes tried per step (a seeded sample of them)."""


def _players(game_id: str) -> int:
    return 3 if 3 in GAMES[game_id].player_counts() else 2


@pytest.fixture(scope="module")
def replays() -> dict[str, Replay]:
    out = {}
    for game_id in GAME_IDS:
        n = _players(game_id)
        record = play_match(MatchSpec(game_id, n, seed=3), [make_bot("random")] * n)
        out[game_id] = load_replay(record)
    return out


def _strings(value: JSON) -> Iterator[str]:
    """Every string in ``value``: object keys and string leaves."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def _tokens(texts: Iterator[str] | list[str]) -> set[str]:
    return {t for text in texts for t in re.findall(r"[A-Za-z0-9_]+", text)}


def _unseen_ids(rp: Replay, view: int | None) -> list[set[str]]:
    """``unseen[k-1]``: the component ids in step k's action that ``view`` has not seen in
    any of its observations up to state k."""
    seen: set[str] = set()
    unseen = []
    for k in range(rp.last + 1):
        seen |= _tokens(_strings(rp.observation(k, view)))
        if k:
            ids = {s for s in _strings(rp.steps[k - 1].action) if COMPONENT_ID.fullmatch(s)}
            unseen.append(ids - seen)
    return unseen


def _views(rp: Replay) -> list[int | None]:
    return [None, *range(rp.num_players)]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_no_view_names_a_value_it_has_not_seen(game_id: str, replays: dict[str, Replay]) -> None:
    rp = replays[game_id]
    hidden_somewhere = 0
    for view in _views(rp):
        unseen = _unseen_ids(rp, view)
        never_seen = set().union(*unseen) - _tokens(
            _strings(rp.observation(rp.last, view))  # what the view saw by the end
        )
        for step, ids in zip(rp.steps, unseen, strict=True):
            hidden_somewhere += bool(ids)
            leaked = ids & _tokens([step.text_for(view)])
            assert not leaked, f"view {view} step {step.k} {step.text_for(view)!r}: {leaked}"
        out = io.StringIO()
        print_steps(Console(file=out, width=200, color_system=None), rp, view)
        lines = out.getvalue().splitlines()
        for step, ids in zip(rp.steps, unseen, strict=True):
            line = next(li for li in lines if li.lstrip().startswith(f"{step.k} "))
            assert not ids & _tokens([line]), (view, line)
        data = json.dumps(viewer_data(rp, [view]))
        assert not never_seen & _tokens([data]), (view, sorted(never_seen & _tokens([data])))
    if game_id in ("carson_city_zoo", "manatee_sanctuary"):
        assert hidden_somewhere, "these games deal hidden cards: the test must meet some"


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_view_reads_alike_what_it_cannot_tell_apart(
    game_id: str, replays: dict[str, Replay]
) -> None:
    rp = replays[game_id]
    rng = random.Random(game_id)
    views = _views(rp)
    constrained = 0
    for step in rp.steps:
        before = rp.states[step.k - 1]
        if step.seat == CHANCE:
            options = [o for o, _ in before.chance_outcomes()]
        else:
            options = before.legal_actions()
        others = [a for a in options if a != step.move]
        for other in rng.sample(others, min(ALTERNATIVES, len(others))):
            after = before.clone()
            after.apply(other)
            for view in views:
                if after.observation(view) != rp.observation(step.k, view):
                    continue  # the view can tell them apart: their texts may differ
                constrained += 1
                assert other.text_for(step.seat, view) == step.text_for(view), (
                    f"step {step.k}: view {view} sees the same position after "
                    f"{step.text!r} and {other!s} but reads "
                    f"{step.text_for(view)!r} / {other.text_for(step.seat, view)!r}"
                )
    if game_id in HIDING:
        assert constrained, "no step had an alternative its views could not tell apart"
    else:  # nothing is private in these games: every view tells every alternative apart
        assert constrained == 0


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_records_and_owners_keep_the_full_action(game_id: str, replays: dict[str, Replay]) -> None:
    rp = replays[game_id]
    game = GAMES[game_id]
    data = viewer_data(rp)
    for step, raw, shown in zip(rp.steps, rp.record["steps"], data["steps"], strict=True):
        assert step.text == str(game.action_from_json(raw["action"]))
        assert shown["texts"] == [step.text_for(v) for v in data["views"]]
        owner = step.move.owner(step.seat)
        if owner is not None:
            assert step.text_for(owner) == step.text
    redacted = [s for s in rp.steps if s.text_for(None) != s.text]
    assert bool(redacted) == (game_id in HIDING)


def test_play_show_seat_prints_the_seats_own_deals_only(run_cli: Any) -> None:
    """``arena play --show 1`` of a 2-player Manatee Sanctuary: seat 1's deals in full,
    seat 0's as "deal a card to seat 0"."""
    result: CliResult = run_cli(
        "play", "manatee_sanctuary", "--bots", "random,random", "--seed", "2", "--show", "1"
    )
    assert result.exit_code == 0, result.stderr
    deals = [li for li in result.stdout.splitlines() if li.startswith("--- step") and "deal" in li]
    assert any(re.search(r"chance: deal S\d+ to seat 1$", li) for li in deals), deals[:6]
    assert any(li.endswith("chance: deal a card to seat 0") for li in deals), deals[:6]
    assert not [li for li in deals if re.search(r"deal [SM]\d+ to seat 0", li)]


def test_replay_cli_prints_and_writes_one_seats_view(
    run_cli: Any, replays: dict[str, Replay], tmp_path: Path
) -> None:
    """``arena replay --steps --seat 1`` and ``--html --seat 1`` of a Manatee Sanctuary game:
    seat 1's own deals in full, the others' by their public part; the viewer holds view 1
    only, and no seed."""
    rp = replays["manatee_sanctuary"]
    path = tmp_path / "game.json"
    write_record(rp.record, path)
    out = tmp_path / "seat1.html"
    result: CliResult = run_cli("replay", path, "--steps", "--seat", "1", "--html", out)
    assert result.exit_code == 0, result.stderr
    assert "view: seat 1" in result.stdout
    assert re.search(r"deal S\d+ to seat 1", result.stdout)
    assert "deal a card to seat 0" in result.stdout
    assert not re.search(r"deal [SM]\d+ to seat [02]", result.stdout)
    page = out.read_text(encoding="utf-8")
    blob = re.search(r'id="menagerie-data">(.*?)</script>', page, re.S)
    assert blob is not None
    data = json.loads(blob.group(1))
    assert data["views"] == [1] and data["seed"] is None
    assert [s["texts"] for s in data["steps"]] == [[s.text_for(1)] for s in rp.steps]
