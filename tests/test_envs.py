"""The official PettingZoo, gymnasium and SB3 checkers and the envs' own behaviour."""

from __future__ import annotations

import pickle
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env as gym_check_env
from pettingzoo.test import api_test, parallel_api_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import crossenvs
from crossenvs import IllegalActionError, crisscross_v0
from crossenvs.envs import CrossSingleAgentEnv

# every registered game's env, at its defaults and its declared test options, under the checkers
ENV_CASES = [
    (f"{name}_v0", options)
    for name in crossenvs.list_games()
    for options in [{}, *crossenvs.game_spec(name).test_options]
]
CASE_IDS = [module + "".join(f"-{v}" for v in options.values()) for module, options in ENV_CASES]
GYM_CASES = [(crossenvs.game_spec(name).env_name, {}) for name in crossenvs.list_games()]


def entry(module: str):
    return getattr(crossenvs, module)


def from_registry(module: str, options: dict):
    """The env as PettingZoo 1.27's users make it: ``pettingzoo.make("aec", "crossenvs/<game>-v0", **options)``."""
    return pettingzoo.make("aec", crossenvs.game_spec(module.removesuffix("_v0")).pettingzoo_id, **options)


@pytest.mark.parametrize("module, options", ENV_CASES, ids=CASE_IDS)
def test_pettingzoo_api_test(module, options):
    api_test(from_registry(module, options), num_cycles=1000)


@pytest.mark.parametrize("module, options", ENV_CASES, ids=CASE_IDS)
def test_pettingzoo_seed_test(module, options):
    seed_test(lambda: from_registry(module, options), num_cycles=500)


def test_pettingzoo_registry_holds_every_game_as_its_entry_module_makes_it():
    ids = {spec.id for spec in pettingzoo.aec_registry.values() if spec.namespace == "crossenvs"}
    assert ids == {crossenvs.game_spec(name).pettingzoo_id for name in crossenvs.list_games()}
    assert "crossenvs/tictactoe-v0" in ids  # the example game, registered after crossenvs was imported
    made, direct = pettingzoo.make("aec", "crossenvs/crisscross_v0", size=6), crisscross_v0.env(size=6)
    assert type(made) is type(direct)
    assert (made.unwrapped.game.name, made.unwrapped.game.options) == ("crisscross", direct.unwrapped.game.options)
    assert direct.unwrapped.game.options["size"] == 6
    with pytest.raises(crossenvs.InvalidOptionError, match="size"):
        pettingzoo.make("aec", "crossenvs/crisscross-v0", size=1)


def test_a_pettingzoo_without_a_registry_registers_nothing_and_fails_nothing(monkeypatch):
    """PettingZoo before 1.27 has no registry: the entry modules are all it gets, as before."""
    from crossenvs.envs import registration

    monkeypatch.delattr(pettingzoo, "register")
    monkeypatch.delattr(pettingzoo, "aec_registry")
    spec = crossenvs.game_spec("crosse")
    registration.register_with_pettingzoo(spec, crossenvs.crosse_v0)  # returns without a word


@pytest.mark.parametrize("module, options", ENV_CASES, ids=CASE_IDS)
def test_pettingzoo_parallel_api_test(module, options):
    parallel_api_test(turn_based_aec_to_parallel(entry(module).env(**options)), num_cycles=1000)


@pytest.mark.parametrize("name, options", GYM_CASES)
def test_gymnasium_check_env(name, options):
    env = gymnasium.make(f"crossenvs/{name}-v0", **options)
    gym_check_env(env.unwrapped)


@pytest.mark.parametrize("name, options", GYM_CASES)
def test_sb3_check_env(name, options):
    from stable_baselines3.common.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gymnasium.make(f"crossenvs/{name}-v0", **options).unwrapped)
    # SB3 reports problems as warnings. The only ones allowed are its advice for CnnPolicy
    # about 3-D boxes: our planes are float32 (H, W, C) by design (shapes in docs/README.md).
    problems = [str(w.message) for w in caught if "image" not in str(w.message)]
    assert problems == []


@pytest.mark.parametrize("name, options", [("Crisscross", {"size": 5}), ("Crossings", {"move_cap": 60})])
def test_maskable_ppo_trains_a_few_hundred_steps(name, options):
    from sb3_contrib import MaskablePPO

    env = gymnasium.make(f"crossenvs/{name}-v0", **options)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=384)
    episodes = list(model.ep_info_buffer)  # SB3's Monitor: each finished game's learner return and length
    assert episodes and {episode["r"] for episode in episodes} <= {-1.0, 0.0, 1.0}
    assert all(1 <= episode["l"] <= 384 for episode in episodes)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.unwrapped.action_masks()[int(action)]


