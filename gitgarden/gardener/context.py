"""What the model sees, within a token budget (docs/architecture.md, "One pass", step 8).

A pure function of what the caller hands in: `build_messages` does no file
I/O and sees nothing it was not given. Page bodies come through the
`read_page` callback, called only for the pages that make it into the prompt,
so a 5,000-page wiki costs about what a 50-page one does: the page list is
ranked and capped, the bodies are the few pages the unread lines are about.

Every section has a share of the budget; the unread lines — the point of the
pass — take what the others leave, and bodies fill the rest. Token counts are
estimates (about four bytes a token), and the prompt aims a tenth under the
limit so a miscount does not overflow the context.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from posixpath import normpath
from typing import Any

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.model import operations as ops
from gitgarden.wiki import pages
from gitgarden.wiki.journal import JournalLine

__all__ = [
    "PageInfo",
    "ContextInputs",
    "ContextReport",
    "build_messages",
    "estimate_tokens",
    "system_message",
    "rank_pages",
    "project_relative",
]

SAFETY = 0.9  # aim under the limit: the estimate is not a tokenizer
# Shares of what is left after the system message.
AGENTS_SHARE = 0.12
IDENTITY_SHARE = 0.08
MAP_SHARE = 0.08
CONVERSATION_SHARE = 0.08
LIST_SHARE = 0.12
BODY_SHARE = 0.15  # reserved for bodies when the lines would take everything
MIN_LINES_SHARE = 0.45
# Absolute caps: past these a bigger wiki must not mean a bigger prompt.
MAX_LISTED = 100
MAX_RELEVANT_LISTED = 80
MAX_BODIES = 12
MAX_READS = 2 * MAX_BODIES
MIN_EXCERPT_TOKENS = 150
MAX_SIMILAR_SHOWN = 3


@dataclass(frozen=True)
class PageInfo:
    """One page as the page list shows it. `size` is its length in characters."""

    name: str
    title: str
    state: str
    size: int
    aliases: tuple[str, ...] = ()


@dataclass
class ContextInputs:
    """Everything a prompt may contain; the caller gathered it from inside the project root."""

    project_name: str
    agents_md: str
    identity: list[tuple[str, str]]  # (file name as shown, its text)
    map_text: str
    pages: list[PageInfo]
    read_page: Callable[[str], str | None]  # page name -> its text; called only for pages shown
    unread: list[JournalLine]
    overflow: int  # unread lines beyond those passed in, left for a later pass
    conversation: str
    today: str
    candidates: dict[str, list[str]] = field(default_factory=dict)  # line id -> names of similar pages
    review_summary: str = ""  # review mode: one line on what the person accepted and rejected lately


@dataclass
class ContextReport:
    """What went into the prompt: the pass records it and uses `lines_offered` and the conversation tail."""

    prompt_tokens_estimate: int
    pages_listed: int
    pages_with_bodies: list[str]
    pages_omitted: int  # pages not named in the list (counted only)
    conversation_chars: int  # the prompt shows inputs.conversation[-conversation_chars:]
    lines_offered: list[str] = field(default_factory=list)  # ids of the unread lines in the prompt
    lines_held_back: int = 0  # unread lines passed in that did not fit (a later pass reads them)


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: about four UTF-8 bytes a token (no tokenizer to download)."""
    return math.ceil(len(text.encode("utf-8")) / 4)


def project_relative(name: str) -> str | None:
    """`name` as a clean path inside the project, or None when it could point outside it.

    The check on identity-file names (and any other configured path) before the
    caller reads them: absolute paths, `~`, `..` and hidden parts are refused.
    The caller still refuses symlinks when it reads.
    """
    raw = name.strip().replace("\\", "/")
    if not raw or raw.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", raw):
        return None
    parts = raw.split("/")
    if any(p == ".." or (p.startswith(".") and p != ".") for p in parts):
        return None
    clean = normpath(raw)
    return None if clean in (".", "") or clean.startswith("..") else clean


# -- the system message ---------------------------------------------------------

