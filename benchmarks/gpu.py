"""Speed on one GPU: crossenvs' device env next to pgx, and its device search next to mctx, on the same card.

A run is made of parts, each asked for by its flag, and runs only the parts named (none named: ``--env``):

* ``--check``: the differential checks, the device env against the CPU env (``--check-batch`` games,
  every field, every step) and the device search against the CPU search (``--check-positions``);
* ``--env``: the env rows, our device env beside pgx at each of ``--batches``: the same game first (our
  Hex 11x11 with the swap against pgx's ``hex``, our Connect Four against pgx's ``connect_four``), then our
  own games beside pgx's nearest (othello for the 8x8 games, hex for Crisscross 11x11: a different game,
  printed as context, not as a like-for-like ratio);
* ``--search``: the search rows, a searched and played self-play move beside mctx, and a training row.

Every part follows ``--games`` (default: every game and the two same-game setups for the env check and
rows, Crisscross 8x8 and Crosse for the search check, Crisscross 8x8 for the search rows). ``--plan`` prints what would run,
part by part (game, batch), and exits without touching a GPU; without a GPU a run is one line
saying so.

    python benchmarks/gpu.py                     # the env rows: every game, B = 4,096 and 65,536
    python benchmarks/gpu.py --check             # the checks only (env at 65,536 games, search at 1,024 positions)
    python benchmarks/gpu.py --check --env --json gpu.json          # the checks, then the env rows
    python benchmarks/gpu.py --check --games crossings --check-batch 4096   # a short session's check
    python benchmarks/gpu.py --search            # the search rows: ours on Crisscross 8x8, mctx on othello
    python benchmarks/gpu.py --check --search --games crosse --plan          # what that would run

Ours: ``CrossVectorEnv(game, B, device="cuda")``, one ``random_actions()`` and one ``step()`` a
round, both kernels on the device, the caller's loop in Python (as a training loop drives it).
pgx: jitted and vmapped, random legal actions and auto-reset inside the jit, ``--chain`` steps
chained with ``lax.scan`` per call (its best users' way; ``crossenvs.integrations.pgx_peer``, the
loop ``benchmarks/bench.py`` times on the CPU). Rows are interleaved over ``--rounds``
and each figure is the median of its rounds. Where the time goes: the device time of our two
kernels per round (CUDA events, launch overhead excluded) against the wall time of a round (the
rest is Python and launching), and the bytes a step writes (observation, mask, per-game
outputs) as achieved memory bandwidth.

Search rows (``--search``): a self-play step, searched and played, at 1,024 / 4,096 / 16,384 games.
Ours: :class:`crossenvs.az.search.gumbel.GumbelSearch` (``device="cuda"``) on Crisscross 8x8 or the ``--games`` (the
device env's games, ``AlphaZeroNet`` of ``make train``'s size: stem and 3 residual blocks of 32
channels, float32 with TF32 matrix products on both sides, as JAX's default is), then the device
env's step. mctx: ``gumbel_muzero_policy`` over pgx othello with the same network in JAX
(convolutions, per-channel affine for batch norm, the same heads), the search and the step in one
jitted call. Both 32 simulations, 16 considered actions. Each row also gives the share of its time
in the network's forward passes (ours), and a row of training with learning (self-play and
``train_ratio`` gradient samples per position, as ``training/alphazero.py --device cuda`` runs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

# JAX would otherwise take most of the card's memory at its first use, leaving torch and numba little
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

GAMES = [("crisscross", {"size": 8}), ("crisscross", {"size": 11}), ("charing_cross", {}), ("crosse", {}),
         ("crossings", {}), ("neo_crossings", {})]  # fmt: skip
#: pgx's games that we have too (crossenvs.integrations.pgx_peer.SAME_GAME, bench.py's pairs): pgx id -> ours
SAME_GAME = {"hex": ("hex", {"size": 11, "swap": True}), "connect_four": ("connect_four", {})}
PEERS = {"hex": "pgx hex 11x11", "connect_four": "pgx connect_four", "othello": "pgx othello"}
#: pgx's nearest game to each of ours it lacks (the same board size; a different game: context, no target)
NEAREST = {"crisscross 8x8": "othello", "crisscross 11x11": "hex", "charing_cross": "othello",
           "crossings": "othello", "neo_crossings": "othello"}  # fmt: skip


@dataclass
class Row:
    name: str
    batch: int
    rounds: list[float]  # steps/s of each round
    kernel_seconds: float | None = None  # device time of one round's kernels (ours only)
    bytes_per_step: int | None = None
    network_share: float | None = None  # search rows (ours): the share of a searched move in forward passes

    @property
    def median(self) -> float:
        return statistics.median(self.rounds)


def label(game: str, options: dict) -> str:
    return f"{game} {options['size']}x{options['size']}" if "size" in options else game


def ours(game: str, options: dict, batch: int) -> tuple[Callable[[float], int], Row]:
    """Our device env stepping random legal actions; returns (loop, row)."""
    import numpy as np

    from crossenvs.envs.vector import CrossVectorEnv

    env = CrossVectorEnv(game, num_envs=batch, device="cuda", **options)
    env.reset(seed=0)
    for _ in range(3):  # compile and warm
        env.step(env.random_actions())
    synchronize()
    per_game = 4 * int(np.prod(env.game.observation_shape)) + env.game.num_actions + 8 * 6 + 8
    row = Row(f"crossenvs {label(game, options)}", batch, [], bytes_per_step=per_game)

    def loop(deadline: float) -> int:
        steps = 0
        while time.perf_counter() < deadline:
            env.step(env.random_actions())
            steps += batch
        synchronize()
        if torch_device().type == "cuda":  # CUDA events time the kernels on a card (not under the simulator)
            row.kernel_seconds = row.kernel_seconds or kernel_seconds(env)
        return steps

    return loop, row


def kernel_seconds(env, rounds: int = 20) -> float:
    """Device time of one round's two kernels alone: the GPU is kept busy (``torch.cuda._sleep``) while
    Python launches them, so the events time the kernels and not the launch overhead between them."""
    import torch

    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    total = 0.0
    for _ in range(rounds):
        torch.cuda._sleep(5_000_000)  # a few milliseconds of GPU work queued ahead of the launches
        start.record()
        env.step(env.random_actions())
        end.record()
        end.synchronize()
        total += start.elapsed_time(end) / 1000
    return total / rounds


def pgx_loop(env_id: str, batch: int, chain: int) -> tuple[Callable[[float], int], Row]:
    """pgx on the card: ``crossenvs.integrations.pgx_peer``'s loop (bench.py's too), with its row."""
    from crossenvs.integrations.pgx_peer import pgx_random_play

    return pgx_random_play(env_id, batch, chain), Row(PEERS[env_id], batch, [])


# ----------------------------------------------------------------------------- search rows
SEARCH_BATCHES = [1024, 4096, 16384]
#: the search rows' game without --games: the one with a target beside mctx othello
SEARCH_GAME = ("crisscross", {"size": 8})
SIMULATIONS, CONSIDERED, CHANNELS, BLOCKS = 32, 16, 32, 3
TRAINING_WARMUP = 120.0  # seconds at most of self-play before the training row is timed


def our_search(batch: int, setup: tuple[str, dict] = SEARCH_GAME) -> tuple[Callable[[float], int], Row]:
    """Our device search on ``setup`` (game, options), then the chosen moves played: positions searched per second."""
    import torch

    import crossenvs
    from crossenvs.az.network import AlphaZeroNet, device_evaluator
    from crossenvs.az.search.gumbel import GumbelSearch
    from crossenvs.envs.vector import CrossVectorEnv

    game = crossenvs.make_game(setup[0], **setup[1])
    env = CrossVectorEnv(game, batch, device="cuda")
    env.reset(seed=0)
    device = torch_device()  # the GPU (the CPU under numba's CUDA simulator, for a smoke test of this code)
    net = AlphaZeroNet(game.observation_shape, game.num_actions, CHANNELS, BLOCKS).to(device).eval()
    evaluate = device_evaluator(net, "float32")
    search = GumbelSearch(game, batch, SIMULATIONS, CONSIDERED, device="cuda")
    noise = torch.Generator(device=device)
    noise.manual_seed(0)

    def one_move() -> None:
        boards, metas = env.device_positions()
        env.step(search.run(boards, metas, evaluate, gumbel=search.gumbel_noise(generator=noise)).actions)

    for _ in range(2):  # compile and warm
        one_move()
    synchronize()
    row = Row(f"crossenvs search {label(*setup)}", batch, [])
    row.network_share = network_share(evaluate, batch, game.observation_shape, one_move)

    def loop(deadline: float) -> int:
        positions = 0
        while time.perf_counter() < deadline:
            one_move()
            positions += batch
        synchronize()
        return positions

    return loop, row


def torch_device():
    from crossenvs.az.pending import torch_device

    return torch_device()


def synchronize() -> None:
    """Wait for the GPU's queued work (nothing to wait for under the simulator)."""
    import torch

    if torch_device().type == "cuda":
        torch.cuda.synchronize()


