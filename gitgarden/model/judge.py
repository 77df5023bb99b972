"""Small mode's one question to the model: is this journal line worth keeping? One line a request.

A 0.3–2B model answers a yes/no question for every line with "yes", but the probability it gives
"yes" ranks lines well (measured on labelled journals: every fact above most of the chatter). So
each line is asked alone, with a fixed prefix — the project's premises and six worked examples —
that stays byte-identical from request to request, so a local server reads it once and only the
new line after it; the reply is one token, with its log-probabilities where the endpoint returns
them (llama.cpp with `--logits_all true`, ollama's `/v1`, OpenAI). Nothing in the reply can be cut
short or malformed: a line either gets a score, or it stays unread with the reason its request
failed.

Where the endpoint gives no log-probabilities the answer itself is the label. The score's scale
differs from model to model (a base 270M model's "yes" rarely passes 0.7), so a threshold is set per
model from `CALIBRATION`: labelled lines scored once, kept with the endpoint's measured speed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from gitgarden.errors import ModelError
from gitgarden.model.llm import Budget, Model, Reply, Usage, complete

__all__ = ["Verdict", "Judging", "messages", "score_of", "judge", "calibrate", "CALIBRATION", "TOP"]

TOP = 20  # alternatives asked for the reply's one token

_SYSTEM = """You keep the notes of a project. What the project is about: {premises}

The user gives one line from the project's journal. Answer yes if the line states something worth \
keeping in the project's notes: a person, an organisation, a place, an amount, a date, an order or \
invoice, a plan, a decision, a change, or an open question about the project. Answer no if it is about \
something else: weather, meals, sleep, feelings, family, friends, shopping or errands that are not \
for the project. Answer with one word: yes or no."""

# Worked examples, the same for every project (none may resemble a benchmark journal's lines).
_SHOTS = (
    ("The plumber Jonas Berg quoted 1,200 EUR for the pipes, valid until 30 June.", "yes"),
    ("Rained all afternoon, stayed in with tea.", "no"),
    ("Invoice A-117 from Lindqvist AB is due on 12 May.", "yes"),
    ("Pasta for dinner, early night.", "no"),
    ("Decision: we keep the old boiler for now.", "yes"),
    ("Phoned my sister about her holiday.", "no"),
)

# Lines whose answer is known, scored once per model to place its threshold (kept with its speed).
CALIBRATION: tuple[tuple[str, bool], ...] = (
    ("Hanne Vik from Fjord Print sent the proofs; the print run is 500 copies at 2.10 EUR each.", True),
    ("The landlord moved the inspection to Thursday 4 June, 10:00.", True),
    ("Order 88231 from Baltic Timber arrives on the 14th, 3,400 PLN paid.", True),
    ("Ask the accountant whether the grant counts as income.", True),
    ("Cold and grey again, wore two jumpers.", False),
    ("Burnt the toast, had cereal instead.", False),
    ("Watched a film with the kids, fell asleep halfway.", False),
    ("Picked up stamps and a birthday card.", False),
)


@dataclass(frozen=True)
class Verdict:
    """What the model said of one line: P(yes) (None when the request failed), how it was read
    (`logprobs`, the `answer` word, or `failed`), and why it failed."""

    line: str
    score: float | None
    how: str
    why: str = ""


@dataclass(frozen=True)
class Judging:
    """The verdicts, in the lines' order, and what the requests cost."""

    verdicts: list[Verdict]
    usage: Usage


def messages(premises: str, text: str) -> list[dict[str, str]]:
    """The request for one line: the fixed prefix (system, examples), then the line, last."""
    out = [{"role": "system", "content": _SYSTEM.format(premises=premises.strip() or "(not said)")}]
    for line, answer in _SHOTS:
        out += [{"role": "user", "content": line}, {"role": "assistant", "content": answer}]
    return [*out, {"role": "user", "content": " ".join(text.split())}]


def score_of(reply: Reply) -> tuple[float | None, str]:
    """(P(yes) among yes and no, how it was read) from a one-token reply; (None, why) when neither shows."""
    if reply.alternatives:
        yes = sum(p for tok, p in reply.alternatives.items() if tok in ("yes", "y"))
        no = sum(p for tok, p in reply.alternatives.items() if tok in ("no", "n"))
        if yes + no > 0:
            return yes / (yes + no), "logprobs"
    word = reply.text.strip().strip(".!\"'").lower()
    if word.startswith("yes"):
        return 0.9, "answer"
    if word.startswith("no"):
        return 0.1, "answer"
    shown = reply.text.strip()[:40] or "nothing"
    return None, f"the model answered {shown!r}, not yes or no"


_GIVE_UP = 2  # requests in a row that could not reach the endpoint: the rest are not sent


def judge(
    model: Model,
    premises: str,
    lines: Sequence[tuple[str, str]],
    budget: Budget,
    *,
    before_call: Callable[[], None] = lambda: None,
    on_line: Callable[[int], None] = lambda _n: None,
) -> Judging:
    """A verdict for every (id, text) in `lines`, one request each, in order.

    `before_call` (the pass's stop / stand-down check; it may raise) runs before every request. A
    request that fails leaves its line without a score and with the reason; the budget running out,
    or the endpoint unreachable twice in a row, gives the remaining lines that reason without asking.
    Never raises for a model failure: every line leaves with a verdict."""
    out: list[Verdict] = []
    total = Usage()
    unreachable = 0
    stop_why = ""
    for n, (line_id, text) in enumerate(lines):
        if stop_why:
            out.append(Verdict(line_id, None, "failed", stop_why))
            continue
        before_call()
        try:
            budget.check()
            reply = complete(model, messages(premises, text), {}, budget, max_tokens=1, logprobs=TOP)
        except ModelError as exc:
            why = f"request failed: {exc}"
            unreachable = unreachable + 1 if exc.kind in ("unreachable", "auth", "unavailable") else 0
            if exc.kind == "budget" or unreachable >= _GIVE_UP:
                stop_why = why
            out.append(Verdict(line_id, None, "failed", why))
            continue
        unreachable = 0
        total = total + reply.usage
        score, how = score_of(reply)
        out.append(Verdict(line_id, score, how if score is not None else "failed", "" if score is not None else how))
        on_line(n + 1)
    return Judging(out, total)


# Where between the calibration lines' chatter (0) and facts (1) a model's threshold sits. Measured
# on the labelled dev journals (tests/benchmarks/journals/dev-*): a journal's chatter scores well
# above the calibration's plain chatter, so the midpoint kept too much of it (Qwen2.5 1.5B: 3 of 25
# chatter lines at 0.5, 1 at 0.65, with 55 of 58 facts kept either way; Gemma 3 270M: none).
_PLACE = 0.65


def calibrate(scores: Mapping[str, float | None]) -> float | None:
    """The threshold between the calibration lines' facts and their chatter (`_PLACE` of the way
    from the chatter's mean score to the facts'), from their scores by text; None when too few were
    scored or the model cannot tell them apart (a fact scored below the chatter on average)."""
    facts = [s for text, fact in CALIBRATION if fact and (s := scores.get(text)) is not None]
    chatter = [s for text, fact in CALIBRATION if not fact and (s := scores.get(text)) is not None]
    if len(facts) < 2 or len(chatter) < 2:
        return None
    hi, lo = sum(facts) / len(facts), sum(chatter) / len(chatter)
    if hi <= lo or math.isclose(hi, lo):
        return None
    return lo + _PLACE * (hi - lo)
