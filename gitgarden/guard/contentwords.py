"""The words of a text as rule 11 (grounded, `guard.grounding`) compares them: link syntax read as
its text, hyphenation and possessives undone, runs of number words read as their value, each word
marked as a number, a name (capitalised where no sentence starts) or part of a date expression,
and normalised by `guard/words.py`. Pure: no I/O.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from gitgarden.guard import dates
from gitgarden.guard.words import (
    MULTIPLIERS,
    NUMBER_WORDS,
    ORDINALS,
    REPORTING,
    ROMAN,
    SCALES,
    STOP_WORDS,
    UNITS,
    normal,
    number,
)

__all__ = ["HYPHENATED", "WIKILINK", "Word", "content_of", "content_words", "strip_markup", "words_of"]


WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\s]*\)")
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
_APOSTROPHE = re.compile(r"(?<=\w)['’](?=\w)")
_THOUSANDS = re.compile(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b")
_ORDINAL_DIGITS = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.I)
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+|[%€$£]|[^\w\s%€$£'’-]")  # the last: punctuation, a break
HYPHENATED = re.compile(r"[^\W_]+(?:-[^\W_]+)+")
_TRIM = ".,;:!?()[]{}\"'“”‘’*_<>"  # punctuation around a word quoted in a verdict


@dataclass(frozen=True)
class Word:
    surface: str  # as written (lowercase), for messages
    norm: str  # as compared
    parts: tuple[str, ...] = ()  # a run of number words: each word's own value
    number: bool = False  # digits, a run of number words, an ordinal
    name: bool = False  # capitalised where a sentence does not start (see `words_of`)
    shown: str = ""  # the word as written, with its hyphenated parts ("3-year"), for messages
    date: bool = False  # part of a date expression ("9 June", "on the 9th"): a journal day may ground it

    def found_in(self, vocab: set[str]) -> bool:
        # A run matches by its value, or when every one of its words does.
        return self.norm in vocab or (bool(self.parts) and all(p in vocab for p in self.parts))


def strip_markup(text: str, comma: str = "") -> str:
    """`text` as words are read from it: links as their text, no possessives or apostrophes, thousands
    separators as `comma` (gone by default), dotted dates slashed, ordinal endings gone."""
    text = WIKILINK.sub(lambda m: _link_text(m.group(1)), text)
    text = _MDLINK.sub(r"\1", text)
    text = _POSSESSIVE.sub("", text)
    text = _APOSTROPHE.sub("", text)
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", comma), text)
    text = dates.undot(text)
    return _ORDINAL_DIGITS.sub(r"\1", text)


_GROUPED = "\0"  # a thousands separator while dates are looked for (no text a guard reads holds NUL)


def _stripped_with_dates(text: str) -> tuple[str, list[tuple[int, int]]]:
    """`strip_markup(text)` and its date spans, looked for while the thousands separators still
    stand: "by 1,000 units" and "0,000" hold no year, though "1000" and "0000" would read as one."""
    marked = strip_markup(text, comma=_GROUPED)
    cuts = [i for i, c in enumerate(marked) if c == _GROUPED]
    if not cuts:
        return marked, dates.spans(marked)

    def at(pos: int) -> int:
        return pos - bisect.bisect_left(cuts, pos)

    return marked.replace(_GROUPED, ""), [(at(a), at(b)) for a, b in dates.spans(marked)]


def _link_text(inner: str) -> str:
    inner = inner.replace("\\|", "|")
    if "|" in inner:
        return inner.split("|", 1)[1]
    return inner.replace("#", " ").replace("/", " ")


def words_of(text: str) -> list[Word]:
    """Every word of `text`, normalised, stop words included; runs of number words read as one number.

    A capitalised word is a name unless it starts the text or follows a colon
    ("Flour prices: Type 550 …"): there capitals are grammar, not names. A word
    inside a date expression (`dates.spans`) is marked `date`.
    """
    stripped, in_date = _stripped_with_dates(text)
    found = list(_TOKEN.finditer(stripped))
    raw = [m.group(0).lower() for m in found]

    def dated(i: int) -> bool:
        at = found[i].start()
        return raw[i] in dates.DATE_WORDS or any(a <= at < b for a, b in in_date)

    out: list[Word] = []
    starts = True  # the next word opens the sentence or a clause after a colon
    i = 0
    while i < len(raw):
        tok = raw[i]
        if _is_break(tok):
            starts = starts or tok == ":"
            i += 1
            continue
        if tok in NUMBER_WORDS:
            j = _number_run(raw, i)
            run = [t for t in raw[i:j] if t != "and"]
            total = _run_value(run)
            parts = tuple(str(NUMBER_WORDS.get(t, ORDINALS.get(t))) for t in run) if len(run) > 1 else ()
            shown = _shown(stripped, found[i].start(), found[j - 1].end())
            out.append(Word(" ".join(raw[i:j]), str(total), parts, number=True, shown=shown, date=dated(i)))
            i, starts = j, False
            continue
        shown = _shown(stripped, found[i].start(), found[i].end())
        written = found[i].group(0)
        capital = written[0].isupper() and tok not in STOP_WORDS
        if _regnal(written, tok, starts, raw[i - 1] if i else ""):
            # "Richard the Third", "Richard III": a name's part, not a count (read as "third").
            out.append(Word(tok, ROMAN.get(tok, tok), name=True, shown=shown))
        elif tok in ORDINALS:
            out.append(Word(tok, str(ORDINALS[tok]), number=True, shown=shown, date=dated(i)))
        elif tok[0].isdigit():
            out.append(Word(tok, number(tok), number=True, shown=shown, date=dated(i)))
        else:
            # An opening capital is grammar, except before a verb of saying: "Piotr says …" names someone.
            name = capital and (not starts or (i + 1 < len(raw) and raw[i + 1] in REPORTING))
            out.append(Word(tok, normal(tok), name=name, shown=shown, date=dated(i)))
        starts = False
        i += 1
    return out


def _regnal(written: str, tok: str, starts: bool, before: str) -> bool:
    """A capitalised ordinal inside a name ("the Third") or a Roman numeral after one ("III")."""
    if starts:
        return False
    if tok in ORDINALS:
        return written[0].isupper() and before == "the"
    return tok in ROMAN and written.isupper() and before not in STOP_WORDS


def _number_run(raw: list[str], i: int) -> int:
    """Where the run of number words starting at `i` ends: "two hundred and fifty", "twenty-first"."""
    j = i
    while j < len(raw):
        t = raw[j]
        if t in NUMBER_WORDS:
            j += 1
        elif t == "and" and j > i and raw[j - 1] in NUMBER_WORDS and j + 1 < len(raw) and raw[j + 1] in UNITS:
            j += 1  # "two hundred and fifty"
        elif t in ORDINALS and ORDINALS[t] < 10 and raw[j - 1] in ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"):
            return j + 1  # "twenty-first": the ordinal ends the run
        else:
            break
    return j


def _run_value(run: list[str]) -> int:
    total, current = 0, 0
    for t in run:
        if t in UNITS:
            current += UNITS[t]
        elif t in ORDINALS:
            current += ORDINALS[t]
        elif t in MULTIPLIERS:
            current = max(current, 1) * MULTIPLIERS[t]
        elif t in SCALES:
            total += max(current, 1) * SCALES[t]
            current = 0
    return total + current


def _shown(text: str, start: int, end: int) -> str:
    """The written token around text[start:end], whole: "3-year" for the "3" in "a 3-year lease,"."""
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end].strip(_TRIM) or text[start:end]


def _is_break(token: str) -> bool:
    return len(token) == 1 and not token.isalnum() and token not in "%€$£"


def content_words(text: str) -> list[str]:
    """The normalised content words of `text`, in order, without repeats."""
    return list(dict.fromkeys(w.norm for w in content_of(text)))


def content_of(text: str) -> list[Word]:
    return [w for w in words_of(text) if w.surface not in STOP_WORDS]
