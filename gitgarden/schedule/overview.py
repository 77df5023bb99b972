"""What the front ends show of a project: `status` and `projects list` (its clocks, its last
attempt, the lock, the tick — read from the registry and stat calls, with neither the gardener nor
the model), and the views the web app and the agents' door share (a journal day with each line's
state, a page with its backlinks, the map with its Open questions). The views import the page
parser only when called: `status` must stay light.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.config import load_settings
from gitgarden.errors import ConfigError, GitgardenError
from gitgarden.history.records import recent_skips
from gitgarden.repo.lock import holder
from gitgarden.schedule.registry import (
    ProjectState,
    iso,
    load_state,
    map_chars,
    registered,
    ts,
)
from gitgarden.wiki import layout

if TYPE_CHECKING:
    from gitgarden.project import Project

from dataclasses import dataclass, field

from gitgarden.schedule.clocks import (
    MAP_CEILING,
    Assessment,
    Hold,
    assess,
    git_dir_of,
    project_at,
    remote_position,
)
from gitgarden.schedule.tick import last_look

__all__ = [
    "project_status",
    "list_projects",
    "NotFound",
    "PageNotFound",
    "LineView",
    "journal_days",
    "journal_day",
    "PageView",
    "find_page",
    "map_view",
]

def project_status(project: Project, env: Mapping[str, str], now: datetime) -> dict[str, Any]:
    """Everything `gitgarden status` shows for one project (no gardener, no model library)."""
    with layout.active(project.layout):
        return _project_status(project, env, now)


def _project_status(project: Project, env: Mapping[str, str], now: datetime) -> dict[str, Any]:
    root = project.root
    tnow = ts(now)
    is_registered = root in registered(env)
    record = load_state(env).get(str(root), ProjectState())
    load_settings(root, env=env)  # a malformed config file: ConfigError with its path and line
    a = assess(root, record, tnow, env, full=True, project=project)
    if a.error:
        raise GitgardenError(a.error)
    if not is_registered:
        first = 1 if a.holds and a.holds[0].clock == "repo_state" else 0  # the repository's state stays first
        a.holds.insert(first, Hold("registered", "not registered for tick (`gitgarden projects add`)"))
    user = load_settings(None, env=env).settings
    last = last_look(env)
    git_dir = git_dir_of(root)
    lock = holder(git_dir) if git_dir is not None else None
    size = map_chars(root)
    return {
        "no_model": _no_model(a, record),
        "path": str(root),
        "name": root.name,
        "registered": is_registered,
        "unread": a.unread,
        "map_chars": size,
        "map_over_ceiling": size is not None and size > MAP_CEILING,
        "work": a.work or None,
        "signal": a.signal or None,
        "eligible": a.eligible and is_registered,
        "held": [h.as_dict() for h in a.holds],
        "eligible_at": iso(max([tnow] + [h.until for h in a.holds if h.until is not None]))
        if a.holds and all(h.until is not None for h in a.holds)
        else None,
        "remote": remote_position(root, env),
        **_last_pass(root, git_dir, record),
        "consecutive_failures": record.consecutive_failures,
        "lock": lock,
        "tick": {
            "enabled": user.enabled,
            "interval_min": user.interval_min,
            "last_look": None if last is None else iso(last),
            "next_look": None if last is None else iso(max(tnow, last + user.interval_min * 60)),
        },
        "skipped": recent_skips(root),  # lines the last passes read only because a skip cited them
        "warnings": a.warnings + _journal_warnings(root, now) + _map_warnings(root),
        "journal_headings": _headings(root),
    }


def _last_pass(root: Path, git_dir: Path | None, record: ProjectState) -> dict[str, Any]:
    """The last pass: from this machine's state (a registered project's attempts), else from the
    project's own records — the newest committed pass in `log/` or attempt in the git dir — so
    passes run with `gitgarden run` (or on another clone) are never reported as none."""
    found: dict[str, Any] = {
        "last_attempt": record.last_attempt,
        "last_outcome": record.last_outcome,
        "last_pass_id": record.last_pass_id,
        "last_message": record.last_sentence or None,
        "last_from": "state" if record.last_attempt else None,
    }
    newest = _newest_record(root, git_dir)
    if newest is None:
        return found
    when = str(newest.get("finished") or newest.get("started") or "")
    if record.last_attempt and when <= str(record.last_attempt):
        return found
    return {
        "last_attempt": when or None,
        "last_outcome": newest.get("outcome"),
        "last_pass_id": newest.get("pass_id") or None,
        "last_message": newest.get("message") or None,
        "last_from": "records",
    }


def _newest_record(root: Path, git_dir: Path | None) -> dict[str, Any] | None:
    """The newest pass record of the project: the last line of the newest `log/YYYY-MM.jsonl`, or
    the newest attempt in the git dir, whichever finished last (None when there is neither)."""
    from gitgarden.history.records import LOG_DIR, read_attempts, records_in

    found: list[dict[str, Any]] = []
    folder = root / LOG_DIR
    try:
        months = sorted(n for n in os.listdir(folder) if n.endswith(".jsonl"))
    except OSError:
        months = []
    for name in reversed(months):
        path = folder / name
        if path.is_symlink() or not path.is_file():
            continue
        records = records_in(path.read_text(encoding="utf-8", errors="replace"))
        if records:
            found.append(records[-1])
            break
    if git_dir is not None:
        attempts = read_attempts(git_dir)
        if attempts:
            found.append(attempts[-1])
    found = [r for r in found if r.get("finished") or r.get("started")]
    return max(found, key=lambda r: str(r.get("finished") or r.get("started")), default=None)


def _map_warnings(root: Path) -> list[str]:
    """A symlink where the map should be: the gardener never writes through one, so the map is not kept."""
    rel = layout.current().map_path()
    if not os.path.islink(f"{root}/{rel}"):
        return []
    return [f"{rel} is a symlink, and the gardener never writes through one: the map is not kept until it is a file (or map_page names another)"]


def _journal_warnings(root: Path, now: datetime) -> list[str]:
    from gitgarden.project import journal_went_missing
    from gitgarden.wiki.journal import not_read_names, not_read_warning

    here = layout.current()
    folder = root / here.journal_dir
    if journal_went_missing(root, here.journal_dir):
        # Renamed or removed: "0 unread" would hide every line in it, and capture would make it again.
        return [
            f"the journal folder {here.journal_dir}/ does not exist: if you renamed it, set journal_dir to its new "
            "name (`gitgarden config set journal_dir NEW`); until then no journal line is read"
        ]
    warnings = []
    names = not_read_names(folder)
    if names:
        warnings.append(not_read_warning(names))
    today = now.astimezone().date().isoformat()
    if here.journal_from and here.journal_from > today:
        warnings.append(
            f"journal_from = {here.journal_from} is in the future (today is {today}): no journal line is offered "
            "until then (`gitgarden config unset journal_from` offers every day)"
        )
    return warnings


def _headings(root: Path) -> list[dict[str, str]]:
    from gitgarden.wiki.journal import journal_headings

    here = layout.current()
    return journal_headings(root / here.journal_dir, here.journal_from)
def _no_model(a: Assessment, record: ProjectState) -> str | None:
    """Why no pass can read the waiting lines for want of a model (here, or in the last attempt), or None."""
    if not a.unread:
        return None
    if a.settings is not None and not a.settings.model.strip():
        return "here"  # no model in this environment or any settings file
    if record.last_outcome == "no_model":
        return "last_pass"  # this shell has one; the timer that ran the last pass did not
    return None


def list_projects(env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The registry with what the state remembers of each project."""
    records = load_state(env)
    rows = []
    for root in registered(env):
        rec = records.get(str(root), ProjectState())
        exists = project_at(root) is not None
        enabled: bool | None = None
        error = None
        if exists:
            try:
                enabled = load_settings(root, env=env).settings.enabled
            except ConfigError as exc:
                error = str(exc)
        rows.append(
            {
                "path": str(root),
                "exists": exists,
                "enabled": enabled,
                "last_attempt": rec.last_attempt,
                "last_outcome": rec.last_outcome,
                "consecutive_failures": rec.consecutive_failures,
                "error": error,
            }
        )
    return rows


