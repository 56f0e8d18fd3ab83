"""What every trainer shares: YAML configs checked key by key (:mod:`.config`), run folders,
atomic writes and resuming from a good checkpoint (:mod:`.folders`), and the command-line pieces
every trainer takes (:mod:`.command`).

The trainers in ``training/`` and the AlphaZero and PPO libraries (:mod:`crossenvs.az`,
:mod:`crossenvs.ppo`) use it; ``import crossenvs`` never does, so YAML stays out of the package's
import.
"""
