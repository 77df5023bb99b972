"""The person's commit hooks, run as `git commit` would run them around the commits gitgarden builds
(`repo.commits`), and the short wait for another git command to let go of the index.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from gitgarden.errors import GitError
from gitgarden.repo import gitrepo

__all__ = ["person_hooks", "run_hook", "wait_for_index"]


_DETAIL_CAP = 600  # characters of a refusing hook's words kept in the one-line error


_LOCK_WAIT = 3.0  # seconds a commit waits for another git command to let go of the index


_HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit")


def person_hooks(root: Path) -> tuple[str, dict[str, Path]]:
    """The top of the work tree and the person's commit hooks that exist and may run (core.hooksPath respected)."""

    def ask() -> tuple[str, list[Path]]:
        dot = root / ".git"
        if dot.is_dir() and gitrepo.repo_settings(root).value("core.hookspath") is None:
            # The common layout, answered without a git process: the top is `root`, the hooks `.git/hooks`.
            return str(root), [dot / "hooks" / name for name in _HOOKS]
        args = ["rev-parse", "--show-toplevel"]
        for name in _HOOKS:
            args += ["--git-path", f"hooks/{name}"]
        top, *paths = gitrepo.git(root, *args).decode().splitlines()
        return top or str(root), [Path(rel) if os.path.isabs(rel) else root / rel for rel in paths]

    top, paths = gitrepo.remembered(root, "hooks", ask)
    found = {}
    for name, path in zip(_HOOKS, paths, strict=True):
        if path.is_file() and os.access(path, os.X_OK):  # looked at every time: a hook may come or go
            found[name] = path
    return top, found


def run_hook(top: str, hooks: Mapping[str, Path], name: str, args: Sequence[str], env: Mapping[str, str]) -> None:
    """Run the person's hook as `git commit` would (from the top of the work tree); GitError when it refuses."""
    path = hooks.get(name)
    if path is None:
        return
    policy = gitrepo.current_policy()
    try:
        proc = gitrepo.run_bounded([str(path), *args], env=gitrepo.clean_env(env), input=None, timeout=policy.timeout, cwd=top)
    except subprocess.TimeoutExpired:
        raise GitError(
            f"your {name} hook did not finish within {policy.timeout:g} s and was stopped; "
            "the `git_timeout` setting changes the limit"
        ) from None
    if proc.returncode != 0:
        # The hook's own words, every line: a hook usually says why first and how to bypass last.
        said = [w.strip() for w in (proc.stderr + proc.stdout).decode("utf-8", "replace").splitlines() if w.strip()]
        words = " | ".join(said)
        words = words if len(words) <= _DETAIL_CAP else words[:_DETAIL_CAP] + "…"
        raise GitError(f"your {name} hook refused the commit" + (f": {words}" if said else f" (exit status {proc.returncode})"))


def wait_for_index(gdir: Path, seconds: float = _LOCK_WAIT) -> None:
    """Wait (briefly) for another git command to let go of the index; GitError naming the lock if it will not."""
    lock = gdir / "index.lock"
    deadline = time.monotonic() + seconds
    while lock.exists():
        if time.monotonic() > deadline:
            raise GitError(gitrepo.index_lock_error(lock))
        time.sleep(0.05)
