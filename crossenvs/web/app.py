"""The web app behind ``crossenvs serve``: the page and its JSON API (Starlette).

========  ==============================  =====================================================
method    path                            what
========  ==============================  =====================================================
GET       ``/``                           the page (``static/``: HTML, one plain JS file, CSS)
GET       ``/api/catalog``                games with their options, suggested opponents
POST      ``/api/games``                  new game: ``{game, options, side, opponent, position,
                                          seed, reply}`` -> 201 and the state
GET       ``/api/games/{id}``             the state: board, legal moves by square, record, ...
GET       ``/api/games/{id}/moves``       the legal moves only (by square, and in notation)
POST      ``/api/games/{id}/move``        ``{action: id}`` or ``{move: "3F:f4-i5"}``, ``reply``
POST      ``/api/games/{id}/reply``       the opponent plays until it is the person's turn
POST      ``/api/games/{id}/undo``        back to before the person's last action
DELETE    ``/api/games/{id}``             forget the game
========  ==============================  =====================================================

Every refusal is JSON ``{"error": "..."}`` with a 4xx status: 400 malformed or illegal, 403 a
checkpoint outside the allowed folders, 404 an unknown game id, 409 not the moment (not your
turn, game over, opponent thinking, nothing to undo), 413 too large, 415 not JSON; 400 too for a
Host header the server does not answer, and 503 when every game slot holds a game in progress
(finished games and games untouched for a while make room first: ``SessionStore`` in ``crossenvs/web/sessions.py``).
``reply`` (default true) lets the opponent answer within the same request; the page sends false
and then asks ``/reply``, so the person's move shows while the opponent searches.

Making a game runs in Starlette's thread pool; the opponents' searches run in a pool of their
own (``search_workers`` threads, a queue behind them), so however many replies are due, the
server keeps answering other requests. A search is cancelled when its game is deleted or its
request's client disconnects: the opponent is interrupted mid-search (see ``crossenvs/web/sessions.py``). A client that
disconnects while sending its body is answered nothing and logged nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from crossenvs.support.extras import needs_extra

with needs_extra("web", "the web app (crossenvs serve)"):
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.datastructures import Headers
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

from crossenvs.support.checks import check_seed
from crossenvs.support.errors import CrossenvsError

from ..core.game import Game
from ..core.registry import make_game
from .board import catalog, rules_page
from .errors import BadRequestError, ClientGoneError, ContentTypeError, PayloadTooLargeError
from .opponents import DEFAULT_MAX_SIMULATIONS, CheckpointFolders, make_opponent
from .sessions import MAX_SESSIONS, Session, SessionStore

STATIC = Path(__file__).resolve().parent / "static"
#: request bodies above this are refused (a position text is under a kilobyte)
MAX_BODY = 64 * 1024
#: the hosts a server bound to the loopback answers (a page of another site that rebinds its name to
#: 127.0.0.1 sends its own name as Host, and is refused); ``crossenvs serve`` adds the address it listens on
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: a Host header: a name or IPv4 address, or an IPv6 address in brackets, then perhaps a port
HOST_HEADER = re.compile(r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<name>[^:\[\]@/\s]+))(?::[0-9]{0,5})?")
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
#: threads that run the opponents' searches (more replies wait in a queue; requests never wait for them)
SEARCH_WORKERS = max(2, min(8, os.cpu_count() or 2))
NEW_GAME_FIELDS = ("game", "options", "side", "opponent", "position", "seed", "reply")
MOVE_FIELDS = ("action", "move", "reply")


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every answer: scripts and styles from this server only, no framing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, send_with_headers if scope["type"] == "http" else send)


def host_of(header: str) -> str | None:
    """The host a Host header names, lower case, without its port or IPv6 brackets; None if it names none."""
    match = HOST_HEADER.fullmatch(header.strip())
    if match is None:
        return None
    return (match["ipv6"] or match["name"]).lower()


class AllowedHosts:
    """Answers only requests whose Host header names one of ``hosts``; others get a JSON 400.

    Starlette's ``TrustedHostMiddleware`` does the same with a plain-text answer; here every refusal
    is ``{"error": ...}`` like the API's own.
    """

    def __init__(self, app: ASGIApp, hosts: Sequence[str]) -> None:
        self.app = app
        self.hosts = frozenset(host.strip("[]").lower() for host in hosts)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            header = Headers(scope=scope).get("host", "")
            if host_of(header) not in self.hosts:
                error = (
                    f"this server answers requests addressed to {', '.join(sorted(self.hosts))} only, "
                    f"not to Host {header[:80]!r}; open the address crossenvs serve printed"
                )
                await JSONResponse({"error": error}, status_code=400)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class Api:
    """The request handlers over one :class:`SessionStore` and one set of checkpoint folders."""

    def __init__(
        self,
        folders: CheckpointFolders,
        max_simulations: int,
        max_sessions: int,
        search_workers: int = SEARCH_WORKERS,
        docs_url: str | None = None,
    ) -> None:
        self.folders = folders
        self.max_simulations = max_simulations
        self.store = SessionStore(max_sessions)
        self.searches = ThreadPoolExecutor(search_workers, thread_name_prefix="crossenvs-search")
        self.docs_url = docs_url

    async def search(self, request: Request, session: Session) -> None:
        """The opponent's reply, in the search pool; cancelled when the game is closed or the client leaves."""
        session.claim_reply()
        gone = threading.Event()
        try:
            future = self.searches.submit(session.claimed_reply, gone.is_set)
        except BaseException:  # the pool is shut down: nothing will clear the flag
            session.claimed_reply(lambda: True)
            raise
        watcher = asyncio.ensure_future(watch_disconnect(request, gone, session.interrupt_reply))
        try:
            await asyncio.wrap_future(future)
        finally:
            gone.set()  # a handler cancelled here leaves no move to be played later
            watcher.cancel()

    async def index(self, request: Request) -> Response:
        """The page."""
        return FileResponse(STATIC / "index.html")

    async def rules(self, request: Request) -> Response:
        """A game's rules in the package's own words (the page's default rules link)."""
        from crossenvs.support.errors import UnknownGameError

        name = request.path_params["name"]
        try:
            return HTMLResponse(rules_page(name))
        except UnknownGameError:
            raise HTTPException(404, f"no game named {name!r}") from None

    async def catalog(self, request: Request) -> Response:
        """The games with their options, and the opponents the page suggests."""
        own = self.folders.listed  # the --checkpoints folders' own are listed by name; the packaged are 'pretrained'
        return JSONResponse(
            await run_in_threadpool(lambda: catalog(own(), self.max_simulations, self.docs_url, own(packaged=False)))
        )

    async def new_game(self, request: Request) -> Response:
        """A new game (201), after the opponent's first turn unless ``reply`` is false."""
        body = await read_json(request, NEW_GAME_FIELDS)
        reply = flag(body, "reply")
        session = await run_in_threadpool(self.make_session, body)
        if reply:
            await self.search(request, session)
        return JSONResponse(session.describe(), status_code=201)

    async def state(self, request: Request) -> Response:
        """The game as the page draws it (:meth:`Session.describe`)."""
        return JSONResponse(self.session(request).describe())

    async def moves(self, request: Request) -> Response:
        """The legal moves only: by square, placements, choices, and all of them in notation."""
        session = self.session(request)
        described = session.describe()
        notations = [m["notation"] for group in described["legal"]["moves"].values() for m in group]
        notations += [m["notation"] for m in described["legal"]["placements"] + described["legal"]["choices"]]
        return JSONResponse({**described["legal"], "notations": notations, "your_turn": described["your_turn"]})

    async def move(self, request: Request) -> Response:
        """The person's action, then the opponent's reply unless ``reply`` is false."""
        session = self.session(request)
        body = await read_json(request, MOVE_FIELDS)
        action, text = move_fields(body)
        reply = flag(body, "reply")
        await run_in_threadpool(session.move, action, text)
        if reply:
            await self.search(request, session)
        return JSONResponse(session.describe())

    async def reply(self, request: Request) -> Response:
        """The opponent plays until it is the person's turn (or the game is over)."""
        session = self.session(request)
        await read_json(request, ())
        await self.search(request, session)
        return JSONResponse(session.describe())

    async def undo(self, request: Request) -> Response:
        """Back to before the person's last action."""
        session = self.session(request)
        await read_json(request, ())
        session.undo()
        return JSONResponse(session.describe())

    async def close(self, request: Request) -> Response:
        """Forget the game (204)."""
        self.store.remove(request.path_params["session_id"])
        return Response(status_code=204)

    def session(self, request: Request) -> Session:
        """The session the path names; 404 if there is none."""
        return self.store.get(request.path_params["session_id"])

    def make_session(self, body: dict[str, Any]) -> Session:
        """A new game from the request's fields (each checked, each error naming its field)."""
        name = text_field(body, "game", required=True)
        game = make_game(name, **options_field(body))
        human = seat_of(game, body.get("side", "first"))
        position = text_field(body, "position")
        state = game.from_text(position) if position and position.strip() else game.initial_state()
        seed = check_seed(body.get("seed"), "seed")
        spec = text_field(body, "opponent") or "random"
        opponent = make_opponent(spec, game, self.folders, seed, self.max_simulations)
        return self.store.add(Session(game, opponent, human, state))


