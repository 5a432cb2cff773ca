"""``arena bench engine|grpc|server|arena|search|strength|ladder|lobby|ratings|sandbox|startup``:
the benchmarks (``--json`` for machines; ``--compare FILE`` against an earlier ``--json``).

Each command imports its benchmark (``arena.bench.<name>``) when it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cli.common import CPU_WAKEUP, user_errors
from arena.errors import UserError

REPEATS = Annotated[int, typer.Option("--repeats", help="Least measurements per figure (median).")]
MAX_REPEATS = Annotated[
    int, typer.Option("--max-repeats", help="Most measurements while the figure moves.")
]
COMPARE = typer.Option(
    "--compare", help="An earlier run's --json output: print the change of every figure."
)


def _check_repeats(repeats: int, max_repeats: int) -> None:
    if repeats < 1 or max_repeats < repeats:
        raise UserError(
            f"--repeats must be >= 1 and --max-repeats >= --repeats, got {repeats} and "
            f"{max_repeats}"
        )


def _check_game(game: str) -> None:
    """Fail in a second on an unknown ``--game``, not after minutes of measuring (or, for
    the lobby, never: its runner waits for a game that cannot start)."""
    from engine import GAMES

    if game not in GAMES:
        raise UserError(f"unknown game {game!r}; known: {', '.join(sorted(GAMES))}")


@user_errors
def bench_engine_cmd(
    game: Annotated[str | None, typer.Option("--game", help="Only this game.")] = None,
    seconds: Annotated[float, typer.Option("--seconds", help="Time per measurement.")] = 0.3,
    repeats: REPEATS = 3,
    max_repeats: MAX_REPEATS = 9,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
) -> None:
    """Random-playout decisions/s and games/s per game and player count."""
    from arena.bench.engine import run_engine_bench
    from arena.bench.report import load_earlier

    _check_repeats(repeats, max_repeats)
    run_engine_bench(game, seconds, repeats, as_json, max_repeats, load_earlier(compare))


@user_errors
def bench_grpc_cmd(
    moves: Annotated[int, typer.Option("--moves", help="Move exchanges to time.")] = 2000,
    matches: Annotated[
        int, typer.Option("--matches", help="Concurrent matches of the load test (0: none).")
    ] = 200,
    think_ms: Annotated[
        float, typer.Option("--think-ms", help="Bot think time per move in the load test.")
    ] = 500.0,
    seconds: Annotated[
        float, typer.Option("--seconds", help="Duration of the load measurement.")
    ] = 10.0,
    clients: Annotated[
        str,
        typer.Option(
            "--clients", help="Clients whose per-move split to measure: python,sdk,node,go."
        ),
    ] = "python,sdk,node,go",
    repeats: REPEATS = 3,
    max_repeats: MAX_REPEATS = 9,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
    cpu_wakeup_us: CPU_WAKEUP = None,
) -> None:
    """Move exchange vs raw ping-pong, the split per client (server, client, transport), load."""
    from arena.bench.grpc import parse_clients, run_bench
    from arena.bench.report import load_earlier
    from arena.cpu_idle import wakeup_limit

    _check_repeats(repeats, max_repeats)
    if moves < 10 or matches < 0 or seconds <= 0:
        raise UserError("--moves must be >= 10, --matches >= 0 and --seconds > 0")
    parse_clients(clients)
    earlier = load_earlier(compare)
    with wakeup_limit(cpu_wakeup_us):
        run_bench(
            moves,
            matches,
            think_ms,
            seconds,
            clients=clients,
            repeats=repeats,
            max_repeats=max_repeats,
            as_json=as_json,
            earlier=earlier,
        )


@user_errors
def bench_server_cmd(
    flood: Annotated[
        int, typer.Option("--flood", help="CreateMatch calls at once (0: skip).")
    ] = 2000,
    burst: Annotated[
        int, typer.Option("--burst", help="Concurrent GetMatch calls on one channel (0: skip).")
    ] = 10_000,
    sizes: Annotated[
        str, typer.Option("--sizes", help="Concurrent match counts to try (comma-separated).")
    ] = "250,500,1000",
    think_ms: Annotated[float, typer.Option("--think-ms", help="Bot think time per move.")] = 500.0,
    seconds: Annotated[float, typer.Option("--seconds", help="Duration of each load run.")] = 10.0,
    max_pending: Annotated[
        int, typer.Option("--max-pending", help="The servers' --max-pending.")
    ] = 1000,
    repeats: REPEATS = 3,
    max_repeats: MAX_REPEATS = 5,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
    load_client: Annotated[
        str,
        typer.Option(
            "--load-client",
            help="Load generator: go (bots/go/loadgen), python, or auto (go when it builds).",
        ),
    ] = "auto",
    cpu_wakeup_us: CPU_WAKEUP = None,
) -> None:
    """`arena serve` processes under load: CreateMatch flood vs health, a GetMatch burst,
    and concurrent matches (1 and 2 server processes) at p99 <= 2x single-match p99,
    with where each run's tail comes from (event-loop delay, GC, CPU)."""
    from arena.bench.grpc_server import run_server_bench
    from arena.bench.report import load_earlier
    from arena.cpu_idle import wakeup_limit

    try:
        counts = [int(x) for x in sizes.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"--sizes must be comma-separated integers, got {sizes!r}") from None
    if not counts or min(counts) < 1 or seconds <= 0 or flood < 0 or burst < 0:
        raise UserError("--sizes must be >= 1, --seconds > 0, --flood and --burst >= 0")
    _check_repeats(repeats, max_repeats)
    earlier = load_earlier(compare)
    with wakeup_limit(cpu_wakeup_us):  # (machine-wide: the servers it starts have it too)
        run_server_bench(
            flood,
            burst,
            counts,
            think_ms,
            seconds,
            max_pending,
            repeats,
            max_repeats,
            as_json,
            earlier,
            load_client,
        )


