"""AlphaZero on Ray (training/alphazero.py --actors N): a local run, an actor killed mid-run, the whole job
killed and resumed with its replay buffer, a simulated multi-node cluster (placement, a lost node), and
the one-line errors for a cluster that cannot be reached or is too small. Each run lasts seconds."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("ray", reason='needs the rllib extra: pip install -e ".[rllib]"')

from conftest import AZ_TINY, training_script

import crossenvs
from crossenvs.az.cluster import ClusterError, HeadWatch
from crossenvs.az.config import Config
from crossenvs.az.network import AlphaZeroNet, evaluator
from crossenvs.az.ray_actors import fresh_positions
from crossenvs.az.selfplay import SelfPlay
from crossenvs.players import make_player
from crossenvs.trainer.config import ConfigError

ROOT = Path(__file__).resolve().parent.parent
#: Ray clusters started and killed: minutes, left out of make test-fast
pytestmark = pytest.mark.slow

RAY_TINY = {**AZ_TINY, "max_minutes": 0.4, "checkpoint_minutes": 0.05, "actor_steps": 2, "publish_every": 2}


def config_file(tmp_path: Path, **changes) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(json.dumps({**RAY_TINY, **changes}))
    return path


def start(*args: str) -> subprocess.Popen:
    """The trainer in its own process group (so a test can kill the job and the Ray it started, whole)."""
    command = [sys.executable, str(ROOT / "training" / "alphazero.py"), "--no-progress", *args]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )


def read_until(process: subprocess.Popen, prefix: str, seen: list[str]) -> str:
    """Lines of the trainer's output up to the first that starts with ``prefix`` (kept in ``seen``)."""
    for line in process.stdout:
        seen.append(line)
        if line.startswith(prefix):
            return line
    raise AssertionError(f"no line starting {prefix!r} in:\n{''.join(seen)}")


def rest_of(process: subprocess.Popen) -> str:
    """The rest of the output, read through the buffer :func:`read_until` used (``communicate`` would skip it)."""
    rest = process.stdout.read()
    process.wait(timeout=60)
    return rest


def finish(process: subprocess.Popen, seen: list[str]) -> str:
    text = "".join(seen) + rest_of(process)
    assert process.returncode == 0, text
    return text


def actor_places(line: str) -> list[tuple[str, int]]:
    """From 'actors: 0 on node ab12 (pid 7), 1 on node cd34 (pid 8)': [(node, pid), ...]."""
    places = []
    for part in line.removeprefix("actors:").split(","):
        node = part.split(" on node ")[1].split()[0]
        places.append((node, int(part.split("(pid ")[1].rstrip(")\n "))))
    return places


def test_two_actors_train_survive_a_killed_actor_and_leave_the_usual_run_folder(tmp_path):
    run_dir = tmp_path / "run"
    # 36 s of self-play, the kill 3 s in: the restarted actor (a fresh process that imports torch and loads
    # its kernels) has half a minute to answer, which a loaded CI machine needed (24 s with the kill at 6 s
    # once fell short)
    config = config_file(tmp_path, max_minutes=0.6)
    process, seen = start("--config", str(config), "--actors", "2", "--run-dir", str(run_dir)), []
    places = actor_places(read_until(process, "actors:", seen))
    assert len(places) == 2
    time.sleep(3)  # mid-run
    os.kill(places[0][1], signal.SIGKILL)
    text = finish(process, seen)
    assert "actor 0 died" in text and "Ray restarts it and the run goes on" in text
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["actors"] == 2 and summary["actor_deaths"] >= 1 and summary["actor_comebacks"] >= 1
    assert summary["positions"] > 0 and summary["updates"] > 0 and summary["positions_received"] > 0
    assert summary["newest_version_played"] > 0  # weights the learner published after its first reached an actor
    assert summary["stale_positions"] == 0  # no game is max_policy_lag (1000) updates old in a run this short
    checkpoints = run_dir / "checkpoints"
    assert (checkpoints / "final.pt").exists() and list(checkpoints.glob("seconds_*.pt"))
    latest = torch.load(checkpoints / "latest.pt", weights_only=True)
    assert len(latest["replay"]["results"]) > 0 and "optimizer" in latest
    game = crossenvs.make_game("crisscross", size=4)
    player = make_player(f"az:{checkpoints / 'final.pt'}:4", game=game)
    assert game.legal_mask(game.initial_state())[player.act(game, game.initial_state())]


def test_a_job_killed_whole_resumes_on_actors_with_its_replay_buffer(tmp_path):
    run_dir = tmp_path / "run"
    process, seen = start("--config", str(config_file(tmp_path)), "--actors", "2", "--run-dir", str(run_dir)), []
    read_until(process, "actors:", seen)
    latest = run_dir / "checkpoints" / "latest.pt"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (
        latest.exists() and len(torch.load(latest, weights_only=True)["replay"]["results"])
    ):
        time.sleep(1)
    os.killpg(process.pid, signal.SIGKILL)  # the learner and the Ray it started
    process.communicate(timeout=60)
    before = torch.load(latest, weights_only=True)["counters"]
    resumed, seen = start("--resume", str(run_dir), "--actors", "2", "--max-minutes", "0.15"), []
    text = finish(resumed, seen)
    assert f"resuming {run_dir} from latest.pt" in text
    restored = [line for line in text.splitlines() if line.startswith("replay buffer restored:")]
    assert restored and int(restored[0].split(":")[1].split()[0].replace(",", "")) > 0, text
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["positions"] > before["positions"] and summary["updates"] > before["updates"]


