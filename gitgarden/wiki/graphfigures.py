"""The figures read off the wiki graph's tables (`wiki.graph`): the map's reach, kept up to date as
links come and go and walked anew only when a link it went through is removed; the
duplicate-candidate pairs; and the `Health` the graph's rows add up to. Functions of the open
SQLite connection: `WikiGraph` owns the connection and calls them as pages change.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from datetime import date, timedelta
from typing import Any

from gitgarden.wiki import pages
from gitgarden.wiki.graphrows import FROM_PAGE, PAGE
from gitgarden.wiki.health import STALE_DAYS, Health
from gitgarden.wiki.pages import MAP_CEILING

__all__ = ["duplicates", "figures", "maybe_unreached", "reached_through", "recount_dups", "recount_reach", "read_meta", "write_meta"]


def read_meta(db: sqlite3.Connection, key: str) -> str | None:
    """A value the graph keeps about itself (what it was built from, whether a recount is due)."""
    row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return None if row is None else str(row[0])


def write_meta(db: sqlite3.Connection, key: str, value: str) -> None:
    """Keep `value` under `key` in the graph's own table."""
    db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))


# --- duplicate candidates -------------------------------------------------------------------------

def recount_dups(db: sqlite3.Connection, keys: Iterable[str]) -> None:
    """Mark which of `keys` more than one page's labels share, after those labels changed."""
    db.execute("DELETE FROM meta WHERE key='duplicates'")  # the pairs are listed again when next asked
    for key in keys:
        n = db.execute("SELECT count(DISTINCT page) FROM labels WHERE key=?", (key,)).fetchone()[0]
        if n > 1:
            db.execute("INSERT OR IGNORE INTO dupkeys VALUES (?)", (key,))
        else:
            db.execute("DELETE FROM dupkeys WHERE key=?", (key,))

# --- the map's reach ---------------------------------------------------------------------------------

def reached_through(db: sqlite3.Connection, src: int, dst: int) -> None:
    """A link from `src` to `dst` came: when the map reaches `src`, it now reaches `dst` and beyond."""
    if read_meta(db, "reach_dirty") == "1":
        return  # a recount is due anyway
    row = db.execute("SELECT reach FROM files WHERE id=?", (src,)).fetchone()
    if row is None or not row[0]:
        return
    todo = [(dst, src)]
    while todo:
        node, parent = todo.pop()
        found = db.execute("SELECT reach, kind, ok FROM files WHERE id=?", (node,)).fetchone()
        if found is None or found[0]:
            continue
        db.execute("UPDATE files SET reach=1, parent=? WHERE id=?", (parent, node))
        if found[1] == PAGE and found[2]:
            todo.extend((d, node) for (d,) in db.execute("SELECT dst FROM links WHERE src=? AND dst IS NOT NULL", (node,)))

def maybe_unreached(db: sqlite3.Connection, src: int, dst: int) -> None:
    """A link from `src` to `dst` went: when the map's reach came to `dst` through it (and no other
    such link is left), the reach is counted again before it is next read."""
    row = db.execute("SELECT reach, parent FROM files WHERE id=?", (dst,)).fetchone()
    if row is None or not row[0] or row[1] != src:
        return
    if db.execute("SELECT 1 FROM links WHERE src=? AND dst=? LIMIT 1", (src, dst)).fetchone() is None:
        write_meta(db, "reach_dirty", "1")

def recount_reach(db: sqlite3.Connection, map_name: str) -> None:
    """Walk the map's links anew (after a link the reach went through was removed)."""
    db.execute("UPDATE files SET reach=0, parent=NULL WHERE reach=1 OR parent IS NOT NULL")
    root = db.execute("SELECT id FROM files WHERE kind=0 AND ok=1 AND name=?", (map_name,)).fetchone()
    if root is not None:
        out: dict[int, list[int]] = {}
        for src, dst in db.execute(f"SELECT src, dst FROM links WHERE dst IS NOT NULL AND {FROM_PAGE}"):
            out.setdefault(src, []).append(dst)
        parent: dict[int, int | None] = {root[0]: None}
        todo = [root[0]]
        while todo:
            node = todo.pop()
            for nxt in out.get(node, ()):
                if nxt not in parent:
                    parent[nxt] = node
                    todo.append(nxt)
        db.executemany("UPDATE files SET reach=1, parent=? WHERE id=?", ((p, n) for n, p in parent.items()))
    write_meta(db, "reach_dirty", "0")

