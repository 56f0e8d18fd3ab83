"""Play in the browser (issue: ``crossenvs serve``), the JSON API under the page: full games for every
game, sessions isolated, undo, every malformed or illegal request a 4xx with a message, checkpoints
only from the allowed folders, the command's checks, and the real server answering only on localhost."""

from __future__ import annotations

import asyncio
import io
import json
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import replace

import pytest
from conftest import CROSSE_C4, position, position_from_squares
from starlette.requests import Request
from starlette.testclient import TestClient  # the web extra; a missing one fails here, loudly

from crossenvs import game_class, list_games, make_game
from crossenvs.cli import main as cli
from crossenvs.kernels.specialize import specialize
from crossenvs.players import Player, RandomPlayer
from crossenvs.web import board
from crossenvs.web.app import LOOPBACK_HOSTS, MAX_BODY, create_app, read_json
from crossenvs.web.browser import served
from crossenvs.web.errors import PayloadTooLargeError, ServerFullError, TurnError, UnknownSessionError
from crossenvs.web.sessions import Session, SessionStore


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app())


def new_game(client: TestClient, status: int = 201, **fields) -> dict:
    response = client.post("/api/games", json=fields)
    assert response.status_code == status, response.text
    return response.json()


def actions(state: dict) -> list[int]:
    """Every legal action id the state offers: moves by square, placements, choices."""
    legal = state["legal"]
    by_square = [move["action"] for group in legal["moves"].values() for move in group]
    return by_square + [move["action"] for move in legal["placements"] + legal["choices"]]


def refused(response, status: int, *words: str) -> str:
    """The error message of a refusal, checked for its status and the words it must say."""
    assert response.status_code == status, response.text
    message = response.json()["error"]
    for word in words:
        assert word in message, message
    return message


# --------------------------------------------------------------------------- the page and the catalog
def test_the_page_and_its_files_are_served_with_a_strict_content_policy(client):
    page = client.get("/")
    assert page.status_code == 200 and '<svg id="board"' in page.text
    assert "Loading the games…</p></div>" in page.text  # the start view says so before its script has run
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/style.css").status_code == 200
    assert "http" not in page.text.replace('xmlns="http://www.w3.org/2000/svg"', "")  # nothing from the network
    refused(client.get("/static/../app.py"), 404)
    refused(client.get("/nowhere"), 404, "/nowhere")


def test_the_catalog_lists_every_game_with_its_options_and_choices(client):
    catalog = client.get("/api/catalog").json()
    games = {game["name"]: game for game in catalog["games"]}
    assert set(games) == set(list_games())
    crosse = {option["name"]: option for option in games["crosse"]["options"]}
    assert crosse["stuck_tokens"]["choices"] == ["refresh", "keep", "pass_refresh"]
    assert crosse["move_cap"] == {
        "name": "move_cap",
        "kind": "integer",
        "default": 600,
        "low": 1,
        "high": 1_000_000,
        "help": game_class("crosse").OPTION_SCHEMA["move_cap"].help,
        "label": "Move limit (a draw after this many moves)",
        "advanced": True,
    }
    assert {option["name"]: option["kind"] for option in games["charing_cross"]["options"]}["self_jump"] == "flag"
    assert games["charing_cross"]["pretrained"] == [{}] and games["crosse"]["pretrained"] == [{}]
    assert sorted(games["crisscross"]["pretrained"], key=len) == [{}, {"size": 6}]
    assert "mcts:200" in catalog["opponents"] and "az:charing_cross.pt" in catalog["opponents"]
    assert "choices" not in games["crisscross"]["options"][0]  # an integer option has no menu


def test_the_rules_page_holds_the_packages_own_rules_and_refuses_a_game_that_is_not(client):
    page = client.get("/rules/crossings").text
    assert "<h1>Crossings</h1>" in page and "Rules in brief" in page and "frozen" in page
    assert client.get("/rules/chess").status_code == 404


def test_the_catalog_names_each_game_as_people_do_with_its_rules_and_a_link(client, monkeypatch):
    games = {game["name"]: game for game in client.get("/api/catalog").json()["games"]}
    five = ("crisscross", "crossings", "neo_crossings", "charing_cross", "crosse")
    names = {name: games[name]["display_name"] for name in five}
    assert names == {
        "crisscross": "Crisscross",
        "crossings": "Crossings",
        "neo_crossings": "Neo-Crossings",
        "charing_cross": "Charing Cross",
        "crosse": "Crosse",
    }
    for name in five:
        game = games[name]
        assert 200 < len(game["rules_summary"]) < 600 and "_" not in game["rules_summary"], name
        assert game["docs_url"] == f"/rules/{name}"  # served here: the link works wherever the package runs
        page = client.get(game["docs_url"])
        assert page.status_code == 200 and f"<h1>{game['display_name']}</h1>" in page.text, name
    assert "checker" in games["crisscross"]["rules_summary"] and "token" in games["crosse"]["rules_summary"]
    assert [o["name"] for o in games["crisscross"]["options"] if not o["advanced"]] == ["size"]
    assert all(option["advanced"] for option in games["crosse"]["options"])
    assert all("_" not in option["label"] for name in five for option in games[name]["options"])
    local = TestClient(create_app(docs_url="/docs/{name}.html")).get("/api/catalog").json()
    assert local["games"][0]["docs_url"] == f"/docs/{local['games'][0]['name']}.html"
    crosse_class, neo_class = game_class("crosse"), game_class("neo_crossings")
    monkeypatch.setattr(crosse_class, "facts", replace(crosse_class.facts, rules_summary=""))  # as for a user's game
    monkeypatch.setattr(neo_class, "facts", replace(neo_class.facts, display_name=""))
    assert board.describe_game("crosse")["rules_summary"] == "Move stones with six F/B move tokens, jump to " + (
        "capture (maximum compulsory), shed your stones to win."
    )
    assert board.describe_game("neo_crossings")["display_name"] == "Neo crossings"


