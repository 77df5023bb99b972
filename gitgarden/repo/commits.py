"""The commits gitgarden makes: the snapshot before a pass, commits built from exact bytes (never
from whatever the work tree holds) with the person's hooks run on them, the person's index
brought along afterwards, and commits built in a temporary index (review, replays).

A pass makes its journal commit and its pass commit in one temporary index (`CommitIndex`),
seeded once; the files of each commit go in with one `git update-index`, and the pass commit's
branch and its snapshot tag move in one `git update-ref --stdin`: a pass starts about fifteen
git processes, whatever the wiki's size.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from gitgarden.atomic import atomic_write
from gitgarden.errors import GitError
from gitgarden.repo import gitdir, gitrepo, worktree
from gitgarden.repo.commitindex import CommitIndex, add_blobs
from gitgarden.repo.hooks import person_hooks, run_hook, wait_for_index

__all__ = [
    "commit_paths", "snapshot", "tag_snapshot", "CommitIndex", "commit_blobs",
    "commit_files", "sync_index", "finish_sync", "build_commit",
]  # fmt: skip

_SYNC_RECORD = "index-sync.json"
_MAX_PATHSPECS = 200  # more paths than this are picked out of whole listings rather than matched by git
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
    ident = author or gitrepo.person_identity(root)
    gitrepo.git(root, "add", "--", *paths)
    staged = gitrepo.git(root, "diff", "--cached", "--name-only", "-z", "--", *paths).split(b"\0")
    if not any(staged) and gitrepo.head(root) is not None and not allow_empty:
        return False
    gitrepo.git(root, "commit", "--quiet", "--only", "-m", message, "--", *paths, env=gitrepo.ident_env(*ident))
    return True


def snapshot(root: Path, *, message: str, ident: tuple[str, str], parent: str | None) -> str:
    """A commit of the whole workspace (committed, staged, untracked, not ignored) on `parent`.

    Built in a temporary index that starts as a copy of the person's, so their
    index and work tree are never touched (and git reuses its stat cache).
    Returns the snapshot commit id; no ref names it until `commit_blobs` (or
    `tag_snapshot`) tags it with the pass commit: a pass that commits nothing
    leaves no tag behind.
    """
    gdir = gitdir.git_dir(root)
    tmp_index = gdir / "gitgarden-snapshot.index"
    try:
        index = gdir / "index"
        if index.exists():
            tmp_index.write_bytes(index.read_bytes())
        elif tmp_index.exists():
            tmp_index.unlink()
        env = {"GIT_INDEX_FILE": str(tmp_index)}
        gitrepo.git(root, "add", "-A", "--", ".", env=env)
        tree_id = gitrepo.git(root, "write-tree", env=env).decode().strip()
    finally:
        if tmp_index.exists():
            tmp_index.unlink()
    args = ["commit-tree", "--no-gpg-sign", tree_id, "-m", message]
    if parent:
        args += ["-p", parent]
    return gitrepo.git(root, *args, env=gitrepo.ident_env(*ident)).decode().strip()


def tag_snapshot(root: Path, tag: str, commit: str) -> None:
    """Tag a snapshot commit as `tag` (a lightweight tag, never signed: it needs no message)."""
    gitrepo.git(root, "update-ref", f"refs/tags/{tag}", commit, "0" * len(commit))


def _head(root: Path, need_tree: bool) -> tuple[str, str | None, str | None]:
    """(the ref HEAD names, its commit, its tree): from the repository's files when they can say and
    the tree is not needed, else from git."""
    found = None if need_tree else worktree.head_from_files(root)
    if found is None:
        return gitrepo.head_ref(root)
    return found[0], found[1], None


def commit_blobs(
    root: Path,
    blobs: Mapping[str, bytes | None],
    *,
    message: str,
    ident: tuple[str, str],
    allow_empty: bool = False,
    index: CommitIndex | None = None,
    tag: tuple[str, str] | None = None,
) -> str | None:
    """Commit exactly `blobs` (None: the path is removed) on top of HEAD, the rest of HEAD's tree as it is.

    The work tree is never committed as such and the person's index is not the
    commit's: the commit is built in a temporary index (`index`, which a pass
    shares between its journal and pass commits), the person's pre-commit and
    commit-msg hooks judge it there (GIT_INDEX_FILE), and the branch moves
    only if it still points where it did (a commit made meanwhile is never
    overwritten) — with `tag` (name, commit), a tag made in the same update.
    Afterwards the person's index takes the new versions of exactly the paths
    where it held the old HEAD's (see `sync_index`). Returns the new commit, or
    None when HEAD already holds these bytes (only asked when not `allow_empty`).
    """
    return _commit(
        root, lambda ci: add_blobs(root, ci, blobs), sorted(blobs),
        message=message, ident=ident, allow_empty=allow_empty, index=index, tag=tag,
    )  # fmt: skip


def commit_files(
    root: Path, paths: Sequence[str], *, message: str, ident: tuple[str, str], walk: Sequence[str] = ()
) -> str | None:
    """Commit `paths` as they stand in the work tree (each path's clean filters applied, as `git add`
    would) on top of HEAD, the rest of HEAD's tree and the person's index as they are, but for
    these paths, which the index then holds as committed.

    For many files at once (`init` adopting a vault of thousands of notes): the paths go to one
    `git update-index --add --stdin`, never onto a command line as pathspecs, which git matches
    against every file (`git add` and `git commit --only` with 20,000 paths took a minute).
    `walk`, pathspecs (folders, exclusions) naming exactly `paths`, lets the first commit of a
    repository be made by `git add` walking them instead, faster still; a different count of
    files added falls back to the paths. Returns the new commit, or None when HEAD already holds
    the files as they are.
    """

    def fill(index: CommitIndex) -> None:
        if walk and index.empty:  # an empty commit index: add adds exactly what the walk finds
            gitrepo.git(root, "add", "--", *walk, env=index.env)
            if _index_entries(index.path) == len(paths):
                return
            gitrepo.git(root, "read-tree", "--empty", env=index.env)  # a file came or went meanwhile
        listed = "".join(f"{p}\0" for p in paths).encode("utf-8", "surrogateescape")
        gitrepo.git(root, "update-index", "--add", "-z", "--stdin", input=listed, env=index.env)

    return _commit(root, fill, sorted(paths), message=message, ident=ident, allow_empty=False, index=None, tag=None)


def _commit(
    root: Path,
    fill: Callable[[CommitIndex], None],
    paths: list[str],
    *,
    message: str,
    ident: tuple[str, str],
    allow_empty: bool,
    index: CommitIndex | None,
    tag: tuple[str, str] | None,
) -> str | None:
    """A commit of HEAD with what `fill` puts into the commit index (changing only `paths`), made as
    `commit_blobs` says: hooks, signing, a compare-and-swap branch update, the person's index."""
    gdir = gitdir.git_dir(root)
    wait_for_index(gdir)  # a commit whose index cannot follow would leave a staged revert behind
    ref, old, old_tree = _head(root, need_tree=not allow_empty)
    work = gdir / "gitgarden"
    work.mkdir(parents=True, exist_ok=True)
    own = index is None
    commit_index = index or CommitIndex(root)
    # No GITGARDEN_AGENT reaches the person's hooks (gitrepo strips it): this commit is gitgarden's.
    env = {**gitrepo.ident_env(*ident), **commit_index.env, "GIT_EDITOR": ":"}
    try:
        try:
            commit_index.seed(old)
            commit_index.base = None  # until the commit lands, the index holds more than any commit
            fill(commit_index)
            tree = gitrepo.git(root, "write-tree", env=env).decode().strip()
            if old and not allow_empty and tree == old_tree:
                commit_index.seeded = False
                return None
            top, hooks = person_hooks(root)
            if "pre-commit" in hooks:
                run_hook(top, hooks, "pre-commit", [], env)
                tree = gitrepo.git(root, "write-tree", env=env).decode().strip()  # what the hook left staged, as git commit would
            if "prepare-commit-msg" in hooks or "commit-msg" in hooks:
                msg_file = work / "COMMIT_MSG"
                msg_file.write_text(message, encoding="utf-8")
                run_hook(top, hooks, "prepare-commit-msg", [str(msg_file), "message"], env)
                run_hook(top, hooks, "commit-msg", [str(msg_file)], env)
                message = msg_file.read_text(encoding="utf-8")
                msg_file.unlink(missing_ok=True)
            # commit-tree ignores commit.gpgsign (porcelain reads it): sign as `git commit` would, unless
            # sign_commits is off; a signer that waits for an answer is stopped by the policy's timeout.
            sign = ["-S"] if gitrepo.wants_signing(root) else []
            new = gitrepo.git(root, "commit-tree", *sign, tree, *(["-p", old] if old else []), "-F", "-", input=message.encode(), env=gitrepo.ident_env(*ident))
            new_id = new.decode().strip()
        except BaseException:
            commit_index.seeded = False  # half-built: the next commit seeds it again
            raise
        record = work / _SYNC_RECORD
        atomic_write(record, json.dumps({"ref": ref, "old": old, "new": new_id, "paths": paths}))
        subject = message.splitlines()[0] if message else ""
        updates = [f"update {ref} {new_id} {old or '0' * len(new_id)}"]
        if tag is not None:
            updates.append(f"create refs/tags/{tag[0]} {tag[1]}")
        try:
            reflog = f"commit{'' if old else ' (initial)'}: {subject}"
            stdin = ("\n".join(updates) + "\n").encode()
            gitrepo.git(root, "update-ref", "-m", reflog, "--stdin", input=stdin, env=gitrepo.ident_env(*ident))
        except GitError:
            record.unlink(missing_ok=True)
            commit_index.seeded = False
            moved = gitrepo.head(root)
            raise GitError(f"HEAD moved while the commit was built (now {moved[:10] if moved else 'unborn'}): nothing was committed") from None
        commit_index.base = new_id  # the index now holds exactly the new commit: the next one builds on it
        commit_index.made.append((old, new_id))
        if (old is None and _install_first_index(gdir, commit_index)) or sync_index(root, old, new_id, paths):
            record.unlink(missing_ok=True)
    finally:
        if own:
            commit_index.close()
    with contextlib.suppress(GitError):  # git ignores post-commit's exit status too
        run_hook(top, hooks, "post-commit", [], gitrepo.ident_env(*ident))
    return new_id


