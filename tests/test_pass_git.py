"""A pass's own cost in git: a few processes, the same number whatever the wiki's size.

Every git process reads (and many rewrite) an index of every file, so a pass that started one
per file it wrote, or asked git the same thing twice, cost more as the vault grew. A pass that
writes five files — three new pages, the map, the read position, its record — after a journal
commit starts at most fifteen, at 20 pages as at 400.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.project import Project, init_project
from gitgarden.repo import gitrepo
from gitgarden.wiki import journal
from tests.helpers.project import (
    FIXED_LOG,
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    git,
    page,
    write,
)

MAX_GIT = 15  # git processes of a pass that writes five files after a journal commit (issue 29)


@pytest.fixture
def git_commands(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The subcommand of every git process gitgarden starts (`_run` is its one way to start git)."""
    seen: list[str] = []
    real = gitrepo.run_bounded

    def run(argv: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
        if Path(argv[0]).name == "git":
            seen.append(gitrepo._command(argv[3:]))
        return real(argv, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(gitrepo, "run_bounded", run)
    yield seen


def vault(root: Path, pages: int) -> Project:
    """A project of `pages` pages in folders, all reached from the map, and three lines captured today."""
    project = Project(init_project(root).root)
    hubs: dict[int, list[str]] = {}
    for n in range(pages):
        name = f"topic-{n:04d}"
        write(project.root, f"wiki/area-{n % 7}/{name}.md", page(f"Topic {n}", f"Topic {n} links [[topic-{(n * 7) % pages:04d}]].\n"))
        hubs.setdefault(n // 40, []).append(f"area-{n % 7}/{name}")
    for h, names in hubs.items():
        write(project.root, f"wiki/hub-{h}.md", page(f"Hub {h}", "".join(f"- [[{n}]]\n" for n in names), gardener=True))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n" + "".join(f"- [[hub-{h}]]\n" for h in hubs) + "\n## Open\n")
    write(project.root, "raw/journal/2026-11-28.md", "Older line, read long ago\n")
    write(project.root, ".gitgarden/read.json", journal.render_read(journal.mark_read({}, journal.parse_day("2026-11-28", "Older line, read long ago\n"))))
    commit_all(project.root, "a vault")
    git(project.root, "update-index", "--refresh")
    capture(project, "2026-11-30", "Dana runs the bakery", "The mill needs a new roof", "Kessler quoted 900 EUR")
    return project


def reply() -> dict[str, object]:
    return {
        "operations": [
            {"op": "create_page", "page": "dana", "title": "Dana", "body": "Dana runs the bakery.\n", "lines": ["2026-11-30#1"]},
            {"op": "create_page", "page": "mill-roof", "title": "Mill roof", "body": "The mill needs a new roof.\n", "lines": ["2026-11-30#2"]},
            {"op": "create_page", "page": "kessler", "title": "Kessler", "body": "Kessler quoted 900 EUR.\n", "lines": ["2026-11-30#3"]},
        ]
    }


@pytest.mark.parametrize("pages", [20, 400])
def test_a_pass_writing_five_files_starts_at_most_fifteen_git_processes(tmp_path: Path, git_commands: list[str], pages: int) -> None:
    project = vault(tmp_path / "p", pages)
    head = git(project.root, "rev-parse", "HEAD").strip()
    git_commands.clear()
    result = run_pass(project, Settings(model="fake/scripted"), model=FakeModel().enqueue(reply()), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written", (result.outcome, result.detail, result.refusals)
    files = git(project.root, "diff", "--name-only", f"{result.journal_commit}..{result.commit}").split()
    assert sorted(files) == [".gitgarden/read.json", FIXED_LOG, "wiki/dana.md", "wiki/index.md", "wiki/kessler.md", "wiki/mill-roof.md"]
    assert git(project.root, "rev-parse", f"{result.journal_commit}^").strip() == head
    assert len(git_commands) <= MAX_GIT, git_commands
    # Each commit is one `commit-tree`; the snapshot a third; no process per file written.
    assert git_commands.count("commit-tree") == 3 and git_commands.count("hash-object") == 0
    assert git(project.root, "tag", "--list", "pre_gardener/*").split() == [result.snapshot]
    assert git(project.root, "status", "--porcelain") == ""  # the person's index followed both commits


def test_the_count_does_not_grow_with_the_wiki(tmp_path: Path, git_commands: list[str]) -> None:
    counts = []
    for pages in (20, 400):
        project = vault(tmp_path / f"p{pages}", pages)
        git_commands.clear()
        result = run_pass(project, Settings(model="fake/scripted"), model=FakeModel().enqueue(reply()), now=lambda: FIXED_NOW)
        assert result.outcome == "pages_written"
        counts.append(list(git_commands))
    assert counts[0] == counts[1]


def test_with_the_persons_work_staged_the_commits_read_head_and_leave_it_staged(tmp_path: Path, git_commands: list[str]) -> None:
    """The person's index is copied into the pass's commit index only when it holds exactly HEAD."""
    project = vault(tmp_path / "p", 20)
    write(project.root, "AGENTS.md", "# My project\nStaged, not committed.\n")
    git(project.root, "add", "AGENTS.md")
    git_commands.clear()
    result = run_pass(project, Settings(model="fake/scripted"), model=FakeModel().enqueue(reply()), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written"
    assert "read-tree" in git_commands[: git_commands.index("update-index")]  # HEAD read in, not the index copied
    for commit in (result.journal_commit, result.commit):
        assert "AGENTS.md" not in git(project.root, "show", "--name-only", "--format=", commit)
    assert git(project.root, "status", "--porcelain") == "M  AGENTS.md\n"
