"""Verbatim splits: sections of an over-budget page move, word for word, into new pages.

The original keeps its name, the part that is not moved, and a link to each
new part. Parts inherit the parent's `state`, `source` and owner: a part of the
gardener's page is the gardener's, a part of the person's page is theirs (and
goes without frontmatter when the original has none).

`split_in_tree` does a split as it should land in a wiki: parts in the
original's folder, named in the folder's style (human names or slugs), never
taking another page's name or title, and every heading link that pointed into
a moved section rewired to the part, keeping its shown text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from gitgarden.wiki import layout, linking, pages
from gitgarden.wiki.names import is_slug, slugify, unportable_part
from gitgarden.wiki.tree import Tree, text_of

__all__ = ["sections", "split_page", "heading_plan", "part_names", "split_in_tree", "Plan"]

Plan = list[tuple[str, str, list[str]]]  # (part name, title, the `##` headings it takes)

_H2 = re.compile(r"^##(?!#)\s+(.*?)\s*#*\s*$")


def sections(body: str) -> list[tuple[str | None, list[str]]]:
    """The body cut at its `##` headings: (heading text or None for the preamble, lines with endings)."""
    out: list[tuple[str | None, list[str]]] = [(None, [])]
    fence = False
    for line in body.splitlines(keepends=True):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        m = None if fence else _H2.match(line.rstrip("\r\n"))
        if m:
            out.append((m.group(1), [line]))
        else:
            out[-1][1].append(line)
    return out


def heading_plan(text: str, budget: int = pages.PAGE_BUDGET) -> list[tuple[str, str, list[str]]]:
    """A model-free plan: move `##` sections, largest first, until the page fits its budget."""
    _, body = pages.split_frontmatter(text)
    secs = [(h, "".join(lines)) for h, lines in sections(body) if h is not None]
    if len(secs) < 2 and not (secs and sections(body)[0][1] and "".join(sections(body)[0][1]).strip()):
        return []
    size = len(text)
    plan: list[tuple[str, str, list[str]]] = []
    keep = len(secs) if sections(body)[0][1] and "".join(sections(body)[0][1]).strip() else len(secs) - 1
    for heading, chunk in sorted(secs, key=lambda s: -len(s[1]))[:keep]:
        if size <= budget:
            break
        slug = slugify(heading) or "part"
        plan.append((slug, heading, [heading]))
        size -= len(chunk)
    return plan


def _is_nav(line: str) -> bool:
    return line.startswith("Split into [[")


def split_page(
    path: str, text: str, plan: list[tuple[str, str, list[str]]], links: Mapping[str, str] | None = None
) -> dict[str, str] | str:
    """New texts by path for the original and each part, or a sentence saying why not.

    `links` gives the link text for a part's name (its shortest unambiguous name);
    by default the name itself.
    """
    try:
        meta = pages.read_meta(text)
    except pages.PageError as exc:
        return f"{path} cannot be split: {exc}"
    block, body = pages.split_frontmatter(text)
    nl = pages.newline_of(text)
    secs = sections(body)
    taken: dict[int, str] = {}
    for name, _, headings in plan:
        for heading in headings:
            want = heading.strip().lstrip("#").strip().lower()
            match = [i for i, (h, _) in enumerate(secs) if h is not None and h.lower() == want]
            if not match:
                return f"{path} has no `## {heading}` section"
            if match[0] in taken:
                return f"section {heading!r} is named by two parts"
            taken[match[0]] = name
    kept = [i for i in range(len(secs)) if i not in taken and "".join(secs[i][1]).strip()]
    if not kept:
        return f"{path} would keep no part of its own"
    state = str(meta.get("state", "open"))
    source = pages.source_days(meta)
    owner = pages.is_gardeners(meta)
    out: dict[str, str] = {}
    for name, title, _ in plan:
        moved = "".join(
            line for i, (_, lines) in enumerate(secs) if taken.get(i) == name for line in lines if not _is_nav(line)
        )
        head = ""  # the person's note without frontmatter: its parts get none either
        if block and owner:
            head = pages.new_page(title, "", state=state, source=source, gardener=owner).replace("\n", nl)
        elif block:
            head = _persons_head(meta, title, nl)
        if moved and not moved.endswith("\n"):
            moved += nl
        out[pages.page_path(name)] = head + moved
    # Earlier splits' "Split into" lines stay with the original, whichever section they ended in.
    rest = "".join(line for i, (_, lines) in enumerate(secs) for line in lines if i not in taken or _is_nav(line))
    if rest and not rest.endswith("\n"):
        rest += nl
    shown = links or {}
    links_ = ", ".join(f"[[{shown.get(name, name)}]]" for name, _, _ in plan)
    sep = "" if rest.endswith(nl + nl) or not rest.strip() else nl
    out[path] = block + rest + sep + f"Split into {links_}." + nl
    return out


def _persons_head(meta: Mapping[str, object], title: str, nl: str) -> str:
    """The frontmatter of a part of the person's note: only the keys code knows that the original
    had (`title` as the part's, `state` and `source` as the original's), none when it had none of
    them — never a `state: open` or `source: []` the person did not write."""
    lines = []
    if "title" in meta:
        lines.append(f"title: {pages.yaml_scalar(title)}")
    if "state" in meta:
        lines.append(f"state: {meta['state']}")
    if "source" in meta:
        lines.append(f"source: {pages.render_source(pages.source_days(meta))}")
    return nl.join(["---", *lines, "---", ""]) if lines else ""


# Characters Obsidian (or a common file system) does not allow in a note's name.
_BAD_NAME_CHARS = re.compile(r'[*"\\/<>:|?#^\[\]\x00-\x1f]+')
_SAME_PAGE_LINK = re.compile(r"\[\[#([^\[\]\n]+?)\]\]")


def _human_folder(tree: Tree, folder: str) -> bool:
    """True when most notes of `folder` have human names (spaces, capitals) rather than slugs."""
    names = [
        n.rsplit("/", 1)[-1]
        for p in tree
        if (n := pages.page_name(p)) is not None and p != pages.map_path() and (n.rsplit("/", 1)[0] if "/" in n else "") == folder
    ]
    human = sum(1 for n in names if not is_slug(n))
    return human * 2 > len(names)


def _taken_names(tree: Tree) -> set[str]:
    """Every page's file name, title and alias, and every attachment's file name, in lower case."""
    from gitgarden.wiki.facts import page_facts

    taken: set[str] = set()
    for p in tree:
        name = pages.page_name(p)
        if name is None:
            if pages.is_attachment(p):
                taken.add(p.rsplit("/", 1)[-1].lower())
            continue
        taken.add(name.rsplit("/", 1)[-1].lower())
        found = page_facts(tree, p)
        meta = (found.meta if found is not None else None) or {}
        for label in (meta.get("title"), *pages.aliases_of(meta)):
            if label:
                taken.add(str(label).strip().lower())
    return taken


def part_names(tree: Tree, path: str, headings: list[str]) -> list[tuple[str, str]]:
    """(page name, title) for a part made of each heading: in the original's folder, named in
    the folder's style, and taking no name or title another page (or an earlier part) has."""
    name = pages.page_name(path) or ""
    folder, _, own = name.rpartition("/")
    human = _human_folder(tree, folder)
    taken = _taken_names(tree)
    out: list[tuple[str, str]] = []
    for heading in headings:
        if human:
            base = " ".join(_BAD_NAME_CHARS.sub(" ", heading).split()).strip(". ") or "Part"
            tries = [base, f"{own} - {base}", *(f"{own} - {base} {n}" for n in range(2, 100))]
        else:
            base = slugify(heading) or "part"
            tries = [base, f"{slugify(own) or 'page'}-{base}", *(f"{slugify(own) or 'page'}-{base}-{n}" for n in range(2, 100))]
        # `## Con` must not make con.md: a name Windows cannot check out is never picked.
        pick = next((t for t in tries if t.lower() not in taken and unportable_part(t) is None and _may_name(folder, t)), None)
        if pick is None:
            continue
        taken.add(pick.lower())
        out.append(((f"{folder}/" if folder else "") + pick, pick))
    return out


