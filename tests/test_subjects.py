"""Who and what a line is about, and when a line changes another's value: code a small model relies on."""

from __future__ import annotations

import pytest

from gitgarden.wiki.changes import Earlier, changed_value, values
from gitgarden.wiki.subjects import (
    SubjectIndex,
    chatter_kind,
    decided_things,
    mentions,
    roles_given,
    topic_title,
)


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("Tomasz Wójcik came round to measure the kitchen.", ["Tomasz Wójcik"]),
        ("Marek Zieliński from Kamień Studio quoted 2,950 EUR.", ["Marek Zieliński", "Kamień Studio"]),
        ("Ordered the cabinets from Nordhus Kjøkken, order NK-55817.", ["Nordhus Kjøkken", "NK-55817"]),
        ("Marta Ruiz Gómez at Editorial Alba liked the sample.", ["Marta Ruiz Gómez", "Editorial Alba"]),
        ("Budget for the whole job: 25,000 EUR.", []),  # a sentence's first word, no sign it is a name
        ("Decision: Tomasz does the main works, starting Monday 16 March.", []),  # cue, weekday, month
        ("Safety manual DE>EN by 5 June, L-shape island.", []),  # codes and letters are no names
    ],
)
def test_names_and_ids_a_line_gives(line: str, names: list[str]) -> None:
    assert [m.text for m in mentions(line) if m.kind in ("name", "id")] == names


def test_a_first_word_is_a_name_when_the_journal_knows_it_as_one() -> None:
    assert [m.text for m in mentions("Tomasz says the cabinets arrive Friday.", ["Tomasz"])] == ["Tomasz"]
    assert [m.text for m in mentions("Tomasz's quote came in: 18,400 EUR.")] == ["Tomasz"]  # possessive


def test_roles_given_beside_a_name_and_said_alone() -> None:
    for line, role in [
        ("Piotr Nowak the electrician can move the sockets.", "electrician"),
        ("Deepa Iyer, my accountant, needs the receipts.", "accountant"),
        ("Ragnhild Berg (treasurer) says 31 have paid.", "treasurer"),
        ("Anil Mehta, the council's allotments officer, rang.", "allotments officer"),
    ]:
        assert list(roles_given(line, mentions(line)).values()) == [role], line
    index = SubjectIndex()
    index.add("piotr-nowak", "Piotr Nowak", ["the electrician"])
    said = next(m for m in mentions("The electrician can't do the 12th.") if m.kind == "role")
    assert index.resolve(said) == "piotr-nowak"
    assert index.resolve("Piotr") == "piotr-nowak" and index.resolve("Nowak") == "piotr-nowak"
    index.add("piotr-lis", "Piotr Lis")
    assert index.resolve("Piotr") is None  # two people answer: code never guesses


@pytest.mark.parametrize(
    ("line", "topic"),
    [("Budget for the whole job: 25,000 EUR.", "Budget"), ("Waiting list is 23 names long.", "Waiting list"), ("Open day set for Saturday 9 May.", "Open day")],
)
def test_a_line_without_a_name_is_about_its_first_noun_phrase(line: str, topic: str) -> None:
    assert topic_title(line) == topic


def test_a_decision_is_about_the_thing_decided_not_a_person() -> None:
    assert decided_things("Decision: Tomasz does the main works, starting Monday 16 March.", ["Tomasz"])[0] == "Works"
    assert decided_things("Decision: we buy the GreenGrow polytunnel and pay for it from the grant.", ["GreenGrow"])[:2] == ["Polytunnel", "Grant"]
    assert decided_things("Decision: plant sale at the open day capped at £2 a pot.") == ["Plant sale", "Open day", "Pot"]


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("Rain all day, bins blew over again.", "weather"),
        ("Got quartz samples from Kamień; Calacatta Grey looks best in daylight.", ""),  # a name's word
        ("Called Mum, she wants to see the drawings.", "family"),
        ("Quoted Nordvik 9,800 NOK for the manual.", ""),
    ],
)
def test_what_kind_of_chatter_a_line_looks_like(line: str, kind: str) -> None:
    assert chatter_kind(line) == kind


OLD = Earlier("2026-03-04#1", "Tomasz's quote came in: 18,400 EUR for demolition and fitting.", "tomasz")


@pytest.mark.parametrize(
    "new",
    [
        "Correction: his quote is 19,100 EUR, not 18,400.",
        "Tomasz's quote is now 19,100 EUR.",
        "Tomasz raised the quote to 19,100 EUR.",
        "The quote changed to 19,100 EUR after the survey.",
    ],
)
def test_a_change_is_seen_by_its_cue_and_a_value_of_the_same_kind(new: str) -> None:
    assert changed_value(new, "tomasz", [OLD]) == OLD


@pytest.mark.parametrize(
    "new",
    [
        "Tomasz wants a 1,500 EUR deposit.",  # another amount, no cue: another fact
        "Tomasz's quote is now in, as said.",  # a cue, no value
        "Tomasz starts on 16 March now.",  # a date where the old line had an amount
        "Tomasz's quote came in: 18,400 EUR for demolition and fitting.",  # the same line again
    ],
)
def test_a_line_that_changes_nothing_is_no_change(new: str) -> None:
    assert changed_value(new, "tomasz", [OLD]) is None


def test_values_are_read_by_kind_and_ids_are_not_values() -> None:
    found = {(v.kind, v.text) for v in values("Invoice TW-0314: 1,500 EUR by Friday 13 March, 8:00, 3 rooms.")}
    assert found == {("amount", "1500eur"), ("date", "friday"), ("date", "13march"), ("time", "8:00"), ("count", "3")}
