"""The wiki graph gives health's figures without reading the wiki again, and stays right as pages change.

`health.measure` reads every page; the graph keeps what the figures are made of and updates it
from the pages that changed. Whatever the changes — pages and attachments coming and going,
names two folders share, aliases, links in every spelling, the map itself — the graph's figures
must be the ones `measure` gives for the same tree.
"""

from __future__ import annotations

import random
from datetime import date

import pytest

from gitgarden.wiki import layout
from gitgarden.wiki.graph import WikiGraph
from gitgarden.wiki.health import Health, measure, split_advice
from gitgarden.wiki.tree import Entry, file, symlink

TODAY = date(2026, 11, 30)
NAMES = ["acme", "Acme Corp", "people/dana", "People/Dana", "dana", "notes/acme", "x/y/Zed", "hub-1", "pricing", "Old plan"]
ALIASES = ["Dana", "ACME", "the plan", "zed", "pricing", "Kessler"]
FILES = ["img/diagram.png", "diagram.png", "files/Report.pdf"]
DAYS = ["2026-09-01", "2026-11-29", "2026-13-40", "20261001"]


def _target(rng: random.Random) -> str:
    base = rng.choice(NAMES + ALIASES + FILES + ["nowhere", "index", "Map", "x/y/zed", "notes/ACME.md", "2026-11-29"])
    if rng.random() < 0.3:
        base = base.upper() if rng.random() < 0.5 else base.lower()
    if rng.random() < 0.1:
        base = f" {base} "
    return base


MD_PATHS = [
    "acme.md", "../acme.md", "people/dana.md", "/pricing.md", "Acme%20Corp.md", "<Acme Corp.md>", "Dana.md",
    "../../outside.md", "x/y/Zed.md", "nowhere.md", "diagram.png", "img/diagram.png", "../img/diagram.png",
    "Report.pdf", "2026-11-29.md", "../Daily%20notes/2026-11-29.md", "index.md", "the%20plan.md",
]  # fmt: skip


def _link(rng: random.Random) -> str:
    if rng.random() < 0.35:  # a Markdown link: by its path from the page's folder, never by an alias
        anchor = "#Terms" if rng.random() < 0.2 else ""
        bang = "!" if rng.random() < 0.1 else ""
        return f"{bang}[shown]({rng.choice(MD_PATHS)}{anchor})"
    target = _target(rng)
    anchor = rng.choice(["#Terms", "#terms", "#^terms", "#Nowhere"]) if rng.random() < 0.3 else ""
    shown = "|shown" if rng.random() < 0.2 else ""
    bang = "!" if rng.random() < 0.1 else ""
    return f"{bang}[[{target}{anchor}{shown}]]"


def _page(rng: random.Random, name: str) -> Entry:
    roll = rng.random()
    if roll < 0.04:
        return file(b"\xff\xfe not text")
    if roll < 0.06:
        return symlink("../elsewhere.md")
    lines = []
    if rng.random() < 0.85:
        meta = [f"title: {rng.choice([name.rsplit('/', 1)[-1], 'Acme', 'Dana', 'The Plan', 'Plans'])}"]
        meta.append(f"state: {rng.choice(['open', 'open', 'decided', 'hypothesis'])}")
        meta.append(f"source: [{', '.join(rng.sample(DAYS, rng.randint(0, 2)))}]")
        if rng.random() < 0.4:
            meta.append(f"aliases: [{', '.join(rng.sample(ALIASES, rng.randint(1, 2)))}]")
        if rng.random() < 0.1:
            meta.append('superseded_by: "[[acme]]"')
        if rng.random() < 0.2:
            meta.append("gardener: true")
        if rng.random() < 0.05:
            meta.append("title: [unclosed")
        lines += ["---", *meta, "---"]
    for _ in range(rng.randint(0, 6)):
        words = ["Some", "words", _link(rng) if rng.random() < 0.7 else "plain"]
        if rng.random() < 0.1:
            words.append(f"`{_link(rng)}` in code")
        lines.append(" ".join(words))
    if rng.random() < 0.08:
        lines += ["## Part one", "x" * 3500, "## Part two", "y" * 3000]
    if rng.random() < 0.4:  # a heading (or a block id) heading links may name
        lines += ["## Terms" if rng.random() < 0.7 else "A line to name. ^terms", "Monthly."]
    return file("\n".join(lines) + "\n")


def _map(rng: random.Random) -> Entry:
    entries = "".join(f"- {_link(rng)}\n" for _ in range(rng.randint(0, 5)))
    return file(f"# Map\n\n## Pages\n\n{entries}\n## Open\n\n- Is [[acme]] done?\n")


