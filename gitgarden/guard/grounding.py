"""Rule 11 (grounded): every sentence a pass writes comes from the lines its operation cites.

A sentence's score is the share of its distinct content words (names, numbers,
nouns, verbs: what is left after dropping stop words) that occur in the cited
journal lines or in the title of the page it is written under. Words are
compared after the normalisation of `guard/words.py` (case, endings, number
words, spellings), with hyphenation ("5-year" -> "5", "year") and link syntax
(`[[target|shown]]` reads as its shown text) undone here. Pure: no I/O.

Numbers and names are never invented: whatever its score, a sentence is
refused when one of its numbers (amounts, dates, counts; not the loose "one"
and "first") or names (a capitalised word that does not open the sentence or a
clause after a colon, outside headings and table rows; a `[[link]]`, which
stands when a word of its target or all of its shown words occur) is not in the
cited lines or the page title. The lines' journal days ground dates only
(`guard/dates.py`): a line of 2026-11-25 grounds "25 November" and "Wednesday"
("yesterday"/"tomorrow" the days around it), never "25 years" or "EUR 25".

A refused sentence's verdict names the other offered lines that hold its
missing words (`lines_holding`), so the repair round can cite them; a line
named there grounds nothing until an operation cites it.

Calibration: `tests/benchmarks/grounding_calibration.py` (the figures are in
docs/performance.md): on 111 plain paraphrases of lines nobody here wrote,
5 refused (12 before the normalisation table and the date rule of issue 26),
and none of 122 altered facts lands; on sample-project/, no faithful
paraphrase or wiki sentence refused, 3 of 12 cited-plus-uncited mixtures land
(those that add no number or name). Recommended `grounding_min`: 0.6.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gitgarden.guard import dates
from gitgarden.guard.rules import Verdict
from gitgarden.guard.words import (
    LOOSE_NUMBERS,
    MULTIPLIERS,
    NUMBER_WORDS,
    ORDINALS,
    REPORTING,
    ROMAN,
    SCALES,
    STOP_WORDS,
    UNITS,
    normal,
    number,
)

__all__ = [
    "RULE", "NAME", "STOP_WORDS", "SentenceScore", "GroundingVerdict", "content_words", "sentences", "score_text",
    "lines_holding", "check",
]  # fmt: skip

RULE = 11
NAME = "grounded"
_SENTENCE_CAP = 300  # characters of a sentence kept in a verdict, as the guard caps its lines
_CITED_CAP = 200  # characters of each cited line quoted in a verdict
_HOLDING_CAP = 3  # other offered lines a verdict names as holding a sentence's missing words

_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\s]*\)")
_POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
_APOSTROPHE = re.compile(r"(?<=\w)['’](?=\w)")
_THOUSANDS = re.compile(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b")
_ORDINAL_DIGITS = re.compile(r"\b(\d+)(?:st|nd|rd|th)\b", re.I)
_TOKEN = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+|[%€$£]|[^\w\s%€$£'’-]")  # the last: punctuation, a break
_HYPHENATED = re.compile(r"[^\W_]+(?:-[^\W_]+)+")
_TRIM = ".,;:!?()[]{}\"'“”‘’*_<>"  # punctuation around a word quoted in a verdict

_BLOCK_START = re.compile(r"^\s{0,3}(?:#{1,6}\s|>|\||```|~~~)|^\s*(?:[-*+]|\d{1,9}[.)])\s+")
# A thematic break (`---`, `***`, `___`) or a setext underline (`===`): no words, and the end of a
# paragraph — never glued to the lines around it, which are judged each on its own.
_BREAK_LINE = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,}|=+[ \t]*)$")
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
    """A rule-11 verdict that also carries what a correction needs: the score, the words not found,
    and the other offered lines that hold them (`lines_holding`: (line id, its words) pairs)."""

    score: float = 0.0
    threshold: float = 0.0
    missing: tuple[str, ...] = ()  # content words not in the cited lines or the title
    unfounded: tuple[str, ...] = ()  # the numbers and names among them, as written
    lines_holding: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The verdict as a plain JSON object, with its score, missing words and the lines holding them."""
        return {
            **super().to_json(),
            "score": round(self.score, 2),
            "threshold": self.threshold,
            "missing": list(self.missing),
            "unfounded": list(self.unfounded),
            "lines_holding": {line_id: list(held) for line_id, held in self.lines_holding},
        }


