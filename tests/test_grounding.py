"""Rule 11 (grounded): sentences scored against the lines they cite, alone and through a pass."""

from __future__ import annotations

import json

import git as gitpython
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.guard import grounding
from gitgarden.guard.rules import Verdict
from gitgarden.project import Project
from tests.helpers import project as helpers
from tests.helpers.project import FIXED_LOG, FIXED_NOW, FakeModel, commit_all, page, write

LANDLORD = "The landlord is Marta Okafor; she owns the whole building and lives in the flat above the shop."
LEASE = "Marta wants a 5-year lease minimum, she does not want a new tenant every two years."
RENT = "Rent for the shop is 2,400 EUR a month, heating not included."


def scores(text: str, *cited: str, title: str = "") -> list[float]:
    return [s.score for s in grounding.score_text(text, cited, title)]


# --- scoring ---------------------------------------------------------------


def test_the_issues_paraphrase_keeps_its_facts_and_passes() -> None:
    cited = ["Landlord is Marta Okafor; she wants a 5-year lease minimum"]
    text = "Marta Okafor, the landlord, wants a lease of at least 5 years."
    assert scores(text, *cited) == [1.0]
    verdicts, lowest = grounding.check([("wiki/marta.md", text)], cited, {}, 0.6)
    assert verdicts == [] and lowest == 1.0


@pytest.mark.parametrize(
    "cited, text",
    [
        (LANDLORD, "Marta Okafor, our landlord, owns the whole building and lives in the flat above the shop."),
        (LEASE, "Marta insists on a lease of at least five years; she doesn't want a new tenant every two years."),
        (RENT, "The shop's rent is 2400 EUR per month, heating not included."),
        ("Kessler Mill delivers on Tuesdays and Fridays, minimum order 300 kg, delivery free above 500 kg.",
         "Deliveries come on Tuesdays and Fridays; the minimum order is 300 kg and delivery is free above 500 kg."),
        ("Roesterei Vogel lends us a two-group espresso machine for free if we buy at least 8 kg a month.",
         "If we buy at least eight kilos a month, Roesterei Vogel lends us a two-group espresso machine for free."),
    ],
)
def test_faithful_paraphrases_of_sample_lines_pass_the_recommended_threshold(cited: str, text: str) -> None:
    verdicts, lowest = grounding.check([("wiki/p.md", text)], [cited], {}, 0.6)
    assert verdicts == [], [v.message for v in verdicts]
    assert lowest is not None and lowest >= 0.8


def test_a_fact_from_an_uncited_line_is_refused_with_score_missing_words_and_cited_lines() -> None:
    text = "Marta Okafor is the landlord. The rent is 2,400 EUR a month, heating not included."
    verdicts, lowest = grounding.check([("wiki/marta-okafor.md", text)], [LANDLORD], {"wiki/marta-okafor.md": "Marta Okafor"}, 0.6)
    assert len(verdicts) == 1
    v = verdicts[0]
    assert isinstance(v, Verdict)
    assert (v.rule, v.name, v.path) == (11, "grounded", "wiki/marta-okafor.md")
    assert v.line == "The rent is 2,400 EUR a month, heating not included."
    assert "0.00" in v.message
    for word in ("rent", "2400", "month", "heating"):
        assert word in v.message
    assert LANDLORD in v.message  # the cited line is named
    assert lowest == 0.0
    assert "rule 11 (grounded)" in str(v)


def test_a_contradicting_line_written_under_the_old_lines_citation_is_refused() -> None:
    text = "Marta now says a 3-year lease would be fine after all."
    verdicts, _ = grounding.check([("wiki/lease.md", text)], [LEASE], {"wiki/lease.md": "Lease"}, 0.6)
    assert [v.line for v in verdicts] == [text]


