"""The Gumbel search, its own unit inside AlphaZero (as mctx keeps its search): trees, their steps, the class.

* :mod:`.tree_math`: the ``Tree`` and what no game changes: selection scores, sigma(Q), expansion and backup,
  the answer, and their loops (compiled once for every game).
* :mod:`.tree`: the per-game steps of one tree (the root; selection down to a new leaf, stepped and observed
  with the game's kernels) and their loops, CPU and CUDA (a template, copied per game).
* :mod:`.gumbel`: :class:`GumbelSearch`, on the CPU or a GPU (one class, a backend), and its buffers.
* :mod:`.device`: the device kernels' PTX without a GPU (for the compiled-code checks).

It imports nothing of the rest of :mod:`crossenvs.az` (the layer test holds it to that): self-play, the
player and the benchmarks stand on it.
"""

from crossenvs.az.search.gumbel import Evaluator, GumbelSearch, SearchResult

__all__ = ["Evaluator", "GumbelSearch", "SearchResult"]
