"""The read step of a pass (docs/architecture.md, "One pass", step 4): the journal lines it offers, and the wiki it starts from.

`read` finds the unread journal lines and chooses the ones the pass offers
(set-aside lines wait, a line too long for any prompt is set aside, at most
`max_lines`); `survey` reads the wiki into memory and says what model-free
work is due. Nothing here writes.
"""

from __future__ import annotations

from gitgarden.gardener import commit, setaside
from gitgarden.gardener.state import Pass, Reading, Work
from gitgarden.gardener.steps import Step
from gitgarden.history import review
from gitgarden.project import Project
from gitgarden.repo import gitrepo
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import hubs, journal, layout, pages, placement, tidy
from gitgarden.wiki.tree import Overlay, Tree, text_of

__all__ = ["read", "survey", "anything_due"]


def read(run: Pass) -> Reading | None:
    """The journal lines the pass offers, and what it needs to account for them; None when the read
    position cannot be read (the result says how to mend it; nothing was read or written)."""
    project, settings, result = run.project, run.settings, run.result
    root = project.root
    reading = Reading()
    # Jobs without promote leave the journal alone: no line is read, offered, marked or set aside.
    if "promote" in run.jobs:
        read_text = (project.state / "read.json").read_text() if (project.state / "read.json").exists() else None
        read_text = review.review_read_text(root, read_text)  # lines waiting for review are read: never promoted twice
        try:
            reading.read = journal.load_read(read_text, strict=True)
        except journal.ReadPositionError as exc:
            result.detail = f"{exc}: mend it, or restore it with `git checkout -- {journal.READ_PATH}` (removing it makes every journal line unread)"
            return None  # outcome stays "failed"; nothing was read, tagged or written
    reading.lines = journal.all_lines(project.journal)
    if "promote" in run.jobs:
        reading.unread = journal.unread_lines(reading.lines, reading.read, layout.current().journal_from)
        reading.unread = _not_ignored(run, reading.unread)
        reading.aside_before = setaside.load(_set_aside_text(project))
        reading.aside = setaside.retry(reading.aside_before) if result.retry else reading.aside_before
        aside = reading.aside
        # Lines refused pass after pass wait for an edit or --retry; a line too long for any prompt is
        # looked at again every pass (a raised budget lets it in), and never blocks the lines behind it.
        waiting = [ln for ln in reading.unread if not setaside.is_aside(aside, ln, setaside.REFUSED)]
        reading.long_lines = setaside.too_long(waiting, setaside.line_room(settings, project.name))
        reading.newly_long = [ln for ln in waiting if ln.id in reading.long_lines and not setaside.is_aside(aside, ln)]
        waiting = [ln for ln in waiting if ln.id not in reading.long_lines]
        reading.offered = waiting[: settings.max_lines]
        result.overflow = len(waiting) - len(reading.offered)
    run.on_step(Step("reading", f"{len(reading.offered)} unread line(s)"))
    return reading


def _not_ignored(run: Pass, unread: list[journal.JournalLine]) -> list[journal.JournalLine]:
    """The unread lines whose day file git does not ignore. A pass commits the day files it reads
    (step 4 of a pass): a daily note the person keeps out of git (`.gitignore`) is never read, so it is
    never committed, nor pushed; the result says so. A day file git already tracks is read as ever."""
    days = {journal.day_path(ln.day) for ln in unread}
    if not days:
        return unread
    # The status (read after the journal: a line offered is in the day file as it saw it) lists
    # what git ignores; a tracked day file is never ignored.
    status = run.status()
    ignored = {d for d in days if status.is_ignored(d)}
    if not ignored:
        return unread
    kept = [ln for ln in unread if journal.day_path(ln.day) not in ignored]
    shown = ", ".join(sorted(ignored)[:3]) + (f" and {len(ignored) - 3} more" if len(ignored) > 3 else "")
    run.result.hints.append(
        f"{len(unread) - len(kept)} journal line(s) not read: git ignores {shown} (.gitignore), and a pass commits "
        "what it reads; take them out of .gitignore (or `git add` them) to have them gardened"
    )
    return kept


