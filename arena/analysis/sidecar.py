"""The sidecar file: a game's annotations beside its record, one JSON line per decision.

Each line is :meth:`arena.analysis.evaluate.Annotation.to_json` (``format``
``menagerie.analysis/1``), keyed by ``game_id`` and ``step``; a file may hold the
annotations of many games (a tournament's). :func:`read_annotations` checks every line
and says which one is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from arena.analysis.evaluate import FORMAT, Annotation
from arena.errors import UserError


def write_annotations(annotations: Iterable[Annotation], path: str | Path) -> int:
    """Write ``annotations`` to ``path`` (replacing it); the number written."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with out.open("w", encoding="utf-8") as fh:
        for ann in annotations:
            fh.write(json.dumps(ann.to_json(), separators=(",", ":")) + "\n")
            n += 1
    return n


def read_annotations(path: str | Path, game_id: str | None = None) -> list[Annotation]:
    """The annotations in ``path`` (of game ``game_id`` only, if given); UserError names
    the first bad line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read the analysis file: {exc}") from None
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if data.get("format") != FORMAT:
                raise ValueError(f"format is {data.get('format')!r}, expected {FORMAT}")
            ann = Annotation.from_json(data)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise UserError(f"{path}:{lineno}: not an analysis line: {exc}") from None
        if game_id is None or ann.game_id == game_id:
            out.append(ann)
    return out
