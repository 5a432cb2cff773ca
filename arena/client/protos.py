"""The wire contract's ``.proto`` files, as installed with the package (``arena proto``).

``make proto`` copies ``proto/menagerie/v1/*.proto`` next to the generated code
(``proto/gen/menagerie/v1/``), which ships as the ``menagerie`` package with its
``.proto`` files as package data, so an installed ``arena`` can hand a bot author in
another language the exact schema it speaks, laid out as protoc expects
(``menagerie/v1/<file>.proto``, imported by that path).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from arena.errors import UserError

PACKAGE_DIR = "menagerie/v1"
"""Where the files go under ``--out`` (the path ``import`` statements use)."""


def proto_files() -> dict[str, bytes]:
    """``menagerie/v1/<name>.proto`` -> its bytes, every file of the installed contract."""
    folder = resources.files("menagerie").joinpath("v1")
    files = {
        f"{PACKAGE_DIR}/{entry.name}": entry.read_bytes()
        for entry in folder.iterdir()
        if entry.name.endswith(".proto")
    }
    if not files:
        raise UserError(
            "this installation has no .proto files (menagerie/v1/*.proto): reinstall it, "
            "or in a source checkout run `make proto`"
        )
    return dict(sorted(files.items()))


def write_protos(out: Path, force: bool = False) -> list[Path]:
    """Write every ``.proto`` file under ``out``; an existing different file is kept
    (UserError naming it) unless ``force``. Returns the paths written."""
    files = proto_files()
    clashes = [
        out / rel
        for rel, data in files.items()
        if (out / rel).exists() and (out / rel).read_bytes() != data
    ]
    if clashes and not force:
        names = ", ".join(str(p) for p in clashes)
        raise UserError(f"{names} already exist(s) with other content; --force overwrites")
    written: list[Path] = []
    try:
        (out / PACKAGE_DIR).mkdir(parents=True, exist_ok=True)
        for rel, data in files.items():
            (out / rel).write_bytes(data)
            written.append(out / rel)
    except OSError as exc:
        raise UserError(f"cannot write the .proto files into {out}: {exc}") from None
    return written


__all__ = ["PACKAGE_DIR", "proto_files", "write_protos"]
