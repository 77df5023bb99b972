"""Writing a pass down: the journal commit, the pass commit with its trailers, the record.

Everything here touches the work tree or git; what is written was decided
and guarded before. Writes are recorded first (recovery.py) so a killed pass
is rolled back by the next one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from gitgarden import gitrepo, journal, recovery, tidy
from gitgarden.outcome import PassResult
from gitgarden.tree import Tree

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from gitgarden.config import Settings
    from gitgarden.project import Project

__all__ = ["roll_back", "commit_message", "last_map_chars", "is_committed", "commit_journal", "diff", "write_and_commit"]


def roll_back(root: Path, git_dir: Path, is_committed: Callable[[str], bool]) -> recovery.Recovery | None:
    """Undo the uncommitted writes of a pass (recovery.recover) and unstage what it put back:
    a pass `git add`s its files right before committing, so a dead or refused commit leaves them staged."""
    found = recovery.recover(root, git_dir, is_committed)
    if found is not None and found.restored:
        gitrepo.git(root, "reset", "-q", "--", *found.restored, check=False)
    return found


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
    summary = ", ".join(bits) or "journal read"
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
    """The map's size when the last committed pass left it (from the newest log record that says)."""
    if not project.log.is_dir():
        return None
    for path in sorted(project.log.glob("*.jsonl"), reverse=True):
        for line in reversed(path.read_text(encoding="utf-8", errors="replace").splitlines()):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and record.get("map_chars") is not None:
                return int(record["map_chars"])
    return None


def is_committed(root: Path, pass_id: str) -> bool:
    """True when one of the last commits carries `Gardener-Pass: <pass_id>` (it died after committing)."""
    out = gitrepo.git(root, "log", "-n", "20", "--format=%(trailers:key=Gardener-Pass,valueonly)", check=False)
    return pass_id in out.decode(errors="replace").split()


def commit_journal(root: Path, offered: list[journal.JournalLine], pass_id: str) -> str:
    """Commit the day files of the lines read, under the person's identity, when they are uncommitted."""
    days = sorted({ln.day for ln in offered})
    paths = [journal.day_path(d) for d in days]
    dirty = gitrepo.dirty_paths(root, paths)
    todo = [p for p in paths if p in dirty]
    if not todo:
        return ""
    message = f"journal: {', '.join(d for d in days if journal.day_path(d) in dirty)}\n\nCommitted by gitgarden before pass {pass_id} read these lines.\n"
    gitrepo.commit_paths(root, todo, message=message, author=None)
    return gitrepo.head(root) or ""


def diff(base: Tree, tree: Tree, paths: list[str]) -> str:
    """A unified diff of `paths` between two trees, pages first (what a dry run shows)."""
    import difflib

    chunks: list[str] = []
    pages_first = sorted(paths, key=lambda p: (not p.startswith("wiki/"), p))
    for path in pages_first:
        old = tidy.read_text(base, path) if path in base else ""
        new = tidy.read_text(tree, path) if path in tree else ""
        chunks.extend(
            difflib.unified_diff(
                (old or "").splitlines(keepends=True),
                (new or "").splitlines(keepends=True),
                fromfile=f"a/{path}" if path in base else "/dev/null",
                tofile=f"b/{path}",
            )
        )
    return "".join(chunks)


def write_and_commit(
    project: Project,
    settings: Settings,
    result: PassResult,
    writes: dict[str, bytes],
    git_dir: Path,
    now: Callable[[], datetime],
) -> None:
    """Write the pass's files (recorded first, for recovery) and commit exactly them, or to review."""
    root = project.root
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
    if settings.review:
        trailers["Review"] = "waiting"  # the pass went to gitgarden/review: `review` decisions count it
    if result.health_after:
        b, a = result.health_before, result.health_after
        trailers["Health"] = ", ".join(
            f"{k} {b.get(k, 0)}->{a.get(k, 0)}" for k in ("orphans", "broken_links", "over_budget", "map_chars", "unread_lines")
        )
    if result.snapshot:
        trailers["Snapshot"] = result.snapshot
    result.finished = now().isoformat()
    log_rel = result.record_path
    writes[log_rel] = recovery.with_records(root, log_rel, [result.record()])
    if settings.review:  # to gitgarden/review, built in a temporary index: the person's checkout is untouched
        from gitgarden import review

        message = commit_message(result, trailers)
        result.commit = review.commit_to_review(root, writes, message, (settings.author_name, settings.author_email))
        result.hints.append(f"Review mode: committed to {review.REVIEW_BRANCH}; `gitgarden review` shows it, `gitgarden review accept` brings it in.")
        return
    originals: dict[str, bytes | None] = {}
    for rel in writes:
        target = recovery.safe_target(root, rel)
        originals[rel] = target.read_bytes() if target.exists() else None
    recovery.write_pending(git_dir, recovery.Pending(result.pass_id, originals, writes))
    committed = False
    try:
        for rel, data in writes.items():
            recovery.atomic_write(recovery.safe_target(root, rel), data)
        message = commit_message(result, trailers)
        gitrepo.commit_paths(root, sorted(writes), message=message, author=(settings.author_name, settings.author_email))
        committed = True
        result.commit = gitrepo.head(root) or ""
    finally:
        if not committed:
            found = roll_back(root, git_dir, lambda _pid: False)
            if found is not None:
                result.recovery = found.summary()
        recovery.clear_pending(git_dir)
