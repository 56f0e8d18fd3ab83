"""Gumbel AlphaZero: the batched search, value signs per mover, the trainer end to end, the az: player."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest
import yaml
from conftest import AZ_TINY, CROSSE_C4, EXAMPLES, position, trainer_error, training_script

import crossenvs
from crossenvs import CheckpointError, InvalidOptionError, make_game
from crossenvs.az.network import AlphaZeroNet, evaluator
from crossenvs.az.search.gumbel import GumbelSearch, considered_visits
from crossenvs.checkpoints import load_alphazero, save_alphazero
from crossenvs.eval.arena import match
from crossenvs.kernels import state as st
from crossenvs.players import RandomPlayer, make_player

ROOT = Path(__file__).resolve().parent.parent


def fixed_evaluator(num_actions: int, value: float = 0.0):
    """A deterministic stand-in network: logits from the observation row by row, a constant value."""
    weights = np.random.default_rng(0).normal(size=num_actions)

    def evaluate(observations: np.ndarray):
        flat = observations.reshape(len(observations), -1).astype(np.float64)
        logits = np.outer(flat.sum(axis=1), weights) * 0.01 + weights
        return logits.astype(np.float32), np.full(len(observations), value, dtype=np.float32)

    return evaluate


def test_the_sequential_halving_schedule_is_mctx_s():
    assert considered_visits(4, 16) == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert considered_visits(1, 4) == [0, 1, 2, 3]
    assert considered_visits(16, 8) == [0] * 8  # fewer simulations than actions: one visit each to the best


@pytest.mark.parametrize("extra", [0, 6])
def test_search_finds_a_win_in_one_with_few_simulations(extra):
    """One simulation per legal move suffices: each is tried once and the win's value decides."""
    game = make_game("tictactoe")
    win = game.from_text(position("3 . . .\n2 O O .\n1 X X .\n", "x", ply=4))
    search = GumbelSearch(game, 1, len(game.legal_actions(win)) + extra)
    actions, policy, _, _ = search.run(win.board[None], win.meta[None], fixed_evaluator(9))
    assert game.action_to_str(win, int(actions[0])) == "c1"
    assert policy[0].argmax() == game.str_to_action(win, "c1") and abs(policy[0].sum() - 1) < 1e-5
    charing = make_game("charing_cross")
    h4 = "8 . . . R R . . .\n5 . . . . . . . n\n4 N . . . . N n .\n1 . . . r r . . .\n"
    state = charing.from_text(position(h4, "white"))
    actions, _, _, _ = GumbelSearch(charing, 1, len(charing.legal_actions(state)) + extra).run(
        state.board[None], state.meta[None], fixed_evaluator(charing.num_actions)
    )
    assert charing.action_to_str(state, int(actions[0])) == "f4-h4"  # the winning jump


def test_a_hop_by_the_same_player_keeps_the_value_sign():
    """Crosse C4: White hops twice in a row. Values flip only where the player to move changes."""
    game = make_game("crosse")
    state = game.from_text(position(CROSSE_C4, "white"))
    search = GumbelSearch(game, 1, 2)
    search.run(state.board[None], state.meta[None], fixed_evaluator(game.num_actions, value=0.3))
    first, second = search.children[0, 0].max(), None
    second = search.children[0, first].max()
    assert search.node_metas[0, first, st.TO_MOVE] == search.node_metas[0, 0, st.TO_MOVE]  # White again
    assert search.node_metas[0, second, st.TO_MOVE] != search.node_metas[0, 0, st.TO_MOVE]  # then Black
    # root: its own 0.3, the hop's 0.3 (White again), Black's 0.3 as -0.3 for White
    assert search.visits[0, 0] == 3 and search.value_sum[0, 0] == pytest.approx(0.3)
    assert search.visits[0, first] == 2 and search.value_sum[0, first] == pytest.approx(0.0)


