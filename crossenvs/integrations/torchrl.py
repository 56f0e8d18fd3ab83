"""TorchRL: B games of one kind as one batch-locked ``EnvBase``, on the CPU or a GPU (the ``torchrl`` extra).

TorchRL's own board-game wrappers take one game at a time (``OpenSpielWrapper``, ``PettingZooWrapper``
over an AEC env). :class:`CrossTorchRLEnv` hands TorchRL the whole batch of
:class:`~crossenvs.envs.vector.CrossVectorEnv` (or, with ``device="cuda"``, of
:class:`~crossenvs.envs.vector.DeviceVectorEnv`): one ``step`` plays one move in every game, for
the player to act there, so one policy plays both seats (self-play).

What a step's tensordict holds, every entry with batch size ``(num_envs,)``:

* ``observation`` (B, H, W, C) float32: the egocentric view of the player to act next;
  ``action_mask`` (B, A) bool: that player's legal actions; ``current_player`` (B,) int64: its
  seat (0 or 1); ``seat_rewards`` (B, 2) float32: both seats' rewards of the move just played.
  These four are observation entries (the mask and the seat are what a policy reads; the seat
  rewards are per-step information, as TorchRL's gym info readers put info into the observations).
* ``reward`` (B, 1): the reward of the player who just moved: +1 for a winning move, -1 for an
  illegal one, 0 otherwise (``seat_rewards`` has the loser's -1 too). A single reward key, so
  ``RewardSum`` and the losses find it as usual.
* ``done`` = ``terminated`` (B, 1); ``truncated`` is always False (the games end by their rules).

Auto-reset: a game that ends restarts within the same step (the vector env's SAME_STEP mode), so
at a done row the ``next`` observation is already the first position of the following game, as
TorchRL describes for auto-resetting envs. A terminated game needs no value of its last position,
so nothing is lost for GAE or TD targets. When TorchRL then calls ``reset`` with a ``_reset`` mask
over those rows (collectors and ``rollout(break_when_any_done=False)`` do), they are handed back
as they are; rows of the mask that did not just end are really restarted. Pass
``auto_reset=True`` to have TorchRL's ``AutoResetTransform`` blank those next observations instead
(it blanks every observation entry of those rows, ``seat_rewards`` included: read the winner from
``reward`` then).

Tensors: on the CPU every entry wraps the array the vector env returned (``torch.from_numpy``, no
copy; the env hands out fresh arrays each step, recycled only once nothing refers to them). On a
GPU the device env rewrites its buffers every step, so what is kept in a rollout is cloned on the
device. Under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``, for tests without a GPU) the
device env returns host arrays and this env's tensors are on the CPU.

Seeding: ``set_seed(s)`` seeds the games' random streams at the next reset; the games themselves
have no chance, so it decides what ``rand_action`` draws: a uniform *legal* action in every game
(TorchRL's default would sample the action spec blindly, mostly illegal moves).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from crossenvs.support.extras import needs_extra

with needs_extra("torchrl", "CrossTorchRLEnv"):
    import torch
    from tensordict import TensorDict, TensorDictBase
    from torchrl.data import Binary, Bounded, Categorical, Composite
    from torchrl.envs import EnvBase

from crossenvs.support.checks import check_seed
from crossenvs.support.errors import InvalidActionError, InvalidArgumentError, InvalidOptionError

from ..core.game import Game
from ..envs.vector import DEVICES, CrossVectorEnv
from ..kernels.cuda import simulated

__all__ = ["CrossTorchRLEnv"]


def _device_kind(device: str | torch.device) -> str:
    """``"cpu"`` or ``"cuda"`` from what the caller named, or one error saying what is accepted."""
    try:
        kind = torch.device(device).type
    except (TypeError, RuntimeError, ValueError):
        kind = None
    if kind not in DEVICES:
        raise InvalidOptionError(
            f"device must be 'cpu' or 'cuda' (a torch.device or 'cuda:N' too), got {device!r}; "
            "a batch of games lives on one device, chosen when the env is made"
        )
    return kind


class CrossTorchRLEnv(EnvBase):
    """``num_envs`` games of ``game`` as a batch-locked TorchRL env; the module docstring gives the tensordict.

    ``game`` is a registered name (``"crisscross"``) or a :class:`~crossenvs.core.game.Game`;
    ``options`` are the game's options (``size=6``). ``device="cuda"`` runs the rules on the GPU.
    Batch-locked (TorchRL's default): every tensordict it takes has batch size ``(num_envs,)``.
    """

    def __init__(
        self, game: str | Game = "crisscross", num_envs: int = 64, device: str | torch.device = "cpu", **options: Any
    ) -> None:
        kind = _device_kind(device)
        self._vector = CrossVectorEnv(game, num_envs, device=kind, **options)
        self._on_gpu = kind == "cuda" and not simulated()
        torch_device = torch.device(device) if self._on_gpu else torch.device("cpu")
        super().__init__(device=torch_device, batch_size=torch.Size([self._vector.num_envs]))
        self.game = self._vector.game
        self.num_envs = self._vector.num_envs
        self._make_specs()
        self._pending_seed: int | None = None
        self._restarted = torch.zeros(self.num_envs, dtype=torch.bool, device=self.device)  # games the last step ended
        self._latest: dict[str, torch.Tensor] | None = None  # what _observe gave at the last step or reset

    def _make_specs(self) -> None:
        batch, device, game = self.batch_size, self.device, self.game
        self.observation_spec = Composite(
            observation=Bounded(0.0, 1.0, (*batch, *game.observation_shape), dtype=torch.float32, device=device),
            action_mask=Binary(n=game.num_actions, shape=(*batch, game.num_actions), dtype=torch.bool, device=device),
            current_player=Categorical(2, shape=batch, dtype=torch.int64, device=device),
            seat_rewards=Bounded(-1.0, 1.0, (*batch, 2), dtype=torch.float32, device=device),
            shape=batch,
            device=device,
        )
        self.action_spec = Categorical(game.num_actions, shape=batch, dtype=torch.int64, device=device)
        self.reward_spec = Bounded(-1.0, 1.0, (*batch, 1), dtype=torch.float32, device=device)
        flag = Categorical(2, shape=(*batch, 1), dtype=torch.bool, device=device)
        self.done_spec = Composite(done=flag.clone(), terminated=flag.clone(), truncated=flag.clone(), shape=batch)

    # ----------------------------------------------------------------- TorchRL's hooks
    def _set_seed(self, seed: int | None) -> None:
        """Kept for the next reset, which seeds the games' random streams (what ``rand_action`` draws from)."""
        self._pending_seed = check_seed(seed)

    def _reset(self, tensordict: TensorDictBase | None = None, **kwargs: Any) -> TensorDictBase:
        mask = None if tensordict is None else tensordict.get("_reset", None)
        if mask is None or self._latest is None:  # everything restarts (a partial reset first of all too)
            self._latest = self._observe(*self._vector.reset(seed=self._take_seed()))
        else:  # the rows the last step ended are restarted already; only the others restart here
            again = mask.reshape(self.num_envs).to(self.device) & ~self._restarted
            if bool(again.any()) or self._pending_seed is not None:
                options = {"reset_mask": again.cpu().numpy()}
                self._latest = self._observe(*self._vector.reset(seed=self._take_seed(), options=options))
        self._restarted = torch.zeros_like(self._restarted)
        flags = torch.zeros((self.num_envs, 1), dtype=torch.bool, device=self.device)
        entries = {
            **self._latest,
            "seat_rewards": torch.zeros((self.num_envs, 2), dtype=torch.float32, device=self.device),
        }
        return TensorDict(
            {**entries, "done": flags, "terminated": flags.clone(), "truncated": flags.clone()},
            batch_size=self.batch_size,
            device=self.device,
        )

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        actions = self._actions(tensordict)
        observations, rewards, ended, _, info = self._vector.step(actions)
        self._latest = self._observe(observations, info)
        ended = self._tensor(ended)
        self._restarted = ended
        done = ended.reshape(self.num_envs, 1)
        return TensorDict(
            {
                **self._latest,
                "seat_rewards": self._tensor(info["seat_rewards"]),
                "reward": self._tensor(rewards).reshape(self.num_envs, 1),
                "done": done,
                "terminated": done.clone(),
                "truncated": torch.zeros_like(done),
            },
            batch_size=self.batch_size,
            device=self.device,
        )

    def rand_action(self, tensordict: TensorDictBase | None = None) -> TensorDictBase:
        """A uniform random legal action in every game, from the games' seeded streams (one per game)."""
        if tensordict is not None:
            self._assert_tensordict_shape(tensordict)
        actions = self._tensor(self._vector.random_actions())
        result = TensorDict({"action": actions}, batch_size=self.batch_size, device=self.device)
        if tensordict is None:
            return result
        return tensordict.update(result)

    def _assert_tensordict_shape(self, tensordict: TensorDictBase) -> None:
        if tensordict.batch_size != self.batch_size:
            raise InvalidArgumentError(
                f"this env holds {self.num_envs} games, so its tensordicts have batch size {tuple(self.batch_size)}; "
                f"got {tuple(tensordict.batch_size)}. Start from env.reset(), or make the env with num_envs= "
                "the number of games you step"
            )

    # ----------------------------------------------------------------- internals
    def _take_seed(self) -> int | None:
        seed, self._pending_seed = self._pending_seed, None
        return seed

    def _tensor(self, value: Any) -> torch.Tensor:
        """A step output as a tensor this env may hand out: wrapped (CPU arrays), or cloned (the GPU's live buffers)."""
        if isinstance(value, np.ndarray):
            return torch.from_numpy(value)
        return value.clone() if self._on_gpu else value

    def _observe(self, observations: Any, info: dict[str, Any]) -> dict[str, torch.Tensor]:
        """What a policy reads of every game: the observation, the legal mask and the seat to act."""
        return {
            "observation": self._tensor(observations),
            "action_mask": self._tensor(info["action_mask"]).view(torch.bool),  # int8 0/1 read as bool, no copy
            "current_player": self._tensor(info["current_player"]),
        }

    def _actions(self, tensordict: TensorDictBase) -> Any:
        """The ``action`` entry checked (a (B,) integer tensor of ids on this env's device), as the vector env takes it."""
        actions = tensordict.get("action", None)
        where = f"{self.num_envs} action ids in 0..{self.game.num_actions - 1} as a ({self.num_envs},) integer tensor on {self.device}"
        if not isinstance(actions, torch.Tensor):
            raise InvalidActionError(f"the tensordict's 'action' must be {where}, got {type(actions).__name__}")
        if actions.dtype in (torch.bool,) or actions.is_floating_point() or actions.is_complex():
            raise InvalidActionError(f"'action' must be {where}, got dtype {actions.dtype} (one-hot or logits?)")
        if tuple(actions.shape) != (self.num_envs,):
            raise InvalidActionError(f"'action' must be {where}, got shape {tuple(actions.shape)}")
        if actions.device != self.device:
            raise InvalidActionError(f"'action' must be {where}, got a tensor on {actions.device}")
        bad = (actions < 0) | (actions >= self.game.num_actions)
        if bool(bad.any()):
            first = int(torch.nonzero(bad)[0, 0])
            raise InvalidActionError(
                f"action[{first}] = {int(actions[first])} is out of range: action ids are 0..{self.game.num_actions - 1}"
            )
        return actions if self._on_gpu else actions.numpy()
