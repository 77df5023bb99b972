"""Settings: every setting in force and the layer it comes from (as `gitgarden config list`), and the
model's status (as `gitgarden llm status`): model, endpoint, where the key comes from and whether it
is sent — never the key. Reachability is checked only when asked (it is one small model call)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from gitgarden.config import SPECS, env_name
from gitgarden.project import Project
from gitgarden.services.llm import llm_status
from gitgarden.web.site import Site, view

__all__ = ["ROUTES"]


def settings_page(site: Site, project: Project, request: Request) -> Response:
    """The settings with their layers, and the model's status (`?probe=1`: is it reachable)."""
    resolved = site.settings(project)
    s = resolved.settings
    rows = [
        {
            "key": spec.key,
            "value": getattr(s, spec.key),
            "source": resolved.sources[spec.key],
            "default": spec.default,
            "range": None if spec.lo is None else (spec.type(spec.lo), spec.type(spec.hi)),
            "env": env_name(spec.key),
            "help": spec.help,
        }
        for spec in SPECS
    ]
    probe = request.query_params.get("probe") == "1" and bool(s.model)
    status = llm_status(s, site.env, probe=probe, now=site.now())  # the key never reaches a page
    return site.page(request, "settings.html", rows=rows, llm=status, warnings=resolved.warnings, probed=probe)


ROUTES = [("/settings", view(settings_page), "GET")]
