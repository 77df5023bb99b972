"""Which files under some folders changed since last asked, told by the kernel (Linux's inotify)
rather than found by a stat of every file: a long-running reader (the web app) keeps what it read
of the wiki and asks only this, so a request costs what changed, not what the wiki holds.

The kernel queues an event before the write that caused it returns, so a file written, then a
request, always finds it here: no thread, no race. Where inotify is missing (macOS, Windows) or
runs out of watches, `Watcher.open` gives None and the reader lists the wiki again each time.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import struct
import sys
import weakref
from pathlib import Path

__all__ = ["Watcher"]

_MODIFY, _ATTRIB, _CLOSE_WRITE, _MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = (
    0x2,
    0x4,
    0x8,
    0x40,
    0x80,
    0x100,
    0x200,
)
_DELETE_SELF, _MOVE_SELF, _OVERFLOW, _IGNORED, _ISDIR = 0x400, 0x800, 0x4000, 0x8000, 0x40000000
_ONLYDIR, _DONT_FOLLOW = 0x01000000, 0x02000000
_MASK = (
    _MODIFY
    | _ATTRIB
    | _CLOSE_WRITE
    | _MOVED_FROM
    | _MOVED_TO
    | _CREATE
    | _DELETE
    | _DELETE_SELF
    | _MOVE_SELF
)
_NONBLOCK, _CLOEXEC = os.O_NONBLOCK, getattr(os, "O_CLOEXEC", 0o2000000)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then `len` bytes of name, NUL-padded
_LIBC: ctypes.CDLL | None = None


def _libc() -> ctypes.CDLL | None:
    global _LIBC
    if _LIBC is None and sys.platform.startswith("linux"):
        try:
            _LIBC = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            _LIBC.inotify_init1.argtypes = [ctypes.c_int]
            _LIBC.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        except (OSError, AttributeError):
            return None
    return _LIBC


class Watcher:
    """The folders `watch` was given (each one alone: a new sub-folder is a change the caller
    answers by listing again and watching it), and what changed in them since `changes` last ran."""

    def __init__(self, root: Path, fd: int, libc: ctypes.CDLL) -> None:
        self.root = root
        self._fd = fd
        self._libc = libc
        self._folders: dict[
            int, str
        ] = {}  # watch descriptor -> folder (project-relative, '' at the root)
        self._finalizer = weakref.finalize(
            self, os.close, fd
        )  # a server's tests make many: no fd is left open

    @classmethod
    def open(cls, root: Path) -> Watcher | None:
        """A watcher for folders of the project at `root`; None where the kernel cannot watch."""
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(_NONBLOCK | _CLOEXEC)
        return None if fd < 0 else cls(root, fd, libc)

    def watch(self, folder: str) -> bool:
        """Watch the files of one folder (project-relative); False when the kernel refuses (no
        watches left, the folder gone or a symlink): the caller cannot rely on `changes` then."""
        path = os.fsencode(os.path.join(self.root, folder))
        wd = self._libc.inotify_add_watch(self._fd, path, _MASK | _ONLYDIR | _DONT_FOLLOW)
        if wd < 0:
            return False
        self._folders[wd] = folder
        return True

    def changes(self) -> set[str] | None:
        """The project-relative paths of the files written, created, removed or moved since the last
        call; None when the kernel lost count (its queue overflowed) or a folder itself was made,
        removed or moved: the caller lists every folder again."""
        found: set[str] = set()
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return found
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                return None
            pos = 0
            while pos + _EVENT.size <= len(data):
                wd, mask, _cookie, size = _EVENT.unpack_from(data, pos)
                name = data[pos + _EVENT.size : pos + _EVENT.size + size].rstrip(b"\0")
                pos += _EVENT.size + size
                if mask & (_OVERFLOW | _ISDIR | _DELETE_SELF | _MOVE_SELF | _IGNORED):
                    return self._drained(None)
                folder = self._folders.get(wd)
                if folder is None or not name:
                    continue
                rel = os.fsdecode(name)
                found.add(f"{folder}/{rel}" if folder else rel)

    def _drained(self, answer: set[str] | None) -> set[str] | None:
        """Read what is left in the queue and drop it (the caller lists everything anyway)."""
        while True:
            try:
                if not os.read(self._fd, 65536):
                    return answer
            except OSError:
                return answer

    def close(self) -> None:
        """Stop watching (also done when the watcher is collected)."""
        self._finalizer()
