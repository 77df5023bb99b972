"""The journal: day files, line ids, what has been read, and capture.

A journal line's id is its day and 1-based line number (`2026-11-29#14`).
What was read is remembered by content — a key per (day, text, occurrence) —
so a line edited after it was read counts as unread again. The read position
lives in `.gitgarden/read.json` and advances only inside a pass commit.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
from collections.abc import Iterable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

try:  # sha1 without OpenSSL's start-up cost (hashlib loads _hashlib first): `status` counts lines
    from _sha1 import sha1
except ImportError:  # pragma: no cover - an interpreter without the builtin module
    from hashlib import sha1

from gitgarden.errors import GitgardenError
from gitgarden.wiki import captured
from gitgarden.wiki.names import is_day

__all__ = [
    "JournalLine",
    "LIST_MARK",
    "READ_PATH",
    "day_path",
    "parse_day",
    "is_heading",
    "headings",
    "journal_headings",
    "heading_warning",
    "capture_line",
    "all_lines",
    "unread_lines",
    "load_read",
    "ReadPositionError",
    "render_read",
    "mark_read",
    "capture",
    "Captured",
    "CaptureError",
    "CAPTURE_LIMIT",
    "capture_refusal",
    "split_capture",
    "not_read_names",
    "not_read_warning",
]

READ_PATH = ".gitgarden/read.json"
# One capture's text at most (UTF-8 bytes): a day's notes fit many times over; a pasted file
# does not belong in the journal, and no prompt could offer its lines whole.
CAPTURE_LIMIT = 100_000
_ID_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})#(\d+)$")
# What a captured text may not hold. Control characters (C0 but tab and the line ends, DEL, C1):
# printed raw they drive a terminal (ESC ] 0 retitles it, ESC ] 52 writes the clipboard), and one NUL
# makes git call the whole day file binary. The breaks Python's splitlines() takes besides \n and \r
# (VT, FF, FS, GS, RS, NEL, U+2028, U+2029) would turn one captured line into several.
_BREAKS = {0x0B: "a vertical tab", 0x0C: "a form feed", 0x1C: "a file separator", 0x1D: "a group separator",
           0x1E: "a record separator", 0x85: "a next-line character", 0x2028: "a line separator",
           0x2029: "a paragraph separator"}  # fmt: skip
_REFUSED = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")
# A Markdown heading (CommonMark's ATX heading): up to three spaces, one to six `#`, then a space, a
# tab or the end of the line. `#idea` is a tag and `####### x` text: both are journal lines.
_HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
# A Markdown list mark a journal line may open with: `- `, `* `, `+ `, a task box (`- [ ] `) or `1. `.
# Obsidian writes its daily notes as lists; the mark is how the line is set out, not what it says.
LIST_MARK = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")


@dataclass(frozen=True, slots=True)
class JournalLine:
    """One captured fact: where it stands and what it says."""

    day: str
    lineno: int
    text: str
    key: str

    @property
    def id(self) -> str:
        return f"{self.day}#{self.lineno}"

    @property
    def said(self) -> str:
        """The line's words without the list mark it may open with: `- Decision: oak` says `Decision: oak`."""
        return LIST_MARK.sub("", self.text, count=1).strip()


def day_path(day: str) -> str:
    """The project-relative path of a day file (in the layout in force)."""
    from gitgarden.wiki import layout

    return layout.current().day_path(day)


def _key(day: str, text: str, occurrence: int) -> str:
    digest = sha1(f"{day}\0{text}\0{occurrence}".encode()).hexdigest()
    return digest[:16]


def is_heading(raw: str) -> bool:
    """True for a Markdown heading line (`# Tasks`, `## Notes`, a lone `#`): structure, not a fact."""
    return bool(_HEADING.match(raw))


def parse_day(day: str, text: str) -> list[JournalLine]:
    """The journal lines of one day file: every non-blank line that is not a Markdown heading."""
    lines: list[JournalLine] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or is_heading(raw):
            continue
        seen[line] = seen.get(line, 0) + 1
        lines.append(JournalLine(day, n, line, _key(day, line, seen[line])))
    return lines


def headings(day: str, text: str) -> list[tuple[int, str]]:
    """The heading lines of one day file (line number, text): what a pass does not read."""
    return [(n, raw.strip()) for n, raw in enumerate(text.splitlines(), start=1) if is_heading(raw)]


