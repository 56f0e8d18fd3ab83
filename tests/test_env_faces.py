"""Every env face as gymnasium/PettingZoo tooling uses it, and a table of bad actions per face.

Faces: ``Game.apply``, the in-place ``Game.stepper()``, the raw AEC env, the AEC env with PettingZoo's standard rules, the
single-agent gymnasium env (direct and through ``gymnasium.make``), the gymnasium vector env
``CrossVectorEnv`` and the stable-baselines3 ``CrossSB3VecEnv``. A value that is no action id
must give :class:`crossenvs.InvalidActionError` (a ``CrossenvsError``) and nothing else.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from pettingzoo.utils.conversions import aec_to_parallel

import crossenvs
from crossenvs.envs import make_env, make_raw_env
from crossenvs.envs.single_agent import CrossSingleAgentEnv
from crossenvs.envs.vector import CrossSB3VecEnv, CrossVectorEnv

GAME, OPTIONS, NUM_ACTIONS = "crisscross", {"size": 4}, 16

#: values that name no action id: each must be refused, whatever the face
BAD_ACTIONS = [
    True,
    False,
    3.0,
    np.float32(1.0),
    float("nan"),
    None,
    [1],
    (1,),
    "a1",
    b"\x01",
    -1,
    NUM_ACTIONS,
    2**70,
    np.int64(-5),
    np.array([1, 2]),
    np.array(2.0),
    np.array(True),
    object(),
]


def _stable_id(value: object) -> str:
    """A test id that is the same in every process (``repr(object())`` holds an address), so xdist's
    workers collect the same tests."""
    return "object()" if type(value) is object else repr(value)


#: batches of actions a vector env of 3 games must refuse
BAD_BATCHES = [
    [0, 1],
    [0, 1, 2, 3],
    [[0], [1], [2]],
    [0, [1], 2],
    [0.0, 1.0, 2.0],
    np.array([0.5, 1.0, 2.0]),
    [True, False, True],
    [0, 1, NUM_ACTIONS],
    [0, -1, 2],
    [0, None, 2],
    [0, float("nan"), 2],
    None,
    7,
    "012",
    np.zeros((3, 1), dtype=np.int64),
]

#: integer ids in every form a user may hold one
GOOD_FORMS = [5, np.int64(5), np.int32(5), np.uint8(5), np.array(5), np.array([5])[0], np.array(5, dtype=np.int16)]


def _fresh_aec(standard: bool):
    env = make_env(GAME, **OPTIONS) if standard else make_raw_env(GAME, **OPTIONS)
    env.reset(seed=0)
    return env


SEED_LEARNER_FIRST = 2  # with seed 2 the learner is seat 0, so the board is empty at its first move


def _fresh_single():
    env = CrossSingleAgentEnv(GAME, **OPTIONS)
    env.reset(seed=SEED_LEARNER_FIRST)
    return env


def _fresh_gym():
    env = gymnasium.make("crossenvs/Crisscross-v0", **OPTIONS)
    env.reset(seed=SEED_LEARNER_FIRST)
    return env


def _stepped(action):
    stepper = crossenvs.make_game(GAME, **OPTIONS).stepper()
    stepper.step(action)
    return stepper.game.observe(stepper.state(), 0)


def _aec_played(standard: bool, action):
    env = _fresh_aec(standard)
    env.step(action)
    return env.observe("player_0")["observation"]


def _single_played(env, action):
    observation, _reward, _terminated, _truncated, info = env.step(action)
    assert "illegal_action" not in info
    return observation


#: each face plays ``action`` as the first player to move and returns that player's observation after it
SINGLE_FACES = {
    "Game.apply": lambda action: crossenvs.make_game(GAME, **OPTIONS).observe(
        crossenvs.make_game(GAME, **OPTIONS).apply(crossenvs.make_game(GAME, **OPTIONS).initial_state(), action), 0
    ),
    "Game.stepper": _stepped,
    "raw AEC": lambda action: _aec_played(False, action),
    "AEC env()": lambda action: _aec_played(True, action),
    "single-agent": lambda action: _single_played(_fresh_single(), action),
    "gymnasium.make": lambda action: _single_played(_fresh_gym(), action),
}


@pytest.mark.parametrize("face", list(SINGLE_FACES))
@pytest.mark.parametrize("action", BAD_ACTIONS, ids=_stable_id)
def test_bad_action_gives_invalid_action_error(face, action):
    with pytest.raises(crossenvs.InvalidActionError) as caught:
        SINGLE_FACES[face](action)
    assert "0..15" in str(caught.value)  # says what would be right


@pytest.mark.parametrize("face", list(SINGLE_FACES))
@pytest.mark.parametrize("action", GOOD_FORMS, ids=_stable_id)
def test_integer_forms_are_accepted(face, action):
    observation = SINGLE_FACES[face](action)  # id 5 is square (row 1, col 1) of the mover's frame
    mine = observation[..., 0]
    assert mine[1, 1] == 1 and mine.sum() == 1, "the mover has one checker, on the square of id 5"


def _vector(kind: str):
    if kind == "gymnasium":
        env = CrossVectorEnv(GAME, num_envs=3, **OPTIONS)
        env.reset(seed=0)
    else:
        env = CrossSB3VecEnv(GAME, num_envs=3, seed=0, **OPTIONS)
        env.reset()
    return env


def _step_vector(env, actions):
    if isinstance(env, CrossSB3VecEnv):
        env.step_async(actions)
        return env.step_wait()
    return env.step(actions)


@pytest.mark.parametrize("kind", ["gymnasium", "sb3"])
@pytest.mark.parametrize("actions", BAD_BATCHES, ids=_stable_id)
def test_bad_batch_gives_invalid_action_error(kind, actions):
    env = _vector(kind)
    before = env.metas.copy() if kind == "gymnasium" else env._batch.metas.copy()
    with pytest.raises(crossenvs.InvalidActionError):
        _step_vector(env, actions)
    after = env.metas if kind == "gymnasium" else env._batch.metas
    assert np.array_equal(before, after), "a refused batch must not play any game"


@pytest.mark.parametrize("kind", ["gymnasium", "sb3"])
def test_integer_batches_of_any_dtype(kind):
    """Ids 5, 6 and 9 are inner squares, which one enemy checker cannot flank, so each stays the mover's."""
    batches = [np.array([5, 6, 9], dtype=dtype) for dtype in (np.int8, np.int32, np.int64, np.uint16)]
    for actions in [*batches, [np.int64(5), 6, np.array(9)]]:
        env = _vector(kind)
        movers = np.zeros(3, dtype=int) if kind == "gymnasium" else env.learner.copy()  # seat 0 opens
        state = env.state if kind == "gymnasium" else env._batch.state
        result = _step_vector(env, actions)
        if kind == "sb3":
            assert not any(info.get("illegal_action") for info in result[3])
        for game, (action, mover) in enumerate(zip([5, 6, 9], movers)):
            mine = env.game.observe(state(game), int(mover))[..., 0]
            assert mine[divmod(action, 4)] == 1 and mine.sum() == 1, f"game {game} played {action}"


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, True, "0"])
def test_bad_seeds_are_refused_by_every_env(seed):
    with pytest.raises(crossenvs.InvalidOptionError, match="seed"):
        make_env(GAME, **OPTIONS).reset(seed=seed)
    with pytest.raises(crossenvs.InvalidOptionError, match="seed"):
        CrossSingleAgentEnv(GAME, **OPTIONS).reset(seed=seed)
    with pytest.raises(crossenvs.InvalidOptionError, match="seed"):
        CrossVectorEnv(GAME, num_envs=2, **OPTIONS).reset(seed=seed)
    with pytest.raises(crossenvs.InvalidOptionError, match="seed"):
        CrossSB3VecEnv(GAME, num_envs=2, seed=seed, **OPTIONS)
    with pytest.raises(crossenvs.InvalidOptionError, match="seed"):
        CrossSB3VecEnv(GAME, num_envs=2, **OPTIONS).seed(seed)