def test_every_opponent_the_page_lists_can_be_started(client, tmp_path):
    catalog = client.get("/api/catalog").json()
    choices = catalog["opponent_choices"]
    specs = [choice["spec"] for choice in choices]
    assert specs[:4] == ["random", "greedy", "mcts:200", "mcts:1000"] and "mcts:5000" not in specs  # over the cap
    assert [c["label"] for c in choices][2:4] == ["MCTS (easy, 200 simulations)", "MCTS (medium, 1000 simulations)"]
    assert not any("charing_cross" in spec for spec in specs)  # the packaged agents are the pretrained entries
    (tmp_path / "run1").mkdir()
    (tmp_path / "run1" / "final.pt").write_bytes(b"")
    own = TestClient(create_app([tmp_path])).get("/api/catalog").json()["opponent_choices"]
    assert own[-1] == {"spec": "az:run1/final.pt", "label": "Checkpoint run1/final.pt", "kind": "checkpoint"}
    strong = TestClient(create_app(max_simulations=5000)).get("/api/catalog").json()["opponent_choices"]
    assert "MCTS (strong, 5000 simulations)" in [choice["label"] for choice in strong]
    for choice in choices:
        game = "charing_cross" if choice["kind"] != "checkpoint" or "charing" in choice["spec"] else None
        if game:
            new_game(client, game=game, opponent=choice["spec"], reply=False)


# --------------------------------------------------------------------------- full games
@pytest.mark.parametrize("name", list_games())
def test_a_random_game_through_the_api_reaches_its_end(client, name):
    rng = random.Random(name)
    state = new_game(client, game=name, seed=1)
    assert state["your_turn"] and state["height"] == len(state["cells"]) == len(state["board"])
    for _ in range(2000):
        if state["over"]:
            break
        response = client.post(f"/api/games/{state['id']}/move", json={"action": rng.choice(actions(state))})
        assert response.status_code == 200, response.text
        state = response.json()
    assert state["over"] and not state["your_turn"] and actions(state) == []
    result = state["result"]
    assert result["outcome"] in ("win", "loss", "draw") and result["line"].startswith("Game over: ")
    assert result["reason"] in result["line"]
    game = make_game(name, **state["options"])
    assert game.is_terminal(game.from_text(state["position"]))  # the position text out reads back, finished


def test_the_state_marks_the_last_turn_and_keeps_the_record(client):
    state = new_game(client, game="charing_cross", options={"move_cap": 40}, seed=3)
    after = client.post(f"/api/games/{state['id']}/move", json={"move": "a4-a6"}).json()
    # a jump over one's own knight: White re-places it (one more decision, offered as placements)
    assert after["your_turn"] and after["last_move"] == ["a4", "a6"]
    assert sorted(move["notation"] for move in after["legal"]["placements"]) == ["@a4", "@a5"]
    assert "re-place the jumped N" in after["status"]
    after = client.post(f"/api/games/{state['id']}/move", json={"move": "@a5", "reply": False}).json()
    assert after["last_move"] == ["a4", "a6", "a5"]  # the whole turn stays marked
    assert [entry["notation"] for entry in after["record"]] == ["a4-a6", "@a5"]
    assert not after["your_turn"] and not after["over"]  # the opponent's turn, not yet played
    after = client.post(f"/api/games/{state['id']}/reply").json()
    assert after["your_turn"] and after["record"][-1]["colour"] == "black" and not after["record"][-1]["yours"]
    moves = client.get(f"/api/games/{state['id']}/moves").json()
    assert moves["your_turn"] and moves["moves"] == after["legal"]["moves"]
    game = make_game("charing_cross", move_cap=40)
    assert sorted(moves["notations"]) == sorted(
        game.action_to_str(game.from_text(after["position"]), int(a))
        for a in game.legal_actions(game.from_text(after["position"]))
    )


