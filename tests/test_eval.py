"""Baselines, arenas, ratings and the command line (issue: evaluating checkpoints)."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest
from conftest import CROSSE_C4, position

from crossenvs import CheckpointError, InvalidOptionError, make_game
from crossenvs.cli import main as cli
from crossenvs.cli.evaluate import repeats_note
from crossenvs.eval.arena import play_game, round_robin
from crossenvs.eval.ratings import GameRecord, bradley_terry, ratings
from crossenvs.players import (
    FunctionPlayer,
    GreedyPlayer,
    MCTSPlayer,
    NoisyPlayer,
    RandomPlayer,
    canonical_spec,
    make_player,
)


@pytest.mark.parametrize("name, options", [("crisscross", {"size": 6}), ("charing_cross", {})])
def test_mcts_200_beats_random_in_90_percent_of_100_games(name, options):
    game = make_game(name, **options)
    mcts, rng_player = MCTSPlayer(200), RandomPlayer()
    wins = 0
    for index in range(100):
        first, second = (mcts, rng_player) if index % 2 == 0 else (rng_player, mcts)
        record = play_game(game, first, second, seed=index)
        mcts_score = record.score_first if index % 2 == 0 else 1.0 - record.score_first
        wins += mcts_score == 1.0
    assert wins >= 90


def test_mcts_plays_crosse_jump_sequences_hop_by_hop():
    game = make_game("crosse")
    state = game.from_text(position(CROSSE_C4, "white"))
    player = MCTSPlayer(30, seed=0)
    hops = []
    for _ in range(2):  # the compulsory double capture, one hop per decision by the same player
        action = player.act(game, state)
        hops.append(game.action_to_str(state, action))
        state = game.apply(state, action)
    assert hops == ["h6xf8", "f8xh10"]
    black = game.from_text(position(CROSSE_C4, "black"))
    assert game.action_to_str(black, player.act(game, black)) in {"d7xd5", "h4xf4", "g7xi5"}


def test_greedy_takes_a_win_then_the_largest_capture():
    game = make_game("charing_cross")
    h4 = "8 . . . R R . . .\n5 . . . . . . . n\n4 N . . . . N n .\n1 . . . r r . . .\n"
    state = game.from_text(position(h4, "white"))
    assert game.action_to_str(state, GreedyPlayer(0).act(game, state)) == "f4-h4"  # H4: the winning jump
    neo = make_game("neo_crossings")
    lines = neo.from_text(position("8 . . . . . . . .\n4 . W W W W . B B\n1 B . . . . . . .\n", "white"))
    for seed in range(5):  # b4-e4-g4 takes two stones (whole run); nothing else takes more
        assert neo.action_to_str(lines, GreedyPlayer(seed).act(neo, lines)) in {"b4-e4-g4", "c4-e4-g4"}


def test_arena_is_reproducible_and_alternates_seats():
    game = make_game("crisscross", size=4)
    players = [RandomPlayer(), GreedyPlayer(), MCTSPlayer(20)]
    first = round_robin(game, players, games_per_pair=6, seed=3)
    assert first == round_robin(game, players, games_per_pair=6, seed=3)
    assert first != round_robin(game, players, games_per_pair=6, seed=4)
    assert len(first) == 3 * 6
    seats = [(r.first, r.second) for r in first[:6]]
    assert seats[0] == ("random", "greedy") and seats[1] == ("greedy", "random")


def test_bradley_terry_on_a_known_table():
    """A scores 75% against B over 400 games: the gap is 400 log10(3) = 190.8 Elo (less a little prior)."""
    records = [GameRecord("A", "B", 1.0 if k < 300 else 0.0, 10, k) for k in range(400)]
    a, b = bradley_terry(records, ["A", "B"])
    assert 185 < a - b < 191 and abs((a + b) / 2 - 1500) < 1e-6
    table = ratings(records, ["A", "B"])  # no prior: the gap exactly, around the mean 1500
    assert [r.name for r in table] == ["A", "B"]
    assert table[0].rating - table[1].rating == pytest.approx(400 * np.log10(3), abs=0.01)
    assert table[0].rating + table[1].rating == pytest.approx(3000)
    assert table[0].low < table[0].rating < table[0].high and table[0].score == 0.75


def test_player_specs():
    assert make_player("mcts:50").simulations == 50 and make_player("mcts").simulations == 200
    assert make_player("mcts:0050").simulations == 50
    # one spelling per player: how an arena knows a ladder's rungs (issue 48)
    assert canonical_spec("pretrained") == canonical_spec(" pretrained:064") == "pretrained:64"
    assert canonical_spec("mcts") == canonical_spec("mcts:0200") == "mcts:200" != canonical_spec("mcts:20")
    assert canonical_spec("az:run/best.pt") == canonical_spec("az:run/best.pt:64") == "az:run/best.pt:64"
    assert canonical_spec("random") == "random" and canonical_spec("greedy") == "greedy"
    with pytest.raises(InvalidOptionError, match="unknown player 'alphazero'"):
        canonical_spec("alphazero")
    with pytest.raises(InvalidOptionError, match="unknown player 'alphazero'"):
        make_player("alphazero")
    with pytest.raises(CheckpointError, match="does not exist"):
        make_player("missing_checkpoint.zip")


def test_noisy_player_mixes_random_moves_into_another_players():
    """``noisy:<percent>:<spec>``: the inner player on most moves, a uniformly random legal one on ``percent``
    of them; one spelling per player, the same rules for files as the outer spec, one error per bad part."""
    assert (
        canonical_spec("noisy:020:pretrained") == "noisy:20:pretrained:64" == canonical_spec("noisy:20:pretrained:64")
    )
    assert canonical_spec("noisy:5:mcts") == "noisy:5:mcts:200"
    game = make_game("crisscross", size=4)
    state = game.initial_state()
    legal = set(game.legal_actions(state).tolist())
    always_random = make_player("noisy:100:greedy", game, seed=1)
    assert always_random.name == "noisy100-greedy" and always_random.percent == 100
    moves = [always_random.act(game, state) for _ in range(400)]
    assert set(moves) == legal  # every legal move comes up, not only greedy's choices
    never_random = make_player("noisy:0:mcts:30", game, seed=1)
    assert never_random.simulations == 30
    inner = MCTSPlayer(30, seed=int(np.random.default_rng(1).integers(2**63 - 1)))
    assert [never_random.act(game, state) for _ in range(5)] == [inner.act(game, state) for _ in range(5)]
    first_legal = FunctionPlayer(lambda observation, mask: int(np.flatnonzero(mask)[0]))
    half = NoisyPlayer(first_legal, 50, seed=2)
    off_first = sum(half.act(game, state) != min(legal) for _ in range(1000))
    assert abs(off_first / 1000 - 0.5 * (1 - 1 / len(legal))) < 0.05  # a random move is another that often
    # the batch path (arenas) mixes the same way, seeded, legal in every game
    records = round_robin(game, [make_player("noisy:30:mcts:20", game, seed=5), RandomPlayer()], 8, seed=3)
    assert records == round_robin(game, [make_player("noisy:30:mcts:20", game, seed=5), RandomPlayer()], 8, seed=3)
    for bad, message in [
        ("noisy:101:mcts", "101 is out of range"),
        ("noisy:20", "name the other player after the number"),
        ("noisy:x:mcts", "'x' is not a whole number"),
        ("noisy:20:nothing", "unknown player 'nothing'"),
    ]:
        with pytest.raises(InvalidOptionError, match=message):
            make_player(bad, game)
    with pytest.raises(InvalidOptionError, match="reads a file, and files are not read here"):
        make_player("noisy:20:az:run/final.pt", game, paths=False)  # the inner spec is vetted like the outer one


def test_eval_says_when_players_repeat_one_game_and_random_openings_vary_them():
    """Two players who always choose alike play one game a seat over and over: eval says so under its table, and
    ``--opening-plies`` opens each pair of games with its own random moves, so the games differ."""
    alike = FunctionPlayer(lambda observation, mask: int(np.flatnonzero(mask)[0]), name="first")
    game = make_game("crisscross", size=4)
    records = round_robin(game, [alike, FunctionPlayer(alike.function, name="first-again")], 6, seed=1)
    assert "first vs first-again look like one game a seat" in repeats_note(records, 0)
    assert "--opening-plies 2" in repeats_note(records, 0)
    varied = round_robin(game, [alike, FunctionPlayer(alike.function, name="first-again")], 6, seed=1, opening_plies=2)
    assert len({(r.first, r.score_first, r.plies) for r in varied}) > 2 and repeats_note(varied, 2) == ""
    out = io.StringIO()
    arena = ["eval", "crisscross", "--option", "size=4", "--players", "random", "greedy", "--games", "4"]
    assert cli([*arena, "--opening-plies", "2"], out=out) == 0 and "rating" in out.getvalue()


def test_cli_list_and_eval(tmp_path):
    out = io.StringIO()
    assert cli(["list"], out=out) == 0
    assert "charing_cross" in out.getvalue() and "crossenvs/Crossings-v0" in out.getvalue()
    out = io.StringIO()
    csv_path, json_path = tmp_path / "r.csv", tmp_path / "r.json"
    code = cli(
        [
            "eval",
            "crisscross",
            "--option",
            "size=4",
            "--players",
            "random",
            "greedy",
            "--games",
            "6",
            "--csv",
            str(csv_path),
            "--json",
            str(json_path),
        ],
        out=out,
    )
    assert code == 0 and "greedy" in out.getvalue() and "rating" in out.getvalue()
    assert csv_path.read_text().startswith("name,rating,low,high,games,score")
    assert len(json.loads(json_path.read_text())["games"]) == 6


def test_cli_play_through_its_input_stream():
    moves = io.StringIO("help\nz9\nb5-b6\na1\nquit\n")
    out = io.StringIO()
    code = cli(["play", "crisscross", "--option", "size=4", "--opponent", "greedy"], out=out, source=moves)
    text = out.getvalue()
    assert code == 0 and text.rstrip().endswith("bye")
    assert "legal moves: a1 b1 c1 d1 a2" in text  # help
    assert "'z9' is off the 4x4 board" in text and "cannot read" not in text.split("z9")[0]
    assert text.count("your move> ") == 5  # help, two bad inputs and quit each get a new prompt; a1 is played
    assert "greedy plays" in text and "1[R]. . ." in text  # the board shows the move, marked as the last one


def test_cli_play_a_whole_game_to_its_end():
    squares = "".join(f"{f}{r}\n" for r in "1234" for f in "abcd")
    out = io.StringIO()
    arguments = ["play", "crisscross", "--option", "size=4", "--opponent", "random"]
    code = cli(arguments, out=out, source=io.StringIO(squares))
    assert code == 0 and "Game over: " in out.getvalue()


def test_cli_bad_input_is_a_clear_error(capsys, tmp_path):
    assert cli(["eval", "crisscross", "--option", "size=99", "--players", "random", "greedy"]) == 2
    assert "size must be an integer" in capsys.readouterr().err
    assert cli(["play", "crisscross", "--opponent", "nobody"]) == 2
    import gymnasium
    from sb3_contrib import MaskablePPO

    six = MaskablePPO("MlpPolicy", gymnasium.make("crossenvs/Crisscross-v0", size=6), n_steps=32, device="cpu")
    six.save(tmp_path / "six.zip")
    assert cli(["eval", "crisscross", "--option", "size=4", "--players", "random", str(tmp_path / "six.zip")]) == 2
    assert "no six.json beside it" in capsys.readouterr().err  # read by unpickling only when asked for
    assert cli(["eval", "crisscross", "--option", "size=4", "--players", "random", f"pickle:{tmp_path}/six.zip"]) == 2
    assert "another game or board size" in capsys.readouterr().err
    (tmp_path / "run" / "checkpoints").mkdir(parents=True)
    (tmp_path / "run" / "checkpoints" / "step_5.json").write_text("{not json")
    assert cli(["rating-plot", str(tmp_path / "run")]) == 2
    assert "is corrupt" in capsys.readouterr().err


def test_cli_numbers_players_with_the_same_name():
    out = io.StringIO()
    arguments = ["eval", "crisscross", "--option", "size=3", "--players", "random", "random", "--games", "2"]
    assert cli(arguments, out=out) == 0
    assert "random#2" in out.getvalue()


def test_cli_gif_and_rating_plot(tmp_path):
    gif = tmp_path / "game.gif"
    assert cli(["gif", "crisscross", "--option", "size=4", "--players", "greedy", "random", "--out", str(gif)]) == 0
    assert gif.stat().st_size > 0
    from PIL import Image

    assert Image.open(gif).n_frames >= 5

    import gymnasium
    from sb3_contrib import MaskablePPO

    run = tmp_path / "run" / "checkpoints"
    run.mkdir(parents=True)
    model = MaskablePPO("MlpPolicy", gymnasium.make("crossenvs/Crisscross-v0", size=4), n_steps=32, device="cpu")
    for step in (32, 64):
        model.save(run / f"step_{step}.zip")
        architecture = {"policy": "mlp", "net_width": 64}  # SB3's default MlpPolicy: two layers of 64
        metadata = {"game": "crisscross", "options": {"size": 4}, "step": step, "architecture": architecture}
        (run / f"step_{step}.json").write_text(json.dumps(metadata))
    plot = tmp_path / "ratings.png"
    out = io.StringIO()
    assert cli(["rating-plot", str(tmp_path / "run"), "--out", str(plot), "--games", "2"], out=out) == 0
    assert plot.stat().st_size > 0 and np.asarray(Image.open(plot)).ndim == 3
    lines = out.getvalue().splitlines()
    assert lines[0] == "(ratings relative to these players, mean 1500: Crisscross(size=4) has no ladder)"
    rows = [line for line in lines if line.startswith(("step_32", "step_64", "random", "greedy", "mcts100"))]
    assert len(rows) == 5 and all("(95% " in row for row in rows), lines  # every player with its interval or bound


def _sb3_run(folder, size: int) -> None:
    """A run folder of two untrained MaskablePPO checkpoints of Crisscross ``size`` x ``size``."""
    import gymnasium
    from sb3_contrib import MaskablePPO

    folder.mkdir(parents=True)
    model = MaskablePPO("MlpPolicy", gymnasium.make("crossenvs/Crisscross-v0", size=size), n_steps=32, device="cpu")
    for step in (32, 64):
        model.save(folder / f"step_{step}.zip")
        metadata = {"game": "crisscross", "options": {"size": size}, "step": step,
                    "architecture": {"policy": "mlp", "net_width": 64}}  # fmt: skip
        (folder / f"step_{step}.json").write_text(json.dumps(metadata))


def test_rating_plot_uses_the_games_ladder_by_default_and_refuses_two_scales(tmp_path, capsys):
    """Where the game ships a ladder, rating-plot rates on it unless asked otherwise: the same scale as rate."""
    _sb3_run(tmp_path / "run" / "checkpoints", 6)
    plot = tmp_path / "ratings.png"
    out = io.StringIO()
    assert cli(["rating-plot", str(tmp_path / "run"), "--out", str(plot), "--games", "2"], out=out) == 0
    text = out.getvalue()
    assert text.startswith("(ratings on the crisscross ladder's scale, random = 0"), text
    assert "step_32" in text and "step_64" in text and plot.stat().st_size > 0
    arguments = ["rating-plot", str(tmp_path / "run"), "--out", str(plot), "--ladder", "--relative"]
    assert cli(arguments) == 2
    assert "--ladder and --relative are two scales" in capsys.readouterr().err


def test_a_bound_is_drawn_as_a_bound_not_a_point(tmp_path):
    """A checkpoint that won every game has a lower bound only: an open triangle at it, not a point on the line."""
    from PIL import Image

    from crossenvs.cli.rating_plot import bound_kind
    from crossenvs.eval.plots import plot_ratings

    assert bound_kind(1800.0, math.inf) == "at least" and bound_kind(-math.inf, 900.0) == "at most"
    assert bound_kind(1000.0, 1200.0) == "" and bound_kind(-math.inf, math.inf) == ""
    images = {}
    for name, bounds in (("point", ["", ""]), ("bound", ["", "at least"])):
        path = tmp_path / f"{name}.png"
        plot_ratings(path, [1, 2], [1000, 1800], [], "step", "rating", "t", errors=[[50, 0], [50, 0]], bounds=bounds)
        images[name] = np.asarray(Image.open(path).convert("L"), dtype=int)
    assert (np.abs(images["point"] - images["bound"]) > 40).sum() > 50  # the triangle and its legend entry


def test_batch_capable_pairs_play_together_in_the_vector_env():
    class CountingModel:
        def __init__(self):
            self.batches = []

        def predict(self, observations, action_masks=None, deterministic=True):
            self.batches.append(len(observations))
            return np.array([np.flatnonzero(m)[0] for m in action_masks]), None

    from crossenvs.players import ModelPlayer

    game = make_game("crisscross", size=4)
    model = CountingModel()
    records = round_robin(game, [ModelPlayer(model, name="first-legal"), RandomPlayer()], games_per_pair=10, seed=2)
    assert max(model.batches) > 1  # one forward pass served several games
    assert len(records) == 10 and [r.first for r in records[:2]] == ["first-legal", "random"]
    assert all(r.score_first in (0.0, 0.5, 1.0) and 4 <= r.plies <= 16 for r in records)
    again = round_robin(game, [ModelPlayer(CountingModel(), name="first-legal"), RandomPlayer()], 10, seed=2)
    assert again == records


@pytest.mark.parametrize("name", ["crosse", "charing_cross"])
def test_mcts_batch_searches_in_threads_give_what_one_at_a_time_gives(name):
    """act_batch runs the searches side by side in threads; seeded alike, act row by row picks the same."""
    from crossenvs.envs.vector import CrossVectorEnv
    from crossenvs.players import Positions

    env = CrossVectorEnv(name, num_envs=6)
    observations, info = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(rng.integers(3, 9)):  # a few random moves, so the positions differ
        actions = [rng.choice(np.flatnonzero(mask)) for mask in info["action_mask"]]
        observations, _, _, _, info = env.step(actions)
    ids = np.arange(6)
    positions = Positions(env.game, env.boards.copy(), env.metas.copy(), observations, info["action_mask"], ids)
    batched = MCTSPlayer(40, seed=5).act_batch(positions)
    one_by_one = MCTSPlayer(40, seed=5)
    expected = [one_by_one.act(env.game, positions.state(row)) for row in ids]
    assert batched.tolist() == expected
    assert all(info["action_mask"][row, action] for row, action in zip(ids, batched))


def test_a_clean_sweep_gets_an_honest_one_sided_interval(tmp_path):
    """20-0 used to print a '95% interval' of '1843 .. 1843': every bootstrap resample is a sweep too.
    Now the winner has no point rating at all, only the exact bound (the loser, the one player with
    a finite rating, is the relative scale's 1500)."""
    import json
    import math

    from crossenvs.eval.arena import write_results
    from crossenvs.eval.ratings import interval_text, rating_text

    records = [
        GameRecord("a" if k % 2 == 0 else "b", "b" if k % 2 == 0 else "a", 1.0 if k % 2 == 0 else 0.0, 10, k)
        for k in range(20)
    ]
    table = {r.name: r for r in ratings(records, ["a", "b"])}
    winner, loser = table["a"], table["b"]
    assert winner.score == 1.0 and math.isinf(winner.high) and winner.rating == winner.low and winner.one_sided
    assert loser.rating == 1500.0 and not loser.one_sided
    # all 20 won is likelier than 5% only for a score >= 0.05 ** (1/20) = 0.861: 317 Elo above the loser
    assert winner.low == pytest.approx(loser.rating + 400 * math.log10(0.05**0.05 / (1 - 0.05**0.05)))
    assert interval_text(winner).startswith(">= ")
    # was: the rating column showed the bound (">= 1284" in a 2-game eval), below the 1500 of the player it beat
    assert rating_text(winner) == "won all" and rating_text(loser) == "1500"
    lost = {r.name: r for r in ratings(records, ["a", "b"], fixed={"a": 700.0})}["b"]
    assert math.isinf(lost.low) and lost.high == pytest.approx(700.0 - 400 * math.log10(0.05**0.05 / (1 - 0.05**0.05)))
    assert interval_text(lost).startswith("<= ")
    write_results(tmp_path / "r.json", list(table.values()), records)
    saved = {r["name"]: r for r in json.loads((tmp_path / "r.json").read_text())["ratings"]}
    assert saved["a"]["high"] is None and saved["a"]["rating"] == saved["a"]["low"] and saved["b"]["low"] == 1500.0


def test_a_group_that_beat_everyone_else_gets_bounds_and_moves_nobody():
    """a and b split their games and won every game against c and d: no finite rating for either, only a
    bound; c and d, who split theirs, are rated as if a and b had never played."""
    import math

    def games(first, second, wins, count=10):
        return [GameRecord(first, second, float(k < wins), 10, k) for k in range(count)]

    records = games("a", "b", 5) + games("c", "d", 6)
    records += [record for x in "ab" for y in "cd" for record in games(x, y, 10)]
    table = {r.name: r for r in ratings(records, list("abcd"))}
    alone = {r.name: r for r in ratings(games("c", "d", 6), list("cd"))}
    for name in "cd":
        fitted, without = table[name], alone[name]
        assert (fitted.rating, fitted.low, fitted.high) == pytest.approx((without.rating, without.low, without.high))
    for name in "ab":
        assert table[name].one_sided and math.isinf(table[name].high) and table[name].low > table["c"].rating
    assert [r.name for r in ratings(records, list("dcba"))][:2] in (["a", "b"], ["b", "a"])  # the bounds first


def test_an_interrupted_search_stops_at_once_and_still_answers_a_legal_move():
    """Player.interrupt: MCTS polls the flag inside its compiled loop, the AlphaZero search between steps; what an
    interrupted search did is read from its answer and its network calls, not from a clock."""
    from crossenvs.players import MCTSPlayer, make_player

    game = make_game("crisscross", size=6)
    state = game.initial_state()
    one, full = (MCTSPlayer(simulations, seed=0).act(game, state) for simulations in (1, 2000))
    assert one != full  # on this position and seed one simulation and 2,000 answer apart
    mcts, twin = MCTSPlayer(2000, seed=0), MCTSPlayer(2000, seed=0)
    mcts.interrupt()  # set before the search: the first simulation runs (a move is returned), no other
    assert mcts.act(game, state) == one and twin.act(game, state) == full
    mcts.clear_interrupt()
    assert mcts.act(game, state) == twin.act(game, state)  # searches in full again

    az = make_player("pretrained:64", game=game)
    evaluations = []
    az.evaluate = lambda observations, network=az.evaluate: evaluations.append(1) or network(observations)
    az.interrupt()  # the root is evaluated, then no simulation step runs
    assert game.legal_mask(state)[az.act(game, state)] and len(evaluations) == 1
    az.clear_interrupt()
    assert game.legal_mask(state)[az.act(game, state)] and len(evaluations) == 1 + (1 + 64)  # root + 64 steps
