"""The web app: its routes (each part of the garden a module of its own), its static files, and
the gate every request passes (`safety.Gate`)."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from gitgarden.web import garden, journal, passes, review, run, settings, wiki
from gitgarden.web.safety import Gate
from gitgarden.web.site import Site

__all__ = ["make_app"]


def make_app(site: Site) -> Starlette:
    """The app for one start of `gitgarden serve`: every route behind the gate."""
    routes: list[Route | Mount] = [
        Route(path, endpoint, methods=[method])
        for module in (garden, passes, wiki, journal, review, run, settings)
        for path, endpoint, method in module.ROUTES
    ]
    routes.append(Mount("/static", StaticFiles(packages=[("gitgarden.web", "static")]), name="static"))
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Gate, token=site.token, hosts=site.hosts, port=site.port)],
    )
    app.state.site = site
    return app
