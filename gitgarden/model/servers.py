"""Local model servers found without configuration: with no model set, `run`, `status` and `llm status`
look on the loopback ports ollama, llama.cpp and LM Studio listen on by default, list the models each
serves (`GET /v1/models`) and say the one command that uses one. Nothing is ever used silently.

The look is cheap and safe: loopback only, a short timeout, no key or other header of the person's
sent, no proxy asked, no redirect followed (a redirect could lead off this machine), a small
answer read at most; model names that could carry terminal escapes are dropped. No litellm, and
no HTTP library: one plain request on a socket.
"""

from __future__ import annotations

import json
import re
import socket
import time
from dataclasses import dataclass

from gitgarden.model import inprocess

__all__ = ["USUAL_PORTS", "LocalServer", "find", "advice", "inprocess_installed"]

# The ports each server listens on out of the box.
USUAL_PORTS: dict[int, str] = {11434: "ollama", 8080: "llama.cpp", 1234: "LM Studio"}
HOST = "127.0.0.1"
TIMEOUT = 0.3  # seconds per port: a server on this machine answers /v1/models at once
_MAX_BODY = 256 * 1024
_MAX_MODELS = 20
_MODEL_ID = re.compile(r"[\w.:/@+\-]{1,200}")  # what model ids look like; anything else is not shown


@dataclass(frozen=True)
class LocalServer:
    """An OpenAI-compatible server answering on a loopback port, and the models it serves."""

    port: int
    kind: str  # "ollama", "llama.cpp", "LM Studio", or "a server" on a port of no known kind
    models: tuple[str, ...]

    @property
    def api_base(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def command(self, model: str | None = None) -> str:
        """The one command that makes gitgarden use this server (in the user file: it is this machine's)."""
        import shlex  # only once a server answered: `status` starts without it

        chosen = model or (self.models[0] if self.models else "MODEL")
        return (
            f"gitgarden config set --user model {shlex.quote('openai/' + chosen)} && "
            f"gitgarden config set --user api_base {self.api_base}"
        )

    def to_json(self) -> dict[str, object]:
        return {"port": self.port, "kind": self.kind, "api_base": self.api_base, "models": list(self.models), "command": self.command()}


def _get(port: int, timeout: float) -> tuple[int, bytes] | None:
    """(status, body) of `GET /v1/models` on the loopback `port`, or None when nothing answers in time.

    A plain HTTP/1.0 request on a socket: no proxy can be asked, no redirect followed, no header of
    the person's sent, and `status` pays no import of an HTTP library it rarely needs."""
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as conn:
            conn.sendall(f"GET /v1/models HTTP/1.0\r\nHost: {HOST}:{port}\r\nAccept: application/json\r\n\r\n".encode())
            data = b""
            while len(data) <= _MAX_BODY:
                conn.settimeout(max(0.01, deadline - time.monotonic()))
                piece = conn.recv(65536)
                if not piece:
                    break
                data += piece
    except OSError:
        return None
    head, _, body = data.partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].split()
    if len(data) > _MAX_BODY or len(status) < 2 or not status[0].startswith(b"HTTP/") or not status[1].isdigit():
        return None
    return int(status[1]), body


def _models(port: int, timeout: float) -> tuple[str, ...] | None:
    """The model ids the server on `port` serves, or None when nothing OpenAI-compatible answers."""
    answer = _get(port, timeout)
    if answer is None or answer[0] != 200:
        return None  # a redirect (3xx) is no answer of the servers looked for: never followed
    try:
        listed = json.loads(answer[1].decode("utf-8"))
    except ValueError:
        return None
    data = listed.get("data") if isinstance(listed, dict) else None
    if not isinstance(data, list):
        return None
    ids = [m.get("id") for m in data if isinstance(m, dict)]
    return tuple(i for i in ids if isinstance(i, str) and _MODEL_ID.fullmatch(i))[:_MAX_MODELS]


def find(ports: dict[int, str] | None = None, timeout: float = TIMEOUT) -> list[LocalServer]:
    """The servers answering `GET /v1/models` on the loopback `ports` (default: the usual ones), in
    the order given. A port nobody listens on is refused at once; one that accepts and stays silent
    costs `timeout` seconds."""
    found = []
    for port, kind in (USUAL_PORTS if ports is None else ports).items():
        models = _models(port, timeout)
        if models is not None:
            found.append(LocalServer(port, kind, models))
    return found


def inprocess_installed() -> bool:
    """Whether the `local` extra is installed (llama-cpp-python and the packaged Gemma), without importing it."""
    return inprocess.installed(packaged=True)


def advice(servers: list[LocalServer], *, inprocess: bool) -> list[str]:
    """What to say when no model is configured: each server found with its models and the command
    that uses it, the in-process model when installed; [] when there is nothing to offer."""
    lines = []
    for server in servers:
        shown = ", ".join(server.models[:5]) + (f" and {len(server.models) - 5} more" if len(server.models) > 5 else "")
        serves = f"serves {shown}" if server.models else "lists no model"
        lines.append(f"A local model server answers on this machine: {server.kind} at {server.api_base} {serves}. To use it:")
        lines.append(f"  {server.command()}")
    if inprocess:
        lines.append("The packaged in-process model (the local extra: Gemma 3 270M, small mode) is installed. To use it:")
        lines.append("  gitgarden config set --user model local/gemma3-270m")
    return lines
