"""Remote bots through the lobby: tokens, matches beside hosted bots, exactly once,
reconnects, revocation, several game servers (real gRPC on loopback, real processes)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from menagerie.v1 import lobby_service_pb2 as lpb
from menagerie.v1 import lobby_service_pb2_grpc as lpb_grpc

from arena.ladder.hosting import LadderFiles
from arena.ladder.remote import LobbySettings, bot_key, host_lobby
from arena.ladder.runner import LadderRunner, RunnerConfig
from arena.ladder.store import LadderStore
from arena.ladder.tokens import Tokens, hash_token
from arena.tournament.journal import read_journal
from tests.ladder.helpers import REPO, audit, cli_env
from tests.lobby.kit import (
    BOUND_S,
    LADDER,
    REMOTE,
    python_bot,
    remote_games,
    remote_ladder,
    run_ladder,
    stop,
)

pytestmark = [pytest.mark.server]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LadderStore]:
    with LadderStore(str(tmp_path / "ladder.db")) as s:
        yield s


def test_tokens_are_hashed_revocable_and_several(store: LadderStore) -> None:
    token = remote_ladder(store)
    tokens = Tokens(store)
    second_info, second = tokens.issue(LADDER, REMOTE)
    assert token != second and token.startswith("mnrb_")
    with store.engine.connect() as conn:
        stored = [row[0] for row in conn.exec_driver_sql("SELECT sha256 FROM bot_tokens")]
    assert sorted(stored) == sorted([hash_token(token), hash_token(second)])
    assert token not in json.dumps(stored)
    assert tokens.lookup(token) is not None and tokens.lookup(second) is not None
    assert tokens.revoke(LADDER, REMOTE, second_info.id) == [second_info.id]
    assert tokens.lookup(second) is None and tokens.lookup(token) is not None
    assert tokens.lookup("mnrb_" + "x" * 43) is None and tokens.lookup("") is None
    with pytest.raises(Exception, match="has no token 999"):
        tokens.revoke(LADDER, REMOTE, 999)
    assert len(tokens.revoke(LADDER, REMOTE)) == 1
    assert all(not t.live for t in tokens.listing(LADDER, REMOTE))


def test_remote_bot_plays_ladder_matches_once(store: LadderStore, tmp_path: Path) -> None:
    """A Python SDK bot in its own process connects by token, plays ladder matches beside
    the hosted bots, and every result is committed exactly once."""
    token = remote_ladder(store)
    with host_lobby(store, [LADDER], LobbySettings("127.0.0.1:0")) as host:
        bot = python_bot(host.address, token, "--max-games", "2")
        try:
            assert host.lobby.wait_online(bot_key(LADDER, REMOTE), BOUND_S)
            summary = run_ladder(store, tmp_path, host.matches, games=12)
        finally:
            err = stop(bot)
    assert summary.counted == 12 and not summary.voided, (summary, err)
    done = audit(store, LADDER, tmp_path)
    assert len(done) == 12
    assert remote_games(store) >= 2, err
    records = list(read_journal(LadderFiles.of(tmp_path, LADDER).records))
    played = [r for r in records if any(p["name"] == f"{REMOTE}@1" for p in r["players"])]
    assert played and all(r["server"]["address"] == host.address for r in played)
    far = [p for r in played for p in r["players"] if p["name"] == f"{REMOTE}@1"]
    # the remote seat was played by the bot itself: no disconnect or timeout of its seat
    for r in played:
        seat = next(i for i, p in enumerate(r["players"]) if p["name"] == f"{REMOTE}@1")
        bad = [e for e in r.get("events", []) if e.get("seat") == seat and e["kind"] != "stderr"]
        assert not bad, bad
    assert len(far) == len(played)


def test_wrong_token_and_no_hello_are_unauthenticated(store: LadderStore) -> None:
    remote_ladder(store)
    with host_lobby(store, [LADDER], LobbySettings("127.0.0.1:0")) as host:
        with grpc.insecure_channel(host.address) as channel:
            stub = lpb_grpc.LobbyServiceStub(channel)
            for first in (
                lpb.LobbyRequest(hello=lpb.Hello(token="mnrb_wrong")),
                lpb.LobbyRequest(hello=lpb.Hello(token="")),
                lpb.LobbyRequest(heartbeat=lpb.Heartbeat()),
            ):
                with pytest.raises(grpc.RpcError) as caught:
                    list(stub.Lobby(iter([first]), timeout=BOUND_S))
                assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED, first
        assert host.lobby.online() == []


def test_revoked_token_is_refused_and_ends_the_bot(store: LadderStore) -> None:
    """Revoking closes the live stream (the token is checked again while connected) and
    refuses the reconnect: the SDK bot exits with UNAUTHENTICATED instead of retrying."""
    token = remote_ladder(store)
    settings = LobbySettings("127.0.0.1:0", heartbeat_s=0.2, timeout_s=2.0, recheck_s=0.2)
    with host_lobby(store, [LADDER], settings) as host:
        bot = python_bot(host.address, token)
        try:
            assert host.lobby.wait_online(bot_key(LADDER, REMOTE), BOUND_S)
            Tokens(store).revoke(LADDER, REMOTE)
            code = bot.wait(BOUND_S)
        finally:
            err = stop(bot)
        assert code == 1 and "UNAUTHENTICATED" in err, err
        assert not host.lobby.is_online(bot_key(LADDER, REMOTE))
        proc = subprocess.run(
            [sys.executable, "-m", "bots.random_client", "--lobby", host.address, "--token", token],
            cwd=REPO,
            env=cli_env(),
            capture_output=True,
            text=True,
            timeout=BOUND_S,
        )
    assert proc.returncode == 1 and "unknown or revoked bot token" in proc.stderr


def test_bot_reconnects_after_a_server_restart(
    store: LadderStore, tmp_path: Path, free_port: int
) -> None:
    """The lobby's process goes away and comes back on the same address: the bot
    reconnects by itself (back-off) and plays the next runner's matches."""
    token = remote_ladder(store)
    serve = f"127.0.0.1:{free_port}"
    key = bot_key(LADDER, REMOTE)
    bot = python_bot(serve, token, "--max-games", "2")
    try:
        with host_lobby(store, [LADDER], LobbySettings(serve)) as host:
            assert host.lobby.wait_online(key, BOUND_S)
            first = run_ladder(store, tmp_path, host.matches, games=4)
        before = remote_games(store)
        with host_lobby(store, [LADDER], LobbySettings(serve)) as host:
            assert host.lobby.wait_online(key, BOUND_S)
            second = run_ladder(store, tmp_path, host.matches, games=6)
        assert bot.poll() is None  # it never gave up
    finally:
        err = stop(bot)
    assert first.counted + second.counted == 10, err
    audit(store, LADDER, tmp_path)
    assert remote_games(store) > before >= 0, err
    assert err.count(f"{REMOTE} online") >= 2, err


