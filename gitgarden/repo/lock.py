"""One pass per project: an flock on a file inside the git dir.

The kernel frees an flock when its holder dies, even on SIGKILL, so there is
no stale-lock cleanup and no PID file. The lock file is never unlinked (that
would let two holders lock two different inodes); the holder writes its pass
id and start time into it so a refused pass can say who holds it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from pathlib import Path
from types import TracebackType
from typing import Any

from gitgarden.errors import GitgardenError, LockHeld

__all__ = ["PassLock", "holder", "LOCK_NAME"]

LOCK_NAME = "gitgarden.lock"


def _describe(info: dict[str, Any] | None) -> str:
    if not info:
        return "another pass holds this project's lock"
    return f"pass {info.get('pass_id', '?')} (started {info.get('started', '?')}, pid {info.get('pid', '?')}) holds this project's lock"


def _lock_error(path: Path, exc: OSError) -> GitgardenError:
    why = exc.strerror or str(exc)
    fix = "free some space, then run gitgarden again" if exc.errno == errno.ENOSPC else "check that the git dir is writable"
    return GitgardenError(f"cannot take the pass lock {path}: {why}; {fix}")


class PassLock:
    """`with PassLock(git_dir, info):` — held for the block; LockHeld at once when taken."""

    def __init__(self, git_dir: Path, info: dict[str, Any]) -> None:
        self.path = git_dir / LOCK_NAME
        self.info = info
        self._fd: int | None = None

    def __enter__(self) -> PassLock:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise _lock_error(self.path, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise LockHeld(_describe(holder(self.path.parent))) from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({**self.info, "pid": os.getpid()}).encode(), 0)
        except OSError as exc:  # e.g. a full disk: the pass could write nothing else either
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
            raise _lock_error(self.path, exc) from None
        self._fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def holder(git_dir: Path) -> dict[str, Any] | None:
    """Who holds the lock (pass id, start, pid), or None when it is free."""
    path = git_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raw = os.pread(fd, 4096, 0)
            try:
                info = json.loads(raw.decode() or "{}")
            except (json.JSONDecodeError, UnicodeDecodeError):
                info = {}
            return info if isinstance(info, dict) else {}
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)
