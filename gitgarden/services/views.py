"""The views the web app and the agents' door share: a journal day with each line's state, a page
with its backlinks (read off a `wikiview.WikiPicture`: one a long-running reader keeps, or one
listed for the call), the map with its Open questions. Apart from `status` (what `status` shows),
which every `status` imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from gitgarden.errors import GitError, GitgardenError
from gitgarden.gardener import setaside
from gitgarden.history import passlog
from gitgarden.history.provenance import KeptSources
from gitgarden.history.records import LOG_DIR, read_attempts, records_in
from gitgarden.project import file_text
from gitgarden.repo import gitrepo
from gitgarden.repo.gitdir import find_git_dir
from gitgarden.services.lines import READ_KINDS, UNREAD_KINDS, Story, line_stories
from gitgarden.services.wikiview import WikiPicture
from gitgarden.store.disktree import DiskTree
from gitgarden.store.wikisync import read_file
from gitgarden.wiki import journal, layout, pages
from gitgarden.wiki.facts import FactsCache
from gitgarden.wiki.names import is_day
from gitgarden.wiki.tree import text_of

if TYPE_CHECKING:
    from gitgarden.project import Project

__all__ = [
    "NotFound", "PageNotFound", "LineView", "journal_days", "journal_day", "with_story", "PageView", "find_page", "wiki_tree",
    "kept_facts", "map_view", "waiting", "recent_passes", "passes_summary", "kept_sources", "page_sources", "page_body",
]  # fmt: skip


class NotFound(GitgardenError):
    """What was asked for is not in the project (a day without a day file, a bad day)."""


class PageNotFound(NotFound):
    """No page of the wiki has that name (or the name leaves the wiki, or is a symlink)."""


@dataclass(frozen=True)
class LineView:
    """One journal line and where it stands."""

    id: str
    day: str
    lineno: int
    text: str
    state: str  # "read" | "unread" | "set aside" | "before journal_from" | "ignored"
    reason: str = ""  # why it stands so: set aside, skipped, on which page, what failed (services.lines)
    # What the passes' records say of it (`services.lines.Story.kind`): "on a page", "skipped", "undone"
    # for a read line; "failed", "stopped", "left unread", "rejected", "read again" for an unread one.
    detail: str = ""
    pages: tuple[str, ...] = ()  # the pages a read line landed on
    pass_id: str = ""  # the pass that said so

    def to_json(self) -> dict[str, Any]:
        """The line as plain JSON."""
        return {
            "id": self.id, "day": self.day, "lineno": self.lineno, "text": self.text, "state": self.state,
            "reason": self.reason, "detail": self.detail, "pages": list(self.pages), "pass_id": self.pass_id,
        }  # fmt: skip


def journal_days(project: Project) -> list[str]:
    """The project's day files (days, `YYYY-MM-DD`), newest first; symlinks and misnamed files left out."""
    folder = project.journal
    if folder.is_symlink() or not folder.is_dir():
        return []
    days = [p.stem for p in folder.glob("*.md") if p.is_file() and not p.is_symlink() and is_day(p.stem)]
    return sorted(days, reverse=True)


def journal_day(project: Project, day: str, stories: Mapping[str, Story] | None = None) -> list[LineView]:
    """One day's journal lines, each with its id and whether a pass read it, will read it, set it
    aside, or never reads it (before `journal_from`, or a day file git ignores), and why, from the
    passes' records (`stories`: as a long-running reader keeps them; by default read here)."""
    if not is_day(day):
        raise NotFound(f"{day!r} is not a day: journal days are written YYYY-MM-DD")
    here = project.layout
    text = file_text(project.root, here.day_path(day))
    if text is None:
        raise NotFound(f"there is no day file for {day} in {here.journal_dir}/")
    lines = journal.parse_day(day, text)
    if here.journal_from and day < here.journal_from:
        return [LineView(ln.id, day, ln.lineno, ln.text, "before journal_from") for ln in lines]
    if _ignored(project, here.day_path(day)):
        return [LineView(ln.id, day, ln.lineno, ln.text, "ignored") for ln in lines]
    read = journal.load_read(file_text(project.root, journal.READ_PATH))
    unread = journal.unread_lines(lines, read)
    state = setaside.load(file_text(project.root, setaside.SET_ASIDE_PATH))
    aside = {ln.id: entry for ln, entry in setaside.listed(state, unread)}
    waiting = {ln.id for ln in unread}
    stories = line_stories(project.root) if stories is None else stories
    out = []
    for ln in lines:
        if ln.id in aside:
            out.append(LineView(ln.id, day, ln.lineno, ln.text, "set aside", aside[ln.id].reason))
        else:
            out.append(with_story(LineView(ln.id, day, ln.lineno, ln.text, "unread" if ln.id in waiting else "read"), stories))
    return out