def network_share(evaluate, batch: int, shape: tuple[int, ...], one_move: Callable[[], None]) -> float:
    """The share of a searched move spent in its ``1 + SIMULATIONS`` forward passes (each timed alone)."""
    import torch

    observations = torch.rand((batch, *shape), device=torch_device())

    def timed(work: Callable[[], object], repeats: int = 3) -> float:
        synchronize()
        started = time.perf_counter()
        for _ in range(repeats):
            work()
        synchronize()
        return (time.perf_counter() - started) / repeats

    return min(1.0, timed(lambda: evaluate(observations)) * (1 + SIMULATIONS) / timed(one_move))


def our_training(batch: int, setup: tuple[str, dict] = SEARCH_GAME) -> tuple[Callable[[float], int], Row]:
    """Self-play on the device with learning (Run.absorb: train_ratio samples per position), positions per second
    (``make train``'s config, on ``setup``'s game and options)."""
    import tempfile
    from pathlib import Path

    from crossenvs.az.config import load_config
    from crossenvs.az.learn import learner
    from crossenvs.az.network import device_evaluator
    from crossenvs.az.run import Run

    root = Path(__file__).resolve().parent.parent
    overrides = {"num_envs": batch, "simulations": SIMULATIONS, "max_considered": CONSIDERED, "fast_simulations": 0,
                 "game": setup[0], "options": setup[1], "precision": "float32", "checkpoint_minutes": 1e6,
                 "max_minutes": 1e6}  # fmt: skip
    config = load_config(root / "crossenvs" / "configs" / "alphazero" / "crisscross6.yaml", overrides)
    device = str(torch_device())
    run = Run(config, Path(tempfile.mkdtemp(prefix="gpu-bench-")), device)
    run.learn, run.no_progress = learner(run.net, run.optimizer, device, "float32"), True
    from crossenvs.az.selfplay import SelfPlay

    selfplay = SelfPlay(config, run.rng, device="cuda")
    evaluate = device_evaluator(run.net, "float32")
    run.start("benchmark")
    warm_until = time.perf_counter() + TRAINING_WARMUP  # until learning runs as usual: games ended, buffer filled
    while time.perf_counter() < warm_until and (run.replay.size < config.batch_size or not run.counters["updates"]):
        finished = selfplay.step(evaluate)
        run.absorb(finished, moves=1, positions=finished.searched)
    run.owed = 0.0  # the warm-up's backlog of gradient samples is not paid inside a timed round
    synchronize()
    row = Row(f"crossenvs training {label(*setup)}", batch, [])

    def loop(deadline: float) -> int:
        before = run.counters["positions"]
        while time.perf_counter() < deadline:
            finished = selfplay.step(evaluate)
            run.absorb(finished, moves=1, positions=finished.searched)
        synchronize()
        return run.counters["positions"] - before

    return loop, row


