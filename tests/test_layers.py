"""The package's layering (docs/architecture.md) holds: no import runs upward and none goes round in a circle.

Every import in ``crossenvs/`` is read from the source with ``ast``, those inside functions and
under ``TYPE_CHECKING`` included (a deferred import is still a dependency). A module may import
its own layer or lower ones; the import graph has no cycle. The scripts in ``training/`` and
``benchmarks/`` are leaves above the package: they import ``crossenvs`` freely, but no script
imports another one (nor puts a folder on ``sys.path`` to do so), the package imports none of
them, and the whole repository's graph has no cycle. Run ``pytest tests/test_layers.py`` to see
any offending import named with its file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "crossenvs"
#: the leaves: trainers and benchmarks, one script each, keyed "training/alphazero.py"
SCRIPTS = {
    f"{folder}/{path.name}": path
    for folder in ("training", "benchmarks")
    for path in sorted((PACKAGE.parent / folder).glob("*.py"))
}
#: what ``import <name>`` finds only once a script's folder is on sys.path
SCRIPT_NAMES = {path.stem for path in SCRIPTS.values()} | {"training", "benchmarks"}

#: lowest first; a module belongs to the layer of the longest prefix that names it. Every folder has its own
#: place: a module may import its own folder and the folders above it in this list, never one below it.
LAYERS: list[tuple[str, ...]] = [
    ("crossenvs.support",),  # errors, argument checks, extras, waits: what every layer leans on, knowing no game
    ("crossenvs.kernels",),  # the kernel ground: the state record, numba's plumbing, every batched kernel, launches
    ("crossenvs.core",),  # the game contract: Game, options, registry, position text, views, facts
    ("crossenvs.games",),  # the built-in games, rules only
    ("crossenvs.players",),  # players and their specs: random, greedy, MCTS
    ("crossenvs.envs",),  # the PettingZoo, gymnasium, vector and SB3 faces, on one GameBatch
    ("crossenvs.testing",),  # the contract suite a game author runs: the rules and the envs, nothing above
    ("crossenvs.checkpoints",),  # reading and writing every kind of checkpoint, below whatever makes one
    ("crossenvs.agents",),  # the shipped agents (files and names)
    ("crossenvs.eval",),  # arenas, ratings, ladders, the Connect Four solver and mistake rates
    ("crossenvs.trainer",),  # what every trainer shares: run folders, configs, resume checks
    ("crossenvs.az",),  # Gumbel AlphaZero (its search a unit inside: see INNER_LAYERS)
    ("crossenvs.ppo",),  # MaskablePPO self-play
    ("crossenvs.integrations",),  # bridges to OpenSpiel, pgx, RLlib, TorchRL, ONNX
    ("crossenvs.selfcheck",),  # the project's own checks (GPU, compiled code, peers, ratings): no author needs them
    ("crossenvs.play",),  # playing in a terminal or a window
    ("crossenvs.web",),  # the web board
    ("crossenvs.cli", "crossenvs.__main__"),
    ("crossenvs",),  # the package root: the composition root that wires the layers together
]

#: units inside a folder that sit below the rest of it: such a unit imports nothing of its folder outside itself
INNER_LAYERS: dict[str, tuple[str, ...]] = {
    "crossenvs.az": ("crossenvs.az.search",),  # the search, as mctx keeps it: self-play and the player stand on it
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best, layer = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            below = module.startswith(prefix + ".") and prefix != "crossenvs"  # the root holds itself only
            if (module == prefix or below) and len(prefix) > best:
                best, layer = len(prefix), index
    assert layer >= 0, f"{module} is in no layer: add it to LAYERS (and docs/architecture.md)"
    return layer


def resolve(importer: str, node: ast.ImportFrom | ast.Import) -> list[str]:
    """The crossenvs modules an import statement loads (a name that is a submodule counts as it)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == "crossenvs"]
    if node.level:  # relative: only inside the package
        package = importer if MODULES[importer].name == "__init__.py" else importer.rpartition(".")[0]
        base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1])
        base = f"{base}.{node.module}" if node.module else base
    else:
        base = node.module or ""
    if base.split(".")[0] != "crossenvs":
        return []
    targets = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in MODULES]
    return targets if len(targets) == len(node.names) else [*targets, base]


def imports() -> list[tuple[str, str, int]]:
    """(importer, imported, line) for every import of a crossenvs module inside the package."""
    found = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                found += [(name, target, node.lineno) for target in resolve(name, node) if target != name]
    return found


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_module_imports_a_layer_above_its_own():
    upward = [
        f"{MODULES[a].relative_to(PACKAGE.parent)}:{line} imports {b} (layer {layer_of(b)} > {layer_of(a)})"
        for a, b, line in imports()
        if layer_of(b) > layer_of(a)
    ]
    assert not upward, "upward imports:\n" + "\n".join(upward)


