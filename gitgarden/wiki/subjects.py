"""Who and what a journal line is about, found by code: the subjects a small model never has to name.

A line names its subjects in a few ways people write quickly:

- a name, a run of capitalised words ("Tomasz Wójcik", "Kamień Studio", "Hollins Lane"), or the
  first name alone later ("Tomasz", "Tomasz's quote");
- a role, once given beside a name ("Piotr Nowak the electrician", "Deepa Iyer, my accountant",
  "Ragnhild Berg (treasurer)") and later alone ("the electrician");
- an id ("INV-2041", "NK-55817");
- a topic: a thing the line is about ("the budget", "Deposit for …", "the cabinets"), read by
  `phrases.topic_title`.

`mentions` finds them in one line; `SubjectIndex` resolves a mention to one page across passes and
spellings — a title, an alias, a person's first or last name, a role given before, a plural — so
the same person or thing gets one page. `home` picks the page a line's fact goes on. Titles are
noun phrases made of the line's own words, never a pronoun, a cue word or a sentence (`is_title`).
Pure: text in, data out.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from gitgarden.wiki.wordlists import (
    CALENDAR,
    DEMONYMS,
    FESTIVALS,
    FUNCTION,
    HONORIFICS,
    ING_NOUNS,
    KIN,
    LABELS,
    MONTHS,
    NAME_INNER,
    NEVER,
    OF_NAMES,
    PLACE_NOUNS,
    ROLES_FOLDED,
    STARTERS,
)

__all__ = [
    "Mention",
    "mentions",
    "roles_given",
    "roles_said",
    "fold",
    "is_title",
    "PRONOUN_START",
    "upper_first",
    "content_words",
    "has_id",
    "id_texts",
    "ids",
    "DETERMINER",
    "sentence_starts",
    "verbish",
    "POSSESSIVE",
    "LETTERED",
    "is_full_name",
    "full_names",
    "said_as_thing",
]

_TOKEN = re.compile(r"[^\W\d_][\w'’.&-]*[\w]|[^\W\d_]")
# "INV-2207", "PH/EV/2026/117", "CC/2611/AL" (its letters and slashes whole), a registration "YK14 RVA" (its two halves).
_ID = re.compile(
    r"\b(?:[A-Z]{2}\d{2} [A-Z]{3}(?![\w-])|[A-Z]{1,5}(?:[/-][A-Z]{1,5})*[-/]?\d[\w/-]*\d(?:/[A-Z]{1,4}(?![\w/-]))?|[A-Z]{2,5}-[A-Z0-9]{2,}(?:-[A-Z0-9]+)*)\b"
)
POSSESSIVE = re.compile(r"['’]s$")
PRONOUN_START = re.compile(r"^(?:he|she|they|his|her|their|him|them)\b", re.I)
# A role given beside a name: "X the electrician", "X, our designer,", "X, Westway's surveyor,", "X (treasurer)".
_ROLE_AFTER = re.compile(
    r"^,?\s*(?:\((?:the\s+|our\s+|my\s+)?(?P<paren>[^\W\d_][^()\n]{1,40}?)\)"
    r"|,?\s*(?:the|our|my|their|(?-i:[A-Z][\w-]*)['’]s)\s+(?P<role>(?:[^\W\d_]+['’]s\s+)?[^\W\d_][\w-]*(?:\s+[^\W\d_][\w-]*)?)"
    r"(?=\s*(?:[,;:.)]|$|\s(?:can|will|says|said|sent|rang|is|was|has|had|wants|came|asked|agreed|confirmed|offered|needs)\b|\s(?:from|at)\s+(?-i:[A-Z])))"
    # "Kyle Brennan, the DJ the Year 13s had last summer", "Aisha Doyle, the surveyor Wessex Fibre use", "Colin
    # Baxter, a surveyor who does timber huts": a role, then who had or uses them
    r"|,\s*(?:the|our|my|their|a|an)\s+(?P<known>[^\W\d_]+)(?=\s+(?:the\s|who\s|that\s|whose\s|[A-Z])))",
    re.I,
)
# A role given right before a name: at a sentence's start ("Landlord Joaquín Beltrán …") or after a
# determiner ("our accountant Ruth Ames").
_ROLE_BEFORE = re.compile(r"(?:^|[.!?;]\s+|\b(?:the|our|my|their)\s+)(?P<role>[^\W\d_]+)\s+$", re.I)
DETERMINER = re.compile(r"\b(?:the|our|my|a|an|this|their|his|her)\s+", re.I)
_VERBISH = re.compile(r"^[a-z]{3,}ed$|^[a-z]{2,}ing$")  # "Aled", "Fred", "Ned": a name, not a verb
_NAMES_LIKE_VERBS = frozenset({"ahmed", "mohammed", "mohamed", "muhammed", "sinead", "reed", "jared", "aisling", "irving", "sterling"})


def verbish(word: str) -> bool:
    return bool(_VERBISH.match(word)) and word not in ING_NOUNS and word not in _NAMES_LIKE_VERBS


def has_id(text: str) -> bool:
    """True when the line names an id (an invoice, an order number)."""
    return _ID.search(text) is not None


def ids(text: str) -> list[re.Match[str]]:
    """The ids the line names, as matches ("INV-2207", "SS-40912"): what `mentions` gives as kind "id"."""
    return list(_ID.finditer(text))


def id_texts(text: str) -> set[str]:
    """The ids the line names, in capitals: how two lines are seen to give the same one."""
    return {m.group().upper() for m in _ID.finditer(text)}


def fold(text: str) -> str:
    """`text` lowercased, without diacritics, apostrophes as `'`, spaces single: how names compare."""
    text = unicodedata.normalize("NFKD", text.replace("’", "'"))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.casefold().replace("ł", "l").replace("ø", "o").replace("æ", "ae").split())


def _stem(word: str) -> str:
    """A word's plain form, roughly: plurals and -ed/-ing forms fold together ("quoted" ~ "quote")."""
    w = fold(word)
    for suffix in ("ies", "es", "s", "ed", "ing", "d", "e"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


@dataclass(frozen=True)
class Mention:
    """One subject a line names: its words as written, its kind (name, role, id or topic), where it starts."""

    text: str
    kind: str
    start: int


def sentence_starts(line: str) -> set[int]:
    """Where a sentence (or a clause after a colon, a dash, a bracket) may start in `line`."""
    starts = {0}
    for m in re.finditer(r"[.:;!?]\s+|\(\s*|—\s*|-\s+", line):
        starts.add(m.end())
    return starts


def _tokens(line: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group().rstrip(".")) for m in _TOKEN.finditer(line)]