def mctx_search(batch: int) -> tuple[Callable[[float], int], Row]:
    """mctx's Gumbel MuZero policy over pgx othello, the same network in JAX, search and step in one jitted call."""
    import jax
    import jax.numpy as jnp
    import mctx
    import pgx

    env = pgx.make("othello")
    init, step = jax.vmap(env.init), jax.vmap(env.step)
    state = jax.jit(init)(jax.random.split(jax.random.PRNGKey(0), batch))
    params = jax_network_params(jax.random.PRNGKey(1), state.observation.shape[1:], env.num_actions)

    def recurrent_fn(params, key, action, state):
        mover = state.current_player
        state = step(state, action)
        logits, value = jax_network(params, state.observation)
        logits = jnp.where(
            state.legal_action_mask, logits - logits.max(axis=-1, keepdims=True), jnp.finfo(jnp.float32).min
        )
        reward = state.rewards[jnp.arange(batch), mover]
        value = jnp.where(state.terminated, 0.0, value)
        discount = jnp.where(state.terminated, 0.0, -1.0 * jnp.ones_like(value))
        return mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits, value=value), state

    @jax.jit
    def one_move(state, key):
        search_key, reset_key, key = jax.random.split(key, 3)
        logits, value = jax_network(params, state.observation)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
        out = mctx.gumbel_muzero_policy(params, search_key, root, recurrent_fn, num_simulations=SIMULATIONS,
                                        invalid_actions=~state.legal_action_mask, max_num_considered_actions=CONSIDERED)  # fmt: skip
        state = step(state, out.action)
        fresh = init(jax.random.split(reset_key, batch))
        done = state.terminated | state.truncated
        state = jax.tree_util.tree_map(
            lambda new, old: jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old), fresh, state
        )
        return state, key

    carry = jax.block_until_ready(one_move(state, jax.random.PRNGKey(2)))  # compile

    def loop(deadline: float) -> int:
        nonlocal carry
        positions = 0
        while time.perf_counter() < deadline:
            carry = one_move(*carry)
            positions += batch
        jax.block_until_ready(carry)
        return positions

    return loop, Row("mctx gumbel othello", batch, [])


