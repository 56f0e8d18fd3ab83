"""The kernel ground: the position record and everything the rules and their batched loops run on, both targets.

Below the game contract (``crossenvs.core``) and knowing no game: it imports only :mod:`crossenvs.support`
and names no module above it (``tests/test_layers.py``). What is here:

* The position and what rules share: :mod:`.state` (``State``, the meta slots, ``SEAT_RETURNS``),
  :mod:`.conventions` (passes that draw, seat colours), :mod:`.bits` (bit instructions), :mod:`.codec`
  (action ids from squares), :mod:`.frames` (egocentric frames), :mod:`.observation` (piece planes),
  :mod:`.floats` (exp with the same bits on both targets).
* Compiling: :mod:`.cache` (numba's disk cache), :mod:`.specialize` (per-game copies of template modules),
  :mod:`.targets` (a primitive's CUDA version registered when CUDA first loads), :mod:`.portable` (what a
  rule may use so one source compiles for both targets), :mod:`.numba_internals` (every place we reach
  into numba or numba-cuda, the versions checked).
* Running: :mod:`.threads` (which CPU loop runs: serial, or numba's threads for a large batch),
  :mod:`.launch` (a CUDA kernel launched, its PTX signature from the NamedTuple it takes), :mod:`.cuda`
  (the CUDA target: driver checks, device arrays shared with torch, PTX without a GPU), :mod:`.backends`
  (``HostBackend`` and ``DeviceBackend``: the two targets a batched job runs on).
* The batched one-index kernels and their launch shapes: :mod:`.game_batch` (a batch of one game's
  step (which resets too), apply, view: a template), :mod:`.batch_kernels` (their arguments as NamedTuples, and the
  game-independent ones: resets, per-game random streams), :mod:`.random_pick` (the one uniform random pick
  among legal actions), :mod:`.fused` (the single-game stepper's fused step: a template).

The search's kernels are the search's own unit (:mod:`crossenvs.az.search`), as mctx keeps its search.
Importing this package imports nothing: a CPU-only process never loads numba-cuda.
"""
