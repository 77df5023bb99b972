"""The run panel: start a pass (jobs, "rehearse only" = `--dry-run`, `--retry`), watch its steps and
tokens live (the page polls a small JSON; without script it reloads), and stop it — or any pass
holding the lock, as `gitgarden stop` does."""

from __future__ import annotations

import getpass
import socket

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gitgarden.project import Project
from gitgarden.services.run import JOBS, running, stop
from gitgarden.services.views import NotFound
from gitgarden.web.passes import diff_files
from gitgarden.web.site import Site, action, view
from gitgarden.wiki import layout

__all__ = ["ROUTES"]


def _holder(project: Project) -> dict[str, object] | None:
    return running(project)


def panel(site: Site, project: Project, request: Request) -> Response:
    """The form that starts a pass, the pass holding the lock (with Stop), and this server's runs."""
    settings = site.settings(project).settings
    runs = sorted(site.runs.runs.values(), key=lambda r: r.started, reverse=True)
    return site.page(request, "run.html", jobs=JOBS, holder=_holder(project), runs=runs, model=settings.model, review=settings.review)


def _run(site: Site, request: Request):  # type: ignore[no-untyped-def]
    run = site.runs.runs.get(request.path_params["run_id"])
    if run is None:
        raise NotFound("this server started no such run (runs are kept while it serves; `gitgarden log` has every pass)")
    return run


def run_page(site: Site, project: Project, request: Request) -> Response:
    """One run: its steps as they come, then its outcome and what it wrote."""
    run = _run(site, request)
    result = run.result or {}
    files = diff_files(str(result.get("diff") or "")) if run.dry_run else []
    here = layout.current()
    # What it wrote, each path with the page it is (a link, once it stands in the wiki).
    wrote = [
        (label, [(path, None if run.dry_run else here.page_name(path)) for path in result.get(label) or []])
        for label in ("created", "appended", "split", "tidied")
        if result.get(label)
    ]
    return site.page(request, "run_one.html", run=run, state=run.to_json(), result=result, holder=_holder(project), files=files, wrote=wrote)


def run_status(site: Site, project: Project, request: Request) -> Response:
    """What the panel's script polls."""
    return JSONResponse(_run(site, request).to_json())


def start_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden run [--dry-run] [--retry] [--job …]`, in a thread of the server."""
    jobs = [j for j in JOBS if form.get(f"job-{j}") == "1"]
    run = site.runs.start(dry_run=form.get("dry_run") == "1", retry=form.get("retry") == "1", jobs=[] if len(jobs) == len(JOBS) else jobs)
    return site.back(f"/run/{run.id}")


def stop_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden stop`: the pass holding the lock stops within a second and writes nothing more."""
    back = form.get("back") or "/run"
    if not back.startswith("/") or back.startswith("//"):
        back = "/run"
    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "someone"
    holder = stop(project, who=f"{user}@{socket.gethostname()} (browser)", when=site.now())
    if holder is None:
        return site.back(back, "No pass is running: nothing to stop.")
    return site.back(back, f"Asked pass {holder.get('pass_id', '?')} to stop; it stops within a second and writes nothing more.")


ROUTES = [
    ("/run", view(panel), "GET"),
    ("/run/start", action(start_post), "POST"),
    ("/run/stop", action(stop_post), "POST"),
    ("/run/{run_id}", view(run_page), "GET"),
    ("/run/{run_id}/status", view(run_status), "GET"),
]
