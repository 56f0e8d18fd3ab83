"""Mutation testing of the reward, value, mask, action-id, seat and outcome paths: does a wrong line fail a test?

Each mutant replaces one piece of text in one Python function, in memory only: the function's source is
edited, recompiled in its module's globals and put back on its class or module (and on every module that
imported it by name). Nothing on disk changes, so numba's cache stays valid. Every mutant runs, in its own
process, the tests that should kill it (fast tier, stopping at the first failure), and the script prints
a table: mutant, killed by (the first failing test) or SURVIVED.

    python tests/mutants.py              # every mutant (a few minutes on 2 cores)
    python tests/mutants.py az-value     # those whose name contains "az-value"
    python tests/mutants.py --list       # the mutants, without running them

A mutant in a numba-jitted kernel cannot be patched this way; those paths are checked against reference
models and perft figures instead (docs/contributing.md). Tests that run the code in a subprocess do not see
a mutant either, so each mutant names tests that run in this process.
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import textwrap
import typing
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Mutant(typing.NamedTuple):
    name: str
    target: str  # "module:Qualified.name"
    old: str  # text that occurs exactly once in the function's source
    new: str
    tests: tuple[str, ...]  # pytest node ids or files that should kill it


MUTANTS = [
    Mutant(
        "az-value-target-other-seat",
        "crossenvs.az.pending:HostPending.take",
        "seat_rewards[i, seat]",
        "seat_rewards[i, 1 - seat]",
        ("tests/test_signs.py", "tests/test_alphazero.py"),
    ),
    Mutant(
        "sb3-vec-reward-other-seat",
        "crossenvs.envs.sb3_vec:CrossSB3VecEnv.step_wait",
        "won[finished & ok, self.learner[finished & ok]]",
        "won[finished & ok, 1 - self.learner[finished & ok]]",
        ("tests/test_signs.py", "tests/test_vector.py"),
    ),
    Mutant(
        "sb3-vec-illegal-not-punished",
        "crossenvs.envs.sb3_vec:CrossSB3VecEnv.step_wait",
        "rewards[~ok] = -1.0",
        "rewards[~ok] = 0.0",
        ("tests/test_vector.py",),
    ),
    Mutant(
        "sb3-vec-learner-seat-reported-wrong",
        "crossenvs.envs.sb3_vec:CrossSB3VecEnv.step_wait",
        'infos[index]["learner_seat"] = int(self.learner[index])',
        'infos[index]["learner_seat"] = int(1 - self.learner[index])',
        ("tests/test_signs.py", "tests/test_vector.py"),
    ),
    Mutant(
        "sb3-vec-mask-shifted",
        "crossenvs.envs.vector:CrossSB3VecEnv.action_masks",
        "self._masks.astype(bool)",
        "np.roll(self._masks.astype(bool), 1, axis=1)",
        ("tests/test_vector.py", "tests/test_signs.py"),
    ),
    Mutant(
        "gym-reward-other-seat",
        "crossenvs.envs.single_agent:CrossSingleAgentEnv.step",
        "float(outcome[self.learner])",
        "float(outcome[1 - self.learner])",
        ("tests/test_signs.py", "tests/test_envs.py"),
    ),
    Mutant(
        "gym-illegal-not-punished",
        "crossenvs.envs.single_agent:CrossSingleAgentEnv.step",
        "self._observation(), -1.0, True",
        "self._observation(), 0.0, True",
        ("tests/test_envs.py",),
    ),
    Mutant(
        "gym-mask-shifted",
        "crossenvs.envs.single_agent:CrossSingleAgentEnv.action_masks",
        "self._game.mask().astype(bool)",
        "np.roll(self._game.mask().astype(bool), 1)",
        ("tests/test_envs.py", "tests/test_signs.py"),
    ),
    Mutant(
        "gym-observes-other-seat",
        "crossenvs.envs.single_agent:CrossSingleAgentEnv._observation",
        "self._game.observe(self.learner)",
        "self._game.observe(1 - self.learner)",
        ("tests/test_envs.py", "tests/test_env_faces.py"),
    ),
    Mutant(
        "vector-seat-rewards-swapped",
        "crossenvs.envs.sb3_vec:_seat_rewards",
        "st.SEAT_RETURNS[status]",
        "st.SEAT_RETURNS[status][..., ::-1]",
        ("tests/test_signs.py", "tests/test_vector.py", "tests/test_eval.py"),
    ),
    Mutant(
        "openspiel-returns-swapped",
        "crossenvs.integrations.openspiel.game:CrossenvsState.returns",
        "list(outcome)",
        "list(outcome)[::-1]",
        ("tests/test_openspiel.py",),
    ),
    Mutant(
        "rllib-reward-other-seat",
        "crossenvs.integrations.rllib.env:CrossMultiAgentEnv.step",
        "dict(zip(AGENTS, outcome))",
        "dict(zip(AGENTS, outcome[::-1]))",
        ("tests/test_rllib.py",),
    ),
    Mutant(
        "torchrl-seat-rewards-swapped",
        "crossenvs.integrations.torchrl:CrossTorchRLEnv._step",
        'self._tensor(info["seat_rewards"])',
        'self._tensor(info["seat_rewards"][:, ::-1].copy())',
        ("tests/test_torchrl.py",),
    ),
    Mutant(
        "torchrl-recipe-credit-other-seat",
        "torchrl_selfplay:mover_frame_advantages",
        "[..., :1]",
        "[..., 1:]",
        (
            "tests/test_learning.py::test_the_torchrl_recipe_beats_random_within_twenty_thousand_steps",
            "tests/test_torchrl.py",
        ),
    ),
    Mutant(
        "aec-reward-other-seat",
        "crossenvs.envs.aec:CrossAECEnv._play",
        "self.rewards[name] = outcome[index]",
        "self.rewards[name] = outcome[1 - index]",
        ("tests/test_signs.py", "tests/test_envs.py"),
    ),
    Mutant(
        "aec-illegal-not-punished",
        "crossenvs.envs.wrappers:StandardRulesWrapper._end_game_for_illegal_move",
        "raw.rewards[agent] = self._illegal_reward",
        "raw.rewards[agent] = 0",
        ("tests/test_envs.py",),
    ),
    Mutant(
        "aec-mask-shifted",
        "crossenvs.envs.aec:CrossAECEnv.observe",
        "mask = self._game.mask() if on_move",
        "mask = np.roll(self._game.mask(), 1) if on_move",
        ("tests/test_envs.py", "tests/test_env_faces.py"),
    ),
    Mutant(
        "action-id-mirrored",
        "crossenvs.support.actions:action_id",
        "return int(value)",
        "return num_actions - 1 - int(value)",
        ("tests/test_env_faces.py", "tests/test_envs.py"),
    ),
    Mutant(
        "action-ids-mirrored",
        "crossenvs.support.actions:action_ids",
        "return array.astype(np.int64, copy=False)",
        "return (num_actions - 1 - array).astype(np.int64)",
        ("tests/test_env_faces.py", "tests/test_vector.py"),
    ),
    Mutant(
        "arena-one-game-score-flipped",
        "crossenvs.eval.arena:play_game",
        "(1.0 if outcome[0] > 0 else 0.0)",
        "(0.0 if outcome[0] > 0 else 1.0)",
        ("tests/test_eval.py", "tests/test_example_game.py"),
    ),
    Mutant(
        "arena-batched-score-other-seat",
        "crossenvs.eval.arena:_score",
        'info["seat_rewards"][newly, 0]',
        'info["seat_rewards"][newly, 1]',
        ("tests/test_eval.py", "tests/test_example_game.py"),
    ),
    Mutant(
        "checkpoint-options-not-compared",
        "crossenvs.checkpoints.files:check_trained_on",
        "name != game.name or chosen(options, game.OPTIONS) != chosen(dict(game.options), game.OPTIONS)",
        "name != game.name",
        ("tests/test_checkpoints.py",),
    ),
]


def resolve(target: str) -> tuple[typing.Any, str, typing.Any]:
    """(owner, attribute name, function) of ``module:Qualified.name``."""
    module_name, qualname = target.split(":")
    owner: typing.Any = importlib.import_module(module_name)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    return owner, name, inspect.getattr_static(owner, name)


def apply(mutant: Mutant) -> None:
    """Replace the function named by ``mutant.target`` with its mutated source, everywhere it is bound."""
    owner, name, original = resolve(mutant.target)
    lines, first_line = inspect.getsourcelines(original)
    source = textwrap.dedent("".join(lines))
    if source.count(mutant.old) != 1:
        raise SystemExit(f"{mutant.name}: {mutant.old!r} occurs {source.count(mutant.old)} times in {mutant.target}")
    source = "\n" * (first_line - 1) + source.replace(mutant.old, mutant.new)  # tracebacks keep the line numbers
    namespace: dict[str, typing.Any] = {}
    exec(compile(source, inspect.getsourcefile(original), "exec"), original.__globals__, namespace)
    setattr(owner, name, namespace[name])
    if inspect.ismodule(owner):  # ``from module import name`` elsewhere bound the original too
        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("crossenvs") and getattr(module, name, None) is original:
                setattr(module, name, namespace[name])


def run_one(mutant: Mutant) -> str:
    """Run the mutant's tests in a fresh process; the first failing test's id, or "SURVIVED"."""
    command = [sys.executable, __file__, "--inside", mutant.name]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    failed = [line.split(" ")[1] for line in result.stdout.splitlines() if line.startswith("FAILED ")]
    if failed:
        return failed[0]
    if result.returncode == 0:
        return "SURVIVED"
    return f"ERROR (exit {result.returncode}): {result.stdout[-300:]}{result.stderr[-300:]}"


def inside(name: str) -> int:
    """In the child process: apply one mutant, then run its tests with pytest in this same process."""
    import pytest

    mutant = next(m for m in MUTANTS if m.name == name)
    import crossenvs  # noqa: F401 -- every module imported before the patch sees it through its attribute

    apply(mutant)
    options = ["-n", "0", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow and not browser and not docs"]
    return pytest.main([*options, "-rf", "--durations=0", "--durations-min=1000", *mutant.tests])


def main(argv: list[str]) -> int:
    if argv[:1] == ["--inside"]:
        return inside(argv[1])
    words = [word for word in argv if word != "--list"]
    chosen = [m for m in MUTANTS if not words or any(word in m.name for word in words)]
    if "--list" in argv:
        for mutant in chosen:
            print(f"{mutant.name}: {mutant.target}: {mutant.old!r} -> {mutant.new!r}")
        return 0
    width = max(len(m.name) for m in chosen)
    print(f"{'mutant':<{width}}  killed by")
    survivors = 0
    for mutant in chosen:
        verdict = run_one(mutant)
        survivors += verdict == "SURVIVED" or verdict.startswith("ERROR")
        print(f"{mutant.name:<{width}}  {verdict}", flush=True)
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "examples"))  # the recipes' mutants name their modules (torchrl_selfplay)
    sys.exit(main(sys.argv[1:]))
