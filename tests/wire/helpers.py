"""Shared helpers of the wire tests: servers, hosted matches, SDK bots in threads."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from arena.match.runner import MatchConfig, MatchSpec
from arena.server.app import GameServer
from arena.server.hub import ServerConfig
from arena.server.table import Table
from bots import sdk
from bots.random_client import RandomClient
from engine import GAMES

HERE = Path(__file__).resolve().parent
SCRIPTED = f"cmd:{sys.executable} {HERE / 'scripted_bot.py'}"


def players_for(game_id: str) -> int:
    """A small player count every game supports (2 unless the game cannot have 2)."""
    game = GAMES[game_id]
    return max(game.min_players, min(2, game.max_players))


def server_config(**overrides: Any) -> ServerConfig:
    """The wire tests' server: its clocks (stall, join) fail a bot only if it hangs, even on
    a busy machine; a test of a clock sets it."""
    values: dict[str, Any] = {
        "stall_ms": 60_000.0,
        "join_timeout_s": 60.0,
        "flood_rate": 5.0,
        "flood_burst": 20,
        "margin_ms": 50.0,
    }
    values.update(overrides)
    return ServerConfig(**values)


@contextmanager
def running_server(**overrides: Any) -> Iterator[GameServer]:
    server = GameServer(server_config(**overrides))
    server.start("127.0.0.1", 0)
    try:
        yield server
    finally:
        server.stop(grace_s=0.0)


def host(
    server: GameServer,
    game: str = "zooloretto_mini",
    players: int = 2,
    seed: int = 0,
    move_ms: float | None = None,
    policy: str = "forfeit",
    options: dict[str, Any] | None = None,
) -> Table:
    spec = MatchSpec(game, players, seed, options or {})
    return server.create_match(spec, MatchConfig(move_ms=move_ms, on_failure=policy))  # type: ignore[arg-type]  # str, not the Literal


class BotThread(threading.Thread):
    """``sdk.run(bot, ...)`` in a thread; ``result`` or ``error`` afterwards."""

    def __init__(self, address: str, credential: str, bot: Any | None = None) -> None:
        super().__init__(daemon=True)
        self.args = (bot or RandomClient(1), address, credential)
        self.result: sdk.GameResult | None = None
        self.error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self.result = sdk.run(*self.args)
        except BaseException as exc:
            self.error = exc


def play_with_sdk(
    server: GameServer, table: Table, seats: list[int] | None = None
) -> list[BotThread]:
    """Random SDK bots (threads) for ``seats`` (default: every remote seat)."""
    wanted = seats if seats is not None else sorted(table.credentials)
    return [BotThread(server.address, table.credentials[s], RandomClient(s)) for s in wanted]