def test_crosse_shows_tokens_and_offers_each_token_that_reaches_a_square(client):
    state = new_game(client, game="crosse", seed=0)
    assert state["tokens"]["black"]["unused"] == ["1F", "2F", "3F", "1B", "2B", "3B"]
    assert state["tokens"]["black"]["all"] == state["tokens"]["black"]["unused"]
    by_pair: dict[tuple[str, str], list[str]] = {}
    for source, moves in state["legal"]["moves"].items():
        for move in moves:
            by_pair.setdefault((source, move["to"]), []).append(move["notation"])
    assert any(len(notations) > 1 for notations in by_pair.values())  # the page asks which token
    after = client.post(f"/api/games/{state['id']}/move", json={"move": "3F:f4-i5", "reply": False}).json()
    assert after["tokens"]["black"]["unused"] == ["1F", "2F", "1B", "2B", "3B"]


def test_crosse_jumps_hop_by_hop_and_undo_takes_back_one_hop(client):
    state = new_game(client, game="crosse", side="white", position=position(CROSSE_C4, "white"))
    assert state["you"]["colour"] == "white" and list(state["legal"]["moves"]) == ["h6"]
    middle = client.post(f"/api/games/{state['id']}/move", json={"move": "h6xf8"}).json()
    assert middle["your_turn"] and list(middle["legal"]["moves"]) == ["f8"]  # the same stone hops on
    assert [move["to"] for move in middle["legal"]["moves"]["f8"]] == ["h10"]
    back = client.post(f"/api/games/{state['id']}/undo").json()
    assert back["board"] == state["board"] and back["record"] == [] and not back["can_undo"]
    client.post(f"/api/games/{state['id']}/move", json={"move": "h6xf8"})
    done = client.post(f"/api/games/{state['id']}/move", json={"move": "f8xh10"}).json()
    assert [entry["notation"] for entry in done["record"][:2]] == ["h6xf8", "f8xh10"]
    assert done["your_turn"] or done["over"]


def crosse_c5() -> str:
    """docs/crosse.md, example C5: 1B:h8-g7 completes Black's cover with stones on his first row."""
    pieces = {"B": ["d4", "g4", "d7", "h8", "c3", "a1", "e1"], "W": ["a9", "c9"]}
    return position_from_squares(10, "black", pieces).replace("ply: 0\n", "ply: 0\ntokens_black: 1B 2B 3F\n")


def test_crosse_remove_or_keep_is_a_choice(client):
    state = new_game(client, game="crosse", options={"cover_removal": "optional"}, position=crosse_c5())
    pair = [move for move in state["legal"]["moves"]["h8"] if move["to"] == "g7"]
    assert [move["notation"] for move in pair] == ["1B:h8-g7"]
    asked = client.post(f"/api/games/{state['id']}/move", json={"action": pair[0]["action"]}).json()
    assert sorted(choice["notation"] for choice in asked["legal"]["choices"]) == ["keep", "remove"]
    assert asked["legal"]["moves"] == {} and "remove or keep" in asked["status"]
    kept = client.post(f"/api/games/{state['id']}/move", json={"move": "keep", "reply": False}).json()
    assert kept["your_turn"] and kept["record"][-1]["notation"] == "keep"  # the extra turn follows


def test_the_opponent_can_move_first_and_a_spec_picks_it(client):
    state = new_game(client, game="crisscross", options={"size": 5}, side="second", opponent="greedy", seed=4)
    assert state["you"] == {"seat": 1, "colour": "blue"} and state["opponent"] == "greedy"
    assert state["your_turn"] and [entry["colour"] for entry in state["record"]] == ["red"]
    waiting = new_game(client, game="crisscross", side="second", reply=False)
    assert not waiting["your_turn"] and waiting["record"] == []
    refused(client.post(f"/api/games/{waiting['id']}/move", json={"move": "a1"}), 409, "not yours")
    assert client.post(f"/api/games/{waiting['id']}/reply").json()["your_turn"]
    assert new_game(client, game="crisscross", opponent="mcts:20")["opponent"] == "mcts20"


def test_a_pretrained_agent_from_the_packaged_folder_plays(client):
    pytest.importorskip("torch")
    state = new_game(client, game="charing_cross", opponent="pretrained:2", side="second")
    assert state["opponent"] == "pretrained-2" and state["record"][0]["colour"] == "white" and state["your_turn"]
    assert new_game(client, game="charing_cross", opponent="az:charing_cross.pt:1")["opponent"].startswith("az-")


# --------------------------------------------------------------------------- sessions
def test_sessions_are_isolated_and_their_ids_unguessable(client):
    one = new_game(client, game="crisscross", options={"size": 6}, seed=0)
    two = new_game(client, game="crisscross", options={"size": 6}, seed=0)
    assert one["id"] != two["id"] and len(one["id"]) >= 22
    client.post(f"/api/games/{one['id']}/move", json={"move": "c3"})
    assert client.get(f"/api/games/{two['id']}").json()["board"] == two["board"]
    assert client.get(f"/api/games/{one['id']}").json()["board"] != one["board"]
    refused(client.get("/api/games/not-a-game"), 404, "no game")
    refused(client.post("/api/games/not-a-game/move", json={"action": 0}), 404)
    assert client.delete(f"/api/games/{one['id']}").status_code == 204
    refused(client.get(f"/api/games/{one['id']}"), 404)


