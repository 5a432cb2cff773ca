"""Tournament configuration: one YAML file, validated with pydantic, every field a flag.

A file looks like ``examples/tournament.yaml``::

    name: zoo-league              # names the tournament (and its output dir and MLflow run)
    game: zooloretto_mini
    options: {}                   # game options (see `arena games`)
    players: 2                    # seats per game; default 2 if the game allows it
    rounds: 4                     # each group of bots plays every seat rotation this often
    gauntlet: null                # a roster name: it plays every other bot, instead of a
                                  # round robin of all of them
    seed: 1
    roster:                       # name + bot spec; a bare string is a spec named after itself
      - {name: rnd-a, spec: random}
      - random
    workers: 2                    # local Ray CPUs (or the in-flight budget on a cluster)
    move_ms: null                 # per-move time limit
    on_failure: forfeit           # forfeit | random
    tracking_uri: null            # default sqlite:///<cwd>/mlflow.db
    experiment: menagerie
    sprt: null                    # two bots: stop early, e.g. "elo0=0,elo1=10,alpha=0.05,beta=0.05"
    until_separated: false        # more bots: stop once adjacent rating intervals separate

Errors name where they are: ``tournament.yaml: roster[2].spec (line 9): unknown bot
'foo'; ...``; YAML syntax errors give the line and column; a bad flag names the flag.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from arena.errors import UserError
from arena.match.specs import check_spec
from arena.tournament.schedule import Schedule
from engine import GameConfigError, get_game
from engine.core import JSON

if TYPE_CHECKING:
    from arena.tournament.sprt import SprtSpec

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
"""Bot and tournament names: usable as MLflow metric keys and file names."""


class ConfigError(UserError):
    """A configuration file or flag that is wrong; the message says where."""


class RosterEntry(BaseModel):
    """One bot of the roster: a unique name and the spec it is built from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="Unique name (letters, digits, _ . -) used in the results.")
    spec: str = Field(description="Bot spec: random, greedy, ismcts:ms=100, py:..., cmd:...")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME_RE.match(value):
            raise ValueError(
                f"{value!r} is not a valid bot name (letters, digits, '_', '.', '-'; "
                "starting with a letter or digit)"
            )
        return value

    @field_validator("spec")
    @classmethod
    def _spec(cls, value: str) -> str:
        check_spec(value)
        return value.strip()


FailurePolicyName = Literal["forfeit", "random"]


