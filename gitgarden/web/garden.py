"""The garden at a glance (home) and its health: what `gitgarden status` and `gitgarden health`
show, read through the same functions, with the health figures of the last passes as a chart."""

from __future__ import annotations

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from gitgarden.project import Project
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


ROUTES = [("/", view(home), "GET"), ("/health", view(health), "GET")]
