# Two commands do everything on a fresh machine: `make test` and `make train`.
# Each creates .venv when it is missing and installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# torch first, pinned: a loose torch requirement would pull several GB of CUDA wheels.
TORCH  := torch==2.13.0
STAMP  := $(VENV)/.installed
# numba's disk cache only notices edits to the file of the function it compiled, not to the
# shared kernels that function calls: clear it whenever any package source has changed.
NUMBA_STAMP := $(VENV)/.numba-sources
SOURCES := $(shell find crossenvs -name '*.py')

.PHONY: lint test train bench train-bench venv clean clean-numba

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install $(TORCH)
	$(BIN)/pip install -e ".[train,eval,bench,dev]"
	touch $(STAMP)

$(NUMBA_STAMP): $(SOURCES) | $(STAMP)
	find crossenvs -name '*.nbi' -delete -o -name '*.nbc' -delete
	touch $(NUMBA_STAMP)

test: $(STAMP) $(NUMBA_STAMP) lint
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The main job: self-play MaskablePPO on Crisscross 6x6 (about 3 minutes on an idle 2-core CPU, 8 at most), then
# the win rate of the final checkpoint against the random policy (200 games, both seats).
train: $(STAMP) $(NUMBA_STAMP)
	$(BIN)/python training/selfplay.py --config configs/crisscross.yaml

bench: $(STAMP) $(NUMBA_STAMP)
	$(BIN)/python benchmarks/bench.py

train-bench: $(STAMP) $(NUMBA_STAMP)
	$(BIN)/python benchmarks/train_speed.py

# By hand (make test and make bench do it when a source has changed).
clean-numba:
	find crossenvs -name '*.nbi' -delete -o -name '*.nbc' -delete

clean: clean-numba
	rm -rf $(VENV) build *.egg-info
