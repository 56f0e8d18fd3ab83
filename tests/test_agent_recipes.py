"""The record of how each pretrained agent was made (crossenvs/configs/alphazero/README.md, beside the configs)
names exactly the agents the package ships, each made from a config of its own game and options."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from crossenvs import agents, make_game

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT / "crossenvs" / "configs" / "alphazero" / "README.md"
#: a row of the table: the agent's file, then its first command's config
ROW = re.compile(r"^\| [^|]*`(?P<file>\w+\.pt)` \| `training/alphazero\.py --config (?P<config>\S+\.yaml)[^|]*\|")


def recipes() -> dict[str, Path]:
    """Agent file -> the config its first command starts from."""
    rows = [ROW.match(line) for line in RECIPES.read_text().splitlines() if line.startswith("| ")]
    return {row["file"]: ROOT / row["config"] for row in rows if row}


def test_the_recipes_name_every_shipped_agent_and_no_other():
    shipped = {agents.file_name(game, **options) for game, options in agents.available()}
    assert set(recipes()) == shipped == {path.name for path in agents.FOLDER.glob("*.pt")}


def test_each_agent_starts_from_a_config_of_its_own_game_and_options():
    for file, config_path in recipes().items():
        config = yaml.safe_load(config_path.read_text())
        defaults = make_game(config["game"]).OPTIONS
        changed = {key: value for key, value in config.get("options", {}).items() if defaults[key] != value}
        assert agents.file_name(config["game"], **changed) == file, config_path


def test_the_agents_page_shows_the_recipes_from_beside_the_configs():
    page = (ROOT / "docs" / "agents.md").read_text()
    markers = re.findall(r"<!-- (?:recipes|end of recipes)[^>]*-->", RECIPES.read_text())
    assert "```{include} ../crossenvs/configs/alphazero/README.md" in page and all(marker in page for marker in markers)