def test_the_import_graph_has_no_cycle():
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for a, b, _ in imports():
        if b in graph:
            graph[a].add(b)
    cycles = strongly_connected(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(sorted(c)) for c in cycles)


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """The components of more than one module (Tarjan), each a cycle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_each_layer_below_the_commands_is_rooms_with_no_exceptions():
    """Layers 1 to 8 are folders a reader opens (core/, games/, ..., selfcheck/), no module loose beside them,
    and a room is in one layer: no part of one is carved out into another layer."""
    names = [prefix for prefixes in LAYERS for prefix in prefixes if prefix != "crossenvs"]
    loose = [name for name in names[: -len(LAYERS[-2])] if not (PACKAGE.parent / name.replace(".", "/")).is_dir()]
    assert not loose, f"modules loose in a layer (give each a room, a package): {loose}"
    carved = [name for name in names if any(name.startswith(other + ".") for other in names)]
    assert not carved, f"parts of a room in another layer (move them to a room of that layer): {carved}"


def test_the_checks_see_a_planted_upward_import_and_cycle():
    """The readers above must find what they are for: an import of envs from core, and a circle."""
    planted = ast.parse("from ..envs import vector\nfrom . import game\n").body
    assert resolve("crossenvs.kernels.state", planted[0]) == ["crossenvs.envs.vector"]
    assert layer_of("crossenvs.envs.vector") > layer_of("crossenvs.kernels.state")
    assert strongly_connected({"a": {"b"}, "b": {"a"}, "c": set()}) == [{"a", "b"}]


#: the rooms above the kernel wing: it names none of them, by import or by string
ABOVE_THE_WING = (
    "core", "games", "players", "envs", "testing", "checkpoints", "az", "agents", "eval", "integrations", "play", "selfcheck",
)  # fmt: skip


def test_the_kernel_wing_names_no_module_above_it():
    """No import, and no string in its code either (a module name to import later, a hard-coded games/ path): the
    wing serves the layers above by what they hand it (a kernel function, a NamedTuple), never by knowing them.
    Docstrings may point a reader up."""
    found = []
    for path in sorted((PACKAGE / "kernels").glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                text = node.value
                named = [room for room in ABOVE_THE_WING if f"crossenvs.{room}" in text or f"{room}/" in text]
                found += [f"{path.name}:{node.lineno} names {named}" for _ in named[:1]]
    assert not found, "\n".join(found)


def test_the_kernel_ground_imports_only_support():
    """The kernel ground is below the game contract: it imports nothing of core (core's Game takes its kernels)."""
    upward = [f"{a} imports {b}" for a, b, _ in imports()
              if a.startswith("crossenvs.kernels") and not b.startswith(("crossenvs.kernels", "crossenvs.support"))]  # fmt: skip
    assert not upward, upward


def test_support_imports_nothing_of_the_package():
    inward = [f"{a} imports {b}" for a, b, _ in imports() if a.startswith("crossenvs.support")
              and not b.startswith("crossenvs.support")]  # fmt: skip
    assert not inward, inward


@pytest.mark.parametrize("folder", sorted(INNER_LAYERS))
def test_a_unit_inside_a_folder_imports_nothing_of_the_rest_of_it(folder):
    for unit in INNER_LAYERS[folder]:
        assert unit.replace(".", "/") and (PACKAGE.parent / unit.replace(".", "/")).is_dir(), f"{unit} is no folder"
        upward = [f"{a}:{line} imports {b}" for a, b, line in imports()
                  if a.startswith(unit) and b.startswith(folder + ".") and not b.startswith(unit)]  # fmt: skip
        assert not upward, upward


@pytest.mark.parametrize("module", ["crossenvs.core.game", "crossenvs.core.registry"])
def test_the_engine_imports_nothing_above_it(module):
    below = ("crossenvs.core", "crossenvs.kernels", "crossenvs.support")
    above = [b for a, b, _ in imports() if a == module and not b.startswith(below)]
    assert not above, f"{module} imports {above}"


# ----------------------------------------------------------------------------- the scripts: leaves above the package
def script_imports(tree: ast.AST) -> list[tuple[str, int]]:
    """(script, line) for every import in ``tree`` that names a training/ or benchmarks/ script."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        found += [(name.split(".")[0], node.lineno) for name in names if name.split(".")[0] in SCRIPT_NAMES]
    return found


def path_edits(tree: ast.AST) -> list[int]:
    """The lines that touch ``sys.path`` (a script that edits it means to import something that is no package)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr == "path" and getattr(node.value, "id", "") == "sys"
    ]


def every_file() -> dict[str, ast.AST]:
    """Each module of the package and each script, parsed, by its module name or its path."""
    files = {name: path for name, path in MODULES.items()} | SCRIPTS
    return {name: ast.parse(path.read_text(), str(path)) for name, path in files.items()}


