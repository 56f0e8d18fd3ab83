"""Ray RLlib (new API stack, ``ray[rllib]==2.60``) for every game: env, masked model, league, player.

What RLlib offers out of the box does not fit these games: its ``PettingZooEnv`` hands
``Dict`` observations to PPO, which has no default encoder for them; its action-masking
module expects the keys ``observations`` and ``action_mask``; its default CNN only knows a few
image sizes. This package is the glue, tested on all five games:

* :class:`CrossMultiAgentEnv` (:mod:`.env`): a turn-based ``MultiAgentEnv``. Only the agent to act gets an
  observation, ``{"observations": float32 (H, W, C), "action_mask": float32 (num_actions,)}``,
  so when the rules give one agent two decisions in a row (Crosse hops and extra turns, Charing
  Cross re-placements) it simply gets two observations in a row. At the end both agents get
  their last observation and their reward (+1/-1/0). An illegal action (RLlib's env checker
  steps one sampled action) ends the game with -1 for the mover and is counted in
  ``illegal_actions``, so a run can show that training sampled none.
* :class:`MaskedBoardModule` (:mod:`.module`): a torch ``RLModule`` for PPO sized from the observation space:
  3x3 convolutions that keep the board's height and width, a policy head over all action ids
  and a value head. Logits of illegal actions are set to ``FLOAT_MIN`` in every forward pass
  (sampling, inference and training), so an illegal action has probability 0. With
  ``model_config={"uniform": True}`` it is the random opponent: uniform over legal actions.
* League self-play (:mod:`.league`): :func:`league_config` builds the PPO config in which ``main`` plays both
  seats against ``random`` and against frozen snapshots of itself; :func:`add_snapshot` adds one
  with ``Algorithm.add_module``; :class:`LeagueCallbacks` logs main's score and illegal actions.
* :class:`RLlibPlayer` (:mod:`.player`): a checkpoint as a :class:`crossenvs.players.Player` (spec
  ``rllib:<path>``), loaded without starting Ray, playing the most likely legal action. Checkpoints
  are written and found by :mod:`crossenvs.checkpoints` (``save_rllib``, ``rllib_module_folder``).
"""

from __future__ import annotations

from ...checkpoints.files import RLLIB_METADATA as METADATA
from ...checkpoints.rllib import rllib_module_folder as module_folder
from .env import AGENTS, MASK, OBS, CrossMultiAgentEnv, observation_space
from .league import (
    MAIN,
    RANDOM,
    LeagueCallbacks,
    LeagueMapping,
    add_snapshot,
    league_config,
    league_opponents,
    restore_league,
    save_checkpoint,
)
from .module import DEFAULT_MODEL, MaskedBoardModule, module_spec
from .player import RLlibPlayer, check_fits, from_spec, load_module

__all__ = [
    "AGENTS",
    "DEFAULT_MODEL",
    "MAIN",
    "MASK",
    "METADATA",
    "OBS",
    "RANDOM",
    "CrossMultiAgentEnv",
    "LeagueCallbacks",
    "LeagueMapping",
    "MaskedBoardModule",
    "RLlibPlayer",
    "add_snapshot",
    "check_fits",
    "from_spec",
    "league_config",
    "league_opponents",
    "load_module",
    "module_folder",
    "module_spec",
    "observation_space",
    "restore_league",
    "save_checkpoint",
]
