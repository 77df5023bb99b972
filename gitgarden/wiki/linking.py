"""Links as Obsidian reads them: `[[target#heading|shown]]` outside code spans and fenced blocks,
resolved by file name anywhere in the wiki (case-insensitively, aliases and attachments too),
heading anchors, and the first unlinked mention of a title wrapped as a link. Pure: text in,
answers out.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from gitgarden.wiki.pages import split_frontmatter

__all__ = ["code_mask", "Link", "find_links", "LinkIndex", "wrap_first_mention", "heading_anchors", "anchor_key"]

_LINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Sorted, disjoint (start, end) ranges of fenced code blocks and inline code spans.

    The ranges `code_mask` marks, without a list of one flag per character: a
    pass looks for links in every page of a 5,000-page wiki, more than once.
    """
    has_fence = "```" in text or "~~~" in text
    if not has_fence and "`" not in text:
        return []  # neither a fence nor an inline span can start
    fenced: list[tuple[int, int]] = []
    if has_fence:
        pos = 0
        start = 0
        fence: str | None = None
        for line in text.splitlines(keepends=True):
            m = _FENCE.match(line)
            if fence is not None:
                if m and m.group(1) == fence:
                    fenced.append((start, pos + len(line)))
                    fence = None
            elif m:
                fence, start = m.group(1), pos
            pos += len(line)
        if fence is not None:
            fenced.append((start, pos))
    if "`" not in text:
        return fenced
    starts = [s for s, _ in fenced]
    spans = list(fenced)
    for m in _inline_code(text):
        k = bisect.bisect_right(starts, m.start()) - 1
        if k < 0 or m.start() >= fenced[k][1]:
            spans.append((m.start(), m.end()))
    spans.sort()
    merged: list[tuple[int, int]] = []
    for s, e in spans:
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _inline_code(text: str) -> Iterator[re.Match[str]]:
    """The matches `_INLINE_CODE.finditer(text)` yields, trying the pattern only where a backtick
    stands (every match starts with one): the regex scan of each character is the slow part."""
    pos = text.find("`")
    while pos >= 0:
        m = _INLINE_CODE.match(text, pos)
        if m is None:
            pos = text.find("`", pos + 1)
        else:
            yield m
            pos = text.find("`", m.end())


def _in_spans(spans: list[tuple[int, int]], starts: list[int], start: int, end: int) -> bool:
    """True when text[start:end] (non-empty) meets one of `spans` (whose starts are `starts`)."""
    k = bisect.bisect_right(starts, end - 1) - 1
    return k >= 0 and spans[k][1] > start


def code_mask(text: str) -> list[bool]:
    """Per character: True inside fenced code blocks or inline code spans."""
    mask = [False] * len(text)
    for s, e in _code_spans(text):
        mask[s:e] = [True] * (e - s)
    return mask


@dataclass(frozen=True, slots=True)
class Link:
    """A `[[target#anchor|shown]]` link and where it stands in the text."""

    target: str
    anchor: str
    shown: str
    start: int
    end: int

    @property
    def raw(self) -> str:
        return f"[[{self.target}{'#' + self.anchor if self.anchor else ''}{'|' + self.shown if self.shown else ''}]]"


def find_links(text: str) -> list[Link]:
    """Every wiki link outside code, in order (`\\|` inside tables counts as `|`)."""
    if "[[" not in text:
        return []
    return list(_find_links(text))  # a fresh list of the cached tuple: callers may change theirs


@lru_cache(maxsize=16_384)
def _find_links(text: str) -> tuple[Link, ...]:
    """find_links, cached by text: a pass looks for links in every page several times
    (reachability from the map, health before and after)."""
    spans = _code_spans(text)
    starts = [s for s, _ in spans]
    links = []
    for m in _LINK.finditer(text):
        if spans and _in_spans(spans, starts, m.start(), m.start() + 1):
            continue
        inner = m.group(1).replace("\\|", "|")
        target, _, shown = inner.partition("|")
        target, _, anchor = target.partition("#")
        target = target.strip()
        if not target:
            continue
        links.append(Link(target, anchor.strip(), shown, m.start(), m.end()))
    return tuple(links)


