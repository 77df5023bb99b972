"""Deterministic measures of a wiki's health — no model, no I/O.

A pass records them before and after, so `gitgarden log` shows whether the
wiki got healthier: fewer orphans, no new broken links, no page over budget,
the map under its ceiling.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import date
from functools import lru_cache
from typing import Any

from gitgarden.wiki import layout, linking, pages
from gitgarden.wiki.facts import PageFacts, page_facts, resolved_targets
from gitgarden.wiki.pages import MAP_CEILING
from gitgarden.wiki.tree import Tree, text_of

__all__ = ["Health", "measure", "duplicate_pair", "dup_keys", "split_advice", "STALE_DAYS"]

STALE_DAYS = 60


@dataclass
class Health:
    """The figures; lists are sorted so two runs on the same wiki compare equal."""

    pages: int = 0
    orphans: list[str] = field(default_factory=list)  # no other page links to them (as Obsidian counts)
    unmapped: list[str] = field(default_factory=list)  # the map, and the hubs it links, do not reach them
    broken_links: list[tuple[str, str]] = field(default_factory=list)
    # Links to a page that exists, naming a heading (or block) it does not hold: Obsidian opens the page
    # at its top, so they count apart from the unresolved links Obsidian itself lists.
    broken_headings: list[tuple[str, str]] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    over_budget: list[str] = field(default_factory=list)
    map_chars: int = 0
    map_ceiling: int = MAP_CEILING
    stale: list[str] = field(default_factory=list)
    unread_lines: int = 0
    open_questions: int = 0
    malformed: list[str] = field(default_factory=list)
    # The person's pages over the budget: {"page", "chars", "cut": headings a split would move}.
    # Advice only: a pass never splits the person's page; `gitgarden split PAGE` does, when asked.
    split_advice: list[dict[str, Any]] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)  # pages marked superseded_by a newer page

    def summary(self) -> dict[str, int]:
        """The counts alone (what a pass records before and after)."""
        return {
            "pages": self.pages,
            "orphans": len(self.orphans),
            "unmapped": len(self.unmapped),
            "broken_links": len(self.broken_links),
            "broken_headings": len(self.broken_headings),
            "duplicates": len(self.duplicates),
            "over_budget": len(self.over_budget),
            "map_chars": self.map_chars,
            "stale": len(self.stale),
            "superseded": len(self.superseded),
            "unread_lines": self.unread_lines,
            "open_questions": self.open_questions,
        }

    def to_json(self) -> dict[str, Any]:
        """The figures as plain JSON data (pairs as lists): a shallow copy, where `asdict` copied every
        pair of thousands of duplicate candidates field by field."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = [list(v) if isinstance(v, tuple) else dict(v) if isinstance(v, dict) else v for v in value] if isinstance(value, list) else value
        return out


@lru_cache(maxsize=65_536)
def norm_words(text: str) -> str:
    """A name reduced for duplicate detection: lowercase words, no punctuation, singular-ish."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words)


@lru_cache(maxsize=65_536)
def dup_keys(label: str) -> tuple[str, ...]:
    """The bucket keys of a label: its reduced words, and the same words sorted (none when empty)."""
    key = norm_words(label)
    return (key, " ".join(sorted(key.split()))) if key else ()


def _duplicates(names: Mapping[str, list[str]]) -> list[tuple[str, str]]:
    """Pairs of pages whose name, title or alias reduce to the same key, or differ only by a word
    order or one extra word. Bucketed by key, so 5,000 pages cost no pairwise comparison."""
    by_key: dict[str, set[str]] = defaultdict(set)
    for page, labels in names.items():
        for label in labels:
            for key in dup_keys(label):
                by_key[key].add(page)
    pairs: set[tuple[str, str]] = set()
    for group in by_key.values():
        ordered = sorted(group)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                pairs.add((a, b))
    return sorted(pairs)


def split_advice(tree: Tree, name: str, chars: int) -> dict[str, Any]:
    """A person's over-budget page: its size and the `##` sections a split would move."""
    from gitgarden.wiki.split import heading_plan

    text = text_of(tree[pages.page_path(name)]) or ""
    return {"page": name, "chars": chars, "cut": [title for _, title, _ in heading_plan(text)]}