# ----------------------------------------------------------------------------- AEC: turn-based
def test_aec_env_is_not_parallelizable():
    """PettingZoo's documented refusal instead of games that end after one parallel step."""
    for name in crossenvs.list_games():
        env = make_env(name)
        assert env.metadata["is_parallelizable"] is False
        with pytest.raises(AssertionError, match="is_parallelizable"):
            aec_to_parallel(env)


def test_dead_agent_must_pass_none():
    """PettingZoo's documented rule: once an agent is done, its only action is None."""
    env = _fresh_aec(True)
    illegal = 0
    env.step(illegal)  # a1 for Red
    env.step(illegal)  # a1 again: illegal, the game ends with -1 for Blue
    assert all(env.terminations.values()) or all(env.truncations.values())
    with pytest.raises(ValueError, match="None"):
        env.unwrapped.step(3)


# ----------------------------------------------------------------------------- single agent
def test_single_agent_info_carries_the_mask():
    env = _fresh_single()
    _, info = env.reset(seed=3)
    while True:
        assert info["action_mask"].dtype == np.int8
        assert np.array_equal(info["action_mask"].astype(bool), env.action_masks())
        action = env.action_space.sample(mask=info["action_mask"])
        _observation, _reward, terminated, _truncated, info = env.step(np.array(action))
        if terminated:
            assert not info["action_mask"].any()
            break


