"""The wiki graph kept in step with the work tree, and health read off it.

Which files changed since the graph was last brought in step is asked of git, not of every
file: the commits in between (`git diff-tree`, by blob id), and what `git status` lists now and
listed then (changed, untracked and ignored files, by their stat signature). Only those files
are read again. A first run, or a graph whose commit git no longer knows, reads the wiki whole.
The graph lives in the git dir (`gitgarden/wiki-<layout>.sqlite`): machine-local, never
committed, and a broken or locked one only means measuring the slow way.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from datetime import date
from pathlib import Path

try:  # sha1 without OpenSSL's start-up cost (hashlib loads _hashlib first): `status` reads health here
    from _sha1 import sha1
except ImportError:  # pragma: no cover - an interpreter without the builtin module
    from hashlib import sha1

from gitgarden.errors import GitError
from gitgarden.repo import gitdir, gitrepo, worktree
from gitgarden.wiki import layout, pages
from gitgarden.wiki.graph import GraphError, WikiGraph, kind_of
from gitgarden.wiki.health import Health, measure, split_advice
from gitgarden.wiki.tree import Entry, Overlay, Tree, text_of

__all__ = ["graph_path", "synced_graph", "health", "record_commit", "signature", "read_file"]


def graph_path(git_dir: Path, here: layout.Layout) -> Path:
    """Where the graph of the wiki in layout `here` is kept (one file a layout: settings that move the
    wiki never make two layouts rebuild each other's graph)."""
    key = "\0".join([here.wiki_dir, here.journal_dir, here.map_page, *here.identity])
    return git_dir / "gitgarden" / f"wiki-{sha1(key.encode('utf-8', 'surrogateescape')).hexdigest()[:10]}.sqlite"


def signature(root: Path, rel: str) -> str:
    """The file's stat signature ('' when there is none): it changes whenever the file is written."""
    try:
        st = os.lstat(root / rel)
    except OSError:
        return ""
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_mode}"


def read_file(root: Path, rel: str) -> Entry | None:
    """The file as a tree entry, never read through a symlink; None when it is not a file."""
    path = os.path.join(root, rel)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            return None
        try:
            return Entry("symlink", os.fsencode(os.readlink(path)))
        except OSError:
            return None
    try:
        with open(fd, "rb") as fh:
            return Entry("file", fh.read())
    except OSError:  # a folder
        return None


def _encodable(rel: str) -> bool:
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return False  # a name not valid UTF-8 (surrogate-escaped): the graph cannot key it
    return True


def _outside_git(root: Path, here: layout.Layout, status: worktree.Status) -> dict[str, str]:
    """The wiki's files that differ from HEAD now (changed, untracked, ignored: a folder git ignores
    whole is walked) with their stat signatures."""
    out: dict[str, str] = {}
    for rel, change in status.changes.items():
        if rel.endswith("/"):
            folder = rel.rstrip("/")
            holds_journal = here.journal_in_wiki() and (here.journal_prefix.startswith(rel) or folder == here.journal_dir)
            if not change.ignored or not (here.in_wiki(folder) or holds_journal):
                continue  # a folder of git's own, or outside the wiki (`.obsidian/`): nothing of the graph's
            for folder, dirs, files in os.walk(root / rel):
                dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
                for name in files:
                    sub = Path(folder, name).relative_to(root).as_posix()
                    if kind_of(here, sub) is not None and _encodable(sub):
                        out[sub] = signature(root, sub)
        elif kind_of(here, rel) is not None and _encodable(rel):
            out[rel] = signature(root, rel)
    return out


def _committed_between(root: Path, old: str, new: str, here: layout.Layout) -> set[str] | None:
    """The wiki's paths that differ between two commits (None when git no longer knows `old`)."""
    try:
        out = gitrepo.git(
            root, "diff-tree", "-r", "-z", "--name-only", "--no-renames", "--relative", old, new, "--", *here.wiki_folders()
        )
    except GitError:
        return None
    return {p for p in out.decode("utf-8", "surrogateescape").split("\0") if p and kind_of(here, p) is not None and _encodable(p)}


