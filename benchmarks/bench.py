"""Random-legal-play speed of crossenvs next to PettingZoo classic, OpenSpiel and pgx, in one run.

Each row plays uniformly random legal moves for a fixed wall-clock budget and counts steps
(one decision each). Every loop does the same work per step: read the legal mask, pick an
action, apply it, and build the observation tensor of the next player to decide. Batched rows
(our vector env, pgx on CPU JAX) step B games per call with auto-reset and count B steps a call.

    python benchmarks/bench.py                 # default budget, all rows
    python benchmarks/bench.py --seconds 1     # quicker
    python benchmarks/bench.py --json out.json # also write the figures
    python benchmarks/bench.py --games crossings --batch-sizes 1024 --no-pgx

Rows of peers that are not installed are reported as skipped (`pip install -e ".[bench]"`).
Numba and JAX compilation are excluded: each loop runs once briefly before it is timed.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections.abc import Callable

import numpy as np

import crossenvs


def legal_ids(mask: np.ndarray) -> np.ndarray:
    """Indices of the ones of an int8 action mask, as every AEC row reads them.

    The same code for every env. It avoids ``np.flatnonzero``, which on int8 masks of thousands
    of actions costs more than a whole Crossings step.
    """
    return mask.view(np.bool_).nonzero()[0]


def timed(loop: Callable[[float], int], seconds: float) -> float:
    """Steps per second of ``loop(deadline)``, which plays until the deadline and returns steps."""
    loop(time.perf_counter() + min(0.2, seconds))  # warm-up: JIT compile, caches
    start = time.perf_counter()
    steps = loop(start + seconds)
    return steps / (time.perf_counter() - start)


# ----------------------------------------------------------------------------- crossenvs
def engine_loop(game_name: str, **options) -> Callable[[float], int]:
    """The raw engine: legal_mask, pick, apply, observe."""
    game = crossenvs.make_game(game_name, **options)
    rng = np.random.default_rng(0)

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            state = game.initial_state()
            while not game.is_terminal(state):
                legal = game.legal_actions(state)
                state = game.apply(state, int(legal[rng.integers(legal.size)]))
                game.observe(state, game.current_player(state))
                steps += 1
        return steps

    return loop


def aec_loop(make_env: Callable[[], object]) -> Callable[[float], int]:
    """A PettingZoo AEC env (ours or a peer's) driven the standard way: agent_iter / last / step."""
    env = make_env()
    rng = np.random.default_rng(0)

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
                env.step(int(legal[rng.integers(legal.size)]))
                steps += 1
        return steps

    return loop


def vector_loop(game_name: str, batch: int, **options) -> Callable[[float], int]:
    """The batched two-player env: B games per call, random legal actions drawn in numba."""
    from crossenvs.envs import batch_kernels
    from crossenvs.envs.vector import CrossVectorEnv

    env = CrossVectorEnv(game_name, num_envs=batch, **options)
    rng = np.random.default_rng(0)
    actions = np.empty(batch, dtype=np.int64)
    _, info = env.reset()

    def loop(deadline: float) -> int:
        nonlocal info
        steps = 0
        while time.perf_counter() < deadline:
            batch_kernels.random_legal_actions(info["action_mask"], rng.random(batch), actions)
            info = env.step(actions)[4]
            steps += batch
        return steps

    return loop


# ----------------------------------------------------------------------------- peers
def pgx_loop(env_id: str, batch: int) -> Callable[[float], int]:
    """pgx on CPU JAX: B games per jitted step (random legal actions, auto-reset), compile excluded."""
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make(env_id)
    init = jax.vmap(env.init)

    @jax.jit
    def step(state, key):
        act_key, reset_key = jax.random.split(key)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        state = jax.vmap(env.step)(state, jax.random.categorical(act_key, logits, axis=-1))
        fresh = init(jax.random.split(reset_key, batch))
        done = state.terminated | state.truncated
        return jax.tree_util.tree_map(
            lambda new, old: jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old), fresh, state
        )

    key = jax.random.PRNGKey(0)
    state = jax.jit(init)(jax.random.split(key, batch))

    def loop(deadline: float) -> int:
        nonlocal state, key
        steps = 0
        while time.perf_counter() < deadline:
            key, sub = jax.random.split(key)
            state = step(state, sub)
            steps += batch
        jax.block_until_ready(state.observation)
        return steps

    return loop


def openspiel_loop(game_string: str) -> Callable[[float], int]:
    import pyspiel

    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(0)

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[rng.integers(len(legal))])
                if not state.is_terminal():
                    np.asarray(state.observation_tensor(state.current_player()), dtype=np.float32)
                steps += 1
        return steps

    return loop


def pettingzoo_connect_four() -> Callable[[], object]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import connect_four_v3
    return connect_four_v3.env