def test_a_sentence_with_nothing_from_the_cited_lines_is_refused() -> None:
    text = "Dana prefers oat milk for the cappuccinos."
    [score] = grounding.score_text(text, [LANDLORD])
    assert score.score == 0.0
    assert score.missing == ("dana", "prefers", "oat", "milk", "cappuccinos")
    verdicts, lowest = grounding.check([("wiki/p.md", text)], [LANDLORD], {}, 0.6)
    assert len(verdicts) == 1 and lowest == 0.0


def test_a_fact_mixed_into_a_cited_one_is_refused() -> None:
    text = "Marta Okafor owns the building, wants a 5-year lease and says the coffee machine is broken."
    verdicts, _ = grounding.check([("wiki/p.md", text)], [LANDLORD], {}, 0.6)
    assert len(verdicts) == 1
    assert "coffee" in verdicts[0].message and "broken" in verdicts[0].message


@pytest.mark.parametrize(
    "written, cited",
    [
        ("a deposit of 3 months", "a deposit of three months"),
        ("a deposit of three months", "a deposit of 3 months"),
        ("a five year lease", "a 5-year lease"),
        ("the rent is 2400 EUR", "the rent is 2,400 EUR"),
        ("two thousand four hundred EUR", "2,400 EUR"),
        ("twenty-five kg sacks", "25 kg sacks"),
        ("butter at 8.9 EUR a kilo", "butter at 8.90 EUR per kg"),
        ("paid on January 1st", "paid on 1 January"),
        ("the first year", "after year 1"),
        ("40 percent of the money", "40% of the money"),
        ("two dozen eggs", "24 eggs"),
    ],
)
def test_digits_and_number_words_match(written: str, cited: str) -> None:
    assert scores(written, cited) == [1.0]


def test_a_different_number_does_not_match() -> None:
    [score] = grounding.score_text("The rent is 2,500 EUR a month.", [RENT])
    assert score.missing == ("2500",)


def test_plural_singular_inflection_and_case_are_normalised() -> None:
    assert scores("DELIVERIES arrive. Invoiced payment.", "one delivery arrives; invoices paid by payments") == [1.0, 1.0]


def test_link_syntax_reads_as_its_shown_text() -> None:
    cited = ["Marta Okafor recommended Kessler Mill"]
    assert scores("[[marta-okafor|Marta]] recommended [[kessler-mill|Kessler Mill]].", *cited) == [1.0]
    assert scores("[[Kessler Mill]] was recommended by **Marta**.", *cited) == [1.0]
    [score] = grounding.score_text("See [[oven|the deck oven]].", cited)
    assert score.missing == ("deck", "oven")


def test_the_page_title_grounds_its_own_name() -> None:
    cited = ["delivers on Tuesdays and Fridays"]
    assert scores("Kessler Mill delivers on Tuesdays.", *cited) == [0.5]
    assert scores("Kessler Mill delivers on Tuesdays.", *cited, title="Kessler Mill") == [1.0]


def test_sentences_without_content_words_score_one() -> None:
    assert scores("See also.", "anything at all") == [1.0]
    assert scores("It is what it is!", "x") == [1.0]


def test_headings_bullets_and_table_rows_are_sentences_of_their_text() -> None:
    text = (
        "## Marta Okafor owns the building ##\n"
        "\n"
        "### Notes\n"
        "- She owns the whole\n"
        "  building. She lives above the shop.\n"
        "1. Parking fine\n"
        "\n"
        "| who | what |\n"
        "|---|---|\n"
        "| Marta | landlord |\n"
        "\n"
        "```\n"
        "Rent 2,400\n"
        "```\n"
    )
    assert grounding.sentences(text) == [
        "Marta Okafor owns the building",  # a long heading asserts something; "Notes" only labels
        "She owns the whole building.",
        "She lives above the shop.",
        "Parking fine",
        "Marta, landlord",  # the header row names columns and is not scored
        "Rent 2,400",
    ]
    out = {s.sentence: s.score for s in grounding.score_text(text, [LANDLORD])}
    assert out["Parking fine"] == 0.0 and out["Rent 2,400"] == 0.0
    assert out["She owns the whole building."] == out["Marta, landlord"] == 1.0
    assert out["Marta Okafor owns the building"] == 1.0


