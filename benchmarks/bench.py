"""Random-legal-play speed of crossenvs next to OpenSpiel, PettingZoo classic and pgx, ratios from one run.

Every row plays uniformly random legal moves and counts steps (one decision each). A step does
the same work everywhere: read the legal actions (or mask), pick one, apply it, and build the
observation of the player to decide next. Single-game loops pick with the same
``random.Random(0).randrange``; batched rows (our vector env, pgx on CPU JAX) play a move in each
of B games at once, with auto-reset, and count B steps for it. pgx is driven as its users drive it
(``crossenvs.integrations.pgx_peer``, the same loop as ``benchmarks/gpu.py``'s): jitted, vmapped,
random legal actions and auto-reset inside the jit, ``--chain`` steps chained with ``lax.scan``
per call (default 16); the rows name the chain.

The headline pairs are on the same game (``SAME_GAMES``): our Hex 11x11 against OpenSpiel's
``hex(board_size=11)`` (single game) and pgx's ``hex`` (11x11 with the swap, so ours with
``swap=True``; vector env at B = 1, 64, 1,024 and 16,384, ``--pair-batch-sizes``), our Connect
Four against OpenSpiel's ``connect_four``, PettingZoo's ``connect_four_v3`` (AEC env) and pgx's
``connect_four``. OpenSpiel's bare loop (legal actions and ``apply_action``, no observation) is
printed beside them as the ceiling of its C++ engine seen from Python.

The cross-game pairs stay as context, on equal boards: Crisscross NxN against OpenSpiel ``hex(board_size=N)``; Crossings,
Neo-Crossings and Charing Cross (8x8) against ``breakthrough`` (8x8); Crosse (10x10) against
``checkers(rows=10,columns=10)``. OpenSpiel is driven as an RL env on pyspiel drives it: legal
actions, an int8 mask built from them, ``apply_action``, and ``make_observation(game).set_from``.

Rows run in ``--rounds`` interleaved rounds of ``--seconds`` each; the median of each row is its
rate, and every ratio comes from those medians. ``--busy`` then measures the rows that matter
again, idle and under load (one spinning process beside them) in alternating rounds, and
reports loaded / idle from those.

    python benchmarks/bench.py --busy                    # every row, idle and under load (make bench)
    python benchmarks/bench.py                           # idle rows only
    python benchmarks/bench.py --seconds 1 --rounds 1    # quicker
    python benchmarks/bench.py --busy --json out.json    # and write the figures
    python benchmarks/bench.py --games crossings --batch-sizes 1024 --no-pgx
    python benchmarks/bench.py --games hex connect_four   # the same-game pairs only

Rows of peers that are not installed are reported as skipped (``pip install -e ".[bench]"``).
Numba and JAX compilation are excluded: each loop runs once briefly before the rounds.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import crossenvs
from crossenvs.integrations.pgx_peer import DEFAULT_CHAIN, SAME_GAME, pgx_random_play
from crossenvs.selfcheck import timing

#: ``loop(deadline)`` plays until ``time.perf_counter()`` passes the deadline and returns its steps.
Loop = Callable[[float], int]

HERE = Path(__file__).resolve().parent
PETTINGZOO = "PettingZoo connect_four_v3 AEC env"
BREAKTHROUGH = ("breakthrough 8x8", "breakthrough")
#: OpenSpiel peer on the same board: (our label, its game string); Crisscross NxN meets hex NxN (see peer)
PEERS = {"crossings": BREAKTHROUGH, "neo_crossings": BREAKTHROUGH, "charing_cross": BREAKTHROUGH}
PEERS["crosse"] = ("checkers 10x10", "checkers(rows=10,columns=10)")
PAIR_TARGET = 1.5  # single-game loop / OpenSpiel loop
AEC_TARGET = 4.0  # AEC env / PettingZoo connect_four_v3
VECTOR_TARGET = 2.0  # vector env B=1024 / pgx othello B=1024
VECTOR_TARGET_GAMES = ("neo_crossings", "crossings", "crosse")
LOAD_TARGET = 0.45  # loaded / idle, one busy process beside the measurement
#: targets of the same-game pairs (issue 57): single game / OpenSpiel, AEC / PettingZoo, vector / pgx at 1,024
SAME_PAIR_TARGET, SAME_AEC_TARGET, SAME_VECTOR_TARGET, SAME_VECTOR_GAMES = 2.0, 4.0, 2.0, 1024


@dataclass(frozen=True)
class SameGame:
    """A reference game and the peers that play it: the pairs whose ratios compare the same game."""

    label: str  # e.g. "hex 11x11", in every row name
    options: dict  # ours against OpenSpiel (and PettingZoo)
    openspiel: str  # OpenSpiel's game string
    pgx: str  # pgx's env id
    pgx_options: dict  # ours against pgx: pgx's rules (its hex always offers the swap)
    pettingzoo: bool  # PettingZoo classic has it (connect_four_v3)


SAME_GAMES = {
    "hex": SameGame("hex 11x11", {"size": 11}, "hex(board_size=11)", "hex", SAME_GAME["hex"][1], False),
    "connect_four": SameGame(
        "connect_four 7x6", {}, "connect_four", "connect_four", SAME_GAME["connect_four"][1], True
    ),
}


def legal_ids(mask: np.ndarray) -> np.ndarray:
    """Indices of the ones of an int8 action mask (every AEC row reads its mask this way)."""
    return mask.view(np.bool_).nonzero()[0]


# ----------------------------------------------------------------------------- crossenvs
def apply_observe_loop(game: crossenvs.Game) -> Loop:
    """Our single-game loop through the public API: ``legal_actions``, ``apply``, ``observe``."""
    randrange = random.Random(0).randrange

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            state = game.initial_state()
            while True:
                legal = game.legal_actions(state)
                state = game.apply(state, int(legal[randrange(len(legal))]))
                steps += 1
                if game.is_terminal(state):
                    break
                game.observe(state, game.current_player(state))
        return steps

    return loop


def fused_loop(game: crossenvs.Game) -> Loop:
    """Our single-game loop through the fused in-place path, ``game.stepper()``.

    One numba call per step applies the move and writes the next legal ids, mask and observation
    (of the player to decide) into the stepper's buffers.
    """
    stepper = game.stepper()
    ids, step = stepper.ids, stepper.step  # the legal ids are ids[:num_legal]
    randrange = random.Random(0).randrange

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            stepper.reset()
            while stepper.num_legal:
                step(int(ids[randrange(stepper.num_legal)]))
                steps += 1
        return steps

    return loop


#: the single-game APIs, one row each: switching the loop to a new API is one function here
FAST_PATH = "fused"  # the single-game path the OpenSpiel target is for: game.stepper()
ENGINE_APIS: dict[str, Callable[[crossenvs.Game], Loop]] = {
    "apply/observe": apply_observe_loop,
    "fused": fused_loop,
}


def aec_loop(make_env: Callable[[], object]) -> Loop:
    """A PettingZoo AEC env (ours or a peer's) driven the standard way: agent_iter / last / step."""
    env = make_env()
    randrange = random.Random(0).randrange

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            env.reset()
            for _agent in env.agent_iter():
                observation, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = legal_ids(observation["action_mask"])
                env.step(int(legal[randrange(len(legal))]))
                steps += 1
        return steps

    return loop


def vector_loop(game_name: str, batch: int, **options) -> Loop:
    """The batched two-player env: B games per call, random legal actions drawn in numba."""
    from crossenvs.envs.vector import CrossVectorEnv
    from crossenvs.kernels import random_pick as kernels

    env = CrossVectorEnv(game_name, num_envs=batch, **options)
    rng = np.random.default_rng(0)
    actions = np.empty(batch, dtype=np.int64)
    _, info = env.reset()

    def loop(deadline: float) -> int:
        nonlocal info
        steps = 0
        while time.perf_counter() < deadline:
            kernels.random_legal_actions(info["action_mask"], rng.random(batch), actions)
            info = env.step(actions)[4]
            steps += batch
        return steps

    return loop


# ----------------------------------------------------------------------------- peers
def openspiel_loop(game_string: str) -> Loop:
    """OpenSpiel as an RL env on pyspiel drives it: legal ids, int8 mask, apply, observation tensor."""
    import pyspiel
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(game_string)
    observation = make_observation(game)  # set_from writes into observation.tensor (numpy)
    mask = np.zeros(game.num_distinct_actions(), dtype=np.int8)
    randrange = random.Random(0).randrange

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while True:
                legal = state.legal_actions()
                mask[:] = 0
                mask[legal] = 1
                state.apply_action(legal[randrange(len(legal))])
                steps += 1
                if state.is_terminal():
                    break
                observation.set_from(state, state.current_player())
        return steps

    return loop


def openspiel_bare_loop(game_string: str) -> Loop:
    """OpenSpiel's engine with nothing around it: legal ids and ``apply_action``, no mask, no observation.

    Not how an RL env uses it (it needs the observation): the ceiling its C++ engine reaches from Python.
    """
    import pyspiel

    game = pyspiel.load_game(game_string)
    randrange = random.Random(0).randrange

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[randrange(len(legal))])
                steps += 1
        return steps

    return loop