_CONTRACTED = re.compile(r"(?:i|we|you|he|she|they|it|that|there|here|what|who|let)['’](?:m|ve|d|ll|re|s)")
LETTERED = re.compile(r"\b[A-Z]-(?=[a-z])")  # "T-shirts", "X-ray": a letter, no capital of a name


def _is_cap(word: str) -> bool:
    f = fold(word)
    if not word[:1].isupper() or f in NEVER or (len(f) > 4 and f.endswith("s") and f[:-1] in CALENDAR):
        return False  # "Tuesdays", "Mornings": calendar words in the plural are no names either (but "Bounce Brothers" is)
    if _CONTRACTED.fullmatch(f):
        return False  # "I've", "I'd", "We'll": a pronoun, however it is written
    if word.isupper() and len(word) <= 2:
        return False  # "DE>EN", "Q1", the "B" of "7B": codes, not names
    return not ("-" in word and len(word.split("-")[0]) < 2)  # "L-shape"


_SCHEME_VERBS = frozenset(["buy", "rent", "own", "work", "let", "learn"])


def _inner(word: str) -> bool:
    """A capitalised word no name starts with, but one may hold between two of its words: "Call" of
    "Curtain Call Costume Hire", "IT" of "Brightwave IT Solutions"."""
    return word[:1].isupper() and (fold(word) in NAME_INNER or (word.isupper() and len(word) == 2 and word.isalpha()))


