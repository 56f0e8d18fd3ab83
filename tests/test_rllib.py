"""Ray RLlib: the turn-based MultiAgentEnv, the masked module, league self-play, checkpoints as players.

One short PPO iteration per game (a few hundred env steps) on a local Ray with 2 CPUs, started
once for the module and shut down at its end; 20 s in all on an idle 2-core CPU (a minute beside
other jobs).
"""

from __future__ import annotations

import io
import json
import logging
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import CROSSE_C4, position, training_script

pytest.importorskip("ray.rllib", reason='needs the rllib extra: pip install -e ".[rllib]"')
import ray
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.utils.pre_checks.env import check_multiagent_environments

import crossenvs
from crossenvs import CheckpointError, make_game
from crossenvs.cli import main as cli_main
from crossenvs.eval.arena import match, round_robin
from crossenvs.integrations import rllib
from crossenvs.players import make_player

ROOT = Path(__file__).resolve().parent.parent
rllib_selfplay = training_script("rllib_selfplay")

pytestmark = pytest.mark.filterwarnings("ignore:.*Overriding environment rllib-multi-agent-env-v0")

GAMES = ["crosse", "crossings", "neo_crossings", "charing_cross", "crisscross"]
#: the smallest PPO that trains: one iteration is a few hundred env steps and one epoch
TINY = {"batch": 200, "minibatch": 100, "epochs": 1, "model": {"channels": 8, "layers": 1}, "seed": 0}


@pytest.fixture(scope="module")
def local_ray():
    threads = torch.get_num_threads()  # env runners in this process set one torch thread: give it back
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.ERROR)
    yield
    ray.shutdown()
    torch.set_num_threads(threads)


def play_out(env: rllib.CrossMultiAgentEnv, rng: np.random.Generator, observations: dict) -> tuple[dict, list[str]]:
    """Random legal actions to the end; the final rewards and the agent of every decision."""
    movers = []
    while True:
        assert len(observations) == 1, "only the agent to act observes during a game"
        ((agent, observation),) = observations.items()
        movers.append(agent)
        seat = rllib.AGENTS.index(agent)
        assert env.game.current_player(env.state) == seat
        assert np.array_equal(observation[rllib.MASK], env.game.legal_mask(env.state).astype(np.float32))
        assert np.array_equal(observation[rllib.OBS], env.game.observe(env.state, seat))
        action = int(rng.choice(np.flatnonzero(observation[rllib.MASK])))
        observations, rewards, terminateds, truncateds, infos = env.step({agent: action})
        assert not truncateds["__all__"]
        if terminateds["__all__"]:
            return {"rewards": rewards, "observations": observations, "infos": infos}, movers
        assert rewards == {agent: 0.0}


# ----------------------------------------------------------------------------- env
@pytest.mark.parametrize("name", GAMES)
def test_env_plays_whole_games_with_masks(name):
    env = rllib.CrossMultiAgentEnv({"game": name})
    check_multiagent_environments(env)  # RLlib's checker steps a sampled (likely illegal) action: no error
    env.illegal_actions = 0
    rng = np.random.default_rng(1)
    for seed in range(2):
        observations, _ = env.reset(seed=seed)
        assert list(observations) == ["player_0"]
        assert env.observation_spaces["player_0"].contains(observations["player_0"])
        end, _ = play_out(env, rng, observations)
        outcome = dict(zip(rllib.AGENTS, env.game.outcome(env.state)))
        assert end["rewards"] == {agent: outcome[agent] for agent in end["rewards"]}
        assert set(end["rewards"]) == set(rllib.AGENTS)
        assert all(not obs[rllib.MASK].any() for obs in end["observations"].values())
        assert {agent: info["outcome"] for agent, info in end["infos"].items()} == end["rewards"]
    assert env.illegal_actions == 0