_RULES = """\
You are the gardener of the wiki of the project "{project}". Between conversations you read the \
journal lines nobody has read yet and decide which of them earn a place in the wiki. You answer \
with operations; code applies them, checks them against its rules, and commits them.

Rules:
- Promote what the project will keep talking about: people, places, organisations, decisions, \
constraints, recurring problems. One-off details, chatter and logistics stay in the journal.
- Several lines about one thing are one page (or one append to the page it already has), not several pages.
- Most lines pass through: cite them in a "skip" operation with a short "reason" (chatter, logistics, \
one-off detail): the person reads it. A pass that promotes nothing has done its job.
- Before creating a page, read the page list: when the thing already has a page (by name, title \
or alias), append to that page instead.
- New pages start open. Never set a state without quoting, word for word, the journal or \
conversation line that shows it as "evidence".
- Do not settle contradictions. When a line disagrees with a page — above all a decided one — \
name both with an open_question and leave the page as it is.
- Never reword or delete: you can only add. Write only what the cited lines say — no guesses, no \
outside knowledge — in the language of the lines. A name, number or date the cited lines do not \
contain is refused.
- Every operation cites, in "lines", the ids of the journal lines it comes from: the id in brackets \
before each unread line.
- New page names are slugs: lowercase letters, digits and single hyphens. Refer to existing pages by \
their name as listed.

Answer with one JSON object on one line and nothing else — no prose, no code fence, no line break \
(inside a text, write a line break as \\n). Write each operation's fields in the order shown. \
The three most common shapes, with placeholders — <…> is text you write from the cited lines, \
0000-00-00#1 stands for the id of an unread line and new-page-name for the slug you choose; \
never copy a placeholder:
{example}

The other operations (fields in brackets, in order; * marks optional ones):
{others}
Unknown fields and unknown operations are refused."""

# One line: llama.cpp's JSON grammar allows at most one space between tokens and no newline, so a
# model shown a reply spread over lines wants a newline after "[", cannot write it, and closes the
# list. Fields in the order that grammar fixes (required ones as declared: op, lines, …). Every
# value a placeholder, so a model that copies the example cites no real line and writes no fact.
_EXAMPLE = (
    '{"operations": ['
    '{"op": "create_page", "lines": ["0000-00-00#1"], "page": "new-page-name", "title": "<Title from the cited line>", '
    '"body": "<A sentence from the cited line.>\\n"}, '
    '{"op": "append", "lines": ["0000-00-00#2"], "page": "<name of a listed page>", "text": "<A sentence from the cited line.>\\n"}, '
    '{"op": "skip", "lines": ["0000-00-00#3", "0000-00-00#4"], "reason": "<a few words why>"}'
    "]}"
)

_COMMON = ("create_page", "append", "skip")


def _fields(schema: Mapping[str, Any]) -> str:
    """`lines, page, state (hypothesis|…), parts [{page, title, headings}]` from an operation's schema."""
    props: Mapping[str, Any] = schema.get("properties", {})
    required = schema.get("required", [])
    out = []
    # The order llama.cpp's grammar fixes: required fields as declared, then the optional ones.
    order = [n for n in props if n in required] + [n for n in props if n not in required]
    for name in [n for n in order if n != "op"]:
        prop = props[name]
        label = name if name in required else name + "*"
        items = prop.get("items", {})
        if "enum" in prop:
            label += f" ({'|'.join(map(str, prop['enum']))})"
        elif items.get("type") == "object":
            label += f" [{{{', '.join(items.get('properties', {}))}}}]"
        out.append(label)
    return ", ".join(out)


def system_message(project_name: str) -> str:
    """The gardener's rules and the wire format, generated from `ops.OPERATIONS` so they cannot drift."""
    others = "\n".join(
        f"- {name} [{_fields(sch)}]: {sch['description']}" for name, sch in ops.OPERATIONS.items() if name not in _COMMON
    )
    return _RULES.format(project=project_name, example=_EXAMPLE, others=others)


# -- ranking --------------------------------------------------------------------

_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset(
    {
        "the", "and", "for", "with", "from", "that", "this", "are", "was", "were", "has", "have",
        "had", "not", "but", "you", "your", "our", "their", "about", "into", "over", "under", "after",
        "before", "what", "when", "where", "which", "who", "will", "would", "can", "could", "should",
        "may", "might", "must", "new", "page", "pages", "note", "notes", "more", "most", "some", "any",
        "all", "one", "two", "its", "they", "them", "then", "than", "there", "here", "also", "just",
        "very", "only", "out", "off", "via", "per", "did", "does", "done", "get", "got", "let", "make",
        "made",
    }
)


def _words(text: str) -> set[str]:
    out = set()
    for w in _WORD.findall(text.lower()):
        if w in _STOP:
            continue
        if len(w) >= 3 or (len(w) == 2 and any(c.isdigit() for c in w)):
            out.add(w)
    return out


def _shared_terms(page: PageInfo, line_words: set[str]) -> set[str]:
    """The words of the page's name, title and aliases that the lines hold (`line_words`, made by
    `_words`): each page's words are not filtered one by one, since a word of the lines has passed
    `_words`'s filter already and the result is the same (a pass ranks every page of the wiki)."""
    text = " ".join((page.name.replace("-", " ").replace("/", " "), page.title, *page.aliases))
    return line_words.intersection(_WORD.findall(text.lower()))


