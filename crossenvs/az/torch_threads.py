"""Torch's CPU threads for the networks: all of them or one, whichever is measured faster now.

Torch splits a large operation among its threads and waits for the last: beside a busy process on a
machine with few cores, a thread sharing its core makes every operation wait for a time slice. So the
network's calls go through the same measured choice as numba's batched loops
(:class:`crossenvs.kernels.threads.FasterOf`: both ways timed, the faster kept, the other tried again now
and then within a small share of the time, one thread without trials while other processes leave too
few cores spare), with a choice of its own: torch's load is not numba's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from crossenvs.support.extras import needs_extra

with needs_extra("agents", "AlphaZero (crossenvs.az)"):
    import torch

from ..kernels.threads import NEIGHBOURS, FasterOf, WayChoice


def torch_thread_choice(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` on all of torch's CPU threads or on one, whichever is faster now: ``choice(size, *args)``.

    Torch splits a large operation among its threads and waits for the last: beside a busy
    process, a thread sharing its core makes every operation wait for a time slice, and self-play
    on all the threads fell to a small share of its speed on one (measured: docs/benchmarks.md,
    section 'Environment steps'). The choice is its own (torch's load is not numba's) but looks at
    the same neighbours (:data:`NEIGHBOURS`).
    """
    many = torch.get_num_threads()

    def on(count: int) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            if torch.get_num_threads() != count:
                torch.set_num_threads(count)
            return function(*args)

        return run

    if many == 1:
        return lambda size, *args: function(*args)
    return FasterOf(on(many), on(1), WayChoice(neighbour_load=NEIGHBOURS))