def test_illegal_action_ends_the_game_and_is_counted():
    env = rllib.CrossMultiAgentEnv({"game": "crisscross", "options": {"size": 4}})
    env.reset()
    env.step({"player_0": 0})
    _, rewards, terminateds, _, infos = env.step({"player_1": 0})  # a0 is taken
    assert terminateds["__all__"] and rewards == {"player_0": 0.0, "player_1": -1.0}
    assert infos["player_1"]["illegal_action"] and env.illegal_actions == 1
    with pytest.raises(crossenvs.CallOrderError, match="reset"):
        env.step({"player_0": 1})
    env.reset()
    with pytest.raises(crossenvs.InvalidActionError, match="out of range"):
        env.step({"player_0": 99})
    with pytest.raises(crossenvs.InvalidActionError, match="player_0's turn"):
        env.step({"player_1": 3})
    with pytest.raises(crossenvs.InvalidOptionError, match="unknown key"):
        rllib.CrossMultiAgentEnv({"name": "crosse"})


def test_same_agent_acts_twice_in_a_row_crosse_jump():
    """Crosse example C4: White must jump twice, hop by hop; White gets both observations, then
    play goes on and the final rewards are the game's outcome."""
    env = rllib.CrossMultiAgentEnv({"game": "crosse"})
    game = env.game
    white = rllib.AGENTS[game.player_of_colour("white")]
    observations, _ = env.reset(options={"position": position(CROSSE_C4, "white")})
    assert list(observations) == [white]
    observations, rewards, _, _, _ = env.step({white: game.str_to_action(env.state, "h6xf8")})
    assert list(observations) == [white] and rewards == {white: 0.0}
    assert [game.action_to_str(env.state, a) for a in np.flatnonzero(observations[white][rllib.MASK])] == ["f8xh10"]
    observations, _, _, _, _ = env.step({white: game.str_to_action(env.state, "f8xh10")})
    assert list(observations) != [white]
    end, _ = play_out(env, np.random.default_rng(0), observations)
    assert end["rewards"] == dict(zip(rllib.AGENTS, game.outcome(env.state)))


def test_same_agent_acts_twice_in_a_row_charing_cross_replacement():
    env = rllib.CrossMultiAgentEnv({"game": "charing_cross"})
    observations, _ = env.reset()
    game = env.game
    observations, _, _, _, _ = env.step({"player_0": game.str_to_action(env.state, "a4-a6")})
    assert list(observations) == ["player_0"]  # where does the jumped knight go? its owner decides
    choices = [game.action_to_str(env.state, a) for a in np.flatnonzero(observations["player_0"][rllib.MASK])]
    assert choices == ["@a4", "@a5"]
    observations, _, _, _, _ = env.step({"player_0": game.str_to_action(env.state, "@a4")})
    assert list(observations) == ["player_1"]
    end, _ = play_out(env, np.random.default_rng(2), observations)
    assert end["rewards"] == dict(zip(rllib.AGENTS, game.outcome(env.state)))


# ----------------------------------------------------------------------------- module and league
@pytest.mark.parametrize("name", GAMES)
def test_module_never_samples_an_illegal_action(name):
    game = make_game(name)
    module = rllib.module_spec(game, TINY["model"]).build()
    rng = np.random.default_rng(0)
    masks = (rng.random((16, game.num_actions)) < 0.01).astype(np.float32)
    masks[np.arange(16), rng.integers(game.num_actions, size=16)] = 1.0
    batch = {Columns.OBS: {rllib.OBS: torch.rand(16, *game.observation_shape), rllib.MASK: torch.from_numpy(masks)}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS]
        assert logits.shape == (16, game.num_actions)
        samples = torch.distributions.Categorical(logits=logits).sample((200,))
        assert masks[np.arange(16)[None, :], samples.numpy()].all()
    assert module.compute_values(batch).shape == (16,)
    empty = {
        Columns.OBS: {rllib.OBS: torch.rand(1, *game.observation_shape), rllib.MASK: torch.zeros(1, game.num_actions)}
    }
    assert torch.isfinite(torch.log_softmax(module.forward_train(empty)[Columns.ACTION_DIST_INPUTS], -1)).all()