def test_matches_are_placed_on_two_game_servers(store: LadderStore, tmp_path: Path) -> None:
    """Two `arena serve` processes behind one lobby: remote matches land on both
    (least-loaded first), and each record says where it was played."""
    token = remote_ladder(store)
    admin = "t0ken-for-the-test"
    serve = [sys.executable, "-m", "arena.cli", "serve", "--port", "0", "--admin-token", admin]
    servers = [
        subprocess.Popen(
            serve,
            cwd=REPO,
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    addresses: list[str] = []
    try:
        for server in servers:
            assert server.stdout is not None
            line = server.stdout.readline()  # "serving ... on 127.0.0.1:PORT (...)"
            assert "serving" in line, line
            addresses.append(line.split(" on ", 1)[1].split()[0])
        settings = LobbySettings("127.0.0.1:0", tuple(addresses), admin)
        with host_lobby(store, [LADDER], settings) as host:
            bot = python_bot(host.address, token, "--max-games", "4")
            try:
                assert host.lobby.wait_online(bot_key(LADDER, REMOTE), BOUND_S)
                summary = run_ladder(store, tmp_path, host.matches, games=8)
            finally:
                err = stop(bot)
            placed = {s.address: s.placed for s in host.matches.pool.servers}
    finally:
        for server in servers:
            stop(server)
    assert summary.counted == 8 and not summary.voided, err
    audit(store, LADDER, tmp_path)
    records = list(read_journal(LadderFiles.of(tmp_path, LADDER).records))
    where = {r["server"]["address"] for r in records if "server" in r}
    assert where == set(addresses), (where, placed)
    assert all(placed[a] >= 1 for a in addresses)


def test_a_silent_bot_goes_offline_and_is_not_scheduled(store: LadderStore) -> None:
    """A bot that stops sending heartbeats is cut off (DEADLINE_EXCEEDED) and offline: the
    ladder no longer schedules it."""
    token = remote_ladder(store)
    settings = LobbySettings("127.0.0.1:0", heartbeat_s=0.2, timeout_s=1.0)
    with host_lobby(store, [LADDER], settings) as host:
        far = store.version(LADDER, REMOTE)
        with grpc.insecure_channel(host.address) as channel:
            stub = lpb_grpc.LobbyServiceStub(channel)
            hello = lpb.LobbyRequest(hello=lpb.Hello(token=token, max_games=3))
            release = threading.Event()

            def silent() -> Iterator[lpb.LobbyRequest]:
                yield hello
                release.wait(BOUND_S)  # no heartbeat, stream kept open

            call = stub.Lobby(silent(), timeout=BOUND_S)
            welcome = next(call)
            assert welcome.welcome.bot == REMOTE and welcome.welcome.max_games == 3
            assert host.lobby.capacity(bot_key(LADDER, REMOTE)) == 3
            assert host.matches.schedulable(far)
            with pytest.raises(grpc.RpcError) as caught:
                for _ in call:  # heartbeats from the server, then the end
                    pass
            release.set()
        assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert not host.lobby.is_online(bot_key(LADDER, REMOTE))
        assert not host.matches.schedulable(far)


def test_bench_lobby_measures_assignment_latency() -> None:
    from arena.bench.lobby import bench_lobby

    report = bench_lobby(trials=2)
    assert report["trials"] == 2
    assert 0 < report["assign_ms_median"] <= report["assign_ms_max"]


def test_hello_limits_and_a_newer_stream_replaces_the_old(store: LadderStore) -> None:
    token = remote_ladder(store)
    with (
        host_lobby(store, [LADDER], LobbySettings("127.0.0.1:0")) as host,
        grpc.insecure_channel(host.address) as channel,
    ):
        stub = lpb_grpc.LobbyServiceStub(channel)
        for hello, words in (
            (lpb.Hello(token=token, max_games=65), "at most 64 games"),
            (lpb.Hello(token=token, ladders=["other"]), "leaves out"),
        ):
            with pytest.raises(grpc.RpcError) as caught:
                list(stub.Lobby(iter([lpb.LobbyRequest(hello=hello)]), timeout=BOUND_S))
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert words in (caught.value.details() or "")
        release = threading.Event()

        def hold() -> Iterator[lpb.LobbyRequest]:
            yield lpb.LobbyRequest(hello=lpb.Hello(token=token))
            release.wait(BOUND_S)

        first = stub.Lobby(hold(), timeout=BOUND_S)
        assert next(first).WhichOneof("message") == "welcome"
        second = stub.Lobby(hold(), timeout=BOUND_S)
        assert next(second).WhichOneof("message") == "welcome"
        with pytest.raises(grpc.RpcError) as caught:
            for _ in first:
                pass
        assert caught.value.code() == grpc.StatusCode.ABORTED
        assert host.lobby.is_online(bot_key(LADDER, REMOTE))  # the newer stream holds it
        release.set()
        second.cancel()


def test_sdk_gives_up_after_bounded_reconnects(free_port: int) -> None:
    from bots import sdk
    from bots.random_client import RandomClient

    started = time.monotonic()
    with pytest.raises(sdk.SdkError) as caught:
        sdk.run_lobby(
            RandomClient(0),
            f"127.0.0.1:{free_port}",  # nobody listens
            "mnrb_x",
            max_failures=3,
            backoff_s=0.05,
            connect_timeout_s=0.2,
            log=lambda _: None,
        )
    assert caught.value.code == "UNAVAILABLE" and "after 3 attempts" in str(caught.value)
    assert time.monotonic() - started < BOUND_S


def test_without_a_lobby_remote_versions_are_never_scheduled(
    store: LadderStore, tmp_path: Path
) -> None:
    remote_ladder(store)
    config = RunnerConfig(workers=0, games=4, tracking=False)
    summary = LadderRunner(store, LADDER, home=tmp_path, config=config, log=lambda _: None).run()
    assert summary.counted == 4
    assert remote_games(store) == 0 and len(audit(store, LADDER, tmp_path)) == 4


def test_garbage_on_the_lobby_stream_is_invalid_argument(store: LadderStore) -> None:
    remote_ladder(store)
    with (
        host_lobby(store, [LADDER], LobbySettings("127.0.0.1:0")) as host,
        grpc.insecure_channel(host.address) as channel,
    ):
        raw: grpc.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(
            "/menagerie.v1.LobbyService/Lobby"
        )
        with pytest.raises(grpc.RpcError) as caught:
            list(raw(iter([b"\xff\xff\xff"]), timeout=BOUND_S))
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "not a LobbyRequest" in (caught.value.details() or "")


def test_a_hosted_program_plays_a_remote_match_as_a_client(
    store: LadderStore, tmp_path: Path
) -> None:
    """A hosted ``cmd:`` bot seated with a remote bot is started with the match's game
    server address and its seat credential, like any command bot."""
    store.create_ladder(LADDER, "dziobaki", 2)
    store.add_version(LADDER, "prog", spec="cmd:python -m bots.random_client", status="active")
    store.add_version(LADDER, REMOTE, kind="remote", status="active")
    _info, token = Tokens(store).issue(LADDER, REMOTE)
    with host_lobby(store, [LADDER], LobbySettings("127.0.0.1:0")) as host:
        bot = python_bot(host.address, token, "--max-games", "2")
        try:
            assert host.lobby.wait_online(bot_key(LADDER, REMOTE), BOUND_S)
            summary = run_ladder(store, tmp_path, host.matches, games=2)
        finally:
            err = stop(bot)
    assert summary.counted == 2 and not summary.voided, err
    assert remote_games(store) == 2
    for record in read_journal(LadderFiles.of(tmp_path, LADDER).records):
        seat = [p["name"] for p in record["players"]].index("prog@1")
        incidents = [e for e in record.get("events", []) if e.get("seat") == seat]
        assert all(e["kind"] == "stderr" for e in incidents), incidents


SNOOP = """import os, socket, sys
seen = "secret seen" if "MENAGERIE_TEST_SECRET" in os.environ else "no secret"
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
    net = "network open"
except OSError:
    net = "network closed"
print(seen, net, file=sys.stderr, flush=True)
sys.argv[1:2] = []
from bots.random_client import main
main()
"""


def test_a_hosted_program_in_a_remote_match_is_sandboxed(
    store: LadderStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As every ``cmd:`` bot: a clean environment and no network; it reaches the remote
    match's game server through a Unix-socket relay and plays."""
    monkeypatch.setenv("MENAGERIE_TEST_SECRET", "hunter2")
    script = tmp_path / "snoop.py"
    script.write_text(SNOOP)
    store.create_ladder(LADDER, "dziobaki", 2)
    store.add_version(LADDER, REMOTE, kind="remote", status="active")
    _info, token = Tokens(store).issue(LADDER, REMOTE)
    with host_lobby(store, [LADDER], LobbySettings("127.0.0.1:0")) as host:
        port = host.address.rpartition(":")[2]
        store.add_version(LADDER, "prog", spec=f"cmd:python {script} {port}", status="active")
        bot = python_bot(host.address, token, "--max-games", "2")
        try:
            assert host.lobby.wait_online(bot_key(LADDER, REMOTE), BOUND_S)
            summary = run_ladder(store, tmp_path, host.matches, games=2)
        finally:
            err = stop(bot)
    assert summary.counted == 2 and not summary.voided, err
    for record in read_journal(LadderFiles.of(tmp_path, LADDER).records):
        seat = [p["name"] for p in record["players"]].index("prog@1")
        said = " ".join(e["reason"] for e in record["events"] if e.get("seat") == seat)
        assert "no secret network closed" in said, said
        assert not [e for e in record["events"] if e["kind"] == "forfeit"]


def test_reflection_lists_the_lobby_beside_the_game_service(store: LadderStore) -> None:
    """A bot author in another language finds both services by reflection."""
    from grpc_reflection.v1alpha import reflection_pb2 as refl_pb2

    remote_ladder(store)
    with (
        host_lobby(store, [LADDER], LobbySettings("127.0.0.1:0")) as host,
        grpc.insecure_channel(host.address) as channel,
    ):
        method = channel.stream_stream(
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            request_serializer=refl_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=refl_pb2.ServerReflectionResponse.FromString,
        )
        requests = [
            refl_pb2.ServerReflectionRequest(list_services=""),
            refl_pb2.ServerReflectionRequest(file_containing_symbol="menagerie.v1.LobbyService"),
        ]
        services, described = method(iter(requests), timeout=BOUND_S)
    names = {s.name for s in services.list_services_response.service}
    assert {"menagerie.v1.LobbyService", "menagerie.v1.GameService"} <= names
    assert described.file_descriptor_response.file_descriptor_proto
