"""The work a pass does without a model, as pure functions over trees.

Page titles and aliases, what the map reaches, map entries within its
ceiling, first-mention link wrapping, pages over budget, and the existing
pages a journal line mentions (offered to the model as duplicate candidates).
No I/O: the pass hands in its trees.
"""

from __future__ import annotations

from collections.abc import Mapping

from gitgarden import journal, wiki
from gitgarden.facts import page_facts
from gitgarden.tree import Entry, Tree, file, text_of

# The map a pass starts when a vault has none (what `gitgarden init` writes, minus the prose).
MAP_START = "# Map\n\n## Pages\n\n## Open\n"

__all__ = [
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


def read_text(tree: Tree, path: str) -> str | None:
    """A tree entry's text, or None when absent or not UTF-8 text."""
    entry = tree.get(path)
    return None if entry is None else text_of(entry)


def page_titles(tree: Tree) -> dict[str, tuple[str, list[str]]]:
    """page name -> (title, aliases) for every page (the map excluded)."""
    out: dict[str, tuple[str, list[str]]] = {}
    for path in tree:
        name = wiki.page_name(path)
        if name is None or path == wiki.MAP_PATH:
            continue
        found = page_facts(tree, path)
        title, aliases = name.rsplit("/", 1)[-1], []
        if found is not None:
            meta = found.meta or {}
            title = str(meta.get("title") or title)
            aliases = wiki.aliases_of(meta)
        out[name] = (title, aliases)
    return out


def link_index(titles: Mapping[str, tuple[str, list[str]]]) -> wiki.LinkIndex:
    """Resolves links to the pages of `titles` (and the map), by name, title or alias."""
    return wiki.LinkIndex(list(titles) + ["index"], {n: [t, *a] for n, (t, a) in titles.items()})


def reachable(tree: Tree, index: wiki.LinkIndex) -> set[str]:
    """Pages reachable from the map through links (directly or through hub pages)."""
    seen = {"index"}
    todo = [wiki.MAP_PATH]
    while todo:
        path = todo.pop()
        found = page_facts(tree, path) if path in tree else None
        if found is None:
            continue
        for target in found.targets:
            name = index.resolve(target)
            if name and name not in seen:
                seen.add(name)
                todo.append(wiki.page_path(name))
    return seen


def wrap_mentions(tree: Tree, paths: list[str], titles: Mapping[str, tuple[str, list[str]]]) -> dict[str, Entry]:
    """In each of `paths`, wrap the first unlinked mention of each other page's title."""
    writes: dict[str, Entry] = {}
    for path in paths:
        text = read_text(tree, path)
        if text is None or path == wiki.MAP_PATH:
            continue
        me = wiki.page_name(path)
        new = text
        _, body = wiki.split_frontmatter(text)
        linked = {lk.target.strip().lower() for lk in wiki.find_links(body)}
        for name, (title, aliases) in sorted(titles.items(), key=lambda kv: -len(kv[1][0])):
            if name == me or name.lower() in linked or name.rsplit("/", 1)[-1].lower() in linked:
                continue
            for phrase in (title, *aliases):
                if len(phrase) < 3 or phrase not in body:
                    continue
                wrapped = wiki.wrap_first_mention(new, phrase, name)
                if wrapped is not None:
                    new = wrapped
                    body = wiki.split_frontmatter(new)[1]
                    linked.add(name.lower())
                    break
        if new != text:
            writes[path] = file(new)
    return writes


def map_entries(tree: Tree, titles: Mapping[str, tuple[str, list[str]]], skip: set[str]) -> tuple[dict[str, Entry], list[str]]:
    """Map entries for pages the map does not list, orphans first, within the map's ceiling.

    A page the map reaches only through other pages still gets an entry while
    there is room; past the ceiling, reachable is enough.
    """
    old = read_text(tree, wiki.MAP_PATH)
    if old is None:
        if wiki.MAP_PATH in tree or not titles:
            return {}, []  # a map that is not text is the person's to mend; no pages, no map
        old = ""  # an existing vault without a map: the pass starts one
    index = link_index(titles)
    listed = {index.resolve(lk.target) for lk in wiki.find_links(old)}
    unlisted = [n for n in titles if n not in listed and wiki.page_path(n) not in skip]
    if not unlisted or len(old) + min(len(f"- [[{n}]]\n") for n in unlisted) > wiki.MAP_CEILING:
        return {}, []  # nothing to list, or no entry can fit: skip walking every page's links
    reached = reachable(tree, index)
    missing = sorted(unlisted, key=lambda n: (n in reached, n))
    new, added = old or MAP_START, []
    for name in missing:
        title = titles[name][0]
        line = f"- [[{name}]]" + (f" — {title}" if title and title != name else "")
        candidate = wiki.add_map_entries(new, [line])
        if len(candidate) > wiki.MAP_CEILING and len(candidate) > len(old):
            continue
        new = candidate
        added.append(name)
    return ({wiki.MAP_PATH: file(new)} if new != old else {}), added


def is_gardeners(tree: Tree, path: str) -> bool:
    """True when the page at `path` is the gardener's own (a pass created it; see wiki.GARDENER_KEY)."""
    if path not in tree:
        return False
    found = page_facts(tree, path)
    return found is not None and wiki.is_gardeners(found.meta)


def person_pages(base: Tree, paths: list[str] | set[str]) -> set[str]:
    """Which of `paths` are the person's pages in `base`: existing pages (not the map) no pass created."""
    return {
        p for p in paths
        if p in base and p != wiki.MAP_PATH and wiki.page_name(p) is not None and not is_gardeners(base, p)
    }


def over_budget(tree: Tree) -> list[str]:
    """Pages (the map excluded) longer than the page budget."""
    out = []
    for path in tree:
        if wiki.page_name(path) and path != wiki.MAP_PATH:
            found = page_facts(tree, path)
            if found is not None and found.chars > wiki.PAGE_BUDGET:
                out.append(path)
    return out


def candidates(offered: list[journal.JournalLine], titles: Mapping[str, tuple[str, list[str]]]) -> dict[str, list[str]]:
    """line id -> existing pages whose name, title or an alias the line mentions: offered to the
    model as pages to append to instead of creating a near-duplicate."""
    from gitgarden.health import _norm  # the same reduction health uses for duplicates

    by_first: dict[str, dict[str, set[str]]] = {}  # first word -> key -> pages: no scan of every title per line
    for name, (title, aliases) in titles.items():
        for label in (name.rsplit("/", 1)[-1].replace("-", " "), title, *aliases):
            key = _norm(label)
            if len(key) >= 3:
                by_first.setdefault(key.split()[0], {}).setdefault(key, set()).add(name)
    out: dict[str, list[str]] = {}
    for line in offered:
        norm = _norm(line.text)
        text = f" {norm} "
        found: set[str] = set()
        for word in set(norm.split()):
            for key, names in by_first.get(word, {}).items():
                if f" {key} " in text:
                    found |= names
        if found:
            out[line.id] = sorted(found)[:5]
    return out