# ----------------------------------------------------------------------------- report
# The rows follow the registry: every registered game gets engine, AEC and vector rows. Games with
# a near peer are also held against its OpenSpiel Python loop (connection game -> hex, race games ->
# breakthrough, jumping game -> checkers) with the target of their AEC env over PettingZoo
# connect_four_v3 (set per game by its issue); another game's rows print without those ratios.
PEER_OF = {
    "crisscross": ("hex 11x11", 3),
    "crossings": ("breakthrough", 3),
    "neo_crossings": ("breakthrough", 3),
    "charing_cross": ("breakthrough", 3),
    "crosse": ("checkers", 2),
}
PEERS = {
    "PettingZoo connect_four_v3 AEC env()": lambda: aec_loop(pettingzoo_connect_four()),
    "OpenSpiel connect_four": lambda: openspiel_loop("connect_four"),
    "OpenSpiel hex 11x11": lambda: openspiel_loop("hex(board_size=11)"),
    "OpenSpiel breakthrough": lambda: openspiel_loop("breakthrough"),
    "OpenSpiel checkers": lambda: openspiel_loop("checkers"),
}


def game_options(game: str, size: int) -> dict:
    """``--size`` goes to every game with a board-size option."""
    return {"size": size} if "size" in crossenvs.game_class(game).OPTIONS else {}


def game_label(game: str, size: int) -> str:
    return f"{game} {size}x{size}" if game_options(game, size) else game


def row_names(game: str, size: int) -> tuple[str, str]:
    label = game_label(game, size)
    return f"crossenvs {label} engine", f"crossenvs {label} AEC env()"


def batched_name(game: str, size: int, batch: int) -> str:
    return f"crossenvs {game_label(game, size)} vector B={batch}"


def measure(
    seconds: float, size: int, games: list[str], batches: list[int] = (), pgx: bool = True
) -> dict[str, float | None]:
    rows: dict[str, Callable[[], Callable[[float], int]]] = {}
    for game in games:
        engine, aec = row_names(game, size)
        options = game_options(game, size)
        rows[engine] = lambda game=game, options=options: engine_loop(game, **options)
        rows[aec] = lambda game=game, options=options: aec_loop(lambda: getattr(crossenvs, f"{game}_v0").env(**options))
        for batch in batches:
            rows[batched_name(game, size, batch)] = lambda game=game, batch=batch, options=options: vector_loop(
                game, batch, **options
            )
    rows.update(PEERS)
    for env_id in ("connect_four", "othello") if pgx else ():
        for batch in batches:
            rows[f"pgx {env_id} B={batch} (CPU JAX)"] = lambda env_id=env_id, batch=batch: pgx_loop(env_id, batch)
    rates: dict[str, float | None] = {}
    for name, build in rows.items():
        try:
            loop = build()
        except ImportError as exc:
            print(f"  {name:<52} skipped ({exc.name} not installed)")
            rates[name] = None
            continue
        rates[name] = timed(loop, seconds)
        print(f"  {name:<52} {rates[name]:>12,.0f} steps/s", flush=True)
    return rates


def ratios(
    rates: dict[str, float | None], size: int, games: list[str], batches: list[int] = ()
) -> dict[str, float | None]:
    """Per game: AEC env over PettingZoo connect_four_v3 (target per game), engine over its OpenSpiel peer (>= 1)."""

    def ratio(ours: str, theirs: str) -> float | None:
        return rates[ours] / rates[theirs] if rates.get(ours) and rates.get(theirs) else None

    table: dict[str, float | None] = {}
    pettingzoo = "PettingZoo connect_four_v3 AEC env()"
    for game in games:
        engine, aec = row_names(game, size)
        label = game_label(game, size)
        if game in PEER_OF:
            peer, aec_target = PEER_OF[game]
            table[f"{label}: AEC env / PettingZoo connect_four_v3 (target >= {aec_target})"] = ratio(aec, pettingzoo)
            table[f"{label}: engine loop / OpenSpiel {peer} (target >= 1)"] = ratio(engine, f"OpenSpiel {peer}")
        else:
            table[f"{label}: AEC env / PettingZoo connect_four_v3"] = ratio(aec, pettingzoo)
        table[f"{label}: engine loop / OpenSpiel connect_four"] = ratio(engine, "OpenSpiel connect_four")
        for batch in batches:
            table[f"{label}: vector B={batch} / pgx othello B={batch}"] = ratio(
                batched_name(game, size, batch), f"pgx othello B={batch} (CPU JAX)"
            )
    return table


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="timed budget per row (default 3)")
    parser.add_argument("--size", type=int, default=8, help="board size of games with a size option (default 8)")
    games = crossenvs.list_games()
    parser.add_argument(
        "--games", nargs="+", choices=games, default=games, help="games to time (default: all registered)"
    )
    parser.add_argument(
        "--batch-sizes", type=int, nargs="*", default=[1, 64, 1024], help="vector env and pgx batch sizes"
    )
    parser.add_argument("--no-pgx", action="store_true", help="leave out the pgx rows (JAX compiles for a while)")
    parser.add_argument("--json", help="write rates and ratios to this file")
    args = parser.parse_args(argv)

    print(f"Random legal play, {args.seconds:g} s per row (steps = decisions; a batched call is B steps):")
    rates = measure(args.seconds, args.size, args.games, args.batch_sizes, pgx=not args.no_pgx)
    print("Ratios (same run):")
    table = ratios(rates, args.size, args.games, args.batch_sizes)
    for name, value in table.items():
        print(f"  {name:<72} {'n/a' if value is None else f'{value:.2f}x'}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"rates": rates, "ratios": table}, handle, indent=2)


if __name__ == "__main__":
    main()