def duplicate_pair(a: tuple[str, Mapping[str, Any]], b: tuple[str, Mapping[str, Any]]) -> bool:
    """True when two pages (name, frontmatter) are duplicate candidates as `measure` counts them."""
    labels = {n: [n.rsplit("/", 1)[-1], str(m.get("title") or ""), *pages.aliases_of(m)] for n, m in (a, b)}
    return bool(_duplicates(labels))


def measure(tree: Tree, *, unread_lines: int = 0, today: date | None = None) -> Health:
    """Health figures for the wiki in `tree` (the wiki's paths in the layout in force)."""
    health = Health(unread_lines=unread_lines)
    facts: dict[str, PageFacts] = {}
    for path in tree:
        name = pages.page_name(path)
        if name is None:
            continue
        found_facts = page_facts(tree, path)
        if found_facts is None:
            continue
        facts[name] = found_facts
        if found_facts.meta is None:
            health.malformed.append(name)
    metas = {n: f.meta or {} for n, f in facts.items()}
    map_name = pages.map_name()
    page_names = [n for n in facts if n != map_name]
    health.pages = len(page_names)
    labels = {n: [n.rsplit("/", 1)[-1], str(metas[n].get("title") or ""), *pages.aliases_of(metas[n])] for n in page_names}
    here = layout.current()
    files = [here.wiki_relative(p) for p in tree if pages.is_attachment(p)]
    index = linking.LinkIndex(list(facts), {n: pages.aliases_of(metas[n]) for n in page_names}, attachments=files)
    links: dict[str, list[str]] = {}
    for name, page in facts.items():
        targets = []
        for target in page.targets:
            found = index.resolve(target)
            if found is not None:
                targets.append(found)
            elif index.attachment(target) is None:  # an embed of an image resolves by its file name
                health.broken_links.append((name, target))
        if page.md_targets:  # Markdown links, from the page's folder (Obsidian counts them alike)
            folder = linking.folder_of(name)
            for path in page.md_targets:
                found = index.resolve_md(path, folder)
                if found is not None:
                    targets.append(found)
                elif index.attachment_md(path, folder) is None:
                    health.broken_links.append((name, path))
        links[name] = targets
        for target, anchor in page.anchored:
            found = index.resolve(target)
            if found in facts and linking.anchor_key(anchor) not in facts[found].anchors:
                health.broken_headings.append((name, f"{target}#{anchor}"))
    seen = _reached(links, map_name)
    linked = {t for name, targets in links.items() for t in targets if t != name}
    if here.journal_in_wiki():
        # A vault's daily notes are the journal, not pages; a page they link to is no orphan
        # (Obsidian counts their links like any note's).
        for path in tree:
            if here.is_journal_file(path) and (day := page_facts(tree, path)) is not None:
                day_name = here.wiki_relative(path).removesuffix(".md")
                linked.update(t for _, t in resolved_targets(index, day, day_name) if t is not None)
    health.orphans = sorted(n for n in page_names if n not in linked)
    health.unmapped = sorted(n for n in page_names if n not in seen)
    health.broken_links.sort()
    health.broken_headings.sort()
    health.duplicates = _duplicates(labels)
    health.over_budget = sorted(n for n in page_names if facts[n].chars > pages.PAGE_BUDGET)
    health.split_advice = [split_advice(tree, n, facts[n].chars) for n in health.over_budget if not pages.is_gardeners(facts[n].meta)]
    health.superseded = sorted(n for n in page_names if metas[n].get("superseded_by"))
    map_text = (text_of(tree[pages.map_path()]) or "") if map_name in facts else ""
    health.map_chars = len(map_text)
    health.open_questions = len(pages.open_lines(map_text))
    if today is not None:
        health.stale = _stale(page_names, metas, today)
    return health


def _reached(links: dict[str, list[str]], map_name: str) -> set[str]:
    """The pages the map reaches through links, the map among them."""
    seen = {map_name}
    todo = [map_name]
    while todo:
        for target in links.get(todo.pop(), []):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def _stale(page_names: list[str], metas: dict[str, dict[str, Any]], today: date) -> list[str]:
    """The open pages (not superseded) whose newest source day is more than STALE_DAYS before `today`."""
    stale = []
    for name in page_names:
        meta = metas[name]
        if str(meta.get("state", "open")) != "open" or meta.get("superseded_by"):
            continue
        days = sorted(pages.source_days(meta))
        try:
            last = date.fromisoformat(days[-1]) if days else None
        except ValueError:
            last = None
        if last is not None and (today - last).days > STALE_DAYS:
            stale.append(name)
    return stale
