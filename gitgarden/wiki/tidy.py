"""The work a pass does without a model, as pure functions over trees.

Page titles and aliases, what the map reaches, map entries within its
ceiling, first-mention link wrapping, pages over budget, and the existing
pages a journal line mentions (offered to the model as duplicate candidates).
No I/O: the pass hands in its trees.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from gitgarden.wiki import journal, linking, pages
from gitgarden.wiki.facts import page_facts, resolved_targets
from gitgarden.wiki.tree import Entry, Tree, file, text_of

# The map a pass starts when a vault has none (what `gitgarden init` writes, minus the prose).
MAP_START = "# Map\n\n## Pages\n\n## Open\n"
# A word as a whole-word mention bounds it (linking._word_at: letters, digits, `_`; re's \w is the same set).
_WORD = re.compile(r"\w+")

__all__ = [
    "HUB_KEY",
    "LEGACY_HUB",
    "is_hub",
    "hub_pages",
    "hub_page_text",
    "prune_into_hubs",
    "read_text",
    "page_titles",
    "link_index",
    "reachable",
    "wrap_mentions",
    "map_entries",
    "over_budget",
    "candidates",
    "is_gardeners",
    "person_pages",
]


HUB_KEY = "hub"  # frontmatter `hub: true`: a page that gathers others (an overview line and a list of links)
LEGACY_HUB = "map-pages"  # the single hub earlier passes pruned the map into


def read_text(tree: Tree, path: str) -> str | None:
    """A tree entry's text, or None when absent or not UTF-8 text."""
    entry = tree.get(path)
    return None if entry is None else text_of(entry)


def page_titles(tree: Tree) -> dict[str, tuple[str, list[str]]]:
    """page name -> (title, aliases) for every page (the map excluded)."""
    out: dict[str, tuple[str, list[str]]] = {}
    for path in tree:
        name = pages.page_name(path)
        if name is None or path == pages.map_path():
            continue
        found = page_facts(tree, path)
        if found is None and tree[path].kind == "symlink":
            continue  # never read through, so no page: the map lists none, as health counts none
        title, aliases = name.rsplit("/", 1)[-1], []
        if found is not None:
            meta = found.meta or {}
            title = str(meta.get("title") or title)
            aliases = pages.aliases_of(meta)
        out[name] = (title, aliases)
    return out


def link_index(titles: Mapping[str, tuple[str, list[str]]]) -> linking.LinkIndex:
    """Resolves links to the pages of `titles` (and the map), by name, title or alias."""
    return linking.LinkIndex(list(titles) + [pages.map_name()], {n: [t, *a] for n, (t, a) in titles.items()})


def reachable(tree: Tree, index: linking.LinkIndex) -> set[str]:
    """Pages reachable from the map through links (directly or through hub pages)."""
    seen = {pages.map_name()}
    todo = [pages.map_path()]
    while todo:
        path = todo.pop()
        found = page_facts(tree, path) if path in tree else None
        if found is None:
            continue
        for _, name in resolved_targets(index, found, pages.page_name(path) or ""):
            if name and name not in seen:
                seen.add(name)
                todo.append(pages.page_path(name))
    return seen


def wrap_mentions(tree: Tree, paths: list[str], titles: Mapping[str, tuple[str, list[str]]]) -> dict[str, Entry]:
    """In each of `paths`, wrap the first unlinked mention of each other page's title.

    Longest titles first. Every title was once tried on every page (a pass over 5,000 pages
    spent minutes here); now a page tries only the titles whose first and last words stand in
    it as whole words, which every whole-word mention needs, in the same order.
    """
    writes: dict[str, Entry] = {}
    ordered = sorted(titles.items(), key=lambda kv: -len(kv[1][0]))
    by_first: dict[str, list[tuple[int, str]]] = {}
    always: list[int] = []  # a phrase starting or ending in punctuation: tried on every page
    for i, (_name, (title, aliases)) in enumerate(ordered):
        for phrase in {title, *aliases}:
            if len(phrase) < 3:
                continue
            words = _WORD.findall(phrase)
            if words and phrase.startswith(words[0]) and phrase.endswith(words[-1]):
                by_first.setdefault(words[0], []).append((i, words[-1]))
            else:
                always.append(i)
    for path in paths:
        text = read_text(tree, path)
        if text is None or path == pages.map_path():
            continue
        me = pages.page_name(path)
        new = text
        _, body = pages.split_frontmatter(text)
        linked = {lk.target.strip().lower() for lk in linking.find_links(body)}
        for md in linking.find_md_links(body):  # a page linked by a Markdown link is linked already
            where = posixpath.normpath(posixpath.join(linking.folder_of(me or ""), md.path.lstrip("/")))
            linked |= {where.removesuffix(".md").lower(), md.path.rsplit("/", 1)[-1].removesuffix(".md").lower()}
        # A wrap adds only link syntax around a mention already there: the body's words stand for it.
        tokens = set(_WORD.findall(body))
        tried = sorted({i for w in tokens & by_first.keys() for i, last in by_first[w] if last in tokens}.union(always))
        for name, (title, aliases) in (ordered[i] for i in tried):
            if name == me or name.lower() in linked or name.rsplit("/", 1)[-1].lower() in linked:
                continue
            for phrase in (title, *aliases):
                if len(phrase) < 3 or phrase not in body:
                    continue
                wrapped = linking.wrap_first_mention(new, phrase, name)
                if wrapped is not None:
                    new = wrapped
                    body = pages.split_frontmatter(new)[1]
                    linked.add(name.lower())
                    break
        if new != text:
            writes[path] = file(new)
    return writes