def survey(run: Pass, reading: Reading) -> Work:
    """The wiki as the pass starts from it (in memory), and the model-free work it needs."""
    project, settings, result, jobs = run.project, run.settings, run.result, run.jobs
    root = project.root
    facts = run.facts
    disk = DiskTree(root, layout.current().tree_folders(), [journal.READ_PATH, setaside.SET_ASIDE_PATH], facts_cache=facts)
    base: Tree = disk
    if settings.review:  # build on what waits for review, so the review commit stacks on it cleanly
        base = review.review_base(root, base)
    dirty = run.status().dirty(layout.current().wiki_folders())
    titles = tidy.page_titles(base)
    work = Work(
        base=base,
        tree=Overlay(base),
        ctx_conversation="",
        offered={ln.id: ln for ln in reading.offered},
        dirty=dirty,
        journal_texts=tuple(ln.text for ln in reading.lines),
        max_person_pages=settings.max_person_pages,
        titles=titles,
        own=frozenset({journal.READ_PATH, setaside.SET_ASIDE_PATH, result.record_path}),
        never_written=dict(disk.filtered),
        unsure_before={
            ln.id: entry.reason
            for ln in reading.offered
            if (entry := reading.aside.get(f"{ln.day}/{ln.key}")) is not None and not entry.aside and entry.reason.startswith("unsure")
        },
    )
    work.place = placement.of_tree(base, auto_hubs=settings.auto_hubs)
    due = work.due
    # What needs no model: map entries for pages the map does not reach, links in those pages.
    map_writes, mapped, unplaced = hubs.map_entries(base, titles, dirty, work.place)
    if "map" not in jobs:
        map_writes, mapped = {}, []
    due.map_entries, due.mapped = bool(map_writes), mapped
    # Only the gardener's own pages are split on its own; the person's are a health advisory.
    due.over_budget = [p for p in tidy.over_budget(base) if p not in dirty and tidy.is_gardeners(base, p)] if "split" in jobs else []
    if "hubs" in jobs:
        map_text = tidy.read_text(base, pages.map_path()) or ""
        last_map = commit.last_map_chars(project)
        prune_map = len(map_text) > pages.MAP_CEILING and (last_map is None or len(map_text) > last_map)
        # A full map with pages it cannot list: its entries move into hubs to make room for the hubs' lines.
        due.prune_map = prune_map or bool(unplaced and hubs.prune_into_hubs(base, titles, map_text, work.place))
    # The link job named without all the others reaches every page of the gardener's; a full pass
    # links only the pages it writes and the pages new to the map.
    due.link_pages = _gardeners_pages(base, dirty) if "link" in jobs and not result.all_jobs else []
    due.links_due = bool(due.link_pages and tidy.wrap_mentions(base, due.link_pages, titles))
    return work


def anything_due(reading: Reading, work: Work) -> bool:
    """True when the pass has something to do: lines to offer or set aside, or model-free work."""
    due = work.due
    return bool(reading.offered or due.map_entries or due.over_budget or due.prune_map or reading.newly_long or due.links_due)


def _set_aside_text(project: Project) -> str | None:
    """`.gitgarden/set-aside.json` as a pass starts from it: the newest pass waiting for review
    wrote it, else the work tree holds it (never read through a symlink)."""
    tip = review.review_waiting(project.root)
    if tip is not None:
        entry = gitrepo.tree_at(project.root, tip, [setaside.SET_ASIDE_PATH]).get(setaside.SET_ASIDE_PATH)
        if entry is not None:
            return text_of(entry)
    path = project.root / setaside.SET_ASIDE_PATH
    if path.is_symlink() or not path.is_file():
        return None
    return path.read_bytes().decode("utf-8", "replace")


def _gardeners_pages(tree: Tree, dirty: set[str]) -> list[str]:
    """The gardener's own pages (the map and the person's uncommitted pages left out)."""
    return sorted(
        p for p in tree if pages.page_name(p) and p != pages.map_path() and p not in dirty and tidy.is_gardeners(tree, p)
    )
