"""crossenvs: fast, rule-faithful RL environments for five abstract "cross" board games.

>>> import crossenvs
>>> game = crossenvs.make_game("crisscross", size=6)
>>> env = crossenvs.crossings_v0.env()           # PettingZoo AEC
>>> import gymnasium; gym_env = gymnasium.make("crossenvs/Crisscross-v0")  # single agent

A game of your own joins with one call, ``crossenvs.register_game(name, GameClass)`` (see
``docs/architecture.md`` and ``examples/tictactoe.py``).
"""

from __future__ import annotations

# First of all: numba's cache folder for the package's sources, before any kernel is decorated (numba fixes a
# kernel's cache folder when it is decorated, and every module of the package is imported after this file).
# This only names the folder; old versions' folders are pruned on first use, not here.
from crossenvs.kernels.cache import use_versioned_cache

use_versioned_cache()

# ruff: noqa: E402 - the imports below decorate numba kernels
from crossenvs.support.version import __version__ as __version__
from crossenvs.support.waits import watch_compiles

from . import core as _core
from . import games  # noqa: F401 - registers the built-in games (their modules load on first use)
from .core import *  # noqa: F403 - the game contract, as core.__all__ names it
from .core.facts import GameFacts
from .envs import registration as _env_registration  # noqa: F401 - gymnasium ids and entry modules
from .players import PATH_KIND, register_player_kind

#: the game contract (core's names) and the facts a game page shows
__all__ = [*_core.__all__, "GameFacts"]

# The package root is the composition root: it wires the layers that must not import each other.
# The env layer subscribed to the registry above (on import; it is told of games registered
# before it too), and the kinds of player that live above the players layer are named here by
# "module:function", so players import none of them and each module loads when a spec names it.
register_player_kind("az", "crossenvs.az.player:from_spec", "az:<checkpoint>[:<simulations>]", extra="agents",
                     reads_file=True, default="64")  # fmt: skip
register_player_kind("pretrained", "crossenvs.agents:from_spec", "pretrained[:<simulations>]", extra="agents",
                     default="64")  # fmt: skip
register_player_kind("rllib", "crossenvs.integrations.rllib.player:from_spec", "rllib:<checkpoint>", extra="rllib",
                     reads_file=True)  # fmt: skip
register_player_kind(PATH_KIND, "crossenvs.checkpoints.sb3:sb3_player", "a checkpoint .zip path", extra="train",
                     reads_file=True)  # fmt: skip
register_player_kind(
    "perfect", "crossenvs.eval.connect_four.player:from_spec", "perfect[:<percent at random>]"
)  # Connect Four 7x6
# a .zip read by unpickling it (runs any code it holds): only when the user names this prefix (docs/security.md)
register_player_kind("pickle", "crossenvs.checkpoints.sb3:pickled_sb3_player", "pickle:<trusted checkpoint .zip>",
                     extra="train", reads_file=True)  # fmt: skip

# A compile of the rules that runs past two seconds (a PettingZoo env's first step) says so (docs/engine.md).
watch_compiles()
