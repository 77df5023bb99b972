"""Keeping the wiki whole: splits, links, duplicates, contradictions, recovered lines, the map, health."""

from __future__ import annotations

from datetime import date

from gitgarden.project import Project
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import health, split
from gitgarden.wiki import pages as wiki
from gitgarden.wiki.tree import file
from tests.helpers.project import FakeModel, commit_all, garden, git, page, write

NO_CORRECTION = {"operations": []}  # the answer to a repair round that corrects nothing


def big_page(title: str = "Suppliers", parts: int = 6) -> str:
    sections = "".join(
        f"## Part {i}\n\n" + " ".join(f"Supplier {i} delivers on day {k}." for k in range(40)) + "\n\n" for i in range(parts)
    )
    return page(title, "Our suppliers, one section each.\n\n" + sections, source="[2026-11-28]", gardener=True)


def lines_of(text: str) -> list[str]:
    return [ln for ln in wiki.split_frontmatter(text)[1].splitlines() if ln.strip()]


def assert_verbatim_split(before: str, after: dict[str, str], original: str) -> None:
    """Every body line of `before` stands, in order, in the original or one of the parts."""
    pool = {p: lines_of(t) for p, t in after.items()}
    for line in lines_of(before):
        assert any(line in lines for lines in pool.values()), line
    for path, text in after.items():
        if path != original:
            assert f"[[{wiki.page_name(path)}]]" in after[original]
            body = lines_of(text)
            src = lines_of(before)
            positions = [src.index(ln) for ln in body]
            assert positions == sorted(positions), "a part's lines keep their order"


def test_a_9000_char_page_split_by_the_models_plan_is_verbatim() -> None:
    text = big_page(parts=9)
    assert len(text) > 9000
    out = split.split_page("wiki/suppliers.md", text, [("dairy", "Dairy", ["Part 1", "Part 2"]), ("flour", "Flour", ["Part 5"])])
    assert isinstance(out, dict)
    assert_verbatim_split(text, out, "wiki/suppliers.md")
    assert "state: open" in out["wiki/dairy.md"] and "source: [2026-11-28]" in out["wiki/dairy.md"]


def test_a_page_over_budget_split_at_its_headings_without_a_model() -> None:
    text = big_page(parts=9)
    plan = split.heading_plan(text)
    out = split.split_page("wiki/suppliers.md", text, plan)
    assert isinstance(out, dict)
    assert len(out["wiki/suppliers.md"]) <= wiki.PAGE_BUDGET
    assert_verbatim_split(text, out, "wiki/suppliers.md")


def test_split_refuses_a_plan_naming_a_missing_heading() -> None:
    assert split.split_page("wiki/s.md", big_page(), [("x", "X", ["Nope"])]) == "wiki/s.md has no `## Nope` section"


def test_a_split_through_the_pass_lands_and_passes_the_guard(project: Project, fake_model: FakeModel) -> None:
    write(project.root, "wiki/suppliers.md", big_page(parts=9))
    write(project.root, "raw/journal/2026-11-28.md", "Suppliers listed\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "Dairy moves to Tuesdays\n")
    fake_model.enqueue({"operations": [
        {"op": "split", "page": "suppliers", "parts": [{"page": "dairy", "title": "Dairy", "headings": ["Part 1", "Part 2"]}], "lines": []},
        {"op": "skip", "lines": ["2026-11-28#1", "2026-11-29#1"]},
    ]})
    before = (project.root / "wiki/suppliers.md").read_text()
    result = garden(project, fake_model)
    assert result.outcome == "pages_written", result.refusals
    after = {f"wiki/{p.name}": p.read_text() for p in (project.root / "wiki").glob("*.md") if p.name != "index.md"}
    assert "wiki/dairy.md" in after
    assert_verbatim_split(before, after, "wiki/suppliers.md")
    # What the model's plan left over budget was split at its headings after it.
    assert len(after["wiki/suppliers.md"]) <= wiki.PAGE_BUDGET


def test_link_wrapping_leaves_every_other_byte_equal(project: Project) -> None:
    write(project.root, "wiki/dana.md", page("Dana", "Dana runs operations.\n"))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[dana]]\n\n## Open\n")
    commit_all(project.root)
    body = "Met Dana at the mill.\r\nDana again, and `Dana` in code.\r\n"
    write(project.root, "wiki/mill.md", page("Mill", body, gardener=True).replace("\n", "\r\n").replace("\r\r\n", "\r\n"))
    commit_all(project.root)
    before = (project.root / "wiki/mill.md").read_bytes()
    result = garden(project, None)
    assert result.outcome == "tidied"
    after = (project.root / "wiki/mill.md").read_bytes()
    assert after == before.replace(b"Met Dana", b"Met [[dana|Dana]]", 1)


