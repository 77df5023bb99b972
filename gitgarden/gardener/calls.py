"""One model request in a thread of its own (docs/architecture.md, "One pass", step 8): a stop request or the person coming
back ends the wait at once, and an abandoned request's tokens are still counted."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from gitgarden.errors import ModelError
from gitgarden.gardener.state import Pass, Stopped
from gitgarden.model import llm

if TYPE_CHECKING:
    from gitgarden.model.llm import Answer, Budget, Model

__all__ = ["call_model", "reading_seconds"]


def call_model(
    run: Pass,
    model: Model,
    messages: list[dict[str, str]],
    budget: Budget,
    on_tokens: Callable[[int], None] | None = None,
    *,
    asker: Callable[..., Answer] | None = None,
    what: str = "the request for operations",
) -> Answer:
    """One request (and its schema repair) in a thread of its own, so `gitgarden stop` or the person
    coming back ends the wait at once; an abandoned request's prompt is counted, estimated.

    With `on_tokens` (a display that shows them) the reply streams: `on_tokens` hears its tokens as
    they come, a stop closes the stream at its next report, and the tokens received are counted too.
    `asker` (default `llm.ask`) is what asks: small mode's sort goes through the same door. A request
    that fails says which it was (`what`, the model, where it went, the prompt's size) in the
    ModelError's `request`, for the pass's record."""
    asker = asker or llm.ask

    check_interrupts = run.interrupts.check
    calls: list[threading.Event] = []

    def ask(abandoned: threading.Event) -> Answer:
        calls.append(abandoned)

        def before_call() -> None:
            if abandoned.is_set():
                raise Stopped  # left behind: start nothing new (nobody waits for this any more)
            check_interrupts()

        def tokens(n: int) -> None:
            if abandoned.is_set():
                raise Stopped  # left behind: end the stream (nobody waits for it any more)
            if on_tokens is not None:
                on_tokens(n)

        return asker(model, messages, budget, before_call=before_call, on_tokens=tokens if on_tokens else None)

    def left_behind() -> None:
        # A request was in flight: its prompt was spent, and what it streamed. Count it once, then shut
        # its socket: the server stops, and the request's thread ends instead of lingering.
        budget.close(llm.Usage(prompt_tokens=llm.estimate_tokens(messages), completion_tokens=budget.receiving))
        run.result.tokens_estimated = True
        abandon = getattr(model, "abandon", None)
        if callable(abandon):
            abandon()

    # The thread is given a moment to end once its socket is shut: a thread still inside litellm (or an
    # import) when the interpreter exits can hold the process at exit.
    try:
        return llm.call_abandonable(ask, check_interrupts, on_abandon=left_behind, settle=SETTLE_SECONDS)
    except ModelError as exc:
        if not exc.request:
            endpoint = str(getattr(model, "endpoint", "") or "")
            where = f" at {endpoint}" if endpoint else ""
            repaired = ", then one request to repair its reply" if exc.kind == "bad_output" and asker is llm.ask else ""
            exc.request = f"{what} to {model.name}{where} (about {llm.estimate_tokens(messages):,} prompt tokens){repaired}"
        raise


SETTLE_SECONDS = 3.0  # how long a stopped pass waits for its shut request to end (it usually takes well under one)


def reading_seconds(model: Model, prompt_tokens: int) -> float | None:
    """How long the endpoint should take to read a prompt of `prompt_tokens`, from its measured pace."""
    pace = getattr(getattr(model, "speed", None), "prompt_tps", None)
    return prompt_tokens / pace if isinstance(pace, int | float) and pace > 0 else None
