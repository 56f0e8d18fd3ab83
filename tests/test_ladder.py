"""Fixed-anchor ladders: the rating fit, building a ladder, rating against it, the shipped files, the CLI."""

from __future__ import annotations

import io
import json
import math
import re

import numpy as np
import pytest

from crossenvs import agents, make_game
from crossenvs.cli import main
from crossenvs.eval.ladder import (
    LADDER_DIR,
    Ladder,
    LadderError,
    LadderFit,
    Rung,
    anchored_ratings,
    build_ladder,
    check_agent,
    default_rungs,
    fit_rating,
    ladder_file_name,
    load_ladder,
    next_rung,
    play_pairs,
    pool,
    rate,
    ratings_on_ladder,
    read_ladder,
    shipped_ladder,
)
from crossenvs.eval.ladder.adaptive import rung_sd
from crossenvs.eval.ladder.checks import outside, widen_rungs
from crossenvs.eval.ladder.pool import JOB_GAMES, JournalError, pair_jobs
from crossenvs.eval.ratings import GameRecord
from crossenvs.players import make_player
from crossenvs.support.errors import InvalidOptionError

SMALL = make_game("crisscross", size=4)


def elo_gap(score: float) -> float:
    return 400.0 * math.log10(score / (1.0 - score))


def test_fit_matches_the_elo_formula_and_narrows_with_games():
    few = fit_rating([100.0] * 8, [1, 1, 1, 1, 1, 1, 0, 0])  # 75% against a rung at 100
    many = fit_rating([100.0] * 800, [1, 1, 1, 0] * 200)
    for fit in (few, many):
        assert fit.rating == pytest.approx(100.0 + elo_gap(0.75), abs=0.01)
        assert fit.low < fit.rating < fit.high
    assert many.width < few.width / 5  # 100 times the games: about a tenth of the width


def test_fit_of_a_draw_heavy_record_counts_draws_as_half():
    fit = fit_rating([0.0] * 4, [0.5, 0.5, 0.5, 0.5])
    assert fit.rating == pytest.approx(0.0, abs=0.01)


def test_a_clean_sweep_gets_the_exact_one_sided_bound():
    fit = fit_rating([250.0] * 10, [1.0] * 10)
    assert math.isinf(fit.high) and fit.low == fit.rating
    assert fit.low == pytest.approx(250.0 + elo_gap(0.05 ** (1 / 10)), abs=0.01)  # P(10 wins) = 5% there
    assert fit.interval_text().startswith(">= ")
    lost = fit_rating([250.0] * 10, [0.0] * 10)
    assert math.isinf(lost.low) and lost.high == pytest.approx(250.0 - elo_gap(0.05 ** (1 / 10)), abs=0.01)


def records_for(score_of: dict[tuple[str, str], float], games: int) -> list[GameRecord]:
    """Games whose first seat scores exactly ``score_of[(a, b)]`` over ``games`` games of each pair."""
    out = []
    for (a, b), score in score_of.items():
        wins = round(score * games)
        out += [GameRecord(a, b, 1.0 if k < wins else 0.0, 10, k) for k in range(games)]
    return out


def test_anchored_ratings_pin_random_at_zero_and_recover_the_gaps():
    records = records_for({("strong", "random"): 0.75, ("stronger", "strong"): 0.75}, 400)
    rungs = {rung.spec: rung for rung in anchored_ratings(records, ["random", "strong", "stronger"])}
    assert (rungs["random"].rating, rungs["random"].low, rungs["random"].high) == (0.0, 0.0, 0.0)
    assert rungs["strong"].rating == pytest.approx(elo_gap(0.75), abs=0.01)  # no prior: the gaps exactly
    assert rungs["stronger"].rating == pytest.approx(2 * elo_gap(0.75), abs=0.01)
    assert rungs["strong"].low < rungs["strong"].rating < rungs["strong"].high
    assert rungs["stronger"].high - rungs["stronger"].low > rungs["strong"].high - rungs["strong"].low  # chained


