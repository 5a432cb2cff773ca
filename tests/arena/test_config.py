"""Tournament config: YAML + flags, validated, with errors that say where."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.tournament.config import ConfigError, load_config
from tests.arena.helpers import pick_game

GAME = pick_game()
REPO = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tournament.yaml"
    path.write_text(text)
    return path


def test_example_config_is_valid() -> None:
    cfg = load_config(REPO / "examples" / "tournament.yaml")
    assert cfg.num_players == 2 and len(cfg.roster) >= 2
    assert cfg.tournament_id.startswith(cfg.display_name + "-")


def test_flags_override_every_field_and_no_file_is_needed(tmp_path: Path) -> None:
    cfg = load_config(
        None,
        {
            "game": GAME,
            "bots": ["random", "random", "py:tests.arena.helpers:FirstBot"],
            "rounds": 3,
            "seed": 9,
            "workers": 1,
            "move_ms": 50.0,
            "on_failure": "random",
            "experiment": "x",
            "tracking_uri": "sqlite:///x.db",
            "out": str(tmp_path),
        },
    )
    assert [e.name for e in cfg.roster] == ["random", "random-2", "py_tests.arena.helpers_FirstBot"]
    assert (cfg.rounds, cfg.seed, cfg.workers, cfg.move_ms) == (3, 9, 1, 50.0)
    assert cfg.num_players == 2 and cfg.on_failure == "random"
    path = write(tmp_path, f"game: {GAME}\nrounds: 2\nroster: [random, random]\n")
    assert load_config(path, {"rounds": 7}).rounds == 7
    # --bots picks roster entries by name and adds specs
    path = write(
        tmp_path,
        f"game: {GAME}\nroster:\n  - {{name: a, spec: random}}\n  - {{name: b, spec: random}}\n",
    )
    cfg = load_config(path, {"bots": ["b", "py:tests.arena.helpers:FirstBot"]})
    assert [e.name for e in cfg.roster] == ["b", "py_tests.arena.helpers_FirstBot"]


def test_bad_key_names_its_path_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        f"game: {GAME}\nroster:\n  - random\n  - name: b\n    spec: random\n"
        "  - name: c\n    spek: random\n",
    )
    with pytest.raises(ConfigError) as err:
        load_config(path)
    msg = str(err.value)
    assert "tournament.yaml: roster[2].spek (line 7): unknown key" in msg
    assert "roster[2].spec" in msg and "is required" in msg


def test_bad_values_name_their_path(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        f"game: {GAME}\nrounds: 0\nroster:\n  - random\n  - random\n"
        "  - name: c\n    spec: nosuchbot\n",
    )
    with pytest.raises(ConfigError) as err:
        load_config(path)
    msg = str(err.value)
    assert "tournament.yaml: roster[2].spec (line 7): unknown bot 'nosuchbot'" in msg
    assert "tournament.yaml: rounds (line 2):" in msg
    with pytest.raises(ConfigError, match=r"players \(line 2\): .* got 99"):
        load_config(write(tmp_path, f"game: {GAME}\nplayers: 99\nroster: [random, random]\n"))
    with pytest.raises(ConfigError, match="game \\(line 1\\): unknown game 'chess'"):
        load_config(write(tmp_path, "game: chess\nroster: [random, random]\n"))
    with pytest.raises(ConfigError, match=r"^--rounds: "):
        load_config(write(tmp_path, f"game: {GAME}\nroster: [random, random]\n"), {"rounds": -2})
    with pytest.raises(ConfigError, match=r"^--bots: the roster has 1 bot"):
        load_config(None, {"game": GAME, "bots": ["random"]})


def test_yaml_syntax_error_gives_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, f"game: {GAME}\nroster: [random, random\nrounds: 2\n")
    with pytest.raises(ConfigError, match=r"tournament.yaml:3:\d+: YAML syntax error"):
        load_config(path)


def test_cli_reports_a_bad_config_in_one_line_with_exit_code_2(
    tmp_path: Path, run_cli: Any
) -> None:
    path = write(tmp_path, f"game: {GAME}\nroster: [random, random]\ncolour: blue\n")
    proc = run_cli("tournament", str(path), cwd=tmp_path)
    assert proc.exit_code == 2
    assert proc.stderr.strip() == (
        f"error: {path}: colour (line 3): unknown key; known keys: "
        + ", ".join(__import__("arena.tournament.config").tournament.config.FIELDS)
    )
    assert "Traceback" not in proc.stderr


def test_a_named_tournament_is_a_league_an_unnamed_one_is_its_roster(tmp_path: Path) -> None:
    def tid(bots: list[str], **kw: object) -> str:
        return load_config(None, {"game": GAME, "bots": bots, **kw}).tournament_id

    assert tid(["random", "random"], name="league") == tid(
        ["random", "random", "random"], name="league"
    )
    assert tid(["random", "random"]) != tid(["random", "random", "random"])
    assert tid(["random", "random"], rounds=2) == tid(["random", "random"], rounds=5)
    assert tid(["random", "random"], seed=1) != tid(["random", "random"], seed=2)
