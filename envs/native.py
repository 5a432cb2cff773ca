"""Whether :mod:`envs.direct` runs compiled: its mypyc build, used only when it is current.

Writing a tensor from a state's fields is a few hundred list, tuple and attribute
operations per step; interpreted, they cost more than the engine's own step in the games
with the shortest steps (``python -m envs.bench``). mypyc (part of mypy, a dev tool here
already) compiles the type-annotated module as it is, with no second copy of the logic:
``python -m envs.build`` (``make native``) writes the build into :data:`BUILD`
(gitignored) with a stamp of what it was built from.

``envs/__init__.py`` puts the build first on the package's search path only when its
stamp names the sources it would stand for (:func:`library`). An edited
``envs/direct.py`` is therefore never shadowed by a stale build: until it is built again,
the source runs, interpreted, with the same results (``tests/envs`` checks both).
``MENAGERIE_NATIVE=0`` runs the interpreted source even when a build is current;
``python -m envs.build --status`` says which one ``import envs.direct`` loads, and why.
The build is an accelerator, never a dependency: everything works without it, slower.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
"""The repository (the folder that holds ``envs/``)."""

MODULES: tuple[str, ...] = ("envs/direct.py",)
"""The compiled modules, relative to :data:`ROOT`."""

BUILD = ROOT / "build" / "native" / sys.implementation.cache_tag
"""Where the build goes: ``<BUILD>/envs/*.so`` and ``<BUILD>/stamp.json``."""

SWITCH = "MENAGERIE_NATIVE"
"""The environment variable that, set to ``0``, keeps the build from loading."""


def identity(root: Path = ROOT) -> dict[str, str]:
    """What a build must have been built from to stand for the sources under ``root``:
    their SHA-256 and the extension ABI (``stamp.json`` holds these and mypy's version)."""
    digest = hashlib.sha256()
    for module in MODULES:
        digest.update(module.encode() + b"\0" + (root / module).read_bytes() + b"\0")
    return {"sources": digest.hexdigest(), "abi": str(sysconfig.get_config_var("EXT_SUFFIX"))}


def status(root: Path = ROOT, build: Path = BUILD) -> tuple[Path | None, str]:
    """The build folder to load (None: the interpreted source) and why."""
    if os.environ.get(SWITCH) == "0":
        return None, f"interpreted: {SWITCH}=0"
    stamp_file = build / "stamp.json"
    if not stamp_file.is_file():
        return None, f"interpreted: no build in {build} (make native)"
    try:
        built = json.loads(stamp_file.read_text())
    except (OSError, ValueError) as exc:
        return None, f"interpreted: {stamp_file} is unreadable ({exc}; make native)"
    if not isinstance(built, dict) or any(built.get(k) != v for k, v in identity(root).items()):
        return None, f"interpreted: the build in {build} is of other sources (make native)"
    return build, f"compiled: {build}"


def library() -> str | None:
    """The folder to put first on ``envs.__path__``, or None (the module docstring)."""
    found, _ = status()
    return None if found is None else str(found / "envs")


def interpreted(name: str) -> ModuleType:
    """The interpreted module ``name`` (one of :data:`MODULES`, e.g. ``envs.direct``),
    executed from its source as ``<name>_source`` whether or not the build loads: what
    runs without the build, for the tests to compare with the build."""
    path = ROOT / (name.replace(".", "/") + ".py")
    if path.relative_to(ROOT).as_posix() not in MODULES:
        raise ValueError(f"{name} is not one of the compiled modules ({', '.join(MODULES)})")
    alias = f"{name}_source"
    if alias in sys.modules:
        return sys.modules[alias]
    spec = importlib.util.spec_from_file_location(alias, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module
    spec.loader.exec_module(module)
    return module
