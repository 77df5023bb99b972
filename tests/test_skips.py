"""Skipped lines a person can see and take back: the skip's reason in the record, `show` and `status`;
`reread` of a line or a day (and `run --reread`); `undo` of a pass that read no line says nothing
about lines it read."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gitgarden.project import Project
from tests.helpers.project import (
    FIXED_LOG,
    FakeModel,
    commit_all,
    git,
    invoke,
    page,
    workspace,
    write,
)

JOURNAL = "Acme signed the pilot contract\nbought coffee\nthe train was late\n"
ACME = {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]}


@pytest.fixture
def shop(project: Project) -> Project:
    write(project.root, "raw/journal/2026-11-29.md", JOURNAL)
    commit_all(project.root)
    return project


def run_json(project: Project, model: FakeModel, *args: str) -> dict[str, Any]:
    result = invoke(project, "run", "--json", *args, model=model)
    assert result.exit_code in (0, 10, 11), result.output
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def committed_record(project: Project) -> dict[str, Any]:
    return json.loads(git(project.root, "show", f"HEAD:{FIXED_LOG}").splitlines()[-1])  # type: ignore[no-any-return]


def test_skipped_lines_and_their_reasons_are_in_the_record_show_and_status(shop: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [
        ACME,
        {"op": "skip", "lines": ["2026-11-29#2"], "reason": "chatter"},
        {"op": "skip", "lines": ["2026-11-29#3"]},  # an older reply: no reason
    ]})  # fmt: skip
    data = run_json(shop, fake_model)
    assert data["outcome"] == "pages_written" and data["marked_read"] == 3
    expected = [
        {"line": "2026-11-29#2", "text": "bought coffee", "reason": "chatter"},
        {"line": "2026-11-29#3", "text": "the train was late", "reason": "no reason given"},
    ]
    assert data["skipped"] == expected  # the line that made a page is not "skipped"
    assert committed_record(shop)["skipped"] == expected  # committed with the pass
    assert "Gardener-Skipped: 2" in git(shop.root, "log", "-1", "--format=%B")
    show = invoke(shop, "show")
    assert "skipped:  2 line(s)" in show.stdout
    assert "2026-11-29#2 (chatter): bought coffee" in show.stdout
    assert "2026-11-29#3 (no reason given): the train was late" in show.stdout
    assert json.loads(invoke(shop, "log", "--json").stdout)[0]["skipped"] == 2
    status = invoke(shop, "status", "--json")
    assert json.loads(status.stdout)["skipped"]["lines"] == 2
    assert "skipped: 2 journal line(s) read without a page by the last 1 pass(es)" in invoke(shop, "status").stdout


def test_the_schema_and_the_prompt_ask_a_skip_for_its_reason(shop: Project, fake_model: FakeModel) -> None:
    from gitgarden.model.operations import OPERATIONS

    assert "reason" in OPERATIONS["skip"]["properties"]
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#1", "2026-11-29#2", "2026-11-29#3"], "reason": "x"}]})
    run_json(shop, fake_model)
    assert '"reason": "<a few words why>"' in fake_model.prompt


def test_reread_of_a_line_and_of_a_day_offers_them_again_without_undoing_the_pass(shop: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [ACME, {"op": "skip", "lines": ["2026-11-29#2", "2026-11-29#3"], "reason": "chatter"}]})
    run_json(shop, fake_model)
    page_before = (shop.root / "wiki/acme.md").read_bytes()

    one = invoke(shop, "reread", "2026-11-29#2")
    assert one.exit_code == 0, one.output
    assert "1 journal line(s) unread again" in one.stderr
    commit = git(shop.root, "log", "-1", "--format=%an|%s").strip()
    assert commit == "Pat Person|gitgarden reread: 1 journal line(s) unread again"
    assert git(shop.root, "status", "--porcelain") == ""
    assert (shop.root / "wiki/acme.md").read_bytes() == page_before  # no pass undone
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#2"], "reason": "chatter"}]})
    assert run_json(shop, fake_model)["offered"] == ["2026-11-29#2"]

    day = invoke(shop, "reread", "2026-11-29")
    assert day.exit_code == 0 and "3 journal line(s) unread again" in day.stderr
    fake_model.enqueue({"operations": []})
    assert run_json(shop, fake_model)["offered"] == ["2026-11-29#1", "2026-11-29#2", "2026-11-29#3"]


def test_reread_refuses_what_names_no_line_and_changes_nothing(shop: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#1", "2026-11-29#2", "2026-11-29#3"], "reason": "chatter"}]})
    run_json(shop, fake_model)
    before, head = workspace(shop.root), git(shop.root, "rev-parse", "HEAD")
    for target, said in (
        ("2026-11-29#9", "no journal line 2026-11-29#9: that day has 3 journal line(s)"),
        ("2026-11-30", "no journal lines on 2026-11-30"),
        ("yesterday", "'yesterday' is neither a line id"),
    ):
        result = invoke(shop, "reread", target)
        assert result.exit_code == 1 and said in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1  # one line
    assert workspace(shop.root) == before and git(shop.root, "rev-parse", "HEAD") == head
    unread = invoke(shop, "reread", "2026-11-29#1")
    assert unread.exit_code == 0
    again = invoke(shop, "reread", "2026-11-29#1")
    assert again.exit_code == 0 and "already unread: 2026-11-29#1" in again.stderr
    assert git(shop.root, "rev-parse", "HEAD~1") == head  # one commit for the first reread, none for the second


def test_run_reread_gives_lines_back_before_the_pass(shop: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#1", "2026-11-29#2", "2026-11-29#3"], "reason": "chatter"}]})
    run_json(shop, fake_model)
    fake_model.enqueue({"operations": [ACME]})
    data = run_json(shop, fake_model, "--reread", "2026-11-29#1")
    assert data["offered"] == ["2026-11-29#1"] and data["created"] == ["wiki/acme.md"]


def test_reread_offers_a_set_aside_line_again(shop: Project, fake_model: FakeModel) -> None:
    bad = {"operations": [{"op": "append", "page": "nowhere", "text": "Acme signed.\n", "lines": ["2026-11-29#1"]},
                          {"op": "skip", "lines": ["2026-11-29#2", "2026-11-29#3"], "reason": "chatter"}]}  # fmt: skip
    for n in range(3):
        fake_model.enqueue(bad if n == 0 else {"operations": [bad["operations"][0]]})
        fake_model.enqueue({"operations": [bad["operations"][0]]})  # the repair round's answer: the same again
        run_json(shop, fake_model)
    assert "2026-11-29#1" in (shop.root / ".gitgarden/set-aside.json").read_text()
    result = invoke(shop, "reread", "2026-11-29#1")
    assert result.exit_code == 0 and "1 journal line(s) unread again" in result.stderr
    fake_model.enqueue({"operations": [ACME]})
    assert run_json(shop, fake_model)["created"] == ["wiki/acme.md"]


def test_undo_of_a_pass_that_read_no_line_says_so(project: Project) -> None:
    write(project.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR.\n"))
    commit_all(project.root)
    tidy = invoke(project, "run", "--json", model=None)
    assert json.loads(tidy.stdout)["outcome"] == "tidied"  # the map entry, no journal line read
    result = invoke(project, "undo")
    assert result.exit_code == 0, result.output
    assert "stay read" not in result.stderr and "It read no journal line." in result.stderr
    assert "stay read" not in git(project.root, "log", "-1", "--format=%B")


def test_a_link_refusal_names_what_does_not_exist(shop: Project, fake_model: FakeModel) -> None:
    """A refused `link` said "the page or the link target does not exist": the person (and the repair
    round) could not tell which."""
    write(shop.root, "wiki/acme.md", page("Acme", "Acme signed the pilot contract.\n", gardener=True))
    commit_all(shop.root)
    fake_model.enqueue({"operations": [
        {"op": "link", "lines": ["2026-11-29#1"], "page": "acme", "phrase": "pilot", "target": "map-contributing"},
        {"op": "skip", "lines": ["2026-11-29#2", "2026-11-29#3"], "reason": "chatter"},
    ]})  # fmt: skip
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#1"], "reason": "x"}]})  # the repair round
    data = run_json(shop, fake_model)
    assert any("link target 'map-contributing' does not exist" in r for r in data["refusals"]), data["refusals"]
    assert not any("page or the link target" in r for r in data["refusals"])
