"""Starting one command bot inside the sandbox: the command line, environment and
working directory, the private uid, what is left to clean up; and whether the machine can
do it at all (:func:`probe`). The mechanisms and what each stops are in ``arena.sandbox``.

The command that is started is a chain of the operating system's own tools::

    unshare --net --mount --pid --ipc --uts --fork --kill-child --mount-proc
        --propagation private --
      /bin/sh -c SETUP  WORKDIR UID DISK_MB         # root, inside the new namespaces
        setpriv --reuid=UID --regid=UID --clear-groups --inh-caps=-all
                --bounding-set=-all --no-new-privs --
          prlimit --as=... --cpu=... --nproc=... --nofile=... --fsize=... --core=0 --
            /bin/sh -c '"$@" & wait $!' bot  BOT ARGV...

``SETUP`` mounts a size-limited tmpfs on the (empty, host-side) working directory, binds a
folder of it over ``/tmp``, ``/var/tmp``, ``/dev/shm`` and ``/run/lock`` (the places any
user may write), makes the root file system read-only and changes into the working
directory. The last shell is the namespace's
process 1: it waits for the bot, and when it exits the kernel kills whatever else is
left in the namespace, so nothing a bot starts outlives it.
"""

from __future__ import annotations

import fcntl
import logging
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from arena.sandbox.limits import SandboxLimits
from bots.base import BotSpecError

log = logging.getLogger(__name__)

ROOT_ENV = "MENAGERIE_SANDBOX_ROOT"
"""Environment variable naming the folder that holds workdirs, sockets and uid locks."""
DEFAULT_ROOT = "/run/menagerie-sandbox"
"""Default sandbox folder: not under /tmp (which a bot sees replaced by its own) and not
world-writable (mode 0711: a bot can reach its own workdir and the socket, list nothing)."""
UID_BASE = 2_100_000_000
"""First private uid handed to bots; no account on a normal system is up there."""
UID_SLOTS = 8192
"""How many private uids there are (bots running at once on one machine, at most)."""

TOOLS = ("unshare", "setpriv", "prlimit")
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"

SETUP = r"""set -e
W=$1; U=$2; DISK=$3; shift 3
mount -t tmpfs -o "size=${DISK}m,mode=0700,uid=$U,gid=$U,nosuid,nodev" menagerie-bot "$W"
mkdir -m 1777 "$W/.tmp"
{stage}for d in /tmp /var/tmp /dev/shm /run/lock; do
  if [ -d "$d" ]; then mount --bind "$W/.tmp" "$d"; fi
done
{unstage}{expose}mount -o remount,bind,ro /
cd "$W"
exec "$@"
"""
"""Runs as root in the bot's new mount namespace (nothing it does is seen outside).
``{expose}`` becomes the lines of :func:`expose_lines`, ``{stage}`` and ``{unstage}``
those of :func:`private_place_lines`."""

PRIVATE_PLACES = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
"""Where a bot sees folders of its own instead of the host's."""


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def kept_paths(argv: list[str]) -> list[str]:
    """The real paths under the :data:`PRIVATE_PLACES` that a bot must still see: the
    files named by its absolute arguments (its program, a script, a ladder home), the
    arena's Python environment (``sys.prefix``: the interpreter and packages bots run
    with) and the project's own folder (what an editable install imports), each once
    (not one inside another). A checkout under ``/tmp`` then works as one elsewhere,
    where the whole root filesystem is visible, read-only."""
    project = str(Path(__file__).resolve().parents[2])
    found: list[str] = []
    for arg in dict.fromkeys([*argv, sys.prefix, project]):
        if not (os.path.isabs(arg) and os.path.exists(arg)):
            continue
        real = os.path.realpath(arg)
        if any(_inside(real, p) for p in PRIVATE_PLACES) and real not in found:
            found.append(real)
    return [p for p in found if not any(q != p and _inside(p, q) for q in found)]


def private_place_lines(argv: list[str]) -> tuple[str, str]:
    """Shell lines that keep :func:`kept_paths` visible, read-only, at the same path:
    bound aside before the private folders cover them, moved back after."""
    stage, unstage = [], []
    for k, real in enumerate(kept_paths(argv)):
        aside, place = f'"$W/.arg{k}"', shlex.quote(real)
        make = "mkdir -p" if os.path.isdir(real) else "touch"
        stage += [f"{make} {aside}", f"mount --bind {place} {aside}"]
        parent = shlex.quote(os.path.dirname(real))
        unstage += [
            f"mkdir -p {parent}",
            f"{make} {place}",
            f"mount --move {aside} {place}",
            f"mount -o remount,bind,ro {place}",
            f"rm -rf {aside}",
        ]
    return "".join(ln + "\n" for ln in stage), "".join(ln + "\n" for ln in unstage)