def mentions(line: str, known_names: Iterable[str] = ()) -> list[Mention]:
    """The subjects `line` names, in the order they stand. `known_names` (folded words already
    known as names: page titles, names seen mid-sentence in other lines) lets a capitalised word at
    the start of a sentence count as a name; otherwise it counts only when a name follows it or it
    is possessive ("Tomasz's quote")."""
    known = {fold(w) for w in known_names}
    starts = sentence_starts(line)
    toks = _tokens(line)
    found: list[Mention] = []
    taken: list[tuple[int, int]] = []
    for m in _ID.finditer(line):
        found.append(Mention(m.group(), "id", m.start()))
        taken.append((m.start(), m.end()))
    i = 0
    while i < len(toks):
        pos, word = toks[i]
        if any(a <= pos < b for a, b in taken) or not _is_cap(word):
            i += 1
            continue
        run = [(pos, word)]
        j = i + 1
        while j < len(toks):
            gap = line[run[-1][0] + len(run[-1][1]) : toks[j][0]]
            nxt = toks[j][1]
            possessive = "'" in run[-1][1][-2:] or "’" in run[-1][1][-2:]
            saint = any(fold(w) in ("st", "st.", "saint") for _, w in run)  # "St Brigid's Hospice": a saint's, then what
            if any(a <= toks[j][0] < b for a, b in taken):
                break  # "Invoice INV-2207": the id is a subject of its own, no part of a name
            own_place = _is_cap(nxt) and fold(nxt) in PLACE_NOUNS and (len(run) < 3 or saint)
            # "Calderbridge University Students' Union", "Wyvern Beekeepers' Association": a plural's possessive goes on
            plural_own = gap.strip() in ("'", "’") and run[-1][1].endswith("s") and _is_cap(nxt)
            if (gap.strip() not in ("", "&") and not plural_own) or (possessive and not (own_place or (saint and _is_cap(nxt)))):
                break  # "Tomasz's quote" ends the name; "St Aldhelm's Hall" goes on, "the Foundation's Green Spaces grant" not
            # "Twelfth Night", "Boxing Day": a calendar word inside a name; "Shift It": a capital "It" too
            if _is_cap(nxt) or (nxt[:1].isupper() and fold(nxt) in ("night", "day", "eve")) or (nxt == "It" and toks[j][0] not in starts):
                run.append(toks[j])
                j += 1
            elif _inner(nxt) and j + 1 < len(toks) and _is_cap(toks[j + 1][1]) and not line[toks[j][0] + len(nxt) : toks[j + 1][0]].strip():
                run.extend([toks[j], toks[j + 1]])  # "Curtain Call Costume Hire", "Brightwave IT Solutions"
                j += 2
            elif nxt == "to" and j + 1 < len(toks) and _is_cap(toks[j + 1][1]) and fold(toks[j + 1][1]) in _SCHEME_VERBS and line[toks[j][0] - 1] == " ":
                run.extend([toks[j], toks[j + 1]])  # "Help to Buy ISAs", "Right to Rent": a scheme's name (not "Tom to Gareth")
                j += 2
            elif nxt == "of" and fold(run[-1][1]) in OF_NAMES and j + 1 < len(toks) and _is_cap(toks[j + 1][1]) and line[toks[j][0] + 2 : toks[j + 1][0]] == " ":
                run.extend([toks[j], toks[j + 1]])  # "the Diocese of Bramford", "the Westmere Federation of WIs" (not "Tom of Leeds")
                j += 2
            elif ((nxt == "and" and len(run) == 1 and not run[0][1].endswith("s") and re.search(r"\b[Tt]he\s+$", line[: run[0][0]]) is not None) or fold(nxt) in ("de", "van", "von", "da", "del", "della", "la", "le", "di", "du", "der", "den", "ter", "bin", "al", "o", "ni", "nic", "mac", "ap")) and j + 1 < len(toks) and _is_cap(toks[j + 1][1]):
                run.extend([toks[j], toks[j + 1]])  # "Tomás Ó Briain"; "the Fox and Hounds", a pub (not "Lewis and Amir")
                j += 2
            else:
                break
        first_pos, first = run[0]
        lone_start = first_pos in starts
        if len(run) == 1 and fold(first) in DEMONYMS | FESTIVALS and re.match(r"\s+[a-z]", line[first_pos + len(first) :]):
            i = j
            continue  # "the Canadian cousins", "two Flemish pieces", "Easter holidays": a word describing a thing, no name
        if lone_start and (fold(first) in STARTERS or verbish(fold(first))):
            run = run[1:]  # "Ordered the …", "Got quartz samples from Kamień": the verb is no name
        elif (lone_start and len(run) > 1 and fold(first) in ROLES_FOLDED) or (len(run) > 2 and fold(first) in KIN):
            run = run[1:]  # "Landlord Joaquín Beltrán confirmed …", "Aunt Moira Fitzgerald": no part of the name
        elif lone_start and len(run) == 1 and not POSSESSIVE.search(first) and fold(POSSESSIVE.sub("", first)) not in known:
            run = []  # "Budget for the whole job": a sentence's first word, no sign it is a name
        elif len(run) == 1 and fold(first)[:-1] in LABELS and fold(first).endswith("s") and re.match(r" \d", line[first_pos + len(first) :]):
            run = []  # "from Years 9 and 10": labels counted, no one's name
        if len(run) == 1 and ((POSSESSIVE.search(first) and fold(POSSESSIVE.sub("", first)) in (MONTHS | CALENDAR) - known) or (fold(first) in HONORIFICS and line.startswith(". ", first_pos + len(first)))):
            run = []  # "Sunday 17 May's sale", "Tuesday's meeting", "April's takings": a day's; "Rev. Anthea Moorcroft": her title
        # "needs Level 2 food hygiene": a level said by its number is one thing (not "Pitch 3 at Millbrook
        # Park …" opening a line: the place's numbered part)
        label = re.match(r" \d{1,2}\b(?![.,:]\d)", line[run[-1][0] + len(run[-1][1]) :]) if len(run) == 1 and fold(run[0][1]) in LABELS and not lone_start else None
        end = run[-1][0] + len(run[-1][1]) + (label.end() if label else 0) if run else 0
        address = _ADDRESS.match(line, end) if label else None  # "Flat 3, 27 Alder Crescent": the flat's address is its name
        while address and j < len(toks) and toks[j][0] < address.end():
            j += 1
        if run:
            found.append(_named(line[run[0][0] : address.end() if address else end], run, lone_start))  # "Level 2", "Grade 5"
        i = j
    return sorted(found + _roles_in(line), key=lambda m: m.start)


