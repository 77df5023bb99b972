"""The wiki as a graph kept up to date from the pages that change, so health is read off it.

`health.measure` reads and parses every page, resolves every link and walks the map's reach:
linear in the wiki, several seconds at 50,000 notes, and a pass did it twice. `WikiGraph`
keeps what those figures are made of in a SQLite file in the git dir (machine-local, never
committed; losing it costs one full read): each page's facts, its links with the page each
resolves to, the pages' in-link counts, whether the map reaches each page (and from where),
the duplicate-candidate keys. A changed page updates only what it touches: its own rows, the
links whose target it may now win or lose, the reach it adds. Removing a link the map's reach
went through marks the reach for one recount; nothing else is ever recomputed whole.

The figures, read off the tables by `wiki.graphfigures`, are exactly `health.measure`'s (tests
hold the two to each other). Which paths changed is not this module's business: the caller says
(`repo.wikisync` asks git).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from gitgarden.wiki import graphfigures, layout, linking, pages
from gitgarden.wiki.facts import PageFacts, facts_of
from gitgarden.wiki.graphrows import (
    AN_ATTACHMENT,
    DAY,
    FILE,
    FROM_PAGE,
    PAGE,
    SCHEMA,
    LinkRow,
    kind_of,
    layout_key,
    md_link,
    page_aliases,
    page_labels,
    stale_day_of,
    wiki_link,
)
from gitgarden.wiki.health import Health
from gitgarden.wiki.linking import resolve_key
from gitgarden.wiki.tree import Entry

__all__ = ["WikiGraph", "GraphError", "PAGE", "FILE", "DAY", "kind_of"]


class GraphError(Exception):
    """The graph's file cannot be used (locked, corrupt, unwritable): measure without it."""


