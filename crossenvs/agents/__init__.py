"""Pretrained AlphaZero agents shipped with the package: ``crossenvs.agents.load(game, **options)``.

Each file here is the ``final.pt`` of one run of ``training/alphazero.py`` with the config named
in :data:`AGENTS`, copied under the name :func:`file_name` gives it::

    python training/alphazero.py --config configs/alphazero/crisscross6.yaml --run-dir runs/pretrained
    cp runs/pretrained/checkpoints/final.pt crossenvs/agents/crisscross_size6.pt

(the Crisscross 8x8 agent: ``--config configs/alphazero/crisscross.yaml --max-minutes 45``, as its
entry in :data:`AGENTS` says; ``--max-minutes`` overrides the config's cap)

(a rerun gives an agent of the same strength, not the same bytes: the budget is wall-clock time).
``benchmarks/pretrained.py`` measures each against random, greedy, MCTS-200 and MCTS-1000.
The player spec ``pretrained`` (or ``pretrained:<simulations>``) is the agent of the game at hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.checks import whole_number
from ..core.errors import InvalidOptionError
from ..core.game import Game
from ..core.registry import make_game
from ..players import MAX_SEARCH_SIMULATIONS, import_extra

FOLDER = Path(__file__).resolve().parent

#: (game, options as sorted JSON) -> the config that produced the agent
AGENTS: dict[tuple[str, str], str] = {
    ("crisscross", '{"size": 6}'): "configs/alphazero/crisscross6.yaml",
    ("crisscross", "{}"): "configs/alphazero/crisscross.yaml --max-minutes 45",
    ("crossings", "{}"): "configs/alphazero/crossings.yaml",
    ("neo_crossings", "{}"): "configs/alphazero/neo_crossings.yaml --max-minutes 25, then --resume <its run> "
    "--from-checkpoint <its run>/checkpoints/final.pt --max-minutes 35",
    ("charing_cross", "{}"): "configs/alphazero/charing_cross.yaml, then --resume <its run> --max-minutes 30, "
    "then --resume <its run> --from-checkpoint <its run>/checkpoints/final.pt --max-minutes 55, the same with "
    "--max-minutes 5 --device cuda (one H200), and the same with --max-minutes 45",
    ("crosse", "{}"): "configs/alphazero/crosse.yaml --max-minutes 85",
}


def _key(game: str, options: dict[str, Any]) -> tuple[str, str]:
    return game, json.dumps(options, sort_keys=True)


def file_name(game: str, **options: Any) -> str:
    """``crisscross_size6.pt`` for ``("crisscross", size=6)``; ``<game>.pt`` at default options."""
    suffix = "".join(f"_{key}{value}" for key, value in sorted(options.items()))
    return f"{game}{suffix}.pt"


def available() -> list[tuple[str, dict[str, Any]]]:
    """The (game, options) pairs that have a pretrained agent."""
    return [(game, json.loads(options)) for game, options in AGENTS]


def path(game: str, **options: Any) -> Path:
    """The checkpoint of the pretrained agent for ``game`` with ``options`` (defaults left out)."""
    defaults = make_game(game).OPTIONS
    chosen = {key: value for key, value in options.items() if defaults.get(key) != value}
    if _key(game, chosen) not in AGENTS:
        have = ", ".join(f"{g} {o}" for g, o in available()) or "none"
        raise InvalidOptionError(f"no pretrained agent for {game} {chosen or '(default options)'}; available: {have}")
    return FOLDER / file_name(game, **chosen)


def load(game: str, simulations: int = 64, seed: int | None = None, **options: Any):
    """The pretrained agent of ``game`` at ``options`` as a player searching ``simulations`` per move."""
    AlphaZeroPlayer = import_extra("crossenvs.az.player", "pretrained players", "agents").AlphaZeroPlayer

    player = AlphaZeroPlayer(path(game, **options), simulations, game=make_game(game, **options), seed=seed)
    player.name = f"pretrained-{simulations}"
    return player


def from_spec(argument: str, game: Game | None, seed: int | None):
    """``pretrained[:<simulations>]``: the agent of ``game`` (default 64 simulations), for the player spec table."""
    if game is None:
        raise InvalidOptionError("player 'pretrained' needs a game: its agent is the one trained for that game")
    simulations = whole_number(argument or "64", "pretrained:<simulations>", 0, MAX_SEARCH_SIMULATIONS)
    return load(game.name, simulations, seed=seed, **game.options)