@pytest.mark.parametrize(
    "name, options", [("charing_cross", {}), ("crosse", {"move_cap": 120}), ("crisscross", {"size": 5})]
)
def test_every_node_backs_up_its_subtree_with_signs_per_mover(name, options):
    """On random positions (re-placement choices, hops, extra turns among them): value_sum(n) is n's own
    value plus each child's value_sum, negated exactly where the player to move changes."""
    game = make_game(name, **options)
    rng = np.random.default_rng(1)
    states, state = [], game.initial_state()
    while len(states) < 24:
        if game.is_terminal(state):
            state = game.initial_state()
        states.append(state)
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    search = GumbelSearch(game, len(states), 24)
    boards, metas = np.stack([s.board for s in states]), np.stack([s.meta for s in states])
    search.run(boards, metas, fixed_evaluator(game.num_actions, value=0.25), rng)
    same_mover_edges = 0
    for b in range(len(states)):
        for node in range(search.count[b]):
            meta = search.node_metas[b, node]
            if meta[st.STATUS] != st.STATUS_PLAYING:
                own = search.visits[b, node] * st.SEAT_RETURNS[meta[st.STATUS], meta[st.TO_MOVE]]
                assert search.value_sum[b, node] == pytest.approx(own, abs=1e-4)
                continue
            total = search.raw_value[b, node]
            for child in search.children[b, node][search.children[b, node] >= 0]:
                same = search.node_metas[b, child, st.TO_MOVE] == meta[st.TO_MOVE]
                same_mover_edges += same
                total += (1 if same else -1) * search.value_sum[b, child]
            assert search.value_sum[b, node] == pytest.approx(total, abs=1e-3)
    if name != "crisscross":
        assert same_mover_edges > 0  # the case the signs are for did occur


def test_batched_search_equals_one_game_searches():
    game = make_game("crossings", move_cap=80)
    rng = np.random.default_rng(2)
    states, state = [], game.initial_state()
    for _ in range(40):
        states.append(state)
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    states = states[::5]
    evaluate = fixed_evaluator(game.num_actions, value=0.1)
    batched = GumbelSearch(game, len(states), 12)
    boards, metas = np.stack([s.board for s in states]), np.stack([s.meta for s in states])
    actions, policies, values, _ = batched.run(boards, metas, evaluate)
    single = GumbelSearch(game, 1, 12)
    for k, s in enumerate(states):
        action, policy, value, _ = single.run(s.board[None], s.meta[None], evaluate)
        assert action[0] == actions[k] and np.allclose(policy[0], policies[k]) and value[0] == pytest.approx(values[k])


def forced(search: GumbelSearch, way: str) -> GumbelSearch:
    """``search`` with its batched steps always run ``way`` ("parallel" or "serial"), not by the rule."""
    assert way in ("serial", "parallel")

    def parallel_only(parallel):  # the parallel loop in the serial loop's place (called with the tuple and a size)
        return lambda args, size: parallel(*args)

    loops = search.backend.loops
    search.backend.loops = {
        step: (serial if way == "serial" else parallel_only(parallel), None)
        for step, (serial, parallel) in loops.items()
    }
    return search


@pytest.mark.parametrize("name", ["charing_cross", "crosse"])
def test_the_trees_walked_on_many_threads_equal_the_serial_walk(name):
    """The batch's trees share nothing, so numba's threads change no node, value or chosen move."""
    if numba.get_num_threads() < 2:
        pytest.skip("needs numba with at least two threads")
    game = make_game(name)
    rng = np.random.default_rng(3)
    states, state = [], game.initial_state()
    while len(states) < 96:  # above SERIAL_BELOW, as self-play's batches are
        state = game.initial_state() if game.is_terminal(state) else state
        states.append(state)
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    boards, metas = np.stack([s.board for s in states]), np.stack([s.meta for s in states])
    evaluate = fixed_evaluator(game.num_actions, value=0.2)
    results = {}
    for way in ("serial", "parallel"):
        search = forced(GumbelSearch(game, len(states), 24), way)
        answer = search.run(boards, metas, evaluate, np.random.default_rng(4))
        results[way] = (*answer, search.count.copy(), search.visits.copy(), search.value_sum.copy())
    for serial, parallel in zip(results["serial"], results["parallel"], strict=True):
        np.testing.assert_array_equal(serial, parallel)
    assert results["parallel"][4].min() > 1  # every tree grew


def test_search_refuses_too_many_positions_and_finished_games():
    game = make_game("tictactoe")
    state = game.initial_state()
    with pytest.raises(InvalidOptionError, match="made for 1"):
        GumbelSearch(game, 1, 4).run(
            np.repeat(state.board[None], 2, 0), np.repeat(state.meta[None], 2, 0), fixed_evaluator(9)
        )
    over = game.from_text(position("3 . . .\n2 O O .\n1 X X X\n", "x", ply=5))
    with pytest.raises(crossenvs.IllegalActionError, match="finished game"):
        GumbelSearch(game, 1, 4).run(over.board[None], over.meta[None], fixed_evaluator(9))


