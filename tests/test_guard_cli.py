"""`gitgarden guard` on its own: in front of any agent, as a plain git pre-commit hook."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.project import git, page, write


@pytest.fixture
def plain_repo(tmp_path: Path) -> Path:
    """A plain git repository (not a gitgarden project) with a wiki page and a journal day."""
    root = tmp_path / "vault"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "wiki/acme.md", page("Acme", "Acme signed the pilot.\nThey pay monthly.\n", source="[2026-11-29]"))
    write(root, "raw/journal/2026-11-29.md", "Acme signed the pilot\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "notes")
    hook = root / ".git/hooks/pre-commit"
    hook.write_text(f"#!/bin/sh\nexec {sys.executable} -m gitgarden guard\n")
    hook.chmod(0o755)
    return root


def commit(root: Path, message: str) -> subprocess.CompletedProcess[str]:
    git(root, "add", "-A")
    return subprocess.run(["git", "-C", str(root), "commit", "-qm", message], capture_output=True, text=True)


def test_the_hook_lets_an_append_through(plain_repo: Path) -> None:
    with (plain_repo / "wiki/acme.md").open("a") as fh:
        fh.write("\nThey want export before January.\n")
    with (plain_repo / "raw/journal/2026-11-29.md").open("a") as fh:
        fh.write("Acme wants export\n")
    done = commit(plain_repo, "an agent appends")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("change", "rule"),
    [
        (lambda r: (r / "wiki/acme.md").write_text((r / "wiki/acme.md").read_text().replace("monthly", "yearly")), "rule 4"),
        (lambda r: (r / "wiki/acme.md").unlink(), "rule 2"),
        (lambda r: (r / "raw/journal/2026-11-29.md").write_text("rewritten\n"), "rule 6"),
        (lambda r: write(r, "wiki/Bad Name.md", page("Bad", "x\n")), "rule 3"),
        (lambda r: (r / "wiki/link.md").symlink_to("/etc/passwd"), "rule 3"),
    ],
)
def test_the_hook_refuses_what_would_lose_or_reword_notes(plain_repo: Path, change, rule: str) -> None:  # type: ignore[no-untyped-def]
    head = git(plain_repo, "rev-parse", "HEAD")
    change(plain_repo)
    done = commit(plain_repo, "an agent overreaches")
    assert done.returncode != 0
    assert rule in done.stdout + done.stderr
    assert git(plain_repo, "rev-parse", "HEAD") == head


def test_guard_json_and_exit_status(plain_repo: Path) -> None:
    (plain_repo / "wiki/acme.md").write_text("---\ntitle: Acme\n---\nAll new.\n")
    done = subprocess.run([sys.executable, "-m", "gitgarden", "guard", "--json"], cwd=plain_repo, capture_output=True, text=True)
    assert done.returncode == 3
    data = json.loads(done.stdout)
    assert data["ok"] is False
    assert {v["rule"] for v in data["verdicts"]} >= {4}
    assert data["skipped"]  # checks that need a pass are named, not silently passed


def test_guard_before_the_first_commit_lets_it_through(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    write(tmp_path, "AGENTS.md", "# new project\n")
    done = subprocess.run([sys.executable, "-m", "gitgarden", "guard"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0
    assert "nothing to protect" in done.stderr
