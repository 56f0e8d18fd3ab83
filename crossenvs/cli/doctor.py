"""``crossenvs doctor``: what a GPU user runs first. The stack, then every game on the card, one line each.

For every setup, in a process of its own (a CUDA error is sticky: it kills its process, and must not
hide the next game's result), several at once on the machine's cores, each stopped after ``--timeout``
seconds (a hung kernel must not spend a whole session): the device env compiled and
launched, random games stepped, the device env compared with the CPU env move for move on a sample of
games, a step timed with CUDA events, each kernel's registers and local memory as the card reports
them; then the device search on a small batch compared with the CPU search. Exit status 1 on any
failure, or where there is no GPU (one line says why). Each setup's line is printed when it ends, with
its wall seconds, so a run cut short still shows what it found. Where a card refuses a second CUDA context
(exclusive-process compute mode, a small MIG slice), the setups it refused run again one at a time. Under numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``) it runs the same code as Python, slowly: the tests run it so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any, TextIO

from crossenvs.support.command_args import check_int_range

from ..core.options import parse_options
from ..core.registry import make_game
from ..kernels.cuda import CudaUnavailableError, cuda_module, simulated
from .common import Command, canonical_game

#: the setups checked by default: every built-in game, and Crisscross at the largest size it is benchmarked at
SETUPS = ("crisscross", "crisscross:size=11", "charing_cross", "crosse", "crossings", "neo_crossings")
#: seconds a setup's process may take (compiling every kernel for the card included) before it is stopped
DEFAULT_TIMEOUT = 300
#: what a worker says when the card would not give it a context beside the others' (exclusive-process mode, MIG)
REFUSED_CONTEXT = ("CUDA_ERROR_DEVICE_UNAVAILABLE", "busy or unavailable", "CUDA_ERROR_OUT_OF_MEMORY", "out of memory")


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games",
        nargs="*",
        default=list(SETUPS),
        metavar="GAME[:KEY=VALUE,...]",
        help="setups to check (default: every game, and crisscross:size=11)",
    )
    parser.add_argument("--envs", type=int, default=1024, help="games the device env steps at random")
    parser.add_argument("--steps", type=int, default=64, help="random steps of those games, and of the comparison")
    parser.add_argument("--compare", type=int, default=64, help="games compared with the CPU env, step by step")
    parser.add_argument("--trees", type=int, default=8, help="positions of the device search compared with the CPU's")
    parser.add_argument("--simulations", type=int, default=8, help="simulations of those searches")
    parser.add_argument(
        "--jobs", type=int, default=0, help="processes at once (default: one per setup, up to the cores)"
    )
    parser.add_argument(
        "--timeout", type=int, default=DEFAULT_TIMEOUT, help="seconds a setup may take before it is stopped"
    )


def check(args: argparse.Namespace) -> None:
    check_int_range(args.envs, "--envs", 1, 1 << 20)
    check_int_range(args.steps, "--steps", 1, 100_000)
    check_int_range(args.compare, "--compare", 1, 1 << 20)
    check_int_range(args.trees, "--trees", 1, 1 << 16)
    check_int_range(args.simulations, "--simulations", 1, 1024)
    check_int_range(args.jobs, "--jobs", 0, 1024)
    check_int_range(args.timeout, "--timeout", 1, 24 * 3600)
    for setup in args.games:
        _parse_setup(setup)


def _parse_setup(text: str) -> tuple[str, dict[str, Any]]:
    """``crisscross:size=11`` -> ("crisscross", {"size": 11}); the game is checked to exist."""
    name, _, options = text.partition(":")
    parsed = parse_options([part for part in options.split(",") if part])
    name = canonical_game(name)
    make_game(name, **parsed)  # refuses an unknown option now, not in a worker
    return name, parsed


# ----------------------------------------------------------------------------- the stack
def stack_lines() -> list[str]:
    """The card, the driver, CUDA and the libraries: what a report of a GPU problem starts with."""
    from importlib import metadata

    from ..kernels.cuda import driver_version, toolkit_version

    cuda = cuda_module()  # raises CudaUnavailableError with what is missing
    versions = {name: _version(metadata, name) for name in ("numba", "numba-cuda", "torch")}
    toolkit = toolkit_version()
    lines = []
    if simulated():
        lines.append("card: none, numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): the kernels run as Python")
    else:
        device = cuda.get_current_device()
        name = device.name.decode() if isinstance(device.name, bytes) else device.name
        major, minor = device.compute_capability
        driver = driver_version(cuda)
        lines.append(
            f"card: {name}, compute capability {major}.{minor}, driver {_driver_release()} (CUDA {driver[0]}.{driver[1]})"
        )
        cuda.close()  # this process's context let go: in exclusive-process mode it would refuse every worker
    lines.append(
        f"CUDA toolkit (NVVM) {'.'.join(map(str, toolkit)) if toolkit else 'not a pip wheel'}; "
        + ", ".join(f"{name} {version}" for name, version in versions.items())
    )
    return lines


def _version(metadata: Any, name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def _driver_release() -> str:
    """The driver's own release number (nvidia-smi's), or "?" where nvidia-smi is missing."""
    try:
        done = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        return done.stdout.strip().splitlines()[0] if done.returncode == 0 and done.stdout.strip() else "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


# ----------------------------------------------------------------------------- one setup, in its own process
@dataclass
class SetupResult:
    """What one setup's process found (``error``: why it stopped, if it did)."""

    setup: str
    compile_seconds: float | None = None
    step_microseconds: float | None = None
    env_mismatches: int | None = None
    search_mismatches: int | None = None
    registers: int | None = None
    local_bytes: int | None = None
    first_mismatch: str | None = None
    error: str | None = None
    seconds: float | None = None  # the setup's process, wall time

    @property
    def ok(self) -> bool:
        return self.error is None and self.env_mismatches == 0 and self.search_mismatches == 0

    @property
    def context_refused(self) -> bool:
        """Whether it stopped because the card gave its process no context (or no memory) beside the others'."""
        return self.error is not None and any(sign in self.error for sign in REFUSED_CONTEXT)


