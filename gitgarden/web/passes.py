"""The passes (as `gitgarden log --json` lists them), one pass (as `gitgarden show`: its record, each
refusal with its rule and words, its diff per page) and its undo (exactly `gitgarden undo PASS`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from gitgarden.history.passlog import passes, show
from gitgarden.history.undo import undo
from gitgarden.project import Project, file_text
from gitgarden.services.views import NotFound
from gitgarden.web.shown import refusal, split_diff, url_part
from gitgarden.web.site import Site, action, view
from gitgarden.wiki import journal, layout, names

__all__ = ["ROUTES", "diff_files"]


def pass_list(site: Site, project: Project, request: Request) -> Response:
    """Every pass, newest first: when, who asked, outcome, lines, pages, tokens and cost, health."""
    return site.page(request, "passes.html", entries=passes(project.root))


def diff_files(diff: str) -> list[object]:
    """A pass's diff as files, pages first (as `show` orders them), each page named."""
    here = layout.current()
    return list(split_diff(diff, here.page_name))


def _lines(record: dict[str, object] | None, key: str) -> list[str]:
    value = (record or {}).get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def pass_page(site: Site, project: Project, request: Request) -> Response:
    """One pass: its record, refusals, skipped lines and its diff per page; Undo when it can be undone."""
    shown = show(project.root, request.path_params["pass_id"])
    entry, record = shown.entry, shown.record or {}
    files = diff_files(shown.diff)
    undoable = bool(entry.commit) and not entry.undone_by and entry.review != "waiting"
    return site.page(
        request,
        "pass.html",
        e=entry,
        record=record,
        refusals=[refusal(r) for r in _lines(record, "refusals")],
        pages=[f for f in files if getattr(f, "is_page", False)],
        others=[f for f in files if not getattr(f, "is_page", False)],
        undoable=undoable,
        lists=[(label, _lines(record, key)) for label, key in (("created", "created"), ("appended", "appended"), ("split", "split"), ("tidied", "tidied"))],
        not_cited=_lines(record, "not_cited"),
        set_aside=_lines(record, "set_aside"),
        skipped=_skipped(record),
        grounding=[g for g in record.get("grounding") or [] if isinstance(g, dict)],
        hints=_lines(record, "hints"),
        failure=_failure(record),
        left_unread=_left_unread(project, entry.outcome, record),
    )


REPLY_SHOWN = 400  # characters of a failed reply the pass's page shows (the record keeps more)
_ENDED = frozenset({"failed", "refused", "stopped", "stood_down"})


def _failure(record: dict[str, object]) -> dict[str, str]:
    """Why a pass failed, as its record keeps it (`failure`, newer records), the reply shortened."""
    value = record.get("failure")
    if not isinstance(value, dict):
        return {}
    out = {k: str(v) for k, v in value.items() if isinstance(v, str | int | float) and str(v)}
    reply = out.get("reply", "")
    out["reply_shown"] = reply if len(reply) <= REPLY_SHOWN else reply[:REPLY_SHOWN] + "…"
    out["reply_chars"] = str(len(reply))
    return out


def _left_unread(project: Project, outcome: str, record: dict[str, object]) -> list[tuple[str, str, str]]:
    """(line id, its words now, why) for each line the pass left unread: those its record lists as
    `unread` (newer records), else every line a failed or stopped pass offered, then the not-cited ones."""
    why: dict[str, str] = {}
    listed = record.get("unread")
    for item in listed if isinstance(listed, list) else []:
        if isinstance(item, dict) and isinstance(item.get("line"), str):
            why.setdefault(item["line"], str(item.get("reason") or ""))
    if outcome in _ENDED:
        for line in _lines(record, "offered"):
            why.setdefault(line, "")
    for line in _lines(record, "not_cited"):
        why.setdefault(line, "no operation that landed cited it")
    texts: dict[str, str] = {}
    for day in sorted({line.partition("#")[0] for line in why}):
        text = file_text(project.root, project.layout.day_path(day)) if names.is_day(day) else None
        texts.update((ln.id, ln.text) for ln in journal.parse_day(day, text or ""))
    return [(line, texts.get(line, ""), reason) for line, reason in why.items()]


def pass_record(site: Site, project: Project, request: Request) -> Response:
    """The pass's record as it is kept (`log/` or the git dir's attempts), as JSON: what the page shortens."""
    from starlette.responses import JSONResponse


    shown = show(project.root, request.path_params["pass_id"])
    if shown.record is None:
        raise NotFound(f"pass {shown.entry.pass_id} has no record here (older passes kept only their commit)")
    return JSONResponse(shown.record, headers={"content-disposition": "inline"})


def _skipped(record: dict[str, object]) -> list[tuple[str, str, str]]:
    """The lines a pass skipped, with the reason it gave and their words, when its record holds them."""
    value = record.get("skipped")
    out: list[tuple[str, str, str]] = []
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                out.append((str(item.get("line") or item.get("id") or ""), str(item.get("reason") or ""), str(item.get("text") or "")))
            else:
                out.append((str(item), "", ""))
    elif isinstance(value, dict):
        out = [(str(k), str(v), "") for k, v in value.items()]
    return out


def undo_confirm(site: Site, project: Project, request: Request) -> Response:
    """What undoing the pass would do, and the button that does it (this page changes nothing)."""
    shown = show(project.root, request.path_params["pass_id"])
    return site.page(request, "undo.html", e=shown.entry, pages=[f for f in diff_files(shown.diff) if getattr(f, "is_page", False)])


def undo_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden undo PASS [--reread]`, under the pass lock so no pass writes meanwhile."""
    pass_id = request.path_params["pass_id"]
    reread = form.get("reread") == "1"
    with site.exclusive(project, f"undo {pass_id}"):
        result = undo(project.root, pass_id, reread=reread, now=site.now())
    lines = f"{result.unread} journal line(s) are unread again." if reread else "The journal lines it read stay read."
    note = f"Undid pass {result.pass_id} in commit {result.commit[:10]}: {len(result.restored)} file(s) put back. {lines}"
    return site.back(f"/pass/{url_part(result.pass_id)}", note)


ROUTES = [
    ("/passes", view(pass_list), "GET"),
    ("/pass/{pass_id}", view(pass_page), "GET"),
    ("/pass/{pass_id}/record", view(pass_record), "GET"),
    ("/pass/{pass_id}/undo", view(undo_confirm), "GET"),
    ("/pass/{pass_id}/undo", action(undo_post), "POST"),
]
