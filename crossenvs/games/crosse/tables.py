"""Crosse's tables: sizes and codes, the meta slots, the board's geometry (ring, corners, centre, usable
squares), the token-move and hop tables and the action ids they give, the observation's constant planes
and the setup. Built once at import in plain Python and NumPy; the kernels (:mod:`.rules`) read them as
constants.
"""

from __future__ import annotations

import numpy as np

from crossenvs.kernels import state as st
from crossenvs.kernels.codec import DIRECTIONS

from ...core.geometry import parse_square

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
    table = np.array(
        rows, dtype=np.int16
    )  # int16: small enough for a GPU's constant memory (kernels/numba_internals.py)
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
#: (int8: the tables must fit a GPU kernel's 64 KB of constant memory, see kernels/numba_internals.py)
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


SETUP = {
    BLACK_STONE: "a1 c1 e1 g1 i1 b2 d2 f2 h2 j2 a3 c3 e3 g3 i3 f4",
    WHITE_STONE: "b10 d10 f10 h10 j10 a9 c9 e9 g9 i9 b8 d8 f8 h8 j8 e7",
}
