"""Writing a pass down: the snapshot, the journal commit, the pass commit with its trailers, the record.

Everything here touches the work tree or git; what is written was decided
and guarded before. Writes are recorded first (recovery.py) so a killed pass
is rolled back by the next one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from gitgarden.errors import GitError, GitgardenError
from gitgarden.gardener.outcome import PassResult
from gitgarden.gardener.steps import Step
from gitgarden.history import records
from gitgarden.repo import commits, gitdir, gitrepo, recovery, worktree
from gitgarden.sharing import sync
from gitgarden.wiki import journal, layout, tidy
from gitgarden.wiki.tree import Tree

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from datetime import datetime

    from gitgarden.config import Settings
    from gitgarden.gardener.state import Pass, Work
    from gitgarden.project import Project

__all__ = [
    "roll_back", "commit_message", "last_map_chars", "is_committed", "commit_journal", "diff", "write_and_commit",
    "snapshot", "commit_offered", "commit",
]  # fmt: skip


def snapshot(run: Pass) -> None:
    """Snapshot the whole workspace (docs/architecture.md, "One pass", step 6) as a commit the pass tags `pre_gardener/<pass-id>`
    when its commit lands (in the same ref update); when that fails the pass goes on and its record
    says so."""
    result, settings, root = run.result, run.settings, run.project.root
    run.on_step(Step("snapshot"))
    try:
        found = worktree.head_from_files(root)
        parent = found[1] if found is not None else gitrepo.head(root)
        run.snapshot_commit = commits.snapshot(
            root,
            message=f"gitgarden snapshot before pass {result.pass_id}",
            ident=(settings.author_name, settings.author_email),
            parent=parent,
        )
        result.snapshot = f"pre_gardener/{result.pass_id}"
    except GitgardenError as exc:
        result.snapshot, result.snapshot_error = "", str(exc)
        run.on_progress(f"snapshot failed ({exc}); the pass goes on")


def commit_offered(run: Pass, work: Work) -> None:
    """Commit the day files of the offered lines as the person's before the model sees them
    (step 7), so the pass commit's `source:` always points at committed lines."""
    result = run.result
    result.journal_commit = commit_journal(
        run.project.root, work.offered_lines(), result.pass_id, work.base, status=run.status(), index=run.commit_index()
    )


def commit(run: Pass, work: Work, writes: dict[str, bytes]) -> None:
    """The pass commit (step 15): exactly `writes`, each made from what the pass read of it.

    A file the person changed in the moment the pass replaced it ends the
    pass `stood_down`; a commit that did not land (the person's hook said no)
    ends it `failed`. Either way every write is rolled back."""
    result = run.result
    run.on_step(Step("committing"))
    base = work.base
    read_before = {p: base[p].data if p in base else None for p in writes}  # what the pass's writes were made from
    tag = (result.snapshot, run.snapshot_commit) if result.snapshot and run.snapshot_commit else None
    try:
        write_and_commit(
            run.project, run.settings, result, writes, run.git_dir, run.now, read_before, run.step,
            index=run.commit_index(), tag=tag,
        )  # fmt: skip
    except recovery.ChangedUnderfoot as exc:  # the person wrote to a file in the moment the pass replaced it
        result.outcome, result.detail, result.marked_read = "stood_down", str(exc), 0
        return
    except GitgardenError as exc:  # e.g. the person's pre-commit hook said no: every write was rolled back
        result.outcome, result.detail, result.marked_read = "failed", f"the pass commit did not land: {exc}", 0
        return
    made, head = run.commit_index().made, run.status().head
    # The wiki graph follows the pass's own commits when nobody else's came in between (the journal
    # commit changes no page): the next pass need not ask git what changed.
    chained = bool(made) and all(parent == (head if i == 0 else made[i - 1][1]) for i, (parent, _) in enumerate(made))
    if result.commit and not run.settings.review and chained and made[-1][1] == result.commit:
        from gitgarden.store import wikisync

        wikisync.record_commit(run.project.root, layout.current(), head, result.commit, writes)


def roll_back(root: Path, git_dir: Path, is_committed: Callable[[str], bool]) -> recovery.Recovery | None:
    """Undo what an interrupted pass left: its uncommitted writes (recovery.recover), the index update
    of a commit that landed just before it died (commits.finish_sync), and its snapshot tag.

    The person's index is never touched here: a pass commits from a temporary
    index, so a dead or refused commit left nothing staged.
    """
    synced = commits.finish_sync(root)
    found = recovery.recover(root, git_dir, is_committed)
    if found is not None:
        drop_snapshot(root, found.pass_id)
    if synced:
        found = found or recovery.Recovery(pass_id="unknown", found_writes=False)
        found.notes.append(synced)
    return found


def drop_snapshot(root: Path, pass_id: str) -> None:
    """Remove the snapshot tag of a pass that made no commit: `pre_gardener/<id>` marks only passes that did."""
    if pass_id and pass_id != "unknown":
        gitrepo.git(root, "tag", "-d", f"pre_gardener/{pass_id}", check=False)


