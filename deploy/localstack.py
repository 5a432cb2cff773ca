"""The local stack: a two-node Ray cluster, PostgreSQL and an MLflow tracking server on
one machine, as real processes (no containers), for ``make cluster-up`` and the tests.

Every service is a child process started here and stopped by a signal to its own PID
(or process group): never Ray's own stop command, which kills every Ray process on the machine,
other people's too. The services listen on loopback addresses only:

- Ray's head on 127.0.0.3 and a second node on 127.0.0.2 (``ray start --block``; Ray
  turns 127.0.0.1 into the machine's network address, other loopback addresses it keeps),
  both with token authentication (``RAY_AUTH_MODE=token`` and one ``RAY_AUTH_TOKEN``, set
  explicitly for the head, the node and every driver: :meth:`RayCluster.driver_env`);
- PostgreSQL (Debian's ``postgresql``: ``initdb`` and ``postgres`` as the ``postgres``
  user when run as root) on 127.0.0.1 with a socket in its own folder;
- ``mlflow server`` on PostgreSQL, artifacts proxied by the server
  (``--artifacts-destination`` a folder), ``MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

START_BOUND_S = 120.0
"""How long a service may take to come up (a busy CI machine is slow)."""

STOP_BOUND_S = 30.0
"""How long a service may take to stop after SIGTERM before it is killed."""


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on ``host`` now (the service binding it may still race another)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def stop_process(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Signal ``process`` (its PID only), wait, kill after STOP_BOUND_S, reap."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, sig)
        try:
            process.wait(STOP_BOUND_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _bin(name: str) -> str:
    """A program of this interpreter's environment (ray, mlflow), else on PATH."""
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} not found beside {sys.executable} or on PATH")
    return found


class MissingTool(RuntimeError):
    """A program the stack needs is not installed (the message says how to get it)."""


# ---------------------------------------------------------------------------
# PostgreSQL
# ---------------------------------------------------------------------------


def postgres_bin() -> Path:
    """The folder of Debian's newest PostgreSQL server binaries (or of ``postgres`` on PATH)."""
    found = []
    for path in Path("/usr/lib/postgresql").glob("*/bin/postgres"):
        match = re.fullmatch(r"\d+", path.parent.parent.name)
        if match and (path.parent / "initdb").exists():
            found.append((int(path.parent.parent.name), path.parent))
    if found:
        return max(found)[1]
    on_path = shutil.which("postgres")
    if on_path and shutil.which("initdb"):
        return Path(on_path).resolve().parent
    raise MissingTool(
        "PostgreSQL server binaries (initdb, postgres) not found in /usr/lib/postgresql/*/bin "
        "or on PATH: apt-get install postgresql (make system-deps does)"
    )


class PostgresServer:
    """One throw-away PostgreSQL cluster: ``url(db)`` names a database on it."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.root = Path(tempfile.mkdtemp(prefix="pg-", dir="/tmp"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = free_port()
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if self.as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self.root.chmod(0o700)
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        init = subprocess.run(
            [
                *self.as_postgres,
                str(self.bin / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "ladder",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            capture_output=True,
            text=True,
            timeout=START_BOUND_S,
        )
        if init.returncode != 0:
            raise RuntimeError(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
        log = open(self.log, "wb")  # noqa: SIM115 - the server writes it until stop()
        self.process = subprocess.Popen(
            [
                *self.as_postgres,
                str(self.bin / "postgres"),
                "-D",
                str(self.data),
                "-k",
                str(self.root),
                "-p",
                str(self.port),
                "-h",
                "127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "max_connections=60",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # `make cluster-up` leaves it running after it exits
        )
        log.close()
        self._wait_ready()

    def _wait_ready(self) -> None:
        import psycopg

        deadline = time.monotonic() + START_BOUND_S
        problem = ""
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"postgres exited at start:\n{self.log.read_text()[-2000:]}")
            try:
                with psycopg.connect(self.dsn("postgres"), connect_timeout=2):
                    return
            except psycopg.OperationalError as exc:
                problem = str(exc).strip()
                time.sleep(0.1)
        raise RuntimeError(f"postgres did not accept connections in {START_BOUND_S:g} s: {problem}")

    def dsn(self, database: str) -> str:
        return f"host=127.0.0.1 port={self.port} user=ladder dbname={database}"

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://ladder@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        import psycopg

        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return name

    def create_named_database(self, name: str) -> None:
        """Create the database ``name`` (a plain identifier) unless it exists."""
        import psycopg

        if not name.isidentifier():
            raise ValueError(f"not a database name: {name!r}")
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,))
            if found.fetchone() is None:
                conn.execute(f'CREATE DATABASE "{name}"')

    def drop_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _postmaster_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def stop(self) -> None:
        """Fast shutdown (SIGINT to the postmaster's PID), then remove the folder."""
        if self.process is not None:
            pid = self._postmaster_pid()
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid if pid is not None else self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.root, ignore_errors=True)


