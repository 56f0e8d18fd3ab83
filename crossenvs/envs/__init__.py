"""Environments over any :class:`~crossenvs.core.game.Game`: PettingZoo AEC, single-agent gymnasium, vector."""

from .aec import CrossAECEnv, make_env, make_raw_env
from .single_agent import CrossSingleAgentEnv

__all__ = ["CrossAECEnv", "CrossSingleAgentEnv", "make_env", "make_raw_env"]
