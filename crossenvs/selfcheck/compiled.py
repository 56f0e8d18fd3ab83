"""The compiled CUDA code of a game's device kernels, built as for a card and checked
(:func:`check_compiled_code`), and the label that names a game's setup in reports (:func:`game_label`)."""

from __future__ import annotations

from typing import Any

from ..core.game import Game


def check_compiled_code(
    game: Game, cc: tuple[int, int] | None = None, search: bool = True, which: str = "all"
) -> list[Any]:
    """Every device kernel of ``game`` (the env's, and the search's unless ``search`` is False) built as for a
    GPU of compute capability ``cc`` (default Hopper, 9.0) and checked (:mod:`crossenvs.selfcheck.compiled_checks`).

    ``which``: "all", "per game" (the game's own kernels) or "shared" (the kernels compiled once for every game:
    their code is the same whatever the game)."""
    from crossenvs.az.search.device import search_kernel_sources

    from ..envs.device import device_kernel_sources
    from ..kernels.cuda import DEFAULT_PTX_CC
    from .compiled_checks import check_kernel

    cc = cc or DEFAULT_PTX_CC
    setup = game_label(game)
    sources = dict(device_kernel_sources(game, which))
    if search:
        sources.update(search_kernel_sources(game, which))
    return [check_kernel(setup, function, signature, cc) for function, signature in sources.values()]


def game_label(game: Game) -> str:
    """A game and the options that set it apart from its defaults, as a short label ("crisscross size=11")."""
    changed = {key: value for key, value in game.options.items() if value != type(game)().options.get(key)}
    return " ".join([game.name, *(f"{key}={value}" for key, value in changed.items())])