def _day(rng: random.Random) -> Entry:
    return file("".join(f"Talked about {_link(rng)}\n" for _ in range(rng.randint(1, 3))))


def _random_tree(rng: random.Random, here: layout.Layout) -> dict[str, Entry]:
    tree: dict[str, Entry] = {}
    for name in rng.sample(NAMES, rng.randint(3, len(NAMES))):
        tree[here.page_path(name)] = _page(rng, name)
    if rng.random() < 0.9:
        tree[here.map_path()] = _map(rng)
    for rel in rng.sample(FILES, rng.randint(0, len(FILES))):
        tree[here.wiki_prefix + rel] = file(b"\x89PNG")
    for day in ("2026-11-28", "2026-11-29"):
        tree[here.day_path(day)] = _day(rng)
    if here.at_root:
        tree["raw/chat/today.md"] = file("Not the wiki: [[acme]]\n")
        tree["AGENTS.md"] = file("Not a page: [[dana]]\n")
    return tree


def _change(rng: random.Random, tree: dict[str, Entry], here: layout.Layout) -> dict[str, Entry | None]:
    roll = rng.random()
    pages_now = [p for p in tree if here.page_name(p) is not None]
    if roll < 0.35 and pages_now:  # edit a page: a new link, a link gone, new frontmatter
        path = rng.choice(pages_now)
        name = here.page_name(path) or ""
        if rng.random() < 0.5 and (old := tree[path]).kind == "file":
            text = old.data.decode("utf-8", "replace")
            return {path: file(text + f"Added {_link(rng)}\n")}
        return {path: _page(rng, name) if path != here.map_path() else _map(rng)}
    if roll < 0.55:  # a page comes (perhaps back)
        name = rng.choice([*NAMES, "new/acme", "Pricing", "hub-2"])
        return {here.page_path(name): _page(rng, name)}
    if roll < 0.7 and pages_now:  # a page goes (the map too, sometimes)
        return {rng.choice(pages_now): None}
    if roll < 0.8:  # an attachment comes or goes
        path = here.wiki_prefix + rng.choice(FILES)
        return {path: None if path in tree else file(b"GIF89a")}
    if roll < 0.9:  # a daily note (its links count at the root)
        return {here.day_path("2026-11-30"): _day(rng)}
    return {here.map_path(): _map(rng) if rng.random() < 0.9 else None}


def _same(graph: WikiGraph, tree: dict[str, Entry]) -> None:
    want = measure(tree, today=TODAY)
    map_entry = tree.get(layout.current().map_path())
    map_text = map_entry.data.decode("utf-8") if map_entry is not None and map_entry.kind == "file" and b"\xff" not in map_entry.data else ""
    got = graph.health(map_text=map_text if want.map_chars else "", today=TODAY, advice=lambda n, c: split_advice(tree, n, c))
    want.malformed.sort()
    want.stale.sort()
    assert got == want, _differences(got, want)


def _differences(got: Health, want: Health) -> dict[str, tuple[object, object]]:
    return {k: (v, want.to_json()[k]) for k, v in got.to_json().items() if v != want.to_json()[k]}


@pytest.mark.parametrize("root", [False, True], ids=["wiki/", "root"])
@pytest.mark.parametrize("seed", range(12))
def test_the_graph_gives_the_figures_health_measures_through_every_change(seed: int, root: bool) -> None:
    rng = random.Random(seed)
    here = layout.Layout(".", "Daily notes") if root else layout.DEFAULT
    with layout.active(here):
        tree = _random_tree(rng, here)
        graph = WikiGraph(None, here)
        graph.build((p, e, "") for p, e in sorted(tree.items()))
        _same(graph, tree)
        for _ in range(40):
            changes = _change(rng, tree, here)
            if rng.random() < 0.3:  # a pass's writes: the figures with them, then without
                with graph.overlay(changes):
                    _same(graph, {p: e for p, e in {**tree, **changes}.items() if e is not None})
                _same(graph, tree)
            for path, entry in changes.items():
                graph.put(path, entry, "")
                if entry is None:
                    tree.pop(path, None)
                else:
                    tree[path] = entry
            _same(graph, tree)


def test_a_graph_built_for_another_layout_is_built_again(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "wiki.sqlite"
    with layout.active(layout.DEFAULT):
        graph = WikiGraph(path, layout.DEFAULT)
        graph.build([("wiki/acme.md", file("---\ntitle: Acme\nstate: open\n---\nHi\n"), "1")])
        graph.mark_synced("abc", {})
        assert graph.built and graph.signature("wiki/acme.md") == "1"
        graph.close()
    vault = layout.Layout(".", "Daily notes")
    again = WikiGraph(path, vault)
    assert not again.built and again.signature("wiki/acme.md") is None and again.synced() == (None, {})
