"""examples/tutorial.ipynb runs from top to bottom (its quick mode: a few seconds of training)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "examples" / "tutorial.ipynb"


@pytest.mark.slow
def test_tutorial_notebook_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat", reason='the dev extra: pip install -e ".[dev]"')
    nbclient = pytest.importorskip("nbclient", reason='the dev extra: pip install -e ".[dev]"')
    pytest.importorskip("ipykernel", reason='the dev extra: pip install -e ".[dev]"')
    pytest.importorskip("sb3_contrib", reason='the train extra: pip install -e ".[train]"')
    monkeypatch.setenv("CROSSENVS_TUTORIAL_QUICK", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code"), "commit it cleared"
    nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = "".join(
        output.get("text", "") + str(output.get("data", {}).get("text/plain", ""))
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert "quick run" in outputs and "steps/s" in outputs
    for name in ("ppo", "random", "greedy", "mcts50"):
        assert name in outputs
    images = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert images, "the last cell shows the board as an image"
