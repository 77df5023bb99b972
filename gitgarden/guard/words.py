"""How rule 11 reads a word: stop words, number words, and the normalisation both sides share.

A written sentence and the lines it cites are compared word by word after the
same normalisation, so a faithful paraphrase that spells a word differently
still finds it. Every table is here, in the code, so what counts as "the same
word" is visible, reviewed and tested (tests/test_grounding_words.py):

- case, accents ("café" = "cafe"), plural/singular and -ed/-ing/-ly endings,
  and a few derivations ("installation" = "install", "payment" = "pay",
  "expensive" = "expense") — `stem`;
- irregular verbs ("sent" = "send", "seen" = "see") — `IRREGULAR`;
- British and American spellings ("colour" = "color", "organise" = "organize",
  "centre" = "center", "travelled" = "traveled") — `BRITISH` and two rules;
- abbreviations and plain synonyms a paraphrase swaps freely ("kids" =
  "children", "swamped" = "overwhelmed", "edu" = "education", "fridge" =
  "refrigerator") — `FAMILIES`;
- digits and number words (`NUMBER_WORDS`, `ORDINALS`, `number`), and unit,
  weekday and month spellings (`SPELLINGS`).

A family joins words that name the same thing, never a thing and its opposite
or two amounts: numbers and names are compared as written, so no table can let
an invented count or person through. Pure.
"""

from __future__ import annotations

import re
import unicodedata

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
    "IRREGULAR",
    "BRITISH",
    "FAMILIES",
    "ROMAN",
    "REPORTING",
    "fold",
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

# Irregular past forms, to their verb: "sent" and "send" are one word. ("left", "lay", "won",
# "saw" and "sat" are left out: each is also another word, or a stop word, or a weekday here.)
IRREGULAR = {
    "said": "say", "sent": "send", "went": "go", "gone": "go", "found": "find", "told": "tell",
    "took": "take", "taken": "take", "brought": "bring", "bought": "buy", "made": "make",
    "got": "get", "gotten": "get", "came": "come", "seen": "see", "gave": "give", "given": "give",
    "knew": "know", "known": "know", "thought": "think", "met": "meet", "paid": "pay",
    "kept": "keep", "held": "hold", "stood": "stand", "ran": "run", "began": "begin",
    "begun": "begin", "wrote": "write", "written": "write", "spoke": "speak", "spoken": "speak",
    "broke": "break", "broken": "break", "chose": "choose", "chosen": "choose", "drove": "drive",
    "driven": "drive", "rode": "ride", "ridden": "ride", "fell": "fall", "fallen": "fall",
    "felt": "feel", "heard": "hear", "lost": "lose", "led": "lead", "built": "build",
    "sold": "sell", "spent": "spend", "lent": "lend", "taught": "teach", "caught": "catch",
    "fought": "fight", "sought": "seek", "ate": "eat", "eaten": "eat", "drank": "drink",
    "drunk": "drink", "flew": "fly", "flown": "fly", "grew": "grow", "grown": "grow",
    "threw": "throw", "thrown": "throw", "struck": "strike", "slew": "slay", "slain": "slay",
    "swore": "swear", "sworn": "swear", "wore": "wear", "worn": "wear", "woke": "wake",
    "woken": "wake", "rose": "rise", "risen": "rise", "hid": "hide", "hidden": "hide",
    "shook": "shake", "shaken": "shake", "forgot": "forget", "forgotten": "forget",
    "understood": "understand", "meant": "mean", "dealt": "deal", "slept": "sleep", "fed": "feed",
    "fled": "flee", "laid": "lay", "dug": "dig", "stuck": "stick", "sang": "sing", "sung": "sing",
    "rang": "ring", "rung": "ring", "drew": "draw", "drawn": "draw", "froze": "freeze",
    "frozen": "freeze", "stole": "steal", "stolen": "steal", "did": "do", "done": "finish",
    "thrust": "thrust", "sped": "speed", "undertook": "undertake", "undertaken": "undertake",
}  # fmt: skip

