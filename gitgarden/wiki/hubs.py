"""The map's entries and its hubs: every page reached from the map, the map under its ceiling.

The map lists first the pages nothing else reaches — one page of each group of
pages that no other unreached page links to, so one entry reaches a whole
chain — and, while it has room to spare, pages reached only through others.
Only when those entries cannot all fit under the ceiling does code make hubs:
pages marked `hub: true` that gather entries, in the gardener's own folder
(`placement`), never one for fewer than three pages, one hub when one page
holds them all, and none when `auto_hubs` is off. A full map is pruned the same
way: its entry lines move, word for word, into hubs.

Pure: trees in, writes out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gitgarden.wiki import linking, pages
from gitgarden.wiki.facts import page_facts, resolved_targets
from gitgarden.wiki.placement import Placement, of_tree
from gitgarden.wiki.tidy import MAP_START, link_index, reachable, read_text
from gitgarden.wiki.tree import Entry, Tree, file

__all__ = [
    "HUB_KEY",
    "LEGACY_HUB",
    "MIN_HUB",
    "is_hub",
    "hub_pages",
    "hub_page_text",
    "map_entries",
    "prune_into_hubs",
]

HUB_KEY = "hub"  # frontmatter `hub: true`: a page that gathers others (an overview line and a list of links)
LEGACY_HUB = "map-pages"  # the single hub earlier passes pruned the map into
MIN_HUB = 3  # a hub code makes gathers at least this many pages: never a hub for one or two
# Pages the map reaches through others get entries only while the map stays this short: the rest
# of its room waits for pages nothing reaches, which would otherwise need a hub.
_FILL = pages.MAP_CEILING * 3 // 4
_HUB_ROOM = pages.PAGE_BUDGET - 400  # a hub's entry lines stop short of the page budget (title, overview)

Titles = Mapping[str, tuple[str, list[str]]]


def is_hub(tree: Tree, name: str) -> bool:
    """True for a page marked `hub: true` (and the legacy `map-pages`)."""
    if name == LEGACY_HUB:
        return pages.page_path(name) in tree
    found = page_facts(tree, pages.page_path(name)) if pages.page_path(name) in tree else None
    return found is not None and found.meta is not None and found.meta.get(HUB_KEY) is True


def hub_pages(tree: Tree, titles: Titles, index: linking.LinkIndex | None = None) -> dict[str, set[str]]:
    """hub name -> the pages it links to (resolved through `index`, else one made of `titles`)."""
    if index is None:
        index = link_index(titles)
    out: dict[str, set[str]] = {}
    for name in titles:
        # is_hub, with each page's path and facts looked up once: this visits every page.
        path = pages.page_path(name)
        found = page_facts(tree, path) if path in tree else None
        hub = found is not None and found.meta is not None and found.meta.get(HUB_KEY) is True
        if hub or (name == LEGACY_HUB and path in tree):
            targets = resolved_targets(index, found, name) if found is not None else iter(())
            out[name] = {n for _, n in targets if n and n != name}
    return out


def hub_page_text(title: str, lines: list[str]) -> str:
    """A new hub page: code-written frontmatter (`hub: true`), an overview line, its list of links."""
    text = pages.new_page(title, f"{title}: the pages this hub gathers.\n\n" + "\n".join(lines) + "\n")
    return pages.patch_meta(text, {HUB_KEY: "true"})


def _entry_line(name: str, titles: Titles) -> str:
    title = titles[name][0] if name in titles else name
    return f"- [[{name}]]" + (f" — {title}" if title and title != name else "")


def _hub_line(hub: str, title: str) -> str:
    return f"- [[{hub}]] — {title}"


def _group(name: str) -> tuple[str, str]:
    """(key, title) of the hub a page's entry goes to among several: its folder's, else its initial's."""
    if "/" in name:
        folder = name.rsplit("/", 1)[0]
        key = "-".join(part for part in "".join(c if c.isalnum() else "-" for c in folder.lower()).split("-") if part)
        return key or "folder", f"Pages in {folder}"
    first = name[:1].lower()
    key = first if "a" <= first <= "z" else "other"
    return key, "Pages: other" if key == "other" else f"Pages: {key.upper()}"