def test_raw_env_raises_on_illegal_action():
    env = crisscross_v0.raw_env(size=4)
    env.reset()
    env.step(0)  # player_0 takes a1
    with pytest.raises(IllegalActionError, match="illegal move a1"):
        env.step(0)  # player_1 tries a1 (action 0 is a1 in either frame)


def test_wrapped_env_ends_the_game_with_minus_one_for_an_illegal_move():
    env = crisscross_v0.env(size=4)
    env.reset(seed=0)
    env.step(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the wrapper warns about the illegal move
        env.step(0)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 0, "player_1": -1}


def test_aec_observation_and_mask_conventions():
    env = crisscross_v0.env(size=5)
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    first = env.observe("player_0")
    other = env.observe("player_1")
    assert first["observation"].shape == (5, 5, 2) and first["observation"].dtype == np.float32
    assert first["action_mask"].dtype == np.int8 and first["action_mask"].all()
    assert not other["action_mask"].any()  # not on move
    env.step(7)  # red c2
    obs = env.observe("player_1")["observation"]
    assert obs[2, 1, 1] == 1.0  # Blue sees red's c2 at its transposed square (row 2, col 1)
    assert env.agent_selection == "player_1"


def test_aec_env_pickles():
    env = crisscross_v0.env(size=5)
    env.reset()
    clone = pickle.loads(pickle.dumps(env))
    clone.reset()
    assert clone.unwrapped.game.size == 5


@pytest.mark.parametrize("seed", range(5))
def test_full_games_reward_winner_and_loser(seed):
    env = crisscross_v0.env(size=5)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    final = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert sorted(final) == ["player_0", "player_1"]
    assert sorted(final.values()) in ([-1, 1], [0, 0])


def episode(env, seed: int) -> tuple[int, list[bytes], float]:
    """Learner seat, every observation, and the final reward of a seeded episode."""
    observation, info = env.reset(seed=seed)
    seen, done, reward = [observation.tobytes()], False, 0.0
    while not done:
        observation, reward, done, _, _ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
        seen.append(observation.tobytes())
    return info["learner_seat"], seen, reward


def test_single_agent_episodes_follow_the_seed():
    env = gymnasium.make("crossenvs/Crisscross-v0", size=5)
    runs = {seed: episode(env, seed) for seed in range(12)}
    assert {seat for seat, _, _ in runs.values()} == {0, 1}
    for seed, run in runs.items():
        assert episode(env, seed) == run  # same seed: same seat, same opponent moves
    for seat, observations, _ in runs.values():
        first = np.frombuffer(observations[0], dtype=np.float32).reshape(5, 5, 2)
        assert first[..., 1].sum() == seat  # as Blue, the random Red opponent has moved once


class CountingOpponent:
    """An opponent with an SB3-style predict: always the first legal action."""

    def __init__(self):
        self.calls = 0

    def predict(self, observation, action_masks=None, deterministic=False):
        self.calls += 1
        return int(np.flatnonzero(action_masks)[0]), None


@pytest.mark.parametrize(
    "make_opponent",
    [lambda: CountingOpponent(), lambda: lambda obs, mask: int(np.flatnonzero(mask)[-1])],
    ids=["predict", "callable"],
)
def test_single_agent_plays_whole_games_against_custom_opponents(make_opponent):
    opponent = make_opponent()
    env = CrossSingleAgentEnv("crisscross", opponent=opponent, size=4)
    rng = np.random.default_rng(0)
    for episode in range(10):
        env.reset(seed=episode)
        done, reward = False, 0.0
        while not done:
            _, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            assert not truncated and "illegal_action" not in info
        assert reward in (-1.0, 0.0, 1.0)
        assert not env.action_masks().any()
    if isinstance(opponent, CountingOpponent):
        assert opponent.calls > 0


def test_single_agent_illegal_action_loses():
    env = CrossSingleAgentEnv("crisscross", size=4)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))  # now both sides have a checker down
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    assert not env.action_masks().any()  # the episode is over
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(int(np.flatnonzero(env.unwrapped.game.legal_mask(env.state))[0]))


def test_single_agent_step_after_a_finished_game_is_a_call_order_error_until_reset():
    """A game played to its end (not cut short by an illegal move): the next step says to reset, and nothing moves."""
    env = CrossSingleAgentEnv("crisscross", size=4)
    _, info = env.reset(seed=3)
    rng, terminated = np.random.default_rng(0), False
    while not terminated:
        _, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert reward in (-1.0, 1.0) and "illegal_action" not in info
    before = env.state
    with pytest.raises(crossenvs.CallOrderError, match=r"after the episode ended; call reset\(\) first"):
        env.step(0)
    assert env.state == before
    _, info = env.reset(seed=4)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))  # a new episode steps again


