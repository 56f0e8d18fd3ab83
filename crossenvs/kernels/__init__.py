"""The kernel wing: what runs the rules over batches on the CPU and on CUDA, knowing no game and no layer above.

The rules are numba functions written once (``crossenvs.games``, ``crossenvs.core``); each batched
kernel's loops are ordinary functions beside it, in the module that owns it (the vector env's, the
search's). This room holds what those loops and the rules share:

* :mod:`.portable`: what a rule may use so that one source compiles for both targets.
* :mod:`.threads`: which CPU loop runs (serial, or numba's threads for a large batch), and the serial
  loops' inlined twins.
* :mod:`.launch`: a CUDA kernel launched (compiled once, on a stream, every failure named), its PTX
  signature from the NamedTuple it takes.
* :mod:`.cuda`: the CUDA target: the driver checks, device arrays shared with torch, PTX without a GPU.
* :mod:`.numba_internals`: every place we reach into numba or numba-cuda, with the versions checked.

The checks on the compiled code and the CUDA build run on the host are testing machinery
(``crossenvs.selfcheck.compiled_checks``, ``crossenvs.selfcheck.host_run``). Importing this package
imports nothing: a CPU-only process never loads numba-cuda.
"""
