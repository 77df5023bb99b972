"""Signs of life while a pass runs: its steps on stderr, for a person at a terminal.

A pass reports `Step`s (what it is doing now, and the tokens so far); this
module turns them into one status line that rich redraws with the elapsed
seconds and the tokens of the model's reply as they arrive, and clears when the
pass ends. Nothing is shown when stderr is not a terminal or the output is JSON;
`TERM=dumb` gets plain lines instead of a redrawn one (one per step, no line per
token), and `NO_COLOR` gets no colour and no bold. rich is imported only when a
display is really made.

Only a redrawn line shows tokens as they come, so only then is the model's reply
streamed (`gardener.steps.token_steps` asks the display); everywhere else the model is
asked exactly as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import IO, Any

from gitgarden.cli.app import visible
from gitgarden.gardener.steps import Step

__all__ = ["Display", "display", "plain_console"]


class Display:
    """Shows steps and messages. This base shows nothing but messages (a pipe, `--json`)."""

    shows_tokens = False  # whether a step's tokens are redrawn as they change (then the reply is streamed)

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def step(self, step: Step) -> None:
        """Show that the pass has moved on to `step`."""

    def message(self, text: str) -> None:
        """A line for the person, kept above any status line."""
        self.stream.write(text + "\n")
        self.stream.flush()


class _Lines(Display):
    """`TERM=dumb`: one plain line per step, with the seconds since the pass began (no line per token)."""

    def __init__(self, stream: IO[str], clock: Callable[[], float]) -> None:
        super().__init__(stream)
        self.clock, self.started = clock, clock()

    def step(self, step: Step) -> None:
        tokens = f", {step.tokens:,} tokens" if step.tokens else ""
        expect = f"; the server should read the prompt in about {step.expect_s:,.0f} s" if step.expect_s else ""
        self.message(f"gitgarden: {step.words()} ({self.clock() - self.started:.0f} s{tokens}{expect})")


class _Live(Display):
    """A terminal: one status line, redrawn by rich a few times a second so the seconds and tokens move."""

    shows_tokens = True

    def __init__(self, stream: IO[str], console: Any, clock: Callable[[], float]) -> None:
        super().__init__(stream)
        self.console, self.clock = console, clock
        self.started = self.step_started = clock()
        self.current = Step("starting")
        self.tokens: int | None = None
        self.spinner: Any = None  # one Spinner for the whole pass: its frame moves with the time since its first draw

    def step(self, step: Step) -> None:
        if step.name != self.current.name:
            self.step_started = self.clock()
        self.current = step
        if step.tokens is not None:
            self.tokens = step.tokens

    def message(self, text: str) -> None:
        self.console.print(visible(text, lines=True), markup=False, highlight=False, soft_wrap=True)

    def render(self) -> Any:
        from rich.spinner import Spinner
        from rich.text import Text

        now = self.clock()
        tail = [f"{now - self.started:.0f} s"]
        reading = self.current.name == "asking" and not self.tokens
        if reading and self.current.per_line:
            # Small mode: a request a line, each read in a moment; the step's seconds against what its pace gives.
            expect = self.current.expect_s
            tail = [f"{now - self.step_started:.0f} s" + (f" of ~{expect:,.0f} s" if expect and expect >= 1 else "")]
        elif reading:
            # Nothing streams while a local server reads the prompt: say so, against the time its pace gives
            # (in place of the pass's seconds, so the step's words keep their room on an 80-column line).
            expect = self.current.expect_s
            tail = [f"reading prompt {now - self.step_started:.0f} s" + (f" of ~{expect:,.0f} s" if expect and expect >= 1 else "")]
        elif self.step_started > self.started:
            tail[0] += f" ({now - self.step_started:.0f} s in this step)"
        if self.tokens:
            tail.append(f"{self.tokens:,} token" + ("" if self.tokens == 1 else "s"))
        end = " · " + " · ".join(tail)
        # One line that never wraps: the step's words give way before the seconds and tokens do.
        words, room = self.current.words(), self.console.width - 2 - len(end)  # 2: the spinner and a space
        if len(words) > room:
            words = words[: max(1, room - 1)] + "…"
        text = Text(words + end, no_wrap=True, overflow="ellipsis")
        if self.spinner is None:
            self.spinner = Spinner("dots", text, style=None if self.console.no_color else "cyan")
        else:
            # A new Spinner every redraw starts at its first frame again: the line's spinner never moved.
            self.spinner.update(text=text)
        return self.spinner


def plain_console(stream: IO[str], env: Mapping[str, str]) -> Any:
    """A rich Console for `stream` that honours NO_COLOR fully (no colour and no bold: no styles at all)."""
    from rich.console import Console

    no_color = "NO_COLOR" in env
    return Console(
        file=stream,
        no_color=no_color,
        color_system=None if no_color else "auto",
        highlight=False,
        force_terminal=True,
    )


@contextmanager
def display(
    stream: IO[str],
    env: Mapping[str, str],
    *,
    enabled: bool = True,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Display]:
    """The display a pass's progress goes to: live on a terminal, plain lines for `TERM=dumb`, none otherwise.

    `enabled` False (e.g. `--json`) or a `stream` that is not a terminal shows messages only.
    """
    if not enabled or not _isatty(stream):
        yield Display(stream)
        return
    if env.get("TERM", "") == "dumb":
        yield _Lines(stream, clock)
        return
    from rich.live import Live

    shown = _Live(stream, plain_console(stream, env), clock)
    live = Live(
        get_renderable=shown.render,
        console=shown.console,
        refresh_per_second=4,
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    with live:
        yield shown


def _isatty(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
