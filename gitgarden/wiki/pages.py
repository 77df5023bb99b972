"""Pages, frontmatter, links and the map — pure functions over text.

Reading frontmatter uses python-frontmatter's YAML; writing never re-emits it:
`state:` and `source:` are patched line by line in the YAML block and the body
only grows, so every byte the person wrote stays as it was (CRLF included).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from gitgarden.wiki import layout

# python-frontmatter and PyYAML are imported where a block needs them (~40 ms): the common
# blocks are read without them, and `gitgarden guard` or a pass over such pages never pays.

__all__ = [
    "STATES",
    "map_path",
    "map_name",
    "PAGE_BUDGET",
    "MAP_CEILING",
    "PageError",
    "Link",
    "page_path",
    "page_name",
    "split_frontmatter",
    "read_meta",
    "patch_meta",
    "render_source",
    "new_page",
    "append_body",
    "newline_of",
    "code_mask",
    "find_links",
    "LinkIndex",
    "wrap_first_mention",
    "open_lines",
    "add_open_line",
    "add_map_entries",
    "source_days",
    "aliases_of",
    "GARDENER_KEY",
    "is_gardeners",
    "is_attachment",
    "heading_anchors",
    "anchor_key",
]

STATES = ("open", "hypothesis", "decided", "done")
PAGE_BUDGET = 6000
MAP_CEILING = 2000
# The frontmatter key code writes on every page a pass creates: a page is the gardener's when
# it carries `gardener: true`, every other page is the person's (DESIGN §1 "Whose page is it").
# Kept in the page, not derived from pass commits, so it survives squashes, review merges,
# rebases and copies between repositories; the person makes a page theirs by removing it.
GARDENER_KEY = "gardener"
OPEN_HEADING = "## Open"
PAGES_HEADING = "## Pages"

# The closing `---` line, found by one search: `^`/`$` in MULTILINE mode break on "\n" only,
# as the block's lines do ("\r" before "\n" allowed).
_FM_CLOSE = re.compile(r"^-{3,}[ \t]*\r?$", re.M)
_LINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)


class PageError(ValueError):
    """A page's frontmatter cannot be parsed."""


_layout_in_force = layout.current


def map_path() -> str:
    """The project-relative path of the map, `<wiki_dir>/index.md` in the layout in force."""
    return layout.current().map_path()


def map_name() -> str:
    """The map's page name (`index` unless the project's `map_page` says otherwise)."""
    return layout.current().map_page


def page_path(name: str) -> str:
    """The project-relative path of page `name` (in the layout in force)."""
    return layout.current().page_path(name)


def page_name(path: str) -> str | None:
    """The page name of a project-relative path, or None when it is not a page (in the layout in force)."""
    return _layout_in_force().page_name(path)


def newline_of(text: str) -> str:
    """The line ending a text uses ("\\r\\n" when its first line ends so, else "\\n")."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def split_frontmatter(text: str) -> tuple[str, str]:
    """(the frontmatter block including both `---` lines, the body); ("", text) when none."""
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return "", text
    return _split_block(text)


@lru_cache(maxsize=16_384)
def _split_block(text: str) -> tuple[str, str]:
    """split_frontmatter of a text that opens with `---`, cached: a pass splits each page it
    reads several times (titles, states, health, link wrapping)."""
    m = _FM_CLOSE.search(text, text.index("\n") + 1)
    if m is None:
        return "", text
    end = text.find("\n", m.end())
    stop = len(text) if end < 0 else end + 1
    return text[:stop], text[stop:]


def read_meta(text: str) -> dict[str, Any]:
    """The page's frontmatter as a dict ({} when it has none); PageError when it is malformed."""
    block, _ = split_frontmatter(text)
    if not block:
        if text.startswith("---"):
            raise PageError("frontmatter is not closed by a `---` line")
        return {}
    return dict(_parse_block(block))


