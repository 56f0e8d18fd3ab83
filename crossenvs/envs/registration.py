"""What registering a game adds on the env side: its gymnasium id, its PettingZoo entry module, and its id in
PettingZoo's registry (``pettingzoo.make("aec", "crossenvs/crosse-v0")``, PettingZoo 1.27 and later).

This module subscribes to the registry on import (:func:`crossenvs.core.registry.on_register`),
so the core never imports the envs; ``import crossenvs`` imports it before any game registers.

The entry module ``crossenvs.<name>_v0`` follows PettingZoo's naming (``connect_four_v3``):
``env(**options)`` is the wrapped AEC env, ``raw_env(**options)`` the bare one. It is built here
for every registered game rather than written by hand, so ``from crossenvs import crosse_v0``
and ``import crossenvs.crosse_v0`` work for built-in and user games alike.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import gymnasium
import pettingzoo

from crossenvs.support.errors import InvalidOptionError

from ..core.registry import GameSpec, make_game, on_register
from .aec import CrossAECEnv, make_env, make_raw_env

ENTRY_POINT = "crossenvs.envs.single_agent:CrossSingleAgentEnv"


def register_envs(spec: GameSpec) -> None:
    """The gymnasium id and the entry module of one game (registering twice is harmless)."""
    known = gymnasium.registry.get(spec.gym_id)
    if known is not None and known.kwargs.get("game") != spec.name:
        raise InvalidOptionError(
            f"the gymnasium id {spec.gym_id} belongs to another environment; choose another env_name"
        )
    if known is None:
        gymnasium.register(id=spec.gym_id, entry_point=ENTRY_POINT, kwargs={"game": spec.name})
    if spec.entry_module not in sys.modules:
        module = entry_module(spec)
        sys.modules[spec.entry_module] = module
        setattr(sys.modules["crossenvs"], f"{spec.name}_v0", module)
    register_with_pettingzoo(spec, sys.modules[spec.entry_module])


def register_with_pettingzoo(spec: GameSpec, module: ModuleType) -> None:
    """The game's AEC env in PettingZoo's registry, where the installed PettingZoo has one (1.27 on; older
    ones have none and lose nothing). PettingZoo reads no plugin list, so ``import crossenvs`` comes first."""
    registry = getattr(pettingzoo, "aec_registry", None)
    if registry is None or not hasattr(pettingzoo, "register"):
        return
    if spec.pettingzoo_id in registry:
        return  # registered already: PettingZoo would warn that it overrides it
    pettingzoo.register("aec", spec.pettingzoo_id, entry_point=module.env)


def entry_module(spec: GameSpec) -> ModuleType:
    """A module with ``env``, ``raw_env`` and ``GAME`` for one game, in PettingZoo's style."""
    module = ModuleType(
        spec.entry_module,
        f"{spec.summary}\n\nThe PettingZoo AEC env of game {spec.name!r}: ``env(**options)`` (illegal move: -1 for "
        f"the mover, game over) and ``raw_env(**options)`` (illegal move: IllegalActionError). Options: "
        f"``crossenvs.game_class({spec.name!r}).OPTION_SCHEMA`` (or ``crossenvs list``); gymnasium id {spec.gym_id!r}.",
    )

    def env(render_mode: str | None = None, **options: Any):
        """The wrapped AEC env: an illegal move ends the game with -1 for the mover."""
        return make_env(make_game(spec.name, **options), render_mode=render_mode)

    def raw_env(render_mode: str | None = None, **options: Any) -> CrossAECEnv:
        """The bare AEC env: an illegal move raises ``IllegalActionError``."""
        return make_raw_env(make_game(spec.name, **options), render_mode=render_mode)

    for function in (env, raw_env):  # picklable by reference, like a module-level function
        function.__module__ = spec.entry_module
        function.__qualname__ = function.__name__
    module.GAME = spec.name
    module.env = env
    module.raw_env = raw_env
    return module


on_register(register_envs)
