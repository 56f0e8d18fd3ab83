"""Players: one protocol for everything that chooses moves, and one spec parser for all of them.

A :class:`Player` decides for the seat to act, one position at a time (``act(game, state)``)
or for a batch of games at once (``act_batch(positions)``, one call for all games of a
vectorised env that wait on it). The same players serve everywhere: as opponents of the
gymnasium env and of the vector envs, in arenas, in the CLI and in training's opponent pool.
With a PettingZoo AEC env, ask ``player.act(env.unwrapped.game, env.unwrapped.state)``.

Built in (:mod:`.builtin`; the protocol is :mod:`.base`):

* :class:`RandomPlayer`: uniform over legal actions (a numba kernel for batches, :mod:`.kernels`);
* :class:`GreedyPlayer`: one ply: an immediate win, else the action removing the most enemy
  pieces from the board (captures, flips, jumped pieces), else random;
* :class:`MCTSPlayer`: UCT with random rollouts in numba (the template :mod:`crossenvs.players.mcts`);
* :class:`NoisyPlayer`: any other player with a share of its moves played at random (``noisy:20:mcts:1000``);
* :class:`ModelPlayer`: a trained model with an SB3-style ``predict`` (a MaskablePPO checkpoint);
* :class:`FunctionPlayer`: a function of observation and mask (or of batches of them).

:func:`make_player` (:mod:`.specs`) reads a spec: ``random``, ``greedy``, ``mcts`` /
``mcts:<simulations>``, ``noisy:<percent>:<spec>``, the path of a checkpoint ``.zip``, an object
with ``predict``, a callable, or a Player. Other kinds of agent add their own prefix with
:func:`register_player_kind`; the package root registers those that live above this layer: ``az:<checkpoint>[:<simulations>]``
is an AlphaZero checkpoint (:mod:`crossenvs.az`) searching with that many simulations,
``pretrained[:<simulations>]`` the agent shipped for the game at hand (:mod:`crossenvs.agents`),
``rllib:<checkpoint>`` a Ray RLlib checkpoint (:mod:`crossenvs.integrations.rllib`), and a bare
path a MaskablePPO checkpoint (:mod:`crossenvs.checkpoints`). :func:`canonical_spec` writes a
spec in its one spelling (``pretrained`` is ``pretrained:64``): how an arena knows a ladder's rungs.
"""

from __future__ import annotations

from .base import Player, Positions
from .builtin import (
    MAX_MCTS_SIMULATIONS,
    MAX_SEARCH_SIMULATIONS,
    FunctionPlayer,
    GreedyPlayer,
    MCTSPlayer,
    ModelPlayer,
    NoisyPlayer,
    RandomPlayer,
)
from .specs import (
    CHECKPOINT_SUFFIXES,
    PATH_KIND,
    PlayerKind,
    UnknownPlayerError,
    canonical_spec,
    import_extra,
    make_player,
    player_specs,
    register_player_kind,
    split_file_argument,
)

__all__ = [
    "CHECKPOINT_SUFFIXES",
    "MAX_MCTS_SIMULATIONS",
    "MAX_SEARCH_SIMULATIONS",
    "PATH_KIND",
    "FunctionPlayer",
    "GreedyPlayer",
    "MCTSPlayer",
    "ModelPlayer",
    "NoisyPlayer",
    "Player",
    "PlayerKind",
    "Positions",
    "RandomPlayer",
    "UnknownPlayerError",
    "canonical_spec",
    "import_extra",
    "make_player",
    "player_specs",
    "register_player_kind",
    "split_file_argument",
]