def pettingzoo_connect_four() -> object:
    """PettingZoo classic ``connect_four_v3.env()`` (its import warnings silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import connect_four_v3
    return connect_four_v3.env()


# ----------------------------------------------------------------------------- rows and ratios
@dataclass
class Row:
    """One timed loop: ``build()`` makes it (ImportError or AttributeError: skipped)."""

    name: str
    build: Callable[[], Loop]
    under_load: bool = False  # re-measured by --busy


@dataclass
class Ratio:
    """``ours / theirs`` of two rows' medians, with its target (None: reported, no target)."""

    name: str
    ours: str
    theirs: str
    target: float | None = None


def game_label(game: str, size: int | None) -> str:
    return f"{game} {size}x{size}" if size else game


def engine_name(game: str, size: int | None, api: str) -> str:
    return f"crossenvs {game_label(game, size)} engine ({api})"


def aec_name(game: str, size: int | None) -> str:
    return f"crossenvs {game_label(game, size)} AEC env"


def vector_name(game: str, size: int | None, batch: int) -> str:
    return f"crossenvs {game_label(game, size)} vector B={batch}"


def chained(chain: int) -> str:
    return f"{chain} step{'s' if chain > 1 else ''} a call"


def pgx_name(env_id: str, batch: int, chain: int) -> str:
    return f"pgx {env_id} B={batch} (CPU JAX, {chained(chain)})"