def journal_headings(journal_dir: Path, since: str = "") -> list[dict[str, str]]:
    """Every heading line of the day files from `since` on, as `{"id", "text"}`: named by `status` and
    `health`, since a person's words there never reach a pass."""
    out: list[dict[str, str]] = []
    if not journal_dir.is_dir():
        return out
    for path in sorted(journal_dir.glob("*.md")):
        if path.is_symlink() or not path.is_file() or not is_day(path.stem) or path.stem < since:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        if "#" in text:
            out.extend({"id": f"{path.stem}#{n}", "text": line} for n, line in headings(path.stem, text))
    return out


def heading_warning(found: list[dict[str, str]], limit: int = 3) -> str:
    """One line counting and naming the heading lines of the journal, and what to do."""
    shown = ", ".join(f"{h['id']} {h['text'][:60]!r}" for h in found[:limit])
    more = f" and {len(found) - limit} more" if len(found) > limit else ""
    return (
        f"{len(found)} heading line(s) in the journal are not read by a pass ({shown}{more}): a heading is structure, "
        "not a fact; to have one read, take away the leading '# ' (or write it as '\\# …')"
    )


def all_lines(journal_dir: Path) -> list[JournalLine]:
    """Every journal line of every day file, oldest day first. Symlinks are not followed."""
    out: list[JournalLine] = []
    if not journal_dir.is_dir():
        return out
    for path in sorted(journal_dir.glob("*.md")):
        if path.is_symlink() or not path.is_file() or not is_day(path.stem):
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        out.extend(parse_day(path.stem, text))
    return out


def not_read_names(journal_dir: Path) -> list[str]:
    """The entries of the journal folder a pass never reads: anything but `YYYY-MM-DD.md` files
    named after a real date (`notadate.md`, `2026-13-45.md`, `2026-02-30.md`, a symlink, a folder).
    Hidden entries (`.gitkeep`) are left out."""
    try:
        entries = sorted(os.scandir(journal_dir), key=lambda e: e.name)
    except OSError:
        return []
    names: list[str] = []
    for entry in entries:
        if entry.name.startswith("."):
            continue
        stem, dot, ext = entry.name.rpartition(".")
        if entry.is_symlink():
            names.append(f"{entry.name} (a symlink)")
        elif entry.is_dir():
            names.append(f"{entry.name}/")
        elif not (dot and ext == "md" and is_day(stem)):
            names.append(entry.name)
    return names


def not_read_warning(names: list[str], limit: int = 5) -> str:
    """One line naming the journal files a pass does not read, and why."""
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")
    return (
        f"these files in {_journal_dir()} are not read: {shown}; a day file is named after a real date, "
        "YYYY-MM-DD.md (rename it to hold its lines)"
    )


def _journal_dir() -> str:
    from gitgarden.wiki import layout

    return layout.current().journal_dir


class CaptureError(GitgardenError):
    """A capture refused (empty, or over CAPTURE_LIMIT): nothing was written."""


class ReadPositionError(ValueError):
    """`.gitgarden/read.json` exists but cannot be read as a read position."""


def load_read(text: str | None, *, strict: bool = False) -> dict[str, set[str]]:
    """The read position from `.gitgarden/read.json`'s text (empty when missing).

    Unreadable text counts as empty, except with `strict` (what a pass uses):
    then it raises ReadPositionError, because a pass that took it for empty
    would offer every journal line again and promote them all twice.
    """
    if not text:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if strict:
            raise ReadPositionError(f"{READ_PATH} is not valid JSON (line {exc.lineno})") from None
        return {}
    if not isinstance(data, dict):
        if strict:
            raise ReadPositionError(f"{READ_PATH} is not a JSON object")
        return {}
    return {str(day): {str(k) for k in keys} for day, keys in data.items() if isinstance(keys, list)}


def render_read(read: Mapping[str, Iterable[str]]) -> str:
    """The read position as stable JSON (sorted, one day a line) for small diffs."""
    days = sorted(d for d, keys in read.items() if keys)
    body = ",\n".join(f"  {json.dumps(d)}: {json.dumps(sorted(read[d]))}" for d in days)
    return "{\n" + body + "\n}\n" if days else "{}\n"


def unread_lines(lines: Iterable[JournalLine], read: Mapping[str, set[str]], since: str = "") -> list[JournalLine]:
    """The lines whose content key is not in the read position, from the day `since` on
    (`journal_from`: the days before it are the person's history, left as they are and not offered)."""
    return [ln for ln in lines if ln.day >= since and ln.key not in read.get(ln.day, set())]


