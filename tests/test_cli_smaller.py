"""The smaller rough edges of everyday use: guard outside a repository, completion, the review diff, show's pager, log at 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from gitgarden.cli import App, cli


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), obj=App())


def test_guard_outside_a_repository_says_so_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gitgarden", "guard"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)},
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"gitgarden: {tmp_path} is not inside a git work tree: `gitgarden guard` compares a work tree "
        "with a commit (run it in a repository, or `git init` one)"
    ]
    assert "fatal" not in done.stderr and "rev-parse" not in done.stderr
