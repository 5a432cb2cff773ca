"""``ListMatches`` and ``arena match list`` against a real embedded game server (loopback)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent import futures
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest
from menagerie.v1 import game_service_pb2 as pb
from menagerie.v1 import game_service_pb2_grpc as pb_grpc

from arena.client.connection import CALL_TIMEOUT_S, Connection
from arena.client.matches import create_match
from tests.cli import CliResult, run_cli
from tests.client.helpers import TOKEN, WAIT_S, admin_server
from tests.wire.helpers import BotThread


def _cli(*args: str, tmp_path: Path) -> CliResult:
    return run_cli(
        *args,
        env={"MENAGERIE_MATCH_HISTORY": str(tmp_path / "m.jsonl"), "MENAGERIE_ADMIN_TOKEN": ""},
    )


def _list(conn: Connection, **fields: object) -> pb.ListMatchesResponse:
    request = pb.ListMatchesRequest(**fields)  # type: ignore[arg-type]
    reply: pb.ListMatchesResponse = conn.stub.ListMatches(
        request, timeout=CALL_TIMEOUT_S, metadata=conn.metadata
    )
    return reply


def test_list_pages_newest_first_and_filters_by_status(tmp_path: Path) -> None:
    with admin_server() as server, Connection(server.address, TOKEN) as conn:
        before = time.time()
        ids = [
            create_match(conn, g, 2, names=[f"a{i}", f"b{i}"], remember=False).match_id
            for i, g in enumerate(
                ["dziobaki", "panorama", "zooloretto_mini", "dziobaki", "panorama"]
            )
        ]
        played = create_match(conn, "zooloretto_mini", 2, remember=False)
        for bot in [BotThread(server.address, c) for c in played.credentials]:
            bot.join(WAIT_S)
            assert bot.result is not None, bot.error
        assert server.hub.get(played.match_id).done.wait(WAIT_S)

        pages, token = [], ""
        while True:
            reply = _list(conn, page_size=2, page_token=token)
            pages.append([m.match_id for m in reply.matches])
            token = reply.next_page_token
            if not token:
                break
        first = _list(conn).matches  # page_size 0: the default page (50)
        waiting = _list(conn, status=pb.MATCH_STATUS_WAITING).matches
        finished = _list(conn, status=pb.MATCH_STATUS_FINISHED).matches

        cli = _cli("match", "list", server.address, "--admin-token", TOKEN, "--limit", "3",
                   tmp_path=tmp_path)  # fmt: skip
        cli_json = _cli("match", "list", server.address, "--admin-token", TOKEN, "--json",
                        "--status", "finished", tmp_path=tmp_path)  # fmt: skip
        cli_bad = _cli("match", "list", server.address, "--admin-token", TOKEN,
                       "--status", "lost", tmp_path=tmp_path)  # fmt: skip

    newest_first = [played.match_id, *reversed(ids)]
    assert pages == [newest_first[0:2], newest_first[2:4], newest_first[4:6]]
    assert [m.match_id for m in first] == newest_first
    summary = next(m for m in first if m.match_id == ids[1])
    assert summary.game == "panorama" and summary.status == pb.MATCH_STATUS_WAITING
    assert [(p.seat, p.name, p.remote) for p in summary.players] == [
        (0, "a1", True),
        (1, "b1", True),
    ]
    assert before - 1 <= summary.created.ToNanoseconds() / 1e9 <= time.time() + 1
    assert [m.match_id for m in waiting] == list(reversed(ids))
    assert [m.match_id for m in finished] == [played.match_id]

    assert cli.exit_code == 0, cli.stderr
    rows = [line.split()[0] for line in cli.stdout.splitlines() if line.startswith("  ")]
    assert rows == newest_first[:3]
    assert f"{played.match_id}  finished  zooloretto_mini" in cli.stdout
    assert f"{ids[4]}  waiting   panorama" in cli.stdout and "a4, b4" in cli.stdout
    assert cli_json.exit_code == 0, cli_json.stderr
    (row,) = json.loads(cli_json.stdout)
    assert row["match_id"] == played.match_id and row["status"] == "finished"
    assert row["game"] == "zooloretto_mini" and row["created"].endswith("Z")
    assert cli_bad.exit_code == 2 and "--status must be one of" in cli_bad.stderr


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"page_size": 101}, "page_size is 101 (at most 100)"),
        ({"page_token": "t" * 300}, "page_token is 300 characters long"),
        ({"page_token": "not-a-token"}, "page_token is not a token ListMatches returned"),
        ({"page_token": "12.x\x01"}, "page_token contains control characters"),
        ({"status": 99}, "status 99 is not a MatchStatus"),
    ],
)
def test_bad_list_requests_are_invalid_arguments(fields: dict[str, object], expected: str) -> None:
    with (
        admin_server() as server,
        Connection(server.address, TOKEN) as conn,
        pytest.raises(grpc.RpcError) as failed,
    ):
        _list(conn, **fields)
    assert failed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert expected in (failed.value.details() or "")


@pytest.mark.parametrize("token", ["wrong", ""])
def test_list_with_a_wrong_or_missing_token_is_unauthenticated(tmp_path: Path, token: str) -> None:
    with (
        admin_server() as server,
        Connection(server.address, token) as conn,
        Connection(server.address, TOKEN) as admin,
    ):
        create_match(admin, "dziobaki", 2, remember=False)
        with pytest.raises(grpc.RpcError) as failed:
            _list(conn)
        result = _cli("match", "list", server.address, "--admin-token", token, tmp_path=tmp_path)
    assert failed.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert result.exit_code == 2 and "admin token" in result.stderr
    assert "Traceback" not in result.stderr


@contextmanager
def server_without_list_matches(target: str) -> Iterator[str]:
    """A real gRPC server on loopback that serves CreateMatch and GetMatch only (as a
    game server older than ListMatches did), forwarding them to ``target``."""
    channel = grpc.insecure_channel(target)
    stub = pb_grpc.GameServiceStub(channel)

    def forward(name: str, request_type: Any) -> grpc.RpcMethodHandler[Any, Any]:
        def call(request: Any, context: grpc.ServicerContext) -> Any:
            metadata = tuple(context.invocation_metadata())
            return getattr(stub, name)(request, timeout=CALL_TIMEOUT_S, metadata=metadata)

        return grpc.unary_unary_rpc_method_handler(
            call,
            request_deserializer=request_type.FromString,
            response_serializer=lambda reply: reply.SerializeToString(),
        )

    methods = {
        "CreateMatch": forward("CreateMatch", pb.CreateMatchRequest),
        "GetMatch": forward("GetMatch", pb.GetMatchRequest),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("menagerie.v1.GameService", methods),)
    )
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(0).wait(WAIT_S)
        channel.close()


def test_a_server_without_list_matches_lists_the_matches_created_from_here(
    tmp_path: Path,
) -> None:
    with admin_server() as server, server_without_list_matches(server.address) as address:
        for game in ("dziobaki", "panorama"):
            made = _cli("match", "create", game, "--players", "2", "--address", address,
                        "--admin-token", TOKEN, tmp_path=tmp_path)  # fmt: skip
            assert made.exit_code == 0, made.stderr
        listed = _cli("match", "list", address, "--admin-token", TOKEN, tmp_path=tmp_path)
        on_server = [t.match_id for t in server.hub.tables.values()]
    assert listed.exit_code == 0, listed.stderr
    assert "cannot list its matches (no ListMatches)" in listed.stdout
    rows = [line.split() for line in listed.stdout.splitlines() if line.startswith("  ")]
    assert [r[0] for r in rows] == on_server  # oldest first, as remembered
    assert [(r[1], r[2]) for r in rows] == [("waiting", "dziobaki"), ("waiting", "panorama")]