def test_create_page_of_an_existing_name_becomes_an_append(project: Project, fake_model: FakeModel) -> None:
    write(project.root, "wiki/acme.md", page("Acme", "Acme is the pilot customer.\n", source="[2026-11-28]"))
    write(project.root, "raw/journal/2026-11-28.md", "Acme is the pilot customer\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "Acme wants export before January\n")
    fake_model.enqueue({"operations": [
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme wants export before January.\n", "lines": ["2026-11-29#1"]},
        {"op": "skip", "lines": ["2026-11-28#1"]},
    ]})
    result = garden(project, fake_model)
    assert result.outcome == "pages_written", result.refusals
    text = (project.root / "wiki/acme.md").read_text()
    assert text.startswith("---\ntitle: Acme\nstate: open\nsource: [2026-11-28, 2026-11-29]\n---\nAcme is the pilot customer.\n")
    assert text.endswith("Acme wants export before January.\n")
    assert result.appended == ["wiki/acme.md"] and result.created == []


def test_a_contradiction_becomes_an_open_line_and_the_decided_page_is_not_edited(project: Project, fake_model: FakeModel) -> None:
    lease = page("Lease", "We decided on a 5-year lease minimum.\n", state="decided", source="[2026-11-25]")
    write(project.root, "wiki/lease.md", lease)
    write(project.root, "wiki/marta.md", page("Marta", "Marta is the landlord.\n", source="[2026-11-25]"))
    write(project.root, "raw/journal/2026-11-25.md", "Decided: 5-year lease minimum\nMarta is the landlord\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-28.md", "Marta now says a 3-year lease would be fine after all\n")
    fake_model.enqueue({"operations": [
        {"op": "append", "page": "lease", "text": "Marta now says a 3-year lease would be fine.\n", "lines": ["2026-11-28#1"]},
        {"op": "open_question", "text": "Marta now says 3 years would be fine: keep the decided 5-year lease?", "pages": ["lease", "marta"], "lines": ["2026-11-28#1"]},
        {"op": "skip", "lines": ["2026-11-25#1", "2026-11-25#2"]},
    ]}).enqueue(NO_CORRECTION)
    result = garden(project, fake_model)
    assert (project.root / "wiki/lease.md").read_text() == lease  # the append to a decided page is refused
    open_lines = wiki.open_lines((project.root / "wiki/index.md").read_text())
    assert open_lines == ["- Marta now says 3 years would be fine: keep the decided 5-year lease? ([[lease]], [[marta]])"]
    assert result.outcome == "some_refused"


def test_a_recovered_line_needs_verbatim_evidence(project: Project, fake_model: FakeModel) -> None:
    write(project.root, "raw/chat/call.md", "Dana: The health inspection is booked for 9 December.\nMe: great\n")
    write(project.root, "raw/journal/2026-11-29.md", "bought coffee filters\n")
    commit_all(project.root)
    fake_model.enqueue({"operations": [
        {"op": "recover_line", "text": "Health inspection booked for 9 December", "evidence": "The health inspection is booked for 9 December.", "lines": []},
        {"op": "recover_line", "text": "Dana's cousin can work Saturdays", "evidence": "Lea can work Saturday mornings", "lines": []},
        {"op": "skip", "lines": ["2026-11-29#1"]},
    ]}).enqueue(NO_CORRECTION)
    result = garden(project, fake_model)
    today = (project.root / "raw/journal/2026-11-30.md").read_text()
    assert today == '[recovered] Health inspection booked for 9 December (evidence: "The health inspection is booked for 9 December.")\n'
    assert any("evidence does not occur" in r for r in result.refusals)
    assert "raw/journal/2026-11-30.md" in git(project.root, "show", "--name-only", "HEAD")


def test_health_figures_on_a_wiki_with_known_orphans_and_broken_links() -> None:
    tree = {
        "wiki/index.md": file("# Map\n\n- [[a]]\n- [[hub]]\n\n## Open\n\n- Is b right? ([[a]])\n"),
        "wiki/a.md": file(page("A", "Links to [[missing-page]].\n", source="[2026-01-01]")),
        "wiki/hub.md": file(page("Hub", "- [[b]]\n", source="[2026-11-01]")),
        "wiki/b.md": file(page("B", "B.\n", state="decided")),
        "wiki/orphan.md": file(page("Orphan", "Nobody links here.\n")),
        "wiki/orphans.md": file(page("Orphans", "Nor here; a duplicate of orphan by name.\n")),
        "wiki/huge.md": file(page("Huge", "x" * 7000 + "\n")),
    }
    figures = health.measure(tree, unread_lines=3, today=date(2026, 11, 30))
    assert figures.pages == 6
    assert figures.orphans == ["huge", "orphan", "orphans"]
    assert figures.broken_links == [("a", "missing-page")]
    assert figures.duplicates == [("orphan", "orphans")]
    assert figures.over_budget == ["huge"]
    assert figures.stale == ["a"]
    assert figures.open_questions == 1 and figures.unread_lines == 3


def test_a_no_model_pass_moves_health_the_right_way(project: Project) -> None:
    write(project.root, "wiki/dana.md", page("Dana", "Dana runs ops.\n"))
    write(project.root, "wiki/mill.md", page("Mill", "The mill; ask Dana.\n"))
    commit_all(project.root)
    before = health.measure(DiskTree(project.root, ["wiki"]))
    garden(project, None)
    after = health.measure(DiskTree(project.root, ["wiki"]))
    assert len(before.orphans) == 2 and after.orphans == []
    assert after.broken_links == before.broken_links == []
    assert after.map_chars <= wiki.MAP_CEILING


def test_an_over_budget_page_is_split_at_its_headings_by_a_pass_without_a_model(project: Project) -> None:
    write(project.root, "wiki/suppliers.md", big_page(parts=9))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[suppliers]]\n\n## Open\n")
    write(project.root, "raw/journal/2026-11-28.md", "Suppliers listed\n")
    commit_all(project.root)
    before = (project.root / "wiki/suppliers.md").read_text()
    result = garden(project, None)
    assert result.outcome == "no_model", result.refusals  # one journal line waits for a model
    after = {f"wiki/{p.name}": p.read_text() for p in (project.root / "wiki").glob("*.md") if p.name != "index.md"}
    assert len(after["wiki/suppliers.md"]) <= wiki.PAGE_BUDGET
    assert_verbatim_split(before, after, "wiki/suppliers.md")
    figures = health.measure(DiskTree(project.root, ["wiki"]))
    assert figures.over_budget == [] and figures.orphans == []
    assert "Gardener-Health:" in git(project.root, "log", "-1", "--format=%B")


