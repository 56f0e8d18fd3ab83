"""The on-a-card checks, prepared here so that a session's 15 device minutes go to the card, not to typing.

A session lent a GPU machine (the device tool; docs/gpu.md, "The checks on a lent GPU machine") runs the
steps below through the tool's ``run``. Each step is a few commands; each command (a game, or one part
of a benchmark) runs in a process of its own under a time limit, its output goes to the step's log
under ``--out`` as it comes and its figures into ``figures.json`` there, so a call cut short still
brings back what it found. Steps, in the order of the on-a-card issue:

  stack      the card, its driver, the CPU cores, the packages the steps use, and whether numba and
             numba-cuda are the versions crossenvs was checked against
  doctor     ``crossenvs doctor`` on every setup it times (the five games, Crisscross 11x11, Hex 11x11
             with the swap, Connect Four): compiled, run and compared with the CPU env and search
  sanitizer  one game's device env and search under compute-sanitizer, memcheck then racecheck
  check      ``benchmarks/gpu.py --check`` at 65,536 games, a process per game, several at once
  env        ``benchmarks/gpu.py --env`` at 4,096 and 65,536 games: each same-game pair with pgx, then ours
             (a process per pair and batch)
  search     ``benchmarks/gpu.py --search`` beside mctx at 4,096, 16,384 and 1,024 games (a process each)
  train      TorchRL's spec check of ``CrossTorchRLEnv(..., device="cuda")`` for every game, then ``make train``'s
             run with ``--device cuda`` for 3 minutes, its match against MCTS-5000 included
  cores      ``benchmarks/cores.py`` on every core of the machine

Here, once: ``python benchmarks/on_a_card.py --fetch-wheels`` saves the packages the device image lacks
(:data:`CARRIED`), built for its Python 3.12, into ``.whl/`` (git ignores it). There, naming ``.whl`` in
the run's carry, each call well inside the tool's 10 minutes a command (``--budget``, seconds: a command
gets at most what is left of it, and none starts with under 30 s left)::

    python3 benchmarks/on_a_card.py stack doctor check --out $OUT --budget 540
    python3 benchmarks/on_a_card.py env --out $OUT --budget 540
    python3 benchmarks/on_a_card.py "search:B=4096" "search:B=16384" --out $OUT --budget 540
    python3 benchmarks/on_a_card.py sanitizer train cores --out $OUT --budget 540

``step:command`` runs one command of a step (``search:B=1024``), for a call cut short or a later session.
Back here, ``python benchmarks/on_a_card.py --tables figures.json ...`` writes the benchmarks page's tables
from the files the calls brought back.

The script installs the wheels itself (into a folder of its own under /tmp; numba-cuda and cuda-core only
where the image's numba-cuda is not the checked one, numpy only where the image's is 2.5 or newer) and runs
every command with that folder and this
checkout on ``PYTHONPATH``. ``--plan`` prints the commands and their limits and exits; ``--smoke``
shrinks every size so that the whole plan runs under numba's CUDA simulator in minutes
(tests/test_on_a_card.py runs it so).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ROOT / ".whl"
STEPS = ("stack", "doctor", "sanitizer", "check", "env", "search", "train", "cores")
#: the packages the steps need that the device image lacks (its list: the device tool's KINDS.md), at versions
#: that meet crossenvs' requirements (tests/test_on_a_card.py checks them against pyproject.toml)
CARRIED = ["gymnasium==1.2.2", "pettingzoo==1.27.0", "farama-notifications==0.0.6", "pgx==2.6.0", "mctx==0.0.71",
           "svgwrite==1.4.3", "torchrl==0.14.1", "tensordict==0.14.3", "pyvers==0.2.3", "hoptorch==0.1.4",
           "orjson==3.13.0", "importlib-metadata==10.2.0", "lazy-importer==0.1.0"]  # fmt: skip
#: carried too, installed only where the image's own does not do: numba-cuda and cuda-core where its numba-cuda is
#: not the one crossenvs was checked against, numpy where its numpy is 2.5 or newer (numba-cuda 0.30 does not
#: import beside it; the cuda extra holds numpy below 2.5)
CARRIED_CUDA = ["numba-cuda==0.30.4", "cuda-core==1.2.2"]
CARRIED_NUMPY = ["numpy==2.4.6"]
#: Python packages on the device image, as the device tool's KINDS.md lists them (read there on 2026-11-17)
IMAGE = set(
    """absl-py accelerate aiofiles aiohappyeyeballs aiohttp aiosignal annotated-doc anyio attrs botorch build
