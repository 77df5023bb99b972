"""Rule 11 (grounded): every sentence a pass writes comes from the lines its operation cites.

A sentence's score is the share of its distinct content words (names, numbers,
nouns, verbs: what is left after dropping stop words) that occur in the cited
journal lines or in the title of the page it is written under. Words are
compared after a small, explicit normalisation: case, plural/singular and
-ed/-ing/-ly endings, digits and number words ("five" = "5", "2,400" = "2400",
"8.90" = "8.9", "1st" = "first" = "1"), hyphenation ("5-year" -> "5", "year"),
a few unit spellings ("kilo" = "kg", "%" = "percent"), and link syntax
(`[[target|shown]]` reads as its shown text). Pure: no I/O.

Calibration (tests/benchmarks/grounding_calibration.py, on sample-project/):
  should pass   30 hand paraphrases of one line      min 0.67, median 1.00
                5 test-fixture bodies                all 1.00
                122 wiki sentences vs source days    none under 0.60 (short section
                                                     headings such as "Dry goods",
                                                     which only label, are not scored)
  should fail   12 facts from an uncited line        max 0.50, median 0.29
                10 pure inventions                   max 0.25, median 0.00
                12 cited fact + uncited fact mixed   0.30-0.90, median 0.60
  Thresholds in (0.50, 0.67] separate paraphrases from uncited facts and
  inventions; mixed sentences overlap the paraphrases (an uncited fact that
  reuses the cited line's words is invisible to word overlap). At 0.6: no
  paraphrase refused, every uncited fact and invention refused, 6 of 12 mixed
  land. At the old 0.5 "Marta now says a 3-year lease would be fine", citing
  the 5-year line, lands at exactly 0.50. Recommended `grounding_min`: 0.6.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gitgarden.guard import Verdict

__all__ = ["RULE", "NAME", "STOP_WORDS", "SentenceScore", "content_words", "sentences", "score_text", "check"]

RULE = 11
NAME = "grounded"
_SENTENCE_CAP = 300  # characters of a sentence kept in a verdict, as the guard caps its lines
_CITED_CAP = 200  # characters of each cited line quoted in a verdict

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

_UNITS = {"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
          "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "zero": 0, "one": 1,
          "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
          "eighty": 80, "ninety": 90}  # fmt: skip
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
             "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12}  # fmt: skip
_MULTIPLIERS = {"hundred": 100, "dozen": 12}  # "two hundred" = 200, "two dozen" = 24
_SCALES = {"thousand": 1000, "million": 1_000_000}  # "two thousand four hundred" = 2400
_NUMBER_WORDS = {**_UNITS, **_MULTIPLIERS, **_SCALES}
# Spellings of one thing that a faithful paraphrase swaps freely.
_SYNONYMS = {
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

_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\s]*\)")
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
_APOSTROPHE = re.compile(r"(?<=\w)['’](?=\w)")
_THOUSANDS = re.compile(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b")
_ORDINAL_DIGITS = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.I)
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+|[%€$£]|[^\w\s%€$£'’-]")  # the last: punctuation, a break
_HYPHENATED = re.compile(r"[^\W_]+(?:-[^\W_]+)+")

_BLOCK_START = re.compile(r"^\s{0,3}(?:#{1,6}\s|>|\||```|~~~)|^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_MARKER = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?)")
_CLOSING_HASHES = re.compile(r"\s#+\s*$")
_CELL = re.compile(r"(?<!\\)\|")
_RULE_CELL = re.compile(r"^:?-+:?$")
_SPLIT = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+")
_ABBREVIATIONS = frozenset(["e.g", "i.e", "etc", "vs", "approx", "no", "nr", "mr", "mrs", "ms", "dr", "st", "ca", "incl", "cf"])


@dataclass(frozen=True)
class SentenceScore:
    """One written sentence, the share of its content words grounded, and the words that were not."""

    sentence: str
    score: float
    missing: tuple[str, ...]


@dataclass(frozen=True)
class _Word:
    surface: str  # as written (lowercase), for messages
    norm: str  # as compared
    parts: tuple[str, ...] = ()  # a run of number words: each word's own value

    def found_in(self, vocab: set[str]) -> bool:
        # A run matches by its value, or when every one of its words does.
        return self.norm in vocab or (bool(self.parts) and all(p in vocab for p in self.parts))


def _strip_markup(text: str) -> str:
    text = _WIKILINK.sub(lambda m: _link_text(m.group(1)), text)
    text = _MDLINK.sub(r"\1", text)
    text = _POSSESSIVE.sub("", text)
    text = _APOSTROPHE.sub("", text)
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), text)
    return _ORDINAL_DIGITS.sub(r"\1", text)


def _link_text(inner: str) -> str:
    inner = inner.replace("\\|", "|")
    if "|" in inner:
        return inner.split("|", 1)[1]
    return inner.replace("#", " ").replace("/", " ")


def _stem(word: str) -> str:
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


def _number(token: str) -> str:
    """Decimals compared by value: "8.90" and "8.9" are the same price."""
    if "." in token:
        token = token.rstrip("0").rstrip(".")
    return token.lstrip("0") or "0"


def _words(text: str) -> list[_Word]:
    """Every word of `text`, normalised, stop words included; runs of number words read as one number."""
    raw = [t.lower() for t in _TOKEN.findall(_strip_markup(text))]
    out: list[_Word] = []
    i = 0
    while i < len(raw):
        tok = raw[i]
        if _is_break(tok):
            i += 1
            continue
        if tok in _NUMBER_WORDS:
            total, current, j = 0, 0, i
            while j < len(raw):
                t = raw[j]
                if t in _UNITS:
                    current += _UNITS[t]
                elif t in _MULTIPLIERS:
                    current = max(current, 1) * _MULTIPLIERS[t]
                elif t in _SCALES:
                    total += max(current, 1) * _SCALES[t]
                    current = 0
                elif t == "and" and j > i and raw[j - 1] in _NUMBER_WORDS and j + 1 < len(raw) and raw[j + 1] in _UNITS:
                    pass  # "two hundred and fifty"
                else:
                    break
                j += 1
            run = [t for t in raw[i:j] if t != "and"]
            parts = tuple(str(_NUMBER_WORDS[t]) for t in run) if len(run) > 1 else ()
            out.append(_Word(" ".join(raw[i:j]), str(total + current), parts))
            i = j
            continue
        if tok in _ORDINALS:
            out.append(_Word(tok, str(_ORDINALS[tok])))
        elif tok[0].isdigit():
            out.append(_Word(tok, _number(tok)))
        else:
            out.append(_Word(tok, _SYNONYMS.get(tok) or _stem(tok)))
        i += 1
    return out


def _is_break(token: str) -> bool:
    return len(token) == 1 and not token.isalnum() and token not in "%€$£"


def content_words(text: str) -> list[str]:
    """The normalised content words of `text`, in order, without repeats."""
    return list(dict.fromkeys(w.norm for w in _content(text)))


def _content(text: str) -> list[_Word]:
    return [w for w in _words(text) if w.surface not in STOP_WORDS]


def _vocabulary(texts: Sequence[str]) -> set[str]:
    """Every normalised word of the reference texts, with hyphenated compounds also joined."""
    vocab: set[str] = set()
    for text in texts:
        for w in _words(text):
            vocab.add(w.norm)
            vocab.update(w.parts)
        for compound in _HYPHENATED.findall(_strip_markup(text)):
            vocab.update(w.norm for w in _words(compound.replace("-", "")))
    return vocab


def sentences(text: str) -> list[str]:
    """The sentences of markdown `text`: paragraphs split at sentence ends; a heading, list
    item, quote or table row is a sentence (or several) of its own text, marker stripped.
    A table's header row (the row above its `|---|` rule) is not a sentence, nor is a short
    heading (at most three content words, no number): it labels a section and asserts
    nothing, and refusing "## Deliveries" would refuse faithful pages."""
    blocks: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            blocks.append(" ".join(current))
            current.clear()

    table_row = False  # the last block was a table row
    for line in text.splitlines():
        was_row, table_row = table_row, False
        if not line.strip():
            flush()
            continue
        if _BLOCK_START.match(line):
            flush()
            stripped = line.strip()
            if stripped.startswith("|"):
                cells = [c.strip() for c in _CELL.split(stripped.strip("|"))]
                if all(_RULE_CELL.match(c) for c in cells):
                    if was_row:
                        blocks.pop()  # a header row names columns; it asserts nothing
                    continue
                blocks.append(", ".join(c for c in cells if c))
                table_row = True
                continue
            if stripped.startswith(("```", "~~~")):
                continue
            if stripped.startswith("#"):
                heading = _CLOSING_HASHES.sub("", _MARKER.sub("", line)).strip()
                if len(content_words(heading)) > 3 or re.search(r"\d", heading):
                    blocks.append(heading)  # a long heading, or one with a number, asserts something
                continue
            line = _MARKER.sub("", line)
        current.append(line.strip())
    flush()
    out: list[str] = []
    for block in blocks:
        for part in _split_block(block):
            if re.search(r"[^\W_]", part):
                out.append(part)
    return out


def _split_block(block: str) -> list[str]:
    parts: list[str] = []
    start = 0
    for m in _SPLIT.finditer(block):
        before = block[start : m.start()].rstrip(".!?\"'”’)]").split()
        last = before[-1].lower() if before else ""
        if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue  # "e.g. flour", "J. Kessler": not a sentence end
        parts.append(block[start : m.start()].strip())
        start = m.end()
    parts.append(block[start:].strip())
    return [p for p in parts if p]


def _score(sentence: str, vocab: set[str]) -> SentenceScore:
    words: dict[str, _Word] = {}
    for w in _content(sentence):
        words.setdefault(w.norm, w)
    if not words:
        return SentenceScore(sentence, 1.0, ())
    missing = tuple(w.surface for w in words.values() if not w.found_in(vocab))
    return SentenceScore(sentence, (len(words) - len(missing)) / len(words), missing)


def score_text(text: str, cited_lines: Sequence[str], title: str = "") -> list[SentenceScore]:
    """Score every sentence of `text` against the cited lines and the page title.

    A sentence with no content words ("See also.") scores 1.0.
    """
    vocab = _vocabulary([*cited_lines, title])
    return [_score(s, vocab) for s in sentences(text)]


def check(
    prose: Sequence[tuple[str, str]],
    cited_lines: Sequence[str],
    titles: Mapping[str, str],
    threshold: float,
) -> tuple[list[Verdict], float | None]:
    """Rule 11 over an operation's new prose: (page path, text written there) pairs.

    Returns the verdicts for sentences scoring under `threshold` (none when the
    threshold is 0: the rule is off) and the lowest score seen (None when no
    sentence was scored).
    """
    verdicts: list[Verdict] = []
    lowest: float | None = None
    cited = "; ".join(repr(_cap(line.strip(), _CITED_CAP)) for line in cited_lines) or "none"
    for path, text in prose:
        for s in score_text(text, cited_lines, titles.get(path, "")):
            lowest = s.score if lowest is None else min(lowest, s.score)
            if threshold > 0 and s.score < threshold:
                message = (
                    f"sentence grounded {s.score:.2f} < {threshold:.2f}: "
                    f"not in the cited lines or the title: {', '.join(s.missing)}; cited: {cited}"
                )
                verdicts.append(Verdict(RULE, NAME, path, _cap(s.sentence, _SENTENCE_CAP), message))
    return verdicts, lowest


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
