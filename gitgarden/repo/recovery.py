"""Crash safety: what a pass is about to write is recorded first, so a killed pass can be undone.

Before touching a file, the pass writes `<git dir>/gitgarden/pending.json`
with each path's original bytes (or absence). After its commit lands the
record is removed. The next pass that finds a record rolls back every file
that still holds what the dead pass wrote, leaves alone any file the person
changed since, and says so in its own record.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitgarden.atomic import atomic_write, tmp_beside, write_beside
from gitgarden.errors import GitgardenError

__all__ = [
    "Pending",
    "write_pending",
    "clear_pending",
    "recover",
    "Recovery",
    "atomic_write",
    "replace_checked",
    "remove_checked",
    "ChangedUnderfoot",
    "Step",
    "no_step",
    "current_bytes",
    "safe_target",
    "with_records",
]

# Called at the exact steps of a write ("before_replace", "after_replace", …) with the path:
# tests pause the pass there to act as the person would in that microsecond.
Step = Callable[[str, str], None]


def no_step(_step: str, _rel: str) -> None:
    """The default Step: nothing happens between the steps."""


class ChangedUnderfoot(GitgardenError):
    """A file the pass was about to replace changed since the pass read it: the pass stands down."""

    def __init__(self, rel: str) -> None:
        super().__init__(f"{rel} changed since the pass read it; your version is kept and nothing of this pass was written")
        self.rel = rel


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
    notes: list[str] = field(default_factory=list)  # what else was put right (an index update, a stale lock)
    found_writes: bool = True  # False when only `notes` apply (a commit that landed, its index not yet updated)

    def summary(self) -> str:
        parts = []
        if self.found_writes:
            parts.append(f"recovered from interrupted pass {self.pass_id}: restored {len(self.restored)} file(s)")
            if self.kept:
                parts.append(f"left {len(self.kept)} changed since as they are ({', '.join(self.kept)})")
        else:
            parts.append("recovered from an interrupted commit")
        parts.extend(self.notes)
        return "; ".join(parts)


def _path(git_dir: Path) -> Path:
    return git_dir / "gitgarden" / "pending.json"


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode()


def _keep_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.gitgarden-orig")


def current_bytes(path: Path) -> bytes | None:
    """The file's bytes, None when it is absent; a symlink is never read through (it reads as its target's name)."""
    try:
        if path.is_symlink():
            return b"symlink:" + os.fsencode(os.readlink(path))
        return path.read_bytes()
    except FileNotFoundError:
        return None


def replace_checked(path: Path, data: bytes, expected: bytes | None, *, rel: str = "", step: Step = no_step) -> None:
    """Replace `path` with `data` only while it still holds `expected` (None: absent), and prove it after.

    The original is hard-linked aside before the rename and compared with
    `expected` once the rename is done, so a write that landed in the very
    last moment before the rename (an append through a file the person had
    open) is seen; then the person's own file is put back, inode and all,
    and ChangedUnderfoot is raised. Nothing is written when the file already
    differs before the rename.
    """
    rel = rel or path.name
    tmp, keep = write_beside(path, data), _keep_name(path)
    try:
        if expected is None:
            step("before_replace", rel)
            try:
                os.link(tmp, path)  # a new file: appears only if nobody made one meanwhile
            except FileExistsError:
                raise ChangedUnderfoot(rel) from None
            step("after_replace", rel)
            return
        keep.unlink(missing_ok=True)
        try:
            os.link(path, keep, follow_symlinks=False)
        except FileNotFoundError:
            raise ChangedUnderfoot(rel) from None  # removed since it was read
        if path.is_symlink() or keep.read_bytes() != expected:
            raise ChangedUnderfoot(rel)
        step("before_replace", rel)
        if os.stat(path, follow_symlinks=False).st_ino != os.stat(keep).st_ino:
            raise ChangedUnderfoot(rel)  # replaced by another file since the link (an editor's save)
        os.replace(tmp, path)
        step("after_replace", rel)
        if keep.read_bytes() != expected:
            os.replace(keep, path)  # the person's own file back, with what they wrote in that moment
            raise ChangedUnderfoot(rel)
    finally:
        tmp.unlink(missing_ok=True)
        keep.unlink(missing_ok=True)


def remove_checked(path: Path, expected: bytes, *, rel: str = "", step: Step = no_step) -> None:
    """Remove `path` only while it still holds `expected`, and prove it after (as `replace_checked`).

    The file is hard-linked aside before it is removed and compared again once it
    is gone: a write that landed in the last moment (through a file the person had
    open) puts the person's file back and raises ChangedUnderfoot. A file already
    gone is left gone (the person removed it: their version wins).
    """
    rel = rel or path.name
    keep = _keep_name(path)
    keep.unlink(missing_ok=True)
    try:
        try:
            os.link(path, keep, follow_symlinks=False)
        except FileNotFoundError:
            return
        if path.is_symlink() or keep.read_bytes() != expected:
            raise ChangedUnderfoot(rel)
        step("before_remove", rel)
        if os.stat(path, follow_symlinks=False).st_ino != os.stat(keep).st_ino:
            raise ChangedUnderfoot(rel)  # replaced by another file since the link (an editor's save)
        os.unlink(path)
        step("after_remove", rel)
        if keep.read_bytes() != expected:
            with contextlib.suppress(FileExistsError):  # a file made there meanwhile is theirs too
                os.link(keep, path)
            raise ChangedUnderfoot(rel)
    finally:
        keep.unlink(missing_ok=True)


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


def with_records(root: Path, rel: str, records: Sequence[Mapping[str, Any]], old: bytes | None = None) -> bytes:
    """The bytes of the JSON-lines file `rel` (or of `old`, when it was read already) with `records`
    appended (a missing final newline mended)."""
    target = safe_target(root, rel)
    if old is None:
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


def _put_back_kept(target: Path, original: bytes | None, new: bytes) -> bool:
    """A pass killed inside `replace_checked` may leave the original linked aside: True when that
    original holds what the person wrote meanwhile and was put back in place of the pass's file."""
    keep = _keep_name(target)
    try:
        kept = keep.read_bytes()
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.EISDIR):
            raise
        return False
    current = current_bytes(target)
    if kept != original and current == new:
        os.replace(keep, target)
        return True
    keep.unlink(missing_ok=True)
    return False


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
        tmp_beside(target).unlink(missing_ok=True)
        if _put_back_kept(target, original, new):
            result.kept.append(rel)  # the person wrote to it in the moment it was replaced: theirs is back
            continue
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
