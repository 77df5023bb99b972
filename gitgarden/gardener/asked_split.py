"""A split the person asks for (`gitgarden split PAGE`).

A pass never splits the person's page on its own (it is a health advisory); this
does, when asked. It shows the split as a dry run first; applied, it lands as one
guarded commit like a pass (author the gardener, `Gardener-*` trailers, so
`gitgarden log` lists it and `gitgarden undo` takes it back).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from gitgarden.errors import GitgardenError
from gitgarden.gardener import commit
from gitgarden.guard import rules as guard
from gitgarden.repo import commits, gitdir, gitrepo, recovery
from gitgarden.repo.lock import PassLock
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import journal, layout, pages, split, tidy
from gitgarden.wiki.tree import Overlay, changed_paths, file

if TYPE_CHECKING:
    from gitgarden.config import Settings
    from gitgarden.project import Project

__all__ = ["SplitRefused", "SplitRequest", "request_split"]


class SplitRefused(GitgardenError):
    """The split cannot be done as asked; nothing was changed."""


@dataclass
class SplitRequest:
    """What a split did (or would do): the page, its parts, the pages rewired, the diff, the commit."""

    page: str
    parts: list[str] = field(default_factory=list)
    rewired: list[str] = field(default_factory=list)
    diff: str = ""
    commit: str = ""


def request_split(
    project: Project, settings: Settings, page: str, *, apply: bool, now: Callable[[], datetime]
) -> SplitRequest:
    """Plan the split of `page`, check it with the guard, and commit it when `apply`."""
    root = project.root
    git_dir = gitdir.git_dir(root)
    pass_id = f"{now():%Y%m%dT%H%M%SZ}-{secrets.token_hex(2)}"
    here = project.layout
    with layout.active(here), PassLock(git_dir, {"pass_id": pass_id, "started": now().isoformat(), "split": page}):
        base = DiskTree(root, here.tree_folders(), [journal.READ_PATH])
        index = tidy.link_index(tidy.page_titles(base))
        twins = index.candidates(page.removesuffix(".md"))
        if twins:
            raise SplitRefused(f"{page!r} names {len(twins)} pages, {' and '.join(twins)}: name one with its folder (gitgarden split {twins[0]!r})")
        name = index.resolve(page.removesuffix(".md"))
        if name is None or name == pages.map_name():
            raise SplitRefused(f"no page named {page!r} in {here.wiki_shown}")
        path = pages.page_path(name)
        out = split.split_in_tree(base, path)
        if isinstance(out, str):
            raise SplitRefused(out)
        tree = Overlay(base, {p: file(t) for p, t in out.items()})
        changes = changed_paths(base, tree)
        parts = sorted(p for p in changes if p not in base)
        verdicts = guard.check(base, tree, guard.PassContext(split_parents={p: path for p in parts}, own_paths=frozenset()))
        if verdicts:
            raise SplitRefused("the guard refused the split: " + "; ".join(map(str, verdicts[:3])))
        result = SplitRequest(name, [pages.page_name(p) or p for p in parts])
        result.rewired = sorted(pages.page_name(p) or p for p in changes if p in base and p != path)
        result.diff = commit.diff(base, tree, changes)
        if not apply:
            return result
        dirty = sorted(gitrepo.dirty_paths(root, changes))
        if dirty:
            raise SplitRefused(f"you have uncommitted changes in {', '.join(dirty)}: commit or stash them, then split")
        writes = {p: tree[p].data for p in changes}
        trailers = {
            "Pass": pass_id,
            "Outcome": "split",
            "Created": str(len(parts)),
            "Split": "1",
        }
        message = (
            f"gitgarden split: {name} into {len(parts)} parts (asked by the person)\n\n"
            + f"Created: {', '.join(parts)}\n"
            + (f"Rewired: {', '.join(result.rewired)}\n" if result.rewired else "")
            + "\n"
            + "".join(f"Gardener-{k}: {v}\n" for k, v in trailers.items())
        )
        originals = {p: (base[p].data if p in base else None) for p in writes}
        recovery.write_pending(git_dir, recovery.Pending(pass_id, originals, writes))
        committed = False
        try:
            for rel, data in writes.items():
                recovery.atomic_write(recovery.safe_target(root, rel), data)
            commits.commit_paths(root, sorted(writes), message=message, author=(settings.author_name, settings.author_email))
            committed = True
            result.commit = gitrepo.head(root) or ""
        finally:
            if not committed:
                commit.roll_back(root, git_dir, lambda _pid: False)
            recovery.clear_pending(git_dir)
        return result
