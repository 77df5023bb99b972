"""The journal: its day files, each line read, unread or set aside (and why), and a capture box
that appends to today's journal exactly as `gitgarden capture` does (never a commit)."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from gitgarden.project import Project
from gitgarden.services.capture import capture
from gitgarden.services.views import journal_day, journal_days, waiting
from gitgarden.web.shown import url_part
from gitgarden.web.site import Site, action, view

__all__ = ["ROUTES"]

SHOWN_UNREAD = 200  # the waiting lines listed on the journal's page (a pass offers at most 200)


def journal_home(site: Site, project: Project, request: Request) -> Response:
    """The capture box, the lines waiting for a pass, the lines set aside, and every day file."""
    unread, aside = waiting(project)
    today = f"{site.now().astimezone():%Y-%m-%d}"
    return site.page(
        request,
        "journal.html",
        days=journal_days(project),
        unread=unread[:SHOWN_UNREAD],
        unread_count=len(unread),
        aside=aside,
        today=today,
        journal_dir=project.layout.journal_dir,
    )


def journal_page(site: Site, project: Project, request: Request) -> Response:
    """One day's lines, each with its id and where it stands."""
    day = request.path_params["day"]
    lines = journal_day(project, day)
    days = journal_days(project)
    at = days.index(day) if day in days else -1
    newer = days[at - 1] if at > 0 else None
    older = days[at + 1] if 0 <= at < len(days) - 1 else None
    counts = {state: sum(1 for ln in lines if ln.state == state) for state in ("read", "unread", "set aside")}
    return site.page(request, "day.html", day=day, lines=lines, newer=newer, older=older, counts=counts, today=f"{site.now().astimezone():%Y-%m-%d}")


def capture_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden capture TEXT`: one journal line per non-empty line, appended to today's day file."""
    done = capture(project, form.get("text", ""), site.now())
    return site.back(f"/journal/{url_part(Path(done.file).stem)}", " ".join([done.message, *(f"Warning: {w}." for w in done.warnings)]))


ROUTES = [
    ("/journal", view(journal_home), "GET"),
    ("/journal/capture", action(capture_post), "POST"),
    ("/journal/{day}", view(journal_page), "GET"),
]
