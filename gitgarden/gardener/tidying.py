"""The model-free steps of a pass: split, hubs, links, the map last (docs/architecture.md, "One pass", step 12), and health.

Each works on the pass's in-memory tree through the same guard as the
model's operations (`Work.try_apply`), touches only the jobs the pass runs,
and leaves what it came to in the result's job figures.
"""

from __future__ import annotations

from gitgarden.gardener import setaside
from gitgarden.gardener.operations import Applied
from gitgarden.gardener.state import Pass, Reading, Work
from gitgarden.model.operations import Op
from gitgarden.store import wikisync
from gitgarden.wiki import hubs, pages, tidy
from gitgarden.wiki.health import Health
from gitgarden.wiki.split import split_in_tree
from gitgarden.wiki.tree import Entry, Overlay, Tree, changed_paths, file, text_of

__all__ = ["tidy_pages", "map_last", "health", "nothing_new", "heading_split", "split_pushed_over"]


def tidy_pages(run: Pass, work: Work) -> None:
    """The merge figure, then split the gardener's pages still over budget at their headings, prune a
    full map into hubs, and wrap links in the pages this pass writes (and in pages new to the map)."""
    result, jobs, figures = run.result, run.jobs, run.result.job_figures
    base, dirty, due, titles = work.base, work.dirty, work.due, work.titles
    if "merge" in jobs:
        figures["merge"] = {"merged": len(work.merges)}  # the model's merges, landed through promote
    # Pages still over budget are split at their headings; a map over its ceiling is pruned.
    if "split" in jobs:
        figures["split"] = {"pages": 0}
    for path in due.over_budget:
        if path in work.tree and len(tidy.read_text(work.tree, path) or "") > pages.PAGE_BUDGET:
            figures["split"]["pages"] += int(heading_split(run, work, path))
    if "hubs" in jobs:
        figures["hubs"] = {"hubs": len(_prune_map(run, work)) if due.prune_map else 0}
    # Links in the pages this pass writes, and in pages new to the map.
    written = [p for p in changed_paths(base, work.tree) if pages.page_name(p)]
    # Pages new to the map take links only when they are the gardener's (never the person's
    # page the pass does not otherwise write).
    new_to_map = {pages.page_path(n) for n in due.mapped if tidy.is_gardeners(base, pages.page_path(n))}
    link_targets = sorted(set(written) | new_to_map - dirty | set(due.link_pages))
    titles_now = {**titles, **tidy.page_titles({p: work.tree[p] for p in written if p in work.tree})}
    if "link" in jobs:
        figures["link"] = {"pages": 0}
        link_writes = tidy.wrap_mentions(work.tree, link_targets, titles_now)
        if link_writes:
            errors = work.try_apply(Applied(Op("link", {}, (), -1), writes=link_writes))
            if errors:
                result.refusals.extend(f"links: {e}" for e in errors)
            else:
                result.tidied.extend(sorted(set(link_writes) - set(written)))
                figures["link"]["pages"] = len(link_writes)


def map_last(run: Pass, work: Work) -> None:
    """Bring the map in line with the pages that now exist; guarded like every write.

    Without the map job, the pages this pass created still get their entries:
    no page a pass makes is left where the map does not reach it."""
    result, jobs, dirty = run.result, run.jobs, work.dirty
    written = [p for p in changed_paths(work.base, work.tree) if pages.page_name(p)]
    titles_now = {**work.titles, **tidy.page_titles({p: work.tree[p] for p in written if p in work.tree})}
    skip = dirty if "map" in jobs else _not_created(work.tree, dirty, result.created)
    map_writes, added, _ = hubs.map_entries(work.tree, titles_now, skip, work.place)
    hub_writes = [p for p in map_writes if p != pages.map_path()]
    if map_writes and pages.map_path() not in dirty:
        errors = work.try_apply(Applied(Op("map", {}, (), -1), writes=map_writes))
        if errors:
            result.refusals.extend(f"map: {e}" for e in errors)
            added, hub_writes = [], []
        else:
            result.tidied.extend(p for p in sorted(map_writes) if p not in result.tidied)
    else:
        added, hub_writes = [], []
    if "map" in jobs:
        result.job_figures["map"] = {"entries": len(added)}  # entries in the map and in its hubs
    if "hubs" in jobs and hub_writes:  # hubs the map's entries needed, besides a prune's
        result.job_figures.setdefault("hubs", {"hubs": 0})["hubs"] += len(hub_writes)


