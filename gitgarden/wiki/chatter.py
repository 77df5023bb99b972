"""What chatter a journal line looks like — weather, a meal, sleep, family, a feeling, an errand,
free time — read from its words, so a skip can say why ("chatter: weather") and small mode can weigh
the model's score against it. Pure.
"""

from __future__ import annotations

import re

from gitgarden.wiki.subjects import sentence_starts

__all__ = ["chatter_kind"]

_CHATTER: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (why, re.compile(r"\b(?:" + words + r")\b", re.I))
    for why, words in (
        ("weather", r"rain(?:ed|ing|y)?|sun(?:ny)?|snow(?:ed|ing)?|frost|wind(?:y)?|storm|fog(?:gy)?|cold|freezing|heatwave|hot day|grey|drizzle|weather|ice cream"),
        ("a meal", r"coffee|tea|lunch|dinner|breakfast|brunch|pizza|takeaway|beer|wine|porridge|toast|pasta|curry|roast|chicken|cake|falafel|sandwich|cereal"),
        ("sleep and tiredness", r"slept|sleep|nap|tired|exhausted|wiped out|bed by|early night|insomnia"),
        ("family", r"mum|mom|dad|grandma|grandpa|granny|nan|sister|brother|baby|kids|son|daughter|aunt|uncle|cousin|family"),
        ("how I feel", r"low today|happy|sad|stressed|anxious|aching|headache|sick|ill|cold coming|mood|fed up|bored"),
        ("an errand", r"post office|dry cleaning|groceries|shopping|supermarket|kettle|parcel|picked up|bought|repair shop|pharmacy|haircut|stamps"),
        ("free time", r"video call|ran \d|went for a run|walked|walk|gym|yoga|swim|film|movie|quiz|concert|football|match|book club|balcony|netflix|tv"),
    )
)


def chatter_kind(text: str) -> str:
    """What kind of chatter a line looks like ("weather", "a meal", …), or "" when code sees none.
    A word of a name does not count ("Calacatta Grey", "Green Bean"): only one written in lower
    case, or the first word of a sentence — but "Mum" and "Dad" are family however they are written."""
    starts = sentence_starts(text)
    for why, pattern in _CHATTER:
        for m in pattern.finditer(text):
            if why == "family" and re.search(r"[^\W\d_]['’]s\s+$", text[: m.start()]) and not re.search(r"\b(?:my|our)\s+\S+\s+$", text[: m.start()], re.I):
                continue  # "Arjun's mum added the cousins": someone else's family, a guest
            if m.group()[:1].islower() or m.start() in starts or why == "family":  # "Called Mum"
                return why
    return ""
