"""The garden at a glance (home) and its health: what `gitgarden status` and `gitgarden health`
show, read through the same functions, with the health figures of the last passes as a chart; and
the Ask box (`/ask?q=…`: `gitgarden ask`, each citation a link to the page's words and the journal
line)."""

from __future__ import annotations

import re
from urllib.parse import quote

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from gitgarden.project import Project
from gitgarden.services.ask import ask as ask_garden
from gitgarden.services.health import health as project_health
from gitgarden.services.status import project_status
from gitgarden.services.views import map_view, recent_passes, waiting
from gitgarden.web.render import Links, render_line
from gitgarden.web.shown import chart
from gitgarden.web.site import Site, view

__all__ = ["ROUTES"]

CHARTED = (("pages", "pages"), ("broken links", "broken_links"), ("orphans", "orphans"), ("unmapped", "unmapped"), ("map size", "map_chars"))
CHART_PASSES = 30  # the newest passes with health figures the chart draws


def home(site: Site, project: Project, request: Request) -> Response:
    """Lines waiting, the last pass, what holds the next one back, set-aside lines, Open questions,
    review waiting, and health with its recent course."""
    status = project_status(project, site.env, site.now())
    aside = [e for _, e in waiting(project)[1]]
    recent = recent_passes(project)
    _map_text, open_questions = map_view(project)
    figured = [r["health_after"] for r in recent if isinstance(r.get("health_after"), dict) and r["health_after"]][-CHART_PASSES:]
    series = [(label, [int(f.get(key, 0) or 0) for f in figured]) for label, key in CHARTED]
    return site.page(
        request,
        "garden.html",
        st=status,
        aside=aside,
        last=recent[-1] if recent else None,
        open_questions=[Markup(render_line(q, Links(None))) for q in open_questions],
        latest=figured[-1] if figured else None,
        chart=chart(series),
        charted=len(figured),
    )


def health(site: Site, project: Project, request: Request) -> Response:
    """Every figure of `gitgarden health`, each item a link to its page."""
    found = project_health(project, site.now().date())
    return site.page(request, "health.html", h=found.figures, aside=found.aside)


_LINK = re.compile(r"\[\[([^\[\]|]+)(?:\|([^\[\]]+))?\]\]")
_FRAGMENT_WORDS = 8


def words_link(page: str, text: str) -> str:
    """The page's URL, scrolled to `text` where the browser reads text fragments
    (`/page/lease#:~:text=The%20rent%20is…`): its first words as the page shows them (a wiki link by
    its shown text)."""
    shown = _LINK.sub(lambda m: m.group(2) or m.group(1), text)
    words = " ".join(shown.replace("*", "").split()[:_FRAGMENT_WORDS])
    return f"/page/{quote(page)}#:~:text={quote(words, safe='')}"


def ask(site: Site, project: Project, request: Request) -> Response:
    """The Ask box's answer: each sentence with links to the page's words and the journal lines it
    cites, the lines themselves, or "Not in the garden" with the nearest pages. Reads only."""
    question = request.query_params.get("q", "").strip()
    answer = None
    if question:
        settings = site.settings(project).settings
        answer = ask_garden(project, question, env=site.env, now=site.now, model_factory=site.model_factory, settings=settings)
    return site.page(request, "ask.html", question=question, answer=answer, words_link=words_link)


ROUTES = [("/", view(home), "GET"), ("/health", view(health), "GET"), ("/ask", view(ask), "GET")]
