"""Merging two clones' versions of a file by what the file means, where git's line merge would
call a conflict (the shared remote: the sync before a pass, the replay of a refused push).

The journal and the pass records only grow: both sides' lines stand, the other
side's after one's own (a union of lines). The read position is a union of the
lines read on either side. The map keeps both sides' entry lines. A page both
sides changed merges only where git's three-way merge is clean: a real conflict
in a page is the person's to resolve.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from gitgarden.repo import gitdir, gitrepo
from gitgarden.wiki import journal, layout
from gitgarden.wiki.layout import LOG_DIR

__all__ = ["appended", "merge_file", "merges_by_meaning", "union_lines"]


def appended(base: bytes, one: bytes, other: bytes) -> bytes | None:
    """Both sides only appended to `base` (a journal, a log): `one` then what `other` appended;
    None when either side changed what `base` held."""
    if not (one.startswith(base) and other.startswith(base)):
        return None
    tail = other[len(base) :]
    return one + (b"" if not one or one.endswith(b"\n") or not tail else b"\n") + tail


def union_lines(root: Path, base: bytes, first: bytes, second: bytes) -> bytes:
    """Both sides' lines: `first`, then what `second` added that `first` lacks (a plain append
    when both only appended; otherwise git's union merge, which keeps both sides of every clash)."""
    if first.startswith(second) or second.startswith(first):
        return max(first, second, key=len)  # one side holds all of the other's lines already
    simple = appended(base, first, second)
    if simple is not None:
        return simple
    merged = _merge_file(root, base, first, second, union=True)
    assert merged is not None  # a union merge always succeeds
    return merged


def merges_by_meaning(path: str, journal_dir: str) -> bool:
    """True for the files merged by their meaning rather than by git's line merge: the journal, the
    pass records, the read position and the map."""
    prefixes = (f"{LOG_DIR}/", journal_dir.rstrip("/") + "/")
    return path == journal.READ_PATH or path.startswith(prefixes) or path == layout.current().map_path()


def merge_file(root: Path, path: str, base: bytes | None, ours: bytes | None, theirs: bytes | None, journal_dir: str) -> bytes | None:
    """Our change to `path` on top of theirs; None when the two cannot both stand.

    Bookkeeping files merge by their meaning (the read position is a union of
    read lines; journals and log records only grow, both sides' lines kept; the
    map takes both sides' entry lines). A page both sides changed merges only
    when git's three-way merge is clean.
    """
    if theirs in (base, ours):
        return ours
    if ours == base:
        return theirs
    is_journal = path.startswith(journal_dir.rstrip("/") + "/")
    if ours is None or theirs is None:
        return None  # one side removed it
    if path == journal.READ_PATH:
        merged: dict[str, set[str]] = {}
        for data in (base, ours, theirs):
            for day, keys in journal.load_read(None if data is None else data.decode("utf-8", "replace")).items():
                merged.setdefault(day, set()).update(keys)
        return journal.render_read(merged).encode()
    if is_journal:
        return union_lines(root, base or b"", theirs, ours)  # a day file both clones captured to
    if path.startswith(f"{LOG_DIR}/"):
        return appended(base or b"", theirs, ours)
    # The map: both sides' new entries kept (the layout in force is the pass's own).
    return _merge_file(root, base or b"", ours, theirs, union=path == layout.current().map_path())


def _merge_file(root: Path, base: bytes, ours: bytes, theirs: bytes, *, union: bool) -> bytes | None:
    """git's three-way merge of three texts; None when it is not clean (never with `union`)."""
    with tempfile.TemporaryDirectory(prefix="gitgarden-merge-", dir=gitdir.git_dir(root)) as tmp:
        names = []
        for label, data in (("ours", ours), ("base", base), ("theirs", theirs)):
            f = Path(tmp) / label
            f.write_bytes(data)
            names.append(str(f))
        proc = subprocess.run(
            ["git", "merge-file", "-p", "-q", *(["--union"] if union else []), *names],
            capture_output=True,
            env=gitrepo.clean_env(),
            stdin=subprocess.DEVNULL,
            check=False,
        )
    return proc.stdout if proc.returncode == 0 else None