def _index_entries(index: Path) -> int | None:
    """How many entries an index file holds (0 when there is none), from its header; None when unreadable."""
    try:
        with open(index, "rb") as fh:
            head = fh.read(12)
    except FileNotFoundError:
        return 0
    except OSError:
        return None
    if len(head) < 12 or head[:4] != b"DIRC":
        return None
    return int.from_bytes(head[8:12], "big")


def _install_first_index(gdir: Path, commit_index: CommitIndex) -> bool:
    """After a repository's first commit, give an empty (or absent) person's index the commit index
    itself, stat cache and all, under git's own lock: a `read-tree` would leave every file to be
    hashed again by the next `git status`. False when the person's index holds entries."""
    index = gdir / "index"
    if _index_entries(index) != 0:
        return False
    lock = gdir / "index.lock"
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return False  # another git command holds it: sync_index waits for it instead
    import shutil  # here only: it loads bz2, lzma and zlib, which the hook has no use for

    try:
        with open(fd, "wb") as out, open(commit_index.path, "rb") as src:
            shutil.copyfileobj(src, out)
        if _index_entries(index) != 0:  # staged meanwhile (no git command takes the lock while we hold it)
            lock.unlink(missing_ok=True)
            return False
        os.replace(lock, index)
    except OSError:
        lock.unlink(missing_ok=True)
        return False
    return True


