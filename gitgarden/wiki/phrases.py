"""The thing a line is about when it names no one, read by code: its noun phrases.

`noun_phrase` reads the noun phrase at a place in a line ("the revised quote": "Quote", "the
Tuesday class": "Tuesday class", "first print run": "Print run"); `topic_title` the thing a line
without a name is about ("Budget", "Waiting list", "L plates"), or "" when code cannot tell;
`named_thing` whether a one-word name is given as a thing ("the Greenstar", "one Luton"). Titles
are made of the line's own words, never a pronoun, a verb or a clause. Pure: text in, data out.
"""

from __future__ import annotations

import re

from gitgarden.wiki.subjects import DETERMINER, LETTERED, POSSESSIVE, fold, upper_first, verbish
from gitgarden.wiki.wordlists import (
    ADJECTIVES,
    AFTER_PLURAL,
    BARE_VERBS,
    CALENDAR,
    COPULA,
    COUNTS,
    ENDS_PHRASE,
    FUNCTION,
    LABELS,
    MEASURE_UNITS,
    MEASURES,
    NAME_INNER,
    NEVER,
    PARTICIPLES,
    PLAIN_VERBS,
    QUANTIFIERS,
    STARTERS,
    VAGUE,
    VERBS_S,
)

__all__ = ["VERB_OBJECT", "named_thing", "noun_phrase", "topic_title"]


# "Three hours sorting Mum's photos": the time a line says was spent is no thing it is about
_SPENT = re.compile(r"(?:about\s+|nearly\s+|over\s+)?(?P<n>\d+|[a-z]+)\s+(?:hours?|days?|weeks?|minutes?|mins|evenings?|mornings?|afternoons?)\s+(?:of\s+)?(?=[a-z])", re.I)


def topic_title(line: str) -> str:
    """The thing a line without a name is about, as a title made of its own words ("Budget",
    "Waiting list", "Cabinets"), or "" when code cannot tell."""
    plain = re.sub(r"^(?:decision|correction|update|note|todo)\s*:\s*", "", line.strip(), flags=re.I)
    plain = plain[m.end() :] if (m := _SPENT.match(plain)) and fold(m.group("n")) in COUNTS | {"a", "an", "another"} else plain
    plain = re.sub(r"^(?i:made|making|got)\s+a\s+start\s+on\s+", "", plain)  # "Made a start on the loft": the loft
    plain = re.sub(r"^[A-Z][^\W\d_]+['’]s\s+(?=[a-z]+\b(?<!ed\b))(?!(?:been|got|gone|done|not|just|now|already|still|had|left|said|sent|back)\b)", "", plain)  # "Luana's biometrics": hers
    first = noun_phrase(plain, 0)
    # "Committee fixed the Holloway Lane Allotment Society open day for …": a body that does something
    # is not what the line is about; the thing it does it to is (its name before it is the owner's)
    did = re.match(rf"(?i:(?:the|our)\s+)?(?i:{re.escape(first)})\s+([a-z]+)\s+(?:the|a|an|our|their|its)\s+(?:[A-Z][\w'’&-]*\s+)*(?=[a-z])", plain) if fold(first) in _COLLECTIVE else None
    done_to = noun_phrase(plain, did.end()) if did and (did.group(1).endswith("ed") or did.group(1) in VERBS_S) else ""
    if done_to:
        return done_to
    if first:
        return first if fold(first) not in VAGUE else ""  # "Plan is to leave at 7am": no page "Plan"
    count = re.match(r"(?:about\s+|around\s+)?\d[\d,]*\s+(?:of\s+(?:the\s+|our\s+)?\d[\d,]*\s+)?(?=[a-z])", plain)  # "11 of 14 consent forms"
    if count:
        found = noun_phrase(plain, count.end())  # "38 players signed up so far": the players
        if found and fold(found) not in VAGUE:
            return found
    verb = re.match(r"([^\W\d_]+)\s+(?:\d+\s+)?(?=[a-z]|[A-Z]\s[a-z]|[A-Z][a-z]+['’]s\s+[a-z])", plain)  # "Got L plates and …": a lettered thing
    if verb and (fold(verb.group(1)) in STARTERS or verbish(fold(verb.group(1)))):
        owner = re.match(r"[^\W\d_]+['’]s\s+(?=[a-z])", plain[verb.end() :])  # "sorting Mum's photos": the photos
        found = noun_phrase(plain, verb.end() + (owner.end() if owner else 0))  # "Ordered 50 tour polo shirts, …": the polo shirts
        rest = plain[verb.end() + len(found) :] if plain[verb.end() :].lower().startswith(found.lower()) else ""
        if found and " " not in found and fold(verb.group(1)).endswith("ed") and _ITS_VERB.match(rest):
            return upper_first(f"{verb.group(1).lower()} {found.lower()}")  # "Sponsored walk set for …": an -ed word describing it
        if found:
            return found
    for m in DETERMINER.finditer(plain):
        if re.search(r"(?:[£€$]\s?\d[\d.,]*[km]?|\d+p)\s+$", plain[: m.start()]) and re.match(r"an?\s", m.group(), re.I):
            continue  # "£2.85 a loaf", "95p a croissant": the unit an amount is counted in, no topic
        found = noun_phrase(plain, m.end())
        owner = None if found else re.match(r"[a-z]+['’]s\s+(?=[a-z])", plain[m.end() :])
        if owner:  # "The rescue's adoption fee is £275": the fee, not the rescue
            found = noun_phrase(plain, m.end() + owner.end())
        if found and fold(found) not in VAGUE:
            return found
    return ""


