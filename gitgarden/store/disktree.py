"""The files under some folders of a project, as a tree read from disk: listed once, each file read
on first access (and its page facts taken from the facts cache while it is unchanged on disk).
Symlinks are never followed; submodules and files git stores through a filter are no pages.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gitgarden.repo import gitrepo
from gitgarden.wiki.layout import reserved_at_top

if TYPE_CHECKING:
    from gitgarden.wiki.facts import FactsCache, PageFacts
    from gitgarden.wiki.tree import Entry

__all__ = ["DiskTree", "unreadable_filters"]


class DiskTree(Mapping[str, "Entry"]):
    """The files under some folders of a project, listed once and read on first access.

    Symlinks are listed as symlinks and never followed, so nothing outside the
    project is ever read through one. What is in those folders but never a page
    is not listed: a submodule (a folder holding its own `.git`; known as a
    gitlink entry, so the guard refuses any write into it, but never walked) and
    a file git stores through a filter a pass cannot read as text (`filter=lfs`,
    or a filter no driver is configured for: `filtered`, path -> filter).
    """

    def __init__(
        self,
        root: Path,
        folders: Sequence[str],
        extra_files: Sequence[str] = (),
        *,
        facts_cache: FactsCache | None = None,
        on_folder: Callable[[str], object] | None = None,
    ) -> None:
        self.root = root
        self._on_folder = on_folder  # told of each folder before it is read (a watcher starts watching it)
        self.facts_cache = facts_cache
        self._stats: dict[str, tuple[int, ...]] = {}
        self._paths: set[str] = set()
        self._sorted: list[str] | None = None  # the listing never changes: sorted once, not per iteration
        self._cache: dict[str, Entry] = {}
        # Facts already looked up: a pass asks for every page's facts a dozen times (titles, the
        # map's reach, hubs, the page list); the signature they were checked against is the
        # listing's, which never changes, so the first answer stands for the tree's life.
        self._facts: dict[str, PageFacts | None] = {}
        # Views of the whole tree (wiki.tree.derived: the guard's folded names, the day index of
        # facts.pages_citing): valid for the tree's life for the same reason.
        self.derived: dict[Hashable, object] = {}
        self._gitlinks: set[str] = set()
        self.filtered: dict[str, str] = {}
        for folder in folders:
            if folder == ".":
                self._walk_root()
            else:
                self._walk(root / folder, folder)
        self._leave_out_filtered()
        for rel in extra_files:
            if os.path.lexists(root / rel):
                self._paths.add(rel)
        if facts_cache is not None:
            facts_cache.keep = self._paths

    def _leave_out_filtered(self) -> None:
        """Take out of the listing the pages git stores through a filter a pass cannot read as text;
        git is asked only when some attributes file mentions a filter at all."""
        if not any(p.endswith(".md") for p in self._paths) or not _attributes_mention_filter(self.root, self._paths):
            return
        from gitgarden.errors import GitError

        try:
            self.filtered = unreadable_filters(self.root, sorted(p for p in self._paths if p.endswith(".md")))
        except GitError:
            return
        self._paths.difference_update(self.filtered)

    def _walk_root(self) -> None:
        """A wiki at the project root: every name but the reserved ones (`.git`, `.gitgarden`,
        `.obsidian` and any hidden name, `raw`, `log`), which are never walked."""
        self._walk(self.root, "", skip=reserved_at_top)

    def _walk(self, path: Path, rel: str, skip: Callable[[str], bool] | None = None) -> None:
        if self._on_folder is not None and path.is_dir() and not path.is_symlink():
            self._on_folder(rel)
        try:
            entries = list(os.scandir(path))
        except (FileNotFoundError, NotADirectoryError):
            return
        for entry in entries:
            if skip is not None and skip(entry.name):
                continue
            child = f"{rel}/{entry.name}" if rel else entry.name
            if entry.is_dir(follow_symlinks=False):
                if os.path.lexists(os.path.join(entry.path, ".git")):
                    self._gitlinks.add(child)  # a submodule's checkout (or a repository of its own)
                else:
                    self._walk(Path(entry.path), child)
            elif entry.is_symlink() or entry.is_file(follow_symlinks=False):
                self._paths.add(child)
                if self.facts_cache is not None:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    self._stats[child] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)

    def __getitem__(self, rel: str) -> Entry:
        if rel in self._gitlinks:
            from gitgarden.wiki.tree import gitlink

            return gitlink()  # known, never listed: no page, and the guard refuses writes under it
        if rel not in self._paths:
            raise KeyError(rel)
        entry = self._cache.get(rel)
        if entry is None:
            from gitgarden.wiki.tree import Entry

            path = os.path.join(self.root, rel)
            # O_NOFOLLOW: a symlink is never read through, even one swapped in since the listing,
            # and one syscall replaces the separate is_symlink check (a pass reads every page).
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
            except OSError as exc:
                if exc.errno != errno.ELOOP:
                    raise
                entry = Entry("symlink", os.fsencode(os.readlink(path)))
            else:
                with open(fd, "rb") as fh:
                    entry = Entry("file", fh.read())
            self._cache[rel] = entry
        return entry

    def facts(self, rel: str) -> PageFacts | None:
        """The page facts of `rel`, from the cache while the file is unchanged on disk."""
        try:
            return self._facts[rel]
        except KeyError:
            pass
        from gitgarden.wiki.facts import facts_of

        signature = self._stats.get(rel)
        if self.facts_cache is None or signature is None:
            return facts_of(self[rel])
        found, cached = self.facts_cache.get(rel, signature)
        if not found:
            cached = facts_of(self[rel])
            self.facts_cache.put(rel, signature, cached)
        self._facts[rel] = cached
        return cached

    def __iter__(self) -> Iterator[str]:
        if self._sorted is None:
            self._sorted = sorted(self._paths)
        return iter(self._sorted)

    def __len__(self) -> int:
        return len(self._paths)

    def __contains__(self, rel: object) -> bool:
        return rel in self._paths or rel in self._gitlinks


def _attributes_mention_filter(root: Path, paths: set[str]) -> bool:
    """True when an attributes file that may apply to the project mentions `filter`: the project's
    own `.gitattributes` files, those of the folders above it up to its repository, the repository's
    info/attributes and the person's global attributes file in its default place."""
    candidates = [root / p for p in paths if p.endswith(".gitattributes")]
    folder = root
    while True:
        candidates.append(folder / ".gitattributes")
        dot = folder / ".git"
        if dot.is_dir():
            candidates.append(dot / "info" / "attributes")
        if os.path.lexists(dot) or folder.parent == folder:
            break
        folder = folder.parent
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    candidates.append(Path(config) / "git" / "attributes")
    for path in candidates:
        try:
            if b"filter" in path.read_bytes():
                return True
        except OSError:
            continue
    return False


def unreadable_filters(root: Path, paths: Sequence[str]) -> dict[str, str]:
    """Which of `paths` git stores through a filter a pass cannot read as text: path -> the filter's
    name. Git LFS always (the work tree may hold a pointer or the file, the repository the pointer);
    any other filter no clean, smudge or process command is configured for (the file is whatever
    the missing program would have made of it)."""
    if not paths:
        return {}
    out = gitrepo.git(root, "check-attr", "-z", "--stdin", "filter", input=b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths))
    fields = out.split(b"\0")
    named: dict[str, str] = {}
    for i in range(0, len(fields) - 2, 3):
        value = fields[i + 2].decode("utf-8", "replace")
        if value not in ("unspecified", "unset", "set", ""):
            named[fields[i].decode("utf-8", "surrogateescape")] = value
    if not named:
        return {}
    drivers = gitrepo.git(root, "config", "--get-regexp", r"^filter\..*\.(clean|smudge|process)$", check=False).decode("utf-8", "replace")
    installed = {line.split(" ", 1)[0].rsplit(".", 1)[0].removeprefix("filter.") for line in drivers.splitlines() if line.strip()}
    return {p: f for p, f in named.items() if f == "lfs" or f not in installed}
