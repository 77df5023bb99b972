"""Links as Obsidian reads them: `[[target#heading|shown]]` and Markdown links `[shown](Note%20name.md#Heading)`
outside code spans and fenced blocks, resolved by file name anywhere in the wiki (case-insensitively,
aliases and attachments too) or, for a Markdown link, by its path (relative to the note, or from the
vault's top); heading anchors, and the first unlinked mention of a title wrapped as a link. Pure:
text in, answers out.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

from gitgarden.wiki.pages import split_frontmatter

__all__ = [
    "code_mask",
    "Link",
    "find_links",
    "unlinked",
    "MdLink",
    "MD_LINK",
    "find_md_links",
    "md_destination",
    "folder_of",
    "md_candidates",
    "LinkIndex",
    "resolve_key",
    "wrap_first_mention",
    "heading_anchors",
    "heading_key",
    "anchor_key",
]

_LINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
# A Markdown link or embed, `[shown](dest "title")` / `![alt](<dest with spaces>)`, on one line: the
# destination in angle brackets, or without spaces (parentheses balanced one level deep), as
# CommonMark and Obsidian read it. The guard's line finder (guard/text.py) uses this same pattern.
MD_LINK = re.compile(
    r"(!?)\[((?:[^\[\]\n\\]|\\.)*)\]\("
    r"[ \t]*(<[^<>\n]*>|(?:[^\s()<>\\]|\\.|\((?:[^\s()\\]|\\.)*\))+)"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")  # https:, mailto:, obsidian:, //host: not a note
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


def unlinked(text: str) -> str:
    """`text` with every wiki link replaced by the words it shows: the person's words again."""
    out, at = [], 0
    for link in find_links(text):
        out.append(text[at : link.start] + (link.shown or link.target))
        at = link.end
    return "".join(out) + text[at:]


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


@dataclass(frozen=True, slots=True)
class MdLink:
    """A Markdown link to a note or file of the vault, `[shown](dest#anchor)`, and where it stands.

    `path` is the destination decoded (no angle brackets, `%20` read as a space) without its
    anchor: a path relative to the linking note, or from the vault's top when that names nothing
    (or it opens with `/`), or a bare file name found anywhere. `raw_path` is how it is written.
    """

    path: str
    anchor: str
    shown: str
    start: int
    end: int
    embed: bool = False
    raw_path: str = ""
    angle: bool = False


def md_destination(raw: str) -> tuple[str, str, str, bool] | None:
    """(decoded path, decoded anchor, raw path, in angle brackets) of a Markdown link's destination,
    or None when it names no file of the vault (a URL, `mailto:`, an anchor of the page itself)."""
    from urllib.parse import unquote

    angle = raw.startswith("<") and raw.endswith(">")
    inner = raw[1:-1] if angle else raw
    if not inner or _SCHEME.match(inner):
        return None
    raw_path, _, anchor = inner.partition("#")
    path = unquote(raw_path.replace("\\", "")).strip()
    if not path:
        return None  # `[x](#Heading)`: a heading of the page itself, like `[[#Heading]]`
    return path, unquote(anchor).strip(), raw_path, angle


def find_md_links(text: str) -> list[MdLink]:
    """Every Markdown link (or embed) to a file of the vault outside code, in order: URLs and the
    page's own `#anchor` links left out, as is anything inside a wiki link."""
    if "](" not in text:
        return []
    return list(_find_md_links(text))


@lru_cache(maxsize=16_384)
def _find_md_links(text: str) -> tuple[MdLink, ...]:
    spans = _code_spans(text)
    wiki = [(lk.start, lk.end) for lk in _find_links(text)] if "[[" in text else []
    if wiki:
        spans = sorted(spans + wiki)
    starts = [s for s, _ in spans]
    out = []
    for m in MD_LINK.finditer(text):
        if spans and _in_spans(spans, starts, m.start(), m.end()):
            continue
        dest = md_destination(m.group(3))
        if dest is None:
            continue
        path, anchor, raw_path, angle = dest
        out.append(MdLink(path, anchor, m.group(2), m.start(), m.end(), m.group(1) == "!", raw_path, angle))
    return tuple(out)


def folder_of(name: str) -> str:
    """The folder of a page name or wiki-relative path (`Bases/Views` -> `Bases`; '' at the top)."""
    return name.rpartition("/")[0]


def md_candidates(path: str, folder: str) -> list[str]:
    """The vault paths (lower case) a Markdown link's path may name from a note in `folder`, in
    Obsidian's order: relative to the folder, then from the vault's top (none outside the vault)."""
    return _md_candidates(path, folder)


