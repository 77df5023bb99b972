"""Why each journal line stands where it does, read from the passes' records: the page a line landed
on, a skip's reason, the request that failed while the line was offered, the refusal that left it
unread, the pass that was rejected or undone, the person's `reread`.

The read position (`.gitgarden/read.json`) says whether a line is read; the records say why. The
newest pass that mentions a line speaks for it, and only when what it says agrees with the line's
state now (a line a pass read and the person gave back is unread, whatever that pass wrote) and,
where the record keeps the line's words, with its text now (a line id names a line number, which an
edit of the day file moves). Every field is read defensively: records of older versions lack most of
them, and a record written by hand may hold anything.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.gardener.reread import RereadResult, reread
from gitgarden.history.passlog import PassEntry, passes, passes_state
from gitgarden.history.records import LOG_DIR, records_in

if TYPE_CHECKING:
    from gitgarden.project import Project

__all__ = ["Story", "READ_KINDS", "UNREAD_KINDS", "line_stories", "KeptStories", "read_again"]

# What a story may say of a read line, and of an unread one.
READ_KINDS = frozenset({"on a page", "skipped", "undone"})
UNREAD_KINDS = frozenset({"failed", "stopped", "left unread", "rejected", "read again"})
_ENDED = {"failed": "failed", "refused": "failed", "stopped": "stopped", "stood_down": "stopped"}


@dataclass(frozen=True)
class Story:
    """What the newest word on a line says: its kind (`READ_KINDS` or `UNREAD_KINDS`), why in words,
    the pass that said it (or ''), the pages it landed on, and the line's words as the record kept them
    ('' when it kept none)."""

    kind: str
    reason: str
    pass_id: str = ""
    pages: tuple[str, ...] = ()
    text: str = ""
    when: str = ""


def _items(record: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = record.get(key)
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _ids(record: dict[str, Any], key: str) -> list[str]:
    value = record.get(key)
    return [str(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _first_refusal(record: dict[str, Any], line: str) -> str:
    """The refusal that most likely held `line` unread: a rule-11 verdict citing it, else the first one."""
    for g in _items(record, "grounding"):
        if line in _ids(g, "cited"):
            return f"refused: rule 11 (grounded) on {g.get('page', '?')}: {str(g.get('sentence', ''))[:160]}"
    refusals = _ids(record, "refusals")
    return f"an operation citing it was refused: {refusals[0][:200]}" if refusals else "an operation citing it was refused"


def _of_pass(entry: PassEntry) -> dict[str, Story]:
    """What one pass's record says of each line it offered."""
    rec = entry.record or {}
    pid, when = entry.pass_id, entry.when
    out: dict[str, Story] = {}

    def say(line: Any, kind: str, reason: str, text: Any = "", pages: tuple[str, ...] = ()) -> None:
        if isinstance(line, str) and line and line not in out:
            out[line] = Story(kind, reason, pid, pages, text if isinstance(text, str) else "", when)

    if entry.review == "rejected":
        for line in _ids(rec, "offered"):
            say(line, "rejected", f"pass {pid} was rejected in review")
        return out
    landed: dict[str, list[str]] = {}
    texts: dict[str, str] = {}
    for prov in _items(rec, "provenance"):
        for cited in _items(prov, "lines"):
            cited_id, page = cited.get("id"), prov.get("page")
            if isinstance(cited_id, str) and isinstance(page, str):
                landed.setdefault(cited_id, [])
                if page not in landed[cited_id]:
                    landed[cited_id].append(page)
                texts[cited_id] = str(cited.get("text") or "")
    for line, pages in landed.items():
        if entry.undone_by:
            say(line, "undone", f"pass {pid} wrote it on {', '.join(pages)}, and was undone", texts[line])
        else:
            say(line, "on a page", f"on {', '.join(pages)}", texts[line], tuple(pages))
    for skip in _items(rec, "skipped"):
        say(skip.get("line") or skip.get("id"), "skipped", str(skip.get("reason") or "no reason given"), skip.get("text"))
    ended = _ENDED.get(entry.outcome)
    detail = str(rec.get("detail") or entry.message or entry.outcome.replace("_", " "))
    for left in _items(rec, "unread"):  # the lines a pass offered and left unread, with why (newer records)
        reason = str(left.get("reason") or "left unread")
        kind = "failed" if reason.startswith("request failed") else "left unread"
        if kind == "failed" and ended == "failed":  # the request that failed ended the pass: say which pass
            reason = f"pass {pid} failed: {reason.removeprefix('request failed: ')}"
        say(left.get("line") or left.get("id"), kind, reason, left.get("text"))
    for line in _ids(rec, "offered"):
        if ended == "failed":
            say(line, "failed", f"pass {pid} failed: {detail}")
        elif ended == "stopped":
            say(line, "stopped", f"pass {pid} {'stood down' if entry.outcome == 'stood_down' else 'was stopped'} before it wrote anything")
    for line in _ids(rec, "not_cited"):
        say(line, "left unread", f"offered to pass {pid}; no operation that landed cited it")
    for line in _ids(rec, "offered"):
        say(line, "left unread", _first_refusal(rec, line))
    return out


def _rereads(root: Path) -> list[tuple[str, list[str]]]:
    """(when, line ids) of every `gitgarden reread` record under log/."""
    folder = root / LOG_DIR
    out: list[tuple[str, list[str]]] = []
    if not folder.is_dir() or folder.is_symlink():
        return out
    for path in sorted(folder.glob("*.jsonl")):
        if path.is_file() and not path.is_symlink():
            for rec in records_in(path.read_text(encoding="utf-8", errors="replace")):
                if rec.get("kind") == "reread":
                    out.append((str(rec.get("when") or ""), _ids(rec, "lines")))
    return out


def line_stories(root: Path) -> dict[str, Story]:
    """The newest word on every journal line some pass (or `reread`) spoke of, by line id."""
    stories: dict[str, Story] = {}
    for entry in passes(root):  # newest first
        if entry.record is None or entry.record.get("dry_run"):
            continue
        for line, story in _of_pass(entry).items():
            stories.setdefault(line, story)
    for when, lines in _rereads(root):
        for line in lines:
            known = stories.get(line)
            if known is None or known.when <= when:
                stories[line] = Story("read again", f"made unread again with gitgarden reread ({when[:16].replace('T', ' ')})", when=when)
    return stories


class KeptStories:
    """`line_stories` kept between the requests of a long-running reader (the web app), read again
    only when what they come from changed: HEAD, the review branch, the record files
    (`passlog.passes_state`, which covers the `reread` records under log/ too)."""

    def __init__(self) -> None:
        self._state: tuple[object, ...] | None = None
        self._stories: dict[str, Story] = {}
        self._lock = threading.Lock()

    def get(self, root: Path) -> dict[str, Story]:
        """The stories of the project at `root` now."""
        state = passes_state(root)
        with self._lock:
            if state != self._state:
                self._stories, self._state = line_stories(root), state
            return self._stories


def read_again(project: Project, targets: list[str], *, now: datetime) -> RereadResult:
    """`gitgarden reread LINE-ID|DAY…`: the lines made unread again (set-aside ones offered again), in a
    commit of the person's with a record; no pass is undone (`gardener.reread`)."""
    return reread(project.root, project.journal, targets, now=now)

