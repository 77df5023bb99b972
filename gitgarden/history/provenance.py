"""Where a page's text came from: the paragraphs passes wrote, traced to the journal lines they cite.

Every pass record holds, for each operation that landed, the text it wrote and
the lines it cited, word for word (`PassResult.provenance`). Reading it back
needs no map from pages to passes: a paragraph is traced when it still stands,
as written, in the page's current text — so it follows the text through a split
or a merge that moved it verbatim, and a paragraph the person reworded is no
longer claimed by any pass. Passes that an undo took back, and passes still
waiting for review, claim nothing. Passes from before records held provenance
are not traced (their `source:` days still say which days a page came from).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitgarden.history.passlog import PassEntry, passes, passes_state
from gitgarden.wiki import layout, pages

__all__ = ["Source", "KeptSources", "page_sources", "sources_in", "sources_from", "traced", "paragraphs"]

_BLANK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Source:
    """One paragraph a pass wrote, and the journal lines it cites."""

    text: str  # the paragraph, as the pass wrote it
    page: str  # the page it was written to (its name then)
    op: str  # create_page, append, ...
    lines: tuple[tuple[str, str], ...]  # (line id, the journal line word for word)
    pass_id: str
    commit: str
    when: str

    def to_json(self) -> dict[str, Any]:
        """The source as plain JSON."""
        return {
            "text": self.text,
            "page": self.page,
            "op": self.op,
            "lines": [{"id": i, "text": t} for i, t in self.lines],
            "pass_id": self.pass_id,
            "commit": self.commit,
            "when": self.when,
        }


def paragraphs(text: str) -> list[str]:
    """The paragraphs of `text` (blocks between blank lines), each with its whitespace collapsed."""
    return [" ".join(block.split()) for block in _BLANK.split(text.replace("\r\n", "\n")) if block.strip()]


def sources_in(text: str, entries: Iterable[PassEntry]) -> list[Source]:
    """The paragraphs of `text` that the landed passes among `entries` wrote, in the text's order.

    A paragraph several passes wrote (the same fact appended twice is refused,
    but a split part repeats its parent's words) is traced to the oldest one
    still standing.
    """
    return sources_from(text, traced(entries))


def traced(entries: Iterable[PassEntry]) -> dict[str, Source]:
    """Every paragraph the landed passes among `entries` wrote, each with the oldest pass that wrote
    it: what `sources_from` looks a page's paragraphs up in (whichever page they stand in now)."""
    found: dict[str, Source] = {}
    for entry in sorted((e for e in entries if _counts(e)), key=lambda e: e.when):
        for item in (entry.record or {}).get("provenance") or []:
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                continue
            lines = tuple(
                (str(ln.get("id", "")), str(ln.get("text", "")))
                for ln in item.get("lines") or []
                if isinstance(ln, dict)
            )
            for para in paragraphs(item["text"]):
                if para not in found:
                    found[para] = Source(
                        para, str(item.get("page", "")), str(item.get("op", "")), lines, entry.pass_id, entry.commit, entry.when
                    )
    return found


def sources_from(text: str, found: dict[str, Source]) -> list[Source]:
    """The paragraphs of `text` among `found` (from `traced`), in the text's order."""
    body = pages.split_frontmatter(text)[1]  # no blank line need part the frontmatter from the body
    return [found[p] for p in dict.fromkeys(paragraphs(body)) if p in found]


class KeptSources:
    """`page_sources` for a long-running reader (the web app, the MCP server): the passes are read
    and traced once, and again only when what they are read from changed (`passes_state`: HEAD,
    the review branch, the record files), so a page's sources cost a lookup per paragraph."""

    def __init__(self) -> None:
        self._state: tuple[object, ...] | None = None
        self._found: dict[str, Source] = {}
        self._lock = threading.Lock()

    def page_sources(self, root: Path, name: str, text: str | None = None) -> list[Source]:
        """As `page_sources`, from the passes traced when their state last changed."""
        if text is None:
            text = _page_text(root, name)
            if text is None:
                return []
        with self._lock:
            state = passes_state(root)
            if state != self._state:
                self._found = traced(passes(root))
                self._state = state
            found = self._found
        return sources_from(text, found)


def _counts(entry: PassEntry) -> bool:
    """A pass whose writes stand in the branch: committed, not undone, not waiting for review."""
    return bool(entry.commit) and not entry.undone_by and entry.review != "waiting" and entry.record is not None


def page_sources(root: Path, name: str, text: str | None = None) -> list[Source]:
    """The paragraphs of page `name` (its current text in the work tree, or `text`) that passes
    wrote, in page order, each with the journal lines it cites and the pass that wrote it."""
    if text is None:
        text = _page_text(root, name)
        if text is None:
            return []
    return sources_in(text, passes(root))


def _page_text(root: Path, name: str) -> str | None:
    path = root / layout.current().page_path(name)
    if path.is_symlink() or not path.is_file():
        return None
    return path.read_text(encoding="utf-8", errors="replace")
