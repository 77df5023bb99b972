"""`gitgarden init` on a vault of many notes: every note committed under the person's name at the
cost of `git add -A && git commit`, never a command line of one pathspec a note (git matches each
against every file: 20,000 notes took a minute), and nothing of the person's own work changed."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitgarden.project import init_project
from gitgarden.repo import gitrepo
from tests.helpers.project import git, write


@pytest.fixture
def argv(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """The command line of every git process gitgarden starts."""
    seen: list[list[str]] = []
    real = gitrepo.run_bounded

    def run(command: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
        seen.append(list(command))
        return real(command, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(gitrepo, "run_bounded", run)
    yield seen


def vault(root: Path, notes: int) -> Path:
    write(root, ".obsidian/app.json", "{}\n")  # Obsidian's own: init leaves it as the person keeps it
    write(root, "raw/old notes.md", "A note in the vault's own raw/: no page, not committed.\n")
    for n in range(notes):
        write(root, f"Area {n % 5}/Note {n:03d}.md", f"Note {n} links [[Note {(n + 1) % notes:03d}]].\n")
    write(root, "Daily notes/2026-11-29.md", "Dana runs the bakery\n")
    return root


@pytest.mark.parametrize("notes", [20, 300])
def test_init_commits_every_note_in_one_go_and_leaves_the_work_tree_clean(tmp_path: Path, argv: list[list[str]], notes: int) -> None:
    root = vault(tmp_path / "Notes", notes)
    report = init_project(root)
    assert report.committed and report.git_initialised
    committed = git(root, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    assert sum(p.endswith(".md") and p.startswith("Area ") for p in committed) == notes
    assert "Daily notes/2026-11-29.md" in committed and ".gitgarden/config.toml" in committed
    assert not any(p.startswith((".obsidian/", "raw/")) for p in committed)
    assert git(root, "log", "-1", "--format=%an <%ae>") == "Pat Person <pat@example.com>\n"
    status = git(root, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert status == ['?? .obsidian/app.json', '?? "raw/old notes.md"']  # the index holds all it committed
    assert max(len(a) for a in argv) < 20  # the notes went to git on stdin, not as arguments
    assert len(argv) <= 15


def test_init_in_a_repository_commits_only_what_git_does_not_track(tmp_path: Path) -> None:
    root = vault(tmp_path / "Notes", 30)
    git(root, "init", "-q")
    git(root, "add", "Area 0")
    git(root, "commit", "-qm", "my first notes")
    write(root, "Area 0/Note 000.md", "Edited, not committed.\n")
    write(root, "Area 0/Note 005.md", "Edited and staged.\n")
    git(root, "add", "Area 0/Note 005.md")
    init_project(root)
    last = git(root, "show", "--name-only", "--format=", "HEAD").splitlines()
    assert "Area 1/Note 001.md" in last and "Daily notes/2026-11-29.md" in last
    assert not any(p.startswith("Area 0/") for p in last)  # tracked already: the person's edits stay theirs
    status = git(root, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert status == [' M "Area 0/Note 000.md"', 'M  "Area 0/Note 005.md"', "?? .obsidian/app.json", '?? "raw/old notes.md"']
