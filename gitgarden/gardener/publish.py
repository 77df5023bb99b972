"""A pass and the shared remote: fetch before reading, push after committing (`remote.py` does the git).

A pass that cannot land on the remote is taken back in this clone and ends
`failed`; the replay onto a newer tip is guarded again.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from gitgarden.gardener.state import Pass, Work
from gitgarden.guard import rules as guard
from gitgarden.repo import gitrepo
from gitgarden.sharing import remote
from gitgarden.wiki import layout

__all__ = ["sync", "publish"]


def sync(run: Pass) -> bool:
    """Fetch and fast-forward (or merge) before reading; False when the pass must not go on."""
    from gitgarden.sharing import remote, sync

    root, settings, result = run.project.root, run.settings, run.result
    try:
        result.remote = sync.sync_before(
            root,
            settings.remote,
            merge=settings.sync == "merge",
            timeout=settings.remote_timeout,
            ident=(settings.author_name, settings.author_email),
            journal_dir=run.project.journal.relative_to(root).as_posix(),
        )
    except remote.RemoteRefused as exc:
        result.outcome, result.detail = "refused", str(exc)
        return False
    except remote.RemoteFailed as exc:
        result.outcome, result.detail = "failed", str(exc)
        return False
    run.on_progress(result.remote)
    return True


def _reguard(root: Path, base_rev: str, new_rev: str, ctx: guard.PassContext) -> list[str]:
    """The guard on the pass replayed onto a new remote tip: the pages it appended to may have grown."""
    prefixes = [*layout.current().tree_folders(), ".gitgarden", "log"]
    base = gitrepo.tree_at(root, base_rev, prefixes)
    new = gitrepo.tree_at(root, new_rev, prefixes)
    return [str(v) for v in guard.check(base, new, ctx)]


def publish(run: Pass, work: Work, writes: Mapping[str, bytes]) -> None:
    """Push the pass; a pass that cannot land on the remote is taken back here and ends `failed`.

    `writes` are the bytes the pass committed: the take-back puts back what the pass
    read only where a file still holds them (the person's edits since are kept)."""
    project, settings, result, on_progress = run.project, run.settings, run.result, run.on_progress
    root = project.root
    if settings.review:
        from gitgarden.history.review import REVIEW_BRANCH

        branch: str | None = REVIEW_BRANCH
        tries = 1  # the review branch is the person's to merge: never replayed, only pushed
    else:
        branch, tries = None, settings.push_tries
    tags = [result.snapshot] if settings.push_tags and result.snapshot else []
    try:
        done = remote.publish(
            root,
            settings.remote,
            pass_commit=result.commit,
            journal_commit="" if settings.review else result.journal_commit,
            branch=branch,
            tries=tries,
            timeout=settings.remote_timeout,
            reguard=lambda b, n: _reguard(root, b, n, work.guard_ctx()),
            journal_dir=project.journal.relative_to(root).as_posix(),
            tags=tags,
            take_back_on_failure=not settings.review,
            # What the pass read of each file it wrote (its record file's month log: as committed before).
            files={
                p: (work.base[p].data if p in work.base else None, data) for p, data in writes.items() if p != result.record_path
            },
            step=run.step,
        )
    except remote.RemoteFailed as exc:
        result.detail = str(exc)
        result.remote = "; ".join(x for x in (result.remote, "not pushed") if x)
        result.outcome = "failed"
        if exc.taken_back:  # its snapshot tag stays: the pass did commit here, and was taken back
            result.taken_back, result.commit, result.marked_read = result.commit, "", 0
        on_progress(str(exc))
        return
    result.commit, result.journal_commit = done.commit, done.journal_commit
    result.remote = "; ".join(x for x in (result.remote, done.summary) if x)
    result.hints.extend(done.warnings)  # the pass landed; the report still says what the remote refused
    on_progress(done.summary)
