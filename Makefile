# Two commands do everything on a fresh machine: `make test` and `make train`.
# Each creates .venv when it is missing and installs what it needs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# torch first, pinned: a loose torch requirement would pull several GB of CUDA wheels.
TORCH  := torch==2.13.0
STAMP  := $(VENV)/.installed

.PHONY: lint test test-fast mutants train train-ppo bench train-bench venv clean clean-cache chromium xvfb docs docs-serve

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install $(TORCH)
	$(BIN)/pip install -e ".[train,eval,bench,dev,web,rllib,openspiel,torchrl,docs,cuda,solver,window,export]"
	touch $(STAMP)

# pytest also builds the docs site with warnings as errors and runs its code blocks
# (tests/test_docs.py), builds and installs the wheel (tests/test_wheel.py) and runs the tutorial notebook.
# Two workers (pytest-xdist), each test file on one of them (--dist loadfile: a file's fixtures and
# compiled kernels stay in one process), the longest files first (tests/conftest.py LONG_FILES; xdist would
# sort them by their number of tests); TEST_WORKERS=0 runs the suite in this process.
TEST_WORKERS ?= 2
test: $(STAMP) lint chromium xvfb
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The inner loop: the suite but for its slow tests (marked slow: Ray clusters, the simulator, cold-cache
# compiles, the compiled-code checks, training runs), the browser, the docs site and the wheel.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not slow and not browser and not docs and not wheel"

# Mutation testing (docs/contributing.md): each mutant of a reward, value, mask, action-id, seat or
# outcome path, patched in memory, must fail a fast test; prints the table mutant / killed by.
mutants: $(STAMP)
	$(BIN)/python tests/mutants.py

# The browser tests (tests/test_serve_browser.py) drive Debian's chromium headless through
# Playwright; no browser is downloaded, so install the distribution's when none is found
# (CROSSENVS_CHROMIUM may name another binary).
chromium:
	@test -n "$$CROSSENVS_CHROMIUM" || command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium)

# The real-screen window test (tests/test_window.py) opens render_mode="human" on a virtual X server and
# takes a screenshot; install Debian's Xvfb when it is missing.
xvfb:
	@command -v Xvfb >/dev/null 2>&1 || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends xvfb)

# The documentation site (Sphinx, furo, MyST) from docs/ into docs/_build/html, with search.
docs: $(STAMP)
	$(BIN)/sphinx-build -n --keep-going -b html docs docs/_build/html
	@echo "Built docs/_build/html/index.html; serve it with: make docs-serve (python -m http.server -d docs/_build/html)"

docs-serve: docs
	$(BIN)/python -m http.server -d docs/_build/html 8001

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The main job: Gumbel AlphaZero on Crisscross 6x6 (7 minutes of self-play and learning on a 2-core CPU, CUDA
# when present), then the final agent (64 simulations) against MCTS-5000 over 100 games, both seats, and its
# rating on the Crisscross 6x6 fixed-anchor ladder (as crossenvs rate rates: 100 games at most). The shipped config crisscross6
# (crossenvs/configs/alphazero/crisscross6.yaml); the same command runs from pip install with the train extra.
train: $(STAMP)
	$(BIN)/crossenvs train alphazero --game crisscross --option size=6 --device auto

# Self-play MaskablePPO on Crisscross 6x6 (about 3 minutes), then the win rate against random.
train-ppo: $(STAMP)
	$(BIN)/crossenvs train ppo --game crisscross

# Every row idle (5 interleaved rounds), then the load rows beside a busy process, and the targets met (about 20 min).
bench: $(STAMP)
	$(BIN)/python benchmarks/bench.py --busy

train-bench: $(STAMP)
	$(BIN)/python benchmarks/train_speed.py

# Compiled kernels live in ~/.cache/crossenvs/numba-<hash of the sources>, so an edit can never
# run stale code; this removes every version's cache.
clean-cache:
	rm -rf "$${CROSSENVS_CACHE_DIR:-$${XDG_CACHE_HOME:-$$HOME/.cache}/crossenvs}"

clean: clean-cache
	rm -rf $(VENV) build dist *.egg-info docs/_build
