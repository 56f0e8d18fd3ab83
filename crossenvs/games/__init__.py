"""The built-in games, one module or package each (the rules only, written against :mod:`crossenvs.core`).

A game over 600 lines is a package whose rooms are its kernels and their tables (``rules.py``), its
Game class (``game.py``) and its view (``view.py``), Crosse also its tables and token text; the
package exports every name, so ``crossenvs.games.crosse.Crosse`` reads as a module's would.

Each declares itself here with one :func:`~crossenvs.core.registry.register_game` call; classes
are named by ``"module:Class"`` so a game's module (and its numba kernels) loads only when used.
A user's game registers the same way from its own module (see ``examples/tictactoe.py``).
"""

from ..core.registry import register_game

register_game(
    "crosse",
    "crossenvs.games.crosse:Crosse",
    summary="move stones with six F/B move tokens, jump to capture (maximum compulsory), shed your stones to win",
    test_options=[
        {"first_player": "white", "stuck_tokens": "keep", "cover_removal": "optional", "move_cap": 150},
        {"stuck_tokens": "pass_refresh", "cover_removal": "optional", "move_cap": 200},
    ],
)
register_game(
    "crossings",
    "crossenvs.games.crossings:Crossings",
    summary="move lines of stones, capture the head enemy stone, freeze a stone on the far rank to win",
    test_options=[{"stalemate": "loss", "move_cap": 40}],
)
register_game(
    "neo_crossings",
    "crossenvs.games.neo_crossings:NeoCrossings",
    summary="move lines of stones, capture whole enemy lines, out-number the opponent on the far rank",
    test_options=[{"symmetry_rule": False, "move_cap": 60}],
)
register_game(
    "charing_cross",
    "crossenvs.games.charing_cross:CharingCross",
    summary="race knights and rooks across; a jumped piece's owner re-places it at home",
    test_options=[{"first_player": "black", "self_jump": False, "move_cap": 80}],
)
register_game(
    "crisscross",
    "crossenvs.games.crisscross:Crisscross",
    summary="place checkers on an NxN board, flank enemy runs to flip them, connect your two edges",
    test_options=[{"size": 3}, {"size": 6}],
)
register_game(
    "hex",
    "crossenvs.games.hex:Hex",
    summary="reference game: place stones on a rhombus of hexagons, join your two edges",
    test_options=[{"size": 5, "swap": True}, {"size": 2}],
)
register_game(
    "connect_four",
    "crossenvs.games.connect_four:ConnectFour",
    summary="reference game: drop discs into columns, four in a line wins",
    test_options=[{"columns": 5, "rows": 4}],
)