def _may_name(folder: str, name: str) -> bool:
    """True when `name` in `folder` names a page the layout allows: at the root of a vault a part
    made of `## AGENTS` (or `## Agents`) must not become AGENTS.md, which is never a page."""
    path = pages.page_path((f"{folder}/" if folder else "") + name)
    here = layout.current()
    return here.page_name(path) is not None and here.case_twin(path) is None


def _link_text(names: list[str], name: str) -> str:
    """The shortest link text naming page `name` among `names`: its file name when no other has it."""
    base = name.rsplit("/", 1)[-1].lower()
    clash = any(n != name and n.rsplit("/", 1)[-1].lower() == base for n in names)
    return name if clash else name.rsplit("/", 1)[-1]


def _relink(raw_inner: str, target: str) -> str:
    """A link's inner text pointed at `target`, keeping its anchor, shown text and `\\|` escape."""
    bar = "\\|" if "\\|" in raw_inner else "|"
    inner = raw_inner.replace("\\|", "|")
    head, pipe, shown = inner.partition("|")
    anchor = head.partition("#")[2]
    return f"{target}#{anchor}" + (f"{bar}{shown}" if pipe else "")


def _md_path(raw_path: str, angle: bool, part: str) -> str:
    """A Markdown link's written path pointed at `part` (a page in the original's folder): the
    last segment replaced by the part's file name, written as the link wrote its own (in angle
    brackets as it is, else URL-encoded; with `.md` when it had one)."""
    from urllib.parse import quote

    head, slash, last = raw_path.rpartition("/")
    file_name = part.rsplit("/", 1)[-1] + (".md" if last.lower().endswith(".md") or not last else "")
    return head + slash + (file_name if angle else quote(file_name, safe="()!$&'*+,;=@-._~"))


