"""The ``menagerie.v1.GameService`` handlers (grpc.aio, on the server's event loop).

Requests are deserialised here, not by gRPC, so that bytes that are not a valid
message get a clear INVALID_ARGUMENT instead of an opaque INTERNAL error.

Every request field is checked first (:mod:`arena.server.validate`: INVALID_ARGUMENT),
and an unexpected exception in a handler ends that call with INTERNAL (logged: a bug),
never UNKNOWN; so a client only ever sees the status codes of proto/README.md.

Error policy on a Play stream (see proto/README.md):

- ending the stream with a status: the first message is not a Join, or none came within
  ``ServerConfig.join_first_s`` (UNAUTHENTICATED),
  bad or missing credential (UNAUTHENTICATED), credential for another seat or match
  (PERMISSION_DENIED), seat already connected (ALREADY_EXISTS), match over
  (FAILED_PRECONDITION), unparseable first message (INVALID_ARGUMENT), message over
  the size limit or flooding (RESOURCE_EXHAUSTED);
- in-stream ``Error`` (the stream stays open): stale sequence (ABORTED), no such turn
  pending (FAILED_PRECONDITION), malformed/out-of-range/illegal move (INVALID_ARGUMENT,
  and the move counts as illegal), a second Join (FAILED_PRECONDITION), unparseable
  message (INVALID_ARGUMENT). Unsolicited messages (anything that does not answer the
  pending turn) are rate limited per stream.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.message import DecodeError
from menagerie.v1 import game_service_pb2 as pb

from arena.match.runner import MatchConfig, MatchSpec
from arena.server.hub import Hub
from arena.server.messages import error_message, policy_name, serialize_play_response
from arena.server.seats import RemoteSeat
from arena.server.streams import Close, Outbox, StreamError, TokenBucket
from arena.server.table import FINISHED, Table
from arena.server.validate import (
    check_create,
    check_join,
    check_list,
    check_match_id,
    check_watch,
    parse_options,
)
from engine import GameConfigError, get_game

log = logging.getLogger("arena.server")

SERVICE = "menagerie.v1.GameService"

Host = Callable[[Table], None]

HALF_CLOSE_WAIT_S = 0.1


class GameService:
    """Handlers of the five RPCs; ``host`` starts a thread that drives a created table."""

    def __init__(self, hub: Hub, host: Host) -> None:
        self.hub = hub
        self.host = host

    # -- Play ---------------------------------------------------------------------

    async def play(
        self,
        request_iterator: Any,
        context: grpc.aio.ServicerContext[bytes, pb.PlayResponse | bytes],
    ) -> None:
        try:
            first = await asyncio.wait_for(context.read(), self.hub.config.join_first_s)
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                f"no Join within {self.hub.config.join_first_s:g} s of opening the stream",
            )
        if first is grpc.aio.EOF:  # type: ignore[comparison-overlap]  # the stubs' ServicerContext.read() omits EOF
            return
        try:
            request = pb.PlayRequest.FromString(first)
        except DecodeError:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "malformed message: not a PlayRequest"
            )
        if request.WhichOneof("message") != "join":
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "the first message must be a Join carrying the seat credential",
            )
        outbox = Outbox(asyncio.get_running_loop())
        try:
            check_join(request.join)
            seat = self.hub.authenticate(request.join)
            seat.attach(outbox, request.join.bot_name, request.join.bot_version)
        except StreamError as exc:
            await context.abort(exc.code, exc.message)
        seat.table.move_times = self.hub.move_times
        reader = asyncio.create_task(self._read(context, seat, outbox))
        limit = self.hub.config.max_message_kb
        reason = f"the stream closed (the bot disconnected, or sent a message over {limit} KB)"
        match_id = seat.table.match_id

        async def write(item: pb.PlayResponse | bytes) -> None:
            times = self.hub.move_times
            if times is not None and type(item) is bytes:  # a Turn (they come encoded)
                times.turn_written(match_id)
            await context.write(item)

        outbox.write_now = write
        try:
            while True:
                item = await outbox.get()
                if isinstance(item, Close):
                    if item.code is not None:
                        reason = f"the server closed the stream: {item.code.name}: {item.message}"
                        await context.abort(item.code, item.message)
                    reason = outbox.close_reason
                    return
                await write(item)
        finally:
            outbox.cancel_write()
            reader.cancel()
            seat.detach(outbox, reason)
            if self.hub.move_times is not None:
                self.hub.move_times.match_over(match_id)

    async def _read(
        self,
        context: grpc.aio.ServicerContext[bytes, pb.PlayResponse | bytes],
        seat: RemoteSeat,
        outbox: Outbox,
    ) -> None:
        try:
            await self._read_loop(context, seat, outbox)
        except asyncio.CancelledError:
            raise
        except Exception:  # a bug must end this stream, never the server or other matches
            log.exception("reading seat %s of match %s failed", seat.seat, seat.table.match_id)
            outbox.close(grpc.StatusCode.INTERNAL, "internal server error reading the stream")

    async def _read_loop(
        self,
        context: grpc.aio.ServicerContext[bytes, pb.PlayResponse | bytes],
        seat: RemoteSeat,
        outbox: Outbox,
    ) -> None:
        config = self.hub.config
        bucket = TokenBucket(config.flood_rate, config.flood_burst)
        while True:
            try:
                raw = await context.read()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the transport failed (e.g. an oversize message)
                outbox.close(None, f"the stream failed: {exc}")
                return
            if raw is grpc.aio.EOF:  # type: ignore[comparison-overlap]  # the stubs' ServicerContext.read() omits EOF
                # A half-close, or the call failed in the transport (e.g. an oversize
                # message): the latter cancels the handler within moments, with its reason.
                await asyncio.sleep(HALF_CLOSE_WAIT_S)
                outbox.close(None, "the bot closed its side of the stream")
                return
            read_at = time.perf_counter()
            answered = False
            reply: pb.PlayResponse | None
            try:
                request = pb.PlayRequest.FromString(raw)
            except DecodeError:
                reply = error_message(
                    pb.ERROR_CODE_INVALID_ARGUMENT, "malformed message: not a PlayRequest"
                )
            else:
                kind = request.WhichOneof("message")
                if kind == "move":
                    times = self.hub.move_times
                    if times is not None:
                        times.move_read(seat.table.match_id, read_at)
                    reply, answered = seat.receive_move(request.move)
                    if times is not None:
                        times.move_handled(seat.table.match_id, read_at, answered)
                elif kind == "join":
                    reply = error_message(
                        pb.ERROR_CODE_FAILED_PRECONDITION,
                        f"already joined as seat {seat.seat}; send Moves",
                    )
                else:
                    reply = error_message(
                        pb.ERROR_CODE_INVALID_ARGUMENT, "malformed message: an empty PlayRequest"
                    )
            if reply is not None:
                outbox.send(reply)
            if not answered and not bucket.take():
                outbox.close(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"flooding: more than {config.flood_burst} messages that answer no turn "
                    f"(limit {config.flood_rate:g}/s)",
                )
                return

    # -- Watch ----------------------------------------------------------------------

    async def watch(
        self,
        request: pb.WatchRequest,
        context: grpc.aio.ServicerContext[pb.WatchRequest, pb.WatchResponse],
    ) -> AsyncIterator[pb.WatchResponse]:
        outbox = Outbox(asyncio.get_running_loop(), maxsize=self.hub.config.watch_queue)
        try:
            check_watch(request)
            seat: int | None = None
            if request.HasField("credential"):
                table, seat = self.hub.seat_of(request.credential, request.match_id)
            else:
                table = self.hub.get(request.match_id)
            table.add_watcher(outbox, self.hub.config.max_watchers, seat)
        except StreamError as exc:
            await context.abort(exc.code, exc.message)
        try:
            while True:
                item = await outbox.get()
                if isinstance(item, Close):
                    if item.code is not None:
                        await context.abort(item.code, item.message)
                    return
                yield item
        finally:
            table.remove_watcher(outbox)

    # -- CreateMatch / GetMatch ---------------------------------------------------------

    async def create_match(
        self,
        request: pb.CreateMatchRequest,
        context: grpc.aio.ServicerContext[pb.CreateMatchRequest, pb.CreateMatchResponse],
    ) -> pb.CreateMatchResponse:
        await self._check_admin(context)
        try:
            spec, config, names = self._match_from_request(request)
            table = self.hub.open_table(spec, config, names, [True] * spec.num_players)
        except StreamError as exc:
            await context.abort(exc.code, exc.message)
        self.host(table)
        return pb.CreateMatchResponse(
            match_id=table.match_id,
            seats=[pb.SeatCredential(seat=s, credential=c) for s, c in table.credentials.items()],
        )

    def _match_from_request(
        self, request: pb.CreateMatchRequest
    ) -> tuple[MatchSpec, MatchConfig, list[str]]:
        bad = grpc.StatusCode.INVALID_ARGUMENT
        check_create(request)
        try:
            game = get_game(request.game)
        except GameConfigError as exc:
            raise StreamError(bad, str(exc)) from None
        options = parse_options(request.options_json)
        try:
            game.new_game(request.num_players, options)
        except (GameConfigError, ValueError, TypeError, KeyError) as exc:
            raise StreamError(bad, f"options rejected by {game.id}: {exc}") from None
        n = request.num_players
        names = list(request.player_names) or [f"seat{s}" for s in range(n)]
        if len(names) != n:
            raise StreamError(bad, f"player_names has {len(names)} names for {n} seats")
        spec = MatchSpec(game.id, n, request.seed, options)
        move_ms = float(request.time_limit_ms) if request.time_limit_ms else None
        config = MatchConfig(move_ms=move_ms, on_failure=policy_name(request.on_failure))
        return spec, config, names

    async def get_match(
        self,
        request: pb.GetMatchRequest,
        context: grpc.aio.ServicerContext[pb.GetMatchRequest, pb.GetMatchResponse],
    ) -> pb.GetMatchResponse:
        await self._check_admin(context)
        try:
            check_match_id(request.match_id)
            table = self.hub.get(request.match_id)
        except StreamError as exc:
            await context.abort(exc.code, exc.message)
        reply = pb.GetMatchResponse(
            match_id=table.match_id, status=table.status, reason=table.abort_reason
        )
        if table.record is not None and (table.status == FINISHED or table.is_over()):
            reply.record_json = json.dumps(table.record)
        return reply

    async def list_matches(
        self,
        request: pb.ListMatchesRequest,
        context: grpc.aio.ServicerContext[pb.ListMatchesRequest, pb.ListMatchesResponse],
    ) -> pb.ListMatchesResponse:
        await self._check_admin(context)
        try:
            size = check_list(request)
            tables, next_token = self.hub.list_page(size, request.page_token, request.status)
        except StreamError as exc:
            await context.abort(exc.code, exc.message)
        reply = pb.ListMatchesResponse(next_page_token=next_token)
        for table in tables:
            summary = reply.matches.add(
                match_id=table.match_id,
                game=table.game.id,
                players=table.players(),
                status=table.status,
                reason=table.abort_reason,
            )
            summary.created.FromNanoseconds(table.created_ns)
        return reply

    async def _check_admin(self, context: grpc.aio.ServicerContext[Any, Any]) -> None:
        token = self.hub.config.admin_token
        if not token:
            return
        metadata = dict(context.invocation_metadata() or ())
        if metadata.get("authorization") != f"Bearer {token}":
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                "this call needs metadata 'authorization: Bearer <admin token>'",
            )


def handler(service: GameService) -> grpc.GenericRpcHandler:
    """The generic handler of GameService (requests of Play arrive as raw bytes)."""
    methods: dict[str, grpc.RpcMethodHandler[Any, Any]] = {
        "Play": grpc.stream_stream_rpc_method_handler(
            _guarded(service.play),
            request_deserializer=None,
            response_serializer=serialize_play_response,  # Turns come encoded
        ),
        "Watch": grpc.unary_stream_rpc_method_handler(
            _guarded_stream(service.watch),
            request_deserializer=_tolerant(pb.WatchRequest),
            response_serializer=pb.WatchResponse.SerializeToString,
        ),
        "CreateMatch": grpc.unary_unary_rpc_method_handler(
            _guarded(service.create_match),
            request_deserializer=_tolerant(pb.CreateMatchRequest),
            response_serializer=pb.CreateMatchResponse.SerializeToString,
        ),
        "GetMatch": grpc.unary_unary_rpc_method_handler(
            _guarded(service.get_match),
            request_deserializer=_tolerant(pb.GetMatchRequest),
            response_serializer=pb.GetMatchResponse.SerializeToString,
        ),
        "ListMatches": grpc.unary_unary_rpc_method_handler(
            _guarded(service.list_matches),
            request_deserializer=_tolerant(pb.ListMatchesRequest),
            response_serializer=pb.ListMatchesResponse.SerializeToString,
        ),
    }
    return grpc.method_handlers_generic_handler(SERVICE, methods)


def _tolerant(cls: Any) -> Callable[[bytes], Any]:
    """A deserialiser that turns garbage into an empty request (which then fails to match)."""

    def parse(data: bytes) -> Any:
        try:
            return cls.FromString(data)
        except DecodeError:
            return cls()

    return parse


R = TypeVar("R")


async def _internal(context: grpc.aio.ServicerContext[Any, Any], what: str) -> None:
    log.exception("the %s handler failed", what)
    await context.abort(grpc.StatusCode.INTERNAL, f"internal server error in {what}")


def _guarded(
    method: Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[R]],
) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[R]]:
    """``method`` with an unexpected exception turned into INTERNAL (never UNKNOWN)."""

    @functools.wraps(method)
    async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> R:
        try:
            return await method(request, context)
        except (asyncio.CancelledError, grpc.aio.AbortError):
            raise
        except Exception:
            await _internal(context, method.__name__)
            raise AssertionError("unreachable: abort raises") from None

    return call


def _guarded_stream(
    method: Callable[[Any, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[R]],
) -> Callable[[Any, grpc.aio.ServicerContext[Any, Any]], AsyncIterator[R]]:
    """A response-streaming ``method`` guarded like :func:`_guarded`."""

    @functools.wraps(method)
    async def call(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[R]:
        try:
            async for item in method(request, context):
                yield item
        except (asyncio.CancelledError, grpc.aio.AbortError):
            raise
        except Exception:
            await _internal(context, method.__name__)

    return call
