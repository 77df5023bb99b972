"""The wiki: its pages, one page rendered with its links resolved as Obsidian resolves them, its
backlinks, and beside every paragraph a pass wrote the journal lines it came from (provenance);
the map with its Open questions; the wiki's attachments, served from inside the layout only."""

from __future__ import annotations

import mimetypes
from urllib.parse import quote

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response

from gitgarden.project import Project
from gitgarden.services.views import find_page, map_view, page_body
from gitgarden.services.wikiview import PageRow
from gitgarden.web.render import Links, page_url, render_blocks, render_line
from gitgarden.web.safety import attachment_path
from gitgarden.web.site import Site, view
from gitgarden.wiki import pages

__all__ = ["ROUTES", "PageRow"]

# Served in the browser; anything else is downloaded, never run or shown as a page of the app.
INLINE = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".avif", ".svg", ".pdf", ".mp3", ".ogg", ".wav", ".mp4", ".webm", ".txt"}


def page_list(site: Site, project: Project, request: Request) -> Response:
    """Every page: name, title, state, whose, size."""
    with site.wiki.held(project.layout) as picture:
        rows = picture.rows()
    map_name = pages.map_name()
    counted = sum(1 for r in rows if r.name != map_name)  # as health counts pages: the map apart
    return site.page(request, "pages.html", rows=rows, counted=counted, map_name=map_name, budget=pages.PAGE_BUDGET)


def page_view(site: Site, project: Project, request: Request) -> Response:
    """One page, rendered; each paragraph a pass wrote carries its journal lines and its pass."""
    asked = request.path_params["name"]
    with site.wiki.held(project.layout) as picture:
        found = find_page(project, asked, picture=picture)
        index = picture.links
    if found.name != asked:  # a human name, an alias, another letter case: the page's own address
        return RedirectResponse(page_url(found.name), status_code=307)
    here = project.layout
    folder = found.name.rsplit("/", 1)[0] if "/" in found.name else ""
    links = Links(index, folder=folder, wiki_prefix=here.wiki_prefix, read=lambda name: _body(project, name))
    sources = site.sources.page_sources(project.root, found.name, found.text)
    blocks = render_blocks(found.body, links, sources)
    is_map = found.name == pages.map_name()
    return site.page(
        request,
        "page.html",
        p=found,
        blocks=blocks,
        traced=sum(len(b.sources) for b in blocks),
        broken=sorted(set(links.broken)),
        is_map=is_map,
        open_questions=[Markup(render_line(q, links)) for q in map_view(project)[1]] if is_map else [],
        chars=len(found.text),
        budget=pages.PAGE_BUDGET,
    )


def _body(project: Project, name: str) -> str | None:
    """The body of page `name`, for an embed (`services.views.page_body`)."""
    return page_body(project, name)


def map_page(site: Site, project: Project, request: Request) -> Response:
    """The map is a page: its own address."""
    return RedirectResponse(page_url(pages.map_name()), status_code=307)


def attachment(site: Site, project: Project, request: Request) -> Response:
    """An attachment of the wiki (an image a page embeds, a PDF it links), checked by `safety`."""
    path = attachment_path(project.root, project.layout, request.path_params["rel"])
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    inline = path.suffix.lower() in INLINE
    headers = {"content-disposition": "inline" if inline else f"attachment; filename*=UTF-8''{quote(path.name)}"}
    if path.suffix.lower() == ".svg":
        headers["content-security-policy"] = "sandbox; default-src 'none'; style-src 'unsafe-inline'"  # an SVG runs no script
    return FileResponse(path, media_type=kind if inline else "application/octet-stream", headers=headers)


ROUTES = [
    ("/pages", view(page_list), "GET"),
    ("/page/{name:path}", view(page_view), "GET"),
    ("/map", view(map_page), "GET"),
    ("/file/{rel:path}", view(attachment), "GET"),
]