def _rewire_md(
    text: str, own: str, homes: Mapping[str, str], resolve_md: Callable[[str, str], str | None], original: str, split_page: bool
) -> str:
    """`text` (page `own`) with Markdown heading links into moved sections pointed at their part:
    `[x](Page.md#Heading)` to `[x](Part.md#Heading)`, and the page's own `[x](#Heading)` to the
    page the heading now stands in. The shown text, the anchor and the link's style stay."""
    from urllib.parse import unquote

    spans = linking.code_mask(text) if "`" in text or "~~~" in text else None
    wiki = [(lk.start, lk.end) for lk in linking.find_links(text)]
    out: list[str] = []
    pos = 0
    for m in linking.MD_LINK.finditer(text):
        if (spans is not None and spans[m.start()]) or any(a <= m.start() < b for a, b in wiki):
            continue
        dest = m.group(3)
        angle = dest.startswith("<") and dest.endswith(">")
        inner = dest[1:-1] if angle else dest
        raw_path, hash_, raw_anchor = inner.partition("#")
        if not hash_ or not raw_anchor.strip():
            continue
        home = homes.get(linking.anchor_key(unquote(raw_anchor)))
        if not raw_path.strip():  # the page's own heading (another page's `#Heading` is its own)
            if not split_page:
                continue
            home = home or original
            if home == own:
                continue
            new_path = _md_path("", angle, home)
        else:
            found = linking.md_destination(dest)
            if found is None or home is None or home == original or resolve_md(found[0], linking.folder_of(own)) != original:
                continue
            new_path = _md_path(raw_path, angle, home)
        new_dest = f"<{new_path}#{raw_anchor}>" if angle else f"{new_path}#{raw_anchor}"
        out.append(text[pos : m.start(3)] + new_dest)
        pos = m.end(3)
    return "".join(out) + text[pos:]


def _rewire_text(
    text: str,
    own: str,
    homes: Mapping[str, str],
    resolve: Callable[[str], str | None],
    links: Mapping[str, str],
    resolve_md: Callable[[str, str], str | None] = lambda _p, _f: None,
) -> str:
    """`text` (page `own`) with heading links whose section now lives elsewhere pointed there.

    `homes`: anchor -> the page holding it after the split, for the anchors of the
    original page; `resolve(target)` names the page a link target resolves to
    (the original's name when it pointed there), `resolve_md(path, folder)` the page a
    Markdown link's path names from a folder; `links`: page -> its link text.
    """
    out: list[str] = []
    pos = 0
    original = links.get("", "")
    for lk in linking.find_links(text):
        if not lk.anchor or resolve(lk.target) != original:
            continue
        home = homes.get(linking.anchor_key(lk.anchor))
        if home is None or home == original:
            continue
        out.append(text[pos : lk.start] + "[[" + _relink(text[lk.start + 2 : lk.end - 2], links[home]) + "]]")
        pos = lk.end
    text = "".join(out) + text[pos:]
    if "](" in text:
        text = _rewire_md(text, own, homes, resolve_md, original, own in links)
    # `[[#Heading]]` links within the page itself: point them at the page the heading now stands in.
    # Only in the original and its parts: another page's `[[#Heading]]` names a heading of its own.
    if "[[#" not in text or own not in links:
        return text
    spans = linking.code_mask(text) if "`" in text or "~~~" in text else None
    out, pos = [], 0
    for m in _SAME_PAGE_LINK.finditer(text):
        if spans is not None and spans[m.start()]:
            continue
        inner = m.group(1)
        home = homes.get(linking.anchor_key(inner.replace("\\|", "|").partition("|")[0]), original)
        if home == own:
            continue
        out.append(text[pos : m.start()] + "[[" + _relink("#" + inner, links[home]) + "]]")
        pos = m.end()
    return "".join(out) + text[pos:]


