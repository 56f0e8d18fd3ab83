"""The batched envs beyond the contract suite (which checks the two-player batch against single games)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import crossenvs
from crossenvs import InvalidOptionError
from crossenvs.envs.batch import kernel_args
from crossenvs.envs.buffers import KEEP, RecyclingBuffers
from crossenvs.envs.sb3_vec import CrossSB3VecEnv
from crossenvs.envs.vector import CrossVectorEnv
from crossenvs.players import FunctionPlayer

CASES = [
    ("crisscross", {"size": 5}),
    ("crossings", {"move_cap": 40}),
    ("neo_crossings", {"move_cap": 40}),
    ("charing_cross", {"move_cap": 30}),
    ("crosse", {"move_cap": 40}),
]
IDS = [name for name, _ in CASES]


def test_the_envs_import_without_torch_and_the_sb3_face_is_found_where_it_was():
    """Was: the vector env's module imported stable-baselines3 for its SB3 face, and so torch (1.5 s of 1.9). Every
    face but that one imports without torch, Ray or JAX; ``crossenvs.envs.vector.CrossSB3VecEnv`` still works."""
    probe = (
        "import sys, gymnasium, crossenvs.envs.vector, crossenvs.envs.aec, crossenvs.envs.single_agent; "
        "gymnasium.make('crossenvs/Crisscross-v0'); "
        "print(sorted(m for m in ('torch', 'stable_baselines3', 'ray', 'jax') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.split("\n")[-2] == "[]", done.stdout + done.stderr[-2000:]
    from crossenvs.envs import vector

    assert vector.CrossSB3VecEnv is CrossSB3VecEnv
    with pytest.raises(AttributeError, match="no attribute 'CrossSB3Env'"):
        vector.CrossSB3Env  # noqa: B018 - a misspelt name is still an AttributeError


@pytest.mark.parametrize("name, options", CASES, ids=IDS)
def test_sb3_vec_env_plays_whole_games_against_the_random_opponent(name, options):
    env = CrossSB3VecEnv(name, num_envs=8, seed=3, **options)
    game = env.game
    observations = env.reset()
    assert observations.shape == (8, *game.observation_shape)
    seats, finished = set(), 0
    for _ in range(120):
        masks = env.action_masks()
        assert masks.any(axis=1).all()  # the learner is to act in every game
        actions = np.array([np.flatnonzero(mask)[0] for mask in masks])
        observations, rewards, dones, infos = env.step(actions)
        for i, info in enumerate(infos):
            seats.add(info["learner_seat"])
            if dones[i]:
                finished += 1
                assert rewards[i] in (-1.0, 0.0, 1.0) and "terminal_observation" in info
            else:
                assert rewards[i] == 0.0
    assert seats == {0, 1} and finished > 0


def test_sb3_vec_env_is_reproducible_from_its_seed():
    def run(seed):
        env = CrossSB3VecEnv("crisscross", num_envs=4, seed=seed, size=4)
        trace = [env.reset().tobytes()]
        for _ in range(30):
            observations, rewards, _dones, _ = env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
            trace.append(observations.tobytes() + rewards.tobytes())
        return trace, env.learner.tolist()

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_sb3_vec_env_batched_opponent_is_called_once_per_round():
    calls = []

    def first_legal(observations, masks):
        calls.append(len(masks))
        return masks.argmax(axis=1)

    env = CrossSB3VecEnv("charing_cross", num_envs=16, opponent=FunctionPlayer(first_legal, batched=True), seed=0)
    env.reset()
    for _ in range(20):
        env.step(np.array([np.flatnonzero(m)[-1] for m in env.action_masks()]))
    assert calls and max(calls) > 1  # one call serves many games at once


def test_illegal_learner_action_loses_and_restarts():
    env = CrossSB3VecEnv("crossings", num_envs=2, seed=0)
    env.reset()
    masks = env.action_masks()
    actions = np.array([np.flatnonzero(~masks[0])[0], np.flatnonzero(masks[1])[0]])
    _, rewards, dones, infos = env.step(actions)
    assert dones[0] and rewards[0] == -1.0 and infos[0]["illegal_action"] and "terminal_observation" in infos[0]
    assert not dones[1] and "illegal_action" not in infos[1]
    assert env.action_masks()[0].sum() == 60  # game 0 restarted: the learner faces an opening again


def test_maskable_ppo_learns_on_the_vec_env():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    env = VecMonitor(CrossSB3VecEnv("crossings", num_envs=8, seed=0, move_cap=40))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    episodes = list(model.ep_info_buffer)  # the games PPO saw end, with the learner's return in each
    assert len(episodes) >= 4 and {episode["r"] for episode in episodes} <= {-1.0, 0.0, 1.0}
    assert sum(episode["l"] for episode in episodes) <= 512


def test_bad_arguments():
    with pytest.raises(InvalidOptionError, match="num_envs must be a positive integer"):
        CrossVectorEnv("crossings", num_envs=0)
    with pytest.raises(InvalidOptionError, match="player 42 is not usable"):
        CrossSB3VecEnv("crossings", num_envs=2, opponent=42)
    with pytest.raises(InvalidOptionError, match="unknown option"):
        CrossVectorEnv("crossings", num_envs=2, colour="red")
    with pytest.raises(crossenvs.InvalidActionError, match=r"shape \(3,\), one id per game"):
        env = CrossVectorEnv("crossings", num_envs=3)
        env.reset()
        env.step([0, 1])


def test_random_legal_actions_picks_the_quantile_of_the_legal_ids():
    from crossenvs.kernels.random_pick import random_legal_actions

    rng = np.random.default_rng(0)
    masks = (rng.random((300, 3585)) < 0.02).astype(np.int8)
    masks[3] = 0  # no legal action: -1
    masks[4] = 0
    masks[4, 3584] = 1  # only the last id, past the last whole 8-byte word
    uniforms = rng.random(300)
    picked = np.empty(300, dtype=np.int64)
    random_legal_actions(masks, uniforms, picked)
    for row, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        expected = -1 if legal.size == 0 else legal[min(int(uniforms[row] * legal.size), legal.size - 1)]
        assert picked[row] == expected


def test_sb3_vec_env_seeds_each_game_on_its_own():
    """Game i plays the same with the same seed whatever the batch size (per-game random streams)."""

    def run(num_envs):
        env = CrossSB3VecEnv("crisscross", num_envs=num_envs, seed=11, size=4)
        trace = [env.reset()[:3].copy()]
        for _ in range(25):
            observations, _rewards, _, _ = env.step(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
            trace.append(observations[:3].copy())
        return np.stack(trace), env.learner[:3].copy()

    small, large = run(3), run(8)
    assert np.array_equal(small[0], large[0]) and np.array_equal(small[1], large[1])


def _first_legal(masks: np.ndarray) -> np.ndarray:
    return np.array([np.flatnonzero(mask)[0] for mask in masks])


def test_returned_arrays_stay_the_callers_while_released_ones_are_recycled():
    """Steps reuse the memory of arrays the caller let go of, never of arrays it still holds."""
    env = CrossVectorEnv("crossings", num_envs=16)
    observations, info = env.reset(seed=0)
    kept = [(observations, info["action_mask"])]
    copies = [(observations.copy(), info["action_mask"].copy())]
    for step in range(12):
        observations, _, _, _, info = env.step(_first_legal(info["action_mask"]))
        if step % 3 == 0:  # keep some steps' arrays, and a view of one
            kept.append((observations, info["action_mask"]))
            copies.append((observations.copy(), info["action_mask"].copy()))
        elif step == 4:
            view, view_then = observations[2:5], observations[2:5].copy()
    for (held_observations, held_masks), (observations_then, masks_then) in zip(kept, copies):
        np.testing.assert_array_equal(held_observations, observations_then)
        np.testing.assert_array_equal(held_masks, masks_then)
    np.testing.assert_array_equal(view, view_then)


def test_recycling_buffers_reuse_only_what_nothing_refers_to():
    buffers = RecyclingBuffers((4, 3), np.float32)
    first = buffers.take()
    second = buffers.take()
    assert second is not first  # first is still held
    first_id = id(first)
    del first
    assert id(buffers.take()) == first_id  # let go of: handed out again
    row = second[1]
    del second
    third = buffers.take()
    assert third is not row.base  # a view keeps its buffer out of reach
    held = [buffers.take() for _ in range(KEEP + 2)]  # more held than kept: plain new arrays
    assert len({id(array) for array in held}) == len(held)
    assert all(array.shape == (4, 3) and array.dtype == np.float32 for array in held)


@pytest.mark.parametrize("name, options", CASES, ids=IDS)
def test_parallel_and_serial_batch_loops_agree(name, options):
    """The vector env's step over numba's threads gives what it gives on one thread, game by game: the play, the final
    views and restarts, the view of the player to act. (The single-agent env's loops are serial only.)"""
    from crossenvs.envs.batch import env_buffers

    env = CrossVectorEnv(name, num_envs=200, **options)  # at least SERIAL_BELOW: the env may run either way
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    (serial_loop, parallel_loop), games_ended = env._batch.backend.loops["step"], 0
    for _ in range(30):
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in info["action_mask"]], dtype=np.int64)
        actions[rng.integers(200)] = 0  # legal or not: the illegal case is covered too
        results = []
        for step in (lambda args: serial_loop(args, 200), lambda args: parallel_loop(*args)):
            arrays = {name: np.zeros(shape, dtype) for name, (shape, dtype) in env_buffers(env.game, 200).items()}
            start = env.game.initial_state()
            arrays.update(boards=env.boards.copy(), metas=env.metas.copy(), actions=actions,
                          initial_board=start.board, initial_meta=start.meta)  # fmt: skip
            step(kernel_args(arrays)["step"])
            results.append(arrays)
        serial, parallel = results
        games_ended += parallel["ended"].sum()
        for name in parallel:
            np.testing.assert_array_equal(parallel[name], serial[name], err_msg=name)
        info = env.step(actions)[4]
    assert games_ended > 0  # the restarts and final views were exercised


@pytest.mark.parametrize("face", ["vector", "sb3"])
def test_both_vector_envs_pickle_and_play_on_identically(face):
    """They go to subprocesses and Ray workers by pickle; the compiled loops are found again there."""
    import pickle

    if face == "vector":
        env = CrossVectorEnv("crisscross", num_envs=4, size=5)
        masks = env.reset(seed=3)[1]["action_mask"]
    else:
        pytest.importorskip("stable_baselines3")
        env = CrossSB3VecEnv("crossings", num_envs=3, seed=3)
        env.reset()
    copy = pickle.loads(pickle.dumps(env))
    rng = np.random.default_rng(0)
    for _ in range(5):
        masks = env.action_masks() if face == "sb3" else masks
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
        if face == "sb3":
            env.step_async(actions)
            copy.step_async(actions)
            (a, *_), (b, *_) = env.step_wait(), copy.step_wait()
        else:
            (a, *_, info), (b, *_) = env.step(actions), copy.step(actions)
            masks = info["action_mask"]
        np.testing.assert_array_equal(a, b)
