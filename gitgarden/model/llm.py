"""The model, behind one small interface: `complete(messages, schema, budget) -> Reply`, and asking
it for operations (`ask`: a bad reply gets one repair request, then fails as "bad model output").

A caller that shows progress passes `on_tokens` to `complete`: the reply is then
streamed and the output tokens so far are reported as they arrive; the reply it
returns is the same as the one a plain request gives. The litellm model itself,
and every rule about keys and endpoints, is in `provider`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.model import operations as ops

__all__ = [
    "Usage",
    "Reply",
    "Budget",
    "Model",
    "StreamingModel",
    "TokenCallback",
    "ask_operations",
    "complete",
    "call_abandonable",
    "estimate_tokens",
    "Answer",
    "ask",
    "follow_up",
]

_REPAIR_ECHO_CHARS = 2000


# -- usage and budgets ---------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Tokens a call (or a pass) spent, and its cost in USD when litellm knows it.

    `cost` is None when unknown (local models, unmapped models) — never a made-up
    zero. A Usage with no tokens and no cost means "no call" and adds as zero, so
    `Usage()` is a valid starting total.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def _is_nothing(self) -> bool:
        return self.total_tokens == 0 and self.cost is None

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        if other._is_nothing():
            return self
        if self._is_nothing():
            return other
        cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens, cost)

    def describe(self) -> str:
        """`1,234 tokens (1,000 prompt + 234 completion), cost unknown` — for records and trailers."""
        cost = "cost unknown" if self.cost is None else f"cost ${self.cost:.4f}"
        return f"{self.total_tokens:,} tokens ({self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion), {cost}"


@dataclass(frozen=True)
class Reply:
    """One model answer: its text, what it cost, why it stopped, and the model that gave it."""

    text: str
    usage: Usage
    finish_reason: str = "stop"
    model: str = ""
    # The first token's alternatives and their probabilities (stripped, lowercased), when the
    # request asked for log-probabilities and the endpoint gave them; empty otherwise.
    alternatives: Mapping[str, float] = field(default_factory=dict)


@dataclass
class Budget:
    """The tokens and seconds one pass may spend on model calls.

    `check()` runs before every call; `charge()` after each. A budget of 0 tokens
    allows no call at all. `receiving` holds the output tokens of a reply streaming
    now (not yet charged), so a pass that leaves a stream behind can count them.
    """

    tokens: int
    seconds: float
    started: float = field(default_factory=time.monotonic)
    spent: Usage = field(default_factory=Usage)
    clock: Callable[[], float] = time.monotonic  # passed in so tests need not sleep
    receiving: int = 0
    estimated: bool = False  # some charge was an estimate (a call abandoned, timed out, or with a usage not trusted)
    closed: bool = False  # the pass left its calls behind and counted them: later charges are not counted twice

    @classmethod
    def from_settings(cls, settings: Settings, *, clock: Callable[[], float] = time.monotonic) -> Budget:
        """The per-pass budget the settings give."""
        return cls(tokens=settings.token_budget, seconds=float(settings.seconds_budget), started=clock(), clock=clock)

    def elapsed(self) -> float:
        return self.clock() - self.started

    def tokens_left(self) -> int:
        return self.tokens - self.spent.total_tokens

    def seconds_left(self) -> float:
        return self.seconds - self.elapsed()

    def check(self) -> None:
        """Raise ModelError(kind="budget") when the tokens or the seconds are spent."""
        if self.tokens_left() <= 0:
            raise ModelError(
                f"token budget spent: {self.spent.total_tokens:,} of {self.tokens:,} tokens (token_budget)",
                kind="budget",
            )
        if self.seconds_left() <= 0:
            raise ModelError(
                f"time budget spent: {self.elapsed():.0f} of {self.seconds:.0f} seconds (seconds_budget)",
                kind="budget",
            )

    def charge(self, usage: Usage, *, estimated: bool = False) -> None:
        """Add what a call spent (its streamed tokens are then no longer `receiving`); `estimated` marks
        a count gitgarden made itself. Once `closed`, nothing more is added."""
        if self.closed:
            return
        self.spent = self.spent + usage
        self.receiving = 0
        self.estimated = self.estimated or estimated

    def close(self, usage: Usage | None = None) -> None:
        """Count `usage` (estimated) for a call the pass leaves behind, and take no charge after it:
        the request's own thread may still end and try to charge what it spent."""
        if usage is not None:
            self.charge(usage, estimated=True)
        self.closed = True