def jax_network_params(key, shape: tuple[int, ...], actions: int) -> dict:
    """Weights of AlphaZeroNet's architecture in JAX: stem, residual blocks, policy and value heads (random)."""
    import jax

    height, width, planes = shape
    keys = iter(jax.random.split(key, 4 * BLOCKS + 8))

    def conv(cin: int, cout: int, size: int = 3):
        weights = jax.random.normal(next(keys), (size, size, cin, cout)) * (2.0 / (size * size * cin)) ** 0.5
        return {"w": weights, "scale": jax.numpy.ones(cout), "shift": jax.numpy.zeros(cout)}

    def dense(cin: int, cout: int):
        return {"w": jax.random.normal(next(keys), (cin, cout)) * (1.0 / cin) ** 0.5, "b": jax.numpy.zeros(cout)}

    return {"stem": conv(planes, CHANNELS), "blocks": [(conv(CHANNELS, CHANNELS), conv(CHANNELS, CHANNELS))
            for _ in range(BLOCKS)], "policy_conv": conv(CHANNELS, 4, 1), "policy": dense(4 * height * width, actions),
            "value_conv": conv(CHANNELS, 2, 1), "value_hidden": dense(2 * height * width, 64), "value": dense(64, 1)}  # fmt: skip


def jax_network(params: dict, observations):
    """(B, H, W, C) -> logits (B, A), values (B,): the same layers as AlphaZeroNet (batch norm as its affine map)."""
    import jax
    import jax.numpy as jnp

    def conv(layer, x):
        y = jax.lax.conv_general_dilated(x, layer["w"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return y * layer["scale"] + layer["shift"]

    x = jax.nn.relu(conv(params["stem"], observations.astype(jnp.float32)))
    for first, second in params["blocks"]:
        x = jax.nn.relu(x + conv(second, jax.nn.relu(conv(first, x))))
    flat = jax.nn.relu(conv(params["policy_conv"], x)).reshape(x.shape[0], -1)
    logits = flat @ params["policy"]["w"] + params["policy"]["b"]
    hidden = jax.nn.relu(conv(params["value_conv"], x)).reshape(x.shape[0], -1)
    hidden = jax.nn.relu(hidden @ params["value_hidden"]["w"] + params["value_hidden"]["b"])
    return logits, jnp.tanh(hidden @ params["value"]["w"] + params["value"]["b"])[:, 0]


#: the search check's games on a GPU: the benchmark's, and the one with the most rules (each costs compiles)
SEARCH_CHECK_GAMES = [("crisscross", {"size": 8}), ("crosse", {})]


def search_check(positions: int, setups: list[tuple[str, dict]]) -> list[dict]:
    """The device search against the CPU search on ``positions`` positions (same noise, same evaluator).

    Every game is checked bit for bit under the simulator by ``make test``; on a GPU this shows what CUDA's
    arithmetic changes at scale, on ``setups`` (without ``--games``: :data:`SEARCH_CHECK_GAMES`).
    """
    from crossenvs.selfcheck import check_device_search

    results = []
    for game, options in setups:
        report = check_device_search(game, positions=positions, simulations=SIMULATIONS, searches=2, seed=5,
                                     max_considered=CONSIDERED, **options)  # fmt: skip
        results.append({"game": label(game, options), **asdict(report)})
        print(f"search check {label(game, options)} n={positions}: {report.action_mismatches} of "
              f"{positions * report.searches} actions differ, policy gap {report.max_policy_gap:.2e}, value gap "
              f"{report.max_value_gap:.2e}, {report.root_observation_mismatches} root observations differ", flush=True)  # fmt: skip
    return results


def check(batch: int, steps: int, setups: list[tuple[str, dict]]) -> list[dict]:
    """The differential test at ``batch`` games: the device env against the CPU env, every field, every step."""
    from crossenvs.selfcheck import check_device_env

    results = []
    for game, options in setups:
        started = time.perf_counter()
        report = check_device_env(game, num_envs=batch, steps=steps, seed=11, **options)
        results.append({"game": label(game, options), **asdict(report), "seconds": time.perf_counter() - started})
        print(f"check {label(game, options)} B={batch}: {report.mismatches} mismatches over {steps} steps "
              f"({report.games_ended} games ended, {report.illegal_tried} illegal tried)", flush=True)  # fmt: skip
    return results


@dataclass
class Planned:
    """One item of a run, as ``--plan`` prints it and :func:`main` runs it: a check or a timed row of one
    game (or of a peer's game: pgx, mctx) at one batch."""

    part: str  # the flag that asks for it: check, env or search
    kind: str  # env check, search check, crossenvs, pgx, search, training or mctx
    game: str
    options: dict
    batch: int  # games; positions for the search check

    @property
    def setup(self) -> tuple[str, dict]:
        return self.game, self.options

    def __str__(self) -> str:
        size = f"positions={self.batch:,}" if self.kind == "search check" else f"B={self.batch:,}"
        return f"{self.part:<7} {self.kind:<13} {label(self.game, self.options):<17} {size}"


def plan(args: argparse.Namespace) -> list[Planned]:
    """What a run does, part by part in the order it runs them; only the parts asked for, each on ``--games``."""
    chosen = args.games is not None
    same = {peer: setup for peer, setup in SAME_GAME.items() if not chosen or setup[0] in args.games}
    games = [*same.values(), *((g, o) for g, o in GAMES if not chosen or g in args.games)]
    items = []
    if args.check:
        items += [Planned("check", "env check", g, o, args.check_batch) for g, o in games]
        searched = games if chosen else SEARCH_CHECK_GAMES
        items += [Planned("check", "search check", g, o, args.check_positions) for g, o in searched]
    if args.env:
        nearest = [NEAREST[label(g, o)] for g, o in games if label(g, o) in NEAREST]
        peers = [] if args.no_pgx else [peer for peer in PEERS if peer in same or peer in nearest]
        for batch in args.batches:
            for peer, setup in same.items():  # the same game: ours, then pgx's
                items.append(Planned("env", "crossenvs", *setup, batch))
                items += [Planned("env", "pgx", peer, {}, batch)] if peer in peers else []
            items += [Planned("env", "crossenvs", g, o, batch) for g, o in games if (g, o) not in same.values()]
            items += [Planned("env", "pgx", peer, {}, batch) for peer in peers if peer not in same]
    if args.search:
        for batch in args.search_batches:
            for g, o in games if chosen else [SEARCH_GAME]:
                items += [Planned("search", "search", g, o, batch), Planned("search", "training", g, o, batch)]
            items += [] if args.no_pgx else [Planned("search", "mctx", "othello", {}, batch)]
    return items


def positive(text: str) -> int:
    """A count on the command line: a whole number above 0."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a whole number above 0, not {text!r}")
    return int(text)


def not_negative(text: str) -> float:
    """Seconds on the command line: a number, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"a number of seconds, 0 or more, not {text!r}")
    return value


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], epilog="Parts run only when named; with none named, --env runs."
    )
    parser.add_argument("--check", action="store_true", help="the differential checks (env and search), first")
    parser.add_argument("--env", action="store_true", help="the env rows beside pgx (the default part)")
    parser.add_argument("--search", action="store_true", help="the search rows beside mctx, and training")
    parser.add_argument("--plan", action="store_true", help="print what would run, part by part, and exit")
    names = sorted({g for g, _ in [*GAMES, *SAME_GAME.values()]})
    parser.add_argument("--games", nargs="+", default=None, choices=names, metavar="GAME",
                        help=f"only these games, in every part ({', '.join(names)}; default: see above)")  # fmt: skip
    parser.add_argument("--batches", type=positive, nargs="+", default=[4096, 65536], help="env rows: games per step")
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one timed round")
    parser.add_argument("--rounds", type=positive, default=3)
    parser.add_argument("--chain", type=positive, default=16, help="pgx steps per jitted call (lax.scan)")
    parser.add_argument("--no-pgx", action="store_true", help="no peer rows (pgx, mctx)")
    parser.add_argument("--check-batch", type=positive, default=65536, help="games of the env check")
    parser.add_argument("--check-steps", type=positive, default=100, help="steps of the env check")
    parser.add_argument("--check-positions", type=positive, default=1024, help="positions of the search check")
    parser.add_argument("--search-batches", type=positive, nargs="+", default=SEARCH_BATCHES)
    parser.add_argument("--simulations", type=positive, default=SIMULATIONS,
                        help=f"of every search, ours and mctx's (default {SIMULATIONS})")  # fmt: skip
    parser.add_argument("--warmup", type=not_negative, default=TRAINING_WARMUP,
                        help=f"seconds of self-play at most before the training row is timed (default {TRAINING_WARMUP:.0f})")  # fmt: skip
    parser.add_argument("--json", default=None, help="write every figure to this file")
    args = parser.parse_args(argv)
    args.env = args.env or not (args.check or args.search)
    return args


