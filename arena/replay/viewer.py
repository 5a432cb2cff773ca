"""The HTML replay viewer: one self-contained file per game (no network, no build step).

:func:`write_viewer` writes ``OUT.html`` holding the per-step observations of every seat
and of the spectator (or of one seat only: ``arena replay --html --seat S``) as inline
JSON, each step's text as each view may read it (another seat's hidden action by its
public part), with vanilla JS and CSS inlined from
``arena/replay/assets/`` (``viewer.css``, ``svg.js``, ``games/<game>.js``, ``viewer.js``): play
and pause, previous/next, a timeline slider, a step counter, a seat-view selector, the
step log with events highlighted, a drawn board for the game and the final score.

Observations are stored once, hash-consed: every distinct list, object and number of
every observation goes into one pool, objects and lists as lists of references to
their parts, and ``frames[k][view]`` references the observation of ``view`` after step
``k``. What does not change between steps, and what every seat sees alike, costs a
reference.

For a tournament, :func:`sample_games_for_viewers` picks the games worth a viewer (each
bot's lost games, games with failures) and :func:`log_viewers` logs their viewers to the
MLflow run under ``replays/``.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from arena.replay.model import Replay, UnverifiedRecord, load_replay
from engine import get_game
from engine.core import JSON

FORMAT = "menagerie.viewer/2"
"""/2: a step's text is per view (``texts``), no longer one ``text``."""
ARTIFACT_DIR = "replays"


class _Pool:
    """Hash-consed JSON: every distinct list, object and number is stored once.

    A stored list is ``[-1, c1, c2, ...]``, a stored object ``[keyset, c1, c2, ...]``
    (its keys are ``keysets[keyset]``) and a number is stored as itself. A child ``c`` is
    an int (the index of a stored value) or, for a string, boolean or null, the value
    itself. :meth:`add` returns the code of a value.
    """

    def __init__(self) -> None:
        self.values: list[JSON] = []
        self.keysets: list[list[str]] = []
        self._index: dict[tuple[Any, ...], int] = {}
        self._keysets: dict[tuple[str, ...], int] = {}

    def _store(self, key: tuple[Any, ...], value: JSON) -> int:
        idx = self._index.get(key)
        if idx is None:
            idx = self._index[key] = len(self.values)
            self.values.append(value)
        return idx

    def add(self, value: JSON) -> JSON:
        if value is None or isinstance(value, str | bool):
            return value
        if isinstance(value, int | float):
            return self._store(("n", type(value).__name__, value), value)
        if isinstance(value, list | tuple):
            codes = [self.add(v) for v in value]
            return self._store(("l", *map(_tag, codes)), [-1, *codes])
        if isinstance(value, dict):
            keys = tuple(value)
            ks = self._keysets.get(keys)
            if ks is None:
                ks = self._keysets[keys] = len(self.keysets)
                self.keysets.append(list(keys))
            codes = [self.add(v) for v in value.values()]
            return self._store(("d", ks, *map(_tag, codes)), [ks, *codes])
        raise TypeError(f"not JSON: {value!r}")


def _tag(code: JSON) -> tuple[str, JSON]:
    """A hashable key part that keeps references, strings, booleans and null apart."""
    if isinstance(code, bool):
        return ("b", code)
    if isinstance(code, int):
        return ("r", code)
    return ("s", code)