def test_step_after_the_end_is_a_call_order_error():
    env = _fresh_single()
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    env.step(int(np.flatnonzero(~env.action_masks())[0]))  # illegal: the episode ends
    with pytest.raises(crossenvs.CrossenvsError, match="call reset"):
        env.step(0)


def test_make_vec_with_same_step_autoreset_keeps_masks_right():
    envs = gymnasium.make_vec(
        "crossenvs/Crisscross-v0",
        num_envs=3,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
        size=3,
    )
    _, infos = envs.reset(seed=0)
    ended = 0
    for _ in range(40):
        masks = infos["action_mask"]
        assert masks.shape == (3, 9) and masks.any(axis=1).all(), "every observation comes with its legal moves"
        actions = [envs.single_action_space.sample(mask=mask) for mask in masks]
        _observations, _rewards, terminations, _truncations, infos = envs.step(actions)
        ended += int(terminations.sum())
    envs.close()
    assert ended > 0


# ----------------------------------------------------------------------------- vector env
def _random_batch(env: CrossVectorEnv, info, rng) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(mask)) for mask in info["action_mask"]])


def test_vector_env_is_a_gymnasium_vector_env():
    env = CrossVectorEnv("crossings", num_envs=5)
    assert isinstance(env, VectorEnv) and env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert env.observation_space.shape == (5, *env.single_observation_space.shape)
    assert env.action_space.shape == (5,) and env.single_action_space.n == env.game.num_actions
    observations, _info = env.reset(seed=1)
    assert env.observation_space.contains(observations)
    assert env.action_space.sample().shape == (5,)
    env.close()
    assert env.closed
    with pytest.raises(crossenvs.CrossenvsError, match="closed"):
        env.step(np.zeros(5, dtype=np.int64))


GYMNASIUM_VERSION = tuple(int(part) for part in gymnasium.__version__.split(".")[:2])


def test_every_ended_game_reports_its_length_and_both_returns():
    """What an episode-statistics wrapper needs, counted here independently: a game's length is the
    number of steps its slot took since it (re)started, and its two seats' returns are opposite."""
    env = CrossVectorEnv(GAME, num_envs=8, **OPTIONS)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps_in_game = np.zeros(8, dtype=np.int64)
    ended = 0
    for _ in range(60):
        _observations, rewards, terminations, _truncations, info = env.step(_random_batch(env, info, rng))
        steps_in_game += 1
        done = np.flatnonzero(terminations)
        np.testing.assert_array_equal(info["final_ply"][done], steps_in_game[done])
        seat_rewards = info["seat_rewards"][done]
        assert set(seat_rewards[:, 0]) <= {-1.0, 0.0, 1.0} and np.all(seat_rewards.sum(axis=1) == 0)
        assert np.all(rewards[~terminations] == 0)
        steps_in_game[done] = 0
        ended += len(done)
    assert ended > 8


@pytest.mark.skipif(
    GYMNASIUM_VERSION < (1, 3),
    reason="gymnasium < 1.3 (Ray 2.60 pins 1.2.2): its vector RecordEpisodeStatistics assumes NEXT_STEP autoreset "
    "and counts every game after a slot's first one step short; the test above checks what it would count",
)
def test_record_episode_statistics_counts_every_game():
    env = RecordEpisodeStatistics(CrossVectorEnv(GAME, num_envs=8, **OPTIONS))
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        _observations, rewards, terminations, _truncations, info = env.step(_random_batch(env.unwrapped, info, rng))
        assert rewards.shape == (8,) and info["seat_rewards"].shape == (8, 2)
        ended += int(terminations.sum())
        if terminations.any():
            assert np.array_equal(info["episode"]["l"][terminations], info["final_ply"][terminations])
    assert ended > 8 and len(env.return_queue) == ended
    assert set(env.return_queue) <= {-1.0, 0.0, 1.0}


def test_mover_reward_and_fresh_final_observations():
    env = CrossVectorEnv(GAME, num_envs=6, **OPTIONS)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    kept = []  # final observations from earlier steps must not change later
    for _ in range(40):
        movers = info["current_player"].copy()
        _observations, rewards, terminations, _, info = env.step(_random_batch(env, info, rng))
        assert np.array_equal(rewards, info["seat_rewards"][np.arange(6), movers])
        if terminations.any():
            assert np.array_equal(info["_final_obs"], terminations)
            assert all(row is None for row in info["final_obs"][~terminations])
            for i in np.flatnonzero(terminations):
                assert np.array_equal(info["final_obs"][i], info["final_obs_by_seat"][i][movers[i]])
                kept.append((info["final_obs"][i], info["final_obs"][i].copy()))
        else:
            assert "final_obs" not in info
    assert kept and all(np.array_equal(live, snapshot) for live, snapshot in kept)