certifi charset-normalizer chex click cloudpickle cmake colorama contourpy coverage cuda-bindings cuda-core
cuda-pathfinder cuda-toolkit cupy-cuda13x cycler cython diffrax e3nn einops equinox etils execnet filelock flatbuffers
flax fonttools formulaic frozenlist fsspec gpytorch grpcio h11 h5py hf-xet httpcore httpx huggingface-hub humanize
hypothesis idna imageio interface-meta jax jax-cuda13-pjrt jax-cuda13-plugin jaxlib jaxtyping jinja2 joblib kiwisolver
lazy-loader lightning lightning-utilities linear-operator lineax llvmlite lxml markdown markdown-it-py markupsafe
matplotlib mdurl meson ml-dtypes mpi4py mpmath msgpack multidict multipledispatch mypy-extensions nanobind narwhals
networkx ninja numba numba-cuda numpy numpyro nvidia-cublas nvidia-cuda-cupti nvidia-cuda-nvrtc nvidia-cuda-runtime
nvidia-cudnn-cu13 nvidia-cufft nvidia-cufile nvidia-curand nvidia-cusolver nvidia-cusparse nvidia-cusparselt-cu13
nvidia-ml-py nvidia-nccl-cu13 nvidia-nvjitlink nvidia-nvshmem-cu13 nvidia-nvtx onnx onnx-ir onnxruntime onnxscript
opencv-python-headless optax opt-einsum opt-einsum-fx optimistix orbax-checkpoint packaging pandas pathspec patsy peft
pillow pip pluggy portalocker prometheus-client propcache protobuf psutil pyarrow pybind11 py-cpuinfo pygments
pyparsing pyproject-hooks pyre-extensions pytest pytest-benchmark pytest-cov pytest-mock pytest-timeout pytest-xdist
python-dateutil pytorch-lightning pyyaml regex requests rich sacrebleu safetensors scikit-build-core scikit-image
scikit-learn scipy seaborn sentencepiece sentence-transformers setuptools shellingham simplejson six sortedcontainers
statsmodels sympy tabulate tensorboard tensorboard-data-server tensorstore threadpoolctl tifffile tiktoken timm
tokenizers toolz torch torchaudio torchdiffeq torch-geometric torchmetrics torchvision tqdm transformers treescope
triton typer typing-extensions typing-inspect urllib3 uvloop wadler-lindig werkzeug wheel wrapt xarray xxhash
yarl zipp""".split()
) | {"pytz", "tzdata"}  # pandas' requirements: on the image with pandas, though its list leaves them out
#: the setups the doctor checks: its own default ones, and the two that gpu.py times beside pgx on the same game
DOCTOR_SETUPS = ["crisscross", "crisscross:size=11", "charing_cross", "crosse", "crossings", "neo_crossings",
                 "hex:size=11,swap=on", "connect_four"]  # fmt: skip
#: gpu.py's --games names, a process each for the checks (crisscross holds both of its sizes)
CHECK_GAMES = ["hex", "connect_four", "crisscross", "charing_cross", "crosse", "crossings", "neo_crossings"]
#: the batches of the env and search rows (the issue's): each its own process
ENV_BATCHES, SEARCH_BATCHES = [4096, 65536], [4096, 16384, 1024]  # the targets first
#: the env rows' groups: each same-game pair, then our games beside pgx's nearest
ENV_GROUPS = {"hex": ["hex"], "connect_four": ["connect_four"],
              "our games": ["crisscross", "charing_cross", "crosse", "crossings", "neo_crossings"]}  # fmt: skip


@dataclass
class Command:
    """One process of a step: what it runs, how long it may take, and where its figures land (if anywhere)."""

    step: str
    name: str
    argv: list[str]
    timeout: int
    figures: Path | None = None  # a JSON file the command writes, merged into figures.json under step/name


def python(*args: str) -> list[str]:
    return [sys.executable, *args]


def crossenvs_cli(*args: str) -> list[str]:
    return python("-m", "crossenvs.cli", *args)


def bench(script: str, *args: str) -> list[str]:
    return python(str(ROOT / "benchmarks" / script), *args)


def commands(step: str, work: Path, smoke: bool) -> list[Command]:
    """The commands of ``step``, full size or (``smoke``) small enough for the simulator."""
    figures = lambda name: work / f"{step}-{name}.json"  # noqa: E731
    if step == "stack":
        return [Command(step, "stack", python(__file__, "--stack-report", str(figures("stack"))), 120,
                        figures("stack"))]  # fmt: skip
    if step == "doctor":
        setups = ["crisscross:size=3"] if smoke else DOCTOR_SETUPS
        sizes = ["--envs", "4", "--steps", "3", "--compare", "4", "--trees", "2", "--simulations", "2"] if smoke else []
        return [Command(step, "doctor", crossenvs_cli("doctor", "--games", *setups, *sizes, "--timeout", "420"), 480)]
    if step == "sanitizer":
        probe = ["doctor", "--games", "crisscross", "--envs", "64", "--steps", "8", "--compare", "8", "--trees", "2",
                 "--simulations", "4", "--jobs", "1", "--timeout", "400"]  # fmt: skip
        return [Command(step, tool, [sanitizer(), "--tool", tool, "--target-processes", "all", "--error-exitcode", "9",
                                     *crossenvs_cli(*probe)], 420) for tool in ("memcheck", "racecheck")]  # fmt: skip
    if step == "check":
        sizes = ["--check-batch", "4", "--check-steps", "5", "--check-positions", "2"] if smoke else []
        games = ["connect_four"] if smoke else CHECK_GAMES
        return [Command(step, game, bench("gpu.py", "--check", "--games", game, *sizes, "--json", str(figures(game))),
                        300, figures(game)) for game in games]  # fmt: skip
    if step == "env":  # a process per pair and batch: one that hangs or runs long costs only its own rows
        small = ["--seconds", "0.05", "--rounds", "1"] if smoke else []
        groups = {"connect_four": ["connect_four"]} if smoke else ENV_GROUPS
        return [Command(step, f"{name} B={batch}", bench("gpu.py", "--env", "--games", *games, "--batches", str(batch),
                        *small, "--json", str(figures(f"{name}_{batch}".replace(" ", "_")))), 240,
                        figures(f"{name}_{batch}".replace(" ", "_")))
                for batch in ([4] if smoke else ENV_BATCHES) for name, games in groups.items()]  # fmt: skip
    if step == "search":  # a process per batch
        small = ["--seconds", "0.05", "--rounds", "1", "--simulations", "4", "--warmup", "1"] if smoke else []
        return [Command(step, f"B={batch}", bench("gpu.py", "--search", "--search-batches", str(batch), *small,
                        "--json", str(figures(f"search_{batch}"))), 300, figures(f"search_{batch}"))
                for batch in ([2] if smoke else SEARCH_BATCHES)]  # fmt: skip
    if step == "train":
        run = work / "train-run"
        sizes = [f"--set={key}={value}" for key, value in SMOKE_TRAINING.items()] if smoke else []
        minutes, device = ("0.05", "auto") if smoke else ("3", "cuda")  # torch sees no card under the simulator
        argv = crossenvs_cli("train", "alphazero", "--game", "crisscross", "--option", "size=6", "--device", device,
                             "--max-minutes", minutes, "--no-progress", "--run-dir", str(run), *sizes)  # fmt: skip
        games = ["crisscross"] if smoke else ["crisscross", "charing_cross", "crosse", "crossings", "neo_crossings"]
        specs = python("-c", TORCHRL_SPECS, str(2 if smoke else 1024), *games)
        return [Command(step, "torchrl specs", specs, 240), Command(step, "train", argv, 560, run / "summary.json")]
    if step == "cores":
        sizes = ["--cores", "1", "--games", "crisscross", "--batches", "8", "--search-batch", "4", "--repeats", "1",
                 "--seconds", "0.02"] if smoke else []  # fmt: skip
        return [Command(step, "cores", bench("cores.py", *sizes, "--json", str(figures("cores"))), 560,
                        figures("cores"))]  # fmt: skip
    raise ValueError(step)


#: CrossTorchRLEnv on the device (the issue's step 5): TorchRL's own spec check and a rollout of legal actions
TORCHRL_SPECS = """
import os, sys, warnings
import numpy as np
if os.environ.get("NUMBA_DISABLE_JIT") == "1":  # the simulator: numba off, the random streams' products wrap
    np.seterr(over="ignore")
    warnings.simplefilter("ignore", RuntimeWarning)
