"""The sync before a pass: bring this clone level with the shared remote before the pass reads.

A laptop and a desktop both capture to today's day file. So that both can
garden, the sync merges day files line by line rather than stopping on git's
"would be overwritten" or an add/add conflict:

- This clone's uncommitted journal lines in a day file the remote changed too
  are committed first, under the person's name (a journal commit of gitgarden's,
  marked with a `Gardener-Journal:` trailer), so they are never only in memory.
- Behind only: fast-forward. Ahead only by gitgarden's own journal commits (never
  pushed yet): those are replayed onto the remote's tip, day files merged by a
  union of lines (nothing else is in them).
- Ahead by the person's own commits (diverged): refused, unless `sync = "merge"`;
  then a merge commit in which day files, the read position, the pass records and
  the map merge by their meaning. A page both sides changed in the same place is
  refused before anything is touched, named, with what to do.

Never a rebase or rewrite of the person's commits.
"""

from __future__ import annotations

from pathlib import Path

from gitgarden.errors import GitError
from gitgarden.repo import commits, gitdir, gitrepo, recovery
from gitgarden.sharing import meaning, remote
from gitgarden.sharing.remote import RemoteRefused
from gitgarden.wiki import layout

__all__ = ["JOURNAL_TRAILER", "journal_message", "sync_before", "only_own_journal"]

JOURNAL_TRAILER = "Gardener-Journal"  # on the journal commits gitgarden makes under the person's name


def journal_message(paths: list[str], why: str, mark: str) -> str:
    """The message of a journal commit gitgarden makes under the person's name (`mark`: the pass id, or `sync`)."""
    days = ", ".join(p.rsplit("/", 1)[-1].removesuffix(".md") for p in sorted(paths))
    return f"journal: {days}\n\nCommitted by gitgarden {why}.\n\n{JOURNAL_TRAILER}: {mark}\n"


def _local_commits(root: Path, theirs: str) -> list[str]:
    """This clone's commits the remote lacks, oldest first."""
    return gitrepo.git(root, "rev-list", "--reverse", f"{theirs}..HEAD").decode().split()


def only_own_journal(root: Path, local: list[str], journal_dir: str) -> bool:
    """True when every commit of `local` is a journal commit of gitgarden's (its trailer, or the message
    older versions wrote) holding nothing but day files: commits it may replay onto the remote."""
    prefix = gitrepo.show_prefix(root) + journal_dir.rstrip("/") + "/"
    for commit in local:
        body = gitrepo.git(root, "show", "-s", "--format=%B", commit).decode("utf-8", "replace")
        if f"\n{JOURNAL_TRAILER}: " not in body and "\n\nCommitted by gitgarden before pass " not in body:
            return False
        out = gitrepo.git(root, "diff-tree", "--no-commit-id", "--name-only", "-r", "-z", "--root", commit)
        paths = [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]
        if not paths or any(not p.startswith(prefix) for p in paths):
            return False
    return True


def _commit_own_lines(root: Path, theirs: str, journal_dir: str) -> list[str]:
    """Commit, as the person, this clone's uncommitted day files that the remote changed too; the
    paths committed. The commit holds the bytes on disk now: every line the person typed."""
    here = layout.current()
    base = gitrepo.git(root, "merge-base", "HEAD", theirs, check=False).decode().strip()
    if not base:
        return []
    out = gitrepo.git(root, "diff", "--name-only", "-z", "--relative", base, theirs, "--", journal_dir)
    changed = [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p and here.is_journal_file(p)]
    blobs: dict[str, bytes | None] = {}
    for path in sorted(gitrepo.dirty_paths(root, changed)):
        data = recovery.current_bytes(root / path)
        if data is not None and not data.startswith(b"symlink:"):
            blobs[path] = data
    if not blobs:
        return []
    message = journal_message(list(blobs), "before merging the remote's journal with this clone's", "sync")
    commits.commit_blobs(root, blobs, message=message, ident=gitrepo.person_identity(root))
    return sorted(blobs)


def _page_conflicts(root: Path, theirs: str, journal_dir: str) -> list[str] | None:
    """The files a merge of `theirs` would leave in conflict that do not merge by their meaning (pages,
    anything outside the wiki's bookkeeping); None when git cannot tell without merging (git < 2.38)."""
    proc = gitrepo.git(root, "merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", "HEAD", theirs, check=False)
    fields = proc.decode("utf-8", "surrogateescape").split("\0")
    if not fields or len(fields[0]) < 40:
        return None
    prefix = gitrepo.show_prefix(root)
    out = []
    for path in dict.fromkeys(f for f in fields[1:] if f):
        rel = path.removeprefix(prefix) if path.startswith(prefix) else None
        if rel is None or not meaning.merges_by_meaning(rel, journal_dir):
            out.append(rel or path)
    return out


def _refuse_conflicts(name: str, branch: str, paths: list[str]) -> RemoteRefused:
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return RemoteRefused(
        f"{name}/{branch} changed {shown} where this clone did too: merge it yourself — "
        f"`git pull --no-rebase {name} {branch}`, resolve {shown}, commit — then run the pass again "
        "(journal day files merge on their own)"
    )