def test_an_actor_past_its_restarts_stops_the_run_in_one_line_with_latest_saved(tmp_path):
    run_dir = tmp_path / "run"
    config = config_file(tmp_path, actor_restarts=0, max_minutes=1.0)
    process, seen = start("--config", str(config), "--actors", "2", "--run-dir", str(run_dir)), []
    places = actor_places(read_until(process, "actors:", seen))
    time.sleep(6)
    os.kill(places[1][1], signal.SIGKILL)
    out = rest_of(process)
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert process.returncode == 2 and len(errors) == 1, out
    assert errors[0].startswith("error: actor 1 is dead and Ray restarts it no more")
    assert errors[0].endswith(f"latest.pt is saved: continue with --resume {run_dir} --actors 2")
    assert len(torch.load(run_dir / "checkpoints" / "latest.pt", weights_only=True)["replay"]["results"]) > 0
    assert not (run_dir / "summary.json").exists()


def test_positions_of_games_begun_too_many_updates_ago_are_dropped_whole():
    tags = np.array([90, 90, 90, 97, 97, 100])
    keep, lags = fresh_positions(tags, updates=100, max_lag=8)
    assert keep.tolist() == [False, False, False, True, True, True] and lags.tolist() == [3, 3, 0]


def test_a_finished_game_is_tagged_with_the_oldest_weights_that_searched_it():
    config = Config(**{**AZ_TINY, "num_envs": 4})
    selfplay = SelfPlay(config, np.random.default_rng(0))
    game = selfplay.game
    net = AlphaZeroNet(game.observation_shape, game.num_actions, config.channels, config.blocks).eval()
    evaluate = evaluator(net, "cpu", "float32")
    finished = [selfplay.step(evaluate, tag=step) for step in range(40)]
    ended = [part for part in finished if len(part.tags)]
    assert ended and sum(part.ended for part in finished) >= 4
    for part in ended:
        assert set(part.tags) <= set(range(40)) and len(part.tags) == len(part.results)
    # the first games to end began at step 0, so every one of their positions carries tag 0
    assert set(ended[0].tags) == {0}


def test_a_policy_lag_below_the_publishing_interval_is_refused():
    with pytest.raises(ConfigError, match="'max_policy_lag' \\(2\\) must be at least 'publish_every' \\(8\\)"):
        Config(**{**AZ_TINY, "max_policy_lag": 2, "publish_every": 8}).check("tiny.yaml")


def test_a_simulated_cluster_spreads_the_actors_and_survives_a_lost_node(tmp_path):
    from ray.cluster_utils import Cluster

    # the head notices a lost node within about a second (Ray's default health checks take 15 s or more)
    quick = {"health_check_initial_delay_ms": 500, "health_check_period_ms": 500, "health_check_timeout_ms": 500,
             "health_check_failure_threshold": 2}  # fmt: skip
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "_system_config": quick})
    try:
        workers = [cluster.add_node(num_cpus=1) for _ in range(3)]
        cluster.wait_for_nodes()
        refused = tmp_path / "refused"
        too_many = start(
            "--config", str(config_file(tmp_path)), "--actors", "4", "--address", cluster.address, "--run-dir", str(refused)
        )  # fmt: skip
        out, _ = too_many.communicate(timeout=120)
        assert too_many.returncode == 2 and "has 3 free CPUs; --actors 4 needs one each" in out, out
        assert not refused.exists()

        run_dir = tmp_path / "run"
        # the lost actor restarts on another node and answers within about 10 s
        config = config_file(tmp_path, max_minutes=0.5)
        flags = ("--config", str(config), "--actors", "2", "--address", cluster.address, "--run-dir", str(run_dir))
        process, seen = start(*flags), []
        places = actor_places(read_until(process, "actors:", seen))
        assert len({node for node, _ in places}) == 2  # spread over two nodes
        time.sleep(6)
        cluster.remove_node(next(w for w in workers if w.node_id.startswith(places[0][0])))
        text = finish(process, seen)
        assert "of its 4 node(s)" in text and "actor 0 died" in text, text
        summary = json.loads((run_dir / "summary.json").read_text())
        assert summary["actor_nodes"] == 2 and summary["actor_deaths"] >= 1 and summary["actor_comebacks"] >= 1
    finally:
        cluster.shutdown()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--actors", "1", "--address", "127.0.0.1:1"], "error: cannot reach the Ray cluster at 127.0.0.1:1: "),
        (["--actors", "1", "--address", "head-node"], "error: --address must be host:port of a Ray head node"),
        (
            ["--actors", "1", "--address", "ray://h:10001"],
            "error: --address ray://h:10001: Ray Client addresses are not",
        ),
        (["--address", "127.0.0.1:6379"], "error: --address 127.0.0.1:6379 is for Ray self-play: add --actors N"),
        (["--actors", "-2"], "error: --actors must be at least 1, got -2"),
    ],
)
def test_a_cluster_that_cannot_be_used_is_one_line_before_any_folder(tmp_path, flags, message, capsys):
    """Checked before Ray starts (an address that does not answer within seconds included), so the trainer runs in
    this process: a subprocess would import torch and Ray again, seconds a case."""
    run_dir = tmp_path / "run"
    code = training_script("alphazero").main(
        ["--no-progress", "--config", str(config_file(tmp_path)), "--run-dir", str(run_dir), *flags]
    )
    printed = capsys.readouterr()
    out = printed.out + printed.err
    assert code == 2 and out.startswith(message) and len(out.strip().splitlines()) == 1, out
    assert not run_dir.exists()


def test_the_head_watch_notices_a_head_node_that_stops_answering():
    listener = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    watch = HeadWatch(address, every=0)
    watch.check()  # answers: nothing happens
    listener.close()
    with pytest.raises(ClusterError, match=f"the head node {address} does not answer"):
        watch.check()
