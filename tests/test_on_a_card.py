"""benchmarks/on_a_card.py, the device session's script, here without a card: every step's commands run under
numba's CUDA simulator at ``--smoke`` sizes, with every package that is neither on the device image nor carried
made unimportable (as there: a package missing there would spend a session's device minutes on an
ImportError), and their figures come back in figures.json within the device tool's eight files. The full-size
plan keeps each command inside the tool's 10 minutes and names what the on-a-card issue asks for."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from conftest import benchmark_script

CARD = Path(__file__).resolve().parent.parent / "benchmarks" / "on_a_card.py"
#: every step but the sanitizer (no compute-sanitizer here: its own test below)
SMOKE_STEPS = ["stack", "doctor", "check", "env", "search", "train", "cores"]
#: written into a folder on PYTHONPATH, so every process of the run loads it: the packages the device image lacks
#: (and that are not carried) cannot be imported, and each process records the top-level modules it imported
AS_ON_THE_IMAGE = """
import atexit, importlib.util, os, sys

_ABSENT = set(os.environ["CARD_ABSENT"].split(","))


class _NotOnTheImage:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in _ABSENT:
            raise ModuleNotFoundError(f"No module named {name!r} (not on the device image)", name=name)
        return None


sys.meta_path.insert(0, _NotOnTheImage())
_find_spec = importlib.util.find_spec


def _look(name, package=None):  # a look for one (torch, torchrl ask so before importing) finds none, as there
    return None if name.split(".")[0] in _ABSENT else _find_spec(name, package)


importlib.util.find_spec = _look


def _record():
    with open(os.environ["CARD_IMPORTS"], "a") as sink:
        sink.write("\\n".join(sorted({name.split(".")[0] for name in list(sys.modules)})) + "\\n")


