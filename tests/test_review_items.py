"""Review item by item: a waiting pass cut into its items (each new page, append, link, state change,
split and map entry), some taken as one commit through the guard, the lines of the others unread
again (or kept read), the pass's record saying which were taken — in the library, `gitgarden
review show|accept --only|--choose` and the web app's review page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.history.passlog import passes, review_decisions
from gitgarden.history.review import ReviewRefused
from gitgarden.project import Project
from gitgarden.services.review import accept_items, items_of, parse_numbers
from gitgarden.services.views import journal_day
from gitgarden.wiki import layout
from tests.helpers.project import (
    FIXED_LOG,
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    git,
    invoke,
    page,
    workspace,
    write,
)
from tests.helpers.web_client import client, form

REVIEW = Settings(model="fake/scripted", review=True, repair_rounds=0)


def waiting_pass(project: Project, *ops: dict[str, Any]) -> str:
    result = run_pass(project, REVIEW, model=FakeModel().enqueue({"operations": list(ops)}), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written", (result.refusals, result.detail)
    return result.pass_id


@pytest.fixture
def shop(project: Project) -> tuple[Project, str]:
    """A waiting pass that made two pages, appended to a page of the person's and skipped a line."""
    write(project.root, ".gitgarden/config.toml", "review = true\n")
    write(project.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n"))
    capture(project, "2026-11-28", "Acme is the pilot customer", "Acme wants export before January", "Dana joined as ops lead", "rain")
    commit_all(project.root, "the shop")
    pass_id = waiting_pass(
        project,
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme is the pilot customer.\n", "lines": ["2026-11-28#1"]},
        {"op": "append", "page": "pricing", "text": "Acme wants export before January.\n", "lines": ["2026-11-28#2"]},
        {"op": "create_page", "page": "dana", "title": "Dana", "body": "Dana joined as ops lead.\n", "lines": ["2026-11-28#3"]},
        {"op": "skip", "lines": ["2026-11-28#4"], "reason": "chatter: weather"},
    )
    return project, pass_id


def states(project: Project) -> dict[str, str]:
    return {ln.id: ln.state for ln in journal_day(project, "2026-11-28")}


def items(project: Project, pass_id: str) -> list[tuple[int, str, str, list[str]]]:
    with layout.active(project.layout):
        return [(i.number, i.kind, i.headline, i.lines) for i in items_of(project.root, pass_id).items]


def test_a_waiting_pass_is_cut_into_numbered_items_pages_first_map_last(shop: tuple[Project, str]) -> None:
    project, pass_id = shop
    assert items(project, pass_id) == [
        (1, "page", "new page acme (Acme)", ["2026-11-28#1"]),
        (2, "page", "new page dana (Dana)", ["2026-11-28#3"]),
        (3, "append", "append to pricing", ["2026-11-28#2"]),
        (4, "map", "map entry", []),
        (5, "map", "map entry", []),
        (6, "map", "map entry", []),
    ]
    with layout.active(project.layout):
        found = items_of(project.root, pass_id).items
    assert [i.added() for i in found[3:]] == [["- [[pricing]] — Pricing"], ["- [[dana]] — Dana"], ["- [[acme]] — Acme"]]


def test_the_items_taken_land_as_one_commit_and_the_others_lines_are_unread_again(shop: tuple[Project, str]) -> None:
    project, pass_id = shop
    head = git(project.root, "rev-parse", "HEAD").strip()
    with layout.active(project.layout):
        result = accept_items(project.root, pass_id, {1, 3, 4, 6})
    assert (result.taken, result.rejected, result.unread, result.waiting) == ([1, 3, 4, 6], [2, 5], ["2026-11-28#3"], [])
    assert git(project.root, "rev-list", f"{head}..HEAD").split() == [result.commit]  # one commit
    assert (project.root / "wiki/acme.md").exists() and not (project.root / "wiki/dana.md").exists()
    assert (project.root / "wiki/pricing.md").read_text().endswith("\n[[acme|Acme]] wants export before January.\n")  # its page came too: the link stands
    index = (project.root / "wiki/index.md").read_text()
    assert "[[acme]]" in index and "[[pricing]]" in index and "dana" not in index
    assert states(project) == {"2026-11-28#1": "read", "2026-11-28#2": "read", "2026-11-28#3": "unread", "2026-11-28#4": "read"}
    record = next(json.loads(ln) for ln in (project.root / FIXED_LOG).read_text().splitlines() if json.loads(ln).get("pass_id") == pass_id)
    taken = record["review_items"]
    assert [i["number"] for i in taken["taken"]] == [1, 3, 4, 6] and [i["number"] for i in taken["rejected"]] == [2, 5]
    assert taken["unread_again"] == ["2026-11-28#3"] and record["created"] == ["wiki/acme.md"]
    entry = next(e for e in passes(project.root) if e.pass_id == pass_id)
    assert (entry.review, entry.created, entry.appended, entry.read) == ("", 1, 1, 3)
    assert "Gardener-Items: 1,3,4,6/6" in git(project.root, "log", "-1", "--format=%B")
    assert review_decisions(project.root)["new pages"] == (1, 2)  # what the prompt learns: one of two pages taken
    assert git(project.root, "status", "--porcelain") == ""
    assert git(project.root, "branch", "--list", "gitgarden/review") == ""  # nothing waits any more


def test_a_link_to_a_page_left_out_becomes_its_words_and_its_map_entry_goes_with_it(shop: tuple[Project, str]) -> None:
    project, pass_id = shop
    with layout.active(project.layout):
        result = accept_items(project.root, pass_id, {3, 6}, keep_read=True)
    assert (result.taken, result.followed, result.unread) == ([3], [6], [])
    pricing = (project.root / "wiki/pricing.md").read_text()
    assert pricing.endswith("\nAcme wants export before January.\n") and "[[" not in pricing
    assert not (project.root / "wiki/acme.md").exists() and "acme" not in (project.root / "wiki/index.md").read_text()
    assert set(states(project).values()) == {"read"}  # --keep-read: the lines of the items left out stay read


def test_taking_every_item_is_accepting_the_pass(shop: tuple[Project, str]) -> None:
    project, pass_id = shop
    tip = git(project.root, "rev-parse", "gitgarden/review").strip()
    with layout.active(project.layout):
        result = accept_items(project.root, pass_id, set(range(1, 7)))
    assert result.kind == "fast-forward" and git(project.root, "rev-parse", "HEAD").strip() == tip


def test_what_cannot_be_taken_is_refused_and_nothing_changes(shop: tuple[Project, str]) -> None:
    project, pass_id = shop
    # A second waiting pass builds on the page `dana` of the first: leaving `dana` out leaves it nothing to build on.
    capture(project, "2026-11-29", "Dana starts on Monday")
    second = waiting_pass(project, {"op": "append", "page": "dana", "text": "Dana starts on Monday.\n", "lines": ["2026-11-29#1"]})
    before = (workspace(project.root), git(project.root, "rev-parse", "HEAD", "gitgarden/review"))
    with layout.active(project.layout):
        with pytest.raises(ReviewRefused, match=f"no item of pass {pass_id} taken: that is a reject"):
            accept_items(project.root, pass_id, set())
        with pytest.raises(ReviewRefused, match=f"would leave pass {second} with nothing to build on"):
            accept_items(project.root, pass_id, {1})
        with pytest.raises(ReviewRefused, match="there is no item 9"):
            parse_numbers(["1,9"], 6)
    assert (workspace(project.root), git(project.root, "rev-parse", "HEAD", "gitgarden/review")) == before
    assert parse_numbers(["1,3", "5-6"], 6) == {1, 3, 5, 6}


def test_the_command_line_lists_the_items_and_takes_some(shop: tuple[Project, str]) -> None:
    project, pass_id = shop
    shown = invoke(project, "review", "show", pass_id)
    assert shown.exit_code == 0, shown.output
    assert "   1. [page] new page acme (Acme): Acme is the pilot customer.  (from 2026-11-28#1)" in shown.stdout
    assert "   5. [map] map entry: [[dana]] — Dana" in shown.stdout and "      + - [[dana]] — Dana" in shown.stdout
    listed = json.loads(invoke(project, "review", "show", pass_id, "--json").stdout)
    assert [i["number"] for i in listed["items"]] == [1, 2, 3, 4, 5, 6]
    taken = invoke(project, "review", "accept", pass_id, "--only", "2,5")
    assert taken.exit_code == 0, taken.output
    assert f"Took item(s) 2, 5 of pass {pass_id} in commit " in taken.stderr
    assert "Left out: 1, 3, 4, 6; 2 journal line(s) are unread again." in taken.stderr
    assert (project.root / "wiki/dana.md").exists() and not (project.root / "wiki/acme.md").exists()
    assert "export" not in (project.root / "wiki/pricing.md").read_text()


def test_the_command_line_asks_item_by_item(shop: tuple[Project, str]) -> None:
    project, pass_id = shop
    chosen = invoke(project, "review", "accept", pass_id, "--choose", input="n\ny\nn\ny\ny\nn\n")
    assert chosen.exit_code == 0, chosen.output
    assert f"Took item(s) 2, 4, 5 of pass {pass_id}" in chosen.stderr
    assert (project.root / "wiki/dana.md").exists() and not (project.root / "wiki/acme.md").exists()
    assert invoke(project, "review", "accept", "--only", "1").exit_code == 2  # the items of which pass?


def test_the_review_page_takes_the_ticked_items(shop: tuple[Project, str]) -> None:
    project, pass_id = shop
    c = client(project)
    html = c.get("/review").text
    assert html.count('name="item-') == 6 and 'aria-label="take item 2: new page dana (Dana): Dana joined as ops lead."' in html
    r = c.post("/review/items", data=form(**{"pass": pass_id, "item-1": "1", "item-6": "1"}), follow_redirects=False)
    note = c.get(r.headers["location"]).text
    assert f"Took item(s) 1, 6 of pass {pass_id} (commit " in note and "Left out: 2, 3, 4, 5; 2 journal line(s) are unread again." in note
    assert (project.root / "wiki/acme.md").exists() and not (project.root / "wiki/dana.md").exists()
    assert "Nothing waits for review." in c.get("/review").text
    refused = c.post("/review/items", data=form(**{"pass": pass_id}))
    assert refused.status_code == 409  # nothing waits any more: one line, nothing changed


def test_nothing_in_the_work_tree_outside_the_pass_changes(shop: tuple[Project, str], tmp_path: Path) -> None:
    project, pass_id = shop
    capture(project, "2026-11-30", "a line not yet committed")
    mine = (project.journal / "2026-11-30.md").read_bytes()
    with layout.active(project.layout):
        accept_items(project.root, pass_id, {2})
    assert (project.journal / "2026-11-30.md").read_bytes() == mine
    assert git(project.root, "status", "--porcelain") == "?? raw/journal/2026-11-30.md\n"


def test_a_split_and_the_parts_it_made_are_one_item(project: Project) -> None:
    write(project.root, ".gitgarden/config.toml", "review = true\n")
    write(project.root, "wiki/big.md", page("Big", "## One\ntext of one\n\n## Two\ntext of two\n", gardener=True))
    capture(project, "2026-11-28", "Acme is the pilot customer")
    commit_all(project.root, "a big page")
    pass_id = waiting_pass(
        project,
        {"op": "split", "page": "big", "lines": [], "parts": [{"page": "big-two", "title": "Two", "headings": ["Two"]}]},
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme is the pilot customer.\n", "lines": ["2026-11-28#1"]},
    )
    found = items(project, pass_id)
    assert [(kind, headline) for _, kind, headline, _ in found if kind in ("split", "page")] == [
        ("page", "new page acme (Acme)"), ("split", "split big into big-two"),
    ]  # fmt: skip
    split = next(n for n, kind, _, _ in found if kind == "split")
    page_item = next(n for n, kind, _, _ in found if kind == "page")
    with layout.active(project.layout):
        accept_items(project.root, pass_id, {page_item} | {n for n, kind, _, _ in found if kind == "map" and n != split})
    assert (project.root / "wiki/acme.md").exists() and not (project.root / "wiki/big-two.md").exists()
    assert "text of two" in (project.root / "wiki/big.md").read_text()  # left whole: the split was not taken
