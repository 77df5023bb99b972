"""The values a line states, read by kind: amounts, dates, times and counts (`values`), with times
and numbers said in words written in figures first (`spelled`: "half past three" 3:30, "ten weeks"
10 weeks). What `wiki.changes` compares when a later line may change an earlier one's value. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gitgarden.wiki.subjects import content_words, fold, ids
from gitgarden.wiki.wordlists import LABELS, MEASURE_UNITS, NUMBERS, TENS

__all__ = ["AMOUNT", "DATE", "DAYS", "MONTHS", "NUMBER", "TIME", "US", "Value", "counted", "extras", "measures", "norm", "priced_things", "spelled", "units_per", "values"]

MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_CURRENCY = r"(?:eur|usd|gbp|pln|nok|sek|dkk|chf|inr|ngn|€|£|\$|zł|kr)"
DATE = re.compile(
    rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{MONTHS})\b|(?:{MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?\b|(?:{DAYS})\b|the\s+\d{{1,2}}(?:st|nd|rd|th)\b|\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?)",
    re.I,
)
TIME = re.compile(
    r"(?<![£€$\d.,])\b\d{1,2}[:.]\d{2}(?:\s?(?:am|pm))?\b(?!\s?(?:eur|usd|gbp|pln|nok|sek|€|kr|zł)\b)|\b\d{1,2}\s?(?:am|pm)\b"
    r"|(?<!\bis at )(?<!\bare at )(?<=\bat )(?:1[0-2]|0?[1-9])(?=\s*(?:[,;.](?!\d)|$))",  # "round Larchmont at 2, she …": an hour
    re.I,
)  # not "£26.50"
# Hours from and to: "12 till 4", "from 2 until 5", "7 to 9pm" (not "12 to 15 players": no am or pm)
_HOURS = re.compile(r"(?<![£€$\d.,:])\b(\d{1,2}(?:[:.]\d{2})?)\s*(?:till|until|(?=\S*\s*\d{1,2}(?:[:.]\d{2})?\s?[ap]m\b)(?:to|–|-))\s*(\d{1,2}(?:[:.]\d{2})?)(?:\s?([ap]m))?\b", re.I)
# "£84,500, three surgeries" (read "£84,500, 3 surgeries") is £84,500: a space goes on with three figures only ("€18 400")
AMOUNT = re.compile(rf"(?:{_CURRENCY}\s?\d+(?:[,.]\d+|\s\d{{3}}(?!\d))*|\d(?:[\d,.]*\d)?\s?(?:{_CURRENCY}|%|k\b)|\b\d+(?:\.\d+)?p\b)", re.I)  # "9.5p a word"
NUMBER = re.compile(r"\b\d[\d,.]*\b")
# "2.1 m across", "2,310mm wide", "about 16 square metres"
_UNIT = "|".join(sorted(MEASURE_UNITS, key=len, reverse=True))
_MEASURE = re.compile(
    rf"(?<![\w£€$.,/-])(?:\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?)(?:\s|-(?=[a-z]{{2}}))?(?:{_UNIT}|m²|sq\.?\s?(?:m|ft)|square\s+(?:met(?:re|er)s?|f(?:ee|oo)t))(?![\w²])", re.I
)
# "is 11th", "now 7th on the list" (a date's "the 13th" and "12th May" are read as dates first)
_PLACED = re.compile(r"(?<![\w£€$.,/-])\d{1,3}(?:st|nd|rd|th)\b(?!-)")
_AMPS = re.compile(r"(?<![\w£€$.,/-])\d+(?:A\b|\s?(?i:amps?)\b)")  # "a 60A main fuse", "a 13 amp socket" (not "Flat 5a")

_UNITS, _TENS = NUMBERS, TENS
_NUMBER_WORDS = {w: n for n, w in enumerate(_UNITS, 1) if n > 1} | _TENS  # not "one": "the one", "one of"
_HOUR = "|".join(_UNITS[:12])
_SPELLED_TIME = re.compile(rf"\b(?:(half|quarter)\s+past|(quarter)\s+to)\s+({_HOUR})\b|\b({_HOUR})\s+o['’]clock\b", re.I)
_SPELLED_NUMBER = re.compile(rf"\b(?:({'|'.join(_TENS)})[- ]({'|'.join(_UNITS[:9])})|({'|'.join(_NUMBER_WORDS)}))\b(?!['’]|-(?![a-z])|-(?:thirds?|quarters?|fifths?|halves)\b)", re.I)  # "a four-year term", "a two-tier cake": 4, 2


def spelled(text: str) -> str:
    """`text` with its times and numbers in words written in figures, as `values` reads them: "half
    past three" 3:30, "seven o'clock" 7:00, "ten weeks, not eight" 10 weeks, not 8 ("one" stays)."""

    def time(m: re.Match[str]) -> str:
        hour = _UNITS.index((m.group(3) or m.group(4)).lower()) + 1
        if m.group(2):  # quarter to
            return f"{hour - 1 or 12}:45"
        return f"{hour}:{ {'half': '30', 'quarter': '15'}.get((m.group(1) or '').lower(), '00')}"

    def number(m: re.Match[str]) -> str:
        if m.group(3):
            return str(_NUMBER_WORDS[m.group(3).lower()])
        return str(_TENS[m.group(1).lower()] + _UNITS.index(m.group(2).lower()) + 1)

    return _SPELLED_NUMBER.sub(number, _SPELLED_TIME.sub(time, text))


