"""Rule 11: a journal day grounds dates, never a count, an amount, a duration or an ordinal.

The day file's date (and the days around it, when the line says "yesterday" or
"tomorrow") may be written as a date: "9 June", "June 9th", "on the 9th",
"Tuesday", "2026-06-09". A number equal to its day, month or year anywhere else
must stand in the cited lines or the page title.
"""

from __future__ import annotations

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.guard import grounding
from gitgarden.project import Project
from tests.helpers.project import FIXED_NOW, FakeModel, commit_all, write

DAY = "2026-06-09"  # a Tuesday
LINE = "5 years already! feels like just yesterday I put this dress on"  # the line
PLAIN = "Went to the support group with Ana"  # no "yesterday", no "tomorrow"


def unfounded(text: str, line: str = PLAIN, day: str = DAY) -> tuple[str, ...]:
    [s] = grounding.score_text(text, [line], "", [day])
    return s.unfounded


def refused(text: str, line: str = PLAIN, day: str = DAY) -> bool:
    verdicts, _ = grounding.check([("wiki/p.md", text)], [line], {}, 0.01, days=[day])
    return bool(verdicts)


@pytest.mark.parametrize(
    "text",
    [
        # the day of the month (9)
        "Ana has been married for 9 years.",  # a duration
        "Ana has been married for nine years.",
        "Ana went to the support group 9 times.",  # a count
        "Ana went to the support group, 9 times in all.",
        "Ana paid EUR 9 for the support group.",  # amounts
        "Ana paid 9 EUR for the support group.",
        "Ana paid €9 for the support group.",
        "Ana lost 9 kg with the support group.",
        "It was the 9th support group Ana went to.",  # ordinals
        "It was the ninth support group Ana went to.",
        "On the 9th visit Ana went to the support group.",
        # the month (6) and the year (2026)
        "Ana went to the support group with 6 friends.",
        "Ana went to the support group for six weeks.",
        "The support group has 2026 members and Ana.",
        "Ana paid 2026 EUR for the support group.",
    ],
)
def test_a_number_equal_to_the_journal_day_outside_a_date_is_refused(text: str) -> None:
    assert refused(text), text
    assert unfounded(text) != ()


@pytest.mark.parametrize(
    "text, number",
    [
        # the case: "yesterday" makes the 8th a date the line speaks of, never a count of years
        ("She has been married for 8 years.", "8"),
        ("She has been married for eight years.", "eight"),
        ("She put this dress on 8 times.", "8"),
        ("She paid 8 EUR for this dress.", "8"),
        ("She has worn this dress for 9 years.", "9"),  # the day itself
    ],
)
def test_the_days_around_a_yesterday_line_ground_no_count(text: str, number: str) -> None:
    assert refused(text, LINE)
    assert number in unfounded(text, LINE)


def test_tomorrow_grounds_the_next_day_as_a_date_only() -> None:
    line = "Meeting the support group tomorrow"
    assert not refused("Meeting the support group on 10 June.", line)
    assert refused("Meeting the support group for 10 weeks.", line)
    assert refused("Meeting the support group on 11 June.", line)  # not the day after


@pytest.mark.parametrize(
    "text",
    [
        "Ana went to the support group on 9 June.",
        "Ana went to the support group on June 9.",
        "Ana went to the support group on June 9th, 2026.",
        "Ana went to the support group on the 9th of June 2026.",
        "Ana went to the support group on the ninth of June.",
        "Ana went to the support group on the 9th.",
        "On the 9th, Ana went to the support group.",
        "Ana went to the support group on Tuesday.",
        "Ana went to the support group on Tuesday 9 June.",
        "Ana went to the support group on Tuesday, the 9th.",
        "Ana went to the support group on 2026-06-09.",
        "Ana went to the support group on 9/6/2026.",
        "Ana went to the support group on 9.6.2026.",
        "Ana went to the support group in June 2026.",
        "Ana went to the support group in 2026.",
        "Ana went to the support group in the summer of 2026.",
    ],
)
def test_the_journal_day_still_grounds_its_date_in_every_written_form(text: str) -> None:
    assert not refused(text), grounding.score_text(text, [PLAIN], "", [DAY])


def test_a_yesterday_line_grounds_the_day_before_as_a_date() -> None:
    assert not refused("She put this dress on 8 June, 5 years already.", LINE)
    assert not refused("She put this dress on yesterday, the 8th: 5 years already.", LINE)
    assert refused("She put this dress on 7 June, 5 years already.", LINE)


def test_a_number_the_cited_line_holds_is_grounded_wherever_it_stands() -> None:
    line = "Ana has gone to the support group 9 times since March"
    assert not refused("Ana has gone to the support group 9 times since March.", line)
    assert not refused("Ana has gone to the support group nine times since March.", line)


def test_the_same_number_as_a_date_and_as_a_count_in_one_sentence() -> None:
    text = "On 9 June Ana went to the support group for the 9th time."
    assert unfounded(text) == ("9",)  # the date stands, the count does not


def test_a_count_in_the_title_still_grounds() -> None:
    verdicts, _ = grounding.check([("wiki/p.md", "The group meets 9 times a year.")], ["the group meets often"], {"wiki/p.md": "9 meetings a year"}, 0.6, days=[DAY])
    assert verdicts == []


def test_through_a_pass_a_count_borrowed_from_the_date_is_refused_and_the_date_lands(project: Project, fake_model: FakeModel) -> None:
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n## Open\n")
    commit_all(project.root)
    day = f"{FIXED_NOW:%Y-%m-%d}"
    write(project.root, f"raw/journal/{day}.md", "5 years already! feels like just yesterday I put this dress on\n")
    married = {"op": "create_page", "page": "dress", "title": "The dress", "lines": [f"{day}#1"],
               "body": f"She has been married for {FIXED_NOW.day - 1} years; she put this dress on 5 years ago.\n"}  # fmt: skip
    fake_model.enqueue({"operations": [married]}).enqueue({"operations": []})
    result = run_pass(project, Settings(model="fake/scripted"), model=fake_model, now=lambda: FIXED_NOW)
    assert not (project.root / "wiki/dress.md").exists()
    [refusal] = result.refusals
    assert f"missing: {FIXED_NOW.day - 1}" in refusal

    assert FIXED_NOW.month == 11  # the month is spelled out below, not through the locale
    dated = dict(married, body=f"On {FIXED_NOW.day - 1} November she put this dress on: 5 years already.\n")
    fake_model.enqueue({"operations": [dated]})
    result = run_pass(project, Settings(model="fake/scripted"), model=fake_model, now=lambda: FIXED_NOW)
    assert result.created == ["wiki/dress.md"], result.refusals


# A relative date in the line ("last Saturday") grounds dates only, never a count beside it.
SATURDAY_LINE = "Melanie ran a charity race for mental health last Saturday"
SATURDAY_DAY = "2023-05-25"  # a Thursday: last Saturday was the 20th


def test_a_relative_date_never_grounds_a_count_standing_where_a_day_could() -> None:
    """The issue's alteration: 25 is the journal day's number, and "Saturday, 25" read as a date."""
    text = "Melanie ran a charity race for mental health last Saturday, 25 times in all."
    assert unfounded(text, SATURDAY_LINE, SATURDAY_DAY) == ("25",)
    assert refused(text, SATURDAY_LINE, SATURDAY_DAY)
    assert unfounded("On Tuesday, 9 people came to the support group.") == ("9",)
    assert unfounded("On Tuesday the 9th, the support group met.") == ()  # a date, still
