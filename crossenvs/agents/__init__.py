"""Pretrained AlphaZero agents shipped with the package: ``crossenvs.agents.load(game, **options)``.

Each file here is the ``final.pt`` of a run of ``crossenvs train alphazero``, copied under the name
:func:`file_name` gives it::

    crossenvs train alphazero --config crisscross6 --run-dir runs/pretrained
    cp runs/pretrained/checkpoints/final.pt crossenvs/agents/crisscross_size6.pt

How each agent was made (the commands, in order, from which config) is recorded beside the
configs, in ``crossenvs/configs/alphazero/README.md``, which the docs' page on the agents shows.
``benchmarks/pretrained.py`` measures each against random, greedy, MCTS-200 and MCTS-1000.
The player spec ``pretrained`` (or ``pretrained:<simulations>``) is the agent of the game at hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crossenvs.support.checks import whole_number
from crossenvs.support.errors import InvalidOptionError

from ..core.game import Game
from ..core.options import options_words
from ..core.registry import make_game
from ..players import MAX_SEARCH_SIMULATIONS, import_extra

FOLDER = Path(__file__).resolve().parent

#: the agents in this folder: (game, its options that differ from the defaults); how each was made is
#: recorded beside the configs, in crossenvs/configs/alphazero/README.md
SHIPPED: tuple[tuple[str, dict[str, Any]], ...] = (
    ("crisscross", {"size": 6}),
    ("crisscross", {}),
    ("crossings", {}),
    ("neo_crossings", {}),
    ("charing_cross", {}),
    ("crosse", {}),
    ("connect_four", {}),
    ("hex", {}),
)


def file_name(game: str, **options: Any) -> str:
    """``crisscross_size6.pt`` for ``("crisscross", size=6)``; ``<game>.pt`` at default options."""
    suffix = "".join(f"_{key}{value}" for key, value in sorted(options.items()))
    return f"{game}{suffix}.pt"


def available() -> list[tuple[str, dict[str, Any]]]:
    """The (game, options) pairs that have a pretrained agent."""
    return [(game, dict(options)) for game, options in SHIPPED]


def path(game: str, **options: Any) -> Path:
    """The checkpoint of the pretrained agent for ``game`` with ``options`` (defaults left out)."""
    defaults = make_game(game).OPTIONS
    chosen = {key: value for key, value in options.items() if defaults.get(key) != value}
    if (game, chosen) not in SHIPPED:
        have = ", ".join(options_words(g, o) for g, o in available()) or "none"
        raise InvalidOptionError(f"no pretrained agent for {options_words(game, chosen)}; available: {have}")
    return FOLDER / file_name(game, **chosen)


def load(game: str, simulations: int = 64, seed: int | None = None, **options: Any):
    """The pretrained agent of ``game`` at ``options`` as a player searching ``simulations`` per move."""
    AlphaZeroPlayer = import_extra("crossenvs.az.player", "pretrained players", "agents").AlphaZeroPlayer

    player = AlphaZeroPlayer(path(game, **options), simulations, game=make_game(game, **options), seed=seed)
    player.name = f"pretrained-{simulations}"
    return player


def from_spec(argument: str, game: Game | None, seed: int | None):
    """``pretrained[:<simulations>]``: the agent of ``game`` (64 simulations unless the spec says: the spec
    table's default, written out before the argument gets here), for the player spec table."""
    if game is None:
        raise InvalidOptionError("player 'pretrained' needs a game: its agent is the one trained for that game")
    simulations = whole_number(argument, "pretrained:<simulations>", 0, MAX_SEARCH_SIMULATIONS)
    return load(game.name, simulations, seed=seed, **game.options)