def finish(session: Session) -> Session:
    """Play ``session``'s game to its end (first legal action each turn)."""
    while not session.over:
        session.match.play(int(session.game.legal_actions(session.match.state)[0]))
    return session


def test_a_full_store_drops_finished_then_abandoned_games_and_never_one_in_progress():
    game = make_game("crisscross", size=4)

    def session() -> Session:
        return Session(game, RandomPlayer(0), 0, game.initial_state())

    store = SessionStore(limit=2, stale_seconds=60)
    first, second = store.add(session()), store.add(session())
    with pytest.raises(ServerFullError, match=r"2 game slots .* in progress; finish or close one") as full:
        store.add(session())
    assert full.value.status == 503 and len(store) == 2  # both games in progress are kept
    finish(second)
    third = store.add(session())  # the finished game made room, though used more recently than the first
    assert store.get(first.id) is first and store.get(third.id) is third and second.closed
    with pytest.raises(UnknownSessionError):
        store.get(second.id)
    first.last_used -= 120  # untouched longer than stale_seconds: abandoned
    fourth = store.add(session())
    assert store.get(fourth.id) is fourth and first.closed
    with pytest.raises(UnknownSessionError):
        store.get(first.id)
    idle = SessionStore(idle_seconds=0)
    gone = idle.add(session())
    with pytest.raises(UnknownSessionError):
        idle.get(gone.id)


def test_a_full_server_answers_503_saying_why():
    full = TestClient(create_app(max_sessions=1))
    new_game(full, game="crisscross", options={"size": 4}, reply=False)
    refused(full.post("/api/games", json={"game": "crisscross"}), 503, "in progress", "finish or close one")


class Blocking(Player):
    """An opponent that thinks until told to move."""

    name = "slow"

    def __init__(self) -> None:
        super().__init__(0)
        self.started, self.go = threading.Event(), threading.Event()

        self.calls = 0

    def act(self, game, state) -> int:
        self.calls += 1
        self.started.set()
        assert self.go.wait(30)
        return int(game.legal_actions(state)[0])


def blocked_session(store: SessionStore, opponent: Player) -> Session:
    """A Crisscross game in ``store`` where ``opponent`` moves first."""
    game = make_game("crisscross", size=4)
    return store.add(Session(game, opponent, 1, game.initial_state()))


class Pondering(Player):
    """An opponent whose search runs until it is interrupted, polling the stop flag as the compiled searches do
    between simulations (tests/test_eval.py checks that they do): a search that ends only when stopped, however
    fast or slow the machine. ``release`` ends it too, so that a failing test leaves no thread behind."""

    name = "pondering"

    def __init__(self) -> None:
        super().__init__(0)
        self.started, self.release = threading.Event(), threading.Event()
        self.interrupted = 0
        self.flags_at_start: list[int] = []

    def act(self, game, state) -> int:
        self.flags_at_start.append(int(self.stop_flag[0]))
        self.started.set()
        while not self.stop_flag[0] and not self.release.wait(0.001):
            pass
        self.interrupted += int(self.stop_flag[0])
        return int(game.legal_actions(state)[0])

    def stopped_under_way(self, reply: threading.Thread, stop) -> None:
        """Start ``reply`` (a thread that asks this opponent to move), call ``stop()`` once the search is under
        way, and check that the search ended on that interrupt (the waits are hang guards, never a verdict)."""
        reply.start()
        try:
            assert self.started.wait(60)
            stop()
            reply.join(60)
            assert not reply.is_alive() and self.interrupted == 1
        finally:
            self.release.set()
            reply.join()


def test_deleting_a_game_drops_its_opponents_search_and_starts_no_more():
    store, opponent = SessionStore(), Blocking()
    session = blocked_session(store, opponent)
    thread = threading.Thread(target=session.reply)
    thread.start()
    assert opponent.started.wait(10)
    store.remove(session.id)  # DELETE while the opponent searches
    opponent.go.set()
    thread.join(10)
    assert not thread.is_alive() and session.match.record == [] and opponent.calls == 1
    assert not session.thinking


def asgi_scope(method: str, path: str, body_length: int = 0) -> dict:
    headers = [(b"host", b"testserver"), (b"content-type", b"application/json")]
    if body_length:
        headers.append((b"content-length", str(body_length).encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 5000),
    }


def call_app(app, scope: dict, messages: list[dict], delivered: threading.Event | None = None) -> list[dict]:
    """Call the ASGI app directly: ``messages`` are received in turn (``delivered`` set with the last, then it waits);
    what it sent."""
    sent: list[dict] = []
    delivered = delivered or threading.Event()

    async def run() -> None:
        queue = list(messages)

        async def receive() -> dict:
            if queue:
                message = queue.pop(0)
                if not queue:
                    delivered.set()
                return message
            await asyncio.sleep(3600)
            raise AssertionError("unreachable")

        async def send(message: dict) -> None:
            sent.append(message)

        await app(scope, receive, send)

    asyncio.run(run())
    return sent


