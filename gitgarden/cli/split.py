"""`gitgarden split PAGE`: the person asks for one of their pages to be split (`gardener.asked_split`)."""

from __future__ import annotations

import sys
from typing import Any

import click
from click.shell_completion import CompletionItem

from gitgarden.cli.app import App, echo, err
from gitgarden.gardener.asked_split import request_split
from gitgarden.project import find_project
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import layout, pages

__all__ = ["split_command"]  # the commands, which `cli.main` loads by name


def _complete_pages(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion for PAGE: the page names of the project you stand in (by name or file
    name, any case), the pages over the budget first, each with its size."""

    try:
        project = find_project()
        with layout.active(project.layout) as here:
            tree = DiskTree(project.root, [here.wiki_dir])
            want = incomplete.lower()
            found = []
            for path in tree:
                name = here.page_name(path)
                if name is None or path == here.map_path():
                    continue
                if name.lower().startswith(want) or name.rsplit("/", 1)[-1].lower().startswith(want):
                    size = (project.root / path).stat().st_size
                    found.append((size <= pages.PAGE_BUDGET, name, size))
    except Exception:  # completion must never print a traceback into the person's shell
        return []
    return [CompletionItem(name, help=f"{size:,} bytes" + (" (over the budget)" if not within else "")) for within, name, size in sorted(found)[:200]]


@click.command("split")
@click.argument("page", shell_complete=_complete_pages)
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
        echo(result.diff, nl=False)
        err("Nothing changed. Run again with --yes to commit this split.")
    sys.exit(0)