def rank_pages(infos: list[PageInfo], lines: Iterable[JournalLine], candidates: dict[str, list[str]]) -> list[tuple[float, PageInfo]]:
    """Pages the lines are about, best first: shared rare words, whole titles mentioned, and the caller's candidates.

    A word shared by many pages counts little (1/number of pages having it), so
    "meeting" in a hundred titles does not drown "acme" in one.
    """
    lines = list(lines)
    line_words = _words(" ".join(ln.text for ln in lines))
    joined = " \n".join(ln.text.lower() for ln in lines)
    terms = {p.name: _shared_terms(p, line_words) for p in infos}
    df: dict[str, int] = {}
    for ts in terms.values():
        for t in ts:
            df[t] = df.get(t, 0) + 1
    bonus: dict[str, float] = {}
    offered = {ln.id for ln in lines}
    for line_id, names in candidates.items():
        if line_id in offered:
            for name in names:
                bonus[name.lower()] = bonus.get(name.lower(), 0.0) + 3.0
    ranked: list[tuple[float, PageInfo]] = []
    for page in infos:
        if page.name == pages.map_name():
            continue  # the map is shown in full above
        shared = terms[page.name]
        score = sum(1.0 / df[t] for t in shared) + bonus.get(page.name.lower(), 0.0)
        if shared:
            phrases = [page.title, *page.aliases]
            score += sum(2.0 for ph in phrases if len(ph) >= 3 and ph.lower() in joined)
        if score > 0:
            ranked.append((score, page))
    ranked.sort(key=lambda sp: (-sp[0], sp[1].name))
    return ranked


# -- fitting ----------------------------------------------------------------------


def _clip_head(text: str, tokens: float) -> str:
    """The start of `text` within `tokens`, with a note of what was left out."""
    if estimate_tokens(text) <= tokens:
        return text
    keep = max(0, int(tokens * 4) - 60)
    cut = text.encode("utf-8")[:keep].decode("utf-8", "ignore")
    cut = cut[: cut.rfind("\n") + 1] or cut  # end on a whole line when one fits
    return f"{cut}\n[… {len(text) - len(cut):,} more characters not shown]\n"


def _clip_tail(text: str, tokens: float) -> str:
    """The end of `text` within `tokens` (the newest part of a conversation)."""
    if estimate_tokens(text) <= tokens:
        return text
    keep = max(0, int(tokens * 4))
    data = text.encode("utf-8")
    return data[len(data) - keep :].decode("utf-8", "ignore") if keep else ""


def _page_row(page: PageInfo) -> str:
    title = page.title + (f" (also: {', '.join(page.aliases)})" if page.aliases else "")
    over = " | over budget" if page.size > pages.PAGE_BUDGET else ""
    return f"- {page.name} | {title} | {page.state} | {page.size}{over}"


def _line_row(line: JournalLine, candidates: dict[str, list[str]]) -> str:
    similar = candidates.get(line.id, [])[:MAX_SIMILAR_SHOWN]
    note = f"  (similar pages: {', '.join(similar)})" if similar else ""
    return f"[{line.id}] {line.text}{note}"


def _take(rows: Iterable[str], tokens: float, *, limit: int | None = None) -> list[str]:
    out: list[str] = []
    used = 0
    for row in rows:
        cost = estimate_tokens(row) + 1
        if used + cost > tokens or (limit is not None and len(out) >= limit):
            break
        out.append(row)
        used += cost
    return out


def _block(title: str, body: str) -> str:
    return f"=== {title} ===\n{body.rstrip()}\n" if body.strip() else ""


