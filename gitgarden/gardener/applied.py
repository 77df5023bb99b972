"""What applying one of the model's operations reads and returns — `ApplyContext`, `Applied`,
`Refusal` — and how an operation finds its page in the tree (`resolve_page`, which raises
`AmbiguousName` rather than guess) and adds its cited days to a page's `source:` (`with_source`).
Shared by the operations that write text (`gardener.operations`) and those that reshape the
wiki (`gardener.reshape`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from gitgarden.model.operations import Op
from gitgarden.wiki import linking, pages
from gitgarden.wiki.journal import JournalLine
from gitgarden.wiki.names import unportable_part
from gitgarden.wiki.placement import Placement
from gitgarden.wiki.subject_index import SubjectIndex
from gitgarden.wiki.tree import Entry, Tree, text_of

__all__ = [
    "AmbiguousName", "Applied", "ApplyContext", "Refusal", "cited_days", "page_text", "resolve_page", "unsafe_name", "with_source",
]  # fmt: skip


@dataclass(frozen=True)
class Refusal:
    """Why an operation was not applied (before the guard saw it)."""

    op: Op
    reason: str

    def __str__(self) -> str:
        return f"{self.op.describe()}: {self.reason}"


@dataclass
class Applied:
    """What one operation would write: full new contents by path, plus what the guard needs to know."""

    op: Op
    writes: dict[str, Entry] = field(default_factory=dict)
    state_evidence: dict[str, str] = field(default_factory=dict)
    split_parents: dict[str, str] = field(default_factory=dict)
    merges: dict[str, str] = field(default_factory=dict)  # merged page -> the page its body moved into
    prose: list[tuple[str, str]] = field(default_factory=list)  # (page path, new text) to score for grounding
    created: list[str] = field(default_factory=list)
    appended: list[str] = field(default_factory=list)
    already_in: str = ""  # the page that already holds what the operation would write: it lands, writing nothing


@dataclass
class ApplyContext:
    """What applying needs besides the tree: the offered lines, today, the conversation window."""

    offered: Mapping[str, JournalLine]
    today: str
    conversation: str = ""
    links: linking.LinkIndex | None = None
    journal_texts: tuple[str, ...] = ()  # every journal line, to refuse recovering what one already says
    place: Placement | None = None  # where the gardener's new pages go, and their names' style
    # The model's slug of each page this pass created -> the page's name (a human name in the
    # gardener's folder): the slug stays the operation's key for later operations and links.
    keys: dict[str, str] = field(default_factory=dict)
    # The offered lines an agent captured (`gitgarden mcp`'s capture log) -> the name its client gave:
    # such a line never decides about a page of the person's (`supersede` asks on the map instead).
    agent_lines: Mapping[str, str] = field(default_factory=dict)
    # Pages by the ways a journal names them (first names, roles, plurals): a new page the model
    # proposes for a subject that has one already becomes more text for it.
    subjects: SubjectIndex | None = None


def page_text(tree: Tree, path: str) -> str | None:
    entry = tree.get(path)
    return None if entry is None else text_of(entry)


def cited_days(op: Op, ctx: ApplyContext) -> list[str]:
    return sorted({ctx.offered[i].day for i in op.lines})


class AmbiguousName(Exception):
    """A page name that more than one page answers to: the operation is refused, never guessed."""

    def __init__(self, name: str, candidates: list[str]) -> None:
        super().__init__(name)
        self.name, self.candidates = name, candidates


def resolve_page(tree: Tree, ctx: ApplyContext, name: str) -> str | None:
    """The path of an existing page named `name` (a page name, file name or alias, or the key
    a page this pass created was proposed under); AmbiguousName when several pages answer to it
    (`Plan` with `Work/Plan.md` and `Home/Plan.md`)."""
    keyed = ctx.keys.get(name.strip().lower())
    if keyed is not None and pages.page_path(keyed) in tree:
        return pages.page_path(keyed)
    if ctx.links is not None and isinstance(name, str):
        twins = ctx.links.candidates(name)
        if twins:
            raise AmbiguousName(name, twins)
        found = ctx.links.resolve(name)
        if found is not None and pages.page_path(found) in tree:
            return pages.page_path(found)
    path = pages.page_path(name)
    # At the root the tree also lists files that are no pages (an identity file, AGENTS.md).
    return path if path in tree and pages.page_name(path) is not None else None


def with_source(text: str, days: list[str]) -> str:
    """The page with `days` added to its `source:`.

    A page without frontmatter (the person's note as they wrote it) gets none forced
    onto it; on the person's pages `source:` is the only key a pass adds (docs/architecture.md, "A project on disk").
    """
    if not pages.split_frontmatter(text)[0]:
        return text
    try:
        meta = pages.read_meta(text)
    except pages.PageError:
        return text  # protected as it is: the guard will refuse a change to its frontmatter
    updates: dict[str, str] = {}
    have = pages.source_days(meta)
    if not set(days) <= set(have):
        updates["source"] = pages.render_source([*have, *days])
    if "state" not in meta and pages.is_gardeners(meta):
        updates["state"] = "open"
    return pages.patch_meta(text, updates) if updates else text


def unsafe_name(name: str) -> str | None:
    """Why a new page may not be called `name` (a file not every system can check out), or None."""
    path = pages.page_path(name)
    why = unportable_part(path)
    if why is None and pages.page_name(path) != name:
        # A wiki at the project root: `raw/x`, `AGENTS`, `.obsidian/x` or a day of the journal folder.
        return f"page name {name!r} refused: that path is not a page of this wiki (gitgarden's, Obsidian's or the journal's)"
    return None if why is None else f"page name {name!r} refused: {why}, so the page could not be checked out there"
