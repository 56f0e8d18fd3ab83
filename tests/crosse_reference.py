"""Independent plain-Python reference model of Crosse, written from its rules (docs/crosse.md) only.

It exists so that tests can check the package's fast engine move by move. It shares no
code with ``crossenvs`` and favours plainness over speed. "Rule N" below is rule N of docs/crosse.md.

Positions are dicts (see ``parse``); actions are strings in the notation of docs/crosse.md:
``3F:f4-i5`` (token move), ``h6xf8`` (one hop of a jump), ``pass``, ``remove`` / ``keep``.

Options (docs/crosse.md, options): ``stuck_tokens`` in refresh|keep|pass_refresh,
``cover_removal`` in auto|optional, ``move_cap`` (600).
"""

FILES = "abcdefghij"
# The ring, anticlockwise.
RING = ["d4", "e4", "f4", "g4", "g5", "g6", "g7", "f7", "e7", "d7", "d6", "d5"]
CORNERS = {"d4", "g4", "d7", "g7"}
CENTRE = {"e5", "f5", "e6", "f6"}
# The corner-cutting diagonal ring steps, each written in its forward direction.
CORNER_CUTS = [("d5", "e4"), ("f4", "g5"), ("g6", "f7"), ("e7", "d6")]
ALL_TOKENS = frozenset(f"{n}{x}" for n in (1, 2, 3) for x in "FB")
COLOURS = ("black", "white")
LETTER = {"black": "B", "white": "W"}
FIRST_ROW = {"black": 1, "white": 10}
DEFAULTS = {"stuck_tokens": "refresh", "cover_removal": "auto", "move_cap": 600}


# --------------------------------------------------------------------------- geometry


def coords(sq):
    """Square name -> (file 0..9, rank 1..10)."""
    return FILES.index(sq[0]), int(sq[1:])


def name(f, r):
    """(file, rank) -> square name, or None when off the board."""
    if 0 <= f < 10 and 1 <= r <= 10:
        return f"{FILES[f]}{r}"
    return None


def is_dark(sq):
    """Board and setup: dark when file number plus rank number is even (a1 = 1+1)."""
    f, r = coords(sq)
    return (f + 1 + r) % 2 == 0


def usable(sq):
    """Board and setup: the 12 ring cells plus the dark cells outside the central 4x4."""
    if sq is None or sq in CENTRE:
        return False
    if sq in RING:
        return True
    f, r = coords(sq)
    in_centre_block = 3 <= f <= 6 and 4 <= r <= 7
    return is_dark(sq) and not in_centre_block


def opponent(colour):
    return "white" if colour == "black" else "black"


def ring_step_dir(x, y):
    """Rule 3 ring step: 'F' anticlockwise, 'B' clockwise, None if not a ring step."""
    i, j = RING.index(x), RING.index(y)
    if (i + 1) % 12 == j or (x, y) in CORNER_CUTS:
        return "F"
    if (j + 1) % 12 == i or (y, x) in CORNER_CUTS:
        return "B"
    return None


def step_dirs(x, y, colour):
    """Rule 3: the token letters ('F', 'B') one step x->y may count as (empty = illegal)."""
    if not usable(y):
        return set()
    (fx, rx), (fy, ry) = coords(x), coords(y)
    df, dr = fy - fx, ry - rx
    if max(abs(df), abs(dr)) != 1:
        return set()
    if x in RING and y in RING:
        d = ring_step_dir(x, y)
        return {d} if d else set()
    up = "F" if colour == "black" else "B"
    down = "B" if colour == "black" else "F"
    if df != 0 and dr != 0:  # diagonal step with an endpoint outside the ring
        return {up if dr > 0 else down}
    if (x in RING) == (y in RING):  # orthogonal step between two outside cells
        return set()
    if dr == 0:  # horizontal entry/exit: sideways, counts as either
        return {"F", "B"}
    return {up if dr > 0 else down}  # vertical entry/exit


def neighbours(sq):
    f, r = coords(sq)
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if df or dr:
                n = name(f + df, r + dr)
                if n is not None:
                    yield n


# --------------------------------------------------------------------------- moves


def move_ends(board, start, token, colour):
    """Rule 4: end cells of paths of exactly n steps of type X, no cell twice, end empty."""
    n, kind = int(token[0]), token[1]
    ends = set()

    def walk(sq, visited, left):
        if left == 0:
            if sq not in board:
                ends.add(sq)
            return
        for nxt in neighbours(sq):
            if nxt not in visited and kind in step_dirs(sq, nxt, colour):
                walk(nxt, visited | {nxt}, left - 1)

    walk(start, {start}, n)
    return ends