@user_errors
def bench_arena_cmd(
    game: Annotated[str | None, typer.Option("--game", help="Game (default: a fast one).")] = None,
    games: Annotated[int, typer.Option("--games", help="Games per measurement.")] = 3000,
    bot: Annotated[str, typer.Option("--bot", help="Bot spec of all 5 bots.")] = "random",
    repeats: Annotated[
        int, typer.Option("--repeats", help="Least repeats of the whole measurement.")
    ] = 2,
    max_repeats: Annotated[
        int, typer.Option("--max-repeats", help="Most repeats while the speedup moves.")
    ] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
    workers: Annotated[
        str,
        typer.Option(
            "--workers", help="Worker counts of the scaling curve, e.g. 1,2,3,4 (1,2 always)."
        ),
    ] = "1,2",
    cluster: Annotated[
        bool,
        typer.Option(
            "--cluster", help="Play 3+ workers on a two-node local Ray cluster (this machine)."
        ),
    ] = False,
) -> None:
    """Tournament games/s on Ray (1, 2, ... workers) vs sequential, CPU per game, logging."""
    from arena.bench.arena import parse_workers, run_arena_bench
    from arena.bench.report import load_earlier

    _check_repeats(repeats, max_repeats)
    if games < 20:
        raise UserError(f"--games must be >= 20 (a round of the bench's roster), got {games}")
    counts = parse_workers(workers)
    earlier = load_earlier(compare)
    run_arena_bench(game, games, as_json, bot, repeats, max_repeats, earlier, counts, cluster)


