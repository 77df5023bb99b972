"""Verbatim splits: sections of an over-budget page move, word for word, into new pages.

The original keeps its name, the part that is not moved, and a link to each
new part. Parts inherit the parent's `state` and `source`.
"""

from __future__ import annotations

import re

from gitgarden import wiki

__all__ = ["sections", "split_page", "heading_plan"]

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


def heading_plan(text: str, budget: int = wiki.PAGE_BUDGET) -> list[tuple[str, str, list[str]]]:
    """A model-free plan: move `##` sections, largest first, until the page fits its budget."""
    _, body = wiki.split_frontmatter(text)
    secs = [(h, "".join(lines)) for h, lines in sections(body) if h is not None]
    if len(secs) < 2 and not (secs and sections(body)[0][1] and "".join(sections(body)[0][1]).strip()):
        return []
    size = len(text)
    plan: list[tuple[str, str, list[str]]] = []
    keep = len(secs) if sections(body)[0][1] and "".join(sections(body)[0][1]).strip() else len(secs) - 1
    for heading, chunk in sorted(secs, key=lambda s: -len(s[1]))[:keep]:
        if size <= budget:
            break
        slug = wiki.slugify(heading) or "part"
        plan.append((slug, heading, [heading]))
        size -= len(chunk)
    return plan


def _is_nav(line: str) -> bool:
    return line.startswith("Split into [[")


def split_page(path: str, text: str, plan: list[tuple[str, str, list[str]]]) -> dict[str, str] | str:
    """New texts by path for the original and each part, or a sentence saying why not."""
    try:
        meta = wiki.read_meta(text)
    except wiki.PageError as exc:
        return f"{path} cannot be split: {exc}"
    block, body = wiki.split_frontmatter(text)
    nl = wiki.newline_of(text)
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
    source = wiki.source_days(meta)
    out: dict[str, str] = {}
    for name, title, _ in plan:
        moved = "".join(
            line for i, (_, lines) in enumerate(secs) if taken.get(i) == name for line in lines if not _is_nav(line)
        )
        head = wiki.new_page(title, "", state=state, source=source).replace("\n", nl)
        if moved and not moved.endswith("\n"):
            moved += nl
        out[wiki.page_path(name)] = head + moved
    # Earlier splits' "Split into" lines stay with the original, whichever section they ended in.
    rest = "".join(line for i, (_, lines) in enumerate(secs) for line in lines if i not in taken or _is_nav(line))
    if rest and not rest.endswith("\n"):
        rest += nl
    links = ", ".join(f"[[{name}]]" for name, _, _ in plan)
    sep = "" if rest.endswith(nl + nl) or not rest.strip() else nl
    out[path] = block + rest + sep + f"Split into {links}." + nl
    return out
