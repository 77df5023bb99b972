"""Decisions in a journal line, found by code: whether a line decides something ("Decision: …",
"We've settled on …", "Going with …"), what it decides about (the noun phrases a page may be
titled by), and the topic a decision about a person settles ("we hire Ananya": "Hiring"). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gitgarden.wiki.phrases import VERB_OBJECT, named_thing, noun_phrase
from gitgarden.wiki.subjects import DETERMINER, fold, is_title, mentions, upper_first
from gitgarden.wiki.wordlists import CALENDAR, VAGUE, VERBS_S

__all__ = ["chosen", "decided_things", "decision_topic", "first_clause", "headed", "is_decision"]

# The verbs of deciding and who decides with the writer: one list for "is it a decision" and for
# "where does the thing decided start".
_DECIDES = r"decided|agreed|chose|chosen|choose|picked|settled on|opted for|go with|going with|go for|going for|gone for|gone with"
_STAYS = r"stay with|staying with|stick with|sticking with"  # "We'll stay with Whitworth's": only we decide so
_DECIDERS = r"we|i|(?:the\s+)?(?:committee|board|trustees|team|group)|we all|everyone"
_DECISION = re.compile(
    r"^\s*(?:[-*]\s+)?(?:decisions?\s*[:\-–]|decided\s*[:\-–]|settled\s*[:\-–]|settled with\b|going with\b|go with\b|settled on\b"
    r"|agreed\b|opted for\b)"
    rf"|\b(?:{_DECIDERS})(?:['’](?:ve|d|re|ll|m)|\s+ha(?:ve|s)|\s+had|\s+will|\s+are|\s+am)?\s+(?:finally\s+|now\s+|just\s+)?(?:{_DECIDES}|voted)\b"
    rf"|\bwe(?:['’](?:ll|re)|\s+will|\s+are)?\s+(?:{_STAYS})\b"
    r"|[,;]\s*(?:going with|we['’]ll go with|we go with)\b"
    r"|^\s*we(?:['’]ll|\s+will|['’]re|\s+are)\s+[a-z]+\b(?:[^.;]|\.(?=\d))*?(?:\b(?:rather than|instead of|and not bother with)\s+|,\s*not\s+)(?![£€$\d])",  # "We'll sell the old Fiesta privately rather than …"
    re.I,
)


def is_decision(text: str) -> bool:
    """Whether the line records a decision: a "Decision:" line, or one the writer decides in
    ("Going with …", "we agreed …", "We've settled on …"). Someone else agreeing is not one."""
    return bool(_DECISION.search(text))


_HEADED = re.compile(r"^\s*(?:[-*]\s+)?decisions?\s*[:\-–]", re.I)


def headed(text: str) -> bool:
    """Whether the person heads the line "Decision:": a decision whatever else it looks like."""
    return _HEADED.match(text) is not None


def first_clause(text: str) -> str:
    """`text` up to its first comma, semicolon or dash (not the comma of "£8,990")."""
    return re.split(r"[;—–]|,(?!\d)", text, maxsplit=1)[0]


def _purposes(plain: str) -> list[int]:
    """Where what a choice is for begins: "buff Indian sandstone for the patio", "the red card cover for
    the programmes" — not what an amount pays for ("navy vests …, Stride charge £3 extra each for the printing"),
    nor who a thing said to be something is for ("go-live target is Mon 7 September for the first homes"),
    nor the last of three clauses a list of settled things ("tickets £12 on the door, under-16s free, retiring
    collection for the church roof"; but "tins, UHT milk, nappies and toiletries for the shopping list")."""
    return [
        m.end()
        for m in re.finditer(r"\bfor\s+the\s+", plain)
        if m.start() > 0 and not re.search(r";|,\s+and\b|,\s+(?:he|she|it|they)\b|,[^,]*,(?![^,]*\band\b)[^,]*$", plain[: m.start()], re.I) and not re.search(r"[£€$]\s?\d[^,;]*$|\b(?:is|are)\b[^,;]*$", plain[: m.start()])
    ]


def decided_things(line: str, known_names: Iterable[str] = ()) -> list[str]:
    """What a decision line may decide about, as titles in the order they stand ("Plant sale", "Open
    day"; "the GreenGrow polytunnel": "Polytunnel"): its noun phrases that are not a person's name."""
    plain = re.sub(r"^\s*(?:decision|decided|settled)\s*[:\-–]\s*|^\s*(?:settled|agreed|decided) with [^:]{1,40}:\s*", "", line.strip(), flags=re.I)
    we = re.match(rf"(?:{_DECIDERS})(?:['’](?:ve|d|ll)|\s+ha(?:ve|s)|\s+had|\s+will)?\s+(?:finally\s+|now\s+|just\s+)?", plain, re.I)
    if we and _AFTER_CUE.match(plain, we.end()):
        plain = plain[we.end() :]  # "We've settled on Hallam Print …": the thing comes after the verb
    plain = _CONDITION.split(plain, maxsplit=1)[0]  # "… if our lawyer is happy": the lawyer is not what is decided
    plain = chosen(plain)  # "the Greenstar over the Vaillant ecoTEC": the ecoTEC is what was not chosen
    lead = re.match(rf"(?:[A-Z][\w]*['’]s\s+)?(?P<name>{_NAME_AT})", plain)  # "Mum's Honda Jazz goes to a dealer"
    if lead and _NAME_MOVES.match(plain, lead.end()) and any(m.kind == "name" and m.text == lead.group("name") for m in mentions(plain, known_names)):
        return []  # about the name: a dealer is where it goes, not what is decided ("Maya starts at …")
    if _PAYS.search(plain):
        return []  # "we agreed to pay Wyebridge the £3,830 deposit", "Bronwen pays Callum half": the payee's
    first = first_clause(plain)
    if first != plain and any(m.kind == "name" for m in mentions(first, known_names)) and not decided_things(first, known_names):
        return []  # "Going with Femi's Yanmar at £2,100, collecting it in his van": about the Yanmar, a name
    said = mentions(plain, known_names)
    named_is = _NAME_IS.match(plain) if any(m.kind == "name" and m.start == 0 for m in said) else None
    if named_is and not any(m.kind == "role" and m.start > named_is.end() - 1 for m in said):
        return []  # "PawBook is the only way to book": about PawBook ("Małgorzata is our photographer": the role)
    won = _WON.match(plain)
    if won and any(m.kind == "name" and m.start == 0 and m.text == won.group("name") for m in said):
        return [f"{won.group('name')} {won.group('thing').lower()}"]  # "Fenland get the contract": the Fenland contract
    known = {fold(w) for w in known_names}
    names = {fold(m.text) for m in said if m.kind == "name"} | known
    cue = _AFTER_CUE.match(plain)  # "go with the coach": the thing starts after the verb
    cues = {c.end() for c in _AFTER_CUE.finditer(plain) if not _POSSESSIVE_AT.search(c.group())}
    purpose = _purposes(plain)
    for m in said:
        owned = _POSSESSIVE_AT.match(plain, m.start + len(m.text)) if m.kind == "name" and m.start in cues else None
        thing = noun_phrase(plain, owned.end() + 1) if owned else ""
        if owned and (not thing or fold(thing) in _SOMEONES) and not any(at > m.start for at in purpose):
            # "Going with Doyle's 08:15 departure", "going with Jen's plan": Doyle's, Jen's (but "stay
            # with Whitworth's for the flour" decides the flour)
            return []
    starts = ([cue.end()] if cue else [] if _VERB_TO.match(plain) else [_past_bare_verb(plain)]) + [m.end() for m in _AFTER_CUE.finditer(plain)]
    # "€395 a player", "£2 a pot": a unit an amount is counted in, never the thing decided
    # … and "her list", "his van": someone's, not a thing of its own
    starts += [m.end() for m in DETERMINER.finditer(plain) if not re.search(r"\d[kpm]?\s*$", plain[: m.start()]) and not _THEIRS.match(m.group())]
    starts += [m.end() for m in _WE_DO.finditer(plain)]  # "we only take small electricals": what we take
    starts += [m.end() for m in _NAME_GETS.finditer(plain)]  # "Maisie gets clear ceramic brackets": what she gets
    starts += [m.end() for m in _AS_ROLE.finditer(plain)]
    starts += [m.end() for m in re.finditer(r"^no\s+", plain, re.I)]  # "Decision: no deposit to Callum until …"
    named: dict[int, str] = {}  # where a thing begins right after a name of two words: that name
    for m in said:
        if m.kind == "name" and " " in m.text and plain[m.start + len(m.text) : m.start + len(m.text) + 1] == " ":
            named[m.start + len(m.text)] = m.text  # "the Marlow Road lease": the Marlow Road lease
    starts += list(named)
    out: list[str] = []
    for at in [*purpose[:1], *sorted(set(starts) - set(purpose[:1]))]:
        title = noun_phrase(plain, at) if not any(m.kind == "name" and m.start < at < m.start + len(m.text) for m in said) else ""
        if title and not is_title(title):
            continue  # "the under-12s": people counted by age, no thing (an id such as "S3E01" is one)
        if title and at in named and _NAME_VERB.match(plain, at) and not re.match(r"\s*\w+ss\b", plain[at:]):
            continue  # "Low Tide goes to Northern Lights": the name's verb, not its thing
        if title and at in named:  # a name's thing: the name is part of its title, not a reason to drop it
            # "UI" stays; "the Level 2 course" is Level 2's, a thing named by its number
            title = named[at] if named[at][-1].isdigit() else f"{named[at]} {title if title[:2].isupper() else title[:1].lower() + title[1:]}"
            out += [title] if title not in out else []
            continue
        if title and any(m.kind == "name" and m.start == at and fold(m.text).startswith(fold(title) + " ") for m in said):
            continue  # "the Fennel & Fig order": the start of a name, whose thing is "Fennel & Fig order"
        a_name = bool(title) and fold(title) in names and (fold(title) not in known or _capitalised_from(plain, at, title.split()[0]))
        # "the Greenstar over the Vaillant", "one Luton": a thing chosen, by its name
        by_name = a_name and named_thing(title, plain)
        a_name = a_name and not by_name
        if title and fold(title) in _SOMEONES and re.search(r"['’]s\s+$", plain[:at]):
            continue  # "putting Dad's name down at Willowbank": Dad's, no thing of its own
        if a_name or fold(title) in VAGUE or fold(title) in _DECIDER_WORDS | _PEOPLE or _calendar(title):
            continue  # "Going with Bounce Brothers": an organisation's name, not a thing decided ("the scaffolding" is)
        named_first = bool(title) and not by_name and fold(title.split()[0]) in names and _capitalised_from(plain, at, title.split()[0])
        if named_first and any(m.kind == "name" and fold(m.text).startswith(fold(title) + " ") and plain.find(m.text, at) == at for m in said):
            continue  # "Eastern Counties First Aid", "Halden Cycle Centre are …": the firm's own name, no thing
        if title and named_first and len(title.split()) > 1:
            title = _after_name(plain, at, title)  # "the GreenGrow polytunnel": the polytunnel
            named_first = fold(title) in VAGUE  # "the Sunnyside list": Sunnyside's, no thing of its own
        if title and not a_name and not named_first and title not in out:
            out.append(title)
    return out


# What is only told apart by whose it is: "the Halcyon account", "the Petwise policy".
_HELD_WITH = frozenset(["account", "card", "portal", "app", "policy", "pass", "loan"])


def _after_name(plain: str, at: int, title: str) -> str:
    """The thing of a `title` standing at `at` that begins with a name: its words after the name ("the
    GreenGrow polytunnel": "Polytunnel"), or "" for a name and its verb ("Pepper sleeps in a crate")."""
    rest = title.split(" ", 1)[1]
    if fold(rest) in _HELD_WITH:
        return title  # "the Halcyon account": the bank's, told apart by its name
    if rest.isdigit():
        return ""  # "Year 12 run the welcome desk": a numbered name is who, not a thing
    # "Lewis wins, the tub …", "Bernard self-certifies it": a verb
    verb = " " not in rest and re.fullmatch(r"[a-z][a-z-]*[^s]s", rest) and re.match(r"\s+(?:in|on|at|it|them)\b|\s*,", plain[at + len(title) :])
    return "" if verb and not DETERMINER.search(plain[max(0, at - 6) : at]) else upper_first(rest)  # not "the Dell desktops in …"


def decision_topic(line: str) -> str:
    """The topic a decision about a person settles, by its verb ("we hire Ananya": "Hiring"), or "":
    a person's page is never the one a decision marks decided, and goes on taking facts."""
    for cue, topic in _DECISION_TOPICS:
        if cue.search(chosen(line)):  # "Going with Shift It … rather than hiring a Luton": no hiring
            return topic
    return ""


_CONDITION = re.compile(r",?\s+\b(?:if|unless|provided|as long as|once|because|since|until|till|even|despite|so|so that|to cover)\b\s+", re.I)
_AS_ROLE = re.compile(r"\b(?:as|for)\s+(?!well\b)(?=(?:our|the|a|an|head|lead|new)\b|[a-z])", re.I)
_DECISION_TOPICS = (
    (re.compile(r"\b(?:(?:hire|hired|hiring)(?!\s+(?:from|it|them|the\s+(?:hall|van|room|venue|kit|marquee)))|recruit\w*|take on|takes on|took on|employ|employs|offer(?:ed)? (?:him|her|them) the (?:job|role|post))\b", re.I), "Hiring"),
)


# Where the thing decided may start: after a determiner, a possessive, or the verb of deciding.
# Words that say when: a title of them alone is no thing ("the weekday mornings"), and their possessive
# no one's ("last night's committee").
_WHEN = CALENDAR | {"today", "tonight", "tomorrow", "yesterday", "month", "year", "weekday", "teatime", "lunchtime"}
_AFTER_CUE = re.compile(
    rf"\b(?:(?:have|had)\s+)?(?:{_DECIDES}|{_STAYS})\s+(?:on\s+|that\s+)?"
    rf"|\b(?!(?:he|she|it|that|there|what|who|here|{'|'.join(sorted(_WHEN))})['’])[^\W\d_]+['’]s\s+",
    re.I,
)


_POSSESSIVE_AT = re.compile(r"['’]s\b")
_DECIDER_WORDS = frozenset(["committee", "board", "trustees", "team", "group", "council"])  # who decides, never what
# People a rule is about ("under-16s come with a parent"): never the thing decided.
_PEOPLE = frozenset(["parent", "parents", "adult", "adults", "child", "children", "kids", "guardian", "guardians", "family", "families"])


def _calendar(title: str) -> bool:
    """True for a title of calendar words alone ("Weekday mornings"): when, not what."""
    return all(fold(w).removesuffix("s") in _WHEN for w in title.split())

# "Decision: switch to the overnight EV tariff": a verb and where it goes, the thing after it
_VERB_TO = re.compile(r"[a-z]+\s+(?:to|into|onto)\s+(?:the|a|an|our|my|their|his|her)\s")
# "Decision: keep Kit on nights", "tag the lambs …", "going back to Pimento Red": a bare verb, never a title
_BIDDEN = re.compile(
    r"[a-z]+ing(?:\s+(?:back|ahead|on|up|out|over))?\s+(?:to|with|for)\s+"
    r"|(?![a-z]+s\b)[a-z]{3,}\s+(?=(?:the|a|an|our|my|their|his|her|both|all)\s|[A-Z][a-z])"
)


def _past_bare_verb(plain: str) -> int:
    """Where the thing decided starts after a bare verb ("keep Kit on nights", "going back to Pimento
    Red", "tag the lambs"): what the verb is done to; 0 when the line opens with no such verb."""
    m = _BIDDEN.match(plain)
    return m.end() if m else 0


_PAYS = re.compile(r"\bpa(?:y|ys|id|ying)\s+(?!(?:VAT|PAYE)\b)[A-Z]")  # someone paid: about them
_NAME_AT = r"[A-Z][\w'’&.-]*(?:\s+(?:&\s+)?[A-Z][\w'’.-]*)*"  # a name where the line starts: "Fraser & Sons"
_NAME_IS = re.compile(rf"{_NAME_AT}\s+(?:is|are|was|were)\s+(?:the|our|my)\b")
_THEIRS = re.compile(r"(?i)(?:his|her|their)\s")
_NAME_GETS = re.compile(r"^[A-Z][^\W\d_]+\s+(?:gets|has|wears|keeps)\s+(?=[a-z])")
_WE_DO = re.compile(r"^(?:[Ww]e|I)(?:['’]ll)?\s+(?:only\s+|just\s+|will\s+|now\s+)?(?!(?:are|were|will|have|had|can|could|should|may|might|must)\b)[a-z]+\s+(?=[a-z])")
# Someone given a job, a contract or a gig: the thing decided is theirs, titled with their name.
_WON = re.compile(
    rf"(?P<name>{_NAME_AT})\s+(?:get|gets|got|win|wins|won|land|lands|landed)\s+(?:the\s+)?"
    r"(?P<thing>(?:[a-z][\w-]*\s+)?(?:job|contract|gig|tender|order|booking|commission))\b"  # "the first-aid contract"
)
# A name's verb in -s, before an object or a place: "Low Tide goes to …", "Chiara plays Mara",
# "Daniel rehearses with Isla".
_NAME_VERB = re.compile(
    rf"\s*[a-z]+s\b(?!['’])\s+{VERB_OBJECT}"
    rf"|\s*(?:{'|'.join(sorted(VERBS_S))})\s+\d"  # "Fennel & Fig opens 8 till 4" (not "Marlow Road hours 7–3")
)
# What someone offers, not a thing of its own: "Jen's plan" is Jen's ("Marek's worktop" is the worktop).
_SOMEONES = frozenset(["plan", "idea", "offer", "suggestion", "proposal", "option", "quote", "price", "rate", "version", "choice", "one", "deal", "terms", "logo", "branding", "name", "share"])


# A name's verb in -s before a place or a name, not a thing: "goes to a dealer", "starts at Colegio …",
# "plays Mara" ("Tomasz does the main works" decides the works).
_NAME_MOVES = re.compile(
    r"\s*(?:(?!(?:is|was|has|does)\b)[a-z]+s\b(?!['’])\s+(?:[A-Z]|(?:to|at|with|into|from|for)\b)"
    r"|(?:start|begin|finish|come|arrive|move)\s+(?:on|at|in|from|with)\b)"  # "Brightwell start on the ceiling …": a firm's deed
)
# What comes before the option not chosen: "X over Y", "X rather than Y", "X, not Y", "X instead of Y".
_REJECTED = re.compile(r",?\s+(?:rather than|instead of|in preference to)\s+|,\s*not\s+|\s+not\s+(?=the\b|a\b|an\b)|\s+over\s+(?=the\b|a\b|an\b|[A-Z])")
_TAKES_OVER = re.compile(r"\b(?:take|takes|took|taking|hand|hands|handed|handing|think|thought|go|goes|went|talk|talked|pass|passed|come|came|run|ran|sign|signed|win|won)$", re.I)


def chosen(text: str) -> str:
    """`text` up to the option it turns down ("one Luton rather than the two Transits": "one Luton"),
    a verb's "over" kept ("Bea takes over the stall")."""
    for m in _REJECTED.finditer(text):
        if "over" in m.group() and (_TAKES_OVER.search(text[: m.start()].rstrip()) or len(text[: m.start()].split()) > 3):
            continue  # "Bea takes over the stall", "sell tickets over the counter": no option turned down
        return text[: m.start()]
    return text


def _capitalised_from(text: str, at: int, word: str) -> bool:
    """True when `word`, first found from `at`, stands capitalised: "the GreenGrow polytunnel", not
    "first print run" (though "Clayhill Print" comes later)."""
    m = re.compile(rf"\b{re.escape(word)}\b", re.I).search(text, at)
    return m is not None and m.group()[:1].isupper()