def hidden_parents(paths: list[str]) -> dict[str, set[str]]:
    """For each path the bot must reach (the interpreter's installation), the first
    ancestor that other users cannot enter (e.g. ``/root``, mode 0700) and the child of
    it on the way: ``{"/root": {"/root/.pyenv"}}``. The sandbox shows the bot those
    children, read-only, and nothing else of the parent."""
    out: dict[str, set[str]] = {}
    for path in paths:
        parts = os.path.realpath(path).strip("/").split("/")
        current = ""
        for i, part in enumerate(parts[:-1]):
            current += "/" + part
            try:
                mode = os.stat(current).st_mode
            except OSError:
                break
            if not mode & 0o001:
                out.setdefault(current, set()).add(current + "/" + parts[i + 1])
                break
    return out


def expose_lines(hidden: dict[str, set[str]]) -> str:
    """Shell lines that bind each child aside, cover its parent with an empty tmpfs
    (mode 0755) and move the child back into place."""
    lines = []
    staged = []
    for k, child in enumerate(sorted(c for children in hidden.values() for c in children)):
        stage = f'"$W/.expose{k}"'
        lines += [f"mkdir {stage}", f"mount --bind {shlex.quote(child)} {stage}"]
        staged.append((stage, child))
    for parent in sorted(hidden):
        lines.append(f"mount -t tmpfs -o size=1m,mode=0755 menagerie-hide {shlex.quote(parent)}")
    for stage, child in staged:
        lines += [
            f"mkdir -p {shlex.quote(child)}",
            f"mount --move {stage} {shlex.quote(child)}",
            f"rmdir {stage}",
        ]
    return "".join(line + "\n" for line in lines)


def setup_script(argv: list[str]) -> str:
    """:data:`SETUP` for a bot started with ``argv``."""
    stage, unstage = private_place_lines(argv)
    expose = expose_lines(hidden_parents(interpreter_paths()))
    return SETUP.replace("{stage}", stage).replace("{unstage}", unstage).replace("{expose}", expose)


def interpreter_paths() -> list[str]:
    """What a ``python`` bot needs to reach: this interpreter and its installation."""
    return [sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix]


WAIT_FOR_BOT = '"$@" & wait $!'
"""The bot's process 1: starts the bot and exits with its status (SIGTERM from outside
reaches the bot itself; process 1 of a namespace ignores it)."""


class SandboxUnavailable(BotSpecError):
    """The machine cannot sandbox command bots (the message says what is missing)."""


def sandbox_root() -> Path:
    """The sandbox folder (created root-owned, mode 0711)."""
    root = Path(os.environ.get(ROOT_ENV) or DEFAULT_ROOT)
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o711)
    return root


# ---------------------------------------------------------------------------
# Can this machine sandbox?
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Support:
    """Whether command bots can be sandboxed here, and if not why not."""

    usable: bool
    problem: str = ""


_support: Support | None = None
_support_lock = threading.Lock()


def probe() -> Support:
    """Try the whole chain once (cached per process) with ``true`` as the bot."""
    global _support
    with _support_lock:
        if _support is None:
            _support = _probe()
        return _support


def _probe() -> Support:
    if sys.platform != "linux":
        return Support(False, f"the sandbox needs Linux namespaces (this is {sys.platform})")
    if os.geteuid() != 0:
        return Support(
            False, "the sandbox needs root (to give each bot its own uid and namespaces)"
        )
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        return Support(False, f"missing tool(s): {', '.join(missing)} (util-linux)")
    try:
        root = sandbox_root()
    except OSError as exc:
        return Support(False, f"cannot create the sandbox folder: {exc}")
    try:
        with Launch.prepare(["/bin/true"], {}, SandboxLimits()) as launch:
            done = subprocess.run(
                launch.argv,
                env=launch.env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=30,
                check=False,
            )
    except (OSError, subprocess.TimeoutExpired, SandboxUnavailable) as exc:
        return Support(False, f"the sandbox did not start: {exc}")
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = err[-1] if err else f"exit status {done.returncode}"
        return Support(False, f"the sandbox did not start in {root}: {why}")
    return Support(True)


