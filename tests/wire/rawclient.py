"""A scripted raw Play client for the wire tests: send any bytes, read every message."""

from __future__ import annotations

import queue
import threading
from typing import Any

import grpc
from menagerie.v1 import game_service_pb2 as pb

PLAY = "/menagerie.v1.GameService/Play"


class RawSeat:
    """One Play stream; ``send`` takes a PlayRequest or raw bytes, ``recv`` a response."""

    def __init__(self, address: str) -> None:
        self.channel = grpc.insecure_channel(address)
        self._out: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._in: queue.SimpleQueue[Any] = queue.SimpleQueue()
        method = self.channel.stream_stream(
            PLAY, request_serializer=lambda b: b, response_deserializer=pb.PlayResponse.FromString
        )
        self.call = method(iter(self._out.get, None))
        self.code: grpc.StatusCode | None = None
        self.details = ""
        self._done = threading.Event()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        try:
            for response in self.call:
                self._in.put(response)
        except grpc.RpcError as exc:
            self.code = exc.code()
            self.details = exc.details() or ""
        else:
            self.code = grpc.StatusCode.OK
        self._in.put(None)
        self._done.set()

    def send(self, message: pb.PlayRequest | bytes) -> None:
        data = message if isinstance(message, bytes) else message.SerializeToString()
        self._out.put(data)

    def join(self, credential: str, **fields: Any) -> None:
        self.send(pb.PlayRequest(join=pb.Join(credential=credential, **fields)))

    def move(self, sequence: int, index: int | None = None, action: Any = None) -> None:
        move = pb.Move(sequence=sequence)
        if index is not None:
            move.index = index
        if action is not None:
            move.action.CopyFrom(action)
        self.send(pb.PlayRequest(move=move))

    def recv(self, timeout: float = 60.0) -> pb.PlayResponse | None:
        """The next message, or None when the stream has ended (see ``code``)."""
        return self._in.get(timeout=timeout)  # type: ignore[no-any-return]  # holds PlayResponse or None

    def recv_kind(self, kind: str, timeout: float = 60.0) -> Any:
        """Skip to the next message of ``kind`` (returns its payload); None if the stream ends."""
        while True:
            msg = self.recv(timeout)
            if msg is None:
                return None
            if msg.WhichOneof("message") == kind:
                return getattr(msg, kind)

    def wait_status(self, timeout: float = 60.0) -> tuple[grpc.StatusCode | None, str]:
        self._done.wait(timeout)
        return self.code, self.details

    def close(self) -> None:
        self._out.put(None)

    def cancel(self) -> None:
        self.call.cancel()
        self.channel.close()
