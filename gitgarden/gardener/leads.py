"""Which of the subjects a line names leads it, by where each stands: a name that opens the line (or
the one a call reached), a name passed over ("Martin Kerr and I visited …"), a name that only says
where ("at Green Bean"), a brand before its thing ("Velux roof windows"), a name that only says which
("the Exeter cousins"), a thing and what was done to it ("Environmental health inspection booked
with …"). Pure: text in, answers out (`homes.Planner` weighs them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gitgarden.wiki import phrases, subjects

__all__ = ["brand", "describing", "done_to", "opening", "opens", "passed_over", "placed"]


def brand(text: str, mention: subjects.Mention, names: Sequence[subjects.Mention]) -> bool:
    """True for a one-word name that describes the thing after it ("Velux roof windows", "the Dovre
    5kW wood burner") where the line also names someone in full."""
    if " " in mention.text or not any(n.kind == "name" and " " in n.text for n in names):
        return False
    measure = re.match(r"\s+(?:\d[\w.]*\s+)?(?=[a-z])", text[mention.start + len(mention.text) :])  # "the Dovre 5kW wood burner"
    return measure is not None and bool(phrases.noun_phrase(text, mention.start + len(mention.text) + measure.end()))


def describing(text: str, mention: subjects.Mention) -> bool:
    """True for a one-word name between "the" and the people or things it says which of ("so the
    Exeter cousins aren't racing up the M5"): no subject of the line."""
    after = text[mention.start + len(mention.text) :]
    return mention.kind == "name" and " " not in mention.text and re.search(r"\bthe\s+$", text[: mention.start]) is not None and re.match(r"\s+[a-z]+s\b(?!['’])", after) is not None


def passed_over(text: str, names: list[subjects.Mention]) -> list[subjects.Mention]:
    """`names` without a first name the line passes over: "Martin Kerr and I visited Willowbank House"
    (where they went, not who came along), "Ruth put us onto Colin Fairweather" (Colin's line)."""
    after = names[0].start + len(names[0].text) if len(names) > 1 and names[0].kind == "name" else -1
    if after >= 0 and (_WITH_ME.match(text, after) or (opens(text, names[0]) and _PUT_ONTO.match(text, after))):
        return names[1:]
    return names


def opening(text: str, names: list[subjects.Mention]) -> list[subjects.Mention]:
    """The name that opens the line (`opens`), as a list of one, or []; after a call to a place, the
    name in full the next clause opens with and its verb ("Rang St Michael's, Reverend Judith Ashworth
    can do Isla's christening …": Judith's line, not the church's)."""
    if not names or names[0].kind != "name" or not opens(text, names[0]):
        return []
    first, after = names[0], names[0].start + len(names[0].text)
    called = names[1] if text[: first.start] and len(names) > 1 and names[1].kind == "name" and " " in names[1].text else None
    if called and re.fullmatch(r",\s+", text[after : called.start]) and _SAYS_OR_CAN.match(text, called.start + len(called.text)):
        return [called]
    return [first]


_SAYS_OR_CAN = re.compile(r"\s+(?:can|can['’]t|cannot|will|won['’]t|says|said|is|has|wants|confirmed|agreed|offered|needs|reckons|thinks)\b")


def opens(text: str, mention: subjects.Mention) -> bool:
    """True for a name that opens the line, after a "The" at most ("The Northern Music Examinations
    Board entry fee is £64; Mrs Marchetti …": the Board's line), or after the call that reached them
    ("Rang Raj Bhamra, the tuner Helen uses; he charges £75 a tune": Raj's line, not Helen's)."""
    return re.fullmatch(r"(?:[Tt]he\s+)?|(?:Rang|Called|Phoned|Emailed|Texted|Messaged|Met|Spoke to|Wrote to)\s+", text[: mention.start]) is not None


def done_to(text: str, lead: str) -> bool:
    """True when the line opens with the thing `lead` and what was done to it, or its date: "Environmental
    health inspection booked with Westbury District Council …" (not "The surveyor has booked …")."""
    return _LEADS.match(text) is not None and re.match(rf"(?:[\w-]+\s+){{0,2}}{re.escape(subjects.fold(lead))}\b", subjects.fold(text)) is not None


_LEADS = re.compile(
    r"^[A-Za-z][\w-]*(?:\s+(?!(?:has|have|had|is|was|were)\b)[a-z][\w-]*){0,3}\s+(?:booked|confirmed|arranged|scheduled|set|fixed|pencilled"
    r"|(?:is|are)\s+(?:now\s+)?(?:on\s+)?(?:(?i:mon|tues|wednes|thurs|fri|satur|sun)day|\d{1,2}(?:st|nd|rd|th)?\s+[A-Z][a-z]+))\b"
    # "Headcount is 42 now", "Lunch will be their hot buffet" (not "Chiamaka says the leaflet is 4,850")
    r"|^[A-Za-z][\w-]*(?:\s+(?!(?:says|said|reckons|thinks|has|have|had|is|was)\b)[a-z][\w-]*){0,2}\s+"
    r"(?:(?:is|are)\s+(?:now\s+)?(?=[£€$]?\d)|will\s+be\s+(?=(?:the|their|our|a|an|his|her|my)\s|[£€$]?\d))"
    # "Tuesday market run leaves the Green at 9:15": a thing and the time it goes
    r"|^[A-Za-z][\w-]*(?:\s+[a-z][\w-]*){0,3}\s+(?:leaves|departs|starts|finishes|opens|closes)\s+(?=[^.;]*?\bat\s+\d{1,2}(?:[:.]\d\d|\s?[ap]m)\b)"
    # "Advert goes in the TES and on the Northshire jobs site on Mon 23 March": a thing and the day it goes out
    r"|^[A-Za-z][\w-]*(?:\s+[a-z][\w-]*){0,2}\s+(?:goes|go|went)\s+(?:in|into|out|live|up|off)\b(?=[^.;]*?\bon\s+(?:(?i:mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|\d))"
)  # "Collection weekend is Saturday 5 and Sunday 6 December, at Brightwell's …": its date
_WITH_ME = re.compile(r"\s+and\s+(?:I|me)\b")
_PUT_ONTO = re.compile(r"\s+(?:put|pointed|passed)\s+(?:us|me)\s+(?:on\s?to|to)\s+(?=[A-Z])|\s+(?:recommended|introduced\s+(?:us|me)\s+to)\s+(?=[A-Z])")


def placed(text: str, mention: subjects.Mention) -> bool:
    """True for a name that only says where ("… on Mill Road", "at Green Bean", "on 14 Kirkgate"):
    never a line's home while the line names something else."""
    street = re.search(r"\s(?:Street|Road|Lane|Parade|Square|Avenue)$", mention.text) is not None  # "on the High Street"
    the = r"|the\s+" if street else ""
    place = re.search(rf"(?:^|\s)(?:on|at|in|near|along|via|all\s+over)\s+(?:\d+[a-z]?\s+{the})?$", text[: mention.start], re.I)
    # "her heart is set on Jumpzone", "keen on Oakmere", "spent £50 on Jumpzone": what, not where
    if place is None and street and re.search(r"\s(?:for|to|from|of|by)\s+\d+[a-z]?\s+$", text[: mention.start]):
        return True  # "the building control notification for 27 Tenterden Road": an address says where
    if place is None and _MEDIUM.match(text, mention.start + len(mention.text)):  # "on the village Facebook group"
        place = re.search(r"(?:^|\s)(?:on|in)\s+(?:the|our|my|their|a)\s+(?:[a-z]+\s+){0,2}$", text[: mention.start])
    return place is not None and not re.search(rf"\b{_ON_WHAT}\s+on\s+$", text[: mention.start], re.I)


# Where words are put up or said, after a name that runs it: "the village Facebook group", "our WhatsApp chat".
_MEDIUM = re.compile(r"\s+(?:group|page|chat|channel|feed|forum|site|website|thread|newsletter)s?\b")


_ON_WHAT = r"(?:set|keen|sold|counting|relying|rely|relies|depends?|depending|insists?|insisting|spent|spend|spending|[£€$][\d.,]+[km]?)"
