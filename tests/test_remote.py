"""A wiki shared through a git remote: a bare remote and two clones in temporary folders, real git.

The remote is the lock between machines: whichever pass pushes first wins, the
other replays its own commits onto the new tip or is taken back locally. Never
a force push (checked in the remote's reflog), never a lost or duplicated line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from gitgarden.gardener.pipeline import PassResult
from gitgarden.project import Project
from gitgarden.wiki.layout import Layout
from tests.helpers.project import FIXED_LOG, FakeModel, capture, commit_all, git, page, write
from tests.helpers.remote import (
    SETTINGS,
    OtherMachineFirst,
    append,
    create,
    garden,
    no_force_push,
)


def test_a_pass_pushes_its_commits_and_keeps_snapshot_tags_local(shared: tuple[Path, Project, Project]) -> None:
    remote, a, _b = shared
    capture(a, "2026-11-29", "Acme signed the pilot contract")
    model = FakeModel().enqueue(create("acme", "Acme", "Acme signed the pilot contract.\n", "2026-11-29#1"))
    result = garden(a, model)

    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert git(remote, "rev-parse", "main").strip() == result.commit == git(a.root, "rev-parse", "HEAD").strip()
    assert "pushed to origin/main" in result.remote
    assert git(remote, "tag", "--list").strip() == ""  # snapshot tags stay local unless push_tags
    assert git(a.root, "tag", "--list", "pre_gardener/*").strip()
    no_force_push(remote)


def test_push_tags_sends_the_snapshot_tag(shared: tuple[Path, Project, Project]) -> None:
    remote, a, _b = shared
    capture(a, "2026-11-29", "Acme signed the pilot contract")
    model = FakeModel().enqueue(create("acme", "Acme", "Acme signed the pilot contract.\n", "2026-11-29#1"))
    result = garden(a, model, replace(SETTINGS, push_tags=True))
    assert result.commit and git(remote, "tag", "--list").strip() == result.snapshot


def test_a_clone_that_is_behind_fast_forwards_before_it_reads(shared: tuple[Path, Project, Project]) -> None:
    remote, a, b = shared
    capture(a, "2026-11-29", "Acme signed the pilot contract")
    assert garden(a, FakeModel().enqueue(create("acme", "Acme", "Acme signed the pilot contract.\n", "2026-11-29#1"))).commit
    # The person pushes from A too.
    write(a.root, "notes/plan.md", "the person's plan\n")
    commit_all(a.root, "the person's plan")
    git(a.root, "push", "-q", "origin", "main")

    capture(b, "2026-11-30", "Dana joined Acme as ops lead")
    model = FakeModel().enqueue(create("dana", "Dana", "Dana joined Acme as ops lead.\n", "2026-11-30#1"))
    result = garden(b, model)

    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert "fast-forwarded 3 commit(s)" in result.remote
    assert (b.root / "wiki/acme.md").exists() and (b.root / "notes/plan.md").read_text() == "the person's plan\n"
    assert git(remote, "rev-parse", "main").strip() == git(b.root, "rev-parse", "HEAD").strip()
    # B's prompt already knew A's page: it was fetched before reading.
    assert "acme" in model.prompt
    no_force_push(remote)


def diverge(a: Project, b: Project) -> None:
    """B pushes a commit of its own while A commits one it has not pushed."""
    write(b.root, "notes/b.md", "pushed from B\n")
    commit_all(b.root, "B's work")
    git(b.root, "push", "-q", "origin", "main")
    write(a.root, "notes/a.md", "committed in A, not pushed\n")
    commit_all(a.root, "A's local work")


def test_a_diverged_clone_is_refused_and_nothing_changes(shared: tuple[Path, Project, Project]) -> None:
    remote, a, b = shared
    diverge(a, b)
    head = git(a.root, "rev-parse", "HEAD").strip()
    capture(a, "2026-11-29", "Acme signed the pilot contract")

    result = garden(a, FakeModel())  # no reply scripted: the pass must not get as far as asking

    assert (result.outcome, result.exit_code) == ("refused", 14)
    assert "diverged" in result.detail and 'sync = "merge"' in result.detail
    assert git(a.root, "rev-parse", "HEAD").strip() == head
    assert git(a.root, "tag", "--list", "pre_gardener/*").strip() == ""
    assert git(a.root, "status", "--porcelain", "raw/journal").startswith("??")  # the line is still uncommitted, unread


def test_sync_merge_merges_the_remote_in_and_keeps_the_persons_commits(shared: tuple[Path, Project, Project]) -> None:
    remote, a, b = shared
    diverge(a, b)
    mine = git(a.root, "rev-parse", "HEAD").strip()
    capture(a, "2026-11-29", "Acme signed the pilot contract")

    model = FakeModel().enqueue(create("acme", "Acme", "Acme signed the pilot contract.\n", "2026-11-29#1"))
    result = garden(a, model, replace(SETTINGS, sync="merge"))

    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert "merged 1 commit(s)" in result.remote
    assert subprocess.run(["git", "-C", str(a.root), "merge-base", "--is-ancestor", mine, "HEAD"], check=False).returncode == 0
    assert (a.root / "notes/b.md").exists() and (a.root / "notes/a.md").exists()
    assert git(remote, "rev-parse", "main").strip() == git(a.root, "rev-parse", "HEAD").strip()
    no_force_push(remote)


def test_both_passes_in_flight_the_second_replays_onto_the_first_and_both_land(shared: tuple[Path, Project, Project]) -> None:
    remote, a, b = shared
    capture(a, "2026-11-29", "Acme signed the pilot contract")
    capture(b, "2026-11-30", "Dana joined Acme as ops lead")
    a_result: list[PassResult] = []

    def a_pass() -> None:
        a_result.append(garden(a, FakeModel().enqueue(create("acme", "Acme", "Acme signed the pilot contract.\n", "2026-11-29#1"))))

    model = OtherMachineFirst(a_pass).enqueue(create("dana", "Dana", "Dana joined Acme as ops lead.\n", "2026-11-30#1"))
    result = garden(b, model)

    assert a_result[0].outcome == "pages_written" and a_result[0].commit
    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert "replaying" in result.remote
    tip = git(remote, "rev-parse", "main").strip()
    assert tip == result.commit == git(b.root, "rev-parse", "HEAD").strip()
    files = git(remote, "ls-tree", "-r", "--name-only", "main").split()
    assert {"wiki/acme.md", "wiki/dana.md", "raw/journal/2026-11-29.md", "raw/journal/2026-11-30.md"} <= set(files)
    # Each clone's lines are read exactly once, in the shared read position.
    read = json.loads(git(remote, "show", "main:.gitgarden/read.json"))
    assert set(read) >= {"2026-11-29", "2026-11-30"}
    # B's work tree follows the remote: A's page is there, nothing of B's is left uncommitted.
    assert (b.root / "wiki/acme.md").exists()
    assert git(b.root, "status", "--porcelain", "wiki", "raw", ".gitgarden") == ""
    index = (b.root / "wiki/index.md").read_text()
    assert "[[acme]]" in index and "[[dana]]" in index
    # Merged, never duplicated: each map entry stands once, and each pass's record once.
    assert index == git(remote, "show", "main:wiki/index.md")
    assert [index.count(f"[[{name}]]") for name in ("pricing", "acme", "dana")] == [1, 1, 1], index
    records = [json.loads(line) for line in git(remote, "show", f"main:{FIXED_LOG}").splitlines()]
    assert sorted(r["pass_id"] for r in records) == sorted([a_result[0].pass_id, result.pass_id])
    no_force_push(remote)


def test_a_rejected_push_that_conflicts_is_taken_back_and_nothing_is_lost(shared: tuple[Path, Project, Project]) -> None:
    remote, a, b = shared
    capture(a, "2026-11-29", "Acme wants export before January")
    capture(b, "2026-11-30", "Acme asked for a discount in March")
    b_head = git(b.root, "rev-parse", "HEAD").strip()
    b_journal = (b.journal / "2026-11-30.md").read_bytes()
    a_result: list[PassResult] = []

    def a_pass() -> None:
        a_result.append(garden(a, FakeModel().enqueue(append("pricing", "Acme wants export before January.\n", "2026-11-29#1"))))

    model = OtherMachineFirst(a_pass).enqueue(append("pricing", "Acme asked for a discount in March.\n", "2026-11-30#1"))
    result = garden(b, model)

    assert a_result[0].commit
    assert (result.outcome, result.exit_code) == ("failed", 15)
    assert "taken back" in result.detail and "conflict" in result.detail
    assert result.commit == "" and result.marked_read == 0
    # Nothing lost on either side: A's append is on the remote, B's line is on disk and unread.
    assert "export before January" in git(remote, "show", "main:wiki/pricing.md")
    assert git(b.root, "rev-parse", "HEAD").strip() == b_head
    assert (b.journal / "2026-11-30.md").read_bytes() == b_journal
    assert "discount" not in (b.root / "wiki/pricing.md").read_text()
    assert not (b.root / ".gitgarden/read.json").exists()
    assert git(b.root, "status", "--porcelain", "wiki", ".gitgarden") == ""
    assert git(b.root, "tag", "--list", "pre_gardener/*").strip()  # the snapshot of the attempt is kept
    no_force_push(remote)

    # The next pass on B fast-forwards onto A's work and promotes B's line then.
    again = FakeModel().enqueue(append("pricing", "Acme asked for a discount in March.\n", "2026-11-30#1"))
    result = garden(b, again)
    assert result.outcome == "pages_written", (result.detail, result.refusals)
    pricing = git(remote, "show", "main:wiki/pricing.md")
    assert "export before January" in pricing and "discount in March" in pricing
    no_force_push(remote)


def test_an_unreachable_remote_stops_the_pass_before_it_starts(shared: tuple[Path, Project, Project], tmp_path: Path) -> None:
    _remote, a, _b = shared
    git(a.root, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    capture(a, "2026-11-29", "Acme signed the pilot contract")
    head = git(a.root, "rev-parse", "HEAD").strip()

    result = garden(a, FakeModel())

    assert (result.outcome, result.exit_code) == ("failed", 15)
    assert result.detail.startswith("remote unreachable")
    assert git(a.root, "rev-parse", "HEAD").strip() == head
    assert git(a.root, "tag", "--list", "pre_gardener/*").strip() == ""


def test_a_remote_name_the_clone_lacks_is_refused_with_how_to(project: Project) -> None:
    capture(project, "2026-11-29", "Acme signed the pilot contract")
    result = garden(project, FakeModel())
    assert (result.outcome, result.exit_code) == ("refused", 14)
    assert "git remote add origin" in result.detail


def test_ci_runs_a_pass_without_a_terminal_and_writes_the_step_summary(shared: tuple[Path, Project, Project], tmp_path: Path) -> None:
    remote, a, _b = shared
    write(a.root, ".gitgarden/config.toml", 'remote = "origin"\n')
    write(a.root, "wiki/dana.md", page("Dana", "Dana runs ops.\n"))  # a page the map lacks: work without a model
    commit_all(a.root, "share through origin")
    git(a.root, "push", "-q", "origin", "main")
    capture(a, "2026-11-29", "Acme signed the pilot contract")
    summary = tmp_path / "summary.md"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITGARDEN_MODEL")}
    env.update(CI="true", GITHUB_STEP_SUMMARY=str(summary))
    proc = subprocess.run(
        [sys.executable, "-m", "gitgarden", "ci"], cwd=a.root, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120
    )
    # No model in this job: the model-free work is done and pushed, the journal stays unread.
    assert proc.returncode == 0, proc.stderr
    assert "gitgarden pass on a: no_model" in proc.stdout
    assert "no_model" in summary.read_text() and "pushed to origin/main" in summary.read_text()
    assert git(remote, "rev-parse", "main").strip() == git(a.root, "rev-parse", "HEAD").strip()
    assert git(a.root, "log", "-1", "--format=%(trailers:key=Gardener-Trigger,valueonly)").strip() == "ci"


def test_ci_init_prints_workflows_limited_to_one_run_per_branch() -> None:
    from click.testing import CliRunner

    from gitgarden.cli.main import cli

    github = CliRunner().invoke(cli, ["ci", "init", "github"])
    assert github.exit_code == 0 and "concurrency:" in github.stdout and "gitgarden ci" in github.stdout
    gitlab = CliRunner().invoke(cli, ["ci", "init", "gitlab"])
    assert gitlab.exit_code == 0 and "resource_group:" in gitlab.stdout


def test_status_says_how_far_behind_and_a_diverged_clone_is_held_back_from_tick(shared: tuple[Path, Project, Project]) -> None:
    from tests.helpers.project import invoke

    _remote, a, b = shared
    write(b.root, ".gitgarden/config.toml", 'remote = "origin"\n')
    commit_all(b.root, "share through origin")
    git(b.root, "push", "-q", "origin", "main")
    git(a.root, "pull", "-q", "--ff-only", "origin", "main")
    write(b.root, "notes/b.md", "pushed from B\n")
    commit_all(b.root, "B's work")
    git(b.root, "push", "-q", "origin", "main")
    git(a.root, "fetch", "-q", "origin")

    status = invoke(a, "status", "--json")
    assert json.loads(status.stdout)["remote"] == "1 behind origin/main"

    write(a.root, "notes/a.md", "A's own\n")
    commit_all(a.root, "A's work")
    capture(a, "2026-11-29", "Acme signed the pilot contract")
    data = json.loads(invoke(a, "status", "--json").stdout)
    assert data["remote"] == "diverged from origin/main: 1 ahead, 1 behind"
    assert any(h["clock"] == "remote" and 'sync = "merge"' in h["detail"] for h in data["held"])
    assert "remote: diverged" in invoke(a, "status").stdout


def test_a_protected_branch_keeps_the_pass_local_and_suggests_review_mode(shared: tuple[Path, Project, Project]) -> None:
    remote, a, _b = shared
    before = git(remote, "rev-parse", "main").strip()
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'GH006: Protected branch update failed for refs/heads/main.' >&2\nexit 1\n")
    hook.chmod(0o755)
    capture(a, "2026-11-29", "Acme signed the pilot contract")

    result = garden(a, FakeModel().enqueue(create("acme", "Acme", "Acme signed the pilot contract.\n", "2026-11-29#1")))

    assert (result.outcome, result.exit_code) == ("failed", 15)
    assert "protected branch" in result.detail and "review" in result.detail
    assert result.commit and git(a.root, "rev-parse", "HEAD").strip() == result.commit  # kept in this clone
    assert git(remote, "rev-parse", "main").strip() == before


def test_config_set_sync_names_its_choices(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.helpers.project import invoke

    res = invoke(project, "config", "set", "sync", "rebase")
    assert res.exit_code == 1 and "sync must be one of ff, merge; rebase refused" in res.stderr
    assert invoke(project, "config", "set", "sync", "merge").exit_code == 0


@pytest.mark.parametrize(("layout_in_force", "map_path"), [(Layout(), "wiki/index.md"), (Layout(".", "Daily notes"), "index.md")])
def test_both_sides_map_entries_merge_in_either_layout_where_a_page_would_conflict(
    project: Project, layout_in_force: Layout, map_path: str
) -> None:
    """Replaying onto a moved remote: two clones' new map entries at the same place are both kept
    (the map is merged as a union, wherever the layout puts it); the same clash in a page is no merge."""
    from gitgarden.sharing import meaning
    from gitgarden.wiki import layout

    base = b"# Map\n\n## Pages\n\n- [[pricing]]\n\n## Open\n"
    ours = base.replace(b"- [[pricing]]\n", b"- [[pricing]]\n- [[acme]]\n")
    theirs = base.replace(b"- [[pricing]]\n", b"- [[pricing]]\n- [[dana]]\n")
    with layout.active(layout_in_force):
        merged = meaning.merge_file(project.root, map_path, base, ours, theirs, layout_in_force.journal_dir)
        page_path = layout_in_force.page_path("notes")
        clash = meaning.merge_file(project.root, page_path, base, ours, theirs, layout_in_force.journal_dir)
    assert merged == b"# Map\n\n## Pages\n\n- [[pricing]]\n- [[acme]]\n- [[dana]]\n\n## Open\n"  # each line once
    assert clash is None