def peer(game: str, size: int | None) -> tuple[str, str]:
    """The OpenSpiel game on the same board as ``game``: (our label, its game string)."""
    if game == "crisscross":
        return f"hex {size}x{size}", f"hex(board_size={size})"
    return PEERS[game]


def board_sizes(game: str, sizes: list[int]) -> list[int | None]:
    """Crisscross is timed at each of ``sizes``; the other games have one board."""
    return list(sizes) if "size" in crossenvs.game_class(game).OPTIONS else [None]


def size_options(size: int | None) -> dict[str, int]:
    return {"size": size} if size else {}


def engine_row(game: str, size: int | None, api: str) -> Row:
    """The single-game loop of ``api`` (re-measured under load)."""
    build = ENGINE_APIS[api]
    make = lambda: build(crossenvs.make_game(game, **size_options(size)))  # noqa: E731
    return Row(engine_name(game, size, api), make, under_load=True)


def aec_row(game: str, size: int | None) -> Row:
    env = getattr(crossenvs, f"{game}_v0").env
    return Row(aec_name(game, size), lambda: aec_loop(lambda: env(**size_options(size))))


def vector_row(game: str, size: int | None, batch: int, under_load: bool) -> Row:
    return Row(vector_name(game, size, batch), lambda: vector_loop(game, batch, **size_options(size)), under_load)


def our_rows(games: list[str], sizes: list[int], batches: list[int]) -> list[Row]:
    """Engine rows (every API, every size), then per game its AEC env and vector rows (first size)."""
    rows = [engine_row(g, s, api) for g in games for s in board_sizes(g, sizes) for api in ENGINE_APIS]
    for game in games:
        size = board_sizes(game, sizes)[0]
        rows.append(aec_row(game, size))
        rows += [vector_row(game, size, batch, batch == max(batches)) for batch in batches]
    return rows


