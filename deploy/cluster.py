"""``make cluster-up`` / ``make cluster-down``: the local stack for people.

``python -m deploy.cluster up [--dir .cluster]`` starts PostgreSQL, an MLflow tracking
server on it (artifacts proxied), and a two-node Ray cluster with token authentication
(``deploy.localstack``), leaves them running, and writes ``<dir>/env`` (the variables a
shell needs: ``source .cluster/env``) and ``<dir>/state.json`` (their process ids).
``down`` stops each of those processes by a signal to its own id (never Ray's
machine-wide stop command)
and removes the folders they used. ``status`` says which are running.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from deploy.localstack import STOP_BOUND_S, LocalStack, MissingTool

DEFAULT_DIR = Path(".cluster")


def up(folder: Path) -> int:
    """Start the stack into ``folder`` (refused if one is already running there)."""
    state_path = folder / "state.json"
    if state_path.exists():
        print(f"a stack is already up (see {state_path}); `make cluster-down` first")
        return 1
    folder.mkdir(parents=True, exist_ok=True)
    try:
        stack = LocalStack(folder.resolve())
    except MissingTool as exc:
        print(f"cluster-up: {exc}", file=sys.stderr)
        return 1
    try:
        stack.start()
    except RuntimeError as exc:
        print(f"cluster-up failed: {exc}", file=sys.stderr)
        stack.stop()
        return 1
    ray, pg, mlflow = stack.ray, stack.postgres, stack.mlflow
    assert ray.head is not None and ray.node is not None and mlflow is not None
    assert pg.process is not None and mlflow.process is not None
    started = [
        ("ray-node", ray.node.process.pid, "SIGTERM"),
        ("ray-head", ray.head.process.pid, "SIGTERM"),
        ("mlflow", mlflow.process.pid, "group"),
        ("postgres", pg._postmaster_pid() or pg.process.pid, "SIGINT"),
    ]
    seconds = stack.seconds
    env = {
        **ray.driver_env({}),
        "MLFLOW_TRACKING_URI": mlflow.url,
        "MENAGERIE_LADDER_DB": stack.ladder_db,
    }
    state = {
        "processes": [{"what": w, "pid": p, "stop": h} for w, p, h in started],
        "folders": [str(pg.root), str(ray.temp_dir)],
        "env": env,
        "seconds_to_come_up": round(seconds, 1),
    }
    state_path.write_text(json.dumps(state, indent=1))
    (folder / "env").write_text("".join(f"export {k}='{v}'\n" for k, v in env.items()))
    os.chmod(folder / "env", 0o600)  # it holds the Ray token
    print(f"the local stack is up in {seconds:.0f} s:")
    print(f"  Ray     {ray.address} (2 nodes, token authentication)")
    print(f"  MLflow  {mlflow.url}")
    print(f"  ladder  {stack.ladder_db}")
    print(f"`source {folder}/env`, then e.g. `arena tournament examples/tournament.yaml`;")
    print("`make cluster-down` stops it all")
    return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stop_all(processes: list[tuple[str, int, str]]) -> None:
    """Signal each process (its group for ``group``), wait, SIGKILL what is left."""
    for what, pid, how in processes:
        with contextlib.suppress(ProcessLookupError):
            if how == "group":
                os.killpg(pid, signal.SIGTERM)
            else:
                os.kill(pid, signal.SIGINT if how == "SIGINT" else signal.SIGTERM)
        deadline = time.monotonic() + STOP_BOUND_S
        while _alive(pid) and time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            time.sleep(0.2)
        if _alive(pid):
            print(f"{what} (pid {pid}) did not stop in {STOP_BOUND_S:g} s: killed")
            with contextlib.suppress(ProcessLookupError):
                (os.killpg if how == "group" else os.kill)(pid, signal.SIGKILL)


def down(folder: Path) -> int:
    """Stop what ``up`` started into ``folder`` and remove its folders."""
    state_path = folder / "state.json"
    if not state_path.exists():
        print(f"no stack is up here ({state_path} does not exist)")
        return 0
    state = json.loads(state_path.read_text())
    _stop_all([(p["what"], int(p["pid"]), p["stop"]) for p in state["processes"]])
    for path in state["folders"]:
        shutil.rmtree(path, ignore_errors=True)
    shutil.rmtree(folder, ignore_errors=True)
    print("the local stack is down")
    return 0


def status(folder: Path) -> int:
    state_path = folder / "state.json"
    if not state_path.exists():
        print("no stack is up")
        return 1
    state = json.loads(state_path.read_text())
    for p in state["processes"]:
        print(f"{p['what']:9} pid {p['pid']:>7}  {'running' if _alive(p['pid']) else 'GONE'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("action", choices=["up", "down", "status"])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="state folder")
    args = parser.parse_args(argv)
    return {"up": up, "down": down, "status": status}[args.action](args.dir)


if __name__ == "__main__":
    raise SystemExit(main())