# ----------------------------------------------------------------------------- request bodies
async def watch_disconnect(request: Request, gone: threading.Event, on_gone: Callable[[], None]) -> None:
    """Set ``gone`` and call ``on_gone`` when the client disconnects (the body is read already: the next
    message is the disconnect)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            gone.set()
            on_gone()
            return


async def read_body(request: Request) -> bytes:
    """The body, at most :data:`MAX_BODY` bytes: a larger declared length is refused (413) before any is
    read, and a body sent in chunks is read no further than the limit."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise PayloadTooLargeError(f"the request body has {declared} bytes; at most {MAX_BODY} are read")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise PayloadTooLargeError(
                    f"the request body has more than {MAX_BODY} bytes; at most {MAX_BODY} are read"
                )
            chunks.append(chunk)
    except ClientDisconnect:  # no one to answer: an expected refusal, not a server error with a traceback
        raise ClientGoneError("the client disconnected before sending the whole body") from None
    return b"".join(chunks)


async def read_json(request: Request, fields: Sequence[str]) -> dict[str, Any]:
    """The body as a JSON object with only ``fields`` in it ({} for an empty body); 4xx saying what is wrong."""
    body = await read_body(request)
    if not body.strip():
        return {}
    if request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        raise ContentTypeError("send the body as JSON with the header Content-Type: application/json")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequestError(f"the body is not valid JSON: {exc}") from None
    except RecursionError:
        raise BadRequestError(
            "the body is JSON nested too deeply; the API's objects are one or two levels deep"
        ) from None
    if not isinstance(data, dict):
        raise BadRequestError(f"the body must be a JSON object {{...}}, not {type(data).__name__}")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        takes = ", ".join(fields) or "no fields"
        raise BadRequestError(f"unknown field(s) {', '.join(map(repr, unknown))}; this request takes {takes}")
    return data