def test_a_client_gone_mid_body_is_answered_without_a_server_error():
    app = create_app()
    scope = asgi_scope("POST", "/api/games", body_length=100)
    chunk = {"type": "http.request", "body": b'{"game": "cri', "more_body": True}
    sent = call_app(app, scope, [chunk, {"type": "http.disconnect"}])  # raised ClientDisconnect before
    start = next(message for message in sent if message["type"] == "http.response.start")
    assert start["status"] == 400 and len(app.state.api.store) == 0


def test_a_client_gone_during_the_reply_drops_the_search():
    app = create_app()
    opponent = Blocking()
    session = blocked_session(app.state.api.store, opponent)
    delivered = threading.Event()  # the disconnect was read: the search ends after it

    def move_once_the_client_is_gone() -> None:
        assert opponent.started.wait(10) and delivered.wait(10)
        polls = 0  # until the app has read the disconnect and interrupted the search (30,000 polls: a hang guard)
        while not opponent.stop_flag[0] and polls < 30_000:
            time.sleep(0.001)
            polls += 1
        opponent.go.set()

    threading.Thread(target=move_once_the_client_is_gone).start()
    body = {"type": "http.request", "body": b"", "more_body": False}
    messages = [body, {"type": "http.disconnect"}]
    call_app(app, asgi_scope("POST", f"/api/games/{session.id}/reply"), messages, delivered)
    assert opponent.calls == 1 and session.match.record == [] and not session.thinking
    assert session.describe()["to_move"] == session.game.colours[0]  # still the opponent's move: asked again later


def test_many_slow_replies_never_starve_new_games():
    app = create_app(search_workers=2)
    opponent = Blocking()
    sessions = [blocked_session(app.state.api.store, opponent) for _ in range(45)]  # more than Starlette's 40 threads
    with TestClient(app) as client:
        answers: list[int] = []
        threads = [
            threading.Thread(target=lambda s=s: answers.append(client.post(f"/api/games/{s.id}/reply").status_code))
            for s in sessions
        ]
        for thread in threads:
            thread.start()
        assert opponent.started.wait(10)
        polls = 0  # until every reply is asked for (30,000 polls: a hang guard)
        while not all(s.thinking for s in sessions) and polls < 30_000:
            time.sleep(0.001)
            polls += 1
        assert all(s.thinking for s in sessions)
        new_game(client, game="crisscross", options={"size": 4}, reply=False)
        # made while every search still waits (a new game that waited for them would come after their 30 s
        # guard ran out and failed them)
        assert not opponent.go.is_set() and answers == []
        assert client.get(f"/api/games/{sessions[-1].id}").json()["thinking"]  # queued replies count as thinking
        opponent.go.set()
        for thread in threads:
            thread.join(30)
    assert answers == [200] * 45 and all(len(s.match.record) == 1 for s in sessions)


def test_while_the_opponent_thinks_the_state_reads_and_moves_wait():
    game = make_game("crisscross", size=4)
    opponent = Blocking()
    session = Session(game, opponent, 1, game.initial_state())
    thread = threading.Thread(target=session.reply)
    thread.start()
    assert opponent.started.wait(10)
    described = session.describe()  # not blocked by the search
    assert described["thinking"] and not described["your_turn"] and not described["can_undo"]
    for attempt in (lambda: session.move(0), session.undo, session.reply):
        with pytest.raises(TurnError, match="thinking"):
            attempt()
    opponent.go.set()
    thread.join(10)
    assert session.describe()["your_turn"]


def test_mcts_releases_the_gil_so_a_search_never_stalls_the_server():
    search = specialize("crossenvs.players.mcts", type(make_game("crisscross"))).search
    assert search.targetoptions.get("nogil")


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"game": "chess"}, 400, ["unknown game 'chess'", "crosse"]),
        ({}, 400, ["'game' must be a string"]),
        ({"game": "crosse", "options": {"size": 6}}, 400, ["unknown option(s) size"]),
        ({"game": "crosse", "options": {"move_cap": 0}}, 400, ["move_cap must be an integer from 1"]),
        ({"game": "crosse", "options": {"move_cap": [1]}}, 400, ["option 'move_cap' must be a string, number"]),
        ({"game": "crosse", "options": "fast"}, 400, ["'options' must be an object"]),
        ({"game": "crosse", "side": "red"}, 400, ["'side' must be one of first, second, black, white"]),
        ({"game": "crosse", "opponent": "alphago"}, 400, ["unknown opponent 'alphago'"]),
        ({"game": "crosse", "opponent": "mcts:lots"}, 400, ["mcts:<simulations>"]),
        ({"game": "crosse", "opponent": "mcts:²"}, 400, ["'²' is not a whole number"]),  # was a 500
        ({"game": "crosse", "opponent": "pretrained:²"}, 400, ["'²' is not a whole number"]),
        ({"game": "crosse", "opponent": "rllib:runs/x"}, 400, ["unknown opponent 'rllib:runs/x'"]),  # never unpickled
        ({"game": "crosse", "opponent": "mcts:99999"}, 400, ["at most 1000", "--max-simulations"]),
        (
            {"game": "crosse", "options": {"move_cap": 300}, "opponent": "pretrained"},
            400,
            ["no pretrained agent for crosse", "move_cap"],
        ),
        ({"game": "crosse", "position": "to_move: pink\n"}, 400, ["to_move", "pink"]),
        ({"game": "crosse", "seed": -1}, 400, ["seed must be"]),
        ({"game": "crosse", "speed": 2}, 400, ["unknown field(s) 'speed'", "game, options"]),
        ({"game": "crosse", "reply": "yes"}, 400, ["'reply' must be true or false"]),
    ],
)
def test_a_bad_new_game_is_refused_with_what_was_wrong(client, body, status, words):
    refused(client.post("/api/games", json=body), status, *words)


