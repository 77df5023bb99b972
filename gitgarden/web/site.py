"""What every page of the app shares: the `Site` (the project's root, the environment, the clock,
how to make a model, the token, the templates, the runs), and the two ways a route is served —
`view` for a GET (reads only) and `action` for a POST (the CSRF check first, then a change).

Each request reads the project afresh (its layout and settings may have changed since the last)
and runs in a worker thread with that layout in force, as a command does; a GitgardenError ends
as a page with its one line, never a traceback.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from gitgarden.config import Resolved, load_settings
from gitgarden.errors import GitgardenError, NotAProject
from gitgarden.history.common import review_count
from gitgarden.history.passlog import NotAPass
from gitgarden.history.provenance import KeptSources
from gitgarden.project import Project
from gitgarden.services.lines import KeptStories
from gitgarden.services.run import ModelFactory, exclusive
from gitgarden.services.views import NotFound, kept_facts
from gitgarden.services.wikiview import KeptWiki
from gitgarden.web import shown
from gitgarden.web.runs import RunBoard
from gitgarden.web.safety import Refused, allowed_hosts, csrf_value, form_key, read_post
from gitgarden.wiki import layout

if TYPE_CHECKING:
    from gitgarden.config import Resolved
    from gitgarden.history.provenance import KeptSources
    from gitgarden.services.lines import KeptStories
    from gitgarden.services.wikiview import KeptWiki
    from gitgarden.wiki.facts import FactsCache

__all__ = ["Site", "view", "action", "View", "Action"]

View = Callable[["Site", Project, Request], Response]
Action = Callable[["Site", Project, Request, dict[str, str]], Response]
NOTES_KEPT = 50


def _templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("gitgarden.web", "templates"),
        autoescape=True,  # every value is escaped unless a template says it is HTML we made
        auto_reload=False,  # the templates are the package's: no stat of each at every page
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(shown.FILTERS)
    return env


@dataclass
class Site:
    """The app's state for one start of `gitgarden serve`."""

    root: Path
    env: Mapping[str, str]
    now: Callable[[], datetime]
    model_factory: ModelFactory
    token: str
    host: str
    port: int
    templates: jinja2.Environment = field(default_factory=_templates)
    notes: OrderedDict[str, str] = field(default_factory=OrderedDict)

    def __post_init__(self) -> None:
        self.runs = RunBoard(self.root, self.env, self.now, self.model_factory)
        self._facts: FactsCache | None = None
        self._facts_lock = threading.Lock()
        self._sources: KeptSources | None = None
        self._stories: KeptStories | None = None
        self._wiki: KeptWiki | None = None

    @contextmanager
    def facts(self) -> Iterator[FactsCache]:
        """The facts of the wiki's pages, kept between requests (one request at a time uses them):
        loaded once from the cache passes keep, checked against each file's stat, never written."""
        with self._facts_lock:
            if self._facts is None:
                self._facts = kept_facts(Project(self.root))
            yield self._facts

    @property
    def wiki(self) -> KeptWiki:
        """The wiki's pages and links, kept between requests and brought in step at each use
        (`KeptWiki.held`): a page view costs what changed since the last, not what the wiki holds."""
        with self.facts() as cache:
            if self._wiki is None:
                self._wiki = KeptWiki(self.root, cache)
            return self._wiki

    @property
    def sources(self) -> KeptSources:
        """The paragraphs the passes wrote, traced once and again only when the passes changed."""
        with self._facts_lock:
            if self._sources is None:
                self._sources = KeptSources()
            return self._sources

    @property
    def stories(self) -> KeptStories:
        """Why each journal line stands where it does, read again only when the passes changed."""
        with self._facts_lock:
            if self._stories is None:
                self._stories = KeptStories()
            return self._stories

    @property
    def csrf(self) -> str:
        """The value every form of the app carries."""
        return csrf_value(self.token)

    @property
    def key(self) -> str:
        """This start's key every change carries besides the CSRF value (see `safety.form_key`)."""
        return form_key(self.token)

    @property
    def hosts(self) -> set[str]:
        """The `Host` values the app answers to."""
        return allowed_hosts(self.host, self.port)

    def settings(self, project: Project) -> Resolved:
        """The settings in force for the project, with the layer each comes from (as `config list`)."""
        return load_settings(project.root, env=self.env)

    @contextmanager
    def exclusive(self, project: Project, what: str) -> Iterator[None]:
        """Hold the project's pass lock (and its git settings, as a command does) while changing it:
        no pass, other tab or command writes meanwhile. LockHeld, naming the holder, when one does."""
        with exclusive(project, self.settings(project).settings, what, self.now()):
            yield

    def note(self, text: str) -> str:
        """Keep a one-line message for the page a POST redirects to; its key for the URL."""
        key = secrets.token_hex(4)
        self.notes[key] = text
        while len(self.notes) > NOTES_KEPT:
            self.notes.popitem(last=False)
        return key

    def page(self, request: Request, template: str, *, status: int = 200, **context: Any) -> HTMLResponse:
        """A page of the app rendered from `template` (every value escaped)."""
        key = request.query_params.get("note", "")
        base = {
            "csrf": self.csrf,
            "project_name": self.root.name,
            "path": request.url.path,
            "note": self.notes.get(key, ""),
            "waiting": _waiting_count(self.root),
        }
        html = self.templates.get_template(template).render(**base, **context)
        return HTMLResponse(html, status_code=status)

    def back(self, url: str, note: str = "") -> RedirectResponse:
        """After a POST: to `url` (a GET), with a message when there is one."""
        if note:
            url, hashed, fragment = url.partition("#")  # the note goes in the query, before any #fragment
            url += ("&" if "?" in url else "?") + f"note={self.note(note)}" + hashed + fragment
        return RedirectResponse(url, status_code=303)

    def call(self, fn: Callable[..., Response], request: Request, *args: Any) -> Response:
        """Serve `fn` with the project read afresh and its layout in force; errors as one line."""
        try:
            project = Project(self.root)
            with layout.active(project.layout):
                return fn(self, project, request, *args)
        except Refused as exc:
            return self.failure(request, str(exc), 403)
        except (NotFound, NotAPass, NotAProject) as exc:
            return self.failure(request, str(exc), 404)
        except GitgardenError as exc:
            return self.failure(request, str(exc), 409)

    def failure(self, request: Request, message: str, status: int) -> HTMLResponse:
        """The page that says, in one line, why nothing was shown or changed."""
        try:
            heading = {403: "Refused", 404: "Not found"}.get(status, "Nothing was changed")
            return self.page(request, "failure.html", status=status, message=message, heading=heading)
        except GitgardenError:  # the project itself cannot be read: the line alone
            return HTMLResponse(f"<p>{jinja2.utils.markupsafe.escape(message)}</p>", status_code=status)


def _waiting_count(root: Path) -> int:
    """How many passes wait for review (for the menu), 0 when that cannot be read."""
    try:
        return review_count(root)
    except (GitgardenError, ValueError):
        return 0


def view(fn: View) -> Callable[[Request], Awaitable[Response]]:
    """A GET route: reads, never changes anything."""

    async def endpoint(request: Request) -> Response:
        site: Site = request.app.state.site
        return await run_in_threadpool(site.call, fn, request)

    endpoint.__name__ = fn.__name__
    return endpoint


def action(fn: Action) -> Callable[[Request], Awaitable[Response]]:
    """A POST route: the form must come from the app's own page (CSRF value, origin), then `fn` changes things."""

    async def endpoint(request: Request) -> Response:
        site: Site = request.app.state.site
        try:
            form = await read_post(request, csrf=site.csrf, key=site.key, hosts=site.hosts)
        except Refused as exc:
            return HTMLResponse(f"<p>{jinja2.utils.markupsafe.escape(str(exc))}</p>", status_code=403)
        return await run_in_threadpool(site.call, fn, request, form)

    endpoint.__name__ = fn.__name__
    return endpoint
