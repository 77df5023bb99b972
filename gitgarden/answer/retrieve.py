"""Finding the notes a question may be answered from, bounded to what the model can read.

The question's words go to the search index (`gitgarden.search`: SQLite FTS5 over the pages and
the journal's lines) as one OR query, words of five letters or more as prefixes (`deliveries`
finds `delivery`). The pages it finds first, and the pages those link to (the link graph, and a
superseded page's successor), give their notes (`notes.page_notes`); the journal lines it finds
that no page note cites are notes of their own. The map's Open section pairs the lines a "Which
holds?" question quotes, for the corrections check. Notes are ranked by the question's words they
hold, a word the rarer in the journal the more (names and numbers double), halved when the note
holds no value of the kind asked for ("how much": a number); a newer note wins a tie. They are
kept while they fit `tokens`; a question asked in the notes (a line ending in "?") is no note.

Run with the project's layout in force (`wiki.layout.active`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from gitgarden.answer import check
from gitgarden.answer.notes import Journal, Note, line_note, page_notes
from gitgarden.answer.prompts import shown
from gitgarden.errors import GitgardenError
from gitgarden.guard.words import STOP_WORDS
from gitgarden.history.passlog import passes
from gitgarden.history.provenance import traced
from gitgarden.project import Project
from gitgarden.search.index import search
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import journal, pages, tidy
from gitgarden.wiki.facts import page_facts
from gitgarden.wiki.linking import LinkIndex

__all__ = ["Found", "gather", "fts_query", "note_tokens", "MAX_NOTES"]

MAX_NOTES = 24  # notes offered at most, however much room: a small model loses count beyond a few dozen
_SEARCH_LIMIT = 40
_PAGES = 6  # pages found by search whose notes are read
_LINKED = 4  # pages linked from the first ones whose notes are read too
_NEAREST = 3
_WEIGHT_NAME = 2.0
_WEIGHT_NUMBER = 2.0
_QUOTED = re.compile(r"[“\"]([^”\"]{8,}?)(?:…)?[”\"]")
_LINE_ID = re.compile(r"\b(\d{4}-\d{2}-\d{2}#\d+)\b")
_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")


@dataclass
class Found:
    """What the garden holds for a question: the notes to offer (best first), the pages nearest to
    it (name, title), the lines an Open question pairs, every journal line, and how many notes
    were found before the bound."""

    notes: list[Note]
    nearest: list[tuple[str, str]]
    journal: Journal
    pairs: dict[str, set[str]] = field(default_factory=dict)
    considered: int = 0
    notes_by_line: dict[str, Note] = field(default_factory=dict)  # a line id -> the first page note citing it
    unknown: frozenset[str] = frozenset()  # the question's words the garden holds nowhere (`check.unknown`)
    question: check.Question | None = None  # the question as the notes are checked against it (`check.narrowed`)


def fts_query(text: str) -> str:
    """The question as one FTS5 query: its content words joined by OR, long words as prefixes."""
    terms = []
    for word in _WORD.findall(text.lower()):
        if word in STOP_WORDS or len(word) < 2:
            continue
        if word.isalpha() and len(word) >= 5:
            word = word[: max(4, len(word) - 3)] + "*"
        terms.append(word)
    return " OR ".join(dict.fromkeys(terms))


def note_tokens(note: Note) -> int:
    """About how many prompt tokens a note takes as shown (4 characters a token, its number and day)."""
    return len(shown(note)) // 4 + 6


def gather(project: Project, question: str, *, identity: tuple[str, ...], threshold: float, tokens: int) -> Found:
    """The notes for `question`, best first, as many as fit `tokens` (at most MAX_NOTES)."""
    q = check.question(question)
    book = Journal(journal.all_lines(project.journal))
    found = Found([], [], book)
    query = fts_query(question)
    if not query:
        return found
    try:
        hits = search(project, query, limit=_SEARCH_LIMIT, identity=identity).hits
    except GitgardenError:
        hits = []  # a query FTS5 cannot read even as plain words: nothing found, not a failure of ask
    tree = DiskTree(project.root, project.layout.wiki_folders())
    titles = tidy.page_titles(tree)
    index = tidy.link_index(titles)
    map_name = pages.map_name()
    found_pages = [h.ref for h in hits if h.kind == "page" and h.ref != map_name][:_PAGES]
    found.nearest = [(n, titles.get(n, (n, []))[0]) for n in found_pages[:_NEAREST]]
    named = [w for name, (title, aliases) in titles.items() for w in (name.replace("-", " "), title, *aliases)]
    known = check.vocabulary([*(ln.text for ln in book.lines), *named])
    q = found.question = check.narrowed(q, known)
    found.unknown = check.unknown(q, known)
    if found.unknown:
        return found  # the garden holds nothing of what is asked: no note can answer it
    wanted = _with_linked(found_pages, tree, index, map_name)
    sources = traced(passes(project.root)) if wanted else {}
    notes: list[Note] = []
    for name in wanted:
        text = tidy.read_text(tree, pages.page_path(name))
        if text is not None:
            notes += page_notes(name, text, sources, book, threshold)
    for note in notes:
        for line_id in note.line_ids:
            found.notes_by_line.setdefault(line_id, note)
    for hit in hits:
        line = book.by_id.get(hit.ref) if hit.kind == "line" else None
        if line is not None and line.id not in found.notes_by_line:
            notes.append(line_note(line))
    notes = [n for n in notes if not n.text.rstrip().endswith("?")]  # a question asked in the notes answers nothing
    found.pairs = _open_pairs(tidy.read_text(tree, pages.map_path()) or "", book)
    ranked = _ranked(q, notes, wanted, _weights(q, book))
    found.considered = len(ranked)
    found.notes = _bounded(ranked, tokens)
    return found


def _with_linked(first: list[str], tree: DiskTree, index: LinkIndex, map_name: str) -> list[str]:
    """The pages search found, then the pages the first three link to or are superseded by."""
    out = list(first)
    linked: list[str] = []
    for name in first[:3]:
        facts = page_facts(tree, pages.page_path(name)) if pages.page_path(name) in tree else None
        if facts is None:
            continue
        later = (facts.meta or {}).get("superseded_by")  # "[[newer]]", as the supersede operation writes it
        targets = [later.strip().strip("[]"), *facts.targets] if isinstance(later, str) else list(facts.targets)
        for target in targets:
            page = index.resolve(target)
            if page and page != map_name and page not in out and page not in linked:
                linked.append(page)
    return out + linked[:_LINKED]


def _open_pairs(map_text: str, book: Journal) -> dict[str, set[str]]:
    """The lines each Open question of the map names together (by id, or by the words it quotes)."""
    pairs: dict[str, set[str]] = {}
    for line in pages.open_lines(map_text):
        ids = [i for i in _LINE_ID.findall(line) if i in book.by_id]
        ids += [ln.id for quote in _QUOTED.findall(line) for ln in _quoted(quote, book.lines)]
        ids = list(dict.fromkeys(ids))
        for i in ids:
            pairs.setdefault(i, set()).update(j for j in ids if j != i)
    return pairs


def _quoted(quote: str, lines: Iterable[journal.JournalLine]) -> list[journal.JournalLine]:
    """The journal lines a quote stands for: a line that starts with the quote's words (Open lines
    quote a line's start, cut with "…")."""
    want = " ".join(quote.split()).rstrip("…").casefold()
    return [ln for ln in lines if " ".join(ln.text.split()).casefold().startswith(want)][:1]