def _named(text: str, run: list[tuple[int, str]], lone_start: bool) -> Mention:
    """The mention of the name `run` spells as `text`: without its "'s" ("St Brigid's" names the hospice,
    not the saint), and a role, no name, when it is one opening the line with its "'s" ("Plumber's visit
    moved …")."""
    if not (len(run) == 2 and fold(run[0][1]) in ("st", "saint")):
        text = POSSESSIVE.sub("", text)
    role = len(run) == 1 and lone_start and POSSESSIVE.search(run[0][1]) is not None and is_role(run[0][1])
    return Mention(text, "role" if role else "name", run[0][0])


def _roles_in(line: str) -> list[Mention]:
    """The roles `line` names after "the", "our" or "my": "the electrician", "our treasurer"."""
    found = []
    for m in re.finditer(r"\b(?:[Tt]he|[Oo]ur|[Mm]y)\s+([a-z][a-z'’]+(?:\s+[a-z][a-z'’]+)?)\b", line):
        words = m.group(1).split()
        if words and is_role(words[-1]):
            found.append(Mention(_PLURAL_POSSESSIVE.sub("", POSSESSIVE.sub("", " ".join(words))), "role", m.start(1)))
        elif len(words) > 1 and is_role(words[0]):
            # "the editor's invoice", "The cleaners' booking confirmation"
            found.append(Mention(_PLURAL_POSSESSIVE.sub("", POSSESSIVE.sub("", words[0])), "role", m.start(1)))
    return found




_PLURAL_POSSESSIVE = re.compile(r"(?<=s)['’]$")
_ADDRESS = re.compile(r",\s+\d{1,4}[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:Road|Street|Lane|Avenue|Crescent|Close|Drive|Way|Place|Terrace|Gardens|Grove|Court|Square|Row|Walk|Mews|Rise|Hill)\b")


