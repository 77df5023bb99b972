"""The records passes leave: a month's `log/YYYY-MM.jsonl` in the project (committed with the
pass), and this machine's attempts that made no commit in the git dir. Written by the gardener,
read back by the history and the scheduler.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from gitgarden.wiki.layout import LOG_DIR

__all__ = ["LOG_DIR", "log_path", "attempts_path", "append_attempt", "read_attempts", "records_in", "recent_skips"]


def log_path(now: datetime) -> str:
    """The month's log file a record goes to, relative to the project root."""
    return f"{LOG_DIR}/{now:%Y-%m}.jsonl"


def attempts_path(git_dir: Path) -> Path:
    """Where the records of attempts that made no commit go: the git dir, outside the person's work tree.

    They are this machine's history of tries (a stop, a failure), not the
    wiki's: `gitgarden log` lists them, no pass commits them.
    """
    return git_dir / "gitgarden" / "attempts.jsonl"


def append_attempt(git_dir: Path, record: dict[str, Any]) -> None:
    """Add one attempt's record (a line of JSON) to the attempts file."""
    path = attempts_path(git_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    line = (json.dumps(record, sort_keys=True) + "\n").encode()
    with path.open("a+b") as fh:
        if fh.tell() > 0:
            fh.seek(-1, 2)
            if fh.read(1) != b"\n":
                line = b"\n" + line  # a torn last line (a killed writer) must not swallow this one
        fh.write(line)


def read_attempts(git_dir: Path) -> list[dict[str, Any]]:
    """The attempt records, oldest first (a torn or foreign line is skipped)."""
    path = attempts_path(git_dir)
    if not path.is_file() or path.is_symlink():
        return []
    return records_in(path.read_text(encoding="utf-8", errors="replace"))


def records_in(text: str) -> list[dict[str, Any]]:
    """The JSON-object lines of a record file, in order (a torn or foreign line is skipped)."""
    out = []
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


def recent_skips(root: Path, passes: int = 5) -> dict[str, Any]:
    """How many journal lines the last `passes` committed passes read only because a skip cited them:
    `{"passes": n, "lines": k, "last": [the newest pass's skipped entries]}` from `log/` (file reads only)."""
    folder = root / LOG_DIR
    found: list[dict[str, Any]] = []
    if folder.is_dir() and not folder.is_symlink():
        for path in sorted(folder.glob("*.jsonl"), reverse=True):  # newest month first
            if path.is_symlink() or not path.is_file():
                continue
            rows = records_in(path.read_text(encoding="utf-8", errors="replace"))
            found = [r for r in rows if r.get("pass_id") and r.get("kind") is None] + found
            if len(found) >= passes:
                break
    found = found[-passes:]
    lines = sum(len(r["skipped"]) for r in found if isinstance(r.get("skipped"), list))
    last = found[-1].get("skipped") if found and isinstance(found[-1].get("skipped"), list) else []
    return {"passes": len(found), "lines": lines, "last": last}