def test_malformed_bodies_are_refused(client):
    headers = {"content-type": "application/json"}
    refused(client.post("/api/games", content=b"{not json", headers=headers), 400, "not valid JSON")
    refused(client.post("/api/games", content=b"[1, 2]", headers=headers), 400, "JSON object")
    refused(client.post("/api/games", content=b"\xff\xfe", headers=headers), 400, "not valid JSON")
    refused(client.post("/api/games", content=b'{"game": "crosse"}'), 415, "application/json")
    big = json.dumps({"game": "crosse", "position": "x" * MAX_BODY}).encode()
    refused(client.post("/api/games", content=big, headers=headers), 413, "at most")
    refused(client.get("/api/games"), 405)


def test_json_nested_too_deeply_is_refused_not_a_server_error(client):
    headers = {"content-type": "application/json"}
    deep = "[" * 20_000 + "]" * 20_000  # under the size limit, over Python's recursion limit
    refused(client.post("/api/games", content=deep.encode(), headers=headers), 400, "nested too deeply")
    body = '{"game": "crosse", "options": {"move_cap": ' + deep + "}}"
    refused(client.post("/api/games", content=body.encode(), headers=headers), 400, "nested too deeply")
    state = new_game(client, game="crisscross", options={"size": 4}, reply=False)
    move = '{"action": ' + deep + "}"
    refused(client.post(f"/api/games/{state['id']}/move", content=move.encode(), headers=headers), 400, "nested")


def body_request(chunks: list[bytes], headers: dict[str, str]) -> tuple[Request, list[int]]:
    """A request whose body arrives in ``chunks`` (sent without end while any remain), and the count of reads."""
    reads = [0]

    async def receive():
        reads[0] += 1
        more = reads[0] < len(chunks)
        return {"type": "http.request", "body": chunks[reads[0] - 1], "more_body": more}

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
    }
    return Request(scope, receive), reads


def test_a_body_over_the_limit_is_refused_before_it_is_all_read():
    json_header = {"content-type": "application/json"}
    declared, reads = body_request([b"{}"], {**json_header, "content-length": str(10**12)})
    with pytest.raises(PayloadTooLargeError, match="at most"):
        asyncio.run(read_json(declared, ()))
    assert reads[0] == 0  # the declared length decides: nothing read
    streamed, reads = body_request([b" " * 16_384] * 1000, json_header)  # chunked: no length declared
    with pytest.raises(PayloadTooLargeError, match="more than"):
        asyncio.run(read_json(streamed, ()))
    assert reads[0] == MAX_BODY // 16_384 + 1  # read up to the limit, not the 16 MB sent
    small, _ = body_request([b'{"game": ', b'"crosse"}'], json_header)
    assert asyncio.run(read_json(small, ("game",))) == {"game": "crosse"}


#: values of every JSON type, and the awkward ones: none of them may make the server fail (500)
ODD_VALUES = [None, True, 0, -1, 2**64, 1.5, 1e308, "", "1", "x" * 300, [], [1], {}, {"a": None}]


def test_wrong_json_types_in_any_field_answer_4xx_with_an_error():
    client = TestClient(create_app(), raise_server_exceptions=False)  # a 500 answers rather than raises here
    base = {"game": "crisscross", "options": {"size": 4}, "reply": False}
    state = new_game(client, **base)
    attempts = [
        ("/api/games", {**base, field: value})
        for field in [*base, "side", "opponent", "position", "seed"]
        for value in ODD_VALUES
    ]
    attempts += [("/api/games", {**base, "options": {"size": value}}) for value in ODD_VALUES]
    path = f"/api/games/{state['id']}/move"
    attempts += [(path, {field: value}) for field in ("action", "move") for value in ODD_VALUES]
    attempts += [(path, {"action": 0, "reply": value}) for value in ODD_VALUES]
    for url, body in attempts:
        response = client.post(url, json=body)
        assert response.status_code < 500, (url, body, response.text)
        if response.status_code >= 400:
            assert isinstance(response.json()["error"], str), (url, body, response.text)
    assert client.get(f"/api/games/{state['id']}").status_code == 200