def viewer_data(rp: Replay, views: Sequence[int | None] | None = None) -> dict[str, JSON]:
    """Everything the viewer page shows, as JSON (see the module docstring), for ``views``
    (seats; None in it: the spectator; default: the spectator and every seat).

    Each step's text is stored per view as that view may read it
    (:meth:`arena.replay.model.Step.text_for`), so a seat's log never shows another
    seat's hidden action. A viewer of chosen views (``arena replay --html --seat S``)
    holds nothing those views did not see, and not the match's seed either (the chance
    outcomes follow from it); the full one holds every seat's observations (an
    analyst's file, like the record).
    """
    rec = rp.record
    pool = _Pool()
    full = views is None
    views = [None, *range(rp.num_players)] if views is None else list(views)
    frames = [[pool.add(rp.observation(k, v)) for v in views] for k in range(rp.last + 1)]
    game = get_game(rp.game)
    return {
        "format": FORMAT,
        "game": rp.game,
        "game_name": game.name,
        "game_version": rec.get("game_version"),
        "game_id": rec.get("game_id"),
        "tournament_id": rec.get("tournament_id"),
        "match_id": rec.get("match_id"),
        "seed": rec.get("seed") if full else None,
        "options": rec.get("options"),
        "num_players": rp.num_players,
        "players": [
            {"seat": i, "name": rp.names[i], "spec": str(p.get("spec", ""))}
            for i, p in enumerate(_players(rec, rp.num_players))
        ],
        "views": views,
        "keysets": pool.keysets,
        "pool": pool.values,
        "frames": frames,
        "to_move": [rp.to_move(k) for k in range(rp.last + 1)],
        "steps": [
            {
                "k": s.k,
                "seat": s.seat,
                "texts": [s.text_for(v) for v in views],
                "ms": s.ms,
                "events": list(s.events),
            }
            for s in rp.steps
        ],
        "stray_events": rp.stray_events,
        "result": rp.result,
        "ranks": rp.final_ranks,
        "forfeited": rp.forfeited,
        "digest": rec.get("digest"),
        "verified": True,
        "components": get_game(rp.game).components(),
    }


def _players(record: dict[str, Any], n: int) -> list[dict[str, Any]]:
    players = list(record.get("players") or [])
    return players + [{} for _ in range(n - len(players))]


def _asset(name: str) -> str:
    return (resources.files("arena.replay") / "assets" / name).read_text(encoding="utf-8")


def _inline_json(data: Any) -> str:
    """JSON safe inside ``<script type="application/json">`` (no ``</script>`` can appear)."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _script(js: str) -> str:
    return "<script>\n" + js.replace("</script", "<\\/script") + "\n</script>"


def analysis_data(
    annotations: Sequence[Mapping[str, Any]], game_id: str, views: Sequence[int | None] | None
) -> dict[str, JSON] | None:
    """The annotations (sidecar lines, :mod:`arena.analysis`) of game ``game_id`` that the
    viewer may show: in a viewer of chosen seats only those seats' own decisions (another
    seat's move, as its analysis names it, may be hidden from them). None if none is left."""
    seats = None if views is None else {v for v in views if v is not None}
    mine = [
        dict(a)
        for a in annotations
        if a.get("game_id") == game_id and (seats is None or a.get("seat") in seats)
    ]
    if not mine:
        return None
    return {"unit": mine[0].get("unit"), "analyser": mine[0].get("analyser"), "annotations": mine}


def render_html(
    rp: Replay,
    views: Sequence[int | None] | None = None,
    analysis: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """The viewer page of a verified replay, as one string (``views``: see
    :func:`viewer_data`; ``analysis``: annotations to draw, see :func:`analysis_data`)."""
    data = viewer_data(rp, views)
    title = f"{data['game_name']}: game {data['game_id'] or '-'}"
    try:
        game_js = _asset(f"games/{rp.game}.js")
    except FileNotFoundError:
        game_js = "/* no drawing for this game: the viewer shows the observation as text */"
    page = _asset("viewer.html")
    parts = {
        "<!--TITLE-->": _html_escape(title),
        "<!--CSS-->": "<style>\n" + _asset("viewer.css") + "\n</style>",
        "<!--DATA-->": '<script type="application/json" id="menagerie-data">'
        + _inline_json(data)
        + "</script>",
        "<!--JS-->": "\n".join(
            _script(js) for js in (_asset("svg.js"), game_js, _asset("viewer.js"))
        ),
    }
    shown = None if analysis is None else analysis_data(analysis, str(data["game_id"]), views)
    if shown is not None:  # the analysis layer: its data, style and script after the viewer's
        parts["<!--CSS-->"] += "\n<style>\n" + _asset("analysis.css") + "\n</style>"
        parts["<!--JS-->"] += (
            '\n<script type="application/json" id="menagerie-analysis">'
            + _inline_json(shown)
            + "</script>\n"
            + _script(_asset("analysis.js"))
        )
    for marker, text in parts.items():
        page = page.replace(marker, text, 1)
    return page


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_viewer(
    record: dict[str, Any],
    path: str | Path,
    analysis: Sequence[Mapping[str, Any]] | None = None,
) -> Path:
    """Verify ``record`` and write its viewer to ``path`` (with the ``analysis``
    annotations of this game, if any); UnverifiedRecord if it is bad."""
    out = Path(path)
    html = render_html(load_replay(record), None, analysis)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html, encoding="utf-8")
    return out


