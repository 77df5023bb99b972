"""Signs of life and a stop that acts now: `gitgarden run` against a slow model.

The model is tests/helpers/fake_openai.py's HTTP fake with its reply held behind a
gate (a slow model without a sleep). The progress display is read from a real
pseudo-terminal; a piped run and `--json` must show none of it.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import request_stop, run_pass
from gitgarden.history.records import read_attempts
from gitgarden.model.provider import LiteLLMModel
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.project import FIXED_NOW, commit_all, git, write

pytestmark = [pytest.mark.litellm, pytest.mark.slow]

SKIP = '{"operations": [{"op": "skip", "lines": ["2026-11-29#1"]}]}'
SGR = re.compile(rb"\x1b\[[0-9;]*m")  # colour and bold
ANY_ESCAPE = re.compile(rb"\x1b")


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("NO_COLOR", "TERM"):
        monkeypatch.delenv(var, raising=False)



@pytest.fixture
def lunch(project: Project) -> Project:
    """A project with one unread journal line (committed, so the work tree starts clean)."""
    write(project.root, "raw/journal/2026-11-29.md", "lunch was good\n")
    commit_all(project.root)
    return project


def _env(server: FakeOpenAI, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GITGARDEN_MODEL="openai/fake",
        GITGARDEN_API_BASE=server.base_url,
        GITGARDEN_NUM_RETRIES="0",
        GITGARDEN_MODE="full",  # the fake server is on loopback: auto would choose small mode
        PYTHONPATH=os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[1]), env.get("PYTHONPATH", "")) if p),
    )
    env.update(extra)
    return env


class _Terminal:
    """`gitgarden run` with stderr on a pseudo-terminal (stdout piped); what it has shown so far."""

    def __init__(self, root: Path, env: dict[str, str], *args: str) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # a common terminal's size
        self.master = master
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gitgarden", "run", *args],
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=slave,
        )
        os.close(slave)
        self.shown = b""

    def read_until(self, done: Callable[[bytes], bool], timeout: float = 60.0) -> bool:
        """Read the terminal until `done(shown)` or the end; False when neither came within `timeout`."""
        end = time.monotonic() + timeout
        while not done(self.shown):
            left = end - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 4096)
            except OSError:  # EIO: the other side closed
                chunk = b""
            if not chunk:
                return done(self.shown)
            self.shown += chunk
        return True

    def finish(self) -> tuple[int, bytes]:
        self.read_until(lambda _s: False, timeout=60)
        stdout, _ = self.proc.communicate(timeout=60)
        os.close(self.master)
        return self.proc.returncode, stdout


def _seconds(shown: bytes) -> list[int]:
    return [int(m) for m in re.findall(rb"asking openai/fake[^\r\n\x1b]*? (\d+) s", shown)]


def test_a_terminal_sees_the_steps_and_the_seconds_while_the_model_thinks(lunch: Project, server: FakeOpenAI) -> None:
    gate = threading.Event()
    server.enqueue(SKIP, gate=gate)
    term = _Terminal(lunch.root, _env(server, TERM="xterm-256color", NO_COLOR="1"))
    try:
        # Before the reply exists: the step, the model's name, and seconds that move.
        assert term.read_until(lambda s: b"asking openai/fake" in s, timeout=120), term.shown
        assert server.wait_for_requests(1, timeout=120)
        term.read_until(lambda _s: False, timeout=0.5)  # what is on screen now that the request is in
        first = max(_seconds(term.shown))
        assert term.read_until(lambda s: max(_seconds(s)) > first, timeout=30), term.shown
        assert server.replied == 0
        assert b"prompt tokens" in term.shown
    finally:
        gate.set()
    code, stdout = term.finish()
    assert code == 0, term.shown
    assert b"nothing earned a page" in term.shown
    assert stdout == b""
    assert not SGR.search(term.shown), term.shown  # NO_COLOR: a redrawn line, but no colour and no bold


def _tokens(shown: bytes) -> list[int]:
    """The token counts the asking line has shown, in order ("asking openai/fake … · 12 tokens")."""
    found = re.findall(rb"asking openai/fake[^\r\n\x1b]*?\xc2\xb7 ([\d,]+) tokens?", shown)
    return [int(m.replace(b",", b"")) for m in found]


def test_a_terminal_sees_the_tokens_grow_while_the_reply_streams(lunch: Project, server: FakeOpenAI) -> None:
    gate = threading.Event()  # three chunks come at once, the rest only when the test has seen a count
    server.enqueue(SKIP, gate=gate, gate_after=3, chunk_chars=2, chunk_delay=0.05, completion_tokens=20)
    term = _Terminal(lunch.root, _env(server, TERM="xterm-256color"))
    try:
        assert term.read_until(lambda s: bool(_tokens(s)), timeout=120), term.shown
        first = _tokens(term.shown)[-1]
        gate.set()
        assert term.read_until(lambda s: max(_tokens(s)) > first, timeout=60), term.shown
    finally:
        gate.set()
    code, stdout = term.finish()
    assert code == 0, term.shown
    assert b"nothing earned a page" in term.shown and stdout == b""
    counts = _tokens(term.shown)
    assert counts == sorted(counts) and 0 < first < counts[-1] <= 20, counts
    request = server.requests[0]["json"]
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}


def test_no_color_and_a_dumb_terminal_get_plain_lines(lunch: Project, server: FakeOpenAI) -> None:
    gate = threading.Event()
    server.enqueue(SKIP, gate=gate)
    term = _Terminal(lunch.root, _env(server, TERM="dumb", NO_COLOR="1"))
    try:
        assert term.read_until(lambda s: b"gitgarden: asking openai/fake" in s), term.shown
    finally:
        gate.set()
    code, _ = term.finish()
    assert code == 0, term.shown
    assert b"gitgarden: reading 1 unread line(s)" in term.shown
    assert not ANY_ESCAPE.search(term.shown), term.shown  # no redrawn line, no colour, no bold
    # One line per step and none per token: the reply is not streamed for plain lines.
    assert term.shown.count(b"gitgarden: asking") == 1 and b"gitgarden: applying" in term.shown
    assert "stream" not in server.requests[0]["json"]


def test_piped_and_json_runs_show_no_progress(lunch: Project, server: FakeOpenAI) -> None:
    server.enqueue(SKIP)
    piped = subprocess.run(
        [sys.executable, "-m", "gitgarden", "run"],
        cwd=lunch.root,
        env=_env(server, TERM="xterm-256color"),
        capture_output=True,
        timeout=120,
    )
    assert piped.returncode == 0, piped.stderr
    assert b"asking" not in piped.stderr and b"reading" not in piped.stderr
    assert not ANY_ESCAPE.search(piped.stderr) and b"nothing earned a page" in piped.stderr

    write(lunch.root, "raw/journal/2026-11-29.md", "lunch was good\nso was dinner\n")
    commit_all(lunch.root)
    server.enqueue('{"operations": [{"op": "skip", "lines": ["2026-11-29#2"]}]}')
    term = _Terminal(lunch.root, _env(server, TERM="xterm-256color"), "--json")
    code, stdout = term.finish()
    assert code == 0, term.shown
    assert json.loads(stdout)["outcome"] == "nothing_earned"
    assert b"asking" not in term.shown and not ANY_ESCAPE.search(term.shown)
    # Nothing shows tokens as they come, so neither request streamed: both asked as before.
    assert [r["json"].get("stream") for r in server.requests] == [None, None]


# -- stop ------------------------------------------------------------------------


def test_stop_ends_a_pass_waiting_on_the_model_at_once(lunch: Project, server: FakeOpenAI) -> None:
    gate = threading.Event()  # the reply would take as long as the test lets it (up to two minutes)
    server.enqueue(SKIP, gate=gate)
    read_before = git(lunch.root, "ls-files", "--", ".gitgarden/read.json")
    settings = Settings(model="openai/fake", api_base=server.base_url, num_retries=0, timeout=120, mode="full")
    asked: list[float] = []

    def stop_once_asked() -> None:
        if server.wait_for_requests(1, timeout=120):
            asked.append(time.monotonic())
            request_stop(git_dir(lunch.root), "pat@example.com", FIXED_NOW)

    stopper = threading.Thread(target=stop_once_asked, daemon=True)
    stopper.start()
    try:
        result = run_pass(lunch, settings, model=LiteLLMModel(settings, {}), now=lambda: FIXED_NOW)
        ended = time.monotonic()
    finally:
        gate.set()
        stopper.join(timeout=10)
    assert asked, "the model was never asked"
    assert ended - asked[0] < 10  # a functional bound: the pass did not wait for the reply
    assert result.outcome == "stopped" and result.exit_code == 13
    assert result.stop == {"who": "pat@example.com", "when": FIXED_NOW.isoformat()}
    # The journal stays unread; the prompt it sent is counted (an estimate: no reply came).
    assert git(lunch.root, "ls-files", "--", ".gitgarden/read.json") == read_before
    assert not (lunch.root / ".gitgarden/read.json").exists()
    assert result.marked_read == 0 and result.prompt_tokens > 0 and result.tokens_estimated
    record = read_attempts(git_dir(lunch.root))[-1]
    assert record["outcome"] == "stopped" and record["prompt_tokens"] == result.prompt_tokens
    assert git(lunch.root, "status", "--porcelain") == ""