def _read_tree_carry(root: Path, old: str, new: str) -> bool:
    try:
        gitrepo.git(root, "read-tree", "-m", "-i", old, new)
    except GitError:
        return False
    return True


def sync_index(root: Path, old: str | None, new: str, paths: Sequence[str]) -> bool:
    """Bring the person's index along after HEAD moved from `old` to `new` (which changed only `paths`).

    A path takes `new`'s version only where the index held `old`'s (or neither
    had it): what the person staged stays staged, and nothing they did not
    stage appears staged. Without this the index would still hold the old
    versions, and their next `git commit` would quietly revert the commit.
    Returns False when the index stayed locked (the next pass finishes it).
    """
    gdir = gitdir.git_dir(root)
    try:
        wait_for_index(gdir)
        # Two-tree read-tree is git's own carry-forward rule, done atomically under git's lock;
        # it refuses as a whole when the person staged one of the paths differently.
        if old and _read_tree_carry(root, old, new):
            return True
        wait_for_index(gdir)
        # Thousands of paths are not given as pathspecs (git matches each against every file): the
        # listings are read whole and the paths picked out.
        specs = list(paths) if len(paths) <= _MAX_PATHSPECS else []
        have = gitrepo.entries(root, ["ls-files", "-s", "-z", "--", *specs])
        before = gitrepo.entries(root, ["ls-tree", "-r", "-z", old, "--", *specs]) if old else {}
        after = gitrepo.entries(root, ["ls-tree", "-r", "-z", new, "--", *specs])
        records = []
        for path in paths:
            if have.get(path) != before.get(path) or after.get(path) == have.get(path):
                continue
            mode, oid = after.get(path, ("0", "0" * 40))
            records.append(f"{mode} {oid}\t".encode() + (gitrepo.show_prefix(root) + path).encode("utf-8", "surrogateescape") + b"\0")
        if records:
            gitrepo.git(root, "update-index", "-z", "--index-info", input=b"".join(records))
    except GitError:
        return False
    return True


