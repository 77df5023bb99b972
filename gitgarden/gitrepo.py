"""Git at the edge: plumbing through the `git` executable, one command at a time.

gitgarden calls git directly rather than through GitPython: every call gets a
cleaned environment (no inherited GIT_DIR / GIT_INDEX_FILE from hooks or cron),
identity is passed to the one command that needs it, and no `cat-file --batch`
processes outlive a pass. Model output never becomes an option or a ref:
paths go after `--`, ref names are built by code.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from gitgarden.errors import GitError
from gitgarden.tree import Entry

__all__ = [
    "git",
    "ensure_repo",
    "git_dir",
    "head",
    "person_identity",
    "commit_paths",
    "snapshot",
    "dirty_paths",
    "tree_at",
    "worktree_tree",
    "ident_env",
]

# Variables a hook or a parent git process may leave behind; they would point
# our commands at another repository or index.
_GIT_ENV_STRIP = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_PREFIX",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
)


def _env(extra: Mapping[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_STRIP}
    env.setdefault("LC_ALL", "C")
    env["GIT_TERMINAL_PROMPT"] = "0"
    if extra:
        env.update(extra)
    return env


def clean_env() -> dict[str, str]:
    """The environment every git process of gitgarden's gets (inherited GIT_* pointers stripped)."""
    return _env(None)


def git(
    root: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
) -> bytes:
    """Run `git -C root args…` and return stdout; GitError with git's own words on failure."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args],
            input=input,
            capture_output=True,
            env=_env(env),
            check=False,
        )
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH)") from None
    if check and proc.returncode != 0:
        words = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = words[-1] if words else f"exit status {proc.returncode}"
        raise GitError(f"git {args[0]} failed: {detail}")
    return proc.stdout


def ensure_repo(root: Path) -> bool:
    """`git init` when `root` is not inside a work tree; True when it made one."""
    probe = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--show-toplevel"],
        capture_output=True,
        env=_env(None),
        check=False,
    )
    if probe.returncode == 0:
        return False
    git(root, "init", "--quiet")
    return True


def git_dir(root: Path) -> Path:
    """The repository's git dir (absolute)."""
    dot = root / ".git"
    if (dot / "HEAD").is_file() and (dot / "objects").is_dir():
        # The common layout, answered without a git process (a pass asks more than once);
        # worktrees, submodules and projects below the top of their repository ask git.
        return dot.resolve()
    out = git(root, "rev-parse", "--absolute-git-dir").decode().strip()
    return Path(out)


def head(root: Path) -> str | None:
    """HEAD's commit id, or None in a repository without commits."""
    out = git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).decode().strip()
    return out or None


def ident_env(name: str, email: str) -> dict[str, str]:
    """Environment for one git command authored and committed by `name <email>`."""
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }


def person_identity(root: Path) -> tuple[str, str]:
    """The person's git identity; falls back to their login name when git has none."""
    out = git(root, "var", "GIT_AUTHOR_IDENT", check=False).decode().strip()
    if "<" in out and ">" in out:
        name = out[: out.index("<")].strip()
        email = out[out.index("<") + 1 : out.index(">")]
        if name and email:
            return name, email
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or "person"
    return user, f"{user}@localhost"


def commit_paths(
    root: Path,
    paths: Sequence[str],
    *,
    message: str,
    author: tuple[str, str] | None,
    allow_empty: bool = False,
) -> bool:
    """Commit exactly `paths` as they are in the work tree, leaving everything else staged or not.

    `author` None means the person's own identity. Returns False when those
    paths had nothing to commit. The person's hooks run as for any commit.
    """
    if not paths:
        return False
    ident = author or person_identity(root)
    env = ident_env(*ident)
    git(root, "add", "--", *paths)
    staged = git(root, "diff", "--cached", "--name-only", "-z", "--", *paths).split(b"\0")
    if not any(staged) and head(root) is not None and not allow_empty:
        return False
    git(root, "commit", "--quiet", "--only", "-m", message, "--", *paths, env=env)
    return True


def snapshot(root: Path, tag: str, *, message: str, ident: tuple[str, str]) -> str:
    """Tag the whole workspace (committed, staged, untracked, not ignored) as `tag`.

    Built in a temporary index that starts as a copy of the person's, so their
    index and work tree are never touched (and git reuses its stat cache).
    Returns the snapshot commit id.
    """
    gdir = git_dir(root)
    tmp_index = gdir / "gitgarden-snapshot.index"
    try:
        index = gdir / "index"
        if index.exists():
            tmp_index.write_bytes(index.read_bytes())
        elif tmp_index.exists():
            tmp_index.unlink()
        env = {"GIT_INDEX_FILE": str(tmp_index)}
        git(root, "add", "-A", "--", ".", env=env)
        tree_id = git(root, "write-tree", env=env).decode().strip()
    finally:
        if tmp_index.exists():
            tmp_index.unlink()
    parent = head(root)
    args = ["commit-tree", "--no-gpg-sign", tree_id, "-m", message]
    if parent:
        args += ["-p", parent]
    commit = git(root, *args, env=ident_env(*ident)).decode().strip()
    git(root, "tag", tag, commit)
    return commit


def dirty_paths(root: Path, paths: Iterable[str]) -> set[str]:
    """Which of `paths` differ from HEAD in the index or the work tree (untracked included)."""
    paths = list(paths)
    if not paths:
        return set()
    out = git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths)
    dirty: set[str] = set()
    records = out.split(b"\0")
    i = 0
    while i < len(records):
        rec = records[i]
        if len(rec) > 3:
            dirty.add(rec[3:].decode("utf-8", "surrogateescape"))
            if rec[:1] in (b"R", b"C"):
                i += 1  # a rename's source path follows
        i += 1
    return dirty


def _read_blobs(root: Path, ids: list[str]) -> list[bytes]:
    if not ids:
        return []
    out = git(root, "cat-file", "--batch", input=("\n".join(ids) + "\n").encode())
    blobs: list[bytes] = []
    pos = 0
    for _ in ids:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        size = int(header[2])
        blobs.append(out[nl + 1 : nl + 1 + size])
        pos = nl + 1 + size + 1
    return blobs


def tree_at(root: Path, rev: str, prefixes: Sequence[str] = ()) -> dict[str, Entry]:
    """The files of commit `rev` (optionally only under `prefixes`) as a tree."""
    if rev.startswith("-"):
        raise GitError(f"not a revision: {rev!r}")
    out = git(root, "ls-tree", "-r", "-z", "--full-tree", rev, "--", *prefixes)
    metas: list[tuple[str, str, str]] = []
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, oid = meta.decode().split()
        if kind == "blob":
            metas.append((path.decode("utf-8", "surrogateescape"), mode, oid))
    blobs = _read_blobs(root, [oid for _, _, oid in metas])
    return {
        path: Entry("symlink" if mode == "120000" else "file", data)
        for (path, mode, _), data in zip(metas, blobs, strict=True)
    }


def worktree_tree(root: Path, prefixes: Sequence[str] = ()) -> dict[str, Entry]:
    """The work tree's tracked and untracked (not ignored) files as a tree; symlinks not followed."""
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *prefixes)
    tree: dict[str, Entry] = {}
    for raw in sorted(set(out.split(b"\0"))):
        if not raw:
            continue
        rel = raw.decode("utf-8", "surrogateescape")
        path = root / rel
        try:
            if path.is_symlink():
                tree[rel] = Entry("symlink", os.fsencode(os.readlink(path)))
            elif path.is_file():
                tree[rel] = Entry("file", path.read_bytes())
        except OSError:
            continue
    return tree
