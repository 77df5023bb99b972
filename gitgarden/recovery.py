"""Crash safety: what a pass is about to write is recorded first, so a killed pass can be undone.

Before touching a file, the pass writes `<git dir>/gitgarden/pending.json`
with each path's original bytes (or absence). After its commit lands the
record is removed. The next pass that finds a record rolls back every file
that still holds what the dead pass wrote, leaves alone any file the person
changed since, and says so in its own record.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitgarden.errors import GitgardenError

__all__ = ["Pending", "write_pending", "clear_pending", "recover", "Recovery", "atomic_write", "safe_target", "with_records"]


@dataclass
class Pending:
    """What one pass is about to write: original and new bytes by path."""

    pass_id: str
    originals: dict[str, bytes | None]
    new: dict[str, bytes]


@dataclass
class Recovery:
    """What a recovery did."""

    pass_id: str
    restored: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # changed by someone since: left as they are

    def summary(self) -> str:
        parts = [f"recovered from interrupted pass {self.pass_id}: restored {len(self.restored)} file(s)"]
        if self.kept:
            parts.append(f"left {len(self.kept)} changed since as they are ({', '.join(self.kept)})")
        return "; ".join(parts)


def _path(git_dir: Path) -> Path:
    return git_dir / "gitgarden" / "pending.json"


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` in one rename, keeping its mode; never through a symlink."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.gitgarden-tmp")
    mode = path.stat().st_mode & 0o777 if path.exists() and not path.is_symlink() else 0o644
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def safe_target(root: Path, rel: str) -> Path:
    """The absolute path to write `rel`, refusing anything that would leave the project
    (an absolute path, `..`, or a symlink anywhere along the way)."""
    if rel.startswith("/") or ".." in rel.split("/"):
        raise GitgardenError(f"refusing to write {rel!r}: outside the project")
    target = root / rel
    parent = target.parent
    while parent != root:
        if parent.is_symlink():
            raise GitgardenError(f"refusing to write {rel!r}: {parent} is a symlink")
        parent = parent.parent
    if target.is_symlink():
        raise GitgardenError(f"refusing to write {rel!r}: it is a symlink")
    return target


def with_records(root: Path, rel: str, records: Sequence[Mapping[str, Any]]) -> bytes:
    """The bytes of the JSON-lines file `rel` with `records` appended (a missing final newline mended)."""
    target = safe_target(root, rel)
    old = target.read_bytes() if target.is_file() else b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    return old + b"".join((json.dumps(r, sort_keys=True) + "\n").encode() for r in records)


def write_pending(git_dir: Path, pending: Pending) -> None:
    """Record what is about to be written (durably, before the first write)."""
    record = {
        "pass_id": pending.pass_id,
        "files": {
            p: {"original": _b64(pending.originals.get(p)), "new": _b64(data)} for p, data in pending.new.items()
        },
    }
    atomic_write(_path(git_dir), json.dumps(record).encode())


def clear_pending(git_dir: Path) -> None:
    """The pass's writes are committed (or undone): forget the record."""
    _path(git_dir).unlink(missing_ok=True)


def recover(root: Path, git_dir: Path, is_committed: Callable[[str], bool]) -> Recovery | None:
    """Roll back the writes of a pass that died before committing them; None when there were none.

    `is_committed(pass_id)` tells whether the pass's commit landed (it died
    after committing, before forgetting the record): then nothing is undone.
    """
    path = _path(git_dir)
    try:
        record = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, json.JSONDecodeError):
        clear_pending(git_dir)  # a torn record means no file was written yet (it is written first)
        return Recovery(pass_id="unknown")
    result = Recovery(pass_id=str(record.get("pass_id", "unknown")))
    if is_committed(result.pass_id):
        clear_pending(git_dir)
        return None
    for rel, item in record.get("files", {}).items():
        target = root / rel
        original = None if item.get("original") is None else base64.b64decode(item["original"])
        new = base64.b64decode(item["new"])
        try:
            current = None if not target.exists() or target.is_symlink() else target.read_bytes()
        except OSError:
            current = None
        if current == original:
            continue  # never written, or already back
        if current == new or (current is not None and original is not None and new.startswith(current)):
            if original is None:
                target.unlink()
            else:
                atomic_write(target, original)
            result.restored.append(rel)
        else:
            result.kept.append(rel)
    clear_pending(git_dir)
    return result