def test_sentence_split_keeps_decimals_and_abbreviations() -> None:
    text = "Flour is 0.78 EUR a kilo, e.g. type 550. Rye is 0.92 EUR."
    assert grounding.sentences(text) == ["Flour is 0.78 EUR a kilo, e.g. type 550.", "Rye is 0.92 EUR."]


def test_threshold_zero_turns_the_rule_off_but_still_reports_the_lowest_score() -> None:
    verdicts, lowest = grounding.check([("wiki/p.md", "Dana prefers oat milk.")], [LANDLORD], {}, 0.0)
    assert verdicts == [] and lowest == 0.0


def test_nothing_scored_reports_none() -> None:
    assert grounding.check([], [LANDLORD], {}, 0.6) == ([], None)
    assert grounding.check([("wiki/p.md", "\n\n")], [LANDLORD], {}, 0.6) == ([], None)


def test_lowest_score_spans_every_page_of_the_operation() -> None:
    prose = [("wiki/a.md", "Marta Okafor owns the building."), ("wiki/b.md", "Marta owns a bakery in Mainz.")]
    verdicts, lowest = grounding.check(prose, [LANDLORD], {}, 0.6)
    assert lowest == 0.5  # marta, owns | bakery, mainz: 2 of 4
    assert [v.path for v in verdicts] == ["wiki/b.md"]


# --- numbers and names are never invented ------------------------------------


def test_the_issues_3_year_lease_is_refused_whatever_the_threshold_and_names_the_number() -> None:
    text = "Marta now says a 3-year lease would be fine"
    for threshold in (0.6, 0.5, 0.3, 0.01):
        [v] = grounding.check([("wiki/lease.md", text)], [LEASE], {"wiki/lease.md": "Lease"}, threshold)[0]
        assert isinstance(v, grounding.GroundingVerdict)
        assert v.unfounded == ("3-year",)
        assert "missing: 3-year" in v.message
    assert v.score == pytest.approx(0.5)
    assert "3" in v.missing and "says" in v.missing  # every word not found, for the repair round
    record = v.to_json()
    assert record["rule"] == 11 and record["score"] == 0.5 and record["threshold"] == 0.01
    assert record["unfounded"] == ["3-year"] and "fine" in record["missing"]


@pytest.mark.parametrize(
    "cited, text, unfounded",
    [
        (LEASE, "Marta and Jonas want a 5-year lease.", ("Jonas",)),  # scores 0.83: a new name alone refuses
        (LEASE, "Marta wants a 5-year lease from 1 March.", ("1", "March")),  # a date nobody wrote
        (RENT, "The rent for the shop is 2,500 EUR a month.", ("2500",)),  # a different amount
        ("Marta signs the lease next week", "Marta signs the lease on Monday.", ("Monday",)),  # a weekday
        (LEASE, "Marta wants a 5-year lease; [[dana-reyes|Dana]] agrees.", ("[[dana-reyes|Dana]]",)),  # a linked page
        (RENT, "Rent for the shop is 2,400 EUR a month, heating not included, says [[Helen Brandt]].", ("[[Helen Brandt]]",)),
        ("Kessler Mill quoted 0.78 EUR a kilo.", "Kessler Mill quoted 0.78 EUR a kilo for 12 months.", ("12",)),
        ("Kessler Mill quoted 0.78 EUR a kilo.", "Kessler Mill quoted 0.78 EUR a kilo for twelve months.", ("twelve",)),
    ],
)
def test_a_number_or_name_the_cited_lines_lack_is_refused_and_named(cited: str, text: str, unfounded: tuple[str, ...]) -> None:
    [s] = grounding.score_text(text, [cited])
    assert s.unfounded == unfounded
    verdicts, _ = grounding.check([("wiki/p.md", text)], [cited], {}, 0.6)
    assert [v.line for v in verdicts] == [text]
    assert f"missing: {', '.join(unfounded)}" in verdicts[0].message