def test_pairs_are_reproducible_whatever_the_number_of_processes():
    specs, pairs = ["random", "greedy", "mcts:8"], [(0, 1), (1, 2)]
    one = play_pairs(SMALL, specs, pairs, 4, seed=3, workers=1)
    two = play_pairs(SMALL, specs, pairs, 4, seed=3, workers=2)
    assert one == two and len(one) == 8


def test_a_pair_is_cut_into_jobs_each_seeded_apart():
    jobs = pair_jobs(SMALL, ["random", "greedy"], [(0, 1)], 2 * JOB_GAMES + 20, seed=0)
    assert [job[4] for job in jobs] == [JOB_GAMES, JOB_GAMES, 20]
    assert len({job[5] for job in jobs}) == 3


def test_a_journal_resumes_a_build_without_playing_again(tmp_path, monkeypatch):
    specs, pairs, journal = ["random", "greedy", "mcts:8"], [(0, 1), (1, 2)], tmp_path / "small.games.jsonl"
    first = play_pairs(SMALL, specs, pairs, 6, seed=3, journal=journal)
    assert len(journal.read_text().splitlines()) == 2 and len(first) == 12

    def no_games(*job):
        raise AssertionError(f"played {job} again")

    monkeypatch.setattr(pool, "_play_pair", no_games)
    lines = []
    assert play_pairs(SMALL, specs, pairs, 6, seed=3, journal=journal, progress=lines.append) == first
    assert lines[0].startswith("resuming: 2 of 2 jobs already played")
    with pytest.raises(AssertionError, match="played"):  # another seed is another job: played, not read back
        play_pairs(SMALL, specs, pairs, 6, seed=4, journal=journal)


