"""A crossenvs game as an OpenSpiel Python game: its type, its game object, its states and its observer.

OpenSpiel drives a Python game through ``pyspiel.Game`` and ``pyspiel.State`` subclasses. It
clones a state by making a fresh one and deep-copying the Python object's ``__dict__``, and
serialises one as its history plus that ``__dict__`` pickled, so a :class:`CrossenvsState` keeps
only its position there (a :class:`~crossenvs.kernels.state.State`, two small arrays) and reaches
the rules through its game, which clones share.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from crossenvs.kernels.state import State
from crossenvs.support.errors import InvalidArgumentError, InvalidOptionError

from ...core.game import Game, raw_id_text
from ...core.registry import GameSpec, make_game
from ...players import import_extra

#: OpenSpiel's Python module; without it, one error naming the extra to install
pyspiel = import_extra("pyspiel", "OpenSpiel's crossenvs games", "openspiel")

#: the OpenSpiel name of a game is this prefix and its crossenvs name: ``crossenvs_crossings``
PREFIX = "crossenvs_"
#: the key of the one tensor an observation holds (``observation.dict[OBSERVATION]``)
OBSERVATION = "observation"


def short_name(game: str) -> str:
    """The name OpenSpiel knows a crossenvs game by: ``"crossings"`` -> ``"crossenvs_crossings"``."""
    return PREFIX + game


def game_type(spec: GameSpec) -> pyspiel.GameType:
    """What kind of game it is: two players in turn, no chance, perfect information, +1/-1/0 at the end.

    The parameters are the game's options with their defaults (:mod:`crossenvs.core.options`: a
    choice is a string, an integer an int, a flag a bool), so ``crossenvs_crisscross(size=6)``
    is checked by the same schema as ``make_game("crisscross", size=6)``.
    """
    schema = spec.load().OPTION_SCHEMA
    return pyspiel.GameType(
        short_name=short_name(spec.name),
        long_name=f"crossenvs {spec.facts.display_name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={option.name: option.default for option in schema},
    )


def game_info(rules: Game) -> pyspiel.GameInfo:
    """The sizes of one game with its options; a game that does not declare its longest game is refused."""
    if rules.max_game_length is None:
        raise InvalidArgumentError(
            f"{rules.name}: OpenSpiel needs the longest game in actions; give the Game subclass a "
            "max_game_length (a property or a class attribute: an upper bound on the actions of one game)"
        )
    return pyspiel.GameInfo(
        num_distinct_actions=rules.num_actions,
        max_chance_outcomes=0,
        num_players=2,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=int(rules.max_game_length),
    )


class CrossenvsGame(pyspiel.Game):
    """One crossenvs game with its options, as OpenSpiel sees it; ``rules`` is the crossenvs :class:`Game`.

    Each game has its own subclass (:func:`game_class`), which names its registration ``spec``.
    """

    spec: ClassVar[GameSpec]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        options = dict(params or {})
        self.rules: Game = make_game(self.spec.name, **options)
        super().__init__(game_type(self.spec), game_info(self.rules), options)

    def new_initial_state(self, position: str | None = None) -> CrossenvsState:
        """The setup, or the position in ``position`` (crossenvs position text, which ``str(state)`` gives)."""
        return CrossenvsState(self, position)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> BoardObserver:
        """One observer for every kind of observation: with perfect information they all see the position."""
        return BoardObserver(self.rules, params)


def game_class(spec: GameSpec) -> type[CrossenvsGame]:
    """The :class:`CrossenvsGame` subclass of one game, which pyspiel calls with the parameters to make one.

    pyspiel keeps what it calls in a C++ table that outlives the interpreter; a class (unlike a
    closure) is never freed by that table's last reference, which would crash Python's exit.
    """
    return type(f"OpenSpiel{spec.env_name}", (CrossenvsGame,), {"spec": spec, "__module__": __name__})


class CrossenvsState(pyspiel.State):
    """A position of a :class:`CrossenvsGame`; ``str(state)`` is its position text.

    Players act in the game's own egocentric action ids (the game's page under docs/), and
    ``action_to_string`` names them in its notation for the player to act.
    """

    def __init__(self, game: CrossenvsGame, position: str | None = None) -> None:
        super().__init__(game)
        if position is not None and not isinstance(position, str):
            raise InvalidArgumentError(
                f"{game.rules.name}: new_initial_state takes position text (a str, as str(state) gives), "
                f"got {type(position).__name__}"
            )
        self._position: State = game.rules.initial_state() if position is None else game.rules.from_text(position)

    @property
    def rules(self) -> Game:
        """The crossenvs game this state belongs to (shared by every state of the game)."""
        return self.get_game().rules

    @property
    def crossenvs_state(self) -> State:
        """The position as a crossenvs :class:`~crossenvs.kernels.state.State` (a copy), for our players."""
        return self._position.copy()

    def current_player(self) -> int:
        if self.rules.is_terminal(self._position):
            return int(pyspiel.PlayerId.TERMINAL)
        return self.rules.current_player(self._position)

    def _legal_actions(self, player: int) -> list[int]:
        return self.rules.legal_actions(self._position).tolist()

    def _apply_action(self, action: int) -> None:
        self._position = self.rules.apply(self._position, action)

    def _action_to_string(self, player: int, action: int) -> str:
        """The move in the game's notation when ``player`` is to act; otherwise its id, ``#<id>``."""
        if player == self.current_player():
            return self.rules.action_to_str(self._position, action)
        return raw_id_text(action)

    def is_terminal(self) -> bool:
        return self.rules.is_terminal(self._position)

    def returns(self) -> list[float]:
        outcome = self.rules.outcome(self._position)
        return [0.0, 0.0] if outcome is None else list(outcome)

    def __str__(self) -> str:
        return self.rules.to_text(self._position)


class BoardObserver:
    """OpenSpiel's observer protocol over the game's own observation (``observe_kernel``).

    ``tensor`` is the observation of ``observation_shape`` (H, W, C) flattened; ``dict`` holds
    the same memory in that shape. The string is the position text: it names the position
    completely, so it serves as information state string too.
    """

    def __init__(self, rules: Game, params: dict[str, Any] | None = None) -> None:
        if params:
            raise InvalidOptionError(f"{rules.name}: observations take no parameters, got {dict(params)}")
        self.rules = rules
        self.tensor = np.zeros(int(np.prod(rules.observation_shape)), dtype=np.float32)
        self.dict = {OBSERVATION: self.tensor.reshape(rules.observation_shape)}

    def set_from(self, state: CrossenvsState, player: int) -> None:
        position = state._position
        self.rules.observe_kernel(position.board, position.meta, int(player), self.dict[OBSERVATION])

    def string_from(self, state: CrossenvsState, player: int) -> str:
        return str(state)
