"""`gitgarden mcp`: the agents' door as an MCP server over stdio, for one project.

Built on the official MCP SDK (`mcp`, the `agents` extra). Each tool is one of
`tools.Door`'s functions, with a JSON schema from its type hints and a sentence
an agent reads; a GitgardenError becomes the tool's error result (one line, and
nothing changed). The page and the map are also resources
(`gitgarden://page/<name>`, `gitgarden://map`). stdout belongs to the protocol:
nothing else is ever printed there, and the SDK's own log goes to stderr at
warning level only.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from gitgarden import __version__
from gitgarden.agents.tools import SEARCH_LIMIT_MAX, Door
from gitgarden.errors import GitgardenError
from gitgarden.project import Project

__all__ = ["INSTRUCTIONS", "build", "serve"]

INSTRUCTIONS = """\
gitgarden keeps this project's wiki: linked pages written by a gardener from the facts in a daily journal.
Capture facts; the gardener writes the pages. Use `capture` for anything worth remembering: one fact a line,
in plain words, with names and numbers as they are (the gardener reads new lines at its next pass and writes,
links and maps the pages; it never commits your lines before then). Read what the wiki knows with `search`,
`ask` (a question answered from the wiki, every sentence citing the journal lines it rests on, or "Not in the
garden"), `read_page`, `read_map`, `journal`, `status` and `page_sources` (which journal lines a page's text
came from).
This server has no tool that writes, moves or deletes a page, runs a pass or changes a setting, on purpose:
do not edit the wiki's pages or the journal's files directly either — capture instead.
"""

_LIMIT_RANGE: dict[str, Any] = {"minimum": 1, "maximum": SEARCH_LIMIT_MAX}
_READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_APPEND = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)


def _client(ctx: Context[Any, Any] | None) -> str:
    """The name the MCP client gave in `initialize` (its clientInfo), or ''."""
    try:
        params = ctx.session.client_params if ctx is not None else None
    except (AttributeError, LookupError, ValueError):
        return ""
    info = getattr(params, "client_info", None)
    return str(getattr(info, "name", "") or "")


def _call(fn: Callable[..., dict[str, Any]], *args: Any) -> str:
    """`fn`'s JSON as the tool's text; a GitgardenError as the tool's error, in one line."""
    try:
        return json.dumps(fn(*args), ensure_ascii=False, indent=1)
    except GitgardenError as exc:
        raise ToolError(str(exc)) from None


def build(project: Project, env: Mapping[str, str], now: Callable[[], datetime]) -> MCPServer[Any]:
    """The MCP server for `project`: the eight tools, the map and page resources, the instructions."""
    door = Door(project, env, now)
    server: MCPServer[Any] = MCPServer(
        "gitgarden",
        title=f"gitgarden: {project.name}",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )

    @server.tool(annotations=_APPEND, description=(
        "Append facts to today's journal, one line per non-empty line (never commits; the gardener turns them into "
        "pages at its next pass); returns the ids of the lines written."
    ))  # fmt: skip
    def capture(
        text: Annotated[str, Field(description="The facts to capture: one fact a line, plain words.")],
        ctx: Context[Any, Any],
    ) -> str:
        return _call(door.capture, text, _client(ctx))

    @server.tool(annotations=_READ, description=(
        'Search the wiki\'s pages and the journal\'s lines, best first: words, "a phrase", acme* for words starting so, '
        "AND/OR/NOT; any case, with or without accents."
    ))  # fmt: skip
    def search(
        query: Annotated[str, Field(description='What to look for, e.g. oven, "three-phase line", acme*.')],
        # The range is shown in the schema and checked by the door, whose refusal is one line (pydantic's is five).
        limit: Annotated[int, Field(description="How many results at most.", json_schema_extra=_LIMIT_RANGE)] = 10,
    ) -> str:
        return _call(door.search, query, limit)

    @server.tool(annotations=_READ, description=(
        "Ask the wiki a question: an answer whose every sentence cites the page and the journal lines it rests on, "
        'checked by code (the newest value where a later line corrected one), or "Not in the garden" with the nearest pages.'
    ))  # fmt: skip
    def ask(question: Annotated[str, Field(description="The question, e.g. what is the rent now?")]) -> str:
        return _call(door.ask, question)

    @server.tool(annotations=_READ, description=(
        "Read one page: its text, state, source days and the pages linking to it; the name may be the page's file "
        "name, its title or an alias, in any letter case."
    ))  # fmt: skip
    def read_page(name: Annotated[str, Field(description="The page, e.g. kessler-mill or Kessler Mill.")]) -> str:
        return _call(door.read_page, name)

    @server.tool(annotations=_READ, description="Read the map of the wiki (its index page) with the Open questions.")
    def read_map() -> str:
        return _call(door.read_map)

    @server.tool(annotations=_READ, description=(
        "Read one day of the journal: each line with its id and whether the gardener has read it (default: today)."
    ))  # fmt: skip
    def journal(
        day: Annotated[str, Field(description="The day, YYYY-MM-DD; empty for today.")] = "",
    ) -> str:
        return _call(door.journal, day)

    @server.tool(annotations=_READ, description=(
        "The garden's state: journal lines waiting for the gardener, its last pass, passes waiting for review, "
        "and the lines set aside with why."
    ))  # fmt: skip
    def status() -> str:
        return _call(door.status)

    @server.tool(annotations=_READ, description=(
        "Where a page's text came from: each paragraph a gardener pass wrote, with the journal lines it cites word "
        "for word and the pass."
    ))  # fmt: skip
    def page_sources(name: Annotated[str, Field(description="The page, named as for read_page.")]) -> str:
        return _call(door.page_sources, name)

    _add_resources(server, door)
    return server


def _add_resources(server: MCPServer[Any], door: Door) -> None:
    """The map and the pages as resources an agent's client may list and read."""

    @server.resource("gitgarden://map", name="map", title="The map", mime_type="text/markdown",
                     description="The wiki's map (its index page), with the Open questions.")  # fmt: skip
    def map_resource() -> str:
        return _resource(lambda: door.read_map()["text"])

    @server.resource("gitgarden://page/{+name}", name="page", title="A page", mime_type="text/markdown",
                     description="A page of the wiki by name (file name, title or alias).")  # fmt: skip
    def page_resource(name: str) -> str:
        return _resource(lambda: door.read_page(name)["text"])


def _resource(read: Callable[[], str]) -> str:
    try:
        return read()
    except GitgardenError as exc:
        raise ResourceError(str(exc)) from None


def serve(project: Project, env: Mapping[str, str], now: Callable[[], datetime]) -> None:
    """Serve `project` over stdio until the client closes the connection."""
    build(project, env, now).run("stdio")
