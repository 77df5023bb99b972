"""What a model request needs beneath litellm: sockets a stop can close, one deadline for the whole
request, and usage figures checked before they are believed.

- `Sockets` records the sockets a model's requests open (through the HTTP client it hands litellm),
  so `abandon()` — a stop, the person coming back, a deadline — shuts them down from another thread:
  a request blocked while the server reads the prompt ends at once, and the server stops generating.
- `within` runs a request in a thread of its own and gives up at the deadline, whatever the HTTP
  library's per-read timeouts would do (a server that sends a byte a minute never finishes).
- `Progress` is what the request has seen so far (the first token, the tokens received), so a
  timeout says what happened and the budget counts what was sent and received.
- `trusted` refuses usage figures that cannot be: negative, not a number, or far beyond what the
  request sent and received; an estimate stands in for them.

httpx and httpcore are imported inside the functions that need them (they come with litellm).
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import socket
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

__all__ = ["Sockets", "http_client", "Progress", "within", "trusted", "estimate", "quiet_litellm"]

_T = TypeVar("_T")
_POLL = 0.1


class Sockets:
    """The open sockets of one model's requests, which another thread may shut down."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open: weakref.WeakSet[socket.socket] = weakref.WeakSet()

    def add(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.add(sock)

    def shut(self) -> int:
        """Shut every recorded socket down (a blocked read returns at once); how many were open."""
        with self._lock:
            socks = list(self._open)
            self._open = weakref.WeakSet()
        count = 0
        for sock in socks:
            with contextlib.suppress(OSError):  # already closed: nothing to end
                sock.shutdown(socket.SHUT_RDWR)
                count += 1
        return count


def http_client(sockets: Sockets, timeout: float) -> Any:
    """An httpx client whose connections are recorded in `sockets` (None when this httpx or httpcore
    cannot be hooked: requests then go as litellm makes them, and a stop closes them at the next chunk)."""
    import httpcore
    import httpx

    transport = httpx.HTTPTransport()
    pool = getattr(transport, "_pool", None)
    if not isinstance(pool, httpcore.ConnectionPool) or not hasattr(pool, "_network_backend"):
        return None
    pool._network_backend = _Recording(pool._network_backend, sockets)  # type: ignore[assignment]  # duck-typed backend
    return httpx.Client(transport=transport, timeout=timeout, follow_redirects=True)


class _Recording:
    """An httpcore network backend that records the sockets it connects (a wrapper around the default one)."""

    def __init__(self, inner: Any, sockets: Sockets) -> None:
        self._inner = inner
        self._sockets = sockets

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None, socket_options: Any = None) -> Any:
        stream = self._inner.connect_tcp(host, port, timeout=timeout, local_address=local_address, socket_options=socket_options)
        sock = stream.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            self._sockets.add(sock)
        return stream

    def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
        stream = self._inner.connect_unix_socket(path, timeout=timeout, socket_options=socket_options)
        sock = stream.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            self._sockets.add(sock)
        return stream

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


@dataclass
class Progress:
    """What one request has seen so far: when it started, its first token, the tokens received."""

    prompt_tokens: int  # the prompt's estimate: what is spent once the request is on the wire
    bound: int = 0  # the reply's output bound
    started: float = field(default_factory=time.monotonic)
    first_token: float | None = None
    received: int = 0
    refused_at_once: bool = False  # the connection was refused: nothing was sent
    streamed: bool = False  # the reply streams: a missing first token means the server was still reading the prompt
    timeout: int = 0  # the request's deadline in seconds, as messages name it

    def heard(self, tokens: int) -> None:
        if self.first_token is None:
            self.first_token = time.monotonic()
        self.received = max(self.received, tokens)


def within(deadline: float, call: Callable[[], _T], on_deadline: Callable[[], object], fail: Callable[[], BaseException]) -> _T:
    """`call()` in a thread of its own; its result or what it raised. At `deadline` (a monotonic
    time), `on_deadline()` runs (shut the sockets) and `fail()` is raised: the call is left behind."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the waiting thread, which raises it
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="gitgarden-model-request", daemon=True).start()
    while not done.wait(_POLL):
        if time.monotonic() >= deadline:
            on_deadline()
            done.wait(2.0)  # the socket is shut: the request ends now (its error is not the news)
            raise fail()
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return, unused-ignore]


def estimate(text: str) -> int:
    """About four UTF-8 bytes a token: gitgarden's estimate wherever a count is missing or not believed."""
    return math.ceil(len(text.encode("utf-8")) / 4)


def trusted(prompt: Any, completion: Any, *, sent: str, text: str, bound: int) -> tuple[int, int, bool]:
    """(prompt tokens, completion tokens, True when an estimate replaced a figure): a figure is believed
    when it is a whole number from 0 to what the request could have used — the prompt's bytes plus
    the chat template's overhead, the reply's bytes or its output bound, whichever is larger."""
    sent_bytes, text_bytes = len(sent.encode("utf-8")), len(text.encode("utf-8"))
    replaced = False

    def sane(value: Any, ceiling: int, fallback: int) -> int:
        nonlocal replaced
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            ok = value is None  # no figure at all is no lie: count it as nothing, like a local model's
            replaced = replaced or not ok
            return fallback if not ok else 0
        if value < 0 or value > ceiling or int(value) != value:
            replaced = True
            return fallback
        return int(value)

    p = sane(prompt, sent_bytes + 2048, estimate(sent))
    c = sane(completion, max(text_bytes, bound) + 256, estimate(text))
    return p, c, replaced


def quiet_litellm() -> Any:
    """Import litellm quietly: local price map (no download), no debug output, no log chatter, no
    logging threads while a reply streams."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.set_verbose = False  # verbose logging prints request headers, keys included
    # No per-chunk success logging: litellm would start a thread and an event loop for every chunk
    # streamed, to feed callbacks and a cache gitgarden never sets (cost and usage are counted here);
    # those loops crashed a test process once (a segfault in litellm's logging threads).
    litellm.disable_streaming_logging = True
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    return litellm