def _weights(q: check.Question, book: Journal) -> dict[str, float]:
    """Each word of the question weighed by how rare it is in the journal (inverse document
    frequency): "rent" says more than "shop" in a bakery's notes. Names and numbers weigh double."""
    count = Counter(w for ln in book.lines for w in book.words(ln) if w in q.words)
    total = len(book.lines) + 1
    weight = {w: math.log(total / (count.get(w, 0) + 1)) + 1.0 for w in q.words}
    return {w: v * (_WEIGHT_NAME if w in q.names else _WEIGHT_NUMBER if w in q.numbers else 1.0) for w, v in weight.items()}


def _ranked(q: check.Question, notes: list[Note], pages_found: list[str], weights: dict[str, float]) -> list[Note]:
    """Notes holding any of the question's words, the rarest words weighing most, halved when the
    note holds no value of the kind the question asks for; ties go to the page search found first,
    then to the newer note. The same words twice (a page sentence and its line) count once."""
    scored: list[tuple[float, int, tuple[str, int], Note]] = []
    seen: set[tuple[str, ...]] = set()
    place = {name: i for i, name in enumerate(pages_found)}
    for note in notes:
        key = (" ".join(note.text.split()).casefold(), *note.line_ids)
        if key in seen:
            continue
        seen.add(key)
        held = check.covered(q, [note.text, note.title, note.page.replace("-", " ")])
        score = sum(weights.get(w, 1.0) for w in held)
        if score > 0:
            if not check.holds_kind(q.expects, [note.text]):
                score /= 2
            scored.append((score, -place.get(note.page, len(place)), note.order, note))
    scored.sort(key=lambda row: row[:3], reverse=True)
    return [row[3] for row in scored]


def _bounded(notes: list[Note], tokens: int) -> list[Note]:
    out: list[Note] = []
    used = 0
    for note in notes[:MAX_NOTES]:
        cost = note_tokens(note)
        if used + cost > tokens:
            break
        out.append(note)
        used += cost
    return out