def gpu_missing() -> str | None:
    """Why a run cannot use a GPU here, in one line; None where it can (before anything is compiled)."""
    from crossenvs.kernels.cuda import CudaUnavailableError, cuda_module

    try:
        cuda_module()
        import torch  # noqa: F401  (the device env hands its games over as torch tensors)
    except CudaUnavailableError as exc:
        return str(exc)
    except ImportError as exc:
        return f"the GPU path needs torch ({exc}); install it as the README says"
    return None


def main(argv: list[str] | None = None) -> int:
    global SIMULATIONS, TRAINING_WARMUP  # the search rows' constants, as the command line sets them
    args = parse(argv)
    SIMULATIONS, TRAINING_WARMUP = args.simulations, args.warmup
    items = plan(args)
    if args.plan:
        print("\n".join(f"plan: {item}" for item in items))
        return 0
    missing = gpu_missing()
    if missing:
        print(f"error: {missing}", file=sys.stderr)
        return 2
    import torch

    # float32 as each side's users get it: JAX's default matrix products on a GPU use TF32, so torch's do too
    # (its convolutions already do by default)
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    card = torch.cuda.get_device_name() if torch_device().type == "cuda" else "none, numba's CUDA simulator"
    print(f"card: {card}", flush=True)
    report: dict = {"card": card, "date": time.strftime("%Y-%m-%d"), "command": " ".join(sys.argv),
                    "plan": [str(item) for item in items]}  # fmt: skip
    if args.check:
        report["check"] = check(args.check_batch, args.check_steps, chosen(items, "env check"))
        save(report, args.json)
        report["search_check"] = search_check(args.check_positions, chosen(items, "search check"))
        save(report, args.json)
    timed = [item for item in items if item.part == "env"]
    if timed:
        loops = [ours(*item.setup, item.batch) if item.kind == "crossenvs" else pgx_loop(item.game, item.batch, args.chain)
                 for item in timed]  # fmt: skip
        rows = timed_rounds(loops, args.rounds, args.seconds)
        print_table(rows)
        report["rows"] = [{**asdict(row), "median": row.median} for row in rows]
        report["ratios"] = ratios(rows)
        save(report, args.json)
    searched = [item for item in items if item.part == "search"]
    if searched:
        report["search_rows"] = search_rows(searched, args)
        save(report, args.json)
    return 0


