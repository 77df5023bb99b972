"""Small mode's reading of each line: the model's score weighed with what code sees in the line.

The model's P(yes) — is this line worth keeping? — is nudged by code: an amount, a date, an id or a
person named in full counts for a fact; the look of weather, a meal, sleep, an appointment counts
against (`wiki.chatter`), unless the word is the project's own. The result is held against the
model's threshold: a fact, chatter (skipped with its kind), or — too close to call — unsure, left
unread with its score. A decision and a question are known by their words. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gitgarden.model import judge
from gitgarden.wiki import changes, decisions, subjects
from gitgarden.wiki.chatter import chatter_kind
from gitgarden.wiki.journal import JournalLine

__all__ = ["Reading", "read_lines", "settled", "QUESTION"]

_UNSURE_BAND = 0.08  # scores this close below the threshold are neither kept nor dropped
_CHATTER_WEIGHT = 0.3  # what a line's look of chatter (weather, a meal…) takes off its score
_VALUE_WEIGHT = 0.1  # what an amount, a date or an id adds
_ANSWER_CHATTER_WEIGHT = 0.45  # the same, where the model's score is its yes/no answer alone
QUESTION = re.compile(r"\?\s*(?:ask\b.*)?$|^\s*(?:ask|find out|check (?:whether|if)|to ask)\b", re.I)


@dataclass(frozen=True)
class Reading:
    """What became of one line: its kind (fact, decision, question, chatter, unsure, failed) and why."""

    line: JournalLine
    kind: str
    reason: str = ""
    score: float | None = None


def read_lines(
    offered: Sequence[JournalLine],
    verdicts: Sequence[judge.Verdict],
    threshold: float,
    titles: Iterable[str] = (),
    domain: frozenset[str] = frozenset(),
) -> list[Reading]:
    """Each line's kind from the model's verdict and what code sees in it. `titles` are the pages'
    titles and aliases: a person one of them names, or one the lines name in full, counts for a fact.
    `domain` are the project's own words (`chatter.domain_words`): none of them looks like chatter."""
    by_id = {v.line: v for v in verdicts}
    people = _people(offered, titles)
    out = []
    for line in offered:
        v = by_id.get(line.id)
        text = line.text
        if v is None or v.score is None:
            out.append(Reading(line, "failed", v.why if v is not None else "the model was not asked"))
            continue
        chatter = _looks(text, domain)
        weight = _ANSWER_CHATTER_WEIGHT if v.how == "answer" else _CHATTER_WEIGHT
        has_value = bool(changes.values(text)) or subjects.has_id(text)
        # An amount or a date counts for a fact unless the line looks like chatter ("ran 8 km"); one
        # that says it changes an earlier value ("not 31", "moved to") counts twice.
        bonus = 0.0 if chatter or not has_value else _VALUE_WEIGHT * (2.5 if changes.has_change_cue(text) else 1)
        # A name given in full ("Marguerite Oyelaran wants …"), or a person known by it ("Hamish has
        # worked with Carys"), counts for a fact as a value does.
        named = [m.text for m in subjects.mentions(text, people) if m.kind == "name"]
        if not chatter and any(" " in n or subjects.fold(n) in people for n in named):
            bonus += _VALUE_WEIGHT
        score = v.score - (weight if chatter else 0.0) + bonus
        if decisions.is_decision(text) and (not chatter or v.score >= threshold):
            # "We agreed to sign … if our lawyer is happy": a feeling word in a decision the model keeps
            out.append(Reading(line, "decision", score=score))
        elif QUESTION.search(text.strip()) and (score >= threshold - 4 * _UNSURE_BAND or subjects.mentions(text)):
            out.append(Reading(line, "question", score=score))
        elif score >= threshold:
            out.append(Reading(line, "fact", score=score))
        elif score >= threshold - _UNSURE_BAND:
            weighed = f", weighed {score:.2f} ({_weighing(chatter, bonus)})," if round(score, 2) != round(v.score, 2) else ""
            why = f"unsure: the model's score {v.score:.2f}{weighed} is too close to this model's threshold {threshold:.2f}"
            out.append(Reading(line, "unsure", why, score))
        else:
            why = chatter or "not about the project"
            out.append(Reading(line, "chatter", f"chatter: {why}", score))
    return out


