"""The sandbox of command bots: what a ``cmd:`` program may see and use.

A submitted program is untrusted: it must not read or change the arena's files,
environment or network, hurt the host, or outlive its game. Each command bot is started
(``arena.match.cmdbots``) through :class:`Launch`, a chain of the operating system's own
tools (util-linux ``unshare``, ``setpriv``, ``prlimit``; ``mount``; ``/bin/sh``), each
stopping something:

=====================================  ==========================================================
mechanism (tool)                       what it stops
=====================================  ==========================================================
own session and process group          the arena kills the bot and everything it started with
(``setsid``: Popen                     one ``killpg``; the bot cannot signal the arena's group
``start_new_session``)
PID namespace (``unshare --pid         seeing or signalling any process outside (``/proc``
--fork --mount-proc``)                 shows only its own); when its process 1 exits the kernel
                                       kills every process left, so no child outlives the bot
                                       (not even one that ``setsid``-ed or ignores SIGTERM)
network namespace (``unshare --net``)  every network access: the namespace has only a downed
                                       loopback; the game server is reached through a Unix
                                       socket (``unix:`` address, a file, which gRPC speaks)
mount namespace (``unshare --mount``)  writing anywhere but its workdir: the root file system
+ ``mount``                            is remounted read-only (so the submitted files are read-
                                       only), ``/tmp``, ``/var/tmp``, ``/dev/shm``, ``/run/lock``
                                       are its own folder; the workdir is a tmpfs of
                                       ``disk_mb``, which bounds all it can write (filling the
                                       disk) and vanishes with it
IPC/UTS namespaces                     System V IPC with other processes; changing the host name
a private uid per bot (``setpriv       reading the arena's private files (0600/0700: the ladder
--reuid --regid --clear-groups``)      database, secrets), signalling or tracing other bots;
                                       and it makes RLIMIT_NPROC a per-bot bound. Leased from
                                       :data:`UID_BASE` up with an flock, so no two live bots
                                       share one
no capabilities (``setpriv            regaining privileges (setuid binaries, file caps)
--inh-caps=-all --bounding-set=-all
--no-new-privs``)
rlimits (``prlimit``)                  RLIMIT_AS (memory), RLIMIT_CPU (a spinning leftover),
                                       RLIMIT_NPROC (fork bombs), RLIMIT_NOFILE, RLIMIT_FSIZE,
                                       no core dumps; see :class:`SandboxLimits`
clean environment                      the arena's secrets, tokens, credentials: the bot gets
                                       only PATH, HOME (its workdir), TMPDIR, LANG and its
                                       seat's MENAGERIE_ADDRESS/CREDENTIAL/SEAT/GAME
=====================================  ==========================================================

The move clock (the game server's) bounds its time per move; ``arena.match.clock`` clocks
in-process bots. The arena measures each program's CPU time and peak resident memory
(``wait4`` of the sandbox, which includes every descendant it waited for) into the
record's ``usage``.

**Where a mechanism is missing** (not Linux, not root, a tool or namespace unavailable:
:func:`probe` tries the whole chain once per process), command bots are refused with
:class:`SandboxUnavailable` saying what is missing, unless the limits say
``allow_unsandboxed`` (``--allow-unsandboxed``, ``sandbox: {allow_unsandboxed: true}``):
then they run as before, as the arena's user, after a loud warning. ``py:`` and
reference bots run inside the arena's process and are trusted code; the sandbox does
not apply to them.

What a bot still sees, read-only: the host's file system as any unprivileged user would
(world-readable files; keep the arena's data 0600/0700, as the ladder database and
tokens should be), the interpreter's installation even under a closed folder such as
``/root/.pyenv`` (shown alone, :func:`arena.sandbox.launch.hidden_parents`), and files
named by absolute arguments of its command line that live under ``/tmp`` (a ladder home
or a test's folder there: :func:`arena.sandbox.launch.private_place_lines`).

Not covered: a world-writable Unix socket of a host service outside ``/tmp`` (a system
D-Bus, a container runtime's socket: keep them closed to other users), CPU share between
bots running at once (a bot may use all of its cores
until its move clock or RLIMIT_CPU stops it; cgroups would divide them), and memory of
tmpfs files (counted against ``disk_mb``, not RLIMIT_AS).
"""

from arena.sandbox.launch import (
    DEFAULT_ROOT,
    ROOT_ENV,
    UID_BASE,
    Launch,
    SandboxUnavailable,
    Support,
    probe,
    resolve_paths,
    sandbox_for,
    sandbox_root,
    socket_path,
    warn_unsandboxed,
)
from arena.sandbox.limits import DEFAULT_LIMITS, SandboxLimits

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_ROOT",
    "ROOT_ENV",
    "UID_BASE",
    "Launch",
    "SandboxLimits",
    "SandboxUnavailable",
    "Support",
    "probe",
    "resolve_paths",
    "sandbox_for",
    "sandbox_root",
    "socket_path",
    "warn_unsandboxed",
]