def is_role(word: str) -> bool:
    """True when `word` is a role code knows, one of many or someone's: "electrician", "the cleaners'"."""
    return _one_role(word) in ROLES_FOLDED


def role_deed(word: str) -> str:
    """The deed a role is named for, folded: "surveyor" survey, "engraver" engrav(e), "florist" flor-,
    "the cleaners'" clean; a role AGENTS.md gives ("installer") the same way."""
    return _DEED.sub("", _one_role(word))


_DEED = re.compile(r"(?:or|er|ist|ian)$")


def _one_role(word: str) -> str:
    """`word` folded, without a possessive, in the singular when that is a role code knows ("cleaners'")."""
    f = fold(_PLURAL_POSSESSIVE.sub("", POSSESSIVE.sub("", word)))
    return f[:-1] if f not in ROLES_FOLDED and f.endswith("s") and f[:-1] in ROLES_FOLDED else f


def roles_given(line: str, names: list[Mention]) -> dict[str, str]:
    """name -> role for each name the line gives a role beside ("Piotr Nowak the electrician"):
    later lines say "the electrician" for that person."""
    out: dict[str, str] = {}
    prev: Mention | None = None
    for m in names:
        if m.kind != "name":
            continue
        # "Aled Pryce of Pryce & Daughters Ltd, our builder": the person's role, said after their firm
        between = line[prev.start + len(prev.text) : m.start] if prev else ""
        holder = prev.text if prev and re.fullmatch(r"\s+(?:of|from|at)\s+", between) else m.text
        prev = m
        before = _ROLE_BEFORE.search(line[: m.start])
        if before and re.fullmatch(r",\s*(?:the|our|my|their|a|an)\s+[^\W\d_]+\s+", between):
            continue  # "Aisha Doyle, the surveyor Wessex Fibre use": the role is Aisha's, not the firm's
        if before and fold(before.group("role")) in ROLES_FOLDED:
            out[m.text] = before.group("role").lower()  # "Landlord Joaquín Beltrán", "our accountant Ruth Ames"
            continue
        after = line[m.start + len(m.text) :]
        after = re.sub(r"^['’]s\b", "", after)
        r = _ROLE_AFTER.match(after)
        if r is None:
            continue
        if r.group("known"):
            known = r.group("known")
            # "Agnieszka Nowak, the French polisher Ruairi works with": a word before the role
            two = re.match(r"\s+([^\W\d_]+)(?=\s+(?:the\s|who\s|that\s|whose\s|[A-Z]))", after[r.end() :])
            known = f"{known} {two.group(1)}" if two and fold(known) not in ROLES_FOLDED and fold(two.group(1)) in ROLES_FOLDED else known
            if fold(known.split()[-1]) in ROLES_FOLDED:
                out[holder] = known.lower()  # only a role code knows: "a surveyor who …"
            continue
        role = (r.group("paren") or r.group("role") or "").strip()
        last = fold(role.split()[-1]) if role else ""
        # "Ravi Menon, our DoP, wants …": a word set between commas after a name is their role
        apposed = bool(r.group("role")) and after.lstrip().startswith(",") and after[r.end() :].startswith(",")
        # "Yvonne Achterberg, the OT from Calder Brook Council,": a role in capitals, then where they work
        apposed = apposed or (bool(r.group("role")) and role.isupper() and re.match(r"\s(?:from|at)\s+[A-Z]", after[r.end() :]) is not None)
        if last in ROLES_FOLDED or (r.group("paren") and len(role.split()) <= 3) or (apposed and len(role.split()) <= 2):
            out[holder] = re.sub(r"^[^\W\d_]+['’]s\s+", "", role)  # "the council's allotments officer" -> "allotments officer"
    return out


# "Niamh is our conductor and Conor our treasurer", "Bethan Morgan is my co-leader": who holds which
# role, as a person says it about their project (AGENTS.md). Any words may be the role here.
_NAME_RUN = r"[^\W\d_a-z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,2}"
_ROLE_SAID = re.compile(
    rf"(?:^|(?<=\s))(?P<name>{_NAME_RUN}),?\s+(?:(?:is\s+|['’]s\s+)?(?:our|my)|is\s+the)\s+"
    r"(?P<role>[a-z][a-z-]*(?:\s+[a-z][a-z-]*){0,2}?)(?=\s*(?:[,.;:!?)]|$|\s+and\b|\s+(?:for|at|on|who)\b))"
)