@pytest.mark.parametrize(
    "cited, text, days",
    [
        # A capitalised word that opens a sentence, or a clause after a colon, is grammar, not a name.
        (LEASE, "Apparently Marta wants a 5-year lease.", ()),
        ("The mill delivers flour every Tuesday", "Schedule: Usually the mill delivers flour on Tuesdays.", ()),
        ("Jonas says the mill delivers flour every Tuesday", 'Jonas said: "Usually the mill delivers flour on Tuesdays."', ()),
        # In a heading or a table row capitals are style.
        ("The mill delivers flour every Tuesday", "## Flour Deliveries From The Mill On Tuesdays\n", ()),
        ("Kessler Mill quoted type 550 wheat flour at 0.78 EUR a kilo",
         "| Flour | Type | Price |\n|---|---|---|\n| Wheat Flour | Type 550 | 0.78 EUR A Kilo |\n", ()),
        # Month and day names, spelled out or shortened.
        ("first delivery confirmed for tue 15 dec", "The first delivery is on Tuesday 15 December.", ()),
        ("Hofmann delivers Mon and Thu before 7 am", "Hofmann delivers on Mondays and Thursdays before 7 am.", ()),
        # A date the line gives as "today", "yesterday" or an ISO date, written out.
        ("Signed the lease with Marta today", "We signed the lease with Marta on Wednesday, 25 November 2026.", ("2026-11-25",)),
        ("Signed the lease with Marta yesterday", "We signed the lease with Marta on 25 November.", ("2026-11-26",)),
        ("Opening planned for 2027-01-16", "The opening is planned for Saturday, 16 January 2027.", ()),
        # A link to a page the cited line names differently.
        ("the landlord wants a 5-year lease minimum", "[[marta-okafor|The landlord]] wants a lease of at least 5 years.", ()),
        ("the mill delivers on tuesdays", "[[Kessler Mill]] delivers on Tuesdays.", ()),
        ("the mill delivers on tuesdays", "[[kessler-mill]] delivers on Tuesdays.", ()),
        # Names and numbers as the line writes them, in other spellings.
        (LANDLORD, "Marta Okafor's building: she owns all of it and lives above the shop.", ()),
        ("Deposit is three months rent, 7,200 EUR", "The deposit is 3 months of rent: 7200 EUR.", ()),
        ("Kessler offers 5% off with a 12-month contract", "Kessler offers 5 percent off for a twelve month contract.", ()),
        ("Dr. Brandt does our books", "Dr. Brandt does our books.", ()),
        ("Helen says we should start as a gbr", "Helen says we should start as a GbR.", ()),
        ("we got a new deck oven", "We got a new one: a deck oven.", ()),  # "one" is grammar here
    ],
)
def test_good_sentences_with_capitals_dates_and_links_still_land(cited: str, text: str, days: tuple[str, ...]) -> None:
    verdicts, lowest = grounding.check([("wiki/p.md", text)], [cited], {}, 0.6, days=days)
    assert verdicts == [], [v.message for v in verdicts]
    assert lowest is not None


def test_the_page_title_grounds_names_and_numbers_too() -> None:
    text = "The shop at Lindenstrasse 14 has a 5-year lease minimum."
    assert grounding.score_text(text, [LEASE])[0].unfounded == ("Lindenstrasse", "14")
    assert grounding.check([("wiki/lease.md", text)], [LEASE], {"wiki/lease.md": "Lease at Lindenstrasse 14"}, 0.6)[0] == []


