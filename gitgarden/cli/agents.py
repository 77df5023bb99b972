"""`gitgarden search` and `gitgarden mcp`: parse, call `gitgarden.search` / `gitgarden.agents`, render.

Imported by `cli.main` for every command, so it stays cheap: SQLite and the
MCP SDK are imported inside the commands that use them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from gitgarden.cli.app import App, echo, err, out_json, pass_app, visible
from gitgarden.errors import GitgardenError
from gitgarden.search.index import search

__all__ = ["search_cmd", "mcp_cmd"]  # the commands, which `cli.main` loads by name

_MARKED = re.compile(r"\*\*(.+?)\*\*")


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option("--limit", "-n", type=click.IntRange(1, 1000), default=10, show_default=True, help="Show at most N results.")
@click.option("--json", "as_json", is_flag=True, help="Plain JSON (the query, its results, notes), nothing else.")
@pass_app
def search_cmd(app: App, query: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Search the wiki's pages and the journal's lines, best first.

    QUERY is words (all must occur), "a phrase", acme* (words starting so), and
    AND / OR / NOT between them; letter case and accents do not matter.
    """

    project = app.project()
    settings = app.settings(project).settings
    found = search(project, " ".join(query), limit=limit, identity=tuple(settings.identity_files))
    for note in found.notes:
        err(f"note: {note}")
    if as_json:
        out_json(found.to_json())
        return
    if not found.hits:
        err(f"Nothing found for {found.query!r}.")
        return
    bold = sys.stdout.isatty()
    for hit in found.hits:
        if hit.kind == "page":
            facts = [hit.state or "no state"] + ([f"source {', '.join(hit.source)}"] if hit.source else [])
            echo(f"{hit.ref}  {hit.title}  ({'; '.join(facts)})  {hit.path}")
        else:
            echo(f"{hit.ref}  {hit.path}")
        snippet = visible(hit.snippet)  # escaped before the bold goes in, so only ours reaches the terminal
        snippet = _MARKED.sub(lambda m: click.style(m.group(1), bold=True), snippet) if bold else snippet
        click.echo(f"    {snippet}")


@click.command("mcp")
@click.option(
    "--project",
    "project_path",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The project to serve (default: the one you stand in).",
)
@pass_app
def mcp_cmd(app: App, project_path: Path | None) -> None:
    """Serve the project to chat agents over MCP (stdio): they capture and read; they never write a page.

    Tools: capture, search, ask, read_page, read_map, journal, status, page_sources.
    Add it to Claude Code with `claude mcp add gitgarden -- gitgarden mcp`.
    """
    project = app.project(project_path)
    try:
        from gitgarden.agents.server import serve
    except ImportError as exc:
        raise GitgardenError(
            f"gitgarden mcp needs the MCP SDK, which is not installed ({exc.name or 'mcp'}): "
            "`pipx inject gitgarden mcp`, or `pip install 'gitgarden[agents]'`"
        ) from None
    serve(project, app.env, app.now)
