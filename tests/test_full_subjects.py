"""Full mode gains what small mode's code does: one page per subject, and changes asked about.

The model writes the prose; code resolves a new page it proposes for a subject that already has one
(another spelling, a first name, a plural) to that page, and adds an Open line for a line that
changes an earlier value, whether or not the model noticed.
"""

from __future__ import annotations

from typing import Any

import pytest

from gitgarden.project import Project
from gitgarden.wiki import pages
from tests.helpers.project import FakeModel, commit_all, garden, git, page, write


def create(name: str, title: str, body: str, line: str) -> dict[str, Any]:
    return {"op": "create_page", "page": name, "title": title, "body": body, "lines": [line]}


def test_a_new_page_for_a_subject_that_has_one_becomes_text_for_it(project: Project) -> None:
    write(project.root, "wiki/tomasz-wojcik.md", page("Tomasz Wójcik", "Tomasz is the contractor.\n", source="[2026-11-28]", gardener=True))
    write(project.root, "raw/journal/2026-11-28.md", "Tomasz is the contractor\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "Tomasz quoted 18,400 EUR\n")
    model = FakeModel().enqueue({"operations": [create("tomasz", "Tomasz", "Tomasz quoted 18,400 EUR.\n", "2026-11-29#1")]})
    result = garden(project, model)
    assert result.refusals == [] and result.created == [] and result.appended == ["wiki/tomasz-wojcik.md"]
    assert "Tomasz quoted 18,400 EUR." in (project.root / "wiki/tomasz-wojcik.md").read_text()
    assert not (project.root / "wiki/tomasz.md").exists()


@pytest.mark.parametrize("old_mark,new_mark", [("", ""), ("- ", "- [ ] ")])
def test_a_change_the_model_did_not_ask_about_gets_an_open_line(project: Project, old_mark: str, new_mark: str) -> None:
    """… quoting what the two lines say: in a journal kept as a list (Obsidian's daily notes), not "- "."""
    write(project.root, "wiki/deposit.md", page("Deposit", "Tomasz wants a 1,500 EUR deposit.\n", source="[2026-03-05]", gardener=True))
    write(project.root, "raw/journal/2026-03-05.md", f"{old_mark}Tomasz wants a 1,500 EUR deposit, invoice TW-0314\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-03-07.md", f"{new_mark}The deposit for Tomasz is now 2,000 EUR, he re-sent TW-0314\n")
    model = FakeModel().enqueue(
        {"operations": [{"op": "append", "page": "deposit", "text": "The deposit for Tomasz is now 2,000 EUR.\n", "lines": ["2026-03-07#1"]}]}
    )
    result = garden(project, model)
    assert result.refusals == [], result.refusals
    asked = pages.open_lines(git(project.root, "show", "HEAD:wiki/index.md"))
    assert asked == [
        "- Which holds? “Tomasz wants a 1,500 EUR deposit, invoice TW-0314” (2026-03-05#1) or "
        "“The deposit for Tomasz is now 2,000 EUR, he re-sent TW-0314” (2026-03-07#1) ([[deposit]])"
    ]


def test_a_change_of_a_line_opening_with_a_tag_gets_an_open_line(project: Project) -> None:
    """`#deposit Tomasz wants …` is a journal line (a tag, no heading), so a later change of its value is asked."""
    write(project.root, "wiki/deposit.md", page("Deposit", "Tomasz wants a 1,500 EUR deposit.\n", source="[2026-03-05]", gardener=True))
    write(project.root, "raw/journal/2026-03-05.md", "#deposit Tomasz wants a 1,500 EUR deposit, invoice TW-0314\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-03-07.md", "The deposit for Tomasz is now 2,000 EUR, he re-sent TW-0314\n")
    model = FakeModel().enqueue(
        {"operations": [{"op": "append", "page": "deposit", "text": "The deposit for Tomasz is now 2,000 EUR.\n", "lines": ["2026-03-07#1"]}]}
    )
    assert garden(project, model).refusals == []
    asked = pages.open_lines(git(project.root, "show", "HEAD:wiki/index.md"))
    assert any("“#deposit Tomasz wants a 1,500 EUR deposit, invoice TW-0314” (2026-03-05#1)" in ln and "now 2,000 EUR" in ln for ln in asked), asked


def test_a_reply_cut_off_twice_is_asked_again_in_halves_and_no_line_is_dropped(project: Project) -> None:
    lines = ["Anna Berg quoted 900 EUR", "Jon Lie quoted 700 EUR", "Kari Moe quoted 500 EUR", "lunch was good"]
    write(project.root, "raw/journal/2026-11-29.md", "".join(f"{ln}\n" for ln in lines))
    cut = '{"operations": [{"op": "create_page", "page": "anna-berg", "title": "Anna Be'
    model = FakeModel().enqueue(cut, finish_reason="length").enqueue(cut, finish_reason="length")
    model.enqueue({"operations": [create("anna-berg", "Anna Berg", "Anna Berg quoted 900 EUR.\n", "2026-11-29#1"),
                                  create("jon-lie", "Jon Lie", "Jon Lie quoted 700 EUR.\n", "2026-11-29#2")]})  # fmt: skip
    model.enqueue({"operations": [create("kari-moe", "Kari Moe", "Kari Moe quoted 500 EUR.\n", "2026-11-29#3"),
                                  {"op": "skip", "lines": ["2026-11-29#4"], "reason": "chatter"}]})  # fmt: skip
    result = garden(project, model)
    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert sorted(result.created) == ["wiki/anna-berg.md", "wiki/jon-lie.md", "wiki/kari-moe.md"]
    assert result.marked_read == 4 and result.unread == []
    halves = [m[-1]["content"] for m in model.history[2:]]
    assert "Anna Berg quoted" in halves[0] and "Kari Moe" not in halves[0]
    assert "Kari Moe quoted" in halves[1] and "Anna Berg quoted" not in halves[1]
