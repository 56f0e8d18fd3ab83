"""crossenvs.checkpoints: every bad checkpoint is one CheckpointError saying what is wrong and what would be right."""

from __future__ import annotations

import base64
import json
import pickle
import re
import subprocess
import sys
import warnings
import zipfile

import pytest
import torch

from crossenvs import CheckpointError, make_game
from crossenvs import checkpoints as ck
from crossenvs.az.network import AlphaZeroNet
from crossenvs.players import make_player, register_player_kind
from crossenvs.players import specs as player_specs
from crossenvs.support.extras import MissingExtraError


@pytest.fixture
def tictactoe_checkpoint(tmp_path):
    game = make_game("tictactoe")
    net = AlphaZeroNet(game.observation_shape, game.num_actions, channels=8, blocks=1)
    return game, ck.save_alphazero(tmp_path / "net.pt", net, game)


class RecordedNet(AlphaZeroNet):
    """AlphaZeroNet that notes the channels and the device of every network built from a checkpoint's sizes."""

    built: list[tuple[int, str]] = []

    @classmethod
    def from_sizes(cls, sizes):
        net = super().from_sizes(sizes)
        cls.built.append((sizes["channels"], next(net.parameters()).device.type))
        return net


def test_a_small_file_declaring_a_huge_network_fails_before_anything_is_allocated(tictactoe_checkpoint, tmp_path):
    """A 6,000-channel network alone would take gigabytes: the sizes are refused before any network is built, and
    sane sizes that the weights do not fit are caught on a network without storage (the meta device)."""
    _, path = tictactoe_checkpoint
    document = torch.load(path, weights_only=True)
    for channels, built in ((6000, []), (64, [(64, "meta")])):  # past the limit; within it, not the weights'
        document["sizes"] = {**document["sizes"], "channels": channels}
        crafted = tmp_path / f"crafted{channels}.pt"
        torch.save(document, crafted)
        RecordedNet.built = []
        with pytest.raises(CheckpointError, match="channels 6000" if channels == 6000 else "has shape"):
            ck.load_alphazero(crafted, RecordedNet)
        assert RecordedNet.built == built


def test_missing_corrupt_and_wrong_game_checkpoints(tictactoe_checkpoint, tmp_path):
    game, path = tictactoe_checkpoint
    net, document = ck.load_alphazero(path, AlphaZeroNet, game)
    assert document["game"] == "tictactoe" and not net.training
    with pytest.raises(CheckpointError, match="does not exist"):
        ck.load_alphazero(tmp_path / "missing.pt", AlphaZeroNet)
    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="corrupt or unreadable"):
        ck.load_alphazero(tmp_path / "bad.pt", AlphaZeroNet)
    with pytest.raises(CheckpointError, match=r"trained on tictactoe .*, not crisscross"):
        ck.load_alphazero(path, AlphaZeroNet, make_game("crisscross", size=3))
    torch.save({"sizes": {}}, tmp_path / "keyless.pt")
    with pytest.raises(CheckpointError, match="not game, options, sizes, state_dict"):
        ck.load_alphazero(tmp_path / "keyless.pt", AlphaZeroNet)


def test_a_checkpoint_of_other_options_on_the_same_board_is_refused(tmp_path):
    """Crosse with move_cap=150 has default Crosse's board, observation and actions, so only the recorded
    options tell the two apart: loading one into the other is refused; the defaults spelt out are the same game."""
    capped = make_game("crosse", move_cap=150)
    net = AlphaZeroNet(capped.observation_shape, capped.num_actions, channels=8, blocks=1)
    path = ck.save_alphazero(tmp_path / "capped.pt", net, capped)
    assert capped.observation_shape == make_game("crosse").observation_shape
    with pytest.raises(
        CheckpointError, match=r"trained on crosse \{.*'move_cap': 150\}, not crosse \{.*'move_cap': 600\}"
    ):
        ck.load_alphazero(path, AlphaZeroNet, make_game("crosse"))
    ck.load_alphazero(path, AlphaZeroNet, make_game("crosse", move_cap=150))
    default = ck.save_alphazero(tmp_path / "default.pt", net, make_game("crosse"))
    ck.load_alphazero(default, AlphaZeroNet, make_game("crosse", move_cap=600))  # 600 is the default, spelt out


def test_a_bare_pt_where_a_zip_is_expected_hints_az(tictactoe_checkpoint):
    game, path = tictactoe_checkpoint
    assert ck.detect_kind(path) == ck.ALPHAZERO and ck.spec_for(path) == f"az:{path}"
    with pytest.raises(CheckpointError, match=re.escape(f"play it as az:{path}")):
        make_player(str(path), game)
    with pytest.raises(CheckpointError, match="play it as az:"):
        ck.load_sb3(path)


def test_a_folder_that_is_not_an_rllib_checkpoint(tmp_path):
    (tmp_path / "run").mkdir()
    with pytest.raises(CheckpointError, match="is no RLlib checkpoint"):
        ck.detect_kind(tmp_path / "run")
    with pytest.raises(CheckpointError, match="has no checkpoints yet"):
        (tmp_path / "run" / ck.CHECKPOINTS).mkdir()
        ck.rllib_module_folder(tmp_path / "run")
    with pytest.raises(CheckpointError, match="is a folder: an RLlib checkpoint plays as rllib:"):
        ck.load_sb3(tmp_path / "run")


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"options": {}}', '{"game": "crosse", "options": 3}'])
def test_a_corrupt_or_keyless_crossenvs_json_is_a_checkpoint_error(tmp_path, text):
    folder = tmp_path / "iter_000001" / "learner_group" / "learner" / "rl_module" / "main"
    folder.mkdir(parents=True)
    (folder / ck.RLLIB_MODULE_FILE).write_bytes(b"")
    (tmp_path / "iter_000001" / ck.RLLIB_METADATA).write_text(text)
    with pytest.raises(CheckpointError, match=r"crossenvs\.json is corrupt"):
        ck.rllib_module_folder(tmp_path / "iter_000001")


