"""The wiki as a page view reads it: every page's name, title, aliases, state and size; how a link
resolves (by name, title or alias, as `find_page` resolves what it is asked; by name, alias or
attachment, as a page's own links are shown); and which pages link to each page.

`WikiPicture.read` makes it from one listing of the wiki (what a command does once). `KeptWiki`
keeps one for a long-running reader (the web app) and brings it in step before each use with
what changed on disk — told by the kernel where it can (`store.watch`), else found by listing the
wiki again — so a page view costs what changed since the last, not what the wiki holds.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from gitgarden.store.disktree import DiskTree
from gitgarden.store.watch import Watcher
from gitgarden.store.wikisync import read_file
from gitgarden.wiki import layout, linking, pages, tidy
from gitgarden.wiki.facts import FactsCache, PageFacts, facts_of, page_facts
from gitgarden.wiki.tree import Tree

__all__ = ["PageRow", "WikiPicture", "KeptWiki"]


@dataclass(frozen=True)
class PageRow:
    """A page in the list: its name, title, state, whose it is, its size."""

    name: str
    title: str
    state: str
    gardeners: bool
    chars: int


# What the picture knows of one file of the wiki: its kind (a file or a symlink) and a page's facts
# (None: a symlink, never read through, or not UTF-8 text; always None for an attachment).
_File = tuple[str, PageFacts | None]
_SYMLINK = "symlink"


class WikiPicture:
    """The wiki's pages and links as a page view needs them (the layout `here` in force)."""

    def __init__(self, here: layout.Layout, files: Mapping[str, _File]) -> None:
        self.here = here
        self.files: dict[str, _File] = dict(files)  # path -> (kind, page facts)
        self._derive()

    @classmethod
    def read(cls, tree: Tree, here: layout.Layout) -> WikiPicture:
        """The picture of the wiki listed in `tree` (its facts from the tree's facts cache)."""
        return cls(here, _files_of(tree, here))

    def _derive(self) -> None:
        """Everything worked out from the files: titles, both link indexes, every page's links."""
        here = self.here
        map_path = here.map_path()
        self.titles: dict[str, tuple[str, list[str]]] = {}  # as tidy.page_titles: the map excluded
        rows: dict[str, PageRow] = {}
        aliases: dict[str, list[str]] = {}
        attachments: list[str] = []
        for path, (kind, facts) in sorted(self.files.items()):
            name = here.page_name(path)
            if name is None:
                attachments.append(here.wiki_relative(path))
                continue
            if path != map_path and not (facts is None and kind == _SYMLINK):
                self.titles[name] = _title(name, facts)
            if facts is not None:
                rows[name] = _row(name, facts)
                aliases[name] = pages.aliases_of(facts.meta or {})
        self._rows = rows
        self._sorted_rows: list[PageRow] | None = None
        self.index = tidy.link_index(self.titles)
        self.links = linking.LinkIndex(list(rows), aliases, attachments=attachments)  # as a page's own links resolve
        self._out: dict[str, frozenset[str]] = {}
        self._in: dict[str, set[str]] = {}
        for name in self.titles:
            self._link(name, self._facts_of(name))
        self._map_out = self._targets(self._facts_of(here.map_page))

    def _facts_of(self, name: str) -> PageFacts | None:
        found = self.files.get(self.here.page_path(name))
        return None if found is None else found[1]

    def _targets(self, facts: PageFacts | None) -> frozenset[str]:
        if facts is None:
            return frozenset()
        resolve = self.index.resolve
        return frozenset(t for t in map(resolve, facts.targets) if t is not None)

    def _link(self, name: str, facts: PageFacts | None) -> None:
        """Record the pages `name` links to (replacing what it linked to before)."""
        for target in self._out.pop(name, ()):
            self._in.get(target, set()).discard(name)
        out = self._targets(facts)
        self._out[name] = out
        for target in out:
            self._in.setdefault(target, set()).add(name)

    def update(self, changed: Mapping[str, _File | None]) -> None:
        """Take in files read again (None: gone): a page whose text changed re-links itself alone;
        a page or attachment come or gone, or a title or alias changed, works everything out anew
        (every link may resolve elsewhere)."""
        here = self.here
        anew = False
        for path, now in changed.items():
            was = self.files.get(path)
            name = here.page_name(path)
            if was == now:
                continue
            if now is None:
                self.files.pop(path, None)
            else:
                self.files[path] = now
            if now is None or name is None or _reshapes(name, was, now):
                anew = True
            elif not anew:
                facts = now[1]
                if path == here.map_path():
                    self._map_out = self._targets(facts)
                else:
                    self._link(name, facts)
                if facts is not None:
                    self._rows[name] = _row(name, facts)
                    self._sorted_rows = None
        if anew:
            self._derive()

    def rows(self) -> list[PageRow]:
        """Every page (the map too), by name in any letter case."""
        if self._sorted_rows is None:
            self._sorted_rows = sorted(self._rows.values(), key=lambda r: r.name.lower())
        return list(self._sorted_rows)

    def holds_page(self, name: str) -> bool:
        """True when the page's file was listed (a file or a symlink)."""
        return self.here.page_path(name) in self.files

    def backlinks(self, name: str) -> list[str]:
        """The pages linking to `name` (by name, title or alias), sorted; the map first when it does."""
        found = sorted(n for n in self._in.get(name, ()) if n != name)
        if name != self.here.map_page and name in self._map_out:
            found.insert(0, self.here.map_page)
        return found