def test_a_journal_cut_by_a_kill_plays_the_cut_job_again_and_a_damaged_one_is_refused(tmp_path):
    specs, pairs, journal = ["random", "greedy"], [(0, 1)], tmp_path / "cut.games.jsonl"
    whole = play_pairs(SMALL, specs, pairs, 4, seed=1, journal=journal)
    line = journal.read_text()
    journal.write_text(line[: len(line) // 2])  # the write of the last job was killed half way
    assert play_pairs(SMALL, specs, pairs, 4, seed=1, journal=journal) == whole
    journal.write_text("not json\n" + line)
    with pytest.raises(JournalError, match="line 1, is not a job's games"):
        play_pairs(SMALL, specs, pairs, 4, seed=1, journal=journal)
    journal.write_text(
        line.replace('"records": [["random"', '"records": [["random", "greedy", "x", 1, 1], ["random"', 1) + line
    )
    with pytest.raises(JournalError, match="not a game: \\['random', 'greedy', 'x'"):  # a score is 0, 1/2 or 1
        play_pairs(SMALL, specs, pairs, 4, seed=1, journal=journal)


def scripted_games(first: str, second: str, wins: int, losses: int) -> list[GameRecord]:
    return [GameRecord(first, second, 1.0, 10, k) for k in range(wins)] + [
        GameRecord(first, second, 0.0, 10, k) for k in range(losses)
    ]


def test_a_ladder_that_fits_badly_widens_its_rungs_intervals_and_one_that_fits_does_not():
    names = ["random", "a", "b"]
    transitive = scripted_games("a", "random", 60, 40) + scripted_games("b", "a", 60, 40)
    transitive += scripted_games("b", "random", 69, 31)  # what the two gaps of 70 Elo predict (69%)
    rungs, factor = widen_rungs(transitive, anchored_ratings(transitive, names))
    assert factor == 1.0 and rungs == anchored_ratings(transitive, names)
    cyclic = scripted_games("a", "random", 70, 30) + scripted_games("b", "a", 70, 30)
    cyclic += scripted_games("b", "random", 30, 70)  # b beats a, a beats random, random beats b
    plain = anchored_ratings(cyclic, names)
    rungs, factor = widen_rungs(cyclic, plain)
    assert factor > 2.0
    for before, after in zip(plain, rungs):
        assert after.rating == before.rating
        assert after.high - after.rating == pytest.approx(factor * (before.high - before.rating))
        assert after.rating - after.low == pytest.approx(factor * (before.rating - before.low))


def test_build_ladder_rates_its_rungs_and_round_trips():
    ladder = build_ladder(SMALL, ["random", "mcts:8", "mcts:64"], 20, seed=1, command="test")
    assert {rung.spec for rung in ladder.rungs} == {"random", "mcts:8", "mcts:64"} and ladder.rating_of("random") == 0.0
    assert [rung.rating for rung in ladder.rungs] == sorted(rung.rating for rung in ladder.rungs)  # weakest first
    assert ladder.rating_of("mcts:64") > ladder.rating_of("random")
    assert Ladder.from_json(ladder.to_json()) == ladder
    with pytest.raises(InvalidOptionError, match="rung 'mcts:0'"):
        build_ladder(SMALL, ["random", "mcts:0"], 4)  # a bad spec is refused before any game
    with pytest.raises(InvalidOptionError, match="anchor"):
        build_ladder(SMALL, ["greedy", "mcts:8"], 4)


def synthetic_ladder(game=SMALL, **extra) -> Ladder:
    rungs = (Rung("random", 0, 0, 0, 100), Rung("mcts:8", 150, 100, 200, 100), Rung("mcts:64", 400, 330, 470, 100))
    return Ladder(game.name, dict(game.options), rungs, "test", "today", 100, dict(extra))


def test_next_rung_follows_the_estimate_and_climbs_past_sweeps():
    ladder = synthetic_ladder()
    assert next_rung(ladder, None).spec == "mcts:8"
    assert next_rung(ladder, LadderFit(380, 300, 460, 10, 0.5)).spec == "mcts:64"
    assert next_rung(ladder, LadderFit(160, 160, math.inf, 10, 1.0)).spec == "mcts:64"  # beyond the bound
    assert next_rung(ladder, LadderFit(500, 500, math.inf, 10, 1.0)).spec == "mcts:64"  # nothing above: the top
    assert next_rung(ladder, LadderFit(100, -math.inf, 100, 10, 0.0)).spec == "random"


def test_rate_stops_at_the_budget_and_counts_every_game():
    ladder = synthetic_ladder()
    player = make_player("mcts:16", game=SMALL)
    result = rate(SMALL, player, ladder, width=1.0, max_games=30, batch=10, seed=2)
    assert result.fit.games == 30 == sum(len(scores) for scores in result.played.values())
    again = rate(SMALL, make_player("mcts:16", game=SMALL), ladder, width=1.0, max_games=30, batch=10, seed=2)
    assert again.fit == result.fit  # seeded: the same games, the same rating
    assert "on the crisscross ladder" in result.summary("mcts:16")


def test_rate_stops_once_the_interval_is_narrow_enough():
    result = rate(SMALL, make_player("mcts:16", game=SMALL), synthetic_ladder(), width=2000, max_games=200, batch=10)
    assert result.fit.games == 10 and result.fit.width <= 2000


def test_ladder_files_are_checked(tmp_path):
    with pytest.raises(LadderError, match="no ladder file"):
        read_ladder(tmp_path / "none.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(LadderError, match="not a ladder file"):
        read_ladder(tmp_path / "bad.json")
    (tmp_path / "big.json").write_bytes(b" " * 1_000_001)
    with pytest.raises(LadderError, match="at most"):
        read_ladder(tmp_path / "big.json")
    (tmp_path / "other.json").write_text(synthetic_ladder(make_game("crisscross", size=5)).to_json())
    with pytest.raises(LadderError, match="not of crisscross"):
        load_ladder(SMALL, tmp_path / "other.json")
    with pytest.raises(LadderError, match="no ladder for crisscross"):
        load_ladder(SMALL)  # no shipped ladder at size 4


def test_a_ladder_rated_with_another_agent_is_refused():
    game = make_game("crisscross", size=6)
    with pytest.raises(LadderError, match="another agent file"):
        check_agent(synthetic_ladder(game, agent_sha256="0" * 64), game)


SHIPPED = [make_game(name, **options) for name, options in agents.available()]


@pytest.mark.parametrize("game", SHIPPED, ids=ladder_file_name)
def test_every_shipped_ladder_agrees_with_itself(game):
    ladder = load_ladder(game)
    report = ladder.extra.get("consistency")
    assert report is not None, "a shipped ladder records its own fit (crossenvs ladder writes it)"
    assert outside(report) == []  # every rung rated alone against the others lands inside its interval
    assert len(report["leave_one_out"]) == len(ladder.rungs) - 1  # every rung but the anchor was checked
    widened = ladder.extra["intervals_widened_by"]
    assert widened == pytest.approx(max(1.0, report["dispersion"]) ** 0.5, abs=0.01)
    # the trainers' suggested match names these two, so that eval rates the agent on the ladder's scale
    assert {"random", "mcts:500"} <= {rung.spec for rung in ladder.rungs}


@pytest.mark.parametrize("game", SHIPPED, ids=ladder_file_name)
def test_every_pretrained_agent_has_a_shipped_ladder(game):
    ladder = load_ladder(game)
    check_agent(ladder, game)  # rated with the agent that is installed
    ratings = {rung.spec: rung.rating for rung in ladder.rungs}
    assert ratings["random"] == 0.0
    # orders that hold by hundreds of points (near random, MCTS-8 and MCTS-32 are within noise of it)
    assert ratings["mcts:2000"] > ratings["mcts:128"] > ratings["random"]
    assert ratings["pretrained:64"] > ratings["mcts:500"]
    assert ladder.command.startswith(f"crossenvs ladder {game.name}")
    for rung in ladder.rungs:
        assert rung.low <= rung.rating <= rung.high and rung.games > 0


def test_connect_four_climbs_to_perfect_play_and_hex_through_dense_mcts_rungs():
    """Connect Four's top rung is perfect play, reached through perfect players with random moves (perfect alone
    would sweep MCTS-2000 and have no finite rating); Hex's MCTS rungs are dense where its strength climbs, and its
    agent, whose network alone sweeps MCTS-2000, is reached through that network with random moves mixed in."""
    c4 = load_ladder(make_game("connect_four"))
    ratings = {rung.spec: rung.rating for rung in c4.rungs}
    assert [rung.spec for rung in c4.rungs][-1] == "perfect"
    assert ratings["perfect"] > ratings["perfect:3"] > ratings["mcts:2000"] > ratings["mcts:128"] > 0
    hex_ladder = load_ladder(make_game("hex"))
    specs = [rung.spec for rung in hex_ladder.rungs]
    assert {"mcts:64", "mcts:250", "mcts:1000"} <= set(specs) and "perfect" not in specs
    hex_ratings = {rung.spec: rung for rung in hex_ladder.rungs}
    assert hex_ratings["mcts:2000"].rating > hex_ratings["mcts:500"].rating > hex_ratings["mcts:128"].rating
    assert all(math.isfinite(rung.high) for rung in hex_ladder.rungs)
    bridge = ("mcts:2000", "noisy:30:pretrained:0", "noisy:15:pretrained:0", "pretrained:0", "pretrained:64")
    assert [hex_ratings[spec].rating for spec in bridge] == sorted(hex_ratings[spec].rating for spec in bridge)
    for game, ladder in ((make_game("connect_four"), c4), (make_game("hex"), hex_ladder)):
        assert ladder.command.startswith(f"crossenvs ladder {game.name}")
        assert {rung.spec for rung in ladder.rungs} == set(default_rungs(game))  # built from the default rungs


def test_shipped_ladder_files_are_plain_json():
    for path in LADDER_DIR.glob("*.json"):
        assert set(json.loads(path.read_text())) >= {"game", "options", "rungs", "command", "made"}


def test_cli_rate_prints_an_anchored_rating():
    out = io.StringIO()
    argv = ["rate", "mcts:32", "--game", "Crisscross", "--option", "size=6", "--max-games", "10", "--batch", "10"]
    assert main(argv, out=out) == 0
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("mcts:32: ") and "on the crisscross ladder (95% interval" in last


def test_cli_ladder_writes_a_file(tmp_path, capsys):
    out, target = io.StringIO(), tmp_path / "small.json"
    argv = ["ladder", "crisscross", "--option", "size=4", "--rungs", "random", "mcts:1", "--games-per-pair", "6"]
    assert main([*argv, "--reach", "1", "--workers", "1", "--out", str(target)], out=out) == 0
    assert f"games are kept in {tmp_path / 'small.games.jsonl'}" in out.getvalue()
    assert (tmp_path / "small.games.jsonl").read_text().count("\n") == 1  # one pair of 6 games: one job
    assert load_ladder(SMALL, target).rating_of("random") == 0.0
    assert load_ladder(SMALL, target).extra["reach"] == 1  # --reach reached the builder (the default is 2)
    # a rung that won every game has no finite rating to hold fixed: refused, not given a point
    swept = ["ladder", "crisscross", "--option", "size=4", "--rungs", "random", "mcts:8", "--games-per-pair", "4"]
    assert main([*swept, "--workers", "1", "--out", str(tmp_path / "swept.json")], out=io.StringIO()) == 2
    assert "rungs without a finite rating: mcts:8 (>= " in capsys.readouterr().err
    assert not (tmp_path / "swept.json").exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["rate", "random", "--game", "crisscross", "--width", "0"], "--width"),
        (["rate", "random", "--game", "crisscross", "--max-games", "1"], "--max-games"),
        (["ladder", "crisscross", "--out", "x.txt"], "--out"),
        (["ladder", "crisscross", "--out", "x.json", "--journal", "games.txt"], "--journal"),
        (["ladder", "crisscross", "--games-per-pair", "1", "--out", "x.json"], "--games-per-pair"),
    ],
)
def test_cli_refuses_bad_numbers_before_playing(argv, message, capsys):
    assert main(argv, out=io.StringIO()) == 2
    assert message in capsys.readouterr().err


