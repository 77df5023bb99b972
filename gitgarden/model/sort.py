"""Small mode's question to the model: sort these journal lines (docs/architecture.md, "Small mode and full mode").

A 1–3B model sorts lines well and writes pages badly, so in small mode it only
sorts: each line is a `fact`, a `decision`, a `question` or `chatter`, and
belongs on one page chosen from a short list code built for that line (pages
whose title or alias words stand in the line, plus "new" with a title made of
the line's own words). Code writes everything else (`gardener.small`).

The prompt is short and the reply's schema is built per batch: the line ids,
the kinds and the page choices are enums, so a grammar-constrained server
(llama.cpp) cannot answer with a line or a page that was not offered. The
reply is still validated here, line by line: an entry that is not usable is
dropped (its line stays unread), never guessed at.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gitgarden.errors import ModelError
from gitgarden.model.llm import Budget, Model, TokenCallback, Usage, complete

__all__ = [
    "KINDS",
    "NEW",
    "BATCH",
    "Item",
    "Sorted",
    "Sorting",
    "schema",
    "messages",
    "parse",
    "ask_sort",
    "reply_tokens",
]

KINDS = ("fact", "decision", "question", "chatter")
NEW = "new"
BATCH = 12  # lines one sort request holds: a few dozen at most, so a small model keeps count
_TITLE_CHARS = 60
_PER_LINE_TOKENS = 40  # a reply's tokens per sorted line (id, kind, page, a short title), with room


@dataclass(frozen=True)
class Item:
    """One line to sort: its id, its text, and the pages code offers for it (existing page names)."""

    line: str
    text: str
    pages: tuple[str, ...] = ()


@dataclass(frozen=True)
class Sorted:
    """The model's answer for one line: its kind, the page chosen (a name from the line's list, or NEW), a title for a new page."""

    line: str
    kind: str
    page: str
    title: str = ""


@dataclass(frozen=True)
class Sorting:
    """What the sort requests came to: the usable answers, what they cost, and the entries dropped (why)."""

    items: list[Sorted]
    usage: Usage
    dropped: list[str]


def reply_tokens(count: int) -> int:
    """The output tokens a sort reply of `count` lines needs (with room to spare)."""
    return 24 + _PER_LINE_TOKENS * count


def schema(items: Sequence[Item]) -> dict[str, Any]:
    """The JSON Schema of a reply to a sort of `items`: an object with one required key per line id, in
    order, each holding the line's kind and page (its own candidates and "new" as an enum). A
    grammar-constrained server (llama.cpp) then cannot leave a line out, add one, or pick a page
    that was not offered for that line."""
    props = {
        it.line: {
            "type": "object",
            "properties": {
                "kind": {"enum": list(KINDS)},
                "page": {"enum": [*it.pages, NEW]},
                "title": {"type": "string"},
            },
            "required": ["kind", "page", "title"],
            "additionalProperties": False,
        }
        for it in items
    }
    return {"type": "object", "properties": props, "required": [it.line for it in items], "additionalProperties": False}


_SYSTEM = """\
You sort the journal lines of the project "{project}". For every line, answer its kind and its page.

Kinds:
- fact: something true about the project worth keeping: a person, an organisation, a place, an amount, a date, a plan, a rule.
- decision: something that was decided or agreed.
- question: something open, unknown or still to be decided.
- chatter: small talk, feelings, errands, weather, meals, anything not worth a page.

Page: one of the pages listed under the line, or "new". For "new", the title is two to five words copied \
from the line that name its subject (a name, a thing); otherwise the title is "".