def test_league_mapping_puts_main_in_one_seat_and_both_seats_over_episodes():
    class Episode:
        def __init__(self, number):
            self.id_ = f"episode-{number}"

    mapping = rllib.LeagueMapping(["random", "main_v1", "main_v2"])
    seats, opponents = [], set()
    for number in range(200):
        modules = [mapping(agent, Episode(number)) for agent in rllib.AGENTS]
        assert modules.count("main") == 1
        seats.append(modules.index("main"))
        opponents.add(modules[1 - seats[-1]])
    assert 60 < sum(seats) < 140 and opponents == {"random", "main_v1", "main_v2"}


# ----------------------------------------------------------------------------- training
@pytest.mark.parametrize("name", GAMES)
def test_one_training_iteration_per_game_samples_no_illegal_action(local_ray, name):
    algo = rllib.league_config(make_game(name), **TINY).build_algo()
    try:
        runners = algo.train()["env_runners"]
        assert runners["num_env_steps_sampled"] >= TINY["batch"]
        assert runners["illegal_actions"] == 0
        envs = algo.env_runner.env.envs
        assert sum(env.unwrapped.illegal_actions for env in envs) == 0  # the env checker's step is not counted
        steps = runners["num_module_steps_sampled"]
        assert steps["main"] > 0 and steps["random"] > 0
    finally:
        algo.stop()


def test_league_snapshot_checkpoint_and_arena_player(local_ray, tmp_path, capsys, monkeypatch):
    game = make_game("crisscross", size=5)
    algo = rllib.league_config(game, **TINY).build_algo()
    try:
        algo.train()
        snapshot = rllib.add_snapshot(algo)
        assert snapshot == "main_v1" and rllib.league_opponents(algo) == ["random", "main_v1"]
        frozen = {k: v.clone() for k, v in algo.get_module("main_v1").state_dict().items()}
        main = algo.get_module("main").state_dict()
        assert all(torch.equal(frozen[k], main[k]) for k in frozen)
        runners = algo.train()["env_runners"]
        assert runners["num_module_steps_sampled"].get("main_v1", 0) > 0  # main met its snapshot
        assert all(torch.equal(frozen[k], v) for k, v in algo.get_module("main_v1").state_dict().items())
        folder = rllib.save_checkpoint(algo, tmp_path / "run" / "checkpoints" / "iter_000002", game)
    finally:
        algo.stop()
    assert json.loads((folder / rllib.METADATA).read_text())["options"] == {"size": 5}
    monkeypatch.chdir(tmp_path)
    for spec in (f"rllib:{folder}", "rllib:run"):  # a checkpoint; a run folder (its newest), relative
        player = make_player(spec, game=game)
        records = round_robin(game, [player, make_player("random")], 4, seed=0)
        assert len(records) == 4 and {r.first for r in records} == {player.name, "random"}
        state = game.initial_state()
        assert game.legal_mask(state)[player.act(game, state)]
    with pytest.raises(CheckpointError, match="trained on crisscross"):
        make_player(f"rllib:{folder}", game=make_game("crisscross", size=6))
    with pytest.raises(CheckpointError, match="no RLlib checkpoint"):
        make_player(f"rllib:{tmp_path}", game=game)
    assert (
        cli_main(["eval", "crisscross", "--option", "size=5", "--players", f"rllib:{folder}", "random", "--games", "2"])
        == 0
    )
    assert "rllib-iter_000002" in capsys.readouterr().out
    out = io.StringIO()  # crossenvs play: the checkpoint opens as Red, then the input ends
    argv = ["play", "crisscross", "--option", "size=5", "--opponent", f"rllib:{folder}", "--seat", "second"]
    assert cli_main(argv, out=out, source=io.StringIO("")) == 0
    assert "rllib-iter_000002 plays" in out.getvalue()