def test_checkpoints_round_trip_and_refuse_another_game(tmp_path):
    game = make_game("tictactoe")
    net = AlphaZeroNet(game.observation_shape, game.num_actions, channels=8, blocks=1)
    path = save_alphazero(tmp_path / "net.pt", net, game)
    loaded, document = load_alphazero(path, AlphaZeroNet, game)
    observations = np.random.default_rng(0).random((3, 3, 3, 2), dtype=np.float32)
    assert np.allclose(evaluator(net.eval())(observations)[0], evaluator(loaded)(observations)[0])
    assert document["game"] == "tictactoe"
    with pytest.raises(CheckpointError, match="not crisscross"):
        load_alphazero(path, AlphaZeroNet, make_game("crisscross", size=3))
    player = make_player(f"az:{path}:2")  # made without a game: checked when it meets one
    crisscross = make_game("crisscross", size=3)
    with pytest.raises(CheckpointError, match="not crisscross"):
        player.act(crisscross, crisscross.initial_state())
    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="not a usable AlphaZero checkpoint"):
        make_player(f"az:{tmp_path / 'bad.pt'}")
    with pytest.raises(CheckpointError, match="does not exist"):
        make_player("az:missing.pt:8")


def run_alphazero(*args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, str(ROOT / "training" / "alphazero.py"), "--no-progress", "--device", "cpu", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_a_tiny_run_trains_checkpoints_resumes_and_plays(tmp_path):
    config = {**AZ_TINY, "max_minutes": 0.15}
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(config))
    run = tmp_path / "run"
    first = run_alphazero("--config", str(tmp_path / "tiny.yaml"), "--run-dir", str(run))
    assert first.returncode == 0, first.stderr
    assert "positions/s" in first.stdout and "vs random" in first.stdout
    shown = [line.split()[1:] for line in first.stdout.splitlines() if line.startswith("  crossenvs ")]
    # what to do with the agent next: Crisscross 4x4 has no ladder, so no `rate` (it would fail there)
    assert [words[0] for words in shown] == ["eval", "play"], first.stdout
    for words in shown:
        (spec,) = [word for word in words if word.startswith("az:")]
        assert Path(spec[3:]) == run / "checkpoints" / "final.pt", spec
    summary = json.loads((run / "summary.json").read_text())
    assert summary["games"] == 4 and summary["updates"] > 0 and summary["positions"] > 0
    assert (run / "checkpoints" / "final.pt").is_file() and list((run / "tensorboard").iterdir())
    assert list((run / "checkpoints").glob("seconds_*.pt"))  # snapshots for rating against wall-clock time
    # config.yaml is what a resumed run goes on with: a learning rate lowered there holds over latest.pt's optimiser
    settings = yaml.safe_load((run / "config.yaml").read_text())
    (run / "config.yaml").write_text(yaml.safe_dump({**settings, "learning_rate": settings["learning_rate"] / 5}))
    resumed = run_alphazero("--resume", str(run), "--max-minutes", "0.05")
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming" in resumed.stdout and "note: learning rate" in resumed.stdout, resumed.stdout
    import torch

    latest = torch.load(run / "checkpoints" / "latest.pt", weights_only=False)  # our own file, just written
    assert latest["optimizer"]["param_groups"][0]["lr"] == pytest.approx(settings["learning_rate"] / 5)
    assert json.loads((run / "summary.json").read_text())["positions"] > summary["positions"]
    # the checkpoint is a player everywhere: the arena, the CLI, an env opponent
    game = make_game("crisscross", size=4)
    player = make_player(f"az:{run / 'checkpoints' / 'final.pt'}:8", game=game)
    assert match(game, player, RandomPlayer(), games=4)["games"] == 4
    raw = make_player(f"az:{run / 'checkpoints' / 'final.pt'}:0", game=game)
    assert raw.act(game, game.initial_state()) in game.legal_actions(game.initial_state())
    cli = [sys.executable, "-m", "crossenvs.cli", "eval", "crisscross", "--option", "size=4", "--games", "2"]
    result = subprocess.run(
        [*cli, "--players", f"az:{run / 'checkpoints' / 'final.pt'}:4", "greedy"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    from crossenvs.cli import main as crossenvs_cli

    plot = tmp_path / "ratings.png"
    rating_args = ["rating-plot", str(run), "--baselines", "random", "greedy", "--games", "2", "--simulations", "2"]
    assert crossenvs_cli([*rating_args, "--out", str(plot)]) == 0 and plot.stat().st_size > 1000
    from crossenvs.eval.ladder import build_ladder

    assert "no ladder rating (no ladder for crisscross" in first.stdout  # no ladder is shipped at size 4
    ladder = tmp_path / "ladder4.json"
    # two rungs that each win a game of the four (mcts:8 swept them, and a ladder refuses a rung without a finite rating)
    ladder.write_text(build_ladder(game, ["random", "mcts:1"], 4).to_json())
    ladder_args = ["rating-plot", str(run), "--ladder", str(ladder), "--games", "4", "--simulations", "2"]
    assert crossenvs_cli([*ladder_args, "--out", str(plot)]) == 0 and plot.stat().st_size > 1000
    import gymnasium

    env = gymnasium.make("crossenvs/Crisscross-v0", size=4, opponent=f"az:{run / 'checkpoints' / 'final.pt'}:4")
    env.reset(seed=0)
    assert env.unwrapped.opponent.name.startswith("az-final")


@pytest.mark.slow
def test_every_pretrained_agent_loads_and_beats_random():
    from crossenvs import agents

    assert agents.available(), "the package ships at least one pretrained agent"
    for name, options in agents.available():
        game = make_game(name, **options)
        player = make_player("pretrained:16", game=game)
        assert player.simulations == 16 and agents.load(name, **options).simulations == 64
        assert match(game, player, RandomPlayer(), games=20, seed=0)["score"] >= 0.9
    with pytest.raises(InvalidOptionError, match="no pretrained agent for tictactoe"):
        make_player("pretrained", game=make_game("tictactoe"))
    with pytest.raises(InvalidOptionError, match="needs a game"):
        make_player("pretrained")


def test_bad_configs_stop_before_any_work(tmp_path, capsys):
    alphazero = training_script("alphazero")
    config = ["--config", str(tmp_path / "bad.yaml")]
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({"game": "crisscross", "simulatons": 8}))
    assert "unknown key(s) simulatons" in trainer_error(alphazero.main, config, capsys)
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({"game": "crisscross", "eval_opponent": "mcts:x"}))
    assert "mcts:<simulations>" in trainer_error(alphazero.main, config, capsys)
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({"game": "crisscross", "precision": "float16"}))
    err = trainer_error(alphazero.main, config, capsys)
    assert "'precision' must be one of auto, float32, bfloat16, got 'float16'" in err


