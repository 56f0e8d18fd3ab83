"""Play in the browser (issue: ``crossenvs serve``), by clicks in headless Chromium against the real server.

The server is ``crossenvs serve`` in a child process; the browser is the system's Chromium (``make
chromium`` installs Debian's) driven by Playwright. A missing browser fails these tests with the
command that installs it: a skip would hide in CI that the page was never tried. Clicks are chosen
by reading what the page offers (``data-source`` pieces, ``data-target`` and ``data-placement``
squares, ``#choices`` buttons), as a person reads the rings and dots.
"""

from __future__ import annotations

import random
import re

import pytest
from conftest import CROSSE_C4, position

from crossenvs.web.browser import chromium_page, served

pytestmark = pytest.mark.browser

READY = 'body[data-phase="your-turn"], body[data-phase="over"]'
START_VIEW = 'body[data-view="start"][data-phase="setup"]'
NAMES = {
    "crisscross": "Crisscross",
    "crossings": "Crossings",
    "neo_crossings": "Neo-Crossings",
    "charing_cross": "Charing Cross",
    "crosse": "Crosse",
    "hex": "Hex",
    "connect_four": "Connect Four",
}
END_LINE = re.compile(r"^Game over: (White|Black) wins: .+\. You (win|lose)\.$|^Game over: Draw: .+\. A draw\.$")


@pytest.fixture(scope="module")
def url():
    with served() as address:
        yield address


@pytest.fixture(scope="module")
def page():
    with chromium_page() as browser_page:
        errors: list[str] = []
        browser_page.on("pageerror", lambda error: errors.append(str(error)))
        yield browser_page
        assert not errors, errors  # no script error on any page of the module


def wait(page) -> str:
    """Wait until the page waits for the person (or the game is over); the phase."""
    page.wait_for_selector(READY, timeout=60_000)
    return page.get_attribute("body", "data-phase")