def chosen(items: list[Planned], kind: str) -> list[tuple[str, dict]]:
    """The (game, options) of the planned items of one kind, in plan order."""
    return [item.setup for item in items if item.kind == kind]


def save(report: dict, path: str | None) -> None:
    """Write what is measured so far: a run stopped at its time limit keeps the rows it finished."""
    if path:
        with open(path, "w") as out:
            json.dump(report, out, indent=1)


def timed_rounds(loops: list[tuple[Callable[[float], int], Row]], rounds: int, seconds: float) -> list[Row]:
    """Every row once a round, ``rounds`` times (interleaved: a slow moment of the machine hits every row)."""
    from crossenvs.selfcheck import timing  # after main() has chosen the CUDA target (the simulator or a card)

    samples = timing.interleaved_rounds([loop for loop, _ in loops], rounds, seconds)
    for (_, row), rates in zip(loops, samples):
        row.rounds.extend(rates)
    return [row for _, row in loops]


def search_rows(items: list[Planned], args: argparse.Namespace) -> list[dict]:
    """Our search and training rows beside mctx's at each batch; ratios ours / mctx."""
    makers = {"search": our_search, "training": our_training}
    loops = [mctx_search(item.batch) if item.kind == "mctx" else makers[item.kind](item.batch, item.setup)
             for item in items]  # fmt: skip
    rows = timed_rounds(loops, args.rounds, args.seconds * 1.5)
    print(f"{'row':<36} {'B':>7} {'positions/s (median)':>21} {'network share':>14}")
    for row in rows:
        share = f"{row.network_share:.0%}" if row.network_share is not None else "-"
        print(f"{row.name:<36} {row.batch:>7,} {row.median:>21,.0f} {share:>14}")
    by_name = {(row.name, row.batch): row for row in rows}
    target = label(*SEARCH_GAME)
    for item in items:
        if item.kind != "search":
            continue
        name = label(*item.setup)
        search = by_name[(f"crossenvs search {name}", item.batch)]
        training = by_name[(f"crossenvs training {name}", item.batch)]
        peer = by_name.get(("mctx gumbel othello", item.batch))
        if peer:
            aim = " (target >= 1.0 at 4,096 and 16,384, aim 2.0)" if name == target else ""
            print(f"search {name} / mctx othello at B={item.batch:,}: {search.median / peer.median:.2f}x{aim}")
        print(f"training / search alone, {name} at B={item.batch:,}: {training.median / search.median:.2f} "
              "(target >= 0.67)")  # fmt: skip
    return [{**asdict(row), "median": row.median} for row in rows]