def roles_said(text: str) -> dict[str, str]:
    """name -> role for each "X is our Y", "X is the Y" (or "…, and X our Y") that `text` says: later lines say
    "our treasurer" or "the treasurer" for that person."""
    out: dict[str, str] = {}
    for m in _ROLE_SAID.finditer(text):
        name = m.group("name")
        # "Gareth Powell of Brightwell Energy is our installer": the person's role, said after their firm
        firm_of = re.search(rf"({_NAME_RUN})\s+(?:of|from|at)\s+$", text[max(0, m.start("name") - 120) : m.start("name")])
        name = firm_of.group(1) if firm_of else name
        if name[:1].isupper() and fold(name.split()[0]) not in NEVER and fold(name.split()[0]) not in STARTERS:
            out[name] = m.group("role")
    return out


def is_title(title: str) -> bool:
    """True for a page title a pass may make: one to five words, a noun phrase — never a pronoun,
    a cue word ("Decision", "Total"), a bare calendar word, a sentence or a number but an id's or a
    label's ("Room 4")."""
    words = title.split()
    if not 1 <= len(words) <= 5 or len(title) > 60:
        return False
    if any(c in title for c in ".,;:!?\"()[]{}#|"):
        return False
    head = fold(words[0])
    if len(words) == 1 and (head in NEVER or head in STARTERS or head in FUNCTION):
        return False
    if any(fold(w) in FUNCTION for w in words[1:]) and len(words) > 3:
        return False  # "quote is 19,100 EUR not": a clause, not a name
    labelled = len(words) == 2 and fold(words[0]) in LABELS and re.fullmatch(r"\d{1,3}", words[1]) is not None  # "Room 4", "Pitch 12"
    return not any(ch.isdigit() for ch in title) or labelled or bool(_ID.fullmatch(title))


def said_as_thing(word: str, texts: Iterable[str]) -> bool:
    """True when the lines write `word` only in lower case ("the scaffolding", "the roof windows"): a
    thing, never the last name of "Apex Scaffolding" or the tail of "Skyline Roof Windows"."""
    if not word.strip():
        return False
    lower = re.compile(rf"\b{re.escape(word.lower())}\b")
    any_case = re.compile(lower.pattern, re.I)
    said = [t for t in texts if any_case.search(t)]
    return bool(said) and all(lower.search(t) for t in said)  # no line gives it capitalised alone


def full_names(texts: Iterable[str]) -> set[str]:
    """The names of two words or more the lines give ("Kamień Studio", "Chiamaka Eze")."""
    return {m.text for text in texts for m in mentions(text) if m.kind == "name" and " " in m.text}


def is_full_name(label: str) -> bool:
    """True for a label of two or more words, each capitalised: a person's or an organisation's name
    ("Tomasz Wójcik", "Kamień Studio"), not a topic ("Quartz worktop", "Team T-shirts")."""
    label = LETTERED.sub("t-", label)  # the T of "T-shirts", the X of "X-ray": no capital of a name
    words = [w for w in re.findall(r"[^\W\d_]+", label) if w[:1].isupper()]
    return len(words) >= 2 and len(words) == len([w for w in label.split() if w != "&"])  # "Stanton & Hale Piano Movers"


def upper_first(title: str) -> str:
    """`title` with its first letter upper case and the rest as written ("UI" stays "UI", not "Ui")."""
    return title[:1].upper() + title[1:]


def content_words(text: str) -> set[str]:
    """The line's words that carry meaning, stemmed: what two lines about the same thing share."""
    out = set()
    for w in re.findall(r"[^\W\d_][\w'’-]*", text):
        f = fold(POSSESSIVE.sub("", w))
        if len(f) > 3 and f not in FUNCTION and f not in NEVER and f not in STARTERS:
            out.add(_stem(f))
    return out
