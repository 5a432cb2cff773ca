"""The example bots in other languages, built once per test session.

``node_bot``/``go_bot`` are the bots' command lines (without the ``cmd:`` prefix). A
missing toolchain fails the test with the command that installs it; it never skips.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "bots" / "node"
GO_DIR = ROOT / "bots" / "go"
GO_APT = (
    "apt-get update && apt-get install -y golang-go golang-google-grpc-dev "
    "golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev protoc-gen-go "
    "protoc-gen-go-grpc protobuf-compiler"
)
NODE_APT = "apt-get install -y nodejs npm (Node.js >= 18), then npm ci in bots/node"


def _build(cmd: list[str], what: str, cwd: Path = ROOT) -> None:
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"{what} failed ({' '.join(cmd)}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")


@pytest.fixture(scope="session")
def node_bot() -> str:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail(f"Node.js is not installed; install it with: {NODE_APT}")
    lock = NODE_DIR / "package-lock.json"
    marker = NODE_DIR / "node_modules" / ".package-lock.json"
    if not marker.exists() or marker.stat().st_mtime < lock.stat().st_mtime:
        _build(["npm", "ci", "--no-audit", "--no-fund"], "npm ci in bots/node", NODE_DIR)
    return f"node {NODE_DIR / 'bot.js'} --seed 7"


@pytest.fixture(scope="session")
def go_bot() -> str:
    tools = ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc", "make")
    missing = [t for t in tools if not shutil.which(t)]
    if missing:
        pytest.fail(f"Go toolchain missing ({', '.join(missing)}); install it with: {GO_APT}")
    _build(["make", "-C", str(GO_DIR)], "building the Go bot (make -C bots/go)")
    return f"{GO_DIR / 'bin' / 'menagerie-go-bot'} --seed 7"
