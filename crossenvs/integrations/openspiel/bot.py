"""Our players as OpenSpiel bots, so its tools (``evaluate_bots``, its arenas) can seat them."""

from __future__ import annotations

from typing import Any

from crossenvs.support.errors import InvalidArgumentError

from ...players import Player, make_player
from .game import CrossenvsGame, CrossenvsState, pyspiel


class PlayerBot(pyspiel.Bot):
    """A crossenvs player (a spec such as ``"mcts:100"`` or ``"pretrained"``, or a :class:`Player`) as a bot.

    ``game`` is needed only by specs that must fit a game (checkpoints, ``pretrained``). The
    bot plays states of the ``crossenvs_*`` games; it keeps nothing between moves.
    """

    def __init__(self, player: Player | str | Any, game: CrossenvsGame | None = None, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.player: Player = make_player(player, None if game is None else game.rules, seed)

    def step(self, state: pyspiel.State) -> int:
        """The player's action in ``state``, a state of a ``crossenvs_*`` game."""
        if not isinstance(state, CrossenvsState):
            raise InvalidArgumentError(
                f"{self.player.name} plays the crossenvs games only (pyspiel.load_game('crossenvs_<game>')), "
                f"got a state of {state.get_game().get_type().short_name}"
            )
        return int(self.player.act(state.rules, state.crossenvs_state))

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to forget: the player decides from the position alone."""