class LinkIndex:
    """Resolves link targets the way Obsidian does: by file name, case-insensitively, or alias.

    `attachments` are the wiki's other files (paths under the wiki, extension kept):
    `![[diagram.png|400]]` names one by its file name with its extension, in any folder.
    They resolve through `attachment`, never through `resolve`, which names pages only.
    """

    def __init__(
        self,
        names: Iterable[str],
        aliases: Mapping[str, Iterable[str]] | None = None,
        attachments: Iterable[str] = (),
    ):
        self._full: dict[str, str] = {}
        self._base: dict[str, str] = {}
        self._files: dict[str, str] = {}
        for name in sorted(names):
            self._full.setdefault(name.lower(), name)
            self._base.setdefault(name.rsplit("/", 1)[-1].lower(), name)
        for name, names_ in (aliases or {}).items():
            for alias in names_:
                self._base.setdefault(str(alias).lower(), name)
        for rel in sorted(attachments):
            self._files.setdefault(rel.lower(), rel)
            self._files.setdefault(rel.rsplit("/", 1)[-1].lower(), rel)

    def attachment(self, target: str) -> str | None:
        """The attachment (path under the wiki) a link target names by file name, or None."""
        return self._files.get(target.strip().lower()) if self._files else None

    def resolve(self, target: str) -> str | None:
        """The page a link target names, or None when it names none."""
        key = target.strip().removesuffix(".md").lower()
        if "/" in key:
            return self._full.get(key)
        return self._base.get(key) or self._full.get(key)


def _word_at(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or before == "_") and not (after.isalnum() or after == "_")


def wrap_first_mention(text: str, phrase: str, target: str) -> str | None:
    """Wrap the first unlinked, whole-word mention of `phrase` in the body as a link.

    Never inside frontmatter, code, headings or another link. None when there is
    no such mention.
    """
    if not phrase.strip():
        return None
    block, body = split_frontmatter(text)
    if phrase not in body:
        return None  # the common case when a pass tries every title on a page: no scan of code and links
    spans = _code_spans(body)
    starts = [s for s, _ in spans]
    taken = [(lk.start, lk.end) for lk in find_links(body)]
    line_start = 0
    for line in body.splitlines(keepends=True):
        if not line.lstrip().startswith("#"):
            idx = line.find(phrase)
            while idx >= 0:
                s, e = line_start + idx, line_start + idx + len(phrase)
                inside = any(a <= s < b for a, b in taken) or _in_spans(spans, starts, s, e)
                if not inside and _word_at(body, s, e):
                    link = f"[[{target}]]" if phrase == target else f"[[{target}|{phrase}]]"
                    return block + body[:s] + link + body[e:]
                idx = line.find(phrase, idx + 1)
        line_start += len(line)
    return None


_ANY_HEADING = re.compile(r"^#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$")
_BLOCK_ID = re.compile(r"\s\^([A-Za-z0-9-]+)[ \t]*$")


def heading_anchors(lines: Iterable[str]) -> set[str]:
    """The anchors a run of lines offers to links, in lower case: its headings (`#Heading`)
    and block ids (`#^id`), outside fenced code."""
    found: set[str] = set()
    fence = False
    for line in lines:
        bare = line.rstrip("\r\n")
        if bare.lstrip().startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence:
            continue
        if m := _ANY_HEADING.match(bare):
            found.add(m.group(1).strip().lower())
        if m := _BLOCK_ID.search(bare):
            found.add("^" + m.group(1).lower())
    return found


def anchor_key(anchor: str) -> str:
    """The anchor a `#Heading#Sub` link names first, as `heading_anchors` lists it."""
    return anchor.split("#", 1)[0].strip().lower()
