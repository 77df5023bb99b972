"""What the guard's rules ask of the whole trees beyond the changed paths — a name taken in other
letter case, the folders, which page a link names — answered by `Names`, and a page's frontmatter
read without failing (`meta_of`). A tree read from git answers through a subclass
(`guard.staged.IndexNames`), with a few queries instead of being listed and read whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cached_property
from typing import Any

from gitgarden.wiki import layout, linking, pages
from gitgarden.wiki.tree import Entry, Tree, derived, text_of

__all__ = ["Names", "aliases_in", "meta_of"]


def meta_of(text: str) -> dict[str, Any] | None:
    """The page's frontmatter, or None when it does not parse."""
    try:
        return pages.read_meta(text)
    except pages.PageError:
        return None


class Names:
    """What the rules ask of the whole trees beyond the changed paths, answered from the trees
    themselves: every path listed once, aliases read only when a target names no page by name.

    A tree that is not all in memory (the index and HEAD in the pre-commit hook) brings a
    subclass answering the same questions from git (`guard.staged.IndexNames`).
    """

    def __init__(self, base: Tree, proposed: Tree, here: layout.Layout) -> None:
        self.base, self.proposed, self.here = base, proposed, here
        self._index: linking.LinkIndex | None = None
        self._full_index: linking.LinkIndex | None = None
        self._names: list[str] = []

    @cached_property
    def _base_lower(self) -> set[str]:
        base = self.base
        return derived(base, "guard.base_lower", lambda: {p.lower() for p in base})

    @cached_property
    def _base_folders_lower(self) -> dict[str, set[str]]:
        base = self.base

        def make() -> dict[str, set[str]]:
            out: dict[str, set[str]] = {}
            for p in base:
                folder = p.rpartition("/")[0]
                while folder and folder not in out.get(folder.lower(), ()):
                    out.setdefault(folder.lower(), set()).add(folder)
                    folder = folder.rpartition("/")[0]
            return out

        return derived(base, "guard.base_folders_lower", make)

    def taken_folded(self, path: str) -> bool:
        """True when the base tree has `path` in some letter case (a new file would overwrite it on
        a case-insensitive disk)."""
        return path.lower() in self._base_lower

    def folder_spellings(self, folder: str) -> set[str]:
        """The base tree's folders (the wiki's and the rest) named `folder` in any letter case (more
        than one in a vault kept on a case-sensitive disk)."""
        return set(self._base_folders_lower.get(folder.lower(), ()))  # a copy: the base's view is shared

    def prefetch(self, targets: Iterable[str], paths: Iterable[tuple[str, str]] = ()) -> None:
        """Say which wiki link targets `resolve`, and which Markdown link (path, folder) pairs
        `resolve_md`, will be asked about (a tree read from git asks git once)."""

    def _names_index(self) -> linking.LinkIndex:
        """The proposed tree's page and file names, indexed once (aliases apart: `resolve`)."""
        if self._index is None:
            here = self.here
            wiki_paths = [p for p in self.proposed if here.in_wiki(p)]
            # A non-page file (an image) resolves by its name with its extension.
            self._names = [here.page_name(p) or here.wiki_relative(p) for p in wiki_paths]
            self._index = linking.LinkIndex(self._names)
        return self._index

    def resolve(self, target: str) -> str | None:
        """The page a link target names in the proposed tree; aliases are parsed only if needed."""
        hit = self._names_index().resolve(target)
        if hit is not None:
            return hit
        if self._full_index is None:
            self._full_index = linking.LinkIndex(self._names, aliases_in(self.proposed.items()))
        return self._full_index.resolve(target)

    def resolve_md(self, path: str, folder: str) -> str | None:
        """The page or file a Markdown link's decoded `path` names from a page in wiki folder `folder`."""
        return self._names_index().resolve_md(path, folder)

    def linking_pages(self, anchors: Iterable[str]) -> Iterator[str]:
        """The proposed tree's wiki pages that may link to one of `anchors` (`#heading`): here every
        page; the rules look for the links themselves."""
        for path in self.proposed:
            if path.endswith(".md") and self.here.in_wiki(path):
                yield path


def aliases_in(entries: Iterable[tuple[str, Entry]]) -> dict[str, list[str]]:
    """Page name -> its aliases, for the pages among `entries` whose frontmatter names any."""
    aliases: dict[str, list[str]] = {}
    for p, e in entries:
        name = pages.page_name(p)
        head = e.data[: e.data.find(b"\n---", 3) + 1] if e.data[:3] == b"---" else b""
        if name and b"alias" in head and (text := text_of(e)) is not None:
            meta = meta_of(text)
            if meta:
                aliases[name] = pages.aliases_of(meta)
    return aliases