_ITS_VERB = re.compile(r"\s+(?:is|was|are|were|set|put|cut|goes|looks|[a-z]+ed)\b")


def named_thing(word: str, text: str) -> bool:
    """True when `text` gives the one-word name `word` as a thing, after "the", "one", "a" or "an"
    and perhaps a measure: "the Greenstar over the Vaillant", "one Luton rather than two Transits",
    "the 3,500-litre Rainsaver", "the old Fiesta", "the borrowed Besson" (not "the AGM")."""
    return bool(word.strip()) and " " not in word.strip() and not word.isupper() and re.search(rf"\b(?i:the|one|a|an)\s+(?:\d[\d,.]*-[a-z]+\s+|(?:{_ADJECTIVE}|[a-z]{{3,}}ed)\s+)?{re.escape(word)}\b", text) is not None


_ADJECTIVE = "|".join(sorted(ADJECTIVES - FUNCTION))  # "the old Fiesta"
# First words of a three-word thing that the next word alone would not name: "carbon monoxide alarm", "gas safety check".
_COMPOUND_HEADS = frozenset({"carbon", "gas", "fire", "smoke", "water", "food", "health", "hot", "solar", "heat", "village", "church", "parish", "town", "first"})  # "First aid kit" (only "first aid" keeps its "first")


def _next_is_verb(text: str, at: int) -> bool:
    """True when the word after `at` is a verb in the past or a form of "be": "Tasting booked for …",
    "Tasting moved …", "Engraving comes to £275" — the -ing word before it is the thing, not a verb."""
    m = re.match(r"\s+([a-z]+)", text[at:])
    return m is not None and (m.group(1).endswith("ed") or m.group(1) in ("is", "was", "set", "went", "got") or m.group(1) in VERBS_S)


_AID = frozenset({"aid"})  # "first aid": no ordinal
_PREDICATES = frozenset({"due", "overdue", "ready", "owed", "outstanding", "late", "early", "short"})  # said of a thing, never its head


def _next_in(text: str, at: int, words: frozenset[str]) -> bool:
    """True when the word after `at` is one of `words`."""
    m = re.match(r"\s+([^\W\d_]+)", text[at:])
    return m is not None and fold(m.group(1)) in words


def _next_is_noun(text: str, at: int) -> bool:
    """True when the word after `at` reads as the noun an -ing word names the kind of: "Packing day",
    "Moving boxes" — not "Painting the fence", "Sorting out …"."""
    m = re.match(r"\s+([a-z]+)\b", text[at:])
    if m is None:
        return False
    w = m.group(1)
    if w in QUANTIFIERS:
        return False  # "keeping all 26 rooms": a verb and its object
    return not (w in FUNCTION or w in NEVER or w in VERBS_S or verbish(w) or DETERMINER.match(w + " "))


