"""Crash safety: `gitgarden run` killed with SIGKILL at each step leaves a project the next run can use.

Each test runs a real pass in a subprocess (`python -m gitgarden run`) against
the fake OpenAI-compatible server, kills it at one step, checks the invariants
(the person's files and staged work as they were, no unexplained gardener file,
the lock free) and then runs the next pass to completion (in this process, so
litellm is imported once rather than once a test). Steps are pinned with
a pre-commit hook that blocks the commit of one author until the test releases
it, a reference-transaction hook that blocks once the branch has moved, and
with a model reply that is slow to come. A kill is of the pass alone (`kill -9
PID`) or of its whole process group, git and hooks included (what a service
manager or a terminal's Ctrl-C reaches).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gitgarden.cli.main import App, cli
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from gitgarden.repo.lock import holder
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.project import commit_all, git, page, promote_reply, write

pytestmark = [pytest.mark.litellm, pytest.mark.slow]

PERSON = "pat@example.com"
GARDENER = "gitgarden@localhost"
WAIT = 90.0  # seconds; importing litellm alone takes a few on a small machine

HOOK = """#!/bin/sh
# Test hook: blocks the commit of one author while armed, until released with an exit status.
[ "$GIT_AUTHOR_EMAIL" = "{email}" ] || exit 0
[ -e "{m}/armed" ] || exit 0
rm -f "{m}/armed"
: > "{m}/entered"
i=0
while [ ! -s "{m}/release" ]; do
  sleep 0.05
  i=$((i + 1))
  [ "$i" -gt 2400 ] && exit 1
done
code=$(cat "{m}/release")
: > "{m}/done"
exit "$code"
"""

# Blocks the gardener's branch update once it is committed (the commit has landed, the person's
# index not yet brought along), until released.
REF_HOOK = """#!/bin/sh
cat > /dev/null
[ "$1" = committed ] || exit 0
[ "$GIT_AUTHOR_EMAIL" = "{email}" ] || exit 0
[ -e "{m}/armed" ] || exit 0
rm -f "{m}/armed"
: > "{m}/entered"
i=0
while [ ! -s "{m}/release" ]; do
  sleep 0.05
  i=$((i + 1))
  [ "$i" -gt 2400 ] && exit 1
done
: > "{m}/done"
exit 0
"""


def promote_reply_text() -> str:
    """The shared promote_reply() as the text the fake server sends."""
    return json.dumps(promote_reply())


def dana_reply(*skip: str) -> str:
    ops: list[dict[str, Any]] = [
        {"op": "create_page", "page": "dana", "title": "Dana", "body": "Dana joined Acme as ops lead.\n", "lines": ["2026-11-30#1"]}
    ]
    if skip:
        ops.append({"op": "skip", "lines": list(skip)})
    return json.dumps({"operations": ops})



@pytest.fixture
def acme(project: Project) -> Project:
    """A committed page and map, uncommitted journal lines, and the person's work in every state."""
    root = project.root
    write(root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(root, "raw/journal/2026-11-28.md", "Pilot price set at 400 EUR a month\n")
    write(root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    write(root, "notes/todo.md", "committed notes\n")
    commit_all(root)
    write(root, "raw/journal/2026-11-29.md", "Acme signed the pilot contract\nAcme wants export before January\nbought coffee\n")
    write(root, "AGENTS.md", "# staged by the person\n")
    git(root, "add", "AGENTS.md")
    write(root, "notes/todo.md", "committed notes, edited but not staged\n")
    write(root, "notes/draft.md", "untracked draft\n")
    return project


def env_for(server: FakeOpenAI) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GITGARDEN_MODEL="openai/fake",
        GITGARDEN_API_BASE=server.base_url,
        GITGARDEN_API_KEY="x",
        GITGARDEN_TIMEOUT="120",
        GITGARDEN_NUM_RETRIES="0",
        GITGARDEN_MODE="full",  # the fake server is on loopback: auto would choose small mode
        PYTHONUNBUFFERED="1",
    )
    return env


def start_run(project: Project, server: FakeOpenAI) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "gitgarden", "run", "--json"],
        cwd=project.root,
        env=env_for(server),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, so a test can kill it with its git and hooks
    )


