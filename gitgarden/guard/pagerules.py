"""Rules 7 to 11 of docs/guard.md, one function each: what the pages a change writes say — valid
frontmatter and sources, links that resolve, the budgets, contradictions left open, grounding.
Listed with rules 1 to 6 in `guard.rules.RULES`, which `check` runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from gitgarden.guard import plain
from gitgarden.guard.diff import Diff
from gitgarden.guard.names import meta_of
from gitgarden.guard.statemove import KNOWN_STATES, state_move, state_rank
from gitgarden.guard.text import find_links, find_md_links, line_key, same_line
from gitgarden.wiki import pages

__all__ = ["rule_budgets", "rule_contradictions", "rule_grounded", "rule_links_resolve", "rule_valid_pages"]

Finding = tuple[str, str, str]  # (path, why, offending line or "")


def rule_valid_pages(d: Diff) -> Iterator[Finding]:
    """7. Every page written parses, has a known state and a source naming journal days that
    exist; a new page starts open (a split part inherits its parent's state). What it writes shows
    what it says: no hidden character, no frontmatter block opening its body (`guard.plain`)."""
    yield from plain.hidden_findings(d)
    yield from plain.body_frontmatter_findings(d)
    for path, page in d.pages.items():
        if not page.front_changed or page.old_meta is None:
            continue
        if page.new_meta is None:
            yield path, "the page's frontmatter no longer parses", ""
            continue
        move = page.state_move
        judged = state_move(path, *move, d.ctx) if move else None
        if move and judged and judged[0] == 7:
            yield path, judged[1], f"state: {move[1]}"
        old_days = set(pages.source_days(page.old_meta))
        yield from _missing_days(d, path, sorted(set(pages.source_days(page.new_meta)) - old_days))
    for path, text in d.new_pages.items():
        meta = meta_of(text)
        if path == pages.map_path():  # the map needs no frontmatter
            if meta is None:
                yield path, "the map's frontmatter does not parse", ""
            continue
        if meta is None:
            yield path, "the new page's frontmatter does not parse", ""
            continue
        state = meta.get("state")
        parent = d.ctx.split_parents.get(path) if d.ctx is not None else d.parents.get(path)
        allowed = ["open"]
        if d.ctx is not None and parent is None and state_move(path, "open", state, d.ctx) is None:
            allowed.append(str(state))  # a page made from a decision line starts decided, the line quoted as evidence
        if parent is not None:
            inherited = [d.state_of(tree, parent) for tree in (d.base, d.proposed)]
            allowed = [s for s in inherited if state_rank(s) is not None] or allowed
        if state is None and parent is not None and d.state_of(d.base, parent) is None:
            pass  # a part of the person's note that has no state: it has none either
        elif state is None:
            yield path, "a new page starts with `state: open` in its frontmatter, and this one has none", ""
        elif state_rank(state) is None:
            yield path, f"state must be one of {KNOWN_STATES}", f"state: {state}"
        elif state not in allowed:
            why = f"a split part takes the state of {parent}" if parent else "a new page is open"
            yield path, why, f"state: {state}"
        yield from _missing_days(d, path, pages.source_days(meta))


def _missing_days(d: Diff, path: str, days: list[str]) -> Iterator[Finding]:
    for day in days:
        if d.missing_day(day):
            why = f"source names {day}, but {d.layout.day_path(day)} does not exist"
            yield path, why, f"source: {day}"


def rule_links_resolve(d: Diff) -> Iterator[Finding]:
    """8. Every link the change adds points to a page that exists after it."""
    for path in d.written_pages:
        page = d.pages.get(path)
        if page is None:  # a new page: every link in it is added
            body = d.new_bodies[path]
            added: list[tuple[int, Counter[str]]] = [(j, Counter()) for j in {*body.links, *body.md_links}]
        else:  # only lines the change touched can hold added links
            body = page.new
            added = [(j, Counter()) for j in page.fate.inserted if j in body.links or j in body.md_links]
            for i, j in page.fate.rewrapped:
                old = page.old[i]
                was = [old[lk.start : lk.end] for lk in find_links(old)]
                was += [old[md.start : md.end] for md in find_md_links(old)]
                added.append((j, Counter(was)))
        for j, before in sorted(added):
            line = body.lines[j]
            for lk in body.links.get(j, []):
                raw = line[lk.start : lk.end]
                if before[raw] > 0:
                    before[raw] -= 1
                elif d.resolve(lk.target) is None:
                    yield path, f"the link {raw} points to no page", line
            for md in body.md_links.get(j, []):  # a Markdown link, from the page's folder
                raw = line[md.start : md.end]
                if before[raw] > 0:
                    before[raw] -= 1
                elif d.resolve_md(md.path, path) is None:
                    yield path, f"the link {raw} points to no page or file", line


def rule_budgets(d: Diff) -> Iterator[Finding]:
    """9. No page written ends over 6,000 chars; the map ends ≤ 2,000 unless it was over
    before and did not grow. Open lines are never removed."""
    for path in d.written_pages:
        page = d.pages.get(path)
        new_text = page.new_text if page is not None else d.new_pages[path]
        old_text = d.texts(path)[0]
        limit = pages.MAP_CEILING if path == pages.map_path() else pages.PAGE_BUDGET
        old_len = len(old_text) if old_text is not None else 0
        # A page whose only change is links around its own words (a split's rewired heading link,
        # a wrapped mention) gains no text: a split is judged on the pages it writes, not on an
        # over-budget page that merely links into a section it moved.
        relinked = page is not None and not page.front_changed and not page.fate.inserted and not page.fate.left
        if len(new_text) > limit and not (old_len > limit and (len(new_text) <= old_len or relinked)):
            what = "the map's ceiling" if path == pages.map_path() else "the page budget"
            yield path, f"it ends at {len(new_text)} characters, over {what} of {limit}", ""
        if path == pages.map_path() and old_text is not None:
            yield from _open_lines_kept(path, old_text, new_text)


def _open_lines_kept(path: str, old_text: str, new_text: str) -> Iterator[Finding]:
    pool: dict[str, list[str]] = {}
    for line in pages.open_lines(new_text):
        pool.setdefault(line_key(line), []).append(line)
    for line in pages.open_lines(old_text):
        cands = pool.get(line_key(line), [])
        hit = next((c for c in cands if same_line(line, c, find_links(c), False)), None)
        if hit is None:
            yield path, "a line of the map's Open section was removed", line
        else:
            cands.remove(hit)


def rule_contradictions(d: Diff) -> Iterator[Finding]:
    """10. Contradictions are not settled: a decided page's state never changes and it gains
    no lines (but the links to its split parts); a contradiction becomes an Open line."""
    for path, page in d.pages.items():
        move = page.state_move
        judged = state_move(path, *move, d.ctx) if move else None
        if move and judged and judged[0] == 10:
            yield path, judged[1], f"state: {move[1]}"
        if not page.decided:
            continue
        parts = {pages.page_name(p) for p in d.moves[path].used}
        for j in page.fate.inserted:
            line = page.new.lines[j]
            if parts and (
                not line.strip()
                or any(d.resolve(lk.target) in parts for lk in page.new.links.get(j, []))
            ):
                continue
            why = "a decided page gets no new lines; a contradiction becomes an Open line"
            yield path, why, line


def rule_grounded(d: Diff) -> Iterator[Finding]:
    """11. Grounded: every sentence a pass writes traces to the lines its operation cites.

    Judged per operation by `grounding.check`, where the cited lines are known; two trees
    alone cannot say which lines a sentence came from, so nothing is found here.
    """
    return iter(())
