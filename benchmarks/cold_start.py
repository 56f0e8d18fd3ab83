"""Cold start of a fresh process with a warm kernel cache: import, a vector env step, an MCTS move.

    python benchmarks/cold_start.py            # prints: import, vector env, MCTS, total (seconds)

Run it a few times (the first run after an edit compiles the kernels); compare checkouts by
running each alternately, e.g. ``PYTHONPATH=<other checkout> python <other checkout>/benchmarks/cold_start.py``.
"""

import time

started = time.perf_counter()
import crossenvs  # noqa: E402

imported = time.perf_counter()
from crossenvs.envs.vector import CrossVectorEnv  # noqa: E402

env = CrossVectorEnv("crosse", num_envs=64)
_, info = env.reset()
env.step(info["action_mask"].argmax(axis=1))
stepped = time.perf_counter()
from crossenvs.players import MCTSPlayer  # noqa: E402

game = crossenvs.make_game("crisscross", size=6)
MCTSPlayer(50, seed=0).act(game, game.initial_state())
searched = time.perf_counter()
print(f"{imported - started:.3f} {stepped - imported:.3f} {searched - stepped:.3f} {searched - started:.3f}")