def _roots(tree: Tree, index: linking.LinkIndex, names: list[str]) -> list[str]:
    """The entries that reach every page of `names` (pages the map does not reach): one page of
    each group that no other page of `names` links to (a source of their link graph), the groups
    that reach most first. Every page of `names` is reachable from one of them."""
    wanted = set(names)
    graph: dict[str, list[str]] = {}
    for name in sorted(names):
        found = page_facts(tree, pages.page_path(name))
        linked = resolved_targets(index, found, name) if found is not None else iter(())
        graph[name] = sorted({t for _, t in linked if t is not None and t in wanted and t != name})
    comp, count = _components(graph)
    members: list[list[str]] = [[] for _ in range(count)]
    below: list[set[int]] = [set() for _ in range(count)]
    has_in: set[int] = set()
    for n, outs in graph.items():
        members[comp[n]].append(n)
        for t in outs:
            if comp[t] != comp[n]:
                below[comp[n]].add(comp[t])
                has_in.add(comp[t])
    # Tarjan numbers a group after every group it reaches: one sweep counts what each reaches
    # (pages reached along two ways counted twice: this only orders the entries).
    reach = [0] * count
    for c in range(count):
        reach[c] = len(members[c]) + sum(reach[b] for b in below[c])
    # Within a group, the page linking to most others stands for it (a "Start here" note).
    picks = [(c, min(members[c], key=lambda n: (-len(graph[n]), n))) for c in range(count) if c not in has_in]
    return [pick for _, pick in sorted(picks, key=lambda cp: (-reach[cp[0]], cp[1]))]


def _components(graph: Mapping[str, list[str]]) -> tuple[dict[str, int], int]:
    """Strongly connected components (Tarjan's, without recursion): (page -> component number, how
    many). A component is numbered after every component it reaches."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    comp: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    number = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = graph[node]
            if i < len(targets):
                work.append((node, i + 1))
                nxt = targets[i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = number
                    if w == node:
                        break
                number += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return comp, number


def _groups(
    tree: Tree, items: list[tuple[str, str]], place: Placement, held_by: Mapping[str, str] | None = None
) -> tuple[dict[str, tuple[str, list[str]]], list[str]]:
    """Entry lines (page, line) gathered into hubs: ({hub: (title, lines)}, pages left without one).

    A page an existing hub links to goes there. The rest go to one hub when one page holds them
    all (the hub of their folder or initial when they share one, else "More pages"); otherwise to
    the hub of their folder (or initial), the groups under three pages together, a group too big
    for one page in numbered hubs. A hub of fewer than three pages is never made; a name that is
    the person's page (no hub) is never taken.
    """
    out: dict[str, tuple[str, list[str]]] = {}
    left: list[str] = []
    rest: list[tuple[str, str]] = []
    for name, line in items:
        hub = (held_by or {}).get(name)
        if hub is not None:
            out.setdefault(hub, ("", []))[1].append(line)
        else:
            rest.append((name, line))
    if not rest:
        return out, left
    keyed: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for name, line in rest:
        keyed.setdefault(_group(name), []).append((name, line))
    if sum(len(line) + 1 for _, line in rest) <= _HUB_ROOM:
        only = next(iter(keyed)) if len(keyed) == 1 else ("more", "More pages")
        keyed = {only: rest}
    else:
        small = [it for key, its in keyed.items() if len(its) < MIN_HUB for it in its]
        keyed = {key: its for key, its in keyed.items() if len(its) >= MIN_HUB}
        if small:
            keyed.setdefault(("other", "Pages: other"), []).extend(small)
    for (key, title), its in sorted(keyed.items()):
        chunks: list[list[tuple[str, str]]] = [[]]
        size = 0
        for it in its:
            if chunks[-1] and size + len(it[1]) + 1 > _HUB_ROOM:
                chunks.append([])
                size = 0
            chunks[-1].append(it)
            size += len(it[1]) + 1
        for n, chunk in enumerate(chunks, 1):
            hub_key, hub_title = (key, title) if n == 1 else (f"{key}-{n}", f"{title} ({n})")
            hub = place.hub_name(hub_key, hub_title)
            path = pages.page_path(hub)
            exists = path in tree
            if (exists and not is_hub(tree, hub)) or (not exists and len(chunk) < MIN_HUB) or pages.page_name(path) != hub:
                left.extend(name for name, _ in chunk)  # the person's page of that name, or too few
                continue
            out.setdefault(hub, (hub_title, []))[1].extend(line for _, line in chunk)
    return out, left


def _write_hubs(
    tree: Tree, titles: Titles, groups: Mapping[str, tuple[str, list[str]]]
) -> dict[str, Entry]:
    """The hub pages' new texts: made, or the lines appended to the hub that exists."""
    writes: dict[str, Entry] = {}
    for hub, (title, lines) in sorted(groups.items()):
        path = pages.page_path(hub)
        old = read_text(tree, path)
        shown = titles.get(hub, (title or hub, []))[0]
        writes[path] = file(hub_page_text(shown, lines) if old is None else pages.append_body(old, "\n".join(lines)))
    return writes