# ---------------------------------------------------------------------------
# Ray
# ---------------------------------------------------------------------------


class RayNode:
    """One ``ray start --block`` process: the head or a node joining it."""

    def __init__(
        self,
        ip: str,
        env: dict[str, str],
        log: Path,
        *,
        head_address: str | None = None,
        port: int | None = None,
        client_port: int | None = None,
        cpus: int = 1,
        resources: dict[str, float] | None = None,
        temp_dir: Path | None = None,
    ) -> None:
        self.ip = ip
        self.log = log
        argv = [_bin("ray"), "start", "--block", "--node-ip-address", ip, f"--num-cpus={cpus}"]
        argv += ["--disable-usage-stats", "--object-store-memory", str(200 * 1024 * 1024)]
        if head_address is None:
            argv += ["--head", f"--port={port}", "--include-dashboard=false"]
            argv += [f"--ray-client-server-port={client_port}", f"--temp-dir={temp_dir}"]
        else:
            argv += [f"--address={head_address}"]
        if resources:
            argv += ["--resources", json.dumps(resources)]
        with open(log, "wb") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )

    def stop(self) -> None:
        """SIGTERM to this node's ``ray start`` (it stops its own raylet and workers)."""
        stop_process(self.process)


class RayCluster:
    """A head on 127.0.0.3 and a second node on 127.0.0.2 with the custom resource
    ``{"second_node": 1}``, token authentication on; ``address`` for drivers."""

    HEAD_IP = "127.0.0.3"
    NODE_IP = "127.0.0.2"
    NODE_RESOURCE = "second_node"

    def __init__(self, root: Path, cpus: int = 1) -> None:
        self.root = root
        self.cpus = cpus
        self.token = secrets.token_hex(32)
        self.port = free_port(self.HEAD_IP)
        self.address = f"{self.HEAD_IP}:{self.port}"
        self.client_port = free_port(self.HEAD_IP)
        self.client_address = f"ray://{self.HEAD_IP}:{self.client_port}"
        """Ray Client's address (what a driver outside the cluster uses, as in k8s/)."""
        self.temp_dir = Path(tempfile.mkdtemp(prefix="mnr-cluster-ray-", dir="/tmp"))
        self.head: RayNode | None = None
        self.node: RayNode | None = None

    def driver_env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """The environment of a process that talks to the cluster (head, node, driver)."""
        env = dict(os.environ if base is None else base)
        env.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=self.token, RAY_ADDRESS=self.address)
        env.pop("RAY_AUTH_TOKEN_PATH", None)
        return env

    def start(self, node_env: dict[str, str] | None = None) -> None:
        """Start the head, then the node; return once the cluster has both (``node_env``:
        extra environment of the second node's processes, its workers inherit it)."""
        env = self.driver_env()
        env.pop("RAY_ADDRESS")
        self.head = RayNode(
            self.HEAD_IP,
            env,
            self.root / "ray-head.log",
            port=self.port,
            client_port=self.client_port,
            cpus=self.cpus,
            temp_dir=self.temp_dir,
        )
        self.wait_nodes(1)
        self.start_node(node_env)

    def start_node(self, node_env: dict[str, str] | None = None) -> None:
        """Start the second node (again, after a test stopped it); wait for two nodes."""
        env = self.driver_env()
        env.pop("RAY_ADDRESS")
        self.node = RayNode(
            self.NODE_IP,
            {**env, **(node_env or {})},
            self.root / "ray-node.log",
            head_address=self.address,
            cpus=self.cpus,
            resources={self.NODE_RESOURCE: 1},
        )
        self.wait_nodes(2)

    def alive_nodes(self) -> list[dict[str, Any]]:
        """The nodes the head reports alive (asked by a short-lived driver process)."""
        code = (
            "import json, ray; ray.init(logging_level='ERROR'); "
            "print(json.dumps([n for n in ray.nodes() if n['Alive']]))"
        )
        done = subprocess.run(
            [sys.executable, "-c", code],
            env=self.driver_env(),
            capture_output=True,
            text=True,
            timeout=START_BOUND_S,
        )
        if done.returncode != 0:
            return []
        nodes: list[dict[str, Any]] = json.loads(done.stdout.strip().splitlines()[-1])
        return nodes

    def wait_nodes(self, count: int) -> None:
        """Wait until ``count`` nodes are alive (RuntimeError naming the logs if not)."""
        deadline = time.monotonic() + START_BOUND_S
        while time.monotonic() < deadline:
            for n in (self.head, self.node):
                if n is not None and n.process.poll() is not None:
                    raise RuntimeError(f"ray start exited:\n{n.log.read_text()[-2000:]}")
            if len(self.alive_nodes()) >= count:
                return
            time.sleep(0.5)
        raise RuntimeError(f"the Ray cluster did not reach {count} nodes; see {self.root}")

    def stop(self) -> None:
        """The node, then the head (SIGTERM to each PID), then their temp folder."""
        for n in (self.node, self.head):
            if n is not None:
                n.stop()
        shutil.rmtree(self.temp_dir, ignore_errors=True)


