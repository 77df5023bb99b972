"""The repository as a pass finds it, read cheaply: refs from their files, and the work tree and
the index against HEAD from one `git status`.

A pass used to ask git the same things several times (HEAD before each commit, which files are
dirty, which day files git ignores, whether HEAD already holds a day file): each a process
reading an index of every file. Here HEAD is read from `.git/HEAD` and the ref file it names (git
itself is asked only where the files cannot say: a linked worktree, the reftable format), and one
`git status --porcelain=v2` says which paths differ from HEAD, with their modes and blob ids, and
whether the index holds anything HEAD does not.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from gitgarden.repo import gitdir, gitrepo

__all__ = ["Change", "Status", "read_status", "head_from_files", "ref_from_files", "index_identity"]

_OID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


def _files_dir(root: Path) -> Path | None:
    """The git dir when `root` is the top of an ordinary repository whose refs are files, else None."""
    dot = root / ".git"
    if not dot.is_dir() or (dot / "reftable").exists() or (dot / "commondir").exists():
        return None
    return dot


def ref_from_files(root: Path, ref: str) -> str | None | bool:
    """The commit `ref` (`refs/heads/main`) names, read from its loose file or `packed-refs`; None
    when the files say it does not exist; False when they cannot say (git must be asked)."""
    gdir = _files_dir(root)
    if gdir is None or not ref.startswith("refs/") or ".." in ref:
        return False
    try:
        text = (gdir / ref).read_text(encoding="ascii").strip()
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError):
        return False  # a folder of that name, unreadable: git knows
    if text:
        return text if _OID.match(text) else False  # a symbolic ref: git resolves it
    try:
        packed = (gdir / "packed-refs").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return None
    except OSError:
        return False
    # git writes packed-refs before it deletes a loose ref: a ref missing from both does not exist.
    for line in packed.splitlines():
        oid, _, name = line.partition(" ")
        if name == ref and _OID.match(oid):
            return oid
    return None


def head_from_files(root: Path) -> tuple[str, str | None] | None:
    """(the ref HEAD names — `HEAD` itself when detached —, its commit or None on an unborn branch),
    read from the repository's files without a git process; None when the files cannot say."""
    gdir = _files_dir(root)
    if gdir is None:
        return None
    try:
        text = (gdir / "HEAD").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if _OID.match(text):
        return "HEAD", text
    if not text.startswith("ref:"):
        return None
    ref = text[4:].strip()
    found = ref_from_files(root, ref)
    if found is False:
        return None
    return ref, found if isinstance(found, str) else None


def index_identity(root: Path) -> tuple[int, int, int] | None:
    """The person's index file as (inode, size, mtime_ns): git replaces it by renaming a new file over
    it, so an unchanged identity means unchanged contents. None when there is none."""
    try:
        st = os.stat(gitdir.git_dir(root) / "index")
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


@dataclass(frozen=True)
class Change:
    """One path that differs from HEAD, as `git status --porcelain=v2` reports it."""

    xy: str  # the index's and the work tree's state against HEAD: ".M", "A.", "??" (untracked), "UU" …
    head: tuple[str, str] | None = None  # (mode, blob id) in HEAD, None when HEAD lacks the path

    @property
    def staged(self) -> bool:
        """True when the index holds something HEAD does not for this path (intent to add included)."""
        return self.xy[0] not in ".?!" or self.xy[1] == "A"

    @property
    def ignored(self) -> bool:
        """An untracked file (or folder, its path ending in `/`) that git ignores."""
        return self.xy == "!!"


@dataclass
class Status:
    """The work tree and the index against HEAD, once: what a pass needs to know of the person's work."""

    head: str | None  # the commit HEAD names (None before the first commit)
    ref: str | None  # `refs/heads/<branch>`, None when HEAD is detached
    changes: dict[str, Change] = field(default_factory=dict)  # project-relative path -> how it differs
    whole: bool = False  # the status covered the whole repository (the project is its top)
    index_before: tuple[int, int, int] | None = None  # the index file's identity as status read it

    @property
    def index_is_head(self) -> bool:
        """True when the index held exactly HEAD's files as this status read it (nothing staged anywhere)."""
        return self.whole and self.head is not None and not any(c.staged for c in self.changes.values())

    def dirty(self, folders: list[str]) -> set[str]:
        """The paths under `folders` (`.` is the whole project) that differ from HEAD in the index or the
        work tree, untracked files included, ignored ones not (what `gitrepo.dirty_paths` says)."""
        paths = {p for p, c in self.changes.items() if not c.ignored}
        if "." in folders:
            return paths
        prefixes = tuple(f.rstrip("/") + "/" for f in folders)
        return {p for p in paths if p.startswith(prefixes) or p in folders}

    def is_ignored(self, path: str) -> bool:
        """True when git ignores `path` (untracked), itself or a folder it stands in."""
        ignored = [p for p, c in self.changes.items() if c.ignored]
        return any(path == p or (p.endswith("/") and path.startswith(p)) for p in ignored)


def read_status(root: Path) -> Status:
    """One `git status --porcelain=v2` of the project (the whole repository when the project is its top),
    untracked files listed one by one, ignored ones too (a folder git ignores whole as one entry,
    `dir/`). The index is read, never rewritten (GIT_OPTIONAL_LOCKS=0), so its identity before
    and after says whether the status describes the index as it stands."""
    whole = (root / ".git").exists()
    before = index_identity(root)
    out = gitrepo.git(
        root, "status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", "--ignored=matching",
        "--no-renames", "--ignore-submodules=dirty", "--", ".", env={"GIT_OPTIONAL_LOCKS": "0"},
    )  # fmt: skip
    after = index_identity(root)
    # Porcelain paths are the repository's; a project below the top of its repository names its own.
    prefix = "" if whole else gitrepo.show_prefix(root)
    status = Status(head=None, ref=None, whole=whole, index_before=before if before == after else None)
    for rec in out.split(b"\0"):
        if not rec:
            continue
        text = rec.decode("utf-8", "surrogateescape")
        kind = text[:2]
        if kind == "# ":
            key, _, value = text[2:].partition(" ")
            if key == "branch.oid":
                status.head = value if _OID.match(value) else None
            elif key == "branch.head":
                status.ref = None if value == "(detached)" else f"refs/heads/{value}"
        elif kind == "1 ":
            xy, _sub, m_head, _m_index, _m_tree, h_head, _h_index, path = text[2:].split(" ", 7)
            head = (m_head, h_head) if m_head != "000000" else None
            status.changes[path.removeprefix(prefix)] = Change(xy, head)
        elif kind == "u ":
            fields = text[2:].split(" ", 9)
            status.changes[fields[9].removeprefix(prefix)] = Change(fields[0])
        elif kind == "? ":
            status.changes[text[2:].removeprefix(prefix)] = Change("??")
        elif kind == "! ":
            status.changes[text[2:].removeprefix(prefix)] = Change("!!")
    return status