def _gardeners(tree: Tree, name: str) -> bool:
    found = page_facts(tree, pages.page_path(name)) if pages.page_path(name) in tree else None
    return found is not None and pages.is_gardeners(found.meta)


def map_entries(
    tree: Tree, titles: Titles, skip: Iterable[str], place: Placement | None = None
) -> tuple[dict[str, Entry], list[str], list[str]]:
    """Entries for the pages the map and its hubs do not list: (writes, names given an entry — in
    the map or a hub —, names that found no place).

    The pages nothing reaches come first (`_roots`): when their entries all fit under the
    ceiling they go to the map, and pages reached only through others get entries while the
    map stays under three quarters of it. Otherwise they gather in hubs (`_groups`) the map
    lists, and the map keeps its room. A name finds no place when code may make no hub for it
    (`auto_hubs` off, fewer than three pages) or the map has no room even for its hub's line;
    a prune makes room.
    """
    skip = set(skip)
    old = read_text(tree, pages.map_path())
    if old is None:
        if pages.map_path() in tree or not titles:
            return {}, [], []  # a map that is not text is the person's to mend; no pages, no map
        old = ""  # an existing vault without a map: the pass starts one
    index = link_index(titles)
    listed = {index.resolve(lk.target) for lk in linking.find_links(old)}
    listed |= {index.resolve_md(md.path, "") for md in linking.find_md_links(old)}
    holders = hub_pages(tree, titles, index)
    held = {page for pages_ in holders.values() for page in pages_}
    unlisted = [n for n in titles if n not in listed and n not in held and pages.page_path(n) not in skip]
    if not unlisted:
        return {}, [], []
    place = place or of_tree(tree)
    reached = reachable(tree, index)
    roots = _roots(tree, index, [n for n in unlisted if n not in reached])
    # The map's room goes to the gardener's subjects and the Open questions first: its pages come
    # first, and the person's own notes take the map only while it stays under the fill mark;
    # else they gather in hubs (a vault's notes stay reachable through its own notes and folders).
    ours = [n for n in roots if _gardeners(tree, n)]
    theirs = [n for n in roots if n not in ours]
    new, added, unplaced = old or MAP_START, [], []
    everything = pages.add_map_entries(new, [_entry_line(n, titles) for n in roots])
    writes: dict[str, Entry] = {}
    if len(everything) > (pages.MAP_CEILING if not theirs else _FILL):
        roots = ours + theirs  # no room for all: the gardener's first
    if len(everything) <= (pages.MAP_CEILING if not theirs else _FILL):
        new, added = everything, list(roots)
    elif not place.auto_hubs or len(roots) < MIN_HUB:
        for name in roots:  # what fits goes to the map; health names the rest as unmapped
            candidate = pages.add_map_entries(new, [_entry_line(name, titles)])
            if len(candidate) <= pages.MAP_CEILING:
                new = candidate
                added.append(name)
            else:
                unplaced.append(name)
    else:
        groups, unplaced = _groups(tree, [(n, _entry_line(n, titles)) for n in roots], place)
        for hub, (title, lines) in sorted(groups.items()):
            if hub not in listed:
                candidate = pages.add_map_entries(new, [_hub_line(hub, titles.get(hub, (title, []))[0])])
                if len(candidate) > pages.MAP_CEILING:
                    unplaced.extend(n for n, line in ((n, _entry_line(n, titles)) for n in roots) if line in lines)
                    continue
                new = candidate
            writes.update(_write_hubs(tree, titles, {hub: (title, lines)}))
        placed = {p for p in roots if p not in unplaced}
        added = [n for n in roots if n in placed]
    # The gardener's pages reached through others: entries while the map has room to spare, the
    # pages that link to most others first. The person's notes reached through others need none.
    rooted = set(roots)
    # An entry only makes the map longer: a map already at the fill mark takes none, and the
    # pages are not sorted (every unlisted page's facts read) to find that out.
    rest = [n for n in unlisted if n not in rooted and _gardeners(tree, n)] if len(new) < _FILL else []
    for name in sorted(rest, key=lambda n: (-_links_out(tree, n), n)):
        candidate = pages.add_map_entries(new, [_entry_line(name, titles)])
        if len(candidate) <= _FILL:
            new = candidate
            added.append(name)
    if new != old:
        writes[pages.map_path()] = file(new)
    return writes, added, unplaced


