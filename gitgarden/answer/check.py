"""What code checks in an answer, whoever wrote it: rule 11 on each sentence, whether a note speaks
to the question at all, and which later lines correct a value.

- `verdict`: a sentence is judged as a pass's written prose is (`guard.grounding`): its numbers,
  names and dates must stand in the lines it cites or its page's title (a line's journal day
  grounds dates only), and its share of grounded content words must reach `grounding_min`.
  Unlike a pass, an answer has no "rule off": with `grounding_min = 0` only the share is not
  asked; a number, name or date its citations lack always refuses the sentence.
- `speaks_to`: a note answers a question only when every name and number the question holds
  stands in the note (its words, its lines, its page's title and name) and at least half of the
  question's other content words do. A small model picks some note for any question, and almost
  never says "not in the notes" by itself: this is where an answer abstains.
- `corrections`: the other journal lines that state another value of the same thing and speak to
  the question at least as well — the later line corrects the earlier. "Another value of the same
  thing", as code can see it: a clause of each line holds a value in the same slot (the word after
  a number or the currency before it — "2,400 EUR", "£640" —, a date, a weekday), the later one's
  is new there, and the clause shares a word with the other line; and the later line says it
  changes something ("now", "not", "moved", "raised", "correction", …), or an Open question of the
  map names both, or the two share most of their words. "Rent is 2,400 EUR a month" is corrected
  by "Marta raised the rent to 2,600 EUR a month"; "the deposit is three months' rent, so
  7,200 EUR" does not correct the rent. Code never guesses which holds: the newest does.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gitgarden.guard.grounding import content_words, score_text
from gitgarden.guard.words import MONTHS, STOP_WORDS, UNITS, WEEKDAYS, normal, number
from gitgarden.wiki.journal import JournalLine

__all__ = [
    "verdict", "Question", "question", "reference", "speaks_to", "covered", "values", "subject", "same_subject",
    "says_change", "restates", "corrections", "COVER_MIN",
]  # fmt: skip

COVER_MIN = 0.5  # share of a question's plain content words (not names, not numbers) a note must hold
SIMILAR = 0.6  # share of the smaller subject two lines without a word of change must share
# Words with which a later line says it changes an earlier value (as written, lower case).
_CHANGE = frozenset(
    """
    correction corrected correct now not instead actually really moved moves move pushed raised lowered changed
    change changes revised revise updated update recounted recount reissued postponed delayed rescheduled earlier
    later anymore longer new
    """.split()  # noqa: SIM905 -- a paragraph of words reads better than quoted ones
)
# Words a question is phrased with that say nothing of what it is about.
_ASKING = frozenset(
    """
    tell know say said says note notes garden wiki journal current currently latest newest exactly actually please
    happen happens happened get got do did does go going give gave think thought right
    """.split()  # noqa: SIM905 -- a paragraph of words reads better than quoted ones
)
_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)?")
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_DATE_WORDS = frozenset(MONTHS) | frozenset(WEEKDAYS)
_VALUE_TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.:/-]\d+)*(?:st|nd|rd|th)?|[^\W\d_]+(?:['’][^\W\d_]+)?|[%€$£]")
_CLAUSE_BREAK = re.compile(r"[,;()\[\]]|[.!?](?=\s|$)|\s[-–—]\s")
_CURRENCY = frozenset("€$£")


def verdict(text: str, lines: Sequence[JournalLine], title: str, threshold: float) -> str:
    """'' when `text` is grounded in the cited `lines` (their days ground its dates) and the page's
    `title`; else why not, in a few words."""
    for s in score_text(text, [ln.text for ln in lines], title, [ln.day for ln in lines]):
        if s.unfounded:
            return f"not in the cited lines: {', '.join(s.unfounded)}"
        if threshold > 0 and s.score < threshold:
            return f"grounded {s.score:.2f} < {threshold:.2f}; not in the cited lines: {', '.join(s.missing)}"
    return ""


@dataclass(frozen=True)
class Question:
    """A question's words as code reads them: names and numbers (which an answer must hold) and its
    other content words, all normalised as rule 11 compares words."""

    text: str
    names: frozenset[str]
    numbers: frozenset[str]
    plain: frozenset[str]

    @property
    def words(self) -> frozenset[str]:
        return self.names | self.numbers | self.plain


def _num(token: str) -> str:
    return number(token.replace(",", "")) if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token) else number(token)


def question(text: str) -> Question:
    """The names, numbers and other content words of a question. A capitalised word is a name
    unless it opens the question ("What", "Does", "Kessler" alike: the first word is grammar)."""
    names: set[str] = set()
    numbers: set[str] = set()
    plain: set[str] = set()
    for i, m in enumerate(_WORD.finditer(text)):
        raw = m.group(0)
        low = raw.lower().replace("’", "'")
        low = low[:-2] if low.endswith("'s") else low
        if low in STOP_WORDS or low in _ASKING:
            continue
        if raw[0].isdigit():
            numbers.add(_num(raw))
        elif raw[0].isupper() and i > 0:
            names.add(normal(low))
        else:
            plain.add(normal(low))
    return Question(text, frozenset(names), frozenset(numbers), frozenset(plain - names))


def reference(texts: Iterable[str]) -> frozenset[str]:
    """The normalised words of `texts`, numbers by value: what a note offers a question."""
    out: set[str] = set()
    for text in texts:
        out.update(content_words(text))
        out.update(_num(t) for t in _NUMBER.findall(text))
    return frozenset(out)


def speaks_to(q: Question, texts: Iterable[str]) -> bool:
    """True when `texts` (a note's words, its lines, its page's title and name) hold every name and
    number of the question and at least COVER_MIN of its other content words."""
    ref = reference(texts)
    if not q.names <= ref or not q.numbers <= ref:
        return False
    if not q.plain:
        return bool(q.names or q.numbers)
    return len(q.plain & ref) >= COVER_MIN * len(q.plain)


def covered(q: Question, texts: Iterable[str]) -> frozenset[str]:
    """The question's words `texts` hold."""
    return q.words & reference(texts)


