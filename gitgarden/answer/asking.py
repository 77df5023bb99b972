"""Asking the garden a question: find the notes, ask the model in its mode, check and compose.

`ask` is the one function the faces reach (through `services.ask`). The notes offered are
bounded by what the model can read: the context window (`context_window`) less the reply and the
instructions, and — once the endpoint's pace is known (`model.speed`, measured once per endpoint
and kept) — what it reads in the seconds a question should take. Nothing found means no model
call at all: "Not in the garden", with the nearest pages.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from gitgarden.answer import check, compose, prompts
from gitgarden.answer.compose import Answer
from gitgarden.answer.notes import Note
from gitgarden.answer.retrieve import gather
from gitgarden.config import Settings
from gitgarden.errors import GitgardenError, ModelError
from gitgarden.model import speed
from gitgarden.model.endpoints import choose_mode
from gitgarden.model.llm import Budget, Model, Usage, complete
from gitgarden.project import Project

__all__ = ["ask", "ask_model", "note_room", "QUESTION_LIMIT", "ANSWER_SECONDS"]

QUESTION_LIMIT = 1000  # characters: a question, not a document
ANSWER_SECONDS = 30  # what reading the notes should take at the endpoint's measured pace
_INSTRUCTIONS = 400  # tokens of the instructions, the question and the message framing (estimate)
_PACE_SHARE = 0.7  # of ANSWER_SECONDS for reading the notes: the rest is the reply and the request
_NOTES_CAP = {"small": 1200, "full": 6000}  # a small model picks worse from more; a large one reads more
_LEAST = 600  # however slow the endpoint, a dozen notes or so: fewer answers nothing


def note_room(settings: Settings, mode: str, pace: speed.Speed | None) -> int:
    """How many prompt tokens the notes may take: what the mode suits, at most what the endpoint reads
    in its share of ANSWER_SECONDS when its pace is known (but never under _LEAST), and never more
    than the context window holds beside the reply and the instructions."""
    reply = prompts.reply_tokens(mode)
    room = _NOTES_CAP.get(mode, _NOTES_CAP["full"])
    if pace is not None and pace.prompt_tps > 0:
        seconds = min(ANSWER_SECONDS, settings.timeout) * _PACE_SHARE - reply / max(pace.reply_tps, 0.1)
        room = max(_LEAST, min(room, int(seconds * pace.prompt_tps) - _INSTRUCTIONS))
    return max(1, min(room, settings.context_window - reply - _INSTRUCTIONS))


def _pace(model: Model, settings: Settings, env: Mapping[str, str], now: datetime) -> speed.Speed | None:
    """The endpoint's measured pace, measured now when none is kept (a model that cannot be measured,
    a scripted one, has none)."""
    if not callable(getattr(model, "measure_speed", None)):
        return None
    here = {**os.environ, **env}  # the state folder of this process, as a pass finds it
    found = speed.cached(settings, here, now)
    if found is None:
        found = speed.measure(model, settings, now)
        speed.remember(settings, here, found)
    return found


def ask_model(
    model: Model, project: str, question: str, notes: Sequence[Note], mode: str, budget: Budget
) -> tuple[list[prompts.Written], Usage]:
    """The model's reply over `notes`, read (`prompts.parse`); a reply that is not the shape gets
    one more request. ModelError("bad model output") when neither is usable."""
    convo = prompts.messages(project, notes, question, mode)
    shape = prompts.schema(len(notes), mode)
    total = Usage()
    problem = ""
    for _attempt in range(2):
        budget.check()
        reply = complete(model, convo, shape, budget, max_tokens=prompts.reply_tokens(mode))
        total = total + reply.usage
        try:
            return prompts.parse(reply.text, len(notes), mode), total
        except ValueError as exc:
            problem = str(exc)
            convo = [*convo[:2], {"role": "assistant", "content": reply.text[:1000] or "(empty)"},
                     {"role": "user", "content": f"That reply cannot be used: {exc}. Answer with exactly one JSON object on one line, like the example."}]  # fmt: skip
    raise ModelError(f"bad model output: {problem}", kind="bad_output")


def ask(
    project: Project,
    question: str,
    settings: Settings,
    model: Model | None,
    *,
    env: Mapping[str, str],
    now: Callable[[], datetime],
    tokens: int | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Answer:
    """Answer `question` from the garden of `project` (its layout in force). `tokens` bounds the
    notes offered instead of `note_room`. GitgardenError for an empty or overlong question or no
    model; ModelError when the model cannot be reached or answers unusably twice."""
    text = " ".join(question.split())
    if not text:
        raise GitgardenError("nothing to ask: give a question, e.g. gitgarden ask \"what is the rent now?\"")
    if len(text) > QUESTION_LIMIT:
        raise GitgardenError(f"the question is {len(text):,} characters, over the {QUESTION_LIMIT:,} a question may have")
    if model is None:
        raise GitgardenError("ask needs a model and none is configured: set one with `gitgarden config set model …` or GITGARDEN_MODEL")
    started = clock()
    mode = choose_mode(settings)[0]
    room = tokens if tokens is not None else note_room(settings, mode, _pace(model, settings, env, now()))
    found = gather(project, text, identity=tuple(settings.identity_files), threshold=settings.grounding_min, tokens=room)
    q = found.question or check.question(text)
    answer = Answer(text, mode, nearest=found.nearest, notes_offered=len(found.notes), unknown=q.as_written(found.unknown))
    if found.notes:
        budget = Budget.from_settings(settings, clock=clock)
        written, answer.usage = ask_model(model, project.name, text, found.notes, mode, budget)
        if mode == "small":
            picks = [found.notes[w.notes[0]] for w in written if w.notes]
            answer.sentences, answer.dropped = compose.from_picks(q, picks, found, settings.grounding_min)
        else:
            answer.sentences, answer.dropped = compose.from_written(q, written, found.notes, found, settings.grounding_min)
    if answer.abstained and not answer.nearest:
        answer.nearest = list(dict.fromkeys((n.page, n.title) for n in found.notes if n.page))[:3]
    answer.seconds = clock() - started
    return answer