def nothing_new(run: Pass, reading: Reading, work: Work) -> None:
    """The early end of a pass with nothing to do; `run --job health` still gets its figures."""
    result = run.result
    result.outcome = "nothing_new"
    if "health" in run.jobs and not result.all_jobs:  # `run --job health`: the figures, though nothing is written
        now_figures = _measure(run, work.base, _unread_count(run, len(reading.offered))).summary()
        result.health_before, result.health_after = now_figures, now_figures
        result.job_figures["health"] = now_figures


def health(run: Pass, work: Work) -> None:
    """The health figures before and after the pass (the health job)."""
    if "health" not in run.jobs:
        return
    result = run.result
    unread_before = _unread_count(run, len(work.offered))
    result.health_before = _measure(run, work.base, unread_before).summary()
    result.health_after = _measure(run, work.tree, unread_before - result.marked_read).summary()
    result.job_figures["health"] = result.health_after


def _measure(run: Pass, tree: Tree, unread: int) -> Health:
    """The health figures of `tree` (the work tree as the pass listed it, with the pass's writes on
    top), read off the wiki graph: no page is read again that git does not say changed."""
    changes: dict[str, Entry | None] = {}
    disk = tree
    while isinstance(disk, Overlay):  # the pass's writes (and, in review mode, what waits for review)
        changes = {**disk.changes, **changes}
        disk = disk.base
    listed = disk
    return wikisync.health(run.project.root, lambda: listed, changes=changes, unread_lines=unread, status=run.status())


def _unread_count(run: Pass, offered: int) -> int:
    """The unread lines a health figure counts: what the pass offered and left waiting, or, when
    the promote job did not run, the lines a pass would offer."""
    if "promote" in run.jobs:
        return offered + run.result.overflow
    return len(setaside.on_disk(run.project.root)[0])


def heading_split(run: Pass, work: Work, path: str, room: int = 0) -> bool:
    """Split a page at its `##` headings until it fits its budget with `room` to spare; True when it landed.

    The parts go in the page's folder, named in its style; heading links into moved sections are rewired."""
    result = run.result
    name = pages.page_name(path)
    if path not in work.tree or name is None or path == pages.map_path() or path in work.dirty:
        return False
    out = split_in_tree(work.tree, path, budget=pages.PAGE_BUDGET - room)
    if isinstance(out, str):
        return False  # nothing to split at its headings: the guard's budget rule speaks for it
    parts = [p for p in out if p not in work.tree]
    applied = Applied(Op("split", {"page": name}, (), -1), writes={p: file(t) for p, t in out.items()})
    applied.split_parents = dict.fromkeys(parts, path)
    errors = work.try_apply(applied)
    if errors:
        result.refusals.extend(f"split {name}: {e}" for e in errors)
        return False
    work.titles.update(tidy.page_titles({p: work.tree[p] for p in out}))
    result.split.append(name)
    result.created.extend(parts)
    return True


def split_pushed_over(run: Pass, work: Work, applied: Applied) -> bool:
    """Before an operation pushes an existing page over its budget, split that page at its headings."""
    split_any = False
    if applied.op.kind == "split":
        return False  # a split's own result is the model's plan; what stays over is split after
    for path, entry in applied.writes.items():
        if path in work.tree and path != pages.map_path() and len(entry.data) > pages.PAGE_BUDGET and tidy.is_gardeners(work.tree, path):
            text, old = text_of(entry), tidy.read_text(work.tree, path)
            if text is not None and old is not None and len(text) > pages.PAGE_BUDGET:
                split_any |= heading_split(run, work, path, room=len(text) - len(old))
    return split_any


def _prune_map(run: Pass, work: Work) -> list[str]:
    """Move the map's entry lines, word for word, into the hubs their pages belong to; the hubs written."""
    result, titles = run.result, work.titles
    text = tidy.read_text(work.tree, pages.map_path())
    if text is None or pages.map_path() in work.dirty:
        return []
    writes = hubs.prune_into_hubs(work.tree, titles, text, work.place)
    if not writes or any(p in work.dirty for p in writes):
        return []
    errors = work.try_apply(Applied(Op("map", {}, (), -1), writes=writes))
    if errors:
        result.refusals.extend(f"map prune: {e}" for e in errors)
        return []
    titles.update(tidy.page_titles({p: work.tree[p] for p in writes if p != pages.map_path()}))
    result.tidied.extend(p for p in sorted(writes) if p not in result.tidied)
    return sorted(p for p in writes if p != pages.map_path())


def _not_created(tree: Tree, dirty: set[str], created: list[str]) -> set[str]:
    """What the map step leaves alone without the map job: every page but the ones this pass created
    (and the hubs that may take their entries), and the person's uncommitted pages."""
    made = set(created)
    others = {
        p for p in tree
        if (name := pages.page_name(p)) and p != pages.map_path() and p not in made and not hubs.is_hub(tree, name)
    }  # fmt: skip
    return set(dirty) | others