# --- the figures ---------------------------------------------------------------------------------

def duplicates(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """The duplicate-candidate pairs, kept listed until a page's labels change (a big wiki of
    similar titles has thousands of them)."""
    kept = read_meta(db, "duplicates")
    if kept is not None:
        return [(str(a), str(b)) for a, b in json.loads(kept)]
    pairs: set[tuple[str, str]] = set()
    groups: dict[str, list[str]] = {}
    # The few duplicate keys first (CROSS JOIN keeps that order), then their pages by index.
    for key, name in db.execute("SELECT l.key, f.name FROM dupkeys d CROSS JOIN labels l ON l.key = d.key JOIN files f ON f.id = l.page"):
        groups.setdefault(key, []).append(name)
    for group in groups.values():
        ordered = sorted(set(group))
        pairs.update((a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :])
    listed = sorted(pairs)
    write_meta(db, "duplicates", json.dumps(listed))
    return listed


def figures(
    db: sqlite3.Connection,
    map_name: str,
    *,
    map_text: str,
    unread_lines: int = 0,
    today: date | None = None,
    advice: Callable[[str, int], dict[str, Any]] | None = None,
) -> Health:
    """The figures `health.measure` gives for the wiki the graph `db` holds. `map_text` is the map's
    text; `advice(name, chars)` the split advice of a person's page over the budget."""
    pages_only = "kind=0 AND ok=1 AND name != :map"
    arg = {"map": map_name}

    def names(where: str, index: str) -> list[str]:
        # Each figure read through the index that holds just its pages (a few, in a healthy wiki).
        query = f"SELECT name FROM files INDEXED BY {index} WHERE {pages_only} AND {where} ORDER BY name"
        return [n for (n,) in db.execute(query, arg)]

    health = Health(unread_lines=unread_lines)
    health.pages = db.execute(f"SELECT count(*) FROM files INDEXED BY files_pages WHERE {pages_only}", arg).fetchone()[0]
    health.orphans = names("inlinks=0", "files_orphan")
    health.unmapped = names("reach=0", "files_reach")
    health.broken_links = [
        (str(n), str(t))
        for n, t in db.execute("SELECT f.name, l.target FROM links l JOIN files f ON f.id = l.src WHERE l.broken=1 ORDER BY f.name, l.target")
    ]
    health.duplicates = duplicates(db)
    # A heading link to a page that exists, naming a heading (or block) it does not hold.
    health.broken_headings = sorted(
        (str(n), f"{t}#{a}")
        for n, t, a in db.execute(
            "SELECT f.name, h.target, h.anchor FROM hlinks h JOIN files f ON f.id = h.src WHERE h.dst IS NOT NULL"
            " AND NOT EXISTS (SELECT 1 FROM anchors x WHERE x.page = h.dst AND x.key = h.akey)"
        )
    )
    health.over_budget = names(f"chars > {pages.PAGE_BUDGET}", "files_over")
    if advice is not None:
        rows = db.execute(
            f"SELECT name, chars FROM files INDEXED BY files_over WHERE {pages_only} AND chars > {pages.PAGE_BUDGET} AND gardener=0 ORDER BY name",
            arg,
        )
        health.split_advice = [advice(n, c) for n, c in list(rows)]
    health.superseded = names("(malformed = 1 OR superseded = 1) AND superseded=1", "files_flagged")
    flagged = "kind=0 AND ok=1 AND (malformed = 1 OR superseded = 1) AND malformed=1"
    health.malformed = [n for (n,) in db.execute(f"SELECT name FROM files INDEXED BY files_flagged WHERE {flagged} ORDER BY name")]
    health.map_chars = len(map_text)
    health.map_ceiling = MAP_CEILING
    health.open_questions = len(pages.open_lines(map_text))
    if today is not None:
        cutoff = (today - timedelta(days=STALE_DAYS)).isoformat()
        health.stale = names(f"stale_day IS NOT NULL AND stale_day < '{cutoff}'", "files_stale")
    return health


