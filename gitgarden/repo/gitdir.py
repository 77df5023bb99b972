"""Where a project's git dir is: the one helper every part asks (`git_dir`, `find_git_dir`).

The common layouts are answered from the disk, without a git process and without importing
`subprocess` (`status` and the tick stay light): a `.git` folder is the git dir, and the `.git`
file of a linked worktree or a submodule names it (`gitdir: …`). Only the odd ones (a project below
the top of its repository) ask git, through `gitrepo`, imported then.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from gitgarden.errors import GitgardenError

__all__ = ["git_dir", "find_git_dir"]


def git_dir(root: Path) -> Path:
    """The git dir of the repository `root` is in (absolute); GitError when git finds none."""
    dot = root / ".git"
    if dot.is_dir():
        return dot.resolve()
    linked = _linked(dot)
    if linked is not None and linked.is_dir():
        return linked
    from gitgarden.repo import gitrepo  # only here: the common layouts need no git process

    return Path(gitrepo.git(root, "rev-parse", "--absolute-git-dir").decode().strip())


def find_git_dir(root: Path) -> Path | None:
    """`git_dir`, or None when `root` is in no repository git can read (a folder that is gone)."""
    try:
        return git_dir(root)
    except (GitgardenError, OSError):
        return None


def _linked(dot: Path) -> Path | None:
    """The git dir a `.git` file names (`gitdir: PATH`, relative to the file's folder), or None."""
    if not dot.is_file():
        return None
    with contextlib.suppress(OSError, UnicodeDecodeError):
        text = dot.read_text(encoding="utf-8").strip()
        if text.startswith("gitdir:"):
            found = Path(text[len("gitdir:") :].strip())
            return (found if found.is_absolute() else dot.parent / found).resolve()
    return None