# -- the interface -------------------------------------------------------------


class Model(Protocol):
    """What a pass talks to. `complete` bounds its request by what is left of `budget` and charges it the usage."""

    name: str

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: Budget) -> Reply: ...


TokenCallback = Callable[[int], None]
"""Told the output tokens a reply has brought so far; it may raise to end the request (a stopped pass)."""


class StreamingModel(Model, Protocol):
    """A Model that can report the reply's tokens while it arrives: it says so with `streams = True`.

    A model without `streams` (a scripted test model) is simply called as a `Model`.
    """

    streams: bool

    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        budget: Budget,
        on_tokens: TokenCallback | None = None,
        max_tokens: int | None = None,
        logprobs: int | None = None,
    ) -> Reply: ...


def complete(
    model: Model,
    messages: list[dict[str, str]],
    schema: dict[str, Any],
    budget: Budget,
    on_tokens: TokenCallback | None = None,
    *,
    max_tokens: int | None = None,
    logprobs: int | None = None,
) -> Reply:
    """`model.complete`, with `on_tokens` only when there is one and the model takes it, a tighter
    output bound (`max_tokens`, e.g. a one-word answer's) and the first token's `logprobs`
    alternatives where the model takes them. An empty `schema` asks for no structured output."""
    extra: dict[str, Any] = {}
    if on_tokens is not None and getattr(model, "streams", False):
        extra["on_tokens"] = on_tokens
    if max_tokens is not None and getattr(model, "streams", False):
        extra["max_tokens"] = max_tokens
    if logprobs is not None and getattr(model, "streams", False):
        extra["logprobs"] = logprobs
    if extra:
        return cast("StreamingModel", model).complete(messages, schema, budget, **extra)
    return model.complete(messages, schema, budget)


# -- asking for operations ---------------------------------------------------------


def _problem(reply: Reply, max_output_tokens: int | None) -> tuple[str | None, list[ops.Op]]:
    """(what is wrong with a reply, or None with its operations)."""
    if reply.finish_reason == "length":
        limit = f" of {max_output_tokens:,} tokens" if max_output_tokens else ""
        return f'the reply was cut off at the output limit{limit} (finish_reason "length")', []
    if not reply.text.strip():
        return "the reply is empty", []
    if len(reply.text) > ops.MAX_REPLY_CHARS:
        return f"the reply is {len(reply.text):,} characters, over the {ops.MAX_REPLY_CHARS:,} accepted", []
    try:
        return None, ops.parse_reply(reply.text)
    except ops.BadOutput as exc:
        return str(exc), []


# One line and valid against the grammar llama.cpp builds from the schema (tests/test_prompt_grammar.py).
_REPAIR_EXAMPLE = '{"operations": [{"op": "skip", "lines": ["0000-00-00#1", "0000-00-00#2"], "reason": "<a few words why>"}]}'


def _repair_messages(messages: list[dict[str, str]], bad: Reply, problem: str) -> list[dict[str, str]]:
    echo = bad.text if len(bad.text) <= _REPAIR_ECHO_CHARS else bad.text[:_REPAIR_ECHO_CHARS] + " […]"
    ask = (
        f"That reply cannot be used: {problem}.\n"
        "Answer again with exactly one JSON object on one line and nothing else — no prose, no code fence, "
        'no line break — whose "operations" list holds operations with "op", "lines" (the ids of the journal '
        "lines they come from) and the fields of their kind, in the order described above. Keep it short. "
        "If no line earns a page, answer with a single skip citing all lines, like this (the ids are placeholders):\n"
        f"{_REPAIR_EXAMPLE}"
    )
    return [*messages, {"role": "assistant", "content": echo or "(empty)"}, {"role": "user", "content": ask}]


