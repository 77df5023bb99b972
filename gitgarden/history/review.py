"""Review mode: the branch `gitgarden/review`, what waits on it, and bringing it in or dropping it.

With `review = true` a pass commits to `gitgarden/review` instead of the
current branch. The commit is built in a temporary index, so the person's
checkout, index and HEAD are never touched; the next pass builds on what waits
(`review_base`, `review_read_text`) so review commits stack cleanly. `accept`
fast-forwards or merges it in, resolving conflicts only in the files that only
ever grow (the read position and log records); `reject` drops it. `accept_one`
and `reject_one` decide on one waiting pass and put the others back on top
(`replay`), as `review accept PASS` and `review reject PASS` do. Writing to the review branch
and reading what waits there is `history.reviewbranch`'s.

This sits on top of `gitgarden.history`, which reads passes back from git and
owns the helpers for writing and committing as the person; history imports
this module only inside the functions that need it, so there is no import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitgarden.errors import GitgardenError
from gitgarden.history.common import (
    REVIEW_BRANCH,
    REVIEW_REF,
    blob_at,
    changed_files,
    is_ancestor,
    own_state,
    review_waiting,
    write_and_commit_as_person,
)
from gitgarden.history.passlog import NotAPass, PassEntry, find_pass, passes
from gitgarden.history.records import LOG_DIR, append_attempt, log_path
from gitgarden.history.replay import Waiting, dangling, replay, waiting_commits
from gitgarden.history.reviewbranch import (
    ReviewStatus,
    commit_to_review,
    review_base,
    review_read_text,
    review_status,
    union_lines,
    union_read,
)
from gitgarden.repo import gitdir, gitrepo, recovery
from gitgarden.repo.commits import build_commit
from gitgarden.repo.states import blocking_state
from gitgarden.wiki import journal

__all__ = [
    "ReviewRefused",
    "REVIEW_BRANCH",
    "REVIEW_REF",
    "review_waiting",
    "review_read_text",
    "review_base",
    "commit_to_review",
    "review_status",
    "ReviewStatus",
    "accept",
    "accept_one",
    "AcceptResult",
    "reject",
    "reject_one",
    "RejectResult",
]


class ReviewRefused(GitgardenError):
    """`review accept` / `reject` cannot go ahead; nothing was changed."""


@dataclass
class AcceptResult:
    """What `review accept` did."""

    kind: str  # "fast-forward" | "merge" | "commit" (one pass put on the branch as a commit of its own)
    commit: str
    passes: list[str]
    resolved: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)  # the passes still waiting (accepting one of them)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _merge_target(root: Path, head: str, tip: str, ident: tuple[str, str], ids: list[str]) -> tuple[str, list[str]]:
    """A merge commit of HEAD and the review tip, made without touching the work tree; refuses on conflicts.

    Conflicts in the read position and in log records are resolved by union
    (both only ever grow); any other conflict is refused.
    """
    proc = gitrepo.git(root, "merge-tree", "--write-tree", "--name-only", "-z", head, tip, check=False)
    parts = proc.split(b"\0")
    tree = parts[0].decode().strip()
    conflicted: list[str] = []
    for raw in parts[1:]:
        if not raw:
            break
        conflicted.append(raw.decode("utf-8", "surrogateescape"))
    if not tree or len(tree) < 40:
        raise ReviewRefused(f"git could not merge {REVIEW_BRANCH}: {proc.decode('utf-8', 'replace').strip()[:200]}")
    conflicted = sorted(set(conflicted))
    hard = [p for p in conflicted if not own_state(p)]
    if hard:
        raise ReviewRefused(
            f"accepting would conflict in {', '.join(hard)} (changed both here and on {REVIEW_BRANCH}); nothing changed. "
            f"Merge it by hand (git merge {REVIEW_BRANCH}) or drop it (gitgarden review reject)"
        )
    blobs: dict[str, bytes] = {}
    for path in conflicted:
        ours, theirs = blob_at(root, head, path), blob_at(root, tip, path)
        if path == journal.READ_PATH:
            blobs[path] = union_read(ours, theirs)
        else:
            blobs[path] = union_lines(ours or b"", theirs or b"")
    message = (
        f"Merge {REVIEW_BRANCH}: {len(ids)} gardener pass(es) accepted\n\n"
        + "".join(f"Accepted pass {i}\n" for i in ids)
    )
    new = build_commit(root, head, blobs, message, ident, start_tree=tree, parents=(head, tip))
    return new, conflicted


def refuse_state(root: Path, what: str) -> None:
    """ReviewRefused in a repository state where a commit would be lost or mixed in (repostate)."""
    blocked = blocking_state(root)
    if blocked:
        raise ReviewRefused(f"review {what} refused, nothing changed: {blocked}")


def bring_in(root: Path, head: str, target: str) -> None:
    """Fast-forward the current branch (and the work tree) to `target`; refuses, changing nothing,
    when the person has uncommitted changes in a file it brings in (records it already holds aside)."""
    changed = changed_files(root, head, target)
    dirty = gitrepo.dirty_paths(root, changed)
    covered: list[str] = []
    for path in sorted(dirty):
        if not path.startswith(f"{LOG_DIR}/"):
            continue
        mine = (root / path).read_bytes() if (root / path).is_file() else b""
        theirs = blob_at(root, target, path) or b""
        if set(mine.splitlines()) <= set(theirs.splitlines()):
            covered.append(path)  # only records the incoming version already holds
    blocking = sorted(dirty - set(covered))
    if blocking:
        raise ReviewRefused(
            f"you have uncommitted changes in {', '.join(blocking)}, which {REVIEW_BRANCH} changes: "
            "commit or stash them, then accept; nothing changed"
        )
    for path in covered:
        if blob_at(root, head, path) is None:
            (root / path).unlink(missing_ok=True)
        else:
            gitrepo.git(root, "checkout", "-q", "HEAD", "--", path)
    gitrepo.git(root, "merge", "--ff-only", "--quiet", target, env=gitrepo.ident_env(*gitrepo.person_identity(root)))


def accept(root: Path, pass_ref: str | None = None) -> AcceptResult | None:
    """Bring what waits on `gitgarden/review` into the current branch; None when nothing waits.

    Fast-forward when the branch has not moved, else a merge commit by the
    person. Refuses, changing nothing, on conflicting changes and when the
    person has uncommitted changes in files it would bring in. With `pass_ref`
    (a pass id, a unique prefix or its commit) only that pass comes in (`accept_one`).
    """
    if pass_ref is not None:
        return accept_one(root, pass_ref)
    tip = review_waiting(root)
    head = gitrepo.head(root)
    if tip is None or head is None:
        return None
    refuse_state(root, "accept")
    ids = [e.pass_id for e in passes(root) if e.review == "waiting"]
    resolved: list[str] = []
    if is_ancestor(root, head, tip):
        target, kind = tip, "fast-forward"
    else:
        target, resolved = _merge_target(root, head, tip, gitrepo.person_identity(root), ids)
        kind = "merge"
    bring_in(root, head, target)
    gitrepo.git(root, "update-ref", "-d", REVIEW_REF, tip, check=False)
    return AcceptResult(kind, target, ids, resolved)


# -- one pass at a time ----------------------------------------------------------


@dataclass(frozen=True)
class _Chain:
    """The review branch as a stack: HEAD, its tip, where it forked, its commits oldest first, and the
    position of the pass asked for in it."""

    head: str
    tip: str
    fork: str
    commits: list[Waiting]
    at: int

    @property
    def entry(self) -> Waiting:
        return self.commits[self.at]

    def before(self) -> list[str]:
        return [w.pass_id for w in self.commits[: self.at]]


def chain_of(root: Path, pass_ref: str, what: str) -> _Chain:
    """Where the pass `pass_ref` stands on the review branch; ReviewRefused when it does not wait there."""
    tip = review_waiting(root)
    head = gitrepo.head(root)
    try:
        entry = find_pass(root, pass_ref)
    except NotAPass as exc:
        raise ReviewRefused(f"cannot {what} {pass_ref!r}: {exc}") from None
    if tip is None or head is None or entry.review != "waiting":
        why = "nothing waits for review" if tip is None else "it is not on the review branch"
        raise ReviewRefused(f"pass {entry.pass_id} does not wait for review ({why}); nothing changed")
    fork = gitrepo.git(root, "merge-base", head, tip, check=False).decode().strip()
    commits = waiting_commits(root, fork, tip)
    at = next((i for i, w in enumerate(commits) if w.commit == entry.commit), None)
    if not fork or at is None:
        raise ReviewRefused(f"pass {entry.pass_id} is not a commit of its own on {REVIEW_BRANCH}; nothing changed")
    return _Chain(head, tip, fork, commits, at)


def restack(root: Path, rest: list[Waiting], onto: str, why: str) -> tuple[str, list[str]]:
    """The passes `rest` replayed, in order, on `onto`: the new tip and their ids; ReviewRefused
    (`why` says what was asked) when one of them no longer fits."""
    tip = onto
    for w in rest:
        moved = replay(root, w.commit, w.parent, tip)
        if isinstance(moved, list):
            raise ReviewRefused(
                f"{why} would leave pass {w.pass_id} with nothing to build on: it changed "
                f"{'; '.join(c.describe() for c in moved)}. Nothing changed: decide on pass {w.pass_id} first"
            )
        loose = dangling(root, w.commit, w.parent, moved) if moved != w.commit else []
        if loose:
            raise ReviewRefused(
                f"{why} would leave pass {w.pass_id} with links to pages that would not exist: {', '.join(loose)}. "
                f"Nothing changed: decide on pass {w.pass_id} first"
            )
        tip = moved
    return tip, [w.pass_id for w in rest]


def move_review(root: Path, old_tip: str, new_tip: str | None) -> None:
    """Point `gitgarden/review` at `new_tip` (None: nothing waits any more, the branch goes)."""
    if new_tip is None:
        gitrepo.git(root, "update-ref", "-d", REVIEW_REF, old_tip, check=False)
    else:
        gitrepo.git(root, "update-ref", "-m", "gitgarden review: one pass decided", REVIEW_REF, new_tip, old_tip)


def accept_one(root: Path, pass_ref: str) -> AcceptResult:
    """Bring one waiting pass into the current branch and leave the others waiting.

    The oldest pass on a branch that has not moved is a fast-forward to its own
    commit; any other comes as a commit of its own with the pass's message and
    author, its change merged line by line into what the branch holds. The
    passes after it are put back on top of the new branch. Refuses, changing
    nothing, when the pass's change needs a pass that still waits before it
    (accept that one first), and as `accept` does.
    """
    chain = chain_of(root, pass_ref, "accept")
    refuse_state(root, "accept")
    mine = chain.entry
    target = replay(root, mine.commit, mine.parent, chain.head)
    if isinstance(target, list):
        earlier = chain.before()
        needs = f"pass {', '.join(earlier)}, which still wait{'s' if len(earlier) == 1 else ''} before it" if earlier else "what the branch holds now"
        raise ReviewRefused(
            f"pass {mine.pass_id} builds on {needs}: its change does not fit "
            f"{'; '.join(c.describe() for c in target)}. Nothing changed: accept "
            + ("those first, or all of them (gitgarden review accept)" if earlier else "all (gitgarden review accept) or merge by hand")
        )
    loose = dangling(root, mine.commit, mine.parent, target) if target != mine.commit else []
    if loose:
        earlier = chain.before()
        raise ReviewRefused(
            f"pass {mine.pass_id} links to pages your branch does not have: {', '.join(loose)}"
            + (f" (pass {', '.join(earlier)}, still waiting before it, may make them)" if earlier else "")
            + ". Nothing changed: accept " + ("those first, or all of them (gitgarden review accept)" if earlier else "all (gitgarden review accept)")
        )
    rest = [w for i, w in enumerate(chain.commits) if i != chain.at]
    new_tip, still = restack(root, rest, target, f"accepting pass {mine.pass_id}")
    bring_in(root, chain.head, target)
    move_review(root, chain.tip, new_tip if still else None)
    kind = "fast-forward" if target == mine.commit else "commit"
    return AcceptResult(kind, target, [mine.pass_id], [], still)


@dataclass
class RejectResult:
    """What `review reject` did."""

    passes: list[str]
    dropped_tip: str
    commit: str
    reread: bool
    waiting: list[str] = field(default_factory=list)  # the passes still waiting (rejecting one of them)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _rejected_records(root: Path, waiting: list[PassEntry], commits: Mapping[str, str], tip: str, reread: bool, now: datetime) -> list[dict[str, Any]]:
    """The records of the rejected passes (marked rejected, with the commit each had) and of the decision."""
    records: list[dict[str, Any]] = []
    for entry in reversed(waiting):
        rec = dict(entry.record or {"pass_id": entry.pass_id, "outcome": entry.outcome, "started": entry.when})
        rec["review"] = "rejected"
        rec["rejected_commit"] = commits.get(entry.pass_id, entry.commit)
        records.append(rec)
    person = gitrepo.person_identity(root)
    records.append(
        {"kind": "review_reject", "passes": [e.pass_id for e in waiting], "dropped_tip": tip, "when": now.isoformat(),
         "by": f"{person[0]} <{person[1]}>", "reread": reread}
    )
    return records


def _keep_read(root: Path, records: list[dict[str, Any]], read_from: bytes | None, message: str, now: datetime) -> str:
    """Commit the rejected passes' records and the read position they reached (`read_from` merged into
    the current one) on the current branch, as the person; the commit."""
    if gitrepo.dirty_paths(root, [journal.READ_PATH]):
        raise ReviewRefused(f"{journal.READ_PATH} has uncommitted changes: commit or restore it, then reject")
    log_rel = log_path(now)
    read_now = root / journal.READ_PATH
    new_read = union_read(read_now.read_bytes() if read_now.is_file() else None, read_from)
    contents: dict[str, bytes | None] = {log_rel: recovery.with_records(root, log_rel, records)}
    if not read_now.is_file() or read_now.read_bytes() != new_read:
        contents[journal.READ_PATH] = new_read
    return write_and_commit_as_person(root, contents, message)


def reject(root: Path, *, reread: bool = True, now: datetime | None = None, pass_ref: str | None = None) -> RejectResult | None:
    """Drop `gitgarden/review`; None when nothing waits.

    By default (`reread`) the lines its passes read are unread again — a
    rejected pass wrote nothing the person kept, so its lines wait for a later
    pass — and the records go to the git dir's attempts file, as for any
    attempt that made no commit. Without `reread` they stay read: the read
    position is committed on the current branch (with the dropped passes'
    records, marked rejected). With `pass_ref` only that pass is dropped (`reject_one`).
    """
    now = now or datetime.now(UTC)
    if pass_ref is not None:
        return reject_one(root, pass_ref, reread=reread, now=now)
    tip = review_waiting(root)
    if tip is None:
        return None
    refuse_state(root, "reject")
    waiting = [e for e in passes(root) if e.review == "waiting"]
    ids = [e.pass_id for e in waiting]
    records = _rejected_records(root, waiting, {}, tip, reread, now)
    commit = ""
    if reread:
        git_dir = gitdir.git_dir(root)
        for record in records:  # nothing committed: the person's work tree stays as it was
            append_attempt(git_dir, record)
    else:
        message = (
            f"gitgarden review reject: {len(ids)} pass(es) dropped, their journal lines stay read\n\n"
            f"{REVIEW_BRANCH} was at {tip}.\n\n"
            + "".join(f"Gardener-Rejects: {i}\n" for i in ids)
        )
        commit = _keep_read(root, records, blob_at(root, tip, journal.READ_PATH), message, now)
    gitrepo.git(root, "update-ref", "-d", REVIEW_REF, tip)
    return RejectResult(ids, tip, commit, reread)


def reject_one(root: Path, pass_ref: str, *, reread: bool = True, now: datetime | None = None) -> RejectResult:
    """Drop one waiting pass and leave the others waiting, the later ones put back on top of the
    one before it. Its lines (only those it marked) are unread again unless `reread` is False, as `reject` says.
    Refuses, changing nothing, when a later pass builds on what it wrote (reject that one first)."""
    now = now or datetime.now(UTC)
    chain = chain_of(root, pass_ref, "reject")
    refuse_state(root, "reject")
    mine = chain.entry
    rest = chain.commits[chain.at + 1 :]
    new_tip, still = restack(root, rest, mine.parent, f"rejecting pass {mine.pass_id}")
    still = chain.before() + still
    entry = next(e for e in passes(root) if e.pass_id == mine.pass_id)
    records = _rejected_records(root, [entry], {mine.pass_id: mine.commit}, chain.tip, reread, now)
    commit = ""
    if reread:
        git_dir = gitdir.git_dir(root)
        for record in records:
            append_attempt(git_dir, record)
    else:
        # Only the lines this pass marked read: those of the passes before it still wait with them.
        gained = _read_gained(root, mine)
        message = (
            f"gitgarden review reject: pass {mine.pass_id} dropped, its journal lines stay read\n\n"
            f"{REVIEW_BRANCH} was at {chain.tip}; {len(still)} pass(es) still wait.\n\n"
            f"Gardener-Rejects: {mine.pass_id}\n"
        )
        commit = _keep_read(root, records, gained, message, now)
    move_review(root, chain.tip, new_tip if still else None)
    return RejectResult([mine.pass_id], chain.tip, commit, reread, still)


def _read_gained(root: Path, w: Waiting) -> bytes:
    """A read position holding only the lines the pass of `w` marked read."""

    def read_at(rev: str) -> dict[str, set[str]]:
        data = blob_at(root, rev, journal.READ_PATH)
        return journal.load_read(None if data is None else data.decode("utf-8", "replace"))

    before, after = read_at(w.parent), read_at(w.commit)
    return journal.render_read({day: keys - before.get(day, set()) for day, keys in after.items()}).encode()
