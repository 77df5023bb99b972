"""Trees: plain mappings of project-relative path -> file entry, the data the guard compares.

A tree holds only what a check needs (for a pass: `wiki/`, `raw/journal/`, the
map). Paths use `/` and are relative to the project root.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, TypeVar

__all__ = ["Entry", "Tree", "Overlay", "file", "from_git", "symlink", "gitlink", "text_of", "changed_paths", "is_lfs_pointer", "derived"]

T = TypeVar("T")

# A gitlink is a submodule's place in the tree: never a page, never read or written (its data is
# empty in every tree, so moving the submodule to another commit is no change a rule judges).
Kind = Literal["file", "symlink", "gitlink"]
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"


@dataclass(frozen=True, slots=True)
class Entry:
    """One file of a tree: its kind and its bytes (for a symlink, the link target)."""

    kind: Kind
    data: bytes
    executable: bool = False  # a file git keeps with mode 100755 (a wiki file never becomes one)

    @property
    def is_symlink(self) -> bool:
        return self.kind == "symlink"

    @property
    def is_gitlink(self) -> bool:
        return self.kind == "gitlink"


Tree = Mapping[str, Entry]


def file(data: bytes | str) -> Entry:
    """A regular file entry; `str` is encoded as UTF-8."""
    return Entry("file", data.encode("utf-8") if isinstance(data, str) else data)


def from_git(mode: str, data: bytes) -> Entry:
    """The entry of a blob git lists with `mode` (100644, 100755 or 120000)."""
    if mode == "120000":
        return Entry("symlink", data)
    return Entry("file", data, mode == "100755")


def symlink(target: str) -> Entry:
    """A symlink entry pointing at `target` (never followed)."""
    return Entry("symlink", target.encode("utf-8", "surrogateescape"))


def gitlink() -> Entry:
    """A submodule's entry (its commit id is not the tree's business)."""
    return Entry("gitlink", b"")


def is_lfs_pointer(entry: Entry) -> bool:
    """True for a Git LFS pointer file: the stand-in git stores for a file kept elsewhere, never a page."""
    return entry.kind == "file" and entry.data.startswith(_LFS_POINTER) and len(entry.data) < 1024


@lru_cache(maxsize=32_768)
def text_of(entry: Entry) -> str | None:
    """The entry's text when it is a regular UTF-8 file without NUL bytes, else None.

    Cached by entry (an entry's hash is its bytes', which Python computes once): a pass reads
    each page's text several times, and the same string object keeps the caches keyed by
    text (wiki's links and frontmatter) from hashing it again.
    """
    if entry.kind != "file" or b"\0" in entry.data:
        return None
    try:
        return entry.data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def changed_paths(base: Tree, proposed: Tree) -> list[str]:
    """Paths added, removed or changed between two trees, sorted.

    An `Overlay` on `base` answers from its changes alone, so a pass over a
    5,000-page wiki compares only what it touched.
    """
    if isinstance(proposed, Overlay) and proposed.base is base:
        return sorted(p for p, e in proposed.changes.items() if base.get(p) != e)
    out = [p for p, e in proposed.items() if base.get(p) != e]
    out.extend(p for p in base if p not in proposed)
    return sorted(out)


class Overlay(Mapping[str, Entry]):
    """A tree seen through a set of changes (`None` removes a path); the base is not copied."""

    def __init__(self, base: Tree, changes: Mapping[str, Entry | None] | None = None) -> None:
        self.base = base
        self.changes: dict[str, Entry | None] = dict(changes or {})

    def __getitem__(self, path: str) -> Entry:
        if path in self.changes:
            entry = self.changes[path]
            if entry is None:
                raise KeyError(path)
            return entry
        return self.base[path]

    def __iter__(self):  # type: ignore[no-untyped-def]
        yield from (p for p, e in self.changes.items() if e is not None)
        yield from (p for p in self.base if p not in self.changes)

    def __len__(self) -> int:
        # Counted from the changes: iterating would visit every path of a 5,000-page base.
        n = len(self.base)
        for path, entry in self.changes.items():
            if entry is None:
                n -= path in self.base
            else:
                n += path not in self.base
        return n

    def __contains__(self, path: object) -> bool:
        if path in self.changes:
            return self.changes[path] is not None
        return path in self.base

    def with_changes(self, changes: Mapping[str, Entry | None]) -> Overlay:
        """A new overlay on the same base with `changes` added on top of these."""
        return Overlay(self.base, {**self.changes, **changes})


def derived(tree: Tree, key: Hashable, make: Callable[[], T]) -> T:
    """`make()`, a view of the whole of `tree`, kept in the tree's `derived` dict under `key` when
    it has one: a tree read from disk (`repo.disktree.DiskTree`) is listed once and never changes,
    so a view made once stands for its life, and a pass that asks five times sweeps the tree once.
    Any other tree (a dict, an Overlay of a pass's changes) gets `make()` afresh. `key` names the
    view and whatever else it depends on (the layout in force); the caller never mutates the value."""
    memo = getattr(tree, "derived", None)
    if not isinstance(memo, dict):
        return make()
    try:
        return memo[key]
    except KeyError:
        value = memo[key] = make()
        return value
