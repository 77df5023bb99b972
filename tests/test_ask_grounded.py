"""No answer sentence ever holds a number or a name its citations lack, whatever the model replies;
and the reply formats `ask` teaches a small model fit the grammar llama.cpp enforces.

The property: random journal lines (names, amounts, plain words, on random days) are offered as
notes; a random reply — sentences made of the same kinds of words, so often holding a number or a
name the notes they cite do not, each citing random notes (full mode), or random picks (small
mode) — goes through the code that keeps or drops sentences. An independent reading of every kept
sentence (its digits and capitalised words, against the cited lines' text, their days and the
pages' titles) must find nothing missing. Hypothesis runs derandomized: the same examples every run.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitgarden.answer import check, compose, prompts
from gitgarden.answer.notes import Journal, Note, line_note
from gitgarden.answer.retrieve import Found
from gitgarden.config import Settings
from gitgarden.guard.words import MONTHS
from gitgarden.model import endpoints
from gitgarden.wiki.journal import JournalLine
from tests.helpers.gbnf import Grammar

NAMES = ["Marta", "Tomasz", "Kessler", "Hofmann", "Dana", "Piotr"]
WORDS = ["quote", "rent", "oven", "flour", "delivery", "price", "deposit", "fitting", "invoice", "worktop", "sacks"]
TITLES = {"oven": "Deck oven", "lease": "Lease at Lindenstrasse", "mill": "Kessler Mill"}
DAYS = [f"2026-03-0{d}" for d in range(1, 10)]


def _number(rng: random.Random) -> str:
    n = rng.choice([rng.randint(1, 99), rng.randint(100, 99_999)])
    return f"{n:,}" if n >= 1000 and rng.random() < 0.5 else str(n)


def _sentence(rng: random.Random, words: int) -> str:
    out = []
    for _ in range(words):
        kind = rng.random()
        out.append(rng.choice(NAMES) if kind < 0.25 else _number(rng) + rng.choice(["", " EUR", " kg"]) if kind < 0.45 else rng.choice(WORDS))
    return "The " + " ".join(out) + "."


def _notes(rng: random.Random) -> tuple[list[Note], Found]:
    lines = []
    for day in sorted(rng.sample(DAYS, 4)):
        lines += [JournalLine(day, n, _sentence(rng, rng.randint(3, 8)), f"k{day}{n}") for n in range(1, rng.randint(2, 4))]
    notes = []
    for ln in lines:
        page = rng.choice([*TITLES, ""])
        note = line_note(ln, page, TITLES.get(page, ""))
        notes.append(note)
    found = Found(notes, [], Journal(lines))
    found.notes_by_line = {n.lines[0].id: n for n in notes if n.page}
    return notes, found


def _reply(rng: random.Random, cited: list[Note]) -> str:
    """A sentence a model might write citing `cited`: made up, or the notes' own words, rearranged,
    with a word of its own slipped in now and then (a number, a name, or a plain word)."""
    if rng.random() < 0.3:
        return _sentence(rng, rng.randint(2, 7))
    words = [w.strip(".") for n in cited for w in n.text.split()[1:]]
    picked = rng.sample(words, min(len(words), rng.randint(2, 6)))
    if rng.random() < 0.5:
        picked.insert(rng.randint(0, len(picked)), rng.choice([_number(rng), rng.choice(NAMES), rng.choice(WORDS)]))
    return "The " + " ".join(picked) + "."


def missing(sentence: compose.Sentence) -> list[str]:
    """The digits runs and capitalised words of `sentence` that its cited lines and the titles of its
    pages do not hold, the day a composed sentence ends in (`(4 March 2026)`) standing when it is
    a cited line's (an independent reading: no rule-11 code)."""
    cited = " ".join(ln.text for ln in sentence.lines) + " " + " ".join(TITLES.get(p, "") for p in sentence.pages)
    numbers = {n.replace(",", "") for n in re.findall(r"\d[\d,]*", cited)}
    days = {f"({int(ln.day[8:])} {MONTHS[int(ln.day[5:7]) - 1].capitalize()} {ln.day[:4]})" for ln in sentence.lines}
    text = re.sub(r"\(\d{1,2} [A-Z][a-z]+ \d{4}\)", lambda m: "" if m.group(0) in days else m.group(0), sentence.text)
    out = [n for n in re.findall(r"\d[\d,]*\d|\d", text) if n.replace(",", "") not in numbers]
    words = text.split()
    out += [w.strip(".,") for w in words[1:] if w[:1].isupper() and w.strip(".,").casefold() not in cited.casefold()]
    return out


