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
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from arena.sandbox.limits import SandboxLimits

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
for d in /tmp /var/tmp /dev/shm /run/lock; do
  if [ -d "$d" ]; then mount --bind "$W/.tmp" "$d"; fi
done
mount -o remount,bind,ro /
cd "$W"
exec "$@"
"""
"""Runs as root in the bot's new mount namespace (nothing it does is seen outside)."""

WAIT_FOR_BOT = '"$@" & wait $!'
"""The bot's process 1: starts the bot and exits with its status (SIGTERM from outside
reaches the bot itself; process 1 of a namespace ignores it)."""


class SandboxUnavailable(RuntimeError):
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
        return Support(False, "the sandbox needs root (to give each bot its own uid and namespaces)")
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
            SETUP,
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


def kill_uid(uid: int) -> None:
    """SIGKILL every process of a private ``uid`` (``kill -KILL -1`` run as that uid): a
    backstop for processes that escaped their namespace, which the kernel does not allow."""
    setpriv = shutil.which("setpriv")
    kill = shutil.which("kill")
    if setpriv is None or kill is None or os.geteuid() != 0:
        return
    subprocess.run(
        [setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", kill, "-KILL", "-1"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=10,
        check=False,
    )


__all__ = [
    "Launch",
    "SandboxUnavailable",
    "Support",
    "UidLease",
    "kill_uid",
    "probe",
    "sandbox_root",
]
