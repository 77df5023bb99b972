"""`gitgarden reread LINE-ID|DAY…`: journal lines made unread again, without undoing any pass.

A line a pass read (a skip, or a page it landed in) is remembered by content in
`.gitgarden/read.json`; taking it out of there is all it takes for the next pass
to offer the line again. A line set aside is offered again too. The change is
committed by the person, with a record in `log/` (as `undo --reread` does), so
every clone agrees and `git log` shows who gave which lines back.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitgarden.errors import GitgardenError
from gitgarden.gardener import setaside
from gitgarden.history.common import write_and_commit_as_person
from gitgarden.history.records import log_path
from gitgarden.repo import gitrepo, recovery
from gitgarden.repo.states import blocking_state
from gitgarden.wiki import journal
from gitgarden.wiki.names import is_day

__all__ = ["RereadRefused", "RereadResult", "reread", "resolve_targets"]


class RereadRefused(GitgardenError):
    """`reread` cannot go ahead (a target names no journal line, the read position is being edited); nothing changed."""


@dataclass
class RereadResult:
    """What `reread` did: the lines now unread, those that already were, and the commit (none when nothing changed)."""

    lines: list[str] = field(default_factory=list)  # ids made unread (or offered again, when they were set aside)
    already_unread: list[str] = field(default_factory=list)
    commit: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def resolve_targets(lines: list[journal.JournalLine], targets: list[str]) -> list[journal.JournalLine]:
    """The journal lines `targets` name (`2026-11-29#3`: one line; `2026-11-29`: every line of that day),
    in journal order; RereadRefused naming the first target that names none."""
    by_id = {ln.id: ln for ln in lines}
    chosen: dict[str, journal.JournalLine] = {}
    for raw in targets:
        target = raw.strip()
        if journal.parse_id(target) is not None:
            if target not in by_id:
                day = target.partition("#")[0]
                count = sum(1 for ln in lines if ln.day == day)
                where = f"that day has {count} journal line(s)" if count else f"there is no day file for {day}"
                raise RereadRefused(f"no journal line {target}: {where} (a line id is DAY#LINE, as `gitgarden show` lists them)")
            chosen[target] = by_id[target]
        elif is_day(target):
            found = [ln for ln in lines if ln.day == target]
            if not found:
                raise RereadRefused(f"no journal lines on {target}: there is no day file for it, or it holds no line")
            chosen.update((ln.id, ln) for ln in found)
        else:
            raise RereadRefused(f"{target!r} is neither a line id (2026-11-29#3) nor a day (2026-11-29)")
    order = {ln.id: i for i, ln in enumerate(lines)}
    return sorted(chosen.values(), key=lambda ln: order[ln.id])


def reread(root: Path, journal_dir: Path, targets: list[str], *, now: datetime | None = None) -> RereadResult:
    """Make the journal lines `targets` name unread again (and offer set-aside ones again), committed
    by the person with a record; nothing is committed when every one was unread already."""
    now = now or datetime.now(UTC)
    if not targets:
        raise RereadRefused("name the lines to read again: line ids (2026-11-29#3) or days (2026-11-29)")
    blocked = blocking_state(root)
    if blocked:
        raise RereadRefused(f"reread refused, nothing changed: {blocked}")
    chosen = resolve_targets(journal.all_lines(journal_dir), targets)
    dirty = sorted(gitrepo.dirty_paths(root, [journal.READ_PATH, setaside.SET_ASIDE_PATH]))
    if dirty:
        raise RereadRefused(f"{', '.join(dirty)} has uncommitted changes: commit or restore it, then reread; nothing changed")
    read_text = _text(root, journal.READ_PATH)
    try:
        read = journal.load_read(read_text, strict=True)
    except journal.ReadPositionError as exc:
        raise RereadRefused(f"{exc}: mend it first") from None
    aside = setaside.load(_text(root, setaside.SET_ASIDE_PATH))
    result = RereadResult()
    left = {day: set(keys) for day, keys in read.items()}
    kept_aside = dict(aside)
    for line in chosen:
        was_read = line.key in left.get(line.day, set())
        was_aside = kept_aside.pop(f"{line.day}/{line.key}", None) is not None
        left.get(line.day, set()).discard(line.key)
        (result.lines if was_read or was_aside else result.already_unread).append(line.id)
    if not result.lines:
        return result
    contents: dict[str, bytes | None] = {}
    if left != read:
        contents[journal.READ_PATH] = journal.render_read(left).encode()
    if kept_aside != aside:
        contents[setaside.SET_ASIDE_PATH] = setaside.render(kept_aside).encode()
    person = gitrepo.person_identity(root)
    log_rel = log_path(now)
    record = {"kind": "reread", "lines": result.lines, "when": now.isoformat(), "by": f"{person[0]} <{person[1]}>"}
    contents[log_rel] = recovery.with_records(root, log_rel, [record])
    shown = ", ".join(result.lines[:10]) + (f" and {len(result.lines) - 10} more" if len(result.lines) > 10 else "")
    message = (
        f"gitgarden reread: {len(result.lines)} journal line(s) unread again\n\n"
        f"The next pass offers them again: {shown}.\n"
    )
    result.commit = write_and_commit_as_person(root, contents, message)
    return result


def _text(root: Path, rel: str) -> str | None:
    path = root / rel
    if path.is_symlink() or not path.is_file():
        return None
    return path.read_bytes().decode("utf-8", "replace")
