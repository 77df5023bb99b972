"""What the agents' door does, as plain functions over one project: each returns plain JSON.

The MCP server (`server.py`) hands these to agents as tools; nothing here knows
MCP. One writes: `capture`, which appends to today's journal exactly as
`gitgarden capture` does (the same function, limits and messages) and never
commits. The rest read, through the same library functions the CLI and the web
app use. No function here writes, moves or deletes a page, runs a pass or
changes a setting — and none is to be added: the gardener is the only writer
of pages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from gitgarden.config import load_settings
from gitgarden.errors import GitgardenError
from gitgarden.project import Project
from gitgarden.search.index import search
from gitgarden.services.ask import ask
from gitgarden.services.capture import capture
from gitgarden.services.status import project_status
from gitgarden.services.views import (
    find_page,
    journal_day,
    journal_days,
    kept_facts,
    kept_sources,
    map_view,
    page_sources,
    passes_summary,
    wiki_tree,
)

__all__ = ["Door", "TOOLS"]

# The tools, in the order an agent is shown them. A test holds the server's list to exactly these.
TOOLS = ("capture", "search", "ask", "read_page", "read_map", "journal", "status", "page_sources")
SEARCH_LIMIT_MAX = 100


class Door:
    """One project's door for agents: the environment and clock it reads with (tests pass a fixed one)."""

    def __init__(self, project: Project, env: Mapping[str, str], now: Callable[[], datetime]) -> None:
        self.project = project
        self.env = env
        self.now = now
        # Kept for the server's life (one call at a time uses them): the pages' facts, checked
        # against each file's stat, and the paragraphs the passes wrote, traced again only when
        # the passes changed. A page the person edits is read again at the next call.
        self._facts: Any = None
        self._sources: Any = None
        self._lock = threading.Lock()

    def _page(self, name: str) -> Any:
        with self._lock:
            if self._facts is None:
                self._facts = kept_facts(self.project)
            return find_page(self.project, name, tree=wiki_tree(self.project, self._facts))

    def _settings(self) -> Any:
        return load_settings(self.project.root, env=self.env).settings

    def capture(self, text: str, client: str = "") -> dict[str, Any]:
        """Append `text` to today's journal, one line per non-empty line; `client` (the agent's
        name) goes to the capture log, never into the line. Never commits."""
        return capture(self.project, text, self.now(), by=client).to_json()

    def search(self, query: str, limit: int = 10) -> dict[str, Any]:
        """Ranked pages and journal lines matching `query` (as `gitgarden search`)."""
        if not 1 <= limit <= SEARCH_LIMIT_MAX:
            raise GitgardenError(f"limit must be between 1 and {SEARCH_LIMIT_MAX}")
        identity = tuple(self._settings().identity_files)
        return search(self.project, query, limit=limit, identity=identity).to_json()

    def ask(self, question: str) -> dict[str, Any]:
        """The garden's answer to `question` (as `gitgarden ask --json`): each sentence with the page
        and journal lines it rests on, checked by code; "Not in the garden" with the nearest pages
        when nothing grounds one. Reads only; the model is the project's configured one."""
        return ask(self.project, question, env=self.env, now=self.now).to_json()

    def read_page(self, name: str) -> dict[str, Any]:
        """A page's text, state, `source:` days and backlinks; `name` resolved as Obsidian resolves it."""
        return self._page(name).to_json()

    def read_map(self) -> dict[str, Any]:
        """The map's text and its Open questions."""
        text, open_lines = map_view(self.project)
        return {"path": self.project.layout.map_path(), "text": text, "open": open_lines}

    def journal(self, day: str = "") -> dict[str, Any]:
        """One day's journal lines (default today) with their ids and read/unread state, and the
        days there are."""
        day = day.strip() or f"{self.now().astimezone():%Y-%m-%d}"
        days = journal_days(self.project)
        if day not in days and day == f"{self.now().astimezone():%Y-%m-%d}":
            return {"day": day, "lines": [], "days": days[:30]}  # nothing captured today yet: no error
        lines = journal_day(self.project, day)
        return {"day": day, "lines": [ln.to_json() for ln in lines], "days": days[:30]}

    def status(self) -> dict[str, Any]:
        """Lines waiting, the last pass, review waiting, the lines set aside (as `gitgarden status`)."""
        data = project_status(self.project, self.env, self.now())
        return {
            "unread": data["unread"],
            "set_aside": data["set_aside"],
            **passes_summary(self.project),
            "eligible": data["eligible"],
            "held": data["held"],
            "no_model": data["no_model"],
            "warnings": data["warnings"],
        }

    def page_sources(self, name: str) -> dict[str, Any]:
        """The paragraphs of a page that passes wrote, each with the journal lines it came from."""
        page = self._page(name)
        if self._sources is None:
            self._sources = kept_sources()
        sources = page_sources(self.project, page, self._sources)
        return {"name": page.name, "path": page.path, "sources": [s.to_json() for s in sources]}
