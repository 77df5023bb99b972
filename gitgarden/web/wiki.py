"""The wiki: its pages, one page rendered with its links resolved as Obsidian resolves them, its
backlinks, and beside every paragraph a pass wrote the journal lines it came from (provenance);
the map with its Open questions; the wiki's attachments, served from inside the layout only."""

from __future__ import annotations

import mimetypes
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response

from gitgarden.project import Project
from gitgarden.web.render import Links, page_url, render_blocks, render_line
from gitgarden.web.safety import attachment_path
from gitgarden.web.site import Site, view

__all__ = ["ROUTES", "PageRow"]

# Served in the browser; anything else is downloaded, never run or shown as a page of the app.
INLINE = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".avif", ".svg", ".pdf", ".mp3", ".ogg", ".wav", ".mp4", ".webm", ".txt"}


@dataclass(frozen=True)
class PageRow:
    """A page in the list: its name, title, state, whose it is, its size."""

    name: str
    title: str
    state: str
    gardeners: bool
    chars: int


def _survey(site: Site, project: Project) -> tuple[list[PageRow], Any]:
    """Every page with its figures, and the link index of the wiki (names, aliases, attachments),
    from one listing of the wiki; a page is re-read only when it changed since the server last
    read it, or since a pass did (the facts cache passes keep, loaded once, never written here)."""
    from gitgarden.services.views import wiki_tree
    from gitgarden.wiki import layout, linking, pages
    from gitgarden.wiki.facts import page_facts

    with site.facts() as cache:
        return _listed(wiki_tree(project, cache), layout.current(), linking, pages, page_facts)


def _page_and_index(site: Site, project: Project, asked: str) -> tuple[Any, Any]:
    """The page `asked` names (`find_page`) and the link index of the wiki, from one listing of the
    wiki and the facts the server keeps between requests."""
    from gitgarden.services.views import find_page, wiki_tree
    from gitgarden.wiki import layout, linking, pages
    from gitgarden.wiki.facts import page_facts

    with site.facts() as cache:
        tree = wiki_tree(project, cache)
        found = find_page(project, asked, tree=tree)
        if found.name != asked:
            return found, None  # the caller redirects: no index needed
        return found, _listed(tree, layout.current(), linking, pages, page_facts)[1]


def _listed(tree: Any, here: Any, linking: Any, pages: Any, page_facts: Any) -> tuple[list[PageRow], Any]:
    rows: list[PageRow] = []
    aliases: dict[str, list[str]] = {}
    files: list[str] = []
    for path in tree:
        name = pages.page_name(path)
        if name is None:
            if pages.is_attachment(path):
                files.append(here.wiki_relative(path))
            continue
        facts = page_facts(tree, path)
        if facts is None:
            continue  # a symlink: never read through, so no page
        meta = facts.meta or {}
        aliases[name] = pages.aliases_of(meta)
        state = meta.get("state")
        rows.append(PageRow(name, str(meta.get("title") or name.rsplit("/", 1)[-1]), state if isinstance(state, str) else "", pages.is_gardeners(meta), facts.chars))
    return sorted(rows, key=lambda r: r.name.lower()), linking.LinkIndex([r.name for r in rows], aliases, attachments=files)


def page_list(site: Site, project: Project, request: Request) -> Response:
    """Every page: name, title, state, whose, size."""
    from gitgarden.wiki import pages

    rows, _ = _survey(site, project)
    return site.page(request, "pages.html", rows=rows, map_name=pages.map_name(), budget=pages.PAGE_BUDGET)


def page_view(site: Site, project: Project, request: Request) -> Response:
    """One page, rendered; each paragraph a pass wrote carries its journal lines and its pass."""
    from gitgarden.services.views import map_view
    from gitgarden.wiki import layout, pages

    asked = request.path_params["name"]
    found, index = _page_and_index(site, project, asked)
    if found.name != asked:  # a human name, an alias, another letter case: the page's own address
        return RedirectResponse(page_url(found.name), status_code=307)
    here = layout.current()
    folder = found.name.rsplit("/", 1)[0] if "/" in found.name else ""
    links = Links(index, folder=folder, wiki_prefix=here.wiki_prefix)
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


def map_page(site: Site, project: Project, request: Request) -> Response:
    """The map is a page: its own address."""
    from gitgarden.wiki import pages

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