# British spellings to American ones, by root (the root may take an ending: "colours", "centred").
BRITISH = {
    "colour": "color", "favour": "favor", "honour": "honor", "labour": "labor", "neighbour": "neighbor",
    "behaviour": "behavior", "flavour": "flavor", "harbour": "harbor", "humour": "humor",
    "rumour": "rumor", "vapour": "vapor", "armour": "armor", "odour": "odor", "endeavour": "endeavor",
    "savour": "savor", "vigour": "vigor", "parlour": "parlor", "rigour": "rigor", "tumour": "tumor",
    "centre": "center", "theatre": "theater", "metre": "meter", "fibre": "fiber", "calibre": "caliber",
    "sombre": "somber", "spectre": "specter", "litre": "liter", "defence": "defense",
    "licence": "license", "offence": "offense", "pretence": "pretense", "catalogue": "catalog",
    "dialogue": "dialog", "analogue": "analog", "programme": "program", "tyre": "tire", "grey": "gray",
    "plough": "plow", "aluminium": "aluminum", "jewellery": "jewelry", "pyjama": "pajama",
    "cosy": "cozy", "kerb": "curb", "draught": "draft", "manoeuvre": "maneuver", "mum": "mom",
    "counsellor": "counselor", "traveller": "traveler", "fulfil": "fulfill", "enrol": "enroll",
    "skilful": "skillful", "wilful": "willful", "judgement": "judgment", "ageing": "aging",
    "cheque": "check", "sceptic": "skeptic", "moustache": "mustache", "storey": "story",
    "paediatric": "pediatric", "anaemia": "anemia", "oestrogen": "estrogen", "foetus": "fetus",
    "practise": "practice", "counselled": "counseled", "counselling": "counseling",
}  # fmt: skip
_BRITISH_ROOT = re.compile(r"^(" + "|".join(sorted(BRITISH, key=len, reverse=True)) + r")(s|es|ed|d|ing|ite|ites|able|ably|ful|er|ers|ment|ments|ly)?$")
_ISE = re.compile(r"^(\w{3,})is(e|es|ed|ing|ation|ations|er|ers)$")  # organise -> organize
_YSE = re.compile(r"^(\w{2,})ys(e|es|ed|ing)$")  # analyse -> analyze

# Words a plain paraphrase swaps for one another: abbreviations and synonyms. The first word of
# each family is the one the others read as. Each family names one thing; none holds an
# opposite, an amount or a name.
FAMILIES: tuple[tuple[str, ...], ...] = (
    ("child", "children", "kid", "kids", "kiddo", "kiddos"),
    ("overwhelm", "overwhelmed", "overwhelming", "swamped", "swamp", "overloaded", "overload", "snowed"),
    ("education", "edu", "educational"),
    ("information", "info", "infos"),
    ("appointment", "appt", "appts"),
    ("meeting", "mtg", "mtgs"),
    ("department", "dept", "depts"),
    ("government", "govt", "gov"),
    ("manager", "mgr", "mgrs"),
    ("approximately", "approx", "roughly"),
    ("week", "wk", "wks"),
    ("year", "yr", "yrs"),
    ("tomorrow", "tmrw", "tmr", "tomoz"),
    ("birthday", "bday", "bdays"),
    ("university", "uni"),
    ("people", "ppl", "persons"),
    ("message", "msg", "msgs", "text"),
    ("photo", "photograph", "pic", "pics", "picture", "pictures"),
    ("conversation", "convo", "convos", "chat"),
    ("favorite", "fav", "fave", "favourite"),
    ("introduction", "intro"),
    ("administration", "admin"),
    ("professor", "prof"),
    ("husband", "hubby"),
    ("brother", "bro"),
    ("sister", "sis"),
    ("family", "fam"),
    ("mother", "mom", "mum", "mommy", "mummy", "mama"),
    ("father", "dad", "daddy", "papa"),
    ("refrigerator", "fridge", "fridges"),
    ("telephone", "phone", "phoned", "rang", "ring", "call", "called"),
    ("bicycle", "bike", "bikes"),
    ("examination", "exam", "exams"),
    ("laboratory", "lab", "labs"),
    ("advertisement", "ad", "ads", "advert", "adverts"),
    ("veterinarian", "vet", "vets"),
    ("christmas", "xmas"),
    ("buy", "purchase", "purchased"),
    ("begin", "start", "started", "commence"),
    ("hire", "hires", "hired", "hiring"),  # the stemmer keeps a four-letter word's final e: "hire" and "hir"
    ("finish", "finished", "complete", "completed", "done"),
    ("large", "big", "huge"),
    ("help", "assist", "assistance", "helper", "assistant", "assistants"),
    ("quick", "fast", "rapid"),
    ("shop", "store", "shops", "stores"),
    ("film", "movie", "movies"),
    ("holiday", "vacation", "vacay"),
    ("apartment", "flat"),
    ("autumn", "fall"),
    ("truck", "lorry", "lorries"),
    ("trash", "rubbish", "garbage"),
    ("sidewalk", "pavement"),
    ("soldier", "soldiers", "troop", "troops"),
    ("difficult", "hard"),
    ("afraid", "scared", "frightened", "fear"),
    ("tired", "exhausted", "worn"),
    ("ill", "sick", "unwell"),
    ("doctor", "physician"),
    ("answer", "reply", "respond", "response"),
    ("fail", "failed", "unsuccessful", "unsuccessfully"),
    ("happen", "occur", "occurred"),
    ("early", "betimes"),
    ("kill", "killed", "slay", "slain", "murder", "murdered"),
    ("immediately", "at once"),
    ("cafe", "coffeeshop"),
    ("car", "automobile"),
    ("couch", "sofa"),
    ("mail", "post"),
    ("cookie", "biscuit"),
)
# Verbs of saying: a capitalised word opening a sentence before one of them is a name ("Piotr says").
REPORTING = frozenset(
    """
    says said thinks thought wants wanted asked asks told tells agreed agrees wrote writes recommends
    recommended suggested suggests prefers preferred insists insisted reckons confirmed confirms
    promised promises explained explains mentioned mentions replied replies added noted decided
    decides offered offers quoted quotes reported reports claims claimed
    """.split()  # noqa: SIM905 -- a paragraph of words, as STOP_WORDS
)
# Roman numerals after a name ("Richard III") read as the ordinal of "Richard the Third".
ROMAN = {"ii": "second", "iii": "third", "iv": "fourth", "vi": "sixth", "vii": "seventh", "viii": "eighth",
         "ix": "ninth", "xi": "eleventh", "xii": "twelfth"}  # fmt: skip