def text_field(body: dict[str, Any], name: str, required: bool = False) -> str | None:
    """The string field ``name`` (None when absent, unless ``required``); 400 for anything but a string."""
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise BadRequestError(f"field {name!r} must be a string, got {json.dumps(value)[:40]}")
    return value


def flag(body: dict[str, Any], name: str, default: bool = True) -> bool:
    """The true/false field ``name`` (``default`` when absent); 400 for anything else."""
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise BadRequestError(f"field {name!r} must be true or false, got {json.dumps(value)[:40]}")
    return value


def options_field(body: dict[str, Any]) -> dict[str, Any]:
    """The game options: an object of names to strings, numbers or booleans (the game checks the values)."""
    options = body.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequestError("field 'options' must be an object such as {\"move_cap\": 40}")
    for key, value in options.items():
        if not isinstance(value, (str, int, float, bool)):
            raise BadRequestError(f"option {key!r} must be a string, number or boolean, got {json.dumps(value)[:40]}")
    return options


def seat_of(game: Game, side: Any) -> int:
    """The person's seat: ``first``/``second``, ``0``/``1``, or a colour of the game (``black``)."""
    words = {"first": 0, "second": 1, "0": 0, "1": 1, **{colour: seat for seat, colour in enumerate(game.colours)}}
    if isinstance(side, int) and not isinstance(side, bool) and side in (0, 1):
        return side
    if isinstance(side, str) and side.strip().lower() in words:
        return words[side.strip().lower()]
    choices = ", ".join(["first", "second", *game.colours])
    raise BadRequestError(f"field 'side' must be one of {choices} (or the seat 0 or 1), got {json.dumps(side)[:40]}")