_PLAIN_TITLE = re.compile(r"^[A-Za-z][A-Za-z0-9 ,.'()&/+-]*[A-Za-z0-9.)]$|^[A-Za-z]$")
_DAYS = re.compile(r"^\[\s*(\d{4}-\d{2}-\d{2}(?:\s*,\s*\d{4}-\d{2}-\d{2})*)?\s*\]$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}


def _fast_block(block: str) -> dict[str, Any] | None:
    """The common block (title, state, source in the shapes code writes) without YAML; None otherwise.

    Parsing YAML costs ~150 µs a page, which a 5,000-page wiki pays several
    times a pass; this gives the same values YAML would for these shapes.
    """
    meta: dict[str, Any] = {}
    for line in block.splitlines()[1:-1]:
        key, sep, value = line.rstrip("\r").partition(": ")
        value = value.strip()
        if not sep or key in meta:
            return None
        if (key == "title" and _plain_title(value)) or (key == "state" and value in STATES):
            meta[key] = value
        elif key == GARDENER_KEY and value == "true":
            meta[key] = True
        elif key == "source" and (m := _DAYS.match(value)):
            try:
                meta[key] = [date.fromisoformat(d.strip()) for d in m.group(1).split(",")] if m.group(1) else []
            except ValueError:
                return None
        else:
            return None
    return meta


@lru_cache(maxsize=16_384)
def _parse_block(block: str) -> dict[str, Any]:
    fast = _fast_block(block)
    if fast is not None:
        return fast
    import frontmatter
    import yaml

    try:
        meta = frontmatter.loads(block).metadata
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise PageError(f"frontmatter is not valid YAML{where}") from None
    except Exception as exc:  # python-frontmatter raises plain errors for odd blocks
        raise PageError(f"frontmatter cannot be read: {exc}") from None
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise PageError("frontmatter is not a mapping")
    return {str(k): v for k, v in meta.items()}


def render_source(days: Iterable[str]) -> str:
    """`source:`'s value in flow style: `[2026-11-28, 2026-11-29]`."""
    return "[" + ", ".join(sorted(set(days))) + "]"


def patch_meta(text: str, updates: Mapping[str, str]) -> str:
    """Set frontmatter keys to already-rendered YAML values, touching only those lines.

    A key present as `key: value` (with any indented continuation lines) is
    replaced in place; a missing key is added before the closing `---`. A page
    without frontmatter gets a block in front of its untouched body.
    """
    nl = newline_of(text)
    block, body = split_frontmatter(text)
    if not block:
        lines = [f"{k}: {v}" for k, v in updates.items()]
        return "---" + nl + nl.join(lines) + nl + "---" + nl + body
    lines = block.splitlines(keepends=True)
    head, inner, close = lines[0], lines[1:-1], lines[-1]
    pending = dict(updates)
    out: list[str] = []
    i = 0
    while i < len(inner):
        line = inner[i]
        m = re.match(r"^([A-Za-z_][\w-]*)[ \t]*:", line)
        if m and m.group(1) in pending:
            key = m.group(1)
            ending = nl if line.endswith("\n") else ""
            out.append(f"{key}: {pending.pop(key)}{ending}")
            i += 1
            while i < len(inner) and (inner[i].startswith((" ", "\t", "-")) and inner[i].strip()):
                i += 1  # the old value's continuation lines (a block list)
            continue
        out.append(line)
        i += 1
    if out and not out[-1].endswith("\n"):
        out[-1] += nl
    out.extend(f"{k}: {v}{nl}" for k, v in pending.items())
    return head + "".join(out) + close + body


def _plain_title(value: str) -> bool:
    """True for a title YAML reads back as the same string without quotes (and _fast_block reads)."""
    return bool(_PLAIN_TITLE.match(value)) and value.lower() not in _YAML_WORDS and " #" not in value and ": " not in value


def _yaml_scalar(value: str) -> str:
    if _plain_title(value):
        return value  # what safe_dump writes for it, without importing YAML
    import yaml

    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10_000)
    return dumped.strip().removesuffix("...").strip()


def new_page(title: str, body: str, *, state: str = "open", source: Iterable[str] = (), gardener: bool = True) -> str:
    """A new page's full text: frontmatter written by code, then the body.

    `gardener` marks the page as the gardener's own (see GARDENER_KEY); a part split
    off the person's page at their request is theirs and goes without it.
    """
    body = body.strip("\n") + "\n" if body.strip() else ""
    mark = f"{GARDENER_KEY}: true\n" if gardener else ""
    return (
        f"---\ntitle: {_yaml_scalar(title)}\nstate: {state}\nsource: {render_source(source)}\n{mark}---\n"
        + body
    )