_ACCENTS = re.compile(r"[\u0300-\u036f]")


def fold(word: str) -> str:
    """A word without its accents: "café" -> "cafe", "naïve" -> "naive" (ß, ø and the like stay)."""
    return _ACCENTS.sub("", unicodedata.normalize("NFKD", word)) if not word.isascii() else word


def american(word: str) -> str:
    """A lowercase word in American spelling: "colours" -> "colors", "organised" -> "organized"."""
    m = _BRITISH_ROOT.match(word)
    if m:
        return BRITISH[m.group(1)] + (m.group(2) or "")
    m = _ISE.match(word)
    if m:
        return f"{m.group(1)}iz{m.group(2)}"
    m = _YSE.match(word)
    return f"{m.group(1)}yz{m.group(2)}" if m else word


def normal(word: str) -> str:
    """A lowercase word as rule 11 compares it: its unit or date spelling, else the stem of its
    American spelling (irregular verbs to their verb), read through its family."""
    word = fold(word)
    if word in SPELLINGS:
        return SPELLINGS[word]
    word = IRREGULAR.get(word, word)
    if word in _FAMILY_OF:
        return _FAMILY_OF[word]
    stemmed = stem(american(word))
    return _FAMILY_OF.get(stemmed, stemmed)


def stem(word: str) -> str:
    """A deliberately small stemmer: plural -s/-es/-ies, -ed, -ing, -ly, a final -e, the comparative
    -ier/-iest/-est, a few derivations (-ation, -ion after s or t, -ment, -ness, -ful, -ive, -ery),
    and a doubled final l ("travell", "install")."""
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
    word = _derivation(word)
    if word.endswith("ily") and len(word) > 4:
        word = word[:-3] + "y"  # daily -> day
    elif word.endswith("ly") and len(word) >= 6:
        word = word[:-2]  # monthly -> month
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    if word.endswith("ll") and len(word) > 4:
        word = word[:-1]  # install, installed; travelled, traveled
    return word


# (ending, what it becomes, letters the rest must keep): checked in order, the first that fits applies.
_DERIVATIONS = (
    ("iest", "y", 3), ("ier", "y", 3), ("est", "", 4), ("ation", "", 4), ("sion", "s", 4), ("tion", "t", 4),
    ("ment", "", 3), ("iness", "y", 3), ("ness", "", 4), ("ful", "", 4), ("ive", "", 5), ("ery", "er", 4),
)  # fmt: skip


_UNDERIVED = frozenset({"business", "witness", "harness", "fortress", "mattress", "address", "forest", "interest"})


def _derivation(word: str) -> str:
    if word in _UNDERIVED:
        return word
    for ending, becomes, keep in _DERIVATIONS:
        if word.endswith(ending) and len(word) - len(ending) >= keep:
            return word[: -len(ending)] + becomes
    return word


def number(token: str) -> str:
    """A number token as compared: decimals by value ("8.90" and "8.9" are the same price)."""
    if "." in token:
        token = token.rstrip("0").rstrip(".")
    return token.lstrip("0") or "0"


def _families() -> dict[str, str]:
    """Each family's words (as written and as stemmed) to the stem of its first word."""
    out: dict[str, str] = {}
    for family in FAMILIES:
        head = stem(american(family[0]))
        for word in family:
            if " " not in word:
                out.setdefault(word, head)
                out.setdefault(stem(american(word)), head)
    return out


_FAMILY_OF = _families()