@dataclass(frozen=True)
class _Word:
    surface: str  # as written (lowercase), for messages
    norm: str  # as compared
    parts: tuple[str, ...] = ()  # a run of number words: each word's own value
    number: bool = False  # digits, a run of number words, an ordinal
    name: bool = False  # capitalised where a sentence does not start (see `_words`)
    shown: str = ""  # the word as written, with its hyphenated parts ("3-year"), for messages
    date: bool = False  # part of a date expression ("9 June", "on the 9th"): a journal day may ground it

    def found_in(self, vocab: set[str]) -> bool:
        # A run matches by its value, or when every one of its words does.
        return self.norm in vocab or (bool(self.parts) and all(p in vocab for p in self.parts))


@dataclass
class _Reference:
    """What a sentence may draw on: the words of the cited lines and title, and the spellings of the
    dates they speak of, which ground only the words of a date expression."""

    words: set[str] = field(default_factory=set)
    dates: set[str] = field(default_factory=set)

    def holds(self, w: _Word) -> bool:
        return w.found_in(self.words) or (w.date and w.found_in(self.dates))


def _strip_markup(text: str, comma: str = "") -> str:
    """`text` as words are read from it: links as their text, no possessives or apostrophes, thousands
    separators as `comma` (gone by default), dotted dates slashed, ordinal endings gone."""
    text = _WIKILINK.sub(lambda m: _link_text(m.group(1)), text)
    text = _MDLINK.sub(r"\1", text)
    text = _POSSESSIVE.sub("", text)
    text = _APOSTROPHE.sub("", text)
    text = _THOUSANDS.sub(lambda m: m.group(0).replace(",", comma), text)
    text = dates.undot(text)
    return _ORDINAL_DIGITS.sub(r"\1", text)


_GROUPED = "\0"  # a thousands separator while dates are looked for (no text a guard reads holds NUL)


def _stripped_with_dates(text: str) -> tuple[str, list[tuple[int, int]]]:
    """`_strip_markup(text)` and its date spans, looked for while the thousands separators still
    stand: "by 1,000 units" and "0,000" hold no year, though "1000" and "0000" would read as one."""
    marked = _strip_markup(text, comma=_GROUPED)
    cuts = [i for i, c in enumerate(marked) if c == _GROUPED]
    if not cuts:
        return marked, dates.spans(marked)

    def at(pos: int) -> int:
        return pos - bisect.bisect_left(cuts, pos)

    return marked.replace(_GROUPED, ""), [(at(a), at(b)) for a, b in dates.spans(marked)]


def _link_text(inner: str) -> str:
    inner = inner.replace("\\|", "|")
    if "|" in inner:
        return inner.split("|", 1)[1]
    return inner.replace("#", " ").replace("/", " ")