def test_illegal_and_malformed_moves_are_refused_and_change_nothing(client):
    state = new_game(client, game="crosse", seed=0)
    path = f"/api/games/{state['id']}/move"
    refused(client.post(path, json={"action": 1094}), 400, "not legal now", "legal moves: ")
    refused(client.post(path, json={"action": 10**9}), 400, "no action id of crosse")
    refused(client.post(path, json={"action": True}), 400, "integer action id")
    refused(client.post(path, json={}), 400, "exactly one of")
    refused(client.post(path, json={"action": 3, "move": "pass"}), 400, "exactly one of")
    message = refused(client.post(path, json={"move": "z9-z10"}), 400, "cannot read move")
    assert "help" not in message  # the terminal's hint; the page rings the movable pieces
    refused(client.post(path, json={"move": "f4-g5"}), 400, "fits 1F:f4-g5 or 2F:f4-g5 or 3F:f4-g5")
    assert client.post(path, json={"move": "f4-i5", "reply": False}).json()["record"][0]["notation"] == "3F:f4-i5"
    refused(client.post(path, json={"move": "pass"}), 409, "not yours")
    refused(client.post(f"/api/games/{state['id']}/undo", json={"all": True}), 400, "unknown field")


def test_a_move_the_api_cannot_read_points_to_its_moves_route_not_to_the_pages_clicks(client):
    crosse = new_game(client, game="crosse", seed=0, reply=False)
    message = refused(client.post(f"/api/games/{crosse['id']}/move", json={"move": "z9-z10"}), 400)
    assert message.endswith(f"GET /api/games/{crosse['id']}/moves lists the legal moves") and "ringed" not in message
    state = new_game(client, game="crisscross", options={"size": 5}, reply=False)
    message = refused(client.post(f"/api/games/{state['id']}/move", json={"move": "z9"}), 400, "off the 5x5 board")
    assert message.endswith(f"GET /api/games/{state['id']}/moves lists the legal moves"), message
    assert "ringed" not in message and "click" not in message, message
    message = refused(client.post(f"/api/games/{state['id']}/move", json={"move": "a1 b2"}), 400)
    assert "a move places one piece: type one empty square, such as a1 (GET /api/games/" in message, message


def test_nothing_to_undo_and_a_finished_game_answer_409(client):
    state = new_game(client, game="crisscross", options={"size": 4}, side="second", seed=0)
    refused(client.post(f"/api/games/{state['id']}/undo"), 409, "nothing to undo")
    red_wins = "to_move: blue\nply: 7\n4 R . . .\n3 R . . .\n2 R . . B\n1 R B . B\n"
    over = new_game(client, game="crisscross", options={"size": 4}, position=red_wins)
    assert (
        over["over"] and over["result"]["line"] == "Game over: Red wins: Red joined the top and bottom edges. You win."
    )
    refused(client.post(f"/api/games/{over['id']}/move", json={"move": "b2"}), 409, "the game is over")


# --------------------------------------------------------------------------- checkpoints
@pytest.mark.parametrize(
    "spec",
    [
        "az:../../../../etc/passwd",
        "az:/etc/passwd",
        "az:../__init__.py:4",
        "../../outside.zip",
        "/tmp/outside.zip",
        "az:%2e%2e/secret.pt",
    ],
)
def test_checkpoints_outside_the_allowed_folders_are_forbidden(client, spec):
    response = client.post("/api/games", json={"game": "charing_cross", "opponent": spec})
    if "%2e" in spec:  # not decoded: a name inside the folder that does not exist
        refused(response, 400, "no checkpoint")
    else:
        refused(response, 403, "outside the allowed folders", "--checkpoints")


def test_checkpoint_folders_given_to_the_server_are_allowed_and_nothing_else(tmp_path, monkeypatch):
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    (outside / "secret.pt").write_bytes(b"not a checkpoint")
    (allowed / "escape.pt").symlink_to(outside / "secret.pt")
    (allowed / "broken.pt").write_bytes(b"not a checkpoint")
    client = TestClient(create_app([allowed]))
    catalog = client.get("/api/catalog").json()["opponents"]
    assert "az:broken.pt" in catalog and "az:charing_cross.pt" in catalog
    body = {"game": "charing_cross"}
    refused(client.post("/api/games", json={**body, "opponent": "az:escape.pt"}), 403, "outside")
    refused(client.post("/api/games", json={**body, "opponent": f"az:{outside / 'secret.pt'}"}), 403, "outside")
    refused(client.post("/api/games", json={**body, "opponent": "az:missing.pt"}), 400, "no checkpoint 'missing.pt'")
    too_long = "az:" + "a" * 5000 + ".pt"  # the file system refuses the name: no file there, not a server error
    refused(client.post("/api/games", json={**body, "opponent": too_long}), 400, "no checkpoint")
    refused(client.post("/api/games", json={**body, "opponent": f"az:{outside}/{'a' * 5000}.pt"}), 403, "outside")
    refused(client.post("/api/games", json={**body, "opponent": "az:broken.pt"}), 400, "broken.pt")
    monkeypatch.chdir(outside)  # a file in the working folder named like a kind is never read
    (outside / "greedy").write_bytes(b"not a checkpoint")
    assert new_game(client, **body, opponent="greedy")["opponent"] == "greedy"


