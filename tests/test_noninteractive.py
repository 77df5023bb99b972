"""Every git call a pass makes is non-interactive and bounded (issue 12, items 5 and 10).

Signing is the person's git setting that most often wants a person: a tag with
`tag.gpgSign`, a commit with `commit.gpgSign` and a key that is missing or
waits for a passphrase. The signing program here is a script: one that fails,
one that would hang. Real git, real temporary repositories.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from gitgarden.errors import GitError
from gitgarden.gardener.pipeline import PassResult
from gitgarden.project import Project
from gitgarden.repo import gitrepo
from tests.helpers.project import (
    FIXED_NOW,
    LINE,
    SETTINGS,
    FakeModel,
    capture_line,
    garden,
    git,
    invoke,
    promote,
)


def garden_with(project: Project, model: FakeModel | None, **settings: object) -> PassResult:
    """A pass with the named settings changed (git_timeout, sign_commits, …): the rest as `garden`'s."""
    return garden(project, model, replace(SETTINGS, **settings))  # type: ignore[arg-type]



def signer(tmp_path: Path, body: str) -> Path:
    """A stand-in for gpg: a script the test controls."""
    path = tmp_path / "fake-gpg"
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def records(project: Project, result: PassResult) -> list[dict[str, object]]:
    return [json.loads(line) for line in (project.root / result.record_path).read_text().splitlines()]


def test_tag_gpgsign_does_not_make_the_snapshot_tag_wait_for_an_editor_or_a_key(project: Project, tmp_path: Path) -> None:
    hang = signer(tmp_path, "exec sleep 60\n")
    git(project.root, "config", "tag.gpgSign", "true")
    git(project.root, "config", "tag.forceSignAnnotated", "true")
    git(project.root, "config", "gpg.program", str(hang))
    capture_line(project)

    began = time.monotonic()
    result = garden_with(project, FakeModel().enqueue(promote()), git_timeout=20)

    assert time.monotonic() - began < 15
    assert result.outcome == "pages_written", result.detail
    assert result.snapshot and not result.snapshot_error
    # A lightweight tag: it names the snapshot commit itself, no tag object, no signature.
    assert git(project.root, "cat-file", "-t", f"refs/tags/{result.snapshot}").strip() == "commit"


def test_commit_gpgsign_with_a_failing_signer_says_signing_failed_and_how_to_turn_it_off(project: Project, tmp_path: Path) -> None:
    fail = signer(tmp_path, "echo 'gpg: no default secret key' >&2\nexit 2\n")
    git(project.root, "config", "commit.gpgSign", "true")
    git(project.root, "config", "gpg.program", str(fail))
    day = capture_line(project)

    result = garden(project, FakeModel().enqueue(promote()))

    assert result.outcome == "failed" and result.exit_code == 15
    assert "signing failed" in result.detail
    assert "gitgarden config set --user sign_commits false" in result.detail
    assert "\n" not in result.sentence
    assert day.read_text() == LINE + "\n"
    assert not (project.root / "wiki/acme.md").exists()
    # The reason is in the record, so `gitgarden log` and the failure counter see it.
    assert any("signing failed" in str(r.get("detail")) for r in records(project, result))


def test_sign_commits_false_lets_the_pass_commit_unsigned_and_says_so(project: Project, tmp_path: Path) -> None:
    fail = signer(tmp_path, "exit 2\n")
    git(project.root, "config", "commit.gpgSign", "true")
    git(project.root, "config", "gpg.program", str(fail))
    capture_line(project)

    result = garden_with(project, FakeModel().enqueue(promote()), sign_commits=False)

    assert result.outcome == "pages_written", result.detail
    assert git(project.root, "log", "-1", "--format=%G?").strip() == "N"
    assert any("sign_commits = false" in h for h in result.hints)


def test_a_signer_that_hangs_is_stopped_at_the_timeout_with_every_child_process(project: Project, tmp_path: Path) -> None:
    pidfile = tmp_path / "signer.pid"
    hang = signer(tmp_path, f"echo $$ > {pidfile}\nexec sleep 120\n")
    git(project.root, "config", "commit.gpgSign", "true")
    git(project.root, "config", "gpg.program", str(hang))
    day = capture_line(project)

    began = time.monotonic()
    result = garden_with(project, FakeModel().enqueue(promote()), git_timeout=2)
    took = time.monotonic() - began

    assert took < 30, f"the pass took {took:.0f} s"
    assert result.outcome == "failed"
    assert "did not finish within 2 s" in result.detail and "signing program" in result.detail
    assert "git_timeout" in result.detail
    assert day.read_text() == LINE + "\n"
    pid = int(pidfile.read_text())
    for _ in range(50):  # the kill is sent before the call returns; reaping may lag a moment
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the signer {pid} outlived the timeout")


def test_git_never_prompts_for_credentials_or_waits_for_an_editor(project: Project, tmp_path: Path) -> None:
    # An editor that would hang: GIT_EDITOR wins over core.editor, so git gets an empty message at once.
    hang = signer(tmp_path, "exec sleep 60\n")
    git(project.root, "config", "core.editor", str(hang))
    began = time.monotonic()
    with pytest.raises(GitError, match="empty commit message"):
        gitrepo.git(project.root, "commit", "--allow-empty", "-q")  # no -m: git asks the editor for a message
    assert time.monotonic() - began < 15
    env = gitrepo._env(None)
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["GIT_ASKPASS"] == "true" and env["SSH_ASKPASS"] == "true"


def test_a_git_process_over_the_timeout_ends_in_a_git_error_naming_the_command(project: Project, tmp_path: Path) -> None:
    hang = signer(tmp_path, "exec sleep 60\n")
    git(project.root, "config", "alias.wait", f"!{hang}")
    with gitrepo.git_policy(gitrepo.GitPolicy(timeout=1)), pytest.raises(GitError, match=r"git wait did not finish within 1 s"):
        gitrepo.git(project.root, "wait")


def test_the_cli_run_with_a_failing_signer_ends_in_one_line_and_exit_15(project: Project, tmp_path: Path) -> None:
    fail = signer(tmp_path, "exit 2\n")
    git(project.root, "config", "commit.gpgSign", "true")
    git(project.root, "config", "gpg.program", str(fail))
    capture_line(project)

    result = invoke(project, "run", model=FakeModel().enqueue(promote()))

    assert result.exit_code == 15, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    failed = [ln for ln in result.output.splitlines() if ln.startswith("failed")]
    assert len(failed) == 1 and "signing failed" in failed[0] and "sign_commits false" in failed[0]


def test_undo_follows_sign_commits_too(project: Project, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gitgarden.cli.main import App, cli

    capture_line(project)
    assert garden(project, FakeModel().enqueue(promote())).outcome == "pages_written"
    git(project.root, "config", "commit.gpgSign", "true")
    git(project.root, "config", "gpg.program", str(signer(tmp_path, "exit 2\n")))
    cwd = os.getcwd()
    os.chdir(project.root)
    try:
        refused = CliRunner().invoke(cli, ["undo"], obj=App(env=dict(os.environ), now=lambda: FIXED_NOW))
        unsigned = App(env={**os.environ, "GITGARDEN_SIGN_COMMITS": "false"}, now=lambda: FIXED_NOW)
        done = CliRunner().invoke(cli, ["undo"], obj=unsigned)
    finally:
        os.chdir(cwd)

    assert refused.exit_code == 1 and "signing failed" in refused.output
    assert done.exit_code == 0, done.output
    assert git(project.root, "log", "-1", "--format=%s %G?").strip().endswith("N")
    assert not (project.root / "wiki/acme.md").exists()