@user_errors
def bench_search_cmd(
    game: Annotated[str | None, typer.Option("--game", help="Only this game.")] = None,
    players: Annotated[int, typer.Option("--players", help="Seats (capped per game).")] = 3,
    iterations: Annotated[int, typer.Option("--iterations", help="ISMCTS iterations.")] = 300,
    repeats: REPEATS = 3,
    max_repeats: MAX_REPEATS = 9,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
) -> None:
    """ISMCTS iterations per CPU second per game, and solo Dziobaki's first move."""
    from arena.bench.report import load_earlier
    from arena.bench.search import run_search_bench

    _check_repeats(repeats, max_repeats)
    if players < 1 or iterations < 1:
        raise UserError("--players and --iterations must be >= 1")
    if game is not None:
        from engine import GAMES

        if game not in GAMES:
            raise UserError(f"unknown game {game!r}; known: {', '.join(sorted(GAMES))}")
    earlier = load_earlier(compare)
    run_search_bench(game, players, iterations, repeats, max_repeats, as_json, earlier)


@user_errors
def bench_strength_cmd(
    game: Annotated[
        list[str] | None,
        typer.Option("--game", help="Game id (repeatable; default every game)."),
    ] = None,
    games: Annotated[
        int, typer.Option("--games", help="Games per game id in each batch (repeat).")
    ] = 15,
    seed: Annotated[int, typer.Option("--seed", help="First seed.")] = 1,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            help="Bot spec (repeatable; default random, greedy and ismcts at the game's budget).",
        ),
    ] = None,
    workers: Annotated[int, typer.Option("--workers", help="Parallel processes.")] = 1,
    repeats: Annotated[
        int, typer.Option("--repeats", help="Least batches per game id (mean scores settle).")
    ] = 2,
    max_repeats: Annotated[
        int, typer.Option("--max-repeats", help="Most batches while a mean score moves.")
    ] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
) -> None:
    """Strength ladder: the bots at one table, seats rotated over the same seeds, in
    batches until each bot's mean score settles; mean score and win rate with 95%
    intervals, time per move, whether strictly ordered."""
    from arena.bench.report import load_earlier
    from arena.bench.strength import run_strength

    _check_repeats(repeats, max_repeats)
    if games < 1 or workers < 1:
        raise UserError("--games and --workers must be >= 1")
    earlier = load_earlier(compare)
    run_strength(game, bot, games, seed, workers, as_json, repeats, max_repeats, earlier)


@user_errors
def bench_ladder_cmd(
    db: Annotated[
        str | None,
        typer.Option("--db", help="Also time commits on this (PostgreSQL) database URL."),
    ] = None,
    game: Annotated[str | None, typer.Option("--game", help="Game (default: a fast one).")] = None,
    games: Annotated[int, typer.Option("--games", help="Games per throughput measurement.")] = 1000,
    bot: Annotated[str, typer.Option("--bot", help="Bot spec of all 5 bots.")] = "random",
    workers: Annotated[int, typer.Option("--workers", help="Ray workers.", min=1)] = 2,
    throughput: Annotated[
        bool,
        typer.Option("--throughput/--no-throughput", help="Compare games/s with a tournament."),
    ] = True,
    repeats: Annotated[
        int, typer.Option("--repeats", help="Least repeats of the matchmaking and commit times.")
    ] = 3,
    max_repeats: Annotated[
        int, typer.Option("--max-repeats", help="Most repeats while a time moves.")
    ] = 6,
    throughput_repeats: Annotated[
        int,
        typer.Option("--throughput-repeats", help="Most repeats of the throughput ratio.", min=1),
    ] = 2,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
) -> None:
    """Ladder: matchmaking time per decision (10/100/1,000 bots), commit time per result
    (SQLite; PostgreSQL with --db), games to leave provisional, games/s vs a tournament."""
    from arena.bench.ladder import run_ladder_bench
    from arena.bench.report import load_earlier

    _check_repeats(repeats, max_repeats)
    run_ladder_bench(
        db,
        as_json=as_json,
        earlier=load_earlier(compare),
        game=game,
        bot=bot,
        games=games,
        workers=workers,
        throughput=throughput,
        repeats=repeats,
        max_repeats=max_repeats,
        throughput_repeats=throughput_repeats,
    )