# ---------------------------------------------------------------------------
# Private uids
# ---------------------------------------------------------------------------


class UidLease:
    """A private uid for one bot, held (an flock on ``uids/<uid>.lock``) while it runs,
    so that two bots on one machine, in any process, never share one: RLIMIT_NPROC is
    counted per uid, and one uid could signal or trace the other's processes."""

    def __init__(self, root: Path) -> None:
        folder = root / "uids"
        folder.mkdir(mode=0o700, exist_ok=True)
        start = (os.getpid() * 31 + threading.get_ident()) % UID_SLOTS
        for k in range(UID_SLOTS):
            uid = UID_BASE + (start + k) % UID_SLOTS
            handle: IO[bytes] = open(folder / f"{uid}.lock", "wb")  # noqa: SIM115  # held until release
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            self.uid = uid
            self._handle: IO[bytes] | None = handle
            return
        raise SandboxUnavailable(f"all {UID_SLOTS} sandbox uids are in use")

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


# ---------------------------------------------------------------------------
# One launch
# ---------------------------------------------------------------------------


@dataclass
class Launch:
    """How to start one sandboxed bot (``argv``, ``env``) and what to remove after."""

    argv: list[str]
    env: dict[str, str]
    workdir: Path
    uid: int
    lease: UidLease = field(repr=False)

    @classmethod
    def prepare(cls, argv: list[str], env: dict[str, str], limits: SandboxLimits) -> Launch:
        """The sandboxed command for ``argv`` with exactly ``env`` added to a clean
        environment (PATH, HOME, TMPDIR, LANG)."""
        root = sandbox_root()
        lease = UidLease(root)
        try:
            workdir = Path(tempfile.mkdtemp(prefix="bot-", dir=root))
        except BaseException:
            lease.release()
            raise
        uid = lease.uid
        rl = limits.rlimits()
        prlimit = [
            f"--as={rl['as']}",
            f"--cpu={rl['cpu']}:{rl['cpu'] + 5}",
            f"--nproc={rl['nproc']}",
            f"--nofile={rl['nofile']}",
            f"--fsize={rl['fsize']}",
            "--core=0",
        ]
        full = [
            shutil.which("unshare") or "unshare",
            "--net",
            "--mount",
            "--pid",
            "--ipc",
            "--uts",
            "--fork",
            "--kill-child",
            "--mount-proc",
            "--propagation",
            "private",
            "--",
            "/bin/sh",
            "-c",
            setup_script(argv),
            "setup",
            str(workdir),
            str(uid),
            str(limits.disk_mb),
            shutil.which("setpriv") or "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
            "--",
            shutil.which("prlimit") or "prlimit",
            *prlimit,
            "--",
            "/bin/sh",
            "-c",
            WAIT_FOR_BOT,
            "bot",
            *argv,
        ]
        clean = {
            "PATH": os.environ.get("PATH") or SAFE_PATH,
            "HOME": str(workdir),
            "TMPDIR": "/tmp",
            "LANG": os.environ.get("LANG") or "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            **env,
        }
        return cls(full, clean, workdir, uid, lease)

    def __enter__(self) -> Launch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()

    def kill_namespace(self, unshare_pid: int) -> None:
        """SIGKILL the namespace's process 1 (the child of ``unshare``): the kernel kills
        every other process in it, and ``unshare`` reaps it and exits."""
        try:
            text = Path(f"/proc/{unshare_pid}/task/{unshare_pid}/children").read_text()
        except OSError:
            return
        for pid in text.split():
            with suppress(ProcessLookupError, PermissionError):
                os.kill(int(pid), signal.SIGKILL)

    def finish(self, timeout_s: float = 5.0) -> None:
        """After the bot's process was reaped: wait until no process of its uid is left
        (``unshare`` may die before its namespace is torn down), then :meth:`cleanup`."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = live_processes_of(self.uid)
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        if left:
            log.error(
                "sandbox uid %s: processes %s still alive after the bot ended", self.uid, left
            )
        self.cleanup()

    def cleanup(self) -> None:
        """Remove the (host-side, normally empty) workdir and free the uid. Call after
        the bot's process has been reaped: its namespace and tmpfs are gone by then."""
        try:
            os.rmdir(self.workdir)
        except FileNotFoundError:
            pass
        except OSError:
            shutil.rmtree(self.workdir, ignore_errors=True)
        self.lease.release()


