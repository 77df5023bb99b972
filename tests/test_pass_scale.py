"""What a pass keeps in memory to sweep the wiki fewer times (issue 29): a tree read from disk
answers each page's facts once and keeps its day index, and nothing of it outlives the pass, so
a page the person edits, adds or removes between two passes is seen by the next one."""

from __future__ import annotations

import os

import pytest

from gitgarden.guard import rules as guard
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki.facts import FactsCache, page_facts, pages_citing
from gitgarden.wiki.tree import Overlay, file
from tests.helpers.project import FakeModel, capture, commit_all, garden, page, write


def test_a_tree_asks_the_cache_once_a_page_and_a_new_tree_sees_an_edit(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project.root, "wiki/a.md", page("A", "A links [[b]].\n"))
    write(project.root, "wiki/b.md", page("B", "B.\n"))
    commit_all(project.root)
    cache_file = git_dir(project.root) / "gitgarden" / "facts.pickle"
    asked: list[str] = []
    real = FactsCache.get

    def counting(self: FactsCache, rel: str, signature: tuple[int, ...]):  # type: ignore[no-untyped-def]
        asked.append(rel)
        return real(self, rel, signature)

    monkeypatch.setattr(FactsCache, "get", counting)
    first = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(cache_file))
    for _ in range(5):
        assert page_facts(first, "wiki/a.md").targets == ("b",)  # type: ignore[union-attr]
    assert asked == ["wiki/a.md"]
    first.facts_cache.save()  # type: ignore[union-attr]

    # The person edits the page (same size, uncommitted): a new tree re-reads it.
    target = project.root / "wiki/a.md"
    target.write_text(target.read_text().replace("[[b]]", "[[c]]"))
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    second = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(cache_file))
    assert page_facts(second, "wiki/a.md").targets == ("c",)  # type: ignore[union-attr]
    assert page_facts(first, "wiki/a.md").targets == ("b",)  # type: ignore[union-attr]  # the old tree is the pass's snapshot


def test_pages_citing_keeps_its_index_and_sees_an_overlays_changes(project: Project) -> None:
    write(project.root, "wiki/a.md", page("A", "A.\n", source="[2026-11-01, 2026-11-02]"))
    write(project.root, "wiki/b.md", page("B", "B.\n", source="[2026-11-02]"))
    write(project.root, "wiki/c.md", page("C", "C.\n", source="[2026-11-03]"))
    write(project.root, "wiki/index.md", "---\nsource: [2026-11-02]\n---\n# Map\n")  # the map is never a page cited
    commit_all(project.root)
    disk = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(None))
    assert pages_citing(disk, ["2026-11-02"]) == ["wiki/a.md", "wiki/b.md"]
    assert pages_citing(disk, ["2026-11-01", "2026-11-02"]) == ["wiki/a.md"]
    assert pages_citing(disk, ["2026-11-09"]) == []
    assert any(key[0] == "source_days" for key in disk.derived if isinstance(key, tuple))  # kept for the next create_page
    tree = Overlay(
        disk,
        {
            "wiki/a.md": None,  # removed
            "wiki/b.md": file(page("B", "B.\n", source="[2026-11-03]")),  # no longer cites the 2nd
            "wiki/d.md": file(page("D", "D.\n", source="[2026-11-02]")),  # new
        },
    )
    assert pages_citing(tree, ["2026-11-02"]) == ["wiki/d.md"]
    assert pages_citing(tree, ["2026-11-03"]) == ["wiki/b.md", "wiki/c.md"]
    assert pages_citing(disk, ["2026-11-02"]) == ["wiki/a.md", "wiki/b.md"]  # the base is unchanged
    with pytest.raises(ValueError):
        pages_citing(disk, [])


def test_a_page_the_person_adds_between_passes_stops_the_next_pass_making_it_again(project: Project) -> None:
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n## Open\n")
    commit_all(project.root)
    capture(project, "2026-11-29", "The bakery signed a lease", "The lease starts in March")
    first = garden(
        project,
        FakeModel().enqueue(
            {"operations": [{"op": "create_page", "page": "lease", "title": "Lease", "body": "The bakery signed a lease.\n", "lines": ["2026-11-29#1"]}]}
        ),
    )
    assert first.outcome == "pages_written", first.refusals
    assert (git_dir(project.root) / "gitgarden" / "facts.pickle").exists()
    # Between the passes the person writes the second line's page themselves (not committed).
    write(project.root, "wiki/lease-start.md", page("Lease start", "The lease starts in March.\n", source="[2026-11-29]"))
    second = garden(
        project,
        FakeModel().enqueue(
            {"operations": [{"op": "create_page", "page": "march-start", "title": "March start", "body": "The lease starts in March.\n", "lines": ["2026-11-29#2"]}]}
        ),
    )
    assert not (project.root / "wiki/march-start.md").exists(), second.refusals
    assert "wiki/march-start.md" not in second.created


def test_the_guard_checks_every_operation_against_a_base_it_folds_once(project: Project) -> None:
    # Rule 3's case twins are still found by every check, however many a pass makes.
    write(project.root, "wiki/Clients/acme.md", page("Acme", "Acme.\n"))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[acme]]\n\n## Open\n")
    commit_all(project.root)
    disk = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(None))
    for _ in range(3):
        twin = Overlay(disk, {"wiki/clients/beta.md": file(page("Beta", "Beta.\n"))})
        verdicts = guard.check(disk, twin, None)
        assert any("letter case" in str(v) for v in verdicts), verdicts
        fine = Overlay(disk, {"wiki/Clients/beta.md": file(page("Beta", "Beta.\n"))})
        assert not any("letter case" in str(v) for v in guard.check(disk, fine, None))
    assert disk.derived  # the folded names were kept, not made three times
    # A new tree (the next pass) sees a folder the person renamed since.
    (project.root / "wiki/Clients").rename(project.root / "wiki/clients")
    again = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(None))
    twin = Overlay(again, {"wiki/clients/beta.md": file(page("Beta", "Beta.\n"))})
    assert not any("letter case" in str(v) for v in guard.check(again, twin, None))