def test_no_script_puts_a_folder_on_sys_path():
    edits = [f"{name}:{line}" for name, path in SCRIPTS.items() for line in path_edits(ast.parse(path.read_text()))]
    assert not edits, "sys.path edited (import from crossenvs instead):\n" + "\n".join(edits)


def test_nothing_imports_a_script():
    """A script's reusable part belongs in the package: neither the package nor another script imports one."""
    found = [
        f"{name}:{line} imports the script {script}"
        for name, tree in every_file().items()
        for script, line in script_imports(tree)
    ]
    assert not found, "imports of scripts:\n" + "\n".join(found)


def test_the_repository_import_graph_has_no_cycle():
    """The package's modules and the scripts together, each script a node importing crossenvs modules."""
    graph: dict[str, set[str]] = {name: set() for name in every_file()}
    for a, b, _ in imports():
        graph[a].add(b)
    for name, tree in every_file().items():
        if name in SCRIPTS:
            for node in ast.walk(tree):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    graph[name] |= {target for target in resolve(name, node) if target in graph}
        graph[name] |= {
            f"{folder}/{script}.py" for script, _ in script_imports(tree) for folder in ("training", "benchmarks")
        } & set(graph)
    cycles = strongly_connected(graph)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(sorted(c)) for c in cycles)


def test_the_script_checks_see_a_planted_script_import_and_path_edit():
    """What the script checks are for: one script importing another after putting its folder on sys.path."""
    planted = ast.parse("import sys\nsys.path.insert(0, 'training')\nimport alphazero\nfrom az_speed import measure\n")
    assert script_imports(planted) == [("alphazero", 3), ("az_speed", 4)]
    assert path_edits(planted) == [2]
    assert not script_imports(ast.parse("from crossenvs.az import selfplay\nimport crossenvs.ppo.run\n"))


# ----------------------------------------------------------------------------- the games: rooms a reader can take in
#: the most lines a file under crossenvs/games/ may have: a larger game is a package (tables, rules, text, view, game)
GAME_FILE_LINES = 600


def test_no_game_file_is_over_600_lines():
    files = sorted((PACKAGE / "games").rglob("*.py"))
    assert len(files) > 6, "the games were not found"
    long = [
        f"{path.relative_to(PACKAGE.parent)}: {n} lines"
        for path in files
        if (n := len(path.read_text().splitlines())) > GAME_FILE_LINES
    ]
    assert not long, f"game files over {GAME_FILE_LINES} lines (split the game into a package of rooms):\n" + "\n".join(
        long
    )


def test_the_checkout_has_the_layout_it_was_asked_for():
    """pyproject.toml, README.md, crossenvs, training, configs and tests at the top. The configs are package data
    (``crossenvs/configs``, so the wheel ships them); the top's ``configs`` is a relative link to that one
    folder, which a clone keeps and a copy of the working tree carries as a link into itself."""
    import os

    root = Path(__file__).resolve().parent.parent
    assert {"pyproject.toml", "README.md", "crossenvs", "training", "configs", "tests"} <= {
        p.name for p in root.iterdir()
    }
    link = root / "configs"
    assert link.is_symlink() and os.readlink(link) == "crossenvs/configs"
    assert link.resolve() == (root / "crossenvs" / "configs").resolve()
    assert (link / "alphazero" / "crisscross6.yaml").is_file()


def architecture_map() -> dict[str, str]:
    """docs/architecture.md's map of the layers: each folder's text (from its numbered line to the next one)."""
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text()
    block = page.split("<!-- not output: a map of the package's layers -->", 1)[1].split("```", 2)[1]
    sections: dict[str, list[str]] = {}
    current = None
    for line in block.splitlines():
        head = line.split()[:2]
        if len(head) == 2 and head[0].isdigit() and head[1].endswith("/"):
            current = head[1].rstrip("/")
        elif line[:1].strip():  # an unnumbered head (the package root, the scripts) ends a folder's text
            current = None
        if current is not None:
            sections.setdefault(current, []).append(line)
    return {folder: "\n".join(lines) for folder, lines in sections.items()}


def test_the_architecture_page_names_every_module_in_its_folders_place():
    """Every module of the package is named on the page, in the map's text of its own folder, and the map has one
    numbered place per layer below the package root, in LAYERS' order."""
    sections = architecture_map()
    folders = [prefix.split(".")[1] for prefixes in LAYERS[:-1] for prefix in prefixes if prefix.count(".") == 1]
    assert list(sections) == [folder for folder in folders if folder != "__main__"], list(sections)
    unnamed = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "__init__.py"
        and path.parent != PACKAGE
        and path.name not in sections.get(path.relative_to(PACKAGE).parts[0], "")
    ]
    assert not unnamed, f"modules docs/architecture.md's map does not name in their folder's place: {unnamed}"
