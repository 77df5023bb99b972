"""The search index: SQLite FTS5 over the wiki's pages and the journal's lines, in a cache file.

The index is `<git dir>/gitgarden/search.sqlite`: machine-local, never
committed, and rebuilt from the files whenever it is missing, unreadable or of
another version — losing it costs one full read. Each search first brings it up
to date: the wiki and the journal are listed (stat only), a file whose size or
modification time moved is read and hashed, and only a file whose content
changed is indexed again. A file modified within two seconds of being indexed
is hashed again next time (its mtime could hide a second write in the same
tick, as git's "racy clean" entries do).

Ranking is BM25 with a page's names (its name, the name's words, its aliases)
and title weighted above its headings, and those above its body, so the page
about a thing comes before a page that mentions it once. The tokenizer folds
case and accents (`unicode61 remove_diacritics 2`): `Café`, `cafe` and `CAFE`
are one word. Symlinks are never followed: a page that is one is not indexed.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing, suppress
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import Any, TypeVar

from gitgarden.errors import GitgardenError
from gitgarden.project import Project
from gitgarden.repo import gitdir
from gitgarden.search import documents, query
from gitgarden.wiki.layout import Layout, reserved_at_top
from gitgarden.wiki.names import is_day

__all__ = ["SearchError", "Hit", "Found", "search", "refresh", "cache_path", "FTS_MODULE", "CACHE_NAME"]

T = TypeVar("T")

CACHE_NAME = "search.sqlite"
FTS_MODULE = "fts5"
_VERSION = "2"
_WEIGHTS = "10.0, 8.0, 3.0, 1.0"  # names, title, headings, body
_RACY_NS = 2_000_000_000
_BUSY_S = 30.0
# Snippet markers no page holds (control characters), turned into the shown ones at the end.
_OPEN, _CLOSE = "\x02", "\x03"
_CORRUPT = {"SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_CORRUPT_VTAB", "SQLITE_CORRUPT_INDEX"}

_SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(path TEXT PRIMARY KEY, kind TEXT NOT NULL, sig INTEGER NOT NULL, hash TEXT NOT NULL);
CREATE TABLE entries(id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL,
                     title TEXT NOT NULL, state TEXT, source TEXT NOT NULL);
CREATE INDEX entries_path ON entries(path);
CREATE VIRTUAL TABLE docs USING {{module}}(names, title, headings, body, tokenize='unicode61 remove_diacritics 2');
INSERT INTO docs(docs, rank) VALUES('rank', 'bm25({_WEIGHTS})');
"""


class SearchError(GitgardenError):
    """A search that cannot run: no FTS5 in this Python's SQLite, a query FTS5 cannot read."""


@dataclass(frozen=True)
class Hit:
    """One result: a page (by name) or a journal line (by id), with a snippet whose matched words
    are marked `**so**`."""

    kind: str  # "page" | "line"
    ref: str  # the page name, or the line id (`2026-11-29#14`)
    path: str  # project-relative
    title: str  # the page's title ('' for a line)
    snippet: str
    score: float  # BM25, higher is better
    state: str | None = None  # pages: open | hypothesis | decided | done (None when it has none)
    source: tuple[str, ...] = ()  # pages: the `source:` days

    def to_json(self) -> dict[str, Any]:
        """The hit as plain JSON (`gitgarden search --json`, the MCP tool)."""
        data: dict[str, Any] = {"kind": self.kind, "path": self.path, "snippet": self.snippet, "score": float(f"{self.score:.4g}")}
        if self.kind == "page":
            data.update(name=self.ref, title=self.title, state=self.state, source=list(self.source))
        else:
            data.update(id=self.ref)
        return data