def test_script_runs_one_iteration_and_evaluates(local_ray, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["--game", "crisscross", "--option", "size=4", "--iterations", "2", "--snapshot-every", "1", "--batch", "200",
            "--minibatch", "100", "--epochs", "1", "--eval-games", "4", "--checkpoint-every", "1", "--keep", "1",
            "--out", str(out)]  # fmt: skip
    assert rllib_selfplay.main(argv) == 0
    printed = capsys.readouterr().out
    assert "league: added main_v1" in printed and "0 illegal actions" in printed
    summary = json.loads((out / "summary.json").read_text())
    assert summary["illegal_actions"] == 0 and summary["games"] == 4 and Path(summary["checkpoint"]).is_dir()
    assert [path.name for path in (out / "checkpoints").iterdir()] == ["iter_000002"]  # --keep 1
    assert ray.is_initialized()  # the script leaves a caller's Ray running
    assert rllib_selfplay.main(argv) == 2  # the folder holds a run now
    assert "already holds a run" in capsys.readouterr().err


def test_script_resumes_a_run_from_its_newest_checkpoint(local_ray, tmp_path, capsys, monkeypatch):
    out = tmp_path / "run"
    argv = ["--option", "size=4", "--snapshot-every", "1", "--batch", "200", "--minibatch", "100", "--epochs", "1",
            "--eval-games", "2", "--checkpoint-every", "1", "--keep", "2"]  # fmt: skip
    assert rllib_selfplay.main(["--game", "crisscross", "--iterations", "2", "--out", str(out), *argv]) == 0
    first = json.loads((out / "summary.json").read_text())
    saved = out / "checkpoints" / "iter_000002"
    weights = {name: tensor.clone() for name, tensor in rllib.load_module(saved).state_dict().items()}
    (out / "checkpoints" / ".iter_000003.tmp").mkdir()  # a write cut short by a kill
    capsys.readouterr()
    assert rllib_selfplay.main(["--resume", str(out), "--iterations", "2"]) == 2
    assert "is iteration 2 of --iterations 2: the run is done" in capsys.readouterr().err
    assert rllib_selfplay.main(["--resume", str(out), "--lr", "0.1"]) == 2
    assert "--lr is 0.0003 in this run; a resumed run keeps its settings" in capsys.readouterr().err

    restored = {}
    original = rllib.restore_league

    def restore_and_look(algo, checkpoint, opponents, recent):  # what the run holds just after restoring
        original(algo, checkpoint, opponents, recent)
        main = {name: tensor.clone() for name, tensor in algo.get_module("main").state_dict().items()}
        restored.update(main=main, league=rllib.league_opponents(algo))

    monkeypatch.setattr(rllib, "restore_league", restore_and_look)
    assert rllib_selfplay.main(["--resume", str(out), "--iterations", "3"]) == 0
    printed = capsys.readouterr().out
    assert f"resuming {out} from iter_000002" in printed and "league ['random', 'main_v1']" in printed
    assert "iteration 3/3" in printed and "iteration 2/3" not in printed
    assert restored["league"] == ["random", "main_v1"]
    assert all(torch.equal(weights[name], restored["main"][name]) for name in weights)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["checkpoint"].endswith("iter_000003") and summary["env_steps"] > first["env_steps"]
    assert summary["iterations"] == 3 and json.loads((out / "run.json").read_text())["iterations"] == 3
    assert sorted(path.name for path in (out / "checkpoints").iterdir()) == ["iter_000002", "iter_000003"]


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--iterations", "0"], "--iterations must be at least 1"),
        (["--minibatch", "5000"], "--minibatch 5000 is larger than --batch"),
        (["--eval-opponent", "nobody"], "unknown player 'nobody'"),
        (["--option", "size=99"], "size"),
        (["--num-cpus", "0"], "--num-cpus must be at least 1"),
        (["--env-runners", "-1"], "--env-runners must be at least 0"),
        (["--envs-per-runner", "0"], "--envs-per-runner must be at least 1"),
        (["--learners", "-1"], "--learners must be at least 0"),
        (["--league-recent", "0"], "--league-recent must be at least 1"),
        (["--gpus-per-learner", "-1"], "--gpus-per-learner 0 or more"),
        (["--seed", "-1"], "--seed must be in 0..2**63-1"),
    ],
)
def test_script_refuses_bad_flags_before_starting_ray(flags, message, tmp_path, capsys):
    assert rllib_selfplay.main(["--game", "crisscross", "--out", str(tmp_path / "run"), *flags]) == 2
    error = capsys.readouterr().err
    assert error.startswith("error: ") and message in error
    assert not (tmp_path / "run").exists()