def _md_candidates(path: str, folder: str) -> list[str]:
    """The vault paths (lower case) a Markdown link's path may name, in Obsidian's order: relative
    to the linking note's folder, then from the vault's top. None that leaves the vault."""
    out = []
    tries = [path[1:]] if path.startswith("/") else [posixpath.join(folder, path), path]
    for t in tries:
        norm = posixpath.normpath(t) if t else ""
        if norm and norm != "." and not norm.startswith("../") and norm != "..":
            out.append(norm.lower())
    return out


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
        self._file_names: dict[str, str] | None = None  # file name -> page, without aliases (Markdown links)
        self._twins: dict[str, set[str]] = {}  # a file name or alias more than one page answers to
        self._resolved: dict[str, str | None] = {}  # target -> `resolve`'s answer: the index never changes
        # A file name, then an alias, goes to the first page by name that answers to it (inline: a
        # pass makes indexes of every page's names and titles).
        full, base, twins = self._full, self._base, self._twins
        for name in sorted(names):
            full.setdefault(name.lower(), name)
            key = name.rsplit("/", 1)[-1].lower()
            first = base.setdefault(key, name)
            if first != name:
                twins.setdefault(key, {first}).add(name)
        for name, names_ in sorted((aliases or {}).items()):  # an alias two pages share: the first by name
            for alias in names_:
                key = str(alias).lower()
                first = base.setdefault(key, name)
                if first != name:
                    twins.setdefault(key, {first}).add(name)
        for rel in sorted(attachments):
            self._files.setdefault(rel.lower(), rel)
            self._files.setdefault(rel.rsplit("/", 1)[-1].lower(), rel)

    def candidates(self, target: str) -> list[str]:
        """Every page a target could name when it names more than one (`Plan` with `Work/Plan.md`
        and `Home/Plan.md`), sorted; [] when it names one page or none. A folder path, or a page
        whose own name is the target, is never ambiguous."""
        key = target.strip().removesuffix(".md").lower()
        if "/" in key or key in self._full:
            return []
        return sorted(self._twins.get(key, ()))

    def attachment(self, target: str) -> str | None:
        """The attachment (path under the wiki) a link target names by file name, or None."""
        return self._files.get(target.strip().lower()) if self._files else None

    def resolve(self, target: str) -> str | None:
        """The page a link target names, or None when it names none."""
        try:
            return self._resolved[target]  # a wiki's pages link the same targets over and over
        except KeyError:
            pass
        key = resolve_key(target)
        hit = self._full.get(key) if "/" in key else self._base.get(key) or self._full.get(key)
        self._resolved[target] = hit
        return hit

    def resolve_md(self, path: str, folder: str) -> str | None:
        """The page a Markdown link's decoded `path` names from a note in `folder`, as Obsidian
        resolves it: relative to that folder, else from the vault's top, else (a bare file name)
        the note of that name anywhere. Aliases are no file names: a Markdown link never takes one."""
        for cand in _md_candidates(path, folder):
            hit = self._full.get(cand.removesuffix(".md"))
            if hit is not None:
                return hit
        if "/" in path.strip("/"):
            return None
        if self._file_names is None:
            self._file_names = {}
            for name in sorted(self._full.values()):
                self._file_names.setdefault(name.rsplit("/", 1)[-1].lower(), name)
        return self._file_names.get(path.strip("/").lower().removesuffix(".md"))

    def attachment_md(self, path: str, folder: str) -> str | None:
        """The attachment a Markdown link's decoded `path` names from a note in `folder`, or None."""
        if not self._files:
            return None
        for cand in _md_candidates(path, folder):
            if cand in self._files:
                return self._files[cand]
        return None if "/" in path.strip("/") else self._files.get(path.strip("/").lower())


def resolve_key(target: str) -> str:
    """A link target as names are looked up: stripped, without `.md`, in lower case."""
    return target.strip().removesuffix(".md").lower()


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
    if "](" in body:  # nor inside a Markdown link, to a note or a URL
        taken += [(m.start(), m.end()) for m in MD_LINK.finditer(body)]
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
# A block id ends a line (`Text ^id`) or stands alone on one (`^id`, after a list, table or quote).
_BLOCK_ID = re.compile(r"(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$")


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
            found.add(_heading_key(m.group(1)))
        if m := _BLOCK_ID.search(bare):
            found.add("^" + m.group(1).lower())
    return found


# What Obsidian takes out of a heading when it makes (and matches) a link to it: these characters
# would end or split the link (`## Costs [draft]` is linked as `[[Page#Costs draft]]`).
_NOT_IN_ANCHORS = re.compile(r"[\[\]#|^:%]+")


def _heading_key(heading: str) -> str:
    """A heading (or a link's anchor) as links match it: the characters a link cannot hold become
    spaces, runs of spaces one, any letter case."""
    return " ".join(_NOT_IN_ANCHORS.sub(" ", heading).split()).lower()


def heading_key(heading: str) -> str:
    """A heading's text as a link's anchor names it (`anchor_key` of the link gives the same)."""
    return _heading_key(heading)


def anchor_key(anchor: str) -> str:
    """The anchor a `#Heading#Sub` link names first, as `heading_anchors` lists it."""
    first = anchor.split("#", 1)[0]
    if first.strip().startswith("^"):
        return first.strip().lower()  # a block id
    return _heading_key(first)