class TournamentConfig(BaseModel):
    """Everything that defines a tournament and how it is run."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, description="Tournament name (default: the game id).")
    game: str = Field(description="Game id (see `arena games`).")
    players: int | None = Field(
        None,
        ge=1,
        validate_default=True,
        description="Players per game (default: 2 if the game allows it).",
    )
    options: dict[str, JSON] = Field(default_factory=dict, description="Game options.")
    roster: list[RosterEntry] = Field(min_length=1, description="The bots.")
    rounds: int = Field(1, ge=1, description="Repeats of every group and seat rotation.")
    gauntlet: str | None = Field(
        None,
        description="A roster bot that plays every other bot (a gauntlet) instead of a "
        "round robin of the whole roster.",
    )
    seed: int = Field(0, ge=0, description="Tournament seed; per-game seeds derive from it.")
    workers: int = Field(2, ge=1, description="Local Ray CPUs / in-flight budget.")
    address: str | None = Field(None, description="Ray cluster address (else RAY_ADDRESS).")
    batch_size: int | None = Field(
        None, ge=1, description="Games per Ray task (default: adaptive, ~1 s of work)."
    )
    move_ms: float | None = Field(None, gt=0, description="Per-move time limit in ms.")
    on_failure: FailurePolicyName = Field("forfeit", description="forfeit | random.")
    tracking_uri: str | None = Field(
        None, description="MLflow tracking URI (default sqlite:///<cwd>/mlflow.db)."
    )
    experiment: str = Field("menagerie", min_length=1, description="MLflow experiment.")
    tracking: bool = Field(True, description="Log to MLflow at all.")
    out: str | None = Field(
        None, description="Output dir for the journal (default tournaments/<tournament id>)."
    )
    leaderboard_every: int | None = Field(
        None, ge=1, description="Print the leaderboard every N games (default: ~5 times)."
    )
    sprt: str | None = Field(
        None,
        description="Stop a two-bot match early with an SPRT: 'elo0=0,elo1=10,alpha=0.05,"
        "beta=0.05' (the first roster bot's Elo advantage; rounds are the budget).",
    )
    until_separated: bool = Field(
        False,
        description="Stop once adjacent bots' 95% rating intervals are separated "
        "(rounds are the budget).",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str | None) -> str | None:
        if value is not None and not NAME_RE.match(value):
            raise ValueError(f"{value!r} is not a valid name (letters, digits, '_', '.', '-')")
        return value

    @field_validator("game")
    @classmethod
    def _game(cls, value: str) -> str:
        get_game(value)  # GameConfigError names the known games
        return value

    @field_validator("players")
    @classmethod
    def _players(cls, value: int | None, info: ValidationInfo) -> int | None:
        game_id = info.data.get("game")
        if game_id is None:
            return value
        game = get_game(game_id)
        if value is None:
            return 2 if game.min_players <= 2 <= game.max_players else game.min_players
        if value not in game.player_counts():
            raise ValueError(
                f"{game_id} is for {game.min_players}-{game.max_players} players, got {value}"
            )
        return value

    @field_validator("options")
    @classmethod
    def _options(cls, value: dict[str, JSON], info: ValidationInfo) -> dict[str, JSON]:
        game_id, players = info.data.get("game"), info.data.get("players")
        if game_id is None or players is None:
            return value
        try:
            get_game(game_id).new_game(players, value)
        except GameConfigError as exc:
            raise ValueError(str(exc)) from None
        return value

    @field_validator("roster")
    @classmethod
    def _roster(cls, value: list[RosterEntry], info: ValidationInfo) -> list[RosterEntry]:
        seen: set[str] = set()
        for entry in value:
            if entry.name in seen:
                raise ValueError(f"bot name {entry.name!r} appears twice")
            seen.add(entry.name)
        players = info.data.get("players")
        if players is not None and len(value) < players:
            raise ValueError(f"the roster has {len(value)} bot(s) but a game needs {players}")
        return value

    @model_validator(mode="after")
    def _gauntlet(self) -> TournamentConfig:
        names = [e.name for e in self.roster]
        if self.gauntlet is not None and self.gauntlet not in names:
            raise ValueError(
                f"gauntlet: {self.gauntlet!r} is not a roster bot (roster: {', '.join(names)})"
            )
        return self

    @field_validator("sprt")
    @classmethod
    def _sprt(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from arena.tournament.sprt import SprtSpec

        try:
            return SprtSpec.parse(value).text()
        except UserError as exc:
            raise ValueError(str(exc)) from None

    @model_validator(mode="after")
    def _stopping(self) -> TournamentConfig:
        if self.sprt is not None:
            if self.until_separated:
                raise ValueError("sprt and until_separated are two stopping rules: pick one")
            if len(self.roster) != 2 or self.num_players != 2:
                raise ValueError(
                    f"sprt is for a match of two bots in 2-player games (this roster has "
                    f"{len(self.roster)} bots, {self.num_players} players a game); for more "
                    "bots use until_separated"
                )
        return self

    def sprt_spec(self) -> SprtSpec | None:
        from arena.tournament.sprt import SprtSpec

        return None if self.sprt is None else SprtSpec.parse(self.sprt)

    # -- derived ---------------------------------------------------------------

    @property
    def num_players(self) -> int:
        assert self.players is not None
        return self.players

    @property
    def display_name(self) -> str:
        return self.name or self.game

    @property
    def tournament_id(self) -> str:
        """Stable id of what decides the games: ``<name>-<hash>``.

        Game ids derive from it and from the bots of each game, so re-running a config
        with more rounds plays only the new games. A *named* tournament (``name:``) is a
        league: its id leaves the roster out, so adding a bot plays only the new bot's
        games. Without a name the roster is part of the id (another set of bots is
        another tournament, in another output dir).
        """
        game = get_game(self.game)
        ident = {
            "name": self.display_name,
            "game": self.game,
            "version": game.version,
            "players": self.num_players,
            "options": self.options,
            "seed": self.seed,
            "move_ms": self.move_ms,
            "on_failure": self.on_failure,
        }
        if self.name is None:
            ident["roster"] = sorted((e.name, e.spec) for e in self.roster)
        if self.gauntlet is not None:  # another format, another tournament
            ident["gauntlet"] = self.gauntlet
        blob = json.dumps(ident, sort_keys=True, separators=(",", ":"))
        return f"{self.display_name}-{hashlib.sha256(blob.encode()).hexdigest()[:8]}"

    def out_dir(self) -> Path:
        return Path(self.out) if self.out else Path("tournaments") / self.tournament_id

    def schedule(self, num_players: int | None = None, rounds: int | None = None) -> Schedule:
        """The schedule of this tournament (an iterator of games; nothing materialised)."""
        return Schedule(
            self.tournament_id,
            [(e.name, e.spec) for e in self.roster],
            num_players or self.num_players,
            rounds or self.rounds,
            self.seed,
            self.gauntlet,
        )

    def flat(self) -> dict[str, str]:
        """The config as flat ``key -> text`` pairs (MLflow params)."""
        out: dict[str, str] = {}
        for key, value in self.model_dump(exclude={"roster"}).items():
            out[key] = json.dumps(value) if isinstance(value, dict | list) else str(value)
        out["players"] = str(self.num_players)
        for entry in self.roster:
            out[f"roster.{entry.name}"] = entry.spec
        return out

    def to_yaml(self) -> str:
        data = self.model_dump()
        data["roster"] = [dict(e) for e in data["roster"]]
        return yaml.safe_dump(data, sort_keys=False)


FIELDS: tuple[str, ...] = tuple(TournamentConfig.model_fields)


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def derive_name(spec: str, taken: set[str]) -> str:
    """A roster name for a bare spec: the spec with unusable characters replaced.

    >>> derive_name("ismcts:iterations=400", set())
    'ismcts_iterations_400'
    >>> derive_name("random", {"random", "random-2"})
    'random-3'
    """
    base = re.sub(r"[^A-Za-z0-9_.\-]+", "_", spec.strip()).strip("_.-") or "bot"
    if not base[0].isalnum():
        base = "bot" + base
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    taken.add(name)
    return name


def _normalise_roster(raw: Any) -> Any:
    """Bare strings in a roster become ``{name, spec}`` entries."""
    if not isinstance(raw, list):
        return raw
    taken = {e["name"] for e in raw if isinstance(e, dict) and isinstance(e.get("name"), str)}
    out: list[Any] = []
    for entry in raw:
        if isinstance(entry, str):
            out.append({"name": derive_name(entry, taken), "spec": entry})
        else:
            out.append(entry)
    return out


def select_bots(roster: Any, bots: Sequence[str]) -> list[Any]:
    """``--bots``: each item names a roster entry (selected) or is a spec (added)."""
    by_name: dict[str, Any] = {}
    if isinstance(roster, list):
        for entry in roster:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                by_name[entry["name"]] = entry
    taken = set(by_name)
    out: list[Any] = []
    for item in bots:
        if item in by_name:
            out.append(by_name[item])
        else:
            out.append({"name": derive_name(item, taken), "spec": item})
    return out


def gauntlet_entry(roster: Any, item: str) -> tuple[Any, str]:
    """``--gauntlet``: the roster (with the bot added if ``item`` is a spec it lacks) and
    the name of the gauntlet's bot: a roster name, or the first entry with that spec.

    >>> gauntlet_entry([{"name": "a", "spec": "random"}], "greedy")
    ([{'name': 'a', 'spec': 'random'}, {'name': 'greedy', 'spec': 'greedy'}], 'greedy')
    """
    entries = list(roster) if isinstance(roster, list) else []
    item = item.strip()
    for entry in entries:
        if isinstance(entry, dict) and entry.get("name") == item:
            return entries, item
    for entry in entries:
        if isinstance(entry, dict) and str(entry.get("spec", "")).strip() == item:
            return entries, str(entry["name"])
    taken = {e["name"] for e in entries if isinstance(e, dict) and isinstance(e.get("name"), str)}
    name = derive_name(item, taken)
    return [*entries, {"name": name, "spec": item}], name


def _line_of(node: yaml.Node | None, loc: Sequence[str | int]) -> int | None:
    """The 1-based line of the YAML node at ``loc`` (or of its nearest ancestor)."""
    line = None
    for key in loc:
        if node is None:
            break
        line = node.start_mark.line + 1
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if getattr(k, "value", None) == key:
                    child = v
                    break
        elif (
            isinstance(node, yaml.SequenceNode)
            and isinstance(key, int)
            and 0 <= key < len(node.value)
        ):
            child = node.value[key]
        node = child
    if node is not None:
        line = node.start_mark.line + 1
    return line


def _where(loc: Sequence[str | int]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def format_errors(
    exc: ValidationError,
    source: str,
    node: yaml.Node | None,
    flags: Mapping[str, str],
) -> str:
    """One line per problem: ``source: path (line N): message``, or ``--flag: message``."""
    lines = []
    for err in exc.errors():
        loc = [p for p in err["loc"] if isinstance(p, str | int)]
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            parent = TournamentConfig if len(loc) == 1 else RosterEntry
            msg = f"unknown key; known keys: {', '.join(parent.model_fields)}"
        elif err["type"] == "missing":
            msg = "is required"
        if loc and isinstance(loc[0], str) and loc[0] in flags:
            lines.append(f"{flags[loc[0]]}: {msg}")
            continue
        line = _line_of(node, loc) if node is not None else None
        at = f" (line {line})" if line else ""
        lines.append(f"{source}: {_where(loc)}{at}: {msg}")
    return "; ".join(lines) if len(lines) < 2 else "\n  ".join(["invalid configuration", *lines])


def read_yaml(path: Path) -> tuple[dict[str, Any], yaml.Node | None]:
    """The mapping in ``path`` and its node tree (for line numbers)."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = exc.problem or exc.context or "syntax error"
        if exc.context and exc.problem and exc.context_mark is not None:
            cm = exc.context_mark
            problem += f" ({exc.context} at line {cm.line + 1}, column {cm.column + 1})"
        raise ConfigError(f"{path}{at}: YAML syntax error: {problem}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: YAML syntax error: {exc}") from None
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the file must hold a mapping of settings, not a list or text")
    # a top-level `tournament:` section is accepted as well
    if set(data) == {"tournament"} and isinstance(data["tournament"], dict):
        inner = node.value[0][1] if isinstance(node, yaml.MappingNode) else None
        return data["tournament"], inner
    return data, node


