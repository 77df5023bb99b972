"""What lives in the wiki folder but is no page: a submodule (a gitlink), and a file git stores through
a filter the pass cannot read as text (a Git LFS pointer, any `filter=` that is not installed).

Real git: a real submodule added with `git submodule add`, a real `.gitattributes`
naming `filter=lfs` (git-lfs itself need not be installed: its pointer file is
what the work tree then holds) and a filter no driver is configured for.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.project import Project
from gitgarden.store.disktree import DiskTree
from tests.helpers.project import FIXED_NOW, FakeModel, capture, commit_all, git, page, write

POINTER = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n"


def garden(project: Project, *operations: dict[str, Any]) -> PassResult:
    model = FakeModel().enqueue({"operations": list(operations)})
    model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-30#1"]}]})  # the repair round, if any
    return run_pass(project, Settings(model="fake/scripted"), model=model, now=lambda: FIXED_NOW)


@pytest.fixture
def with_submodule(project: Project, tmp_path: Path) -> Project:
    shared = tmp_path / "shared"
    shared.mkdir()
    git(shared, "init", "-q")
    write(shared, "note.md", page("Shared note", "Kept in its own repository.\n"))
    commit_all(shared, "shared notes")
    subprocess.run(
        ["git", "-C", str(project.root), "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(shared), "wiki/shared"],
        check=True, capture_output=True,
    )  # fmt: skip
    commit_all(project.root, "a shared folder of notes")
    return project


def submodule_intact(project: Project) -> None:
    assert git(project.root, "ls-tree", "HEAD", "wiki/shared").split()[0] == "160000"
    assert " wiki/shared" in git(project.root, "submodule", "status")
    assert git(project.root / "wiki/shared", "status", "--porcelain") == ""  # nothing written into its checkout


def test_a_submodule_is_no_page_and_a_pass_never_writes_into_it(with_submodule: Project) -> None:
    project = with_submodule
    tree = DiskTree(project.root, ["wiki"])
    assert not any(p.startswith("wiki/shared") for p in tree)  # not listed
    capture(project, "2026-11-30", "The shared note needs the oven price")
    result = garden(
        project,
        {"op": "append", "page": "shared/note", "text": "The shared note needs the oven price.\n", "lines": ["2026-11-30#1"]},
        {"op": "create_page", "page": "shared/oven", "title": "Oven", "body": "The shared note needs the oven price.\n", "lines": ["2026-11-30#1"]},
    )
    assert result.created == [] and result.appended == [], (result.outcome, result.refusals)
    assert len(result.refusals) >= 2
    submodule_intact(project)
    assert "wiki/shared/note.md" not in git(project.root, "ls-tree", "-r", "--name-only", "HEAD")


def test_the_guard_refuses_an_agents_commit_that_removes_or_replaces_a_submodule(with_submodule: Project) -> None:
    root = with_submodule.root
    assert subprocess.run([sys.executable, "-m", "gitgarden", "hook", "install"], cwd=root, capture_output=True).returncode == 0
    env = {**os.environ, "GITGARDEN_AGENT": "codex"}

    git(root, "rm", "-q", "--cached", "wiki/shared")
    removed = subprocess.run(["git", "-C", str(root), "commit", "-qm", "drop the submodule"], capture_output=True, text=True, env=env)
    assert removed.returncode != 0 and "wiki/shared: rule 2 (no-deletion)" in removed.stderr, removed.stderr

    (root / "wiki/shared/.git").unlink()  # the checkout made an ordinary folder, as the hostile case did
    write(root, "wiki/shared/note.md", page("Shared note", "Kept in its own repository.\nAnd a line of the agent's.\n"))
    git(root, "add", "wiki/shared/note.md")
    replaced = subprocess.run(["git", "-C", str(root), "commit", "-qm", "flatten it"], capture_output=True, text=True, env=env)
    assert replaced.returncode != 0
    assert "wiki/shared: rule 2 (no-deletion)" in replaced.stderr
    assert "wiki/shared/note.md: rule 3 (safe-new-file)" in replaced.stderr


@pytest.mark.parametrize("attribute", ["filter=lfs diff=lfs merge=lfs -text", "filter=secret"])
def test_a_file_stored_through_a_filter_is_no_page_and_never_written(project: Project, attribute: str) -> None:
    write(project.root, ".gitattributes", f"wiki/big.md {attribute}\n")
    write(project.root, "wiki/big.md", POINTER)
    commit_all(project.root, "a file in LFS")
    assert "wiki/big.md" not in DiskTree(project.root, ["wiki"])
    capture(project, "2026-11-30", "The big file needs the oven price")
    result = garden(
        project,
        {"op": "append", "page": "big", "text": "The big file needs the oven price.\n", "lines": ["2026-11-30#1"]},
        {"op": "create_page", "page": "big", "title": "Big", "body": "The big file needs the oven price.\n", "lines": ["2026-11-30#1"]},
    )
    assert result.appended == [] and result.created == [], (result.outcome, result.refusals)
    assert (project.root / "wiki/big.md").read_text() == POINTER
    assert git(project.root, "show", "HEAD:wiki/big.md") == POINTER
    assert "[[big]]" not in (project.root / "wiki/index.md").read_text()  # not listed in the map either


def test_a_filter_that_is_installed_keeps_its_file_a_page(project: Project) -> None:
    write(project.root, ".gitattributes", "wiki/plain.md filter=same\n")
    git(project.root, "config", "filter.same.clean", "cat")
    git(project.root, "config", "filter.same.smudge", "cat")
    write(project.root, "wiki/plain.md", page("Plain", "A page through a harmless filter.\n"))
    commit_all(project.root, "a filtered page")
    assert "wiki/plain.md" in DiskTree(project.root, ["wiki"])


def test_an_agent_may_not_append_to_an_lfs_pointer(project: Project) -> None:
    write(project.root, ".gitattributes", "wiki/big.md filter=lfs diff=lfs merge=lfs -text\n")
    write(project.root, "wiki/big.md", POINTER)
    commit_all(project.root, "a file in LFS")
    with (project.root / "wiki/big.md").open("a") as fh:
        fh.write("An agent's line.\n")
    git(project.root, "add", "wiki/big.md")
    done = subprocess.run(
        [sys.executable, "-m", "gitgarden", "guard", "--staged"], cwd=project.root, capture_output=True, text=True
    )
    assert done.returncode == 3 and "wiki/big.md: rule 4 (no-rewording)" in done.stdout
    assert "filter" in done.stdout or "LFS" in done.stdout
