"""Command bots: ``cmd:<command line>`` seats played by programs over gRPC.

For a match with command bots, :func:`open_bots` starts an embedded game server on
127.0.0.1 (port 0), opens a table with one credential per ``cmd:`` seat and starts each
program with::

    <command line> --address 127.0.0.1:PORT --credential SECRET

and the same values in the environment (``MENAGERIE_ADDRESS``, ``MENAGERIE_CREDENTIAL``;
also ``MENAGERIE_SEAT`` and ``MENAGERIE_GAME``). The program joins with the credential
(``bots.sdk.main`` does all that), plays its seat and exits after GameOver. A leading
``python``/``python3`` is the arena's own interpreter, so SDK bots import without an
activated virtualenv. Programs run in their own process group; stdout is discarded,
stderr is captured (last 4 KB) into a ``stderr`` event of the record.

The server's move clock applies (the match's ``move_ms`` plus a margin for transport);
a program that misbehaves is recorded (``illegal``, ``timeout``, ``stall``,
``disconnect``: exit or closed stream) and, when it forfeits or stalls or disconnects,
killed. Every program is killed and reaped when the match ends, whatever happens::

    with open_bots(specs, spec, MatchConfig(move_ms=1000)) as session:
        record = session.play()          # play_match with session.bots; GameOver sent
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.match.lifetime import die_with_parent
from arena.match.runner import MatchConfig, MatchSpec, StepHook, play_match, seat_usage
from arena.match.specs import BotStartError, is_cmd, make_bot, resolve_command
from arena.sandbox import (
    DEFAULT_LIMITS,
    Launch,
    SandboxLimits,
    resolve_paths,
    sandbox_for,
    socket_path,
)
from arena.sandbox.launch import usage_of
from bots.base import Bot, BotSpecError

if TYPE_CHECKING:  # the server (grpc) is imported only when a match has command bots
    from arena.server.app import GameServer
    from arena.server.hub import ServerConfig
    from arena.server.seats import RemoteSeat
    from arena.server.table import Table

STDERR_TAIL = 4096
"""Bytes of a command bot's stderr kept for the record."""

EXIT_GRACE_S = 2.0
"""How long a program may take to exit by itself after GameOver before it is killed."""


SAMPLE_S = 0.02
"""How often a running program's peak memory is read from ``/proc``."""


