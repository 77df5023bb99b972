"""Passes started from the browser: each runs `services.run.run` in a thread of the server, the call
`gitgarden run` makes (the same settings, model, lock and record), and reports its `Step`s to a
`Run` the run panel reads — the same steps and token count the terminal's live line shows.

The lock is the pass's own: a second pass, from another tab, the command line or the timer, is
refused with the holder named, and nothing runs twice. Stop is `gitgarden stop`'s request.
"""

from __future__ import annotations

import secrets
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.config import load_settings
from gitgarden.errors import GitgardenError
from gitgarden.project import Project
from gitgarden.services import run as passes

if TYPE_CHECKING:
    from gitgarden.services.run import ModelFactory, Step

__all__ = ["Run", "RunBoard"]

KEPT = 20  # finished runs the panel remembers (the passes themselves are in the log)


@dataclass
class Run:
    """One pass started from the browser, as the panel shows it while it runs and after."""

    id: str
    dry_run: bool
    retry: bool
    jobs: list[str]
    started: float
    step: str = "starting"
    tokens: int = 0
    steps: list[tuple[float, str]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    error: str = ""
    finished: float | None = None
    # While the model reads the prompt (asking, no reply token yet): since when (seconds into the run)
    # and how long its measured pace says the reading takes (None: not measured).
    asking_since: float | None = None
    expect_s: float | None = None
    # The terminal streams the model's reply only to a display that redraws tokens as they come;
    # the panel does, so a pass started here streams too (gardener.steps.token_steps reads this).
    shows_tokens = True

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def step_to(self, step: Step) -> None:
        """What `run_pass` calls with each step (and with the tokens as the reply streams in)."""
        with self._lock:
            if step.words() != self.step:
                self.steps.append((time.monotonic() - self.started, step.words()))
                asking = step.name == "asking"
                self.asking_since = time.monotonic() - self.started if asking else None
                self.expect_s = step.expect_s if asking else None
                if asking:
                    self.tokens = 0  # a new request: its reply has brought nothing yet
            self.step = step.words()
            if step.tokens is not None:
                self.tokens = step.tokens

    def message(self, text: str) -> None:
        """A line the pass has for the person."""
        with self._lock:
            self.messages.append(text)

    @property
    def done(self) -> bool:
        return self.finished is not None

    def to_json(self) -> dict[str, Any]:
        """What the panel's script polls: the step, the seconds, the tokens, and the outcome when done."""
        with self._lock:
            now = self.finished if self.finished is not None else time.monotonic()
            return {
                "id": self.id,
                "done": self.done,
                "step": self.step,
                "tokens": self.tokens,
                "seconds": round(now - self.started, 1),
                "steps": [{"at": round(t, 1), "words": w} for t, w in self.steps],
                "messages": list(self.messages),
                "reading": self._reading(now),
                "outcome": None if self.result is None else self.result.get("outcome"),
                "sentence": None if self.result is None else self.result.get("message"),
                "error": self.error,
            }


    def _reading(self, now: float) -> dict[str, Any] | None:
        """While the model reads the prompt: the seconds so far and those its measured pace expects."""
        if self.finished is not None or self.asking_since is None or self.tokens:
            return None
        seconds = now - self.started - self.asking_since
        return {"seconds": round(seconds), "expected": None if self.expect_s is None else round(self.expect_s)}


@dataclass
class RunBoard:
    """The passes this server started: at most one at a time is ours to run (the lock says the rest)."""

    root: Path
    env: Mapping[str, str]
    now: Callable[[], datetime]
    model_factory: ModelFactory
    runs: dict[str, Run] = field(default_factory=dict)
    threads: dict[str, threading.Thread] = field(default_factory=dict)

    def start(self, *, dry_run: bool, retry: bool, jobs: list[str]) -> Run:
        """Start a pass in a thread of its own and return its `Run` at once."""
        run = Run(secrets.token_hex(4), dry_run, retry, jobs, time.monotonic())
        self.runs[run.id] = run
        for old in [r for r in self.runs.values() if r.done][:-KEPT]:
            self.runs.pop(old.id, None)
            self.threads.pop(old.id, None)
        thread = threading.Thread(target=self._work, args=(run,), name=f"gitgarden-pass-{run.id}", daemon=True)
        self.threads[run.id] = thread
        thread.start()
        return run

    def _work(self, run: Run) -> None:
        """`gitgarden run`, as its command does it, reporting to `run`."""
        try:
            project = Project(self.root)
            settings = load_settings(project.root, env=self.env).settings
            result = passes.run(
                project,
                settings,
                env=self.env,
                now=self.now,
                model_factory=self.model_factory,
                on_progress=run.message,
                on_step=run.step_to,
                dry_run=run.dry_run,
                retry=run.retry,
                jobs=run.jobs,
            )
            run.result = passes.shown(result)
        except GitgardenError as exc:  # e.g. a malformed config file: one line, as the command says it
            run.error = str(exc)
        except Exception as exc:  # a bug: the panel must not wait forever, and the traceback goes to the terminal
            traceback.print_exc()
            run.error = f"{type(exc).__name__}: {exc}"
        finally:
            run.finished = time.monotonic()

    def running(self) -> list[Run]:
        """The runs still going."""
        return [r for r in self.runs.values() if not r.done]

    def wait(self, timeout: float) -> None:
        """Wait for the running passes to end (after a stop request), at most `timeout` seconds in all."""
        deadline = time.monotonic() + timeout
        for thread in list(self.threads.values()):
            thread.join(max(0.0, deadline - time.monotonic()))