def split_in_tree(
    tree: Tree,
    path: str,
    headings: list[list[str]] | None = None,
    budget: int = pages.PAGE_BUDGET,
    names: list[tuple[str, str]] | None = None,
) -> dict[str, str] | str:
    """Split page `path` of `tree` as it should land: the new texts by path (original, parts,
    and every page whose heading links were rewired), or a sentence saying why not.

    `headings` names the `##` sections of each part; None plans them from the page's
    headings, largest first, until it fits `budget`. `names` gives each part's (file name,
    title), as a model proposes them: the part goes in the original's folder, and a name
    or title another page has is refused; None names them in the folder's style.
    """
    from gitgarden.wiki.facts import page_facts, resolved_targets

    text = text_of(tree[path]) if path in tree else None
    name = pages.page_name(path)
    if text is None or name is None:
        return f"{path} is not a text page"
    groups = headings if headings is not None else [h for _, _, h in heading_plan(text, budget)]
    if not groups:
        return f"{name} has no `##` sections a split could move" if len(text) > budget else f"{name} is within its budget"
    if names is not None:
        folder = name.rpartition("/")[0]
        taken = _taken_names(tree)
        for part, title in names:
            if part.lower() in taken or title.strip().lower() in taken:
                return f"split part {part!r} takes a name or title another page has"
            taken |= {part.lower(), title.strip().lower()}
        names = [((f"{folder}/" if folder else "") + part, title) for part, title in names]
    else:
        names = part_names(tree, path, [g[0] for g in groups])
    if len(names) < len(groups):
        return f"no free name for a part of {name}"
    plan: Plan = [(n, title, g) for (n, title), g in zip(names, groups, strict=True)]
    all_names = [n for p in tree if (n := pages.page_name(p)) is not None] + [n for n, _, _ in plan]
    link_of = {n: _link_text(all_names, n) for n in [name, *(n for n, _, _ in plan)]}
    out = split_page(path, text, plan, links=link_of)
    if isinstance(out, str):
        return out
    part_paths = {pages.page_path(n): n for n, _, _ in plan}
    # Where each of the original's anchors stands after the split.
    _, body = pages.split_frontmatter(text)
    homes: dict[str, str] = {a: name for a in linking.heading_anchors(body.splitlines())}
    for p, n in part_paths.items():
        for a in linking.heading_anchors(pages.split_frontmatter(out[p])[1].splitlines()):
            homes[a] = n
    links = {**link_of, "": name}
    aliases: dict[str, list[str]] = {}
    for p in tree:
        n = pages.page_name(p)
        found = page_facts(tree, p) if n is not None else None
        if n is not None and found is not None and found.meta:
            aliases[n] = pages.aliases_of(found.meta)
    index = linking.LinkIndex([n for p in tree if (n := pages.page_name(p)) is not None], aliases)
    for p, t in list(out.items()):
        out[p] = _rewire_text(t, pages.page_name(p) or "", homes, index.resolve, links, index.resolve_md)
    for p in tree:
        n = pages.page_name(p)
        if n is None or p in out:
            continue
        found = page_facts(tree, p)
        if found is None or not any(t == name for _, t in resolved_targets(index, found, n)):
            continue
        old = text_of(tree[p]) or ""
        new = _rewire_text(old, n, homes, index.resolve, links, index.resolve_md)
        if new != old:
            out[p] = new
    return out
