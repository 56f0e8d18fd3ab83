"""What the page draws and offers, as JSON: the board's look, the legal moves by square, the game catalog.

Everything comes from the engine's own hooks, so a game of one's own (``register_game``) gets a
board in the browser with no web code: cell fills, piece colours and letters from the PNG renderer
(the game's :class:`~crossenvs.core.view.GameView`, which the PNG renderer draws from too, so the SVG looks the same), the legend, and the cells of each legal
action from :meth:`~crossenvs.core.game.Game.action_cells`. An action with two cells is a move
from the first to the second (a Crosse hop ``h6xf8``, a phalanx ``c2-c4-c6`` from its tail); with
one, a placement on it (Crisscross, Charing Cross's re-placement ``@a4``); with none, a choice
the page shows as a button (``pass``, Crosse's ``remove`` and ``keep``).
"""

from __future__ import annotations

import html
import inspect
from typing import Any

from crossenvs.kernels.state import State

from ..core.game import Game
from ..core.geometry import FILE_LETTERS, square_name
from ..core.registry import game_class, game_spec, list_games, make_game
from ..core.view import BACKGROUND, LAST_MOVE


def hex_colour(rgb: tuple[int, int, int] | None) -> str | None:
    """``(255, 128, 0)`` -> ``"#ff8000"``; None stays None."""
    return None if rgb is None else "#{:02x}{:02x}{:02x}".format(*rgb)


def layout(game: Game) -> dict[str, Any]:
    """The parts of the board that never change in a game: size, cell fills, pieces, edges, legend."""
    view = game.view
    pieces = {
        str(code): {
            "letter": letter,
            "colour": hex_colour(view.piece_colours.get(code, (128, 128, 128))),
            "label": view.piece_label(code),
            "name": f"{game.owner_colour.get(code, '')} {view.piece_kind(code)}".strip(),
        }
        for code, letter in game.cell_letters.items()
        if code != 0
    }
    markers = dict(view.empty_markers())
    cells = [
        [
            {
                "square": square_name(row, col),
                "fill": hex_colour(view.cell_fill(row, col)) or hex_colour(BACKGROUND),
                "kind": markers.get(game.cell_text(row, col, 0), "empty"),
            }
            for col in range(game.width)
        ]
        for row in range(game.height)
    ]
    return {
        "height": game.height,
        "width": game.width,
        "files": FILE_LETTERS[: game.width],
        "cells": cells,
        "pieces": pieces,
        "edges": {side: hex_colour(rgb) for side, rgb in view.edge_colours().items()},
        "legend": [list(entry) for entry in view.legend()],
        "legend_swatches": legend_swatches(game, cells),
        "last_move_colour": hex_colour(LAST_MOVE),
    }