def test_a_layout_keeps_the_page_names_it_found_and_no_other_layout_shares_them() -> None:
    from dataclasses import replace

    from gitgarden.wiki.layout import Layout

    wiki = Layout()
    root = Layout(wiki_dir=".", identity=("SOUL.md",))
    for _ in range(2):  # asked again: the kept answer, the same
        assert wiki.page_name("wiki/a/b.md") == "a/b"
        assert wiki.page_name("raw/journal/2026-11-29.md") is None
        assert root.page_name("wiki/a/b.md") == "wiki/a/b"
        assert root.page_name("SOUL.md") is None
        assert root.page_name("raw/x.md") is None
    other = replace(wiki, wiki_dir="notes")
    assert other.page_name("wiki/a/b.md") is None and other.page_name("notes/a/b.md") == "a/b"
    assert wiki == Layout() and hash(wiki) == hash(Layout())  # what it keeps is no part of its value


def test_a_link_index_answers_a_target_asked_again_as_the_first_time() -> None:
    from gitgarden.wiki.linking import LinkIndex

    index = LinkIndex(["Work/Plan", "Home/Plan", "acme"], {"acme": ["Plan B", "ACME Corp"], "Home/Plan": ["Plan B"]})
    for _ in range(2):
        assert index.resolve("plan") == "Home/Plan"  # a file name two pages share: the first by name
        assert index.candidates("Plan") == ["Home/Plan", "Work/Plan"]
        assert index.resolve("Plan B") == "Home/Plan"  # an alias two pages share: the first by name
        assert index.resolve(" acme corp ") == "acme"
        assert index.resolve("Work/Plan.md") == "Work/Plan"
        assert index.resolve("nowhere") is None


def test_a_page_the_person_removes_between_passes_is_gone_from_the_next_passes_views(project: Project) -> None:
    write(project.root, "wiki/a.md", page("A", "A stands here.\n", source="[2026-11-29]"))
    write(project.root, "wiki/b.md", page("B", "B.\n", source="[2026-11-29]"))
    commit_all(project.root)
    cache_file = git_dir(project.root) / "gitgarden" / "facts.pickle"
    first = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(cache_file))
    assert pages_citing(first, ["2026-11-29"]) == ["wiki/a.md", "wiki/b.md"]
    first.facts_cache.save()  # type: ignore[union-attr]
    (project.root / "wiki/a.md").unlink()
    second = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(cache_file))
    assert "wiki/a.md" not in second
    assert pages_citing(second, ["2026-11-29"]) == ["wiki/b.md"]


def test_ranking_takes_from_each_page_the_words_the_lines_hold_as_the_word_filter_would() -> None:
    from gitgarden.gardener.context import PageInfo, _shared_terms, _words

    lines = "Dana signed the Acme pilot, Q4 v2 budget for the new oven; 42 kg of rye"
    line_words = _words(lines)
    for info in (
        PageInfo("acme-pilot", "Acme pilot", "open", 10, ("The ACME Q4 plan",)),
        PageInfo("notes/oven", "The new oven", "open", 10, ()),
        PageInfo("x", "a of to v2 42 kg", "open", 10, ("rye_bread",)),
    ):
        words = _words(" ".join((info.name.replace("-", " ").replace("/", " "), info.title, *info.aliases)))
        assert _shared_terms(info, line_words) == words & line_words


def test_duplicate_candidates_are_those_every_label_reduced_would_give() -> None:
    from gitgarden.wiki.health import norm_words
    from gitgarden.wiki.journal import JournalLine
    from gitgarden.wiki.tidy import candidates

    titles = {
        "invoices": ("Invoices", []),
        "clients/acme-pilot": ("The Acme pilot", ["ACME Corp", "Pilots"]),
        "oven": ("New oven", ["bakery oven"]),
        "cafe": ("Café Müller", []),
        "x": ("ab", ["Q4 plan"]),
        "glass": ("Glass", []),
    }
    lines = [
        JournalLine(day="2026-11-29", lineno=1, text="Sent the invoice to ACME corp about the pilot", key=""),
        JournalLine(day="2026-11-29", lineno=2, text="The bakery oven broke; caf muller called", key=""),
        JournalLine(day="2026-11-29", lineno=3, text="Q4 plan: glasses and the acme pilots", key=""),
    ]

    def every_label() -> dict[str, list[str]]:  # the reduction of every label, as it was made before
        keys = {}
        for name, (title, aliases) in titles.items():
            for label in (name.rsplit("/", 1)[-1].replace("-", " "), title, *aliases):
                key = norm_words(label)
                if len(key) >= 3:
                    keys.setdefault(key, set()).add(name)
        out = {}
        for line in lines:
            text = f" {norm_words(line.text)} "
            found = {n for key, names in keys.items() if f" {key} " in text for n in names}
            if found:
                out[line.id] = sorted(found)[:5]
        return out

    assert candidates(lines, titles) == every_label()
    assert candidates(lines, titles)["2026-11-29#1"] == ["clients/acme-pilot", "invoices"]
