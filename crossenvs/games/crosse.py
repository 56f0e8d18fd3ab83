"""Crosse, the abstract no-dice version by João Pedro Neto of David Rea's 1968 game: full rules
in ``docs/crosse.md``.

Rules in brief
--------------
10x10 board. Outside the central 4x4 only the 42 dark squares (file + rank even) are used, as
in checkers; the centre e5 f5 e6 f6 is never used; the 12 cells around it form the *Crosse*
(the ring, ``d4 e4 f4 g4 g5 g6 g7 f7 e7 d7 d6 d5``, anticlockwise), with corners d4, g4, d7, g7.
Black starts on ranks 1-3 plus f4, White on ranks 8-10 plus e7 (16 stones each). A turn is

* a **jump sequence**, compulsory whenever one exists: one stone hops over adjacent enemy
  stones (diagonally anywhere; orthogonally only when the jumped stone and the landing cell are
  both ring cells), capturing each at once, and keeps hopping while it can. Among all sequences
  of all stones the player must pick one that captures the **most** stones; or
* a **token move**: the player spends one of his unused tokens ``1F 2F 3F 1B 2B 3B`` and moves
  a stone along a path of exactly n one-cell steps, all forward (F) or all backward (B), never
  visiting a cell twice, onto an empty cell (the cells passed may hold any stones). Outside the
  ring forward is toward the opponent; on the ring it is anticlockwise for both players; the
  horizontal steps between the ring and the outside (g4-h4, g6-h6, d7-c7, d5-c5) are sideways
  and count as either. After his sixth move a player gets a fresh set of six tokens.

**Corner cover**: when an action leaves the mover holding all four corners and he did not hold
them all before, his stones on his first row (rank 1 for Black, rank 10 for White) are removed
and he takes another turn. While the cover holds, a stone that ends an action on his first row
is removed and he takes another turn. **Goal** (a give-away game): after every action a player
whose stones are all gone, or are exactly four stones on the four corners, wins (the mover's
opponent is tested first). A player with no legal action passes; two passes in a row draw.

Options
-------
* ``first_player`` (``"black"`` | ``"white"``, default ``"black"``): the colour of seat 0.
* ``stuck_tokens`` (default ``"refresh"``): what happens when a player has no jump and no move
  with his remaining tokens. ``"refresh"``: his set is refreshed to all six at the start of the
  turn (before the mask is computed, so the mask and the token planes show the new set); if even
  the full set allows no move, he passes. ``"keep"``: he passes and keeps his tokens.
  ``"pass_refresh"``: he passes and his set is refreshed for his next turn.
* ``cover_removal`` (``"auto"`` | ``"optional"``, default ``"auto"``): with ``"optional"``,
  completing the cover asks the player whether to remove his first-row stones (actions
  ``remove`` / ``keep``; not asked when his first row is empty). The extra turn follows either
  way. The upkeep removal (rule 8) is never optional.
* ``move_cap`` (int, default 600): the game is drawn once this many plies are played and no one
  has won (a removal answer owed on the last ply is given first: ``remove`` may still win).

A ply is a token move, a whole jump sequence, a pass or an extra turn; single hops and the
removal decision are actions but not plies (docs/crosse.md, rule 11).

Players and frames
------------------
Actions and observations are egocentric (docs/README.md, conventions): White sees the board turned
half a turn, so that every player starts at the bottom, moves forward up the board, and sees
the ring's forward direction anticlockwise (the half turn keeps it anticlockwise).

Action encoding
---------------
``num_actions = 1095``, named in the acting player's frame (``square = row * 10 + col``, row 0
is the player's first row):

* ids ``0..963``: **token moves**, one per geometrically possible ``(from, token, to)``: the
  moves of a stone are the same on any board, since the cells passed may hold anything; only
  the empty destination and the remaining tokens vary. Ids ascend by from-square, then token
  (``1F 2F 3F 1B 2B 3B``), then to-square (:data:`MOVE_FROM`, :data:`MOVE_TOKEN`,
  :data:`MOVE_TO`). The same from-to pair reachable with two tokens is two actions.
* ids ``964..1091``: **hops**, one per geometrically possible ``(from, over, to)`` jump
  (:data:`HOP_FROM`, :data:`HOP_OVER`, :data:`HOP_TO`), ascending by from-square then direction
  N, NE, E, SE, S, SW, W, NW. A jump sequence is one hop action after another by the same
  player; at each hop the mask allows only hops lying on a sequence that captures the maximum
  number of stones.
* ``1092``: pass (only when nothing else is legal); ``1093`` / ``1094``: ``remove`` / ``keep``,
  the removal decision of ``cover_removal="optional"``.

Notation (docs/crosse.md, action encoding): ``3F:f4-i5`` (token move), ``h6xf8`` (one hop), ``pass``, ``remove``,
``keep``.

Observation
-----------
float32 ``(10, 10, 26)`` in the observer's frame:

* plane 0: the observer's stones; plane 1: the opponent's stones;
* plane 2: usable cells (the 54 cells a stone may stand on); plane 3: ring cells; plane 4: the
  four ring corners; plane 5: the observer's first row; plane 6: the opponent's first row
  (planes 2-6 are constant: the frames make the geometry the same for both players);
* planes 7-12: the observer's tokens ``1F 2F 3F 1B 2B 3B``, all ones if still unused;
* planes 13-18: the opponent's tokens, likewise;
* plane 19: all ones if the observer holds all four corners; plane 20: the opponent does;
* plane 21: the stone in the middle of a jump sequence (one cell; all zero when none);
* plane 22: all ones during a jump sequence whose player held all four corners when it began
  (that decides whether ending it on his first row removes the stone);
* plane 23: all ones while the observer must decide whether to remove his first-row stones;
* plane 24: all ones if the previous turn was a pass (one more pass draws);
* plane 25: plies played / ``move_cap`` in every cell.

Rewards and end
---------------
+1 / -1 for a win (a player with no stones, or with only four stones on the four corners);
0 to both for two passes in a row or the move cap.

Position text
-------------
Cells ``B`` and ``W`` for stones; empty cells are ``.``, and also ``-`` (light square), ``o``
(ring), ``+`` (ring corner) or ``#`` (centre), as in the diagrams of docs/crosse.md; the writer uses
those markers. Headers: ``to_move`` (required), ``ply``, ``passes``, ``tokens_black`` and
``tokens_white`` (the unused tokens, e.g. ``1F 3B``; absent means the full set), and for a turn
in progress ``jumping`` (the square of the stone in the middle of a jump sequence) with
``cover_before`` (``yes``/``no``: whether the mover held all four corners when the sequence
began), or ``removal: pending`` (a removal decision of ``cover_removal="optional"``). A loaded
position starts its turn like any other: with ``stuck_tokens="refresh"`` a player stuck with his
remaining tokens gets the full set at once.

Version history
---------------
* v0: first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..core import state as st
from ..core.bits import cell_bits, lowest_square, popcount, reverse_bits
from ..core.codec import DIRECTIONS
from ..core.conventions import count_pass, passes_draw, seat_colour
from ..core.errors import IllegalActionError, InvalidArgumentError, PositionTextError
from ..core.facts import GameFacts
from ..core.game import PASS_TEXT, Game
from ..core.geometry import parse_square, square_name
from ..core.observation import float32_copier, pass_and_cap_values
from ..core.options import choice, first_player, move_cap
from ..core.state import State
from ..core.text import ParsedPosition, shorten
from ..core.view import GameView
from ..kernels.portable import flat_view, scratch_array

SIZE = 10
CELLS = SIZE * SIZE
EMPTY, BLACK_STONE, WHITE_STONE = 0, 1, 2
BLACK, WHITE = 0, 1  # colour ids (not seats: seat 0 is whichever colour moves first)
COLOUR_NAMES = ("black", "white")
NUM_PLANES = 26

#: token index -> name; a player's unused tokens are a 6-bit set (bit i = token i)
TOKEN_NAMES = ("1F", "2F", "3F", "1B", "2B", "3B")
FULL_TOKENS = (1 << len(TOKEN_NAMES)) - 1
STUCK_RULES = ("refresh", "keep", "pass_refresh")
REFRESH, KEEP_TOKENS, PASS_REFRESH = 0, 1, 2
COVER_RULES = ("auto", "optional")
AUTO, OPTIONAL = 0, 1

# Game slots of the meta vector (options live in the state, so kernels need only the arrays).
SEAT0_COLOUR = st.META_SIZE  # BLACK or WHITE: the colour of seat 0 (option first_player)
MOVE_CAP = st.META_SIZE + 1
STUCK_RULE = st.META_SIZE + 2  # index into STUCK_RULES
COVER_RULE = st.META_SIZE + 3  # index into COVER_RULES
TOKENS = st.META_SIZE + 4  # two slots: the unused tokens of seat 0, then of seat 1
JUMPING = st.META_SIZE + 6  # board square (row * 10 + col) of the stone in mid-jump, else -1
JUMPS_LEFT = st.META_SIZE + 7  # captures the current turn must still make (0: a token move or pass)
COVER_BEFORE = st.META_SIZE + 8  # 1 if the jumping player held all four corners when the sequence began
REMOVAL_PENDING = st.META_SIZE + 9  # 1 while the player to act must answer remove / keep
META_SIZE = st.META_SIZE + 10


# ----------------------------------------------------------------------------- geometry
def _square(name: str) -> int:
    row, col = parse_square(name, SIZE, SIZE)
    return row * SIZE + col


RING = np.array([_square(n) for n in "d4 e4 f4 g4 g5 g6 g7 f7 e7 d7 d6 d5".split()], dtype=np.int64)
CORNERS = np.array([_square(n) for n in "d4 g4 d7 g7".split()], dtype=np.int64)
CENTRE = np.array([_square(n) for n in "e5 f5 e6 f6".split()], dtype=np.int64)
#: the four corner-cutting diagonal ring steps (docs/crosse.md, rule 3)
CORNER_CUTS = {frozenset((_square(a), _square(b))) for a, b in (("d5", "e4"), ("f4", "g5"), ("g6", "f7"), ("e7", "d6"))}


def _is_usable(square: int) -> bool:
    """A ring cell, or a dark square outside the central 4x4 (docs/crosse.md, board and setup)."""
    row, col = divmod(square, SIZE)
    if square in RING:
        return True
    if 3 <= row <= 6 and 3 <= col <= 6:
        return False
    return (row + col) % 2 == 0


USABLE = np.array([_is_usable(s) for s in range(CELLS)], dtype=np.bool_)
IS_RING = np.isin(np.arange(CELLS), RING)
IS_CORNER = np.isin(np.arange(CELLS), CORNERS)


def step_kinds(x: int, y: int) -> str:
    """The token directions a one-cell step ``x -> y`` may count as, in Black's frame.

    ``"F"`` (forward), ``"B"`` (backward), ``"FB"`` (a sideways step, either) or ``""`` (no
    legal step): docs/crosse.md, rule 3. White's frame is Black's turned half a turn, so one table
    serves both players.
    """
    (xr, xc), (yr, yc) = divmod(x, SIZE), divmod(y, SIZE)
    dr, dc = yr - xr, yc - xc
    if max(abs(dr), abs(dc)) != 1 or not (USABLE[x] and USABLE[y]):
        return ""
    if IS_RING[x] and IS_RING[y]:  # along the ring, or a corner cut; anticlockwise is forward
        if dr and dc and frozenset((x, y)) not in CORNER_CUTS:
            return ""
        turn = (int(np.flatnonzero(y == RING)[0]) - int(np.flatnonzero(x == RING)[0])) % len(RING)
        return "F" if turn in (1, 2) else "B"
    if dr and dc:  # diagonal with an end outside the ring: the rank change decides
        return "F" if dr > 0 else "B"
    if IS_RING[x] == IS_RING[y]:  # orthogonal between two outside cells (one of them light)
        return ""
    if dr == 0:  # horizontal entry or exit: sideways
        return "FB"
    return "F" if dr > 0 else "B"  # vertical entry or exit


def _neighbours(square: int) -> list[int]:
    row, col = divmod(square, SIZE)
    return [(row + dr) * SIZE + col + dc for dr, dc in DIRECTIONS if 0 <= row + dr < SIZE and 0 <= col + dc < SIZE]


def reachable_squares(square: int, token: int) -> list[int]:
    """Squares a stone on ``square`` reaches with ``token`` (index into TOKEN_NAMES) on any board.

    Paths of exactly n steps of the token's kind that never revisit a cell (start included);
    Black's frame. The destination must still be empty for the move to be legal.
    """
    steps, kind = token % 3 + 1, TOKEN_NAMES[token][1]
    ends: set[int] = set()

    def walk(cell: int, left: int, seen: frozenset[int]) -> None:
        if left == 0:
            ends.add(cell)
            return
        for nxt in _neighbours(cell):
            if nxt not in seen and kind in step_kinds(cell, nxt):
                walk(nxt, left - 1, seen | {nxt})

    walk(square, steps, frozenset({square}))
    return sorted(ends)


def _move_table() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every token move (from, token, to) and where each (from, token) block starts."""
    rows, starts = [], np.zeros(CELLS * len(TOKEN_NAMES) + 1, dtype=np.int64)
    for square in range(CELLS):
        for token in range(len(TOKEN_NAMES)):
            starts[square * len(TOKEN_NAMES) + token] = len(rows)
            if USABLE[square]:
                rows += [(square, token, end) for end in reachable_squares(square, token)]
    starts[-1] = len(rows)
    table = np.array(rows, dtype=np.int16)  # int16: small enough for a GPU's constant memory (kernels/cuda.py)
    return table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy(), starts


