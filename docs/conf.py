"""Sphinx configuration of the crossenvs documentation site (``make docs``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # document the checkout, installed or not

import crossenvs  # noqa: E402

project = "crossenvs"
author = "crossenvs developers"
copyright = "2026, crossenvs developers"
release = crossenvs.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
    "sphinx_copybutton",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # links such as README.md#position-text reach their heading

html_theme = "furo"
html_title = f"crossenvs {release}"
html_static_path: list[str] = []

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_default_options = {"members": True, "show-inheritance": True}

# The docstrings name classes of numpy, gymnasium, PettingZoo, torch and the standard library,
# whose inventories the (offline) build does not fetch; a missing crossenvs reference still fails.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(?!crossenvs\b).*"),
]
autodoc_inherit_docstrings = False  # gymnasium's and PettingZoo's own docstrings are theirs, not ours

# Docstrings name classes by where they live (crossenvs.core.game.Game); the reference documents
# them under their public path (crossenvs.Game, crossenvs.eval.ladder.Ladder). Resolve the one through the other.
PUBLIC_ALIASES = [
    (re.compile(r"^crossenvs\.core\.(?:game|state|registry|errors|facts)\."), "crossenvs."),
    (re.compile(r"^crossenvs\.eval\.ladder\.(?:files|pool|build|adaptive|scale)\."), "crossenvs.eval.ladder."),
]


def resolve_public_alias(app, env, node, contnode):
    """A ``missing-reference`` handler: retry ``crossenvs.core.game.Game.apply`` as ``crossenvs.Game.apply``."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"]
    for pattern, public in PUBLIC_ALIASES:
        alias = pattern.sub(public, target)
        if alias != target:
            domain = env.get_domain("py")
            return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], alias, node, contnode)
    return None


def setup(app):
    app.connect("missing-reference", resolve_public_alias)
