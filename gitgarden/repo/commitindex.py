"""The temporary index gitgarden builds its commits in (`CommitIndex`, never the person's
index), and how exact bytes go into it (`add_blobs`) with each path's clean filters applied.

Seeding copies the person's index when it holds exactly HEAD (its stat cache warm, so git
need not hash every file again), and a commit's files go in with one `git update-index` when
the work tree holds their bytes: a pass's commits cost a few git processes at any wiki size.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from gitgarden.repo import gitdir, gitrepo, worktree

__all__ = ["CommitIndex", "add_blobs"]


class CommitIndex:
    """The temporary index a pass builds its commits in (never the person's index).

    Seeded once, on the commit HEAD names: a copy of the person's index when a
    status read just before showed it holding exactly HEAD (its stat cache warm,
    no `read-tree` of every file), else HEAD read into it. The journal commit
    and the pass commit then each add their own files on top; a HEAD that moved
    in between (the person committed while the model thought) is read in again.
    """

    def __init__(self, root: Path, status: worktree.Status | None = None) -> None:
        self.root = root
        self.status = status
        self.path = gitdir.git_dir(root) / "gitgarden" / "commit.index"
        self.seeded = False
        self.base: str | None = None  # the commit the index holds, once seeded
        self.made: list[tuple[str | None, str]] = []  # (parent, commit) of each commit made in it, in order
        self.empty = False

    @property
    def env(self) -> dict[str, str]:
        return {"GIT_INDEX_FILE": str(self.path)}

    def seed(self, head: str | None) -> None:
        """Make the index hold `head`'s files (nothing before the first commit)."""
        if self.seeded and self.base == head:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.unlink(missing_ok=True)
        self.seeded, self.base = True, head
        self.empty = head is None  # seeded with nothing: the repository's first commit
        if head is not None and self._copy_of_persons(head):
            return
        gitrepo.git(self.root, "read-tree", head or "--empty", env=self.env)

    def _copy_of_persons(self, head: str) -> bool:
        """Copy the person's index when it is known to hold exactly `head`: nothing staged as the status
        saw it, and the very same file still (git replaces an index by renaming a new one over it)."""
        status = self.status
        if status is None or not status.index_is_head or status.head != head or status.index_before is None:
            return False
        settings = gitrepo.repo_settings(self.root)
        if settings.flag("core.sparsecheckout") or settings.flag("core.splitindex") or settings.flag("index.sparse"):
            return False  # entries that are not plain files of HEAD
        source = gitdir.git_dir(self.root) / "index"
        if worktree.index_identity(self.root) != status.index_before:
            return False
        import shutil  # here only: it loads bz2, lzma and zlib, which the hook (it imports `commits`) has no use for

        shutil.copyfile(source, self.path)
        if worktree.index_identity(self.root) != status.index_before:  # replaced while it was copied
            self.path.unlink(missing_ok=True)
            return False
        return True

    def close(self) -> None:
        """Remove the temporary index (the next pass seeds its own)."""
        self.path.unlink(missing_ok=True)
        self.seeded = False


def _signature(path: Path) -> tuple[int, ...] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


def _holding(path: Path, data: bytes) -> tuple[int, ...] | None:
    """The file's stat signature when it is a regular file holding exactly `data` (read without
    following a symlink, unchanged while it was read), else None. An executable file is never
    taken from the work tree: `update-index` would commit its mode, and a pass commits the mode
    HEAD has (a page someone made executable meanwhile stays 100644)."""
    before = _signature(path)
    if before is None or not stat.S_ISREG(before[4]) or before[1] != len(data) or before[4] & 0o111:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "rb") as fh:
            got = fh.read()
    except OSError:
        return None
    return before if got == data and _signature(path) == before else None


def add_blobs(root: Path, index: CommitIndex, blobs: Mapping[str, bytes | None]) -> None:
    """Put exactly `blobs` into the commit index (None removes a path), each path's clean filters
    applied as `git add` would (autocrlf, attributes).

    Where the work tree holds exactly a path's bytes (the pass has just written them; a day file
    as it was read), one `git update-index --add` hashes them all from there; a file that changes
    meanwhile, or never held them, is hashed from the bytes themselves (`hash-object --path`).
    """
    env = index.env
    held: dict[str, tuple[int, ...]] = {}
    rest: dict[str, bytes | None] = {}
    for path, data in sorted(blobs.items()):
        sig = _holding(root / path, data) if data is not None else None
        if sig is None:
            rest[path] = data
        else:
            held[path] = sig
    if held:
        listed = "".join(f"{p}\0" for p in held).encode("utf-8", "surrogateescape")
        gitrepo.git(root, "update-index", "--add", "-z", "--stdin", input=listed, env=env)
        # A file the person wrote in that moment was hashed as they left it: hash the pass's own bytes instead.
        rest.update({p: blobs[p] for p, sig in held.items() if _signature(root / p) != sig})
    if not rest:
        return
    known = gitrepo.entries(root, ["ls-files", "-s", "-z", "--", *rest], env=env)
    prefix = gitrepo.show_prefix(root)  # --index-info takes paths from the top of the repository
    records = []
    for path, data in sorted(rest.items()):
        raw_path = (prefix + path).encode("utf-8", "surrogateescape")
        if data is None:
            records.append(b"0 " + b"0" * 40 + b"\t" + raw_path + b"\0")
            continue
        # --path: the path's clean filters apply (autocrlf, attributes), as `git add` would.
        oid = gitrepo.git(root, "hash-object", "-w", "--stdin", f"--path={path}", input=data).decode().strip()
        mode = known.get(path, ("100644", ""))[0]
        mode = mode if mode in ("100644", "100755") else "100644"
        records.append(f"{mode} {oid}\t".encode() + raw_path + b"\0")
    gitrepo.git(root, "update-index", "-z", "--index-info", input=b"".join(records), env=env)
