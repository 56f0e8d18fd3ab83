"""pgx driven as its best users drive it: the one random-play baseline the benchmarks time us against.

``benchmarks/bench.py`` (pgx on CPU JAX beside our vector env) and ``benchmarks/gpu.py`` (pgx on
the card beside our device env) both time this loop, so the peer is driven one way in both and a
change to it reaches both. What a pgx user writes for fast batched play, and so what we do:

* ``B`` games in one state, ``jax.vmap`` over ``env.init`` and ``env.step``;
* a uniform random *legal* action per game, drawn inside the jit from the legal-action mask;
* auto-reset inside the jit: a game that ended is replaced by a fresh one in the same step (every
  game's fresh state is built and selected where ``terminated | truncated``, as ``jax.vmap`` of
  pgx's own ``auto_reset`` computes it too);
* ``chain`` steps per jitted call, chained with ``jax.lax.scan`` (the carry is the state and the
  key), so one Python call dispatches ``chain`` steps of every game. One step per call would add
  a Python dispatch to every step, a cost pgx's users do not pay: a visible share of a cheap game's rate
  (``connect_four``), next to nothing where a step outweighs a call (``othello``; measured: docs/benchmarks.md,
  section 'How the peers are driven').

Compilation is excluded: the jitted function is compiled and run once before the loop is handed
back. pgx and JAX (the ``bench`` extra) are imported inside the function, so the package never
needs them.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from crossenvs.support.errors import InvalidArgumentError

#: steps chained per jitted call unless asked otherwise (both benchmarks' ``--chain`` default)
DEFAULT_CHAIN = 16

#: pgx's games that we have too, by pgx env id: our (game, options) that play exactly its rules, the
#: same-game pairs of both benchmarks (pgx's hex always offers the swap, so ours plays with ``swap=True``)
SAME_GAME: dict[str, tuple[str, dict]] = {
    "hex": ("hex", {"size": 11, "swap": True}),
    "connect_four": ("connect_four", {}),
}


def pgx_random_play(env_id: str, batch: int, chain: int = DEFAULT_CHAIN) -> Callable[[float], int]:
    """A timing loop of pgx random legal play: ``loop(deadline) -> steps``.

    ``loop`` calls the jitted ``chain``-step function until ``time.perf_counter()`` passes
    ``deadline``, waits for the device to finish, and returns the steps played: ``batch * chain``
    per call, one step being one move in one game. The state carries over from call to call, so
    games run on across rounds as a training loop's do.

    Raises :class:`~crossenvs.support.errors.InvalidArgumentError` for a ``batch`` or ``chain`` below 1
    or an ``env_id`` pgx does not have (the message lists pgx's ids), and ``ImportError`` where pgx
    is not installed.
    """
    import jax

    steps, carry = _chained_steps(env_id, batch, chain)
    carry = jax.block_until_ready(steps(*carry))  # compile, outside any timing

    def loop(deadline: float) -> int:
        nonlocal carry
        played = 0
        while time.perf_counter() < deadline:
            carry = steps(*carry)
            played += batch * chain
        jax.block_until_ready(carry)
        return played

    return loop


def _chained_steps(env_id: str, batch: int, chain: int) -> tuple[Callable, tuple]:
    """The jitted ``steps(state, key) -> (state, key)`` that plays ``chain`` random legal steps of
    ``batch`` games with auto-reset, and its first ``(state, key)`` (``batch`` fresh games)."""
    for name, value in (("batch", batch), ("chain", chain)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgumentError(f"{name} must be a whole number of at least 1, not {value!r}")
    import jax
    import jax.numpy as jnp
    import pgx

    if env_id not in pgx.available_envs():
        raise InvalidArgumentError(f"pgx has no env {env_id!r}; its envs: {', '.join(pgx.available_envs())}")
    env = pgx.make(env_id)
    init = jax.vmap(env.init)

    def one_step(carry, _):
        state, key = carry
        key, act_key, reset_key = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        state = jax.vmap(env.step)(state, jax.random.categorical(act_key, logits, axis=-1))
        fresh = init(jax.random.split(reset_key, batch))
        done = state.terminated | state.truncated
        state = jax.tree_util.tree_map(
            lambda new, old: jnp.where(done.reshape((-1,) + (1,) * (old.ndim - 1)), new, old), fresh, state
        )
        return (state, key), None

    @jax.jit
    def steps(state, key):
        return jax.lax.scan(one_step, (state, key), None, length=chain)[0]

    return steps, (jax.jit(init)(jax.random.split(jax.random.PRNGKey(0), batch)), jax.random.PRNGKey(1))
