"""The garden at a glance (home) and its health: what `gitgarden status` and `gitgarden health`
show, read through the same functions, with the health figures of the last passes as a chart; and
the Ask box (`/ask?q=…`: `gitgarden ask`, each citation a link to the page's words and the journal
line)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import Response

from gitgarden.project import Project
from gitgarden.web.render import Links, render_line
from gitgarden.web.shown import chart
from gitgarden.web.site import Site, view

__all__ = ["ROUTES"]

CHARTED = (("pages", "pages"), ("broken links", "broken_links"), ("orphans", "orphans"), ("unmapped", "unmapped"), ("map size", "map_chars"))
CHART_PASSES = 30  # the newest passes with health figures the chart draws


def _health(site: Site, project: Project):  # type: ignore[no-untyped-def]
    """The wiki's health as `gitgarden health` measures it, and the lines set aside."""
    from gitgarden.gardener import setaside
    from gitgarden.store import wikisync
    from gitgarden.store.disktree import DiskTree

    offerable, aside = setaside.on_disk(project.root)
    # Read off the wiki graph in the git dir, as `gitgarden health` does: only changed files are read.
    disk = lambda: DiskTree(project.root, project.layout.wiki_folders())  # noqa: E731
    figures = wikisync.health(project.root, disk, unread_lines=len(offerable), today=site.now().date())
    return figures, [e for _, e in aside]


def _recent(project: Project) -> list[dict[str, Any]]:
    """The newest passes' records, oldest first, from the record files (the newest months of
    `log/`, and this machine's attempts) — what the garden shows of them, without walking git."""
    from gitgarden.history.records import LOG_DIR, read_attempts, records_in
    from gitgarden.project import file_text
    from gitgarden.repo import gitrepo

    folder = project.root / LOG_DIR
    names = sorted(p.name for p in folder.glob("*.jsonl")) if folder.is_dir() and not folder.is_symlink() else []
    found: list[dict[str, Any]] = []
    for name in names[-2:]:  # a month's file holds a month of passes: the chart needs the last 30
        found.extend(records_in(file_text(project.root, f"{LOG_DIR}/{name}") or ""))
    found.extend(read_attempts(gitrepo.git_dir(project.root)))
    passes = [r for r in found if isinstance(r.get("pass_id"), str) and r.get("kind") is None and not r.get("dry_run")]
    return sorted(passes, key=lambda r: str(r.get("started") or ""))


def home(site: Site, project: Project, request: Request) -> Response:
    """Lines waiting, the last pass, what holds the next one back, set-aside lines, Open questions,
    review waiting, and health with its recent course."""
    from gitgarden.gardener import setaside
    from gitgarden.services.overview import project_status
    from gitgarden.services.views import map_view

    status = project_status(project, site.env, site.now())
    aside = [e for _, e in setaside.on_disk(project.root)[1]]
    recent = _recent(project)
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
    figures, aside = _health(site, project)
    return site.page(request, "health.html", h=figures, aside=aside)


_LINK = re.compile(r"\[\[([^\[\]|]+)(?:\|([^\[\]]+))?\]\]")
_FRAGMENT_WORDS = 8


def words_link(page: str, text: str) -> str:
    """The page's URL, scrolled to `text` where the browser reads text fragments
    (`/page/lease#:~:text=The%20rent%20is…`): its first words as the page shows them (a wiki link by
    its shown text)."""
    shown = _LINK.sub(lambda m: m.group(2) or m.group(1), text)
    words = " ".join(shown.replace("*", "").split()[:_FRAGMENT_WORDS])
    return f"/page/{quote(page)}#:~:text={quote(words, safe='')}"


def ask(site: Site, project: Project, request: Request) -> Response:
    """The Ask box's answer: each sentence with links to the page's words and the journal lines it
    cites, the lines themselves, or "Not in the garden" with the nearest pages. Reads only."""
    from gitgarden.services.ask import ask as ask_garden

    question = request.query_params.get("q", "").strip()
    answer = None
    if question:
        settings = site.settings(project).settings
        answer = ask_garden(project, question, env=site.env, now=site.now, model_factory=site.model_factory, settings=settings)
    return site.page(request, "ask.html", question=question, answer=answer, words_link=words_link)


ROUTES = [("/", view(home), "GET"), ("/health", view(health), "GET"), ("/ask", view(ask), "GET")]