_ORDINAL_BEFORE = re.compile(r"\b(?:first|second|third|final|last|next)\s+$", re.I)  # "First fitting for all of us"
_AFTER_DETERMINER = re.compile(r"\b(?:the|a|an|our|my|their|his|her|its|this|that|no)\s+$", re.I)  # "the revised quote"
_COLLECTIVE = frozenset({"family", "team", "committee", "band", "crew", "staff", "couple", "club", "choir"})  # "the family take"
_ADVERB_AFTER = frozenset({"online", "offline", "instead", "anyway", "together", "abroad", "overseas"})  # never a thing's last word
_COMPARED = re.compile(r"\s+(?:further|farther|closer|nearer|higher|lower|wider|narrower|deeper|shallower|longer|shorter|later|earlier|sooner|away|apart|back|forward|off)\b")
_AFTER_CHOICE = re.compile(r"\b(?:go|going|gone|went|opted|settled)\s+(?:with|for|on)\s+$", re.I)  # "going with catered halls"
# What follows a verb in -s after a name, and never a word of a noun phrase: "Chiara plays Mara",
# "Low Tide goes to …", "Daniel rehearses with Isla", "Rosa proofreads each half".
VERB_OBJECT = r"(?:[A-Z]|(?:the|a|an|our|my|their|his|her|to|with|every|everyone|everybody|each|all|both|until|from)\b)"


def noun_phrase(text: str, at: int) -> str:
    """The noun phrase starting at `at` (up to two words, the last two of three — its head is last —
    adjectives dropped), capitalised; a weekday or a month before it is part of it ("the Tuesday
    class", "October dinner"), unless the thing has two words of its own ("Tuesday market run": the
    market run)."""
    dated = _DAY_OF_MONTH.match(text, at)  # "take the 16 November slot": the November slot
    day = _WEEKDAY_THING.match(text, dated.end() if dated else at)
    if day:
        thing = _phrase(text, day.end())
        if thing and len(thing.split()) == 2 and not thing.split()[1][:1].isupper():
            return thing
        return f"{day.group(1).capitalize()} {thing.lower()}" if thing and len(thing.split()) == 1 else ""
    thing = _phrase(text, at)
    end = text.lower().find(thing.lower(), at)
    end = end + len(thing) if end >= 0 else len(text)
    head = re.match(r"\s+([a-z]+)\b", text[end:]) if len(thing.split()) == 2 and thing.split()[0].endswith(("'", "’")) and _next_is_noun(text, end) else None
    if head and head.group(1) not in _PREDICATES:  # but "Members' deposits due …" are the members' deposits
        return f"{thing.split()[1].capitalize()} {head.group(1)}"  # "Plot holders' water charge": the water charge
    owners = re.match(rf"\s*{re.escape(thing)}\s+([a-z]{{3,}})\b", text[at:]) if thing.endswith(("'", "’")) else None
    thing = f"{thing} {owners.group(1)}" if owners else thing  # "Parents' meeting", "Parents' evening"
    # "Decision: room 4, not the bigger one": a label's number at the phrase's end is part of it too
    label = re.match(rf"\s*{re.escape(thing)}\s+(\d{{1,2}})(?![\w.,]\d)", text[at:], re.I) if fold(thing) in LABELS else None
    return f"{thing} {label.group(1)}" if label else thing


# "lessons every Thursday": how often, not a verb's object ("cap every tour")
_DAY = r"(?i:mon|tues|wednes|thurs|fri|satur|sun)day"
_WHEN_EVERY = rf"(?i:(?:other\s+)?(?:{_DAY}|day|week|weekend|month|morning|afternoon|evening|night|year|term))\b"
_ADVERB = ("ately", "ively", "ously", "fully", "ably", "ibly", "ently", "antly", "ckly", "edly", "ingly", "ually")
_WEEKDAY = re.compile(_DAY)
# "the Tuesday class", "October dinner": a weekday or a month before its thing (not "May need …")
_WEEKDAY_THING = re.compile(rf"({_DAY}|January|February|March|April|June|July|August|September|October|November|December)\s+(?=[a-z])")
_DAY_OF_MONTH = re.compile(r"\d{1,2}(?:st|nd|rd|th)?\s+(?=(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+[a-z])")