def test_bfloat16_network_agrees_with_float32_and_learns():
    """bfloat16 autocast: the same outputs to bfloat16's precision, and a learning step that lowers the loss."""
    import torch

    from crossenvs.az.learn import train_step

    game = make_game("crisscross", size=6)
    torch.manual_seed(0)
    net = AlphaZeroNet(game.observation_shape, game.num_actions, channels=16, blocks=1).eval()
    observations = np.random.default_rng(0).random((32, *game.observation_shape), dtype=np.float32)
    logits32, values32 = evaluator(net, "cpu", "float32")(observations)
    logits16, values16 = evaluator(net, "cpu", "bfloat16")(observations)
    assert logits16.dtype == np.float32 and np.allclose(logits16, logits32, atol=0.05)
    assert np.allclose(values16, values32, atol=0.05)
    with pytest.raises(InvalidOptionError, match="precision must be one of float32, bfloat16"):
        evaluator(net, "cpu", "float16")
    optimizer = torch.optim.AdamW(net.parameters(), lr=0.01)
    policies = np.full((32, game.num_actions), 1.0 / game.num_actions, dtype=np.float32)
    batch = (observations, policies, np.ones(32, dtype=np.float32))
    losses = [train_step(net, optimizer, batch, "cpu", "bfloat16")["loss/value"] for _ in range(20)]
    assert all(np.isfinite(losses)) and losses[-1] < losses[0] / 2


def test_the_example_game_trains_too():
    """A user's game gets the AlphaZero search with no extra code (its kernels are specialised)."""
    sys.path.insert(0, str(EXAMPLES))
    game = make_game("tictactoe")
    search = GumbelSearch(game, 4, 8)
    states = np.repeat(game.initial_state().board[None], 4, 0), np.repeat(game.initial_state().meta[None], 4, 0)
    actions, policies, _, _ = search.run(*states, fixed_evaluator(9), np.random.default_rng(0))
    assert actions.shape == (4,) and np.allclose(policies.sum(axis=1), 1.0)
    assert crossenvs.game_spec("tictactoe").gym_id == "crossenvs/TicTacToe-v0"


def test_the_final_agent_is_rated_on_the_shipped_ladder():
    """make train's last line: the agent's anchored rating, from the Crisscross 6x6 ladder."""
    from crossenvs import agents
    from crossenvs.az.config import Config
    from crossenvs.az.evaluation import ladder_rating, load_ladder

    game = make_game("crisscross", size=6)
    config = Config(game="crisscross", options={"size": 6}, eval_ladder_games=10)
    agent = make_player("pretrained:0", game=game)
    rated = ladder_rating(game, agent, config)
    assert rated["ladder_games"] == 10 and rated["ladder_text"].startswith("ladder rating ")
    assert rated["ladder_low"] < rated["ladder_rating"] < rated["ladder_high"]  # 1225 (935 .. 1731) here
    assert rated["ladder_rating"] > load_ladder(game).rating_of("mcts:32")  # 364: a flipped score rates it below
    assert ladder_rating(game, agent, Config(game="crisscross", eval_ladder_games=0)) == {}
    assert agents.path("crisscross", size=6).is_file()