def test_draw_gives_zero_to_both_agents():
    """The drawn 6x6 board of test_text_and_errors with a6 empty; Red fills it."""
    env = crisscross_v0.env(size=6)
    env.reset()
    raw = env.unwrapped
    rows = [". R B B R R"] + ["B B R R B B", "R R B B R R"] * 2 + ["B B R R B B"]
    raw.state = raw.game.from_text("to_move: red\n" + "".join(f"{6 - i} {row}\n" for i, row in enumerate(rows)))
    env.step(raw.game.str_to_action(raw.state, "a6"))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 0, "player_1": 0}


def test_observe_after_the_game_ended():
    env = crisscross_v0.env(size=3)
    env.reset(seed=0)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    for agent in ("player_0", "player_1"):
        assert not env.observe(agent)["action_mask"].any()


def test_bad_opponent_and_render_mode_are_refused():
    with pytest.raises(crossenvs.InvalidOptionError, match="player 42 is not usable"):
        CrossSingleAgentEnv("crisscross", opponent=42)
    with pytest.raises(ValueError, match="render_mode 'video'"):
        crisscross_v0.env(render_mode="video")


def test_render_modes():
    env = crisscross_v0.env(render_mode="rgb_array", size=6)
    env.reset()
    env.step(0)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert (image == np.array([205, 45, 45], dtype=np.uint8)).all(axis=2).any()  # a red checker is drawn
    text_env = crisscross_v0.env(render_mode="ansi", size=6)
    text_env.reset()
    text_env.step(0)
    text = text_env.render()
    assert text.startswith("Blue to move (ply 1)") and "1[R]. . . . ." in text  # the last move bracketed
    # human mode, a window: tests/test_window.py


def test_gymnasium_ids_and_entry_modules_registered_on_import():
    code = "import crossenvs, gymnasium; print(crossenvs.list_games(), sorted(i for i in gymnasium.registry if 'crossenvs/' in i))"
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    built_in = "['charing_cross', 'connect_four', 'crisscross', 'crosse', 'crossings', 'hex', 'neo_crossings'"
    assert fresh.split("] [")[0] == built_in
    for name in ("CharingCross", "ConnectFour", "Crisscross", "Crosse", "Crossings", "Hex", "NeoCrossings"):
        assert f"crossenvs/{name}-v0" in fresh
    for name in crossenvs.list_games():  # the example game too (tests import it)
        assert crossenvs.game_spec(name).gym_id in gymnasium.registry
        assert name == getattr(crossenvs, f"{name}_v0").GAME
    import crossenvs.crosse_v0 as by_import

    assert by_import is crossenvs.crosse_v0
    assert pickle.loads(pickle.dumps(crossenvs.crosse_v0.env)) is crossenvs.crosse_v0.env  # by reference


@pytest.mark.parametrize("module", sorted({module for module, _ in ENV_CASES}))
def test_entry_modules_refuse_unknown_options_by_name(module):
    with pytest.raises(crossenvs.InvalidOptionError, match=r"unknown option.*known options"):
        entry(module).env(colour="red")
    with pytest.raises(crossenvs.InvalidOptionError, match="unknown option"):
        entry(module).raw_env(colour="red")


H2B = "to_move: black\n" + "\n".join(
    ["8 . . . R R . . .", "7 . N . . . . . .", "5 . . . . . . . n"]
    + ["4 . . N . . . . n", "3 . . . r . . . .", "1 . . . . r . . ."]
)


def test_charing_cross_aec_hands_the_choice_to_the_jumped_pieces_owner():
    env = crossenvs.charing_cross_v0.raw_env()
    env.reset()
    raw = env.unwrapped
    raw.state, env.agent_selection = raw.game.from_text(H2B), "player_1"
    env.step(raw.game.str_to_action(raw.state, "d3-b5"))  # Black jumps White's c4 knight
    assert env.agent_selection == "player_0"
    mask = env.observe("player_0")["action_mask"]
    assert {raw.game.action_to_str(raw.state, a) for a in np.flatnonzero(mask)} == {"@a4", "@a5"}
    assert not env.observe("player_1")["action_mask"].any()
    env.step(raw.game.str_to_action(raw.state, "@a5"))
    assert env.agent_selection == "player_0"  # then White plays his own turn


def learner_as_white(env) -> None:
    for seed in range(20):
        _, info = env.reset(seed=seed)
        if info["learner_seat"] == 0:
            return
    raise AssertionError("no seed gave the learner White")


