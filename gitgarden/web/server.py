"""Serving the app: a socket on the address asked for (by default the garden's own loopback address
and a free port), a fresh token, uvicorn until Ctrl-C, and the passes started here asked to stop
before it returns.

The garden's own address (127.x.y.z, the same for a project each start): cookies are kept apart by
host but not by port, so on 127.0.0.1 every other local web app the person opens would receive the
garden's cookie. Linux answers on every 127.x.y.z; where the machine answers only on 127.0.0.1
(macOS without an alias) the garden falls back to it, says so, and the key of the start (see
`safety`) still keeps changes to the page's own origin."""

from __future__ import annotations

import errno
import hashlib
import ipaddress
import socket
import webbrowser
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitgarden.errors import GitgardenError
from gitgarden.project import Project
from gitgarden.services.run import stop
from gitgarden.web.app import make_app
from gitgarden.web.safety import new_token
from gitgarden.web.site import Site

if TYPE_CHECKING:
    from gitgarden.services.run import ModelFactory

__all__ = ["serve", "is_loopback", "bind", "bind_own", "own_address", "FALLBACK"]

FALLBACK = "127.0.0.1"

STOP_WAIT = 30.0  # seconds the server waits, after Ctrl-C, for a pass it started to stop


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def own_address(root: Path) -> str:
    """The project's own loopback address: 127.x.y.z from a hash of its folder, never 127.0.0.1."""
    digest = hashlib.sha256(str(root.resolve()).encode()).digest()
    return f"127.{1 + digest[0] % 254}.{digest[1]}.{1 + digest[2] % 254}"


def bind_own(own: str, port: int, say: Callable[[str], None]) -> tuple[str, socket.socket]:
    """The address bound and its socket: the project's own address `own`; 127.0.0.1 (with a line
    saying what that leaves open) where this machine does not answer on it."""
    try:
        return own, bind(own, port, quiet=True)
    except OSError as exc:
        if exc.errno != errno.EADDRNOTAVAIL:
            raise GitgardenError(_cannot(own, port, exc)) from None
    say(
        f"note: this machine answers only on {FALLBACK}, so other web apps you open there receive this garden's "
        f"cookie: they cannot change the garden, but could read it. To give it an address of its own: "
        f"sudo ifconfig lo0 alias {own} up"
    )
    return FALLBACK, bind(FALLBACK, port)


def _cannot(host: str, port: int, exc: OSError) -> str:
    why = "it is in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
    return f"cannot serve on {host}:{port}: {why}; pick another with --port (or leave it out for a free one)"


def bind(host: str, port: int, *, quiet: bool = False) -> socket.socket:
    """A listening socket on `host`:`port` (0: a free port); one clear line when it cannot be had
    (the OSError itself when `quiet`, for a caller that tries another address)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if quiet:
            raise
        raise GitgardenError(_cannot(host, port, exc)) from None
    sock.listen(64)
    sock.setblocking(False)
    return sock


def _server_class() -> type:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, ended by Ctrl-C (or SIGTERM) as the way `serve` ends: after its graceful
        shutdown it does not raise the signal again, so the command finishes and says so."""

        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            with super().capture_signals():
                yield
                self._captured_signals.clear()

    return Server


def serve(
    root: Path,
    *,
    host: str | None,
    port: int,
    open_browser: bool,
    env: Mapping[str, str],
    now: Callable[[], datetime],
    model_factory: ModelFactory,
    say: Callable[[str], None],
    show_url: Callable[[str], None],
) -> None:
    """Serve the garden of the project at `root` until interrupted, on `host` (None: the project's
    own loopback address). `show_url` gets the address with its token once; `say` gets the
    messages for the person."""
    import uvicorn


    _Server = _server_class()

    if host == "localhost":
        host = FALLBACK  # one address, so the Host check knows what it bound
    if host is None:
        host, sock = bind_own(own_address(root), port, say)
    else:
        sock = bind(host, port)
    bound = sock.getsockname()[1]
    site = Site(root, env, now, model_factory, new_token(), host, bound)
    app = make_app(site)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2)
    server = _Server(config)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/?token={site.token}"
    if not is_loopback(host):
        say(
            f"warning: serving on {host}, which other machines may reach: anyone who has the printed address "
            "(its token) can read this garden and change it"
        )
    say(f"Serving the garden of {root.name} at http://{shown}:{bound}/ (Ctrl-C ends it). Open:")
    try:
        show_url(url)
        if open_browser:
            webbrowser.open(url)
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # Ctrl-C before uvicorn took the signal over: it ends serving all the same
    finally:
        sock.close()
        if site.runs.running():
            say("Asking the pass started here to stop…")
            stop(Project(root), who="gitgarden serve (ending)", when=now())
            site.runs.wait(STOP_WAIT)
    say("Stopped serving.")
