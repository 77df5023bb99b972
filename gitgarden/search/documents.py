"""What the index holds of a page and of a day file: pure text in, rows out."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gitgarden.wiki import journal, pages

__all__ = ["PageDoc", "LineDoc", "page_doc", "line_docs"]

_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.M)
_NAME_SEPARATORS = re.compile(r"[-_/.]+")


@dataclass(frozen=True)
class PageDoc:
    """A page as the index sees it: the names it is found by, its title, headings and body."""

    name: str
    names: str  # the page name, its words (`kessler-mill` -> `kessler mill`) and its aliases
    title: str
    headings: str
    body: str
    state: str | None
    source: tuple[str, ...]


@dataclass(frozen=True)
class LineDoc:
    """A journal line: its id and its text."""

    id: str
    text: str


def page_doc(name: str, text: str) -> PageDoc:
    """The index's view of page `name` with text `text` (a page whose frontmatter does not parse
    is still found by its words: its whole text is the body)."""
    try:
        meta = pages.read_meta(text)
        body = pages.split_frontmatter(text)[1]
    except pages.PageError:
        meta, body = {}, text
    leaf = name.rsplit("/", 1)[-1]
    title = str(meta.get("title") or leaf)
    aliases = pages.aliases_of(meta)
    words = _NAME_SEPARATORS.sub(" ", name)
    names = "\n".join(dict.fromkeys([name, words, *aliases]))
    headings = "\n".join(m.group(1) for m in _HEADING.finditer(body))
    state = meta.get("state")
    return PageDoc(
        name=name,
        names=names,
        title=title,
        headings=headings,
        body=body,
        state=str(state) if state is not None else None,
        source=tuple(pages.source_days(meta)),
    )


def line_docs(day: str, text: str) -> list[LineDoc]:
    """The journal lines of day file `day`, as a pass reads them."""
    return [LineDoc(ln.id, ln.text) for ln in journal.parse_day(day, text)]