def build_messages(inputs: ContextInputs, settings: Settings) -> tuple[list[dict[str, str]], ContextReport]:
    """The system and user messages for one pass, fitted within the token budget, and what went in.

    The limit is min(context_window - max_output_tokens, token_budget). Raises
    ModelError(kind="context_too_long") when not even the rules and one unread
    line fit.
    """
    limit = min(settings.context_window - settings.max_output_tokens, settings.token_budget)
    system = system_message(inputs.project_name)
    avail = limit * SAFETY - estimate_tokens(system) - 60  # 60: headings and message framing
    if avail <= 0:
        raise ModelError(
            f"the budget leaves no room for a prompt: context_window {settings.context_window:,} - "
            f"max_output_tokens {settings.max_output_tokens:,}, token_budget {settings.token_budget:,}",
            kind="context_too_long",
        )

    agents = _clip_head(inputs.agents_md, AGENTS_SHARE * avail)
    each = IDENTITY_SHARE * avail / max(1, len(inputs.identity))
    identity = [(name, _clip_head(text, each)) for name, text in inputs.identity]
    map_text = _clip_head(inputs.map_text, MAP_SHARE * avail)
    window = inputs.conversation[-settings.chat_window_chars :] if settings.chat_window_chars > 0 else ""
    conversation = _clip_tail(window, CONVERSATION_SHARE * avail)
    used = sum(estimate_tokens(t) for t in (agents, map_text, conversation, inputs.review_summary[:400], *(t for _, t in identity)))

    # The unread lines take what the small sections leave, minus room for the list and some bodies.
    line_room = max(MIN_LINES_SHARE * avail, avail - used - (LIST_SHARE + BODY_SHARE) * avail)
    line_rows = _take((_line_row(ln, inputs.candidates) for ln in inputs.unread), line_room)
    offered = inputs.unread[: len(line_rows)]
    if inputs.unread and not offered:
        raise ModelError("the budget leaves no room for a single journal line; raise context_window or token_budget", kind="context_too_long")
    used += sum(estimate_tokens(r) + 1 for r in line_rows)

    ranked = rank_pages(inputs.pages, offered, inputs.candidates)
    relevant = [p for _, p in ranked]
    relevant_names = {p.name for p in relevant[:MAX_RELEVANT_LISTED]}
    others = sorted((p for p in inputs.pages if p.name not in relevant_names), key=lambda p: p.name.lower())
    ordered = relevant[:MAX_RELEVANT_LISTED] + others
    list_rows = _take((_page_row(p) for p in ordered), min(LIST_SHARE * avail, max(0.0, avail - used)), limit=MAX_LISTED)
    used += sum(estimate_tokens(r) + 1 for r in list_rows)
    omitted = len(inputs.pages) - len(list_rows)

    bodies, read_names = _bodies(relevant, inputs.read_page, avail - used)
    user = _render_user(inputs, agents, identity, map_text, list_rows, omitted, bodies, conversation, line_rows, inputs.overflow + len(inputs.unread) - len(offered))
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    report = ContextReport(
        prompt_tokens_estimate=sum(estimate_tokens(m["content"]) + 4 for m in messages),
        pages_listed=len(list_rows),
        pages_with_bodies=read_names,
        pages_omitted=omitted,
        conversation_chars=len(conversation),
        lines_offered=[ln.id for ln in offered],
        lines_held_back=len(inputs.unread) - len(offered),
    )
    return messages, report


def _bodies(relevant: list[PageInfo], read_page: Callable[[str], str | None], room: float) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, text) of the most relevant pages that fit in `room` tokens; reads as few pages as it can."""
    out: list[tuple[str, str]] = []
    reads = 0
    for page in relevant:
        if len(out) >= MAX_BODIES or reads >= MAX_READS or room < MIN_EXCERPT_TOKENS:
            break
        framing = estimate_tokens(page.name) + 12
        expected = math.ceil(page.size / 4) + framing
        if expected > room and room - framing < MIN_EXCERPT_TOKENS:
            continue  # a smaller relevant page may still fit; this one is not worth reading
        reads += 1
        text = read_page(page.name)
        if text is None:
            continue
        shown = _clip_head(text, room - framing)
        out.append((page.name, shown))
        room -= estimate_tokens(shown) + framing
    return out, [name for name, _ in out]


def _render_user(
    inputs: ContextInputs,
    agents: str,
    identity: list[tuple[str, str]],
    map_text: str,
    list_rows: list[str],
    omitted: int,
    bodies: list[tuple[str, str]],
    conversation: str,
    line_rows: list[str],
    waiting: int,
) -> str:
    parts = [f"Today is {inputs.today}. Project: {inputs.project_name}.\n"]
    parts.append(_block("AGENTS.md — the project's premises", agents))
    parts.extend(_block(f"identity file {name}", text) for name, text in identity)
    where = pages.map_path()
    parts.append(_block(f"the map ({where})", map_text) or f"=== the map ({where}) ===\n(no map yet)\n")
    listing = "\n".join(list_rows)
    if omitted:
        listing += f"\n… and {omitted:,} more pages, not listed (those above are the ones these lines most likely concern)"
    parts.append(_block("pages: name | title | state | size in characters", listing) or "=== pages ===\n(none yet)\n")
    parts.extend(_block(f"page {name}", text) for name, text in bodies)
    parts.append(_block("recent conversation (its last part)", conversation))
    parts.append(_block("the person's review decisions", inputs.review_summary[:400]))
    lines = "\n".join(line_rows)
    if waiting > 0:
        lines += f"\n{waiting:,} more lines wait for a later pass."
    parts.append(_block("unread journal lines", lines) or "=== unread journal lines ===\n(none)\n")
    parts.append("Answer with the JSON object now.\n")
    return "\n".join(p for p in parts if p)