def legend_swatches(game: Game, cells: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The legend with the colour of each entry: ``{letter, meaning, colour, shape}``, ``shape`` ``piece``
    (a piece's colour) or ``cell`` (the fill of the cells of that kind, e.g. Crosse's ring)."""
    view = game.view
    pieces = {letter: code for code, letter in game.cell_letters.items() if code != 0}
    fills = {}
    for row in cells:
        for cell in row:
            fills.setdefault(cell["kind"], cell["fill"])
    swatches = []
    for letter, meaning in view.legend():
        if letter in pieces:
            colour = hex_colour(view.piece_colours.get(pieces[letter], (128, 128, 128)))
            swatches.append({"letter": letter, "meaning": meaning, "colour": colour, "shape": "piece"})
        else:
            colour = fills.get(meaning, hex_colour(BACKGROUND))
            swatches.append({"letter": letter, "meaning": meaning, "colour": colour, "shape": "cell"})
    return swatches


def legal_moves(game: Game, state: State) -> dict[str, Any]:
    """The legal actions, grouped the way a person clicks them (see the module docstring).

    ``moves``: source square -> ``[{to, action, notation}]`` (several actions may share a source
    and target, e.g. Crosse's ``1F:f4-g5`` and ``3F:f4-g5``: the page then asks which);
    ``placements``: ``[{to, action, notation}]``; ``choices``: ``[{action, notation}]``.
    """
    moves: dict[str, list[dict[str, Any]]] = {}
    placements: list[dict[str, Any]] = []
    choices: list[dict[str, Any]] = []
    for action in game.legal_actions(state):
        action = int(action)
        notation = game.action_to_str(state, action)
        cells = [square_name(row, col) for row, col in game.action_cells(state, action)]
        if len(cells) >= 2:
            moves.setdefault(cells[0], []).append({"to": cells[-1], "action": action, "notation": notation})
        elif cells:
            placements.append({"to": cells[0], "action": action, "notation": notation})
        else:
            choices.append({"action": action, "notation": notation})
    return {"moves": moves, "placements": placements, "choices": choices}


#: where the page links each game's rules: ``{name}`` is the game's registry name. The default is the page this
#: server makes itself (:func:`rules_page`), so the link works wherever the package is installed; ``crossenvs
#: serve --docs-url`` points it at a build of the docs site instead (``docs/<name>.md`` builds ``<name>.html``)
DOCS_URL = "/rules/{name}"
#: MCTS levels the page offers (those within the server's cap)
MCTS_LEVELS = ((200, "easy"), (1000, "medium"), (5000, "strong"))
#: search strengths of a pretrained agent the page offers (simulations per move, within the cap)
PRETRAINED_LEVELS = ((16, "quick"), (100, "medium"), (400, "strong"))


def describe_game(name: str, docs_url: str = DOCS_URL) -> dict[str, Any]:
    """One game of the catalog, as the game declares itself: its facts (name as people write it, rules),
    its options with their labels from its schema, its colours, and its pretrained agents."""
    spec = game_spec(name)
    facts = spec.facts
    return {
        "name": name,
        "display_name": facts.display_name,
        "summary": spec.summary,
        "rules_summary": facts.rules_summary,
        "docs_url": docs_url.format(name=name),
        "colours": list(make_game(name).colours),
        "options": [option.describe() for option in game_class(name).OPTION_SCHEMA],
        "pretrained": [opts for game, opts in _pretrained() if game == name],
    }


def _pretrained() -> list[tuple[str, dict[str, Any]]]:
    from ..agents import available

    return available()


def opponent_choices(checkpoints: list[str], max_simulations: int) -> list[dict[str, Any]]:
    """The opponents the page lists: ``{spec, label, kind}``; ``kind`` pretrained ones need an agent for the game."""
    choices = [
        {"spec": "random", "label": "Random moves (easiest)", "kind": "builtin"},
        {"spec": "greedy", "label": "Greedy (best next move)", "kind": "builtin"},
    ]
    choices += [
        {"spec": f"mcts:{n}", "label": f"MCTS ({level}, {n} simulations)", "kind": "builtin"}
        for n, level in MCTS_LEVELS
        if n <= max_simulations
    ]
    choices += [
        {"spec": f"pretrained:{n}", "label": f"Pretrained agent ({level}, {n} simulations)", "kind": "pretrained"}
        for n, level in PRETRAINED_LEVELS
        if n <= max_simulations
    ]
    choices += [
        {"spec": spec, "label": f"Checkpoint {spec.removeprefix('az:')}", "kind": "checkpoint"} for spec in checkpoints
    ]
    return choices


def catalog(
    checkpoints: list[str], max_simulations: int, docs_url: str | None = None, own: list[str] | None = None
) -> dict[str, Any]:
    """Every registered game and the opponents the page suggests: ``opponents`` the specs (kept for scripts),
    ``opponent_choices`` labelled, with the checkpoints ``own`` (those of ``--checkpoints``, not the packaged)."""
    return {
        "games": [describe_game(name, docs_url or DOCS_URL) for name in list_games()],
        "opponents": ["random", "greedy", "mcts:200", "mcts:1000", "pretrained", *checkpoints],
        "opponent_choices": opponent_choices(checkpoints if own is None else own, max_simulations),
        "max_simulations": max_simulations,
    }


def rules_page(name: str) -> str:
    """A game's rules as one HTML page, in the package's own words: its rules paragraph and its module's text
    (the built-in games write their rules in brief there; a game of one's own shows what its module says)."""
    spec = game_spec(name)  # UnknownGameError for a name that is no game
    facts = spec.facts
    module = inspect.getmodule(game_class(name))
    text = inspect.cleandoc(module.__doc__ or "") if module is not None else ""
    title = html.escape(facts.display_name)
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}: rules</title>'
        "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46em;margin:2em auto;padding:0 1em}"
        "pre{white-space:pre-wrap;font:14px/1.45 ui-monospace,monospace}</style></head><body>"
        f"<h1>{title}</h1><p>{html.escape(facts.rules_summary)}</p>"
        + (f"<pre>{html.escape(text)}</pre>" if text else "")
        + "</body></html>"
    )