# -- the views the web app and the agents' door share ---------------------------------------------


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
    reason: str = ""  # why it is set aside

    def to_json(self) -> dict[str, Any]:
        """The line as plain JSON."""
        return {"id": self.id, "day": self.day, "lineno": self.lineno, "text": self.text, "state": self.state, "reason": self.reason}


def journal_days(project: Project) -> list[str]:
    """The project's day files (days, `YYYY-MM-DD`), newest first; symlinks and misnamed files left out."""
    from gitgarden.wiki.names import is_day

    folder = project.journal
    if folder.is_symlink() or not folder.is_dir():
        return []
    days = [p.stem for p in folder.glob("*.md") if p.is_file() and not p.is_symlink() and is_day(p.stem)]
    return sorted(days, reverse=True)


def journal_day(project: Project, day: str) -> list[LineView]:
    """One day's journal lines, each with its id and whether a pass read it, will read it, set it
    aside, or never reads it (before `journal_from`, or a day file git ignores)."""
    from gitgarden.gardener import setaside
    from gitgarden.project import file_text
    from gitgarden.wiki import journal
    from gitgarden.wiki.names import is_day

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
    out = []
    for ln in lines:
        if ln.id in aside:
            out.append(LineView(ln.id, day, ln.lineno, ln.text, "set aside", aside[ln.id].reason))
        else:
            out.append(LineView(ln.id, day, ln.lineno, ln.text, "unread" if ln.id in waiting else "read"))
    return out