def print_table(rows: list[Row]) -> None:
    print(f"{'row':<32} {'B':>7} {'steps/s (median)':>18} {'kernels/wall':>13} {'GB/s written':>13}")
    for row in rows:
        wall = row.batch / row.median  # seconds a round takes
        share = f"{row.kernel_seconds / wall:.0%}" if row.kernel_seconds else "-"
        bandwidth = f"{row.median * row.bytes_per_step / 1e9:.1f}" if row.bytes_per_step else "-"
        print(f"{row.name:<32} {row.batch:>7,} {row.median:>18,.0f} {share:>13} {bandwidth:>13}")


def ratios(rows: list[Row]) -> list[dict]:
    """Ours / pgx at each batch: on the same game (the targets: at least pgx, twice the aim), then beside pgx's
    nearest game (context: a different game, no target)."""
    by_name = {(row.name, row.batch): row for row in rows}
    pairs = [(label(*setup), peer, "same game") for peer, setup in SAME_GAME.items()]
    pairs += [(ours_label, peer, "a different game") for ours_label, peer in NEAREST.items()]
    found = []
    for ours_label, peer, kind in pairs:
        for (name, batch), row in by_name.items():
            theirs = by_name.get((PEERS[peer], batch))
            if name == f"crossenvs {ours_label}" and theirs:
                ratio = row.median / theirs.median
                found.append({"row": ours_label, "peer": PEERS[peer], "batch": batch, "ratio": ratio, "kind": kind})
                aim = "target >= 1.0, aim 2.0" if kind == "same game" else "context: a different game"
                print(f"{ours_label} / {PEERS[peer]} at B={batch:,}: {ratio:.2f}x ({aim})")
    return found


if __name__ == "__main__":
    raise SystemExit(main())
