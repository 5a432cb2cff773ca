"""A channel to a game server, with the admin token, and gRPC errors as clear messages.

Every unary call has a deadline (:data:`CALL_TIMEOUT_S`) and the channel sends
keepalive pings, so a vanished server ends a call or a Watch stream with a message
instead of a hang. A failed call becomes a :class:`ClientError` (a ``UserError``: the
command line prints one line, no traceback) that says what to do about it.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2_grpc as pb_grpc

from arena.errors import UserError

ADMIN_TOKEN_ENV = "MENAGERIE_ADMIN_TOKEN"
"""The environment variable of the admin token (the same one ``arena serve`` reads)."""

CALL_TIMEOUT_S = 10.0
"""Deadline of one unary call (CreateMatch, GetMatch)."""

CHANNEL_OPTIONS: list[tuple[str, Any]] = [
    ("grpc.max_receive_message_length", 64 << 20),  # a long game's record_json
    # Notice a dead server on a quiet Watch stream; the server allows a ping every 10 s.
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
]


class ClientError(UserError):
    """A call to the game server failed; the message says why and what to do."""

    def __init__(self, message: str, code: grpc.StatusCode | None = None) -> None:
        super().__init__(message)
        self.code = code


class Connection:
    """A channel to ``address`` and its GameService stub; admin calls carry the token.

    >>> with Connection("127.0.0.1:1", admin_token="t") as conn:
    ...     conn.metadata
    (('authorization', 'Bearer t'),)
    """

    def __init__(self, address: str, admin_token: str | None = None) -> None:
        if not address or ":" not in address:
            raise ClientError(f"the server address must be HOST:PORT, got {address!r}")
        self.address = address
        token = admin_token if admin_token is not None else os.environ.get(ADMIN_TOKEN_ENV, "")
        self.admin_token = token.strip()
        """The admin token ('' for none): given, else ``$MENAGERIE_ADMIN_TOKEN``."""
        self.channel = grpc.insecure_channel(address, options=CHANNEL_OPTIONS)
        self.stub = pb_grpc.GameServiceStub(self.channel)

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The call metadata of admin calls (``authorization: Bearer <token>``)."""
        return (("authorization", f"Bearer {self.admin_token}"),) if self.admin_token else ()

    def error(self, exc: grpc.RpcError, what: str, match_id: str = "") -> ClientError:
        """``exc`` (a failed call doing ``what``) as a message a person can act on."""
        code: grpc.StatusCode = exc.code()
        details: str = exc.details() or ""
        where = f"the game server at {self.address}"
        if code == grpc.StatusCode.UNAVAILABLE:
            text = f"cannot reach {where} ({details}); is `arena serve` running there?"
        elif code == grpc.StatusCode.DEADLINE_EXCEEDED:
            text = f"{where} did not answer {what} within {CALL_TIMEOUT_S:g} s"
        elif code == grpc.StatusCode.UNAUTHENTICATED:
            given = "the admin token was refused" if self.admin_token else "no admin token given"
            text = (
                f"{what}: {given} ({details}); pass the token `arena serve` printed or was "
                f"given, with --admin-token or ${ADMIN_TOKEN_ENV}"
            )
        elif code == grpc.StatusCode.NOT_FOUND and match_id:
            text = (
                f"{where} has no match {match_id!r} (a finished match is forgotten after "
                "a while; a restarted server knows none of the old ones)"
            )
        elif code == grpc.StatusCode.INVALID_ARGUMENT:
            text = f"{where} refused {what}: {details}"
        elif code == grpc.StatusCode.RESOURCE_EXHAUSTED:
            text = f"{where} is at a limit ({what}): {details}; try again later"
        elif code == grpc.StatusCode.UNIMPLEMENTED:
            text = f"{where} does not serve {what} ({details}): is it a Menagerie game server?"
        else:
            text = f"{what} failed: {code.name}: {details}"
        return ClientError(text, code)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


__all__ = ["ADMIN_TOKEN_ENV", "CALL_TIMEOUT_S", "ClientError", "Connection"]