def finish_run(project: Project, server: FakeOpenAI) -> dict[str, Any]:
    """`gitgarden run --json` to completion: in this process (litellm imported once), through HTTP."""
    cwd = os.getcwd()
    os.chdir(project.root)
    try:
        result = CliRunner().invoke(cli, ["run", "--json"], obj=App(env=env_for(server)))
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def wait_for(what: str, check: Callable[[], bool], proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        if proc.poll() is not None:
            out, errs = proc.communicate()
            raise AssertionError(f"the pass ended before {what}: {proc.returncode} {out.decode()} {errs.decode()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def kill(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()  # SIGKILL: no finally block, no atexit, nothing
    proc.wait(timeout=30)
    assert proc.returncode == -9


def _descendants(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children = [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
        for child in children:
            out += [child, *_descendants(child)]
    return out


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the pass and everything it started, as systemd stops a service's whole cgroup: its git
    commands run in sessions of their own (no terminal to prompt on), so the process group is not enough."""
    for pid in [proc.pid, *_descendants(proc.pid)]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -9


def install_hook(project: Project, markers: Path, email: str, name: str = "pre-commit", text: str = HOOK) -> None:
    markers.mkdir(exist_ok=True)
    hook = git_dir(project.root) / "hooks" / name
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(text.format(email=email, m=markers))
    hook.chmod(0o755)
    (markers / "armed").write_text("")


def release_hook(project: Project, markers: Path, status: int) -> None:
    """Let the blocked commit (its pass already dead) go on: 0 lands it, 1 makes git abandon it."""
    (markers / "release").write_text(str(status))
    lock = git_dir(project.root) / "index.lock"
    deadline = time.monotonic() + WAIT
    while not (markers / "done").exists() or lock.exists():
        assert time.monotonic() < deadline, "the orphaned git commit did not finish"
        time.sleep(0.05)
    time.sleep(0.2)
    (markers / "release").unlink()


def person_state(project: Project) -> tuple[list[str], str, dict[str, bytes]]:
    """What the person owns: status outside the gardener's paths and the journal, staged diff, file bytes."""
    status = [
        line
        for line in git(project.root, "status", "--porcelain", "--untracked-files=all").splitlines()
        if not line[3:].startswith(("raw/journal/", "wiki/", ".gitgarden/", "log/"))
    ]
    staged = git(project.root, "diff", "--cached", "--", ".", ":(exclude)raw/journal", ":(exclude)wiki", ":(exclude)log", ":(exclude).gitgarden")
    files = {p: (project.root / p).read_bytes() for p in ("AGENTS.md", "notes/todo.md", "notes/draft.md", "raw/journal/2026-11-29.md")}
    return status, staged, files


def gardener_status(project: Project) -> str:
    return git(project.root, "status", "--porcelain", "--untracked-files=all", "--", "wiki", ".gitgarden", "log")


def pending(project: Project) -> dict[str, Any] | None:
    path = git_dir(project.root) / "gitgarden" / "pending.json"
    return json.loads(path.read_text()) if path.exists() else None


def check_after_kill(project: Project, before: tuple[list[str], str, dict[str, bytes]]) -> None:
    assert person_state(project) == before
    assert holder(git_dir(project.root)) is None
    assert not (git_dir(project.root) / "index.lock").exists()


def add_line_and_finish(project: Project, server: FakeOpenAI, reply: str, before: Any) -> dict[str, Any]:
    """The next run, with one more line captured and a fresh scripted reply; it must complete."""
    with (project.journal / "2026-11-30.md").open("a") as fh:
        fh.write("Dana joined Acme as ops lead\n")
    server.enqueue(reply)
    data = finish_run(project, server)
    assert data["outcome"] == "pages_written", data
    assert data["commit"] and git(project.root, "rev-parse", "HEAD").strip() == data["commit"]
    assert "wiki/dana.md" in data["created"]
    # Everything the gardener touched is committed; the person's work is exactly as it was.
    assert gardener_status(project) == ""
    status, staged, files = person_state(project)
    assert (status, staged) == before[:2]
    assert {k: v for k, v in files.items() if not k.startswith("raw/journal/")} == {
        k: v for k, v in before[2].items() if not k.startswith("raw/journal/")
    }
    assert pending(project) is None
    committed_log = git(project.root, "show", f"{data['commit']}:{data['record_path']}").splitlines()
    assert json.loads(committed_log[-1])["pass_id"] == data["pass_id"]
    return data


def test_killed_after_the_snapshot(acme: Project, server: FakeOpenAI, tmp_path: Path) -> None:
    """Killed between the snapshot and the journal commit (the journal commit's hook holds it there)."""
    markers = tmp_path / "markers"
    install_hook(acme, markers, PERSON)
    before = person_state(acme)
    head = git(acme.root, "rev-parse", "HEAD").strip()
    proc = start_run(acme, server)  # no reply scripted: the pass dies before it asks
    wait_for("the journal commit", (markers / "entered").exists, proc)
    # The snapshot is taken, but tagged only in the ref update of the pass commit: a dead pass leaves no tag.
    assert git(acme.root, "tag", "--list", "pre_gardener/*").strip() == ""
    kill(proc)
    release_hook(acme, markers, 1)

    check_after_kill(acme, before)
    assert git(acme.root, "rev-parse", "HEAD").strip() == head
    assert gardener_status(acme) == ""
    assert pending(acme) is None
    assert server.requests == []

    both = promote_reply()["operations"] + json.loads(dana_reply())["operations"]
    data = add_line_and_finish(acme, server, json.dumps({"operations": both}), before)
    assert data["recovery"] == "" and "wiki/acme.md" in data["created"]


def test_killed_mid_model_call(acme: Project, server: FakeOpenAI) -> None:
    """Killed while the model thinks: after the journal commit, before the pass commit."""
    before = person_state(acme)
    server.enqueue(promote_reply_text(), delay=60)
    proc = start_run(acme, server)
    wait_for("the model call", lambda: len(server.requests) > 0, proc)
    kill(proc)

    check_after_kill(acme, before)
    assert gardener_status(acme) == ""
    assert pending(acme) is None
    last = git(acme.root, "log", "-1", "--format=%ae%n%B")
    assert last.startswith(PERSON) and "Gardener-Pass" not in last  # only the person's journal commit landed
    assert git(acme.root, "status", "--porcelain", "raw/journal") == ""

    assert git(acme.root, "tag", "--list", "pre_gardener/*").split() == []  # no commit of the pass, no tag of it

    data = add_line_and_finish(acme, server, dana_reply("2026-11-29#1", "2026-11-29#2", "2026-11-29#3"), before)
    assert data["recovery"] == ""  # nothing had been written: nothing to recover
    # The killed pass made no commit and left no tag; the pass that committed has its own.
    assert git(acme.root, "tag", "--list", "pre_gardener/*").split() == [f"pre_gardener/{data['pass_id']}"]


def test_killed_after_writing_before_committing(acme: Project, server: FakeOpenAI, tmp_path: Path) -> None:
    """Killed inside the pass commit: files written, commit never lands; the next run rolls them back."""
    markers = tmp_path / "markers"
    install_hook(acme, markers, GARDENER)
    before = person_state(acme)
    server.enqueue(promote_reply_text())
    proc = start_run(acme, server)
    wait_for("the pass commit", (markers / "entered").exists, proc)
    kill(proc)
    release_hook(acme, markers, 1)  # git gives the commit up: it never lands

    check_after_kill(acme, before)
    assert "Gardener-Pass" not in git(acme.root, "log", "-1", "--format=%B")
    # What the dead pass wrote is explained by its record of intent, file for file and byte for byte.
    record = pending(acme)
    assert record is not None
    dirty = {line[3:] for line in gardener_status(acme).splitlines()}
    assert dirty and dirty <= set(record["files"])
    for rel in dirty:
        new = base64.b64decode(record["files"][rel]["new"])
        assert (acme.root / rel).read_bytes() == new  # whole, never half written
    assert git(acme.root, "tag", "--list", "pre_gardener/*").split() == []  # tagged only with a pass commit

    data = add_line_and_finish(acme, server, dana_reply("2026-11-29#1", "2026-11-29#2", "2026-11-29#3"), before)
    assert data["recovery"].startswith("recovered from interrupted pass") and "restored" in data["recovery"]
    committed = json.loads(git(acme.root, "show", f"{data['commit']}:{data['record_path']}").splitlines()[-1])
    assert committed["recovery"] == data["recovery"]
    assert not (acme.root / "wiki/acme.md").exists()  # the dead pass's page was rolled back, not half kept
    assert git(acme.root, "tag", "--list", "pre_gardener/*").split() == [f"pre_gardener/{data['pass_id']}"]


def test_killed_after_the_commit_landed(acme: Project, server: FakeOpenAI, tmp_path: Path) -> None:
    """Killed once the branch moved, before the person's index followed: the next run sees the commit,
    undoes nothing and brings the index along (no staged revert of the pass is left behind)."""
    markers = tmp_path / "markers"
    install_hook(acme, markers, GARDENER, "reference-transaction", REF_HOOK)
    before = person_state(acme)
    server.enqueue(promote_reply_text())
    proc = start_run(acme, server)
    wait_for("the branch update", (markers / "entered").exists, proc)
    kill(proc)
    release_hook(acme, markers, 0)

    check_after_kill(acme, before)
    assert "Gardener-Pass" in git(acme.root, "log", "-1", "--format=%B")
    assert pending(acme) is not None  # the dead pass never got to forget it
    assert "D  wiki/acme.md" in gardener_status(acme)  # the index still holds the old HEAD's versions

    data = add_line_and_finish(acme, server, dana_reply(), before)
    assert data["recovery"].startswith("recovered from an interrupted commit; brought the index up to date")
    assert (acme.root / "wiki/acme.md").exists()


def test_killed_with_its_git_inside_the_pass_commit(acme: Project, server: FakeOpenAI, tmp_path: Path) -> None:
    """The whole process group killed while the person's pre-commit hook judges the pass commit — where
    `git commit` used to hold `.git/index.lock`: no lock is left, and the next run rolls the writes back."""
    markers = tmp_path / "markers"
    install_hook(acme, markers, GARDENER)
    before = person_state(acme)
    server.enqueue(promote_reply_text())
    proc = start_run(acme, server)
    wait_for("the pass commit", (markers / "entered").exists, proc)
    kill_group(proc)

    check_after_kill(acme, before)  # no index.lock: the person's own git works at once
    git(acme.root, "add", "--intent-to-add", "--dry-run", "notes/draft.md")
    assert "Gardener-Pass" not in git(acme.root, "log", "-1", "--format=%B")
    assert pending(acme) is not None

    data = add_line_and_finish(acme, server, dana_reply("2026-11-29#1", "2026-11-29#2", "2026-11-29#3"), before)
    assert data["recovery"].startswith("recovered from interrupted pass") and "restored" in data["recovery"]
    assert git(acme.root, "tag", "--list", "pre_gardener/*").split() == [f"pre_gardener/{data['pass_id']}"]


def test_killed_while_its_git_holds_the_index_lock(acme: Project, server: FakeOpenAI, tmp_path: Path) -> None:
    """The group killed after the branch moved, while the pass's git was updating the person's index:
    a real git killed holding `.git/index.lock` leaves the lock. The next run knows from its records that
    its own commit was updating the index and that no git works here now: it removes the lock and goes on."""
    from tests.helpers.gitlocks import stale_lock_of_a_killed_git

    markers = tmp_path / "markers"
    install_hook(acme, markers, GARDENER, "reference-transaction", REF_HOOK)
    before = person_state(acme)
    server.enqueue(promote_reply_text())
    proc = start_run(acme, server)
    wait_for("the branch update", (markers / "entered").exists, proc)
    lock = stale_lock_of_a_killed_git(acme.root)  # the index update's git, killed with its lock held
    kill_group(proc)

    assert lock.exists() and "Gardener-Pass" in git(acme.root, "log", "-1", "--format=%B")
    assert person_state(acme) == before
    data = add_line_and_finish(acme, server, dana_reply(), before)
    assert f"removed {lock}" in data["recovery"] and "brought the index up to date" in data["recovery"]
    assert not lock.exists()
