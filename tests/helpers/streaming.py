"""A display that records the steps and tokens a pass shows."""

from __future__ import annotations

import threading

from gitgarden.gardener.steps import Step


class Watch:
    """A display that shows tokens as they come (as the live line does): it records every step."""

    shows_tokens = True

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.streaming = threading.Event()  # set once the asking step has heard tokens

    def step(self, step: Step) -> None:
        self.steps.append(step)
        if step.name == "asking" and step.tokens:
            self.streaming.set()

    def asking_tokens(self) -> list[int]:
        return [s.tokens for s in self.steps if s.name == "asking" and s.tokens is not None]