def _ignored(project: Project, rel: str) -> bool:
    """True when git ignores the untracked day file (a pass never reads a daily note the person
    keeps out of git), asked as the pass asks it."""
    from gitgarden.errors import GitError
    from gitgarden.repo import gitrepo

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


def _wiki_tree(project: Project) -> Any:
    """The wiki's files, with the facts cache a pass keeps in the git dir (pages re-read only when changed)."""
    from gitgarden.repo.disktree import DiskTree
    from gitgarden.wiki.facts import FactsCache

    gdir = git_dir_of(project.root)
    cache = FactsCache(None if gdir is None else gdir / "gitgarden" / "facts.pickle")
    return DiskTree(project.root, project.layout.wiki_folders(), facts_cache=cache)


def find_page(project: Project, name: str) -> PageView:
    """The page `name` names, resolved as Obsidian resolves a link (its name, a human name, an alias,
    in any letter case); PageNotFound for an unknown name, a name that leaves the wiki, or a symlink."""
    from gitgarden.wiki import pages, tidy
    from gitgarden.wiki.facts import page_facts

    wanted = name.strip().removesuffix(".md")
    if not wanted or wanted.startswith(("/", "~")) or "\\" in wanted or "\0" in wanted or ".." in wanted.split("/"):
        raise PageNotFound(f"{name!r} is no page name: a page is named as its file in the wiki, without .md")
    with layout.active(project.layout):
        tree = _wiki_tree(project)
        titles = tidy.page_titles(tree)
        index = tidy.link_index(titles)
        found = index.resolve(wanted)
        if found is None:
            raise PageNotFound(f"no page named {name!r} in {project.layout.wiki_shown}")
        path = pages.page_path(found)
        target = project.root / path
        if path not in tree or target.is_symlink() or not target.is_file():
            raise PageNotFound(f"no page named {name!r} in {project.layout.wiki_shown} (a symlink is never read)")
        text = target.read_bytes().decode("utf-8", "replace")
        try:
            meta = pages.read_meta(text)
        except pages.PageError:
            meta = {}
        backlinks = sorted(
            other
            for other in titles
            if other != found
            and (facts := page_facts(tree, pages.page_path(other))) is not None
            and any(index.resolve(t) == found for t in facts.targets)
        )
        if found != pages.map_name() and _links_to(tree, pages.map_path(), found, index):
            backlinks.insert(0, pages.map_name())
        tree.facts_cache.save()
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
            backlinks=backlinks,
        )


def _links_to(tree: Any, path: str, name: str, index: Any) -> bool:
    from gitgarden.wiki.facts import page_facts

    facts = page_facts(tree, path) if path in tree else None
    return facts is not None and any(index.resolve(t) == name for t in facts.targets)


def map_view(project: Project) -> tuple[str, list[str]]:
    """The map's text and its Open questions (an empty map when it is missing or a symlink)."""
    from gitgarden.project import file_text
    from gitgarden.wiki import pages

    text = file_text(project.root, project.layout.map_path()) or ""
    return text, pages.open_lines(text)