def _phrase(text: str, at: int) -> str:
    words: list[str] = []
    end = at
    skipped = False  # an adjective or an ordinal was passed over: "a second, smaller leaflet run"
    for m in re.finditer(r"[^\W\d_][\w'’-]*", text[at:]):
        gap = text[end : at + m.start()].strip(" -")
        measure = not words and not skipped and re.fullmatch(r"\s*\d[\d.,]*-|\s*\d[\d.,]*" + ("" if m.group().lower() in MEASURE_UNITS else "-"), text[end : at + m.start()]) is not None  # "the 90cm extractor"
        # "a £5 water levy": an amount between "a" and its thing (not "the £419 Harbour policy")
        priced = not words and not skipped and m.group().islower() and re.fullmatch(r"[£€$]\d[\d.,]*", gap) is not None and re.search(r"\b(?:[Aa]|[Tt]he)\s+$", text[:at]) is not None
        if len(words) == 1 and fold(words[0]) in LABELS and re.fullmatch(r"\d{1,2}", gap):
            words.append(gap)  # "Level 2 food hygiene", "the Grade 5 entry": the level is the thing
            break
        if gap and not (skipped and not words and gap == ",") and not measure and not priced:
            break  # punctuation or a number ends the phrase (or keeps one from starting)
        end = at + m.end()
        w = m.group()
        f = fold(w)
        counted = not words and "-" in f and f.split("-")[0] in COUNTS and re.match(r"\s+[a-z]", text[at + m.end() :]) is not None
        if measure or counted:
            skipped = True
            continue  # "the 140-litre front-loader", "the three-bedroom flat": the front-loader, the flat
        base = re.split(r"['’]", f)[0]
        if (base != f and (base in NEVER or base in FUNCTION or base in STARTERS)) or f.endswith(("n't", "n’t", *_ADVERB)):
            break  # "We've settled …", "there'll be": a pronoun, no thing; "couldn't": a verb; "privately"
        if f in ENDS_PHRASE or (words and f == "half") or (not words and re.match(rf"\s+(?:the|a|an|our|my|their|his|her|all|every(?!\s+{_WHEN_EVERY}))\s", text[at + m.end() :])):
            break  # "cap the tour": a verb before its object is no part of a phrase
        gerund = not words and verbish(f) and f.endswith("ing") and (
            (_ORDINAL_BEFORE.search(text, 0, at + m.start()) is not None and re.match(r"\s+(?:for|of|on|at|in|with)\s", text[at + m.end() :]) is not None)
            or _next_is_verb(text, at + m.end()) or _next_is_noun(text, at + m.end()) or _AFTER_DETERMINER.search(text, 0, at + m.start()) is not None
        ) or (bool(words) and words[-1].isupper() and f.endswith("ing") and _next_in(text, at + m.end(), FUNCTION))  # "the scaffolding", "FIDE rating on …"
        # "safety briefing in the lobby", "team meeting on Friday": a thing's -ing noun before where or when
        gerund = gerund or (
            bool(words) and words[-1].islower() and not fold(words[-1]).endswith("s") and f.endswith("ing")
            and (re.match(r"\s*(?:[,.;:]|$)|\s+(?:in|at|on|for|with|from|by)\s", text[at + m.end() :]) is not None or _next_is_noun(text, at + m.end()))
        )  # fmt: skip  # … and "the online safeguarding module": an -ing word between a word and its thing
        first_aid = f == "first" and _next_in(text, at + m.end(), _AID)  # "Paediatric first aid course", "First aid kit"
        ordinal = f in ("first", "second", "third", "last", "next") and not _next_in(text, at + m.end(), NEVER | _AID)  # not "next week"
        described = f.endswith("ed") and verbish(f) and (_next_is_noun(text, at + m.end()) or re.match(r"\s+[A-Z][a-z]+\b", text[at + m.end() :]) is not None) and (
            _AFTER_DETERMINER.search(text, 0, at + m.start()) is not None or _AFTER_CHOICE.search(text, 0, at + m.start()) is not None
        )
        if not words and ((f in ADJECTIVES and f not in FUNCTION and (f not in ("first", "last", "next") or ordinal) and not first_aid) or f in COUNTS or ordinal or described):
            skipped = True
            continue  # "the old boiler": the boiler; "first print run": the print run
        named_thing = not words and f in STARTERS and _next_in(text, at + m.end(), COPULA)  # "Set is 45 minutes"
        # "Opening night", "Collection weekend": a calendar word ends an event's name (never starts one)
        when = bool(words) and w.islower() and f in CALENDAR and fold(words[-1]) not in CALENDAR
        when = when or (bool(words) and w.islower() and f in ("meeting", "meetings") and words[-1].islower())  # "team meeting on Friday"
        # "a family Sunday lunch": a weekday between a word and its thing is part of it, no name
        weekday = bool(words) and _WEEKDAY.fullmatch(w) is not None and _next_is_noun(text, at + m.end()) and not _next_in(text, at + m.end(), CALENDAR)
        # "phone number", "meeting room": a word that is never a name may still start a thing's name
        compound = not words and f in NAME_INNER and re.match(r"\s+[a-z]{3,}\b", text[at + m.end() :]) is not None and not _next_in(text, at + m.end(), FUNCTION | NEVER)
        if f in FUNCTION or (f in NEVER and not when and not compound and not weekday) or (verbish(f) and not gerund and not when) or (f in STARTERS - {"waiting", "open", "work"} and not named_thing and not first_aid):
            break
        if POSSESSIVE.search(w) or (words and (f in VERBS_S or f in PLAIN_VERBS or f in PARTICIPLES)) or (skipped and f in PLAIN_VERBS):
            words += [POSSESSIVE.sub("", w)] if _said_is(w, text[at + m.end() :]) else []  # "Head count's 92 now"
            break  # "subs go to £6"; "letting the Chapel Allerton one go": a verb, no thing
        if _no_part(words, f, text[at + m.end() :]):
            break  # how or where, a plural's verb, how far or how long
        verb_next = re.match(rf"\s+{VERB_OBJECT}", text[at + m.end() :])
        object_next = re.match(r"\s+(?:the|a|an|our|my|their|his|her|every|each|both)\b", text[at + m.end() :])
        if words and w.islower() and f.endswith("s") and not f.endswith(("ss", "us", "is")) and (verb_next if words[-1][:1].isupper() else object_next):
            break  # "Chiara plays Mara", "Low Tide goes to …", "the tour pot covers the rest": a word in -s is the verb
        if words and words[-1][:1].isupper() and w.islower() and object_next and not text[at + m.end() : at + m.end() + 1].strip() and not (len(words) > 1 and words[-2].islower() and _initials_of(words[-1], f" {w}")):
            break  # "Brightwave port our phone number": after a name, a word before its object is the verb
        lettered = LETTERED.match(w) is not None  # "T-shirts", "X-ray": no name
        if words and w[:1].isupper() and words[-1].islower() and not lettered and not weekday and not _initials_of(w, text[at + m.end() :]):
            break  # "small electricals Kwame has checked": a name after a thing is no part of it
        if len(words) == 2 and ((w[:1].isupper() and not lettered) or f in BARE_VERBS):
            break  # "Quartz worktop Calacatta", "Open day set for …": no part of the phrase
        words.append(w)
        if len(words) == 3:
            # "Autumn vaccine clinic": its head is last, "Vaccine clinic"; "Dock Street lease": the name
            words = words[:2] if words[1][:1].isupper() and not _WEEKDAY.fullmatch(words[1]) and not (words[0].islower() and _initials_of(words[1], f" {words[2]}")) else words if fold(words[0]) in _COMPOUND_HEADS else words[1:]
            break
        if when:
            break
    if not words:
        return ""
    title = " ".join(words)
    return title[:1].upper() + title[1:]


