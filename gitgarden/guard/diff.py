"""The change the guard judges, worked out once: which paths changed and how (new, modified,
deleted, in the journal), each modified page's old lines and how they fared in the new text,
where the lines that left a page went, and how a link target resolves in the proposed tree.

The rules (`guard.rules`) read the change only through `Diff`; this module judges nothing.
What the rules ask of the rest of the trees (a name taken in other letter case, the folders,
which page a link names) goes through `Names`, so that a tree read from git answers it with
a few queries instead of being listed and read whole (`guard.staged`, the pre-commit hook).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

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
from gitgarden.wiki.names import is_note_name, is_slug, unportable_part
from gitgarden.wiki.tree import Entry, Tree, changed_paths, derived, is_lfs_pointer, text_of

__all__ = ["PassContext", "Diff", "Names", "PageChange", "Moves", "meta_of", "slug_rule", "obsidian_settings", "encoding_change"]


@dataclass(frozen=True)
class PassContext:
    """What a pass knows that the trees do not: its evidence sources and its own paths."""

    conversation: str = ""
    journal_lines: tuple[str, ...] = ()
    state_evidence: Mapping[str, str] = field(default_factory=dict)
    own_paths: frozenset[str] = frozenset()
    split_parents: Mapping[str, str] = field(default_factory=dict)
    merges: Mapping[str, str] = field(default_factory=dict)  # merged page -> the page its body moved into


# What a vault's human page name may not hold: path and shell trouble on some disk, or a
# character that ends an Obsidian link ([[name#heading|shown]], ^block).
_NOT_IN_NAMES = re.compile(r'[\x00-\x1f\x7f\\/:*?"<>|#^\[\]]')
# What text never holds but binary content does: control characters other than tab, the line
# endings, form feed and escape (terminal output pasted into a note keeps its colours).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")


def slug_rule(here: layout.Layout) -> str:
    return f"a new page is named {here.wiki_prefix}<slug>.md (lowercase letters, digits, '-')"


# --- small judgements ---------------------------------------------------------------


def _unsafe_path(path: str) -> bool:
    """True for paths that are not plain, relative and inside the project, or that some
    system cannot check out (a Windows device name like `con`, a name ending in a dot)."""
    return (
        not path
        or path.startswith("/")
        or "\\" in path
        or "\0" in path
        or any(part in ("", ".", "..") for part in path.split("/"))
        or unportable_part(path) is not None
    )


def _human_name(segment: str) -> bool:
    """A name a person's vault holds (spaces, capitals): nothing a disk or a link chokes on."""
    return (
        bool(segment)
        and not _NOT_IN_NAMES.search(segment)
        and segment == segment.strip()
        and not segment.endswith(".")
    )


_BOM = b"\xef\xbb\xbf"


def _newline_style(data: bytes) -> str | None:
    """"CRLF" or "LF" when every line of `data` ends so, "mixed", or None for a text of one line."""
    lf = data.count(b"\n")
    if not lf:
        return None
    crlf = data.count(b"\r\n")
    return "CRLF" if crlf == lf else "LF" if not crlf else "mixed"


def encoding_change(old: bytes, new: bytes) -> str | None:
    """What changed in how a text is stored rather than in what it says — a byte-order mark added or
    removed, every line ending turned to CRLF or to LF — named in words; None when neither did.
    Either would change every line (or hide the frontmatter), and is reported as what it is."""
    changes = []
    if new.startswith(_BOM) != old.startswith(_BOM):
        changes.append("a byte-order mark was added" if new.startswith(_BOM) else "its byte-order mark was removed")
    before, after = _newline_style(old), _newline_style(new)
    if before in ("LF", "CRLF") and after in ("LF", "CRLF") and before != after:
        changes.append(f"its line endings changed to {after}")
    return " and ".join(changes) or None


def meta_of(text: str) -> dict[str, Any] | None:
    """The page's frontmatter, or None when it does not parse."""
    try:
        return pages.read_meta(text)
    except pages.PageError:
        return None


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
        self.kinds = {p: _kind(self.layout, p, base.get(p), proposed.get(p)) for p in self.changed}
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
        """The changed paths of one kind (see `_kind`), sorted."""
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
            why = _new_file_problem(self.layout, path, self.proposed[path], self.agent, self.names, self.base_folders)
            why = why or _case_twin(self.layout, path, self.names)
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


OBSIDIAN_DIR = ".obsidian/"  # the vault's settings, workspace and plugins: Obsidian writes them as it runs


def _is_obsidians(here: layout.Layout, path: str) -> bool:
    """True for a file of Obsidian's own settings folder, at the vault's top (the project root or
    the wiki folder): outside the guard's subject for the person and their agents, since Obsidian
    rewrites `workspace.json` whenever a note is opened; a pass still never writes one."""
    return path.startswith(OBSIDIAN_DIR) or (bool(here.wiki_prefix) and path.startswith(here.wiki_prefix + OBSIDIAN_DIR))


