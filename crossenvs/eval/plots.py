"""Ratings of a run's checkpoints drawn against training step or time (``crossenvs rating-plot``).

One figure for both ways of rating: against baselines (a line) or on a fixed-anchor ladder (points
with their 95% intervals), with reference players as horizontal lines. Needs matplotlib (the eval
extra), imported when a plot is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any


def plot_ratings(
    path: str | Path,
    xs: Sequence[float],
    ratings: Sequence[float],
    references: Sequence[tuple[float, str, dict[str, Any]]],
    x_label: str,
    y_label: str,
    title: str,
    errors: Sequence[Sequence[float]] | None = None,
    legend: dict[str, Any] | None = None,
    bounds: Sequence[str] | None = None,
) -> None:
    """Write the checkpoints' ``ratings`` at ``xs`` (with ``errors``, [below, above], as error bars) and each
    reference (rating, label, line style) as a horizontal line, to ``path`` (its suffix picks the format).

    ``bounds``: per checkpoint ``"at least"`` (it won every game: its rating is a lower bound), ``"at most"``,
    or ``""``; a bound is drawn as an open triangle pointing the open way, so no one reads it as a point.
    """
    import matplotlib

    matplotlib.use("Agg")  # files only: no display is needed or wanted
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(6, 4))
    if errors is None:
        axis.plot(xs, ratings, marker="o", label="checkpoints")
    else:
        axis.errorbar(xs, ratings, yerr=errors, marker="o", capsize=3, label="checkpoints")
    for kind, marker in (("at least", "^"), ("at most", "v")):
        at = [(x, rating) for x, rating, bound in zip(xs, ratings, bounds or ()) if bound == kind]
        if at:
            axis.plot(*zip(*at), linestyle="", marker=marker, markersize=11, markerfacecolor="white",
                      color="C0", label=f"{kind} (won all)" if kind == "at least" else f"{kind} (lost all)")  # fmt: skip
    for rating, label, style in references:
        axis.axhline(rating, label=label, **style)
    axis.set_xlabel(x_label)
    axis.set_ylabel(y_label)
    axis.set_title(title)
    axis.legend(**(legend or {}))
    figure.tight_layout()
    figure.savefig(path, dpi=100)
