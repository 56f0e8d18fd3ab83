"""The package's layering (docs/architecture.md) holds: no import runs upward and none goes round in a circle.

Every import in ``crossenvs/`` is read from the source with ``ast``, those inside functions and
under ``TYPE_CHECKING`` included (a deferred import is still a dependency). A module may import
its own layer or lower ones; the import graph has no cycle. Run ``pytest tests/test_layers.py``
to see any offending import named with its file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "crossenvs"

#: lowest first; a module belongs to the layer of the longest prefix that names it
LAYERS: list[tuple[str, ...]] = [
    ("crossenvs.core",),
    ("crossenvs.games",),
    ("crossenvs.players",),
    ("crossenvs.envs",),
    ("crossenvs.checkpoints",),
    (
        "crossenvs.az",
        "crossenvs.agents",
        "crossenvs.eval",
        "crossenvs.integrations",
        "crossenvs.match",
        "crossenvs.play",
        "crossenvs.testing",
        "crossenvs.web",
        "crossenvs.flag_checks",
    ),
    ("crossenvs.cli", "crossenvs.__main__"),
    ("crossenvs",),  # the package root: the composition root that wires the layers together
]


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
    package = importer if MODULES[importer].name == "__init__.py" else importer.rpartition(".")[0]
    if node.level:
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


def test_the_checks_see_a_planted_upward_import_and_cycle():
    """The readers above must find what they are for: an import of envs from core, and a circle."""
    planted = ast.parse("from ..envs import vector\nfrom . import game\n").body
    assert resolve("crossenvs.core.state", planted[0]) == ["crossenvs.envs.vector"]
    assert layer_of("crossenvs.envs.vector") > layer_of("crossenvs.core.state")
    assert strongly_connected({"a": {"b"}, "b": {"a"}, "c": set()}) == [{"a", "b"}]


@pytest.mark.parametrize("module", ["crossenvs.core.game", "crossenvs.core.registry"])
def test_the_engine_imports_nothing_above_it(module):
    above = [b for a, b, _ in imports() if a == module and not b.startswith("crossenvs.core")]
    assert not above, f"{module} imports {above}"
