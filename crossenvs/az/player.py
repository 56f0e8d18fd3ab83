"""An AlphaZero checkpoint as a player: network-guided Gumbel search, batched over games."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from crossenvs.support.extras import needs_extra

with needs_extra("agents", "AlphaZero players (az: and pretrained)"):
    import torch

from crossenvs.az.search.gumbel import GumbelSearch
from crossenvs.kernels.state import State
from crossenvs.support.errors import InvalidOptionError

from ..checkpoints.alphazero import load_alphazero
from ..checkpoints.files import check_trained_on
from ..core.game import Game
from ..players import Player, Positions, split_file_argument
from .network import AlphaZeroNet, evaluator


class AlphaZeroPlayer(Player):
    """Plays the most promising action of a deterministic Gumbel search with ``simulations`` per move.

    With 0 simulations it plays the network's most likely legal action. ``act_batch`` searches all
    the positions of a batch together, one forward pass per simulation step.
    """

    vectorized = True

    def __init__(
        self,
        checkpoint: str | Path,
        simulations: int = 64,
        game: Game | None = None,
        seed: int | None = None,
        device: str = "cpu",
    ):
        super().__init__(seed)
        if simulations < 0:
            raise InvalidOptionError(f"az: simulations must be 0 or more, got {simulations}")
        self.checkpoint = Path(checkpoint)
        self.net, self.document = load_alphazero(checkpoint, AlphaZeroNet, game, device)
        self.evaluate = evaluator(self.net, device)
        self.simulations = int(simulations)
        self.name = f"az-{Path(checkpoint).stem}-{simulations}"
        self._search: GumbelSearch | None = None

    def act(self, game: Game, state: State) -> int:
        observation = game.observe(state, game.current_player(state))[None]
        positions = Positions(game, state.board[None], state.meta[None], observation, game.legal_mask(state)[None],
                              np.zeros(1, dtype=np.int64))  # fmt: skip
        return int(self.act_batch(positions)[0])

    def act_batch(self, positions: Positions) -> np.ndarray:
        check_trained_on(self.checkpoint, (self.document["game"], self.document["options"]), positions.game)
        if self.simulations == 0:
            logits, _ = self.evaluate(np.ascontiguousarray(positions.observations, dtype=np.float32))
            return np.where(positions.masks.astype(bool), logits, -np.inf).argmax(axis=1)
        search = self._searcher(positions.game, len(positions))
        with torch.no_grad():
            actions, _, _, _ = search.run(np.ascontiguousarray(positions.boards), np.ascontiguousarray(positions.metas),
                                          self.evaluate, stop=self.stop_flag)  # fmt: skip
        return actions

    def _searcher(self, game: Game, n: int) -> GumbelSearch:
        search = self._search
        if search is None or search.batch < n or type(search.game) is not type(game):
            self._search = search = GumbelSearch(game, max(n, 1), self.simulations)
        return search


def from_spec(argument: str, game: Game | None, seed: int | None) -> AlphaZeroPlayer:
    """``az:<checkpoint>[:<simulations>]`` (default 64 simulations)."""
    path, count = split_file_argument(argument)
    if not path:
        raise InvalidOptionError(
            "player 'az' needs a checkpoint: az:<checkpoint>[:<simulations>], e.g. az:runs/x/best.pt:64"
        )
    return AlphaZeroPlayer(path, 64 if count is None else count, game=game, seed=seed)
