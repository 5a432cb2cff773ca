"""``arena bench lobby``: lobby assignment latency, from a bot opening its lobby stream
with its token to its first ``MatchAssigned``.

Each trial is what a remote bot sees when it connects to a running ladder: the runner
(:class:`arena.ladder.runner.LadderRunner` with the lobby, in this process, one hosted
``random`` bot and one remote bot on a 2-player ladder) is idle, waiting for bots; the
bot (:func:`bots.sdk.run_lobby`, in a thread of this process, a fresh connection each
trial) connects, is authenticated (a database look-up of its token's hash), comes
online, is picked by matchmaking, the match is created on the runner's game server
(the ``CreateMatch`` RPC) and ``MatchAssigned`` reaches it. The bot then plays the
duplicate set (2 games) and leaves; the runner stops after them. The latency is
measured by the bot (:attr:`bots.sdk.LobbyRun.first_assigned_s`). Trials are repeated
until the median settles (:mod:`arena.bench.report`; ``--trials`` at least,
``--max-repeats`` at most).
"""

from __future__ import annotations

import tempfile
import threading
from pathlib import Path
from typing import Any

from arena.bench import report
from arena.stats import percentile

GAME = "dziobaki"


def bench_lobby(
    trials: int = 20, game: str = GAME, max_trials: int | None = None
) -> dict[str, Any]:
    """Median, p90 and max of the assignment latency (ms) over connects repeated until
    the median is stable (:mod:`arena.bench.report`: at least ``trials``, at most
    ``max_trials`` connects, default ``trials``); with the machine's cores and load."""
    from arena.ladder.remote import LobbySettings, host_lobby
    from arena.ladder.runner import LadderRunner, RunnerConfig
    from arena.ladder.store import LadderStore
    from arena.ladder.tokens import Tokens
    from bots import sdk
    from bots.random_client import RandomClient

    info = report.machine()
    latencies: list[float] = []
    with (
        tempfile.TemporaryDirectory(prefix="mnr-bench-lobby-") as tmp,
        LadderStore(str(Path(tmp) / "ladder.db")) as store,
    ):
        store.create_ladder("bench", game, 2)
        store.add_version("bench", "random", spec="random", status="active")
        store.add_version("bench", "remote", kind="remote", status="active")
        _info, token = Tokens(store).issue("bench", "remote")
        with host_lobby(store, ["bench"], LobbySettings("127.0.0.1:0")) as host:

            def trial() -> float:
                config = RunnerConfig(workers=0, games=2, tracking=False, idle_s=5.0)
                runner = LadderRunner(
                    store, "bench", home=tmp, config=config, log=lambda _: None, remote=host.matches
                )
                driver = threading.Thread(target=runner.run, daemon=True)
                driver.start()
                run = sdk.run_lobby(
                    RandomClient(0),
                    host.address,
                    token,
                    games=2,
                    max_failures=3,
                    log=lambda _: None,
                )
                driver.join(120)
                if driver.is_alive():
                    runner.request_stop("the benchmark timed out")
                    driver.join(60)
                    raise RuntimeError("a lobby benchmark trial did not finish in 120 s")
                if run.first_assigned_s is None:
                    raise RuntimeError("the bot got no MatchAssigned")
                latencies.append(run.first_assigned_s * 1000)
                return latencies[-1]

            verdict, _ = report.until_stable(trial, trials, max(trials, max_trials or trials))
    return {
        "machine": info,
        "game": game,
        "trials": len(latencies),
        "assign_ms_median": round(percentile(latencies, 50), 2),
        "assign_ms_p90": round(percentile(latencies, 90), 2),
        "assign_ms_max": round(max(latencies), 2),
        "stability": verdict.as_json(),
    }


def print_report(data: dict[str, Any]) -> None:
    """``arena bench lobby`` without ``--json`` (after the machine line)."""
    note = report.Stability.from_json(data["stability"]).note()
    print(
        f"lobby assignment latency (token connect -> first MatchAssigned), {data['game']}, "
        f"{data['trials']} connects: median {data['assign_ms_median']:.1f} ms, "
        f"p90 {data['assign_ms_p90']:.1f} ms, max {data['assign_ms_max']:.1f} ms{note}"
    )


def run_lobby_bench(
    trials: int, game: str, max_trials: int, as_json: bool, earlier: Any = None
) -> dict[str, Any]:
    """``arena bench lobby``: the machine line and the latency figures, or JSON; with the
    change of every figure against ``earlier`` (an earlier run's JSON) when given."""
    if not as_json:
        print(report.header_line(report.machine()), flush=True)
    out = bench_lobby(trials, game, max_trials)
    if not as_json:
        print_report(out)
    report.finish(out, earlier, as_json)
    return out
