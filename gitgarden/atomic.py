"""Writing a file whole or not at all: the one atomic write every part uses (`atomic_write`).

The data goes to a temporary file beside the target (same folder, so the rename stays on one file
system), is flushed and `fsync`ed, then renamed over the target in one `os.replace`; the folder is
synced too, so the rename itself survives a power cut. A reader sees the old file or the new one,
never half of either; a symlink at the target is replaced, never written through. A failed write
removes its temporary file and leaves the target as it was.

The temporary file is `.NAME.gitgarden-tmp` unless the caller names another: a writer that holds a
lock (a pass, the scheduler's state) can find and remove what a killed write left; a writer that
may race another process for the same file names one of its own.

Imports nothing of gitgarden: every part, however low, may use it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

__all__ = ["atomic_write", "write_beside", "tmp_beside", "sync_folder"]


def tmp_beside(path: Path) -> Path:
    """The temporary file a write of `path` uses unless told otherwise: `.NAME.gitgarden-tmp`."""
    return path.with_name(f".{path.name}.gitgarden-tmp")


def write_beside(path: Path, data: bytes | str, *, mode: int | None = None, tmp: Path | None = None) -> Path:
    """`data` (str: UTF-8) written to a temporary file beside `path`, flushed and synced, ready to be
    renamed over it; its path. `mode` (default: the existing file's, else 0o666 less the umask) is
    the temporary file's from its first byte. A failure removes the temporary file and raises."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = tmp or tmp_beside(path)
    if mode is None:
        with contextlib.suppress(OSError):
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode):  # a symlink is replaced, and its target's mode is not ours
                mode = st.st_mode & 0o7777
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()  # one a killed write left: O_EXCL below must make a fresh file
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666 if mode is None else mode & 0o777)
    try:
        if mode is not None:
            os.fchmod(fd, mode)  # exactly `mode`, whatever the umask took away
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    os.close(fd)
    return tmp


def atomic_write(
    path: Path, data: bytes | str, *, mode: int | None = None, tmp: Path | None = None, durable: bool = True
) -> None:
    """Replace `path` with `data` (str: UTF-8) in one rename, after the data is on disk; `mode` as
    `write_beside`. `durable` (the default) also syncs the folder, so the new name survives a crash
    too; a cache that can be rebuilt may skip it. A failure leaves `path` as it was."""
    written = write_beside(path, data, mode=mode, tmp=tmp)
    try:
        os.replace(written, path)
    except BaseException:
        with contextlib.suppress(OSError):
            written.unlink()
        raise
    if durable:
        sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    """`fsync` a folder, so the names just made or renamed in it are on disk (where the platform can)."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # a platform (or file system) that cannot open a folder: the rename is all it has
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse to sync a folder; the data itself is synced
    finally:
        os.close(fd)
