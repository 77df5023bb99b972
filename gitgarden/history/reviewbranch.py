"""Review mode's branch, written and read: a pass's commit put on `gitgarden/review` without
touching the person's checkout (`commit_to_review`), the next pass building on what waits there
(`review_base`, `review_read_text`), and what waits (`review_status`). Deciding on what waits —
accept, reject — is `history.review`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitgarden.errors import GitError
from gitgarden.history.common import (
    REVIEW_BRANCH,
    REVIEW_REF,
    ZERO_OID,
    blob_at,
    changed_files,
    diff_pages_first,
    review_tip,
    review_waiting,
)
from gitgarden.history.passlog import PassEntry, passes
from gitgarden.history.records import LOG_DIR
from gitgarden.repo import gitrepo
from gitgarden.repo.commits import build_commit
from gitgarden.wiki import journal, layout
from gitgarden.wiki.tree import Entry, Overlay, Tree

__all__ = ["ReviewStatus", "commit_to_review", "review_base", "review_read_text", "review_status", "union_lines", "union_read"]


def union_lines(first: bytes, second: bytes) -> bytes:
    """`first`'s lines, then `second`'s lines that `first` lacks (log records: append-only on both sides)."""
    seen = set(first.splitlines())
    extra = [ln for ln in second.splitlines() if ln not in seen]
    out = first if not first or first.endswith(b"\n") else first + b"\n"
    return out + b"".join(ln + b"\n" for ln in extra)


def union_read(*texts: bytes | None) -> bytes:
    """The read positions of `texts` together: every line any of them has read."""
    merged: dict[str, set[str]] = {}
    for data in texts:
        for day, keys in journal.load_read(None if data is None else data.decode("utf-8", "replace")).items():
            merged.setdefault(day, set()).update(keys)
    return journal.render_read(merged).encode()


def review_read_text(root: Path, worktree_text: str | None) -> str | None:
    """The read position a pass starts from: the work tree's, plus what passes waiting for review read."""
    tip = review_waiting(root)
    if tip is None:
        return worktree_text
    tip_read = blob_at(root, tip, journal.READ_PATH)
    if tip_read is None:
        return worktree_text
    return union_read(None if worktree_text is None else worktree_text.encode(), tip_read).decode()


def review_base(root: Path, base: Tree, folders: Sequence[str] | None = None) -> Tree:
    """`base` (the work tree) with what the passes waiting for review changed, so a new pass builds on them
    (`folders`: those of the wiki and the journal, by default the layout's)."""
    here = layout.current()
    tip = review_waiting(root)
    head = gitrepo.head(root)
    if tip is None or head is None:
        return base
    fork = gitrepo.git(root, "merge-base", head, tip, check=False).decode().strip()
    if not fork:
        return base
    changed = changed_files(root, fork, tip)
    if folders is None:
        changed = [p for p in changed if here.in_wiki(p) or p.startswith(here.journal_prefix)]
    else:
        changed = [p for p in changed if any(p.startswith(f + "/") for f in folders)]
    if not changed:
        return base
    at_tip = gitrepo.tree_at(root, tip, changed)
    changes: dict[str, Entry | None] = {p: at_tip.get(p) for p in changed}
    return Overlay(base, changes)


def commit_to_review(root: Path, writes: Mapping[str, bytes], message: str, ident: tuple[str, str]) -> str:
    """Commit a pass's files to `gitgarden/review` without touching the work tree, the index or HEAD.

    The commit goes on the review branch's tip when passes wait there, else on
    HEAD. Log files are merged line by line with the version already on that
    parent so no record is lost. Returns the new commit.
    """
    tip = review_tip(root)
    waiting = review_waiting(root)
    parent = waiting or gitrepo.head(root)
    if parent is None:
        raise GitError("review mode needs a commit to start from: commit something first")
    blobs = dict(writes)
    for path, data in writes.items():
        if path.startswith(f"{LOG_DIR}/"):
            there = blob_at(root, parent, path)
            if there is not None:
                blobs[path] = union_lines(there, data)
    new = build_commit(root, parent, blobs, message, ident)
    gitrepo.git(root, "update-ref", "-m", "gitgarden pass (review mode)", REVIEW_REF, new, tip or ZERO_OID)
    return new


@dataclass
class ReviewStatus:
    """What waits on the review branch."""

    tip: str | None
    passes: list[PassEntry]
    files: list[str]
    diff: str

    def to_json(self) -> dict[str, Any]:
        return {
            "branch": REVIEW_BRANCH,
            "tip": self.tip,
            "passes": [p.to_json() for p in self.passes],
            "files": self.files,
            "diff": self.diff,
        }


def review_status(root: Path) -> ReviewStatus:
    """The passes waiting on `gitgarden/review` and their combined diff (pages first)."""
    tip = review_waiting(root)
    if tip is None:
        return ReviewStatus(None, [], [], "")
    waiting = [e for e in passes(root) if e.review == "waiting"]
    head = gitrepo.head(root)
    fork = gitrepo.git(root, "merge-base", head, tip, check=False).decode().strip() if head else ""
    if not fork:
        return ReviewStatus(tip, waiting, [], "")

    files = sorted(changed_files(root, fork, tip), key=lambda p: (not layout.current().in_wiki(p), p))
    return ReviewStatus(tip, waiting, files, diff_pages_first(root, fork, tip))
