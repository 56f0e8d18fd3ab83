"""The README's screenshots of ``crossenvs serve``: the page in headless Chromium, driven by clicks.

    python examples/serve_screenshots.py            # writes docs/images/serve_*.png

Needs the web and dev extras and a Chromium (``make chromium``); the same driver as
``tests/test_serve_browser.py`` (:mod:`crossenvs.web.browser`).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from crossenvs.web.browser import chromium_page, served

READY = 'body[data-phase="your-turn"], body[data-phase="over"]'
IMAGES = Path(__file__).resolve().parent.parent / "docs" / "images"


def new_game(page, url: str, game: str, **options) -> None:
    page.goto(url)
    page.wait_for_selector(READY)
    page.select_option("#game", game)
    for name, value in options.items():
        page.fill(f"#option-{name}", str(value))
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


def crosse(page, url: str, out: Path) -> None:
    """Some moves in, a stone picked up: its targets dotted, the tokens, the record."""
    new_game(page, url, "crosse")
    rng = random.Random(5)
    for _ in range(6):
        click_move(page, rng)
    page.locator("#board [data-source]").first.click()
    page.screenshot(path=str(out))


def charing_cross(page, url: str, out: Path) -> None:
    """A knight jumped its own knight: the re-placement is asked as a choice."""
    new_game(page, url, "charing_cross")
    page.click('#board [data-source][data-square="a4"]')
    page.click('#board [data-target][data-square="a6"]')
    page.wait_for_selector("#choices button[data-action]")
    page.screenshot(path=str(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=IMAGES, help="folder for the PNGs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with served() as url, chromium_page(width=1100, height=760) as page:
        crosse(page, url, args.out / "serve_crosse.png")
        charing_cross(page, url, args.out / "serve_charing_cross.png")
    for name in ("serve_crosse.png", "serve_charing_cross.png"):
        print(f"wrote {args.out / name}")


if __name__ == "__main__":
    main()
