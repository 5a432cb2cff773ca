"""The Node example bot in lobby mode: plays ladder matches beside hosted bots (counted
once), comes back after the lobby restarts, and exits when its token is revoked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.ladder.remote import LobbySettings, bot_key, host_lobby
from arena.ladder.store import LadderStore
from arena.ladder.tokens import Tokens
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
def test_node_bot_plays_reconnects_and_is_refused(
    store: LadderStore, tmp_path: Path, node_bot: str, free_port: int
) -> None:
    token = remote_ladder(store, game="zooloretto_mini")
    key = bot_key(LADDER, REMOTE)
    serve = f"127.0.0.1:{free_port}"
    argv = [*node_bot.split(), "--lobby", serve, "--token", token, "--max-games", "2"]
    bot = program_bot(argv)
    try:
        with host_lobby(store, [LADDER], LobbySettings(serve)) as host:
            assert host.lobby.wait_online(key, BOUND_S)
            summary = run_ladder(store, tmp_path, host.matches, games=8)
        fast = LobbySettings(serve, heartbeat_s=0.2, timeout_s=2.0, recheck_s=0.2)
        with host_lobby(store, [LADDER], fast) as host:
            assert host.lobby.wait_online(key, BOUND_S)  # it reconnected by itself
            Tokens(store).revoke(LADDER, REMOTE)
            code = bot.wait(BOUND_S)
    finally:
        err = stop(bot)
    assert summary.counted == 8 and not summary.voided, err
    audit(store, LADDER, tmp_path)
    assert remote_games(store) >= 2, err
    assert "node bot: game over (MATCH_STATUS_FINISHED)" in err, err
    assert err.count(f"node bot: {REMOTE} online") == 2, err
    assert code == 1 and "error: UNAUTHENTICATED: unknown or revoked bot token" in err, err