def peer_rows(games: list[str], sizes: list[int], batches: list[int], chain: int | None) -> list[Row]:
    """The OpenSpiel peers the games need, PettingZoo connect_four_v3, and pgx (othello, connect_four)
    with ``chain`` steps per jitted call (None: no pgx rows)."""
    wanted = dict.fromkeys(peer(g, s) for g in games for s in board_sizes(g, sizes))
    rows = [Row(f"OpenSpiel {label}", lambda s=string: openspiel_loop(s)) for label, string in wanted]
    rows.append(Row(PETTINGZOO, lambda: aec_loop(pettingzoo_connect_four)))
    top = max(batches, default=None)
    for env_id in ("othello", "connect_four") if chain else ():
        for batch in batches:
            under_load = env_id == "othello" and batch == top
            build = lambda e=env_id, b=batch: pgx_random_play(e, b, chain)  # noqa: E731
            rows.append(Row(pgx_name(env_id, batch, chain), build, under_load))
    return rows


def ratio_specs(games: list[str], sizes: list[int], batches: list[int], chain: int) -> list[Ratio]:
    """Every ratio with its target: pairs per API, AEC per game, vector at the largest B (pgx: ``chain``
    steps a call)."""
    specs = []
    for game in games:
        for size in board_sizes(game, sizes):
            label = peer(game, size)[0]
            for api in ENGINE_APIS:  # the target is the fast path's; the other API is shown for comparison
                name = f"{game_label(game, size)} engine ({api}) / OpenSpiel {label}"
                target = PAIR_TARGET if api == FAST_PATH else None
                specs.append(Ratio(name, engine_name(game, size, api), f"OpenSpiel {label}", target))
    for game in games:
        size = board_sizes(game, sizes)[0]
        name = f"{game_label(game, size)} AEC env / PettingZoo connect_four_v3"
        specs.append(Ratio(name, aec_name(game, size), PETTINGZOO, AEC_TARGET))
    top = max(batches, default=None)
    for game in games if top else ():
        size = board_sizes(game, sizes)[0]
        target = VECTOR_TARGET if top == 1024 and game in VECTOR_TARGET_GAMES else None
        name = f"{game_label(game, size)} vector B={top} / pgx othello B={top} ({chained(chain)})"
        specs.append(Ratio(name, vector_name(game, size, top), pgx_name("othello", top, chain), target))
    return specs


def same_game_rows(games: list[str], batches: list[int], chain: int | None) -> list[Row]:
    """Per reference game: our engine (every API), the AEC env where PettingZoo has the game, the vector
    env at each B; OpenSpiel (as an RL env drives it, and bare), PettingZoo, pgx at each B."""
    rows = []
    for game in games:
        pair = SAME_GAMES[game]
        for api, build in ENGINE_APIS.items():
            make = lambda b=build, g=game, o=pair.options: b(crossenvs.make_game(g, **o))  # noqa: E731
            rows.append(Row(f"crossenvs {pair.label} engine ({api})", make))
        rows.append(Row(f"OpenSpiel {pair.label}", lambda s=pair.openspiel: openspiel_loop(s)))
        rows.append(
            Row(f"OpenSpiel {pair.label} bare (no observation)", lambda s=pair.openspiel: openspiel_bare_loop(s))
        )
        if pair.pettingzoo:
            env = getattr(crossenvs, f"{game}_v0").env
            rows.append(Row(f"crossenvs {pair.label} AEC env", lambda e=env, o=pair.options: aec_loop(lambda: e(**o))))
            rows.append(Row(PETTINGZOO, lambda: aec_loop(pettingzoo_connect_four)))
        for batch in batches:
            make = lambda g=game, b=batch, o=pair.pgx_options: vector_loop(g, b, **o)  # noqa: E731
            rows.append(Row(same_vector_name(pair, batch), make))
            if chain:
                build = lambda e=pair.pgx, b=batch: pgx_random_play(e, b, chain)  # noqa: E731
                rows.append(Row(pgx_name(pair.pgx, batch, chain), build))
    return rows