def _git_running_in(root: Path) -> bool | None:
    """Whether a git process is working in this repository (Linux /proc); None when that cannot be told."""
    proc = Path("/proc")
    if not (proc / "self" / "cwd").exists():
        return None
    top = gitrepo.git(root, "rev-parse", "--show-toplevel").decode().strip() or str(root.resolve())
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not (entry / "comm").read_text().strip().startswith("git"):
                continue
            cwd = os.readlink(entry / "cwd")
        except FileNotFoundError:
            continue  # it ended meanwhile
        except OSError:
            return None  # a git process we may not look into: it could be working here
        if cwd == top or cwd.startswith(top + os.sep):  # git changes into the work tree, even for `git -C`
            return True
    return False


def finish_sync(root: Path) -> str:
    """Finish what a commit killed between moving its branch and updating the person's index left undone.

    Its record (written before the branch moved) says which commit it made.
    A `.git/index.lock` then is the one its own dead git left when no git
    process is working in this repository: it is removed. Returns what was
    done, for the pass's record ("" when there was nothing to do).
    """
    gdir = gitdir.git_dir(root)
    record = gdir / "gitgarden" / _SYNC_RECORD
    try:
        data = json.loads(record.read_text())
    except FileNotFoundError:
        return ""
    except (OSError, json.JSONDecodeError):
        record.unlink(missing_ok=True)
        return ""
    done: list[str] = []
    lock = gdir / "index.lock"
    if lock.exists() and _git_running_in(root) is False:
        lock.unlink(missing_ok=True)
        done.append(f"removed {lock}, left by a git command of an interrupted commit")
    current = gitrepo.git(root, "rev-parse", "--verify", "--quiet", str(data.get("ref", "HEAD")), check=False).decode().strip()
    if current and current == data.get("new"):
        if not sync_index(root, data.get("old"), current, list(data.get("paths", []))):
            return "; ".join(done)  # still locked: the record stays for the next pass
        done.append(f"brought the index up to date with commit {current[:10]}")
    record.unlink(missing_ok=True)
    return "; ".join(done)
def build_commit(
    root: Path,
    parent: str,
    blobs: Mapping[str, bytes],
    message: str,
    ident: tuple[str, str],
    *,
    start_tree: str | None = None,
    parents: Sequence[str] = (),
) -> str:
    """A commit of `start_tree` (default: `parent`'s) with `blobs` replaced, built in a temporary index."""
    gdir = gitdir.git_dir(root)
    tmp = gdir / "gitgarden-review.index"
    env = {"GIT_INDEX_FILE": str(tmp)}
    try:
        tmp.unlink(missing_ok=True)
        gitrepo.git(root, "read-tree", start_tree or parent, env=env)
        records = []
        for path, data in sorted(blobs.items()):
            oid = gitrepo.git(root, "hash-object", "-w", "--stdin", input=data).decode().strip()
            records.append(f"100644 {oid}\t{path}".encode("utf-8", "surrogateescape") + b"\0")
        if records:
            gitrepo.git(root, "update-index", "-z", "--index-info", input=b"".join(records), env=env)
        tree = gitrepo.git(root, "write-tree", env=env).decode().strip()
    finally:
        tmp.unlink(missing_ok=True)
    args = ["commit-tree", "--no-gpg-sign", tree]
    for p in parents or (parent,):
        args += ["-p", p]
    return gitrepo.git(root, *args, input=message.encode(), env=gitrepo.ident_env(*ident)).decode().strip()
