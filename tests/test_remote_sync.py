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
from tests.helpers.project import FakeModel, capture, commit_all, git
from tests.helpers.remote import SETTINGS, append, create, garden, no_force_push

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
    shared: tuple[Path, Project, Project],
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


def test_a_day_file_both_machines_appended_to_is_merged_line_by_line(shared: tuple[Path, Project, Project]) -> None:
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


def test_a_day_file_the_person_committed_on_b_merges_with_sync_merge(shared: tuple[Path, Project, Project]) -> None:
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
    shared: tuple[Path, Project, Project],
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


# -- items 14-16: the processes a remote starts, the person's ssh, a refused tag -------------------


def fake_ssh(tmp: Path, name: str = "ssh-fake") -> tuple[Path, Path]:
    """An ssh stand-in (core.sshCommand) that records its call, starts a child that would outlive it,
    and then hangs as a remote that never answers does."""
    log = tmp / f"{name}.log"
    script = tmp / name
    script.write_text(f'#!/bin/sh\necho "$$ $*" >> "{log}"\nsleep 300 &\necho "$!" >> "{log}"\nsleep 300\n')
    script.chmod(0o755)
    return script, log


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in state  # a zombie has ended; only its parent has not looked yet


def test_a_remote_that_hangs_is_stopped_with_every_process_it_started(project: Project, tmp_path: Path) -> None:
    import time

    script, log = fake_ssh(tmp_path)
    git(project.root, "remote", "add", "origin", "ssh://gitgarden.invalid/wiki.git")
    git(project.root, "config", "core.sshCommand", str(script))
    capture(project, DAY, A_LINE)
    started = time.monotonic()
    result = garden(project, FakeModel(), replace(SETTINGS, remote_timeout=3))
    assert (result.outcome, result.exit_code) == ("failed", 15)
    assert "gave no answer within 3 s" in result.detail
    assert time.monotonic() - started < 60
    pids = [int(line.split()[0]) for line in log.read_text().splitlines()]
    assert len(pids) == 2  # the ssh stand-in and the child it started
    time.sleep(0.5)
    assert not [p for p in pids if _alive(p)], "a process the remote started outlived remote_timeout"


def test_the_persons_ssh_command_is_kept(project: Project, tmp_path: Path) -> None:
    script, log = fake_ssh(tmp_path, "deploy-key-ssh")
    git(project.root, "remote", "add", "origin", "ssh://gitgarden.invalid/wiki.git")
    git(project.root, "config", "core.sshCommand", f"{script} -i /home/pat/.ssh/deploy_key")
    capture(project, DAY, A_LINE)
    garden(project, FakeModel(), replace(SETTINGS, remote_timeout=2))
    call = log.read_text().splitlines()[0]
    assert "-i /home/pat/.ssh/deploy_key" in call  # the person's own command ran, with its options


def test_a_tag_push_the_remote_refuses_is_said_in_the_record_and_the_report(shared: tuple[Path, Project, Project]) -> None:
    remote, a, _b = shared
    hook = remote / "hooks" / "pre-receive"
    hook.write_text('#!/bin/sh\nwhile read old new ref; do case "$ref" in refs/tags/*) echo "tags are not allowed here" >&2; exit 1;; esac; done\n')
    hook.chmod(0o755)
    capture(a, DAY, A_LINE)
    result = garden(a, FakeModel().enqueue(create("acme", "Acme", "Acme signed the pilot contract.\n", f"{DAY}#1")), replace(SETTINGS, push_tags=True))
    assert result.outcome == "pages_written" and "pushed to origin/main" in result.remote
    assert f"the snapshot tag {result.snapshot} was not pushed" in result.remote
    assert "tags are not allowed here" in result.remote
    assert git(remote, "tag", "--list").strip() == ""
    # The pass's record (what `run --json` prints, the attempt's report) and its report's hints say so;
    # the record committed in log/ was written before the push.
    assert "was not pushed" in result.record()["remote"]
    assert any("was not pushed" in h for h in result.hints)