def test_fit_is_finite_for_mixed_results():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 2, size=50).astype(float)
    fit = fit_rating(rng.uniform(0, 800, size=50), scores)
    assert all(math.isfinite(value) for value in (fit.rating, fit.low, fit.high))


def first_legal(observation, mask):
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("batched", [False, True], ids=["one-at-a-time", "vector-env"])
def test_random_openings_vary_the_games_of_deterministic_players(batched):
    from crossenvs.eval.arena import round_robin
    from crossenvs.players import FunctionPlayer

    def deterministic(name):
        if batched:
            return FunctionPlayer(lambda obs, masks: masks.argmax(axis=1), batched=True, name=name)
        return FunctionPlayer(first_legal, name=name)

    game = make_game("crisscross", size=6)
    players = [deterministic("a"), deterministic("b")]
    fixed = round_robin(game, players, 20, seed=0)
    varied = round_robin(game, players, 20, seed=0, opening_plies=2)
    assert len({(r.first, r.score_first, r.plies) for r in fixed}) <= 2  # the same two games, ten times each
    assert len({(r.first, r.score_first, r.plies) for r in varied}) > 2
    # the two games of a seat swap share their opening: same players, same moves, so the same length
    assert all(varied[k].plies == varied[k + 1].plies for k in range(0, 20, 2))
    with pytest.raises(InvalidOptionError, match="opening_plies"):
        round_robin(game, players, 2, opening_plies=-1)


