"""Pages, frontmatter, links and the map — pure functions over text.

Reading frontmatter uses python-frontmatter's YAML; writing never re-emits it:
`state:` and `source:` are patched line by line in the YAML block and the body
only grows, so every byte the person wrote stays as it was (CRLF included).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
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
    "page_path",
    "page_name",
    "split_frontmatter",
    "read_meta",
    "patch_meta",
    "render_source",
    "new_page",
    "yaml_scalar",
    "append_body",
    "newline_of",
    "open_lines",
    "add_open_line",
    "add_map_entries",
    "source_days",
    "aliases_of",
    "render_aliases",
    "GARDENER_KEY",
    "is_gardeners",
    "is_attachment",
]

STATES = ("open", "hypothesis", "decided", "done")
PAGE_BUDGET = 6000
MAP_CEILING = 2000
# The frontmatter key code writes on every page a pass creates: a page is the gardener's when
# it carries `gardener: true`, every other page is the person's (docs/architecture.md, "A project on disk").
# Kept in the page, not derived from pass commits, so it survives squashes, review merges,
# rebases and copies between repositories; the person makes a page theirs by removing it.
GARDENER_KEY = "gardener"
OPEN_HEADING = "## Open"
PAGES_HEADING = "## Pages"

# The closing `---` line, found by one search: `^`/`$` in MULTILINE mode break on "\n" only,
# as the block's lines do ("\r" before "\n" allowed).
_FM_CLOSE = re.compile(r"^-{3,}[ \t]*\r?$", re.M)


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


def yaml_scalar(value: str) -> str:
    """`value` as a YAML scalar on one line (plain when it can be, quoted otherwise)."""
    if _plain_title(value):
        return value  # what safe_dump writes for it, without importing YAML
    import yaml

    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10_000)
    return dumped.strip().removesuffix("...").strip()


def new_page(
    title: str, body: str, *, state: str = "open", source: Iterable[str] = (), gardener: bool = True, aliases: Iterable[str] = ()
) -> str:
    """A new page's full text: frontmatter written by code, then the body.

    `gardener` marks the page as the gardener's own (see GARDENER_KEY); a part split
    off the person's page at their request is theirs and goes without it. `aliases` are other
    names the journal gives the page's subject ("Tomasz", "the electrician").
    """
    body = body.strip("\n") + "\n" if body.strip() else ""
    mark = f"{GARDENER_KEY}: true\n" if gardener else ""
    named = list(dict.fromkeys(a for a in aliases if a.strip()))
    also = f"aliases: {render_aliases(named)}\n" if named else ""
    return (
        f"---\ntitle: {yaml_scalar(title)}\n{also}state: {state}\nsource: {render_source(source)}\n{mark}---\n"
        + body
    )


def render_aliases(aliases: Iterable[str]) -> str:
    """`aliases:`'s value in flow style: `[Tomasz, the electrician]`."""
    return "[" + ", ".join(yaml_scalar(a) for a in aliases) + "]"


def is_gardeners(meta: Mapping[str, Any] | None) -> bool:
    """True for a page a pass created (its frontmatter says `gardener: true`)."""
    return meta is not None and meta.get(GARDENER_KEY) is True


def is_attachment(path: str) -> bool:
    """True for a file under the wiki that is not a page (an image, a PDF, a canvas): never written."""
    here = layout.current()
    return here.page_name(path) is None and here.in_wiki(path) and not path.endswith("/")


_BULLET = re.compile(r"^[-*+] \S")


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
    last = body.rstrip("\r\n").rsplit("\n", 1)[-1]
    # A bullet after a bullet continues the list (small mode writes facts as bullets); anything else
    # starts a paragraph of its own.
    continues = _BULLET.match(addition) is not None and _BULLET.match(last) is not None
    sep = nl if body.strip() and not continues else ""
    return text + sep + addition + nl


def _section_bounds(lines: list[str], heading: str) -> tuple[int, int] | None:
    """(index of the heading line, index after the section's last line) or None."""
    for i, line in enumerate(lines):
        if line.rstrip("\r\n").strip().lower() == heading.lower():
            j = i + 1
            while j < len(lines) and not re.match(r"^#{1,2}\s", lines[j]):
                j += 1
            return i, j
    return None


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
