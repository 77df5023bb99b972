"""The write window: what the person writes while a pass writes and commits is never lost or taken.

Each race is pinned with the pass's `step` callable at the exact moment (the
pending record written, right before and right after a file's rename, right
before the commit) and looped, so a one-in-ten failure would show. Real git
in temporary folders, the scripted model, the fixed clock.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

import pytest

from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.history.undo import UndoRefused, undo
from gitgarden.project import Project, init_project
from gitgarden.repo.gitdir import git_dir
from tests.helpers import project as helpers
from tests.helpers.gitlocks import stale_lock_of_a_killed_git
from tests.helpers.project import (
    FIXED_LOG,
    FIXED_NOW,
    SETTINGS,
    FakeModel,
    commit_all,
    git,
    invoke,
    page,
    promote_reply,
    write,
)

LOOPS = 10
PERSON_LINE = "- a line the person typed in that very moment\n"


def make_acme(root: Path) -> Project:
    """A committed page (pricing) and map, three uncommitted journal lines, the person's staged work."""
    project = Project(init_project(root).root)
    write(root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(root, "raw/journal/2026-11-28.md", "Pilot price set at 400 EUR a month\n")
    write(root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    commit_all(root)
    write(root, "raw/journal/2026-11-29.md", "Acme signed the pilot contract\nAcme wants export before January\nbought coffee\n")
    write(root, "AGENTS.md", "# staged by the person\n")
    git(root, "add", "AGENTS.md")
    write(root, "notes/draft.md", "untracked draft\n")
    return project


def garden(project: Project, step: Any = None) -> PassResult:
    """helpers.project's garden with promote_reply() as the model's answer, paused at `step`'s points."""
    model = FakeModel().enqueue(promote_reply())
    kw = {"step": step} if step is not None else {}
    return helpers.garden(project, model, **kw)


def leftovers(project: Project) -> list[str]:
    """Files a pass's write may leave beside a page (its temporary file, the original's link)."""
    return sorted(str(p) for p in project.root.rglob(".*.gitgarden-*"))


def pass_commits(project: Project) -> str:
    return git(project.root, "log", "--format=%H", "--grep=^Gardener-Pass:")


class Person:
    """Writes a line into `target` at one moment of the pass, the way a person or their editor would."""

    def __init__(self, project: Project, target: str, moment: str) -> None:
        self.path = project.root / target
        self.target, self.moment = target, moment
        self.fh: IO[bytes] | None = None
        self.wrote = False

    def __call__(self, step: str, rel: str) -> None:
        if self.wrote:
            return
        if self.moment == "pending" and step == "pending":
            self._append()
        elif rel != self.target:
            return
        elif self.moment == "before_replace" and step == "before_replace":
            self._append()
        elif self.moment == "editor_save" and step == "before_replace":
            # An editor's save: a new file renamed over the old one.
            tmp = self.path.with_name("editor-save.tmp")
            tmp.write_bytes(self.path.read_bytes() + PERSON_LINE.encode())
            os.replace(tmp, self.path)
            self.wrote = True
        elif self.moment == "open_file" and step == "before_replace":
            self.fh = open(self.path, "ab")  # noqa: SIM115 - held open across the rename on purpose
        elif self.moment == "open_file" and step == "after_replace" and self.fh is not None:
            # The last microsecond: written through a file opened before the rename, landing after it.
            self.fh.write(PERSON_LINE.encode())
            self.fh.close()
            self.wrote = True

    def _append(self) -> None:
        with open(self.path, "ab") as fh:
            fh.write(PERSON_LINE.encode())
        self.wrote = True


@pytest.mark.parametrize("moment", ["pending", "before_replace", "editor_save", "open_file"])
@pytest.mark.parametrize("target", ["wiki/index.md", "wiki/pricing.md"])
def test_a_write_in_the_window_is_kept_and_the_pass_stands_down(tmp_path: Path, moment: str, target: str) -> None:
    project = make_acme(tmp_path / "p")
    staged_before = git(project.root, "diff", "--cached", "--", "AGENTS.md")
    for i in range(LOOPS):
        before = (project.root / target).read_bytes()
        person = Person(project, target, moment)
        result = garden(project, person)

        assert person.wrote, f"iteration {i}: the pass never reached {moment}"
        assert result.outcome == "stood_down", (i, result.outcome, result.detail)
        assert target in result.detail and result.exit_code == 12
        assert (project.root / target).read_bytes() == before + PERSON_LINE.encode()
        # Nothing of the pass stays: no page, no read position, no commit, no snapshot tag, no stray file.
        assert not (project.root / "wiki/acme.md").exists()
        assert not (project.root / ".gitgarden/read.json").exists()
        assert pass_commits(project) == ""
        assert git(project.root, "tag", "--list", "pre_gardener/*") == ""
        assert not (git_dir(project.root) / "gitgarden/pending.json").exists()
        assert leftovers(project) == []
        assert git(project.root, "diff", "--cached", "--", "AGENTS.md") == staged_before
        other = "wiki/pricing.md" if target == "wiki/index.md" else "wiki/index.md"
        assert git(project.root, "status", "--porcelain", "--", other) == ""  # its write was rolled back
        git(project.root, "commit", "-qm", "the person's line", "--", target)  # and on to the next try


def test_a_line_typed_before_the_commit_is_not_swept_into_it_and_undo_keeps_it(tmp_path: Path) -> None:
    for i in range(LOOPS):
        project = make_acme(tmp_path / f"p{i}")

        def type_a_line(step: str, _rel: str, project: Project = project) -> None:
            if step == "before_commit":
                with open(project.root / "wiki/pricing.md", "ab") as fh:
                    fh.write(PERSON_LINE.encode())

        result = garden(project, type_a_line)

        assert result.outcome == "pages_written", (i, result.detail, result.refusals)
        on_disk = (project.root / "wiki/pricing.md").read_bytes()
        committed = git(project.root, "show", f"{result.commit}:wiki/pricing.md").encode()
        assert on_disk == committed + PERSON_LINE.encode()  # the commit holds the pass's bytes, not the line
        assert PERSON_LINE.strip() not in git(project.root, "show", result.commit)
        assert git(project.root, "status", "--porcelain", "--", "wiki/pricing.md") == " M wiki/pricing.md\n"
        with pytest.raises(UndoRefused, match="uncommitted changes"):
            undo(project.root, None, now=FIXED_NOW)
        assert (project.root / "wiki/pricing.md").read_bytes() == on_disk
        # Once the person commits their line, undo takes the pass's text out and keeps theirs.
        git(project.root, "commit", "-qm", "my line", "--", "wiki/pricing.md")
        undo(project.root, result.pass_id, now=FIXED_NOW)
        after = (project.root / "wiki/pricing.md").read_text()
        assert PERSON_LINE.strip() in after
        assert "Acme wants export before January." not in after


def test_the_persons_index_follows_a_landed_pass_and_keeps_what_they_staged(tmp_path: Path) -> None:
    project = make_acme(tmp_path / "p")
    git(project.root, "add", "raw/journal/2026-11-29.md")  # the person staged the day file themselves
    result = garden(project)
    assert result.outcome == "pages_written"
    status = git(project.root, "status", "--porcelain", "--untracked-files=all")
    assert status.splitlines() == ["M  AGENTS.md", "?? notes/draft.md"]  # the pass's paths and the journal clean
    assert git(project.root, "diff", "--cached", "--", "AGENTS.md")


def test_a_failed_pass_leaves_the_index_exactly_as_it_was_and_no_snapshot_tag(tmp_path: Path) -> None:
    project = make_acme(tmp_path / "p")
    hook = git_dir(project.root) / "hooks" / "pre-commit"
    hook.write_text('#!/bin/sh\n[ "$GIT_AUTHOR_EMAIL" = gitgarden@localhost ] && { echo "no robots" >&2; exit 1; }\nexit 0\n')
    hook.chmod(0o755)
    for staged_journal in (False, True):
        if staged_journal:
            with open(project.journal / "2026-11-29.md", "a") as fh:
                fh.write("Kessler wants a pilot too\n")
            git(project.root, "add", "raw/journal/2026-11-29.md")
        before = git(project.root, "ls-files", "-s", "--", ".", ":(exclude)raw/journal")
        result = garden(project)
        assert result.outcome == "failed" and "no robots" in result.detail
        assert git(project.root, "ls-files", "-s", "--", ".", ":(exclude)raw/journal") == before
        status = git(project.root, "status", "--porcelain", "--untracked-files=all", "--", ".", ":(exclude)log")
        assert status.splitlines() == ["M  AGENTS.md", "?? notes/draft.md"], status  # no `A`, no `MM` journal
        assert git(project.root, "tag", "--list", "pre_gardener/*") == ""
        record = json.loads((project.root / result.record_path).read_text().splitlines()[-1])
        assert record["outcome"] == "failed" and record["snapshot"] == ""
    hook.unlink()
    result = garden(project)
    assert result.outcome == "pages_written"
    assert git(project.root, "tag", "--list", "pre_gardener/*").split() == [f"pre_gardener/{result.pass_id}"]


def test_the_persons_hook_judges_exactly_the_pass_commit(tmp_path: Path) -> None:
    """The hook (core.hooksPath honoured) sees the pass's bytes in GIT_INDEX_FILE, nothing the person staged."""
    project = make_acme(tmp_path / "p")
    hooks = tmp_path / "my-hooks"
    hooks.mkdir()
    seen = tmp_path / "seen"
    (hooks / "pre-commit").write_text(
        f'#!/bin/sh\n[ "$GIT_AUTHOR_EMAIL" = gitgarden@localhost ] || exit 0\n'
        f'git diff --cached --name-only > "{seen}.names"\ngit show :wiki/pricing.md > "{seen}.pricing"\n'
    )
    (hooks / "pre-commit").chmod(0o755)
    git(project.root, "config", "core.hooksPath", str(hooks))
    result = garden(project, lambda step, _rel: _type_into(project, "wiki/pricing.md") if step == "before_commit" else None)
    assert result.outcome == "pages_written"
    assert Path(f"{seen}.names").read_text().split() == [
        ".gitgarden/read.json",
        FIXED_LOG,
        "wiki/acme.md",
        "wiki/index.md",
        "wiki/pricing.md",
    ]
    judged = Path(f"{seen}.pricing").read_text()
    assert judged == git(project.root, "show", "HEAD:wiki/pricing.md") and PERSON_LINE.strip() not in judged


def _type_into(project: Project, rel: str) -> None:
    with open(project.root / rel, "ab") as fh:
        fh.write(PERSON_LINE.encode())


def test_a_commit_made_by_the_person_while_the_pass_commits_is_never_overwritten(tmp_path: Path) -> None:
    project = make_acme(tmp_path / "p")
    hook = git_dir(project.root) / "hooks" / "pre-commit"
    hook.write_text(
        "#!/bin/sh\n"
        '[ "$GIT_AUTHOR_EMAIL" = gitgarden@localhost ] || exit 0\n'
        "env -u GIT_INDEX_FILE GIT_AUTHOR_NAME=Pat GIT_AUTHOR_EMAIL=pat@example.com GIT_COMMITTER_NAME=Pat "
        'GIT_COMMITTER_EMAIL=pat@example.com git commit -q --no-verify -m "the person, meanwhile" -- AGENTS.md\n'
    )
    hook.chmod(0o755)
    pricing = (project.root / "wiki/pricing.md").read_bytes()
    result = garden(project)
    assert result.outcome == "failed" and "HEAD moved" in result.detail
    assert git(project.root, "log", "-1", "--format=%s") == "the person, meanwhile\n"
    assert git(project.root, "show", "HEAD:AGENTS.md") == "# staged by the person\n"
    assert (project.root / "wiki/pricing.md").read_bytes() == pricing
    assert not (project.root / "wiki/acme.md").exists()
    assert git(project.root, "status", "--porcelain", "--", "wiki", ".gitgarden") == ""


def test_a_stale_index_lock_is_named_with_its_path_and_how_to_remove_it(tmp_path: Path) -> None:
    project = make_acme(tmp_path / "p")
    lock = stale_lock_of_a_killed_git(project.root)
    before = git(project.root, "rev-parse", "HEAD")
    fake = FakeModel().enqueue(promote_reply())
    out = invoke(project, "run", model=fake)
    assert out.exit_code == 15, out.output
    assert f"rm '{lock}'" in out.output and str(lock) in out.output
    assert git(project.root, "rev-parse", "HEAD") == before
    assert lock.exists()  # not ours to remove: some other git left it
    assert git(project.root, "tag", "--list", "pre_gardener/*") == ""
    lock.unlink()
    assert garden(project).outcome == "pages_written"


def test_the_persons_commit_msg_hook_edits_or_refuses_the_pass_commit(tmp_path: Path) -> None:
    project = make_acme(tmp_path / "p")
    hook = git_dir(project.root) / "hooks" / "commit-msg"
    hook.write_text('#!/bin/sh\nprintf "Reviewed-by: nobody yet\\n" >> "$1"\n')
    hook.chmod(0o755)
    result = garden(project)
    assert result.outcome == "pages_written"
    message = git(project.root, "log", "-1", "--format=%B")
    assert f"Gardener-Pass: {result.pass_id}" in message and message.rstrip().endswith("Reviewed-by: nobody yet")

    git(project.root, "commit", "-qm", "the person's staged work", "--", "AGENTS.md")
    with open(project.journal / "2026-11-30.md", "w") as fh:
        fh.write("Dana joined Acme as ops lead\n")
    hook.write_text('#!/bin/sh\ngrep -q "^journal:" "$1" && exit 0\necho "subject must name a ticket" >&2\nexit 1\n')
    head = git(project.root, "rev-parse", "HEAD")
    model = FakeModel().enqueue(
        {"operations": [{"op": "create_page", "page": "dana", "title": "Dana", "body": "Dana joined Acme as ops lead.\n", "lines": ["2026-11-30#1"]}]}
    )
    result = run_pass(project, SETTINGS, model=model, now=lambda: FIXED_NOW)
    assert result.outcome == "failed" and "commit-msg hook refused the commit: subject must name a ticket" in result.detail
    assert git(project.root, "rev-parse", "HEAD~1") == head  # only the journal commit landed
    assert not (project.root / "wiki/dana.md").exists()
    assert git(project.root, "status", "--porcelain", "--", "wiki", ".gitgarden", "raw") == ""