@dataclass
class Found:
    """What a search found, best first, and what the person should know about how (`notes`)."""

    query: str
    hits: list[Hit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The search as plain JSON: the query, its results best first, the notes."""
        return {"query": self.query, "results": [h.to_json() for h in self.hits], "notes": self.notes}


def cache_path(project: Project) -> Path:
    """Where the project's search index lives (in its git dir)."""
    return gitdir.git_dir(project.root) / "gitgarden" / CACHE_NAME


def search(project: Project, text: str, *, limit: int = 10, identity: tuple[str, ...] = ()) -> Found:
    """The pages and journal lines that match `text`, best first, after bringing the index up to
    date. `identity` names the identity files, which are never pages. SearchError when FTS5 is
    missing or the query cannot be read even as plain words."""
    terms = query.parse(text)
    found = Found(text)
    if not terms:
        raise SearchError('nothing to search for: give a word, a "phrase" or a prefix such as acme*')

    def run(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
        _update(conn, project, identity)
        try:
            return _query(conn, query.to_fts(terms), limit)
        except sqlite3.OperationalError as exc:
            if not _syntax(exc):
                raise
            first = exc
        try:  # what FTS5 refused is the operators' order: the same words, all taken as words
            rows = _query(conn, query.plain(terms), limit)
        except sqlite3.OperationalError as again:
            if not _syntax(again):
                raise
            raise SearchError(f'the query {text!r} cannot be searched ({again}): search for plain words or a "phrase"') from None
        found.notes.append(f"AND, OR and NOT were taken as words: FTS5 could not read the query as written ({first})")
        return rows

    found.hits = [_hit(row) for row in _with_index(project, found.notes, run)]
    return found


def refresh(project: Project, *, identity: tuple[str, ...] = (), only_if_present: bool = False) -> list[str]:
    """Bring the index up to date now (after a pass); notes as `search` gives them. With
    `only_if_present` a project nobody has searched gets no index."""
    if only_if_present and not cache_path(project).is_file():
        return []
    notes: list[str] = []
    _with_index(project, notes, lambda conn: _update(conn, project, identity))
    return notes


# -- the cache file --------------------------------------------------------------------------


def _with_index(project: Project, notes: list[str], work: Callable[[sqlite3.Connection], T]) -> T:
    """`work` on the project's index, opened (or built) current. An index found broken on the way is
    rebuilt once, with a note; one that cannot be written is held in memory for this call, with a note."""
    try:
        path: Path | None = cache_path(project)
    except GitgardenError as exc:
        notes.append(f"the search index is kept in memory for this search: {exc}")
        path = None
    root = str(project.root)
    for attempt in (1, 2):
        conn = _open(path, root, notes)
        try:
            return work(conn)
        except sqlite3.DatabaseError as exc:
            if _busy(exc):
                raise SearchError("the search index is busy (another search is updating it): try again") from None
            if path is None or attempt == 2 or not (_broken(exc) or _unwritable(exc)):
                raise
            if _unwritable(exc):
                notes.append(f"the search index is kept in memory for this search: {path} cannot be written ({exc})")
                path = None
            else:
                notes.append(f"the search index was unreadable ({exc}) and has been rebuilt")
                conn.close()
                _remove(path)
        finally:
            conn.close()
    raise AssertionError("unreachable")  # pragma: no cover - the second attempt returns or raises


def _open(path: Path | None, root: str, notes: list[str]) -> sqlite3.Connection:
    """The index at `path` if it is readable, of this version and this project's; else a new one."""
    if path is None:
        return _fresh(":memory:", root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        notes.append(f"the search index is kept in memory for this search: {path.parent} cannot be made ({exc.strerror})")
        return _fresh(":memory:", root)
    if path.exists():
        conn = sqlite3.connect(path, timeout=_BUSY_S, isolation_level=None)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            conn.close()
            if _busy(exc):
                raise SearchError("the search index is busy (another search is updating it): try again") from None
            notes.append(f"the search index was unreadable ({exc}) and has been rebuilt")
        else:
            if meta.get("version") == _VERSION and meta.get("root") == root:
                return conn
            conn.close()  # another version of gitgarden, or another project of the same repository
        _remove(path)
    return _fresh(str(path), root, notes)


def _fresh(where: str, root: str, notes: list[str] | None = None) -> sqlite3.Connection:
    """A new, empty index at `where`; SearchError when this SQLite has no FTS5."""
    try:
        conn = sqlite3.connect(where, timeout=_BUSY_S, isolation_level=None)
    except sqlite3.OperationalError as exc:
        if where == ":memory:" or notes is None:
            raise
        notes.append(f"the search index is kept in memory for this search: {where} cannot be written ({exc})")
        return _fresh(":memory:", root)
    try:
        conn.execute("BEGIN IMMEDIATE")
        for statement in _SCHEMA.format(module=FTS_MODULE).split(";\n"):
            if statement.strip():
                conn.execute(statement)
        conn.executemany("INSERT INTO meta VALUES (?, ?)", [("version", _VERSION), ("root", root)])
        conn.execute("COMMIT")
    except sqlite3.OperationalError as exc:
        conn.close()
        if "no such module" in str(exc):
            raise SearchError(
                f"this Python's SQLite {sqlite3.sqlite_version} was built without FTS5, which gitgarden search needs: "
                "run gitgarden with a Python whose sqlite3 module has FTS5 (python.org's and most Linux distributions' do)"
            ) from None
        if where != ":memory:" and _unwritable(exc) and notes is not None:
            notes.append(f"the search index is kept in memory for this search: {where} cannot be written ({exc})")
            return _fresh(":memory:", root)
        raise
    return conn


def _remove(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        with suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def _busy(exc: BaseException) -> bool:
    return getattr(exc, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED") or "locked" in str(exc)


def _syntax(exc: BaseException) -> bool:
    """True for FTS5 refusing a query's syntax (not the file or its lock)."""
    return str(exc).startswith(("fts5:", "unterminated string", "unknown special query", "no such column"))


def _broken(exc: BaseException) -> bool:
    return getattr(exc, "sqlite_errorname", "") in _CORRUPT or "no such table" in str(exc) or "malformed" in str(exc)


def _unwritable(exc: BaseException) -> bool:
    return getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_READONLY", "SQLITE_FULL", "SQLITE_CANTOPEN", "SQLITE_IOERR"))


# -- bringing it up to date ------------------------------------------------------------------


def _listing(project: Project, layout: Layout) -> dict[str, int]:
    """Every `.md` file that may be a page, and every day file: project-relative path -> its stat
    signature. Symlinks, hidden folders and, at the root, the reserved names are never walked; which
    of the rest are pages is decided (`layout.page_name`) only for the files that changed."""
    root = str(project.root)
    out: dict[str, int] = {}
    for folder in layout.wiki_folders():
        at_root = folder == "."
        todo = [(root if at_root else os.path.join(root, folder), "" if at_root else folder + "/")]
        while todo:
            here, prefix = todo.pop()
            try:
                entries = os.scandir(here)
            except OSError:
                continue
            with entries:
                # The hot loop of every search (one turn a file): no call it can do without.
                for entry in entries:
                    name = entry.name
                    if name[0] == "." or (at_root and not prefix and reserved_at_top(name)):
                        continue
                    if name.endswith(".md"):
                        try:
                            st = entry.stat(follow_symlinks=False)
                        except OSError:
                            continue
                        if S_ISREG(st.st_mode):  # a symlink (or a folder named x.md) is no page
                            out[prefix + name] = hash((st.st_size, st.st_mtime_ns)) or 1
                    elif entry.is_dir(follow_symlinks=False):
                        todo.append((entry.path, prefix + name + "/"))
    with suppress(OSError), os.scandir(os.path.join(root, layout.journal_dir)) as days:
        for entry in days:
            if entry.name.endswith(".md") and is_day(entry.name[:-3]) and entry.is_file(follow_symlinks=False):
                with suppress(OSError):
                    st = entry.stat(follow_symlinks=False)
                    out[layout.journal_prefix + entry.name] = _signature(st.st_size, st.st_mtime_ns)
    return out


def _signature(size: int, mtime_ns: int) -> int:
    """One integer for a file's size and modification time (0 is kept for "hash it again");
    `_listing` computes the same inline."""
    return hash((size, mtime_ns)) or 1


def _kind(layout: Layout, path: str) -> str | None:
    """"day" for a day file, "page" for a page, None for a file that is neither."""
    if layout.is_journal_file(path):
        return "day" if is_day(path[len(layout.journal_prefix) : -3]) else None
    return "page" if layout.page_name(path) else None


def _update(conn: sqlite3.Connection, project: Project, identity: tuple[str, ...]) -> None:
    """Index what changed on disk since the index last looked; nothing is written when nothing did."""
    layout = project.layout.with_identity(identity)
    listing = _listing(project, layout)
    stored: dict[str, int] = dict(conn.execute("SELECT path, sig FROM files").fetchall())
    changed = [p for p, _ in listing.items() - stored.items()]  # set operations in C: 5,000 paths a search
    gone = list(stored.keys() - listing.keys())
    shape = repr((layout.wiki_dir, layout.journal_dir, layout.identity))
    if conn.execute("SELECT value FROM meta WHERE key = 'layout'").fetchone() != (shape,):
        gone, changed = list(stored), list(listing)  # another layout: what is a page may have changed
    if not changed and not gone:
        return
    racy = time.time_ns() - _RACY_NS
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('layout', ?)", (shape,))
        hashes = dict(conn.execute("SELECT path, hash FROM files").fetchall())
        for path in gone:
            _drop(conn, path)
            conn.execute("DELETE FROM files WHERE path = ?", (path,))
        next_id = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM entries").fetchone()[0]
        entries: list[tuple[Any, ...]] = []
        docs: list[tuple[Any, ...]] = []
        for path in sorted(changed):
            kind = _kind(layout, path)
            if kind is None:  # AGENTS.md or an identity file at the root, a misnamed day file: remembered, not read
                conn.execute("INSERT OR REPLACE INTO files VALUES (?, 'none', ?, '')", (path, listing[path]))
                continue
            target = project.root / path
            try:
                st = os.lstat(target)
            except OSError:
                continue
            data = _read(target)
            if data is None:
                continue  # gone or made a symlink since the listing: the next search sees it
            digest = hashlib.sha1(data).hexdigest()
            # Written just now: a second write in the same tick would keep size and mtime, so hash it again next time.
            sig = 0 if st.st_mtime_ns > racy else _signature(st.st_size, st.st_mtime_ns)
            conn.execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?)", (path, kind, sig, digest))
            if hashes.get(path) == digest:
                continue  # touched, not changed
            _drop(conn, path)
            text = data.decode("utf-8", "replace")
            if kind == "page":
                name = layout.page_name(path) or path
                doc = documents.page_doc(name, text)
                entries.append((next_id, path, "page", name, doc.title, doc.state, " ".join(doc.source)))
                docs.append((next_id, doc.names, doc.title, doc.headings, doc.body))
                next_id += 1
            else:
                for line in documents.line_docs(path.rsplit("/", 1)[-1][:-3], text):
                    entries.append((next_id, path, "line", line.id, "", None, ""))
                    docs.append((next_id, "", "", "", line.text))
                    next_id += 1
        conn.executemany("INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?, ?)", entries)
        conn.executemany("INSERT INTO docs(rowid, names, title, headings, body) VALUES (?, ?, ?, ?, ?)", docs)
        conn.execute("COMMIT")
    except BaseException:
        with suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


def _drop(conn: sqlite3.Connection, path: str) -> None:
    ids = [(i,) for (i,) in conn.execute("SELECT id FROM entries WHERE path = ?", (path,))]
    if ids:
        conn.executemany("DELETE FROM docs WHERE rowid = ?", ids)
        conn.execute("DELETE FROM entries WHERE path = ?", (path,))


def _read(path: Path) -> bytes | None:
    """The file's bytes, never through a symlink (O_NOFOLLOW); None when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with closing(os.fdopen(fd, "rb")) as fh:
        return fh.read()


# -- querying --------------------------------------------------------------------------------


def _query(conn: sqlite3.Connection, fts: str, limit: int) -> list[tuple[Any, ...]]:
    snippet = ", ".join(f"snippet(docs, {col}, '{_OPEN}', '{_CLOSE}', '…', 16)" for col in (3, 2, 1))
    return conn.execute(
        f"SELECT e.kind, e.ref, e.path, e.title, e.state, e.source, {snippet}, rank "
        "FROM docs JOIN entries e ON e.id = docs.rowid WHERE docs MATCH ? ORDER BY rank LIMIT ?",
        (fts, max(1, limit)),
    ).fetchall()


def _hit(row: tuple[Any, ...]) -> Hit:
    kind, ref, path, title, state, source, body, headings, title_snip, rank = row
    # The body's words where they matched; a heading or the title where only those did.
    shown = next((s for s in (body, headings, title_snip) if _OPEN in s), body or title)
    snippet = " ".join(shown.split()).replace(_OPEN, "**").replace(_CLOSE, "**")
    return Hit(kind, ref, path, title, snippet, -float(rank), state, tuple(source.split()) if source else ())