from crossenvs.selfcheck import check_device_torchrl
for name in sys.argv[2:]:
    print(name, "specs ok on", check_device_torchrl(name, num_envs=int(sys.argv[1])), flush=True)
"""
#: the training run's config under --smoke: a few games, a tiny search, a two-game match against random
SMOKE_TRAINING = {"num_envs": 4, "simulations": 2, "max_considered": 2, "batch_size": 8, "eval_games": 2,
                  "eval_simulations": 2, "eval_opponent": "random", "eval_ladder_games": 0}  # fmt: skip


def sanitizer() -> str:
    """compute-sanitizer from PATH or the CUDA toolkit's folder (the device image has both)."""
    return shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"


# ----------------------------------------------------------------------------- running
class Runner:
    """Runs commands under their limits and the call's budget; logs and figures go under ``out`` as they come."""

    def __init__(self, out: Path, budget: float, env: dict[str, str]):
        self.out, self.env, self.started = out, env, time.monotonic()
        self.deadline = self.started + budget
        self.figures_file = out / "figures.json"
        self.lock = threading.Lock()  # a step's commands may end at once (the checks run several together)
        self.figures = json.loads(self.figures_file.read_text()) if self.figures_file.exists() else {}

    def step(self, todo: list[Command], at_once: int = 1) -> list[int | None]:
        """Each command of a step (``at_once`` at a time): its return code, or None where it was not started."""
        with ThreadPoolExecutor(at_once) as pool:
            return list(pool.map(self.command, todo))

    def command(self, command: Command) -> int | None:
        left = self.deadline - time.monotonic() - 5
        log = self.out / f"{command.step}.log"
        if left < 30:
            self.note(log, f"== {command.step} {command.name}: not started, {max(0, left):.0f} s of the budget left")
            return None
        limit = min(command.timeout, left)
        self.note(log, f"== {command.step} {command.name} (at most {limit:.0f} s): {' '.join(command.argv)}")
        began = time.monotonic()
        with open(log, "a") as sink:
            try:
                process = subprocess.Popen(command.argv, stdout=sink, stderr=subprocess.STDOUT, cwd=ROOT,
                                           env=self.env, start_new_session=True)  # fmt: skip
            except FileNotFoundError:
                self.note(log, f"== {command.step} {command.name}: {command.argv[0]} is not on this machine")
                return 127
            try:
                code = process.wait(timeout=limit)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)  # the command and everything it started
                process.wait()
                code = -9
        ended = "stopped at its limit" if code == -9 else f"exit {code}"
        self.note(log, f"== {command.step} {command.name}: {ended} after {time.monotonic() - began:.0f} s")
        self.keep(command)
        return code

    def keep(self, command: Command) -> None:
        """The command's figures into figures.json (rewritten whole each time: a cut-short call keeps the rest)."""
        if command.figures is None or not command.figures.exists():
            return
        try:
            figures = json.loads(command.figures.read_text())
        except json.JSONDecodeError:
            return
        with self.lock:
            self.figures.setdefault(command.step, {})[command.name] = figures
            self.figures_file.write_text(json.dumps(self.figures, indent=1))

    def note(self, log: Path, line: str) -> None:
        print(line, flush=True)
        with open(log, "a") as sink:
            sink.write(line + "\n")


