"""The ``ismcts`` (or ``greedy``) bot as a gRPC client program (a command bot).

``python -m bots.ismcts_client --address HOST:PORT --credential SECRET [--iterations N |
--ms M] [--bot greedy] [--seed S]`` (address and credential may come from
``MENAGERIE_ADDRESS``/``MENAGERIE_CREDENTIAL``), or as a seat of an arena match::

    arena play panorama --players 2 \\
        --bots "cmd:python -m bots.ismcts_client --iterations 200,greedy"

Over the wire the bot receives only its observation, the legal actions and the number
of steps played so far, while the search needs a full game state to draw
determinizations from. A :class:`~bots.tracker.StateTracker` rebuilds one that shows
exactly the received observation and legal actions (searching for the chance outcomes
and the other seats' moves it did not see), then the in-process bot plays on it as it
would in the arena. When no consistent state is found in time (rare; more likely in
games with much hidden information), that one move is a random legal move, reported on
stderr, and the next turn tries again.

The client speaks the protocol directly (Join, then Turn/Move until GameOver) rather
than through :func:`bots.sdk.run`, because it needs the Turn's step number.
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import sys
import time
from collections.abc import Iterator
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2 as pb
from menagerie.v1 import game_service_pb2_grpc as pb_grpc

from bots import sdk
from bots.base import Bot, Turn
from bots.registry import make_bot
from bots.tracker import StateTracker
from bots.wire import game_action_from_proto, observation_from_proto
from engine import GAMES


class WireSearchBot:
    """Plays one seat over the wire with an in-process bot on a rebuilt state."""

    def __init__(self, bot: Bot, seed: int | None = None) -> None:
        self.bot = bot
        self.rng = random.Random(seed)
        self.tracker: StateTracker | None = None
        self.seat = -1
        self.game_id = ""
        self.fallbacks = 0
        self.turns = 0

    def start(self, start: pb.MatchStart) -> None:
        self.game_id = start.game
        self.seat = start.seat
        options = json.loads(start.options_json or "{}")
        game = GAMES[start.game]
        self.tracker = StateTracker(game, start.num_players, options, start.seat, self.rng)

    def choose(self, turn: pb.Turn) -> int:
        """The index of the chosen legal action of ``turn``."""
        assert self.tracker is not None
        received = time.perf_counter()
        self.turns += 1
        legal_json = [
            game_action_from_proto(self.game_id, getattr(la.action, self.game_id))
            for la in turn.legal_actions
        ]
        _, observation = observation_from_proto(turn.observation)
        # rebuilding may use at most half of the move clock (2 s without one)
        budget_s = turn.time_limit_ms / 2000 if turn.time_limit_ms else 2.0
        state = self.tracker.sync(observation, turn.step, legal_json, received + budget_s)
        if state is None:
            self.fallbacks += 1
            print(
                f"ismcts client: no consistent state at step {turn.step}; random move",
                file=sys.stderr,
            )
            return self.rng.randrange(len(legal_json))
        legal = state.legal_actions()
        left = None
        if turn.time_limit_ms:
            left = turn.time_limit_ms - (time.perf_counter() - received) * 1000
        choice = self.bot.choose(Turn(GAMES[self.game_id], self.seat, state, legal, self.rng, left))
        index = choice if isinstance(choice, int) else legal.index(choice)
        self.tracker.played(legal[index], turn.step)
        return index


def play(client: WireSearchBot, address: str, credential: str, name: str) -> dict[str, Any]:
    """Join with ``credential`` and play until GameOver; returns a summary."""
    channel = grpc.insecure_channel(address)
    try:
        grpc.channel_ready_future(channel).result(timeout=30)
    except grpc.FutureTimeoutError:
        raise sdk.SdkError("UNAVAILABLE", f"cannot connect to {address}") from None
    outgoing: queue.SimpleQueue[pb.PlayRequest | None] = queue.SimpleQueue()
    outgoing.put(
        pb.PlayRequest(join=pb.Join(credential=credential, bot_name=name, bot_version="1"))
    )

    def requests() -> Iterator[pb.PlayRequest]:
        while (item := outgoing.get()) is not None:
            yield item

    try:
        for response in pb_grpc.GameServiceStub(channel).Play(requests()):
            kind = response.WhichOneof("message")
            if kind == "match_start":
                client.start(response.match_start)
            elif kind == "turn":
                index = client.choose(response.turn)
                move = pb.Move(sequence=response.turn.sequence, index=index)
                outgoing.put(pb.PlayRequest(move=move))
            elif kind == "error":
                print(f"server: {response.error.message}", file=sys.stderr)
            elif kind == "game_over":
                over = response.game_over
                return {"scores": list(over.scores), "ranks": list(over.ranks)}
    except grpc.RpcError as exc:
        raise sdk.SdkError(exc.code().name, exc.details() or "") from None
    finally:
        outgoing.put(None)
        channel.close()
    raise sdk.SdkError("UNKNOWN", "the server ended the stream without GameOver")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sdk.add_connection_args(parser)
    parser.add_argument("--bot", default="ismcts", help="in-process bot: ismcts or greedy")
    parser.add_argument("--iterations", type=int, default=None, help="ISMCTS iterations")
    parser.add_argument("--ms", type=float, default=None, help="ISMCTS time per move (ms)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bot's RNG")
    args = parser.parse_args(argv)
    if not args.address or not args.credential:
        parser.error("--address and --credential (or the environment variables) are needed")
    spec = args.bot
    params = [f"{k}={v}" for k, v in (("iterations", args.iterations), ("ms", args.ms)) if v]
    if params and spec == "ismcts":
        spec += ":" + ",".join(params)
    client = WireSearchBot(make_bot(spec), args.seed)
    try:
        result = play(client, args.address, args.credential, spec)
    except sdk.SdkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print(
        f"ismcts client: game over {result}; {client.fallbacks} of {client.turns} moves "
        "without a rebuilt state",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
