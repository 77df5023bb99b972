"""The commits history works on: what a pass commit changed, a file at a revision, a diff with
the pages first, the review branch's tip, and a commit made as the person (undo, review).

Shared by `passlog`, `undo` and `review`; it imports none of them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from gitgarden.repo import commits, gitrepo, recovery, worktree
from gitgarden.wiki import journal, layout
from gitgarden.wiki.layout import LOG_DIR

__all__ = [
    "review_count",
    "REVIEW_BRANCH",
    "REVIEW_REF",
    "ZERO_OID",
    "is_ancestor",
    "review_tip",
    "review_waiting",
    "diff_pages_first",
    "own_state",
    "changed_files",
    "blob_at",
    "write_and_commit_as_person",
]

REVIEW_BRANCH = "gitgarden/review"
REVIEW_REF = f"refs/heads/{REVIEW_BRANCH}"
ZERO_OID = "0" * 40


def review_tip(root: Path) -> str | None:
    """The commit `gitgarden/review` points at, or None when the branch does not exist."""
    if worktree.ref_from_files(root, REVIEW_REF) is None:
        return None  # the files say so (every pass asks, and the branch rarely exists): no git process
    out = gitrepo.git(root, "rev-parse", "--verify", "--quiet", f"{REVIEW_REF}^{{commit}}", check=False)
    return out.decode().strip() or None


def is_ancestor(root: Path, a: str, b: str) -> bool:
    """True when commit `a` is `b` or one of its ancestors (nothing in `b..a`)."""
    out = gitrepo.git(root, "rev-list", "-n", "1", f"{b}..{a}", "--", check=False)
    return out.strip() == b""


def review_waiting(root: Path) -> str | None:
    """The review branch's tip when it holds commits the current branch does not have, else None."""
    tip = review_tip(root)
    if tip is None:
        return None
    head = gitrepo.head(root)
    if head is None or not is_ancestor(root, tip, head):
        return tip
    return None


def review_count(root: Path) -> int:
    """How many commits of passes on the review branch wait for the person's decision (0: none)."""
    tip = review_waiting(root)
    if tip is None:
        return 0
    head = gitrepo.head(root)
    out = gitrepo.git(root, "rev-list", "--count", tip, *([f"^{head}"] if head else []), check=False)
    return int(out.decode().strip() or 0)


def diff_pages_first(root: Path, a: str, b: str) -> str:
    """`git diff a b`, the wiki's pages first, then everything else (in the layout in force)."""
    out = gitrepo.git(root, "diff", "--no-color", "--no-ext-diff", a, b, "--", ".")
    here = layout.current()
    pages: list[bytes] = []
    rest: list[bytes] = []
    for chunk in re.split(rb"(?m)^(?=diff --git )", out):
        path = _diff_path(chunk)
        (pages if path is not None and here.in_wiki(path) else rest).append(chunk)
    return b"".join(pages + rest).decode("utf-8", "replace")


def _diff_path(chunk: bytes) -> str | None:
    """The path a `git diff` section is about, None when it names none (quoted names unquoted)."""
    lines = chunk.split(b"\n", 8)[:8]
    for line in lines:
        if line.startswith((b"+++ ", b"--- ")) and not line.endswith(b"/dev/null"):
            name = _unquote(line[4:])
            if name.startswith(("a/", "b/")):
                return name[2:]
    head = lines[0].removeprefix(b"diff --git ")
    if head.startswith(b'"'):
        return _unquote(head.split(b'" ', 1)[0] + b'"')[2:]
    half = (len(head) - 1) // 2  # `a/X b/X`: a file without a +++ line (binary, mode change)
    return head[2:half].decode("utf-8", "surrogateescape") if head[:2] == b"a/" else None


def _unquote(raw: bytes) -> str:
    """A name as git prints it: plain, or in C quotes with octal escapes for other bytes."""
    if not raw.startswith(b'"'):
        return raw.rstrip(b"\t").decode("utf-8", "surrogateescape")
    import codecs

    body = raw[1:].rsplit(b'"', 1)[0]
    return codecs.escape_decode(body)[0].decode("utf-8", "surrogateescape")


def own_state(path: str) -> bool:
    """Files the pass writes as bookkeeping, which undo handles itself rather than reverting."""
    return path == journal.READ_PATH or (path.startswith(f"{LOG_DIR}/") and path.endswith(".jsonl"))


def changed_files(root: Path, parent: str, commit: str) -> list[str]:
    out = gitrepo.git(root, "diff-tree", "-r", "-z", "--no-renames", "--relative", "--name-only", "--no-commit-id", parent, commit)
    return sorted(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)


def blob_at(root: Path, rev: str, path: str) -> bytes | None:
    entry = gitrepo.tree_at(root, rev, [path]).get(path)
    return None if entry is None else entry.data


def _put(root: Path, contents: Mapping[str, bytes | None]) -> None:
    """Write each path (None: delete it); paths were checked with recovery.safe_target."""
    for rel, data in contents.items():
        target = root / rel
        if data is None:
            target.unlink(missing_ok=True)
        else:
            recovery.atomic_write(target, data)


def write_and_commit_as_person(root: Path, contents: Mapping[str, bytes | None], message: str) -> str:
    """Write (None: delete) `contents` and commit exactly those bytes as the person; all undone on failure.

    The commit is built from `contents`, not from the work tree, so nothing
    typed meanwhile goes into it; the person's index follows only where it
    held HEAD's version (commits.commit_blobs).
    """
    originals: dict[str, bytes | None] = {}
    for rel in contents:
        target = recovery.safe_target(root, rel)
        originals[rel] = target.read_bytes() if target.exists() else None
    try:
        _put(root, contents)
        new = commits.commit_blobs(root, contents, message=message, ident=gitrepo.person_identity(root))
    except BaseException:
        _put(root, originals)
        raise
    return new or gitrepo.head(root) or ""