def _initials_of(word: str, rest: str) -> bool:
    """True when `word` is initials before a thing's word ("the overnight EV tariff"): part of the thing."""
    return len(word) > 1 and word.isupper() and word.isalpha() and re.match(r"\s+[a-z]{3,}\b", rest) is not None


def _said_is(word: str, rest: str) -> bool:
    """True when `word`'s "'s" says "is" ("Head count's 92 now", "the fee's £300"): the word is the thing."""
    return POSSESSIVE.search(word) is not None and word[:1].islower() and re.match(rf"\s+(?:[£€$]?\d|now\b|still\b|{_DAY}\b)", rest) is not None


def _no_part(words: list[str], f: str, rest: str) -> bool:
    """True when the word `f`, after the phrase's `words` (and before `rest`), is how far or how long ("a
    metre further"), how or where ("the poultry register online", "paving slabs round the edge") or a
    plural's verb ("Decision: parents pay £220", "Jess's family take the pitch"; "holiday pay" stays):
    no part of the phrase."""
    if not words:
        return f in MEASURES and _COMPARED.match(rest) is not None  # "move the pond a metre further", "a week later"
    if f in _ADVERB_AFTER or (f in ("round", "around") and re.match(r"\s+(?:the|a|an|our|my|their|his|her|its)\s", rest)):
        return True
    last = fold(words[-1])
    return f in AFTER_PLURAL and ((last.endswith("s") and not last.endswith("ss")) or last in _COLLECTIVE)
