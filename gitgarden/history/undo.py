"""`gitgarden undo`: take one pass back with a new commit by the person, as `git revert` would,
without rewriting history; refuse whatever the gardener did not make or cannot take back cleanly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitgarden.history.common import (
    REVIEW_BRANCH,
    blob_at,
    changed_files,
    own_state,
    write_and_commit_as_person,
)
from gitgarden.history.passlog import (
    NotAPass,
    PassEntry,
    UndoRefused,
    describe_commit,
    find_pass,
    passes,
    resolve_commit,
)
from gitgarden.history.records import log_path
from gitgarden.repo import gitrepo, recovery, textmerge
from gitgarden.repo.states import blocking_state
from gitgarden.wiki import journal

__all__ = ["undo", "UndoResult", "UndoRefused"]


@dataclass
class UndoResult:
    """What `undo` did."""

    pass_id: str
    undone_commit: str
    commit: str
    restored: list[str]
    reread: bool
    unread: int = 0
    read_by_pass: int = 0  # journal lines the pass marked read (0: it read none, so nothing stays read)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _read_at(root: Path, rev: str) -> dict[str, set[str]]:
    data = blob_at(root, rev, journal.READ_PATH)
    return journal.load_read(None if data is None else data.decode("utf-8", "replace"))



def _pass_to_undo(root: Path, ref: str | None) -> PassEntry:
    """The pass `ref` names (the latest one not undone when None); NotAPass or UndoRefused when it
    is no pass, made no commit, waits on the review branch or was undone already."""
    if ref is None:
        todo = [e for e in passes(root) if e.commit and not e.review and not e.undone_by]
        if not todo:
            raise NotAPass("there is no gardener pass to undo on this branch")
        entry = todo[0]
    else:
        try:
            entry = find_pass(root, ref)
        except NotAPass as exc:
            raise NotAPass(f"{exc}: undo only takes back what gitgarden made") from None
    if not entry.commit:
        raise UndoRefused(f"pass {entry.pass_id} ended {entry.outcome} and made no commit: there is nothing to undo")
    if entry.review == "waiting":
        raise UndoRefused(f"pass {entry.pass_id} waits on {REVIEW_BRANCH}: drop it with `gitgarden review reject`")
    if entry.undone_by:
        raise UndoRefused(
            f"pass {entry.pass_id} was already undone by {describe_commit(root, entry.undone_by)}: "
            "to have its pages back, run the pass again instead"
        )
    return entry


def undo(root: Path, ref: str | None, *, reread: bool = False, now: datetime | None = None) -> UndoResult:
    """Take back one pass with a new commit by the person (history is never rewritten).

    Takes the pass's changes out of the files as they are now, like `git
    revert`: a three-way merge per file (base: the file after the pass; ours:
    now; theirs: before the pass), so what was written since — a later pass's
    map entry, the person's line on the same page — stays. The lines the pass
    read stay read unless `reread`; `log/` keeps its records and gains one for
    the undo. Refuses — changing nothing — when `ref` is not a pass, is an
    undo, made no commit, waits on the review branch or was undone already;
    when a change made since overlaps the lines the pass wrote (naming the file
    and lines); and when the person has uncommitted changes in those files.
    """
    now = now or datetime.now(UTC)
    blocked = blocking_state(root)
    if blocked:  # an undo is a commit too: it would be lost or mixed in as a pass's would
        raise UndoRefused(f"undo refused, nothing changed: {blocked}")
    entry = _pass_to_undo(root, ref)
    commit = entry.commit
    parent = resolve_commit(root, f"{commit}~1")
    if parent is None:
        raise UndoRefused(f"pass {entry.pass_id}'s commit {commit[:10]} has no parent to go back to")
    files = changed_files(root, parent, commit)
    revert = [p for p in files if not own_state(p)]
    guarded = revert + ([journal.READ_PATH] if reread else [])
    dirty = sorted(gitrepo.dirty_paths(root, guarded))
    if dirty:
        raise UndoRefused(
            f"you have uncommitted changes in {', '.join(dirty)}, which pass {entry.pass_id} wrote: "
            "commit or stash them, then undo"
        )
    contents = _taken_out(root, entry.pass_id, parent, commit, revert)
    restored = sorted(contents)
    unread = 0
    gained = {day: keys - _read_at(root, parent).get(day, set()) for day, keys in _read_at(root, commit).items()}
    read_by_pass = sum(len(keys) for keys in gained.values())
    if reread:
        current = _read_at(root, "HEAD")
        left = {day: keys - gained.get(day, set()) for day, keys in current.items()}
        unread = sum(len(current[d]) - len(left[d]) for d in current)
        if unread:
            contents[journal.READ_PATH] = journal.render_read(left).encode()
    person = gitrepo.person_identity(root)
    log_rel = log_path(now)
    record = {
        "kind": "undo",
        "undoes": entry.pass_id,
        "undone_commit": commit,
        "when": now.isoformat(),
        "by": f"{person[0]} <{person[1]}>",
        "restored": restored,
        "reread": reread,
        "unread": unread,
    }
    contents[log_rel] = recovery.with_records(root, log_rel, [record])
    subject = entry.subject or f"gitgarden pass {entry.pass_id}"
    if reread:
        lines_note = f"{unread} line(s) it read are unread again (--reread)."
    elif read_by_pass:
        lines_note = "The journal lines it read stay read (undo --reread would make them unread)."
    else:
        lines_note = "It read no journal line."
    message = (
        f"Undo gitgarden pass {entry.pass_id}\n\n"
        f'This reverts commit {commit} ("{subject}"):\n'
        f"The pass's changes taken out of {len(restored)} file(s); what was written since stays. {lines_note}\n\n"
        f"Gardener-Undoes: {entry.pass_id}\n"
    )
    new = write_and_commit_as_person(root, contents, message)
    return UndoResult(entry.pass_id, commit, new, restored, reread, unread, read_by_pass)


def _taken_out(root: Path, pass_id: str, parent: str, commit: str, paths: list[str]) -> dict[str, bytes | None]:
    """The new contents (None: delete) of each of `paths` with the pass's change merged out of it.

    Files already as they were before the pass are left out. Raises UndoRefused
    naming every file and its lines where a change made since overlaps the pass's.
    """
    if not paths:
        return {}
    before, after, now = (gitrepo.tree_at(root, rev, paths) for rev in (parent, commit, "HEAD"))
    out: dict[str, bytes | None] = {}
    clashes: list[str] = []
    for path in paths:
        was, wrote, is_ = (t[path].data if path in t else None for t in (before, after, now))
        if is_ == was:
            continue
        if is_ == wrote:
            out[path] = was
            continue
        merged = textmerge.merge(wrote or b"", is_ or b"", was or b"")
        if isinstance(merged, list):
            clashes.append(f"{path} ({', '.join(o.describe() for o in merged)})")
        elif merged == b"" and (was is None or is_ is None):
            out[path] = None  # the pass made it and nothing else is left in it (or it is gone already)
        elif merged != is_:
            out[path] = merged
    if clashes:
        raise UndoRefused(
            f"changes made since pass {pass_id} overlap what it wrote: {'; '.join(clashes)}. "
            "Nothing was changed: take those lines back by hand if you want them gone"
        )
    return out