def test_a_journal_day_grounds_only_its_own_date() -> None:
    text = "We signed the lease with Marta on 24 November."
    cited = ["Signed the lease with Marta today"]
    assert grounding.check([("wiki/p.md", text)], cited, {}, 0.6, days=["2026-11-24"])[0] == []
    [v] = grounding.check([("wiki/p.md", text)], cited, {}, 0.6, days=["2026-11-25"])[0]
    assert isinstance(v, grounding.GroundingVerdict) and v.unfounded == ("24",)


def test_rule_off_means_numbers_and_names_are_not_checked_either() -> None:
    assert grounding.check([("wiki/p.md", "Marta and Jonas want a 3-year lease.")], [LEASE], {}, 0.0)[0] == []


# --- property: words of the cited lines always pass ------------------------

SAMPLE_WORDS = (LANDLORD + " " + LEASE + " " + RENT).split() + [
    "two", "hundred", "thousand", "and", "twenty-five", "first", "1st", "8.90", "1,000", "40%",
    "Dana's", "[[kessler-mill|Kessler", "Mill]]", "deliveries", "kg", "kilo", "-", "#", "e.g.",
]  # fmt: skip
word = st.one_of(
    st.sampled_from(SAMPLE_WORDS),
    st.from_regex(r"[A-Za-z]{1,10}", fullmatch=True),
    st.from_regex(r"[0-9]{1,3}(,[0-9]{3})?(\.[0-9]{1,2})?", fullmatch=True),
    st.from_regex(r"[a-z]{1,6}-[a-z0-9]{1,6}", fullmatch=True),
)
line = st.lists(word, min_size=1, max_size=15).map(" ".join)


@st.composite
def built_from_lines(draw: st.DrawFn) -> tuple[list[str], str]:
    """Cited lines, and a text made only of their words (in any order, with any punctuation)."""
    lines = draw(st.lists(line, min_size=1, max_size=3))
    pool = [w for ln in lines for w in ln.split()]
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=12))
    seps = draw(st.lists(st.sampled_from([" ", ", ", "; ", ". ", " - ", "\n"]), min_size=len(chosen), max_size=len(chosen)))
    return lines, "".join(w + s for w, s in zip(chosen, seps, strict=True)).strip() + "."


@settings(max_examples=300, deadline=None)
@given(case=built_from_lines())
@example(case=(["The The The The The The The a-by 0,000"], "0,000."))  # "by 0,000" read as the year 0000 (issue 35)
@example(case=(["sales grew by 1,000 units"], "1,000 units."))
def test_sentences_built_only_from_words_of_the_cited_lines_always_pass(case: tuple[list[str], str]) -> None:
    lines, text = case
    for s in grounding.score_text(text, lines):
        assert s.score == 1.0, (s, lines)
    assert grounding.check([("wiki/p.md", text)], lines, {}, 1.0)[0] == []


# --- through a pass --------------------------------------------------------

STRICT = Settings(model="fake/scripted", grounding_min=0.6)
NO_CORRECTION = {"operations": []}  # the answer to a repair round that corrects nothing


def garden(project: Project, model: FakeModel, s: Settings = STRICT) -> PassResult:
    """helpers.project's garden with the grounding threshold pinned (STRICT), whatever the default becomes."""
    return helpers.garden(project, model, s)


@pytest.fixture
def bakery(project: Project) -> Project:
    """A committed map and one page; three uncommitted journal lines."""
    write(project.root, "wiki/marta-okafor.md", page("Marta Okafor", "Marta Okafor is the landlord.\n", source="[2026-11-23]"))
    write(project.root, "raw/journal/2026-11-23.md", "The landlord is Marta Okafor\n")
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[marta-okafor]] — Marta Okafor\n\n## Open\n")
    commit_all(project.root)
    write(
        project.root,
        "raw/journal/2026-11-24.md",
        "Kessler Mill quoted type 550 wheat flour at 0.78 EUR a kilo in 25 kg sacks.\n"
        "Rent for the shop is 2,400 EUR a month, heating not included.\n"
        "call mum on Sunday\n",
    )
    return project


