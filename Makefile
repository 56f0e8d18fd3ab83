# Two commands do everything on a fresh machine: `make test` (and later `make train`).
# Each creates .venv when it is missing and installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# torch first, pinned: a loose torch requirement would pull several GB of CUDA wheels.
TORCH  := torch==2.13.0
STAMP  := $(VENV)/.installed

.PHONY: test bench venv clean clean-numba

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install $(TORCH)
	$(BIN)/pip install -e ".[train,bench,dev]"
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py

# numba's on-disk cache is keyed on the file of each compiled function only: after editing a
# shared kernel (crossenvs/core, games/phalanx.py), clear it so callers in other files recompile.
clean-numba:
	find crossenvs -name '*.nbi' -delete -o -name '*.nbc' -delete

clean: clean-numba
	rm -rf $(VENV) build *.egg-info