def _entry_line(name: str, titles: Mapping[str, tuple[str, list[str]]]) -> str:
    title = titles[name][0] if name in titles else name
    return f"- [[{name}]]" + (f" — {title}" if title and title != name else "")


def map_entries(
    tree: Tree, titles: Mapping[str, tuple[str, list[str]]], skip: set[str]
) -> tuple[dict[str, Entry], list[str], list[str]]:
    """Entries for pages the map and its hubs do not list, orphans first: (writes, names added to
    the map itself, names that found no place).

    Entries go to the map while it has room under its ceiling; the rest go to
    the hub of their folder (or initial), made when missing, and the map lists
    that hub — so every page is reached through at most one hub. A page the
    map reaches only through other pages still gets an entry while there is
    room; past the ceiling, reachable is enough. A name finds no place when
    the map has no room even for its hub's line (a prune makes room).
    """
    old = read_text(tree, pages.map_path())
    if old is None:
        if pages.map_path() in tree or not titles:
            return {}, [], []  # a map that is not text is the person's to mend; no pages, no map
        old = ""  # an existing vault without a map: the pass starts one
    index = link_index(titles)
    listed = {index.resolve(lk.target) for lk in linking.find_links(old)}
    listed |= {index.resolve_md(md.path, "") for md in linking.find_md_links(old)}
    unlisted = [n for n in titles if n not in listed and pages.page_path(n) not in skip]
    if not unlisted:
        return {}, [], []
    holders = hub_pages(tree, titles)
    held = {page for listed in holders.values() for page in listed}
    unlisted = [n for n in unlisted if n not in held]
    if not unlisted:
        return {}, [], []
    reached = reachable(tree, index)
    new, added, left = old or MAP_START, [], []
    everything = pages.add_map_entries(new, [_entry_line(n, titles) for n in unlisted if n not in reached])
    for name in sorted(unlisted, key=lambda n: (n in reached, n)):
        candidate = pages.add_map_entries(new, [_entry_line(name, titles)])
        if len(everything) > pages.MAP_CEILING and name not in reached:
            left.append(name)  # not all fit: the map keeps its room for hubs' lines
            continue
        if len(candidate) > pages.MAP_CEILING and len(candidate) > len(old):
            continue  # past the ceiling, reachable is enough
        new = candidate
        added.append(name)
    writes: dict[str, Entry] = {}
    by_hub: dict[str, tuple[str, list[str]]] = {}
    for name in left:
        hub, title = _group_hub(name)
        if hub == name or (pages.page_path(hub) in tree and not is_hub(tree, hub)) or pages.page_path(hub) in skip:
            continue
        by_hub.setdefault(hub, (title, []))[1].append(name)
    unplaced = [n for n in left if all(n not in names for _, names in by_hub.values())]
    for hub, (title, names) in sorted(by_hub.items()):
        lines = [_entry_line(n, titles) for n in names]
        path = pages.page_path(hub)
        hub_text = read_text(tree, path)
        if hub not in listed:
            candidate = pages.add_map_entries(new, [f"- [[{hub}]] — {titles.get(hub, (title, []))[0]}"])
            if len(candidate) > pages.MAP_CEILING and len(candidate) > len(old):
                unplaced.extend(names)
                continue
            new = candidate
        writes[path] = file(hub_page_text(title, lines) if hub_text is None else pages.append_body(hub_text, "\n".join(lines)))
    if new != old:
        writes[pages.map_path()] = file(new)
    return writes, added, unplaced


def is_hub(tree: Tree, name: str) -> bool:
    """True for a page marked `hub: true` (and the legacy `map-pages`)."""
    if name == LEGACY_HUB:
        return pages.page_path(name) in tree
    found = page_facts(tree, pages.page_path(name)) if pages.page_path(name) in tree else None
    return found is not None and found.meta is not None and found.meta.get(HUB_KEY) is True


def hub_pages(tree: Tree, titles: Mapping[str, tuple[str, list[str]]]) -> dict[str, set[str]]:
    """hub name -> the pages it links to (resolved)."""
    index = link_index(titles)
    out: dict[str, set[str]] = {}
    for name in titles:
        if is_hub(tree, name):
            found = page_facts(tree, pages.page_path(name))
            targets = resolved_targets(index, found, name) if found is not None else iter(())
            out[name] = {n for _, n in targets if n and n != name}
    return out


def hub_page_text(title: str, lines: list[str]) -> str:
    """A new hub page: code-written frontmatter (`hub: true`), an overview line, its list of links."""
    text = pages.new_page(title, f"{title}: the pages this hub gathers.\n\n" + "\n".join(lines) + "\n")
    return pages.patch_meta(text, {HUB_KEY: "true"})


