"""Review (with `review = true`): each waiting pass with its items, accepted or rejected one at a
time or all at once (`gitgarden review accept|reject [PASS]`) or item by item (`review accept PASS
--only N…`: each new page, append, link, split and map entry ticked or not), and the per-kind
figures the prompt learns from."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from gitgarden.errors import GitgardenError
from gitgarden.history import review
from gitgarden.history.passlog import review_decisions, show
from gitgarden.history.review import REVIEW_BRANCH, review_status
from gitgarden.project import Project
from gitgarden.services.review import accept_items, items_of
from gitgarden.web.passes import diff_files
from gitgarden.web.site import Site, action, view

__all__ = ["ROUTES"]


def review_page(site: Site, project: Project, request: Request) -> Response:
    """The waiting passes, oldest first (the order they stack in), each with its own diff."""
    status = review_status(project.root)
    shown = []
    for entry in reversed(status.passes):
        one = show(project.root, entry.pass_id)
        files = diff_files(one.diff)
        try:
            items = items_of(project.root, entry.pass_id).items
        except GitgardenError:  # not a commit of its own on the branch: whole passes only
            items = []
        shown.append((entry, [f for f in files if getattr(f, "is_page", False)], one.record or {}, items))
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
    one = form.get("pass") or None
    reread = form.get("keep_read") != "1"
    with site.exclusive(project, "review reject"):
        result = review.reject(project.root, reread=reread, now=site.now(), pass_ref=one)
    if result is None:
        return site.back("/review", "Nothing waits for review.")
    lines = "Their journal lines are unread again." if reread else "Their journal lines stay read."
    what = f"pass {result.passes[0]}" if one else f"{len(result.passes)} pass(es)"
    return site.back("/review", f"Dropped {what}; {len(result.waiting)} pass(es) still wait. {lines}")


def items_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden review accept PASS --only N… [--keep-read]`: the items ticked, as one commit."""
    pass_id = form.get("pass", "")
    taken = {int(k.removeprefix("item-")) for k, v in form.items() if k.startswith("item-") and k[5:].isdigit() and v == "1"}
    keep_read = form.get("keep_read") == "1"
    with site.exclusive(project, f"review accept {pass_id} (items)"):
        result = accept_items(project.root, pass_id, taken, keep_read=keep_read)
    said = f"Took item(s) {', '.join(map(str, result.taken))} of pass {result.pass_id} ({'commit ' + result.commit[:10] if result.kind != 'fast-forward' else 'fast-forward'}); {len(result.waiting)} pass(es) still wait."
    if result.followed:
        said += f" Map entr{'y' if len(result.followed) == 1 else 'ies'} {', '.join(map(str, result.followed))} left out with their page."
    if result.rejected:
        lines = "stay read" if keep_read else (f"{len(result.unread)} journal line(s) are unread again" if result.unread else "no journal line came back")
        said += f" Left out: {', '.join(map(str, result.rejected))}; {lines}."
    return site.back("/review", said)


ROUTES = [
    ("/review", view(review_page), "GET"),
    ("/review/accept", action(accept_post), "POST"),
    ("/review/reject", action(reject_post), "POST"),
    ("/review/items", action(items_post), "POST"),
]
