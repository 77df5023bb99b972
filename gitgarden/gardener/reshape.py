"""The operations that reshape the wiki rather than add text to a page: a hub made over pages the
map lists (`promote_to_hub`), a page marked superseded by a newer one (`supersede`), and a page's
body moved into another (`merge`). Pure, like `gardener.operations`, which dispatches to them.
"""

from __future__ import annotations

import re
from typing import Any

from gitgarden.gardener.applied import (
    Applied,
    ApplyContext,
    Refusal,
    cited_days,
    page_text,
    resolve_page,
    unsafe_name,
    with_source,
)
from gitgarden.guard.grounding import content_words
from gitgarden.model.operations import Op
from gitgarden.wiki import hubs, linking, pages, tidy
from gitgarden.wiki.health import duplicate_pair
from gitgarden.wiki.tree import Tree, file

__all__ = ["merge", "promote_to_hub", "supersede"]


def promote_to_hub(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    name = op.get("page")
    path = resolve_page(tree, ctx, name)
    if path is None and ctx.place is not None:
        placed = ctx.place.own_page(name, op.get("title")) if "/" not in name else name
        if not unsafe_name(placed) and pages.page_path(placed) not in tree:
            name = placed  # a new hub goes in the gardener's own folder
    if path is not None and not hubs.is_hub(tree, pages.page_name(path) or ""):
        return Refusal(op, f"{path} exists and is not a hub; a hub is a new page (or an existing hub)")
    children: list[str] = []
    for child in op.get("children"):
        found = resolve_page(tree, ctx, child)
        if found is None or found == pages.map_path() or found == path:
            return Refusal(op, f"child page {child!r} does not exist")
        if pages.page_name(found) not in children:
            children.append(pages.page_name(found) or "")
    map_text = page_text(tree, pages.map_path()) or ""
    open_set = set(pages.open_lines(map_text))
    hub_name = pages.page_name(path) if path is not None else name
    old = page_text(tree, path) if path is not None else None
    held = {lk.target.strip().lower() for lk in linking.find_links(pages.split_frontmatter(old)[1])} if old else set()
    lines, moved = [], set()
    for child in children:
        if child.lower() in held:
            continue
        # The child's map entry moves into the hub word for word; a child without one gets a new line.
        entry = next(
            (ln for ln in map_text.splitlines() if ln.startswith("- [[") and ln not in open_set
             and any(ctx.links is not None and ctx.links.resolve(lk.target) == child for lk in linking.find_links(ln))),
            None,
        )
        if entry is not None:
            moved.add(entry)
            lines.append(entry)
        else:
            title = pages.read_meta(page_text(tree, pages.page_path(child)) or "").get("title") if _safe_meta(tree, child) else None
            lines.append(f"- [[{child}]]" + (f" — {title}" if title and title != child else ""))
    if not lines:
        return Applied(op)  # every child is already in the hub: already there
    hub_path = path or pages.page_path(hub_name or name)
    if old is None:
        writes = {hub_path: file(hubs.hub_page_text(op.get("title"), lines))}
    else:
        writes = {hub_path: file(pages.append_body(old, "\n".join(lines)))}
    kept = "".join(ln for ln in map_text.splitlines(keepends=True) if ln.rstrip("\r\n") not in moved)
    if not any(ctx.links is not None and ctx.links.resolve(lk.target) == hub_name for lk in linking.find_links(kept)) and f"[[{hub_name}]]" not in kept:
        kept = pages.add_map_entries(kept or tidy.MAP_START, [f"- [[{hub_name}]] — {op.get('title')}"])
    if kept != map_text:
        writes[pages.map_path()] = file(kept)
    return Applied(op, writes=writes, created=[hub_path] if old is None else [])


def _meta_or_none(text: str) -> dict[str, Any] | None:
    try:
        return pages.read_meta(text)
    except pages.PageError:
        return None


def supersede(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    path, newer = resolve_page(tree, ctx, op.get("page")), resolve_page(tree, ctx, op.get("by"))
    if path is None or newer is None or pages.map_path() in (path, newer) or path == newer:
        return Refusal(op, "the page and the page that supersedes it must be two existing pages")
    old = page_text(tree, path)
    meta = None if old is None else _meta_or_none(old)
    if old is None or meta is None:
        return Refusal(op, f"{path} has no frontmatter that parses; it is left as it is")
    by = pages.page_name(newer) or ""
    if meta.get("superseded_by"):
        return Applied(op)  # already there
    unnamed = _not_named(path, meta, [ctx.offered[i].text for i in op.lines])
    if unnamed:
        return Refusal(op, unnamed)
    agents = sorted(i for i in op.lines if i in ctx.agent_lines)
    line = None
    if meta.get("state") == "decided":  # a decided page is never edited: the question goes to the map
        line = f"- [[{pages.page_name(path)}]] is decided, but [[{by}]] may supersede it"
    elif agents and not pages.is_gardeners(meta):
        # Only the person's own line marks their page: an agent's (whatever name its client gave) asks.
        line = f"- [[{pages.page_name(path)}]] is your page; a line an agent captured ({', '.join(agents)}) says [[{by}]] supersedes it"
    if line is not None:
        map_text = page_text(tree, pages.map_path()) or ""
        if line in pages.open_lines(map_text):
            return Applied(op)
        return Applied(op, writes={pages.map_path(): file(pages.add_open_line(map_text, line))})
    nl = pages.newline_of(old)
    new = with_source(pages.patch_meta(old, {"superseded_by": f'"[[{by}]]"'}), cited_days(op, ctx))
    block, body = pages.split_frontmatter(new)
    new = block + f"> Superseded by [[{by}]].{nl}" + (nl if body.strip() else "") + body
    return Applied(op, writes={path: file(new)})


def _not_named(path: str, meta: dict[str, Any], cited: list[str]) -> str | None:
    """Why the cited lines may not supersede the page at `path`, or None. They must be about it: a
    word of its title (or name) for a page of the gardener's; the page itself — its whole title,
    name or an alias — for a page of the person's, which a pass never marks on a guess."""
    name = pages.page_name(path) or path
    title = str(meta.get("title") or name.rsplit("/", 1)[-1])
    said = " ".join(cited)
    if pages.is_gardeners(meta):
        if set(content_words(f"{title} {name.rsplit('/', 1)[-1].replace('-', ' ')}")) & set(content_words(said)):
            return None
        return f"the cited line(s) do not mention {title!r}: a page is superseded only by a line about it"
    low = " ".join(said.lower().split())
    names = [title, name.rsplit("/", 1)[-1], name.rsplit("/", 1)[-1].replace("-", " "), *map(str, pages.aliases_of(meta))]
    if any(n.strip() and re.search(rf"(?<!\w){re.escape(' '.join(n.lower().split()))}(?!\w)", low) for n in names):
        return None
    return (
        f"{path} is your page, and the cited line(s) do not name it ({title!r}): a person's page is marked "
        "superseded only by a line that names it"
    )


def merge(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    src, dst = resolve_page(tree, ctx, op.get("from")), resolve_page(tree, ctx, op.get("into"))
    if src is None or dst is None or pages.map_path() in (src, dst) or src == dst:
        return Refusal(op, "merge needs two existing pages")
    src_text, dst_text = page_text(tree, src), page_text(tree, dst)
    src_meta = None if src_text is None else _meta_or_none(src_text)
    dst_meta = None if dst_text is None else _meta_or_none(dst_text)
    if src_text is None or dst_text is None or src_meta is None or dst_meta is None:
        return Refusal(op, "both pages need frontmatter that parses")
    src_name, dst_name = pages.page_name(src) or "", pages.page_name(dst) or ""
    if not duplicate_pair((src_name, src_meta), (dst_name, dst_meta)):
        return Refusal(op, f"{src_name} and {dst_name} are not duplicate candidates (`gitgarden health` names those)")
    if "decided" in (src_meta.get("state"), dst_meta.get("state")):
        return Refusal(op, "a decided page is never merged into or out of; the question goes to the Open section")
    block, body = pages.split_frontmatter(src_text)
    if not body.strip() or body.strip() == f"Merged into [[{dst_name}]].":
        return Applied(op)  # already there
    nl = pages.newline_of(src_text)
    title = str(src_meta.get("title") or src_name)
    days = [d for d in pages.source_days(src_meta) if d not in pages.source_days(dst_meta)]
    dst_new = with_source(dst_text, days) if days else dst_text
    dst_new = pages.append_body(dst_new, f"## {title}{nl}{nl}{body.strip(nl)}")
    src_new = block + f"Merged into [[{dst_name}]].{nl}"
    return Applied(op, writes={src: file(src_new), dst: file(dst_new)}, merges={src: dst}, appended=[dst])


def _safe_meta(tree: Tree, name: str) -> bool:
    try:
        pages.read_meta(page_text(tree, pages.page_path(name)) or "")
    except pages.PageError:
        return False
    return True
