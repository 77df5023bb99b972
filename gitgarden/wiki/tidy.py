"""The work a pass does without a model, as pure functions over trees.

Page titles and aliases, what the map reaches, first-mention link wrapping,
pages over budget, and the existing pages a journal line mentions (offered to
the model as duplicate candidates). The map's entries and its hubs are `hubs`.
No I/O: the pass hands in its trees.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from gitgarden.wiki import journal, layout, linking, pages
from gitgarden.wiki.facts import page_facts
from gitgarden.wiki.tree import Entry, Tree, file, text_of

# The map a pass starts when a vault has none (what `gitgarden init` writes, minus the prose).
MAP_START = "# Map\n\n## Pages\n\n## Open\n"
# A word as a whole-word mention bounds it (linking._word_at: letters, digits, `_`; re's \w is the same set).
_WORD = re.compile(r"\w+")
# The first word of a label as health.norm_words reduces it (lowercase letters and digits).
_FIRST_WORD = re.compile(r"[a-z0-9]+")


def _singular(word: str) -> str:
    """One word as health.norm_words reduces it ("invoices" -> "invoice")."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word

__all__ = [
    "MAP_START",
    "read_text",
    "page_titles",
    "link_index",
    "reachable",
    "wrap_mentions",
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
    page_path = layout.current().page_path  # the layout in force, looked up once: this visits every page
    seen = {pages.map_name()}
    todo = [pages.map_path()]
    while todo:
        path = todo.pop()
        found = page_facts(tree, path) if path in tree else None
        if found is None:
            continue
        names = [index.resolve(target) for target in found.targets]
        if found.md_targets:  # as resolved_targets resolves them: from the page's folder
            folder = linking.folder_of(pages.page_name(path) or "")
            names += [index.resolve_md(md, folder) for md in found.md_targets]
        for name in names:
            if name and name not in seen:
                seen.add(name)
                todo.append(page_path(name))
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

    norms = {line.id: norm_words(line.text) for line in offered}
    # A label is found only through its key's first word standing in a line: a label whose first
    # word stands in none is not reduced at all (a pass looks at every page's labels).
    line_words = {word for norm in norms.values() for word in norm.split()}
    by_first: dict[str, dict[str, set[str]]] = {}  # first word -> key -> pages: no scan of every title per line
    for name, (title, aliases) in titles.items():
        for label in (name.rsplit("/", 1)[-1].replace("-", " "), title, *aliases):
            first = _FIRST_WORD.search(label.lower())
            if first is None or _singular(first.group()) not in line_words:
                continue
            key = norm_words(label)
            if len(key) >= 3:
                by_first.setdefault(key.split()[0], {}).setdefault(key, set()).add(name)
    out: dict[str, list[str]] = {}
    for line in offered:
        norm = norms[line.id]
        text = f" {norm} "
        found: set[str] = set()
        for word in set(norm.split()):
            for key, names in by_first.get(word, {}).items():
                if f" {key} " in text:
                    found |= names
        if found:
            out[line.id] = sorted(found)[:5]
    return out
