"""Guards an audit broke by hand without any test noticing (issue 35): each test here fails when the
guard it names is taken out. Capture never writes through a symlinked day file; a pass never writes
through a symlinked folder; small mode asks instead of appending to a decided page and keeps a line's
punctuation; the search index notices a layout change and a rewrite that kept size and mtime; the
agents' search limit has a ceiling; a query's punctuation is never FTS5 syntax; a refused branch
update leaves no snapshot tag."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from gitgarden.agents.tools import SEARCH_LIMIT_MAX, Door
from gitgarden.config import Settings
from gitgarden.errors import GitgardenError
from gitgarden.gardener import small
from gitgarden.history.common import write_and_commit_as_person
from gitgarden.project import Project, init_project
from gitgarden.repo.commits import commit_blobs
from gitgarden.search.index import search
from gitgarden.wiki import pages
from gitgarden.wiki.journal import JournalLine
from tests.helpers.project import (
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    garden,
    git,
    invoke,
    page,
    write,
)

DAY = f"{FIXED_NOW:%Y-%m-%d}"


def test_capture_never_writes_through_a_day_file_that_is_a_symlink(project: Project, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("someone else's file\n")
    os.symlink(outside, project.journal / f"{DAY}.md")
    done = invoke(project, "capture", "Acme signed the pilot")
    assert done.exit_code == 1 and "is a symlink; capture does not follow it" in done.output
    assert outside.read_text() == "someone else's file\n"


def test_a_pass_never_writes_through_a_symlinked_folder_of_the_wiki(project: Project, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, project.root / "wiki" / "clients")
    capture(project, "2026-11-29", "Acme is the pilot customer")
    commit_all(project.root, "journal")
    reply = {"operations": [{"op": "create_page", "page": "clients/acme", "title": "Acme", "body": "Acme is the pilot customer.\n", "lines": ["2026-11-29#1"]}]}
    result = garden(project, FakeModel().enqueue(reply).enqueue(reply), Settings(model="fake/scripted", repair_rounds=0))
    assert result.outcome != "pages_written"  # the operation's page name is refused first
    assert list(elsewhere.iterdir()) == []
    # What writes a page's bytes (undo, reread, a pass's commit) checks every folder on the way.
    with pytest.raises(GitgardenError, match="clients is a symlink"):
        write_and_commit_as_person(project.root, {"wiki/clients/acme.md": b"Acme is the pilot customer.\n"}, "through a symlink")
    assert list(elsewhere.iterdir()) == []


SMALL = Settings(model="fake/scripted", mode="small")


def test_small_mode_asks_on_the_map_instead_of_appending_to_a_decided_page(project: Project) -> None:
    decided = page("Delivery", "- Delivery is on Mondays (2026-11-28)\n", state="decided", source="[2026-11-28]", gardener=True)
    write(project.root, "wiki/delivery.md", decided)
    write(project.root, "raw/journal/2026-11-29.md", "Delivery moves to Tuesdays!\n")
    commit_all(project.root)
    result = garden(project, FakeModel().enqueue("yes"), SMALL)  # small mode asks one word: keep it
    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert result.refusals == []
    assert git(project.root, "show", "HEAD:wiki/delivery.md") == decided  # a decided page gets no new line
    opened = pages.open_lines(git(project.root, "show", f"HEAD:{pages.map_path()}"))
    assert "- “Delivery moves to Tuesdays!” (2026-11-29) touches a decided page ([[delivery]])" in opened, opened  # the line whole, its "!" kept


@pytest.mark.parametrize("text", ["Acme pays 400 EUR.", "Who pays the flyers?", "Acme signed!", "- Acme pays monthly;", "Acme: yes…"])
def test_a_bullet_is_the_line_word_for_word_with_its_punctuation(text: str) -> None:
    line = JournalLine("2026-11-29", 1, text, "k")
    assert small.bullet(line) == f"- {text.removeprefix('- ')} (2026-11-29)\n"


def _vault(tmp_path: Path) -> Project:
    vault = tmp_path / "Notes"
    write(vault, ".obsidian/app.json", "{}")
    write(vault, "About me.md", "I bake rye bread in Altdorf\n")
    write(vault, "Rye.md", "Rye bread needs a sour starter\n")
    git(vault, "init", "-q")
    commit_all(vault, "my vault")
    return Project(init_project(vault).root)


def test_the_search_index_notices_a_layout_change(tmp_path: Path) -> None:
    """`About me.md` becomes an identity file: the same file, unchanged on disk, is no page any more."""
    project = _vault(tmp_path)
    assert "About me" in [h.ref for h in search(project, "altdorf").hits]
    assert [h.ref for h in search(project, "altdorf", identity=("About me.md",)).hits] == []
    assert "About me" in [h.ref for h in search(project, "altdorf").hits]


def test_the_search_index_reads_a_same_size_rewrite_whose_mtime_was_put_back(project: Project) -> None:
    path = write(project.root, "wiki/oven.md", page("Oven", "The oven runs on gas.\n"))
    soon = time.time_ns() + 60 * 10**9  # written "just now" as the index sees it: never trusted by its stat
    os.utime(path, ns=(soon, soon))
    assert [h.ref for h in search(project, "gas").hits] == ["oven"]
    path.write_text(page("Oven", "The oven runs on oil.\n"))  # the same size
    os.utime(path, ns=(soon, soon))  # and the same mtime put back
    assert [h.ref for h in search(project, "oil").hits] == ["oven"]
    assert search(project, "gas").hits == []


def test_the_agents_search_limit_has_a_ceiling(project: Project) -> None:
    door = Door(project, {}, lambda: FIXED_NOW)
    for limit in (0, SEARCH_LIMIT_MAX + 1, 10**9):
        with pytest.raises(GitgardenError, match=f"limit must be between 1 and {SEARCH_LIMIT_MAX}"):
            door.search("oven", limit=limit)
    assert door.search("oven", limit=SEARCH_LIMIT_MAX)["results"] == []


def test_a_querys_punctuation_is_searched_as_words_never_as_fts5_syntax(project: Project) -> None:
    write(project.root, "wiki/acme.md", page("Acme", "Acme bakes rye bread.\n"))
    write(project.root, "wiki/forms.md", page("Forms", "Each form has a title: acme or another name.\n"))
    write(project.root, "wiki/board.md", page("Board", 'He wrote a"b on the board.\n'))
    write(project.root, "wiki/shop.md", page("Shop", "The shop is near the station.\n"))
    commit_all(project.root)

    def found(query: str) -> list[str]:
        return sorted(h.ref for h in search(project, query, limit=20).hits if h.kind == "page")

    assert found("title:acme") == ["forms"]  # not FTS5's column filter, which finds the page titled Acme
    assert found('a"b') == ["board"]
    assert found("NEAR(") == ["shop"]


def test_a_refused_branch_update_leaves_no_snapshot_tag(project: Project) -> None:
    """The snapshot tag goes in the same ref update as the commit: a branch that moved meanwhile (the
    person's hook commits here) refuses both."""
    hook = project.root / ".git/hooks/pre-commit"
    hook.write_text('#!/bin/sh\nunset GIT_INDEX_FILE\ngit update-ref refs/heads/main "$(git commit-tree HEAD^{tree} -p HEAD -m moved)"\n')
    hook.chmod(0o755)
    head = git(project.root, "rev-parse", "HEAD").strip()
    with pytest.raises(GitgardenError):
        commit_blobs(project.root, {"wiki/acme.md": b"x\n"}, message="a pass", ident=("gitgarden", "g@example.com"), tag=("pre_gardener/p1", head))
    assert git(project.root, "log", "-1", "--format=%s") == "moved\n"  # the person's commit stands
    assert git(project.root, "tag", "--list", "pre_gardener/*") == ""
