"""Notes: what an answer may rest on — a sentence of a page with the journal lines it came from, or
a journal line itself — and how a page's text is traced to its lines.

A page's text is traced three ways, the first that holds:

- a paragraph a pass wrote (the pass records' provenance, `history.provenance`): each of its
  sentences, with those of the paragraph's cited lines that hold its words;
- a small-mode bullet, a journal line word for word ending in its day (`- Acme pays 400 EUR
  (2026-11-29)`): the line of that day with that text;
- any other sentence (the person's own text, a pass from before records kept provenance): the
  lines of the page's `source:` days that hold its words, when together they ground it as rule 11
  grounds a pass's sentence.

A sentence nothing grounds is no note: an answer could not cite it. Pure: text in, notes out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from gitgarden.answer.check import verdict
from gitgarden.guard.grounding import content_words, lines_holding, sentences
from gitgarden.history.provenance import Source
from gitgarden.wiki import pages
from gitgarden.wiki.journal import LIST_MARK, JournalLine

__all__ = ["Note", "Journal", "page_notes", "line_note", "BULLET"]

# A small-mode bullet: the line's words, then its day in brackets.
BULLET = re.compile(r"^\s*[-*+]\s+(?:\[[ xX]\]\s+)?(?P<text>.+?)\s*\((?P<day>\d{4}-\d{2}-\d{2})\)\s*$")
_BLANK = re.compile(r"\n[ \t]*\n")
_SHARED_MIN = 1  # content words a line must share with a sentence to be looked at as its source


@dataclass(frozen=True)
class Note:
    """One thing the garden says: its words, the journal lines it rests on, and the page it stands
    on ('' for a journal line no page was looked up for)."""

    text: str
    lines: tuple[JournalLine, ...]
    page: str = ""
    title: str = ""

    @property
    def day(self) -> str:
        """The newest day among its lines: when the garden last heard of it."""
        return max((ln.day for ln in self.lines), default="")

    @property
    def order(self) -> tuple[str, int]:
        """Where its newest line stands in the journal (day, line number): later lines sort after."""
        return max(((ln.day, ln.lineno) for ln in self.lines), default=("", 0))

    @property
    def line_ids(self) -> tuple[str, ...]:
        return tuple(ln.id for ln in self.lines)


@dataclass
class Journal:
    """Every journal line, by id and by day (oldest day first within `lines`)."""

    lines: list[JournalLine]
    by_id: dict[str, JournalLine] = field(init=False)
    by_day: dict[str, list[JournalLine]] = field(init=False)
    _words: dict[str, frozenset[str]] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.by_id = {ln.id: ln for ln in self.lines}
        self.by_day = {}
        for ln in self.lines:
            self.by_day.setdefault(ln.day, []).append(ln)

    def words(self, line: JournalLine) -> frozenset[str]:
        """The line's content words as rule 11 compares them (kept: a line is asked about often)."""
        found = self._words.get(line.id)
        if found is None:
            found = self._words[line.id] = frozenset(content_words(line.text))
        return found

    def before(self, line: JournalLine) -> JournalLine | None:
        """The line written just before `line` on its day, or None."""
        day = self.by_day.get(line.day, [])
        earlier = [ln for ln in day if ln.lineno < line.lineno]
        return earlier[-1] if earlier else None

    def matching(self, day: str, text: str) -> JournalLine | None:
        """The line of `day` whose words are `text` (a list mark and spacing aside), or None."""
        want = _plain(text)
        return next((ln for ln in self.by_day.get(day, []) if _plain(ln.text) == want), None)


def _plain(text: str) -> str:
    return " ".join(LIST_MARK.sub("", text.strip(), count=1).split()).rstrip(".").casefold()


def line_note(line: JournalLine, page: str = "", title: str = "") -> Note:
    """A journal line as a note of its own."""
    return Note(line.text, (line,), page, title)


def page_notes(
    name: str,
    text: str,
    traced: Mapping[str, Source],
    journal: Journal,
    threshold: float,
) -> list[Note]:
    """The notes page `name` (its whole text, frontmatter and all) holds, in page order: every
    sentence that can be traced to journal lines (see the module's docstring)."""
    try:
        meta = pages.read_meta(text)
    except pages.PageError:
        meta = {}
    title = str(meta.get("title") or name.rsplit("/", 1)[-1])
    body = pages.split_frontmatter(text)[1]
    days = pages.source_days(meta)
    out: list[Note] = []
    for block in _BLANK.split(body.replace("\r\n", "\n")):
        if not block.strip():
            continue
        rest: list[str] = []
        for raw in block.splitlines():
            bullet = BULLET.match(raw)
            line = journal.matching(bullet.group("day"), bullet.group("text")) if bullet else None
            if bullet and line is not None:
                out.append(Note(bullet.group("text"), (line,), name, title))  # its day is the line's, shown apart
            else:
                rest.append(raw)
        if not any(r.strip() for r in rest):
            continue
        source = traced.get(" ".join(block.split()))
        if source is not None:
            lines = tuple(ln for ln in (journal.by_id.get(i) for i, _ in source.lines) if ln is not None)
            out += _traced_notes("\n".join(rest), lines, name, title, threshold)
        else:
            sources = [ln for d in days for ln in journal.by_day.get(d, [])]
            out += _grounded_notes("\n".join(rest), sources, journal, name, title, threshold)
    return out


def _traced_notes(block: str, lines: Sequence[JournalLine], name: str, title: str, threshold: float) -> list[Note]:
    """The sentences of a paragraph a pass wrote, each citing the paragraph's lines that hold its words."""
    out = []
    for sentence in sentences(block):
        if not _says(sentence):
            continue  # a lone day or number: nothing an answer could say
        cited = _holding(sentence, lines, title)
        for tried in (cited, tuple(lines)):
            if tried and not verdict(sentence, tried, title, threshold):
                out.append(Note(sentence, tried, name, title))
                break
    return out


def _grounded_notes(
    text: str, candidates: Sequence[JournalLine], journal: Journal, name: str, title: str, threshold: float
) -> list[Note]:
    """The sentences of text no pass is known to have written, each with the lines of the page's
    source days that ground it; a sentence they do not ground is left out."""
    out = []
    for sentence in sentences(text):
        words = set(content_words(sentence))
        if not _says(sentence):
            continue
        near = [ln for ln in candidates if len(words & journal.words(ln)) >= _SHARED_MIN]
        cited = _holding(sentence, near, title)
        if cited and not verdict(sentence, cited, title, threshold):
            out.append(Note(sentence, cited, name, title))
    return out


def _says(sentence: str) -> bool:
    """True when a sentence holds a word, not only a day or a number ("(2026-03-05)")."""
    return any(not w[0].isdigit() for w in content_words(sentence))


def _holding(sentence: str, lines: Iterable[JournalLine], title: str) -> tuple[JournalLine, ...]:
    """The fewest of `lines` that hold the sentence's words (rule 11's own greedy choice), in journal
    order. The page's title is left out of the choice: a name the title also holds ("Marta Okafor"
    on her page) is still cited from the line that says it."""
    offered = {ln.id: ln for ln in lines}
    if not offered:
        return ()
    chosen = lines_holding(sentence, [], {i: (ln.text, ln.day) for i, ln in offered.items()})
    return tuple(sorted((offered[i] for i in chosen), key=lambda ln: (ln.day, ln.lineno)))