def _words(text: str) -> list[_Word]:
    """Every word of `text`, normalised, stop words included; runs of number words read as one number.

    A capitalised word is a name unless it starts the text or follows a colon
    ("Flour prices: Type 550 …"): there capitals are grammar, not names. A word
    inside a date expression (`dates.spans`) is marked `date`.
    """
    stripped, in_date = _stripped_with_dates(text)
    found = list(_TOKEN.finditer(stripped))
    raw = [m.group(0).lower() for m in found]

    def dated(i: int) -> bool:
        at = found[i].start()
        return raw[i] in dates.DATE_WORDS or any(a <= at < b for a, b in in_date)

    out: list[_Word] = []
    starts = True  # the next word opens the sentence or a clause after a colon
    i = 0
    while i < len(raw):
        tok = raw[i]
        if _is_break(tok):
            starts = starts or tok == ":"
            i += 1
            continue
        if tok in NUMBER_WORDS:
            j = _number_run(raw, i)
            run = [t for t in raw[i:j] if t != "and"]
            total = _run_value(run)
            parts = tuple(str(NUMBER_WORDS.get(t, ORDINALS.get(t))) for t in run) if len(run) > 1 else ()
            shown = _shown(stripped, found[i].start(), found[j - 1].end())
            out.append(_Word(" ".join(raw[i:j]), str(total), parts, number=True, shown=shown, date=dated(i)))
            i, starts = j, False
            continue
        shown = _shown(stripped, found[i].start(), found[i].end())
        written = found[i].group(0)
        capital = written[0].isupper() and tok not in STOP_WORDS
        if _regnal(written, tok, starts, raw[i - 1] if i else ""):
            # "Richard the Third", "Richard III": a name's part, not a count (read as "third").
            out.append(_Word(tok, ROMAN.get(tok, tok), name=True, shown=shown))
        elif tok in ORDINALS:
            out.append(_Word(tok, str(ORDINALS[tok]), number=True, shown=shown, date=dated(i)))
        elif tok[0].isdigit():
            out.append(_Word(tok, number(tok), number=True, shown=shown, date=dated(i)))
        else:
            # An opening capital is grammar, except before a verb of saying: "Piotr says …" names someone.
            name = capital and (not starts or (i + 1 < len(raw) and raw[i + 1] in REPORTING))
            out.append(_Word(tok, normal(tok), name=name, shown=shown, date=dated(i)))
        starts = False
        i += 1
    return out


def _regnal(written: str, tok: str, starts: bool, before: str) -> bool:
    """A capitalised ordinal inside a name ("the Third") or a Roman numeral after one ("III")."""
    if starts:
        return False
    if tok in ORDINALS:
        return written[0].isupper() and before == "the"
    return tok in ROMAN and written.isupper() and before not in STOP_WORDS


def _number_run(raw: list[str], i: int) -> int:
    """Where the run of number words starting at `i` ends: "two hundred and fifty", "twenty-first"."""
    j = i
    while j < len(raw):
        t = raw[j]
        if t in NUMBER_WORDS:
            j += 1
        elif t == "and" and j > i and raw[j - 1] in NUMBER_WORDS and j + 1 < len(raw) and raw[j + 1] in UNITS:
            j += 1  # "two hundred and fifty"
        elif t in ORDINALS and ORDINALS[t] < 10 and raw[j - 1] in ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"):
            return j + 1  # "twenty-first": the ordinal ends the run
        else:
            break
    return j


def _run_value(run: list[str]) -> int:
    total, current = 0, 0
    for t in run:
        if t in UNITS:
            current += UNITS[t]
        elif t in ORDINALS:
            current += ORDINALS[t]
        elif t in MULTIPLIERS:
            current = max(current, 1) * MULTIPLIERS[t]
        elif t in SCALES:
            total += max(current, 1) * SCALES[t]
            current = 0
    return total + current


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


def _reference(texts: Sequence[str], days: Sequence[str] = ()) -> _Reference:
    """Every normalised word of the reference texts, with hyphenated compounds also joined, and the
    spellings of the dates they speak of (`dates.days_named`: the lines' journal days, the days
    around them for "yesterday"/"tomorrow", ISO dates written in them). The numbers of the
    texts' own date expressions join the dates: they ground a date, never a count."""
    ref = _Reference()
    for text in texts:
        for w in _words(text):
            # A number the lines write as a date ("on the 14th") grounds that date, not "14 hours".
            into = ref.dates if w.number and w.date else ref.words
            into.add(w.norm)
            into.update(w.parts)
        for compound in _HYPHENATED.findall(_strip_markup(text)):
            ref.words.update(w.norm for w in _words(compound.replace("-", "")))
    for d in dates.days_named(texts, days):
        ref.dates.update(w.norm for w in _words(dates.spellings(d)))
    return ref


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
        if not line.strip() or _BREAK_LINE.match(line):
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