def mill(body: str) -> dict[str, object]:
    return {"op": "create_page", "page": "kessler-mill", "title": "Kessler Mill", "body": body, "lines": ["2026-11-24#1"]}


def test_a_create_page_mixing_in_an_uncited_fact_is_refused_whole(bakery: Project, fake_model: FakeModel) -> None:
    body = "Type 550 wheat flour is 0.78 EUR a kilo, in 25 kg sacks.\n\nThe rent is 2,400 EUR a month; call mum on Sunday.\n"
    fake_model.enqueue({"operations": [mill(body), {"op": "skip", "lines": ["2026-11-24#2", "2026-11-24#3"]}]}).enqueue(NO_CORRECTION)
    result = garden(bakery, fake_model)

    assert result.outcome == "some_refused", result.refusals
    assert not (bakery.root / "wiki/kessler-mill.md").exists()  # the faithful first sentence went too
    assert result.marked_read == 2  # the skipped lines; the refused operation's line stays unread
    [refusal] = result.refusals
    assert refusal.startswith("create_page kessler-mill: rule 11 (grounded) wiki/kessler-mill.md")
    assert "The rent is 2,400 EUR a month; call mum on Sunday." in refusal
    assert "Kessler Mill quoted type 550" in refusal  # the cited line
    assert result.grounding_min_score is None  # nothing landed
    # The refused operation's line stays unread (and the older line nothing cited): the next pass offers them.
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-23#1", "2026-11-24#1"]}]})
    again = garden(bakery, fake_model)
    assert again.offered == ["2026-11-23#1", "2026-11-24#1"]


def test_a_faithful_page_lands_next_to_a_refused_append_and_the_trailer_shows_the_lowest_score(
    bakery: Project, fake_model: FakeModel
) -> None:
    body = "Kessler Mill quoted type 550 wheat flour at 0.78 EUR a kilo.\n\nIt is sold in 25 kg sacks.\n"
    invented = {"op": "append", "page": "marta-okafor", "text": "Marta has a dog called Bruno.\n", "lines": ["2026-11-23#1"]}
    fake_model.enqueue({"operations": [mill(body), invented, {"op": "skip", "lines": ["2026-11-24#2", "2026-11-24#3"]}]})
    result = garden(bakery, fake_model.enqueue(NO_CORRECTION))

    assert result.outcome == "some_refused"
    assert result.created == ["wiki/kessler-mill.md"]
    assert "sold in 25 kg sacks" in (bakery.root / "wiki/kessler-mill.md").read_text()
    assert "Bruno" not in (bakery.root / "wiki/marta-okafor.md").read_text()
    assert len(result.refusals) == 1 and "append marta-okafor: rule 11 (grounded)" in result.refusals[0]
    assert result.grounding_min_score == pytest.approx(0.75)  # "sold" is the model's: 3 of 4
    trailers = gitpython.Repo(bakery.root).commit("HEAD").trailers_dict
    assert trailers["Gardener-Grounding"] == ["0.75"]
    assert trailers["Gardener-Outcome"] == ["some_refused"]
    record = json.loads((bakery.root / FIXED_LOG).read_text().splitlines()[-1])
    assert record["grounding_min_score"] == pytest.approx(0.75)


def test_a_faithful_pass_marks_the_journal_read(bakery: Project, fake_model: FakeModel) -> None:
    body = "Kessler Mill quoted type 550 wheat flour at 0.78 EUR a kilo, in 25 kg sacks.\n"
    fake_model.enqueue({"operations": [mill(body), {"op": "skip", "lines": ["2026-11-24#2", "2026-11-24#3"]}]})
    result = garden(bakery, fake_model)
    assert result.outcome == "pages_written", result.refusals
    assert result.marked_read == 3  # the three lines the reply cites; the older line it does not stays unread
    assert gitpython.Repo(bakery.root).commit("HEAD").trailers_dict["Gardener-Grounding"] == ["1.00"]


