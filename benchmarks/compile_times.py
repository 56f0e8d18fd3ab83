"""First-use compile times, the figures behind the compile notices (``crossenvs.support.waits.COMPILE_SECONDS``).

    python benchmarks/compile_times.py                   # every template, the smallest and the largest game
    python benchmarks/compile_times.py --games crosse    # one game

Each measurement is two fresh processes on one new, empty cache (``CROSSENVS_CACHE_DIR``): the first
compiles and times the work, the second times the same work on the now warm cache; the compile is the
difference. The work is what a user's first call does: a vector env step, an MCTS move, an AlphaZero
search step, a solve, a single-game step. A process is started per figure so that nothing compiled in one
measurement helps the next.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

from crossenvs import agents

#: what each template's first use is, as a snippet that runs it for the game ``GAME``
WORK = {
    "crossenvs.kernels.game_batch": """
from crossenvs.envs.vector import CrossVectorEnv
env = CrossVectorEnv(GAME, num_envs=8, **OPTIONS)
_, info = env.reset(seed=0)
env.step(info["action_mask"].argmax(axis=1))
""",
    "crossenvs.players.mcts": """
from crossenvs.players import MCTSPlayer
game = crossenvs.make_game(GAME, **OPTIONS)
MCTSPlayer(20, seed=0).act(game, game.initial_state())
""",
    "crossenvs.az.search.tree": """
from crossenvs.players import make_player
game = crossenvs.make_game(GAME, **OPTIONS)
make_player("pretrained:8", game=game).act(game, game.initial_state())
""",
    "crossenvs.kernels.fused": """
import numpy as np
from crossenvs.envs import make_env
env = make_env(GAME, **OPTIONS)
env.reset(seed=0)
env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
""",
    "crossenvs.eval.solve_kernel": """
from crossenvs.eval.solver import SolverBudgetError, solve
game = crossenvs.make_game(GAME, **OPTIONS)
try:
    solve(game, game.initial_state(), nodes=2000, table_bits=12)
except SolverBudgetError:
    pass  # the compile is what is timed: a budget of 2,000 positions keeps the search itself short
""",
}
#: the smallest game and the largest: the range a notice quotes
GAMES = {"crisscross": {"size": 6}, "crosse": {}}


def timed(snippet: str, game: str, options: dict, cache: str) -> float:
    """Seconds the snippet takes in a fresh process on ``cache`` (import excluded)."""
    program = (
        "import time, crossenvs\n"
        f"GAME, OPTIONS = {game!r}, {options!r}\n"
        "started = time.perf_counter()\n" + snippet + "\nprint(time.perf_counter() - started)\n"
    )
    environment = {**os.environ, "CROSSENVS_CACHE_DIR": cache, "CROSSENVS_COMPILE_NOTICE": "0"}
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=environment, check=True
    )
    return float(result.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", nargs="+", default=list(GAMES), help="games to measure (default: the two ends)")
    parser.add_argument("--templates", nargs="+", default=list(WORK), help="templates to measure")
    args = parser.parse_args()
    print("| template | game | cold (s) | warm (s) | compile (s) |\n|---|---|---:|---:|---:|", flush=True)
    for template in args.templates:
        for game in args.games:
            if template == "crossenvs.az.search.tree" and (game, GAMES.get(game, {})) not in agents.available():
                continue  # its work is a pretrained agent's move
            with tempfile.TemporaryDirectory(prefix="crossenvs-cold-") as cache:
                cold = timed(WORK[template], game, GAMES.get(game, {}), cache)
                warm = timed(WORK[template], game, GAMES.get(game, {}), cache)
            print(f"| {template} | {game} | {cold:.1f} | {warm:.1f} | {cold - warm:.1f} |", flush=True)


if __name__ == "__main__":
    main()