# --------------------------------------------------------------------------- the command and the real server
def serve_error(arguments: list[str], capsys) -> str:
    code = cli(["serve", *arguments], out=io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_serve_checks_its_flags(capsys, tmp_path):
    assert "--port must be from 1 to 65535, got 0" in serve_error(["--port", "0"], capsys)
    assert "--port must be from 1 to 65535, got 70000" in serve_error(["--port", "70000"], capsys)
    assert "--max-simulations must be at least 1" in serve_error(["--max-simulations", "0"], capsys)
    assert "no such folder" in serve_error(["--checkpoints", str(tmp_path / "missing")], capsys)
    assert "not an address" in serve_error(["--host", "no-such-host.invalid", "--port", "8123"], capsys)


def test_serve_defaults_to_localhost_and_the_search_cap():
    from crossenvs.cli import build_parser
    from crossenvs.web.opponents import DEFAULT_MAX_SIMULATIONS

    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.max_simulations) == ("127.0.0.1", 8000, DEFAULT_MAX_SIMULATIONS)
    client = TestClient(create_app(max_simulations=50))
    refused(client.post("/api/games", json={"game": "crisscross", "opponent": "mcts:51"}), 400, "at most 50")
    assert new_game(client, game="crisscross", opponent="mcts:50", reply=False)["opponent"] == "mcts50"


def test_serve_says_when_the_port_is_taken(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert f"--port {port}: the port is in use" in serve_error(["--port", str(port)], capsys)


def test_only_loopback_host_names_are_answered_on_localhost():
    app = create_app(allowed_hosts=LOOPBACK_HOSTS)
    assert TestClient(app, base_url="http://127.0.0.1:8000").get("/api/catalog").status_code == 200
    assert TestClient(app, base_url="http://localhost:8000").get("/").status_code == 200
    refusal = TestClient(app, base_url="http://evil.example").get("/api/catalog")
    refused(refusal, 400, "evil.example", "localhost")  # JSON, like every refusal
    assert TestClient(app, base_url="http://[::1]:8000").get("/api/catalog").status_code == 200
    for host in ("127.0.0.1.evil.example", "localhost.evil.example:8000", "127.0.0.1:8000@evil.example", ""):
        refused(TestClient(app).get("/", headers={"host": host}), 400, "localhost")


def test_serve_on_another_loopback_address_answers_its_own_url():
    with served(["--host", "127.0.0.2"]) as url:
        assert url.startswith("http://127.0.0.2:")
        with urllib.request.urlopen(f"{url}api/catalog", timeout=30) as answer:
            assert answer.status == 200  # the address it prints is one it answers
        rebound = urllib.request.Request(url, headers={"Host": "attacker.example"})
        with pytest.raises(urllib.error.HTTPError) as refusal:
            urllib.request.urlopen(rebound, timeout=30)
        assert refusal.value.code == 400 and "attacker.example" in json.load(refusal.value)["error"]


def test_crossenvs_serve_serves_the_page_on_localhost():
    with served() as url:
        assert url.startswith("http://127.0.0.1:")
        with urllib.request.urlopen(url, timeout=30) as page:
            assert b'<svg id="board"' in page.read()
        request = urllib.request.Request(
            f"{url}api/games",
            data=json.dumps({"game": "crosse", "options": {"move_cap": 4}}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as answer:
            assert json.load(answer)["your_turn"]
        rebound = urllib.request.Request(url, headers={"Host": "attacker.example"})
        with pytest.raises(urllib.error.HTTPError) as refusal:
            urllib.request.urlopen(rebound, timeout=30)
        assert refusal.value.code == 400


def test_deleting_a_game_interrupts_its_opponents_search_mid_way():
    """A DELETE stops the search under way (its player's stop flag, which MCTS polls inside its compiled loop), not
    only the searches after it: the opponent here searches until it is interrupted."""
    store, opponent = SessionStore(), Pondering()
    session = blocked_session(store, opponent)
    opponent.stopped_under_way(threading.Thread(target=session.reply), lambda: store.remove(session.id))
    assert session.match.record == [] and not session.thinking


def test_a_page_that_leaves_interrupts_the_search_but_keeps_the_game():
    store, opponent = SessionStore(), Pondering()
    session = blocked_session(store, opponent)
    gone = threading.Event()
    session.claim_reply()

    def client_gone() -> None:  # what the server does when the client disconnects
        gone.set()
        session.interrupt_reply()

    opponent.stopped_under_way(threading.Thread(target=session.claimed_reply, args=(gone.is_set,)), client_gone)
    assert session.match.record == [] and not session.closed
    session.reply()  # released: the next search answers at once, started with the flag cleared
    assert opponent.flags_at_start == [0, 0] and opponent.interrupted == 1 and len(session.match.record) == 1


def test_the_serve_command_hands_its_docs_url_to_the_app(monkeypatch):
    import crossenvs.web
    from crossenvs.cli import main

    served = {}
    monkeypatch.setattr(crossenvs.web, "serve", lambda *args, **kwargs: served.update(args=args, kwargs=kwargs))
    assert main(["serve", "--port", "8123", "--docs-url", "/rules/{name}.html"], out=io.StringIO()) == 0
    assert served["args"][1] == 8123 and served["args"][5] == "/rules/{name}.html"
