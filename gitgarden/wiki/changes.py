"""A later line that changes a value an earlier line gave: code finds the pair, a person settles it.

"Correction: his quote is 19,100 EUR, not 18,400", "delivery pushed back to 24 March", "the deposit
is now 2,000 EUR", "Open day moves to Sunday 10 May": each changes an amount, a date, a time or a
count an earlier line stated about the same thing (`wiki.values` reads those by kind);
`changed_value` finds, among earlier lines, the one a new line changes: the same subject or words
in common, a value of the same kind that differs, and a cue word ("correction", "now", "moved",
"not X"), the old value marked as old ("the £11.40 was …", "up from 38"), or — on the same page —
a new amount or count for the same thing ("£7,300 for the coach" after "Coach … £6,850"). Numbers
and times said in words count as if written in figures ("it's ten weeks, not eight", "half past
three"), in a line that says it changes something. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from gitgarden.wiki.phrases import named_thing, noun_phrase
from gitgarden.wiki.subjects import content_words, fold, id_texts, ids, is_role, mentions, role_deed
from gitgarden.wiki.values import (
    AMOUNT,
    DATE,
    DAYS,
    MONTHS,
    NUMBER,
    TIME,
    US,
    Value,
    counted,
    extras,
    measures,
    norm,
    priced_things,
    spelled,
    units_per,
    values,
)
from gitgarden.wiki.wordlists import LABELS, VAGUE

__all__ = ["Value", "values", "has_change_cue", "corrects", "reverses", "Earlier", "changed_value"]

_CUE = re.compile(
    r"\b(?:correction|corrected|update[d]?|actually|now|shrinks|shrunk|grows|no longer|instead|moved|moves|(?<!\ba )(?<!\bthe )(?<!\bour )move|pushed|postponed|"
    r"rescheduled|brought forward|brought (?:\w+ ){1,3}forward|(?:has |have )?gone back to|went back to|goes back to|changed|changes|raised|lowered|increased|reduced|cut|revised|recounted|"
    r"earlier than|later than|sooner than|than (?:they|we|he|she) said|wasn't in|was not in|wasn't on|"
    r"reissued|re-sent|resent|re-?quot(?:ed|es|e)|re-?priced|(?:is|are|was|['’]s)\s+really(?=\s+[£€$]?\d)|revised|updated|amended|(?:came|comes|come) back (?:at|about|with|on)\b|rang back|rung back|called back|shifted|came (?:through|in) at|comes (?:through|in) at|switch(?:es|ed)? (?:over )?to|(?:will|would|['’]ll) (?:take|accept)(?=\s+[£€$]\d)|accepted(?:\s+at)?(?=\s+[£€$]\d)|turns out|turned out|put(?:ting)? (?:\w+ ){0,3}back|new date|new price|added(?!\s+(?:it|them|everything|that|this|those)\s+(?:all\s+)?up)|(?:will|would|['’]ll) do(?=\s+[£€$]\d)|down to|came down|knocked|"
    r"make (?:that|it)(?=\s+(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty))|dropped|drops|gone up|went up|goes up|going up|put(?:ting)? (?:\w+ ){1,3}up(?=\s+(?:to|by|from)\b|\s*[£€$\d])|rose|risen|(?<!put )(?<!-)up to|"
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few)\s+(?:more|fewer|extra)|another\s+\d+|"
    r"should have (?:said|been)|second thoughts?|in the end|not\s+(?:\d|the\s+\d|on\s|at\s|in\s|" + DAYS + r"|" + MONTHS + r")|rather than|after all)\b",
    re.I,
)
# An old value the new line marks as old: "the £11.40 was without the logo", "up from 38", "instead of 15:00".
_OLD_BEFORE = re.compile(r"\b(?:not|instead of|rather than|than|up from|down from|was|were)\s+(?:the\s+)?$", re.I)
_OLD_AFTER = re.compile(r"^\s*(?:was|were|had been|before|earlier|previously|didn['’]t|did not|wasn['’]t|was not)\b", re.I)
_MOVED_TO_DAY = re.compile(r"\b(?:moved|pushed back|put back|brought forward)\s+to\s+(?:[A-Z][a-z]+\s+)?\d{1,2}(?:st|nd|rd|th)?\s+[A-Z][a-z]+")
_BARE_DAY = re.compile(r"\bthe\s+(\d{1,2}(?:st|nd|rd|th))\b(?!\s+(?:of\s+)?[A-Z])")  # "the 17th", not "the 17th of May"
_NOT_VALUE = re.compile(r"\bnot\s+(?:on\s+|at\s+|the\s+)?([\w£€$,.:/ ]{1,20}?)(?=[,;.)](?!\d)|$|\s(?:but|as|and)\b)", re.I)  # "not 18,400."


def has_change_cue(line: str) -> bool:
    """True when the line says it changes something ("Correction:", "now", "moved to", "not 18,400",
    "the £11.40 was without the logo")."""
    return _cued(line) or bool(_marked_old(line))


def corrects(line: str) -> bool:
    """True when the line says outright that it corrects a value: it begins "Correction:", it names a
    value as wrong ("£4,630, not £4,360"), or it says what the value actually is ("actually 21,250")."""
    if re.search(r"\bactually\s+(?:\w+\s+){0,2}[£€$]?\d", line, re.I):
        return True  # "it's actually 21,250 words"
    return bool(re.match(r"\s*correction\b", line, re.I) or any(re.search(r"\d", v) for v in _denied(line)))


def reverses(line: str) -> bool:
    """True when the line says it goes back on something said before: it corrects a value, or it says
    "after all", "instead", "on second thoughts", "changed our minds"."""
    return corrects(line) or _REVERSED.search(line) is not None


_REVERSED = re.compile(r"\b(?:after all|instead|on second thoughts?|changed (?:our|my|their|his|her) minds?)\b", re.I)


# What comes before an "up to" that is a ceiling, not a rise: "covers up to £1,500", "can give us up
# to £750", "a grant of up to £500", "sleeps up to 8".
_CEILING = re.compile(
    r"\b(?:give|gives|giving|cover|covers|covering|fund|funds|pay|pays|offer|offers|lend|lends|spend|borrow|"
    r"take|takes|hold|holds|seat|seats|sleep|sleeps|us|them|you|me|of|for|with)\s+$",
    re.I,
)


def _cued(text: str) -> bool:
    """True when `text` holds a change cue (an "up to" that is a ceiling is none)."""
    return any(not (m.group().lower() == "up to" and _CEILING.search(text[: m.start()])) for m in _CUE.finditer(text))


@dataclass(frozen=True)
class Earlier:
    """An earlier line a new one may change: its id, its text, and the page it stands on."""

    id: str
    text: str
    page: str


def _denied(line: str) -> set[str]:
    """The values a line says are wrong: the X of "not X" ("not the 18th": 18)."""
    return {re.sub(r"(?<=\d)(?:st|nd|rd|th)\b", "", norm(m.group(1))) for m in _NOT_VALUE.finditer(line)}


_NOT_BUT = re.compile(r"\bnot\s+([^\W\d][^,;.\d]{0,30}?)\s+but\s", re.I)


def _topic(line: str) -> str:
    """The thing `line` opens with, in lower case ("Open day is now …": "open day"), or "" when it
    opens with none or with a word too vague to be one thing."""
    topic = noun_phrase(line, 0).lower()
    return topic if topic and (" " in topic or len(topic) > 3) and topic not in VAGUE else ""


def _unchosen(line: str) -> set[str]:
    """The words of a choice the line says is no longer so, "not X but Y" with no figure in X ("the
    cabinet not in lacquer but in proper shellac": lacquer)."""
    return {w for m in _NOT_BUT.finditer(line) for w in content_words(m.group(1))}


def _marked_old(line: str) -> set[str]:
    """The values `line` marks as old ("the £11.40 was …", "up from 38", "instead of 15:00")."""
    out = set()
    for pattern in (DATE, TIME, AMOUNT, NUMBER):
        for m in pattern.finditer(line):
            if _OLD_BEFORE.search(line[: m.start()]) or _OLD_AFTER.match(line[m.end() :]):
                out.add(norm(m.group()))
    moved = _MOVED_TO_DAY.search(line)  # "… have the hall on the 17th, so that rehearsal is moved to Wednesday 18 March"
    return out | ({norm(m.group(1)) for m in _BARE_DAY.finditer(line, 0, moved.start())} if moved else set())


def _old_day(marked: set[str], old: set[Value]) -> bool:
    """True when a day the line marks as old by its number alone ("the 19th was Nottingham's") is the
    day of one of `old`'s dates ("Sat 19 Sept")."""
    days = {int(m.group(1)) for x in marked if (m := re.fullmatch(r"(?:the)?(\d{1,2})(?:st|nd|rd|th)", x))}
    return any(v.kind == "date" and (d := re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?(?:of)?[a-z]+", v.text)) is not None and int(d.group(1)) in days for v in old)


def _recount_cued(line: str, nouns: set[str], old: str) -> bool:
    """True when a cue word stands by a count of one of `nouns`: "now at 44 adults", "Down to 11 dogs",
    "at 41 players now", "We're 28 for lunch now" — not "14 dogs in our care and 3 more on the waiting
    list" (the list's cue) — or the line names the id the `old` line counted under ("£418 for 11
    pages, still under PT-0582" after "9 pages, quote PT-0582")."""
    if nouns and {m.group() for m in ids(line)} & {m.group() for m in ids(old)}:
        return True
    for m in re.finditer(r"(?<![\w£€$.,-])(\d[\d,]*)\s+([a-z]{3,})(?:[ -]([a-z]{3,}))?\b", line):
        if content_words(f"{m.group(2)} {m.group(3) or ''}") & nouns and _cued(line[max(0, m.start() - 25) : m.end() + 12]):
            return True  # the cue within a few words of the count ("two more violins" is its own)
    return "us" in nouns and any(_cued(line[max(0, m.start() - 25) : m.end() + 15]) for m in US.finditer(line))


def _same(value: Value, old: set[Value]) -> bool:
    """True when `old` gives `value` too; "the 25th" is the day of "Sunday 25 October", "at six" the hour of "6pm"."""
    if value in old:
        return True
    if value.kind == "time" and any(v.kind == "time" and _one_hour(value.text, v.text) for v in old):
        return True
    day = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)", value.text) if value.kind == "date" else None
    return day is not None and any(v.kind == "date" and re.match(rf"{day.group(1)}(?:st|nd|rd|th)?(?:of)?[a-z]", v.text) for v in old)


def _one_hour(a: str, b: str) -> bool:
    """True when one of two times is a bare hour ("at six") and the other that hour ("6pm", "6:00")."""
    bare, other = (a, b) if a.isdigit() else (b, a)
    return bare.isdigit() and re.fullmatch(rf"{bare}(?:[:.]00)?(?:am|pm)?", other) is not None


def _unit(value: Value) -> str:
    """An amount's currency or unit, its figures left out: "£", "eur", "%", "k" ("50p" is in pounds)."""
    unit = re.sub(r"[\d.,\s]", "", value.text)
    return "£" if unit == "p" else unit


def _weekday_only(differing: set[str], old_dated: bool, new: set[Value]) -> bool:
    """True when a dated line ("moved … to Monday 12 October") differs from an old one only by a
    weekday the old one names alone ("their Saturday brunch extras"): a weekday is no date it moves."""
    return differing == {"date"} and not old_dated and any(v.kind == "date" and any(c.isdigit() for c in v.text) for v in new)


def _near_id(said: list[str], old: str) -> bool:
    """True when an id of a correcting line (`said`) corrects one `old` gave ("Correction: … is
    SS-40921, I'd swapped the last two digits" after "order SS-40912"): the same shape, the digits
    swapped or one or two of them changed, one letter at most misread ("YK14 RWA" for "YK14 RVA")."""
    for a in said:
        for b in (m.group() for m in ids(old)):
            if a == b or len(a) != len(b) or _shape(a) != _shape(b):
                continue
            letters = sum(x != y and x.isalpha() for x, y in zip(a, b, strict=True))  # "YK14 RVA", misread "YK14 RWA"
            if letters <= 1 and (sorted(a) == sorted(b) or sum(x != y for x, y in zip(a, b, strict=True)) <= 2):
                return True
    return False


def _close(new: set[Value], old: set[Value], within: float = 4 / 3) -> bool:
    """True when an amount of `new` is within a third (or `within` times) of one of `old` in the same
    currency: a price knocked down or bumped up, not a deposit beside the price."""
    def parsed(values: set[Value]) -> list[tuple[str, float]]:
        found = ((v.text, re.fullmatch(r"([^\d]*)(\d+(?:\.\d+)?)(\D*)", v.text)) for v in values if v.kind == "amount")
        return [(m.group(1) + m.group(3), float(m.group(2))) for _, m in found if m]  # "£4200", "18400eur"

    return any(a == c and b > 0 and 1 / within <= d / b <= within for a, b in parsed(new) for c, d in parsed(old))


def _shape(text: str) -> str:
    return re.sub(r"[A-Z]", "A", re.sub(r"\d", "0", text))


_PART_OF = re.compile(r"\b(\d+) of (?:the |our |all )?(\d+)\b")  # "9 of the 12", "11 of 14 consent forms"


def _not_parts(line: str, new: set[Value], old_values: set[Value]) -> set[Value]:
    """`new` without the counts `line` gives as part of an old count: "only 9 of the 12 hybrids" after
    "12 hybrids" says how many of them came, no new count of hybrids."""
    parts = {a for a, b in _PART_OF.findall(line) if Value("count", b) in old_values}
    return {v for v in new if not (v.kind == "count" and v.text in parts)}


_FROM_TO = re.compile(r"\bfrom\s+((?=[\w/-]*[A-Za-z])(?=[\w/-]*\d)[\w/-]+)\s+to\s+((?=[\w/-]*[A-Za-z])(?=[\w/-]*\d)[\w/-]+)\b")
_ID_FIX = re.compile(r"\b(?:correction|corrected|actually|should have|wrong|swapped|typo|mistyped|misread|copied|not\s+(?:\d|[A-Z]{1,5}[-/]?\d))", re.I)


def _plain_words(text: str) -> set[str]:
    """`content_words` of the line without its names: the thing it is about, not who."""
    spans = sorted((m.start, m.start + len(m.text)) for m in mentions(text) if m.kind in ("name", "id"))
    for a, b in reversed(spans):
        text = text[:a] + " " + text[b:]
    short = {fold(w) for w in re.findall(r"\b[^\W\d_]{3}\b", text)} - _SHORT_FUNCTION  # "the fee", "the van"
    due = content_words("deadline") if re.search(r"\bdue\b", text, re.I) else set()  # "due Friday 2 October": its deadline
    # "the cleaners' booking" names the end-of-tenancy clean: a role's deed is the thing it does
    deeds = {d for w in re.findall(r"\b[a-z]+['’]?", text) if is_role(w) for d in content_words(role_deed(w))}
    return {_SAME_THING.get(w, w) for w in content_words(text) | short | due | deeds} - _WEAK


def _who_the_page_is(line: str, old: str, page: str, old_page: str) -> set[str]:
    """The words two lines share that say whose page they stand on, no thing they share: "Helen thinks
    …" after "Helen charges …" on Helen's page, her name; on one page, a role both name with the deed
    it is named for ("The surveyor says …" after "Kieran Doyle, Westway's surveyor, measured …")."""
    named = {fold(w) for w in _CAPITALISED.findall(line)} & {fold(w) for w in _CAPITALISED.findall(old)} & {*page.split("-"), *old_page.split("-")}
    if old_page != page:
        return named
    roles = {fold(w) for w in re.findall(r"[^\W\d_]+", line) if is_role(w)} & {fold(w) for w in re.findall(r"[^\W\d_]+", old) if is_role(w)}
    return named | {d for r in roles for d in content_words(f"{r} {role_deed(r)}")}


def _named_things(text: str) -> set[str]:
    """The folded one-word names `text` gives as things: "the Greenstar" (`phrases.named_thing`)."""
    return {fold(m.text) for m in mentions(text) if m.kind == "name" and named_thing(m.text, text)}


def _names_in(text: str) -> set[str]:
    """The folded words of the names `text` gives."""
    return {fold(w) for m in mentions(text) if m.kind == "name" for w in m.text.split()}


# Words for one thing: "the install is moved" after "can fit the oven on Thursday".
_SAME_THING = {"fit": "install", "fitt": "install", "installation": "install", "instal": "install", "fitter": "install"}
_RATE = re.compile(r"\bthe\s+(?:rate|price|fee)\b", re.I)  # "the rate is", not "Rosa's rate" or "Rosa charges"
# A total that takes the place of an earlier figure: "£2,180 all in", "Engraving comes to £275" (not "came to look at").
_TOTAL = re.compile(r"\b(?:all in|in total|altogether|all told|(?:comes?|came) to(?=\s+(?:more than\s+|about\s+|over\s+)?[£€$\d])|totals?|totalling)\b", re.I)


def _totals(line: str, old_plain: set[str]) -> bool:
    """True when `line` gives a total ("£2,180 all in", "Engraving comes to £275") of nothing or of a
    thing the old line names — not "Health surcharge comes to £2,846.25" after the application fee."""
    m = _TOTAL.search(line)
    owner = _plain_words(" ".join(re.split(r"[,;:()—–]", line[: m.start()])[-1].split()[-4:])) if m else set()
    return m is not None and (not owner or bool(owner & old_plain))


_CAPITALISED = re.compile(r"\b[A-Z][^\W\d_]+")
_SHORT_WORDS = """the and but for not nor yet our you her his its who why how any all was are has had did can
may now one two six ten per via off out too got get let put set say see saw new old due own few she him eur usd
gbp pln nok sek dkk chf inr ngn vat inc est etc max min hrs pcs day mon tue wed thu fri sat sun jan feb
mar apr jun jul aug sep oct nov dec am pm"""
_SHORT_FUNCTION = frozenset(_SHORT_WORDS.split())  # three-letter words that name no thing
# Words two lines about different things share as easily as two about one: "an extra week", "an extra
# rehearsal".
_WEAK = frozenset({"extra", "more", "less", "whole", "full", "other", "same", "each", "every", "total", "thing", "things", "just", "only"})
_PRICE_WORDS = frozenset(content_words("price cost quote total bill charge rate fee"))  # what any amount is, as `priced_things` reads it


def changed_value(line: str, page: str, earlier: Iterable[Earlier]) -> Earlier | None:
    """The newest earlier line whose value `line` (going on `page`) changes, or None.

    A pair needs a value of the same kind on both sides that differs, and either a value the new line
    denies by name ("not 18,400"), or a cue word and either the same page or two words in common
    besides the values; or the old value marked as old; or, on the same page, a new amount or count
    beside a word of the same thing (not a name). Otherwise two lines with other numbers are progress,
    not a change."""
    in_figures = spelled(line)
    said = _Said.of(in_figures if has_change_cue(in_figures) else line)  # "has five confirmed": no count it changes
    if not said.values and not said.fixed_ids and not said.moved_codes and not said.unchosen and not said.relabelled:
        return None
    best: Earlier | None = None
    best_rank: tuple[bool, bool, bool, bool, bool, bool, bool, bool, int, int, int] = (False, False, False, False, False, False, False, False, -1, -1, -1)
    for n, old in enumerate(earlier):
        rank = _rank(said, old, page) if old.text != line else None
        if rank is not None and (*rank, n) > best_rank:
            best, best_rank = old, (*rank, n)
    return best


@dataclass(frozen=True)
class _Said:
    """What a new line says that `changed_value` weighs against each earlier line."""

    line: str
    values: set[Value]
    moved_codes: list[tuple[str, str]]  # "moved us from C14 to D9": the old code named
    fixed_ids: list[str]  # "Correction: … SS-40921"
    cue: bool
    denied: set[str]
    unchosen: set[str]  # "not in lacquer but in shellac": the words of a choice the line turns from
    topic: str  # "Open day is now …": the thing the line opens with, in lower case
    old_marked: set[str]
    words: set[str]
    plain: set[str]
    counted: dict[str, set[str]]
    priced: dict[str, set[str]]
    extras: set[Value]  # "£15 extra", "an extra £40": a charge on top, near no price it could replace
    relabelled: set[tuple[str, str]]  # "Ian's in Flat 3, not Flat 2": a numbered label the line says was wrong

    @classmethod
    def of(cls, line: str) -> _Said:
        fixed = [m.group() for m in ids(line)] if _ID_FIX.search(line) else []
        return cls(
            line, values(line), _FROM_TO.findall(line), fixed, has_change_cue(line), _denied(line), _unchosen(line), _topic(line), _marked_old(line),
            content_words(line), _plain_words(line), counted(line), priced_things(line), extras(line), _relabelled(line),
        )  # fmt: skip


def _rank(said: _Said, old: Earlier, page: str) -> tuple[bool, bool, bool, bool, bool, bool, bool, bool, int, int] | None:
    """How surely `said`'s line (going on `page`) changes `old`'s value, higher is surer; None when it does not."""
    line, new, words = said.line, said.values, said.words
    old_text = spelled(old.text)
    old_words = content_words(old_text)
    if _outright(said, old_text, old.page == page):
        return (True, True, False, False, False, False, old.page == page, False, 0, len(words & old_words))
    old_values = values(old_text)
    new = _not_parts(line, new, old_values)
    kinds = {v.kind for v in new} & {v.kind for v in old_values}
    differing = {k for k in kinds if any(not _same(v, old_values) for v in new if v.kind == k)}
    if not differing:
        return None
    units = {_unit(v) for v in old_values if v.kind == "amount"}
    if differing == {"amount"} and (not any(_unit(v) in units for v in new if v.kind == "amount" and not _same(v, old_values)) or (not said.cue and _deposit_only(line, old_text))):
        return None  # "Paid her 30% deposit, £555" after "a 30% deposit", "€45 a day" after "£1,200": another unit; a deposit beside a price
    named = any(d and any(_names_value(d, v.text) for v in old_values) for d in said.denied)
    named = named or bool(said.old_marked & {v.text for v in old_values}) or _old_day(said.old_marked, old_values)
    if said.old_marked and not named:
        return None  # "subs up from £5 to £6": the line names the value it changes, and this line has none of it
    shared = len(words & old_words)
    old_plain = _plain_words(old_text)
    # "the install's moved to …" names the old line's page ("x-ray-install") as well as its words
    page_named = bool(words & content_words(old.page.replace("-", " ")))
    named_page = _who_the_page_is(line, old_text, page, old.page)
    things = len(said.plain & old_plain - named_page)
    # "Northgate invoice for the Greenstar" after "Northgate … have the Worcester Bosch Greenstar": a
    # thing named in both, not the page's own name
    thing_shared = things > 0 or bool(_named_things(line) & _names_in(old_text) - set(old.page.split("-")))
    # "£7,300 for the coach" beside "Coach sorted … £6,850": the same thing valued again (a measure, of a thing the old line names; an amount, of its id)
    same_thing = old.page == page and bool({"amount", "count", "measure", "place"} & kinds) and (thing_shared or ("amount" in differing and bool(id_texts(line) & id_texts(old_text)))) and (kinds != {"measure"} or bool(_measure_owners(line) & old_plain))
    old_counted = counted(old_text)
    # "now at 44 adults" after "38 adults and 11 kids": the same thing counted again, another number
    recounted = _recount_cued(line, {noun for noun, nums in said.counted.items() if noun in old_counted and nums != old_counted[noun]}, old_text)
    dated = any(v.kind == "date" and any(c.isdigit() for c in v.text) for v in old_values)  # not "Saturday" alone
    old_priced = priced_things(old_text)
    # "The minibus is now £355" after "£310 for a 16-seat minibus": the same thing priced again
    repriced = any(noun in old_priced and amounts != old_priced[noun] for noun, amounts in said.priced.items())
    # "Rollout's now Tuesday 9 June", going on "rollout", moves the date of "… as rollout day"
    page_thing = bool(content_words(page.replace("-", " ")) & old_plain)
    # … and "Open day is now Sunday 6 September" after "… fixed the Holloway Lane Allotment Society open
    # day for Saturday 5 September": the thing the line opens with, named in the old line
    page_thing = page_thing or bool(said.topic and re.search(rf"(?<![\w-]){re.escape(said.topic)}(?![\w-])", old_text, re.I))
    # … and "First group now going at 9am" after "first group over the edge at 10am": a time moved
    # … and "practice drives switch to Saturday" after "Sunday mornings for practice": a weekday moved
    weekdays = differing == {"date"} and not any(c.isdigit() for v in new | old_values if v.kind == "date" for c in v.text)
    moved = things >= 2 or ((thing_shared or page_thing) and (("date" in differing and (dated or weekdays)) or differing == {"time"})) or recounted or repriced or _measured_again(said, old_text, differing)
    per, old_per = units_per(line), units_per(old_text)
    if differing == {"amount"} and per and old_per and not per & old_per:
        return None  # "£310 a week towards Dad's care" after "£29.80 an hour": another rate, no new price
    if differing == {"count"} and not named and _other_durations(set(said.counted), set(old_counted)):
        return None  # "should arrive within 5 working days" after "opened in twenty minutes": another wait
    if differing in ({"count"}, {"measure"}, {"place"}) and old.page != page and not (named or recounted or set(said.counted) & old_words or _measured_again(said, old_text, differing)):
        return None  # "sheds up to 10 square metres" after "clause 7": another thing counted, elsewhere
    # "knocked it down to £11,450" after "asking £11,995" elsewhere: a price close to the old one …
    close = "amount" in differing and _close(new - said.extras, old_values)
    # … where a far smaller deposit on the same page is no price it changes
    far = "amount" in differing and not close and not _close(new, old_values, 2.0)
    # "£2,180 all in" after "quoted £1,980" on the same page, or beside a word of the same thing (a
    # total twice the old figure adds up more than it: "£9,500 as the total, stand and travel included")
    totalled = "amount" in differing and _totals(line, old_plain) and (old.page == page or thing_shared) and not far
    # "the rate is £0.10 a word" after "at £0.09 a word": a rate per the same unit, said again
    rated = "amount" in differing and bool(per & old_per) and (bool(_RATE.search(line)) or (page_thing and close))
    if _weekday_only(differing, dated, new) and not (named or moved or shared >= 2):
        return None  # "Saturday brunch extras" beside "moved … to Monday 12 October": no date it moves
    # … but not seven times it: "£35 each" for the traders' tables after "entry at £5" covering the hall
    # "so travel is £84 return, now" after "Her fee is £150 plus travel": the thing priced, named before
    priced = "amount" in differing and bool(set(said.priced) - _PRICE_WORDS & old_words)  # not "Stefan's price is now …" after "£1,200 off the price"
    strong = named or (same_thing and (not far or recounted)) or totalled or rated or (repriced and shared >= 2) or (said.cue and not far and (old.page == page or page_named or shared >= 2 or moved or priced)) or (old.page == page and differing == {"time"} and things >= 2)
    if strong or (said.cue and (close or old.page == page)):
        # a value named, the same thing valued again, the same page, words in common, the newest
        # … the thing priced again ("Rent on the flat comes down to …" is the flat's line, not the allowance's)
        # a day and month moved from a line that gives one, before a line that names weekdays alone
        # ("to 20 April instead" changes "from Monday 13 April", not "Monday, Wednesday and Friday")
        redated = "date" in differing and dated and any(v.kind == "date" and any(c.isdigit() for c in v.text) for v in new)
        # "The panel delivery's moved to Thu 21 May" changes "Panels are due Tue 12 May", not "… Mon 11 May,
        # the day before the panels arrive": the same thing named just before the value in both lines
        owned = _owned(said, old_text, differing)
        return (named, strong, repriced or recounted, priced, close, redated, old.page == page, owned, things, shared)
    return None


def _other_durations(new: set[str], old: set[str]) -> bool:
    """True when both lines count time, in different units ("days" and "minut"): two waits, not one."""
    new_time, old_time = {n for n in new if _TIME_UNIT.match(n)}, {n for n in old if _TIME_UNIT.match(n)}
    return bool(new_time) and bool(old_time) and not new & old


_TIME_UNIT = re.compile(r"(?:second|minut|hour|day|night|week|fortnight|month|year)s?$")


def _names_value(denied: str, old: str) -> bool:
    """True when a value the new line denies ("not 18,400", "not the 18th", "not four") is the old
    value `old`: the same, or its start ("18" of "18june") — a number never inside another ("4" of "£45")."""
    if denied.isdigit():
        return re.fullmatch(rf"[£€$]?{re.escape(denied)}(?:\D.*)?", old) is not None
    return denied == old or denied in old


def _deposit_only(line: str, old: str) -> bool:
    """True when `line` gives a deposit and `old` none: "Paid the deposit, £50 a suit, £250 in total" is
    no new price of "£129 a suit" — a part paid, not what the whole costs (unless the line says it
    changes something: "Correction: … £685, forgot the wig deposit")."""
    return re.search(r"\bdeposit", line, re.I) is not None and re.search(r"\bdeposit", old, re.I) is None


def _relabelled(line: str) -> set[tuple[str, str]]:
    """The numbered labels `line` says were wrong, as (word, number): "Ian's in Flat 3, not Flat 2"
    gives ("flat", "2") — a label is no value, but one denied by name is what the line corrects."""
    return {(m.group(1).lower(), m.group(2)) for m in re.finditer(rf"\bnot\s+(?:the\s+)?({'|'.join(sorted(LABELS))})\s+(\d+[a-z]?)\b", line, re.I)}


def _outright(said: _Said, old_text: str, same_page: bool) -> bool:
    """True when `said`'s line names what it changes in `old_text` outright: an id said wrong before, a
    code moved from ("from C14 to D9"), a choice turned from on the same page ("not in lacquer but …")."""
    if (said.fixed_ids and _near_id(said.fixed_ids, old_text)) or any(re.search(rf"\b{w}\s+{n}\b", old_text, re.I) for w, n in said.relabelled):
        return True
    if said.unchosen and same_page and said.unchosen <= content_words(old_text):
        return True
    return any(re.search(rf"(?<![\w/-]){re.escape(a)}(?![\w/-])", old_text) and b not in old_text for a, b in said.moved_codes)


_VALUE_SPAN = {"date": DATE, "amount": AMOUNT, "time": TIME}
def _measured_again(said: _Said, old_text: str, differing: set[str]) -> bool:
    """True when a cued line gives a new measure of the thing that stands just by the old one's ("the
    fuse is actually 80A" after "our main fuse is only 60A"): the same thing measured again."""
    return "measure" in differing and said.cue and bool(_measure_owners(said.line) & _measure_owners(old_text))


def _measure_owners(text: str) -> set[str]:
    """The things (folded plain words) within four words before a measure in `text` and two after it
    ("a 100mm slab"), in its clause."""
    out: set[str] = set()
    for m in measures(text):
        out |= _plain_words(" ".join(re.split(r"[,;:()—–]", text[: m.start()])[-1].split()[-4:]))
        out |= _plain_words(" ".join(re.split(r"[,;:()—–]", text[m.end() :])[0].split()[:2]))
    return out


def _owned(said: _Said, old_text: str, kinds: set[str]) -> bool:
    """True when the same thing stands just before a value of `kinds` in both lines (`_owners`), or the
    thing `said`'s line opens with does in another form ("Move is actually Sunday 28 June" after
    "Moving day set for Saturday 27 June", not "First session at the new hall is Wednesday 1 July")."""
    old_owners = _owners(old_text, kinds)
    if _owners(said.line, kinds) & old_owners:
        return True
    root = re.sub(r"(?:e|y)$", "", said.topic) if said.topic.isalpha() else ""
    return bool(root) and any(re.fullmatch(rf"{root}(?:e|es|ed|ing|s|y|ies)?", w) for w in old_owners)


def _owners(text: str, kinds: set[str]) -> set[str]:
    """The things (folded plain words) that stand in the clause before a value of `kinds` in `text`,
    within six words of it: "panel" in "Panels are due Tue 12 May", none in "Mon 11 May, the day
    before the panels arrive"."""
    out: set[str] = set()
    for kind in kinds & set(_VALUE_SPAN):
        for m in _VALUE_SPAN[kind].finditer(text):
            clause = re.split(r"[,;:()—–]", text[: m.start()])[-1]
            out |= _plain_words(" ".join(clause.split()[-6:]))
    return out