def _sync(graph: WikiGraph, root: Path, here: layout.Layout, status: worktree.Status, listing: Callable[[], Iterable[str]]) -> None:
    head, was = graph.synced()
    now = _outside_git(root, here, status)
    candidates: set[str] | None = None
    if graph.built and head and status.head:
        candidates = set(was) | set(now)
        if status.head != head:
            between = _committed_between(root, head, status.head, here)
            candidates = None if between is None else candidates | between
    if candidates is None:
        files = ((rel, read_file(root, rel), signature(root, rel)) for rel in listing() if _encodable(rel))
        graph.build((rel, entry, sig) for rel, entry, sig in files if entry is not None)
    else:
        for rel in sorted(candidates):
            sig = signature(root, rel)
            if graph.signature(rel) == (sig or None):
                continue  # as it was read last time
            entry = read_file(root, rel) if sig else None
            graph.put(rel, entry, sig)
    graph.mark_synced(status.head, now)


def synced_graph(
    root: Path,
    here: layout.Layout,
    listing: Callable[[], Iterable[str]],
    *,
    status: worktree.Status | None = None,
) -> WikiGraph | None:
    """The project's wiki graph, brought in step with the work tree; None when its file cannot be
    used (the caller measures the wiki itself). `listing` lists the wiki's files, for a first run;
    `status` is a `git status` just read (one is read when None)."""
    try:
        graph = WikiGraph(graph_path(gitdir.git_dir(root), here), here)
    except (GraphError, GitError, OSError):
        return None
    try:
        with graph.transaction():
            _sync(graph, root, here, status or worktree.read_status(root), listing)
            graph.settle()
    except (sqlite3.Error, GitError, OSError):
        graph.close()
        return None
    return graph


def health(
    root: Path,
    disk: Callable[[], Tree],
    *,
    changes: Mapping[str, Entry | None] | None = None,
    unread_lines: int = 0,
    today: date | None = None,
    status: worktree.Status | None = None,
) -> Health:
    """`health.measure` of the work tree (with `changes` on top: a pass's writes), read off the wiki
    graph. `disk()` lists the work tree's wiki (`project.DiskTree`): it is called only when the
    graph must be built whole, or cannot be used and the tree is measured the slow way."""
    here = layout.current()
    changes = dict(changes or {})
    listed: list[Tree] = []

    def tree() -> Tree:
        if not listed:
            listed.append(disk())
        return listed[0]

    graph = synced_graph(root, here, lambda: iter(tree()), status=status)
    if graph is None:
        return measure(Overlay(tree(), changes) if changes else tree(), unread_lines=unread_lines, today=today)

    def entry(path: str) -> Entry | None:
        return changes[path] if path in changes else read_file(root, path)

    try:
        map_entry = entry(pages.map_path())
        map_text = (text_of(map_entry) or "") if map_entry is not None else ""

        def advice(name: str, chars: int) -> dict[str, object]:
            return split_advice({pages.page_path(name): entry(pages.page_path(name)) or Entry("file", b"")}, name, chars)

        with graph.overlay(changes):
            return graph.health(map_text=map_text, unread_lines=unread_lines, today=today, advice=advice)
    except sqlite3.Error:
        return measure(Overlay(tree(), changes) if changes else tree(), unread_lines=unread_lines, today=today)
    finally:
        graph.close()


def record_commit(root: Path, here: layout.Layout, was: str | None, commit: str, paths: Iterable[str]) -> None:
    """Tell the wiki graph that HEAD moved from `was` to `commit`, which wrote `paths` (as they now
    stand on disk): a graph in step with `was` stays in step, and the next pass asks git nothing
    about it. A graph not in step, or not there, is left for the next sync."""
    path = graph_path(gitdir.git_dir(root), here)
    if was is None or not path.exists():
        return
    try:
        graph = WikiGraph(path, here)
    except GraphError:
        return
    try:
        head, dirty = graph.synced()
        if head != was or not graph.built:
            return
        with graph.transaction():
            for rel in sorted(p for p in paths if kind_of(here, p) is not None and _encodable(p)):
                sig = signature(root, rel)
                graph.put(rel, read_file(root, rel) if sig else None, sig)
                dirty[rel] = sig  # checked by its signature next time: the person may have written it since
            graph.mark_synced(commit, dirty)
            graph.settle()
    except sqlite3.Error:
        pass
    finally:
        graph.close()