def test_an_append_that_would_push_a_page_over_budget_splits_it_first(project: Project, fake_model: FakeModel) -> None:
    text = big_page(parts=4)
    assert 4000 < len(text) < wiki.PAGE_BUDGET
    write(project.root, "wiki/suppliers.md", text)
    write(project.root, "raw/journal/2026-11-28.md", "Suppliers listed\n")
    commit_all(project.root)
    line = "Supplier 9 delivers on day 3 and on day 4 and on day 5 " * 20
    write(project.root, "raw/journal/2026-11-29.md", line.strip() + "\n")
    fake_model.enqueue({"operations": [
        {"op": "append", "page": "suppliers", "text": line.strip() + ".\n", "lines": ["2026-11-29#1"]},
        {"op": "skip", "lines": ["2026-11-28#1"]},
    ]})
    result = garden(project, fake_model)
    assert result.outcome == "pages_written", result.refusals
    assert result.split == ["suppliers"]
    assert len((project.root / "wiki/suppliers.md").read_text()) <= wiki.PAGE_BUDGET


def test_a_map_over_its_ceiling_is_pruned_verbatim_and_not_retried(project: Project) -> None:
    entries = "".join(f"- [[p{i}]] — page number {i} of the wiki\n" for i in range(60))
    for i in range(60):
        write(project.root, f"wiki/p{i}.md", page(f"Page {i}", f"Page {i}.\n"))
    prose = "This wiki is about the bakery.\n"
    write(project.root, "wiki/index.md", f"# Map\n\n{prose}\n## Pages\n\n{entries}\n## Open\n\n- Is p1 right? ([[p1]])\n")
    commit_all(project.root)
    assert len((project.root / "wiki/index.md").read_text()) > wiki.MAP_CEILING
    result = garden(project, None)
    assert result.outcome == "tidied", result.refusals
    new_map = (project.root / "wiki/index.md").read_text()
    hub = (project.root / "wiki/map-p.md").read_text()  # the hub of the pages named p…
    assert len(new_map) <= wiki.MAP_CEILING
    assert prose in new_map and "- [[map-p]] — Pages: P" in new_map
    assert "\nhub: true\n" in hub
    assert wiki.open_lines(new_map) == ["- Is p1 right? ([[p1]])"]
    assert all(line in hub for line in entries.splitlines())
    assert garden(project, None).outcome == "nothing_new"


