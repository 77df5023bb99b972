"""Settings: every setting in force and the layer it comes from (as `gitgarden config list`), and the
model's status (as `gitgarden llm status`): model, endpoint, where the key comes from and whether it
is sent — never the key. Reachability is checked only when asked (it is one small model call)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from gitgarden.project import Project
from gitgarden.web.site import Site, view

__all__ = ["ROUTES"]


def settings_page(site: Site, project: Project, request: Request) -> Response:
    """The settings with their layers, and the model's status (`?probe=1`: is it reachable)."""
    from gitgarden.config import SPECS, env_name
    from gitgarden.model import provider
    from gitgarden.model import status as model_status

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
    status = model_status.status(s, site.env, probe=probe, now=site.now())
    key = provider.key_source(s, site.env)[0]
    if key:  # the key never reaches a page, even inside an endpoint's error message
        status = {k: v.replace(key, "[the key]") if isinstance(v, str) else v for k, v in status.items()}
    return site.page(request, "settings.html", rows=rows, llm=status, warnings=resolved.warnings, probed=probe)


ROUTES = [("/settings", view(settings_page), "GET")]