# ---------------------------------------------------------------------------
# MLflow
# ---------------------------------------------------------------------------


class MlflowServer:
    """``mlflow server`` on a PostgreSQL database, artifacts proxied by the server into
    ``root/artifacts`` (clients upload and download through it, as in the k8s manifests)."""

    def __init__(self, backend_uri: str, root: Path) -> None:
        self.backend_uri = backend_uri
        self.root = root
        self.artifacts = root / "mlflow-artifacts"
        self.log = root / "mlflow.log"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server in its own process group; return once /health answers."""
        self.artifacts.mkdir(parents=True, exist_ok=True)
        argv = [_bin("mlflow"), "server", "--backend-store-uri", self.backend_uri]
        argv += ["--artifacts-destination", self.artifacts.as_uri(), "--serve-artifacts"]
        argv += ["--host", "127.0.0.1", "--port", str(self.port), "--workers", "1"]
        env = dict(os.environ, MLFLOW_SERVER_ENABLE_JOB_EXECUTION="false")
        with open(self.log, "wb") as out:
            self.process = subprocess.Popen(
                argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        deadline = time.monotonic() + START_BOUND_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"mlflow server exited:\n{self.log.read_text()[-3000:]}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"{self.url}/health", timeout=2) as answer,
            ):
                if answer.status == 200:
                    return
            time.sleep(0.3)
        raise RuntimeError(f"mlflow server did not answer in {START_BOUND_S:g} s; see {self.log}")

    def stop(self) -> None:
        """SIGTERM to the server's process group (uvicorn and its workers), then reap."""
        if self.process is None or self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(STOP_BOUND_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


# ---------------------------------------------------------------------------
# The whole stack
# ---------------------------------------------------------------------------


class LocalStack:
    """PostgreSQL (databases ``mlflow`` and ``ladder``), MLflow on it, and the two-node
    Ray cluster; the Ray nodes start while PostgreSQL and MLflow do (a thread each way).

    ``node_env``: extra environment of the second Ray node (its workers inherit it).
    """

    def __init__(self, root: Path, node_env: dict[str, str] | None = None) -> None:
        self.root = root
        self.node_env = node_env
        self.postgres = PostgresServer()
        self.mlflow: MlflowServer | None = None
        self.ray = RayCluster(root)
        self.seconds = 0.0
        """How long :meth:`start` took."""

    @property
    def mlflow_url(self) -> str:
        assert self.mlflow is not None
        return self.mlflow.url

    @property
    def ladder_db(self) -> str:
        return self.postgres.url("ladder")

    def _start_tracking(self) -> None:
        self.postgres.start()
        for db in ("mlflow", "ladder"):
            self.postgres.create_named_database(db)
        self.mlflow = MlflowServer(self.postgres.url("mlflow"), self.root)
        self.mlflow.start()

    def start(self) -> None:
        """Start everything (RuntimeError naming what failed: everything is stopped)."""
        import threading

        t0 = time.monotonic()
        problem: list[BaseException] = []

        def tracking() -> None:
            try:
                self._start_tracking()
            except BaseException as exc:  # reported by start()
                problem.append(exc)

        thread = threading.Thread(target=tracking, name="pg+mlflow", daemon=True)
        thread.start()
        try:
            self.ray.start(self.node_env)
        finally:
            thread.join(2 * START_BOUND_S)
        if problem:
            self.stop()
            raise RuntimeError(f"PostgreSQL/MLflow did not start: {problem[0]}") from problem[0]
        self.seconds = time.monotonic() - t0

    def stop(self) -> None:
        """Ray's nodes, MLflow, PostgreSQL: each by a signal to its own process."""
        self.ray.stop()
        if self.mlflow is not None:
            self.mlflow.stop()
        self.postgres.stop()
