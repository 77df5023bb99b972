"""The facts cache: a pass re-reads only the pages that changed on disk, and never trusts a stale entry."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki.facts import FactsCache, page_facts
from gitgarden.wiki.tree import Overlay, file
from tests.helpers.project import FIXED_NOW, commit_all, page, write


def make_wiki(project: Project, n: int = 30) -> None:
    for i in range(n):
        write(project.root, f"wiki/p{i}.md", page(f"Page {i}", f"Page {i} links [[p{(i + 1) % n}]].\n"))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[p0]]\n\n## Open\n")
    commit_all(project.root)


def test_a_second_tree_reads_only_changed_pages(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    make_wiki(project)
    cache_file = git_dir(project.root) / "gitgarden" / "facts.pickle"
    first = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(cache_file))
    assert page_facts(first, "wiki/p3.md").targets == ("p4",)  # type: ignore[union-attr]
    for path in first:
        page_facts(first, path)
    first.facts_cache.save()  # type: ignore[union-attr]

    target = project.root / "wiki/p5.md"
    target.write_text(target.read_text().replace("[[p6]]", "[[p9]]"))
    st = target.stat()
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # same size, later mtime

    reads: list[str] = []
    real = DiskTree.__getitem__

    def counting(self: DiskTree, rel: str):  # type: ignore[no-untyped-def]
        reads.append(rel)
        return real(self, rel)

    monkeypatch.setattr(DiskTree, "__getitem__", counting)
    second = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(cache_file))
    facts = {path: page_facts(second, path) for path in second}
    assert reads == ["wiki/p5.md"]
    assert facts["wiki/p5.md"].targets == ("p9",)  # type: ignore[union-attr]


def test_an_overlay_uses_the_new_text_of_what_the_pass_wrote(project: Project) -> None:
    make_wiki(project, 3)
    disk = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(None))
    tree = Overlay(disk, {"wiki/p1.md": file(page("Page 1", "Now [[p0]] and [[p2]].\n"))})
    assert page_facts(tree, "wiki/p1.md").targets == ("p0", "p2")  # type: ignore[union-attr]
    assert page_facts(tree, "wiki/p2.md").targets == ("p0",)  # type: ignore[union-attr]


def test_a_corrupt_cache_is_ignored(project: Project, tmp_path: Path) -> None:
    make_wiki(project, 3)
    bad = tmp_path / "facts.pickle"
    bad.write_bytes(b"not a pickle at all")
    tree = DiskTree(project.root, ["wiki"], facts_cache=FactsCache(bad))
    assert page_facts(tree, "wiki/p0.md").targets == ("p1",)  # type: ignore[union-attr]


def test_passes_see_pages_edited_between_them(project: Project) -> None:
    make_wiki(project, 4)
    settings = Settings()
    # p1..p3 are the person's pages reached through p0, which the map lists: nothing to tidy, twice.
    assert run_pass(project, settings, model=None, now=lambda: FIXED_NOW).outcome == "nothing_new"
    assert run_pass(project, settings, model=None, now=lambda: FIXED_NOW).outcome == "nothing_new"
    assert (git_dir(project.root) / "gitgarden" / "facts.pickle").exists()
    sections = "".join(f"## Part {i}\n\n" + "Page 2 grows. " * 120 + "\n\n" for i in range(5))
    write(project.root, "wiki/p2.md", page("Page 2", "Page 2 links [[p3]].\n\n" + sections, gardener=True))  # over budget
    commit_all(project.root, "edit")
    result = run_pass(project, settings, model=None, now=lambda: FIXED_NOW)
    assert result.outcome == "tidied"
    assert result.split == ["p2"]