def at_once_for(step: str, smoke: bool) -> int:
    """Checks run several games at once (compiling is per process, on the CPU); timed steps one at a time."""
    return min(4, os.cpu_count() or 1) if step == "check" and not smoke else 1


# ----------------------------------------------------------------------------- wheels and the stack
def fetch_wheels() -> int:
    """Here: the carried packages as wheels for the device image's Python 3.12, into .whl/ (git ignores it)."""
    platforms = [f"--platform={p}" for p in ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64",
                                             "manylinux_2_17_x86_64", "manylinux2014_x86_64", "any")]  # fmt: skip
    exclude = ROOT / ".git" / "info" / "exclude"
    if exclude.parent.exists() and "/.whl/" not in (exclude.read_text() if exclude.exists() else ""):
        with open(exclude, "a") as sink:
            sink.write("/.whl/\n")
    command = python("-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--python-version", "3.12",
                     "--implementation", "cp", *platforms, "-d", str(WHEELS), *CARRIED, *CARRIED_CUDA, *CARRIED_NUMPY)  # fmt: skip
    return subprocess.run(command).returncode


def install_wheels(site: Path) -> dict[str, str]:
    """There: the carried wheels into ``site``, a folder of their own; the environment every command runs with."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    wheels = sorted(WHEELS.glob("*.whl")) if WHEELS.exists() else []
    if wheels:
        image = image_versions("numba-cuda", "numpy")
        unneeded = []
        if image["numba-cuda"] == CARRIED_CUDA[0].split("==")[1]:
            unneeded += CARRIED_CUDA
        if image["numpy"] and tuple(int(part) for part in image["numpy"].split(".")[:2]) < (2, 5):
            unneeded += CARRIED_NUMPY
        skipped = tuple(name.split("==")[0].replace("-", "_") + "-" for name in unneeded)
        chosen = [wheel for wheel in wheels if not wheel.name.startswith(skipped) and runs_here(wheel)]
        install = python("-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-compile", "--no-cache-dir",
                         "--target", str(site), *map(str, chosen))  # fmt: skip
        subprocess.run(install, check=True)
        print(f"installed {', '.join(w.name.split('-')[0] for w in chosen)} into {site} (the image has {image})")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), str(ROOT), env.get("PYTHONPATH")]))
    else:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def runs_here(wheel: Path) -> bool:
    """Whether this Python can install ``wheel`` (the carried ones are built for the device image's 3.12; a test
    running the steps on another Python keeps its own packages for the rest)."""
    from packaging.tags import sys_tags
    from packaging.utils import parse_wheel_filename

    return bool(set(parse_wheel_filename(wheel.name)[3]) & set(sys_tags()))


def image_versions(*names: str) -> dict[str, str | None]:
    """Versions of the image's own packages (None where absent), asked of a fresh Python before anything is
    installed beside them."""
    code = "import importlib.metadata as m, json, sys\n"
    code += (
        "def v(n):\n    try:\n        return m.version(n)\n    except m.PackageNotFoundError:\n        return None\n"
    )
    code += "print(json.dumps({n: v(n) for n in sys.argv[1:]}))"
    done = subprocess.run(python("-c", code, *names), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


STACK_PACKAGES = ["numpy", "numba", "llvmlite", "numba-cuda", "cuda-bindings", "cuda-core", "cuda-pathfinder",
                  "torch", "jax", "jaxlib", "pgx", "mctx", "gymnasium", "pettingzoo"]  # fmt: skip


def stack_report(path: Path) -> int:
    """In a process with the step's PYTHONPATH: what the machine has, printed and written to ``path``."""
    from importlib import metadata

    try:
        from crossenvs.kernels.numba_internals import CHECKED
    except Exception as exc:  # numba itself may not import there: the report says so and goes on
        print(f"crossenvs does not import: {type(exc).__name__}: {exc}")
        CHECKED = {}

    versions = {}
    for name in STACK_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    report = {"python": sys.version.split()[0], "cpu_cores": os.cpu_count(), "packages": versions,
              "checked": CHECKED, "as_checked": bool(CHECKED) and all(versions.get(d) == v for d, v in CHECKED.items())}  # fmt: skip
    smi = shutil.which("nvidia-smi")
    if smi:
        query = "--query-gpu=name,driver_version,memory.total,compute_cap,clocks.max.sm"
        done = subprocess.run([smi, query, "--format=csv,noheader"], capture_output=True, text=True)
        report["gpu"] = done.stdout.strip() or done.stderr.strip()
    report["nvvm"] = nvvm_found()
    report["numba_cuda"] = numba_cuda_ready()
    report["sanitizer"] = os.path.exists(sanitizer())
    for key, value in report.items():
        print(f"{key}: {value}")
    path.write_text(json.dumps(report, indent=1))
    return 0


