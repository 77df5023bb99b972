"""The change the guard judges, worked out once: which paths changed and how (new, modified,
deleted, in the journal), each modified page's old lines and how they fared in the new text,
where the lines that left a page went, and how a link target resolves in the proposed tree.

The rules (`guard.rules`) read the change only through `Diff`; this module judges nothing.
What the rules ask of the rest of the trees (a name taken in other letter case, the folders,
which page a link names) goes through `guard.names.Names`, so that a tree read from git answers it with
a few queries instead of being listed and read whole (`guard.staged`, the pre-commit hook).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from gitgarden.guard.names import Names, meta_of
from gitgarden.guard.paths import case_twin, new_file_problem, path_kind
from gitgarden.guard.text import (
    Alignment,
    Finder,
    Lines,
    align,
    find_links,
    find_md_links,
    split_lines,
)
from gitgarden.wiki import layout, linking, pages, placement
from gitgarden.wiki.names import is_slug
from gitgarden.wiki.tree import Entry, Tree, changed_paths, derived, text_of

__all__ = ["PassContext", "Diff", "PageChange", "Moves"]


@dataclass(frozen=True)
class PassContext:
    """What a pass knows that the trees do not: its evidence sources and its own paths."""

    conversation: str = ""
    journal_lines: tuple[str, ...] = ()
    state_evidence: Mapping[str, str] = field(default_factory=dict)
    own_paths: frozenset[str] = frozenset()
    split_parents: Mapping[str, str] = field(default_factory=dict)
    merges: Mapping[str, str] = field(default_factory=dict)  # merged page -> the page its body moved into


# --- the change, worked out once ----------------------------------------------------


@dataclass
class PageChange:
    """A modified wiki text file: its frontmatter before and after, its old body lines and how they fared."""

    path: str
    new_text: str
    old_meta: dict[str, Any] | None  # None: the old frontmatter did not parse
    new_meta: dict[str, Any] | None  # parsed only when the frontmatter block changed
    front_changed: bool  # the (parsing) frontmatter block of a page changed
    old: list[str]
    new: Lines  # the new body
    tail: int  # index of the unterminated last line of a CRLF text, else -1
    fate: Alignment

    @property
    def decided(self) -> bool:
        return self.old_meta is not None and self.old_meta.get("state") == "decided"

    @property
    def state_move(self) -> tuple[Any, Any] | None:
        """(state before, state after) when the frontmatter changed the state."""
        if not self.front_changed or self.new_meta is None or self.old_meta is None:
            return None
        before, after = self.old_meta.get("state"), self.new_meta.get("state")
        return None if before == after else (before, after)


@dataclass
class Moves:
    """Where the lines that left a page went (rule 5's facts, also read by rules 4 and 10)."""

    used: dict[str, list[int]]  # new page -> old line indexes found there
    unplaced: list[int]  # non-blank lines found nowhere
    blank_removed: list[int]  # blank lines removed when no line moved
    unlinked: list[str]  # pages lines moved to that the page does not link to


class Diff:
    """The change from `base` to `proposed` as the rules read it; each fact computed once."""

    def __init__(self, base: Tree, proposed: Tree, ctx: PassContext | None, agent: bool) -> None:
        self.base, self.proposed, self.ctx, self.agent = base, proposed, ctx, agent
        self.layout = layout.current()  # whose folders are the wiki and the journal
        self.changed = changed_paths(base, proposed)
        self.kinds = {p: path_kind(self.layout, p, base.get(p), proposed.get(p)) for p in self.changed}
        for p in self.changed:
            if self.kinds[p] != "unsafe" and self.submodule_above(p):
                self.kinds[p] = "in_submodule"
        make = getattr(base, "names", None)  # a tree read from git brings its own (guard.staged)
        self.names: Names = make(proposed, self.layout) if callable(make) else Names(base, proposed, self.layout)
        self._prefetched = False

    def submodule_above(self, path: str) -> str | None:
        """The submodule (gitlink) `path` lies in, before or after the change; None when it is in none."""
        folder = path.rpartition("/")[0]
        while folder:
            for tree in (self.base, self.proposed):
                entry = tree.get(folder)
                if entry is not None and entry.is_gitlink:
                    return folder
            folder = folder.rpartition("/")[0]
        return None

    def paths(self, kind: str) -> list[str]:
        """The changed paths of one kind (see `guard.paths.path_kind`), sorted."""
        return [p for p in self.changed if self.kinds[p] == kind]

    def texts(self, path: str) -> tuple[str | None, str | None]:
        old, new = self.base.get(path), self.proposed.get(path)
        return (text_of(old) if old else None), (text_of(new) if new else None)

    @cached_property
    def base_folders(self) -> set[str]:
        """The folders of the wiki in the base tree (kept by a tree read from disk: a pass's guard
        checks every operation against the same base)."""
        here, base = self.layout, self.base
        return derived(base, ("guard.base_folders", here), lambda: {p.rsplit("/", 1)[0] for p in base if "/" in p and here.in_wiki(p)})

    @cached_property
    def human_named(self) -> list[str]:
        """New pages (outside an agent's commit) whose file name is not a slug, nor the human name
        the gardener gives its own pages (its title's, in its own folder: `placement.own_name`)."""
        if self.agent:
            return []
        out = []
        place: placement.Placement | None = None
        for p, text in self.new_pages.items():
            if is_slug(p.rsplit("/", 1)[-1].removesuffix(".md")):
                continue
            place = place or placement.of_tree(self.base)
            title = (meta_of(text) or {}).get("title")
            if not (isinstance(title, str) and placement.own_name(p, title, place)):
                out.append(p)
        return out

    @cached_property
    def added(self) -> dict[Entry, str]:
        """Each added file -> its path (to name where a deleted file went)."""
        return {self.proposed[p]: p for p in self.changed if p not in self.base}

    @cached_property
    def new_file_problems(self) -> dict[str, str]:
        """New files under wiki/ that may not be created -> why (rule 3)."""
        problems = {}
        for path in self.paths("new"):
            why = new_file_problem(self.layout, path, self.proposed[path], self.agent, self.names, self.base_folders)
            why = why or case_twin(self.layout, path, self.names)
            if why:
                problems[path] = why
        return problems

    @cached_property
    def new_pages(self) -> dict[str, str]:
        """Created wiki/**.md files that rule 3 lets be -> their text."""
        return {
            p: text_of(self.proposed[p]) or ""
            for p in self.paths("new")
            if p not in self.new_file_problems
        }

    @cached_property
    def pages(self) -> dict[str, PageChange]:
        """Modified wiki text files (a non-text change is refused by rule 4 instead)."""
        out = {}
        for path in self.paths("modified"):
            old, new = self.texts(path)
            if old is not None and new is not None:
                out[path] = _page(path, old, new)
        return out

    @cached_property
    def new_bodies(self) -> dict[str, Lines]:
        """Each created page's body lines, with all their links."""
        out = {}
        for path, text in self.new_pages.items():
            body = Lines(pages.split_frontmatter(text)[1])
            body.load_links()
            out[path] = body
        return out

    @cached_property
    def moves(self) -> dict[str, Moves]:
        """For each modified page, where its removed lines went (see `_Splits`)."""
        return _Splits(self).run()

    @cached_property
    def parents(self) -> dict[str, str]:
        """Split part -> the page its lines came from (from the trees, outside a pass)."""
        out: dict[str, str] = {}
        for path, moves in self.moves.items():
            for part in moves.used:
                if part in self.new_pages and part not in moves.unlinked:
                    out.setdefault(part, path)
        return out

    @cached_property
    def written_pages(self) -> list[str]:
        """Every page this change writes (modified or created), sorted."""
        return sorted(p for p in {*self.pages, *self.new_pages} if p.endswith(".md"))

    def resolve(self, target: str) -> str | None:
        """The page (or attachment, by its name with extension) a link target names in the proposed tree."""
        self._prefetch()
        return self.names.resolve(target)

    def resolve_md(self, path: str, page: str) -> str | None:
        """The page or file a Markdown link's decoded `path` names from the page at project path
        `page`, in the proposed tree (relative to its folder, from the wiki's top, or by file name)."""
        self._prefetch()
        return self.names.resolve_md(path, linking.folder_of(self.layout.wiki_relative(page)))

    def _prefetch(self) -> None:
        """Tell `names` every link a written page holds, at once: a tree read from git answers them
        all in one query."""
        if self._prefetched:
            return
        self._prefetched = True
        targets: list[str] = []
        paths: list[tuple[str, str]] = []
        for p in self.written_pages:
            text = self.texts(p)[1] or ""
            targets += [lk.target for lk in find_links(text)]
            folder = linking.folder_of(self.layout.wiki_relative(p))
            paths += [(lk.path, folder) for lk in linking.find_md_links(text)]
        self.names.prefetch(targets, paths)

    def state_of(self, tree: Tree, path: str) -> Any:
        entry = tree.get(path)
        text = text_of(entry) if entry is not None else None
        meta = meta_of(text) if text is not None else None
        return meta.get("state") if meta else None

    def missing_day(self, day: str) -> bool:
        """True when the proposed tree has no journal file for `day`."""
        entry = self.proposed.get(self.layout.day_path(day))
        return entry is None or entry.is_symlink


def _page(path: str, old_text: str, new_text: str) -> PageChange:
    """A modified wiki text file, its frontmatter read and its old lines aligned with the new."""
    is_page = path.endswith(".md")
    old_meta = meta_of(old_text) if is_page else {}
    new_meta: dict[str, Any] | None = None
    front_changed = False
    if old_meta is None or not is_page:
        # A malformed frontmatter protects every raw line: the whole texts are compared.
        old_body, new_body = old_text, new_text
        if old_meta is None:
            new_meta = meta_of(new_text)
    else:
        old_block, old_body = pages.split_frontmatter(old_text)
        new_block, new_body = pages.split_frontmatter(new_text)
        if new_block != old_block:
            front_changed, new_meta = True, meta_of(new_text)
    old_lines = split_lines(old_body)
    tail = -1
    if old_body and not old_body.endswith("\n") and pages.newline_of(old_text) == "\r\n":
        tail = len(old_lines) - 1
    body = Lines(new_body)
    fate = align(old_body, old_lines, body, tail)
    return PageChange(path, new_text, old_meta, new_meta, front_changed, old_lines, body, tail, fate)


class _Splits:
    """Follows every line that left a page to a page this change created (or, for the map,
    to lines another page gained), in order, each destination line used once."""

    def __init__(self, diff: Diff) -> None:
        self.diff = diff
        self.taken: dict[str, set[int]] = {}

    @cached_property
    def dests(self) -> dict[str, Finder]:
        """The created pages, searched only once some page has lost a line."""
        self.taken.update((p, set()) for p in self.diff.new_bodies)
        return {p: body.finder() for p, body in self.diff.new_bodies.items()}

    def destinations(self, path: str) -> dict[str, Finder]:
        """Where a page's lines may go: new pages; for the map also lines other pages gained; for a
        page a pass merges (rule 5, like a split), the lines the page it merges into gained."""
        ctx = self.diff.ctx
        into = ctx.merges.get(path) if ctx is not None else None
        if path != pages.map_path() and into is None:
            return self.dests
        dests = self.dests
        gained = {
            p: page.new.finder(page.fate.inserted)
            for p, page in self.diff.pages.items()
            if p != pages.map_path() and (into is None or p == into)
        }
        for p in gained:
            self.taken.setdefault(p, set())
        return {**dests, **gained}

    def run(self) -> dict[str, Moves]:
        return {path: self.follow(page) for path, page in self.diff.pages.items()}

    def follow(self, page: PageChange) -> Moves:
        moved = [i for i in page.fate.left if page.old[i].strip()]
        blank = list(page.fate.left) if page.fate.left and not moved else []
        dests = self.destinations(page.path) if moved else {}
        after = dict.fromkeys(dests, -1)
        used: dict[str, list[int]] = {}
        unplaced: list[int] = []
        prev: list[str] = []
        for i in moved:
            # Prefer the page the previous line went to: a moved section stays together.
            for p in prev + sorted(dests):
                j = dests[p].find(page.old[i], after[p], i == page.tail, self.taken[p])
                if j is not None:
                    after[p], prev = j, [p]
                    self.taken[p].add(j)
                    used.setdefault(p, []).append(i)
                    break
            else:
                unplaced.append(i)
        unlinked: list[str] = []
        if used:
            # Any link counts, changed line or not: the map lists its pages already.
            linked = {self.diff.resolve(lk.target) for lk in find_links(page.new.text)}
            linked |= {self.diff.resolve_md(md.path, page.path) for md in find_md_links(page.new.text)}
            unlinked = [p for p in used if pages.page_name(p) not in linked]
        return Moves(used, unplaced, blank, unlinked)