def test_an_arena_anchors_to_the_ladder_through_its_rungs(capsys, tmp_path):
    """The real command: the rungs, one spelled its own way, held at their ladder ratings in the table and the file."""
    out, saved = io.StringIO(), tmp_path / "arena.json"
    players = ["random", "mcts:9", "mcts:0032"]
    argv = ["eval", "crisscross", "--option", "size=6", "--players", *players, "--games", "4", "--ladder"]
    assert main([*argv, "--json", str(saved)], out=out) == 0
    text = out.getvalue()
    assert "on the crisscross ladder's scale, random = 0: 2 of its rungs held at their ladder ratings" in text
    assert re.search(r"random\s+│?\s*0\s", text) or re.search(r"random\s+0 ", text)  # random sits at its rung, 0
    table = {r["name"]: r for r in json.loads(saved.read_text())["ratings"]}
    ladder = load_ladder(make_game("crisscross", size=6))
    assert (table["random"]["rating"], table["random"]["fixed"]) == (0.0, True)
    assert (table["mcts32"]["rating"], table["mcts32"]["fixed"]) == (ladder.rating_of("mcts:32"), True)
    assert not table["mcts9"]["fixed"] and table["mcts9"]["games"] == 8
    assert main(["eval", "crisscross", "--option", "size=6", "--players", "mcts:9", "mcts:10", "--ladder"]) == 2
    assert "none of the players is a rung" in capsys.readouterr().err