def numba_cuda_ready() -> str:
    """Whether numba-cuda and crossenvs' CUDA primitives load here (no card needed): "ok", or the error."""
    try:
        from crossenvs.kernels.cuda import _import_numba_cuda

        _import_numba_cuda()
        return "ok"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def nvvm_found() -> str:
    """Which NVVM numba-cuda will compile with (a pip wheel or the toolkit's folder), and its version."""
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
        from numba.cuda.cudadrv import nvvm

        library = load_nvidia_dynamic_lib("nvvm")
        return f"{library.abs_path} ({library.found_via}), NVVM {nvvm.NVVM().get_version()}"
    except Exception as exc:  # the report goes on: the doctor will say what this means for the kernels
        return f"not found: {type(exc).__name__}: {exc}"


# ----------------------------------------------------------------------------- the benchmarks page's tables
def tables(figures: dict) -> list[str]:
    """Markdown for the benchmarks page from a call's (or several calls' merged) figures.json: the card, then the
    checks, the env rows with their ratios, the search rows beside mctx, and the core sweep."""
    out = []
    stack = next(iter(figures.get("stack", {}).values()), {})
    if stack:
        out += [f"Card: {stack.get('gpu', 'none')}; {stack.get('cpu_cores')} CPU cores; Python {stack.get('python')}; "
                + ", ".join(f"{k} {v}" for k, v in stack.get("packages", {}).items() if v) + ".", ""]  # fmt: skip
    checks = [row for part in figures.get("check", {}).values() for row in part.get("check", [])]
    if checks:
        out += ["| env check | games | steps | games ended | mismatches |", "|---|---|---|---|---|"]
        out += [f"| {r['game']} | {r['num_envs']:,} | {r['steps']} | {r['games_ended']:,} | {r['mismatches']} |"
                for r in checks]  # fmt: skip
        out.append("")
    rows = [row for part in figures.get("env", {}).values() for row in part.get("rows", [])]
    if rows:
        batches = sorted({row["batch"] for row in rows})
        out += ["| steps/s | " + " | ".join(f"B={b:,}" for b in batches) + " |", "|---" * (len(batches) + 1) + "|"]
        for name in dict.fromkeys(row["name"] for row in rows):
            rates = {row["batch"]: row["median"] for row in rows if row["name"] == name}
            out.append(f"| {name} | " + " | ".join(rate_text(rates.get(b)) for b in batches) + " |")
        ratios = [r for part in figures.get("env", {}).values() for r in part.get("ratios", [])]
        for kind in ("same game", "a different game"):
            for label in dict.fromkeys(r["row"] for r in ratios if r["kind"] == kind):
                by_batch = {r["batch"]: r for r in ratios if r["row"] == label and r["kind"] == kind}
                peer = next(iter(by_batch.values()))["peer"]
                cells = [f"{by_batch[b]['ratio']:.2f}x" if b in by_batch else "-" for b in batches]
                out.append(f"| {label} / {peer} ({kind}) | " + " | ".join(cells) + " |")
        out.append("")
    searched = [row for part in figures.get("search", {}).values() for row in part.get("search_rows", [])]
    if searched:
        out += ["| positions/s | B | median | network share |", "|---|---|---|---|"]
        for row in searched:
            share = f"{row['network_share']:.0%}" if row.get("network_share") is not None else "-"
            out.append(f"| {row['name']} | {row['batch']:,} | {rate_text(row['median'])} | {share} |")
        out.append("")
    sweep = next(iter(figures.get("cores", {}).values()), {})
    if sweep:
        cores = sorted({row["cores"] for row in sweep["results"]})
        out += ["| per second | B | " + " | ".join(f"{c} cores" for c in cores) + " | over 2 cores |",
                "|---" * (len(cores) + 3) + "|"]  # fmt: skip
        for entry in sweep["scaling"]:
            rates = {row["cores"]: row["median"] for row in sweep["results"] if row["kind"] == entry["kind"]
                     and label_of(row) == entry["game"] and row["batch"] == entry["batch"]}  # fmt: skip
            scaling = f"{entry['scaling_over_2']:.1f}x" if entry.get("scaling_over_2") else "-"
            out.append(f"| {entry['kind']} {entry['game']} | {entry['batch']:,} | "
                       + " | ".join(rate_text(rates.get(c)) for c in cores) + f" | {scaling} |")  # fmt: skip
        out.append("")
    return out