def commit_message(result: PassResult, trailers: dict[str, str]) -> str:
    """The pass commit's message: a summary line, what was written and refused, then the trailers."""
    bits = []
    if result.created:
        bits.append(f"{len(result.created)} created")
    if result.appended:
        bits.append(f"{len(result.appended)} appended")
    if result.split:
        bits.append(f"{len(result.split)} split")
    if result.tidied:
        bits.append(f"{len(result.tidied)} tidied")
    if result.set_aside:
        bits.append(f"{len(result.set_aside)} line(s) set aside")
    summary = ", ".join(bits) or ("journal read" if result.marked_read else "refusals counted")
    lines = [f"gitgarden pass: {summary} ({result.marked_read} lines read)", ""]
    for label, items in (("Created", result.created), ("Appended", result.appended), ("Split", result.split), ("Tidied", result.tidied)):
        if items:
            lines.append(f"{label}: {', '.join(items)}")
    for refusal in result.refusals[:20]:
        lines.append(f"Refused: {refusal}")
    lines.append("")
    lines.extend(f"Gardener-{k}: {v}" for k, v in trailers.items())
    return "\n".join(lines) + "\n"


def last_map_chars(project: Project) -> int | None:
    """The map's size when the last pass left it (from the newest record that says: log/ or the attempts)."""
    found: list[tuple[str, int]] = []
    for record in reversed(records.read_attempts(gitdir.git_dir(project.root))):
        if record.get("map_chars") is not None:
            found.append((str(record.get("started", "")), int(record["map_chars"])))
            break
    paths = sorted(project.log.glob("*.jsonl"), reverse=True) if project.log.is_dir() else []
    for path in paths:
        for line in reversed(path.read_text(encoding="utf-8", errors="replace").splitlines()):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and record.get("map_chars") is not None:
                found.append((str(record.get("started", "")), int(record["map_chars"])))
                break
        else:
            continue
        break
    return max(found)[1] if found else None


def is_committed(root: Path, pass_id: str) -> bool:
    """True when one of the last commits carries `Gardener-Pass: <pass_id>` (it died after committing)."""
    out = gitrepo.git(root, "log", "-n", "20", "--format=%(trailers:key=Gardener-Pass,valueonly)", check=False)
    return pass_id in out.decode(errors="replace").split()


def commit_journal(
    root: Path,
    offered: list[journal.JournalLine],
    pass_id: str,
    read: Tree,
    *,
    status: worktree.Status | None = None,
    index: commits.CommitIndex | None = None,
) -> str:
    """Commit the day files of the lines read, under the person's identity, when HEAD lacks them.

    The commit holds the bytes the pass read (`read`, the pass's base tree),
    never a line typed since; the person's index follows only where it held
    HEAD's version. ChangedUnderfoot when those bytes no longer hold the
    lines offered (the day file changed between two reads). `status`, read
    after the journal, says which day files differ from HEAD without asking
    git again; `index` is the pass's commit index.
    """
    days = sorted({ln.day for ln in offered})
    blobs: dict[str, bytes] = {}
    for day in days:
        path = journal.day_path(day)
        if path not in read:
            raise recovery.ChangedUnderfoot(path)
        data = read[path].data
        there = {(ln.lineno, ln.key) for ln in journal.parse_day(day, data.decode("utf-8", "replace"))}
        if any((ln.lineno, ln.key) not in there for ln in offered if ln.day == day):
            raise recovery.ChangedUnderfoot(path)
        blobs[path] = data
    head = worktree.head_from_files(root)
    if status is not None and status.head is not None and head is not None and head[1] == status.head:
        # HEAD has not moved since the status: a day file it does not list is in HEAD as it was read
        # (the lines offered came before the status), and a listed one names HEAD's blob.
        todo = {
            p: d for p, d in blobs.items()
            if (change := status.changes.get(p)) is not None and (change.head is None or change.head[1] != gitrepo.blob_id(d))
        }  # fmt: skip
        known_new = True
    else:
        committed = gitrepo.blob_ids(root, "HEAD", sorted(blobs))
        todo = {p: d for p, d in blobs.items() if committed.get(p) != gitrepo.blob_id(d)}
        known_new = False
    if not todo:
        return ""  # HEAD holds these bytes already (the common case of a pass after a stood-down one)
    message = sync.journal_message(list(todo), f"before pass {pass_id} read these lines", pass_id)
    try:
        ident = gitrepo.person_identity(root)
        return commits.commit_blobs(root, todo, message=message, ident=ident, allow_empty=known_new, index=index) or ""
    except GitError as exc:
        raise GitError(f"the journal commit did not land: {exc}") from None