def test_default_workers_counts_cores_where_there_is_no_cpu_affinity(monkeypatch):
    """macOS and Windows have no os.sched_getaffinity: the machine's core count stands in."""
    import os

    from crossenvs.eval import ladder

    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    assert ladder.default_workers() == max(1, os.cpu_count() or 1)


def arena_with_a_sweep(agent_spec: str) -> tuple[list[GameRecord], dict[str, str]]:
    """An arena on Crisscross 6x6's ladder: three rungs (the agent spelled ``agent_spec``), a player of no rung
    with mixed results, and one who won every game (issue 48: an arena with a sweep rated random at 471)."""
    specs = {
        "random": "random",
        "agent": agent_spec,
        "mcts500": "mcts:0500",
        "mine": "az:mine.pt",
        "sweeper": "mcts:9000",
    }
    scores = {  # (a, b) -> a's wins out of 10, a seated first (the fit has no seat advantage)
        ("mine", "random"): 9,
        ("mine", "mcts500"): 6,
        ("mine", "agent"): 2,
        ("agent", "random"): 10,
        ("agent", "mcts500"): 8,
        ("mcts500", "random"): 10,
    }
    scores |= {("sweeper", other): 10 for other in specs if other != "sweeper"}
    return records_for({pair: wins / 10 for pair, wins in scores.items()}, 10), specs


def test_an_arena_fits_with_the_ladders_rungs_held_and_a_sweep_moves_nobody():
    """Issue 48's one scale: the rungs sit at their ladder ratings (random at 0) however spelled, the other
    players come out on the ladder's scale with what rate would give them, and a perfect score is a bound."""
    ladder = shipped_ladder(make_game("crisscross", size=6))
    assert ladder is not None and shipped_ladder(make_game("crisscross", size=5)) is None  # no ladder at 5x5
    records, specs = arena_with_a_sweep("pretrained")
    table = {rating.name: rating for rating in ratings_on_ladder(ladder, records, specs)}
    assert (table["random"].rating, table["random"].fixed) == (0.0, True)
    assert table["agent"].rating == ladder.rating_of("pretrained:64") and table["agent"].fixed  # "pretrained"
    assert table["mcts500"].rating == ladder.rating_of("mcts:500")  # "mcts:0500"
    # the free player: rated as crossenvs rate would from the same games against the rungs (its losses to
    # the sweeper say nothing, the sweeper having no finite rating)
    against = [(o, w / 10) for o, w in (("random", 9), ("mcts500", 6), ("agent", 2))]
    rungs = {"random": "random", "mcts500": "mcts:500", "agent": "pretrained:64"}
    by_spec = {rung.spec: rung for rung in ladder.rungs}
    alone = fit_rating(
        [ladder.rating_of(rungs[o]) for o, score in against for _ in range(10)],
        [float(k < score * 10) for _, score in against for k in range(10)],
        [rung_sd(by_spec[rungs[o]]) for o, score in against for _ in range(10)],  # the rungs' uncertainty, as rate
    )
    mine = table["mine"]
    assert (mine.rating, mine.low, mine.high) == pytest.approx((alone.rating, alone.low, alone.high), abs=0.01)
    assert mine.low < mine.rating < mine.high and not mine.fixed
    # the perfect score: a one-sided bound above everyone it beat, never a point
    sweeper = table["sweeper"]
    assert sweeper.score == 1.0 and sweeper.one_sided and math.isinf(sweeper.high) and sweeper.rating == sweeper.low
    assert sweeper.low > table["agent"].rating and next(iter(table)) == "sweeper"
    # without the sweeper nothing moves: it took no part in the fit
    without = [r for r in records if "sweeper" not in (r.first, r.second)]
    again = ratings_on_ladder(ladder, without, {name: spec for name, spec in specs.items() if name != "sweeper"})
    assert {r.name: (r.rating, r.low, r.high) for r in again} == {
        n: (r.rating, r.low, r.high) for n, r in table.items() if n != "sweeper"
    }
    # the other spelling gives the same table
    spelled, other_specs = arena_with_a_sweep("pretrained:64")
    assert ratings_on_ladder(ladder, spelled, other_specs) == list(table.values())
    with pytest.raises(LadderError, match="none of the players is a rung of the crisscross ladder"):
        ratings_on_ladder(
            ladder,
            without,
            {"random": "mcts:10", "agent": "pretrained:65", "mcts500": "mcts:501", "mine": "az:mine.pt"},
        )