def is_gardeners(meta: Mapping[str, Any] | None) -> bool:
    """True for a page a pass created (its frontmatter says `gardener: true`)."""
    return meta is not None and meta.get(GARDENER_KEY) is True


def is_attachment(path: str) -> bool:
    """True for a file under the wiki that is not a page (an image, a PDF, a canvas): never written."""
    here = layout.current()
    return here.page_name(path) is None and here.in_wiki(path) and not path.endswith("/")


def append_body(text: str, addition: str) -> str:
    """The page with `addition` appended after its last line, separated by a blank line.

    Existing bytes are kept; the addition takes the page's line ending.
    """
    nl = newline_of(text)
    addition = addition.strip("\n").replace("\r\n", "\n").replace("\n", nl)
    if not addition:
        return text
    if text and not text.endswith("\n"):
        text += nl
    _, body = split_frontmatter(text)
    sep = nl if body.strip() else ""
    return text + sep + addition + nl


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


def _section_bounds(lines: list[str], heading: str) -> tuple[int, int] | None:
    """(index of the heading line, index after the section's last line) or None."""
    for i, line in enumerate(lines):
        if line.rstrip("\r\n").strip().lower() == heading.lower():
            j = i + 1
            while j < len(lines) and not re.match(r"^#{1,2}\s", lines[j]):
                j += 1
            return i, j
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


def open_lines(map_text: str) -> list[str]:
    """The non-empty lines of the map's `## Open` section, as written."""
    lines = map_text.splitlines()
    bounds = _section_bounds(lines, OPEN_HEADING)
    if bounds is None:
        return []
    return [ln for ln in lines[bounds[0] + 1 : bounds[1]] if ln.strip()]


def _insert_in_section(text: str, heading: str, new: list[str], *, before: str | None) -> str:
    head, pre, post, tail, nl = _insertion_point(text, heading, before)
    return head + pre + "".join(ln + nl for ln in new) + post + tail


@lru_cache(maxsize=64)
def _insertion_point(text: str, heading: str, before: str | None) -> tuple[str, str, str, str, str]:
    """Where lines go in `heading`'s section: (text before, framing before, framing after, text after, newline).

    Cached: a pass tries map entries one by one against the same map text.
    """
    nl = newline_of(text) if text else "\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += nl
    bounds = _section_bounds(lines, heading)
    if bounds is None:
        at = len(lines)
        if before is not None:
            other = _section_bounds(lines, before)
            if other is not None:
                at = other[0]
        pre = heading + nl + nl
        if at > 0 and lines[at - 1].strip():
            pre = nl + pre
        post = nl if at < len(lines) else ""
        return "".join(lines[:at]), pre, post, "".join(lines[at:]), nl
    start, end = bounds
    last = end
    while last > start + 1 and not lines[last - 1].strip():
        last -= 1
    return "".join(lines[:last]), "", "", "".join(lines[last:]), nl


def add_open_line(map_text: str, line: str) -> str:
    """The map with one more line in its `## Open` section (made if missing)."""
    return _insert_in_section(map_text, OPEN_HEADING, [line], before=None)


def add_map_entries(map_text: str, entries: list[str]) -> str:
    """The map with entry lines added at the end of its `## Pages` section (made before Open)."""
    if not entries:
        return map_text
    return _insert_in_section(map_text, PAGES_HEADING, entries, before=OPEN_HEADING)


def source_days(meta: Mapping[str, Any]) -> list[str]:
    """`source:` as a list of day strings (YAML reads bare dates as dates; a scalar is one day)."""
    raw = meta.get("source")
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else [raw]
    return [str(item) for item in items]


def aliases_of(meta: Mapping[str, Any]) -> list[str]:
    """`aliases:` (or `alias:`) as a list of strings."""
    raw = meta.get("aliases", meta.get("alias"))
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else [raw]
    return [str(item) for item in items if str(item).strip()]