def values(text: str) -> frozenset[str]:
    """The values a line states: its numbers (by value), and the month and weekday names it holds."""
    found = {_num(t) for t in _NUMBER.findall(text)}
    found.update(w for w in (normal(t.lower()) for t in re.findall(r"[^\W\d_]+", text)) if w.lower() in _DATE_WORDS)
    return frozenset(found)


def subject(text: str) -> frozenset[str]:
    """What a line is about: its content words without its values."""
    return frozenset(w for w in content_words(text) if not w[0].isdigit() and w.lower() not in _DATE_WORDS)


def same_subject(a: str, b: str, share: float = 0.0) -> bool:
    """Two lines about the same thing, as far as code can tell: at least two content words shared,
    and at least `share` of the smaller one's."""
    sa, sb = subject(a), subject(b)
    shared = len(sa & sb)
    return shared >= 2 and shared >= share * min(len(sa), len(sb))


def says_change(text: str) -> bool:
    """True when a line says it changes something: a word of change, or a negation ("wasn't")."""
    words = re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", text.lower())
    return any(w in _CHANGE or w.endswith(("n't", "n’t")) for w in words)


def _word(token: str) -> str:
    return normal(token.lower()).lower()


def _clauses(text: str) -> list[tuple[frozenset[str], dict[str, frozenset[str]]]]:
    """Each clause of `text`: its content words (values aside) and its values by slot — a number by
    the word after it ("2,400 EUR" -> eur; "14 December" -> date), a weekday, a month."""
    out = []
    for clause in _CLAUSE_BREAK.split(text):
        tokens = _VALUE_TOKEN.findall(clause)
        words: set[str] = set()
        slots: dict[str, set[str]] = {}
        for i, tok in enumerate(tokens):
            low = tok.lower()
            if tok[0].isdigit() or low in UNITS:
                value = _num(re.sub(r"(?:st|nd|rd|th)$", "", tok)) if tok[0].isdigit() else str(UNITS[low])
                after = _word(tokens[i + 1]) if i + 1 < len(tokens) else ""
                if i and tokens[i - 1] in _CURRENCY:
                    slot = tokens[i - 1]
                elif after in MONTHS:
                    slot = "date"
                else:
                    slot = "" if after in STOP_WORDS or after[:1].isdigit() or after in _CURRENCY else after
                slots.setdefault(slot, set()).add(value)
            elif _word(tok) in WEEKDAYS:
                slots.setdefault("weekday", set()).add(_word(tok))
            elif _word(tok) in MONTHS:
                slots.setdefault("date", set()).add(_word(tok))
            elif low not in STOP_WORDS:
                words.add(_word(tok))
        if slots:
            out.append((frozenset(words), {k: frozenset(v) for k, v in slots.items()}))
    return out


def restates(old: str, new: str) -> bool:
    """True when `new` states another value where `old` states one: a clause of each holds a value in
    the same slot, `new`'s is not among `old`'s, and one of the two clauses shares a content word
    (not the slot's own) with the other line."""
    old_all, new_all = subject(old), subject(new)
    for old_words, old_slots in _clauses(old):
        for new_words, new_slots in _clauses(new):
            for slot in old_slots.keys() & new_slots.keys():
                if new_slots[slot] - old_slots[slot] and ((old_words - {slot}) & new_all or (new_words - {slot}) & old_all):
                    return True
    return False


def corrections(
    line: JournalLine, pool: Iterable[JournalLine], q: Question, context: Sequence[str] = (), paired: Iterable[str] = ()
) -> list[JournalLine]:
    """The lines of `pool` that state another value of what `line` states, oldest first: about the
    same subject, restating one of its values (`restates`, either way round), holding every word of
    the question `line` holds (`context`, the page's title and name, counts for both). A line of
    `paired` (the ids an Open question names beside `line`) needs only to state another value."""
    own = values(line.text)
    if not own:
        return []
    wanted = covered(q, [line.text, *context])
    paired_ids = set(paired)
    out = []
    for other in pool:
        if other.id == line.id:
            continue
        theirs = values(other.text)
        if not theirs or theirs == own:
            continue
        if other.id in paired_ids:
            out.append(other)
        elif same_subject(line.text, other.text) and wanted <= covered(q, [other.text, *context]):
            earlier, later = sorted((line, other), key=lambda ln: (ln.day, ln.lineno))
            if restates(earlier.text, later.text) and (says_change(later.text) or same_subject(earlier.text, later.text, SIMILAR)):
                out.append(other)
    return sorted(out, key=lambda ln: (ln.day, ln.lineno))