def start(page, url: str, game: str, side: str = "first", position_text: str | None = None, **options) -> None:
    """A new game from the form, as a person fills it in."""
    page.goto(url)
    page.wait_for_selector(START_VIEW)
    page.check(f"#game-{game}")
    for name, value in options.items():
        field = page.locator(f"#option-{name}")
        if not field.is_visible():
            page.click("#advanced summary")  # move_cap and the other advanced options are folded away
        if field.evaluate("element => element.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(str(value))
    page.select_option("#side", side)
    page.select_option("#opponent-choice", "random")
    page.click("#start")
    wait(page)
    if position_text is not None:
        page.fill("#position", position_text)
        page.click("#load-position")
        wait(page)
    assert page.locator("#title").inner_text().startswith(f"{NAMES[game]}: you play ")


def click_turn(page, rng: random.Random) -> None:
    """One decision by clicks: a choice button, a placement, or a piece and then one of its targets."""
    choices = page.locator("#choices button[data-action]")
    if choices.count():
        choices.nth(rng.randrange(choices.count())).click()
        return
    sources = page.locator("#board [data-source]")
    placements = page.locator("#board [data-placement]")
    if placements.count() and (not sources.count() or rng.random() < 0.5):
        placements.nth(rng.randrange(placements.count())).click()
        return
    assert sources.count(), page.locator("#status").inner_text()
    sources.nth(rng.randrange(sources.count())).click()
    targets = page.locator("#board [data-target]")
    assert targets.count(), "a ringed piece shows no target"
    targets.nth(rng.randrange(targets.count())).click()


def play_to_the_end(page, rng: random.Random, decisions: int = 400) -> str:
    for _ in range(decisions):
        if wait(page) == "over":
            end = page.locator("#end")
            assert end.is_visible()
            return end.inner_text()
        click_turn(page, rng)
    raise AssertionError(f"no end after {decisions} decisions: {page.locator('#status').inner_text()}")


def record(page) -> list[str]:
    return [line.strip() for line in page.locator("#record li").all_inner_texts()]


@pytest.mark.parametrize("game", list(NAMES))
def test_every_game_draws_its_board_and_takes_a_move_by_clicks(page, url, game):
    start(page, url, game)
    # 8x8 (Crisscross's default too), Crosse 10x10, Hex 11x11, Connect Four 7x6
    assert page.locator("#board rect.cell").count() in (64, 100, 121, 42)
    assert page.locator("#legend li .swatch").count() >= 3 and page.locator("#status").inner_text().endswith(
        "your move"
    )
    rng = random.Random(game)
    while len(record(page)) < 2:  # your turn (a Charing Cross re-placement is a second decision), then the reply
        click_turn(page, rng)
        assert wait(page) == "your-turn"
    assert page.locator("#board rect.last").count() >= 1
    assert page.locator("#board [data-source], #board [data-placement]").count() >= 1  # the next turn is offered


def test_charing_cross_by_clicks_with_a_re_placement_to_the_end(page, url):
    start(page, url, "charing_cross", move_cap=40)
    page.click('#board [data-source][data-square="a4"]')
    assert sorted(page.locator("#board [data-target]").evaluate_all("els => els.map(e => e.dataset.square)")) == [
        "a6",
        "b3",
        "b4",
        "b5",
    ]
    page.click('#board [data-target][data-square="a6"]')  # over the own knight on a5: re-place it
    wait(page)
    buttons = page.locator("#choices button[data-action]")
    assert sorted(buttons.all_inner_texts()) == ["@a4", "@a5"]
    assert "re-place the jumped N" in page.locator("#status").inner_text()
    assert page.locator("#board [data-placement]").count() == 2  # the two homes, clickable too
    page.click('#board [data-placement][data-square="a5"]')
    wait(page)
    assert record(page)[0] == "white: a4-a6 @a5" and record(page)[1].startswith("black: ")
    assert page.locator("#board rect.last").count() >= 1
    assert page.get_attribute('#board g[data-square="a5"]', "data-piece") == "N"
    line = play_to_the_end(page, random.Random(1))
    assert END_LINE.match(line), line
    assert page.locator("#choices button").count() == 0 and page.locator("#board [data-source]").count() == 0
    assert "to_move:" in page.input_value("#position")


def test_crosse_by_clicks_to_the_end_with_tokens(page, url):
    start(page, url, "crosse", move_cap=24)
    assert page.locator('#tokens .side[data-colour="black"] .token').count() == 6
    page.click('#board [data-source][data-square="f4"]')
    page.click('#board [data-target][data-square="g5"]')  # three tokens reach g5: the page asks which
    buttons = page.locator("#choices button[data-action]")
    assert buttons.all_inner_texts() == ["1F:f4-g5", "2F:f4-g5", "3F:f4-g5"]
    buttons.nth(1).click()
    wait(page)
    assert record(page)[0] == "black: 2F:f4-g5"
    assert page.locator('#tokens .side[data-colour="black"] .token.used').all_inner_texts() == ["2F"]
    line = play_to_the_end(page, random.Random(2))
    assert END_LINE.match(line), line


def test_crosse_jumps_hop_by_hop_from_a_position_and_undo(page, url):
    start(page, url, "crosse", side="second", position_text=position(CROSSE_C4, "white"), move_cap=30)
    assert page.locator("#title").inner_text() == "Crosse: you play white against random"
    assert page.locator("#board .selected").count() == 1  # the only stone that can jump is picked up
    page.click('#board [data-target][data-square="f8"]')
    wait(page)
    assert record(page) == ["white: h6xf8"]
    assert page.locator("#board [data-target]").evaluate_all("els => els.map(e => e.dataset.square)") == ["h10"]
    page.click('#board [data-target][data-square="h10"]')
    wait(page)
    assert record(page)[0] == "white: h6xf8 f8xh10"
    page.click("#undo")
    wait(page)
    assert record(page) == ["white: h6xf8"]  # one hop back, the opponent's reply with it
    page.click("#undo")
    wait(page)
    assert record(page) == [] and page.is_disabled("#undo")
    assert page.input_value("#position").startswith("to_move: white\nply: 0\n")


def test_typed_moves_and_their_errors(page, url):
    start(page, url, "crisscross", size=5)
    assert page.locator("#hint").inner_text() == "Click an empty square to place your piece there."
    page.fill("#typed-move", "z9")
    page.click("#typed button")
    wait(page)
    message = page.locator("#message").inner_text()
    assert "crisscross" in message and "off the 5x5 board" in message and "ringed" not in message, message
    page.fill("#typed-move", "c3")
    page.click("#typed button")
    wait(page)
    assert record(page)[0] == "red: c3" and page.locator("#message").inner_text() == ""
    page.click("#flip")
    assert page.locator("#board rect.cell").count() == 25


#: records, at each change of phase, the phase and whether the buttons that start a new game are disabled
WATCH_PHASES = """() => {
  window.phases = [];
  const disabled = (id) => document.getElementById(id).disabled;
  const note = () => window.phases.push([document.body.dataset.phase, disabled("start"), disabled("load-position")]);
  new MutationObserver(note).observe(document.body, { attributes: true, attributeFilter: ["data-phase"] });
}"""


def test_a_double_click_plays_once_and_no_new_game_starts_while_a_reply_is_due(page, url):
    start(page, url, "charing_cross", move_cap=40)
    page.evaluate(WATCH_PHASES)
    page.click('#board [data-source][data-square="a4"]')
    page.click('#board [data-target][data-square="a6"]')
    wait(page)
    page.locator("#choices button[data-action]", has_text="@a5").dblclick()  # the second click finds it played
    wait(page)
    assert page.locator("#message").inner_text() == ""
    assert record(page)[0] == "white: a4-a6 @a5" and len(record(page)) == 2
    phases = page.evaluate("window.phases")
    waiting = [phase for phase in phases if phase[0] in ("busy", "thinking")]
    assert waiting and all(start and load for _, start, load in waiting), phases  # Start from this position too


def test_the_start_view_names_the_games_explains_them_and_lists_the_opponents(page, url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(url)
    page.wait_for_selector(START_VIEW)
    assert page.locator("#games-loading").count() == 0  # the loading line is gone once the games are listed
    cards = page.locator("#games .game-card")
    assert sorted(name.strip() for name in cards.locator(".name").all_inner_texts()) == sorted(NAMES.values())
    for card in cards.all():
        assert len(card.locator("p").first.inner_text()) > 200  # a paragraph of rules
        assert card.locator("a").get_attribute("href").startswith("/rules/")  # the rules page this server makes
    rules = page.request.get(url.rstrip("/") + cards.first.locator("a").get_attribute("href"))
    assert rules.status == 200 and "<h1>" in rules.text()  # the link leads somewhere
    page.check("#game-crosse")
    assert not page.locator("#option-move_cap").is_visible()  # folded under Advanced
    assert not page.locator("#opponent").is_visible()  # the free-text spec too
    opponents = page.locator("#opponent-choice option").all_inner_texts()
    assert opponents[:2] == ["Random moves (easiest)", "Greedy (best next move)"]
    assert "MCTS (easy, 200 simulations)" in opponents and any(o.startswith("Pretrained agent") for o in opponents)
    page.click("#advanced summary")
    assert page.locator("#option-move_cap").is_visible()
    text = page.locator("body").inner_text()
    for internal in ("charing_cross", "neo_crossings", "move_cap", "move cap", "first_player"):
        assert internal not in text, internal
    page.select_option("#opponent-choice", "random")
    page.click("#start")
    wait(page)
    assert page.locator("#title").inner_text().startswith("Crosse: you play black")
    box = page.locator("#board-area").bounding_box()
    colours = page.locator("#legend li").evaluate_all("els => els.map(e => e.dataset.colour)")
    assert {"#debe82", "#d67864", "#282828", "#eeece4"} <= set(colours)  # ring cells, ring corners, the stones
    page.click("#new")
    page.check("#game-crisscross")
    page.fill("#option-size", "5")
    page.click("#start")
    wait(page)
    assert page.locator("#board-area").bounding_box() == box  # the board area does not jump with the board's size
    assert box["width"] >= 560 and page.locator("aside").bounding_box()["x"] > box["x"] + box["width"]  # side by side
    assert page.locator("#hint").inner_text() == "Click an empty square to place your piece there."
