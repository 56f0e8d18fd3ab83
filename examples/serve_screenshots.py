"""The docs' screenshots of ``crossenvs serve``: each game's start view, and two games in play, in headless Chromium.

    python examples/serve_screenshots.py            # writes docs/images/serve_*.png

Needs the web and dev extras and a Chromium (``make chromium``); the same driver as
``tests/test_serve_browser.py`` (:mod:`crossenvs.web.browser`). The PNGs are reduced to a palette
of colours so that all of them together stay a few hundred kilobytes.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from PIL import Image

from crossenvs import list_games
from crossenvs.web.browser import chromium_page, served

READY = 'body[data-phase="your-turn"], body[data-phase="over"]'
START_VIEW = 'body[data-view="start"][data-phase="setup"]'
IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"
GAMES = ("crisscross", "crossings", "neo_crossings", "charing_cross", "crosse", "hex", "connect_four")


def save(page, out: Path) -> None:
    """A screenshot of the window, as a PNG of few colours."""
    page.screenshot(path=str(out))
    Image.open(out).convert("RGB").quantize(colors=48).save(out, optimize=True)
    print(f"wrote {out} ({out.stat().st_size // 1024} KB)")


def start_view(page, url: str, game: str, out: Path) -> None:
    """The start view with ``game`` chosen: its rules, settings and the opponents."""
    page.goto(url)
    page.wait_for_selector(START_VIEW)
    page.check(f"#game-{game}")
    save(page, out)


def new_game(page, url: str, game: str) -> None:
    page.goto(url)
    page.wait_for_selector(START_VIEW)
    page.check(f"#game-{game}")
    page.select_option("#opponent-choice", "random")
    page.click("#start")
    page.wait_for_selector(READY)


def click_move(page, rng: random.Random) -> None:
    """One random decision by clicks (a choice, or a ringed piece and one of its targets)."""
    choices = page.locator("#choices button[data-action]")
    if choices.count():
        choices.nth(rng.randrange(choices.count())).click()
    else:
        sources = page.locator("#board [data-source]")
        sources.nth(rng.randrange(sources.count())).click()
        targets = page.locator("#board [data-target]")
        targets.nth(rng.randrange(targets.count())).click()
    page.wait_for_selector(READY)


def crosse_in_play(page, url: str, out: Path) -> None:
    """Some moves in, a stone picked up: its targets dotted, the tokens, the legend's colours."""
    new_game(page, url, "crosse")
    rng = random.Random(5)
    for _ in range(6):
        click_move(page, rng)
    page.locator("#board [data-source]").first.click()
    save(page, out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help="folder for the PNGs")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with served() as url, chromium_page(width=1280, height=800) as page:
        for game in (name for name in GAMES if name in list_games()):
            start_view(page, url, game, args.out / f"serve_{game}.png")
        crosse_in_play(page, url, args.out / "serve_crosse_play.png")


if __name__ == "__main__":
    main()
