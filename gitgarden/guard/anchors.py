"""Rule 5's last check: no heading link that resolved before a split dangles after it.

A split moves `##` sections out of a page; every link naming a heading (or block) that left
must now name the part it went to — wiki links (`[[Page#Heading]]`, the page's own
`[[#Heading]]`) and Markdown links (`[x](Page.md#Heading)`, `[x](#Heading)`) alike. Only a
split pays for this: it reads every page's links once. Apart from `rules` because it is the
one rule that reads pages the change did not write.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from gitgarden.guard.diff import Diff, PageChange
from gitgarden.guard.text import LINK
from gitgarden.wiki import linking, pages
from gitgarden.wiki.tree import text_of

__all__ = ["dangling"]

Finding = tuple[str, str, str]  # (path, why, offending line or "")


def dangling(d: Diff, page: PageChange) -> Iterator[Finding]:
    """Rule 5: no heading link that resolved before a split dangles after it. Links naming a
    heading (or block) that left the page must now name the part it went to.

    Only a split pays for this: it reads every page's links once.
    """
    before = linking.heading_anchors(page.old)
    gone = before - linking.heading_anchors(page.new.lines)
    if not gone:
        return
    name = pages.page_name(page.path)
    # One C-level search a page finds the few that name a gone anchor at all.
    named = re.compile("#[ \t]*(?:" + "|".join(re.escape(a) for a in sorted(before, key=len, reverse=True)) + ")", re.I)
    for path in d.names.linking_pages(before):  # a tree read from git asks git which pages may name them
        text = text_of(d.proposed[path])
        if text is not None and "](" in text:
            yield from _dangling_md(d, page, path, text, gone, before)
        if text is None or "[[" not in text or not named.search(text):
            continue
        mask: list[bool] | None = None
        own: set[str] | None = None  # the anchors of this page itself, for `[[#Heading]]`
        for m in LINK.finditer(text):
            head = m.group(1).replace("\\|", "|").partition("|")[0]
            target, hash_, anchor = head.partition("#")
            key = linking.anchor_key(anchor)
            if not hash_:
                continue
            if target.strip():
                if key not in gone or d.resolve(target) != name:
                    continue
            else:  # `[[#Heading]]` in the page or one of its new parts
                if key not in before or (path != page.path and path not in d.new_pages):
                    continue
                if own is None:
                    own = linking.heading_anchors(pages.split_frontmatter(text)[1].splitlines())
                if key in own:
                    continue
            if mask is None:
                mask = linking.code_mask(text)
            if not mask[m.start()]:
                why = f"a heading link points into a section that left {page.path}; point it at the part"
                yield path, why, m.group(0)


def _dangling_md(d: Diff, page: PageChange, path: str, text: str, gone: set[str], before: set[str]) -> Iterator[Finding]:
    """Rule 5 for Markdown links: `[x](Page.md#Heading)` naming a heading that left the split page,
    and the page's (or a part's) own `[x](#Heading)` naming one it no longer holds."""
    from urllib.parse import unquote

    name = pages.page_name(page.path)
    own: set[str] | None = None
    mask: list[bool] | None = None
    for m in linking.MD_LINK.finditer(text):
        dest = m.group(3)
        inner = dest[1:-1] if dest.startswith("<") and dest.endswith(">") else dest
        raw_path, hash_, anchor = inner.partition("#")
        key = linking.anchor_key(unquote(anchor))
        if not hash_ or not key:
            continue
        if raw_path.strip():
            found = linking.md_destination(dest)
            if key not in gone or found is None or d.resolve_md(found[0], path) != name:
                continue
        else:
            if key not in before or (path != page.path and path not in d.new_pages):
                continue
            if own is None:
                own = linking.heading_anchors(pages.split_frontmatter(text)[1].splitlines())
            if key in own:
                continue
        if mask is None:
            mask = linking.code_mask(text)
        if not mask[m.start()] and not any(lk.start <= m.start() < lk.end for lk in linking.find_links(text)):
            yield path, f"a heading link points into a section that left {page.path}; point it at the part", m.group(0)


