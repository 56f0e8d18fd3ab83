"""Environments over any :class:`~crossenvs.core.game.Game`: PettingZoo AEC, single-agent gymnasium."""

from .aec import CrossAECEnv, make_env, make_raw_env
from .opponents import RandomOpponent, as_opponent
from .single_agent import CrossSingleAgentEnv

__all__ = ["CrossAECEnv", "CrossSingleAgentEnv", "RandomOpponent", "as_opponent", "make_env", "make_raw_env"]