def _hop_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every geometrically possible hop (from, over, to), docs/crosse.md, rule 6.

    Diagonal hops anywhere between usable cells; orthogonal hops only when the jumped cell and
    the landing cell are both ring cells (along a straight side of the ring).
    """
    rows = []
    for square in range(CELLS):
        if not USABLE[square]:
            continue
        row, col = divmod(square, SIZE)
        for dr, dc in DIRECTIONS:
            if not (0 <= row + 2 * dr < SIZE and 0 <= col + 2 * dc < SIZE):
                continue
            over, to = square + dr * SIZE + dc, square + 2 * (dr * SIZE + dc)
            if not (USABLE[over] and USABLE[to]):
                continue
            if dr == 0 or dc == 0:
                if not (IS_RING[over] and IS_RING[to]):
                    continue
            rows.append((square, over, to))
    table = np.array(rows, dtype=np.int64)
    return table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy()


MOVE_FROM, MOVE_TOKEN, MOVE_TO, MOVE_START = _move_table()
HOP_FROM, HOP_OVER, HOP_TO = _hop_table()
NUM_MOVES = MOVE_FROM.size  # 964
NUM_HOPS = HOP_FROM.size  # 128
HOP_BASE = NUM_MOVES
PASS_ACTION = HOP_BASE + NUM_HOPS  # 1092
REMOVE_ACTION = PASS_ACTION + 1
KEEP_ACTION = PASS_ACTION + 2
NUM_ACTIONS = KEEP_ACTION + 1  # 1095


def _hops_by_square() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hops grouped by their from-square, and each hop's half-turned twin.

    The hop geometry is symmetric under the half turn, so the same table serves the board and
    both frames: ``HOP_TWIN[h]`` is the id of hop ``h`` turned half a turn (White's frame).
    """
    at = np.full((CELLS, 8), -1, dtype=np.int64)
    count = np.zeros(CELLS, dtype=np.int64)
    index = {(int(f), int(t)): h for h, (f, t) in enumerate(zip(HOP_FROM, HOP_TO))}
    twin = np.array([index[(CELLS - 1 - int(f), CELLS - 1 - int(t))] for f, t in zip(HOP_FROM, HOP_TO)])
    for h, square in enumerate(HOP_FROM):
        at[square, count[square]] = h
        count[square] += 1
    return at, count, twin.astype(np.int64)