def test_eval_reports_on_the_ladders_scale_whenever_a_player_is_a_rung_and_says_which_scale():
    out = io.StringIO()
    assert (
        main(["eval", "crisscross", "--option", "size=6", "--players", "random", "greedy", "--games", "2"], out=out)
        == 0
    )
    text = out.getvalue()  # no --ladder: the shipped one, since random is a rung
    assert "(ratings on the crisscross ladder's scale, random = 0: 2 of its rungs held at their ladder ratings" in text
    out = io.StringIO()
    assert (
        main(["eval", "crisscross", "--option", "size=4", "--players", "random", "greedy", "--games", "2"], out=out)
        == 0
    )
    assert "(ratings relative to these players, mean 1500: Crisscross(size=4) has no ladder" in out.getvalue()
    out = io.StringIO()
    assert (
        main(["eval", "crisscross", "--option", "size=6", "--players", "mcts:9", "mcts:10", "--games", "2"], out=out)
        == 0
    )
    assert "mean 1500: add random, a rung of the crisscross ladder" in out.getvalue()


def test_the_agents_page_quotes_each_agents_rung_as_its_ladder_file_has_it():
    """docs/agents.md's strength table gives each agent's ``pretrained:64`` rung: the shipped file's, to the Elo."""
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "agents.md").read_text()
    quoted = dict(re.findall(r"^\| ([\w -]+?)(?: \(default\))? \| (\d+ \(\d+ \.\. \d+\)) \|", page, re.M))
    files = {"Crisscross 8x8": "crisscross.json", "Crisscross 6x6": "crisscross_size6.json", "Hex 11x11": "hex.json"}
    assert len(quoted) == len(SHIPPED), quoted
    for name, text in quoted.items():
        file = files.get(name, name.lower().replace(" ", "_").replace("-", "_") + ".json")
        ladder = read_ladder(LADDER_DIR / file)
        rung = next(rung for rung in ladder.rungs if rung.spec == "pretrained:64")
        assert text == f"{rung.rating:.0f} ({rung.low:.0f} .. {rung.high:.0f})", name


def test_the_evaluation_page_shows_every_shipped_ladder_as_the_files_have_it():
    """docs/evaluation.md's table of the shipped ladders is what ``python benchmarks/ladders.py --table`` prints."""
    from pathlib import Path

    from conftest import benchmark_script

    from crossenvs.eval.ladder import available

    page = (Path(__file__).resolve().parent.parent / "docs" / "evaluation.md").read_text()
    with benchmark_script("ladders") as script:
        table = script.markdown_table()
    assert table in page
    assert table.splitlines()[0].count("|") == len(available()) + 2  # a column for every shipped ladder
