"""The wiki's shape over time: pages superseded without a word lost, duplicates merged verbatim."""

from __future__ import annotations

from gitgarden.project import Project
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki.health import measure
from tests.helpers.guard_checker import lost
from tests.helpers.project import FakeModel, commit_all, garden, page, write

OLD_LEASE = page("Old lease", "The bakery rents the shop on a 3-year lease.\nRent is 900 EUR a month.\n", source="[2026-11-01]")


def trees(project: Project) -> DiskTree:
    return DiskTree(project.root, ["wiki", "raw/journal"])


def snapshot(project: Project) -> dict[str, object]:
    return dict(trees(project).items())


def test_a_superseded_page_points_to_its_successor_and_keeps_every_word(project: Project) -> None:
    write(project.root, "wiki/old-lease.md", OLD_LEASE)
    write(project.root, "wiki/new-lease.md", page("New lease", "The bakery signed a 5-year lease.\n", source="[2026-11-01]"))
    write(project.root, "raw/journal/2026-11-01.md", "leases noted\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "The 5-year lease replaces the old lease\n")
    before = snapshot(project)
    model = FakeModel().enqueue({"operations": [{"op": "supersede", "page": "old-lease", "by": "new-lease", "lines": ["2026-11-29#1"]}]})

    result = garden(project, model)

    assert result.outcome == "pages_written", result.refusals
    text = (project.root / "wiki/old-lease.md").read_text()
    assert 'superseded_by: "[[new-lease]]"' in text
    assert text.split("---\n", 2)[2].startswith("> Superseded by [[new-lease]].\n")
    assert lost(before, snapshot(project)) == []  # the independent checker: nothing lost or reworded
    health = measure(DiskTree(project.root, ["wiki"]))
    assert health.superseded == ["old-lease"]
    # Proposed again, it is already there: nothing written twice.
    with (project.journal / "2026-11-29.md").open("a") as fh:
        fh.write("The old lease is over\n")
    again = garden(project, FakeModel().enqueue({"operations": [{"op": "supersede", "page": "old-lease", "by": "new-lease", "lines": ["2026-11-29#2"]}]}))
    assert (project.root / "wiki/old-lease.md").read_text() == text, again.refusals


def test_a_decided_page_is_never_edited_it_gets_an_open_line(project: Project) -> None:
    decided = page("Old lease", "We decided on the 3-year lease.\n", state="decided", source="[2026-11-01]")
    write(project.root, "wiki/old-lease.md", decided)
    write(project.root, "wiki/new-lease.md", page("New lease", "A 5-year lease.\n", source="[2026-11-01]"))
    write(project.root, "raw/journal/2026-11-01.md", "leases noted\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "The 5-year lease replaces the old lease\n")
    model = FakeModel().enqueue({"operations": [{"op": "supersede", "page": "old-lease", "by": "new-lease", "lines": ["2026-11-29#1"]}]})

    result = garden(project, model)

    assert result.outcome == "pages_written", result.refusals
    assert (project.root / "wiki/old-lease.md").read_text() == decided
    assert "- [[old-lease]] is decided, but [[new-lease]] may supersede it" in (project.root / "wiki/index.md").read_text()


def test_duplicates_are_merged_word_for_word_and_the_old_name_still_resolves(project: Project) -> None:
    write(project.root, "wiki/flour-supplier.md", page("Flour supplier", "The mill in Kessel delivers rye.\n\n## Prices\n\nRye costs 1.20 EUR a kilo.\n", source="[2026-11-01]"))
    write(project.root, "wiki/flour-suppliers.md", page("Flour suppliers", "We buy flour from two mills.\n", source="[2026-11-02]"))
    write(project.root, "wiki/bread.md", page("Bread", "Rye bread uses the [[flour-supplier]] rye.\n", source="[2026-11-02]"))
    write(project.root, "raw/journal/2026-11-01.md", "mill noted\n")
    write(project.root, "raw/journal/2026-11-02.md", "mills noted\n")
    commit_all(project.root)
    assert ("flour-supplier", "flour-suppliers") in measure(DiskTree(project.root, ["wiki"])).duplicates
    write(project.root, "raw/journal/2026-11-29.md", "The flour supplier pages are the same thing\n")
    before = snapshot(project)
    model = FakeModel().enqueue({"operations": [{"op": "merge", "from": "flour-supplier", "into": "flour-suppliers", "lines": ["2026-11-29#1"]}]})

    result = garden(project, model)

    assert result.outcome == "pages_written", result.refusals
    src = (project.root / "wiki/flour-supplier.md").read_text()
    dst = (project.root / "wiki/flour-suppliers.md").read_text()
    assert src.startswith("---\ntitle: Flour supplier\n") and src.endswith("---\nMerged into [[flour-suppliers]].\n")
    assert "## Flour supplier\n\nThe mill in Kessel delivers rye.\n\n## Prices\n\nRye costs 1.20 EUR a kilo.\n" in dst
    assert "2026-11-01" in dst.split("---")[1]  # the merged page's source days came along
    assert lost(before, snapshot(project)) == []
    assert measure(DiskTree(project.root, ["wiki"])).broken_links == []  # [[flour-supplier]] still resolves


def test_a_merge_of_pages_that_are_not_duplicates_is_refused(project: Project) -> None:
    write(project.root, "wiki/bread.md", page("Bread", "Rye bread.\n"))
    write(project.root, "wiki/ovens.md", page("Ovens", "Two ovens.\n"))
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "bread and ovens\n")
    model = FakeModel().enqueue({"operations": [{"op": "merge", "from": "bread", "into": "ovens", "lines": ["2026-11-29#1"]}]}).enqueue({"operations": []})
    result = garden(project, model)
    assert any("not duplicate candidates" in r for r in result.refusals)
    assert (project.root / "wiki/bread.md").read_text() == page("Bread", "Rye bread.\n")
