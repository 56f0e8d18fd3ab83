"""Fixed-anchor ladders: ratings that mean the same in every run and on every machine.

An arena's ratings are centred on the mean of whoever took part, so a 1600 from one run says
nothing in another. A ladder fixes the scale once: a list of reference players of one game at
one option set (the *rungs*: random, greedy, MCTS at growing simulation counts, the pretrained
agent at growing search sizes), rated by a long round of games between neighbouring rungs with
random pinned at 0 on the Elo scale, and shipped with the package as a JSON file
(``crossenvs/ladders/``). Rating a player against it (:func:`rate`) plays the rungs nearest its
running estimate, both seats, and fits its one rating with the rungs' ratings held fixed: the
answer is on the ladder's scale, whatever else is in the run.

The interval :func:`rate` reports is the uncertainty of the player's games, given the ladder:
two players rated on the same ladder compare within it. How well the ladder's own numbers are
pinned down (each rung's interval against random) is recorded in the file and on the docs'
evaluation page.

The package, one module a job: ``files.py`` (the ladder file and the shipped ladders),
``pool.py`` (pairs of players across processes, kept in a journal), ``build.py`` (which rungs meet, anchored
ratings), ``adaptive.py`` (rating a player against it) and ``scale.py`` (an arena's ratings fitted
with its rungs held at their ladder ratings). The statistics are
:mod:`crossenvs.eval.ratings`', shared with arenas. Every name is importable from here.
"""

from __future__ import annotations

from ..ratings import LadderFit, fit_rating  # the fit of a player against a ladder's rungs
from .adaptive import BATCH, MAX_GAMES, WIDTH, LadderRating, next_rung, rate, rate_with
from .build import (
    MCTS_RUNGS,
    PRETRAINED_RUNGS,
    anchored_ratings,
    build_ladder,
    default_rungs,
    made_stamp,
    neighbour_pairs,
)
from .files import (
    ANCHOR,
    LADDER_DIR,
    MAX_LADDER_BYTES,
    OPENING_PLIES,
    Ladder,
    LadderError,
    Rung,
    agent_digest,
    available,
    check_agent,
    ladder_file_name,
    load_ladder,
    read_ladder,
)
from .pool import JOB_GAMES, JournalError, default_workers, play_pairs, read_journal
from .scale import ladder_rungs_among, ratings_on_ladder, shipped_ladder

__all__ = [
    "ANCHOR",
    "BATCH",
    "JOB_GAMES",
    "LADDER_DIR",
    "MAX_GAMES",
    "MAX_LADDER_BYTES",
    "MCTS_RUNGS",
    "OPENING_PLIES",
    "PRETRAINED_RUNGS",
    "WIDTH",
    "JournalError",
    "Ladder",
    "LadderError",
    "LadderFit",
    "LadderRating",
    "Rung",
    "agent_digest",
    "anchored_ratings",
    "available",
    "build_ladder",
    "check_agent",
    "default_rungs",
    "default_workers",
    "fit_rating",
    "ladder_file_name",
    "ladder_rungs_among",
    "load_ladder",
    "made_stamp",
    "neighbour_pairs",
    "next_rung",
    "play_pairs",
    "rate",
    "rate_with",
    "ratings_on_ladder",
    "read_journal",
    "read_ladder",
    "shipped_ladder",
]