def with_story(line: LineView, stories: Mapping[str, Story]) -> LineView:
    """`line` with what the records say of it, when that agrees with its state and its words now."""
    story = stories.get(line.id)
    if story is None or (story.text and story.text.strip() != line.text.strip()):
        return line  # no word on it, or the id now names another line (the day file was edited)
    if story.kind not in (READ_KINDS if line.state == "read" else UNREAD_KINDS if line.state == "unread" else ()):
        return line
    return replace(line, reason=story.reason, detail=story.kind, pages=story.pages, pass_id=story.pass_id)


def _ignored(project: Project, rel: str) -> bool:
    """True when git ignores the untracked day file (a pass never reads a daily note the person
    keeps out of git), asked as the pass asks it."""
    try:
        out = gitrepo.git(project.root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", rel, check=False)
    except GitError:
        return False
    return rel in out.decode("utf-8", "surrogateescape").split("\0")


@dataclass(frozen=True)
class PageView:
    """A page as the front ends show it: its text, frontmatter figures and the pages linking to it."""

    name: str
    path: str
    title: str
    state: str | None
    source: list[str]
    text: str
    body: str
    aliases: list[str] = field(default_factory=list)
    gardeners: bool = False
    backlinks: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The page as plain JSON."""
        return {
            "name": self.name, "path": self.path, "title": self.title, "state": self.state, "source": self.source,
            "text": self.text, "aliases": self.aliases, "gardeners": self.gardeners, "backlinks": self.backlinks,
        }  # fmt: skip


def wiki_tree(project: Project, facts: FactsCache | None) -> DiskTree:
    """The wiki's files, listed now, with the facts cache `facts` (pages re-read only when changed)."""
    return DiskTree(project.root, project.layout.wiki_folders(), facts_cache=facts)


def kept_facts(project: Project) -> FactsCache:
    """A facts cache for a long-running reader to keep between calls: loaded once from the one
    passes keep in the git dir, checked against each file's stat, never written (the passes keep
    the file)."""
    cache = _passes_facts(project)
    cache.path = None
    return cache


def _passes_facts(project: Project) -> FactsCache:
    gdir = find_git_dir(project.root)
    return FactsCache(None if gdir is None else gdir / "gitgarden" / "facts.pickle")


def find_page(project: Project, name: str, *, tree: Any = None, picture: WikiPicture | None = None) -> PageView:
    """The page `name` names, resolved as Obsidian resolves a link (its name, a human name, an alias,
    in any letter case); PageNotFound for an unknown name, a name that leaves the wiki, or a symlink.

    Read off `picture` when the caller keeps one in step (`KeptWiki.held`, with the project's layout
    in force); else off `tree`, the wiki's files as a long-running caller lists them for this
    request (`wiki_tree`); by default they are listed here, with the facts cache passes keep."""
    wanted = name.strip().removesuffix(".md")
    if not wanted or wanted.startswith(("/", "~")) or "\\" in wanted or "\0" in wanted or ".." in wanted.split("/"):
        raise PageNotFound(f"{name!r} is no page name: a page is named as its file in the wiki, without .md")
    with layout.active(project.layout):
        if picture is None:
            own = tree is None
            if tree is None:
                tree = wiki_tree(project, _passes_facts(project))
            picture = WikiPicture.read(tree, project.layout)
            if own:
                tree.facts_cache.save()
        found = picture.index.resolve(wanted)
        if found is None:
            raise PageNotFound(f"no page named {name!r} in {project.layout.wiki_shown}")
        path = pages.page_path(found)
        target = project.root / path
        if not picture.holds_page(found) or target.is_symlink() or not target.is_file():
            raise PageNotFound(f"no page named {name!r} in {project.layout.wiki_shown} (a symlink is never read)")
        text = target.read_bytes().decode("utf-8", "replace")
        try:
            meta = pages.read_meta(text)
        except pages.PageError:
            meta = {}
        _, body = pages.split_frontmatter(text)
        state = meta.get("state")
        return PageView(
            name=found,
            path=path,
            title=str(meta.get("title") or found.rsplit("/", 1)[-1]),
            state=state if isinstance(state, str) else None,
            source=pages.source_days(meta),
            text=text,
            body=body,
            aliases=pages.aliases_of(meta),
            gardeners=pages.is_gardeners(meta),
            backlinks=picture.backlinks(found),
        )


def map_view(project: Project) -> tuple[str, list[str]]:
    """The map's text and its Open questions (an empty map when it is missing or a symlink)."""
    text = file_text(project.root, project.layout.map_path()) or ""
    return text, pages.open_lines(text)


def waiting(project: Project) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """(the unread journal lines a pass would offer, the unread lines set aside with their entries),
    from the project's files as they stand."""
    with layout.active(project.layout):
        return setaside.on_disk(project.root)


def recent_passes(project: Project) -> list[dict[str, Any]]:
    """The newest passes' records, oldest first, from the record files (the newest months of `log/`,
    and this machine's attempts), dry runs and other records left out — without walking git."""
    folder = project.root / LOG_DIR
    names = sorted(p.name for p in folder.glob("*.jsonl")) if folder.is_dir() and not folder.is_symlink() else []
    found: list[dict[str, Any]] = []
    for name in names[-2:]:  # a month's file holds a month of passes: the garden shows the last 30
        found.extend(records_in(file_text(project.root, f"{LOG_DIR}/{name}") or ""))
    gdir = find_git_dir(project.root)
    if gdir is not None:
        found.extend(read_attempts(gdir))
    passes = [r for r in found if isinstance(r.get("pass_id"), str) and r.get("kind") is None and not r.get("dry_run")]
    return sorted(passes, key=lambda r: str(r.get("started") or ""))


def passes_summary(project: Project) -> dict[str, Any]:
    """The last pass the person need not decide on (id, when, outcome, message, commit, lines read,
    pages written) and the passes waiting for review, as the agents' `status` shows them."""
    with layout.active(project.layout):
        entries = passlog.passes(project.root)
    last = next((e for e in entries if e.review != "waiting"), None)
    return {
        "last_pass": None if last is None else {
            "pass_id": last.pass_id, "when": last.when, "outcome": last.outcome, "message": last.message,
            "commit": last.commit, "read": last.read, "created": last.created, "appended": last.appended,
        },
        "review_waiting": [e.pass_id for e in entries if e.review == "waiting"],
    }  # fmt: skip


def kept_sources() -> Any:
    """What traces a page's paragraphs to the journal lines they came from, for a long-running reader
    to keep between calls: traced again only when the passes changed."""
    return KeptSources()


def page_sources(project: Project, page: PageView, kept: Any = None) -> list[Any]:
    """The paragraphs of `page` that passes wrote, each with the journal lines it came from (`kept`:
    a `kept_sources()` the caller keeps; by default traced for this call)."""
    with layout.active(project.layout):
        return (kept or kept_sources()).page_sources(project.root, page.name, page.text)


def page_body(project: Project, name: str) -> str | None:
    """The body of page `name` (a name the link index gave), for an embed; None when it is not a
    regular UTF-8 file (a symlink is never read through)."""
    entry = read_file(project.root, pages.page_path(name))
    text = None if entry is None else text_of(entry)
    return None if text is None else pages.split_frontmatter(text)[1]