def test_with_grounding_min_zero_the_mixed_page_lands(bakery: Project, fake_model: FakeModel) -> None:
    body = "Type 550 wheat flour is 0.78 EUR a kilo.\n\nThe rent is 2,400 EUR a month; call mum on Sunday.\n"
    fake_model.enqueue({"operations": [mill(body), {"op": "skip", "lines": ["2026-11-24#2", "2026-11-24#3"]}]})
    result = garden(bakery, fake_model, Settings(model="fake/scripted", grounding_min=0.0))
    assert result.outcome == "pages_written", result.refusals
    assert (bakery.root / "wiki/kessler-mill.md").exists()
    assert result.grounding_min_score is not None and result.grounding_min_score < 0.3
    trailer = gitpython.Repo(bakery.root).commit("HEAD").trailers_dict["Gardener-Grounding"]
    assert trailer == [f"{result.grounding_min_score:.2f}"]


def test_a_pass_that_writes_no_prose_reports_no_grounding_score(bakery: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-24#1", "2026-11-24#2", "2026-11-24#3"]}]})
    result = garden(bakery, fake_model)
    assert result.outcome == "nothing_earned" and result.grounding_min_score is None


def test_a_short_heading_labels_and_is_not_scored_but_a_long_or_numbered_one_is() -> None:
    from gitgarden.guard.grounding import score_text

    cited = ["Kessler delivers flour every Tuesday"]
    assert [s.sentence for s in score_text("## Deliveries\n\nKessler delivers flour on Tuesdays.\n", cited)] == [
        "Kessler delivers flour on Tuesdays."
    ]
    scored = score_text("## Signed a 2027 contract\n\nKessler delivers flour on Tuesdays.\n", cited)
    assert scored[0].sentence == "Signed a 2027 contract" and scored[0].score < 0.6
    long_heading = score_text("## Marta invented lovely sourdough recipes yesterday\n", cited)
    assert long_heading and long_heading[0].score < 0.6


def test_an_invented_title_cannot_ground_its_own_body(project, fake_model) -> None:  # type: ignore[no-untyped-def]
    from gitgarden.config import Settings
    from tests.helpers.project import write

    write(project.root, "raw/journal/2026-11-29.md", "Met the new supplier today\n")
    fake_model.enqueue({"operations": [
        {"op": "create_page", "page": "golden-flour-award", "title": "Golden Flour Award",
         "body": "We won the Golden Flour Award.\n", "lines": ["2026-11-29#1"]},
    ]}).enqueue({"operations": []})  # fmt: skip
    result = run_pass(project, Settings(model="fake/scripted"), model=fake_model, now=lambda: FIXED_NOW)
    assert not (project.root / "wiki/golden-flour-award.md").exists()
    assert any("(title)" in r for r in result.refusals)


def test_through_a_pass_the_journal_day_grounds_a_date_and_an_invented_year_is_refused(
    bakery: Project, fake_model: FakeModel
) -> None:
    body = "On 24 November Kessler Mill quoted type 550 wheat flour at 0.78 EUR a kilo.\n"
    invented = {"op": "append", "page": "marta-okafor", "text": "The landlord is Marta Okafor, since 2019.\n", "lines": ["2026-11-23#1"]}
    fake_model.enqueue({"operations": [mill(body), invented, {"op": "skip", "lines": ["2026-11-24#2", "2026-11-24#3"]}]})
    result = garden(bakery, fake_model.enqueue(NO_CORRECTION))

    assert result.created == ["wiki/kessler-mill.md"], result.refusals  # the line's own day: 24 November
    [refusal] = result.refusals  # scores 0.75, over the threshold: the year alone refuses it
    assert refusal.startswith("append marta-okafor: rule 11 (grounded)") and "missing: 2019" in refusal
    assert "2019" not in (bakery.root / "wiki/marta-okafor.md").read_text()