@dataclass(frozen=True)
class Value:
    """One value a line states: its kind (amount, date, time, count) and its words, normalised."""

    kind: str
    text: str


def norm(text: str) -> str:
    return re.sub(r"[\s,]", "", fold(text)).removesuffix(".")


_LABEL = re.compile(rf"\b(?i:{'|'.join(sorted(LABELS))})\s+$")


def measures(line: str) -> list[re.Match[str]]:
    """The measures `line` gives in their units: "30m square", "about 2.1 m across", "a 60A fuse"."""
    return [*_MEASURE.finditer(line), *(a for a in _AMPS.finditer(line) if not _LABEL.search(line, 0, a.start()))]


_UNIT_NAMES = {"amp": "a", "metre": "m", "meter": "m", "foot": "ft", "feet": "ft", "inch": "in", "inches": "in", "litre": "l", "liter": "l", "sqm": "m2", "m²": "m2", "squaremetre": "m2", "squaremeter": "m2", "sqft": "ft2", "squarefoot": "ft2", "squarefeet": "ft2"}


def _measure_text(said: str) -> str:
    """A measure in its figures and one spelling of its unit: "5,000-litre" and "5000 litres" are 5000l."""
    m = re.fullmatch(r"([\d.,]+)[\s-]?(.+)", said)
    if m is None:
        return norm(said)
    unit = re.sub(r"[\s.]", "", m.group(2).lower())
    unit = _UNIT_NAMES.get(unit, _UNIT_NAMES.get(unit.removesuffix("s"), unit))
    return m.group(1).replace(",", "") + unit


def values(line: str) -> set[Value]:
    """The amounts, dates, times, measures, places in an order ("11th") and counts `line` states (ids
    and list numbers are not values)."""
    out: set[Value] = set()
    taken = [m.span() for m in ids(line)]  # "order HG-20417, £1,284.60": the id's digits are no amount
    for m in _HOURS.finditer(line):  # "runs 12 till 4", "7 to 9pm": two times
        taken.append(m.span())
        out |= {Value("time", norm(f"{hour}{m.group(3) or ''}")) for hour in m.group(1, 2)}
    for kind, pattern in (("date", DATE), ("time", TIME), ("amount", AMOUNT)):
        for m in pattern.finditer(line):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            taken.append((m.start(), m.end()))
            out.add(Value(kind, norm(re.sub(r"^(?:the|of)\s+", "", m.group(), flags=re.I))))
    for m in _PLACED.finditer(line):  # "Maisie is 11th on the waiting list": a place in an order
        if not any(a < m.end() and m.start() < b for a, b in taken):
            taken.append(m.span())
            out.add(Value("place", norm(m.group())))
    for m in measures(line):  # "30m square", "a 2.5kg bag": a measure in its unit
        if not any(a < m.end() and m.start() < b for a, b in taken):
            taken.append(m.span())
            out.add(Value("measure", _measure_text(m.group())))  # no count: "about 2.1 m across" gives no "six-person" another number
    for m in NUMBER.finditer(line):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        before = line[max(0, m.start() - 1) : m.start()]
        if before in ("-", "#") or re.match(r"[A-Za-z]", before):
            continue  # part of an id (INV-2041, plot 7B's neighbours)
        if re.fullmatch(r"(?:19|20)\d\d", m.group()) and re.search(r"\b(?:from|since|in|of)\s+$", line[: m.start()], re.I):
            continue  # a year ("the fuse board dates from 1987"), no count
        if _LABEL.search(line, 0, m.start()):
            continue  # "we're team 41", "pitch 3", "room 204": a number naming one of many, no count
        out.add(Value("count", norm(m.group())))
    return out


