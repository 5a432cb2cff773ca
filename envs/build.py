"""Compile :data:`envs.native.MODULES` with mypyc into :data:`envs.native.BUILD`.

``python -m envs.build`` (``make native``, which ``make test`` and ``make test-fast``
run) does nothing when the build's stamp is already that of the sources and of this mypy;
``--force`` builds anyway; ``--status`` says what ``import envs.direct`` loads. It needs
mypy (the dev extras), a C compiler and the Python headers (``make system-deps``
installs ``gcc`` and ``python3-dev``), and says which is missing. mypyc's and the
compiler's output go to ``build/native/<python>.log``, whose end a failed build prints.
Why and how the build is used: :mod:`envs.native`.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from envs.native import BUILD, MODULES, ROOT, identity, status

BUILD_TIMEOUT_S = 600.0
"""The longest a build may take (about 20 s here)."""


def stamp() -> dict[str, str]:
    """The stamp of a build of the current sources: :func:`envs.native.identity` and
    mypy's version (a new mypy builds again; the older build still loads meanwhile)."""
    try:
        mypy = importlib.metadata.version("mypy")
    except importlib.metadata.PackageNotFoundError as missing:
        raise SystemExit("envs.build: no mypy (it holds mypyc): make venv") from missing
    return {**identity(), "mypy": mypy}


def build(force: bool = False) -> bool:
    """Build unless the stamp is current (or ``force``); True if it built. Raises
    ``SystemExit`` naming what is missing when it cannot."""
    want = stamp()
    stamp_file = BUILD / "stamp.json"
    if not force and stamp_file.is_file():
        try:
            if json.loads(stamp_file.read_text()) == want:
                return False
        except ValueError:
            pass  # unreadable: build again
    if not (shutil.which("gcc") or shutil.which("cc")):
        raise SystemExit("envs.build: no C compiler (gcc): make system-deps")
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():
        raise SystemExit(f"envs.build: no Python headers ({headers}): make system-deps")

    BUILD.parent.mkdir(parents=True, exist_ok=True)
    log = BUILD.parent / f"{BUILD.name}.log"
    with tempfile.TemporaryDirectory(prefix="menagerie-native-") as scratch:
        with log.open("w") as out:  # mypyc's and the C compiler's output
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    f"from envs.build import compile_into; compile_into({scratch!r})",
                ],
                cwd=ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=BUILD_TIMEOUT_S,
                check=False,
            )
        if done.returncode:
            tail = "\n".join(log.read_text().splitlines()[-30:])
            raise SystemExit(f"envs.build: the build failed; the end of {log}:\n{tail}")
        if BUILD.exists():
            shutil.rmtree(BUILD)
        shutil.copytree(f"{scratch}/lib", BUILD)
    stamp_file.write_text(json.dumps(want, indent=1) + "\n")
    return True


def compile_into(scratch: str) -> None:
    """Compile :data:`MODULES` into ``<scratch>/lib`` (run by :func:`build` in a child
    process working in :data:`ROOT`: mypyc names each module by its path from there and
    finds its imports there)."""
    from mypyc.build import mypycify  # build tools, imported only to build
    from setuptools import Distribution
    from setuptools.command.build_ext import build_ext

    extensions = mypycify(list(MODULES), opt_level="3", target_dir=f"{scratch}/c")
    command = build_ext(Distribution({"ext_modules": extensions}))
    command.build_lib = f"{scratch}/lib"
    command.build_temp = f"{scratch}/tmp"
    command.ensure_finalized()
    command.run()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--force", action="store_true", help="build even when current")
    parser.add_argument("--status", action="store_true", help="only say what loads")
    args = parser.parse_args(argv)
    if not args.status:
        built = build(force=args.force)
        print(f"envs.build: {BUILD} {'built' if built else 'is current'}")
    print(f"envs.direct: {status()[1]}")


if __name__ == "__main__":
    main()