def mark_read(read: Mapping[str, set[str]], lines: Iterable[JournalLine]) -> dict[str, set[str]]:
    """A new read position with `lines` added."""
    out = {d: set(keys) for d, keys in read.items()}
    for ln in lines:
        out.setdefault(ln.day, set()).add(ln.key)
    return out


def parse_id(line_id: str) -> tuple[str, int] | None:
    """(day, line number) of an id like `2026-11-29#14`, or None when it is not one."""
    m = _ID_RE.match(line_id.strip())
    return (m.group(1), int(m.group(2))) if m else None


def capture_line(line: str) -> str:
    """A captured line as it is stored: a line a pass would take for a heading gets its `#` escaped
    (`\\# Meeting …`, shown as `# Meeting …` by Markdown), so the person's words are read."""
    return "\\" + line if is_heading(line) else line


def split_capture(text: str) -> list[str]:
    """Captured text as journal lines: one per non-empty line, whitespace trimmed, never a heading."""
    return [capture_line(ln.strip()) for ln in text.splitlines() if ln.strip()]


@dataclass(frozen=True)
class Captured:
    """What one capture wrote: the day file, the lines as written, and their ids."""

    path: Path
    lines: list[str]
    ids: list[str]


def capture_refusal(text: str) -> str | None:
    """Why `text` cannot be captured, in one line (None when it can): not UTF-8, over
    CAPTURE_LIMIT bytes, no non-blank line, or a character a journal line may not hold — a control
    character, or a line break other than \\n and \\r — named by its code point (`U+001B`).
    The one policy every face's capture follows (the CLI, `gitgarden mcp`, the web app)."""
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError as exc:  # an argument or stdin that was not UTF-8 (surrogate-escaped)
        return f"nothing captured: the text is not UTF-8 (at character {exc.start + 1}); capture it as UTF-8"
    if size > CAPTURE_LIMIT:
        return f"nothing captured: the text is {size:,} bytes, over the {CAPTURE_LIMIT:,}-byte limit of one capture; capture it in smaller parts"
    found = _REFUSED.search(text)
    if found:
        code = ord(found.group())
        what = _BREAKS.get(code)
        why = f"{what}, which would split one line into several" if what else "a control character, which a journal line may not hold"
        return f"nothing captured: the text holds U+{code:04X} ({why}) at character {found.start() + 1}; take it out and capture again"
    if not split_capture(text):
        return "nothing to capture: give text with at least one non-blank line"
    return None


def capture(journal_dir: Path, text: str, now: datetime, *, by: str | None = None, log: Path | None = None) -> Captured:
    """Append `text` to today's day file (one line per non-empty line); never commits.

    Refused with CaptureError, writing nothing, for what `capture_refusal` names (no line, over
    CAPTURE_LIMIT bytes, a control character or a stray line break). Captures running at once (the CLI, `gitgarden mcp`, the web app) each
    write their lines together under an flock of the day file: none is lost or interleaved,
    and each knows the ids its lines got. `by` (the name an agent's client gave, "" for none; None
    for the person) goes to the capture log `log` (`captured.log_path`), never into the journal:
    the line stays the words captured.
    """
    refusal = capture_refusal(text)
    if refusal is not None:
        raise CaptureError(refusal)
    lines = split_capture(text)
    day = f"{now:%Y-%m-%d}"
    path = journal_dir / f"{day}.md"
    journal_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(f"{path} is a symlink; capture does not follow it") from None
        raise
    with open(fd, "r+b", buffering=0) as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)  # released when the file closes
        old = _read_all(fh.fileno())
        prefix = b"\n" if old and not old.endswith(b"\n") else b""
        data = prefix + "".join(ln + "\n" for ln in lines).encode("utf-8")
        _write_all(fh.fileno(), data)
        whole = (old + data).decode("utf-8", "replace")
        first = len(whole.splitlines()) - len(lines) + 1  # numbered as parse_day numbers them
        keys = {ln.lineno: ln.key for ln in parse_day(day, whole) if ln.lineno >= first}
        if by is not None and log is not None:
            with suppress(OSError):  # who captured is a convenience: the lines are captured all the same
                captured.append(log, [(day, n, keys[n]) for n in range(first, first + len(lines)) if n in keys], by, now)
    return Captured(path, lines, [f"{day}#{n}" for n in range(first, first + len(lines))])


def _read_all(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 16, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    """One write when the kernel takes it whole (it does for a regular file), the rest after."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
