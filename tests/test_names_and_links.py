"""Names and links a person's vault really holds: one name for two pages, a supersede the line does
not support, heading links to headings that hold `[`, `]` or `#`."""

from __future__ import annotations

from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.guard import rules as guard
from gitgarden.project import Project
from gitgarden.wiki import layout, split
from gitgarden.wiki.health import measure
from gitgarden.wiki.tree import Overlay, file
from tests.helpers.project import FIXED_NOW, FakeModel, capture, commit_all, invoke, page, write

DAY = "2026-11-30"


def garden(project: Project, *operations: dict[str, Any]) -> PassResult:
    model = FakeModel().enqueue({"operations": list(operations)})
    model.enqueue({"operations": [{"op": "skip", "lines": [f"{DAY}#1"]}]})  # the repair round, if any
    return run_pass(project, Settings(model="fake/scripted"), model=model, now=lambda: FIXED_NOW)


# -- item 21: one name, two pages -------------------------------------------------------------------


def test_an_ambiguous_page_name_is_refused_naming_both_pages(project: Project) -> None:
    write(project.root, "wiki/Work/Plan.md", page("Plan", "Ship the oven by March.\n"))
    write(project.root, "wiki/Home/Plan.md", page("Plan", "Paint the kitchen.\n"))
    commit_all(project.root)
    capture(project, DAY, "The plan now includes a second oven")
    before = {p: (project.root / p).read_text() for p in ("wiki/Work/Plan.md", "wiki/Home/Plan.md")}
    result = garden(project, {"op": "append", "page": "Plan", "text": "The plan now includes a second oven.\n", "lines": [f"{DAY}#1"]})
    assert result.appended == []
    refusal = result.refusals[0]
    assert "Home/Plan" in refusal and "Work/Plan" in refusal and "folder" in refusal
    assert {p: (project.root / p).read_text() for p in before} == before
    # Named with its folder, the same append lands.
    capture(project, DAY, "The work plan now includes a second oven")
    done = garden(project, {"op": "append", "page": "Work/Plan", "text": "The work plan now includes a second oven.\n", "lines": [f"{DAY}#2"]})
    assert done.appended == ["wiki/Work/Plan.md"], done.refusals


def test_split_refuses_an_ambiguous_page_name(project: Project) -> None:
    write(project.root, "wiki/Work/Plan.md", page("Plan", "x\n"))
    write(project.root, "wiki/Home/Plan.md", page("Plan", "y\n"))
    commit_all(project.root)
    done = invoke(project, "split", "Plan")
    assert done.exit_code == 1
    assert "Home/Plan" in done.stderr and "Work/Plan" in done.stderr


# -- item 22: supersede only what the line is about ---------------------------------------------------


def test_supersede_needs_a_line_about_the_page_it_marks(project: Project) -> None:
    write(project.root, "wiki/oven.md", page("Oven", "The deck oven costs 11,500 EUR.\n"))
    write(project.root, "wiki/lease.md", page("Lease", "A 5-year lease.\n"))
    commit_all(project.root)
    oven = (project.root / "wiki/oven.md").read_text()
    capture(project, DAY, "The new lease was signed on Friday")
    result = garden(project, {"op": "supersede", "page": "oven", "by": "lease", "lines": [f"{DAY}#1"]})
    assert (project.root / "wiki/oven.md").read_text() == oven
    assert result.refusals and "oven" in result.refusals[0].lower() and "name" in result.refusals[0]


def test_a_person_page_is_superseded_only_when_the_line_names_it(project: Project) -> None:
    write(project.root, "wiki/old-lease.md", page("Old lease", "A 3-year lease.\n"))
    write(project.root, "wiki/new-lease.md", page("New lease", "A 5-year lease.\n"))
    commit_all(project.root)
    capture(project, DAY, "The lease terms changed")  # a word of the title, but not the page
    result = garden(project, {"op": "supersede", "page": "old-lease", "by": "new-lease", "lines": [f"{DAY}#1"]})
    assert "superseded_by" not in (project.root / "wiki/old-lease.md").read_text(), result.outcome
    capture(project, DAY, "The new lease replaces the old lease")
    done = garden(project, {"op": "supersede", "page": "old-lease", "by": "new-lease", "lines": [f"{DAY}#2"]})
    assert 'superseded_by: "[[new-lease]]"' in (project.root / "wiki/old-lease.md").read_text(), done.refusals


def test_a_gardeners_page_is_superseded_by_a_line_with_a_word_of_its_title(project: Project) -> None:
    write(project.root, "wiki/oven-quote.md", page("Oven quote", "The deck oven costs 11,500 EUR.\n", gardener=True))
    write(project.root, "wiki/oven-order.md", page("Oven order", "Ordered the deck oven.\n", gardener=True))
    commit_all(project.root)
    capture(project, DAY, "The oven was ordered, the quote is settled")
    done = garden(project, {"op": "supersede", "page": "oven-quote", "by": "oven-order", "lines": [f"{DAY}#1"]})
    assert "superseded_by" in (project.root / "wiki/oven-quote.md").read_text(), done.refusals


# -- item 23: heading links to headings holding [, ] or # ----------------------------------------------


TEXT = page("Pricing", "Intro.\n\n## Costs [draft]\n\nOven 11,500 EUR.\n\n## Price #2\n\nPilot 400 EUR.\n")
OTHER = page("Other", "See [[pricing#Costs draft]] and [[pricing#Price 2|the price]] and [[pricing#Nowhere]].\n")


def test_a_split_rewires_heading_links_whose_heading_holds_brackets_or_a_hash() -> None:
    base = {"wiki/pricing.md": file(TEXT), "wiki/other.md": file(OTHER), "wiki/index.md": file("# Map\n\n## Pages\n\n## Open\n")}
    with layout.active(layout.DEFAULT):
        out = split.split_in_tree(base, "wiki/pricing.md", [["Costs [draft]"], ["Price #2"]])
        assert isinstance(out, dict), out
        parts = sorted(p for p in out if p not in base)
        assert len(parts) == 2
        other = out["wiki/other.md"]
        names = [p.removeprefix("wiki/").removesuffix(".md") for p in parts]
        assert "[[pricing#Costs draft]]" not in other and "[[pricing#Price 2|the price]]" not in other
        assert any(f"[[{n}#Costs draft]]" in other for n in names), other
        assert any(f"[[{n}#Price 2|the price]]" in other for n in names), other
        assert "[[pricing#Nowhere]]" in other  # it named no heading that moved
        proposed = Overlay(base, {p: file(t) for p, t in out.items()})
        assert guard.check(base, proposed, guard.PassContext(split_parents={p: "wiki/pricing.md" for p in parts})) == []


def test_health_counts_heading_links_to_headings_a_page_lacks() -> None:
    base = {"wiki/pricing.md": file(TEXT), "wiki/other.md": file(OTHER), "wiki/index.md": file("# Map\n\n## Pages\n\n## Open\n")}
    with layout.active(layout.DEFAULT):
        figures = measure(base)
    assert figures.broken_headings == [("other", "pricing#Nowhere")]
    assert figures.summary()["broken_headings"] == 1
    assert figures.broken_links == []  # the pages exist: Obsidian counts no unresolved link


@pytest.mark.parametrize("anchor", ["Costs draft", "costs  DRAFT", "Costs [draft]"])
def test_an_anchor_matches_its_heading_as_obsidian_strips_it(anchor: str) -> None:
    from gitgarden.wiki import linking

    assert linking.anchor_key(anchor) in linking.heading_anchors(["## Costs [draft]"])