def _statuses_of(uid: int) -> Iterator[tuple[int, dict[str, str]]]:
    """(pid, ``/proc/PID/status`` fields) of every process whose real uid is ``uid``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if int(fields.get("Uid", "-1").split()[0]) == uid:
            yield int(entry), fields


def live_processes_of(uid: int) -> list[int]:
    """Pids of the processes of ``uid`` that are not zombies."""
    return [
        pid
        for pid, fields in _statuses_of(uid)
        if not fields.get("State", "").strip().startswith(("Z", "X"))
    ]


TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def usage_of(uid: int) -> tuple[float, int]:
    """(CPU ms, largest peak resident KiB) of the live processes of ``uid``, from
    ``/proc``: what a bot used so far, read before the arena kills it (``wait4`` does
    not count the processes the kernel reaps when a namespace is torn down)."""
    cpu_ticks, peak_kb = 0, 0
    for pid, fields in _statuses_of(uid):
        with suppress(OSError, ValueError, IndexError):
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu_ticks += sum(int(stat[k]) for k in (11, 12, 13, 14))  # utime stime cutime cstime
        with suppress(ValueError, IndexError):
            peak_kb = max(peak_kb, int(fields.get("VmHWM", "0 kB").split()[0]))
    return cpu_ticks * 1000 / TICKS_PER_S, peak_kb


def resolve_paths(argv: list[str], base: str | None = None) -> list[str]:
    """``argv`` with each argument that names an existing file or folder relative to
    ``base`` (default: the arena's current directory) made absolute: the bot starts in
    its private workdir, so ``cmd:node bots/node/bot.js`` must still find its script.
    Options (``-x``, ``--x``) are left alone."""
    base = base or os.getcwd()
    out = []
    for arg in argv:
        if (
            arg
            and not arg.startswith("-")
            and not os.path.isabs(arg)
            and os.path.exists(os.path.join(base, arg))
        ):
            arg = os.path.join(base, arg)
        out.append(arg)
    return out


def socket_path() -> str | None:
    """A fresh path for a game server's Unix socket, which sandboxed bots reach (None
    where the machine cannot sandbox): in the sandbox folder, which nobody else may
    list, under a random name. ``GameServer.start(unix_path=...)`` listens there."""
    if not probe().usable:
        return None
    return str(sandbox_root() / f"srv-{secrets.token_hex(8)}.sock")


def sandbox_for(limits: SandboxLimits, server: object | None = None) -> bool:
    """Whether command bots run sandboxed: True if the machine can (and ``server``, when
    one is reused, listens on a Unix socket); False, with a loud warning, if it cannot
    and ``limits.allow_unsandboxed``; else :class:`SandboxUnavailable` saying why."""
    support = probe()
    problem = support.problem
    if support.usable and server is not None and getattr(server, "unix_path", None) is None:
        problem = (
            "the game server has no Unix socket for sandboxed bots (start it with unix_path=...)"
        )
    if not problem:
        return True
    if limits.allow_unsandboxed:
        warn_unsandboxed(problem)
        return False
    raise SandboxUnavailable(
        f"cannot sandbox command bots here: {problem}. Refusing to run them unsandboxed; "
        "--allow-unsandboxed (sandbox.allow_unsandboxed) runs them as the arena's user, "
        "with its files, environment and network"
    )


_warned: set[str] = set()


def warn_unsandboxed(problem: str) -> None:
    """Say loudly (once per process and problem) that command bots run unsandboxed."""
    if problem in _warned:
        return
    _warned.add(problem)
    text = (
        f"WARNING: command bots run UNSANDBOXED ({problem}): as the arena's user, with its "
        "files, environment and network, without resource limits. Only run bots you trust."
    )
    log.warning("%s", text)
    print(text, file=sys.stderr, flush=True)


__all__ = [
    "Launch",
    "SandboxUnavailable",
    "Support",
    "UidLease",
    "live_processes_of",
    "probe",
    "resolve_paths",
    "sandbox_for",
    "sandbox_root",
    "socket_path",
    "usage_of",
    "warn_unsandboxed",
]