class WikiGraph:
    """The wiki's pages, links and the figures health reads off them, in a SQLite file (or in memory)."""

    def __init__(self, path: Path | None, here: layout.Layout) -> None:
        self.here = here
        self.map_name = here.map_page
        try:
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(":memory:" if path is None else str(path), timeout=5.0, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL" if path is not None else "PRAGMA journal_mode=MEMORY")
            self.db.execute("PRAGMA synchronous=NORMAL")
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "meta" not in tables or self._meta("layout") != layout_key(here):
                self._reset()
        except (sqlite3.Error, OSError) as exc:
            raise GraphError(str(exc)) from exc

    def _reset(self) -> None:
        """An empty graph for this layout (a new file, or one written for another layout or version)."""
        for (name,) in list(self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")):
            self.db.execute(f'DROP TABLE IF EXISTS "{name}"')
        # One statement at a time (executescript would commit a transaction in progress), comments cut.
        schema = "\n".join(line.split("--", 1)[0] for line in SCHEMA.splitlines())
        for statement in schema.split(";"):
            if statement.strip():
                self.db.execute(statement)
        self.db.execute("INSERT INTO meta VALUES ('layout', ?)", (layout_key(self.here),))

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()

    # -- what the graph was built from ------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        return graphfigures.read_meta(self.db, key)

    def _set_meta(self, key: str, value: str) -> None:
        graphfigures.write_meta(self.db, key, value)

    @property
    def built(self) -> bool:
        """True once the graph holds a whole wiki (`build` ran to its end)."""
        return self._meta("built") == "1"

    def synced(self) -> tuple[str | None, dict[str, str]]:
        """(the commit the graph was last brought in step with, the paths then differing from it and
        their stat signatures): what the caller compares the work tree with."""
        head = self._meta("head") or None
        return head, json.loads(self._meta("dirty") or "{}")

    def signature(self, path: str) -> str | None:
        """The stat signature `path` had when it was read (None when the graph does not hold it)."""
        row = self.db.execute("SELECT sig FROM files WHERE path=?", (path,)).fetchone()
        return None if row is None else str(row[0])

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Changes inside land together, or not at all."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def mark_synced(self, head: str | None, dirty: Mapping[str, str]) -> None:
        self._set_meta("head", head or "")
        self._set_meta("dirty", json.dumps(dict(dirty), sort_keys=True))

    @contextlib.contextmanager
    def overlay(self, changes: Mapping[str, Entry | None]) -> Iterator[WikiGraph]:
        """The graph with `changes` applied (a pass's writes, not yet on disk), undone on leaving."""
        self.db.execute("SAVEPOINT overlay")
        try:
            for path, entry in sorted(changes.items()):
                self.put(path, entry, "")
            yield self
        finally:
            self.db.execute("ROLLBACK TO overlay")
            self.db.execute("RELEASE overlay")

    # -- building it whole ----------------------------------------------------------------------

    def build(self, files: Iterable[tuple[str, Entry, str]]) -> None:
        """Fill the graph with every file of the wiki: (path, entry, stat signature)."""
        self._reset()
        pending: list[tuple[int, list[LinkRow]]] = []
        for path, entry, sig in files:
            kind = kind_of(self.here, path)
            if kind is not None:
                pending.append(self._insert_row(path, kind, entry, sig))
        # The links once every name exists, each way of naming a page then resolved once.
        self.db.executemany(
            "INSERT INTO links(src, target, md, key, key2, bare, att, att2, att3) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ((src, *row) for src, rows in pending for row in rows),
        )
        for md, key, key2, bare in list(self.db.execute("SELECT DISTINCT md, key, key2, bare FROM links")):
            dst = self._resolve_link(md, key, key2, bare)
            self.db.execute("UPDATE links SET dst=? WHERE md=? AND key=? AND key2=? AND bare=?", (dst, md, key, key2, bare))
        for (key,) in list(self.db.execute("SELECT DISTINCT key FROM hlinks")):
            self.db.execute("UPDATE hlinks SET dst=? WHERE key=?", (self._resolve(key), key))
        self.db.execute("UPDATE links SET counted = (dst IS NOT NULL AND dst != src)")
        self.db.execute(
            "UPDATE files SET inlinks = (SELECT count(*) FROM links l WHERE l.dst = files.id AND l.counted) WHERE kind = 0"
        )
        self.db.execute(f"UPDATE links SET broken = 1 WHERE dst IS NULL AND {FROM_PAGE} AND NOT {AN_ATTACHMENT}")
        self.db.execute("INSERT INTO dupkeys SELECT key FROM labels GROUP BY key HAVING count(DISTINCT page) > 1")
        graphfigures.recount_reach(self.db, self.map_name)
        self._set_meta("built", "1")

    def _insert_row(self, path: str, kind: int, entry: Entry, sig: str) -> tuple[int, list[LinkRow]]:
        """Insert the file's row (a page's labels and aliases too): (its id, the links to add)."""
        if kind == FILE:
            rel = self.here.wiki_relative(path)
            cur = self.db.execute(
                "INSERT INTO files(path, kind, ok, sig, name, lname, lbase) VALUES (?, 1, 1, ?, ?, ?, ?)",
                (path, sig, rel, rel.lower(), rel.rsplit("/", 1)[-1].lower()),
            )
            return int(cur.lastrowid or 0), []
        facts = facts_of(entry)
        if facts is None:  # not UTF-8 text: no page, no name (as health counts it)
            cur = self.db.execute("INSERT INTO files(path, kind, ok, sig) VALUES (?, ?, 0, ?)", (path, kind, sig))
            return int(cur.lastrowid or 0), []
        if kind == DAY:
            cur = self.db.execute("INSERT INTO files(path, kind, ok, sig) VALUES (?, 2, 1, ?)", (path, sig))
            return int(cur.lastrowid or 0), self._link_rows(path, facts)
        name = self.here.page_name(path)
        assert name is not None
        cur = self.db.execute(
            "INSERT INTO files(path, kind, ok, sig, name, lname, lbase) VALUES (?, 0, 1, ?, ?, ?, ?)",
            (path, sig, name, name.lower(), name.rsplit("/", 1)[-1].lower()),
        )
        page = int(cur.lastrowid or 0)
        self._set_page_facts(page, name, facts)
        self._set_headings(page, facts, fresh=True)
        if name != self.map_name:  # the map's own aliases and labels are not counted (health leaves it out)
            meta = facts.meta or {}
            self.db.executemany("INSERT INTO labels VALUES (?, ?)", ((k, page) for k in sorted(page_labels(name, meta))))
            self.db.executemany("INSERT INTO aliases VALUES (?, ?)", ((a, page) for a in page_aliases(meta)))
        return page, self._link_rows(path, facts)

    def _link_rows(self, path: str, facts: PageFacts) -> list[LinkRow]:
        """A page's (or day file's) links as rows: its wiki links, then its Markdown links, which
        resolve from its folder."""
        rows = [wiki_link(t) for t in facts.targets]
        if facts.md_targets:
            folder = linking.folder_of(self.here.wiki_relative(path).removesuffix(".md"))
            rows += [md_link(p, folder) for p in facts.md_targets]
        return rows

    def _set_headings(self, page: int, facts: PageFacts, *, fresh: bool) -> None:
        """The headings a page offers and its links that name one (left unresolved: the caller
        resolves them once every name is known)."""
        if not fresh:
            self.db.execute("DELETE FROM anchors WHERE page=?", (page,))
            self.db.execute("DELETE FROM hlinks WHERE src=?", (page,))
        self.db.executemany("INSERT INTO anchors VALUES (?, ?)", ((page, a) for a in sorted(facts.anchors)))
        self.db.executemany(
            "INSERT INTO hlinks(src, target, anchor, key, akey) VALUES (?, ?, ?, ?, ?)",
            ((page, t, a, resolve_key(t), linking.anchor_key(a)) for t, a in facts.anchored),
        )

    def _resolve_headings(self, page: int) -> None:
        for (key,) in list(self.db.execute("SELECT DISTINCT key FROM hlinks WHERE src=?", (page,))):
            self.db.execute("UPDATE hlinks SET dst=? WHERE src=? AND key=?", (self._resolve(key), page, key))

    def _set_page_facts(self, page: int, name: str, facts: PageFacts) -> None:
        meta = facts.meta or {}
        self.db.execute(
            "UPDATE files SET chars=?, malformed=?, gardener=?, superseded=?, stale_day=? WHERE id=?",
            (facts.chars, int(facts.meta is None), int(pages.is_gardeners(facts.meta)), int(bool(meta.get("superseded_by"))), stale_day_of(meta), page),
        )

    # -- one path's new state ---------------------------------------------------------------------

    def put(self, path: str, entry: Entry | None, sig: str) -> None:
        """Bring `path` to `entry` (None: the file is gone), updating everything that depends on it."""
        kind = kind_of(self.here, path)
        if kind is None:
            return
        old = self.db.execute("SELECT id, kind, ok FROM files WHERE path=?", (path,)).fetchone()
        if entry is None:
            if old is not None:
                self._drop(old[0])
            return
        facts = facts_of(entry) if kind != FILE else None
        same = old is not None and old[1] == kind and old[2] == 1 and kind != FILE and facts is not None
        if old is not None and not same:
            self._drop(old[0])
        if same:
            assert facts is not None
            self._update(old[0], path, kind, facts, sig)
            return
        row, targets = self._insert_row(path, kind, entry, sig)
        if kind == FILE:
            self._attachment_moved(row)
            return
        graphfigures.recount_dups(self.db, (k for (k,) in self.db.execute("SELECT key FROM labels WHERE page=?", (row,))))
        self._resolve_headings(row)
        name, lname, lbase = self.db.execute("SELECT name, lname, lbase FROM files WHERE id=?", (row,)).fetchone()
        if name is not None:
            # A new name may take links that named another page, or nothing.
            self._reresolve({lbase, lname, *(a for (a,) in self.db.execute("SELECT alias FROM aliases WHERE page=?", (row,)))})
            if name == self.map_name:
                self._set_meta("reach_dirty", "1")
        for link in targets:
            self._add_link(row, link)

    def _update(self, row: int, path: str, kind: int, facts: PageFacts, sig: str) -> None:
        """A page or day file that stays what it was: its facts, labels, aliases and links brought along."""
        self.db.execute("UPDATE files SET sig=? WHERE id=?", (sig, row))
        if kind == PAGE:
            name = self.here.page_name(path)
            assert name is not None
            self._set_page_facts(row, name, facts)
            self._set_headings(row, facts, fresh=False)
            self._resolve_headings(row)
            if name != self.map_name:
                meta = facts.meta or {}
                old_labels = {k for (k,) in self.db.execute("SELECT key FROM labels WHERE page=?", (row,))}
                new_labels = page_labels(name, meta)
                if old_labels != new_labels:
                    self.db.execute("DELETE FROM labels WHERE page=?", (row,))
                    self.db.executemany("INSERT INTO labels VALUES (?, ?)", ((k, row) for k in sorted(new_labels)))
                    graphfigures.recount_dups(self.db, old_labels ^ new_labels)
                old_aliases = {a for (a,) in self.db.execute("SELECT alias FROM aliases WHERE page=?", (row,))}
                new_aliases = set(page_aliases(meta))
                if old_aliases != new_aliases:
                    self.db.execute("DELETE FROM aliases WHERE page=?", (row,))
                    self.db.executemany("INSERT INTO aliases VALUES (?, ?)", ((a, row) for a in sorted(new_aliases)))
                    self._reresolve(old_aliases ^ new_aliases)
        # Links: only those that went or came (a link that stays keeps the reach it carries).
        have = Counter(
            tuple(r) for r in self.db.execute("SELECT target, md, key, key2, bare, att, att2, att3 FROM links WHERE src=?", (row,))
        )
        want = Counter(self._link_rows(path, facts))
        for link_row, n in (have - want).items():
            query = "SELECT id FROM links WHERE src=? AND target=? AND md=? AND key=? AND key2=? AND bare=? LIMIT ?"
            for (link,) in list(self.db.execute(query, (row, *link_row[:5], n))):
                self._remove_link(link)
        for link_row, n in (want - have).items():
            for _ in range(n):
                self._add_link(row, link_row)

    def _drop(self, row: int) -> None:
        """Remove a file and everything it brought: its links, labels and aliases, and the links that
        named it (resolved again: to another page, or to nothing)."""
        kind, name, lname, lbase = self.db.execute("SELECT kind, name, lname, lbase FROM files WHERE id=?", (row,)).fetchone()
        for (link,) in list(self.db.execute("SELECT id FROM links WHERE src=?", (row,))):
            self._remove_link(link)
        old_labels = {k for (k,) in self.db.execute("SELECT key FROM labels WHERE page=?", (row,))}
        old_aliases = {a for (a,) in self.db.execute("SELECT alias FROM aliases WHERE page=?", (row,))}
        self.db.execute("DELETE FROM labels WHERE page=?", (row,))
        self.db.execute("DELETE FROM aliases WHERE page=?", (row,))
        self.db.execute("DELETE FROM anchors WHERE page=?", (row,))
        self.db.execute("DELETE FROM hlinks WHERE src=?", (row,))
        self.db.execute("DELETE FROM files WHERE id=?", (row,))
        if old_labels:
            graphfigures.recount_dups(self.db, old_labels)
        if kind == FILE:
            self._attachment_gone(lname, lbase)
        elif name is not None:
            self._reresolve({lbase, lname, *old_aliases})
            if name == self.map_name:
                self._set_meta("reach_dirty", "1")

    # -- links -------------------------------------------------------------------------------------

    def _resolve(self, key: str) -> int | None:
        """The page a wiki link key names, as `LinkIndex.resolve` finds it: by full name when it holds
        a `/`, else by file name (the first name in sorted order wins), then by alias."""
        column = "lname" if "/" in key else "lbase"
        row = self._first_page(column, key)
        if row is None and "/" not in key:
            row = self.db.execute(
                "SELECT f.id FROM aliases a JOIN files f ON f.id = a.page WHERE a.alias=? ORDER BY f.name LIMIT 1", (key,)
            ).fetchone()
        return None if row is None else int(row[0])

    def _first_page(self, column: str, value: str) -> tuple[int] | None:
        found = self.db.execute(
            f"SELECT id FROM files INDEXED BY files_{column} WHERE {column}=? AND kind=0 AND ok=1 ORDER BY name LIMIT 1", (value,)
        ).fetchone()
        return None if found is None else (int(found[0]),)

    def _resolve_link(self, md: int, key: str, key2: str, bare: str) -> int | None:
        """The page a link names: a wiki link by `_resolve`; a Markdown link as `LinkIndex.resolve_md`
        finds it, by the paths it may name (never by an alias), else by its bare file name."""
        if not md:
            return self._resolve(key)
        for stem in (key, key2):
            if stem and (row := self._first_page("lname", stem)) is not None:
                return row[0]
        if bare and (row := self._first_page("lbase", bare)) is not None:
            return row[0]
        return None

    def _add_link(self, src: int, link: LinkRow) -> None:
        _target, md, key, key2, bare, att, att2, att3 = link
        dst = self._resolve_link(md, key, key2, bare)
        counted = int(dst is not None and dst != src)
        is_page = self._is_page(src)
        broken = int(dst is None and is_page and not self._attachment_named(att, att2, att3))
        self.db.execute(
            "INSERT INTO links(src, target, md, key, key2, bare, att, att2, att3, dst, counted, broken)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (src, *link, dst, counted, broken),
        )
        if counted:
            self.db.execute("UPDATE files SET inlinks = inlinks + 1 WHERE id=?", (dst,))
        if dst is not None and is_page:
            graphfigures.reached_through(self.db, src, dst)

    def _remove_link(self, link: int) -> None:
        src, dst, counted = self.db.execute("SELECT src, dst, counted FROM links WHERE id=?", (link,)).fetchone()
        self.db.execute("DELETE FROM links WHERE id=?", (link,))
        if counted:
            self.db.execute("UPDATE files SET inlinks = inlinks - 1 WHERE id=?", (dst,))
        if dst is not None:
            graphfigures.maybe_unreached(self.db, src, dst)

    def _reresolve(self, keys: Iterable[str | None]) -> None:
        """Resolve again the links that may name one of `keys` (a name or alias came or went)."""
        wanted = sorted(k for k in set(keys) if k)
        if not wanted:
            return
        for key in wanted:  # the heading links that name a page by one of them
            self.db.execute("UPDATE hlinks SET dst=? WHERE key=?", (self._resolve(key), key))
        marks = ",".join("?" * len(wanted))
        rows = list(
            self.db.execute(
                f"SELECT id, src, dst, counted, md, key, key2, bare, att, att2, att3 FROM links WHERE key IN ({marks})"
                f" UNION SELECT id, src, dst, counted, md, key, key2, bare, att, att2, att3 FROM links WHERE md = 1"
                f" AND (key2 IN ({marks}) OR bare IN ({marks}))",
                (*wanted, *wanted, *wanted),
            )
        )
        for link, src, old, counted, md, key, key2, bare, att, att2, att3 in rows:
            dst = self._resolve_link(md, key, key2, bare)
            if dst == old:
                continue
            new_counted = int(dst is not None and dst != src)
            is_page = self._is_page(src)
            broken = int(dst is None and is_page and not self._attachment_named(att, att2, att3))
            self.db.execute("UPDATE links SET dst=?, counted=?, broken=? WHERE id=?", (dst, new_counted, broken, link))
            if counted:
                self.db.execute("UPDATE files SET inlinks = inlinks - 1 WHERE id=?", (old,))
            if new_counted:
                self.db.execute("UPDATE files SET inlinks = inlinks + 1 WHERE id=?", (dst,))
            if old is not None:
                graphfigures.maybe_unreached(self.db, src, old)
            if dst is not None and is_page:
                graphfigures.reached_through(self.db, src, dst)

    def _is_page(self, row: int) -> bool:
        found = self.db.execute("SELECT kind FROM files WHERE id=?", (row,)).fetchone()
        return found is not None and found[0] == PAGE

    # -- attachments: a link that names one is not broken -------------------------------------------

    def _attachment_named(self, *names: str) -> bool:
        wanted = [n for n in names if n]
        if not wanted:
            return False
        marks = ",".join("?" * len(wanted))
        query = f"SELECT 1 FROM files WHERE kind=1 AND (lname IN ({marks}) OR lbase IN ({marks})) LIMIT 1"
        return self.db.execute(query, (*wanted, *wanted)).fetchone() is not None

    def _links_naming(self, names: set[str]) -> list[tuple[int, str, str, str]]:
        """Unresolved links of pages whose attachment names are among `names`: (id, att, att2, att3)."""
        marks = ",".join("?" * len(names))
        query = (
            f"SELECT id, att, att2, att3 FROM links WHERE dst IS NULL AND {FROM_PAGE} AND (att IN ({marks})"
            f" OR (md = 1 AND (att2 IN ({marks}) OR att3 IN ({marks}))))"
        )
        return list(self.db.execute(query, (*names, *names, *names)))

    def _attachment_moved(self, row: int) -> None:
        lname, lbase = self.db.execute("SELECT lname, lbase FROM files WHERE id=?", (row,)).fetchone()
        for link, *_ in self._links_naming({lname, lbase}):
            self.db.execute("UPDATE links SET broken=0 WHERE id=?", (link,))

    def _attachment_gone(self, lname: str, lbase: str) -> None:
        for link, att, att2, att3 in self._links_naming({lname, lbase}):
            self.db.execute("UPDATE links SET broken=? WHERE id=?", (int(not self._attachment_named(att, att2, att3)), link))

    def settle(self) -> None:
        """Count the map's reach again if a change made that due (before an overlay, which is undone)."""
        if self._meta("reach_dirty") == "1":
            graphfigures.recount_reach(self.db, self.map_name)

    def health(
        self,
        *,
        map_text: str,
        unread_lines: int = 0,
        today: date | None = None,
        advice: Callable[[str, int], dict[str, Any]] | None = None,
    ) -> Health:
        """The figures `health.measure` gives for the wiki the graph holds. `map_text` is the map's
        text; `advice(name, chars)` the split advice of a person's page over the budget."""
        self.settle()
        return graphfigures.figures(self.db, self.map_name, map_text=map_text, unread_lines=unread_lines, today=today, advice=advice)