Answer with one JSON object on one line and nothing else: one key per line id, in order, like this \
(0000-00-00#1 and 0000-00-00#2 stand for the lines' ids):
{example}"""

_EXAMPLE = (
    '{"0000-00-00#1": {"kind": "fact", "page": "new", "title": "<words from the line>"}, '
    '"0000-00-00#2": {"kind": "chatter", "page": "new", "title": ""}}'
)


def messages(project: str, items: Sequence[Item], premises: str = "") -> list[dict[str, str]]:
    """The system and user messages of one sort request. The system message is the same for every
    batch of a project, so a local server reuses its prefix."""
    system = _SYSTEM.format(project=project, example=_EXAMPLE)
    rows = []
    for it in items:
        pages = ", ".join(f'"{p}"' for p in (*it.pages, NEW))
        rows.append(f"[{it.line}] {it.text}\n    pages: {pages}")
    head = f"What the project is about: {premises.strip()}\n\n" if premises.strip() else ""
    user = f"{head}Journal lines:\n" + "\n".join(rows) + "\n\nAnswer with the JSON object now."
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def _clean_title(title: str) -> str:
    return " ".join(title.split())[:_TITLE_CHARS].strip(" .,:;-")


def parse(text: str, items: Sequence[Item]) -> tuple[list[Sorted], list[str]]:
    """(the usable entries of a sort reply, why each other one was dropped). An entry is usable
    when it names an offered line (once), a known kind and a page offered for that line. The
    reply is an object keyed by line id (the schema's shape); a `{"lines": [{"line": id, …}]}`
    list is read too.

    ValueError when the reply is not a JSON object at all."""
    stripped = text.strip()
    fence = re.match(r"^```(?:json)?\s*\n(.*)\n```\s*$", stripped, re.S)
    try:
        data = json.loads(fence.group(1) if fence else stripped)
    except (json.JSONDecodeError, RecursionError):
        raise ValueError("the reply is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the reply is not a JSON object")
    rows = data.get("lines")
    if not isinstance(rows, list):  # the schema's shape: one key per line id
        rows = [{"line": key, **value} if isinstance(value, dict) else value for key, value in data.items()]
    offered: Mapping[str, Item] = {it.line: it for it in items}
    out: list[Sorted] = []
    dropped: list[str] = []
    seen: set[str] = set()
    for n, row in enumerate(rows):
        if not isinstance(row, dict):
            dropped.append(f"lines[{n}] is not an object")
            continue
        line, kind, page = row.get("line"), row.get("kind"), row.get("page")
        title = row.get("title") if isinstance(row.get("title"), str) else ""
        if not isinstance(line, str) or line not in offered or line in seen:
            dropped.append(f"lines[{n}]: {line!r} is not a line offered (or came twice)")
            continue
        if kind not in KINDS:
            dropped.append(f"{line}: kind {kind!r} is not one of {', '.join(KINDS)}")
            continue
        if page != NEW and page not in offered[line].pages:
            dropped.append(f"{line}: page {page!r} was not offered for it")
            continue
        seen.add(line)
        out.append(Sorted(line, str(kind), str(page), _clean_title(str(title)) if page == NEW else ""))
    return out, dropped


def ask_sort(
    model: Model,
    project: str,
    items: Sequence[Item],
    budget: Budget,
    *,
    premises: str = "",
    batch: int = BATCH,
    before_call: Callable[[], None] = lambda: None,
    on_tokens: TokenCallback | None = None,
) -> Sorting:
    """Sort `items`, `batch` lines a request; a reply that is not the shape gets one more try.

    `before_call` (the pass's stop / stand-down check) and `budget.check()` run before every call.
    A batch whose two replies are both unusable leaves its lines unread; only when no batch gives
    anything is it "bad model output"."""
    found: list[Sorted] = []
    dropped: list[str] = []
    total = Usage()
    problems: list[str] = []
    last_reply = ""
    size = max(1, batch)
    for start in range(0, len(items), size):
        part = list(items[start : start + size])
        convo = messages(project, part, premises)
        sch = schema(part)
        for _attempt in range(2):
            before_call()
            budget.check()
            reply = complete(model, convo, sch, budget, on_tokens, max_tokens=reply_tokens(len(part)))
            total = total + reply.usage
            try:
                got, why = parse(reply.text, part)
            except ValueError as exc:
                problems.append(str(exc))
                last_reply = reply.text
                convo = [*convo[:2], {"role": "assistant", "content": reply.text[:1000] or "(empty)"},
                         {"role": "user", "content": f"That reply cannot be used: {exc}. Answer with exactly one JSON object on one line, like the example."}]  # fmt: skip
                continue
            found.extend(got)
            dropped.extend(why)
            break
    if items and not found and problems:
        raise ModelError(f"bad model output: {problems[-1]}", kind="bad_output", reply=last_reply)
    return Sorting(found, total, dropped)