def _merge(root: Path, name: str, branch: str, tracking: str, ident: tuple[str, str], journal_dir: str) -> None:
    """Merge the remote in with a merge commit (`git merge`, so the person's hooks judge it), the
    bookkeeping files git cannot merge resolved by their meaning; refused, with the merge undone,
    when a page is in conflict or git will not start the merge."""
    env = {**gitrepo.ident_env(*ident), "GIT_EDITOR": "true", "GIT_MERGE_AUTOEDIT": "no"}
    message = f"Merge {name}/{branch} before a gitgarden pass\n"
    try:
        gitrepo.git(root, "merge", "--no-ff", "--no-commit", "--no-edit", "-m", message, tracking, env=env)
    except GitError as exc:
        unresolved = _resolve_by_meaning(root, journal_dir)
        if unresolved is None:  # git did not start the merge (it would overwrite changes of the person's)
            _abort(root)
            raise RemoteRefused(
                f"merging {name}/{branch} did not start ({exc}): commit or stash those changes, then run the pass again"
            ) from None
        if unresolved:
            _abort(root)
            raise _refuse_conflicts(name, branch, unresolved) from None
    try:
        gitrepo.git(root, "commit", "--no-edit", "--no-gpg-sign", "--quiet", env=env)
    except GitError as exc:
        _abort(root)
        raise RemoteRefused(f"the merge commit of {name}/{branch} did not land ({exc}); nothing was merged") from None


def _resolve_by_meaning(root: Path, journal_dir: str) -> list[str] | None:
    """Resolve the merge's conflicted bookkeeping files by their meaning (written and staged); the
    paths left in conflict. None when no merge is in progress."""
    if not (gitdir.git_dir(root) / "MERGE_HEAD").exists():
        return None
    top = Path(gitrepo.git(root, "rev-parse", "--show-toplevel").decode().strip())
    prefix = gitrepo.show_prefix(root)
    stages: dict[str, dict[str, str]] = {}
    for rec in gitrepo.git(root, "ls-files", "-u", "-z", "--full-name", "--", ":/").split(b"\0"):
        if rec:
            meta, raw = rec.split(b"\t", 1)
            _mode, oid, stage = meta.decode().split()
            stages.setdefault(raw.decode("utf-8", "surrogateescape"), {})[stage] = oid
    unresolved: list[str] = []
    for path, oids in sorted(stages.items()):
        rel = path.removeprefix(prefix) if path.startswith(prefix) else None
        merged = None
        if rel is not None and meaning.merges_by_meaning(rel, journal_dir):
            base, ours, theirs = (_blob(root, oids.get(s)) for s in ("1", "2", "3"))
            merged = meaning.merge_file(root, rel, base, ours, theirs, journal_dir)
        if merged is None:
            unresolved.append(rel or path)
            continue
        recovery.atomic_write(top / path, merged)
        gitrepo.git(top, "add", "--", path)
    return unresolved


def _blob(root: Path, oid: str | None) -> bytes | None:
    return None if oid is None else gitrepo.git(root, "cat-file", "blob", oid)


def _abort(root: Path) -> None:
    if (gitdir.git_dir(root) / "MERGE_HEAD").exists():
        gitrepo.git(root, "merge", "--abort", check=False)


def sync_before(root: Path, name: str, *, merge: bool, timeout: float, ident: tuple[str, str], journal_dir: str) -> str:
    """Bring the branch level with the remote `name` before a pass reads; a one-line summary of what happened.

    See the module's docstring. RemoteRefused (nothing merged) when the clone has
    diverged by the person's commits without `merge`, when a page is in conflict,
    or when the move would overwrite the person's uncommitted changes (named).
    """
    branch = remote.current_branch(root)
    if branch is None:
        raise RemoteRefused("HEAD is detached: check out a branch before a pass shares it through a remote")
    if not remote.fetch(root, name, branch, timeout):
        return f"{name} has no branch {branch} yet; the pass will create it"
    pos = remote.position(root, name, branch)
    if pos.behind == 0:
        return pos.summary()
    tracking = remote.tracking_ref(name, branch)
    theirs = remote.rev(root, tracking) or tracking
    local = _local_commits(root, theirs)
    if local and not only_own_journal(root, local, journal_dir):
        if not merge:
            raise RemoteRefused(
                f"{branch} has diverged from {name}/{branch} ({pos.ahead} local, {pos.behind} remote commits): "
                f'set sync = "merge" (`gitgarden config set sync merge`: the pass merges the remote in, journal day '
                f"files line by line), or merge them yourself (`git pull --no-rebase {name} {branch}`)"
            )
        conflicts = _page_conflicts(root, theirs, journal_dir)
        if conflicts:
            raise _refuse_conflicts(name, branch, conflicts)
    notes = []
    committed = _commit_own_lines(root, theirs, journal_dir)
    if committed:
        notes.append(f"committed this clone's journal lines in {', '.join(committed)} first")
    local = _local_commits(root, theirs)
    if not local:
        proc = remote.run_net(root, ["merge", "--ff-only", "--quiet", tracking], timeout)
        if proc.returncode != 0:
            raise RemoteRefused(
                f"cannot fast-forward {branch} to {name}/{branch}: {remote.git_words(proc)}; commit or stash them, "
                "then run the pass again"
            )
        notes.append(f"fast-forwarded {pos.behind} commit(s) from {name}/{branch}")
    elif only_own_journal(root, local, journal_dir):
        head = local[-1]
        replayed = remote.replay(root, local, theirs, journal_dir)
        if replayed is None or not remote.move_branch(root, branch, head, replayed[head]):
            raise RemoteRefused(
                f"this clone's journal commits could not follow {name}/{branch} without overwriting uncommitted "
                "changes of yours: commit or stash them, then run the pass again"
            )
        notes.append(f"merged this clone's journal with {pos.behind} commit(s) from {name}/{branch}, line by line")
    else:
        _merge(root, name, branch, tracking, ident, journal_dir)
        notes.append(f"merged {pos.behind} commit(s) from {name}/{branch}")
    return "; ".join(notes)
