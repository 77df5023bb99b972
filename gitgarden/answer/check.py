"""What code checks in an answer, whoever wrote it: rule 11 on each sentence, whether a note speaks
to the question at all, and which later lines correct a value.

- `verdict`: a sentence is judged as a pass's written prose is (`guard.grounding`): its numbers,
  names and dates must stand in the lines it cites or its page's title (a line's journal day
  grounds dates only), and its share of grounded content words must reach `grounding_min`.
  Unlike a pass, an answer has no "rule off": with `grounding_min = 0` only the share is not
  asked; a number, name or date its citations lack always refuses the sentence.
- `unknown` and `speaks_to`: a question the garden can answer is about things it holds — when
  more than half of its plain content words (not names, not numbers) stand nowhere in the
  journal, or one of its names does not, the garden does not know (`narrowed`: one plain word the
  garden never uses, in a question whose names it holds and which asks for a kind of value, is the
  person's own wording, and is left out). A note answers it only when every name, number and code
  (`INV-2026-031`) the question holds stands in the note (its words, its lines, its page's title
  and name; a name may stand in the other notes of its page), the dates it names (a month, a weekday, a year) stand
  there or are its lines' days, at least one of the question's other content words stands there
  (unless a number or code already points at the note), and the note's own words hold a value of
  the kind the question asks for (a number for "how much", a date for "when", a name for "who").
  A small model picks some note for any question, and almost never says "not in the notes" by
  itself: this is where an answer abstains.
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
from dataclasses import dataclass, replace
from datetime import date

from gitgarden.guard.grounding import content_words, score_text
from gitgarden.guard.words import MONTHS, STOP_WORDS, UNITS, WEEKDAYS, normal, number
from gitgarden.wiki.journal import JournalLine

__all__ = [
    "verdict", "Question", "question", "expects", "holds_kind", "reference", "day_words", "speaks_to", "covered", "values", "subject", "same_subject",
    "says_change", "restates", "corrections", "unknown", "narrowed", "vocabulary", "UNKNOWN_MAX",
]  # fmt: skip

UNKNOWN_MAX = 0.5  # share of a question's plain content words the whole garden may lack before it is not known
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
# A code: letters and digits joined by hyphens (`INV-2026-031`, `LB-90412`, `GG-7731`), read whole.
_CODE = re.compile(r"\b(?=[\w-]*\d)(?=[\w-]*[^\W\d_])[^\W_]+(?:-[^\W_]+)+\b")
_WORD = re.compile(_CODE.pattern + r"|\d+(?:[.,]\d+)*|[^\W\d_]+(?:['’][^\W\d_]+)?")
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_DATE_WORDS = frozenset(MONTHS) | frozenset(WEEKDAYS)
_VALUE_TOKEN = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:[.:/-]\d+)*(?:st|nd|rd|th)?|[^\W\d_]+(?:['’][^\W\d_]+)?|[%€$£]")
_CLAUSE_BREAK = re.compile(r"[,;()\[\]]|[.!?](?=\s|$)|\s[-–—]\s")
_CURRENCY = frozenset("€$£")
_YEAR = re.compile(r"(?:19|20)\d\d")
_MONTH_NAMES = tuple(MONTHS)


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
    """A question's words as code reads them: names and numbers (which an answer must hold), the
    dates it names (a month, a weekday, a year: a line's day may hold them) and its other content
    words, all normalised as rule 11 compares words."""

    text: str
    names: frozenset[str]
    numbers: frozenset[str]
    plain: frozenset[str]
    written: tuple[tuple[str, str], ...] = ()  # (normalised, as written) for each word
    expects: str = ""  # what kind of value answers it: "number", "date", "name" or "" (anything)
    dates: frozenset[str] = frozenset()

    def as_written(self, words: Iterable[str]) -> list[str]:
        """`words` (normalised) as the question wrote them, in the question's order."""
        wanted = set(words)
        return list(dict.fromkeys(raw for norm, raw in self.written if norm in wanted))

    @property
    def words(self) -> frozenset[str]:
        return self.names | self.numbers | self.plain | self.dates


def _num(token: str) -> str:
    return number(token.replace(",", "")) if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", token) else number(token)


def question(text: str) -> Question:
    """The names, numbers and other content words of a question. A capitalised word is a name
    unless it opens the question ("What", "Does", "Kessler" alike: the first word is grammar) or is
    an acronym."""
    names: set[str] = set()
    numbers: set[str] = set()
    plain: set[str] = set()
    dates: set[str] = set()
    written: list[tuple[str, str]] = []
    for i, m in enumerate(_WORD.finditer(text)):
        raw = m.group(0)
        low = raw.lower().replace("’", "'")
        low = low[:-2] if low.endswith("'s") else low
        if low in STOP_WORDS or low in _ASKING:
            continue
        if _CODE.fullmatch(raw):
            norm, into = low, numbers
        elif _word(raw) in _DATE_WORDS or _YEAR.fullmatch(raw):
            norm, into = _word(raw), dates
        elif raw[0].isdigit():
            norm, into = _num(raw), numbers
        else:
            # A capitalised word is a name, an acronym ("VAT", "AGM") a plain word: it names a kind of thing.
            name = raw[0].isupper() and i > 0 and not (raw.isupper() and len(raw) > 1)
            norm, into = normal(low), names if name else plain
        into.add(norm)
        written.append((norm, raw))
    return Question(text, frozenset(names), frozenset(numbers), frozenset(plain - names), tuple(written), expects(text), frozenset(dates))


def expects(text: str) -> str:
    """What kind of value answers a question, by how it asks: "number" (how much, how many, what
    amount, price, cost, rate, fee, number), "date" (when, what date, which day), "name" (who),
    "" otherwise."""
    low = " " + " ".join(re.findall(r"[^\W_]+", text.lower())) + " "
    if re.search(r" (?:how much|how many|what amount|what (?:is|was|are|were) the (?:price|cost|rate|fee|amount|total|budget|number)) ", low):
        return "number"
    if re.search(r"^ (?:when|by when|until when|since when)\b| (?:what|which) (?:date|day|time)\b", low):
        return "date"
    if re.match(r" (?:who|whom)\b", low):
        return "name"
    return ""


def holds_kind(kind: str, texts: Sequence[str]) -> bool:
    """Whether `texts` hold a value of the kind a question expects."""
    text = " ".join(texts)
    if kind == "number":
        return bool(re.search(r"\d", text)) or any(w in UNITS for w in re.findall(r"[^\W\d_]+", text.lower()))
    if kind == "date":
        words = {_word(w) for w in re.findall(r"[^\W\d_]+", text)}
        return bool(re.search(r"\d", text) or words & _DATE_WORDS or words & {"today", "tomorrow", "yesterday", "tonight"})
    if kind == "name":
        return any(w[:1].isupper() for w in text.split()[1:]) or bool(re.search(r"\d", text))
    return True


def reference(texts: Iterable[str]) -> frozenset[str]:
    """The normalised words of `texts`, numbers by value: what a note offers a question."""
    out: set[str] = set()
    for text in texts:
        out.update(content_words(text))
        out.update(_num(t) for t in _NUMBER.findall(text))
        out.update(c.lower() for c in _CODE.findall(text))
    return frozenset(out)


def vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """Every word the garden holds (its journal lines, its pages' titles), as `reference` reads them."""
    return reference(texts)


def narrowed(q: Question, known: frozenset[str]) -> Question:
    """`q` without the one plain word the garden never uses, when the question names things the
    garden holds and asks for a kind of value ("How much would Fjellstart invest?" where the lines
    say "put in £400k"): a word of the person's own the notes do not share cannot be checked, and
    the names, with the value the note must hold, still point at the note. Any other question as
    it is."""
    missing = q.plain - known
    if q.names and q.names <= known and q.expects and len(missing) == 1:
        return replace(q, plain=q.plain - missing)
    return q


def unknown(q: Question, known: frozenset[str]) -> frozenset[str]:
    """The question's names, numbers and codes the garden lacks, and its plain content words the garden
    lacks when they are more than half of them; empty when the garden may know the answer."""
    missing = (q.names | q.numbers) - known
    plain = q.plain - known
    if q.plain and len(plain) > UNKNOWN_MAX * len(q.plain):
        missing |= plain
    return frozenset(missing)


def day_words(days: Iterable[str]) -> frozenset[str]:
    """The year, month and weekday of each journal day (`2026-03-19` -> 2026, march, thursday)."""
    out: set[str] = set()
    for day in days:
        try:
            d = date.fromisoformat(day)
        except ValueError:
            continue
        out.update({str(d.year), _MONTH_NAMES[d.month - 1], WEEKDAYS[d.weekday()]})
    return frozenset(out)


def speaks_to(q: Question, own: Sequence[str], context: Sequence[str] = (), days: Sequence[str] = (), neighbours: Sequence[str] = ()) -> bool:
    """True when a note answers the question as far as code can tell: its words and lines (`own`)
    with its `context` (its page's title and name) hold every name, number and code of the
    question and — unless one of those numbers or codes points at it — at least one of the
    question's other content words; the dates the question names stand in them or are the days
    of its lines (`days`); and its own words hold a value of the kind the question asks for (a
    number for "how much", a date for "when", a name for "who")."""
    ref = reference([*own, *context])
    # The other notes of its page may hold a name for it ("Henrik emailed the term sheet" on the page
    # of Henrik Solheim of Fjellstart): for the question's names only.
    named = ref | reference(neighbours) if neighbours else ref
    if not q.names <= named or not q.numbers <= ref or not holds_kind(q.expects, own):
        return False
    if not q.dates <= ref | {w.lower() for w in ref} | day_words(days):
        return False
    return bool(q.numbers or q.plain & ref) if q.plain else bool(q.names or q.numbers or q.dates)


def covered(q: Question, texts: Iterable[str]) -> frozenset[str]:
    """The question's words `texts` hold."""
    return q.words & reference(texts)


def values(text: str) -> frozenset[str]:
    """The values a line states: its numbers (by value), and the month and weekday names it holds."""
    found = {_num(t) for t in _NUMBER.findall(text)}
    found.update(w for w in (normal(t.lower()) for t in re.findall(r"[^\W\d_]+", text)) if w.lower() in _DATE_WORDS)
    return frozenset(found)


def subject(text: str) -> frozenset[str]:
    """What a line is about: its content words without its values and their units (the slots:
    "EUR" in "2,400 EUR" says what kind of value, not what it is the value of)."""
    slots = {slot for _words, by_slot in _clauses(text) for slot in by_slot}
    return frozenset(w for w in content_words(text) if not w[0].isdigit() and w.lower() not in _DATE_WORDS and w not in slots)


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
    line: JournalLine,
    pool: Iterable[JournalLine],
    q: Question,
    context: Sequence[str] = (),
    paired: Iterable[str] = (),
    said: str = "",
) -> list[JournalLine]:
    """The lines of `pool` that state another value of what `line` states, oldest first: about the
    same subject, the later restating a value of the earlier (`restates`), saying it changes it or
    sharing most of its words, and holding every word of the question `line` holds (`context`, the
    page's title and name, counts for both; `said`, the note's own words, for `line` only; a line
    saying it changes something needs only the names and numbers, or one word when there are
    none). A line of
    `paired` (the ids an Open question names beside `line`) needs only to state another value.
    Nothing corrects a line that holds none of the question's words."""
    own = values(line.text)
    wanted = covered(q, [line.text, said, *context])
    if not own or not wanted:
        return []
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
        elif same_subject(line.text, other.text):
            earlier, later = sorted((line, other), key=lambda ln: (ln.day, ln.lineno))
            change = says_change(later.text)
            # A line that says it changes something may leave some of the question's words out: it
            # holds its names ("GreenGrow's invoice says £695" corrects "GreenGrow quoted £640 for a
            # polytunnel"), or one of its words when it names nothing; otherwise it holds them all.
            named, theirs = wanted - q.plain, covered(q, [other.text, *context])
            if not change:
                holds = wanted <= theirs
            else:  # its names, else one of its words: "LinguaBridge pushed the leaflet to 18 May"
                holds = named <= theirs if named else bool(wanted & theirs)
            if holds and restates(earlier.text, later.text) and (change or same_subject(earlier.text, later.text, SIMILAR)):
                out.append(other)
    return sorted(out, key=lambda ln: (ln.day, ln.lineno))
