"""Rule 11 (grounded): every sentence a pass writes comes from the lines its operation cites.

A sentence's score is the share of its distinct content words (names, numbers,
nouns, verbs: what is left after dropping stop words) that occur in the cited
journal lines or in the title of the page it is written under. Words are
compared after a small, explicit normalisation: case, plural/singular and
-ed/-ing/-ly endings, digits and number words ("five" = "5", "2,400" = "2400",
"8.90" = "8.9", "1st" = "first" = "1"), hyphenation ("5-year" -> "5", "year"),
a few unit spellings ("kilo" = "kg", "%" = "percent"), and link syntax
(`[[target|shown]]` reads as its shown text). Pure: no I/O.

Numbers and names are never invented: whatever its score, a sentence is
refused when one of its numbers (amounts, dates, counts; not the loose "one"
and "first") or names (a capitalised word that does not open the sentence or a
clause after a colon, outside headings and table rows; a `[[link]]`, which
stands when a word of its target or all of its shown words occur) is not in the
cited lines, the page title or the lines' journal days (a line of 2026-11-25
grounds "25 November" and "Wednesday"; "yesterday"/"tomorrow" the days around it).

Calibration (tests/benchmarks/grounding_calibration.py, on sample-project/):
  should pass   30 hand paraphrases of one line      min 0.67, median 1.00
                5 test-fixture bodies                all 1.00
                122 wiki sentences vs source days    min 0.80 (short section
                                                     headings such as "Dry goods",
                                                     which only label, are not scored)
                none of these names a number or name its lines lack
  should fail   12 facts from an uncited line        max 0.50, median 0.29
                10 pure inventions                   max 0.25, median 0.00
                12 cited fact + uncited fact mixed   0.30-0.90, median 0.60
  By score alone, thresholds in (0.50, 0.67] separate paraphrases from uncited
  facts and inventions, and mixed sentences overlap the paraphrases (an uncited
  fact that reuses the cited line's words is invisible to word overlap): at 0.6,
  6 of 12 mixed land. With the numbers-and-names rule 3 of 12 land (those that
  add no number or name: "…and says the coffee machine is broken"), no
  paraphrase or page sentence is refused, and "Marta now says a 3-year lease
  would be fine", citing the 5-year line, is refused at any threshold
  ("missing: 3-year"). Recommended `grounding_min`: 0.6.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from gitgarden.guard.rules import Verdict

__all__ = ["RULE", "NAME", "STOP_WORDS", "SentenceScore", "GroundingVerdict", "content_words", "sentences", "score_text", "check"]

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
_ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_TRIM = ".,;:!?()[]{}\"'“”‘’*_<>"  # punctuation around a word quoted in a verdict
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
# Number words that are more often grammar than a count: "a new one", "at first".
_LOOSE_NUMBERS = frozenset({"one", "first"})

_BLOCK_START = re.compile(r"^\s{0,3}(?:#{1,6}\s|>|\||```|~~~)|^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_MARKER = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?)")
_CLOSING_HASHES = re.compile(r"\s#+\s*$")
_CELL = re.compile(r"(?<!\\)\|")
_RULE_CELL = re.compile(r"^:?-+:?$")
_SPLIT = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+")
_ABBREVIATIONS = frozenset(["e.g", "i.e", "etc", "vs", "approx", "no", "nr", "mr", "mrs", "ms", "dr", "st", "ca", "incl", "cf"])


@dataclass(frozen=True)
class SentenceScore:
    """One written sentence, the share of its content words grounded, and the words that were not.

    `unfounded` are the numbers and names among them (as written, "3-year",
    "Marta", "[[dana-reyes|Dana]]"): any one of them refuses the sentence,
    whatever its score.
    """

    sentence: str
    score: float
    missing: tuple[str, ...]
    unfounded: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroundingVerdict(Verdict):
    """A rule-11 verdict that also carries what a correction needs: the score and the words not found."""

    score: float = 0.0
    threshold: float = 0.0
    missing: tuple[str, ...] = ()  # content words not in the cited lines or the title
    unfounded: tuple[str, ...] = ()  # the numbers and names among them, as written

    def to_json(self) -> dict[str, Any]:
        """The verdict as a plain JSON object, with its score and missing words."""
        return {
            **super().to_json(),
            "score": round(self.score, 2),
            "threshold": self.threshold,
            "missing": list(self.missing),
            "unfounded": list(self.unfounded),
        }


@dataclass(frozen=True)
class _Word:
    surface: str  # as written (lowercase), for messages
    norm: str  # as compared
    parts: tuple[str, ...] = ()  # a run of number words: each word's own value
    number: bool = False  # digits, a run of number words, an ordinal
    name: bool = False  # capitalised where a sentence does not start (see `_words`)
    shown: str = ""  # the word as written, with its hyphenated parts ("3-year"), for messages

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
    """Every word of `text`, normalised, stop words included; runs of number words read as one number.

    A capitalised word is a name unless it starts the text or follows a colon
    ("Flour prices: Type 550 …"): there capitals are grammar, not names.
    """
    stripped = _strip_markup(text)
    found = list(_TOKEN.finditer(stripped))
    raw = [m.group(0).lower() for m in found]
    out: list[_Word] = []
    starts = True  # the next word opens the sentence or a clause after a colon
    i = 0
    while i < len(raw):
        tok = raw[i]
        if _is_break(tok):
            starts = starts or tok == ":"
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
            shown = _shown(stripped, found[i].start(), found[j - 1].end())
            out.append(_Word(" ".join(raw[i:j]), str(total + current), parts, number=True, shown=shown))
            i, starts = j, False
            continue
        shown = _shown(stripped, found[i].start(), found[i].end())
        if tok in _ORDINALS:
            out.append(_Word(tok, str(_ORDINALS[tok]), number=True, shown=shown))
        elif tok[0].isdigit():
            out.append(_Word(tok, _number(tok), number=True, shown=shown))
        else:
            name = found[i].group(0)[0].isupper() and not starts and tok not in STOP_WORDS
            out.append(_Word(tok, _SYNONYMS.get(tok) or _stem(tok), name=name, shown=shown))
        starts = False
        i += 1
    return out


def _shown(text: str, start: int, end: int) -> str:
    """The written token around text[start:end], whole: "3-year" for the "3" in "a 3-year lease,"."""
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end].strip(_TRIM) or text[start:end]


def _is_break(token: str) -> bool:
    return len(token) == 1 and not token.isalnum() and token not in "%€$£"


def content_words(text: str) -> list[str]:
    """The normalised content words of `text`, in order, without repeats."""
    return list(dict.fromkeys(w.norm for w in _content(text)))


def _content(text: str) -> list[_Word]:
    return [w for w in _words(text) if w.surface not in STOP_WORDS]


def _vocabulary(texts: Sequence[str], days: Sequence[str] = ()) -> set[str]:
    """Every normalised word of the reference texts, with hyphenated compounds also joined.

    A date grounds its spellings: the cited lines' journal days ("today" in a
    line of 2026-11-25 may be written "25 November"; "yesterday" and "tomorrow"
    name the days either side) and ISO dates in the texts give their day,
    month and year numbers, month name and weekday.
    """
    vocab: set[str] = set()
    for text in texts:
        for w in _words(text):
            vocab.add(w.norm)
            vocab.update(w.parts)
        for compound in _HYPHENATED.findall(_strip_markup(text)):
            vocab.update(w.norm for w in _words(compound.replace("-", "")))
    joined = " ".join(texts).lower()
    dates = {d for d in map(_date, days) if d is not None}
    for d in list(dates):
        if "yesterday" in joined:
            dates.add(d - timedelta(days=1))
        if "tomorrow" in joined:
            dates.add(d + timedelta(days=1))
    dates.update(d for d in map(_date, _ISO_DATE.findall(joined)) if d is not None)
    for d in dates:
        # Names spelled out, not `%B`/`%A`: those follow the process locale.
        vocab.update(w.norm for w in _words(f"{d.day} {_MONTHS[d.month - 1]} {d.year} {_WEEKDAYS[d.weekday()]} {d.month}"))
    return vocab


def _date(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def sentences(text: str) -> list[str]:
    """The sentences of markdown `text`: paragraphs split at sentence ends; a heading, list
    item, quote or table row is a sentence (or several) of its own text, marker stripped.
    A table's header row (the row above its `|---|` rule) is not a sentence, nor is a short
    heading (at most three content words, no number): it labels a section and asserts
    nothing, and refusing "## Deliveries" would refuse faithful pages."""
    return [s for s, _ in _sentences(text)]


def _sentences(text: str) -> list[tuple[str, bool]]:
    """`sentences`, each with True when it is a label — a heading or a table row — where capitals are style."""
    blocks: list[tuple[str, bool]] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            blocks.append((" ".join(current), False))
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
                blocks.append((", ".join(c for c in cells if c), True))
                table_row = True
                continue
            if stripped.startswith(("```", "~~~")):
                continue
            if stripped.startswith("#"):
                heading = _CLOSING_HASHES.sub("", _MARKER.sub("", line)).strip()
                if len(content_words(heading)) > 3 or re.search(r"\d", heading):
                    blocks.append((heading, True))  # a long heading, or one with a number, asserts something
                continue
            line = _MARKER.sub("", line)
        current.append(line.strip())
    flush()
    out: list[tuple[str, bool]] = []
    for block, label in blocks:
        for part in _split_block(block):
            if re.search(r"[^\W_]", part):
                out.append((part, label))
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


def _score(sentence: str, vocab: set[str], *, label: bool = False) -> SentenceScore:
    words: dict[str, _Word] = {}
    for w in _content(sentence):
        words.setdefault(w.norm, w)
    unfounded = _unfounded(sentence, vocab, label=label)
    if not words:
        return SentenceScore(sentence, 1.0, (), unfounded)
    missing = tuple(w.surface for w in words.values() if not w.found_in(vocab))
    return SentenceScore(sentence, (len(words) - len(missing)) / len(words), missing, unfounded)


def _unfounded(sentence: str, vocab: set[str], *, label: bool) -> tuple[str, ...]:
    """The numbers and names of `sentence` that the vocabulary lacks, as written.

    A link is one name: it stands when a word of its target ("kessler-mill") or
    every word it shows occurs, so a link to a page the cited line names
    differently ("[[marta-okafor|the landlord]]") is no invention. In a label
    (a heading or a table row) capitals are style, so only numbers and links count there.
    """
    missing: list[str] = []

    def link(m: re.Match[str]) -> str:
        if not _link_found(m.group(1), vocab):
            missing.append(m.group(0))
        return " linked "  # a neutral word: the link was judged whole

    for w in _words(_WIKILINK.sub(link, sentence)):
        if w.found_in(vocab):
            continue
        if (w.number and w.surface not in _LOOSE_NUMBERS) or (w.name and not label):
            missing.append(w.shown or w.surface)
    return tuple(dict.fromkeys(missing))


def _link_found(inner: str, vocab: set[str]) -> bool:
    target, _, shown = inner.replace("\\|", "|").partition("|")
    target_words, shown_words = _content(target), _content(shown)
    if not target_words and not shown_words:
        return True
    return any(w.found_in(vocab) for w in target_words) or (
        bool(shown_words) and all(w.found_in(vocab) for w in shown_words)
    )


def score_text(text: str, cited_lines: Sequence[str], title: str = "", days: Sequence[str] = ()) -> list[SentenceScore]:
    """Score every sentence of `text` against the cited lines, the page title and the lines' journal `days`.

    A sentence with no content words ("See also.") scores 1.0.
    """
    vocab = _vocabulary([*cited_lines, title], days)
    return [_score(s, vocab, label=label) for s, label in _sentences(text)]


def check(
    prose: Sequence[tuple[str, str]],
    cited_lines: Sequence[str],
    titles: Mapping[str, str],
    threshold: float,
    *,
    days: Sequence[str] = (),
) -> tuple[list[GroundingVerdict], float | None]:
    """Rule 11 over an operation's new prose: (page path, text written there) pairs.

    Returns the verdicts (GroundingVerdict) for sentences scoring under
    `threshold` or naming a number or name the cited lines, their journal
    `days` and the page title do not carry — none when the threshold is 0: the
    rule is off — and the lowest score seen (None when no sentence was scored).
    """
    verdicts: list[GroundingVerdict] = []
    lowest: float | None = None
    cited = "; ".join(repr(_cap(line.strip(), _CITED_CAP)) for line in cited_lines) or "none"
    for path, text in prose:
        for s in score_text(text, cited_lines, titles.get(path, ""), days):
            lowest = s.score if lowest is None else min(lowest, s.score)
            if threshold > 0 and (s.score < threshold or s.unfounded):
                verdicts.append(_verdict(path, s, threshold, cited))
    return verdicts, lowest


def _verdict(path: str, s: SentenceScore, threshold: float, cited: str) -> GroundingVerdict:
    parts = [f"sentence grounded {s.score:.2f}" + (f" < {threshold:.2f}" if s.score < threshold else "")]
    if s.unfounded:
        parts.append(f"numbers and names must come from the cited lines or the title — missing: {', '.join(s.unfounded)}")
    if s.missing:
        parts.append(f"not in the cited lines or the title: {', '.join(s.missing)}")
    parts.append(f"cited: {cited}")
    return GroundingVerdict(
        RULE, NAME, path, _cap(s.sentence, _SENTENCE_CAP), "; ".join(parts),
        score=s.score, threshold=threshold, missing=s.missing, unfounded=s.unfounded,
    )  # fmt: skip


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