def _links_out(tree: Tree, name: str) -> int:
    found = page_facts(tree, pages.page_path(name))
    return 0 if found is None else len(found.targets) + len(found.md_targets)


def prune_into_hubs(tree: Tree, titles: Titles, map_text: str, place: Placement | None = None) -> dict[str, Entry]:
    """Move the map's entry lines, word for word, into the hubs their pages belong to.

    A page's hub is the hub that already links to it, else as `_groups` gathers them (in the
    gardener's folder, made when missing, none for fewer than three pages: those lines stay).
    The map keeps its prose, its Open section and one line per hub, so every page stays
    reachable through at most one hub. Nothing when `auto_hubs` is off.
    """
    place = place or of_tree(tree)
    if not place.auto_hubs:
        return {}
    index = link_index(titles)
    holders = hub_pages(tree, titles, index)
    held_by = {page: hub for hub, listed in sorted(holders.items()) for page in listed}
    open_set = set(pages.open_lines(map_text))
    items: list[tuple[str, str]] = []
    for line in map_text.splitlines():
        if not line.startswith("- [[") or line in open_set:
            continue
        links = linking.find_links(line)
        target = index.resolve(links[0].target) if links else None
        if target is None or target in holders:
            continue  # a hub's own entry stays: the map lists hubs
        items.append((target, line))
    groups, _left = _groups(tree, items, place, held_by)
    if not groups:
        return {}
    moved = {ln for _, lines in groups.values() for ln in lines}
    nl = pages.newline_of(map_text)
    kept = "".join(ln for ln in map_text.splitlines(keepends=True) if ln.rstrip("\r\n") not in moved)
    listed = {index.resolve(lk.target) for lk in linking.find_links(kept)}
    writes = _write_hubs(tree, titles, groups)
    hub_lines = [_hub_line(hub, titles.get(hub, (title or hub, []))[0]) for hub, (title, _) in sorted(groups.items()) if hub not in listed]
    new_map = pages.add_map_entries(kept, hub_lines)
    if nl == "\r\n" and "\r\n" not in new_map:
        new_map = new_map.replace("\n", nl)
    writes[pages.map_path()] = file(new_map)
    return writes