def _reshapes(name: str | None, was: _File | None, now: _File | None) -> bool:
    """True when a file's change may change how any link resolves: a page or attachment come or
    gone, a page readable that was not (or the other way), a page's title or aliases changed (the
    map's too: its aliases name it)."""
    if was is None or now is None or name is None or was[0] != now[0] or (was[1] is None) != (now[1] is None):
        return True
    return _title(name, was[1]) != _title(name, now[1])


def _title(name: str, facts: PageFacts | None) -> tuple[str, list[str]]:
    """(title, aliases) as tidy.page_titles gives them."""
    meta = (facts.meta or {}) if facts is not None else {}
    return str(meta.get("title") or name.rsplit("/", 1)[-1]), pages.aliases_of(meta)


def _row(name: str, facts: PageFacts) -> PageRow:
    meta = facts.meta or {}
    state = meta.get("state")
    title = str(meta.get("title") or name.rsplit("/", 1)[-1])
    return PageRow(
        name, title, state if isinstance(state, str) else "", pages.is_gardeners(meta), facts.chars
    )


def _files_of(tree: Tree, here: layout.Layout) -> dict[str, _File]:
    """The pages (with their facts) and attachments of a listed tree."""
    files: dict[str, _File] = {}
    for path in tree:
        if here.page_name(path) is not None:
            facts = page_facts(tree, path)
            files[path] = (tree[path].kind if facts is None else "file", facts)
        elif _attachment(path):
            files[path] = ("file", None)
    return files


def _attachment(path: str) -> bool:
    """An attachment a link may name: none in a hidden folder (`.obsidian/`, `.trash/`: Obsidian's
    own files, which it rewrites all day and no note links)."""
    return pages.is_attachment(path) and not path.startswith(".") and "/." not in path


def _read_again(root: Path, here: layout.Layout, path: str) -> _File | None:
    """A file of the wiki as the picture keeps it, read now (None: gone, or not the wiki's)."""
    is_page = here.page_name(path) is not None
    if not is_page and not _attachment(path):
        return None
    try:
        mode = os.lstat(root / path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return (_SYMLINK, None)
    if not stat.S_ISREG(mode):
        return None
    if not is_page:
        return ("file", None)
    entry = read_file(root, path)
    return None if entry is None else (entry.kind, facts_of(entry))


class KeptWiki:
    """A `WikiPicture` kept between requests by a long-running reader, brought in step before each
    use. The first use lists the wiki (page facts from `facts`, the cache passes keep); after that,
    where the kernel tells which files changed, only those are read again."""

    def __init__(self, root: Path, facts: FactsCache | None, *, watch: bool = True) -> None:
        self.root = root
        self._facts = facts
        self._watch = watch
        self._lock = threading.Lock()
        self._picture: WikiPicture | None = None
        self._watcher: Watcher | None = None
        self._listings = 0  # how many times the wiki was listed whole (what a benchmark or test reads)

    @property
    def listings(self) -> int:
        """How many times the wiki was listed whole so far."""
        return self._listings

    @contextmanager
    def held(self, here: layout.Layout) -> Iterator[WikiPicture]:
        """The picture, in step with the disk, for the layout `here`; no other request changes it
        while it is held."""
        with self._lock, layout.active(here):
            yield self._in_step(here)

    def _in_step(self, here: layout.Layout) -> WikiPicture:
        picture = self._picture
        if picture is None or picture.here != here or (self._watcher is None and self._watch):
            return self._list(here)  # the first use, another layout, or a wiki folder that was missing
        if self._watcher is None:  # nothing tells what changed: list again, re-derive what differs
            listed, _ = self._listed(here, None)
            picture.update({p: listed.get(p) for p in set(listed) | set(picture.files) if listed.get(p) != picture.files.get(p)})
            return picture
        changed = self._watcher.changes()
        if changed is None or any(p.rsplit("/", 1)[-1] == ".gitattributes" for p in changed):
            return self._list(here)  # a folder made or moved, or what git filters may differ
        if changed:
            picture.update({p: _read_again(self.root, here, p) for p in changed})
        return picture

    def _list(self, here: layout.Layout) -> WikiPicture:
        """List the wiki whole, watching each folder before it is read (a change made meanwhile is
        told at the next use)."""
        if self._watcher is not None:
            self._watcher.close()
        watcher = Watcher.open(self.root) if self._watch else None
        self._watch = watcher is not None  # no inotify here (macOS, Windows): list at every use
        files, self._watcher = self._listed(here, watcher)
        self._picture = WikiPicture(here, files)
        return self._picture

    def _listed(self, here: layout.Layout, watcher: Watcher | None) -> tuple[dict[str, _File], Watcher | None]:
        """The wiki's pages and attachments, listed now (each folder watched first, by `watcher`),
        and the watcher when it can tell every change that follows."""
        self._listings += 1
        watched: list[bool] = []

        def on_folder(folder: str) -> None:
            if watcher is not None and not folder.startswith(".") and "/." not in folder:  # a hidden one holds nothing kept
                watched.append(watcher.watch(folder))

        tree = DiskTree(self.root, here.wiki_folders(), facts_cache=self._facts, on_folder=on_folder)
        if watcher is not None and (not all(watched) or tree.filtered):
            self._watch = False  # out of watches, or pages git filters: list the wiki at every use
        if watcher is not None and (not self._watch or not all((self.root / f).is_dir() for f in here.wiki_folders())):
            watcher.close()  # no folder to watch yet: listed again at the next use
            watcher = None
        return _files_of(tree, here), watcher

    def close(self) -> None:
        """Stop watching the wiki."""
        with self._lock:
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None