FLAG_NAMES: dict[str, str] = {f: "--" + f.replace("_", "-") for f in FIELDS}
FLAG_NAMES["roster"] = "--bots"
FLAG_NAMES["tracking"] = "--tracking/--no-tracking"


def load_config(path: Path | None, overrides: Mapping[str, Any] | None = None) -> TournamentConfig:
    """Read ``path`` (if any), apply the non-None ``overrides`` (flag values), validate.

    ``overrides["bots"]`` is a list of names/specs that selects or extends the roster.
    """
    data: dict[str, Any] = {}
    node: yaml.Node | None = None
    source = str(path) if path else "config"
    if path is not None:
        data, node = read_yaml(path)
        data = dict(data)
    data["roster"] = _normalise_roster(data.get("roster"))
    flags: dict[str, str] = {}
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key == "bots":
            data["roster"] = select_bots(data.get("roster"), value)
            flags["roster"] = "--bots"
            continue
        if key == "gauntlet":
            continue  # below, once the roster is known
        if key not in FIELDS:
            raise ValueError(f"unknown override {key!r}")
        data[key] = value
        flags[key] = FLAG_NAMES[key]
    gauntlet = (overrides or {}).get("gauntlet")
    if gauntlet is not None:
        data["roster"], data["gauntlet"] = gauntlet_entry(data.get("roster"), gauntlet)
        flags["gauntlet"] = FLAG_NAMES["gauntlet"]
    if data.get("roster") is None:
        data.pop("roster")
        if path is None:
            raise ConfigError("no bots: give --bots B1,B2,... or a config file with a roster")
    if "game" not in data and path is None:
        raise ConfigError("no game: give --game G or a config file with `game:`")
    try:
        return TournamentConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_errors(exc, source, node, flags)) from None


def resume_config(out_dir: Path, overrides: Mapping[str, Any] | None = None) -> TournamentConfig:
    """The config the tournament in ``out_dir`` runs with (its ``config.yaml``), with
    ``overrides`` (flag values) applied."""
    path = out_dir / "config.yaml"
    if not path.exists():
        raise ConfigError(f"{out_dir} holds no tournament (no config.yaml)")
    return load_config(path, {**(overrides or {}), "out": str(out_dir)})