def token_moves(pos, colour, tokens):
    """Rule 4: every (token, from, to) move, written '3F:f4-i5'."""
    board = pos["board"]
    out = set()
    for sq, c in board.items():
        if c != LETTER[colour]:
            continue
        for tok in tokens:
            for end in move_ends(board, sq, tok, colour):
                out.add(f"{tok}:{sq}-{end}")
    return out


# --------------------------------------------------------------------------- jumps


def single_hops(board, sq):
    """Rule 6: (over, land) for one jump by the stone on sq."""
    me = board[sq]
    f, r = coords(sq)
    hops = []
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if not (df or dr):
                continue
            over, land = name(f + df, r + dr), name(f + 2 * df, r + 2 * dr)
            if over is None or land is None or board.get(over) in (None, me):
                continue
            if not usable(land) or land in board:
                continue
            diagonal = df and dr  # any of the four diagonals, forward or backward
            along_ring_side = over in RING and land in RING  # the only orthogonal jumps
            if diagonal or along_ring_side:
                hops.append((over, land))
    return hops


def do_hop(board, sq, over, land):
    """Rule 6: the jumped stone is removed at once."""
    b = dict(board)
    b[land] = b.pop(sq)
    del b[over]
    return b


def max_more(board, sq):
    """Rule 6: the most stones the stone on sq can still capture by continuing to jump."""
    best = 0
    for over, land in single_hops(board, sq):
        best = max(best, 1 + max_more(do_hop(board, sq, over, land), land))
    return best


def best_hops(board, stones):
    """Rule 6: hops (from stones) lying on a sequence with the maximum total capture."""
    scored = []
    for sq in stones:
        for over, land in single_hops(board, sq):
            scored.append((1 + max_more(do_hop(board, sq, over, land), land), f"{sq}x{land}"))
    if not scored:
        return set()
    top = max(s for s, _ in scored)
    return {m for s, m in scored if s == top}


# --------------------------------------------------------------------------- position text


def parse(text):
    """Read the package's position text (docs/crosse.md, board and setup) into a plain dict."""
    pos = {
        "board": {},
        "to_move": None,
        "ply": 0,
        "passes": 0,
        "tokens": {"black": set(ALL_TOKENS), "white": set(ALL_TOKENS)},
        "jumping": None,
        "cover_before": False,
        "removal": False,
        "result": None,
    }
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if ":" in line:
            key, value = (s.strip() for s in line.split(":", 1))
            if key == "to_move":
                pos["to_move"] = value
            elif key in ("ply", "passes"):
                pos[key] = int(value)
            elif key.startswith("tokens_"):
                pos["tokens"][key[len("tokens_") :]] = set(value.split())
            elif key == "jumping":
                pos["jumping"] = value
            elif key == "cover_before":
                pos["cover_before"] = value == "yes"
            elif key == "removal":
                pos["removal"] = value == "pending"
            continue
        parts = line.split()
        if parts[0].isdigit():
            rank = int(parts[0])
            for f, cell in enumerate(parts[1:]):
                if cell in ("B", "W"):
                    pos["board"][name(f, rank)] = cell
    return pos


# --------------------------------------------------------------------------- turn logic


def opts(options):
    return {**DEFAULTS, **(options or {})}


def stones(board, colour):
    return {sq for sq, c in board.items() if c == LETTER[colour]}


def holds_cover(board, colour):
    """Rule 7: the player holds all four corners d4 g4 d7 g7."""
    return all(board.get(c) == LETTER[colour] for c in CORNERS)


def has_won(board, colour):
    """Rule 9: no stones, or exactly four stones on the four corners."""
    mine = stones(board, colour)
    return not mine or mine == CORNERS


def start_turn(pos, options):
    """Rule 5, stuck_tokens=refresh: refresh the set when nothing is playable with it."""
    if opts(options)["stuck_tokens"] != "refresh" or pos["jumping"] or pos["removal"]:
        return pos
    me = pos["to_move"]
    if best_hops(pos["board"], stones(pos["board"], me)):
        return pos
    if not token_moves(pos, me, pos["tokens"][me]):
        pos["tokens"][me] = set(ALL_TOKENS)
    return pos


