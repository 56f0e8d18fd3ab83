"""The TorchRL self-play recipe's speed on CrossTorchRLEnv next to the same PPO through TorchRL's PettingZooWrapper.

    python benchmarks/torchrl_ppo.py                       # 60 s of training per row, Crisscross 6x6
    python benchmarks/torchrl_ppo.py --seconds 120 --json out.json

Both rows run ``examples/torchrl_selfplay.py``'s training loop (its network, collector, GAE and
``ClipPPOLoss``, the same settings) for the same training time and report its end-to-end steps
per second (collecting, advantages and learning; the evaluation at the end is left out):

* ``CrossTorchRLEnv``: ``--num-envs`` games in one batched env;
* ``PettingZooWrapper``: TorchRL's way with one AEC game per env: ``--num-envs`` wrappers over
  ``crisscross_v0.env(size=6)`` batched by ``SerialEnv``, each wrapped by :class:`MoverView`, which
  gives the recipe's keys (the mover's observation and mask, its seat, both seats' rewards) from the
  wrapper's per-agent ones. On a 2-core machine ``SerialEnv`` is the fair batching: ``ParallelEnv``
  would put 128 processes on 2 cores.

Each row also prints the win rate against random its run reached (the recipe's own evaluation).
"""

from __future__ import annotations

import argparse
import json
import runpy
import time
from pathlib import Path
from types import SimpleNamespace

import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Binary, Bounded, Categorical, Composite
from torchrl.envs import EnvBase, PettingZooWrapper, SerialEnv

from crossenvs import make_game
from crossenvs.core.options import parse_options
from crossenvs.envs import make_env
from crossenvs.kernels.threads import numba_on_one_thread

ROOT = Path(__file__).resolve().parent.parent
#: the recipe's own definitions (its network, collector, GAE, loss and loop), read from its file: it is a
#: script in examples/, not a module, and what is timed must be exactly what a reader runs
torchrl_selfplay = SimpleNamespace(**runpy.run_path(str(ROOT / "examples" / "torchrl_selfplay.py"), run_name="recipe"))
from crossenvs.integrations.torchrl import CrossTorchRLEnv  # noqa: E402

AGENTS = ("player_0", "player_1")


class MoverView(EnvBase):
    """One ``PettingZooWrapper`` over an AEC game, seen as the recipe sees a game: the player to act and its view.

    The wrapper gives every agent its own entries (observation, mask, reward, ``mask`` for the one to
    act); this picks the acting agent's, and hands the action to both agents' slots (the wrapper
    plays the acting agent's).
    """

    def __init__(self, game: str, **options) -> None:
        super().__init__(batch_size=torch.Size([]))
        self.pz = PettingZooWrapper(make_env(game, **options), use_mask=True, categorical_actions=True)
        rules = make_game(game, **options)
        self.observation_spec = Composite(
            observation=Bounded(0.0, 1.0, rules.observation_shape, dtype=torch.float32),
            action_mask=Binary(n=rules.num_actions, shape=(rules.num_actions,), dtype=torch.bool),
            current_player=Categorical(2, shape=(), dtype=torch.int64),
            seat_rewards=Bounded(-1.0, 1.0, (2,), dtype=torch.float32),
        )
        self.action_spec = Categorical(rules.num_actions, shape=(), dtype=torch.int64)
        self.reward_spec = Bounded(-1.0, 1.0, (1,), dtype=torch.float32)
        self._mover = 0

    def _view(self, out: TensorDictBase, seat_rewards: torch.Tensor) -> TensorDictBase:
        self._mover = next(seat for seat, agent in enumerate(AGENTS) if bool(out[agent, "mask"][0]))
        agent = AGENTS[self._mover]
        return TensorDict(
            {
                "observation": out[agent, "observation", "observation"][0],
                "action_mask": out[agent, "action_mask"][0],
                "current_player": torch.tensor(self._mover),
                "seat_rewards": seat_rewards,
                "done": out["done"],
                "terminated": out["terminated"],
                "truncated": out["truncated"],
            },
            batch_size=[],
        )

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs) -> TensorDictBase:
        return self._view(self.pz.reset(), torch.zeros(2))

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        mover, action = self._mover, tensordict["action"].reshape(1)
        out = self.pz.step(TensorDict({agent: {"action": action} for agent in AGENTS}, batch_size=[]))["next"]
        seat_rewards = torch.stack([out[agent, "reward"].reshape(()) for agent in AGENTS])
        if bool(
            out["done"]
        ):  # the acting agent after the last move is whoever the wrapper names: keep the mover's view
            out[AGENTS[mover], "mask"][0] = True
            out[AGENTS[1 - mover], "mask"][0] = False
        result = self._view(out, seat_rewards)
        result["reward"] = seat_rewards[mover].reshape(1)
        return result

    def _set_seed(self, seed: int | None) -> None:
        self.pz.set_seed(seed)


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="training time per row")
    parser.add_argument("--num-envs", type=int, default=128)
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args(argv)
    recipe = ["--option", "size=6", "--num-envs", str(args.num_envs), "--minutes", str(args.seconds / 60)]
    recipe += ["--eval-every", str(10**9)]  # evaluate once, after the time: the rows time training alone
    settings = torchrl_selfplay.parse_args(recipe)
    options = parse_options(settings.option)
    rows = {
        "CrossTorchRLEnv": lambda: CrossTorchRLEnv(settings.game, settings.num_envs, **options),
        "PettingZooWrapper (SerialEnv)": lambda: SerialEnv(
            settings.num_envs, lambda: MoverView(settings.game, **options)
        ),
    }
    figures = {}
    with numba_on_one_thread():
        for name, make in rows.items():
            print(f"{name}: {settings.num_envs} games of {settings.game} {options}, {args.seconds:.0f} s", flush=True)
            started = time.perf_counter()
            rate = torchrl_selfplay.train(settings, make())
            figures[name] = {"steps_per_second": rate, "wall_seconds": time.perf_counter() - started}
    base = figures["PettingZooWrapper (SerialEnv)"]["steps_per_second"]
    for name, row in figures.items():
        print(f"  {name:<32} {row['steps_per_second']:>8,.0f} steps/s  ({row['steps_per_second'] / base:.1f}x)")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
