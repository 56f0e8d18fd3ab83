"""The contract suite every game passes: ``check_game(game)`` (built-in games and yours alike).

What a game must satisfy to work with every part of crossenvs, checked over random games:

* a game in play has a legal action (a player who cannot move has ``pass``);
* every action id agrees between the legal mask and ``apply`` (sampled states: every id on some,
  a sample of the refused ones on the rest); ``legal_actions`` equals the mask's ids, ascending;
* ``apply`` never touches its input state, and a refused id leaves the kernel's arrays untouched;
* position text and notation round-trip;
* observations have the declared shape, are float32 and lie in [0, 1], for both seats;
* the egocentric twin holds where the game defines :meth:`~crossenvs.core.game.Game.egocentric_twin`;
* each of :meth:`~crossenvs.core.game.Game.symmetries` (training's data augmentation) permutes
  cells and ids and commutes with the rules: on positions with seat 0 to move (seat 0's frame is
  the board's; the state's meta is kept), the transformed board has the transformed mask and
  seat-0 observation, and the transformed move gives the transformed result;
* values that are no action id (out of range, floats, bools, ``None``...) raise
  ``InvalidActionError``; a 0-d integer array is an id;
* a finished game has an empty mask, no legal actions, an outcome, and refuses every action;
* the kernels give the same playthrough with numba switched off (``NUMBA_DISABLE_JIT=1``);
* the fast in-place path (``game.stepper()``) equals ``apply``/``legal_mask``/``observe``, move
  for move, and refuses what ``apply`` refuses without changing anything;
* the vector env equals independent single games fed the same actions (auto-resets included);
* golden playthrough files of the game (``<golden_dir>/*.txt``, found by their header) replay.

Any failure raises ``AssertionError`` naming the position. A :class:`CheckReport` says how much
was checked, so a caller can insist that games did finish and twins were compared.

>>> from crossenvs.testing import check_game
>>> report = check_game("crisscross", size=4, plies=40, numba_parity=False, vector_steps=10)
>>> report.games_finished > 0
True
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .core import state as st
from .core.errors import IllegalActionError, InvalidActionError
from .core.game import Game
from .core.playthrough import golden_header, parse_golden_header, playthrough
from .core.registry import make_game
from .core.state import State


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
    from .envs.vector import CrossVectorEnv

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


def _check_golden(name: str, folder: Path) -> int:
    """Replay every golden file of game ``name`` in ``folder``; the number replayed."""
    replayed = 0
    for path in sorted(folder.glob("*.txt")):
        with path.open() as handle:
            header = parse_golden_header(handle.readline())
        if header is None or header[0] != name:
            continue
        _, options, seed = header
        text = playthrough(make_game(name, **options), seed)
        if os.environ.get("CROSSENVS_REGENERATE_GOLDEN"):
            path.write_text(text)
        assert text == path.read_text(), f"{path} no longer replays (CROSSENVS_REGENERATE_GOLDEN=1 rewrites it)"
        replayed += 1
    return replayed


__all__ = ["CheckReport", "check_game", "golden_header"]


# ----------------------------------------------------------------------------- the device env against the CPU env
@dataclass
class DeviceReport:
    """What :func:`check_device_env` compared: games x steps, and how many games differed in any field."""

    num_envs: int
    steps: int
    games_ended: int
    illegal_tried: int
    mismatches: int
    first_mismatch: str | None = None


#: every per-game output both envs return, by the name the comparison reports
_STEP_FIELDS = ("observation", "reward", "terminated", "action_mask", "current_player", "seat_rewards", "final_ply",
                "illegal_action")  # fmt: skip


def _host(value: Any) -> np.ndarray:
    return value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)


def _step_fields(step: tuple[Any, ...]) -> dict[str, np.ndarray]:
    observations, rewards, terminated, _, info = step
    values = (observations, rewards, terminated, info["action_mask"], info["current_player"], info["seat_rewards"],
              info["final_ply"], info["illegal_action"])  # fmt: skip
    return {name: _host(value) for name, value in zip(_STEP_FIELDS, values)}


def check_device_env(
    game: str | Game, num_envs: int = 16, steps: int = 60, seed: int = 0, illegal_every: int = 7, **options: Any
) -> DeviceReport:
    """Step :class:`~crossenvs.envs.vector.DeviceVectorEnv` and :class:`~crossenvs.envs.vector.CrossVectorEnv`
    side by side on the same actions and count the games where anything they return differs.

    Actions are the device's own random picks, which must equal the CPU env's
    (:meth:`~crossenvs.envs.vector.CrossVectorEnv.random_actions`, the same per-game streams); every ``illegal_every``-th step one game plays an illegal
    action instead (the -1 and restart path). Runs on a GPU, or under numba's CUDA simulator with
    numba off (``NUMBA_ENABLE_CUDASIM=1 NUMBA_DISABLE_JIT=1``: the simulator cannot pass its
    arrays to compiled functions).
    """
    from .envs.vector import CrossVectorEnv

    device = CrossVectorEnv(game, num_envs, device="cuda", **options)
    cpu = CrossVectorEnv(device.game, num_envs)
    device_observations, device_info = device.reset(seed=seed)
    cpu_observations, cpu_info = cpu.reset(seed=seed)
    report = DeviceReport(num_envs, steps, 0, 0, 0)
    _count(report, -1, "observation", cpu_observations, _host(device_observations))
    for name in ("action_mask", "current_player"):
        _count(report, -1, name, cpu_info[name], _host(device_info[name]))
    masks = cpu_info["action_mask"]
    for step in range(steps):
        actions = _host(device.random_actions()).copy()
        _count(report, step, "random_action", cpu.random_actions(), actions)
        if illegal_every and step % illegal_every == illegal_every - 1:
            report.illegal_tried += _make_one_illegal(actions, masks, step % num_envs)
        cpu_fields = _step_fields(cpu.step(actions))
        device_fields = _step_fields(device.step(actions))
        for name in _STEP_FIELDS:
            _count(report, step, name, cpu_fields[name], device_fields[name])
        report.games_ended += int(cpu_fields["terminated"].sum())
        masks = cpu_fields["action_mask"]
    return report


def _make_one_illegal(actions: np.ndarray, masks: np.ndarray, game: int) -> int:
    refused = np.flatnonzero(masks[game] == 0)
    if refused.size == 0:
        return 0
    actions[game] = refused[0]
    return 1


def _count(report: DeviceReport, step: int, name: str, expected: np.ndarray, got: np.ndarray) -> None:
    """Add the games whose ``name`` differs (NaN-free values: exact equality, float32 bit for bit)."""
    expected, got = np.asarray(expected), np.asarray(got)
    if expected.shape != got.shape:
        differing = np.ones(len(expected), dtype=bool)
    else:
        differing = (expected != got).reshape(len(expected), -1).any(axis=1)
    if differing.any():
        report.mismatches += int(differing.sum())
        if report.first_mismatch is None:
            game = int(np.flatnonzero(differing)[0])
            report.first_mismatch = (
                f"step {step}, game {game}: {name} {expected[game]!r} (CPU) != {got[game]!r} (device)"
            )


# ----------------------------------------------------------------------------- the device search against the CPU search
@dataclass
class SearchReport:
    """What :func:`check_device_search` compared: searches of ``positions`` positions, and how far they differed."""

    positions: int
    simulations: int
    searches: int
    action_mismatches: int  # positions where the chosen actions differ
    root_observation_mismatches: int
    max_policy_gap: float  # largest |CPU - device| of an improved-policy entry
    max_value_gap: float
    first_mismatch: str | None = None


def linear_evaluator(game: Game, seed: int = 0) -> Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """A fixed random linear 'network' (NumPy): logits and a tanh value from the flattened observation.

    Cheap, deterministic and different for every position, so two searches that walk differently see different
    numbers; the same function on both sides makes the leaves' evaluations identical by construction.
    """
    rng = np.random.default_rng(seed)
    size = int(np.prod(game.observation_shape))
    weights = rng.normal(scale=0.5, size=(size, game.num_actions)).astype(np.float32)
    value_weights = rng.normal(scale=0.2, size=size).astype(np.float32)

    def evaluate(observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = np.asarray(observations, dtype=np.float32).reshape(len(observations), -1)
        return flat @ weights, np.tanh(flat @ value_weights).astype(np.float32)

    return evaluate


def _on_the_device(evaluate: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]) -> Callable[[Any], Any]:
    """``evaluate`` for the device search: the leaves copied to the host and the answer back (a check, not a speed)."""

    def device_evaluate(observations: Any) -> tuple[Any, Any]:
        logits, values = evaluate(_host(observations))
        if hasattr(observations, "detach"):
            import torch

            return torch.from_numpy(logits).to(observations.device), torch.from_numpy(values).to(observations.device)
        return logits, values

    return device_evaluate


def check_device_search(
    game: str | Game,
    positions: int = 8,
    simulations: int = 8,
    searches: int = 4,
    seed: int = 0,
    max_considered: int = 4,
    batch: int | None = None,
    **options: Any,
) -> SearchReport:
    """Search the same positions with :class:`~crossenvs.az.device_search.DeviceGumbelSearch` and
    :class:`~crossenvs.az.search.GumbelSearch`, with the same root noise (every other search none) and the same
    evaluator (:func:`linear_evaluator`), and compare what they return. ``batch``: the searches are made for this
    many positions (default ``positions``; more tries a search on part of its batch).

    The positions are a CPU vector env's games after random moves, advanced between searches. Under numba's CUDA
    simulator with numba off both run the same Python and must agree exactly. On a GPU they must agree exactly
    too: our kernels compile without fused multiply-adds and the search's ``exp`` is
    :func:`crossenvs.core.floats.exact_exp` on both targets, so any gap is a bug (or a float difference not yet
    found, which the report's first mismatch points at).
    """
    from .az.device_search import DeviceGumbelSearch
    from .az.search import GumbelSearch
    from .envs.vector import CrossVectorEnv

    env = CrossVectorEnv(game, num_envs=positions, **options)
    env.reset(seed=seed)
    size = batch or positions
    cpu = GumbelSearch(env.game, size, simulations, max_considered)
    device = DeviceGumbelSearch(env.game, size, simulations, max_considered)
    evaluate = linear_evaluator(env.game, seed)
    report = SearchReport(positions, simulations, searches, 0, 0, 0.0, 0.0)
    for search in range(searches):
        for _ in range(3 + search):
            env.step(env.random_actions())
        boards, metas = env.boards.copy(), env.metas.copy()
        noise_seed = None if search % 2 else seed + search
        gumbel = (
            None
            if noise_seed is None
            else np.random.default_rng(noise_seed).gumbel(size=(positions, env.game.num_actions)).astype(np.float32)
        )
        rng = (
            None if noise_seed is None else np.random.default_rng(noise_seed)
        )  # draws the same noise in the CPU search
        expected = cpu.run(boards, metas, evaluate, rng)
        got = [_host(part) for part in device.run(boards, metas, _on_the_device(evaluate), gumbel)]
        _compare_searches(report, search, expected, got)
    return report


def _compare_searches(
    report: SearchReport, search: int, expected: tuple[np.ndarray, ...], got: list[np.ndarray]
) -> None:
    actions, policies, values, observations = expected
    differing = np.flatnonzero(actions != got[0])
    report.action_mismatches += len(differing)
    if len(differing) and report.first_mismatch is None:
        i = int(differing[0])
        report.first_mismatch = f"search {search}, position {i}: action {actions[i]} (CPU) != {got[0][i]} (device)"
    report.root_observation_mismatches += int((observations != got[3]).reshape(len(observations), -1).any(axis=1).sum())
    report.max_policy_gap = max(report.max_policy_gap, float(np.abs(policies - got[1]).max()))
    report.max_value_gap = max(report.max_value_gap, float(np.abs(values - got[2]).max()))


# ----------------------------------------------------------------------------- the compiled CUDA code
def check_compiled_code(game: Game, cc: tuple[int, int] | None = None, search: bool = True) -> list[Any]:
    """Every device kernel of ``game`` (the env's, and the search's unless ``search`` is False) built as for a
    GPU of compute capability ``cc`` (default Hopper, 9.0) and checked (:mod:`crossenvs.kernels.compiled_checks`)."""
    from .az.device_search import search_kernel_sources
    from .envs.device import device_kernel_sources
    from .kernels.compiled_checks import check_kernel
    from .kernels.cuda import DEFAULT_PTX_CC

    cc = cc or DEFAULT_PTX_CC
    setup = game_label(game)
    sources = dict(device_kernel_sources(game))
    if search:
        sources.update(search_kernel_sources(game))
    return [check_kernel(setup, function, signature, cc) for function, signature in sources.values()]


def game_label(game: Game) -> str:
    """A game and the options that set it apart from its defaults, as a short label ("crisscross size=11")."""
    changed = {key: value for key, value in game.options.items() if value != type(game)().options.get(key)}
    return " ".join([game.name, *(f"{key}={value}" for key, value in changed.items())])