HOPS_AT, HOP_COUNT, HOP_TWIN = _hops_by_square()
#: the board row and column of each token move's destination, by colour (Black's frame, then White's)
#: (int8: the tables must fit a GPU kernel's 64 KB of constant memory, see kernels/cuda.py)
MOVE_TO_ROW = np.stack([MOVE_TO // SIZE, (CELLS - 1 - MOVE_TO) // SIZE]).astype(np.int8)
MOVE_TO_COL = np.stack([MOVE_TO % SIZE, (CELLS - 1 - MOVE_TO) % SIZE]).astype(np.int8)
ZERO, ONE = np.uint64(0), np.uint64(1)


def _block_destinations() -> np.ndarray:
    """(blocks, 2) uint64: the frame destinations of each move block (from-square x token) as bits."""
    blocks = MOVE_START.size - 1
    bits = [[0, 0] for _ in range(blocks)]
    for block in range(blocks):
        for move in range(MOVE_START[block], MOVE_START[block + 1]):
            to = int(MOVE_TO[move])
            assert move == MOVE_START[block] or to > MOVE_TO[move - 1], "a block's ids ascend with their destination"
            bits[block][to // 64] |= 1 << (to % 64)
    return np.array(bits, dtype=np.uint64)


BLOCK_DESTINATIONS = _block_destinations()
MAX_JUMP_DEPTH = 64  # more than the stones that can ever be captured in one sequence


# ----------------------------------------------------------------------------- observation tables
def _geometry_planes() -> np.ndarray:
    """Planes 2-6 (usable, ring, corners, own and opponent first rows), the same in both frames."""
    planes = np.zeros((SIZE, SIZE, 5), dtype=np.float32)
    planes[..., 0] = USABLE.reshape(SIZE, SIZE)
    planes[..., 1] = IS_RING.reshape(SIZE, SIZE)
    planes[..., 2] = IS_CORNER.reshape(SIZE, SIZE)
    planes[0, :, 3] = 1.0
    planes[SIZE - 1, :, 4] = 1.0
    return planes


GEOMETRY_PLANES = _geometry_planes()
PREFIX_PLANES = 7  # planes 0-6: whose stone is on the cell (0, 1), and the cell's geometry (2-6)
PREFIX_EMPTY, PREFIX_MINE, PREFIX_THEIRS = 0, 1, 2


def _cell_prefixes() -> np.ndarray:
    """(3, CELLS, 7): planes 0-6 of a cell, by what holds it (empty, mine, theirs) and its square."""
    prefixes = np.zeros((3, CELLS, PREFIX_PLANES), dtype=np.float32)
    prefixes[:, :, 2:] = GEOMETRY_PLANES.reshape(CELLS, 5)
    prefixes[PREFIX_MINE, :, 0] = 1.0
    prefixes[PREFIX_THEIRS, :, 1] = 1.0
    return prefixes


CELL_PREFIXES = _cell_prefixes()
#: the same table flat, as the observation kernel reads it (one table, built once, never reshaped on a GPU)
CELL_PREFIX_ROWS = CELL_PREFIXES.reshape(-1)
_copy_row = float32_copier(NUM_PLANES)
_copy_prefix = float32_copier(PREFIX_PLANES)


# ----------------------------------------------------------------------------- small kernels
@njit(cache=True, inline="always")
def stone_of(colour: int) -> int:
    return BLACK_STONE if colour == BLACK else WHITE_STONE


@njit(cache=True, inline="always")
def in_frame(square: int, colour: int) -> int:
    """A square between the board and ``colour``'s frame (White's is the half turn; an involution)."""
    return square if colour == BLACK else CELLS - 1 - square


#: each square's board row and column: two table loads cost less than numba's signed floor division
SQUARE_ROW, SQUARE_COL = np.arange(CELLS) // SIZE, np.arange(CELLS) % SIZE


@njit(cache=True, inline="always")
def cell(board: np.ndarray, square: int) -> int:
    return board[SQUARE_ROW[square], SQUARE_COL[square]]


@njit(cache=True, inline="always")
def set_cell(board: np.ndarray, square: int, code: int) -> None:
    board[SQUARE_ROW[square], SQUARE_COL[square]] = code


@njit(cache=True, inline="always")
def first_row(colour: int) -> int:
    """The board row of a colour's first row: rank 1 for Black, rank 10 for White."""
    return 0 if colour == BLACK else SIZE - 1


@njit(cache=True)
def holds_cover(board: np.ndarray, stone: int) -> bool:
    """Does ``stone``'s side hold all four ring corners?"""
    for i in range(CORNERS.shape[0]):
        if cell(board, CORNERS[i]) != stone:
            return False
    return True


@njit(cache=True)
def has_won(board: np.ndarray, stone: int) -> bool:
    """docs/crosse.md, rule 9: no stones left, or exactly four, on the four corners.

    Equivalently: the side holds none or all of the corners and has no stone elsewhere. Tested
    twice after every action, so the scan stops at the first stone off the corners, starting
    from the side's own first row, where its stones usually are.
    """
    held = 0
    for i in range(CORNERS.shape[0]):
        if cell(board, CORNERS[i]) == stone:
            held += 1
    if held != 0 and held != CORNERS.shape[0]:
        return False
    for i in range(SIZE):
        row = i if stone == BLACK_STONE else SIZE - 1 - i
        for col in range(SIZE):
            if board[row, col] == stone and not IS_CORNER[row * SIZE + col]:
                return False
    return True


# ----------------------------------------------------------------------------- jumps
@njit(cache=True, inline="always")
def hop_possible(board: np.ndarray, hop: int, enemy: int) -> bool:
    """The board-frame hop ``hop`` finds an enemy stone to jump and an empty landing cell."""
    return cell(board, HOP_OVER[hop]) == enemy and cell(board, HOP_TO[hop]) == EMPTY


_JUMP_STACK = scratch_array(MAX_JUMP_DEPTH + 1, np.int64)  # one entry a hop deep, and the next depth's start


@njit(cache=True)
def most_captures_from(board: np.ndarray, start: int, stone: int, enemy: int) -> int:
    """The most stones the ``stone`` on ``start`` can still capture in one sequence.

    A depth-first search over hop sequences, removing each jumped stone as it goes (docs/crosse.md, rule 6)
    and restoring the board before returning. Iterative with an explicit stack, so numba needs
    no recursion.
    """
    path = _JUMP_STACK()
    next_k = _JUMP_STACK()
    next_k[0] = 0
    depth, square, best = 0, start, 0
    while True:
        k = next_k[depth]
        if k < HOP_COUNT[square]:
            next_k[depth] = k + 1
            hop = HOPS_AT[square, k]
            if hop_possible(board, hop, enemy):
                set_cell(board, square, EMPTY)
                set_cell(board, HOP_OVER[hop], EMPTY)
                set_cell(board, HOP_TO[hop], stone)
                path[depth] = hop
                depth += 1
                next_k[depth] = 0
                square = HOP_TO[hop]
                best = max(best, depth)
        else:
            if depth == 0:
                return best
            depth -= 1
            hop = path[depth]
            set_cell(board, HOP_TO[hop], EMPTY)
            set_cell(board, HOP_OVER[hop], enemy)
            square = HOP_FROM[hop]
            set_cell(board, square, stone)


@njit(cache=True)
def most_captures(board: np.ndarray, stone: int, enemy: int) -> int:
    """The most stones any of ``stone``'s side can capture this turn (0: no jump exists)."""
    best = 0
    stones_low, stones_high = cell_bits(board, stone)  # the searches restore the board: the bits stay true
    for half in range(2):
        stones = stones_low if half == 0 else stones_high
        while stones:
            square = lowest_square(stones) + 64 * half
            stones &= stones - ONE
            for k in range(HOP_COUNT[square]):
                if hop_possible(board, HOPS_AT[square, k], enemy):
                    best = max(best, most_captures_from(board, square, stone, enemy))
                    break
    return best


@njit(cache=True)
def hop_is_best(board: np.ndarray, hop: int, stone: int, enemy: int, needed: int) -> bool:
    """Does the possible board-frame ``hop`` lie on a sequence making the ``needed`` captures?"""
    set_cell(board, HOP_FROM[hop], EMPTY)
    set_cell(board, HOP_OVER[hop], EMPTY)
    set_cell(board, HOP_TO[hop], stone)
    rest = most_captures_from(board, HOP_TO[hop], stone, enemy)
    set_cell(board, HOP_TO[hop], EMPTY)
    set_cell(board, HOP_OVER[hop], enemy)
    set_cell(board, HOP_FROM[hop], stone)
    return 1 + rest == needed


@njit(cache=True)
def scan_hops(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """Mark the hops the mask allows: from the jumping stone, or from any stone at a turn's start."""
    seat = meta[st.TO_MOVE]
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    stone, enemy = stone_of(colour), stone_of(1 - colour)
    needed = meta[JUMPS_LEFT]
    if meta[JUMPING] >= 0:  # the jumping stone hops on
        if cell(board, meta[JUMPING]) == stone:
            _mark_best_hops(board, meta[JUMPING], colour, stone, enemy, needed, out)
        return
    stones_low, stones_high = cell_bits(board, stone)
    for half in range(2):
        stones = stones_low if half == 0 else stones_high
        while stones:
            _mark_best_hops(board, lowest_square(stones) + 64 * half, colour, stone, enemy, needed, out)
            stones &= stones - ONE


@njit(cache=True, inline="always")
def _mark_best_hops(board, square, colour, stone, enemy, needed, out) -> None:
    """Mark the hops from ``square`` that start a sequence of the ``needed`` captures."""
    for k in range(HOP_COUNT[square]):
        hop = HOPS_AT[square, k]
        if hop_possible(board, hop, enemy) and hop_is_best(board, hop, stone, enemy, needed):
            out[HOP_BASE + (hop if colour == BLACK else HOP_TWIN[hop])] = 1


# ----------------------------------------------------------------------------- token moves
@njit(cache=True, inline="always")
def move_block(frame_square: int, token: int) -> tuple[int, int]:
    """The ids ``start..end-1`` of the token moves from ``frame_square`` with ``token``."""
    index = frame_square * len(TOKEN_NAMES) + token
    return MOVE_START[index], MOVE_START[index + 1]


@njit(cache=True, inline="always")
def frame_bits(board: np.ndarray, colour: int, stone: int) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """Bitboards in ``colour``'s frame (bit ``s`` of the pair is frame square ``s``): ``stone``'s squares, the empty ones.

    Each as two words: squares 0-63 and 64-99. Built in the board's frame, eight cells at a time
    (:func:`~crossenvs.core.bits.cell_bits`), then turned for White (:func:`half_turn_bits`).
    """
    own_low, own_high = cell_bits(board, stone)
    empty_low, empty_high = cell_bits(board, EMPTY)
    if colour == BLACK:
        return own_low, own_high, empty_low, empty_high
    own_low, own_high = half_turn_bits(own_low, own_high)
    empty_low, empty_high = half_turn_bits(empty_low, empty_high)
    return own_low, own_high, empty_low, empty_high


#: the shifts that turn a 100-square bitboard, held in 128 bits, half round
HALF_TURN_DOWN, HALF_TURN_UP = np.uint64(128 - CELLS), np.uint64(CELLS - 64)


@njit(cache=True, inline="always")
def half_turn_bits(low: np.uint64, high: np.uint64) -> tuple[np.uint64, np.uint64]:
    """A 100-square bitboard turned half round: bit ``s`` goes to bit ``99 - s`` (:func:`in_frame` for White).

    As 128 bits: reversed, square s lands on bit 127 - s; shifted down by 28, on 99 - s.
    """
    reversed_low, reversed_high = reverse_bits(high), reverse_bits(low)
    return (reversed_low >> HALF_TURN_DOWN) | (reversed_high << HALF_TURN_UP), reversed_high >> HALF_TURN_DOWN


@njit(cache=True, inline="always")
def mark_open_moves(first: int, destinations: np.uint64, open_ones: np.uint64, out: np.ndarray) -> None:
    """Mark the moves ``first + k`` whose destination is the k-th set bit of ``destinations`` and is in ``open_ones``."""
    while open_ones:
        rest = open_ones & (open_ones - ONE)
        out[first + popcount(destinations & ((open_ones ^ rest) - ONE))] = 1
        open_ones = rest


@njit(cache=True)
def scan_moves(board: np.ndarray, meta: np.ndarray, tokens: int, out: np.ndarray) -> bool:
    """Mark the token moves of the player to act with ``tokens`` in ``out``; True if any.

    On bitboards in the player's frame (this loop is most of the mask's time): a move block's
    destinations (:data:`BLOCK_DESTINATIONS`) AND the empty squares are its legal moves, and
    since a block's ids ascend with their destination, the k-th destination bit is move
    ``first + k``.
    """
    colour = seat_colour(meta[SEAT0_COLOUR], meta[st.TO_MOVE])
    own_low, own_high, empty_low, empty_high = frame_bits(board, colour, stone_of(colour))
    found = False
    for half in range(2):
        stones = own_low if half == 0 else own_high
        while stones:
            frame_square = lowest_square(stones) + 64 * half
            stones &= stones - ONE
            for token in range(6):
                if not (tokens >> token) & 1:
                    continue
                block = frame_square * len(TOKEN_NAMES) + token
                low, high = BLOCK_DESTINATIONS[block, 0], BLOCK_DESTINATIONS[block, 1]
                open_low, open_high = low & empty_low, high & empty_high
                if not (open_low | open_high):
                    continue
                found = True
                first = MOVE_START[block]
                mark_open_moves(first, low, open_low, out)
                mark_open_moves(first + popcount(low), high, open_high, out)
    return found


@njit(cache=True)
def has_move(board: np.ndarray, meta: np.ndarray, tokens: int) -> bool:
    """Has the player to act any token move with ``tokens``?

    The own stones from their bitboard, then move by move: the first legal move usually comes
    early, before building the empty squares' bitboards would have paid off. The destinations'
    board rows and columns come from
    :data:`MOVE_TO_ROW` / :data:`MOVE_TO_COL` (no frame turn or division per move).
    """
    colour = seat_colour(meta[SEAT0_COLOUR], meta[st.TO_MOVE])
    stones_low, stones_high = cell_bits(board, stone_of(colour))
    for half in range(2):
        stones = stones_low if half == 0 else stones_high
        while stones:
            frame_square = in_frame(lowest_square(stones) + 64 * half, colour)
            stones &= stones - ONE
            for token in range(6):
                if not (tokens >> token) & 1:
                    continue
                first, end = move_block(frame_square, token)
                for move in range(first, end):
                    if board[MOVE_TO_ROW[colour, move], MOVE_TO_COL[colour, move]] == EMPTY:
                        return True
    return False


# ----------------------------------------------------------------------------- turn flow
@njit(cache=True)
def start_turn(board: np.ndarray, meta: np.ndarray) -> None:
    """What a turn's start settles before the mask: the captures owed, and a stuck token set.

    docs/crosse.md, rules 5-6: the captures this turn must make (compulsory maximum), and with
    ``stuck_tokens="refresh"`` a player with no jump and no move for his remaining tokens gets
    the full set at once (it persists even if he must then pass).
    """
    seat = meta[st.TO_MOVE]
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    meta[JUMPING] = -1
    meta[COVER_BEFORE] = 0
    meta[JUMPS_LEFT] = most_captures(board, stone_of(colour), stone_of(1 - colour))
    tokens = meta[TOKENS + seat]
    if meta[JUMPS_LEFT] == 0 and meta[STUCK_RULE] == REFRESH and tokens != FULL_TOKENS:
        if not has_move(board, meta, tokens):
            meta[TOKENS + seat] = FULL_TOKENS


@njit(cache=True)
def hand_turn(board: np.ndarray, meta: np.ndarray, next_seat: int) -> None:
    """Give the next turn (the same seat for an extra turn); the cap draws first (docs/crosse.md, rule 11)."""
    meta[st.TO_MOVE] = next_seat
    if meta[st.PLY] >= meta[MOVE_CAP]:
        meta[st.STATUS] = st.STATUS_DRAW
        return
    start_turn(board, meta)


@njit(cache=True)
def declare_win(board: np.ndarray, meta: np.ndarray, seat: int, winner: int) -> bool:
    """End the game if ``winner`` qualifies (docs/crosse.md, rule 9); True if it did. ``seat`` moved last."""
    if not has_won(board, stone_of(seat_colour(meta[SEAT0_COLOUR], winner))):
        return False
    meta[st.STATUS] = st.STATUS_WIN_0 + winner
    meta[st.TO_MOVE] = 1 - seat  # a finished game shows the mover's opponent to move
    return True


@njit(cache=True)
def settle(board: np.ndarray, meta: np.ndarray, seat: int, extra_turn: bool) -> None:
    """The win tests after an action (the mover's opponent first, docs/crosse.md, rule 9), then the next turn."""
    if not declare_win(board, meta, seat, 1 - seat) and not declare_win(board, meta, seat, seat):
        hand_turn(board, meta, seat if extra_turn else 1 - seat)


@njit(cache=True)
def remove_first_row(board: np.ndarray, colour: int) -> None:
    """Take ``colour``'s stones off its first row."""
    row, stone = first_row(colour), stone_of(colour)
    for col in range(SIZE):
        if board[row, col] == stone:
            board[row, col] = EMPTY


@njit(cache=True)
def has_first_row_stones(board: np.ndarray, colour: int) -> bool:
    row, stone = first_row(colour), stone_of(colour)
    for col in range(SIZE):
        if board[row, col] == stone:
            return True
    return False


@njit(cache=True)
def finish_action(board: np.ndarray, meta: np.ndarray, seat: int, final: int, cover_before: bool) -> None:
    """After a token move or the last hop: the ply, the corner cover (docs/crosse.md, rules 7-8), wins, next turn."""
    meta[st.PLY] += 1
    meta[st.PASSES] = 0
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    stone = stone_of(colour)
    extra_turn = False
    if holds_cover(board, stone):
        if not cover_before:  # the cover is completed: first-row stones go, and he moves again
            extra_turn = True
            if has_first_row_stones(board, colour):
                if meta[COVER_RULE] == OPTIONAL:
                    # The opponent's win comes first; otherwise the player answers remove / keep,
                    # and the win and cap tests wait for the answer (it may win on this ply).
                    if not declare_win(board, meta, seat, 1 - seat):
                        meta[REMOVAL_PENDING] = 1
                    return
                remove_first_row(board, colour)
        elif final // SIZE == first_row(colour):  # upkeep: a stone ending on the first row goes
            set_cell(board, final, EMPTY)
            extra_turn = True
    settle(board, meta, seat, extra_turn)


@njit(cache=True)
def _move(board: np.ndarray, meta: np.ndarray, seat: int, action: int) -> bool:
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    stone = stone_of(colour)
    tokens = meta[TOKENS + seat]
    token = MOVE_TOKEN[action]
    start, end = in_frame(MOVE_FROM[action], colour), in_frame(MOVE_TO[action], colour)
    if meta[JUMPS_LEFT] != 0 or not (tokens >> token) & 1:
        return False
    if cell(board, start) != stone or cell(board, end) != EMPTY:
        return False
    cover_before = holds_cover(board, stone)
    set_cell(board, start, EMPTY)
    set_cell(board, end, stone)
    tokens &= ~(1 << token)
    meta[TOKENS + seat] = tokens if tokens != 0 else FULL_TOKENS  # six moves used: a fresh set
    finish_action(board, meta, seat, end, cover_before)
    return True


@njit(cache=True)
def _hop(board: np.ndarray, meta: np.ndarray, seat: int, action: int) -> bool:
    colour = seat_colour(meta[SEAT0_COLOUR], seat)
    stone, enemy = stone_of(colour), stone_of(1 - colour)
    hop = action - HOP_BASE
    if colour == WHITE:
        hop = HOP_TWIN[hop]  # the same hop in board coordinates
    if meta[JUMPS_LEFT] == 0 or cell(board, HOP_FROM[hop]) != stone:
        return False
    if meta[JUMPING] >= 0 and HOP_FROM[hop] != meta[JUMPING]:
        return False
    if not hop_possible(board, hop, enemy) or not hop_is_best(board, hop, stone, enemy, meta[JUMPS_LEFT]):
        return False
    if meta[JUMPING] < 0:
        meta[COVER_BEFORE] = holds_cover(board, stone)
    set_cell(board, HOP_FROM[hop], EMPTY)
    set_cell(board, HOP_OVER[hop], EMPTY)
    set_cell(board, HOP_TO[hop], stone)
    meta[JUMPS_LEFT] -= 1
    if meta[JUMPS_LEFT] > 0:
        meta[JUMPING] = HOP_TO[hop]  # the same stone hops on, and the same player acts
        return True
    cover_before = meta[COVER_BEFORE] == 1
    meta[JUMPING] = -1
    meta[COVER_BEFORE] = 0
    finish_action(board, meta, seat, HOP_TO[hop], cover_before)
    return True


@njit(cache=True)
def _pass(board: np.ndarray, meta: np.ndarray, seat: int) -> bool:
    if meta[JUMPS_LEFT] != 0 or has_move(board, meta, meta[TOKENS + seat]):
        return False
    meta[st.PLY] += 1
    if meta[STUCK_RULE] == PASS_REFRESH:
        meta[TOKENS + seat] = FULL_TOKENS
    if count_pass(meta):
        meta[st.TO_MOVE] = 1 - seat
        return True
    hand_turn(board, meta, 1 - seat)
    return True


@njit(cache=True)
def _decide_removal(board: np.ndarray, meta: np.ndarray, seat: int, remove: bool) -> None:
    """The answer to the cover's removal question (not a ply); the extra turn follows either way."""
    meta[REMOVAL_PENDING] = 0
    if remove:
        remove_first_row(board, seat_colour(meta[SEAT0_COLOUR], seat))
    settle(board, meta, seat, True)


@njit(cache=True)
def apply_kernel(board: np.ndarray, meta: np.ndarray, action: int) -> bool:
    """Play ``action`` in place for the player to act; False (nothing changed) if illegal."""
    if meta[st.STATUS] != st.STATUS_PLAYING or action < 0 or action >= NUM_ACTIONS:
        return False
    seat = meta[st.TO_MOVE]
    if meta[REMOVAL_PENDING] == 1:
        if action != REMOVE_ACTION and action != KEEP_ACTION:
            return False
        _decide_removal(board, meta, seat, action == REMOVE_ACTION)
        return True
    if action < NUM_MOVES:
        return _move(board, meta, seat, action)
    if action < PASS_ACTION:
        return _hop(board, meta, seat, action)
    if action == PASS_ACTION:
        return _pass(board, meta, seat)
    return False  # remove / keep with no decision pending


@njit(cache=True)
def mask_kernel(board: np.ndarray, meta: np.ndarray, out: np.ndarray) -> None:
    """``out[a] = 1`` for each legal action: the decision, the best hops, else token moves or pass."""
    out[:] = 0
    if meta[st.STATUS] != st.STATUS_PLAYING:
        return
    if meta[REMOVAL_PENDING] == 1:
        out[REMOVE_ACTION] = 1
        out[KEEP_ACTION] = 1
    elif meta[JUMPS_LEFT] > 0:
        scan_hops(board, meta, out)
    elif not scan_moves(board, meta, meta[TOKENS + meta[st.TO_MOVE]], out):
        out[PASS_ACTION] = 1


_PLANE_ROW = scratch_array(NUM_PLANES, np.float32)


@njit(cache=True)
def observe_kernel(board: np.ndarray, meta: np.ndarray, player: int, out: np.ndarray) -> None:
    """The 26 planes of the module docstring, in ``player``'s frame.

    Planes 7-25 but 21 are the same on every cell: they are built once as a row and copied to
    each cell, then each cell's first seven (its stone and the geometry, from
    :data:`CELL_PREFIXES`) are copied over them, and the jumping stone's plane-21 one is set.
    """
    colour = seat_colour(meta[SEAT0_COLOUR], player)
    mine, theirs = stone_of(colour), stone_of(1 - colour)
    row = _PLANE_ROW()
    row[:] = 0.0
    my_tokens, their_tokens = meta[TOKENS + player], meta[TOKENS + 1 - player]
    for token in range(6):
        row[7 + token] = (my_tokens >> token) & 1
        row[13 + token] = (their_tokens >> token) & 1
    row[19] = 1.0 if holds_cover(board, mine) else 0.0
    row[20] = 1.0 if holds_cover(board, theirs) else 0.0
    row[22] = 1.0 if meta[JUMPING] >= 0 and meta[COVER_BEFORE] == 1 else 0.0
    row[23] = 1.0 if meta[st.TO_MOVE] == player and meta[REMOVAL_PENDING] == 1 else 0.0
    row[24], row[25] = pass_and_cap_values(meta[st.PASSES], meta[st.PLY], meta[MOVE_CAP])
    flat = flat_view(out)
    prefixes = CELL_PREFIX_ROWS
    for square in range(CELLS):
        code = cell(board, in_frame(square, colour))
        holder = PREFIX_MINE if code == mine else (PREFIX_THEIRS if code == theirs else PREFIX_EMPTY)
        _copy_row(flat, square * NUM_PLANES, row, 0)
        _copy_prefix(flat, square * NUM_PLANES, prefixes, (holder * CELLS + square) * PREFIX_PLANES)
    if meta[JUMPING] >= 0:
        flat[in_frame(meta[JUMPING], colour) * NUM_PLANES + 21] = 1.0


SETUP = {
    BLACK_STONE: "a1 c1 e1 g1 i1 b2 d2 f2 h2 j2 a3 c3 e3 g3 i3 f4",
    WHITE_STONE: "b10 d10 f10 h10 j10 a9 c9 e9 g9 i9 b8 d8 f8 h8 j8 e7",
}


# ----------------------------------------------------------------------------- position text helpers
def tokens_text(tokens: int) -> str:
    """A token set as text in canonical order, e.g. ``1F 2F 3B``."""
    return " ".join(name for i, name in enumerate(TOKEN_NAMES) if (tokens >> i) & 1)


def _token_index(text: str) -> int:
    name = text.strip().upper()
    if name not in TOKEN_NAMES:
        raise ValueError(f"{shorten(text.strip())} is not a token ({', '.join(TOKEN_NAMES)})")
    return TOKEN_NAMES.index(name)


def _header_square(parsed: ParsedPosition, key: str) -> tuple[int, int]:
    """``(row, col)`` of the square a header names; the error quotes a long value only in part."""
    value = parsed.headers[key]
    try:
        return parse_square(value, SIZE, SIZE)
    except ValueError as exc:
        why = str(exc) if len(value) <= 8 else f"{shorten(value)} is not a square name (e.g. 'f4')"
        raise parsed.error(key, why) from None


def _parse_tokens(parsed: ParsedPosition, key: str) -> int:
    """A ``tokens_<colour>`` header: unused tokens separated by spaces or commas, at least one."""
    names = parsed.headers[key].replace(",", " ").split()
    if not names:
        raise parsed.error(key, "give at least one token (a used-up set is refreshed at once); omit it for all six")
    tokens = 0
    for name in names:
        try:
            index = _token_index(name)
        except ValueError as exc:
            raise parsed.error(key, str(exc)) from None
        if (tokens >> index) & 1:
            raise parsed.error(key, f"token {TOKEN_NAMES[index]} is listed twice")
        tokens |= 1 << index
    return tokens


# ----------------------------------------------------------------------------- the game
class CrosseView(GameView):
    """How Crosse looks: colours, labels and the legend (the rules are in :class:`Crosse`)."""

    piece_colours = {BLACK_STONE: (40, 40, 40), WHITE_STONE: (238, 236, 228)}

    def status_note(self, state: State) -> str:
        if self.game.is_terminal(state):
            return ""
        meta = state.meta
        note = f" [tokens {tokens_text(int(meta[TOKENS + self.game.current_player(state)]))}]"
        if meta[REMOVAL_PENDING]:
            return note + ": cover complete: remove the first-row stones? (remove or keep)"
        if meta[JUMPING] >= 0:
            left = int(meta[JUMPS_LEFT])
            return note + f": the stone on {square_name(*divmod(int(meta[JUMPING]), SIZE))} jumps on ({left} more)"
        if meta[JUMPS_LEFT] > 0:
            return note + f": must jump, capturing {int(meta[JUMPS_LEFT])}"
        return note

    def move_tokens(self, state: State) -> dict[str, list[str]]:
        """Each colour's unused tokens, in canonical order (the web page shows them beside the board)."""
        return {
            colour: tokens_text(int(state.meta[TOKENS + seat])).split() for seat, colour in enumerate(self.game.colours)
        }

    def cell_fill(self, row: int, col: int) -> tuple[int, int, int] | None:
        square = row * SIZE + col
        if IS_CORNER[square]:
            return (214, 120, 100)
        if IS_RING[square]:
            return (222, 190, 130)
        if square in CENTRE:
            return (120, 110, 95)
        return (176, 140, 100) if USABLE[square] else None

    def piece_kind(self, code: int) -> str:
        return "stone"

    def empty_markers(self) -> list[tuple[str, str]]:
        """The diagram markers :meth:`cell_text` writes for empty cells (docs/crosse.md, board and setup)."""
        return [
            (".", "empty dark square"),
            ("-", "light square (never used)"),
            ("o", "empty ring cell"),
            ("+", "empty ring corner"),
            ("#", "centre (never used)"),
        ]


class Crosse(Game):
    """Crosse, abstract no-dice version (see the module docstring)."""

    name = "crosse"
    view_class = CrosseView
    facts = GameFacts(
        display_name="Crosse",
        rules_summary="A give-away game on a 10x10 board with a ring of 12 cells around an unused centre. You move "
        "stones with six single-use tokens (1, 2 or 3 steps, forward or back); jumps capture, are compulsory "
        "and must take the most stones. Covering the ring's four corners sheds the stones on your first row. "
        "You win by getting rid of all your stones, or of all but four that hold the corners.",
    )
    OPTION_SCHEMA = (
        first_player("black", COLOUR_NAMES),
        choice(
            "stuck_tokens",
            "refresh",
            STUCK_RULES,
            "what a player with no move for his remaining tokens does",
            label="When no token can move",
            advanced=True,
        ),
        choice(
            "cover_removal",
            "auto",
            COVER_RULES,
            "completing the cover removes the first-row stones, or asks",
            label="Removing the first row",
            advanced=True,
        ),
        move_cap(600),
    )
    EXTRA_HEADER_KEYS = ("tokens_black", "tokens_white", "jumping", "cover_before", "removal")
    cell_letters = {EMPTY: ".", BLACK_STONE: "B", WHITE_STONE: "W"}
    owner_colour = {BLACK_STONE: "black", WHITE_STONE: "white"}
    apply_kernel = staticmethod(apply_kernel)
    mask_kernel = staticmethod(mask_kernel)
    observe_kernel = staticmethod(observe_kernel)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        first = self.options["first_player"]
        self.move_cap = self.options["move_cap"]
        self.colours = (first, "white" if first == "black" else "black")
        self.height = self.width = SIZE
        self.num_actions = NUM_ACTIONS
        self.observation_shape = (SIZE, SIZE, NUM_PLANES)

    @property
    def max_game_length(self) -> int:
        """``move_cap`` plies, plus the actions that are no ply: a hop before a sequence's last captures a
        stone, so there are fewer of them than stones at the start; a removal answer follows a ply."""
        answers = self.move_cap if self.options["cover_removal"] == "optional" else 0
        return self.move_cap + answers + int(np.count_nonzero(self.initial_state().board))

    def initial_state(self) -> State:
        board = np.zeros((SIZE, SIZE), dtype=np.int8)
        for code, squares in SETUP.items():
            for name in squares.split():
                board[parse_square(name, SIZE, SIZE)] = code
        meta = np.zeros(META_SIZE, dtype=np.int32)
        meta[SEAT0_COLOUR] = COLOUR_NAMES.index(self.colours[0])
        meta[MOVE_CAP] = self.move_cap
        meta[STUCK_RULE] = STUCK_RULES.index(self.options["stuck_tokens"])
        meta[COVER_RULE] = COVER_RULES.index(self.options["cover_removal"])
        meta[TOKENS] = meta[TOKENS + 1] = FULL_TOKENS
        start_turn(board, meta)
        return State(board, meta)

    # ----------------------------------------------------------------- queries
    def tokens(self, state: State, colour: str) -> list[str]:
        """The unused tokens of ``colour`` (``"black"`` or ``"white"``), e.g. ``["1F", "3B"]``."""
        return tokens_text(int(state.meta[TOKENS + self.player_of_colour(colour)])).split()

    def move_ends(self, state: State, square: str, token: str) -> set[str]:
        """The squares the stone on ``square`` can reach with ``token`` now (empty destinations).

        Geometry only: whose turn it is, the token being unused and compulsory jumps are not
        checked (docs/crosse.md, example C2).
        """
        self.check_state(state)
        if not isinstance(square, str) or not isinstance(token, str):
            raise InvalidArgumentError(f"{self.name}: give a square and a token as text, e.g. 'f4', '3F'")
        try:
            row, col = parse_square(square, SIZE, SIZE)
            index = _token_index(token)
        except ValueError as exc:
            raise InvalidArgumentError(f"{self.name}: {exc}") from None
        code = int(state.board[row, col])
        if code == EMPTY:
            raise InvalidArgumentError(f"{self.name}: no stone on {square}")
        colour = BLACK if code == BLACK_STONE else WHITE
        start = int(in_frame(row * SIZE + col, colour))
        ends = {int(in_frame(int(MOVE_TO[move]), colour)) for move in range(*move_block(start, index))}
        return {square_name(*divmod(end, SIZE)) for end in ends if state.board.flat[end] == EMPTY}

    # ----------------------------------------------------------------- notation
    def _colour_to_act(self, state: State) -> int:
        return COLOUR_NAMES.index(self.colours[self.current_player(state)])

    def egocentric_twin(self, state: State) -> tuple[State, tuple[int, int]]:
        """The board turned half a turn, colours (and seat 0's colour) swapped: each seat sees the same."""
        board = state.board[::-1, ::-1].copy()
        swapped = np.where(board == 1, 2, np.where(board == 2, 1, 0)).astype(np.int8)
        meta = state.meta.copy()
        meta[SEAT0_COLOUR] = 1 - meta[SEAT0_COLOUR]
        if meta[JUMPING] >= 0:
            meta[JUMPING] = 99 - meta[JUMPING]
        return State(swapped, meta), (0, 1)

    def action_to_str(self, state: State, action: int) -> str:
        action = int(action)
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"{self.name}: action {action!r} is not an id in 0..{NUM_ACTIONS - 1}")
        special = {PASS_ACTION: PASS_TEXT, REMOVE_ACTION: "remove", KEEP_ACTION: "keep"}
        if action in special:
            return special[action]
        colour = self._colour_to_act(state)

        def name(frame_square: int) -> str:
            return square_name(*divmod(int(in_frame(int(frame_square), colour)), SIZE))

        if action < NUM_MOVES:
            return f"{TOKEN_NAMES[MOVE_TOKEN[action]]}:{name(MOVE_FROM[action])}-{name(MOVE_TO[action])}"
        hop = action - HOP_BASE
        return f"{name(HOP_FROM[hop])}x{name(HOP_TO[hop])}"

    def str_to_action(self, state: State, text: str) -> int:
        move = text.strip()
        words = {PASS_TEXT: PASS_ACTION, "remove": REMOVE_ACTION, "keep": KEEP_ACTION}
        if move.lower() in words:
            return words[move.lower()]
        colour = self._colour_to_act(state)
        try:
            if ":" in move:
                token_text, squares = move.split(":", 1)
                token = _token_index(token_text)
                start, end = self._frame_squares(squares, "-", colour)
                for action in range(*move_block(start, token)):
                    if MOVE_TO[action] == end:
                        return action
                kind = "forward" if TOKEN_NAMES[token][1] == "F" else "backward"
                raise ValueError(f"no path of exactly {token % 3 + 1} {kind} step(s) leads there")
            if "x" in move.lower():
                if move.lower().count("x") > 1:
                    raise ValueError("one hop per action: play h6xf8, then f8xh10")
                start, end = self._frame_squares(move.lower(), "x", colour)
                for hop in range(NUM_HOPS):
                    if HOP_FROM[hop] == start and HOP_TO[hop] == end:
                        return HOP_BASE + hop
                raise ValueError("no single jump leads there")
            raise ValueError("expected a token move such as '3F:f4-i5', a hop such as 'h6xf8', or pass, remove, keep")
        except ValueError as exc:
            raise IllegalActionError(f"{self.name}: cannot read move {text!r}: {exc}") from None

    @staticmethod
    def _frame_squares(text: str, separator: str, colour: int) -> tuple[int, int]:
        parts = text.split(separator)
        if len(parts) != 2:
            raise ValueError(f"expected two squares joined by '{separator}'")
        squares = []
        for part in parts:
            row, col = parse_square(part, SIZE, SIZE)
            squares.append(int(in_frame(row * SIZE + col, colour)))
        return squares[0], squares[1]

    # ----------------------------------------------------------------- position text
    def cell_text(self, row: int, col: int, code: int) -> str:
        """Stones as ``B``/``W``; empty cells with the diagram markers of docs/crosse.md (board and setup)."""
        if code != EMPTY:
            return self.cell_letters[code]
        square = row * SIZE + col
        if IS_CORNER[square]:
            return "+"
        if IS_RING[square]:
            return "o"
        if square in CENTRE:
            return "#"
        return "." if USABLE[square] else "-"

    def _text_letter_codes(self) -> dict[str, int]:
        return {**super()._text_letter_codes(), "-": EMPTY, "o": EMPTY, "+": EMPTY, "#": EMPTY}

    def _extra_headers(self, state: State) -> list[tuple[str, str]]:
        meta = state.meta
        headers = []
        for colour in COLOUR_NAMES:
            tokens = int(meta[TOKENS + self.player_of_colour(colour)])
            if tokens != FULL_TOKENS:
                headers.append((f"tokens_{colour}", tokens_text(tokens)))
        if meta[JUMPING] >= 0:
            headers.append(("jumping", square_name(*divmod(int(meta[JUMPING]), SIZE))))
            headers.append(("cover_before", "yes" if meta[COVER_BEFORE] else "no"))
        if meta[REMOVAL_PENDING]:
            headers.append(("removal", "pending"))
        return headers

    def _finish_loaded_state(self, state: State, parsed: ParsedPosition) -> None:
        board, meta = state.board, state.meta
        self._check_markers(parsed)
        for (row, col), code in np.ndenumerate(board):
            if code != EMPTY and not USABLE[row * SIZE + col]:
                where = "in the centre" if row * SIZE + col in CENTRE else "on a light square outside the ring"
                raise PositionTextError(
                    f"{self.cell_letters[int(code)]} on {square_name(row, col)} is {where}: stones stand only on "
                    "the ring and the dark squares outside it"
                )
        for colour in COLOUR_NAMES:
            key = f"tokens_{colour}"
            if key in parsed.headers:
                meta[TOKENS + self.player_of_colour(colour)] = _parse_tokens(parsed, key)
        seat = self.current_player(state)
        winners = [s for s in (0, 1) if has_won(board, stone_of(int(seat_colour(meta[SEAT0_COLOUR], s))))]
        if winners:  # both only after a cover completed: the mover's opponent, who is to move (docs/crosse.md, rule 9)
            meta[st.STATUS] = st.STATUS_WIN_0 + (winners[0] if len(winners) == 1 else seat)
        elif passes_draw(meta) or (meta[st.PLY] >= meta[MOVE_CAP] and "removal" not in parsed.headers):
            meta[st.STATUS] = st.STATUS_DRAW  # (a pending removal answer comes before the cap's draw)
        turn_keys = [k for k in ("jumping", "cover_before", "removal") if k in parsed.headers]
        if meta[st.STATUS] != st.STATUS_PLAYING:
            if turn_keys:
                raise parsed.error(turn_keys[0], "the game is over in this position, so no turn is in progress")
            return
        if "removal" in parsed.headers:
            self._load_removal(state, parsed)
        elif "jumping" in parsed.headers:
            self._load_jump(state, parsed)
        elif "cover_before" in parsed.headers:
            raise parsed.error("cover_before", "'cover_before' belongs with 'jumping' (a jump sequence in progress)")
        else:
            start_turn(board, meta)

    @staticmethod
    def _check_markers(parsed: ParsedPosition) -> None:
        """Empty-cell markers other than ``.`` must match their cell: a mismatch means a shifted diagram."""
        kinds = {"-": "a light square outside the ring", "o": "a ring cell", "+": "a ring cell", "#": "the centre"}
        for row, letters in enumerate(parsed.cells):
            for col, letter in enumerate(letters):
                if letter not in kinds:
                    continue
                square = row * SIZE + col
                fits = {
                    "-": not USABLE[square] and square not in CENTRE,
                    "o": IS_RING[square],
                    "+": IS_RING[square],
                    "#": square in CENTRE,
                }[letter]
                if not fits:
                    raise PositionTextError(
                        f"cell {square_name(row, col)} is {letter!r}, which marks {kinds[letter]}; "
                        "check that the rank line is not shifted ('.' is an empty cell anywhere)"
                    )

    def _load_jump(self, state: State, parsed: ParsedPosition) -> None:
        board, meta = state.board, state.meta
        colour = self._colour_to_act(state)
        row, col = _header_square(parsed, "jumping")
        if board[row, col] != stone_of(colour):
            raise parsed.error("jumping", f"no {COLOUR_NAMES[colour]} stone (the side to move) stands there")
        left = most_captures_from(board, row * SIZE + col, stone_of(colour), stone_of(1 - colour))
        if left == 0:
            raise parsed.error("jumping", "that stone has no further hop, so its sequence is over")
        answer = parsed.headers.get("cover_before", "no").strip().lower()
        if answer not in ("yes", "no"):
            raise parsed.error("cover_before", f"expected yes or no, got {shorten(answer)}")
        meta[JUMPING], meta[JUMPS_LEFT], meta[COVER_BEFORE] = row * SIZE + col, left, answer == "yes"

    def _load_removal(self, state: State, parsed: ParsedPosition) -> None:
        board, meta = state.board, state.meta
        colour = self._colour_to_act(state)
        if parsed.headers["removal"].strip().lower() != "pending":
            raise parsed.error("removal", "the only value is 'pending'")
        if self.options["cover_removal"] != "optional":
            raise parsed.error("removal", "a removal decision exists only with cover_removal='optional'")
        if "jumping" in parsed.headers:
            raise parsed.error("removal", "a removal decision and a jump in progress exclude each other")
        if not holds_cover(board, stone_of(colour)) or not has_first_row_stones(board, colour):
            raise parsed.error(
                "removal", "the side to move must hold all four corners and have stones on its first row"
            )
        meta[REMOVAL_PENDING] = 1

    # ----------------------------------------------------------------- rendering
    def end_cause(self, state: State) -> str:
        """docs/crosse.md, rules 9-11: a winner has shed his stones, or kept only the four corners."""
        status = int(state.meta[st.STATUS])
        if status == st.STATUS_DRAW:
            return super().end_cause(state) or f"the move cap ({self.move_cap} plies)"
        colour = self.colours[0 if status == st.STATUS_WIN_0 else 1]
        if not (state.board == stone_of(COLOUR_NAMES.index(colour))).any():
            return f"{colour.capitalize()} has no stones left"
        return f"{colour.capitalize()}'s only stones are the four ring corners"
