"""An answer made of checked sentences: composed from the notes the model picked (small mode) or
taken from the sentences it wrote (full mode), each judged by `check`, with the newest value
given where a later line corrected one.

A note picked is written as it stands in the garden, ending in its day
(`Rent for the shop is 2,400 EUR a month (23 November 2026).`). When other lines state another value of
the same thing, the newest is the answer and each older one follows, marked corrected and citing
its own line: the reader sees what changed and when. A full-mode sentence that cites a line a
later one corrected, without citing the later one, is replaced by that composition: the model's
words never carry a value the garden has since corrected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from gitgarden.answer import check
from gitgarden.answer.notes import Note, line_note
from gitgarden.answer.prompts import Written
from gitgarden.answer.retrieve import Found
from gitgarden.guard.words import MONTHS
from gitgarden.model.llm import Usage
from gitgarden.wiki.journal import JournalLine

__all__ = ["NOT_IN_GARDEN", "Sentence", "Answer", "from_picks", "from_written", "dated"]

NOT_IN_GARDEN = "Not in the garden."


@dataclass(frozen=True)
class Sentence:
    """One sentence of an answer and what it cites: the pages it stands on and the journal lines
    it rests on. `corrected_by` names the later line that corrects the value it states."""

    text: str
    lines: tuple[JournalLine, ...]
    pages: tuple[str, ...] = ()
    corrected_by: str = ""
    anchors: tuple[tuple[str, str], ...] = ()  # (page, the words as they stand there): where a reader finds it

    @property
    def citation(self) -> str:
        """`[[countertop]] 2026-12-02#4`: the pages, then the line ids."""
        return " ".join([*(f"[[{p}]]" for p in self.pages), *(ln.id for ln in self.lines)])

    @property
    def shown(self) -> str:
        """The sentence as the answer reads: a corrected value says so."""
        return f"Earlier (corrected by {self.corrected_by}): {self.text}" if self.corrected_by else self.text

    def to_json(self) -> dict[str, Any]:
        """The sentence as plain JSON."""
        return {
            "text": self.text,
            "pages": list(self.pages),
            "lines": [ln.id for ln in self.lines],
            "corrected_by": self.corrected_by or None,
        }


@dataclass
class Answer:
    """A question's answer: its sentences (none: "Not in the garden"), the pages nearest to the
    question, the sentences code dropped and why, and what asking cost."""

    question: str
    mode: str
    sentences: list[Sentence] = field(default_factory=list)
    nearest: list[tuple[str, str]] = field(default_factory=list)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    notes_offered: int = 0
    seconds: float = 0.0
    unknown: list[str] = field(default_factory=list)  # the question's words the garden holds nowhere, as written

    @property
    def abstained(self) -> bool:
        return not self.sentences

    @property
    def text(self) -> str:
        """The answer in words, its sentences one after another, or "Not in the garden."."""
        return " ".join(s.shown for s in self.sentences) if self.sentences else NOT_IN_GARDEN

    @property
    def lines(self) -> list[JournalLine]:
        """Every line the answer cites, once each, oldest first."""
        found = {ln.id: ln for s in self.sentences for ln in s.lines}
        return sorted(found.values(), key=lambda ln: (ln.day, ln.lineno))

    def to_json(self) -> dict[str, Any]:
        """The answer as plain JSON (`gitgarden ask --json`, the MCP tool)."""
        return {
            "question": self.question,
            "answer": self.text,
            "abstained": self.abstained,
            "mode": self.mode,
            "sentences": [s.to_json() for s in self.sentences],
            "lines": [{"id": ln.id, "day": ln.day, "text": ln.text} for ln in self.lines],
            "nearest": [{"page": name, "title": title} for name, title in self.nearest],
            "dropped": [{"text": text, "why": why} for text, why in self.dropped],
            "usage": {"prompt_tokens": self.usage.prompt_tokens, "completion_tokens": self.usage.completion_tokens},
            "notes_offered": self.notes_offered,
            "unknown": self.unknown,
        }


def spoken(day: str) -> str:
    """A journal day as people write it: `2026-03-19` -> `19 March 2026`."""
    try:
        d = date.fromisoformat(day)
    except ValueError:
        return day
    return f"{d.day} {MONTHS[d.month - 1].capitalize()} {d.year}"


def dated(note: Note) -> str:
    """A note's words ending in its day: `Rent is 2,400 EUR a month (23 November 2026).`"""
    text = " ".join(note.text.split()).rstrip()
    end = text[-1] if text and text[-1] in ".!?" else "."
    return f"{text.rstrip('.!?').rstrip()} ({spoken(note.day)}){end}" if note.day else text


def _context(note: Note) -> list[str]:
    return [note.title, note.page.replace("-", " ").replace("/", " ")]


def _speaks(q: check.Question, note: Note, found: Found) -> bool:
    """Whether the note answers the question at all. A journal line on no page is read with the line
    written just before it that day, which it often continues ("New job from LinguaBridge …" / "PO
    number LB-90412 …"): for the question's words only, never as grounds for a sentence."""
    context = _context(note)
    if not note.page:
        context += [prev.text for prev in (found.journal.before(ln) for ln in note.lines) if prev is not None]
    neighbours = [other.text for other in found.notes if note.page and other.page == note.page and other is not note]
    return check.speaks_to(q, [note.text, *(ln.text for ln in note.lines)], context, [ln.day for ln in note.lines], neighbours)


def _note_for(line: JournalLine, found: Found) -> Note:
    """The note that states `line`: the page note citing it alone when there is one, else the line itself."""
    known = found.notes_by_line.get(line.id)
    return known if known is not None and known.line_ids == (line.id,) else line_note(line)


