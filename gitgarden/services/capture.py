"""Capturing, as every face captures: `gitgarden capture`, the web app's capture box and the agents'
`capture` tool call `capture` and show what it returns.

The words become journal lines in one place (`wiki.journal.split_capture`, through
`wiki.journal.capture`, which appends them to today's day file under its lock): the same lines,
the same refusals and the same ids from every face. Who captured goes to the capture log only
when an agent's door names its client; a person's capture leaves no entry. Nothing is committed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gitgarden.errors import GitgardenError
from gitgarden.project import Project, journal_went_missing
from gitgarden.repo import gitdir
from gitgarden.wiki import captured, journal

__all__ = ["Capture", "capture"]


@dataclass(frozen=True)
class Capture:
    """What one capture wrote: the day file (project-relative), its lines as stored and their ids,
    how many began like a heading (stored as `\\# …`), and warnings for the person."""

    file: str
    lines: list[str]
    ids: list[str]
    escaped: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def message(self) -> str:
        """The capture in one line, as every face says it."""
        said = f"Captured {len(self.ids)} line(s) in {self.file} (not committed: the next pass reads them)."
        if self.escaped:
            said += f" {self.escaped} began like a heading and are stored as '\\# …' so a pass reads them."
        return said

    def to_json(self) -> dict[str, Any]:
        """What the agents' door returns."""
        return {"ids": list(self.ids), "file": self.file, "message": self.message, "warnings": list(self.warnings)}


def capture(project: Project, text: str, now: datetime, *, by: str | None = None) -> Capture:
    """Append `text` to the day file of `now`'s local day, one journal line per non-blank line.

    `by` is the name an agent's MCP client gave ("" when it gave none: still an agent's line), kept
    in the capture log as the client's claim and never in the line; a person's capture passes None. Refused with one line (CaptureError: empty, over the limit, not
    UTF-8; GitgardenError: the file could not be written), writing nothing.
    """
    missing = journal_went_missing(project.root, project.layout.journal_dir)
    log = None
    if by is not None:
        try:
            log = captured.log_path(gitdir.git_dir(project.root))
        except GitgardenError:
            log = None  # who captured is a convenience: the line is captured all the same
    try:
        done = journal.capture(project.journal, text, now.astimezone(), by=by, log=log)
    except OSError as exc:
        raise GitgardenError(f"capture failed: {exc}") from None
    file = done.path.relative_to(project.root).as_posix()
    warnings = []
    if missing:
        folder = project.journal.relative_to(project.root).as_posix()
        warnings.append(
            f"the journal folder {folder}/ was missing and was made again; if you renamed it, "
            f"set journal_dir to its new name (`gitgarden config set journal_dir NEW`) and move {file} there"
        )
    escaped = sum(1 for stored in done.lines if stored.startswith("\\") and journal.is_heading(stored[1:]))
    return Capture(file, list(done.lines), list(done.ids), escaped, warnings)
