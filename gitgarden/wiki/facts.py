"""What a pass needs to know of every page — size, frontmatter, link targets — without reading
every page every pass.

A pass over a 5,000-page wiki used to read and parse every page for the page
list, the map, the links and the health figures. The facts of a page on disk
are kept in `<git dir>/gitgarden/facts.pickle`, keyed by the file's size,
mtime, ctime and inode, so the next pass re-reads only the pages that
changed. Facts of pages a pass wrote (in an Overlay) are computed from their
new text. The cache lives in the git dir: machine-local, never committed,
and losing it only costs one full read.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from gitgarden.atomic import atomic_write
from gitgarden.wiki import layout, linking, pages
from gitgarden.wiki.tree import Entry, Overlay, Tree, derived, text_of

__all__ = ["PageFacts", "page_facts", "facts_of", "resolved_targets", "FactsCache", "pages_citing"]

_VERSION = 4  # 2: Markdown links' destinations (md_targets); 3: heading anchors and anchored links; 4: block ids alone on a line


class PageFacts(NamedTuple):
    """One page's facts, whatever tree it stands in."""

    chars: int
    meta: dict[str, Any] | None  # None: the frontmatter does not parse
    targets: tuple[str, ...]  # wiki link targets, in order
    # Markdown links' decoded paths (`[x](../Bases/Views.md#H)` -> `../Bases/Views.md`), in order: they
    # resolve from the linking page's folder (`resolved_targets`). Added last, with a default, so
    # code that builds or reads the first three fields is unchanged.
    md_targets: tuple[str, ...] = ()
    anchors: frozenset[str] = frozenset()  # the headings and block ids links may name (linking.heading_anchors)
    anchored: tuple[tuple[str, str], ...] = ()  # (target, anchor) of each wiki link that names a heading or block


@lru_cache(maxsize=32_768)
def facts_of(entry: Entry) -> PageFacts | None:
    """The facts of one entry (None when it is not UTF-8 text), cached by content."""
    text = text_of(entry)
    if text is None:
        return None
    try:
        meta: dict[str, Any] | None = pages.read_meta(text)
    except pages.PageError:
        meta = None
    md = tuple(link.path for link in linking.find_md_links(text))
    found = linking.find_links(text)
    offers = "#" in text or "^" in text  # a heading or a block id: most pages hold neither
    anchors = frozenset(linking.heading_anchors(pages.split_frontmatter(text)[1].splitlines())) if offers else frozenset()
    anchored = tuple((link.target, link.anchor) for link in found if link.anchor)
    return PageFacts(len(text), meta, tuple(link.target for link in found), md, anchors, anchored)


def resolved_targets(index: linking.LinkIndex, facts: PageFacts, name: str) -> Iterator[tuple[str, str | None]]:
    """(target as written, the page it names or None) for each link of page (or day file) `name`
    (a path under the wiki, without `.md`): wiki links by name, Markdown links by their path
    from the page's folder, as Obsidian resolves both."""
    for target in facts.targets:
        yield target, index.resolve(target)
    if facts.md_targets:
        folder = linking.folder_of(name)
        for path in facts.md_targets:
            yield path, index.resolve_md(path, folder)


class FactsCache:
    """Facts of files on disk by path, valid while the file's stat signature is unchanged."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._items: dict[str, tuple[tuple[int, ...], PageFacts | None]] = {}
        self._dirty = False
        self.keep: set[str] | None = None  # the paths that exist (set by the tree that lists them)
        if path is not None:
            import pickle  # here only: a `status` whose health graph is in step reads no facts

            try:
                data = pickle.loads(path.read_bytes())
                if isinstance(data, dict) and data.get("version") == _VERSION:
                    self._items = data["items"]
            except (OSError, pickle.UnpicklingError, EOFError, KeyError, TypeError, ValueError, AttributeError):
                self._items = {}

    def get(self, rel: str, signature: tuple[int, ...]) -> tuple[bool, PageFacts | None]:
        """(found, facts) for `rel` when its signature matches what was cached."""
        item = self._items.get(rel)
        if item is not None and item[0] == signature:
            return True, item[1]
        return False, None

    def put(self, rel: str, signature: tuple[int, ...], facts: PageFacts | None) -> None:
        self._items[rel] = (signature, facts)
        self._dirty = True

    def save(self) -> None:
        """Write the cache back when it changed (dropping paths that no longer exist); never fails a pass."""
        if self.path is None or not self._dirty:
            return
        import pickle

        if self.keep is not None:
            self._items = {k: v for k, v in self._items.items() if k in self.keep}
        try:
            data = pickle.dumps({"version": _VERSION, "items": self._items}, protocol=pickle.HIGHEST_PROTOCOL)
            atomic_write(self.path, data, durable=False)  # a cache: rebuilt when lost
            self._dirty = False
        except OSError:
            pass


def page_facts(tree: Tree, path: str) -> PageFacts | None:
    """The facts of `path` in `tree`: from the disk cache when the file is unchanged on disk."""
    base: Any = tree
    if isinstance(tree, Overlay):
        if path in tree.changes:
            entry = tree.changes[path]
            return None if entry is None else facts_of(entry)
        base = tree.base
    lookup = getattr(base, "facts", None)
    if lookup is not None:
        found: PageFacts | None = lookup(path)
        return found
    return facts_of(tree[path])


def pages_citing(tree: Tree, days: Collection[str]) -> list[str]:
    """The pages (the map excluded) whose `source:` holds every day of `days` (not empty), sorted.

    A tree read from disk keeps its day -> pages index (`tree.derived`), so a pass that creates
    several pages sweeps the wiki once; an Overlay asks its base and looks at its own changed
    pages only.
    """
    wanted = set(days)
    if not wanted:
        raise ValueError("pages_citing needs at least one day")
    if isinstance(tree, Overlay):
        found = {p for p in pages_citing(tree.base, wanted) if p not in tree.changes}
        for path, entry in tree.changes.items():
            if entry is not None and wanted <= _days_of(tree, path):
                found.add(path)
        return sorted(found)
    base = tree

    def make() -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for path in base:
            for day in _days_of(base, path):
                out.setdefault(day, set()).add(path)
        return out

    index = derived(tree, ("source_days", layout.current()), make)
    ordered = sorted(wanted, key=lambda d: len(index.get(d, ())))
    hits = set(index.get(ordered[0], ()))
    for day in ordered[1:]:
        hits &= index.get(day, set())
    return sorted(hits)


def _days_of(tree: Tree, path: str) -> set[str]:
    """The days a page's `source:` cites (none for the map, a file that is no page, or a page
    whose frontmatter does not parse)."""
    if pages.page_name(path) is None or path == pages.map_path():
        return set()
    found = page_facts(tree, path)
    return set() if found is None or found.meta is None else set(pages.source_days(found.meta))