def test_a_good_crossenvs_json_is_read(tmp_path):
    folder = tmp_path / "iter_000001" / "main"
    folder.mkdir(parents=True)
    (folder / ck.RLLIB_MODULE_FILE).write_bytes(b"")
    (tmp_path / "iter_000001" / ck.RLLIB_METADATA).write_text(json.dumps({"game": "crosse", "options": {}}))
    found, metadata = ck.rllib_module_folder(tmp_path / "iter_000001")
    assert found == folder and metadata["game"] == "crosse" and ck.detect_kind(tmp_path / "iter_000001") == ck.RLLIB


def test_the_trainers_file_names():
    assert ck.az_snapshot_name(299.6) == "seconds_000300.pt" and ck.az_snapshot_seconds("seconds_000300.pt") == 300
    assert ck.az_snapshot_seconds(ck.AZ_FINAL) == float("inf")
    assert ck.sb3_step_name(5) == "step_5.zip" and ck.sb3_step_name(5, ".json") == "step_5.json"
    assert ck.rllib_iteration_name(7) == "iter_000007"


def test_a_kind_whose_extra_is_missing_names_the_extra():
    register_player_kind("absent", "crossenvs_absent_dependency_xyz:from_spec", extra="agents")
    try:
        with pytest.raises(MissingExtraError, match=r'pip install -e "\.\[agents\]"'):
            make_player("absent")
    finally:
        del player_specs._KINDS["absent"]


def cnn_zip_naming(tmp_path, module: str):
    """A MaskablePPO .zip with the CNN policy whose pickled ``policy_kwargs`` name BoardCNN in ``module``, as
    stable-baselines3 wrote the files of runs from when the class lived there (pickle's text protocol names a
    class as a line ``c<module>\\n<name>``, so the name can be set without a class living there)."""
    gymnasium = pytest.importorskip("gymnasium")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = gymnasium.make("crossenvs/Crisscross-v0", size=4)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, policy_kwargs=ck.ppo_policy_kwargs("cnn", 16), n_steps=32, device="cpu"
    )
    path = tmp_path / "old.zip"
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(entries["data"])
    pickled = pickle.dumps(ck.ppo_policy_kwargs("cnn", 16), protocol=0)
    now = b"ccrossenvs.checkpoints.board_cnn\nBoardCNN\n"
    assert now in pickled
    data["policy_kwargs"][":serialized:"] = base64.b64encode(
        pickled.replace(now, f"c{module}\nBoardCNN\n".encode())
    ).decode()
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return path


@pytest.mark.parametrize("module", ["crossenvs.checkpoints", "crossenvs.az.board_cnn"])
def test_maskableppo_files_that_name_the_cnn_where_it_was_still_load(tmp_path, module, monkeypatch):
    """stable-baselines3 pickles policy_kwargs with cloudpickle, which saves BoardCNN by reference (module and
    name): older runs' files name crossenvs.checkpoints, newer ones crossenvs.az.board_cnn, and the CNN lives in
    crossenvs.checkpoints.board_cnn now. The unpickling reader finds it there, by its table of moved classes."""
    from crossenvs.checkpoints.board_cnn import BoardCNN

    path = cnn_zip_naming(tmp_path, module)
    model = ck.load_sb3(path, allow_pickle=True)
    assert type(model.policy.features_extractor) is BoardCNN
    monkeypatch.setattr(ck.sb3, "MOVED_CLASSES", {})  # without the table, such a file is unreadable
    with pytest.raises(CheckpointError, match="corrupt or unreadable"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # stable-baselines3's own warning about the object it could not read
        ck.load_sb3(path, allow_pickle=True)


def test_new_maskableppo_files_name_the_cnn_where_it_lives():
    cloudpickle = pytest.importorskip("cloudpickle")
    pytest.importorskip("stable_baselines3")
    from crossenvs.checkpoints.board_cnn import BoardCNN

    written = cloudpickle.dumps(ck.ppo_policy_kwargs("cnn", 16))
    assert (
        b"crossenvs.checkpoints.board_cnn" in written and pickle.loads(written)["features_extractor_class"] is BoardCNN
    )


def test_reading_the_package_imports_no_torch_or_stable_baselines3():
    code = "import sys, crossenvs.checkpoints; sys.exit(bool({'torch', 'stable_baselines3'} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_a_damaged_checkpoint_is_said_to_be_damaged_not_what_the_unpickler_tripped_on(tmp_path):
    """Was: '(IndexError: pop from empty list)', words about the unpickler's stack, not the file."""
    import zipfile

    from crossenvs import agents

    source = agents.path("crisscross", size=6)
    damaged = tmp_path / "damaged.pt"
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(damaged, "w") as copy:
        for item in original.infolist():
            data = original.read(item)
            copy.writestr(item, b"\x80\x02." if item.filename.endswith("data.pkl") else data)  # STOP, stack empty
    with pytest.raises(CheckpointError) as refused:
        make_player(f"az:{damaged}", game=make_game("crisscross", size=6))
    message = str(refused.value)
    assert "its data is damaged or cut short" in message and "pop from empty list" not in message, message
