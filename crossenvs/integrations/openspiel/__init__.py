"""OpenSpiel (``open_spiel>=1.5``, the ``openspiel`` extra) for every game: its algorithms on our rules.

Importing this package registers every crossenvs game with pyspiel as a Python game named
``crossenvs_<game>`` (:func:`short_name`), and every game registered later too (it listens to the
registry, ``crossenvs.core.registry.on_register``), so OpenSpiel's bots, evaluation and tests load
them by name:

>>> import pyspiel
>>> import crossenvs.integrations.openspiel  # registers crossenvs_crisscross, crossenvs_crossings, ...
>>> game = pyspiel.load_game("crossenvs_crisscross(size=6)")
>>> game.num_distinct_actions(), game.observation_tensor_shape()
(36, [6, 6, 2])

* The game (:class:`CrossenvsGame`): two players in turn, deterministic, perfect information,
  zero-sum with +1/-1/0 at the end; its parameters are the game's options with their defaults
  (``crossenvs_crosse(cover_removal=optional)``), checked by the game's own schema; its
  ``max_game_length`` is the game's (:attr:`crossenvs.Game.max_game_length`, every action
  counted). ``game.rules`` is the crossenvs :class:`~crossenvs.Game`.
* A state (:class:`CrossenvsState`): legal actions from the game's mask (its egocentric ids,
  ascending), ``apply_action``, ``returns``, the player to act (the same one again when the
  rules give a player two decisions in a row), ``action_to_string`` in the game's notation.
  ``str(state)`` is crossenvs position text and ``game.new_initial_state(text)`` reads it back;
  ``pyspiel.serialize_game_and_state`` round-trips too.
* Observation and information state tensors are the game's observation of the given player
  (:meth:`crossenvs.Game.observe`), of shape ``observation_shape`` (H, W, C), flattened; their
  strings are the position text.
* :class:`PlayerBot` seats our players (``"mcts:100"``, ``"pretrained"``, a checkpoint) as
  OpenSpiel bots, e.g. in ``open_spiel.python.algorithms.evaluate_bots``.

Everything passes ``pyspiel.random_sim_test`` for all five games (``tests/test_openspiel.py``).
"""

from __future__ import annotations

from ...core.registry import GameSpec, on_register
from .bot import PlayerBot
from .game import (
    OBSERVATION,
    PREFIX,
    BoardObserver,
    CrossenvsGame,
    CrossenvsState,
    game_class,
    game_info,
    game_type,
    pyspiel,
    short_name,
)


def register(spec: GameSpec) -> None:
    """Make one crossenvs game loadable as ``pyspiel.load_game(short_name(spec.name))``."""
    pyspiel.register_game(game_type(spec), game_class(spec))


on_register(register)

__all__ = [
    "OBSERVATION",
    "PREFIX",
    "BoardObserver",
    "CrossenvsGame",
    "CrossenvsState",
    "PlayerBot",
    "game_class",
    "game_info",
    "game_type",
    "register",
    "short_name",
]
