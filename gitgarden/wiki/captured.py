"""Who captured a journal line: the capture log that an agent's capture writes and a pass reads.

A line captured through `gitgarden mcp` carries the name the MCP client gave
(`clientInfo.name`: `claude-code`, `codex`, `cursor`…). That name is the client's
claim, nothing more: any client may give any name, the person's own included, or
none (`NO_NAME` then). What the log proves is that the line came through an
agent's door, whatever the name says; a line with an entry is never the
person's. The name is kept beside the journal, never in it, so the line stays
the words captured. The log is
`<git dir>/gitgarden/captured.jsonl`, one JSON object a line (`day`, `line`,
`key`, `by`, `at`), machine-local like the facts cache. A pass looks up the
content keys of the lines it marks read and records who captured them in its
record (`captured_by`), which `gitgarden log` and `show` read; once read, a
line's entry is dropped from the log. A line captured on another machine, or
by the person, has no entry: it was captured by the person.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = ["log_path", "clean_name", "append", "load", "who", "by_line", "prune", "NO_NAME", "claim"]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]+")
_NAME_MAX = 64
NO_NAME = "(no name given)"  # what the log keeps for a client that gave none: still an agent's line


def claim(name: str) -> str:
    """How a client's name is shown: as what the client says, never as who captured."""
    return "an MCP client that gave no name" if name == NO_NAME else f'an MCP client calling itself "{name}" (as the client says)'


def log_path(git_dir: Path) -> Path:
    """The capture log of the repository whose git dir is `git_dir`."""
    return git_dir / "gitgarden" / "captured.jsonl"


def clean_name(name: object) -> str:
    """A client's name as it may be shown: one line, no control characters, at most 64 characters."""
    if not isinstance(name, str):
        return ""
    return " ".join(_CONTROL.sub(" ", name).split())[:_NAME_MAX]


def append(path: Path, lines: Sequence[tuple[str, int, str]], by: str, when: datetime) -> None:
    """Record that a client calling itself `by` captured `lines` ((day, line number, content key)
    each) at `when`. An empty name is recorded too (as NO_NAME): the line is an agent's all the same."""
    name = clean_name(by) or NO_NAME
    if not lines:
        return
    data = "".join(
        json.dumps({"day": day, "line": n, "key": key, "by": name, "at": when.isoformat()}, ensure_ascii=False) + "\n"
        for day, n, key in lines
    ).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a prune rewrites the file: an append never lands in between
        os.write(fd, data)
    finally:
        os.close(fd)


def load(path: Path) -> dict[tuple[str, str], str]:
    """Who captured each line the log knows: (day, content key) -> name. A missing or torn log
    reads as what it holds (a line that is not JSON is skipped): it only ever names agents."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    out: dict[tuple[str, str], str] = {}
    for raw in text.splitlines():
        entry = _entry(raw)
        if entry is not None:
            out[(entry["day"], entry["key"])] = entry["by"]
    return out


def _entry(raw: str) -> dict[str, Any] | None:
    try:
        entry = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) and entry[k] for k in ("day", "key", "by")):
        return None
    return entry


def by_line(log: Mapping[tuple[str, str], str], lines: Iterable[Any]) -> dict[str, str]:
    """The lines of `lines` (JournalLines) an agent captured: line id -> the name its client gave."""
    return {ln.id: log[(ln.day, ln.key)] for ln in lines if (ln.day, ln.key) in log}


def who(log: Mapping[tuple[str, str], str], lines: Iterable[Any]) -> dict[str, list[str]]:
    """The names the clients that captured `lines` (JournalLines) gave, each with the ids of its
    lines, in line order."""
    out: dict[str, list[str]] = {}
    for ln in lines:
        name = log.get((ln.day, ln.key))
        if name:
            out.setdefault(name, []).append(ln.id)
    return out


def prune(path: Path, read: Mapping[str, set[str]]) -> None:
    """Drop the entries of lines the read position `read` holds (a pass has recorded who captured
    them). Never fails: the log is only a convenience."""
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with os.fdopen(os.dup(fd), "rb") as fh:
            raw = fh.read().decode("utf-8", "replace").splitlines()
        kept = [
            line for line in raw
            if (entry := _entry(line)) is not None and entry["key"] not in read.get(entry["day"], set())
        ]  # fmt: skip
        if len(kept) < len(raw):
            data = "".join(line + "\n" for line in kept).encode("utf-8")
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)
    except OSError:
        pass
    finally:
        os.close(fd)