def legal(pos, options=None):
    """The legal actions in notation; 'pass' only when nothing else is legal (rule 10)."""
    if pos.get("result"):
        return set()
    if pos["removal"]:
        return {"remove", "keep"}
    board, me = pos["board"], pos["to_move"]
    if pos["jumping"]:
        return best_hops(board, [pos["jumping"]])
    pos = start_turn(copy(pos), options)
    jumps = best_hops(board, stones(board, me))
    if jumps:
        return jumps  # rule 6: jumping is compulsory
    return token_moves(pos, me, pos["tokens"][me]) or {"pass"}


def copy(pos):
    out = dict(pos)
    out["board"] = dict(pos["board"])
    out["tokens"] = {c: set(t) for c, t in pos["tokens"].items()}
    return out


def end_of_action(pos, mover, extra, options):
    """Rules 9 and 11: win check (opponent first), move cap, then who moves next."""
    board = pos["board"]
    for colour in (opponent(mover), mover):
        if has_won(board, colour):
            pos["result"] = colour
            # No rule covers this; it is the package's convention after a win.
            pos["to_move"] = opponent(mover)
            return pos
    pos["to_move"] = mover if extra else opponent(mover)
    if pos["ply"] >= opts(options)["move_cap"]:
        # Rule 11; to_move stays the next player (the package's convention).
        pos["result"] = "draw"
        return pos
    return start_turn(pos, options)


def remove_first_row(board, colour):
    """Rule 7: remove all the player's stones on his first row."""
    for sq in [s for s in stones(board, colour) if coords(s)[1] == FIRST_ROW[colour]]:
        del board[sq]


def complete_action(pos, mover, last_sq, cover_before, options):
    """Rules 7-8: cover trigger (or the remove/keep question), upkeep, extra turn."""
    board = pos["board"]
    pos["passes"] = 0
    pos["ply"] += 1
    extra = False
    if holds_cover(board, mover) and not cover_before:
        on_row = [s for s in stones(board, mover) if coords(s)[1] == FIRST_ROW[mover]]
        if on_row and opts(options)["cover_removal"] == "optional":
            if has_won(board, opponent(mover)):  # rule 9: captures count before removals,
                pos["result"] = opponent(mover)  # so no answer can change this result
                pos["to_move"] = opponent(mover)
                return pos
            # He answers remove/keep first; the cap and win tests wait for the answer.
            pos["removal"] = True
            return pos
        remove_first_row(board, mover)
        extra = True
    elif holds_cover(board, mover) and cover_before and coords(last_sq)[1] == FIRST_ROW[mover]:
        del board[last_sq]  # rule 8 upkeep, always automatic
        extra = True
    return end_of_action(pos, mover, extra, options)


def play(pos, move, options=None):
    """The position after one action (a hop mid-sequence and remove/keep are not plies)."""
    o = opts(options)
    pos = copy(pos)
    pos.setdefault("result", None)
    me = pos["to_move"]
    board = pos["board"]
    if pos["removal"]:  # the answer to the cover's yes/no question
        assert move in ("remove", "keep"), move
        if move == "remove":
            remove_first_row(board, me)
        pos["removal"] = False
        return end_of_action(pos, me, True, options)
    if move == "pass":  # rule 10 and the rule 5 options
        if o["stuck_tokens"] == "pass_refresh":
            pos["tokens"][me] = set(ALL_TOKENS)
        pos["passes"] += 1
        pos["ply"] += 1
        if pos["passes"] >= 2:
            pos["result"] = "draw"
            pos["to_move"] = opponent(me)
            return pos
        return end_of_action(pos, me, False, options)
    if "x" in move:  # one hop of a jump sequence
        src, land = move.split("x")
        cover_before = pos["cover_before"] if pos["jumping"] else holds_cover(board, me)
        (over,) = [ov for ov, ld in single_hops(board, src) if ld == land]
        pos["board"] = board = do_hop(board, src, over, land)
        if max_more(board, land) > 0:  # the same stone must keep jumping
            pos["jumping"], pos["cover_before"] = land, cover_before
            return pos
        pos["jumping"], pos["cover_before"] = None, False
        return complete_action(pos, me, land, cover_before, options)
    tok, path = move.split(":")  # token move
    src, dst = path.split("-")
    cover_before = holds_cover(board, me)
    board[dst] = board.pop(src)
    pos["tokens"][me].discard(tok)
    if not pos["tokens"][me]:  # after the sixth move-turn, a fresh set at once
        pos["tokens"][me] = set(ALL_TOKENS)
    return complete_action(pos, me, dst, cover_before, options)