@user_errors
def bench_lobby_cmd(
    trials: Annotated[
        int, typer.Option("--trials", help="Least bot connects to time.", min=1)
    ] = 20,
    max_repeats: Annotated[
        int, typer.Option("--max-repeats", help="Most connects while the median moves.")
    ] = 40,
    game: Annotated[str, typer.Option("--game", help="The ladder's game.")] = "dziobaki",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
) -> None:
    """Lobby: assignment latency, a remote bot's token connect to its first MatchAssigned."""
    from arena.bench.lobby import run_lobby_bench
    from arena.bench.report import load_earlier

    _check_repeats(trials, max_repeats)
    _check_game(game)
    run_lobby_bench(trials, game, max_repeats, as_json, load_earlier(compare))


@user_errors
def bench_ratings_cmd(
    reps: Annotated[
        int, typer.Option("--reps", help="Replications per row in each batch (repeat).")
    ] = 100,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the synthetic games.")] = 0,
    sprt: Annotated[
        str, typer.Option("--sprt", help="The SPRT whose error rates are measured.")
    ] = "elo0=0,elo1=10,alpha=0.05,beta=0.05",
    repeats: Annotated[int, typer.Option("--repeats", help="Least batches of replications.")] = 2,
    max_repeats: Annotated[
        int, typer.Option("--max-repeats", help="Most batches while a figure moves.")
    ] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
) -> None:
    """Coverage of the leaderboard's 95% rating intervals on games drawn from a known
    model, and the SPRT's error rates and games to a decision."""
    from arena.bench.ratings import run_ratings_bench
    from arena.bench.report import load_earlier

    _check_repeats(repeats, max_repeats)
    if reps < 1:
        raise UserError("--reps must be >= 1")
    earlier = load_earlier(compare)
    run_ratings_bench(reps, seed, sprt, as_json, repeats, max_repeats, earlier)


@user_errors
def bench_sandbox_cmd(
    repeats: Annotated[int, typer.Option("--repeats", help="Least start-ups timed each way.")] = 10,
    max_repeats: Annotated[
        int, typer.Option("--max-repeats", help="Most start-ups each way while a ratio moves.")
    ] = 20,
    games: Annotated[int, typer.Option("--games", help="Least matches played each way.")] = 4,
    max_games: Annotated[
        int, typer.Option("--max-games", help="Most matches each way while the ratio moves.")
    ] = 8,
    game: Annotated[str, typer.Option("--game", help="Game of the matches.")] = "zooloretto_mini",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
) -> None:
    """Start-up and per-move cost of a sandboxed command bot against an unsandboxed one."""
    from arena.bench.report import load_earlier
    from arena.bench.sandbox import run_sandbox_bench

    _check_repeats(repeats, max_repeats)
    if games < 1 or max_games < games:
        raise UserError(
            f"--games must be >= 1 and --max-games >= --games, got {games} and {max_games}"
        )
    _check_game(game)
    earlier = load_earlier(compare)
    run_sandbox_bench(repeats, games, game, as_json, max_repeats, max_games, earlier)


@user_errors
def bench_startup_cmd(
    repeats: Annotated[int, typer.Option("--repeats", help="Least runs of each case.")] = 3,
    max_repeats: Annotated[
        int, typer.Option("--max-repeats", help="Most runs of a case while its time moves.")
    ] = 5,
    case: Annotated[
        list[str] | None,
        typer.Option(
            "--case",
            help="Only this case (repeatable): no-tracking, tracking-existing, tracking-fresh.",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    compare: Annotated[Path | None, COMPARE] = None,
) -> None:
    """Wall time of a 2-game tournament, start to exit: without tracking, with an existing
    MLflow store and with a fresh one."""
    from arena.bench.report import load_earlier
    from arena.bench.startup import CASES, run_startup_bench

    _check_repeats(repeats, max_repeats)
    cases = case or list(CASES)
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        raise UserError(f"unknown case(s) {unknown}; known: {', '.join(CASES)}")
    run_startup_bench(repeats, as_json, max_repeats, load_earlier(compare), cases)
