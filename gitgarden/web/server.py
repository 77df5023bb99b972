"""Serving the app: a socket on the address asked for (127.0.0.1 and a free port by default), a
fresh token, uvicorn until Ctrl-C, and the passes started here asked to stop before it returns."""

from __future__ import annotations

import ipaddress
import socket
import webbrowser
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitgarden.errors import GitgardenError
from gitgarden.web.safety import new_token

if TYPE_CHECKING:
    from gitgarden.services.run import ModelFactory

__all__ = ["serve", "is_loopback", "bind"]

STOP_WAIT = 30.0  # seconds the server waits, after Ctrl-C, for a pass it started to stop


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on `host`:`port` (0: a free port); one clear line when it cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        why = "it is in use" if exc.errno == 98 else exc.strerror or str(exc)
        raise GitgardenError(f"cannot serve on {host}:{port}: {why}; pick another with --port (or leave it out for a free one)") from None
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
    host: str,
    port: int,
    open_browser: bool,
    env: Mapping[str, str],
    now: Callable[[], datetime],
    model_factory: ModelFactory,
    say: Callable[[str], None],
    show_url: Callable[[str], None],
) -> None:
    """Serve the garden of the project at `root` until interrupted. `show_url` gets the address with
    its token once; `say` gets the messages for the person."""
    import uvicorn

    from gitgarden.project import Project
    from gitgarden.services.run import stop
    from gitgarden.web.app import make_app

    _Server = _server_class()
    from gitgarden.web.site import Site

    if host == "localhost":
        host = "127.0.0.1"  # one address, so the Host check knows what it bound
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
