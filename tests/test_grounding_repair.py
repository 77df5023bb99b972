"""Rule 11 talks back: a refused sentence's verdict names the other offered lines that hold its
missing words (for the repair round), and the record keeps why each sentence was refused.

The suggestion never grounds anything by itself: the corrected operation must cite the line.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.guard import grounding
from gitgarden.project import Project
from tests.helpers.project import (
    FIXED_LOG,
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    invoke,
    write,
)

GROUP = "I went to a support group yesterday and it was so powerful"
STORIES = "the members told their stories, so inspiring"
CHATTER = "bought milk on the way home"
SENTENCE = "She went to the support group and found the members' stories inspiring."


def verdict_for(elsewhere: dict[str, tuple[str, str]], text: str = SENTENCE) -> grounding.GroundingVerdict:
    [v] = grounding.check([("wiki/group.md", text)], [GROUP], {}, 0.6, days=["2026-05-08"], elsewhere=elsewhere)[0]
    assert isinstance(v, grounding.GroundingVerdict)
    return v


def test_the_verdict_names_the_offered_line_that_holds_the_missing_words() -> None:
    v = verdict_for({"2026-05-08#5": (STORIES, "2026-05-08"), "2026-05-08#6": (CHATTER, "2026-05-08")})
    assert v.lines_holding == (("2026-05-08#5", ("members", "stories", "inspiring")),)
    assert "'members', 'stories', 'inspiring' are in 2026-05-08#5: cite it too, or leave those words out" in v.message
    assert v.to_json()["lines_holding"] == {"2026-05-08#5": ["members", "stories", "inspiring"]}


def test_a_verdict_names_only_the_lines_it_is_given_and_none_when_no_line_holds_the_words() -> None:
    assert verdict_for({}).lines_holding == ()
    v = verdict_for({"2026-05-08#6": (CHATTER, "2026-05-08")})
    assert v.lines_holding == () and "cite it too" not in v.message


def test_a_suggested_line_grounds_nothing_until_the_operation_cites_it() -> None:
    elsewhere = {"2026-05-08#5": (STORIES, "2026-05-08")}
    verdicts, _ = grounding.check([("wiki/group.md", SENTENCE)], [GROUP], {}, 0.6, days=["2026-05-08"], elsewhere=elsewhere)
    assert len(verdicts) == 1  # still refused, whatever the other line holds
    cited_both, _ = grounding.check([("wiki/group.md", SENTENCE)], [GROUP, STORIES], {}, 0.6, days=["2026-05-08"])
    assert cited_both == []


def test_numbers_names_and_links_are_found_in_other_lines_and_dates_by_their_day() -> None:
    elsewhere = {
        "2026-05-07#1": ("Dana joined the support group", "2026-05-07"),
        "2026-05-08#2": ("the group meets 12 times a year", "2026-05-08"),
        "2026-05-09#1": ("nothing to see here today", "2026-05-09"),
    }
    text = "[[Dana]] says the support group meets 12 times a year, from 9 May."
    v = verdict_for(elsewhere, text)
    assert dict(v.lines_holding) == {"2026-05-07#1": ("[[Dana]]",), "2026-05-08#2": ("meets", "12", "times", "year"), "2026-05-09#1": ("9",)}


def test_lines_are_named_for_what_no_better_line_holds_and_never_for_one_common_word() -> None:
    elsewhere = {f"2026-05-08#{n}": (w, "2026-05-08") for n, w in enumerate(["members", "members stories", "members stories inspiring", "stories"], 2)}
    assert verdict_for(elsewhere).lines_holding == (("2026-05-08#4", ("members", "stories", "inspiring")),)
    split = {"2026-05-08#2": ("the members' stories", "2026-05-08"), "2026-05-08#3": ("so inspiring, we found it", "2026-05-08")}
    assert verdict_for(split).lines_holding == (("2026-05-08#2", ("members", "stories")), ("2026-05-08#3", ("found", "inspiring")))
    assert verdict_for({"2026-05-08#2": ("the stories of the week", "2026-05-08")}).lines_holding == ()  # one word: noise


def test_at_most_three_lines_are_named_and_a_cited_day_goes_first() -> None:
    text = "Ana went to the support group with Ben, Cleo, Dora and Emil."
    elsewhere = {
        "2026-05-01#1": ("Ben and Cleo came too", "2026-05-01"),
        "2026-05-08#7": ("Ben and Cleo were there", "2026-05-08"),
        "2026-05-08#8": ("Dora drove", "2026-05-08"),
        "2026-05-09#1": ("Emil stayed home", "2026-05-09"),
        "2026-05-09#2": ("Ana is new", "2026-05-09"),
    }
    v = verdict_for(elsewhere, text)
    assert len(v.lines_holding) == 3
    assert dict(v.lines_holding)["2026-05-08#7"] == ("ben", "cleo")  # the cited day's line, not 05-01's


# -- through a pass: the repair round, the record, `show` ---------------------------------------------

DAY = f"{FIXED_NOW:%Y-%m-%d}"


@pytest.fixture
def diary(project: Project) -> Project:
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n## Open\n")
    write(project.root, "raw/journal/2026-11-29.md", "the members told their stories before, an old line\n")
    commit_all(project.root)
    return project


def create(lines: list[str]) -> dict[str, Any]:
    return {"op": "create_page", "page": "support-group", "title": "Support group", "body": SENTENCE + "\n", "lines": lines}


def garden(project: Project, model: FakeModel, **settings: Any) -> PassResult:
    return run_pass(project, Settings(model="fake/scripted", **settings), model=model, now=lambda: FIXED_NOW)


def test_the_repair_round_points_at_the_line_and_a_correction_that_cites_it_lands(diary: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#1"]}]})
    garden(diary, fake_model)  # the old line is read: no longer offered
    capture(diary, DAY, GROUP, STORIES, CHATTER)
    skip = {"op": "skip", "lines": [f"{DAY}#3"]}
    fake_model.enqueue({"operations": [create([f"{DAY}#1"]), skip]})
    fake_model.enqueue({"operations": [create([f"{DAY}#1"])]})  # the same again: still refused
    fake_model.enqueue({"operations": [create([f"{DAY}#1", f"{DAY}#2"])]})  # cites the line: lands
    result = garden(diary, fake_model, repair_rounds=2)

    request = fake_model.history[2][-1]["content"]  # the first repair round of the second pass
    assert f"'members', 'stories', 'inspiring' are in {DAY}#2: cite it too, or leave those words out" in request
    assert f"[{DAY}#2] {STORIES}" in request  # the suggested line, quoted
    assert "2026-11-29#1" not in request  # a line not offered in this pass is never suggested
    assert result.created == ["wiki/support-group.md"], result.refusals
    assert [r["refused"] for r in result.rounds] == [1, 1, 0]
    assert result.outcome == "pages_written"

    # The record says why each refused sentence was refused, round by round.
    record = json.loads((diary.root / FIXED_LOG).read_text().splitlines()[-1])
    first, second = record["grounding"]
    assert first == {
        "round": 1, "op": "create_page support-group", "page": "wiki/support-group.md", "sentence": SENTENCE,
        "score": first["score"], "threshold": 0.6, "missing": ["found", "members", "stories", "inspiring"], "unfounded": [],
        "cited": [f"{DAY}#1"], "lines_holding": {f"{DAY}#2": ["members", "stories", "inspiring"]},
    }  # fmt: skip
    assert 0 < first["score"] < 0.6 and second["round"] == 2

    shown = invoke(diary, "show")
    assert shown.exit_code == 0, shown.output
    assert f'grounding: create_page support-group, wiki/support-group.md: "{SENTENCE}"' in shown.output
    assert f"scored {first['score']:.2f} < 0.60; cited {DAY}#1" in shown.output
    assert "words not in the cited lines: found, members, stories, inspiring" in shown.output
    assert f"in {DAY}#2, not cited: members, stories, inspiring" in shown.output
    assert "(round 2)" in shown.output
    as_json = json.loads(invoke(diary, "show", "--json").output)
    assert as_json["record"]["grounding"] == record["grounding"]


def test_an_invented_number_is_recorded_with_no_line_to_cite(diary: Project, fake_model: FakeModel) -> None:
    capture(diary, DAY, "5 years already! feels like just yesterday I put this dress on")
    married = {"op": "create_page", "page": "dress", "title": "The dress", "lines": [f"{DAY}#1"],
               "body": "She has been married for 8 years; she put this dress on 5 years ago.\n"}  # fmt: skip
    result = garden(diary, fake_model.enqueue({"operations": [married]}).enqueue({"operations": []}))
    [entry] = result.grounding
    assert entry["unfounded"] == ["8"] and entry["lines_holding"] == {}
    shown = invoke(diary, "show")
    assert "numbers and names not in the cited lines: 8" in shown.output
