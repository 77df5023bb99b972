"""Where a number is a date, and which dates a journal day grounds (rule 11).

The journal day a cited line was written on is cited text for dates only:
"today" in a line of 9 June may be written "9 June" or "Friday", but the 9 of
"married for 9 years", "9 times", "EUR 9" or "9 kg" must stand in the cited
lines. So a number is grounded by a day only inside a date expression:

- next to a month name: "9 June", "June 9", "9th of June 2026", "June 9th, 2026", "June 2026";
- next to a weekday or a day named by its distance: "Friday 9", "Friday the 9th", "yesterday, the 8th"
  (not when a word that is not grammar follows the number: "last Saturday, 25 times" counts);
- an ISO or numeric date: "2026-06-09", "9/6/2026", "9.6.2026", "9/6";
- a day by its ordinal after a preposition: "on the 9th", "by the 9th" (not "the 9th time");
- a year after a preposition or a season: "in 2026", "since 2026", "summer of 2026".

Month and weekday names are date words wherever they stand. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, timedelta

from gitgarden.guard.words import MONTHS, ORDINALS, SPELLINGS, STOP_WORDS, WEEKDAYS

__all__ = ["DATE_WORDS", "spans", "undot", "days_named", "spellings", "parse"]

_SHORT = {k: v for k, v in SPELLINGS.items() if v in MONTHS or v in WEEKDAYS}  # "jun", "fri", …
# Month and weekday names, and the short spellings that mean nothing else ("sat", "sun", "wed",
# "mar" and "jan" are words too): each is a date word wherever it stands.
DATE_WORDS = frozenset(MONTHS) | frozenset(WEEKDAYS) | (frozenset(_SHORT) - {"sat", "sun", "wed", "mar", "jan"})

_M = r"(?:" + "|".join(sorted([*MONTHS, *(k for k, v in _SHORT.items() if v in MONTHS)], key=len, reverse=True)) + r")\.?"
_W = r"(?:" + "|".join(sorted([*WEEKDAYS, *(k for k, v in _SHORT.items() if v in WEEKDAYS)], key=len, reverse=True)) + r")\.?"
_ORD_WORD = "|".join(sorted(ORDINALS, key=len, reverse=True))
# A day of the month: digits (with an ordinal ending) or an ordinal word ("twenty-first" too).
_D = rf"(?:\d{{1,2}}(?:st|nd|rd|th)?|(?:twenty|thirty)[- ](?:{_ORD_WORD})|{_ORD_WORD})"
_Y = r"\d{4}"
_PREPOSITION = r"(?:on|by|until|till|from|since|before|after|to|through|of)"
_SEASON = r"(?:spring|summer|autumn|fall|winter|early|late|mid)"

_PATTERNS = [
    re.compile(p, re.I)
    for p in (
        r"\b\d{4}-\d{1,2}-\d{1,2}\b",  # ISO
        r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b",  # 9/6/2026, 9/6 (dotted dates arrive as slashes)
        rf"\b{_D}(?:\s+of)?\s+{_M}(?:,?\s+{_Y})?(?!\w)",  # 9 June 2026, ninth of June
        rf"\b{_M}\s+{_D}(?:,?\s+{_Y})?\b",  # June 9, 2026
        rf"\b{_M},?\s+{_Y}\b",  # June 2026
        rf"\b(?:in|since|until|till|by|during|from|before|after|{_SEASON})(?:\s+of)?[\s-]+{_Y}\b",  # in 2026, summer of 2026
    )
]
# "on the 9th": a date unless a word that is not grammar follows ("the 9th time", "the 3rd floor").
_ON_THE = re.compile(rf"\b{_PREPOSITION}\s+the\s+({_D})\b(?:\s+([^\W\d_]+))?", re.I)
# A day named by its weekday or its distance, then a number: "Friday 9", "Friday the 9th",
# "yesterday, the 8th" — and, as for "on the 9th", not when a word that is not grammar follows:
# in "last Saturday, 25 times in all" and "on Friday, 9 people came" the number counts.
_NAMED_DAY = re.compile(rf"\b(?:{_W}|today|yesterday|tomorrow|tonight),?\s+(?:the\s+)?({_D})\b(?:\s+([^\W\d_]+))?", re.I)
_DOTTED = re.compile(r"\b(\d{1,2})\.(\d{1,2})\.(\d{2,4})\b")


def undot(text: str) -> str:
    """Dotted dates as slashed ones, the same length ("9.6.2026" -> "9/6/2026"), so "9.6" is no decimal."""
    return _DOTTED.sub(lambda m: f"{m.group(1)}/{m.group(2)}/{m.group(3)}", text)


def spans(text: str) -> list[tuple[int, int]]:
    """The character spans of `text` that are date expressions (see the module's docstring)."""
    out = [m.span() for p in _PATTERNS for m in p.finditer(text)]
    for m in _ON_THE.finditer(text):
        if _grammar_after(m.group(2)):
            out.append(m.span(1))
    for m in _NAMED_DAY.finditer(text):
        if _grammar_after(m.group(2)):
            out.append((m.start(), m.end(1)))
    return out


def _grammar_after(word: str | None) -> bool:
    """True when what follows a day's number leaves it a day: nothing, grammar or a date word."""
    after = (word or "").lower()
    return not after or after in STOP_WORDS or after in DATE_WORDS


def parse(text: str) -> date | None:
    """An ISO day ("2026-06-09"), or None."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


_ISO = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def days_named(texts: Sequence[str], days: Iterable[str]) -> set[date]:
    """The dates the cited lines speak of: their journal days ("yesterday" and "tomorrow" in them
    add the days either side) and the ISO dates written in them. A weekday in a line ("last
    Saturday") names no day here: which Saturday is the person's to say, not an inference's."""
    joined = " ".join(texts).lower()
    named = {d for d in map(parse, days) if d is not None}
    for d in list(named):
        if "yesterday" in joined:
            named.add(d - timedelta(days=1))
        if "tomorrow" in joined:
            named.add(d + timedelta(days=1))
    named.update(d for d in map(parse, _ISO.findall(joined)) if d is not None)
    return named


def spellings(d: date) -> str:
    """The words a date is written with: day, month name and number, year, weekday.

    Names spelled out, not `%B`/`%A`: those follow the process locale.
    """
    return f"{d.day} {MONTHS[d.month - 1]} {d.year} {WEEKDAYS[d.weekday()]} {d.month}"
