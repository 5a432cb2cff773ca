"""The Node example bot in lobby mode plays ladder matches beside hosted bots."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.ladder.remote import LobbySettings, bot_key, host_lobby
from arena.ladder.store import LadderStore
from tests.ladder.helpers import audit
from tests.lobby.kit import (
    BOUND_S,
    LADDER,
    REMOTE,
    program_bot,
    remote_games,
    remote_ladder,
    run_ladder,
    stop,
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LadderStore]:
    with LadderStore(str(tmp_path / "ladder.db")) as s:
        yield s


@pytest.mark.xdist_group("node")
@pytest.mark.toolchain
@pytest.mark.server
def test_node_bot_plays_through_the_lobby(
    store: LadderStore, tmp_path: Path, node_bot: str
) -> None:
    token = remote_ladder(store, game="zooloretto_mini")
    with host_lobby(store, [LADDER], LobbySettings("127.0.0.1:0")) as host:
        argv = [*node_bot.split(), "--lobby", host.address, "--token", token, "--max-games", "2"]
        bot = program_bot(argv)
        try:
            assert host.lobby.wait_online(bot_key(LADDER, REMOTE), BOUND_S)
            summary = run_ladder(store, tmp_path, host.matches, games=8)
        finally:
            err = stop(bot)
    assert summary.counted == 8 and not summary.voided, err
    audit(store, LADDER, tmp_path)
    assert remote_games(store) >= 2, err
    assert "node bot: game over (MATCH_STATUS_FINISHED)" in err, err