def same_vector_name(pair: SameGame, batch: int) -> str:
    rules = " swap" if pair.pgx_options.get("swap") else ""
    return f"crossenvs {pair.label}{rules} vector B={batch}"


def same_game_specs(games: list[str], batches: list[int], chain: int) -> list[Ratio]:
    """The same-game ratios with their targets, and ours over OpenSpiel's bare loop (no target: the ceiling)."""
    specs = []
    for game in games:
        pair = SAME_GAMES[game]
        theirs = f"OpenSpiel {pair.label}"
        for api in ENGINE_APIS:
            target = SAME_PAIR_TARGET if api == FAST_PATH else None
            specs.append(
                Ratio(
                    f"{pair.label} engine ({api}) / {theirs}", f"crossenvs {pair.label} engine ({api})", theirs, target
                )
            )
        bare = f"{theirs} bare (no observation)"
        ours = f"crossenvs {pair.label} engine ({FAST_PATH})"
        specs.append(Ratio(f"{pair.label} engine ({FAST_PATH}) / {bare}", ours, bare))
        if pair.pettingzoo:
            name = f"{pair.label} AEC env / PettingZoo connect_four_v3"
            specs.append(Ratio(name, f"crossenvs {pair.label} AEC env", PETTINGZOO, SAME_AEC_TARGET))
        for batch in batches:
            target = SAME_VECTOR_TARGET if batch == SAME_VECTOR_GAMES else None
            peer_row = pgx_name(pair.pgx, batch, chain)
            name = f"{same_vector_name(pair, batch).removeprefix('crossenvs ')} / {peer_row}"
            specs.append(Ratio(name, same_vector_name(pair, batch), peer_row, target))
    return specs


# ----------------------------------------------------------------------------- measuring
def build_loops(rows: list[Row], warm_seconds: float) -> dict[str, Loop | None]:
    """Build and warm every row (compilation excluded from timing); None for a skipped row."""
    loops: dict[str, Loop | None] = {}
    for row in rows:
        try:
            loop = row.build()
        except (ImportError, AttributeError, NotImplementedError) as exc:
            print(f"  {row.name:<58} skipped ({type(exc).__name__}: {exc})", flush=True)
            loops[row.name] = None
            continue
        timing.warm(loop, warm_seconds)
        loops[row.name] = loop
    return loops


def measure_rounds(loops: dict[str, Loop | None], seconds: float, rounds: int) -> dict[str, list[float]]:
    """Every row ``rounds`` times, the rows interleaved within each round (:mod:`crossenvs.selfcheck.timing`)."""
    names = [name for name, loop in loops.items() if loop]
    samples = timing.interleaved_rounds([loops[name] for name in names], rounds, seconds,
                                        lambda number: print(f"  round {number + 1}/{rounds}", flush=True))  # fmt: skip
    return dict(zip(names, samples))


def medians(samples: dict[str, list[float]]) -> dict[str, float]:
    return {name: timing.median(values) for name, values in samples.items()}


def evaluate(specs: list[Ratio], ours: dict[str, float], theirs: dict[str, float]) -> dict[str, dict]:
    """Each ratio's value (None if a row is missing), target and whether it is met."""
    table = {}
    for spec in specs:
        value = ours[spec.ours] / theirs[spec.theirs] if spec.ours in ours and theirs.get(spec.theirs) else None
        met = None if value is None or spec.target is None else value >= spec.target
        table[spec.name] = {"value": value, "target": spec.target, "met": met}
    return table


# ----------------------------------------------------------------------------- load
@contextlib.contextmanager
def busy_process() -> Iterator[subprocess.Popen]:
    """One process spinning a pure-Python loop beside the measurement, killed on any exit.

    SIGTERM to this process is turned into an exception for the duration, so the ``finally``
    runs then too (as it does on Ctrl-C).
    """

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)  # the interpreter starting is not yet the load
        yield spinner
    finally:
        spinner.kill()
        spinner.wait()
        signal.signal(signal.SIGTERM, previous)


