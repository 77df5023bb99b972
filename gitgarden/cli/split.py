"""`gitgarden split PAGE`: the person asks for one of their pages to be split.

A pass never splits the person's page on its own (it is a health advisory); this
command does, when asked. It shows the split as a dry run first; with `--yes`
it lands as one guarded commit like a pass (author the gardener, `Gardener-*`
trailers, so `gitgarden log` lists it and `gitgarden undo` takes it back).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import click

from gitgarden.cli.app import App, err
from gitgarden.errors import GitgardenError

if TYPE_CHECKING:
    from gitgarden.config import Settings
    from gitgarden.project import Project

__all__ = ["SplitRequest", "request_split", "register"]


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
    from gitgarden.gardener import commit as passcommit
    from gitgarden.guard import rules as guard
    from gitgarden.project import DiskTree
    from gitgarden.repo import commits, gitrepo, recovery
    from gitgarden.repo.lock import PassLock
    from gitgarden.wiki import journal, layout, split, tidy
    from gitgarden.wiki import pages as wiki
    from gitgarden.wiki.tree import Overlay, changed_paths, file

    root = project.root
    git_dir = gitrepo.git_dir(root)
    import secrets  # here, not at the top: `status` loads this module and must stay light

    pass_id = f"{now():%Y%m%dT%H%M%SZ}-{secrets.token_hex(2)}"
    here = project.layout
    with layout.active(here), PassLock(git_dir, {"pass_id": pass_id, "started": now().isoformat(), "split": page}):
        base = DiskTree(root, here.tree_folders(), [journal.READ_PATH])
        name = tidy.link_index(tidy.page_titles(base)).resolve(page.removesuffix(".md"))
        if name is None or name == wiki.map_name():
            raise SplitRefused(f"no page named {page!r} in {here.wiki_shown}")
        path = wiki.page_path(name)
        out = split.split_in_tree(base, path)
        if isinstance(out, str):
            raise SplitRefused(out)
        tree = Overlay(base, {p: file(t) for p, t in out.items()})
        changes = changed_paths(base, tree)
        parts = sorted(p for p in changes if p not in base)
        verdicts = guard.check(base, tree, guard.PassContext(split_parents={p: path for p in parts}, own_paths=frozenset()))
        if verdicts:
            raise SplitRefused("the guard refused the split: " + "; ".join(map(str, verdicts[:3])))
        result = SplitRequest(name, [wiki.page_name(p) or p for p in parts])
        result.rewired = sorted(wiki.page_name(p) or p for p in changes if p in base and p != path)
        result.diff = passcommit.diff(base, tree, changes)
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
                passcommit.roll_back(root, git_dir, lambda _pid: False)
            recovery.clear_pending(git_dir)
        return result


@click.command("split")
@click.argument("page")
@click.option("--yes", "--apply", "apply", is_flag=True, help="Commit the split (without it: a dry run that changes nothing).")
@click.pass_context
def split_command(ctx: click.Context, page: str, apply: bool) -> None:
    """Split PAGE (one of your pages over the budget) at its `##` headings.

    Parts go in PAGE's folder, named as its neighbours are; every heading link into a
    moved section is rewired. Shown as a dry run unless --yes.
    """
    app = ctx.ensure_object(App)
    project = app.project()
    settings = app.settings(project).settings
    result = request_split(project, settings, page, apply=apply, now=app.now)
    prefix = "" if apply else "[dry run] "
    err(f"{prefix}split {result.page} into: {', '.join(result.parts)}")
    if result.rewired:
        err(f"  heading links rewired in: {', '.join(result.rewired)}")
    if result.commit:
        err(f"  commit {result.commit[:10]} (`gitgarden undo` takes it back)")
    else:
        click.echo(result.diff, nl=False)
        err("Nothing changed. Run again with --yes to commit this split.")
    sys.exit(0)


def register(cli: click.Group) -> None:
    """Add `split` to the command group."""
    cli.add_command(split_command)
