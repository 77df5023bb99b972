"""Repository states where a pass's commit would be lost or surprising: the pass refuses (exit 14)
before its snapshot or any write, and `status`, `undo` and `review accept` say the same.

Every state is made with real git in a temporary repository (issue 12, items 3 and 4).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.history import review
from gitgarden.history.undo import UndoRefused, undo
from gitgarden.project import Project, find_project
from gitgarden.repo.states import blocking_state
from tests.helpers.project import (
    FIXED_NOW,
    LINE,
    FakeModel,
    capture_line,
    commit_all,
    garden,
    git,
    invoke,
    page,
    promote,
    workspace,
    write,
)


def diverged(project: Project) -> None:
    """`notes.txt` changed one way on main and another on branch `side`: every replay conflicts."""
    root = project.root
    write(root, "notes.txt", "base\n")
    commit_all(root, "base")
    git(root, "switch", "-q", "-c", "side")
    write(root, "notes.txt", "side\n")
    commit_all(root, "side")
    git(root, "switch", "-q", "main")
    write(root, "notes.txt", "main\n")
    commit_all(root, "main")


def start_merge(project: Project) -> None:
    diverged(project)
    git_fails(project.root, "merge", "side")


def start_rebase(project: Project) -> None:
    diverged(project)
    git(project.root, "switch", "-q", "side")
    git_fails(project.root, "rebase", "main")


def start_cherry_pick(project: Project) -> None:
    diverged(project)
    git_fails(project.root, "cherry-pick", "side")


def start_revert(project: Project) -> None:
    root = project.root
    write(root, "notes.txt", "one\n")
    commit_all(root, "one")
    write(root, "notes.txt", "two\n")
    commit_all(root, "two")
    write(root, "notes.txt", "three\n")
    commit_all(root, "three")
    git_fails(root, "revert", "--no-edit", "HEAD~1")


def start_bisect(project: Project) -> None:
    git(project.root, "bisect", "start")


def detach(project: Project) -> None:
    git(project.root, "checkout", "-q", "--detach")


def orphan(project: Project) -> None:
    git(project.root, "checkout", "-q", "--orphan", "fresh")


def git_fails(root: Path, *args: str) -> None:
    import subprocess

    proc = subprocess.run(["git", "-C", str(root), "-c", "core.editor=true", *args], capture_output=True, text=True)
    assert proc.returncode != 0, f"git {args} was expected to stop on a conflict"


STATES: dict[str, tuple[Callable[[Project], None], str, str]] = {
    # name: (how to get there, what the refusal says, a file of the git dir that shows it)
    "merge": (start_merge, "a merge is in progress", "MERGE_HEAD"),
    "rebase": (start_rebase, "a rebase is in progress", "rebase-merge"),
    "cherry-pick": (start_cherry_pick, "a cherry-pick is in progress", "CHERRY_PICK_HEAD"),
    "revert": (start_revert, "a revert is in progress", "REVERT_HEAD"),
    "bisect": (start_bisect, "a bisect is in progress", "BISECT_LOG"),
    "detached": (detach, "HEAD is detached", ""),
    "orphan branch": (orphan, "branch fresh has no commits yet while this repository has others (main)", ""),
}


@pytest.mark.parametrize("state", sorted(STATES))
def test_a_pass_refuses_before_any_write_in_a_state_where_its_commit_would_be_lost(project: Project, state: str) -> None:
    make, says, marker = STATES[state]
    make(project)
    day = capture_line(project)
    head_before = git(project.root, "rev-parse", "-q", "--verify", "HEAD").strip() if state != "orphan branch" else ""
    index_before = git(project.root, "status", "--porcelain=v1")
    files_before = workspace(project.root)

    result = garden(project, FakeModel())  # no reply queued: a model call would fail the test

    assert result.outcome == "refused" and result.exit_code == 14
    assert says in result.detail and "run gitgarden again" in result.detail
    assert "\n" not in result.sentence
    # Nothing was tagged, committed, staged or written: not even a log record.
    assert git(project.root, "tag", "--list", "pre_gardener/*") == ""
    if head_before:
        assert git(project.root, "rev-parse", "HEAD").strip() == head_before
    assert git(project.root, "status", "--porcelain=v1") == index_before
    assert workspace(project.root) == files_before
    assert day.read_text() == LINE + "\n"
    if marker:
        assert (project.root / ".git" / marker).exists()


def test_after_the_rebase_is_aborted_the_journal_line_is_there_and_the_next_pass_gardens_it(project: Project) -> None:
    start_rebase(project)
    day = capture_line(project)
    assert garden(project, FakeModel()).outcome == "refused"

    git(project.root, "rebase", "--abort")
    git(project.root, "switch", "-q", "main")
    assert day.read_text() == LINE + "\n"
    result = garden(project, FakeModel().enqueue(promote()))

    assert result.outcome == "pages_written", result.detail
    assert git(project.root, "show", "HEAD:raw/journal/2026-11-29.md") == LINE + "\n"
    assert (project.root / "wiki/acme.md").exists()


def test_the_detached_head_case_of_the_issue_keeps_the_days_file_after_switching_back(project: Project) -> None:
    detach(project)
    day = capture_line(project)
    assert garden(project, FakeModel()).outcome == "refused"
    git(project.root, "checkout", "-q", "main")
    assert day.read_text() == LINE + "\n"  # never committed on the detached HEAD, so still here


def test_a_new_repository_without_any_commit_is_not_refused(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    assert blocking_state(root) is None


def test_the_merge_is_named_before_anything_else(project: Project) -> None:
    start_merge(project)
    detach_also = project.root / ".git" / "BISECT_LOG"
    detach_also.write_text("# bisect\n")  # two states at once: the merge is named
    assert str(blocking_state(project.root)).startswith("a merge is in progress")


def test_run_on_the_command_line_refuses_with_exit_14_and_one_line(project: Project) -> None:
    start_merge(project)
    capture_line(project)

    result = invoke(project, "run", model=FakeModel())

    assert result.exit_code == 14
    lines = [ln for ln in result.output.splitlines() if ln.strip()]
    assert lines[0].startswith("refused: a merge is in progress")
    assert "git merge --abort" in lines[0]


def test_status_shows_the_same_reason_first(project: Project) -> None:
    start_rebase(project)
    capture_line(project)

    result = invoke(project, "status")

    assert result.exit_code == 0, result.output
    held = result.output[result.output.index("held back") :].splitlines()
    assert held[1].strip().startswith("repo_state: a rebase is in progress")


def test_undo_refuses_in_a_merge_and_changes_nothing(project: Project) -> None:
    capture_line(project)
    done = garden(project, FakeModel().enqueue(promote()))
    assert done.outcome == "pages_written"
    start_merge(project)
    before = workspace(project.root)
    head = git(project.root, "rev-parse", "HEAD")

    with pytest.raises(UndoRefused, match="a merge is in progress"):
        undo(project.root, None, now=FIXED_NOW)
    assert workspace(project.root) == before
    assert git(project.root, "rev-parse", "HEAD") == head


def test_review_accept_refuses_on_a_detached_head(project: Project) -> None:
    capture_line(project)
    done = garden(project, FakeModel().enqueue(promote()), Settings(model="fake/scripted", review=True))
    assert done.commit and review.review_waiting(project.root) == done.commit
    detach(project)
    head = git(project.root, "rev-parse", "HEAD")

    with pytest.raises(review.ReviewRefused, match="HEAD is detached"):
        review.accept(project.root)
    assert git(project.root, "rev-parse", "HEAD") == head
    assert review.review_waiting(project.root) == done.commit


def test_a_sparse_checkout_leaving_the_journal_out_is_refused_with_what_to_do(project: Project) -> None:
    git(project.root, "sparse-checkout", "set", "wiki", ".gitgarden", "log")
    assert not (project.root / "raw/journal").exists()

    result = garden(project, FakeModel())

    assert result.outcome == "refused"
    assert "sparse checkout leaves out raw/journal/" in result.detail
    assert "git sparse-checkout add raw/journal" in result.detail


def test_a_sparse_checkout_hiding_the_whole_project_is_named_not_called_no_project(project: Project) -> None:
    write(project.root, "code/main.py", "print('hi')\n")
    commit_all(project.root)
    git(project.root, "sparse-checkout", "set", "code")
    assert not (project.root / "wiki").exists()

    result = invoke(project, "run", model=FakeModel())

    assert result.exit_code == 14
    assert "sparse checkout leaves out the gitgarden project" in result.output
    assert "not inside a gitgarden project" not in result.output
    with pytest.raises(Exception, match="git sparse-checkout disable"):
        find_project(project.root / "code")


def test_a_page_written_in_a_normal_state_is_not_affected(project: Project) -> None:
    write(project.root, "wiki/acme.md", page("Acme", "Acme is a client.\n"))
    commit_all(project.root)
    assert blocking_state(project.root) is None


def test_packed_refs_and_linked_worktrees_are_judged_without_mistaking_them_for_orphans(project: Project, tmp_path: Path) -> None:
    git(project.root, "pack-refs", "--all")
    assert not (project.root / ".git/refs/heads/main").exists()
    assert blocking_state(project.root) is None
    other = tmp_path / "other"
    git(project.root, "worktree", "add", "-q", "-b", "second", str(other))
    assert blocking_state(other) is None
    git(other, "checkout", "-q", "--detach")
    assert str(blocking_state(other)).startswith("HEAD is detached")
