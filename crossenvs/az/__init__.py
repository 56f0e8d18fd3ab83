"""AlphaZero agents: Gumbel tree search over the real rules (numba) guided by a residual CNN (torch).

Needs torch (the ``agents`` extra: ``pip install -e ".[agents]"`` in a checkout). The trainer is ``crossenvs train alphazero``; a checkpoint plays as
the player spec ``az:<checkpoint>[:<simulations>]`` (0 simulations: the raw policy).
"""