def test_resuming_what_is_not_a_run_is_one_clear_error(tmp_path, capsys):
    assert rllib_selfplay.main(["--resume", str(tmp_path)]) == 2
    assert f"--resume {tmp_path}: not a run folder of this trainer (it has no run.json)" in capsys.readouterr().err
    (tmp_path / "run.json").write_text("{not json")
    assert rllib_selfplay.main(["--resume", str(tmp_path)]) == 2
    assert "run.json is unreadable" in capsys.readouterr().err
    (tmp_path / "run.json").write_text(json.dumps({"game": "crosse", "options": {}, "iterations": 5}))
    assert rllib_selfplay.main(["--resume", str(tmp_path), "--out", str(tmp_path / "elsewhere")]) == 2
    assert "writes into that run's folder; leave --out out" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:  # argparse: one or the other
        rllib_selfplay.main(["--resume", str(tmp_path), "--game", "crosse"])
    assert exit_info.value.code == 2 and "not allowed with argument --resume" in capsys.readouterr().err


class FakeRay:
    """What :func:`rllib_run.start_ray` asks of Ray, recorded: no cluster is started or joined."""

    def __init__(self, reachable: bool = True) -> None:
        self.reachable, self.calls = reachable, []

    def is_initialized(self) -> bool:
        return False

    def init(self, **kwargs) -> None:
        self.calls.append(kwargs)
        if "address" in kwargs and not self.reachable:
            raise ConnectionError("no GCS there")

    def cluster_resources(self) -> dict:
        return {"CPU": 96.0}


def start_ray_with(monkeypatch, fake: FakeRay, *flags: str) -> str:
    """``start_ray`` for ``crossenvs train rllib <flags>``, with ``fake`` standing in for Ray."""
    from crossenvs.integrations import rllib_run

    monkeypatch.setitem(sys.modules, "ray", fake)
    return rllib_run.start_ray(rllib_run.build_parser().parse_args(["--game", "crisscross", *flags]))


