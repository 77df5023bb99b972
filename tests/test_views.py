"""What the front ends show: a paragraph traced to the journal lines a pass wrote it from, a journal
day with each line's state, a page found as Obsidian finds it with its backlinks, the map's Open."""

from __future__ import annotations

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.history.provenance import KeptSources, page_sources, paragraphs
from gitgarden.history.undo import undo
from gitgarden.project import Project
from gitgarden.services.views import (
    NotFound,
    PageNotFound,
    find_page,
    journal_day,
    journal_days,
    kept_facts,
    map_view,
    wiki_tree,
)
from tests.helpers.project import FIXED_NOW, FakeModel, capture, commit_all, page, write

SETTINGS = Settings(model="fake/scripted")

ACME = {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme is the pilot customer.\n", "lines": ["2026-11-28#1"]}
EXPORT = {"op": "append", "page": "acme", "text": "Acme wants export before January.\n", "lines": ["2026-11-29#1"]}


def garden(project: Project, *ops: dict[str, object]) -> PassResult:
    return run_pass(project, SETTINGS, model=FakeModel().enqueue({"operations": list(ops)}), now=lambda: FIXED_NOW)


def test_each_paragraph_a_pass_wrote_is_traced_to_the_lines_it_cites(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer", "lunch was good")
    first = garden(project, ACME, {"op": "skip", "lines": ["2026-11-28#2"]})
    capture(project, "2026-11-29", "Acme wants export before January")
    second = garden(project, EXPORT)
    assert first.outcome == second.outcome == "pages_written", (first.refusals, second.refusals)
    with (project.root / "wiki/acme.md").open("a") as fh:
        fh.write("\nA line of my own.\n")  # the person's words: no pass claims them

    found = page_sources(project.root, "acme")

    assert [(s.text, s.lines, s.pass_id, s.op) for s in found] == [
        ("Acme is the pilot customer.", (("2026-11-28#1", "Acme is the pilot customer"),), first.pass_id, "create_page"),
        ("Acme wants export before January.", (("2026-11-29#1", "Acme wants export before January"),), second.pass_id, "append"),
    ]
    assert all(s.commit for s in found) and found[0].page == "acme"


def test_an_undone_pass_and_a_reworded_paragraph_claim_nothing(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    garden(project, ACME)
    capture(project, "2026-11-29", "Acme wants export before January")
    second = garden(project, EXPORT)
    undo(project.root, second.pass_id, now=FIXED_NOW)
    assert [s.text for s in page_sources(project.root, "acme")] == ["Acme is the pilot customer."]
    path = project.root / "wiki/acme.md"
    path.write_text(path.read_text().replace("pilot customer", "first customer"))
    assert page_sources(project.root, "acme") == []


def test_paragraphs_are_compared_with_their_whitespace_collapsed() -> None:
    assert paragraphs("One line\nwrapped here.\n\n  \nTwo.\r\n") == ["One line wrapped here.", "Two."]


def test_a_journal_day_shows_each_line_read_unread_or_set_aside(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer", "# a heading is no line", "lunch was good", "call Dana")
    garden(project, ACME, {"op": "skip", "lines": ["2026-11-28#3"]})

    lines = journal_day(project, "2026-11-28")

    assert [(v.id, v.text, v.state) for v in lines] == [
        ("2026-11-28#1", "Acme is the pilot customer", "read"),
        ("2026-11-28#3", "lunch was good", "read"),
        ("2026-11-28#4", "call Dana", "unread"),
    ]
    assert journal_days(project) == ["2026-11-28"]
    with pytest.raises(NotFound, match="no day file for 2026-11-27"):
        journal_day(project, "2026-11-27")
    with pytest.raises(NotFound, match="not a day"):
        journal_day(project, "../index")


def test_lines_before_journal_from_and_in_an_ignored_day_file_are_never_read(project: Project) -> None:
    capture(project, "2026-11-20", "an old line")
    write(project.root, ".gitgarden/config.toml", 'journal_from = "2026-11-25"\n')
    write(project.root, ".gitignore", "raw/journal/2026-11-29.md\n")
    capture(project, "2026-11-29", "a private line")
    project = Project(project.root)  # the layout is read once per project
    assert [v.state for v in journal_day(project, "2026-11-20")] == ["before journal_from"]
    assert [v.state for v in journal_day(project, "2026-11-29")] == ["ignored"]


def test_a_page_is_found_by_name_human_name_or_alias_with_its_backlinks(project: Project) -> None:
    write(project.root, "wiki/People/Dana Reyes.md", page("Dana Reyes", "Dana runs [[acme]].\n") .replace("---\n", "---\naliases: [Dana]\n", 1))
    write(project.root, "wiki/acme.md", page("Acme", "Our customer; see [[Dana]].\n", state="decided"))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n- [[acme]]\n\n## Open\n- Is Acme paying in December?\n")
    commit_all(project.root)

    dana = find_page(project, "dana")
    acme = find_page(project, "Acme")

    assert (dana.name, dana.title, dana.aliases, dana.backlinks) == ("People/Dana Reyes", "Dana Reyes", ["Dana"], ["acme"])
    assert (acme.name, acme.state, acme.backlinks) == ("acme", "decided", ["index", "People/Dana Reyes"])
    assert acme.body == "Our customer; see [[Dana]].\n" and not acme.gardeners
    assert find_page(project, "People/Dana Reyes").name == "People/Dana Reyes"
    assert map_view(project)[1] == ["- Is Acme paying in December?"]


def test_a_kept_facts_cache_finds_what_a_fresh_one_finds_after_each_edit(project: Project) -> None:
    write(project.root, "wiki/People/Dana Reyes.md", page("Dana Reyes", "Dana runs [[acme]].\n").replace("---\n", "---\naliases: [Dana]\n", 1))
    write(project.root, "wiki/acme.md", page("Acme", "Our customer; see [[Dana]].\n"))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n- [[acme]]\n")
    commit_all(project.root)
    kept = kept_facts(project)

    def both(name: str) -> tuple[object, object]:
        return find_page(project, name, tree=wiki_tree(project, kept)), find_page(project, name)

    assert both("acme")[0] == both("acme")[1] and both("acme")[0].backlinks == ["index", "People/Dana Reyes"]
    write(project.root, "wiki/Notes/beta.md", page("Beta", "About [Acme](../acme.md) and [[ACME]].\n"))
    (project.root / "wiki/People/Dana Reyes.md").write_text(page("Dana Reyes", "Dana left.\n"))
    kept_view, fresh_view = both("acme")
    assert kept_view == fresh_view and kept_view.backlinks == ["index", "Notes/beta"]
    (project.root / "wiki/acme.md").write_text(page("Acme", "Renamed words.\n"))
    assert both("acme")[0].body == "Renamed words.\n"


def test_kept_sources_follow_new_passes_and_undos(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    garden(project, ACME)
    kept = KeptSources()
    assert kept.page_sources(project.root, "acme") == page_sources(project.root, "acme") != []
    capture(project, "2026-11-29", "Acme wants export before January")
    second = garden(project, EXPORT)
    assert [s.pass_id for s in kept.page_sources(project.root, "acme")][1:] == [second.pass_id]
    assert kept.page_sources(project.root, "acme") == page_sources(project.root, "acme")
    undo(project.root, second.pass_id, now=FIXED_NOW)
    assert kept.page_sources(project.root, "acme") == page_sources(project.root, "acme")
    assert len(kept.page_sources(project.root, "acme")) == 1
    assert kept.page_sources(project.root, "nobody") == []


@pytest.mark.parametrize("name", ["../AGENTS", "/etc/passwd", "nobody", "", "raw/journal/2026-11-28"])
def test_a_name_outside_the_wiki_or_unknown_is_refused(project: Project, name: str) -> None:
    capture(project, "2026-11-28", "a line")
    with pytest.raises(PageNotFound):
        find_page(project, name)


def test_a_symlinked_page_is_never_read(project: Project, tmp_path: object) -> None:
    secret = project.root.parent / "secret.md"
    secret.write_text("---\ntitle: Secret\n---\nnot yours\n")
    (project.root / "wiki/secret.md").symlink_to(secret)
    with pytest.raises(PageNotFound):
        find_page(project, "secret")

