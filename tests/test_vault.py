"""The person's own Obsidian vault (issue 14): adopted in place, never restructured by a pass.

Every test builds the hand-made vault of tests/helpers/vault.py under wiki/ of a project.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.guard import rules as guard
from gitgarden.project import Project, init_project
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import linking, split
from gitgarden.wiki import pages as wiki
from gitgarden.wiki.health import measure
from gitgarden.wiki.tree import Overlay, file
from tests.helpers.project import (
    FakeModel,
    capture,
    commit_all,
    garden,
    git,
    invoke,
    page,
    workspace,
    write,
)
from tests.helpers.vault import (
    DAILY,
    HISTORY,
    OBSIDIAN_VIEW,
    ORPHAN,
    PNG,
    REFERENCE,
    START,
    SVG,
    SYNC,
    VAULT,
    build_vault,
)


@pytest.fixture
def vault(tmp_path: Path) -> Project:
    """The vault under wiki/ of an existing folder, then `gitgarden init` on that folder."""
    root = tmp_path / "vault"
    build_vault(root, "wiki")
    return Project(init_project(root).root)


def person_files(project: Project) -> dict[str, bytes]:
    return {k: v for k, v in workspace(project.root).items() if k.startswith("wiki/") and k != wiki.map_path()}


def tree_of(project: Project) -> DiskTree:
    return DiskTree(project.root, ["wiki", "raw/journal"])


# --- 8. init into an existing folder ------------------------------------------------------


def test_init_commits_the_vault_it_adopts_and_leaves_nothing_untracked(vault: Project) -> None:
    assert git(vault.root, "status", "--porcelain") == ""
    tracked = git(vault.root, "ls-files").splitlines()
    assert f"wiki/{SYNC}" in tracked and f"wiki/{PNG}" in tracked and "AGENTS.md" in tracked
    assert git(vault.root, "log", "-1", "--format=%an") == "Pat Person\n"  # the person's files, their name


def test_init_adds_the_turn_file_to_the_persons_own_gitignore(tmp_path: Path) -> None:
    tmp_path = tmp_path / "repo"
    tmp_path.mkdir()
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("secret.txt")  # no final newline
    init_project(tmp_path)
    assert (tmp_path / ".gitignore").read_text().startswith("secret.txt\n")
    (tmp_path / ".gitgarden" / "turn-in-flight").write_text("")
    assert git(tmp_path, "status", "--porcelain") == ""  # ignored, and the edit is committed
    before = (tmp_path / ".gitignore").read_bytes()
    init_project(tmp_path)
    assert (tmp_path / ".gitignore").read_bytes() == before  # never added twice


# --- 5 and 6. health as Obsidian sees the vault -------------------------------------------


def test_health_matches_what_obsidian_says_of_the_vault(vault: Project) -> None:
    figures = measure(tree_of(vault))
    assert figures.broken_links == OBSIDIAN_VIEW["broken_links"]  # embeds of attachments resolve
    assert figures.orphans == OBSIDIAN_VIEW["orphans"]
    assert "Getting started/Start here" in figures.unmapped  # the fresh map lists nothing yet
    assert figures.summary()["unmapped"] == len(figures.unmapped)


def test_health_json_has_orphans_unmapped_and_split_advice(vault: Project) -> None:
    import json

    result = invoke(vault, "health", "--json")
    data = json.loads(result.output)
    assert data["orphans"] == OBSIDIAN_VIEW["orphans"]
    assert "Orphan note" in data["unmapped"]
    advice = {a["page"]: a for a in data["split_advice"]}
    assert set(advice) == {"Getting started/Long reference", "Obsidian Sync/Sync your notes across devices"}
    assert advice["Obsidian Sync/Sync your notes across devices"]["cut"] and advice["Getting started/Long reference"]["chars"] > 6000
    text = invoke(vault, "health").output
    assert "advice: Obsidian Sync/Sync your notes across devices is" in text and "gitgarden split" in text


def test_attachments_resolve_by_file_name_in_any_folder_and_case() -> None:
    index = linking.LinkIndex(["a"], attachments=["Attachments/Lucide-Cog.svg", "x/diagram.png"])
    assert index.attachment("lucide-cog.svg") == "Attachments/Lucide-Cog.svg"
    assert index.attachment("Attachments/lucide-cog.svg") == "Attachments/Lucide-Cog.svg"
    assert index.attachment("diagram") is None and index.resolve("diagram.png") is None  # pages and files apart


def test_guard_accepts_an_embed_of_an_attachment_and_refuses_writing_one(vault: Project) -> None:
    base = tree_of(vault)
    text = (vault.root / "wiki" / HISTORY).read_text()
    added = Overlay(base, {f"wiki/{HISTORY}": file(text + "\n![[diagram.png|200]] and ![[LUCIDE-COG.svg#icon]]\n")})
    assert guard.check(base, added) == []
    svg = (vault.root / "wiki" / SVG).read_text()
    written = Overlay(base, {f"wiki/{SVG}": file(svg + "<!-- more -->\n")})
    assert [v.rule for v in guard.check(base, written)] == [4]


# --- 2 and 3. whose page it is; no restructuring of the person's notes --------------------


def test_a_pass_that_skips_everything_changes_and_creates_none_of_the_persons_notes(vault: Project, fake_model: FakeModel) -> None:
    capture(vault, "2026-11-29", "had lunch", "the weather was fine")
    before = person_files(vault)
    result = garden(vault, fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#1", "2026-11-29#2"]}]}))
    assert result.commit and result.marked_read == 2, (result.outcome, result.refusals, result.detail)
    assert person_files(vault) == before  # none changed, none created, none split
    assert result.split == [] and result.created == []
    assert result.health_after["unmapped"] < result.health_before["unmapped"]  # the map took entries
    assert "orphans" in result.health_after


def test_a_pass_without_a_model_splits_no_persons_page(vault: Project) -> None:
    before = person_files(vault)
    result = garden(vault, None, Settings())
    assert result.split == []
    assert person_files(vault) == before


def test_an_append_to_the_persons_note_adds_no_frontmatter_and_wraps_no_link(vault: Project, fake_model: FakeModel) -> None:
    capture(vault, "2026-11-29", "Version history keeps every change of the Orphan note for a year")
    reply = {"operations": [{"op": "append", "page": "Version history", "text": "Version history keeps every change for a year.\n", "lines": ["2026-11-29#1"]}]}
    result = garden(vault, fake_model.enqueue(reply))
    assert result.outcome == "pages_written", result.refusals
    text = (vault.root / "wiki" / HISTORY).read_text()
    assert text == VAULT[HISTORY] + "\nVersion history keeps every change for a year.\n"  # no frontmatter forced on it
    assert (vault.root / "wiki" / ORPHAN).read_bytes() == VAULT[ORPHAN].encode()  # not re-linked


def test_a_pass_touches_at_most_max_person_pages(vault: Project, fake_model: FakeModel) -> None:
    capture(vault, "2026-11-29", "Orphan note: Start here has news", "Version history: Start here has news", "Start here: Start here has news")
    ops = [
        {"op": "append", "page": name, "text": "Start here has news.\n", "lines": [f"2026-11-29#{i}"]}
        for i, name in enumerate(["Orphan note", "Version history", "Start here"], start=1)
    ]
    result = garden(vault, fake_model.enqueue({"operations": ops}).enqueue({"operations": []}), Settings(model="fake/scripted", max_person_pages=2))
    assert len(result.appended) == 2
    assert any("max_person_pages" in r for r in result.refusals)


def test_the_gardeners_own_page_over_budget_is_split_in_its_folder(vault: Project) -> None:
    body = "Intro.\n\n" + "".join(f"## Part {n}\n\n" + "Words about the part here. " * 100 + "\n\n" for n in range(4))
    write(vault.root, "wiki/Obsidian Sync/notes-on-sync.md", wiki.new_page("Notes on sync", body))
    commit_all(vault.root)
    before = person_files(vault)
    result = garden(vault, None, Settings())
    assert result.split == ["Obsidian Sync/notes-on-sync"]
    made = sorted(set(person_files(vault)) - set(before))
    assert made and all(p.startswith("wiki/Obsidian Sync/") for p in made)  # in the original's folder
    assert all(before[p] == person_files(vault)[p] for p in before if "notes-on-sync" not in p)


# --- 4. a split of the person's page, when asked -------------------------------------------


def test_split_command_shows_a_dry_run_then_commits_one_guarded_split(vault: Project) -> None:
    before = workspace(vault.root)
    dry = invoke(vault, "split", "Sync your notes across devices")
    assert dry.exit_code == 0, dry.output
    assert "[dry run]" in dry.output and "+++ b/wiki/Obsidian Sync/iCloud.md" in dry.output
    assert workspace(vault.root) == before
    done = invoke(vault, "split", "Sync your notes across devices", "--yes")
    assert done.exit_code == 0, done.output
    assert git(vault.root, "status", "--porcelain") == ""
    assert "Gardener-Outcome: split" in git(vault.root, "log", "-1", "--format=%B")
    part = (vault.root / "wiki" / "Obsidian Sync" / "iCloud.md").read_text()
    assert not part.startswith("---")  # the original has no frontmatter, so neither has its part
    assert "see [[Sync your notes across devices#Dropbox]] for another way" in part  # [[#Dropbox]] rewired
    start = (vault.root / "wiki" / START).read_text()
    assert "[[iCloud#iCloud]]" in start and "[[iCloud#^icloud-tip]]" in start
    assert "[[Sync your notes across devices#Dropbox|Dropbox sync]]" in start  # its section stayed
    figures = measure(tree_of(vault))
    assert figures.broken_links == OBSIDIAN_VIEW["broken_links"]  # every link still resolves


def test_a_split_keeps_every_heading_link_resolving_and_the_guard_agrees(vault: Project) -> None:
    base = tree_of(vault)
    path = f"wiki/{REFERENCE}"
    write(vault.root, "wiki/Hotkeys.md", "A page already named Hotkeys.\n")
    write(vault.root, "wiki/Other.md", "See [[Long reference#Hotkeys|the keys]] and [[long reference#plugins]].\n")
    base = tree_of(vault)
    out = split.split_in_tree(base, path, [["Hotkeys"], ["Plugins"]])
    assert isinstance(out, dict)
    parts = sorted(p for p in out if p not in base)
    assert parts == ["wiki/Getting started/Long reference - Hotkeys.md", "wiki/Getting started/Plugins.md"]  # no name taken twice
    assert out["wiki/Other.md"] == "See [[Long reference - Hotkeys#Hotkeys|the keys]] and [[Plugins#plugins]].\n"
    proposed = Overlay(base, {p: file(t) for p, t in out.items()})
    assert guard.check(base, proposed) == []
    assert guard.check(base, proposed, guard.PassContext(split_parents={p: path for p in parts})) == []


def test_guard_refuses_a_heading_link_pointed_at_another_anchor(vault: Project) -> None:
    base = tree_of(vault)
    text = (vault.root / "wiki" / START).read_text()
    other = text.replace("[[Sync your notes across devices#Dropbox|Dropbox sync]]", "[[Sync your notes across devices#Git|Dropbox sync]]")
    assert [v.rule for v in guard.check(base, Overlay(base, {f"wiki/{START}": file(other)}))] == [4]


def test_slug_folders_get_slug_parts(project: Project) -> None:
    write(project.root, "wiki/clients/acme.md", page("Acme", "x\n"))
    write(project.root, "wiki/clients/beta.md", page("Beta", "x\n"))
    tree = DiskTree(project.root, ["wiki"])
    assert split.part_names(tree, "wiki/clients/acme.md", ["Export Plans", "Beta"]) == [
        ("clients/export-plans", "export-plans"),
        ("clients/acme-beta", "acme-beta"),
    ]


def test_daily_notes_in_the_vault_are_pages_nobody_links_to(vault: Project) -> None:
    assert DAILY.removesuffix(".md") in measure(tree_of(vault)).orphans


# --- 7. a project inside a bigger repository ---------------------------------------------


def test_a_project_below_the_top_of_its_repository_runs_a_whole_pass(tmp_path: Path, fake_model: FakeModel) -> None:
    top = tmp_path / "repo"
    write(top, "src/app.py", "print('the repository holds other things')\n")
    git(top, "init", "-q")
    commit_all(top, "the repository's own work")
    build_vault(top / "notes", "wiki")
    project = Project(init_project(top / "notes").root)
    assert git(top, "status", "--porcelain") == ""  # the adopted vault is committed too
    write(top, "src/app.py", "print('uncommitted work elsewhere in the repository')\n")
    capture(project, "2026-11-29", "Version history keeps every change for a year")
    reply = {"operations": [{"op": "append", "page": "Version history", "text": "Version history keeps every change for a year.\n", "lines": ["2026-11-29#1"]}]}
    result = garden(project, fake_model.enqueue(reply))
    assert result.outcome == "pages_written", (result.refusals, result.detail)
    # The journal lines the pass read were committed first, under the person's name.
    assert git(top, "log", "-1", "--format=%an", "HEAD~1") == "Pat Person\n"
    assert git(top, "ls-files", "notes/raw/journal/2026-11-29.md") == "notes/raw/journal/2026-11-29.md\n"
    changed = [ln for ln in git(top, "show", "--name-only", "--format=", "HEAD").splitlines() if ln]
    assert f"notes/wiki/{HISTORY}" in changed and all(p.startswith("notes/") for p in changed)
    assert git(top, "status", "--porcelain") == " M src/app.py\n"  # the repository's other work untouched
    # The guard judges the project's paths from the project's root.
    verdicts = invoke(project, "guard", "--json")
    assert verdicts.exit_code == 0, verdicts.output
    # An uncommitted edit of a page is the person's: the next pass leaves that page alone.
    (project.root / "wiki" / HISTORY).write_text("my edit\n")
    capture(project, "2026-11-29", "Version history is kept for a year")
    again = {"operations": [{"op": "append", "page": "Version history", "text": "Version history is kept for a year.\n", "lines": ["2026-11-29#2"]}]}
    second = garden(project, fake_model.enqueue(again).enqueue({"operations": []}))
    assert (project.root / "wiki" / HISTORY).read_text() == "my edit\n"
    assert any("uncommitted changes of yours" in r for r in second.refusals)


def test_a_models_split_proposal_lands_in_the_pages_folder_and_rewires_links(vault: Project, fake_model: FakeModel) -> None:
    write(vault.root, "wiki/Keys.md", "Press the keys in [[Long reference#Hotkeys|the hotkeys list]].\n")
    commit_all(vault.root)
    capture(vault, "2026-11-29", "nothing to keep")
    fake_model.enqueue({"operations": [
        {"op": "split", "page": "Long reference", "parts": [{"page": "hotkeys", "title": "Hotkeys", "headings": ["Hotkeys"]}], "lines": []},
        {"op": "skip", "lines": ["2026-11-29#1"]},
    ]})
    result = garden(vault, fake_model)
    assert result.split == ["Long reference"], result.refusals
    part = (vault.root / "wiki" / "Getting started" / "hotkeys.md").read_text()
    assert "gardener: true" not in part  # a part of the person's page is theirs
    assert (vault.root / "wiki/Keys.md").read_text() == "Press the keys in [[hotkeys#Hotkeys|the hotkeys list]].\n"
    assert measure(tree_of(vault)).broken_links == OBSIDIAN_VIEW["broken_links"]


def test_a_models_split_part_may_not_take_another_pages_name_or_title(vault: Project, fake_model: FakeModel) -> None:
    capture(vault, "2026-11-29", "nothing to keep")
    fake_model.enqueue({"operations": [
        {"op": "split", "page": "Long reference", "parts": [{"page": "hotkeys", "title": "Version history", "headings": ["Hotkeys"]}], "lines": []},
        {"op": "skip", "lines": ["2026-11-29#1"]},
    ]}).enqueue({"operations": []})
    result = garden(vault, fake_model)
    assert result.split == [] and any("takes a name or title" in r for r in result.refusals)


def test_a_pass_neither_links_nor_sets_the_state_of_the_persons_page(vault: Project, fake_model: FakeModel) -> None:
    capture(vault, "2026-11-29", "Version history is decided: a year")
    before = person_files(vault)
    fake_model.enqueue({"operations": [
        {"op": "link", "page": "Orphan note", "phrase": "Nobody", "target": "Version history", "lines": ["2026-11-29#1"]},
        {"op": "set_state", "page": "Version history", "state": "decided", "evidence": "Version history is decided: a year", "lines": ["2026-11-29#1"]},
    ]}).enqueue({"operations": []})
    result = garden(vault, fake_model)
    assert person_files(vault) == before
    assert sum("is the person's page" in r for r in result.refusals) == 2


def test_undo_takes_a_requested_split_back(vault: Project) -> None:
    before = person_files(vault)
    assert invoke(vault, "split", "Sync your notes across devices", "--yes").exit_code == 0
    assert person_files(vault) != before
    log = invoke(vault, "log", "--json")
    assert "split" in log.output
    undone = invoke(vault, "undo")
    assert undone.exit_code == 0, undone.output
    assert person_files(vault) == before


def test_split_refuses_a_page_it_cannot_find_or_one_within_budget(vault: Project) -> None:
    missing = invoke(vault, "split", "No such page")
    assert missing.exit_code == 1 and "no page named 'No such page'" in missing.output
    small = invoke(vault, "split", "Version history")
    assert small.exit_code == 1 and "within its budget" in small.output


def test_guard_refuses_a_split_that_leaves_a_heading_link_dangling(vault: Project) -> None:
    base = tree_of(vault)
    out = split.split_in_tree(base, f"wiki/{SYNC}")
    assert isinstance(out, dict)
    parts = {p: f"wiki/{SYNC}" for p in out if p not in base}
    ctx = guard.PassContext(split_parents=parts)
    assert guard.check(base, Overlay(base, {p: file(t) for p, t in out.items()}), ctx) == []
    # The same split without the rewiring of Start here: its link into the moved section dangles.
    unwired = {p: file(t) for p, t in out.items() if p != f"wiki/{START}"}
    verdicts = guard.check(base, Overlay(base, unwired), ctx)
    assert {(v.rule, v.path) for v in verdicts} == {(5, f"wiki/{START}")}
    assert "[[Sync your notes across devices#iCloud]]" in {v.line for v in verdicts}
    # ...and without the rewiring of `[[#Dropbox]]` inside the moved text.
    part = next(iter(parts))
    raw = out[part].replace("[[Sync your notes across devices#Dropbox]]", "[[#Dropbox]]")
    verdicts = guard.check(base, Overlay(base, {**{p: file(t) for p, t in out.items()}, part: file(raw)}), ctx)
    assert [(v.rule, v.path, v.line) for v in verdicts] == [(5, part, "[[#Dropbox]]")]