def test_num_cpus_sizes_the_local_ray_and_the_actors_get_theirs(monkeypatch):
    """A local Ray gets --num-cpus CPUs, or one per env runner and learner when they ask for more."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    fake = FakeRay()
    assert start_ray_with(monkeypatch, fake, "--num-cpus", "3") == "local Ray (3 CPUs)"
    assert start_ray_with(monkeypatch, fake, "--num-cpus", "1", "--env-runners", "3", "--learners", "2") == (
        "local Ray (5 CPUs)"
    )
    assert [call["num_cpus"] for call in fake.calls] == [3, 5] and "address" not in fake.calls[0]


def test_address_joins_that_cluster_and_an_unreachable_one_is_one_clear_error(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    fake = FakeRay()
    assert start_ray_with(monkeypatch, fake, "--address", "head:6379") == "Ray cluster at head:6379 (96 CPUs)"
    monkeypatch.setenv("RAY_ADDRESS", "auto")
    assert start_ray_with(monkeypatch, fake, "--num-cpus", "8") == "Ray cluster at auto (96 CPUs)"
    assert [call["address"] for call in fake.calls] == ["head:6379", "auto"]
    with pytest.raises(crossenvs.UsageError, match=r"cannot reach a Ray cluster at head:1 \(.*ray start --head"):
        start_ray_with(monkeypatch, FakeRay(reachable=False), "--address", "head:1")


def test_env_runner_learner_league_and_seed_flags_reach_the_running_algorithm(local_ray, tmp_path, capsys, monkeypatch):
    """``crossenvs train rllib`` with a remote env runner stepping two games, a remote learner, the newest
    snapshot alone drawn from the league and a seed: the algorithm is looked at just before it stops."""
    from crossenvs.integrations import rllib_run

    seen = {}
    iterate = rllib_run.iterate

    def iterate_and_look(algo, args, game, start):
        done = iterate(algo, args, game, start)
        runners = algo.env_runner_group
        seen.update(
            runners=runners.num_remote_env_runners(),
            games=runners.foreach_env_runner(lambda runner: len(runner.env.envs), local_env_runner=False),
            learners=algo.learner_group.is_remote,
            league=rllib.league_opponents(algo),
            drawn=algo.config.policy_mapping_fn.opponents,
            seed=algo.config.seed,
        )
        return done

    monkeypatch.setattr(rllib_run, "iterate", iterate_and_look)
    out = tmp_path / "run"
    argv = ["train", "rllib", "--game", "crisscross", "--option", "size=4", "--iterations", "3", "--batch", "200",
            "--minibatch", "100", "--epochs", "1", "--snapshot-every", "1", "--league-recent", "1",
            "--env-runners", "1", "--envs-per-runner", "2", "--learners", "1", "--seed", "7", "--eval-games", "2",
            "--out", str(out)]  # fmt: skip
    assert cli_main(argv) == 0
    assert "1 env runner(s), 1 learner(s)" in capsys.readouterr().out
    assert seen["runners"] == 1 and seen["games"] == [2] and seen["learners"]
    assert seen["league"] == ["random", "main_v1", "main_v2"] and seen["drawn"] == ("random", "main_v2")
    assert seen["seed"] == 7 and json.loads((out / "run.json").read_text())["seed"] == 7


@pytest.mark.slow
def test_league_self_play_learns_to_beat_random(local_ray, tmp_path):
    """The league ``crossenvs train rllib`` builds (main against random), with a 16-channel CNN, on 4x4
    Crisscross: 12 iterations of 1,000 env steps (35 s). Its checkpoint, as the arena's player, then scores 0.91
    against random over 200 games (0.745 with seed 1); with the seats' rewards swapped in the env, 0.27."""
    game = make_game("crisscross", size=4)
    config = rllib.league_config(
        game, batch=1000, minibatch=250, epochs=8, lr=4e-3, model={"channels": 16, "layers": 1}, seed=0
    )
    algo = config.build_algo()
    try:
        for _ in range(12):
            algo.train()
        folder = rllib.save_checkpoint(algo, tmp_path / "iter_000012", game)
    finally:
        algo.stop()
    score = match(game, make_player(f"rllib:{folder}", game=game), make_player("random"), 200, seed=5)["score"]
    assert score >= 0.6


def test_the_rllib_speed_benchmark_times_training_on_the_driver(local_ray, tmp_path, capsys):
    """benchmarks/rllib_speed.py on 4x4 Crisscross, one tiny timed iteration on the driver, in the running Ray
    (a remote env runner's row starts an actor: test_env_runner_learner_league_and_seed_flags_... starts one);
    speed is not checked, only that the row sampled what it was asked to."""
    bench = runpy.run_path(str(ROOT / "benchmarks" / "rllib_speed.py"))
    out = tmp_path / "rllib_speed.json"
    argv = ["--game", "crisscross", "--option", "size=4", "--runners", "0", "--iterations", "1", "--batch", "250"]
    rows = bench["main"]([*argv, "--json", str(out)])
    assert [row["env_runners"] for row in rows] == [0] and all(row["env_steps"] >= 250 for row in rows)
    assert all(row["train_steps_per_s"] > 0 and row["sample_steps_per_s"] > 0 for row in rows)
    assert json.loads(out.read_text()) == rows
    assert "crisscross: 0 env runner(s): " in capsys.readouterr().out and ray.is_initialized()