def probe_setup(name: str, options: dict[str, Any], envs: int, steps: int, compare: int, trees: int,
                simulations: int) -> SetupResult:  # fmt: skip
    """Everything ``doctor`` does for one setup, in this process (see the module docstring)."""
    from ..envs.vector import CrossVectorEnv
    from ..selfcheck import check_device_env, check_device_search, game_label

    game = make_game(name, **options)
    result = SetupResult(game_label(game))
    try:
        started = time.perf_counter()
        env = CrossVectorEnv(game, envs, device="cuda")  # compiles and launches the reset kernel
        env.step(env.random_actions())  # and the other two
        _synchronize()
        result.compile_seconds = time.perf_counter() - started
        for _ in range(steps):
            env.step(env.random_actions())
        result.step_microseconds = _timed_step(env)
        result.registers, result.local_bytes = _kernel_resources(env.compiled_kernels())
        report = check_device_env(game, num_envs=compare, steps=steps, seed=0)
        result.env_mismatches, result.first_mismatch = report.mismatches, report.first_mismatch
        searched = check_device_search(game, positions=trees, simulations=simulations, searches=2, seed=0)
        result.search_mismatches = searched.action_mismatches + searched.root_observation_mismatches
        result.search_mismatches += int(searched.max_policy_gap > 0) + int(searched.max_value_gap > 0)
        result.first_mismatch = result.first_mismatch or searched.first_mismatch
    except Exception as exc:  # a sticky CUDA error, a refused kernel: the line says so, the next setup goes on
        result.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
    return result


def _synchronize() -> None:
    if not simulated():
        import torch

        torch.cuda.synchronize()


def _timed_step(env: Any, repeats: int = 20) -> float:
    """Microseconds of device time of one random pick and one step (CUDA events around ``repeats`` of them)."""
    if simulated():
        started = time.perf_counter()
        env.step(env.random_actions())
        return (time.perf_counter() - started) * 1e6
    import torch

    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    begin.record()
    for _ in range(repeats):
        env.step(env.random_actions())
    end.record()
    end.synchronize()
    return begin.elapsed_time(end) * 1000.0 / repeats


def _kernel_resources(kernels: Any) -> tuple[int | None, int | None]:
    """The most registers and local memory a thread of any of the env's kernels takes, as the card reports."""
    registers, local = [], []
    for kernel in kernels:
        for counts, out in ((getattr(kernel, "get_regs_per_thread", None), registers),
                            (getattr(kernel, "get_local_mem_per_thread", None), local)):  # fmt: skip
            if counts is not None:
                values = counts()
                out.extend(values.values() if isinstance(values, dict) else [values])
    return (max(registers) if registers else None), (max(local) if local else None)


WORKER = """
import json, sys
from crossenvs.cli.doctor import probe_setup
result = probe_setup(*json.loads(sys.argv[1]))
print("DOCTOR " + json.dumps(result.__dict__))
"""


