"""One pass's commit put on top of another commit, as `git cherry-pick` would but without a work
tree: what `review accept PASS` and `review reject PASS` do with the passes waiting for review.

A pass's change is the difference between its commit and its parent. Replayed
onto another commit, every page takes that change through the same line merge
as `undo` (`repo.textmerge`: only real overlaps conflict), and the bookkeeping
takes only what the pass added to it: the read position gains the lines the
pass marked read, a log file gains the records the pass appended. Nothing here
touches the person's checkout, index or HEAD; the caller moves refs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gitgarden.history.common import changed_files
from gitgarden.history.records import LOG_DIR
from gitgarden.repo import gitrepo, textmerge
from gitgarden.repo.commits import build_commit
from gitgarden.wiki import journal, layout, linking, pages

__all__ = ["Waiting", "waiting_commits", "replay", "Clash", "dangling"]


@dataclass(frozen=True)
class Waiting:
    """A commit on the review branch, oldest first: its sha, its parent and its pass id ('' for none)."""

    commit: str
    parent: str
    pass_id: str


@dataclass(frozen=True)
class Clash:
    """A file whose change cannot be put on the new base: a page the pass changed that is not there
    (or not the same) where it would land."""

    path: str
    where: str  # the lines that collide, or why

    def describe(self) -> str:
        return f"{self.path} ({self.where})"


def waiting_commits(root: Path, fork: str, tip: str) -> list[Waiting]:
    """The commits `fork..tip` (the passes waiting for review), oldest first."""
    out = gitrepo.git(
        root, "log", "--reverse", "--first-parent", "--format=%H %P%x1f%(trailers:key=Gardener-Pass,valueonly,separator=%x2C)%x1e",
        f"{fork}..{tip}", "--",
    )
    found: list[Waiting] = []
    for chunk in out.decode("utf-8", "replace").split("\x1e"):
        chunk = chunk.strip()
        if not chunk:
            continue
        shas, _, pass_id = chunk.partition("\x1f")
        sha, *parents = shas.split()
        found.append(Waiting(sha, parents[0] if parents else "", pass_id.strip()))
    return found


def _gained_lines(was: bytes | None, wrote: bytes | None, onto: bytes | None) -> bytes | None:
    """`onto` with the lines the pass appended to a log file (those `wrote` has and `was` lacks)."""
    seen = set((was or b"").splitlines())
    added = [ln for ln in (wrote or b"").splitlines() if ln not in seen]
    base = onto or b""
    have = set(base.splitlines())
    extra = [ln for ln in added if ln not in have]
    if not extra:
        return onto
    if base and not base.endswith(b"\n"):
        base += b"\n"
    return base + b"".join(ln + b"\n" for ln in extra)


def _gained_read(was: bytes | None, wrote: bytes | None, onto: bytes | None) -> bytes | None:
    """`onto`'s read position with the lines the pass marked read (in `wrote` and not in `was`)."""

    def load(data: bytes | None) -> dict[str, set[str]]:
        return journal.load_read(None if data is None else data.decode("utf-8", "replace"))

    before, after, there = load(was), load(wrote), load(onto)
    changed = False
    for day, keys in after.items():
        new = keys - before.get(day, set()) - there.get(day, set())
        if new:
            there.setdefault(day, set()).update(new)
            changed = True
    return journal.render_read(there).encode() if changed else onto


def _author(root: Path, commit: str) -> tuple[str, str]:
    out = gitrepo.git(root, "log", "-1", "--format=%an%x00%ae", commit).decode("utf-8", "replace").strip()
    name, _, email = out.partition("\x00")
    return name or "gitgarden", email or "gitgarden@localhost"


def replay(root: Path, commit: str, parent: str, onto: str) -> str | list[Clash]:
    """A new commit on `onto` with the change `parent` -> `commit` (same message and author), or
    the files where that change collides with what `onto` holds."""
    if parent == onto:
        return commit  # it already stands there: keep the commit itself
    paths = changed_files(root, parent, commit)
    before, after, there = (gitrepo.tree_at(root, rev, paths) if paths else {} for rev in (parent, commit, onto))
    blobs: dict[str, bytes] = {}
    clashes: list[Clash] = []
    for path in paths:
        was, wrote, is_ = (t[path].data if path in t else None for t in (before, after, there))
        if path == journal.READ_PATH:
            new = _gained_read(was, wrote, is_)
        elif path.startswith(f"{LOG_DIR}/") and path.endswith(".jsonl"):
            new = _gained_lines(was, wrote, is_)
        elif is_ == wrote:
            continue
        elif is_ == was:
            new = wrote
        else:
            # The map's entries are a list whose order is not the pass's: both sides' new entries stand.
            merged = textmerge.merge(was or b"", is_ or b"", wrote or b"", union=path == layout.current().map_path())
            if isinstance(merged, list):
                clashes.append(Clash(path, ", ".join(o.describe() for o in merged)))
                continue
            if is_ is None and was is not None:
                clashes.append(Clash(path, "not there"))  # the page the pass changed was made by another pass
                continue
            new = merged
        if new is None:
            clashes.append(Clash(path, "removed"))  # a pass never deletes a file: nothing to carry over
        elif new != is_:
            blobs[path] = new
    if clashes:
        return clashes
    message = gitrepo.git(root, "log", "-1", "--format=%B", commit).decode("utf-8", "replace")
    return build_commit(root, onto, blobs, message.rstrip("\n") + "\n", _author(root, commit))


def dangling(root: Path, commit: str, parent: str, onto: str) -> list[str]:
    """The links the change `parent` -> `commit` added to pages that name no page or attachment in
    `onto`'s tree (rule 8 of the guard, for a pass put on another base): `page -> target` each."""
    here = layout.current()
    paths = [p for p in changed_files(root, parent, commit) if here.page_name(p) is not None]
    if not paths:
        return []
    names = gitrepo.git(root, "ls-tree", "-r", "-z", "--name-only", onto, "--").decode("utf-8", "surrogateescape").split("\0")
    page_names = [n for p in names if p and (n := here.page_name(p)) is not None]
    files = [here.wiki_relative(p) for p in names if p and here.in_wiki(p) and here.page_name(p) is None]
    before, there = gitrepo.tree_at(root, parent, paths), gitrepo.tree_at(root, onto, paths)
    index = linking.LinkIndex(page_names, attachments=files)
    out: list[str] = []
    for path in paths:
        new = there[path].data.decode("utf-8", "replace") if path in there else ""
        old = before[path].data.decode("utf-8", "replace") if path in before else ""
        had = {lk.target for lk in linking.find_links(pages.split_frontmatter(old)[1])}
        for link in linking.find_links(pages.split_frontmatter(new)[1]):
            if link.target not in had and index.resolve(link.target) is None and index.attachment(link.target) is None:
                out.append(f"{here.page_name(path)} -> [[{link.target}]]")
    return sorted(set(out))
