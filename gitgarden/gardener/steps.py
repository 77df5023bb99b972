"""What a pass reports while it runs: its `Step`s, for whoever shows them (the terminal's live line,
the web app's run panel). The pass knows nothing of how they are shown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

__all__ = ["Step", "token_steps"]


@dataclass(frozen=True)
class Step:
    """One step of a pass: `name` (snapshot, reading, asking, applying, committing), a few words, tokens so far."""

    name: str
    detail: str = ""
    tokens: int | None = None
    expect_s: float | None = None  # asking: how long the server should take to read the prompt (its measured pace)
    per_line: bool = False  # asking: one short request a line (small mode), not one prompt read at length

    def words(self) -> str:
        """`asking openai/gpt-4o-mini` — the step as a person reads it."""
        return f"{self.name} {self.detail}".strip()


def token_steps(on_step: Callable[[Step], None], step: Step) -> Callable[[int], None] | None:
    """What tells `on_step` the tokens received while at `step`, or None when `on_step` would not show them.

    `on_step` is a Display's `step` method: a live line shows the tokens as they
    come, so the caller streams the model's reply; plain lines, a pipe, `--json` and
    callers without a display get None, and the model is asked without streaming.
    """
    shown = getattr(on_step, "__self__", on_step)
    if not getattr(shown, "shows_tokens", False):
        return None
    return lambda tokens: on_step(replace(step, tokens=tokens))