def _run_worker(setup: str, args: argparse.Namespace) -> SetupResult:
    """One setup in a process of its own, stopped after ``args.timeout`` seconds; never raises."""
    started = time.perf_counter()
    result = _worker_result(setup, args)
    result.seconds = time.perf_counter() - started
    return result


def _worker_result(setup: str, args: argparse.Namespace) -> SetupResult:
    name, options = _parse_setup(setup)
    payload = json.dumps([name, options, args.envs, args.steps, args.compare, args.trees, args.simulations])
    try:
        done = subprocess.run(
            [sys.executable, "-c", WORKER, payload],
            capture_output=True,
            text=True,
            env=os.environ.copy(),
            timeout=args.timeout,
        )
    except subprocess.TimeoutExpired:  # subprocess.run has killed it
        return SetupResult(setup, error=f"timed out after {args.timeout} s (stopped; --timeout gives it longer)")
    except OSError as exc:
        return SetupResult(setup, error=f"could not start its process: {exc}"[:300])
    for line in done.stdout.splitlines():
        if line.startswith("DOCTOR "):
            return SetupResult(**json.loads(line[len("DOCTOR ") :]))
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return SetupResult(setup, error=f"the process ended with status {done.returncode}: {tail}"[:300])


# ----------------------------------------------------------------------------- the table
def _cell(value: Any, text: str) -> str:
    return "-" if value is None else text.format(value)


HEADER = (
    f"{'setup':<22}{'s':>6}{'compile s':>10}{'step us':>10}{'env diff':>9}{'search diff':>12}{'regs':>6}"
    f"{'local B':>8}  result"
)


def row(r: SetupResult) -> str:
    """One setup's line of the table: its wall seconds, its figures, and ok or what went wrong."""
    verdict = "ok" if r.ok else (r.error or r.first_mismatch or "mismatch")
    return (
        f"{r.setup:<22}{_cell(r.seconds, '{:.0f}'):>6}{_cell(r.compile_seconds, '{:.1f}'):>10}"
        f"{_cell(r.step_microseconds, '{:.0f}'):>10}{_cell(r.env_mismatches, '{}'):>9}"
        f"{_cell(r.search_mismatches, '{}'):>12}{_cell(r.registers, '{}'):>6}{_cell(r.local_bytes, '{}'):>8}  {verdict}"
    )


def table(results: list[SetupResult]) -> list[str]:
    return [HEADER, *(row(result) for result in results)]


def check_setups(setups: list[str], args: argparse.Namespace, jobs: int, out: TextIO) -> dict[str, SetupResult]:
    """Each setup in a process of its own, ``jobs`` at a time; each line printed as its setup ends. With several
    at a time, a setup refused a context is not printed: the caller runs it again alone."""
    results: dict[str, SetupResult] = {}
    with ThreadPoolExecutor(jobs) as pool:
        running = {pool.submit(_run_worker, setup, args): setup for setup in setups}
        for finished in as_completed(running):
            result = results[running[finished]] = finished.result()
            if jobs == 1 or not result.context_refused:
                out.write(row(result) + "\n")
                out.flush()
    return results


def run(args: argparse.Namespace, out: TextIO, source: TextIO) -> int:
    """The stack, then one line per setup; 1 when anything failed or there is no GPU."""
    try:
        lines = stack_lines()
    except CudaUnavailableError as exc:
        out.write(f"the GPU path cannot run here: {exc}\n")
        return 1
    out.writelines(line + "\n" for line in lines)
    jobs = args.jobs or max(1, min(len(args.games), os.cpu_count() or 1))
    out.write(f"checking {len(args.games)} setups, {jobs} at a time (a process each, {args.timeout} s at most)...\n")
    out.write(HEADER + "\n")
    out.flush()
    started = time.perf_counter()
    found = check_setups(list(args.games), args, jobs, out)
    refused = [setup for setup, result in found.items() if jobs > 1 and result.context_refused]
    if refused:
        out.write(
            f"{len(refused)} setups were refused a CUDA context beside the others (exclusive-process mode, MIG or "
            "memory): again, one at a time\n"
        )
        found.update(check_setups(refused, args, 1, out))
    results = [found[setup] for setup in args.games]
    failed = sum(not result.ok for result in results)
    out.write(f"{len(results) - failed} of {len(results)} setups passed in {time.perf_counter() - started:.0f} s\n")
    return 1 if failed else 0


COMMAND = Command(
    "doctor",
    "check the GPU path here: the stack, then every game compiled, run and compared with the CPU",
    "crossenvs doctor --games crossings crisscross:size=11",
    arguments,
    run,
    check,
)