# How many of us: "38 of us", "We're 28 for lunch", "Headcount is 42", "the numbers are up to 53", "Guest list is at 42".
US = re.compile(
    r"(?<![\w£€$.,-])(?P<a>\d[\d,]*)\s+of\s+us\b|\b[Ww]e(?:['’]re|\s+are)\s+(?P<b>\d[\d,]*)(?=\s*(?:[,.;!]|$)|\s+(?:for|now|in all|altogether|people|adults|including)\b)"
    r"|\b(?i:head\s?count|numbers|guest\s+list)\b(?:\s+(?:is|are|so\s+far|now|up|down|to|at|stands\s+at|:))*\s+(?P<c>\d[\d,]*)(?![\w:.%])"
)


def counted(line: str) -> dict[str, set[str]]:
    """The things the line counts and how many: "38 adults and 11 kids" -> {adult: {38}, kid: {11}};
    how many of us, as "us": "38 of us", "Headcount is 42", "We're 28 for lunch"."""
    out: dict[str, set[str]] = {}
    for m in re.finditer(r"(?<![\w£€$.,-])(\d[\d,]*)\s+([a-z]{3,})(?:[ -]([a-z]{3,}))?\b", line):
        for noun in content_words(f"{m.group(2)} {m.group(3) or ''}"):  # "22 home shirts": home, shirts
            out.setdefault(noun, set()).add(norm(m.group(1)))
    for m in US.finditer(line):
        out.setdefault("us", set()).add(norm(m.group("a") or m.group("b") or m.group("c")))
    return out


def priced_things(line: str) -> dict[str, set[str]]:
    """The things the line gives an amount for: "hire £420", "the hire is £450", "£310 for a 16-seat
    minibus" -> {hire: {£420}}, {hire: {£450}}, {minibus: {£310}}."""
    out: dict[str, set[str]] = {}
    for m in AMOUNT.finditer(line):
        amount = norm(m.group())
        before = re.search(
            r"\b([a-z]{3,})\s+(?:(?:is|was|are|were|(?:will|would|should)\s+be|accepted|agreed|came back|comes back|come back|(?:(?:has|have|had)\s+)?(?:gone|goes|went|go|come|comes|came)\s+(?:up|down)\s+to)\s+)?"
            r"(?:now\s+|only\s+|just\s+)?(?:of\s+|at\s+|for\s+)?$",
            line[:1].lower() + line[1 : m.start()],  # "Offer accepted at £258,500": the line's first word too
        )  # "six raised beds for £850", "The raised beds came back at £980", "the allowance has gone up to €9,000"
        after = re.match(r"\s+(?:for|on)\s+(?:the\s+|a\s+|an\s+|our\s+)?(?:[\w-]+\s+)?([a-z]{3,})\b", line[m.end() :])
        # "£2,300 for an internal lattice grille": the head of three words is the thing priced too
        head = re.match(r"\s+(?:for|on)\s+(?:the\s+|a\s+|an\s+|our\s+)?[a-z][\w-]*\s+[a-z][\w-]*\s+([a-z]{3,})\b(?!\s+[a-z])", line[m.end() :])
        for found in (before, after, head):
            if found is None or found.group(1).endswith("ed") or found.group(1) in _PRICE_VERBS:
                continue  # "quoted £310", "costs £40": a verb, not the thing
            for noun in content_words(found.group(1)):
                out.setdefault(noun, set()).add(amount)
    return out


_PER = re.compile(r"^\s*(?:an?|per|each|every)\s+(hour|day|night|week|month|year|term|session|head|person|player|child|adult|class|visit|go|word|page|mile)\b", re.I)


def units_per(line: str) -> set[str]:
    """What the line's amounts are counted per: "£28.50 an hour", "£1,150 a week" -> {hour, week}."""
    return {m.group(1).lower() for a in AMOUNT.finditer(line) if (m := _PER.match(line[a.end() :]))}


_PRICE_VERBS = frozenset({"cost", "costs", "pay", "pays", "paying", "comes", "says", "charge", "charges", "wants", "asks", "offers"})


def extras(line: str) -> set[Value]:
    """The amounts `line` charges on top ("she'll deliver … instead, £15 extra"): how much more, not
    what the thing now costs, so no sign of which earlier price the line changes."""
    return {Value("amount", norm(m.group())) for m in AMOUNT.finditer(line) if _EXTRA.match(line, m.end()) or _AN_EXTRA.search(line, 0, m.start())}


_EXTRA = re.compile(r"\s+(?:extra|more|on top)\b", re.I)
_AN_EXTRA = re.compile(r"\b(?:an?\s+extra|another)\s+$", re.I)