@dataclass(frozen=True)
class Answer:
    """Validated operations, what the calls cost, and the conversation that ended in them.

    `messages` holds the prompt, any repair exchange, and the model's accepted
    reply as the last (assistant) message: a follow-up continues from there.
    """

    operations: list[ops.Op]
    usage: Usage
    messages: list[dict[str, str]]


def follow_up(answer: Answer, text: str) -> list[dict[str, str]]:
    """The conversation of `answer` with one more user message: the next request in the same conversation."""
    return [*answer.messages, {"role": "user", "content": text}]


def ask(
    model: Model,
    messages: list[dict[str, str]],
    budget: Budget,
    *,
    before_call: Callable[[], None] = lambda: None,
    on_tokens: TokenCallback | None = None,
) -> Answer:
    """Validated operations from the model, with at most one repair request (see `ask_operations`).

    `on_tokens`, when given, hears each reply's output tokens as they arrive (a model that
    cannot stream is asked without it).
    """
    schema = ops.schema()
    limit = getattr(getattr(model, "settings", None), "max_output_tokens", None)
    total = Usage()
    convo = messages
    problem: str | None = None
    for _attempt in range(2):
        before_call()
        budget.check()
        reply = complete(model, convo, schema, budget, on_tokens)
        total = total + reply.usage
        problem, found = _problem(reply, limit)
        if problem is None:
            return Answer(found, total, [*convo, {"role": "assistant", "content": reply.text}])
        convo = _repair_messages(messages, reply, problem)
    raise ModelError(f"bad model output: {problem}", kind="bad_output", reply=reply.text)


def ask_operations(
    model: Model,
    messages: list[dict[str, str]],
    budget: Budget,
    *,
    before_call: Callable[[], None] = lambda: None,
) -> tuple[list[ops.Op], Usage]:
    """Validated operations from the model, with at most one repair request, and the usage of both calls.

    `before_call` (the pass's stop / stand-down check; it may raise) and
    `budget.check()` run before every call. The model charges `budget` for each
    call, so `budget.spent` holds the tokens even when this raises. A reply that is
    empty, cut off, huge or invalid gets one repair request; a second bad reply
    raises ModelError(kind="bad_output").
    """
    answer = ask(model, messages, budget, before_call=before_call)
    return answer.operations, answer.usage


# -- a call that can be left behind ----------------------------------------------

_T = TypeVar("_T")
POLL_SECONDS = 0.2


def call_abandonable(
    call: Callable[[threading.Event], _T],
    poll: Callable[[], None],
    *,
    interval: float = POLL_SECONDS,
    on_abandon: Callable[[], None] | None = None,
    settle: float = 0.0,
) -> _T:
    """`call(abandoned)` run in a daemon thread; its result, or what it raised.

    While it runs, `poll` (the pass's stop / stand-down check) runs every
    `interval` seconds here, and whatever `poll` raises ends the wait at once:
    `abandoned` is set, `on_abandon` runs (it shuts the request's socket), the
    thread is given up to `settle` seconds to end, and the exception goes up.
    `call` should look at `abandoned` before it starts anything new.
    """
    abandoned = threading.Event()
    done = threading.Event()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = call(abandoned)
        except BaseException as exc:  # handed to the waiting thread, which raises it
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name="gitgarden-model-call", daemon=True).start()
    try:
        while not done.wait(interval):
            poll()
    except BaseException:
        abandoned.set()
        if on_abandon is not None:
            on_abandon()
        done.wait(settle)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def estimate_tokens(messages: list[dict[str, str]]) -> int:
    """A rough count of the prompt's tokens (4 characters a token), for a call abandoned before it answered."""
    return sum(len(m.get("content") or "") for m in messages) // 4