def _lost(record: dict[str, Any], seat: int) -> bool:
    ranks = (record.get("standing") or {}).get("ranks") or record["result"]["ranks"]
    return int(ranks[seat]) > 1


def sample_games_for_viewers(
    records: Iterable[dict[str, Any]], per_bot_lost: int = 2, limit: int = 10
) -> list[dict[str, Any]]:
    """The games worth a viewer, at most ``limit``, in this order of preference:

    1. for each bot (in order of appearance), up to ``per_bot_lost`` games it lost
       (ranked below first place after forfeits), games with events first;
    2. other games with events (timeouts, illegal moves, crashes);
    3. the remaining games in record order.
    """
    recs = list(records)
    chosen: list[dict[str, Any]] = []
    taken: set[int] = set()

    def take(i: int) -> None:
        if i not in taken and len(chosen) < limit:
            taken.add(i)
            chosen.append(recs[i])

    order = sorted(range(len(recs)), key=lambda i: (not recs[i].get("events"), i))
    bots: list[str] = []
    for rec in recs:
        for p in rec.get("players") or []:
            if p.get("name") not in bots:
                bots.append(str(p.get("name")))
    for bot in bots:
        count = 0
        for i in order:
            if count >= per_bot_lost:
                break
            seats = [s for s, p in enumerate(recs[i].get("players") or []) if p.get("name") == bot]
            if any(_lost(recs[i], s) for s in seats):
                count += 1
                take(i)
    for i in order:
        if recs[i].get("events"):
            take(i)
    for i in range(len(recs)):
        take(i)
    return chosen


def viewer_filename(record: dict[str, Any]) -> str:
    gid = "".join(c for c in str(record.get("game_id") or "game") if c.isalnum() or c in "-_")
    return f"replay-{record.get('game')}-{gid}.html"


def write_sample_viewers(
    records: Iterable[dict[str, Any]],
    out_dir: str | Path,
    per_bot_lost: int = 2,
    limit: int = 10,
    warn: Callable[[str], None] | None = None,
    analysis: Sequence[Mapping[str, Any]] | None = None,
) -> list[Path]:
    """Viewers of :func:`sample_games_for_viewers` in ``out_dir`` (drawing ``analysis``
    where it covers the game); bad records are skipped (and reported to ``warn``), never
    written."""
    paths: list[Path] = []
    for rec in sample_games_for_viewers(records, per_bot_lost, limit):
        try:
            paths.append(write_viewer(rec, Path(out_dir) / viewer_filename(rec), analysis))
        except UnverifiedRecord as exc:
            if warn is not None:
                warn(f"warning: no viewer: {exc}")
    return paths


def log_viewers(
    run_id: str,
    records: Iterable[dict[str, Any]] | None = None,
    *,
    client: Any = None,
    tracking_uri: str | None = None,
    per_bot_lost: int = 2,
    limit: int = 10,
    artifact_path: str = ARTIFACT_DIR,
    warn: Callable[[str], None] | None = None,
    analysis: Sequence[Mapping[str, Any]] | None = None,
) -> list[str]:
    """Log viewers of a sample of ``records`` (default: the run's own records) to the
    MLflow run as ``replays/replay-<game>-<game_id>.html`` (drawing ``analysis``, the
    annotations of ``arena analyse``, where given); returns the artifact paths."""
    if client is None:
        from mlflow import MlflowClient

        from arena.replay.sources import default_tracking_uri

        client = MlflowClient(tracking_uri=tracking_uri or default_tracking_uri())
    if records is None:
        from arena.replay.sources import run_source

        records = run_source(run_id, tracking_uri).records
    with tempfile.TemporaryDirectory(prefix="mnr-viewers-") as tmp:
        paths = write_sample_viewers(records, tmp, per_bot_lost, limit, warn, analysis)
        if paths:
            client.log_artifacts(run_id, tmp, artifact_path)
    return [f"{artifact_path}/{p.name}" for p in paths]
