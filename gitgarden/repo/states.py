"""Repository states in which a gitgarden commit would be lost or surprising.

A pass commits onto the current branch. In the middle of a rebase, merge,
cherry-pick, revert or bisect, on a detached HEAD, on a new branch with no
commit beside the person's real ones, or in a sparse checkout that leaves the
project's folders out, that commit lands somewhere the person does not expect
and can vanish when they finish what they were doing (`git rebase --abort`,
`git checkout main`). Such states are read from the git dir's own files (a
stat each) plus, for the last two, a git call; `blocking_state` names the
first one found with what to do, or returns None.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from gitgarden.repo import gitdir

__all__ = ["blocking_state", "PROJECT_FOLDERS", "sparse_left_out"]

# The folders a pass reads and writes; a sparse checkout must hold all of them.
PROJECT_FOLDERS = ("wiki", "raw/journal", ".gitgarden", "log")

_AGAIN = "then run gitgarden again"

# (file or folder in the git dir, what is going on, how to finish or leave it). Checked in this
# order: a merge is named before anything else, as the person most often needs to hear it.
_IN_PROGRESS = (
    ("MERGE_HEAD", "a merge is in progress", "finish it with `git commit` or leave it with `git merge --abort`"),
    ("rebase-merge", "a rebase is in progress", "finish it with `git rebase --continue` or leave it with `git rebase --abort`"),
    ("rebase-apply/applying", "a `git am` is in progress", "finish it with `git am --continue` or leave it with `git am --abort`"),
    ("rebase-apply", "a rebase is in progress", "finish it with `git rebase --continue` or leave it with `git rebase --abort`"),
    ("CHERRY_PICK_HEAD", "a cherry-pick is in progress", "finish it with `git cherry-pick --continue` or leave it with `git cherry-pick --abort`"),
    ("REVERT_HEAD", "a revert is in progress", "finish it with `git revert --continue` or leave it with `git revert --abort`"),
    ("sequencer/todo", "a cherry-pick or revert of several commits is in progress", "finish it with `git cherry-pick --continue` (or `git revert --continue`) or leave it with `--abort`"),
    ("BISECT_LOG", "a bisect is in progress", "end it with `git bisect reset`"),
)


def blocking_state(root: Path, git_dir: Path | None = None) -> str | None:
    """Why a commit by gitgarden in `root`'s repository now would be lost or surprising
    (one sentence saying what to do), or None when it is safe to commit."""
    gdir = git_dir or gitdir.git_dir(root)
    for name, what, fix in _IN_PROGRESS:
        if (gdir / name).exists():
            return f"{what} in this repository: a commit now would be mixed into it; {fix}, {_AGAIN}"
    head = _head_target(gdir)
    if head is None:
        return (
            "HEAD is detached (not on a branch): a commit there belongs to no branch and is lost "
            f"when you switch back; switch to your branch (`git switch <branch>`), {_AGAIN}"
        )
    # The ref files answer "has this branch a commit" without a git process (the common case);
    # a git dir without a HEAD file is no repository git could commit to, and no state to judge.
    unborn = None if not head or _ref_exists(gdir, head) else _unborn_beside_others(root, head)
    if unborn:
        return unborn
    left_out = sparse_left_out(root, git_dir=gdir)
    if left_out:
        return (
            f"the sparse checkout leaves out {', '.join(f'{p}/' for p in left_out)}, which a pass reads and writes; "
            f"bring them back with `git sparse-checkout add {' '.join(left_out)}` (or `git sparse-checkout disable`), {_AGAIN}"
        )
    return None


def _head_target(gdir: Path) -> str | None:
    """The ref HEAD points at (`refs/heads/main`), or None when HEAD holds a commit id ("" when
    there is no HEAD file to read)."""
    try:
        text = (gdir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""
    if text.startswith("ref:"):
        return text[4:].strip()
    return None


def _ref_exists(gdir: Path, ref: str) -> bool:
    """True when `ref` is a loose or packed ref of the repository (a linked worktree's refs live
    in its common dir). False also means "not found in files": git is asked then."""
    common = gdir
    with contextlib.suppress(OSError):
        common = (gdir / (gdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    if (common / ref).is_file():
        return True
    try:
        packed = (common / "packed-refs").read_bytes()
    except OSError:
        return False
    return f" {ref}\n".encode() in packed


def _unborn_beside_others(root: Path, head: str) -> str | None:
    """A sentence when HEAD's branch has no commit while other branches do (`git checkout --orphan`)."""
    from gitgarden.repo import gitrepo

    if gitrepo.head(root) is not None:
        return None
    others = gitrepo.git(root, "for-each-ref", "--count=3", "--format=%(refname:short)", "refs/heads", check=False)
    names = [n for n in others.decode("utf-8", "replace").split() if n]
    if not names:
        return None  # a new repository: its first commit is expected
    branch = head.removeprefix("refs/heads/")
    return (
        f"branch {branch} has no commits yet while this repository has others ({', '.join(names)}): "
        f"a pass would start a history of its own there; switch to your branch (`git switch {names[0]}`), {_AGAIN}"
    )


def sparse_left_out(root: Path, folders: tuple[str, ...] | None = None, *, git_dir: Path | None = None) -> list[str]:
    """The project folders a sparse checkout keeps out of the work tree (empty when it is off);
    by default the wiki and journal folders of the layout in force, `.gitgarden` and `log`."""
    from gitgarden.wiki import layout

    here = layout.current()
    if folders is None:
        folders = (*here.tree_folders(), ".gitgarden", "log")
    gdir = git_dir or gitdir.git_dir(root)
    if not (gdir / "info" / "sparse-checkout").is_file():
        return []  # no patterns, nothing left out: answered without a git process
    from gitgarden.repo import gitrepo

    on = gitrepo.git(root, "config", "--bool", "core.sparseCheckout", check=False).strip()
    if on != b"true":
        return []
    # Entries marked skip-worktree ("S") are the ones the sparse checkout leaves out.
    out = gitrepo.git(root, "ls-files", "-t", "-z", "--", *folders, check=False)
    left: set[str] = set()
    for rec in out.split(b"\0"):
        if rec[:2] == b"S ":
            path = rec[2:].decode("utf-8", "surrogateescape")
            left.update(f for f in folders if path.startswith(f + "/") or (f == "." and here.in_wiki(path)))
    return [f for f in folders if f in left]