def _score(sentence: str, ref: _Reference, *, label: bool = False) -> SentenceScore:
    words: dict[tuple[str, bool], _Word] = {}
    for w in _content(sentence):
        words.setdefault((w.norm, w.date), w)  # "9 June" and "9 times" are two words
    unfounded = tuple(dict.fromkeys(shown for shown, _ in _unfounded(sentence, ref, label=label)))
    if not words:
        return SentenceScore(sentence, 1.0, (), unfounded)
    missing = tuple(dict.fromkeys(w.surface for w in words.values() if not ref.holds(w)))
    held = sum(ref.holds(w) for w in words.values())
    return SentenceScore(sentence, held / len(words), missing, unfounded)


def _unfounded(sentence: str, ref: _Reference, *, label: bool) -> list[tuple[str, _Word | str]]:
    """The numbers and names of `sentence` that the reference lacks: (as written, the word or the
    link's inside), so a caller can look for them elsewhere.

    A link is one name: it stands when a word of its target ("kessler-mill") or
    every word it shows occurs, so a link to a page the cited line names
    differently ("[[marta-okafor|the landlord]]") is no invention. In a label
    (a heading or a table row) capitals are style, so only numbers and links count there.
    """
    missing: list[tuple[str, _Word | str]] = []

    def link(m: re.Match[str]) -> str:
        if not _link_found(m.group(1), ref):
            missing.append((m.group(0), m.group(1)))
        return " linked "  # a neutral word: the link was judged whole

    for w in _words(_WIKILINK.sub(link, sentence)):
        if ref.holds(w):
            continue
        if (w.number and w.surface not in LOOSE_NUMBERS) or (w.name and not label):
            missing.append((w.shown or w.surface, w))
    return missing


def _link_found(inner: str, ref: _Reference) -> bool:
    target, _, shown = inner.replace("\\|", "|").partition("|")
    target_words, shown_words = _content(target), _content(shown)
    if not target_words and not shown_words:
        return True
    return any(ref.holds(w) for w in target_words) or (bool(shown_words) and all(ref.holds(w) for w in shown_words))


def score_text(text: str, cited_lines: Sequence[str], title: str = "", days: Sequence[str] = ()) -> list[SentenceScore]:
    """Score every sentence of `text` against the cited lines, the page title and the lines' journal `days`.

    A sentence with no content words ("See also.") scores 1.0.
    """
    ref = _reference([*cited_lines, title], days)
    return [_score(s, ref, label=label) for s, label in _sentences(text)]


def lines_holding(
    sentence: str, cited_lines: Sequence[str], elsewhere: Mapping[str, tuple[str, str]], title: str = "", days: Sequence[str] = ()
) -> dict[str, tuple[str, ...]]:
    """Which of the `elsewhere` lines (id -> (text, journal day)) hold the words of `sentence` that
    the cited lines, the title and their days lack, and which words each holds.

    Lines are chosen greedily: the one holding most of what is still lacking (a line of a cited
    day first, then the earlier id), each for words no line named before holds, and only for a
    number or a name or at least two words; at most `_HOLDING_CAP` lines. Only a suggestion for
    the repair round: a line named here grounds nothing until an operation cites it.
    """
    return _holding(sentence, _reference([*cited_lines, title], days), elsewhere, label=False, title=title, days=days)


