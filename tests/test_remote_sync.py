"""Two machines that both captured today: the sync before a pass merges day files line by line.

A laptop and a desktop (two clones and a bare remote, real git). Clone A captures
and its pass pushes the day file; clone B captured on the same day too — its day
file untracked, modified, or committed by the person. B's next pass must garden
with both machines' lines, never stop on git's "would be overwritten" or an
add/add conflict in a journal file, and refuse only a real conflict in a page,
saying what to do.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from gitgarden.project import Project
from tests.conftest import FakeModel, capture, commit_all, git
from tests.test_remote import SETTINGS, append, create, garden, no_force_push, shared  # noqa: F401

DAY = "2026-11-30"
A_LINE = "Acme signed the pilot contract"
B_LINE = "Dana joined Acme as ops lead"


def a_gardens_today(a: Project) -> None:
    capture(a, DAY, A_LINE)
    result = garden(a, FakeModel().enqueue(create("acme", "Acme", "Acme signed the pilot contract.\n", f"{DAY}#1")))
    assert result.outcome == "pages_written" and "pushed" in result.remote, (result.detail, result.remote)


def b_pass(b: Project, line_no: int, settings: object = SETTINGS) -> object:
    model = FakeModel().enqueue(create("dana", "Dana", "Dana joined Acme as ops lead.\n", f"{DAY}#{line_no}"))
    return garden(b, model, settings)  # type: ignore[arg-type]


def test_a_day_file_both_machines_captured_uncommitted_on_b_is_merged_and_gardened(
    shared: tuple[Path, Project, Project],  # noqa: F811
) -> None:
    remote, a, b = shared
    a_gardens_today(a)
    capture(b, DAY, B_LINE)  # untracked on B: git would refuse to overwrite it

    result = b_pass(b, 2)

    assert result.outcome == "pages_written", (result.detail, result.refusals)
    day = f"raw/journal/{DAY}.md"
    assert (b.root / day).read_text() == f"{A_LINE}\n{B_LINE}\n"  # A's lines, then B's: nothing lost
    assert git(remote, "show", f"main:{day}") == f"{A_LINE}\n{B_LINE}\n"
    assert {"wiki/acme.md", "wiki/dana.md"} <= set(git(remote, "ls-tree", "-r", "--name-only", "main").split())
    # B's own lines were committed under the person's name before the merge.
    authors = git(remote, "log", "--format=%an", "main", "--", day).split("\n")
    assert "Pat Person" in authors
    assert git(b.root, "status", "--porcelain", "raw", "wiki") == ""
    no_force_push(remote)


def test_a_day_file_both_machines_appended_to_is_merged_line_by_line(shared: tuple[Path, Project, Project]) -> None:  # noqa: F811
    remote, a, b = shared
    # Yesterday's file is on both machines; today both append to it.
    old_day = "raw/journal/2026-11-28.md"
    capture(a, "2026-11-28", "Kessler asked for a quote")
    result = garden(a, FakeModel().enqueue({"operations": [{"op": "skip", "lines": ["2026-11-28#2"]}]}))
    assert result.commit, result.detail
    capture(b, "2026-11-28", "Marta wants the lease signed by Friday")  # modified, uncommitted on B

    model = FakeModel().enqueue({"operations": [{"op": "skip", "lines": ["2026-11-28#3"]}]})
    result = garden(b, model)

    assert result.outcome == "nothing_earned", (result.detail, result.refusals)
    expected = "Pilot price set at 400 EUR a month\nKessler asked for a quote\nMarta wants the lease signed by Friday\n"
    assert (b.root / old_day).read_text() == expected
    assert git(remote, "show", f"main:{old_day}") == expected
    no_force_push(remote)


def test_a_day_file_the_person_committed_on_b_merges_with_sync_merge(shared: tuple[Path, Project, Project]) -> None:  # noqa: F811
    remote, a, b = shared
    a_gardens_today(a)
    capture(b, DAY, B_LINE)
    commit_all(b.root, "my notes from the desktop")  # the person's own commit, not pushed: diverged

    refused = b_pass(b, 2)
    assert (refused.outcome, refused.exit_code) == ("refused", 14)
    assert 'sync = "merge"' in refused.detail

    result = b_pass(b, 2, replace(SETTINGS, sync="merge"))

    assert result.outcome == "pages_written", (result.detail, result.refusals)
    day = f"raw/journal/{DAY}.md"
    assert git(remote, "show", f"main:{day}") == f"{A_LINE}\n{B_LINE}\n"
    assert git(b.root, "log", "-1", "--format=%s", "HEAD~1").startswith("Merge origin/main")
    no_force_push(remote)


def test_a_real_conflict_in_a_page_is_refused_naming_the_page_and_what_to_do(
    shared: tuple[Path, Project, Project],  # noqa: F811
) -> None:
    remote, a, b = shared
    capture(a, DAY, "Acme wants export before January")
    result = garden(a, FakeModel().enqueue(append("pricing", "Acme wants export before January.\n", f"{DAY}#1")))
    assert result.commit
    path = b.root / "wiki/pricing.md"
    path.write_text(path.read_text() + "\nThe person's own last line on B.\n")
    capture(b, DAY, B_LINE)
    commit_all(b.root, "my pricing note")
    head = git(b.root, "rev-parse", "HEAD").strip()

    result = b_pass(b, 2, replace(SETTINGS, sync="merge"))

    assert (result.outcome, result.exit_code) == ("refused", 14)
    assert "wiki/pricing.md" in result.detail and "git pull --no-rebase origin main" in result.detail
    assert f"raw/journal/{DAY}.md" not in result.detail  # the day file merges; only the page is a conflict
    assert git(b.root, "rev-parse", "HEAD").strip() == head
    assert git(b.root, "status", "--porcelain") == ""  # nothing half-merged left behind
    assert not (Path(git(b.root, "rev-parse", "--absolute-git-dir").strip()) / "MERGE_HEAD").exists()