def test_playout_cap_randomisation_learns_only_from_the_full_searches():
    """With ``fast_simulations``, about ``full_search_share`` of the moves are searched in full; only those
    positions are learnt from, and the cheap moves ask the network for fewer leaves."""
    from crossenvs.az.config import Config
    from crossenvs.az.selfplay import SelfPlay

    config = Config(**{**AZ_TINY, "num_envs": 8, "simulations": 8, "fast_simulations": 2, "full_search_share": 0.4})
    config.check("tiny.yaml")
    selfplay = SelfPlay(config, np.random.default_rng(0))
    calls = []
    evaluate = fixed_evaluator(selfplay.game.num_actions)

    def counted(observations):
        calls[-1] += 1
        return evaluate(observations)

    parts = []
    for _ in range(200):
        calls.append(0)
        parts.append(selfplay.step(counted))
    full = [part.searched == config.num_envs for part in parts]
    assert all(part.searched in (0, config.num_envs) for part in parts)
    assert 0.3 < np.mean(full) < 0.5  # 200 draws of p = 0.4
    assert {c for c, f in zip(calls, full) if f} == {9} and {c for c, f in zip(calls, full) if not f} == {3}
    learnt = sum(len(part.results) for part in parts)
    in_play = len(selfplay.pending)
    assert sum(part.ended for part in parts) > 20 and learnt > 0
    assert learnt + in_play == sum(part.searched for part in parts)  # every full-search position, and no other


def test_random_openings_are_played_and_not_learnt_from():
    """With ``random_opening_plies``, each game (the first and every restart) opens with 0 to that many random
    moves: they are played, none is learnt from, and every other move is searched and kept."""
    from crossenvs.az.config import Config
    from crossenvs.az.selfplay import SelfPlay

    config = Config(**{**AZ_TINY, "num_envs": 16, "simulations": 8, "random_opening_plies": 2})
    config.check("tiny.yaml")
    selfplay = SelfPlay(config, np.random.default_rng(0))
    evaluate = fixed_evaluator(selfplay.game.num_actions)
    first = selfplay.opening_left.copy()
    assert set(first.tolist()) == {0, 1, 2}
    part = selfplay.step(evaluate)
    assert selfplay.pending.counts().tolist() == [int(n == 0) for n in first]
    assert part.searched == int((first == 0).sum())
    opening_moves, searched, learnt, ended = int((first > 0).sum()), part.searched, len(part.results), part.ended
    lengths = set()
    for _ in range(300):
        opening_moves += int((selfplay.opening_left > 0).sum())
        part = selfplay.step(evaluate)
        searched, learnt, ended = searched + part.searched, learnt + len(part.results), ended + part.ended
        lengths |= set(selfplay.opening_left.tolist())
    assert ended > 30 and lengths == {0, 1, 2}  # restarted games draw their own openings
    assert searched == 301 * config.num_envs - opening_moves  # every move but the random ones is searched
    assert learnt + len(selfplay.pending) == searched  # and kept, and no other


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"fast_simulations": 4}, r"'fast_simulations' must be 0 .* or from 1 to 'simulations' - 1 \(3\), got 4"),
        ({"fast_simulations": -1}, "'fast_simulations' must be 0"),
        ({"fast_simulations": 2, "full_search_share": 0.0}, "'full_search_share' must be above 0 and at most 1"),
        ({"fast_simulations": 2, "full_search_share": 1.5}, "'full_search_share' must be above 0 and at most 1"),
        ({"random_opening_plies": -1}, "'random_opening_plies' must be 0 or more, got -1"),
    ],
)
def test_a_playout_cap_that_cannot_work_is_refused(changes, message):
    from crossenvs.az.config import Config
    from crossenvs.trainer.config import ConfigError

    with pytest.raises(ConfigError, match=message):
        Config(**{**AZ_TINY, **changes}).check("tiny.yaml")


def test_the_make_train_config_documents_every_key():
    import dataclasses

    from crossenvs.az.config import Config

    documented = yaml.safe_load((ROOT / "crossenvs" / "configs" / "alphazero" / "crisscross6.yaml").read_text())
    assert set(documented) == {field.name for field in dataclasses.fields(Config)}
