"""The GPU against the CPU: the device env (:func:`check_device_env`) and the device search
(:func:`check_device_search`) stepped beside their CPU twins on the same inputs, the differences counted.

Both run on a GPU or under numba's CUDA simulator; ``crossenvs doctor`` and ``benchmarks/gpu.py`` call them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.game import Game


# ----------------------------------------------------------------------------- the device env against the CPU env
@dataclass
class DeviceReport:
    """What :func:`check_device_env` compared: games x steps, and how many games differed in any field."""

    num_envs: int
    steps: int
    games_ended: int
    illegal_tried: int
    mismatches: int
    first_mismatch: str | None = None


#: every per-game output both envs return, by the name the comparison reports
_STEP_FIELDS = ("observation", "reward", "terminated", "action_mask", "current_player", "seat_rewards", "final_ply",
                "illegal_action")  # fmt: skip


def _host(value: Any) -> np.ndarray:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)


def _step_fields(step: tuple[Any, ...]) -> dict[str, np.ndarray]:
    observations, rewards, terminated, _, info = step
    values = (observations, rewards, terminated, info["action_mask"], info["current_player"], info["seat_rewards"],
              info["final_ply"], info["illegal_action"])  # fmt: skip
    return {name: _host(value) for name, value in zip(_STEP_FIELDS, values)}


def check_device_env(
    game: str | Game, num_envs: int = 16, steps: int = 60, seed: int = 0, illegal_every: int = 7, **options: Any
) -> DeviceReport:
    """Step :class:`~crossenvs.envs.vector.DeviceVectorEnv` and :class:`~crossenvs.envs.vector.CrossVectorEnv`
    side by side on the same actions and count the games where anything they return differs.

    Actions are the device's own random picks, which must equal the CPU env's
    (:meth:`~crossenvs.envs.vector.CrossVectorEnv.random_actions`, the same per-game streams); every ``illegal_every``-th step one game plays an illegal
    action instead (the -1 and restart path). Runs on a GPU, or under numba's CUDA simulator with
    numba off (``NUMBA_ENABLE_CUDASIM=1 NUMBA_DISABLE_JIT=1``: the simulator cannot pass its
    arrays to compiled functions).
    """
    from ..envs.vector import CrossVectorEnv

    device = CrossVectorEnv(game, num_envs, device="cuda", **options)
    cpu = CrossVectorEnv(device.game, num_envs)
    device_observations, device_info = device.reset(seed=seed)
    cpu_observations, cpu_info = cpu.reset(seed=seed)
    report = DeviceReport(num_envs, steps, 0, 0, 0)
    _count(report, -1, "observation", cpu_observations, _host(device_observations))
    for name in ("action_mask", "current_player"):
        _count(report, -1, name, cpu_info[name], _host(device_info[name]))
    masks = cpu_info["action_mask"]
    for step in range(steps):
        actions = _host(device.random_actions()).copy()
        _count(report, step, "random_action", cpu.random_actions(), actions)
        if illegal_every and step % illegal_every == illegal_every - 1:
            report.illegal_tried += _make_one_illegal(actions, masks, step % num_envs)
        cpu_step, device_step = cpu.step(actions), device.step(actions)
        cpu_fields, device_fields = _step_fields(cpu_step), _step_fields(device_step)
        for name in _STEP_FIELDS:
            _count(report, step, name, cpu_fields[name], device_fields[name])
        ended = np.flatnonzero(cpu_fields["terminated"])
        if ended.size:  # both seats' views of where each ended game stood, before its restart
            cpu_final = np.stack(list(cpu_step[4]["final_obs_by_seat"][ended]))
            _count(report, step, "final_observations", cpu_final, _host(device_step[4]["final_observations"])[ended])
        report.games_ended += int(cpu_fields["terminated"].sum())
        masks = cpu_fields["action_mask"]
    return report


def _make_one_illegal(actions: np.ndarray, masks: np.ndarray, game: int) -> int:
    refused = np.flatnonzero(masks[game] == 0)
    if refused.size == 0:
        return 0
    actions[game] = refused[0]
    return 1


def _count(report: DeviceReport, step: int, name: str, expected: np.ndarray, got: np.ndarray) -> None:
    """Add the games whose ``name`` differs (NaN-free values: exact equality, float32 bit for bit)."""
    expected, got = np.asarray(expected), np.asarray(got)
    if expected.shape != got.shape:
        differing = np.ones(len(expected), dtype=bool)
    else:
        differing = (expected != got).reshape(len(expected), -1).any(axis=1)
    if differing.any():
        report.mismatches += int(differing.sum())
        if report.first_mismatch is None:
            game = int(np.flatnonzero(differing)[0])
            report.first_mismatch = (
                f"step {step}, game {game}: {name} {expected[game]!r} (CPU) != {got[game]!r} (device)"
            )


# ----------------------------------------------------------------------------- the device search against the CPU search
@dataclass
class SearchReport:
    """What :func:`check_device_search` compared: searches of ``positions`` positions, and how far they differed."""

    positions: int
    simulations: int
    searches: int
    action_mismatches: int  # positions where the chosen actions differ
    root_observation_mismatches: int
    max_policy_gap: float  # largest |CPU - device| of an improved-policy entry
    max_value_gap: float
    first_mismatch: str | None = None


def linear_evaluator(game: Game, seed: int = 0) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """A fixed random linear 'network' (NumPy): logits and a tanh value from the flattened observation.

    Cheap, deterministic and different for every position, so two searches that walk differently see different
    numbers; the same function on both sides makes the leaves' evaluations identical by construction.
    """
    rng = np.random.default_rng(seed)
    size = int(np.prod(game.observation_shape))
    weights = rng.normal(scale=0.5, size=(size, game.num_actions)).astype(np.float32)
    value_weights = rng.normal(scale=0.2, size=size).astype(np.float32)

    def evaluate(observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = np.asarray(observations, dtype=np.float32).reshape(len(observations), -1)
        return flat @ weights, np.tanh(flat @ value_weights).astype(np.float32)

    return evaluate


def _on_the_device(evaluate: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]) -> Callable[[Any], Any]:
    """``evaluate`` for the device search: the leaves copied to the host and the answer back (a check, not a speed)."""

    def device_evaluate(observations: Any) -> tuple[Any, Any]:
        logits, values = evaluate(_host(observations))
        if hasattr(observations, "detach"):
            import torch

            return torch.from_numpy(logits).to(observations.device), torch.from_numpy(values).to(observations.device)
        return logits, values

    return device_evaluate


def check_device_search(
    game: str | Game,
    positions: int = 8,
    simulations: int = 8,
    searches: int = 4,
    seed: int = 0,
    max_considered: int = 4,
    batch: int | None = None,
    **options: Any,
) -> SearchReport:
    """Search the same positions with :class:`~crossenvs.az.search.gumbel.GumbelSearch` on the device and on the CPU,
    with the same root noise (every other search none) and the same
    evaluator (:func:`linear_evaluator`), and compare what they return. ``batch``: the searches are made for this
    many positions (default ``positions``; more tries a search on part of its batch).

    The positions are a CPU vector env's games after random moves, advanced between searches. Under numba's CUDA
    simulator with numba off both run the same Python and must agree exactly. On a GPU they must agree exactly
    too: our kernels compile without fused multiply-adds and the search's ``exp`` is
    :func:`crossenvs.kernels.floats.exact_exp` on both targets, so any gap is a bug (or a float difference not yet
    found, which the report's first mismatch points at).
    """
    from crossenvs.az.search.gumbel import GumbelSearch

    from ..envs.vector import CrossVectorEnv

    env = CrossVectorEnv(game, num_envs=positions, **options)
    env.reset(seed=seed)
    size = batch or positions
    cpu = GumbelSearch(env.game, size, simulations, max_considered)
    device = GumbelSearch(env.game, size, simulations, max_considered, device="cuda")
    evaluate = linear_evaluator(env.game, seed)
    report = SearchReport(positions, simulations, searches, 0, 0, 0.0, 0.0)
    for search in range(searches):
        for _ in range(3 + search):
            env.step(env.random_actions())
        boards, metas = env.boards.copy(), env.metas.copy()
        noise_seed = None if search % 2 else seed + search
        gumbel = (
            None
            if noise_seed is None
            else np.random.default_rng(noise_seed).gumbel(size=(positions, env.game.num_actions)).astype(np.float32)
        )
        rng = (
            None if noise_seed is None else np.random.default_rng(noise_seed)
        )  # draws the same noise in the CPU search
        expected = cpu.run(boards, metas, evaluate, rng)
        got = [_host(part) for part in device.run(boards, metas, _on_the_device(evaluate), gumbel=gumbel)]
        _compare_searches(report, search, expected, got)
    return report


def _compare_searches(
    report: SearchReport, search: int, expected: tuple[np.ndarray, ...], got: list[np.ndarray]
) -> None:
    actions, policies, values, observations = expected
    differing = np.flatnonzero(actions != got[0])
    report.action_mismatches += len(differing)
    if len(differing) and report.first_mismatch is None:
        i = int(differing[0])
        report.first_mismatch = f"search {search}, position {i}: action {actions[i]} (CPU) != {got[0][i]} (device)"
    report.root_observation_mismatches += int((observations != got[3]).reshape(len(observations), -1).any(axis=1).sum())
    report.max_policy_gap = max(report.max_policy_gap, float(np.abs(policies - got[1]).max()))
    report.max_value_gap = max(report.max_value_gap, float(np.abs(values - got[2]).max()))


def check_device_torchrl(name: str, num_envs: int, steps: int = 4) -> str:
    """``CrossTorchRLEnv(name, num_envs, device="cuda")`` passes TorchRL's ``check_env_specs``, and a rollout of
    ``steps`` plays only legal actions; returns the device its tensors are on (the simulator's: the CPU).

    Needs the ``torchrl`` extra. The tests run it under numba's CUDA simulator; a GPU session runs it on the card.
    """
    from torchrl.envs.utils import check_env_specs

    from ..envs.vector import DeviceVectorEnv
    from ..integrations.torchrl import CrossTorchRLEnv

    env = CrossTorchRLEnv(name, num_envs=num_envs, device="cuda")
    assert isinstance(env._vector, DeviceVectorEnv), type(env._vector)
    env.set_seed(0)
    check_env_specs(env, seed=None)
    rollout = env.rollout(steps, break_when_any_done=False)
    assert rollout["action_mask"].gather(-1, rollout["action"].unsqueeze(-1)).all()
    return str(env.device)
