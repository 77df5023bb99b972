"""Hubs: pages that gather others so the map stays lean, with every page reachable through at most one hub."""

from __future__ import annotations

from gitgarden.project import Project
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import linking
from gitgarden.wiki import pages as wiki
from gitgarden.wiki.tidy import link_index, page_titles, reachable
from tests.helpers.project import FakeModel, commit_all, garden, git, page, write


def every_page_within_one_hub(project: Project) -> None:
    """Each page is listed by the map, or by a hub page the map lists."""
    tree = DiskTree(project.root, ["wiki"])
    titles = page_titles(tree)
    index = link_index(titles)
    map_text = (project.root / "wiki/index.md").read_text()
    direct = {index.resolve(lk.target) for lk in linking.find_links(map_text)}
    via_hub = set()
    for name in direct:
        if name and name in titles:
            text = (project.root / f"wiki/{name}.md").read_text()
            if "\nhub: true\n" in text or name == "map-pages":
                via_hub |= {index.resolve(lk.target) for lk in linking.find_links(text)}
    missing = set(titles) - direct - via_hub
    assert not missing, sorted(missing)[:10]
    assert set(titles) <= reachable(tree, index)


def test_a_thousand_pages_keep_a_map_under_its_ceiling_through_hubs(project: Project) -> None:
    words = ["acme", "bakery", "cellar", "delivery", "export", "flour", "grant", "harbour", "invoice", "kettle", "lease", "mill"]
    for i in range(1000):
        name = f"{words[i % len(words)]}-{i}"
        folder = "suppliers/" if i % 10 == 0 else ""
        write(project.root, f"wiki/{folder}{name}.md", page(f"{name.title()}", f"Note {i} about {words[i % len(words)]}.\n"))
    commit_all(project.root, "a year of pages")

    result = garden(project, None)

    assert result.outcome == "tidied", (result.detail, result.refusals)
    map_text = (project.root / "wiki/index.md").read_text()
    assert len(map_text) <= wiki.MAP_CEILING
    every_page_within_one_hub(project)
    assert (project.root / "wiki/map-suppliers.md").exists()  # a folder's pages gather in its hub
    for hub in (project.root / "wiki").glob("map-*.md"):
        assert len(hub.read_text()) <= wiki.PAGE_BUDGET, hub.name
    assert git(project.root, "status", "--porcelain", "wiki") == ""
    # Nothing left to do: the next pass finds the map and its hubs complete.
    assert garden(project, None).outcome == "nothing_new"

    # A new page later takes the room the hubs left in the map; the map still fits.
    write(project.root, "wiki/acme-2000.md", page("Acme 2000", "Another note about acme.\n"))
    commit_all(project.root, "one more")
    assert garden(project, None).outcome == "tidied"
    assert "[[acme-2000]]" in (project.root / "wiki/index.md").read_text()
    assert len((project.root / "wiki/index.md").read_text()) <= wiki.MAP_CEILING
    every_page_within_one_hub(project)


def test_promote_to_hub_moves_the_childrens_map_entries_into_a_new_hub(project: Project) -> None:
    for name, title in (("flour-mill", "Flour mill"), ("rye-supplier", "Rye supplier"), ("dana", "Dana")):
        write(project.root, f"wiki/{name}.md", page(title, f"{title} notes.\n"))
    entries = "- [[flour-mill]] — Flour mill\n- [[rye-supplier]] — Rye supplier\n- [[dana]] — Dana\n"
    write(project.root, "wiki/index.md", f"# Map\n\n## Pages\n\n{entries}\n## Open\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "Our suppliers are the flour mill and the rye supplier\n")
    model = FakeModel().enqueue({"operations": [
        {"op": "promote_to_hub", "page": "suppliers", "title": "Suppliers", "children": ["flour-mill", "rye-supplier"], "lines": ["2026-11-29#1"]},
    ]})

    result = garden(project, model)

    assert result.outcome == "pages_written", result.refusals
    hub = (project.root / "wiki/suppliers.md").read_text()
    assert "\nhub: true\n" in hub
    assert "- [[flour-mill]] — Flour mill\n- [[rye-supplier]] — Rye supplier\n" in hub  # moved word for word
    map_text = (project.root / "wiki/index.md").read_text()
    assert "[[flour-mill]]" not in map_text and "[[rye-supplier]]" not in map_text
    assert "- [[suppliers]] — Suppliers" in map_text and "- [[dana]] — Dana" in map_text
    every_page_within_one_hub(project)
    # The children are held by the hub: no pass lists them in the map again.
    assert garden(project, None).outcome == "nothing_new"


def test_promote_to_hub_refuses_to_turn_a_persons_page_into_a_hub(project: Project) -> None:
    for name in ("flour-mill", "rye-supplier", "suppliers"):
        write(project.root, f"wiki/{name}.md", page(name.title(), f"{name} notes.\n"))
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "Our suppliers are the flour mill and the rye supplier\n")
    before = (project.root / "wiki/suppliers.md").read_bytes()
    model = FakeModel().enqueue({"operations": [
        {"op": "promote_to_hub", "page": "suppliers", "title": "Suppliers", "children": ["flour-mill", "rye-supplier"], "lines": ["2026-11-29#1"]},
    ]}).enqueue({"operations": []})  # nothing corrected in the repair round
    result = garden(project, model)
    assert any("is not a hub" in r for r in result.refusals)
    assert (project.root / "wiki/suppliers.md").read_bytes() == before
