"""``arena ladder``: create a ladder, submit bots, run it, read its standings and history.

Every command takes ``--db URL`` (default ``$MENAGERIE_LADDER_DB``, else the SQLite file
``./ladder.db``; ``postgresql+psycopg://user:pw@host/db`` for PostgreSQL) and, where files
are involved, ``--home DIR`` (default ``$MENAGERIE_LADDER_HOME``, else ``./ladder``).
A bot is named ``BOT`` (its latest version) or ``BOT@VERSION``; ``--ladder`` says which
ladder when a bot name is on several.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Any

import typer

from arena.cli.common import parse_options, rich_console, user_errors, warn
from arena.ladder.errors import LadderError, UnknownBot

if TYPE_CHECKING:
    from arena.ladder.store import LadderStore
    from arena.ladder.views import VersionInfo
    from arena.sandbox.limits import SandboxLimits

DB_HELP = "Ladder database: a URL or an SQLite file (default: MENAGERIE_LADDER_DB or ./ladder.db)."
HOME_HELP = "Ladder home: archives, records (default: MENAGERIE_LADDER_HOME or ./ladder)."

Db = Annotated[str | None, typer.Option("--db", help=DB_HELP, metavar="URL")]
Home = Annotated[Path | None, typer.Option("--home", help=HOME_HELP)]
LadderOpt = Annotated[
    str | None, typer.Option("--ladder", help="The ladder (needed if the bot is on several).")
]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def open_store(db: str | None) -> LadderStore:
    from arena.ladder.store import LadderStore

    return LadderStore(db)


def _checked_name(name: str, what: str) -> str:
    from arena.ladder.hosting import NAME_RE

    if not NAME_RE.match(name):
        raise LadderError(
            f"{what} {name!r}: use letters, digits, '_', '.' and '-' (starting with a letter "
            "or digit)"
        )
    return name


def parse_sandbox(text: str | None) -> SandboxLimits | None:
    """``--sandbox``: a JSON object of sandbox limits (``arena.sandbox.SandboxLimits``
    fields); None when not given. A bad value or an unknown key is an error naming it.

    >>> parse_sandbox('{"processes": 24}').processes
    24
    """
    from arena.sandbox.limits import SandboxLimits

    if text is None or not text.strip():
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LadderError(f"--sandbox is not valid JSON: {exc.msg} (got {text!r})") from None
    if not isinstance(value, dict):
        raise LadderError(
            f'--sandbox must be a JSON object such as {{"processes": 32}}, got {text!r}'
        )
    try:
        return SandboxLimits.from_json(value)
    except (TypeError, ValueError) as exc:
        raise LadderError(f"--sandbox: {exc}") from None


def parse_bot(text: str) -> tuple[str, int | None]:
    """``BOT`` or ``BOT@VERSION``.

    >>> parse_bot("greedy@2"), parse_bot("greedy")
    (('greedy', 2), ('greedy', None))
    """
    name, sep, version = text.strip().rpartition("@")
    if not sep:
        return text.strip(), None
    if not version.isdigit() or not name:
        raise LadderError(f"{text!r}: expected BOT or BOT@VERSION (a number)")
    return name, int(version)


def find_versions(
    store: LadderStore, bot: str, ladder: str | None, *, all_versions: bool = False
) -> list[VersionInfo]:
    """The versions ``BOT[@VERSION]`` names: one version, or (``all_versions``, no
    ``@VERSION``) every version of the bot, oldest first."""
    name, version = parse_bot(bot)
    if ladder is not None:
        ladders = [ladder]
        store.ladder(ladder)  # UnknownLadder names the known ones
    else:
        ladders = [lad.name for lad in store.ladders() if store.versions(lad.name, bot=name)]
        if not ladders:
            raise UnknownBot(f"no bot {name!r} on any ladder")
        if len(ladders) > 1:
            raise LadderError(
                f"bot {name!r} is on ladders {', '.join(ladders)}: say which with --ladder"
            )
    if version is None and all_versions:
        found = store.versions(ladders[0], bot=name)
        if not found:
            raise UnknownBot(f"no bot {name!r} on ladder {ladders[0]!r}")
        return found
    return [store.version(ladders[0], name, version)]


# ---------------------------------------------------------------------------
# create, submit, retire
# ---------------------------------------------------------------------------


@user_errors
def create_cmd(
    game: Annotated[str, typer.Argument(help="Game id (see `arena games`).")],
    players: Annotated[int, typer.Option("--players", help="Players per game (k).")],
    options: Annotated[
        str | None, typer.Option("--options", help="Game options: key=value,... or a JSON object.")
    ] = None,
    move_ms: Annotated[
        int | None, typer.Option("--move-ms", help="Per-move clock in ms (default: none).")
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Ladder name (default: GAME-Kp).")
    ] = None,
    on_failure: Annotated[
        str, typer.Option("--on-failure", help="forfeit | random: what a failing seat gets.")
    ] = "forfeit",
    sandbox: Annotated[
        str | None,
        typer.Option(
            "--sandbox",
            help="Limits of its cmd: bots' sandbox as JSON, e.g. '{\"processes\": 32, "
            '"address_space_mb": 2048}\' (arena.sandbox.SandboxLimits; default: the safe '
            "defaults).",
            metavar="JSON",
        ),
    ] = None,
    db: Db = None,
) -> None:
    """Create a ladder: one game at one player count, played continuously."""
    from engine import GameConfigError, get_game

    spec = get_game(game)
    if players not in spec.player_counts():
        raise GameConfigError(
            f"{game} is for {spec.min_players}-{spec.max_players} players, got {players}"
        )
    opts = parse_options(options)
    spec.new_game(players, opts)  # GameConfigError names a bad option
    limits = parse_sandbox(sandbox)
    ladder = _checked_name(name or f"{game}-{players}p", "ladder name")
    with open_store(db) as store:
        info = store.create_ladder(
            ladder,
            game,
            players,
            options=opts,
            move_ms=move_ms,
            failure_policy=on_failure,
            sandbox=limits,
        )
        limited = info.sandbox_settings()
        print(
            f"created ladder {info.name}: {info.game}, {info.players} players"
            + (f", options {json.dumps(info.options)}" if info.options else "")
            + (f", {info.move_ms} ms per move" if info.move_ms else "")
            + (f", sandbox {json.dumps(limited)}" if limited else "")
            + f" (database {store.safe_url})"
        )
        print(f"submit bots with: arena ladder submit {info.name} --name NAME SPEC_OR_PATH")


@user_errors
def submit_cmd(
    ladder: Annotated[str, typer.Argument(help="The ladder.")],
    path_or_spec: Annotated[
        str | None,
        typer.Argument(
            help="A bot spec (random, greedy, ismcts:..., py:module:Class, cmd:...) or a "
            "folder/file with the bot's program (packed into an archive); none with --remote.",
            metavar="PATH_OR_SPEC",
        ),
    ] = None,
    name: Annotated[str, typer.Option("--name", help="The bot's name on the ladder.")] = "",
    remote: Annotated[
        bool,
        typer.Option(
            "--remote",
            help="A remote bot: it runs on its author's machine and connects to the lobby "
            "with a token (arena ladder token BOT); no program is submitted.",
        ),
    ] = False,
    owner: Annotated[str | None, typer.Option("--owner", help="Who submits it.")] = None,
    cmd: Annotated[
        str | None,
        typer.Option("--cmd", help="Entry command of submitted files, e.g. 'python bot.py'."),
    ] = None,
    keep_previous: Annotated[
        bool,
        typer.Option("--keep-previous", help="Keep the bot's other versions in the ladder."),
    ] = False,
    version: Annotated[
        int | None, typer.Option("--version", help="Version number (default: the next one).")
    ] = None,
    validate: Annotated[
        bool,
        typer.Option(
            "--validate/--no-validate",
            help="Validate now (default) or leave it to the runner.",
        ),
    ] = True,
    db: Db = None,
    home: Home = None,
) -> None:
    """Submit a bot (or a new version of one): validated against random, then active."""
    from arena.ladder.submission import Archives, is_spec
    from arena.ladder.validation import validate_version
    from arena.match.specs import check_spec

    if not name:
        raise LadderError("give the bot's name with --name")
    _checked_name(name, "bot name")
    if remote:
        if path_or_spec is not None or cmd is not None:
            raise LadderError("a --remote bot runs on its author's machine: give no program")
        with open_store(db) as store:
            info = store.add_version(
                ladder,
                name,
                owner=owner,
                kind="remote",
                version=version,
                replaces_previous=not keep_previous,
                status="active",
            )
        print(f"submitted {info.label} to ladder {ladder}: a remote bot, active")
        print(f"give it a token with: arena ladder token {name} --ladder {ladder}")
        return
    if path_or_spec is None:
        raise LadderError("give a bot spec or a folder with its program (or --remote)")
    with open_store(db) as store:
        store.ladder(ladder)  # UnknownLadder before anything is packed
        archives = Archives(home)
        if is_spec(path_or_spec):
            if cmd is not None:
                raise LadderError("--cmd is for submitted files; a spec says how it starts")
            spec = path_or_spec.strip()
            check_spec(spec)
            info = store.add_version(
                ladder,
                name,
                owner=owner,
                spec=spec,
                version=version,
                replaces_previous=not keep_previous,
            )
            what = f"spec {spec}"
        else:
            source = Path(path_or_spec)
            if not source.exists():
                raise LadderError(
                    f"{path_or_spec}: no such file or folder (and not a bot spec: random, "
                    "greedy, ismcts, py:..., cmd:...)"
                )
            packed = archives.pack(source)
            entry = cmd or packed.entry
            if not entry:
                raise LadderError(
                    f"{path_or_spec}: no entry command: give --cmd (e.g. --cmd 'python bot.py')"
                )
            info = store.add_version(
                ladder,
                name,
                owner=owner,
                archive_sha256=packed.sha256,
                entry=entry,
                version=version,
                replaces_previous=not keep_previous,
            )
            what = (
                f"archive {packed.sha256[:12]} ({len(packed.files)} files, "
                f"{packed.content_bytes} bytes), entry {entry!r}"
            )
        print(f"submitted {info.label} to ladder {ladder}: {what}")
        if not validate:
            print(f"{info.label} waits for validation by the ladder's runner")
            return
        warn(f"validating {info.label}: games against random ...")
        after, outcome = validate_version(store, info, archives)
        if not outcome.ok:
            print(f"{after.label} is broken: {outcome.reason}")
            raise SystemExit(1)
        retired = [
            v.label
            for v in store.versions(ladder, bot=name, statuses=["retired"])
            if v.reason == f"replaced by {after.label}"
        ]
        print(
            f"{after.label} passed validation and is active"
            + (f" (replaces {', '.join(retired)})" if retired else "")
        )


@user_errors
def retire_cmd(
    bot: Annotated[str, typer.Argument(help="BOT (every version) or BOT@VERSION.")],
    ladder: LadderOpt = None,
    reason: Annotated[
        str, typer.Option("--reason", help="Shown with the version.")
    ] = "retired by its owner",
    db: Db = None,
) -> None:
    """Retire a bot version (or all of a bot's): off the standings, kept in the history."""
    with open_store(db) as store:
        versions = find_versions(store, bot, ladder, all_versions=True)
        changed = [
            store.set_status(v.id, "retired", reason).label
            for v in versions
            if v.status != "retired"
        ]
        if not changed:
            print(f"{bot}: nothing to retire (already retired)")
            return
        print(f"retired {', '.join(changed)}")


# ---------------------------------------------------------------------------
# remote bots: tokens
# ---------------------------------------------------------------------------


@user_errors
def token_cmd(
    bot: Annotated[str, typer.Argument(help="The bot (its name; tokens are per bot).")],
    ladder: LadderOpt = None,
    list_only: Annotated[
        bool, typer.Option("--list", help="List the bot's tokens (ids, live or revoked).")
    ] = False,
    db: Db = None,
) -> None:
    """Issue a lobby token for a remote bot (printed once, stored only as a hash)."""
    from arena.ladder.tokens import Tokens

    with open_store(db) as store:
        version = find_versions(store, bot, ladder)[0]
        tokens = Tokens(store)
        if list_only:
            for t in tokens.listing(version.ladder, version.bot):
                state = "live" if t.live else f"revoked {t.revoked_at:%Y-%m-%d %H:%M:%S}"
                print(f"token {t.id}: created {t.created_at:%Y-%m-%d %H:%M:%S}, {state}")
            return
        info, token = tokens.issue(version.ladder, version.bot)
    warn(
        f"token {info.id} of bot {info.bot} on ladder {info.ladder}; it is shown only now "
        "(the database keeps its hash): keep it secret"
    )
    print(token)


@user_errors
def revoke_cmd(
    bot: Annotated[str, typer.Argument(help="The bot whose token(s) to revoke.")],
    token_id: Annotated[
        int | None, typer.Option("--token-id", help="The token to revoke (see token --list).")
    ] = None,
    all_tokens: Annotated[bool, typer.Option("--all", help="Revoke every live token.")] = False,
    ladder: LadderOpt = None,
    db: Db = None,
) -> None:
    """Revoke a bot's lobby token(s): refused from now on, and its stream is closed."""
    from arena.ladder.tokens import Tokens

    if (token_id is None) == (not all_tokens):
        raise LadderError("give --token-id ID or --all")
    with open_store(db) as store:
        version = find_versions(store, bot, ladder)[0]
        ids = Tokens(store).revoke(version.ladder, version.bot, token_id)
    if not ids:
        print(f"{version.bot}: no live token to revoke")
        return
    print(f"revoked token(s) {', '.join(map(str, ids))} of bot {version.bot}")


# ---------------------------------------------------------------------------
# reading: list, status, standings, history
# ---------------------------------------------------------------------------


@user_errors
def list_cmd(db: Db = None, as_json: AsJson = False) -> None:
    """The ladders: game, players, bots by status, matches, who runs it."""
    from rich.table import Table

    with open_store(db) as store:
        rows: list[dict[str, Any]] = []
        now = store.clock()
        for lad in store.ladders():
            statuses: dict[str, int] = {}
            for v in store.versions(lad.name):
                statuses[v.status] = statuses.get(v.status, 0) + 1
            lease = store.lease(lad.name)
            rows.append(
                {
                    "ladder": lad.name,
                    "game": lad.game,
                    "players": lad.players,
                    "options": lad.options,
                    "move_ms": lad.move_ms,
                    "sandbox": lad.sandbox_settings(),
                    "versions": statuses,
                    "matches": store.match_counts(lad.name),
                    "runner": lease.holder if lease and lease.expires_at > now else None,
                }
            )
    if as_json:
        print(json.dumps(rows, indent=1))
        return
    if not rows:
        print("no ladders yet: arena ladder create GAME --players K")
        return
    table = Table(title="ladders", title_justify="left")
    headers = ("ladder", "game", "players", "move ms", "sandbox", "active", "other versions")
    for h in (*headers, "matches"):
        left = h in ("ladder", "game", "sandbox", "other versions")
        table.add_column(h, justify="left" if left else "right")
    table.add_column("runner")
    for r in rows:
        versions = dict(r["versions"])
        active = versions.pop("active", 0)
        others = ", ".join(f"{n} {s}" for s, n in sorted(versions.items())) or "-"
        counts = r["matches"]
        table.add_row(
            r["ladder"],
            r["game"],
            str(r["players"]),
            str(r["move_ms"] or "-"),
            ", ".join(f"{k} {v}" for k, v in r["sandbox"].items()) or "defaults",
            str(active),
            others,
            f"{counts['done']} done, {counts['queued']} queued",
            r["runner"] or "-",
        )
    rich_console().print(table)


@user_errors
def status_cmd(
    bot: Annotated[str, typer.Argument(help="BOT (every version) or BOT@VERSION.")],
    ladder: LadderOpt = None,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """A bot's versions: status and why (a failed validation, failures), rating, games."""
    from arena.ladder.models import VERSION_STATUSES

    with open_store(db) as store:
        versions = find_versions(store, bot, ladder, all_versions=True)
        lad = store.ladder(versions[0].ladder)
        ratings = {r.version_id: r for r in store.standings(lad.name, statuses=VERSION_STATUSES)}
    out: list[dict[str, Any]] = []
    for v in versions:
        r = ratings.get(v.id)
        out.append(
            {
                "ladder": v.ladder,
                "bot": v.bot,
                "version": v.version,
                "label": v.label,
                "owner": v.owner,
                "status": v.status,
                "reason": v.reason,
                "program": v.spec
                if v.spec is not None
                else "remote (connects to the lobby with a token)"
                if v.kind == "remote"
                else f"archive {v.archive_sha256}, entry {v.entry!r}",
                "mu": round(r.mu, 4) if r else None,
                "sigma": round(r.sigma, 4) if r else None,
                "ordinal": round(r.ordinal, 4) if r else None,
                "games": r.games if r else 0,
                "provisional": r.provisional if r else True,
                "failures_in_row": v.failures_in_row,
                "submitted": v.created_at.isoformat(timespec="seconds"),
            }
        )
    if as_json:
        print(json.dumps(out, indent=1))
        return
    for item in out:
        status = item["status"] + (f": {item['reason']}" if item["reason"] else "")
        print(f"{item['label']} on ladder {item['ladder']} (owner {item['owner']}): {status}")
        print(f"  program: {item['program']}")
        if item["mu"] is not None:
            mark = " (provisional)" if item["provisional"] else ""
            print(
                f"  rating: mu {item['mu']:.2f}, sigma {item['sigma']:.2f}, ordinal "
                f"{item['ordinal']:.2f}{mark}; {item['games']} games"
                + (
                    f"; {item['failures_in_row']} failed in a row"
                    if item["failures_in_row"]
                    else ""
                )
            )
        print(f"  submitted {item['submitted']}")


@user_errors
def standings_cmd(
    ladder: Annotated[str, typer.Argument(help="The ladder.")],
    as_json: AsJson = False,
    html: Annotated[
        Path | None, typer.Option("--html", help="Also write the standings as HTML here.")
    ] = None,
    batch: Annotated[
        bool,
        typer.Option(
            "--batch",
            help="Add the batch Plackett-Luce fit (the tournaments' rating, 95% CI) side by side.",
        ),
    ] = False,
    db: Db = None,
) -> None:
    """Active versions by ordinal (mu - 3 sigma), provisional marked, broken with why."""
    from arena.ladder.standings import load_standings, rich_table, to_html, to_json

    with open_store(db) as store:
        st = load_standings(store, ladder, batch=batch)
    if html is not None:
        html.parent.mkdir(parents=True, exist_ok=True)
        html.write_text(to_html(st), encoding="utf-8")
        warn(f"standings written to {html}")
    if as_json:
        print(json.dumps(to_json(st), indent=1))
        return
    rich_console().print(rich_table(st))


@user_errors
def history_cmd(
    bot: Annotated[str, typer.Argument(help="BOT (its latest version) or BOT@VERSION.")],
    ladder: LadderOpt = None,
    limit: Annotated[int, typer.Option("--limit", help="The newest N games.")] = 20,
    db: Db = None,
    as_json: AsJson = False,
) -> None:
    """A version's rating over time and recent games, with ids `arena replay` opens."""
    from rich.table import Table

    from arena.ladder.hosting import parse_location
    from arena.ladder.rating import ordinal

    with open_store(db) as store:
        version = find_versions(store, bot, ladder)[0]
        entries = store.history(version.id, limit=limit)
        total = len(store.history(version.id))
    rows: list[dict[str, Any]] = []
    for e in entries:
        file, game_id = parse_location(e.record_location or "")
        rows.append(
            {
                "match": e.match_id,
                "at": e.at.isoformat(timespec="seconds"),
                "seat": e.seat,
                "rank": e.rank,
                "forfeited": e.forfeited,
                "opponents": list(e.opponents),
                "mu": round(e.mu_after, 4),
                "sigma": round(e.sigma_after, 4),
                "ordinal": round(ordinal(e.mu_after, e.sigma_after), 4),
                "mu_change": round(e.mu_after - e.mu_before, 4),
                "records": file,
                "game_id": game_id,
            }
        )
    if as_json:
        print(json.dumps({"version": version.label, "games": total, "history": rows}, indent=1))
        return
    status = version.status + (f": {version.reason}" if version.reason else "")
    title = (
        f"{version.label} on ladder {version.ladder} ({status}): {total} games, the "
        f"newest {len(rows)}"
    )
    table = Table(title=title, title_justify="left")
    for h in ("match", "game id", "seat", "rank", "opponents", "mu", "sigma", "ordinal"):
        table.add_column(h, justify="left" if h in ("game id", "opponents") else "right")
    for r in rows:
        change = f"{r['mu_change']:+.2f}"
        table.add_row(
            str(r["match"]),
            r["game_id"],
            str(r["seat"]),
            str(r["rank"]) + (" (forfeit)" if r["forfeited"] else ""),
            ", ".join(r["opponents"]),
            f"{r['mu']:.2f} ({change})",
            f"{r['sigma']:.2f}",
            f"{r['ordinal']:.2f}",
        )
    console = rich_console()
    console.print(table)
    if rows and rows[-1]["game_id"]:
        print(f"replay a game: arena replay {rows[-1]['records']} {rows[-1]['game_id']}")


# ---------------------------------------------------------------------------
# run
# ---------------------------------------------------------------------------


@user_errors
def run_cmd(
    ladder: Annotated[str, typer.Argument(help="The ladder.")],
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help="Local Ray CPUs (on a cluster: the in-flight budget); 0 plays in this process.",
        ),
    ] = 2,
    address: Annotated[
        str | None, typer.Option("--address", help="Ray cluster address (or RAY_ADDRESS).")
    ] = None,
    games: Annotated[
        int | None, typer.Option("--games", help="Stop after N matches.", min=1)
    ] = None,
    forever: Annotated[
        bool, typer.Option("--forever", help="Run until stopped (the default without --games).")
    ] = False,
    in_flight: Annotated[
        int | None,
        typer.Option(
            "--in-flight", help="Matches in flight at most (default 128 per worker).", min=1
        ),
    ] = None,
    lease_ttl: Annotated[
        float, typer.Option("--lease-ttl", help="Seconds the runner's lease lasts unrenewed.")
    ] = 60.0,
    tracking: Annotated[
        bool, typer.Option("--tracking/--no-tracking", help="Log to MLflow (default) or not.")
    ] = True,
    tracking_uri: Annotated[
        str | None,
        typer.Option("--tracking-uri", help="MLflow tracking URI (default sqlite:///mlflow.db)."),
    ] = None,
    experiment: Annotated[
        str, typer.Option("--experiment", help="MLflow experiment.")
    ] = "menagerie-ladder",
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No standings at the end.")] = False,
    serve: Annotated[
        str | None,
        typer.Option(
            "--serve",
            help="HOST:PORT: host the lobby (and a game server) here, so remote bots play.",
        ),
    ] = None,
    game_server: Annotated[
        list[str] | None,
        typer.Option(
            "--game-server",
            help="Place remote matches on this `arena serve` (repeat; least-loaded first).",
        ),
    ] = None,
    admin_token: Annotated[
        str | None,
        typer.Option(
            "--admin-token",
            envvar="MENAGERIE_ADMIN_TOKEN",
            help="The game servers' admin token (for --game-server).",
        ),
    ] = None,
    advertise: Annotated[
        str | None,
        typer.Option("--advertise", help="The address bots are told for --serve's server."),
    ] = None,
    db: Db = None,
    home: Home = None,
) -> None:
    """Run the ladder: match, play, record and rate continuously (one runner per ladder).

    With --serve HOST:PORT remote bots connect there (the lobby) with their tokens and
    are matched with the hosted ones; their matches are placed on the runner's own game
    server, or on the --game-server processes (least-loaded).

    Ctrl-C (or SIGTERM) stops cleanly: the matches in flight finish and are counted;
    a second Ctrl-C puts them back in the queue instead. Either way the lease is released.
    """
    from arena.ladder.runner import LadderRunner, RunnerConfig
    from arena.ladder.standings import load_standings, rich_table

    if games is not None and forever:
        raise LadderError("give --games N or --forever, not both")
    if lease_ttl < 3:
        raise LadderError("--lease-ttl must be at least 3 seconds")
    config = RunnerConfig(
        workers=workers,
        address=address,
        games=games,
        in_flight=in_flight,
        lease_ttl_s=lease_ttl,
        tracking=tracking,
        tracking_uri=tracking_uri,
        experiment=experiment,
    )
    if serve is None and (game_server or advertise):
        raise LadderError("--game-server and --advertise need --serve HOST:PORT")
    with open_store(db) as store, contextlib.ExitStack() as stack:
        remote = None
        if serve is not None:
            from arena.ladder.remote import LobbySettings, host_lobby

            settings = LobbySettings(
                serve,
                tuple(game_server or ()),
                admin_token or "",
                advertise or "",
            )
            store.ladder(ladder)  # UnknownLadder before the server starts
            hosted = stack.enter_context(host_lobby(store, [ladder], settings, warn))
            remote = hosted.matches
            placed = ", ".join(s.address for s in remote.pool.servers)
            warn(f"lobby at {hosted.address}; remote matches are placed on {placed}")
        runner = LadderRunner(store, ladder, home=home, config=config, remote=remote)
        signals = {"count": 0}

        def on_signal(signum: int, _frame: FrameType | None) -> None:
            signals["count"] += 1
            if runner.finishing:
                warn("stopping: releasing the lease")
            elif signals["count"] == 1:
                runner.request_stop(f"stopped by {signal.Signals(signum).name}")
                warn(
                    "stopping: the matches in flight finish and are counted "
                    "(Ctrl-C again to put them back in the queue)"
                )
            elif signals["count"] == 2:
                raise KeyboardInterrupt
            else:
                warn("stopping: releasing the lease")

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            summary = runner.run()
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
        rate = f" ({summary.games_per_s:.1f} matches/s)" if summary.play_seconds > 0 else ""
        parts = [f"runner stopped ({summary.stopped}): {summary.counted} matches counted{rate}"]
        if summary.requeued_at_stop:
            parts.append(f"{summary.requeued_at_stop} put back in the queue")
        if summary.voided:
            parts.append(f"{len(summary.voided)} voided")
        if summary.broken:
            parts.append(f"broken: {', '.join(summary.broken)}")
        warn(", ".join(parts))
        if summary.run_id:
            warn(f"MLflow run {summary.run_id} ({'up to date' if summary.tracked else 'behind'})")
        if not quiet:
            rich_console().print(rich_table(load_standings(store, ladder)))
    sys.stdout.flush()
