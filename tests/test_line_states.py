"""Every journal line's state with its reason, read from the passes' records (`services.lines`), on
the journal's pages and in `journal_day`: on a page (linked), skipped with the skip's reason, unread
after a failed request with what failed, left unread by a refusal or by a pass's own word (`unread`
entries, which newer records keep), set aside; and "Read again", the `reread` of one line."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.history.records import append_attempt
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from gitgarden.services.views import journal_day
from gitgarden.wiki import journal
from tests.helpers.project import FIXED_NOW, FakeModel, capture, commit_all, git, workspace
from tests.helpers.web_client import client, form

SETTINGS = Settings(model="fake/scripted", repair_rounds=0)


def garden(project: Project, *replies: dict[str, Any] | str) -> Any:
    model = FakeModel()
    for reply in replies:
        model.enqueue(reply)
    return run_pass(project, SETTINGS, model=model, now=lambda: FIXED_NOW)


def by_id(project: Project, day: str) -> dict[str, Any]:
    return {ln.id: ln for ln in journal_day(project, day)}


def words(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_a_line_on_a_page_is_linked_and_a_skipped_one_gives_its_reason(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer", "rain all day")
    result = garden(project, {"operations": [
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme is the pilot customer.\n", "lines": ["2026-11-28#1"]},
        {"op": "skip", "lines": ["2026-11-28#2"], "reason": "chatter: weather"},
    ]})  # fmt: skip
    lines = by_id(project, "2026-11-28")
    on, skipped = lines["2026-11-28#1"], lines["2026-11-28#2"]
    assert (on.state, on.detail, on.pages, on.pass_id) == ("read", "on a page", ("acme",), result.pass_id)
    assert (skipped.state, skipped.detail, skipped.reason) == ("read", "skipped", "chatter: weather")
    page = client(project).get("/journal/2026-11-28").text
    assert '<a href="/page/acme">acme</a>' in page
    assert f"skipped: chatter: weather · by pass {result.pass_id}" in words(page)
    assert words(page).count("Read again") == 2  # each read line can be given back


def test_lines_a_failed_request_left_unread_say_what_failed(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    result = garden(project, "I think Acme is lovely!", "Still not JSON")
    assert result.outcome == "failed"
    line = by_id(project, "2026-11-28")["2026-11-28#1"]
    assert (line.state, line.detail, line.pass_id) == ("unread", "failed", result.pass_id)
    assert line.reason == f"pass {result.pass_id} failed: bad model output: the reply is not JSON (Expecting value at character 0)"
    shown = words(client(project).get("/journal/2026-11-28").text)
    assert "unread after a failed request — pass" in shown and "the reply is not JSON" in shown
    assert "Read again" not in shown  # an unread line has nothing to give back
    assert "the reply is not JSON" in words(client(project).get("/journal").text)  # the waiting list says it too


def test_the_unread_entries_of_a_record_are_read_and_their_absence_is_no_failure(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer", "Dana starts Monday", "maybe the blue sign", "old line")
    commit_all(project.root, "journal")
    gdir = git_dir(project.root)
    append_attempt(gdir, {"pass_id": "20261129T090000Z-0001", "outcome": "pages_written", "started": "2026-11-29T09:00:00+00:00"})
    append_attempt(gdir, {"pass_id": "20261129T100000Z-0002", "outcome": "some_refused", "started": "2026-11-29T10:00:00+00:00", "unread": "not a list"})
    append_attempt(gdir, {
        "pass_id": "20261130T090000Z-0003", "outcome": "some_refused", "started": "2026-11-30T09:00:00+00:00",
        "offered": ["2026-11-28#1", "2026-11-28#2", "2026-11-28#3"],
        "unread": [
            {"line": "2026-11-28#1", "text": "Acme is the pilot customer", "reason": "request failed: the reply is not JSON"},
            {"line": "2026-11-28#2", "text": "Dana starts Monday", "reason": "refused: rule 11 (grounded) wiki/dana.md"},
            {"line": "2026-11-28#3", "text": "a line the person has since rewritten", "reason": "unsure"},
            {"line": 7, "reason": None},
        ],
    })  # fmt: skip
    lines = by_id(project, "2026-11-28")
    assert (lines["2026-11-28#1"].detail, lines["2026-11-28#1"].reason) == ("failed", "request failed: the reply is not JSON")
    assert (lines["2026-11-28#2"].detail, lines["2026-11-28#2"].reason) == ("left unread", "refused: rule 11 (grounded) wiki/dana.md")
    assert (lines["2026-11-28#3"].detail, lines["2026-11-28#3"].reason) == ("", "")  # its words changed: not this line's story
    assert (lines["2026-11-28#4"].state, lines["2026-11-28#4"].detail) == ("unread", "")  # nothing said of it
    assert client(project).get("/journal/2026-11-28").status_code == 200


def test_read_again_gives_one_line_back_in_a_commit_of_the_persons(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer", "rain all day")
    garden(project, {"operations": [
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme is the pilot customer.\n", "lines": ["2026-11-28#1"]},
        {"op": "skip", "lines": ["2026-11-28#2"], "reason": "chatter: weather"},
    ]})  # fmt: skip
    before = workspace(project.root)
    c = client(project)
    assert "skipped: chatter: weather" in words(c.get("/journal/2026-11-28").text)  # the server keeps what it read
    r = c.post("/journal/reread", data=form(line="2026-11-28#2"), follow_redirects=False)
    assert r.headers["location"].endswith("#l2")
    page = c.get(r.headers["location"]).text
    assert "made unread again with gitgarden reread" in words(page) and "skipped: chatter" not in words(page)  # read afresh
    assert re.search(r"Line 2026-11-28#2 is unread again \(commit [0-9a-f]{10}\): the next pass offers it\. No pass was undone\.", page)
    lines = by_id(project, "2026-11-28")
    assert (lines["2026-11-28#2"].state, lines["2026-11-28#2"].detail) == ("unread", "read again")
    assert lines["2026-11-28#1"].detail == "on a page"  # the other line stays where it was
    assert journal.READ_PATH in git(project.root, "show", "--name-only", "--format=", "HEAD")
    assert "gitgarden reread" in git(project.root, "log", "-1", "--format=%s") and not git(project.root, "status", "--porcelain")
    changed = {p for p, data in workspace(project.root).items() if before.get(p) != data}
    assert changed == {journal.READ_PATH, f"log/{FIXED_NOW:%Y-%m}.jsonl"}  # the wiki untouched
    again = c.post("/journal/reread", data=form(line="2026-11-28#2"), follow_redirects=False)
    assert "Line 2026-11-28#2 was already unread: nothing changed." in c.get(again.headers["location"]).text
    assert c.post("/journal/reread", data=form(line="2026-11-28#9")).status_code == 409  # no such line: one line, 409


def test_a_record_of_the_reread_is_what_later_readers_see(project: Project) -> None:
    capture(project, "2026-11-28", "rain all day")
    garden(project, {"operations": [{"op": "skip", "lines": ["2026-11-28#1"], "reason": "chatter: weather"}]})
    client(project).post("/journal/reread", data=form(line="2026-11-28#1"))
    data = journal_day(project, "2026-11-28")[0].to_json()
    assert data["state"] == "unread" and data["detail"] == "read again"
    assert json.loads(json.dumps(data))["reason"].startswith("made unread again with gitgarden reread")