def _candidates(note: Note, found: Found) -> list[JournalLine]:
    """The journal lines that could state another value of what the note's lines state: those
    sharing at least two content words with one of them (a cheap filter before `check.corrections`)."""
    words = [found.journal.words(ln) for ln in note.lines]
    return [ln for ln in found.journal.lines if any(len(w & found.journal.words(ln)) >= 2 for w in words)]


def _with_corrections(q: check.Question, note: Note, found: Found) -> list[tuple[Note, str]]:
    """The note, or the later line that corrected it, as the answer's current value, then the older
    values, newest first, each with the id of the line that corrects it: [(note, corrected_by)]."""
    paired = {i for ln in note.lines for i in found.pairs.get(ln.id, ())}
    pool = _candidates(note, found) + [found.journal.by_id[i] for i in sorted(paired) if i in found.journal.by_id]
    mine = {ln.id for ln in note.lines}
    related: dict[str, JournalLine] = {}
    for line in note.lines:
        for other in check.corrections(line, pool, q, _context(note), found.pairs.get(line.id, ()), note.text):
            if other.id not in mine:
                related.setdefault(other.id, other)
    newest = max([*note.lines, *related.values()], key=lambda ln: (ln.day, ln.lineno))
    current = note if newest.id in mine else _note_for(newest, found)
    older = ([] if current is note else [note]) + [_note_for(ln, found) for ln in related.values() if ln.id != newest.id]
    now = check.values(" ".join(ln.text for ln in current.lines))
    out = [(current, "")]
    for old in sorted(older, key=lambda n: n.order, reverse=True):
        if old.order < current.order and check.values(" ".join(ln.text for ln in old.lines)) != now:
            out.append((old, newest.id))
    return out


def _add(out: list[Sentence], dropped: list[tuple[str, str]], sentence: Sentence, titles: str, threshold: float) -> None:
    """Keep `sentence` when rule 11 holds for it over its citations; else say why it was dropped."""
    if any(s.text == sentence.text and s.lines == sentence.lines for s in out):
        return
    why = check.verdict(sentence.text, sentence.lines, titles, threshold)
    if why:
        dropped.append((sentence.text, why))
    else:
        out.append(sentence)


def _sentence(note: Note, corrected_by: str = "") -> Sentence:
    """A note as an answer's sentence, word for word, ending in its day."""
    on_page = ((note.page, note.text),) if note.page else ()
    return Sentence(dated(note), note.lines, (note.page,) if note.page else (), corrected_by, on_page)


def _composed(q: check.Question, note: Note, found: Found, out: list[Sentence], dropped: list[tuple[str, str]], threshold: float) -> None:
    for shown_note, corrected_by in _with_corrections(q, note, found):
        _add(out, dropped, _sentence(shown_note, corrected_by), shown_note.title, threshold)


def from_picks(q: check.Question, picks: Sequence[Note], found: Found, threshold: float) -> tuple[list[Sentence], list[tuple[str, str]]]:
    """Small mode: the notes the model picked, word for word, each with the values later lines
    corrected; a note that does not speak to the question is dropped. (sentences, dropped)."""
    out: list[Sentence] = []
    dropped: list[tuple[str, str]] = []
    for note in picks:
        if not _speaks(q, note, found):
            dropped.append((note.text, "does not answer the question: it lacks the question's names, numbers or words"))
            continue
        _composed(q, note, found, out, dropped, threshold)
    return out, dropped


def from_written(
    q: check.Question, written: Sequence[Written], notes: Sequence[Note], found: Found, threshold: float
) -> tuple[list[Sentence], list[tuple[str, str]]]:
    """Full mode: each sentence the model wrote, kept when rule 11 holds over the notes it cites and
    those notes speak to the question; one citing a corrected value without its correction is
    replaced by the composed newest value. (sentences, dropped)."""
    out: list[Sentence] = []
    dropped: list[tuple[str, str]] = []
    for w in written:
        cited = [notes[i] for i in w.notes if 0 <= i < len(notes)]
        if not cited:
            dropped.append((w.text, "cites no note that was offered"))
            continue
        lines = tuple(sorted({ln.id: ln for n in cited for ln in n.lines}.values(), key=lambda ln: (ln.day, ln.lineno)))
        pages = tuple(dict.fromkeys(n.page for n in cited if n.page))
        titles = " ".join(dict.fromkeys(n.title for n in cited if n.title))
        merged = Note(" ".join(n.text for n in cited), lines, pages[0] if pages else "", titles)
        if not _speaks(q, merged, found):
            dropped.append((w.text, "does not answer the question: its notes lack the question's names, numbers or words"))
            continue
        why = check.verdict(w.text, lines, titles, threshold)
        if why:
            dropped.append((w.text, why))
            continue
        ids = {ln.id for ln in lines}
        chains = [_with_corrections(q, n, found) for n in cited]
        if any(not set(chain[0][0].line_ids) <= ids for chain in chains):
            for n in cited:  # a later line corrects what it cites: the newest value, composed, instead
                _composed(q, n, found, out, dropped, threshold)
            continue
        anchors = tuple(dict.fromkeys((n.page, n.text) for n in cited if n.page))
        _add(out, dropped, Sentence(w.text, lines, pages, "", anchors), titles, threshold)
        for chain in chains:  # the older values its notes replaced, named as corrected
            for old, by in chain[1:]:
                if not set(old.line_ids) <= ids:
                    _add(out, dropped, _sentence(old, by), old.title, threshold)
    return out, dropped