def diff(base: Tree, tree: Tree, paths: list[str]) -> str:
    """A unified diff of `paths` between two trees, pages first (what a dry run shows).

    A file without a final newline gets git's marker line rather than having its
    last line glued to the next one.
    """
    import difflib

    chunks: list[str] = []
    here = layout.current()
    pages_first = sorted(paths, key=lambda p: (not here.in_wiki(p), p))
    for path in pages_first:
        old = tidy.read_text(base, path) if path in base else ""
        new = tidy.read_text(tree, path) if path in tree else ""
        for line in difflib.unified_diff(
            _lines(old or ""),
            _lines(new or ""),
            fromfile=f"a/{path}" if path in base else "/dev/null",
            tofile=f"b/{path}",
        ):
            chunks.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(chunks)


def _lines(text: str) -> list[str]:
    """`text` cut after each "\n" only, as git does (a lone "\r" is part of a line)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _trailers(result: PassResult, settings: Settings) -> dict[str, str]:
    """The pass commit's trailers: what the pass did, in figures `log` and `show` read back."""
    trailers = {
        "Pass": result.pass_id,
        "Outcome": result.outcome,
        "Read": str(result.marked_read),
        "Tokens": str(result.tokens) if result.model else "0",
        "Cost": "unknown" if result.cost is None else f"{result.cost:.6f}",
        "Model": result.model or "none",
        "Created": str(len(result.created)),
        "Appended": str(len(result.appended)),
        "Split": str(len(result.split)),
        "Refused": str(len(result.refusals)),
        "Grounding": "n/a" if result.grounding_min_score is None else f"{result.grounding_min_score:.2f}",
        "Trigger": result.trigger,
    }
    if result.skipped:  # lines read because a skip cited them: `show` lists them with their reasons
        trailers["Skipped"] = str(len(result.skipped))
    if result.mode == "small":
        trailers["Mode"] = "small"
    if not result.all_jobs:  # `run --job`: which jobs ran (a full pass says nothing)
        trailers["Jobs"] = ", ".join(result.jobs)
    if settings.review:
        trailers["Review"] = "waiting"  # the pass went to gitgarden/review: `review` decisions count it
    if result.health_after:
        b, a = result.health_before, result.health_after
        trailers["Health"] = ", ".join(
            f"{k} {b.get(k, 0)}->{a.get(k, 0)}" for k in ("orphans", "broken_links", "over_budget", "map_chars", "unread_lines")
        )
    if result.snapshot:
        trailers["Snapshot"] = result.snapshot
    return trailers


def write_and_commit(
    project: Project,
    settings: Settings,
    result: PassResult,
    writes: dict[str, bytes],
    git_dir: Path,
    now: Callable[[], datetime],
    read: Mapping[str, bytes | None] | None = None,
    step: recovery.Step = recovery.no_step,
    *,
    index: commits.CommitIndex | None = None,
    tag: tuple[str, str] | None = None,
) -> None:
    """Write the pass's files (recorded first, for recovery) and commit exactly those bytes, or to review.

    `read` holds what the pass read of each path it writes (None: absent);
    a path left out is taken as it is on disk now. A file that no longer
    holds what the pass read is not written: ChangedUnderfoot, with every
    write of the pass undone and the person's version in place. `index` is
    the pass's commit index; `tag` (name, commit) its snapshot, tagged with
    the commit.
    """
    root = project.root
    trailers = _trailers(result, settings)
    result.finished = now().isoformat()
    log_rel = result.record_path
    expected = {rel: recovery.current_bytes(recovery.safe_target(root, rel)) for rel in writes}
    expected.update({rel: data for rel, data in (read or {}).items() if rel in writes})
    expected[log_rel] = recovery.current_bytes(recovery.safe_target(root, log_rel))
    writes[log_rel] = recovery.with_records(root, log_rel, [result.record()], old=expected[log_rel])
    if settings.review:  # to gitgarden/review, built in a temporary index: the person's checkout is untouched
        from gitgarden.history import review

        message = commit_message(result, trailers)
        result.commit = review.commit_to_review(root, writes, message, (settings.author_name, settings.author_email))
        if tag is not None:
            commits.tag_snapshot(root, *tag)
        result.hints.append(f"Review mode: committed to {review.REVIEW_BRANCH}; `gitgarden review` shows it, `gitgarden review accept` brings it in.")
        return
    for rel in sorted(writes):  # nothing is written while any file already differs from what the pass read
        if recovery.current_bytes(recovery.safe_target(root, rel)) != expected[rel]:
            raise recovery.ChangedUnderfoot(rel)
    recovery.write_pending(git_dir, recovery.Pending(result.pass_id, expected, writes))
    step("pending", "")
    committed = False
    try:
        for rel, data in writes.items():
            recovery.replace_checked(recovery.safe_target(root, rel), data, expected[rel], rel=rel, step=step)
        step("before_commit", "")
        message = commit_message(result, trailers)
        ident = (settings.author_name, settings.author_email)
        result.commit = commits.commit_blobs(root, writes, message=message, ident=ident, allow_empty=True, index=index, tag=tag) or ""
        committed = True
    finally:
        if not committed:
            found = recovery.recover(root, git_dir, lambda _pid: False)
            if found is not None and (found.restored or found.kept):
                result.recovery = found.summary()
        recovery.clear_pending(git_dir)
