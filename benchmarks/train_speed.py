"""Training speed: our self-play next to PettingZoo's SB3 action-mask tutorial, in one run.

    python benchmarks/train_speed.py                  # 30,000 steps per row
    python benchmarks/train_speed.py --steps 100000 --json out.json

Rows (steps per second of ``MaskablePPO.learn``, environment and gradient updates included):

* PettingZoo tutorial: ``connect_four_v3`` through the ``SB3ActionMaskWrapper`` of PettingZoo's
  "SB3: Action Masking" tutorial, one env, MaskablePPO's defaults (as the tutorial runs it);
* ours, like for like: ``CrossSB3VecEnv`` with the same MaskablePPO settings (MLP policy, 2,048
  steps per rollout, batches of 64, 10 epochs), 64 games per rollout step;
* ours as configured: ``training/selfplay.py``'s settings from ``crossenvs/configs/crisscross.yaml``
  (its policy, a full snapshot pool), the way ``make train`` runs.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def pettingzoo_tutorial(steps: int) -> float:
    """Steps/s of the PettingZoo SB3 action-mask tutorial on connect_four_v3 (its wrapper, verbatim in spirit)."""
    import gymnasium
    import pettingzoo.utils
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pettingzoo.classic import connect_four_v3

    class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):  # the tutorial's current form
        """Wrapper to allow PettingZoo environments to be used with SB3 illegal action masking."""

        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])["observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            current_agent = self.agent_selection
            super().step(action)
            next_agent = self.agent_selection
            return (
                self.observe(next_agent),
                self._cumulative_rewards[current_agent],
                self.terminations[current_agent],
                self.truncations[current_agent],
                self.infos[current_agent],
            )

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    env = SB3ActionMaskWrapper(connect_four_v3.env())
    env.reset(seed=0)
    env = ActionMasker(env, lambda env: env.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, verbose=0, device="cpu")
    model.set_random_seed(0)
    return _timed_learn(model, steps)


def ours_like_for_like(steps: int) -> float:
    from sb3_contrib import MaskablePPO

    from crossenvs.envs.vector import CrossSB3VecEnv

    env = CrossSB3VecEnv("crisscross", num_envs=64, seed=0, size=6)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=10, verbose=0, device="cpu", seed=0)
    return _timed_learn(model, steps)


def ours_as_configured(steps: int) -> float:
    from crossenvs.ppo.config import load_config
    from crossenvs.ppo.run import Run, new_model, numba_on_one_thread

    config = load_config(ROOT / "crossenvs" / "configs" / "crisscross.yaml")
    run = Run(config, Path("/tmp/unused"), "cpu")
    model = new_model(config, run.make_env(), "cpu")
    for _ in range(config.pool_size):  # a full pool of snapshots, as in a run past its start
        run.pool.add(model.policy)
    with numba_on_one_thread():
        return _timed_learn(model, steps)


def _timed_learn(model, steps: int) -> float:
    model.learn(total_timesteps=min(steps, 4096))  # warm-up: numba, torch
    start, before = time.perf_counter(), model.num_timesteps
    model.learn(total_timesteps=steps, reset_num_timesteps=False)
    return (model.num_timesteps - before) / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=30_000, help="timed training steps per row")
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    rows = {
        "PettingZoo tutorial: connect_four_v3, MaskablePPO defaults": pettingzoo_tutorial,
        "crossenvs self-play, same PPO settings (Crisscross 6x6, 64 games)": ours_like_for_like,
        "crossenvs self-play as configured (make train)": ours_as_configured,
    }
    rates = {}
    for name, row in rows.items():
        rates[name] = row(args.steps)
        print(f"  {name:<68} {rates[name]:>8,.0f} steps/s", flush=True)
    base = rates["PettingZoo tutorial: connect_four_v3, MaskablePPO defaults"]
    for name, rate in list(rates.items())[1:]:
        print(f"  {name} / tutorial: {rate / base:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(rates, indent=2))
    return rates


if __name__ == "__main__":
    main()