def test_a_map_still_over_after_pruning_is_not_retried_until_it_grows(project: Project) -> None:
    prose = "".join(f"Paragraph {i} of the person's own long introduction to this wiki.\n" for i in range(40))
    write(project.root, "wiki/index.md", f"# Map\n\n{prose}\n## Pages\n\n## Open\n")
    write(project.root, "wiki/a.md", page("A", "A.\n"))
    commit_all(project.root)
    first = garden(project, None)
    assert first.outcome == "finished_without_writing"
    assert "not retried until it grows" in first.detail
    assert first.map_chars is not None and first.map_chars > wiki.MAP_CEILING
    assert garden(project, None).outcome == "nothing_new"


def test_a_recovered_line_is_refused_when_the_journal_already_says_it(project: Project, fake_model: FakeModel) -> None:
    write(project.root, "raw/chat/call.md", "Dana: The health inspection is booked for 9 December.\n")
    write(project.root, "raw/journal/2026-11-28.md", "Health inspection booked for 9 December\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "bought coffee filters\n")
    fake_model.enqueue({"operations": [
        {"op": "recover_line", "text": "The health inspection is booked for 9 December", "evidence": "The health inspection is booked for 9 December.", "lines": []},
        {"op": "skip", "lines": ["2026-11-28#1", "2026-11-29#1"]},
    ]}).enqueue(NO_CORRECTION)
    result = garden(project, fake_model)
    assert any("already says it" in r for r in result.refusals)
    assert not (project.root / "raw/journal/2026-11-30.md").exists()


def test_a_wiki_without_a_map_gets_one(project: Project) -> None:
    write(project.root, "wiki/dana.md", page("Dana", "Dana runs ops.\n"))
    (project.root / "wiki/index.md").unlink()
    commit_all(project.root, "my vault has no map")
    result = garden(project, None)
    assert result.outcome == "tidied", result.refusals
    new_map = (project.root / "wiki/index.md").read_text()
    assert "- [[dana]] — Dana" in new_map and "## Open" in new_map
