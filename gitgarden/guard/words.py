"""How rule 11 reads a word: stop words, number words, and the normalisation both sides share.

A written sentence and the lines it cites are compared word by word after the
same normalisation, so a faithful paraphrase that spells a word differently
still finds it: case, plural/singular and -ed/-ing/-ly endings (`stem`), digits
and number words (`NUMBER_WORDS`, `ORDINALS`, `number`), and a few unit,
weekday and month spellings (`SPELLINGS`). Every table is here, in the code,
so what counts as "the same word" is visible, reviewed and tested. Pure.
"""

from __future__ import annotations

import re

__all__ = [
    "STOP_WORDS",
    "UNITS",
    "ORDINALS",
    "MULTIPLIERS",
    "SCALES",
    "NUMBER_WORDS",
    "LOOSE_NUMBERS",
    "MONTHS",
    "WEEKDAYS",
    "SPELLINGS",
    "normal",
    "number",
    "stem",
]

# An explicit list (not a library's), so what counts as a content word is visible and stable.
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are aren arent as at be because been
    before being below between both but by can cannot cant could couldn couldnt did didn didnt
    do does doesn doesnt doing don dont down during each either else etc ever every few for from
    further had hadn hadnt has hasn hasnt have haven havent having he hed hell her here hers
    herself hes him himself his how however i id if ill im in into is isn isnt it its itself
    ive just least let lets ll may me might more most much must mustn mustnt my myself neither
    no nor not now o of off on once only or other ought our ours ourselves out over own per
    quite rather re really s same shall shan shant she shed shell shes should shouldn shouldnt
    so some such t than that thats the their theirs them themselves then there theres these
    they theyd theyll theyre theyve this those though through thus to too under until up upon
    us ve very via was wasn wasnt we wed well were weren werent weve what whats when where which
    while who whom whos why will with won wont would wouldn wouldnt yet you youd youll your
    youre yours yourself yourselves youve also already still even again see within without
    across along around among amongst toward towards onto beside besides despite unless whether
    since anything something nothing everything anyone someone everyone nobody
    """.split()  # noqa: SIM905 -- a paragraph of words reads better than 200 quoted ones
)

UNITS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
         "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "zero": 0, "one": 1,
         "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
         "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}  # fmt: skip
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
            "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
            "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17,
            "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30}  # fmt: skip
MULTIPLIERS = {"hundred": 100, "dozen": 12}  # "two hundred" = 200, "two dozen" = 24
SCALES = {"thousand": 1000, "million": 1_000_000}  # "two thousand four hundred" = 2400
NUMBER_WORDS = {**UNITS, **MULTIPLIERS, **SCALES}
# Number words that are more often grammar than a count: "a new one", "at first".
LOOSE_NUMBERS = frozenset({"one", "first"})

MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

# Spellings of one thing that a faithful paraphrase swaps freely.
SPELLINGS = {
    "kilo": "kg", "kilos": "kg", "kilogram": "kg", "kilograms": "kg", "kgs": "kg",
    "liter": "litre", "liters": "litre", "litres": "litre", "l": "litre",
    "euro": "eur", "euros": "eur", "€": "eur", "%": "percent", "pct": "percent",
    "dollar": "usd", "dollars": "usd", "$": "usd", "£": "gbp",
    "km": "kilometre", "kilometer": "kilometre", "kilometers": "kilometre", "kilometres": "kilometre",
    "mins": "minute", "hr": "hour", "hrs": "hour",
    "mon": "monday", "tue": "tuesday", "tues": "tuesday", "wed": "wednesday", "thu": "thursday",
    "thur": "thursday", "thurs": "thursday", "fri": "friday", "sat": "saturday", "sun": "sunday",
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june",
    "jul": "july", "aug": "august", "sep": "september", "sept": "september", "oct": "october",
    "nov": "november", "dec": "december",
}  # fmt: skip
_KEEP_S = ("ss", "us", "is", "ous")  # endings that are not plurals: "business", "bus", "analysis"


def normal(word: str) -> str:
    """A lowercase word as rule 11 compares it: its table spelling, else its stem."""
    return SPELLINGS.get(word) or stem(word)


def stem(word: str) -> str:
    """A deliberately small stemmer: plural -s/-es/-ies, -ed, -ing, -ly and a final -e."""
    if word.isdigit() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("lves"):
        word = word[:-3] + "f"  # halves, shelves
    elif re.search(r"(?:ss|sh|ch|x|z)es$", word):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(_KEEP_S):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("eed"):
            word = word[: -len(suffix)]
            if word.endswith("i"):
                word = word[:-1] + "y"  # carried -> carry
            elif len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # planned -> plan
            break
    if word.endswith("ily") and len(word) > 4:
        word = word[:-3] + "y"  # daily -> day
    elif word.endswith("ly") and len(word) >= 6:
        word = word[:-2]  # monthly -> month
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def number(token: str) -> str:
    """A number token as compared: decimals by value ("8.90" and "8.9" are the same price)."""
    if "." in token:
        token = token.rstrip("0").rstrip(".")
    return token.lstrip("0") or "0"
