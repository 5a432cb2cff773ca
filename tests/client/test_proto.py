"""``arena proto --out DIR``: the packaged .proto files, compiled by protoc."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grpc_tools

from tests.cli import run_cli

SOURCES = Path(__file__).resolve().parents[2] / "proto" / "menagerie" / "v1"


def test_proto_writes_the_contract_that_protoc_compiles(tmp_path: Path) -> None:
    out = tmp_path / "protos"
    result = run_cli("proto", "--out", str(out))
    assert result.exit_code == 0, result.stderr
    written = sorted((out / "menagerie" / "v1").glob("*.proto"))
    assert [p.name for p in written] == sorted(p.name for p in SOURCES.glob("*.proto"))
    for path in written:  # the packaged copy is the source, byte for byte
        assert path.read_bytes() == (SOURCES / path.name).read_bytes()
    gen = tmp_path / "gen"
    gen.mkdir()
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    done = subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{out}", f"-I{well_known}",
         f"--python_out={gen}", *(str(p.relative_to(out)) for p in written)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (gen / "menagerie" / "v1" / "game_service_pb2.py").exists()


def test_proto_keeps_a_changed_file_unless_forced(tmp_path: Path) -> None:
    assert run_cli("proto", "--out", str(tmp_path)).exit_code == 0
    again = run_cli("proto", "--out", str(tmp_path))
    assert again.exit_code == 0  # the same content: nothing to protect
    mine = tmp_path / "menagerie" / "v1" / "dziobaki.proto"
    mine.write_text("// my edits\n")
    kept = run_cli("proto", "--out", str(tmp_path))
    assert kept.exit_code == 2 and "--force" in kept.stderr
    assert mine.read_text() == "// my edits\n"
    assert run_cli("proto", "--out", str(tmp_path), "--force").exit_code == 0
    assert mine.read_bytes() == (SOURCES / "dziobaki.proto").read_bytes()
