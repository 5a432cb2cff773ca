"""The ``arena`` app: every command module's commands, registered in one place.

The command modules only define functions (their heavy imports happen when a command
runs); :data:`app` is put together here by plain imports. ``arena`` (the console script,
``arena.cli.app:main``) and ``python -m arena.cli`` run :func:`main`.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
import typer.core

from arena.cli import bench, bot, ladder, match, play, replay, server, tournament, watch

app = typer.Typer(
    help="Menagerie: play, serve, run tournaments, rate and replay board-game bots.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _flag_type(self: typer.core.TyperOption, ctx: Any) -> str | None:
    """A flag takes no value: show no type for it (Typer shows ``--json <bool>``, which
    reads as if ``--json true`` were expected). ``ctx`` is the click context of Typer's
    own vendored click, which has no public name."""
    if self.is_flag:
        return None
    return _typer_option_type(self, ctx)


_typer_option_type = typer.core.TyperOption.display_type_rich
typer.core.TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign]  # the patch itself


def _version(show: bool) -> None:
    if show:
        from importlib.metadata import PackageNotFoundError, version

        try:
            print(f"menagerie {version('menagerie')}")
        except PackageNotFoundError:  # a source tree that was never installed
            print("menagerie (not installed)")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Menagerie: play, serve, run tournaments, rate and replay board-game bots."""


bench_app = typer.Typer(
    help="Benchmarks (engine, grpc, arena, strength, ladder, ratings, lobby); --json for machines."
)
bot_app = typer.Typer(help="Tools for bot authors (`arena bot check COMMAND`).")
ladder_app = typer.Typer(
    help="The ladder: submit bots, run them continuously, persistent ratings.",
    no_args_is_help=True,
)

app.command("games")(play.games_cmd)
app.command("play")(play.play_cmd)
app.command("verify")(play.verify_cmd)
app.add_typer(bench_app, name="bench")
bench_app.command("engine")(bench.bench_engine_cmd)
app.command("tournament")(tournament.tournament_cmd)
app.command("ratings")(tournament.ratings_cmd)
app.command("sync")(tournament.sync_cmd)
bench_app.command("arena")(bench.bench_arena_cmd)
app.command("serve")(server.serve_cmd)
bench_app.command("grpc")(bench.bench_grpc_cmd)
bench_app.command("server")(bench.bench_server_cmd)
bench_app.command("strength")(bench.bench_strength_cmd)
bench_app.command("search")(bench.bench_search_cmd)
bench_app.command("ladder")(bench.bench_ladder_cmd)
bench_app.command("lobby")(bench.bench_lobby_cmd)
bench_app.command("ratings")(bench.bench_ratings_cmd)
bench_app.command("sandbox")(bench.bench_sandbox_cmd)
bench_app.command("startup")(bench.bench_startup_cmd)
app.command("replay")(replay.replay_cmd)
app.command("stats")(replay.stats_cmd)
app.command("export")(replay.export_cmd)
app.command("viewers")(replay.viewers_cmd)
app.add_typer(bot_app, name="bot")
bot_app.command("check")(bot.check_cmd)
app.add_typer(ladder_app, name="ladder")
ladder_app.command("create")(ladder.create_cmd)
ladder_app.command("submit")(ladder.submit_cmd)
ladder_app.command("list")(ladder.list_cmd)
ladder_app.command("status")(ladder.status_cmd)
ladder_app.command("retire")(ladder.retire_cmd)
ladder_app.command("standings")(ladder.standings_cmd)
ladder_app.command("history")(ladder.history_cmd)
ladder_app.command("run")(ladder.run_cmd)
ladder_app.command("token")(ladder.token_cmd)
ladder_app.command("revoke")(ladder.revoke_cmd)
match_app = typer.Typer(
    help="Create, inspect and join a game server's matches.", no_args_is_help=True
)
app.add_typer(match_app, name="match")
match_app.command("create")(match.create_cmd)
match_app.command("get")(match.get_cmd)
match_app.command("list")(match.list_cmd)
match_app.command("join")(match.join_cmd)
app.command("watch")(watch.watch_cmd)
app.command("proto")(match.proto_cmd)
from arena.cli import analyse  # noqa: E402  # its own line: easy to merge

app.command("analyse")(analyse.analyse_cmd)


def main() -> None:
    sys.argv = [sys.argv[0], *play.normalise_show(sys.argv[1:])]
    app()


__all__ = ["app", "main"]