atexit.register(_record)
"""


@pytest.fixture(scope="module")
def card():
    with benchmark_script("on_a_card") as module:
        yield module


def normalized(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


def absent_there(card) -> set[str]:
    """Top-level modules installed here whose distributions are neither on the device image nor carried."""
    carried = card.CARRIED + card.CARRIED_CUDA + card.CARRIED_NUMPY
    allowed = card.IMAGE | {normalized(name.split("==")[0]) for name in carried}
    return {
        module
        for module, owners in metadata.packages_distributions().items()
        if module != "nvidia"  # a namespace the image's CUDA wheels fill too (its cu13 ones)
        and not any(normalized(owner) in allowed or normalized(owner) == "crossenvs" for owner in owners)
    }


@pytest.fixture(scope="module")
def smoke(card, tmp_path_factory):
    """The whole plan but the sanitizer, as a device session runs it, at --smoke sizes under the simulator, with
    only the packages the device image has and the carried ones importable."""
    root = tmp_path_factory.mktemp("card")
    (root / "hook").mkdir()
    (root / "hook" / "sitecustomize.py").write_text(AS_ON_THE_IMAGE)
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "NUMBA_DISABLE_JIT": "1", "JAX_PLATFORMS": "cpu",
           "CARD_IMPORTS": str(root / "imports.txt"), "CARD_ABSENT": ",".join(sorted(absent_there(card))),
           "PYTHONPATH": str(root / "hook")}  # fmt: skip
    out = root / "out"
    command = [sys.executable, str(CARD), *SMOKE_STEPS, "--smoke", "--out", str(out), "--budget", "1200"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=1500)
    return done, out, root / "imports.txt"


@pytest.mark.slow
def test_every_step_runs_under_the_simulator_and_brings_its_figures_back(smoke):
    done, out, _ = smoke
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert done.stdout.splitlines()[-1].endswith("no command failed")
    files = sorted(path.name for path in out.iterdir())
    assert files == sorted([*(f"{step}.log" for step in SMOKE_STEPS), "figures.json"]) and len(files) <= 8
    figures = json.loads((out / "figures.json").read_text())
    assert set(figures) == set(SMOKE_STEPS) - {"doctor"}  # the doctor's figures are its log's table
    assert figures["stack"]["stack"]["as_checked"] is True and figures["stack"]["stack"]["cpu_cores"] >= 1
    check = figures["check"]["connect_four"]["check"]
    assert [(row["game"], row["mismatches"]) for row in check] == [("connect_four", 0)]
    env_rows = {row["name"]: row for row in figures["env"]["connect_four B=4"]["rows"]}
    assert set(env_rows) == {"crossenvs connect_four", "pgx connect_four"}
    assert all(row["median"] > 0 for row in env_rows.values())
    assert [r["kind"] for r in figures["env"]["connect_four B=4"]["ratios"]] == ["same game"]
    search = figures["search"]["B=2"]["search_rows"]
    assert [row["name"] for row in search] == ["crossenvs search crisscross 8x8", "crossenvs training crisscross 8x8",
                                              "mctx gumbel othello"]  # fmt: skip
    assert all(row["median"] > 0 for row in search) and 0 < search[0]["network_share"] <= 1
    assert figures["train"]["train"]["positions"] > 0  # the run's summary.json
    cores = figures["cores"]["cores"]["results"]
    assert {(row["kind"], row["cores"]) for row in cores} == {("random play", 1), ("tree walk", 1)}
    assert "crisscross specs ok on cpu" in (out / "train.log").read_text()  # CrossTorchRLEnv(device="cuda"), simulated
    doctor = (out / "doctor.log").read_text()
    assert "1 of 1 setups passed" in doctor and "== doctor doctor: exit 0" in doctor


@pytest.mark.slow
def test_the_smoke_run_had_only_what_the_device_image_has(card, smoke):
    """The run above imported the whole stack and nothing that the image lacks (those were unimportable: a step
    that needed one would have failed there, as it would on the card). The hook itself is checked to bite."""
    done, _, imports = smoke
    assert done.returncode == 0, done.stdout[-4000:]
    modules = set(imports.read_text().split())
    assert {"crossenvs", "numba", "torch", "jax", "pgx", "mctx", "gymnasium", "pettingzoo"} <= modules
    absent = absent_there(card)
    assert {"stable_baselines3", "ray", "open_spiel"} <= absent  # here, not on the image (nor carried)
    assert not modules & absent
    env = {**os.environ, "CARD_IMPORTS": os.devnull, "CARD_ABSENT": "stable_baselines3"}
    hook = Path(imports).parent / "hook"
    probe = "import crossenvs.envs.sb3_vec as v, sys; print(v._SB3VecEnv is object, 'stable_baselines3' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                          env={**env, "PYTHONPATH": str(hook)})  # fmt: skip
    assert done.stdout.split() == ["True", "False"], done.stderr[-2000:]


def test_the_carried_wheels_meet_crossenvs_requirements_and_the_image_lacks_them(card):
    """Each carried pin meets pyproject.toml's requirements (the envs', the bench and cuda extras'); the ones always
    installed are not on the image; numba-cuda is the version crossenvs' numba internals were checked against."""
    import tomllib
    from packaging.requirements import Requirement

    from crossenvs.kernels.numba_internals import CHECKED

    project = tomllib.loads((CARD.parent.parent / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    specifiers: dict[str, list] = {}
    for line in [*project["dependencies"], *extras["bench"], *extras["cuda"]]:
        requirement = Requirement(line)
        specifiers.setdefault(normalized(requirement.name), []).append(requirement.specifier)
    pins = dict(pin.split("==") for pin in card.CARRIED + card.CARRIED_CUDA + card.CARRIED_NUMPY)
    assert {"gymnasium", "pettingzoo", "pgx", "mctx", "numba-cuda", "numpy"} <= set(pins)
    for name, version in pins.items():
        assert all(specifier.contains(version) for specifier in specifiers.get(normalized(name), [])), (name, version)
    assert not {normalized(name.split("==")[0]) for name in card.CARRIED} & card.IMAGE
    assert pins["numba-cuda"] == CHECKED["numba-cuda"] and not specifiers["numpy"][-1].contains("2.5.0")


def test_the_full_plan_fits_the_device_tool_and_asks_what_the_issue_asks(card, capsys):
    assert card.main(["--plan", *card.STEPS]) == 0
    lines = capsys.readouterr().out.splitlines()
    limits = [int(re.search(r" (\d+) s  ", line).group(1)) for line in lines]
    assert all(limit <= 560 for limit in limits)  # every command inside the tool's 10 minutes
    text = "\n".join(lines)
    assert "hex:size=11,swap=on" in text and "connect_four" in text  # the doctor checks the same-game setups
    assert "--tool memcheck" in text and "--tool racecheck" in text
    assert "--device cuda --max-minutes 3" in text and "torchrl specs" in text  # the issue's step 5, both parts
    checks = [line for line in lines if line.split()[1] == "check"]
    assert len(checks) == len(card.CHECK_GAMES) and all("--check-batch" not in line for line in checks)  # 65,536


def test_a_call_past_its_budget_starts_nothing_and_says_so(tmp_path):
    done = subprocess.run([sys.executable, str(CARD), "doctor", "--out", str(tmp_path), "--budget", "20"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "== doctor doctor: not started, 15 s of the budget left" in done.stdout
    assert done.stdout.splitlines()[-1].endswith("not started (the budget): doctor doctor")


def test_a_tool_missing_there_is_one_line_and_a_failed_command(card, tmp_path):
    runner = card.Runner(tmp_path, 100, dict(os.environ))
    command = card.Command("sanitizer", "memcheck", ["/nonexistent/compute-sanitizer", "--tool", "memcheck"], 60)
    assert runner.command(command) == 127
    assert "/nonexistent/compute-sanitizer is not on this machine" in (tmp_path / "sanitizer.log").read_text()


def test_bad_calls_are_refused_by_name(capsys):
    for argv, message in ((["dcotor", "--out", "x"], "no step 'dcotor'"), (["doctor"], "--out is needed"),
                          ([], "name at least one step"), (["search:B=7", "--plan"], "step search has no command 'B=7'"),
                          (["stack", "doctor", "sanitizer", "check", "env", "search", "train", "cores", "--out", "x"],
                           "at most 7 steps a call")):  # fmt: skip
        done = subprocess.run([sys.executable, str(CARD), *argv], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and message in done.stderr, (argv, done.stderr)


def test_every_command_line_the_docs_show_parses(card, capsys):
    """The calls the GPU page and the script's docstring show are ones the script takes (each planned)."""
    import shlex

    root = CARD.parent.parent
    texts = [path.read_text() for path in root.glob("docs/**/*.md")] + [card.__doc__]
    found = {c.strip() for text in texts for c in re.findall(r"python3? benchmarks/on_a_card\.py([^`\n#]*)", text)}
    assert len(found) >= 4 and "--fetch-wheels" in found
    for command in sorted(found):
        argv = shlex.split(command.replace("$OUT", "out"))
        if argv[0] in ("--fetch-wheels", "--tables"):  # here, not there: they parse, and run nothing on a card
            assert card.parse(argv), command
            continue
        assert card.main([*argv, "--plan"]) == 0, command
        assert capsys.readouterr().out.startswith("plan: "), command


def test_one_command_of_a_step_can_be_run_alone(card, capsys):
    """What a later call runs again, or what a cut-short call never started: step:name."""
    assert card.main(["--plan", "search:B=16384", "env:hex B=65536", "search:B=16384"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1:3] for line in lines] == [["search", "B=16384"], ["env", "hex"]]
    assert "--search-batches 16384" in lines[0] and "--games hex --batches 65536" in lines[1]


@pytest.mark.slow
def test_the_figures_brought_back_become_the_benchmarks_pages_tables(card, smoke, capsys):
    done, out, _ = smoke
    assert done.returncode == 0, done.stdout[-4000:]
    assert card.main(["--tables", str(out / "figures.json")]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Card: ") and "| connect_four | 4 | 5 |" in text  # the check's row: games, steps
    assert "| crossenvs connect_four |" in text and "| pgx connect_four |" in text
    assert "| connect_four / pgx connect_four (same game) |" in text
    assert "| mctx gumbel othello | 2 |" in text and "| random play crisscross 8x8 | 8 |" in text
    assert [card.rate_text(r) for r in (None, 950, 45_678, 12_345_678)] == ["-", "950", "45.7k", "12.35M"]