def obsidian_settings(here: layout.Layout, path: str) -> bool:
    """True for the part of Obsidian's folder it rewrites as it runs: the JSON settings at its top
    (`workspace.json`, `app.json`, …) and a plugin's `data.json`. The rest — plugins' code,
    CSS snippets, themes — is code Obsidian runs, which an agent's commit may not bring in."""
    rel = path[len(here.wiki_prefix) :] if here.wiki_prefix and path.startswith(here.wiki_prefix) else path
    parts = rel[len(OBSIDIAN_DIR) :].split("/")
    return (len(parts) == 1 and parts[0].endswith(".json")) or (
        len(parts) == 3 and parts[0] == "plugins" and parts[2] == "data.json"
    )


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


def _kind(here: layout.Layout, path: str, old: Entry | None, new: Entry | None) -> str:
    """What a changed path is, for the rules: unsafe, obsidian (its settings folder), submodule_gone /
    submodule_new (a gitlink), deleted, symlink, filtered (a Git LFS pointer), reencoded (a BOM or
    the line endings changed), new, modified (all in the wiki), journal (a day file), or other. (A
    path inside a submodule is `in_submodule`, decided by `Diff`.)"""
    if _unsafe_path(path):
        return "unsafe"
    if _is_obsidians(here, path):
        return "obsidian"
    if old is not None and old.is_gitlink:
        return "submodule_gone"  # removed, or replaced by a file (a bump of its commit is no change)
    if new is not None and new.is_gitlink:
        return "submodule_new" if old is None else "deleted"
    symlink = any(e is not None and e.is_symlink for e in (old, new))
    if here.in_wiki(path):
        if new is None:
            return "deleted"
        if symlink:
            return "symlink"
        if old is not None and pages.is_attachment(path):
            return "attachment"  # a file that is not a page: never written (rule 4)
        if old is not None and is_lfs_pointer(old):
            return "filtered"  # git keeps the file elsewhere; its pointer is no page (rule 4)
        if old is not None and encoding_change(old.data, new.data):
            return "reencoded"  # named as what it is (rule 4), not as every line changed
        return "new" if old is None else "modified"
    if symlink:
        return "symlink"
    if here.is_journal_file(path):
        return "journal"
    return "other"


def _new_file_problem(
    here: layout.Layout, path: str, entry: Entry, agent: bool, names: Names, folders: set[str]
) -> str | None:
    """Why a new file in the wiki may not be created (rule 3), or None.

    Outside an agent's commit a new page has a slug name, except a note name in the
    human style of a vault inside folders the wiki has already: only a split part may
    take one (checked once the parts are known, `Diff.human_named`).
    """
    segments = here.wiki_relative(path).removesuffix(".md").split("/")
    if any(s.startswith(".") for s in segments):
        return f"a new file under {here.wiki_shown} is never hidden"
    if agent:
        if not path.endswith(".md") or not all(_human_name(s) for s in segments):
            return f'a new page is named {here.wiki_prefix}<name>.md, without \\ / : * ? " < > | # ^ [ ]'
    elif not path.endswith(".md") or not (
        is_note_name(segments[-1])
        and all(
            is_slug(s) or here.wiki_prefix + "/".join(segments[: i + 1]) in folders or _gardeners_folder(here, segments[: i + 1])
            for i, s in enumerate(segments[:-1])
        )
    ):
        return slug_rule(here)
    text = text_of(entry)
    if text is None or _CONTROL.search(text):
        return "a new page is UTF-8 text without NUL bytes or other control characters (binary content)"
    if names.taken_folded(path):
        # On a case-insensitive disk this file would overwrite the person's page.
        return "a file with this name in other letter case exists already"
    return None


def _gardeners_folder(here: layout.Layout, segments: list[str]) -> bool:
    """True when `segments` are the gardener's own folder (`Gardener/`) or a folder above it: it
    may be made by the pass that writes its first page there."""
    own = here.gardener_folder.split("/") if here.gardener_folder else []
    return bool(segments) and own[: len(segments)] == segments


def _case_twin(here: layout.Layout, path: str, names: Names) -> str | None:
    """Why a new wiki file named like a folder or reserved name in other letter case may not be
    created (rule 3), or None: on a case-insensitive disk (macOS, Windows) `Raw/x.md` lands in
    raw/, and `daily notes/x.md` in the journal folder, past the rules that guard them."""
    reserved = here.case_twin(path)
    twins = [reserved] if reserved else []
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        folder = "/".join(parts[:i])
        spelt = names.folder_spellings(folder)
        if spelt and folder not in spelt:
            twins.append(min(spelt) + "/")
    if not twins:
        return None
    return f"its name differs only in letter case from {twins[0]}, the same name on a case-insensitive disk (macOS, Windows)"


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