def rate_text(rate: float | None) -> str:
    """12,345,678 -> 12.3M; 45,678 -> 45.7k (the benchmarks page's way); None -> -."""
    if rate is None:
        return "-"
    return f"{rate / 1e6:.2f}M" if rate >= 1e6 else f"{rate / 1e3:.1f}k" if rate >= 1e3 else f"{rate:.0f}"


def label_of(row: dict) -> str:
    size = row.get("options", {}).get("size")
    return f"{row['game']} {size}x{size}" if size else row["game"]


# ----------------------------------------------------------------------------- main
def seconds(text: str) -> float:
    """A time on the command line: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"a number of seconds above 0, not {text!r}")
    return value


def read_figures(paths: list[Path]) -> dict:
    """Several calls' figures.json merged (a later file adds to or replaces an earlier one's commands); a file
    that is missing or not JSON is one error naming it."""
    merged: dict = {}
    for path in paths:
        try:
            found = json.loads(path.read_text())
            if not isinstance(found, dict) or not all(isinstance(part, dict) for part in found.values()):
                raise ValueError("its steps are not objects of commands")
        except (OSError, ValueError) as exc:  # JSONDecodeError is a ValueError
            raise SystemExit(f"error: --tables {path}: not a figures.json brought back by a call ({exc})") from None
        for step, commands_found in found.items():
            merged.setdefault(step, {}).update(commands_found)
    return merged


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("steps", nargs="*", metavar="STEP[:COMMAND]",
                        help=f"any of: {', '.join(STEPS)}; STEP:COMMAND runs that one command of it (search:B=4096)")  # fmt: skip
    parser.add_argument("--out", type=Path, default=None, help="where the logs and figures.json go (the run's $OUT)")
    parser.add_argument("--budget", type=seconds, default=540.0, help="seconds this call may take in all")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, for the simulator")
    parser.add_argument("--plan", action="store_true", help="print the commands and their limits, and exit")
    parser.add_argument("--fetch-wheels", action="store_true", help="here: the carried packages into .whl/")
    parser.add_argument("--tables", type=Path, nargs="+", default=None, metavar="FIGURES",
                        help="here: the benchmarks page's tables from figures.json files brought back")  # fmt: skip
    parser.add_argument("--stack-report", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    unknown = [step for step in args.steps if step.partition(":")[0] not in STEPS]
    if unknown:
        parser.error(f"no step {unknown[0]!r}; the steps: {', '.join(STEPS)}")
    if not (args.steps or args.fetch_wheels or args.stack_report or args.tables):
        parser.error("name at least one step (or --fetch-wheels)")
    steps = {step.partition(":")[0] for step in args.steps}
    if len(steps) > 7 and not args.plan:  # a log each and figures.json: the tool brings 8 files back from $OUT
        parser.error("at most 7 steps a call: the device tool brings back 8 files from $OUT")
    if args.steps and not args.plan and args.out is None:
        parser.error("--out is needed to run steps (the run's $OUT)")
    return args


def chosen_commands(steps: list[str], work: Path, smoke: bool) -> dict[str, list[Command]]:
    """The commands of each step named, in order; ``step:name`` keeps only that command of the step (one a later
    call runs again, or one a cut-short call never started)."""
    planned: dict[str, list[Command]] = {}
    for token in steps:
        step, _, name = token.partition(":")
        todo = commands(step, work, smoke)
        picked = [command for command in todo if not name or command.name == name]
        if not picked:
            names = ", ".join(f"{step}:{command.name}" for command in todo)
            print(f"error: step {step} has no command {name!r}; its commands: {names}", file=sys.stderr)
            raise SystemExit(2)
        planned.setdefault(step, []).extend(c for c in picked if c not in planned.get(step, []))
    return planned


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.stack_report:
        return stack_report(args.stack_report)
    if args.fetch_wheels:
        return fetch_wheels()
    if args.tables:
        print("\n".join(tables(read_figures(args.tables))))
        return 0
    work = (
        Path(tempfile.gettempdir()) / "crossenvs-card"
        if args.plan
        else Path(tempfile.mkdtemp(prefix="crossenvs-card-"))
    )
    planned = chosen_commands(args.steps, work, args.smoke)
    if args.plan:
        for step, todo in planned.items():
            for command in todo:
                words = [word if "\n" not in word else "'<script>'" for word in command.argv]
                print(f"plan: {step:<9} {command.name:<24} {command.timeout:>4} s  {' '.join(words)}")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    runner = Runner(args.out, args.budget, install_wheels(work / "site"))
    failed, skipped = [], []
    for step, todo in planned.items():
        codes = runner.step(todo, at_once_for(step, args.smoke))
        failed += [f"{step} {c.name}" for c, code in zip(todo, codes, strict=True) if code not in (0, None)]
        skipped += [f"{step} {c.name}" for c, code in zip(todo, codes, strict=True) if code is None]
    outcome = f"failed: {', '.join(failed)}" if failed else "no command failed"
    outcome += f"; not started (the budget): {', '.join(skipped)}" if skipped else ""
    print(f"done in {time.monotonic() - runner.started:.0f} s; {outcome}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
