"""Ratings that agree with themselves: the intervals of ``crossenvs rate`` cover the truth, and say when a player
fits the ladder badly.

Was: an interval counted neither the rungs' own uncertainty nor a player that fits the ladder badly, so one
checkpoint was rated 1234 (1137 .. 1328) by training and 1066 (1011 .. 1120) by ``crossenvs rate``. The
simulation is :mod:`crossenvs.selfcheck.rating_calibration` (its table is on the Evaluation page).
"""

from __future__ import annotations

import math

import pytest

from crossenvs.eval.ladder import LadderRating
from crossenvs.eval.ladder.adaptive import MAX_GAMES, WIDTH
from crossenvs.eval.ratings import fit_rating
from crossenvs.selfcheck.rating_calibration import coverage, noisy_ladder


@pytest.mark.slow
@pytest.mark.parametrize(("delta", "span", "seed"), [(0.0, (100.0, 1700.0), 0), (120.0, (1000.0, 1700.0), 1)])
def test_the_95_percent_intervals_hold_the_truth_at_least_93_percent_of_the_time(delta, span, seed):
    found = coverage(repeats=400, delta=delta, span=span, seed=seed)
    assert found.covered >= 0.93, found
    assert math.isfinite(found.median_width) and found.mean_games <= MAX_GAMES


def test_the_rungs_uncertainty_widens_the_interval():
    opponents, scores = [400.0] * 40 + [600.0] * 40, [1.0] * 26 + [0.0] * 14 + [1.0] * 16 + [0.0] * 24
    exact = fit_rating(opponents, scores)
    unsure = fit_rating(opponents, scores, [30.0] * 80)
    assert unsure.rating == exact.rating and unsure.low < exact.low and unsure.high > exact.high


def test_results_that_one_rating_cannot_explain_widen_the_interval_and_are_said_plainly():
    import numpy as np

    ladder = noisy_ladder(np.random.default_rng(0), 0.0)  # exact rungs: only the misfit widens
    at = {rung.spec: rung.rating for rung in ladder.rungs}
    # like the checkpoint: a ~1170 player against the network rungs, a ~950 one against MCTS-2000
    played = {"pretrained:0": [1.0] * 60 + [0.0] * 40, "mcts:2000": [1.0] * 15 + [0.0] * 85}
    specs = [spec for spec, scores in played.items() for _ in scores]
    flat = [score for scores in played.values() for score in scores]
    fit = fit_rating([at[spec] for spec in specs], flat)
    assert fit.dispersion > 1.5, fit
    said = LadderRating(fit, ladder, played).summary("az:final.pt")
    assert "fits the ladder badly: against the pretrained rungs" in said and "against the mcts rungs" in said, said
    consistent = {"pretrained:0": [1.0] * 50 + [0.0] * 50, "mcts:2000": [1.0] * 30 + [0.0] * 70}
    specs = [spec for spec, scores in consistent.items() for _ in scores]
    fit = fit_rating([at[spec] for spec in specs], [s for scores in consistent.values() for s in scores])
    assert "badly" not in LadderRating(fit, ladder, consistent).summary("x")


def test_one_procedure_one_set_of_defaults():
    """crossenvs rate, crossenvs train's ladder line and make train's config use rate's defaults."""
    import inspect

    from crossenvs.az.config import Config
    from crossenvs.cli import build_parser
    from crossenvs.eval.ladder import rate, rate_with

    assert Config.__dataclass_fields__["eval_ladder_games"].default == MAX_GAMES
    for function in (rate, rate_with):
        assert inspect.signature(function).parameters["max_games"].default == MAX_GAMES
        assert inspect.signature(function).parameters["width"].default == WIDTH
    args = build_parser().parse_args(["rate", "pretrained", "--game", "crisscross"])
    assert (args.max_games, args.width) == (MAX_GAMES, WIDTH)


def _games(results: dict[tuple[str, str], tuple[int, int]]) -> list:
    """Records of (a, b) -> (a's wins, games), seats alternating."""
    from crossenvs.eval.ratings import GameRecord

    records = []
    for (a, b), (wins, games) in results.items():
        for k in range(games):
            won = k < wins
            first, second, score = (a, b, float(won)) if k % 2 == 0 else (b, a, float(not won))
            records.append(GameRecord(first, second, score, 10, k))
    return records


def test_a_ladder_build_records_how_well_its_rungs_agree_and_names_a_rung_that_does_not():
    """Leave one rung out: each rung rated from its own games, as rate rates a player, lands in its interval;
    a rung whose games against two neighbours disagree is named, and so are the departing pairs."""
    from crossenvs.eval.ladder import anchored_ratings
    from crossenvs.eval.ladder.checks import consistency, outside

    names = ["random", "mcts:8", "mcts:32", "pretrained:0"]
    agreeing = {("random", "mcts:8"): (120, 400), ("random", "mcts:32"): (40, 400), ("mcts:8", "mcts:32"): (100, 400),
                ("mcts:8", "pretrained:0"): (40, 400), ("mcts:32", "pretrained:0"): (120, 400)}  # fmt: skip
    records = _games(agreeing)
    report = consistency(records, anchored_ratings(records, names))
    assert not outside(report) and report["dispersion"] < 2.5, report
    assert set(report["leave_one_out"]) == set(names) - {"random"}
    # pretrained:0 scores like a much stronger rung against mcts:8 than against mcts:32: intransitive
    clashing = {**agreeing, ("mcts:8", "pretrained:0"): (4, 400), ("mcts:32", "pretrained:0"): (200, 400)}
    records = _games(clashing)
    report = consistency(records, anchored_ratings(records, names))
    assert report["dispersion"] > 5 and any("pretrained:0" in line for line in report["departing_pairs"]), report
