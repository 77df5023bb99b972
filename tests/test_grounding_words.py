"""Rule 11's normalisation table (guard/words.py): plain paraphrases land, inventions still do not.

Each pair below is a paraphrase's word and the cited line's word that must read
as one; the negatives are words no table may join (opposites, other amounts,
other people). The calibration set of issue 26 (text nobody here wrote) is
checked whole at the end: every alteration refused, and the paraphrases' false
refusals at most half of what they were before the table (12 of 111).
"""

from __future__ import annotations

import pytest

from gitgarden.guard import grounding
from gitgarden.guard.words import FAMILIES, normal
from tests.benchmarks import grounding_cases


@pytest.mark.parametrize(
    "written, cited",
    [
        # synonyms and abbreviations
        ("kids", "children"), ("child", "kids"), ("swamped", "overwhelming"), ("overwhelmed", "swamped"),
        ("edu", "education"), ("info", "information"), ("appt", "appointment"), ("mtg", "meeting"),
        ("fridge", "refrigerator"), ("phoned", "rang"), ("called", "phoned"), ("troops", "soldiers"),
        ("bought", "purchased"), ("started", "began"), ("finished", "done"), ("mum", "mother"), ("dad", "father"),
        # British and American spellings
        ("colour", "color"), ("colours", "colored"), ("organised", "organize"), ("organisation", "organization"),
        ("centre", "center"), ("theatres", "theater"), ("travelled", "traveled"), ("cancelled", "canceled"),
        ("analysed", "analyze"), ("favourite", "favorite"), ("grey", "gray"), ("programme", "program"),
        ("defence", "defense"), ("catalogue", "catalog"), ("jewellery", "jewelry"),
        # accents, irregular verbs, derivations, comparatives
        ("café", "cafe"), ("sent", "send"), ("seen", "seeing"), ("told", "tells"), ("slain", "killed"),
        ("installation", "installed"), ("payment", "pay"), ("expensive", "expense"), ("collection", "collect"),
        ("delivery", "deliveries"), ("happiness", "happy"), ("earlier", "early"), ("dearest", "dear"),
        ("inspiring", "inspiration"), ("management", "managing"), ("discussion", "discuss"),
    ],
)  # fmt: skip
def test_a_paraphrase_word_reads_as_the_lines_word(written: str, cited: str) -> None:
    assert normal(written) == normal(cited)


@pytest.mark.parametrize(
    "a, b",
    [
        ("cheap", "expensive"), ("sure", "unsure"), ("early", "late"), ("buy", "sell"), ("start", "finish"),
        ("open", "closed"), ("mother", "father"), ("business", "busy"), ("week", "month"), ("kids", "adults"),
    ],
)  # fmt: skip
def test_no_table_joins_opposites_or_different_things(a: str, b: str) -> None:
    assert normal(a) != normal(b)


def test_every_family_is_words_not_numbers_and_no_word_is_in_two_families() -> None:
    seen: dict[str, str] = {}
    for family in FAMILIES:
        for word in family:
            assert not any(c.isdigit() for c in word), word
            assert word not in seen, f"{word!r} is in the families of {seen[word]!r} and {family[0]!r}"
            seen[word] = family[0]


@pytest.mark.parametrize(
    "cited, text",
    [
        # the paraphrase refused for synonyms (0.43 before)
        ("I'm swamped with the kids & work", "She is managing kids and work and finds it overwhelming."),
        ("The kids' school colours are grey and green", "The children's school colors are gray and green."),
        ("Mum's edu appt is on Tue", "Her mother's education appointment is on Tuesday."),
        ("The cold room isn't finished. I'll push the fridge people.", "The cold room is not done; I need to push the refrigerator people."),
        ("She did two years at a cafe.", "She worked at a café for 2 years."),
        ("King Richard the Third was up betimes in the morning, and went to Westminster Hall.",
         "King Richard III rose early in the morning and went to Westminster Hall."),
    ],
)
def test_plain_paraphrases_land(cited: str, text: str) -> None:
    verdicts, _ = grounding.check([("wiki/p.md", text)], [cited], {}, 0.6)
    assert verdicts == [], [v.message for v in verdicts]


@pytest.mark.parametrize(
    "cited, text, unfounded",
    [
        ("I'm swamped with the kids & work", "She is managing 3 kids and work and finds it overwhelming.", ("3",)),
        ("Tomasz says the oven install is on the 14th", "Piotr says the oven install is on the 14th.", ("Piotr",)),  # an opening name
        ("Tomasz says the oven install is on the 14th", "Tomasz says the oven install takes 14 hours.", ("14",)),  # a date is no duration
        ("King Richard the Third was crowned a second time at York", "King Richard the Third was crowned a third time at York.", ("third",)),
        ("He reigned two years; Henry the Seventh came after", "Henry VII reigned two years.", ()),  # a Roman numeral is the name's
    ],
)
def test_inventions_stay_refused_and_names_keep_their_numerals(cited: str, text: str, unfounded: tuple[str, ...]) -> None:
    [s] = grounding.score_text(text, [cited])
    assert s.unfounded == unfounded


def test_the_calibration_set_every_alteration_refused_and_false_refusals_halved() -> None:
    lines = grounding_cases.sources()

    def refused(ids: list[str], title: str, text: str) -> bool:
        cited = [lines[i][1] for i in ids]
        days = [lines[i][0] for i in ids]
        return bool(grounding.check([("wiki/p.md", text)], cited, {"wiki/p.md": title}, 0.6, days=days)[0])

    landed = [(text, kind) for ids, title, text, kind in grounding_cases.ALTERATIONS if not refused(ids, title, text)]
    assert landed == []
    assert len(grounding_cases.ALTERATIONS) >= 100 and len(grounding_cases.PARAPHRASES) >= 100
    false_refusals = [text for ids, title, text in grounding_cases.PARAPHRASES if refused(ids, title, text)]
    assert len(false_refusals) <= 6, false_refusals  # 12 of 111 before the table (issue 26)