def move_fields(body: dict[str, Any]) -> tuple[int | None, str | None]:
    """``(action, None)`` or ``(None, notation)``: exactly one of the fields ``action`` and ``move``."""
    if ("action" in body) == ("move" in body):
        raise BadRequestError('give exactly one of "action" (an action id) and "move" (notation such as "a4-b5")')
    if "move" in body:
        return None, text_field(body, "move", required=True)
    action = body["action"]
    if isinstance(action, bool) or not isinstance(action, int):
        raise BadRequestError(f"field 'action' must be an integer action id, got {json.dumps(action)[:40]}")
    return action, None


# ----------------------------------------------------------------------------- errors as JSON
async def crossenvs_error(request: Request, exc: Exception) -> Response:
    """A refusal: the error's own sentence, with its status (400 for the engine's errors)."""
    return JSONResponse({"error": str(exc)}, status_code=getattr(exc, "status", 400))


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such route, method not allowed) as JSON."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        return JSONResponse({"error": f"no such page or API route: {request.url.path}"}, status_code=404)
    return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)


async def server_error(request: Request, exc: Exception) -> Response:
    """A bug: a JSON 500 without the traceback (uvicorn logs it)."""
    return JSONResponse({"error": f"internal error ({type(exc).__name__}); the server log has the details"}, 500)


def create_app(
    checkpoints: Sequence[str | Path] = (),
    max_simulations: int = DEFAULT_MAX_SIMULATIONS,
    allowed_hosts: Sequence[str] | None = None,
    max_sessions: int = MAX_SESSIONS,
    search_workers: int = SEARCH_WORKERS,
    docs_url: str | None = None,
    trust_pickles: bool = False,
) -> Starlette:
    """The app: checkpoints from the packaged agents and ``checkpoints``; ``allowed_hosts`` None answers any Host;
    ``docs_url`` the address of the rules pages (``DOCS_URL`` of ``crossenvs/web/board.py`` when None);
    ``trust_pickles`` lets pages name ``pickle:<file>.zip`` (unpickled: runs any code the file holds)."""
    api = Api(
        CheckpointFolders(checkpoints, trust_pickles=trust_pickles),
        max_simulations,
        max_sessions,
        search_workers,
        docs_url,
    )
    game_path = "/api/games/{session_id}"
    routes = [
        Route("/", api.index),
        Route("/api/catalog", api.catalog),
        Route("/rules/{name}", api.rules),
        Route("/api/games", api.new_game, methods=["POST"]),
        Route(game_path, api.state, methods=["GET"]),
        Route(game_path, api.close, methods=["DELETE"]),
        Route(f"{game_path}/moves", api.moves),
        Route(f"{game_path}/move", api.move, methods=["POST"]),
        Route(f"{game_path}/reply", api.reply, methods=["POST"]),
        Route(f"{game_path}/undo", api.undo, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(SecurityHeaders)]
    if allowed_hosts is not None:
        middleware.append(Middleware(AllowedHosts, hosts=list(allowed_hosts)))
    handlers = {CrossenvsError: crossenvs_error, HTTPException: http_error, Exception: server_error}
    app = Starlette(routes=routes, middleware=middleware, exception_handlers=handlers)
    app.state.api = api
    return app
