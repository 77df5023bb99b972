"""The journal: its day files, each line with where it stands and why (on a page, skipped and why,
unread after a failed request and what failed, set aside), a "Read again" for each read line
(`gitgarden reread LINE-ID`), and a capture box that appends to today's journal exactly as
`gitgarden capture` does (never a commit)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from gitgarden.project import Project
from gitgarden.services.capture import capture
from gitgarden.services.lines import read_again
from gitgarden.services.views import LineView, journal_day, journal_days, waiting, with_story
from gitgarden.web.shown import url_part
from gitgarden.web.site import Site, action, view
from gitgarden.wiki import journal

__all__ = ["ROUTES"]

SHOWN_UNREAD = 200  # the waiting lines listed on the journal's page (a pass offers at most 200)
SAID_ONCE = 3  # lines left unread for the same reason from which the reason is said once, above them


def journal_home(site: Site, project: Project, request: Request) -> Response:
    """The capture box, the lines waiting for a pass, the lines set aside, and every day file."""
    unread, aside = waiting(project)
    today = f"{site.now().astimezone():%Y-%m-%d}"
    stories = site.stories.get(project.root)
    shown = [with_story(LineView(ln.id, ln.day, ln.lineno, ln.text, "unread"), stories) for ln in unread[:SHOWN_UNREAD]]
    return site.page(
        request,
        "journal.html",
        days=journal_days(project),
        unread=shown,
        shared=_shared(shown),
        unread_count=len(unread),
        aside=aside,
        today=today,
        journal_dir=project.layout.journal_dir,
    )


def journal_page(site: Site, project: Project, request: Request) -> Response:
    """One day's lines, each with its id and where it stands."""
    day = request.path_params["day"]
    lines = journal_day(project, day, site.stories.get(project.root))
    days = journal_days(project)
    at = days.index(day) if day in days else -1
    newer = days[at - 1] if at > 0 else None
    older = days[at + 1] if 0 <= at < len(days) - 1 else None
    counts = {state: sum(1 for ln in lines if ln.state == state) for state in ("read", "unread", "set aside")}
    counts.update({kind: sum(1 for ln in lines if ln.detail == kind) for kind in ("on a page", "skipped", "failed")})
    shared = _shared(lines)
    return site.page(
        request, "day.html", day=day, lines=lines, newer=newer, older=older, counts=counts, shared=shared,
        today=f"{site.now().astimezone():%Y-%m-%d}",
    )  # fmt: skip


def _shared(lines: list[LineView]) -> dict[str, int]:
    """The reasons several unread lines share, with how many: one failed pass leaves every line it
    offered unread for the same reason, said once above them rather than on every line."""
    told = Counter(ln.reason for ln in lines if ln.state == "unread" and ln.detail)
    return {reason: n for reason, n in told.items() if n >= SAID_ONCE}


def capture_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden capture TEXT`: one journal line per non-empty line, appended to today's day file."""
    done = capture(project, form.get("text", ""), site.now())
    return site.back(f"/journal/{url_part(Path(done.file).stem)}", " ".join([done.message, *(f"Warning: {w}." for w in done.warnings)]))


def reread_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden reread LINE-ID`: one line unread again (a set-aside one offered again), in a commit of
    the person's with a record; no pass is undone. Under the pass lock, so no pass reads meanwhile."""
    line = form.get("line", "").strip()
    parsed = journal.parse_id(line)
    if parsed is None:
        return site.back("/journal", f"Nothing changed: {line[:40]!r} is not a line id (DAY#LINE).")
    day = line.partition("#")[0]
    with site.exclusive(project, f"reread {line}"):
        result = read_again(project, [line], now=site.now())
    back = f"/journal/{url_part(day)}#l{line.partition('#')[2]}"
    if not result.lines:
        return site.back(back, f"Line {line} was already unread: nothing changed.")
    return site.back(back, f"Line {line} is unread again (commit {result.commit[:10]}): the next pass offers it. No pass was undone.")


ROUTES = [
    ("/journal", view(journal_home), "GET"),
    ("/journal/capture", action(capture_post), "POST"),
    ("/journal/reread", action(reread_post), "POST"),
    ("/journal/{day}", view(journal_page), "GET"),
]
