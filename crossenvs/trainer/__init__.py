"""What every trainer shares: YAML configs checked key by key (:mod:`.config`), the configs the package
ships and which one a command names (:mod:`.shipped`), run folders, atomic writes and resuming from a
good checkpoint (:mod:`.folders`), and the command-line pieces every trainer takes (:mod:`.command`).

``crossenvs train`` (:mod:`crossenvs.cli.train`) and the AlphaZero and PPO libraries
(:mod:`crossenvs.az`, :mod:`crossenvs.ppo`) use it. YAML is read only once a run starts, so neither
``import crossenvs`` nor building the command line needs PyYAML (the ``train`` extra).
"""
