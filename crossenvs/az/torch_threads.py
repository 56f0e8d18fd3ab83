"""Torch's CPU threads for the networks: all of them or one, whichever is faster now.

The chooser is the core's (:class:`crossenvs.kernels.threads.FasterOf`, the same as numba's batched
loops use); what is torch's lives here, beside the network, so the core layer never names torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.extras import needs_extra

with needs_extra("agents", "AlphaZero (crossenvs.az)"):
    import torch

from ..kernels import threads


def torch_thread_choice(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` on all of torch's CPU threads or on one, whichever is faster now: ``choice(size, *args)``.

    Torch splits a large operation among its threads and waits for the last: beside a busy
    process, a thread sharing its core makes every operation wait for a time slice. Measured
    (AlphaZero self-play, Crisscross 6x6, a browser busy beside it): 34 positions/s on two
    threads against 360 on one. The choice is its own (torch's load is not numba's) but looks at
    the same neighbours (:data:`crossenvs.kernels.threads.NEIGHBOURS`).
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
    return threads.FasterOf(on(many), on(1), threads.WayChoice(neighbour_load=threads.NEIGHBOURS))