def _holding(
    sentence: str, ref: _Reference, elsewhere: Mapping[str, tuple[str, str]], *, label: bool, title: str = "", days: Sequence[str] = ()
) -> dict[str, tuple[str, ...]]:
    # Links are looked for whole (as `_unfounded` judges them), the other words one by one.
    lacking: list[tuple[str, _Word | str]] = [(w.surface, w) for w in _content(_WIKILINK.sub(" ", sentence)) if not ref.holds(w)]
    lacking += [item for item in _unfounded(sentence, ref, label=label) if isinstance(item[1], str)]
    if not lacking or not elsewhere:
        return {}
    vital = {shown for shown, item in lacking if isinstance(item, str) or item.number or item.name}
    found: dict[str, list[str]] = {}
    for line_id, (text, day) in elsewhere.items():
        other = _reference([text, title], [day] if day else [])
        held = [shown for shown, item in lacking if (_link_found(item, other) if isinstance(item, str) else other.holds(item))]
        if held:
            found[line_id] = list(dict.fromkeys(held))
    # Greedy: the line holding most of what is still lacking (a line of a cited day first), then the
    # next; a line is named only for a number or name, or two words, no named line already holds.
    chosen: dict[str, tuple[str, ...]] = {}
    covered: set[str] = set()
    while found and len(chosen) < _HOLDING_CAP:
        def gain(i: str) -> tuple[int, int, bool, str]:
            new = [w for w in found[i] if w not in covered]
            return (len(new), sum(w in vital for w in new), i.split("#")[0] in days, i)

        best = max(found, key=lambda i: gain(i)[:3] + (_negate(i),))
        new = [w for w in found.pop(best) if w not in covered]
        if not (len(new) >= 2 or any(w in vital for w in new)):
            break
        chosen[best] = tuple(new)
        covered.update(new)
    return {i: chosen[i] for i in sorted(chosen)}


def _negate(line_id: str) -> tuple[int, ...]:
    """A sort key that puts earlier line ids first under `max`."""
    return tuple(-ord(c) for c in line_id)


def check(
    prose: Sequence[tuple[str, str]],
    cited_lines: Sequence[str],
    titles: Mapping[str, str],
    threshold: float,
    *,
    days: Sequence[str] = (),
    elsewhere: Mapping[str, tuple[str, str]] | None = None,
) -> tuple[list[GroundingVerdict], float | None]:
    """Rule 11 over an operation's new prose: (page path, text written there) pairs.

    Returns the verdicts (GroundingVerdict) for sentences scoring under
    `threshold` or naming a number or name the cited lines, their journal
    `days` and the page title do not carry — none when the threshold is 0: the
    rule is off — and the lowest score seen (None when no sentence was scored).
    `elsewhere` are the other lines offered in the pass (id -> (text, journal
    day)): a verdict names those that hold the sentence's missing words, so the
    model can cite them too; they ground nothing here.
    """
    verdicts: list[GroundingVerdict] = []
    lowest: float | None = None
    cited = "; ".join(repr(_cap(line.strip(), _CITED_CAP)) for line in cited_lines) or "none"
    for path, text in prose:
        title = titles.get(path, "")
        ref = _reference([*cited_lines, title], days)
        for sentence, label in _sentences(text):
            s = _score(sentence, ref, label=label)
            lowest = s.score if lowest is None else min(lowest, s.score)
            if threshold > 0 and (s.score < threshold or s.unfounded):
                holding = _holding(sentence, ref, elsewhere or {}, label=label, title=title, days=days)
                verdicts.append(_verdict(path, s, threshold, cited, holding))
    return verdicts, lowest


def _verdict(path: str, s: SentenceScore, threshold: float, cited: str, holding: Mapping[str, tuple[str, ...]]) -> GroundingVerdict:
    parts = [f"sentence grounded {s.score:.2f}" + (f" < {threshold:.2f}" if s.score < threshold else "")]
    if s.unfounded:
        parts.append(f"numbers and names must come from the cited lines or the title — missing: {', '.join(s.unfounded)}")
    if s.missing:
        parts.append(f"not in the cited lines or the title: {', '.join(s.missing)}")
    if holding:
        where = "; ".join(f"{', '.join(repr(w) for w in held)} {'is' if len(held) == 1 else 'are'} in {line_id}" for line_id, held in holding.items())
        parts.append(f"{where}: cite {'it' if len(holding) == 1 else 'them'} too, or leave those words out")
    parts.append(f"cited: {cited}")
    return GroundingVerdict(
        RULE, NAME, path, _cap(s.sentence, _SENTENCE_CAP), "; ".join(parts),
        score=s.score, threshold=threshold, missing=s.missing, unfounded=s.unfounded,
        lines_holding=tuple(holding.items()),
    )  # fmt: skip


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
