"""``crossenvs serve``: the web app on uvicorn, on a socket bound here first.

Binding before uvicorn starts turns the usual failures into one ``error:`` line that says what to
do (the port is taken, the host is no address of this machine) instead of a server log. The
default host is the loopback, reachable from this machine only; another host is a choice the
person makes with ``--host``, and the server then answers any Host header.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from crossenvs.support.errors import UsageError
from crossenvs.support.extras import missing_extra

from .opponents import DEFAULT_MAX_SIMULATIONS

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def is_loopback(host: str) -> bool:
    """Whether ``host`` is ``localhost`` or a loopback address (``127.0.0.0/8``, ``::1``, in brackets or not)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; :class:`UsageError` naming the flag when it cannot be had."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise UsageError(f"--host {host}: not an address or name of this machine ({exc})") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait out TIME_WAIT
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise UsageError(
                f"--port {port}: the port is in use on {host} (another crossenvs serve?); "
                f"choose another, e.g. --port {port + 1 if port < 65535 else 8000}"
            ) from None
        if exc.errno == errno.EACCES:
            raise UsageError(f"--port {port}: not allowed to listen there (ports below 1024 need root)") from None
        raise UsageError(f"--host {host} --port {port}: cannot listen there: {exc.strerror}") from None
    return sock


def url_of(sock: socket.socket) -> str:
    """The URL of the page on the listening socket ``sock`` (an IPv6 address in brackets)."""
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def serve(
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    checkpoints: Sequence[str | Path] = (),
    max_simulations: int = DEFAULT_MAX_SIMULATIONS,
    out: TextIO | None = None,
    docs_url: str | None = None,
    trust_pickles: bool = False,
) -> None:
    """Serve the page until Ctrl-C (then return normally); the URL is printed (flushed) once the socket listens."""
    try:
        import uvicorn

        from .app import LOOPBACK_HOSTS, create_app
    except ImportError as exc:
        raise missing_extra("crossenvs serve", exc.name or "starlette", "web") from None
    out = out or sys.stdout
    sock = bind(host, port)
    try:
        # the address listened on decides, not how --host spells it (127.0.0.2, 127.1, localhost)
        address = sock.getsockname()[0]
        loopback = is_loopback(address)
        allowed = (*LOOPBACK_HOSTS, host, address) if loopback else None
        app = create_app(
            checkpoints, max_simulations, allowed_hosts=allowed, docs_url=docs_url, trust_pickles=trust_pickles
        )
        out.write(f"crossenvs serve: open {url_of(sock)} in a browser (Ctrl-C stops)\n")
        if not loopback:
            out.write(f"note: --host {host} lets other machines reach this server; games are not password-protected\n")
        out.flush()
        config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=2)
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn has shut down gracefully and passes Ctrl-C on: the usual way to stop
        out.write("crossenvs serve: stopped\n")
    finally:
        sock.close()