@settings(derandomize=True, max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.randoms(use_true_random=False))
def test_no_kept_sentence_holds_a_number_or_name_its_citations_lack(rng: random.Random) -> None:
    notes, found = _notes(rng)
    q = check.question(_sentence(rng, rng.randint(1, 4)).replace("The ", "What is the ", 1).rstrip(".") + "?")
    written = []
    for _ in range(rng.randint(1, 3)):
        cites = tuple(rng.sample(range(len(notes)), rng.randint(1, 2)))
        written.append(prompts.Written(_reply(rng, [notes[i] for i in cites]), cites))
    kept, _dropped = compose.from_written(q, written, notes, found, rng.choice([0.0, 0.6]))
    picked, _ = compose.from_picks(q, rng.sample(notes, rng.randint(1, 2)), found, 0.6)
    for sentence in kept + picked:
        assert missing(sentence) == [], (sentence, [ln.text for ln in sentence.lines])


def test_the_property_catches_an_invented_number() -> None:
    line = JournalLine("2026-03-04", 1, "Marta quoted 2,950 EUR for the oven.", "k")
    assert missing(compose.Sentence("Marta quoted 2,950 EUR (4 March 2026).", (line,))) == []
    assert missing(compose.Sentence("Marta quoted 2,950 EUR (5 March 2026).", (line,))) == ["5", "2026", "March"]
    assert missing(compose.Sentence("Marta quoted 3,400 EUR for Piotr.", (line,))) == ["3,400", "Piotr"]


LOCAL = Settings(model="openai/local", api_base="http://127.0.0.1:8080/v1")


@pytest.mark.parametrize("mode", ["small", "full"])
def test_the_reply_example_each_prompt_shows_fits_the_grammar_the_server_enforces(mode: str) -> None:
    gbnf = pytest.importorskip("llama_cpp.llama_grammar", reason="llama-cpp-python not installed (the realmodel extra)")
    sent = endpoints.response_format(LOCAL, prompts.schema(4, mode))
    assert sent is not None and sent["type"] == "json_object"
    grammar = Grammar.parse(gbnf.json_schema_to_gbnf(json.dumps(sent["schema"])))
    system = prompts.messages("p", [], "q?", mode)[0]["content"]
    decoder = json.JSONDecoder()
    shown = [system[m.start() : decoder.raw_decode(system, m.start())[1]] for m in re.finditer(r'\{"(?:notes|sentences)"', system)]
    assert len(shown) == (1 if mode == "small" else 2), system
    for example in shown:
        assert grammar.accepts(example), example
    assert not grammar.accepts('{"notes": ["5"]}')  # a note that was not offered cannot be written


def test_a_word_of_the_persons_own_the_garden_never_uses_does_not_hide_a_note_its_names_point_at() -> None:
    """"How much would Fjellstart invest?" where the line says "put in £400k": the question's name
    and the number it asks for find the note; a question about nothing the garden holds still does not."""
    known = check.vocabulary(["Call with Henrik: Fjellstart would put in £400k at a £3.2m pre-money valuation."])
    asked = check.question("How much would Fjellstart invest?")
    assert check.unknown(asked, known) == {"invest"}
    narrowed = check.narrowed(asked, known)
    assert check.unknown(narrowed, known) == frozenset()
    assert check.speaks_to(narrowed, ["Call with Henrik: Fjellstart would put in £400k at a £3.2m pre-money valuation."])
    for other in ("What is our monthly burn rate?", "What is Fjellstart's favourite colour?", "How much would Acme invest?"):
        q = check.question(other)
        assert check.unknown(check.narrowed(q, known), known), other


def test_a_name_the_other_notes_of_its_page_hold_counts_for_the_question() -> None:
    q = check.question("What pre-money valuation is in the Fjellstart term sheet?")
    own = ["Henrik emailed the term sheet: pre-money is £3.5m, not 3.2, his partners pushed it up."]
    context = ["Henrik Solheim", "henrik solheim"]
    assert not check.speaks_to(q, own, context)
    assert check.speaks_to(q, own, context, neighbours=["Henrik Solheim of Fjellstart Ventures wants a call about our seed round."])
    assert not check.speaks_to(q, own, context, neighbours=["Henrik Solheim of Acme wants a call."])
