"""The kernel wing: the compiler back end that builds the rules and the loops over them for the CPU and for CUDA.

The rules are numba functions written once (``crossenvs.games``, ``crossenvs.core``); this room
is the plumbing that compiles them twice and runs them over batches. Nothing here knows a game.

* :mod:`.cache`: where compiled code lives on disk, keyed so that edited sources never load stale code.
* :mod:`.specialize`: template modules, copied once per game with that game's kernels bound in.
* :mod:`.batched`: a batched kernel declared once as ``one(args, i)`` over a NamedTuple of arrays, which
  gives its serial and parallel CPU loops, its CUDA kernel, its launch and its PTX signature.
* :mod:`.threads`: which CPU loop runs (serial or numba's threads), chosen by measurement.
* :mod:`.portable`: what a rule may use so that one source compiles for both targets.
* :mod:`.cuda`: the CUDA target: the driver checks, device arrays shared with torch, PTX without a GPU.
* :mod:`.numba_internals`: every place we reach into numba or numba-cuda, with the versions checked.
* :mod:`.compiled_checks`: checks on the compiled code itself (registers, stack, alignment, FMA, caching).

Importing this package imports nothing: a CPU-only process never loads numba-cuda.
"""