def _weighing(chatter: str, bonus: float) -> str:
    """What code added to or took off the model's score, in words: "looks like free time"."""
    said = [f"looks like {chatter}"] if chatter else []
    return ", ".join(said + ([f"+{bonus:.2f} for its amounts, dates, ids or names"] if bonus else [])) or "weighed"


def settled(text: str, domain: frozenset[str] = frozenset()) -> bool:
    """Whether code settles a line's kind whatever score the model gives it (`read_lines`): a decision
    without a look of chatter, a question that names a subject, the look of chatter with nothing of a
    fact in it — no amount, date, id or name ("Rain all day, the dog refused to go out") — or a fact
    with no look of chatter that gives an id, or an amount or a date beside a name in full ("Ferhat
    Yilmaz quoted £18,600 for the fit-out"; on the labelled weeks about two facts in five, and one
    chatter line in 250)."""
    if decisions.is_decision(text):
        return not _looks(text, domain)
    if QUESTION.search(text.strip()):
        return bool(subjects.mentions(text))
    found = subjects.mentions(text)
    values = changes.values(text)
    if _looks(text, domain):
        return not values and not any(m.kind in ("name", "id") for m in found)
    valued = any(v.kind in ("amount", "date") for v in values)
    return any(m.kind == "id" for m in found) or (valued and any(m.kind == "name" and " " in m.text for m in found))


def _looks(text: str, domain: frozenset[str]) -> str:
    """The chatter a line looks like (`chatter_kind`), or "" for a line that corrects a value: "Correction:
    Wyvern's figure is £4,630, not £4,360; I'd read the PDF on my phone" is no errand …"""
    if changes.corrects(text) or any(m.kind == "id" and re.search(r"[-/]", m.text) for m in subjects.mentions(text)):
        return ""  # … nor one that gives a reference ("booking ref BV-0829-KEA" for "the reunion dinner")
    if changes.reverses(text) and changes.values(text) and chatter_kind(text, domain) != "the journey":
        return ""  # … nor one that goes back on a value ("so swimming is Wednesday 28th instead"), but a train is the journey
    if decisions.is_decision(text) and (any(v.kind == "amount" for v in changes.values(text)) or _TURNED_DOWN.search(text)):
        # … nor a decision that prices its choice ("… hot food package at £4.25 a head") or names the one it
        # turned down ("a bring-and-share lunch rather than a barbecue")
        return ""
    if decisions.headed(text):
        return ""  # … nor a line the person heads "Decision:" ("… break the journey at Carmarthen for lunch")
    if decisions.is_decision(text) and not chatter_kind(decisions.first_clause(text), domain):
        return ""  # … nor a decision whose chatter is an aside after it ("…, she'd live on toast otherwise")
    if _introduces(text) or ((m := _PROJECT_LEADS.match(text)) and subjects.content_words(m.group(1)) & domain):
        return ""  # … nor one that introduces a person or opens with the project's own thing ("The club runs …")
    return chatter_kind(text, domain)


_TURNED_DOWN = re.compile(r"\b(?:rather than|instead of|in preference to)\b|,\s*not\s+(?:the|a|an|another)\b", re.I)
# "The club runs 9am to 3pm, with early drop-off …": the project's own thing ("club") leads the line
_PROJECT_LEADS = re.compile(r"\s*(?:the|our)\s+([\w-]+)\s+(?:runs|is|are|will|starts|opens|closes|has|costs)\b", re.I)


def _introduces(text: str) -> bool:
    """True when the line opens by introducing someone: a name in full, then who they are ("Becky
    Townsend, who runs the club, emailed the kit list: … a packed lunch") — not "Car MOT, passed"."""
    found = subjects.mentions(text)
    if not found or found[0].start != 0 or found[0].kind != "name" or not subjects.is_full_name(found[0].text):
        return False
    return re.match(r",\s+[a-z][\w'-]*(?:\s+[\w'&-]+){1,6},\s", text[len(found[0].text) :]) is not None


def _people(offered: Sequence[JournalLine], titles: Iterable[str]) -> set[str]:
    """Folded names of people: each name given in full in the lines or as a title, and its first word."""
    full = subjects.full_names(ln.text for ln in offered) | {t for t in titles if subjects.is_full_name(t)}
    return {subjects.fold(n) for n in full} | {subjects.fold(n.split()[0]) for n in full}