def _group_hub(name: str) -> tuple[str, str]:
    """The hub a page's map entry goes to when no hub holds it yet: its folder's, else its initial's."""
    if "/" in name:
        folder = name.rsplit("/", 1)[0]
        key = "-".join(part for part in "".join(c if c.isalnum() else "-" for c in folder.lower()).split("-") if part)
        return f"map-{key or 'folder'}", f"Pages in {folder}"
    first = name[:1].lower()
    key = first if "a" <= first <= "z" else "other"
    return f"map-{key}", "Pages: other" if key == "other" else f"Pages: {key.upper()}"


def prune_into_hubs(tree: Tree, titles: Mapping[str, tuple[str, list[str]]], map_text: str) -> dict[str, Entry]:
    """Move the map's entry lines, word for word, into the hub each page belongs to.

    A page's hub is the hub that already links to it, else the hub of its folder
    (or, at the top, of its initial), made when missing. The map keeps its prose,
    its Open section and one line per hub, so every page stays reachable through
    at most one hub.
    """
    index = link_index(titles)
    holders = hub_pages(tree, titles)
    held_by = {page: hub for hub, listed in sorted(holders.items()) for page in listed}
    open_set = set(pages.open_lines(map_text))
    moves: dict[str, list[str]] = {}
    new_titles: dict[str, str] = {}
    for line in map_text.splitlines():
        if not line.startswith("- [[") or line in open_set:
            continue
        links = linking.find_links(line)
        target = index.resolve(links[0].target) if links else None
        if target is None or target in holders:
            continue  # a hub's own entry stays: the map lists hubs
        hub = held_by.get(target)
        if hub is None:
            hub, title = _group_hub(target)
            if hub == target:
                continue
            new_titles.setdefault(hub, title)
        moves.setdefault(hub, []).append(line)
    if not moves:
        return {}
    writes: dict[str, Entry] = {}
    moved = {ln for lines in moves.values() for ln in lines}
    nl = pages.newline_of(map_text)
    kept = "".join(ln for ln in map_text.splitlines(keepends=True) if ln.rstrip("\r\n") not in moved)
    listed = {index.resolve(lk.target) for lk in linking.find_links(kept)}
    hub_lines = []
    for hub, lines in sorted(moves.items()):
        path = pages.page_path(hub)
        old = read_text(tree, path)
        if old is None:
            title = new_titles.get(hub) or hub
            writes[path] = file(hub_page_text(title, lines))
        else:
            title = titles.get(hub, (hub, []))[0]
            writes[path] = file(pages.append_body(old, "\n".join(lines)))
        if hub not in listed:
            hub_lines.append(f"- [[{hub}]] — {title}")
    new_map = pages.add_map_entries(kept, hub_lines)
    if nl == "\r\n" and "\r\n" not in new_map:
        new_map = new_map.replace("\n", nl)
    writes[pages.map_path()] = file(new_map)
    return writes


def is_gardeners(tree: Tree, path: str) -> bool:
    """True when the page at `path` is the gardener's own (a pass created it; see pages.GARDENER_KEY)."""
    if path not in tree:
        return False
    found = page_facts(tree, path)
    return found is not None and pages.is_gardeners(found.meta)


def person_pages(base: Tree, paths: list[str] | set[str]) -> set[str]:
    """Which of `paths` are the person's pages in `base`: existing pages (not the map) no pass created."""
    return {
        p for p in paths
        if p in base and p != pages.map_path() and pages.page_name(p) is not None and not is_gardeners(base, p)
    }


def over_budget(tree: Tree) -> list[str]:
    """Pages (the map excluded) longer than the page budget."""
    out = []
    for path in tree:
        if pages.page_name(path) and path != pages.map_path():
            found = page_facts(tree, path)
            if found is not None and found.chars > pages.PAGE_BUDGET:
                out.append(path)
    return out


def candidates(offered: list[journal.JournalLine], titles: Mapping[str, tuple[str, list[str]]]) -> dict[str, list[str]]:
    """line id -> existing pages whose name, title or an alias the line mentions: offered to the
    model as pages to append to instead of creating a near-duplicate."""
    from gitgarden.wiki.health import norm_words  # the same reduction health uses for duplicates

    by_first: dict[str, dict[str, set[str]]] = {}  # first word -> key -> pages: no scan of every title per line
    for name, (title, aliases) in titles.items():
        for label in (name.rsplit("/", 1)[-1].replace("-", " "), title, *aliases):
            key = norm_words(label)
            if len(key) >= 3:
                by_first.setdefault(key.split()[0], {}).setdefault(key, set()).add(name)
    out: dict[str, list[str]] = {}
    for line in offered:
        norm = norm_words(line.text)
        text = f" {norm} "
        found: set[str] = set()
        for word in set(norm.split()):
            for key, names in by_first.get(word, {}).items():
                if f" {key} " in text:
                    found |= names
        if found:
            out[line.id] = sorted(found)[:5]
    return out