def training_rate(steps: int) -> float:
    """PPO training steps/s of our self-play (``train_speed.ours_like_for_like``: warm-up, then timed).

    In a fresh process with the PPO trainer's thread setting (``NUMBA_NUM_THREADS=1``, see
    ``training/selfplay.py``), as a training run has it: this process's numba and JAX threads
    would otherwise compete with it.
    """
    code = f"import train_speed; print(train_speed.ours_like_for_like({int(steps)}))"
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code], cwd=HERE, env=env, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def alphazero_rate(seconds: float) -> float:
    """AlphaZero self-play positions/s (``crossenvs.az.speed.measure``, ``make train``'s settings) in a fresh process."""
    code = (
        "import crossenvs; from crossenvs.az.speed import measure; game = crossenvs.make_game('crisscross', size=6); "
        f"print(measure(game, 256, 32, 32, 3, 'cpu', {float(seconds)})['positions_per_second'])"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=HERE, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


TRAINING = "crossenvs PPO self-play training (Crisscross 6x6, 64 games)"
ALPHAZERO = "crossenvs AlphaZero self-play, positions/s (Crisscross 6x6, 256 games, 32 simulations)"


def measure_under_load(
    rows: list[Row], loops: dict[str, Loop | None], args: argparse.Namespace
) -> tuple[dict[str, float], dict[str, float], dict[str, dict]]:
    """Idle and loaded rates of the ``under_load`` rows (and training), and loaded / idle.

    Idle and loaded rounds alternate (the busy process starts and stops between them), so each
    ratio compares times minutes apart at most: on a shared machine the idle rate itself drifts.
    """
    chosen = {row.name: loops[row.name] for row in rows if row.under_load and loops.get(row.name)}
    idle: dict[str, list[float]] = {name: [] for name in chosen}
    loaded: dict[str, list[float]] = {name: [] for name in chosen}
    print("Idle and under load (one busy process), rounds alternating:", flush=True)
    for number in range(args.rounds):
        print(f"  round {number + 1}/{args.rounds}", flush=True)
        for name in chosen:
            idle[name].append(timing.rate(chosen[name], args.seconds))
        with busy_process():
            for name in chosen:
                loaded[name].append(timing.rate(chosen[name], args.seconds))
    idle_rates, loaded_rates = medians(idle), medians(loaded)
    if args.train_steps:
        for name, measure in (
            (TRAINING, lambda: training_rate(args.train_steps)),
            (ALPHAZERO, lambda: alphazero_rate(args.seconds * 3)),
        ):
            print(f"  {name}: idle, then loaded", flush=True)
            idle_rates[name] = measure()
            with busy_process():
                loaded_rates[name] = measure()
    specs = [
        Ratio(f"{name}: loaded / idle", name, name, LOAD_TARGET if name.startswith("crossenvs") else None)
        for name in loaded_rates
    ]
    table = evaluate(specs, loaded_rates, idle_rates)
    for name in loaded_rates:
        table[f"{name}: loaded / idle"]["idle"] = idle_rates[name]
    return idle_rates, loaded_rates, table


# ----------------------------------------------------------------------------- report
def print_rates(title: str, rates: dict[str, float], samples: dict[str, list[float]]) -> None:
    print(title)
    for name, value in rates.items():
        spread = samples.get(name, [])
        extra = f"  (rounds {min(spread):,.0f} .. {max(spread):,.0f})" if len(spread) > 1 else ""
        print(f"  {name:<58} {value:>12,.0f} steps/s{extra}")


def print_ratios(title: str, table: dict[str, dict]) -> None:
    print(title)
    for name, entry in table.items():
        value = "n/a" if entry["value"] is None else f"{entry['value']:.2f}x"
        target = "" if entry["target"] is None else f"target >= {entry['target']:g}"
        status = {True: "met", False: "NOT met", None: ""}[entry["met"]]
        print(f"  {name:<72} {value:>7}  {target:<13} {status}")


def print_verdict(tables: list[dict[str, dict]]) -> None:
    """One closing line: how many targets this run met, and which it missed."""
    judged = {name: entry["met"] for table in tables for name, entry in table.items() if entry["met"] is not None}
    missed = [name for name, met in judged.items() if not met]
    print(
        f"Targets met in this run: {len(judged) - len(missed)} of {len(judged)}"
        + "".join(f"\n  missed: {m}" for m in missed)
    )


def machine() -> str:
    """The machine in a few words: CPU model and cores (what a rate depends on)."""
    model = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        names = [line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")]
        model = names[0] if names else model
    return f"{model}, {os.cpu_count()} cores, {platform.system()}"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    games = crossenvs.list_games()
    parser.add_argument("--seconds", type=float, default=2.0, help="timed budget per row and round (default 2)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; rates are medians (default 5)")
    parser.add_argument("--games", nargs="+", choices=games, default=games, help="games to time (default: all)")
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[8, 11], help="Crisscross sizes, each against hex of that size"
    )
    parser.add_argument(
        "--batch-sizes", type=int, nargs="*", default=[1, 64, 1024], help="vector env and pgx batch sizes"
    )
    parser.add_argument(
        "--pair-batch-sizes",
        type=int,
        nargs="*",
        default=[1, 64, 1024, 16384],
        help="vector env and pgx batch sizes of the same-game pairs (Hex, Connect Four)",
    )
    parser.add_argument("--no-pgx", action="store_true", help="leave out the pgx rows (JAX compiles for a while)")
    parser.add_argument(
        "--chain",
        type=int,
        default=DEFAULT_CHAIN,
        help=f"pgx steps per jitted call (lax.scan; default {DEFAULT_CHAIN})",
    )
    parser.add_argument("--busy", action="store_true", help="also measure beside one busy process: loaded / idle")
    parser.add_argument(
        "--train-steps",
        type=int,
        default=8192,
        help="with --busy: PPO steps timed idle and loaded, and AlphaZero self-play likewise (0: skip both)",
    )
    parser.add_argument("--json", help="write rates, ratios and targets to this file")
    args = parser.parse_args(argv)
    if args.chain < 1:
        parser.error(f"argument --chain: a whole number above 0, not {args.chain}")
    return args


def main(argv: list[str] | None = None) -> dict:
    """Run the benchmark; returns what ``--json`` writes."""
    args = parse_args(argv)
    batches, pair_batches = sorted(set(args.batch_sizes)), sorted(set(args.pair_batch_sizes))
    chain = None if args.no_pgx else args.chain
    same = [game for game in args.games if game in SAME_GAMES]
    cross = [game for game in args.games if game not in SAME_GAMES]
    rows = same_game_rows(same, pair_batches, chain)
    if cross:
        rows += our_rows(cross, args.sizes, batches) + peer_rows(cross, args.sizes, batches, chain)
    rows = list({row.name: row for row in rows}.values())  # a peer two pairs share is one row
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, {machine()}: python {' '.join(sys.argv)}")
    print(f"Random legal play: {len(rows)} rows, {args.rounds} rounds x {args.seconds:g} s (medians)", flush=True)
    loops = build_loops(rows, min(0.5, args.seconds))
    samples = measure_rounds(loops, args.seconds, args.rounds)
    rates = medians(samples)
    print_rates("Steps per second (a batched call is B steps):", rates, samples)
    same_table = evaluate(same_game_specs(same, pair_batches, args.chain), rates, rates)
    if same:
        print_ratios("Same game, same machine (medians of this run):", same_table)
    table = evaluate(ratio_specs(cross, args.sizes, batches, args.chain), rates, rates)
    if cross:
        print_ratios("Ratios (medians of this run):", table)
    report = {"settings": vars(args), "machine": machine(), "rates": rates, "rounds": samples}
    report |= {"same_game_ratios": same_table, "ratios": table}
    if args.busy:
        idle, loaded, load_table = measure_under_load(rows, loops, args)
        print_rates("Steps per second, idle rounds of the load comparison:", idle, {})
        print_rates("Steps per second under load:", loaded, {})
        print_ratios("Loaded / idle:", load_table)
        report |= {"load_idle_rates": idle, "loaded_rates": loaded, "load_ratios": load_table}
    print_verdict([same_table, table, report.get("load_ratios", {})])
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
