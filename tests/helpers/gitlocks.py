"""A real git killed while it held a lock."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from gitgarden.repo.gitdir import git_dir


def stale_lock_of_a_killed_git(root: Path) -> Path:
    """A real git killed while it held the index lock (it holds it while it reads its input)."""
    lock = git_dir(root) / "index.lock"
    proc = subprocess.Popen(["git", "-C", str(root), "update-index", "--index-info"], stdin=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not lock.exists():  # wait on the lock itself, not on a guess of how long git takes
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    assert lock.exists()
    return lock
