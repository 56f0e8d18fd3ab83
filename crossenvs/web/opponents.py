"""Opponents of the web app: player specs read by :func:`crossenvs.players.make_player`, with two guards.

A page can name any string, so the server reads checkpoints only from folders the person
who started it allowed, and only the pickle-free way (AlphaZero ``.pt`` with ``weights_only=True``,
a MaskablePPO ``.zip`` rebuilt from its ``step_<n>.json``); ``pickle:<file>.zip``, which unpickles
and so runs any code in the file, only when the server was started with ``--trust-pickles``. Folders: the packaged agents (:mod:`crossenvs.agents`) and each ``--checkpoints``
folder. A checkpoint is named relative to one of them (``az:charing_cross.pt``,
``az:run1/checkpoints/final.pt:64``, ``run2/step_1000.zip``) or by an absolute path inside one;
the path is resolved (``..`` and symbolic links followed) before it is checked, so nothing
outside answers anything but 403. Searches are capped (``--max-simulations``): one move of
``mcts:100000`` would hold a request for minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from crossenvs.support.errors import CheckpointError, InvalidOptionError, UsageError
from crossenvs.support.extras import MissingExtraError

from ..agents import FOLDER as AGENTS_FOLDER
from ..checkpoints.sb3 import PICKLE_PREFIX
from ..core.game import Game
from ..players import CHECKPOINT_SUFFIXES, PATH_KIND, Player, UnknownPlayerError, make_player, player_specs
from .errors import BadRequestError, ForbiddenCheckpointError

#: the kinds of player a page may name (``pretrained`` reads the packaged agents only; ``az:`` and a bare
#: ``.zip`` path read a file, which ``make_player`` hands to :meth:`CheckpointFolders.resolve` first)
PAGE_KINDS = ("random", "greedy", "mcts", "pretrained", "az", PATH_KIND)
#: simulations per move a page may ask for, unless ``--max-simulations`` says otherwise
DEFAULT_MAX_SIMULATIONS = 1000
#: checkpoints the catalog lists at most (a folder of training runs can hold thousands)
MAX_LISTED = 200


class CheckpointFolders:
    """The folders checkpoints may be read from; the first that holds a relative name wins."""

    def __init__(self, folders: Sequence[str | Path] = (), packaged: bool = True, trust_pickles: bool = False) -> None:
        self.trust_pickles = trust_pickles  # pickle:<file> may be named (crossenvs serve --trust-pickles)
        roots = [Path(folder).expanduser().resolve() for folder in folders]
        for root in roots:
            if not root.is_dir():
                raise UsageError(f"--checkpoints {root}: no such folder; give a folder that holds checkpoints")
        self.roots: list[Path] = roots + ([AGENTS_FOLDER] if packaged else [])

    def resolve(self, name: str) -> Path:
        """The checkpoint file ``name`` stands for; 403 if it lies outside every folder, 400 if missing."""
        if not name or "\0" in name:
            raise BadRequestError("give the checkpoint's file name, e.g. az:charing_cross.pt")
        given = Path(name)  # no ~ expansion: a name from a page is a name in a folder
        candidates = [given] if given.is_absolute() else [root / given for root in self.roots]
        inside_any = False
        for candidate in candidates:
            try:
                path = candidate.resolve()
            except (OSError, RuntimeError):  # a symlink loop, an unreadable folder
                continue
            inside = any(path.is_relative_to(root) for root in self.roots)
            try:
                there = candidate.is_symlink() or path.exists()
            except OSError:  # a name too long for the file system: nothing there
                there = False
            if there:  # a file there decides, wherever it leads
                if not inside:
                    break
                if path.is_file():
                    return path
            inside_any = inside_any or inside
        else:
            if inside_any:
                raise BadRequestError(f"no checkpoint {name!r} in the allowed folders ({self.describe()})")
        raise ForbiddenCheckpointError(
            f"checkpoint {name!r} is outside the allowed folders ({self.describe()}); "
            "start the server with --checkpoints DIR to allow another folder"
        )

    def describe(self) -> str:
        """The allowed folders, for error messages."""
        return ", ".join(str(root) for root in self.roots)

    def listed(self, packaged: bool = True) -> list[str]:
        """Specs for the checkpoints in the folders (``az:<name>`` or ``<name>.zip``), for the page's suggestions;
        without those of the packaged agents unless ``packaged`` (the page offers them as ``pretrained``)."""
        specs: list[str] = []
        for root in self.roots if packaged else [root for root in self.roots if root != AGENTS_FOLDER]:
            found = []
            for path in root.rglob("*"):  # lazily: a folder of runs can hold many files
                if len(specs) + len(found) >= MAX_LISTED:
                    break
                name = path.relative_to(root).as_posix()
                if path.suffix in CHECKPOINT_SUFFIXES and not name.startswith(".") and "/." not in name:
                    found.append(f"az:{name}" if path.suffix == ".pt" else name)
            specs += sorted(found)
        return specs


def make_opponent(spec: str, game: Game, folders: CheckpointFolders, seed: int | None, max_simulations: int) -> Player:
    """The player ``spec`` names (read by :func:`~crossenvs.players.make_player`, which hands every file name it
    finds to ``folders`` before anything is read), its search checked against the cap."""
    text = spec.strip()
    if not text:
        raise BadRequestError("give an opponent: random, greedy, mcts:<simulations>, pretrained or a checkpoint")
    try:
        kinds = (*PAGE_KINDS, PICKLE_PREFIX) if folders.trust_pickles else PAGE_KINDS
        player = make_player(text, game=game, seed=seed, paths=folders.resolve, kinds=kinds)
    except UnknownPlayerError:
        refused = " (pickle: needs crossenvs serve --trust-pickles)" if text.startswith(f"{PICKLE_PREFIX}:") else ""
        raise BadRequestError(
            f"unknown opponent {text!r}{refused}: use {player_specs(kinds)} from the allowed folders"
        ) from None
    except (InvalidOptionError, CheckpointError, MissingExtraError) as exc:
        raise BadRequestError(f"opponent {text!r}: {exc}") from None
    simulations = getattr(player, "simulations", 0)
    if simulations > max_simulations:
        raise BadRequestError(
            f"opponent {text!r} searches {simulations} simulations per move; this server allows at most "
            f"{max_simulations} (crossenvs serve --max-simulations N), so a move answers within seconds"
        )
    return player