def _vm_hwm_kb(pid: int) -> int:
    """``VmHWM`` of process ``pid`` in KiB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class BotProcess:
    """One running command bot: its process, stderr tail, how it ended, what it used.

    The process is reaped by one thread of its own (``os.wait4``, which also gives its
    resource usage and that of every descendant it waited for); everything else waits on
    :attr:`exited`, never on the Popen object, so nothing else can reap it first.
    """

    def __init__(
        self,
        seat: int,
        spec: str,
        argv: list[str],
        env: dict[str, str],
        launch: Launch | None = None,
    ) -> None:
        self.seat = seat
        self.spec = spec
        self.argv = argv
        self.launch = launch
        """The sandbox this program runs in (None: unsandboxed, as the arena's user)."""
        self._tail = bytearray()
        self._tail_lock = threading.Lock()
        self.killed_because = ""
        self._group_killed = False
        self.exited = threading.Event()
        self.returncode: int | None = None
        self.usage: tuple[float, int] | None = None
        """(CPU ms, peak resident KiB) of the program and its descendants, once reaped."""
        self._usage_before_kill: tuple[float, int] = (0.0, 0)
        try:
            self.proc = subprocess.Popen(
                # dies with its worker (arena.match.lifetime)
                [*die_with_parent(), *(launch.argv if launch is not None else argv)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=launch.env if launch is not None else env,
                start_new_session=True,
            )
        except OSError as exc:
            if launch is not None:
                launch.cleanup()
            raise BotStartError(f"{spec!r}: cannot start {argv[0]!r}: {exc.strerror}") from None
        self._reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._reader.start()
        self._peak_kb = 0
        """The largest resident high-water mark seen in ``/proc`` (:meth:`_sample`)."""
        self._reaper = threading.Thread(target=self._reap, daemon=True)
        self._reaper.start()
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        """Peak memory, read from ``/proc`` every :data:`SAMPLE_S` while the program
        runs: ``VmHWM`` is each process's own high-water mark since its ``exec``, where
        ``wait4``'s ``ru_maxrss`` also counts the arena's image that the child was forked
        from (hundreds of MB in a busy worker)."""
        while not self.exited.wait(SAMPLE_S):
            if self.launch is not None:
                peak = usage_of(self.launch.uid)[1]
            else:
                peak = _vm_hwm_kb(self.proc.pid)
            self._peak_kb = max(self._peak_kb, peak)

    def _reap(self) -> None:
        try:
            _pid, status, rusage = os.wait4(self.proc.pid, 0)
        except ChildProcessError:  # reaped elsewhere: no status, no usage
            status, rusage = 0, None
        code = os.waitstatus_to_exitcode(status)
        if rusage is not None:
            cpu_ms = (rusage.ru_utime + rusage.ru_stime) * 1000
            cpu_before, peak_before = self._usage_before_kill
            self.usage = (max(cpu_ms, cpu_before), max(self._peak_kb, peak_before))
        self.proc.returncode = code
        self.returncode = code
        if self.launch is not None:
            self.launch.finish()  # no process of its uid left; workdir removed, uid freed
        self.exited.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the program has exited (and been reaped), waiting up to ``timeout`` s."""
        return self.exited.wait(timeout)

    def _read_stderr(self) -> None:
        stream = self.proc.stderr
        assert stream is not None
        while True:
            chunk = stream.read1(4096)  # type: ignore[attr-defined]  # a BufferedReader, typed IO[bytes]
            if not chunk:
                break
            with self._tail_lock:
                self._tail += chunk
                if len(self._tail) > STDERR_TAIL:
                    del self._tail[: len(self._tail) - STDERR_TAIL]
        stream.close()

    def tail(self) -> str:
        with self._tail_lock:
            return self._tail.decode("utf-8", "replace")

    def exit_info(self) -> str:
        code = self.returncode
        if code is None:
            return "the process is still running"
        if self.killed_because:
            return f"killed by the arena ({self.killed_because})"
        if code < 0:
            return f"the process died of signal {-code}"
        if self.launch is not None and code > 128:  # the sandbox's shell reports a signal so
            return f"the process died of signal {code - 128}"
        return f"the process exited with code {code}"

    def exit_detail(self) -> str:
        """How the process ended, waiting up to 1 s for it (its stream may close first)."""
        if not self.wait(1.0):
            return ""
        self._reader.join(1.0)
        lines = self.tail().strip().splitlines()
        last = f"; stderr: {lines[-1][:300]}" if lines else ""
        return f"{self.exit_info()}{last}"

    def kill(self, because: str) -> None:
        """Terminate the process group (SIGTERM, then SIGKILL after 1 s) and reap it.

        Children that outlive the bot (same process group) are killed too, once. In the
        sandbox, SIGKILL reaches the namespace's process 1, and with it every process
        of the bot, whatever group it moved to.
        """
        if not self.exited.is_set():
            self.killed_because = because
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            if not self.wait(1.0):
                if self.launch is not None:  # the namespace's process 1 first: the kernel
                    self._usage_before_kill = usage_of(self.launch.uid)
                    self.launch.kill_namespace(self.proc.pid)  # then ends all of it
                    self.wait(1.0)
                with suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.wait(5.0)
        if not self._group_killed:
            self._group_killed = True
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def reap(self) -> None:
        self._reader.join(2.0)
        self.wait(5.0)


class BotSession:
    """The bots of one match (in-process and command bots) and their server table."""

    def __init__(
        self,
        spec: MatchSpec,
        config: MatchConfig,
        bots: list[Bot],
        table: Table | None = None,
        server: GameServer | None = None,
        processes: Sequence[BotProcess] = (),
    ) -> None:
        self.spec = spec
        self.table = table
        self.server = server
        self.processes = list(processes)
        self._bots = bots
        self._config = config
        self.finished = False

    @property
    def bots(self) -> list[Bot]:
        return self.table.bots if self.table is not None else self._bots

    @property
    def config(self) -> MatchConfig:
        """The MatchConfig for play_match (with the server's clock margin if remote)."""
        return self.table.match_config if self.table is not None else self._config

    def on_step(self, state: Any, player: int, action: Any) -> None:
        if self.table is not None:
            self.table.on_step(state, player, action)

    def play(self, on_step: StepHook | None = None) -> dict[str, Any]:
        """Play the match with ``arena.match.play_match``; returns the finished record.

        Raises MatchAborted if the match could not finish (server shutdown or a crash of
        the runner, logged); the programs are stopped either way.
        """
        if self.table is None:
            return play_match(self.spec, self._bots, self._config, on_step)
        from arena.server.hub import drive
        from arena.server.table import MatchAborted

        record = self.finish(drive(self.table, on_step))
        if record.get("aborted"):
            raise MatchAborted(record.get("reason") or "the match was aborted")
        return record

    def finish(self, record: dict[str, Any]) -> dict[str, Any]:
        """Send GameOver (if not yet sent), let the programs exit, add their stderr events."""
        if self.finished:
            return record
        self.finished = True
        table = self.table
        if table is None:
            return record
        if not table.is_over():
            table.finish(record)
        deadline = time.monotonic() + EXIT_GRACE_S
        for p in self.processes:
            p.wait(max(0.0, deadline - time.monotonic()))
            p.kill("still running after the match")  # and whatever it left behind
        steps = len(record.get("steps", []))
        usage = record.get("usage")
        for p in self.processes:
            p.reap()
            if p.usage is not None and isinstance(usage, list) and p.seat < len(usage):
                usage[p.seat] = seat_usage(p.seat, p.usage[0], p.usage[1])
            tail = p.tail().strip()
            if tail:
                record.setdefault("events", []).append(
                    {
                        "step": steps,
                        "seat": p.seat,
                        "kind": "stderr",
                        "reason": f"{p.exit_info()}; last {STDERR_TAIL} bytes of stderr:\n{tail}",
                    }
                )
        if self.server is not None:
            self.server.release(table)
        return record

    def close(self, problem: str = "") -> None:
        """Abort an unfinished match, kill and reap every program."""
        if self.table is not None and not self.table.is_over():
            self.table.abort(problem or "the match did not finish", self.table.last_state)
        for p in self.processes:
            p.kill("the match ended")
            p.reap()
        if self.server is not None and self.table is not None:
            self.server.release(self.table)


def _kill_on_failure(process: BotProcess, policy: str) -> Callable[[str, str], None]:
    def on_failure(kind: str, reason: str) -> None:
        if policy == "forfeit" or kind in ("stall", "disconnect"):
            threading.Thread(target=process.kill, args=(f"{kind}: {reason}",), daemon=True).start()

    return on_failure


@contextmanager
def open_bots(
    specs: Sequence[str],
    spec: MatchSpec,
    config: MatchConfig,
    *,
    names: Sequence[str] | None = None,
    build: Callable[[int, str], Bot] | None = None,
    server: GameServer | None = None,
    server_config: ServerConfig | None = None,
    sandbox: SandboxLimits | None = None,
    trusted: bool = False,
) -> Iterator[BotSession]:
    """The bots of one match; command bots get an embedded server and their processes.

    ``build(seat, spec)`` makes the in-process bots (default :func:`arena.match.specs.make_bot`);
    ``names`` label the seats in the record (default: the specs); ``server`` reuses a
    running GameServer instead of starting one (started with
    ``unix_path=arena.sandbox.socket_path()``, so that sandboxed programs reach it).
    Programs run in the sandbox under ``sandbox`` (default
    :data:`arena.sandbox.DEFAULT_LIMITS`); where the machine cannot sandbox,
    :class:`arena.sandbox.SandboxUnavailable` unless the limits allow running unsandboxed.
    ``trusted``: the programs are the arena's own (``arena bench sandbox`` compares the
    two ways): run them unsandboxed, as the arena's user, without a warning.
    """
    specs = [s.strip() for s in specs]
    if len(specs) != spec.num_players:
        raise BotSpecError(f"{spec.num_players} seats need {spec.num_players} bot specs")
    names = list(names or specs)
    make = build or (lambda _seat, s: make_bot(s))
    in_process = {s: make(s, text) for s, text in enumerate(specs) if not is_cmd(text)}
    if len(in_process) == len(specs):
        yield BotSession(spec, config, [in_process[s] for s in range(len(specs))])
        return
    # resolved here, where the match is played (a Ray worker): BotStartError if missing
    argvs = {s: resolve_command(text) for s, text in enumerate(specs) if is_cmd(text)}
    limits = sandbox or DEFAULT_LIMITS
    sandboxed = not trusted and sandbox_for(limits, server)
    from arena.server.app import GameServer
    from arena.server.hub import ServerConfig
    from arena.server.seats import RemoteSeat

    owned = server is None
    if server is None:
        server = GameServer(server_config or ServerConfig())
        server.start("127.0.0.1", 0, unix_path=socket_path() if sandboxed else None)
    address = f"unix:{server.unix_path}" if sandboxed else server.address
    session: BotSession | None = None
    try:
        remote = [s in argvs for s in range(len(specs))]
        table = server.open_table(spec, config, names, remote, in_process)
        session = BotSession(spec, config, [], table, server)
        for seat_no, argv in argvs.items():
            credential = table.credentials[seat_no]
            process = start_program(
                seat_no, specs[seat_no], argv, address, credential, spec.game, limits, sandboxed
            )
            session.processes.append(process)
            seat = table.seats[seat_no]
            assert isinstance(seat, RemoteSeat)
            seat.spec = specs[seat_no]
            seat.on_failure = _kill_on_failure(process, config.on_failure)
            seat.disconnect_detail = process.exit_detail
            threading.Thread(target=_watch_exit, args=(process, seat), daemon=True).start()
        yield session
    except BaseException as exc:
        if session is not None:
            session.close(f"the match failed: {type(exc).__name__}: {exc}")
        raise
    else:
        session.close()
    finally:
        if owned:
            server.stop(grace_s=0.0)


def start_program(
    seat: int,
    spec: str,
    argv: list[str],
    address: str,
    credential: str,
    game: str,
    limits: SandboxLimits,
    sandboxed: bool,
) -> BotProcess:
    """A command bot's program started for one seat: told where to play (``--address``,
    ``--credential`` and the ``MENAGERIE_*`` variables), in the sandbox (``address`` must
    then be the server's Unix socket: the program has no network) or, where the sandbox
    was declined with ``allow_unsandboxed``, as the arena's user."""
    seat_env = {
        "MENAGERIE_ADDRESS": address,
        "MENAGERIE_CREDENTIAL": credential,
        "MENAGERIE_SEAT": str(seat),
        "MENAGERIE_GAME": game,
    }
    full = [*argv, "--address", address, "--credential", credential]
    if sandboxed:
        _check_executable(spec, full[0])  # the sandbox itself always starts
        launch = Launch.prepare(resolve_paths(full), seat_env, limits)
        return BotProcess(seat, spec, full, {}, launch)
    return BotProcess(seat, spec, full, {**os.environ, **seat_env})


def _check_executable(spec: str, program: str) -> None:
    """BotSpecError (as Popen would fail) unless ``program`` is an executable file."""
    path = program if os.sep in program else shutil.which(program)
    if path is None or not os.path.isfile(path):
        raise BotSpecError(f"{spec!r}: cannot start {program!r}: No such file or directory")
    if not os.access(path, os.X_OK):
        raise BotSpecError(f"{spec!r}: cannot start {program!r}: Permission denied")


def _watch_exit(process: BotProcess, seat: RemoteSeat) -> None:
    """When the program exits, its seat is gone for good (a pending turn disconnects)."""
    process.wait()
    seat.mark_gone(process.exit_detail())