def test_reset_mask_restarts_only_chosen_games():
    env = CrossVectorEnv(GAME, num_envs=4, **OPTIONS)
    env.reset(seed=0)
    env.step(np.array([0, 1, 2, 3]))
    before = env.boards.copy()
    env.reset(options={"reset_mask": np.array([True, False, True, False])})
    assert not env.boards[[0, 2]].any() and np.array_equal(env.boards[[1, 3]], before[[1, 3]])
    for bad in ({"reset_mask": [1, 0, 1, 0]}, {"reset_mask": np.ones(3, bool)}, {"seed": 1}, "all"):
        with pytest.raises(crossenvs.InvalidOptionError, match="reset"):
            env.reset(options=bad)


def test_vector_render_modes():
    env = CrossVectorEnv(GAME, num_envs=2, render_mode="rgb_array", **OPTIONS)
    env.reset()
    frames = env.render()
    assert len(frames) == 2 and frames[0].dtype == np.uint8 and frames[0].ndim == 3
    env = CrossVectorEnv(GAME, num_envs=2, render_mode="ansi", **OPTIONS)
    env.reset()
    assert all(isinstance(board, str) and "a" in board for board in env.render())
    with pytest.raises(crossenvs.InvalidOptionError, match="render_mode"):
        CrossVectorEnv(GAME, num_envs=2, render_mode="human", **OPTIONS)


def test_every_face_marks_the_last_move_when_rendering():
    """The cells of the last move are bracketed in text and outlined in frames."""
    aec = make_raw_env(GAME, render_mode="ansi", **OPTIONS)
    aec.reset()
    assert "[" not in aec.render()
    aec.step(5)  # b2
    assert "[R]" in aec.render()
    single = CrossSingleAgentEnv(GAME, render_mode="ansi", **OPTIONS)
    single.reset(seed=0)
    single.step(int(np.flatnonzero(single.action_masks())[0]))
    assert "[" in single.render()
    vector = CrossVectorEnv(GAME, num_envs=2, render_mode="rgb_array", **OPTIONS)
    vector.reset(seed=0)
    vector.step(np.array([0, 5]))
    marked = vector.render()
    for index in range(2):  # the same boards drawn without the mark differ from the marked frames
        unmarked = vector.game.render_rgb(vector.state(index))
        assert marked[index].shape == unmarked.shape and not np.array_equal(marked[index], unmarked)


def test_stepper_refuses_moves_after_the_end():
    stepper = crossenvs.make_game(GAME, size=3).stepper()
    while not stepper.is_terminal:
        assert stepper.step(int(stepper.legal_actions[0]))
    assert stepper.num_legal == 0 and stepper.outcome is not None
    with pytest.raises(crossenvs.IllegalActionError, match="game is over"):
        stepper.step(0)


def test_stepper_refuses_a_state_of_another_board_size_and_keeps_its_own_arrays():
    small, large = crossenvs.make_game(GAME, size=3), crossenvs.make_game(GAME, size=5)
    stepper = small.stepper()
    board, meta = stepper.board, stepper.meta
    with pytest.raises(crossenvs.InvalidStateError, match=r"\(5, 5\).*not a position of this game.*\(3, 3\)"):
        stepper.reset(large.initial_state())
    with pytest.raises(crossenvs.InvalidStateError):
        small.stepper(large.initial_state())
    start = small.initial_state()
    stepper.step(int(stepper.legal_actions[0]))
    assert small.initial_state() == start  # playing never touches the start it resets to
    stepper.reset(small.apply(start, 4))
    assert stepper.board is board and stepper.meta is meta  # the kernel stays bound to these
    assert stepper.state() == small.apply(start, 4) and stepper.num_legal == 8


def test_the_stepper_calls_the_compiled_kernel_without_numbas_dispatcher():
    """bind_buffers found the machine code's entry point (a numba upgrade that moved it would fall back, slower)."""
    from numba.core import config
    from numba.core.registry import CPUDispatcher

    if config.DISABLE_JIT:
        pytest.skip("numba is off")
    stepper = crossenvs.make_game(GAME, **OPTIONS).stepper()
    assert not isinstance(stepper._step.func, CPUDispatcher) and callable(stepper._step.func)
    assert stepper.step(int(stepper.legal_actions[0])) and stepper.num_legal == NUM_ACTIONS - 1


def test_the_stepper_docstring_example_runs():
    import doctest

    import crossenvs.core.stepper

    assert doctest.testmod(crossenvs.core.stepper).failed == 0
