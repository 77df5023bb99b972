"""Review (with `review = true`): each waiting pass with its diff, accepted or rejected one at a time
or all at once (`gitgarden review accept|reject [PASS]`), and the per-kind figures the prompt
learns from."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from gitgarden.project import Project
from gitgarden.web.passes import diff_files
from gitgarden.web.site import Site, action, view

__all__ = ["ROUTES"]


def review_page(site: Site, project: Project, request: Request) -> Response:
    """The waiting passes, oldest first (the order they stack in), each with its own diff."""
    from gitgarden.history.passlog import review_decisions, show
    from gitgarden.history.review import REVIEW_BRANCH, review_status

    status = review_status(project.root)
    shown = []
    for entry in reversed(status.passes):
        one = show(project.root, entry.pass_id)
        files = diff_files(one.diff)
        shown.append((entry, [f for f in files if getattr(f, "is_page", False)], one.record or {}))
    on = site.settings(project).settings.review
    return site.page(
        request,
        "review.html",
        shown=shown,
        branch=REVIEW_BRANCH,
        on=on,
        # The figures read every pass: only where review is in use (on, or passes still wait).
        decisions=review_decisions(project.root) if on or shown else {},
    )


def accept_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden review accept [PASS]`."""
    from gitgarden.history import review

    one = form.get("pass") or None
    with site.exclusive(project, "review accept"):
        result = review.accept(project.root, one)
    if result is None:
        return site.back("/review", "Nothing waits for review.")
    if one is None:
        return site.back("/review", f"Accepted {len(result.passes)} pass(es) ({result.kind}).")
    return site.back("/review", f"Accepted pass {result.passes[0]} ({result.kind}); {len(result.waiting)} pass(es) still wait.")


def reject_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden review reject [PASS] [--keep-read]`: the lines come back unread unless kept read."""
    from gitgarden.history import review

    one = form.get("pass") or None
    reread = form.get("keep_read") != "1"
    with site.exclusive(project, "review reject"):
        result = review.reject(project.root, reread=reread, now=site.now(), pass_ref=one)
    if result is None:
        return site.back("/review", "Nothing waits for review.")
    lines = "Their journal lines are unread again." if reread else "Their journal lines stay read."
    what = f"pass {result.passes[0]}" if one else f"{len(result.passes)} pass(es)"
    return site.back("/review", f"Dropped {what}; {len(result.waiting)} pass(es) still wait. {lines}")


ROUTES = [
    ("/review", view(review_page), "GET"),
    ("/review/accept", action(accept_post), "POST"),
    ("/review/reject", action(reject_post), "POST"),
]