def test_charing_cross_single_agent_learner_makes_its_own_choices():
    game = crossenvs.make_game("charing_cross")

    def jump_if_possible(observation, mask):  # the opponent: d3-b5 when legal, else its first move
        state = env.state
        wanted = game.str_to_action(state, "d3-b5") if game.current_player(state) == 1 else -1
        return wanted if 0 <= wanted < mask.size and mask[wanted] else int(np.flatnonzero(mask)[0])

    env = CrossSingleAgentEnv("charing_cross", opponent=jump_if_possible)
    learner_as_white(env)
    # the learner self-jumps: its next step is the choice, and only then does the opponent move
    env.step(game.str_to_action(env.state, "a4-a6"))
    assert {game.action_to_str(env.state, a) for a in np.flatnonzero(env.action_masks())} == {"@a4", "@a5"}
    assert env.state.ply == 1
    env.step(game.str_to_action(env.state, "@a4"))
    assert env.state.ply == 2 and game.current_player(env.state) == 0
    # the opponent jumps the learner's knight: the learner's next step is where it goes
    env.state = game.from_text(H2B.replace("to_move: black", "to_move: white"))
    env.step(game.str_to_action(env.state, "d8-d7"))
    assert {game.action_to_str(env.state, a) for a in np.flatnonzero(env.action_masks())} == {"@a4", "@a5"}
    ply = env.state.ply
    env.step(game.str_to_action(env.state, "@a5"))
    assert game.current_player(env.state) == 0 and env.state.ply == ply  # the learner moves again at once


@pytest.mark.parametrize("face", ["wrapped", "raw", "gymnasium"])
def test_a_step_checks_its_action_once_and_runs_the_rules_once(face, monkeypatch):
    """Every face reads an action with one ``action_id`` call, legal or not, and an illegal move is refused by
    the stepper's one kernel call: ``Game.apply`` is never run again just to word the error."""
    import crossenvs.core.stepper as stepper_module
    import crossenvs.envs.aec as aec_module
    import crossenvs.envs.single_agent as single_agent_module
    import crossenvs.envs.wrappers as wrappers_module
    from crossenvs.support.actions import action_id

    game = crossenvs.make_game("crisscross", size=5)
    env = {
        "wrapped": lambda: crisscross_v0.env(size=5),
        "raw": lambda: crisscross_v0.raw_env(size=5),
        "gymnasium": lambda: CrossSingleAgentEnv(game, opponent="random"),
    }[face]()
    env.reset(seed=0)
    checks = []
    for module in (stepper_module, aec_module, single_agent_module, wrappers_module):
        monkeypatch.setattr(module, "action_id", lambda *a, **k: checks.append(1) or action_id(*a, **k))
    monkeypatch.setattr(env.unwrapped.game, "apply", lambda *a: pytest.fail("Game.apply ran the rules again"))
    first = int(np.flatnonzero(env.unwrapped._game.mask())[0])
    env.step(first)
    assert len(checks) == (2 if face == "gymnasium" else 1)  # the gymnasium env's opponent's reply: one more
    checks.clear()
    if face == "gymnasium":
        assert env.step(first)[1:3] == (-1.0, True)  # the same cell again: taken, so illegal
    elif face == "wrapped":
        mover = env.agent_selection
        env.step(first)
        assert env.rewards[mover] == -1 and all(env.terminations.values())
    else:
        checks.clear()
        with pytest.raises(IllegalActionError, match=r"crisscross: illegal move .* \(action \d+\) for"):
            env.step(first)
    assert len(checks) == 1


@pytest.mark.parametrize("face", ["aec", "gymnasium"])
def test_the_envs_step_through_the_single_game_stepper(face, monkeypatch):
    """A legal move is one stepper call: the game's slower calls (apply, legal_mask, is_terminal, current_player)
    are not made (outcome is, once, at the end; the gymnasium env's opponent is a player, which reads the game's
    mask); an illegal one still says what Game.apply says."""
    game = crossenvs.make_game("crisscross", size=5)
    env = crisscross_v0.raw_env(size=5) if face == "aec" else CrossSingleAgentEnv(game, opponent="random")
    env.reset(seed=0)
    for name in ("apply", "is_terminal", "current_player") + (("legal_mask",) if face == "aec" else ()):
        monkeypatch.setattr(env.game, name, lambda *a, name=name: pytest.fail(f"Game.{name} was called"))
    rng = np.random.default_rng(0)
    if face == "aec":
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    else:
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            done = env.step(np.int64(action))[2]
    monkeypatch.undo()
    env.reset(seed=1)
    first = int(np.flatnonzero(env._game.mask())[0])
    env.step(first)  # then the same cell again: taken, so illegal
    if face == "aec":
        with pytest.raises(IllegalActionError, match=r"crisscross: illegal move .* \(action \d+\) for"):
            env.step(first)
    else:
        assert env.step(first)[1:3] == (-1.0, True)
