"""Rule 11 (grounded): every sentence a pass writes comes from the lines its operation cites.

A sentence's score is the share of its distinct content words (names, numbers,
nouns, verbs: what is left after dropping stop words) that occur in the cited
journal lines or in the title of the page it is written under. Words are
compared after the normalisation of `guard/words.py` (case, endings, number
words, spellings), with hyphenation ("5-year" -> "5", "year") and link syntax
(`[[target|shown]]` reads as its shown text) undone by `guard/contentwords.py`. Pure: no I/O.

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

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gitgarden.guard import dates
from gitgarden.guard.contentwords import (
    HYPHENATED,
    WIKILINK,
    Word,
    content_of,
    content_words,
    strip_markup,
    words_of,
)
from gitgarden.guard.rules import Verdict
from gitgarden.guard.words import (
    LOOSE_NUMBERS,
    STOP_WORDS,
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


@dataclass
class _Reference:
    """What a sentence may draw on: the words of the cited lines and title, and the spellings of the
    dates they speak of, which ground only the words of a date expression."""

    words: set[str] = field(default_factory=set)
    dates: set[str] = field(default_factory=set)

    def holds(self, w: Word) -> bool:
        return w.found_in(self.words) or (w.date and w.found_in(self.dates))


def _reference(texts: Sequence[str], days: Sequence[str] = ()) -> _Reference:
    """Every normalised word of the reference texts, with hyphenated compounds also joined, and the
    spellings of the dates they speak of (`dates.days_named`: the lines' journal days, the days
    around them for "yesterday"/"tomorrow", ISO dates written in them). The numbers of the
    texts' own date expressions join the dates: they ground a date, never a count."""
    ref = _Reference()
    for text in texts:
        for w in words_of(text):
            # A number the lines write as a date ("on the 14th") grounds that date, not "14 hours".
            into = ref.dates if w.number and w.date else ref.words
            into.add(w.norm)
            into.update(w.parts)
        for compound in HYPHENATED.findall(strip_markup(text)):
            ref.words.update(w.norm for w in words_of(compound.replace("-", "")))
    for d in dates.days_named(texts, days):
        ref.dates.update(w.norm for w in words_of(dates.spellings(d)))
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
    words: dict[tuple[str, bool], Word] = {}
    for w in content_of(sentence):
        words.setdefault((w.norm, w.date), w)  # "9 June" and "9 times" are two words
    unfounded = tuple(dict.fromkeys(shown for shown, _ in _unfounded(sentence, ref, label=label)))
    if not words:
        return SentenceScore(sentence, 1.0, (), unfounded)
    missing = tuple(dict.fromkeys(w.surface for w in words.values() if not ref.holds(w)))
    held = sum(ref.holds(w) for w in words.values())
    return SentenceScore(sentence, held / len(words), missing, unfounded)


def _unfounded(sentence: str, ref: _Reference, *, label: bool) -> list[tuple[str, Word | str]]:
    """The numbers and names of `sentence` that the reference lacks: (as written, the word or the
    link's inside), so a caller can look for them elsewhere.

    A link is one name: it stands when a word of its target ("kessler-mill") or
    every word it shows occurs, so a link to a page the cited line names
    differently ("[[marta-okafor|the landlord]]") is no invention. In a label
    (a heading or a table row) capitals are style, so only numbers and links count there.
    """
    missing: list[tuple[str, Word | str]] = []

    def link(m: re.Match[str]) -> str:
        if not _link_found(m.group(1), ref):
            missing.append((m.group(0), m.group(1)))
        return " linked "  # a neutral word: the link was judged whole

    for w in words_of(WIKILINK.sub(link, sentence)):
        if ref.holds(w):
            continue
        if (w.number and w.surface not in LOOSE_NUMBERS) or (w.name and not label):
            missing.append((w.shown or w.surface, w))
    return missing


def _link_found(inner: str, ref: _Reference) -> bool:
    target, _, shown = inner.replace("\\|", "|").partition("|")
    target_words, shown_words = content_of(target), content_of(shown)
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
    lacking: list[tuple[str, Word | str]] = [(w.surface, w) for w in content_of(WIKILINK.sub(" ", sentence)) if not ref.holds(w)]
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
