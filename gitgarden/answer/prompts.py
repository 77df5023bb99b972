"""The question put to the model, in the two ways a model is used, and its reply read back.

Both show the notes numbered, each with its day and page, the question last: what repeats (the
instructions) comes first, so a local server reuses the prompt's prefix from one question to the
next. The reply's schema is built per question, the note numbers an enum, so a
grammar-constrained server (llama.cpp) cannot cite a note that was not offered.

- small: the model picks the notes that answer (`{"notes": ["3"]}`, "none" when none does); code
  composes the answer from them word for word.
- full: the model writes up to three sentences, each citing the notes it comes from
  (`{"sentences": [{"text": "…", "notes": ["3"]}]}`); code checks each sentence.

The reply is still read defensively: an unknown note number is dropped, never guessed at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gitgarden.answer.notes import Note

__all__ = ["NONE", "MAX_PICKS", "MAX_SENTENCES", "Written", "messages", "schema", "parse", "reply_tokens", "shown"]

NONE = "none"
MAX_PICKS = 2
MAX_SENTENCES = 3
_SMALL_REPLY_TOKENS = 24
_FULL_REPLY_TOKENS = 320

_SMALL = """\
You answer questions about the project "{project}" from its notes. Each note has a number, the day \
it was written and, in brackets, the page it belongs to.
Find the note that answers the question and give its number; give two numbers only when the answer \
needs both notes. When notes disagree, the newest one holds. If no note answers the question, answer "none".
Answer with one JSON object on one line and nothing else, like this: {{"notes": ["3"]}}"""

_FULL = """\
You answer questions about the project "{project}" from its notes, and from nothing else. Each note \
has a number, the day it was written and, in brackets, the page it belongs to.
Write one to three short sentences that answer the question. Each sentence cites the numbers of the \
notes it comes from, and uses only names, numbers and dates that stand in those notes. When notes \
disagree, the newest one holds: give its value, and say that the older value was corrected, citing both. \
If the notes do not answer the question, answer with no sentences: {{"sentences": []}}.
Answer with one JSON object on one line and nothing else, like this: \
{{"sentences": [{{"text": "The rent is 900 EUR a month.", "notes": ["3"]}}]}}"""


@dataclass(frozen=True)
class Written:
    """One sentence the model wrote (full mode) and the notes it cites, by index into the notes offered."""

    text: str
    notes: tuple[int, ...]


def shown(note: Note) -> str:
    """A note as the model reads it: `2026-11-23 (lease) Rent for the shop is 2,400 EUR a month.`"""
    where = f" ({note.page})" if note.page else ""
    return f"{note.day}{where} {' '.join(note.text.split())}"


def messages(project: str, notes: Sequence[Note], question: str, mode: str) -> list[dict[str, str]]:
    """The system and user messages: the instructions of `mode` (the same for every question), then
    the notes, then the question."""
    system = (_SMALL if mode == "small" else _FULL).format(project=project)
    rows = "\n".join(f"[{n}] {shown(note)}" for n, note in enumerate(notes, start=1)) or "(no notes)"
    user = f"Notes:\n{rows}\n\nQuestion: {' '.join(question.split())}"
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def schema(count: int, mode: str) -> dict[str, Any]:
    """The reply's JSON Schema for `count` notes offered: the note numbers are an enum."""
    ids = [str(n) for n in range(1, count + 1)]
    if mode == "small":
        pick = {"enum": [*ids, NONE]}
        return {
            "type": "object",
            "properties": {"notes": {"type": "array", "items": pick, "minItems": 1, "maxItems": MAX_PICKS}},
            "required": ["notes"],
            "additionalProperties": False,
        }
    cite: dict[str, Any] = {"type": "array", "items": {"enum": ids or [NONE]}, "minItems": 1, "maxItems": 3}
    sentence = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "notes": cite},
        "required": ["text", "notes"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"sentences": {"type": "array", "items": sentence, "maxItems": MAX_SENTENCES}},
        "required": ["sentences"],
        "additionalProperties": False,
    }


def reply_tokens(mode: str) -> int:
    """The output tokens a reply of `mode` needs, with room."""
    return _SMALL_REPLY_TOKENS if mode == "small" else _FULL_REPLY_TOKENS


def _data(text: str) -> dict[str, Any]:
    stripped = text.strip()
    fence = re.match(r"^```(?:json)?\s*\n(.*)\n```\s*$", stripped, re.S)
    try:
        data = json.loads(fence.group(1) if fence else stripped)
    except (json.JSONDecodeError, RecursionError):
        raise ValueError("the reply is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the reply is not a JSON object")
    return data


def _index(value: Any, count: int) -> int | None:
    """A note number of the reply as an index into the notes offered, or None."""
    text = str(value).strip().strip("[]") if isinstance(value, str | int) and not isinstance(value, bool) else ""
    return int(text) - 1 if text.isdigit() and 1 <= int(text) <= count else None


def parse(text: str, count: int, mode: str) -> list[Written]:
    """The usable part of a reply over `count` notes: in small mode one Written per note picked (its
    text empty), in full mode each sentence with the notes it cites. An empty list is the model
    saying no note answers. ValueError when the reply is not a JSON object of the mode's shape."""
    data = _data(text)
    if mode == "small":
        picks = data.get("notes")
        if isinstance(picks, str | int):
            picks = [picks]
        if not isinstance(picks, list):
            raise ValueError('the reply has no "notes" list')
        found = [i for i in (_index(p, count) for p in picks[:MAX_PICKS]) if i is not None]
        return [Written("", (i,)) for i in dict.fromkeys(found)]
    rows = data.get("sentences")
    if not isinstance(rows, list):
        raise ValueError('the reply has no "sentences" list')
    out = []
    for row in rows[:MAX_SENTENCES]:
        if not isinstance(row, dict) or not isinstance(row.get("text"), str) or not row["text"].strip():
            continue
        cited = row.get("notes")
        cited = cited if isinstance(cited, list) else [cited]
        notes = tuple(dict.fromkeys(i for i in (_index(c, count) for c in cited) if i is not None))
        out.append(Written(" ".join(row["text"].split()), notes))
    return out
