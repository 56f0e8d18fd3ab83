"""The contract suite: :func:`check_game` and its checks, each a function of its own (see :mod:`crossenvs.testing`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from crossenvs.kernels import state as st
from crossenvs.kernels.state import State
from crossenvs.support.errors import IllegalActionError, InvalidActionError, UsageError

from ..core.game import Game
from ..core.playthrough import parse_golden_header, playthrough
from ..core.registry import make_game


@dataclass
class CheckReport:
    """How much :func:`check_game` checked."""

    game: str
    states: int = 0
    ids_checked: int = 0
    games_finished: int = 0
    twins_checked: int = 0
    symmetries_checked: int = 0
    vector_steps: int = 0
    stepper_moves: int = 0
    golden_files: int = 0
    numba_parity: bool = False


def check_game(
    game: Game | str,
    *,
    plies: int = 600,
    seed: int = 0,
    full_check_every: int = 10,
    refusals_per_state: int = 48,
    vector_games: int = 5,
    vector_steps: int = 120,
    numba_parity: bool = True,
    parity_plies: int = 60,
    golden_dir: str | Path | None = None,
    **options: Any,
) -> CheckReport:
    """Run the contract suite on ``game`` (a Game, or a registered name plus ``options``)."""
    if isinstance(game, str):
        game = make_game(game, **options)
    report = CheckReport(game.name)
    rng = np.random.default_rng(seed)
    _check_non_ids(game, game.initial_state())
    for before, action, after in _random_plies(game, rng, plies):
        full = report.states % full_check_every == 0
        assert game.legal_actions(before).size, f"a game in play has no legal action: {_where(game, before)}"
        report.ids_checked += _check_ids(game, before, rng, None if full else refusals_per_state)
        _check_text(game, before)
        _check_observations(game, before)
        report.twins_checked += _check_twin(game, before)
        report.symmetries_checked += _check_symmetries(game, before, action, after)
        report.states += 1
        if game.is_terminal(after):
            _check_finished(game, after)
            _check_text(game, after)
            report.games_finished += 1
    report.stepper_moves = _check_stepper(game, rng, plies)
    if vector_steps:
        report.vector_steps = _check_vector_env(game, rng, vector_games, vector_steps)
    if numba_parity:
        _check_numba_parity(game, seed, parity_plies)
        report.numba_parity = True
    if golden_dir is not None:
        report.golden_files = _check_golden(game.name, Path(golden_dir))
    return report


# ----------------------------------------------------------------------------- positions
def _random_plies(game: Game, rng: np.random.Generator, plies: int) -> Iterator[tuple[State, int, State]]:
    """(state before, action, state after) over uniformly random games until ``plies`` are played."""
    played = 0
    while played < plies:
        state = game.initial_state()
        while not game.is_terminal(state) and played < plies:
            legal = game.legal_actions(state)
            action = int(legal[rng.integers(legal.size)])
            after = game.apply(state, action)
            yield state, action, after
            state = after
            played += 1


def _where(game: Game, state: State) -> str:
    return f"{game!r} at\n{game.to_text(state)}"


def _check_ids(game: Game, state: State, rng: np.random.Generator, refusals: int | None) -> int:
    """Mask and apply agree on every legal id and on ``refusals`` refused ones (all when None)."""
    pristine = state.copy()
    mask = game.legal_mask(state)
    assert mask.dtype == np.int8 and mask.shape == (game.num_actions,), f"mask dtype/shape: {_where(game, state)}"
    legal = np.flatnonzero(mask)
    assert legal.size > 0, f"a game in progress has no legal action (a pass must be an action): {_where(game, state)}"
    assert np.array_equal(game.legal_actions(state), legal), (
        f"legal_actions differs from the mask: {_where(game, state)}"
    )
    for action in legal:
        game.apply(state, int(action))  # raises if the kernel refuses a masked id
        text = game.action_to_str(state, int(action))
        assert game.str_to_action(state, text) == action, f"notation {text!r} does not read back to {action}"
    refused = np.flatnonzero(mask == 0)
    if refusals is not None and refused.size > refusals:
        refused = rng.choice(refused, refusals, replace=False)
    for action in refused:
        board, meta = state.board.copy(), state.meta.copy()
        assert not game.apply_kernel(board, meta, int(action)), f"unmasked id {action} applies: {_where(game, state)}"
        assert np.array_equal(board, state.board) and np.array_equal(meta, state.meta), f"refused id {action} wrote"
    if refused.size:
        try:
            game.apply(state, int(refused[0]))
        except IllegalActionError:
            pass
        else:
            raise AssertionError(f"apply accepted unmasked id {refused[0]}: {_where(game, state)}")
    assert state == pristine, f"apply changed its input state: {_where(game, pristine)}"
    return int(legal.size + refused.size)


def _check_non_ids(game: Game, state: State) -> None:
    """Values that name no action id get :class:`InvalidActionError`, never a kernel call."""
    legal = int(game.legal_actions(state)[0])
    for value in (-1, game.num_actions, float(legal), True, None, np.array([legal]), str(legal)):
        try:
            game.apply(state, value)
        except InvalidActionError:
            continue
        raise AssertionError(f"apply accepted {value!r}, which is no action id of {game.name}")
    assert game.apply(state, np.array(legal)) == game.apply(state, legal), "a 0-d integer array is an action id"


def _check_text(game: Game, state: State) -> None:
    text = game.to_text(state)
    assert game.from_text(text) == state, f"position text does not read back:\n{text}"


def _check_observations(game: Game, state: State) -> None:
    for seat in (0, 1):
        planes = game.observe(state, seat)
        assert planes.shape == game.observation_shape and planes.dtype == np.float32, "observation shape/dtype"
        assert np.isfinite(planes).all() and planes.min() >= 0.0 and planes.max() <= 1.0, (
            f"observation of seat {seat} outside [0, 1]: {_where(game, state)}"
        )


def _check_twin(game: Game, state: State) -> int:
    """Each seat's view of the twin is its image seat's view of the position; masks too when movers match."""
    found = game.egocentric_twin(state)
    if found is None:
        return 0
    twin, seats = found
    for seat in (0, 1):
        assert np.array_equal(game.observe(state, seat), game.observe(twin, seats[seat])), (
            f"seat {seat}'s view differs from seat {seats[seat]}'s view of the twin: {_where(game, state)}"
        )
    if game.current_player(twin) == seats[game.current_player(state)]:
        assert np.array_equal(game.legal_mask(state), game.legal_mask(twin)), (
            f"twin's mask differs: {_where(game, state)}"
        )
    return 1


def _check_symmetries(game: Game, before: State, action: int, after: State) -> int:
    """Each declared symmetry other than the identity, on a move of seat 0; how many were compared."""
    if game.current_player(before) != 0:
        return 0
    cells_count = game.height * game.width
    compared = 0
    for cells, actions in game.symmetries():
        assert np.array_equal(np.sort(cells), np.arange(cells_count)), "a symmetry's cells are no permutation"
        assert np.array_equal(np.sort(actions), np.arange(game.num_actions)), "a symmetry's ids are no permutation"
        if np.array_equal(cells, np.arange(cells_count)):
            continue
        board = before.board.ravel()[cells].reshape(before.board.shape)
        image = State(np.ascontiguousarray(board), before.meta.copy())
        where = f"symmetry {compared + 1} of {_where(game, before)}"
        assert np.array_equal(game.legal_mask(image), game.legal_mask(before)[actions]), f"mask differs: {where}"
        planes = game.observe(before, 0).reshape(cells_count, -1)[cells]
        assert np.array_equal(game.observe(image, 0).reshape(cells_count, -1), planes), f"view differs: {where}"
        result = game.apply(image, int(np.flatnonzero(actions == action)[0]))
        assert np.array_equal(result.board.ravel(), after.board.ravel()[cells]), f"result differs: {where}"
        assert game.outcome(result) == game.outcome(after), f"outcome differs: {where}"
        compared += 1
    return compared


def _check_finished(game: Game, state: State) -> None:
    assert game.outcome(state) is not None, f"a finished game has no outcome: {_where(game, state)}"
    assert not game.legal_mask(state).any(), f"a finished game has legal actions: {_where(game, state)}"
    assert game.legal_actions(state).size == 0, f"legal_actions of a finished game: {_where(game, state)}"
    try:
        game.apply(state, 0)
    except IllegalActionError:
        pass
    else:
        raise AssertionError(f"apply played on in a finished game: {_where(game, state)}")


# ----------------------------------------------------------------------------- fast single-game path
def _check_stepper(game: Game, rng: np.random.Generator, plies: int) -> int:
    """The in-place :class:`~crossenvs.core.stepper.Stepper` against ``apply``/``legal_mask``/``observe``."""
    stepper, state, moves = game.stepper(), game.initial_state(), 0
    while moves < plies:
        where = _where(game, state)
        assert np.array_equal(stepper.board, state.board) and np.array_equal(stepper.meta, state.meta), where
        assert stepper.is_terminal == game.is_terminal(state), f"stepper: terminal? {where}"
        assert stepper.num_legal == game.legal_actions(state).size, f"stepper: legal count {where}"
        assert np.array_equal(stepper.mask, game.legal_mask(state)), f"stepper: mask {where}"
        assert np.array_equal(stepper.legal_actions, game.legal_actions(state)), f"stepper: legal ids {where}"
        seat = game.current_player(state)
        assert np.array_equal(stepper.observation, game.observe(state, seat)), f"stepper: observation {where}"
        if game.is_terminal(state):
            assert stepper.outcome == game.outcome(state), f"stepper: outcome {where}"
            stepper.reset()
            state = game.initial_state()
            continue
        refused = np.flatnonzero(stepper.mask == 0)
        if refused.size:
            assert not stepper.step(int(rng.choice(refused))), f"stepper played a refused id: {where}"
        action = int(rng.choice(stepper.legal_actions))
        assert stepper.step(action), f"stepper refused legal id {action}: {where}"
        state = game.apply(state, action)
        moves += 1
    return moves


# ----------------------------------------------------------------------------- vector env
def _check_vector_env(game: Game, rng: np.random.Generator, batch: int, steps: int) -> int:
    """The vector env against ``batch`` independent games fed the same actions (one illegal one)."""
    from ..envs.vector import CrossVectorEnv

    env = CrossVectorEnv(game, num_envs=batch)
    states = [game.initial_state() for _ in range(batch)]
    observations, info = env.reset(seed=0)
    for step in range(steps):
        for i, state in enumerate(states):
            seat = game.current_player(state)
            assert info["current_player"][i] == seat, f"vector env game {i}: seat to act"
            assert np.array_equal(observations[i], game.observe(state, seat)), f"vector env game {i}: observation"
            assert np.array_equal(info["action_mask"][i], game.legal_mask(state)), f"vector env game {i}: mask"
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in info["action_mask"]]
        illegal = np.flatnonzero(info["action_mask"][0] == 0)
        if step == steps // 2 and illegal.size:  # an illegal action ends that game with -1 for the mover
            actions[0] = int(illegal[0])
        observations, rewards, terminations, _, info = env.step(actions)
        seat_rewards = info["seat_rewards"]
        for i, action in enumerate(actions):
            seat = game.current_player(states[i])
            if not game.legal_mask(states[i])[action]:
                expected = np.zeros(2, dtype=np.float32)
                expected[seat] = -1.0
                assert terminations[i] and info["illegal_action"][i] and np.array_equal(seat_rewards[i], expected)
                assert rewards[i] == -1.0, f"vector env game {i}: the mover's reward for an illegal action"
                states[i] = game.initial_state()
                continue
            after = game.apply(states[i], action)
            outcome = game.outcome(after)
            assert terminations[i] == (outcome is not None), f"vector env game {i}: termination"
            expected = np.zeros(2) if outcome is None else np.array(outcome)
            assert np.array_equal(seat_rewards[i], expected), f"vector env game {i}: seat rewards"
            assert rewards[i] == expected[seat], f"vector env game {i}: the mover's reward"
            plies = int(after.meta[st.PLY]) if outcome is not None else 0
            assert info["final_ply"][i] == plies, f"vector env game {i}: final_ply"
            if outcome is not None:
                assert np.array_equal(info["final_obs"][i], game.observe(after, seat)), "final observation"
                for view in (0, 1):
                    assert np.array_equal(info["final_obs_by_seat"][i][view], game.observe(after, view))
                after = game.initial_state()
            states[i] = after
    return steps * batch


# ----------------------------------------------------------------------------- numba off, golden files
def _check_numba_parity(game: Game, seed: int, plies: int) -> None:
    """The same playthrough from the jitted kernels and from plain Python (``NUMBA_DISABLE_JIT=1``)."""
    module = type(game).__module__
    code = (
        "import sys, json, importlib, crossenvs; from crossenvs.core.playthrough import playthrough; "
        f"importlib.import_module({module!r}); "
        f"game = crossenvs.make_game({game.name!r}, **json.loads({json.dumps(game.options)!r})); "
        f"sys.stdout.write(playthrough(game, {seed}, max_plies={plies}))"
    )
    environment = {**os.environ, "NUMBA_DISABLE_JIT": "1", "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    result = subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True)
    assert result.returncode == 0, f"{game!r} with numba off failed:\n{result.stderr[-2000:]}"
    assert result.stdout == playthrough(game, seed, max_plies=plies), f"{game!r}: numba-off playthrough differs"


def _regenerating_golden() -> bool:
    """Whether ``CROSSENVS_REGENERATE_GOLDEN`` asks for the golden files to be rewritten; refused under CI,
    where a rewritten file would be compared with itself and every golden check would pass unseen."""
    if not os.environ.get("CROSSENVS_REGENERATE_GOLDEN"):
        return False
    if os.environ.get("CI"):
        raise UsageError(
            "CROSSENVS_REGENERATE_GOLDEN is refused when CI is set: CI checks the golden files, it never "
            "rewrites them (regenerate them locally and commit the diff)"
        )
    return True


def _check_golden(name: str, folder: Path) -> int:
    """Replay every golden file of game ``name`` in ``folder``; the number replayed. With
    ``CROSSENVS_REGENERATE_GOLDEN=1`` (never under CI) each file is rewritten instead of compared."""
    regenerate = _regenerating_golden()
    replayed = 0
    for path in sorted(folder.glob("*.txt")):
        with path.open() as handle:
            header = parse_golden_header(handle.readline())
        if header is None or header[0] != name:
            continue
        _, options, seed = header
        text = playthrough(make_game(name, **options), seed)
        if regenerate:
            path.write_text(text)
        else:
            assert text == path.read_text(), f"{path} no longer replays (CROSSENVS_REGENERATE_GOLDEN=1 rewrites it)"
        replayed += 1
    return replayed
