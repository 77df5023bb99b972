"""A vault stays the person's (issue 25), on the hand-made vault of tests/helpers/vault.py adopted in place:
Markdown links counted as Obsidian counts them, list settings that mean what they say, Obsidian's
own files outside the guard, a split judged on the pages it writes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from gitgarden.config import Settings, load_settings, parse_value
from gitgarden.errors import ConfigError
from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.guard import rules as guard
from gitgarden.guard import text as guardtext
from gitgarden.project import Project, init_project
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import hubs, layout, linking, split, tidy
from gitgarden.wiki.health import Health, measure
from gitgarden.wiki.pages import MAP_CEILING, PAGE_BUDGET
from gitgarden.wiki.tree import Entry, Overlay, file
from tests.helpers.project import (
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    git,
    invoke,
    workspace,
    write,
)
from tests.helpers.vault import (
    BUDGET,
    HISTORY,
    OBSIDIAN_VIEW,
    SYNC,
    WORKSPACE,
    build_help_vault,
    build_vault,
)


@pytest.fixture
def vault(tmp_path: Path) -> Project:
    """The vault at the top of its folder (it holds `.obsidian/`), adopted by `gitgarden init`."""
    root = tmp_path / "vault"
    build_vault(root, ".")
    project = Project(init_project(root).root)
    assert project.layout.wiki_dir == "." and project.layout.journal_dir == "Daily notes"
    return project


def garden(project: Project, model: FakeModel | None, settings: Settings | None = None) -> PassResult:
    return run_pass(project, settings or Settings(model="fake/scripted"), model=model, now=lambda: FIXED_NOW)


def tree_of(project: Project) -> DiskTree:
    return DiskTree(project.root, project.layout.tree_folders())


def check(project: Project, edits: dict[str, str], *, agent: bool = True) -> list[guard.Verdict]:
    base = tree_of(project)
    with layout.active(project.layout):
        return guard.check(base, Overlay(base, {p: file(t) for p, t in edits.items()}), agent=agent)


def read(project: Project, rel: str) -> str:
    return (project.root / rel).read_text(encoding="utf-8")


def gitgarden(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gitgarden", *args], cwd=root, capture_output=True, text=True, env=env)


def agent_commit(root: Path, *, author: str | None = None, agent: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if agent and author is None:
        env["GITGARDEN_AGENT"] = "an agent"
    git(root, "add", "-A")
    extra = ["--author", author] if author else []
    return subprocess.run(["git", "-C", str(root), "commit", "-qm", "change", *extra], capture_output=True, text=True, env=env)


# --- 2. Markdown links count as Obsidian counts them ------------------------------------------


def test_resolve_md_follows_obsidians_order_relative_then_from_the_top_then_by_file_name() -> None:
    index = linking.LinkIndex(
        ["Budget", "Projects/Budget", "Projects/Venue list", "Notes/Plan B"], attachments=["Attachments/a b.png"]
    )
    assert index.resolve_md("Budget.md", "Projects") == "Projects/Budget"  # its own folder first
    assert index.resolve_md("Budget.md", "Notes") == "Budget"  # then from the top
    assert index.resolve_md("../Budget.md", "Projects") == "Budget"
    assert index.resolve_md("Projects/Venue list.md", "Notes") == "Projects/Venue list"  # vault-absolute
    assert index.resolve_md("/Projects/Venue list.md", "Notes") == "Projects/Venue list"
    assert index.resolve_md("Plan B.md", "Projects") == "Notes/Plan B"  # a bare file name, anywhere
    assert index.resolve_md("Other/Plan B.md", "") is None  # a path names that path only
    assert index.resolve_md("../../Budget.md", "Projects") is None  # never out of the vault
    assert index.attachment_md("../Attachments/a b.png", "Projects") == "Attachments/a b.png"
    assert index.resolve_md("a b.png", "") is None  # a file is no page


def test_markdown_links_are_found_decoded_outside_code_urls_and_wiki_links() -> None:
    text = (
        "[a](Budget.md) [b](<Venue list.md>) [c](Plan%20B.md#Two%20words) ![d](x.png \"title\")\n"
        "[web](https://obsidian.md) [self](#Heading) `[code](Code.md)` [[Note]](not-a-link.md)\n"
        "```\n[fenced](Fenced.md)\n```\n[p](Note%20(draft).md)\n"
    )
    found = [(lk.path, lk.anchor, lk.embed) for lk in linking.find_md_links(text)]
    assert found == [
        ("Budget.md", "", False),
        ("Venue list.md", "", False),
        ("Plan B.md", "Two words", False),
        ("x.png", "", True),
        ("Note (draft).md", "", False),
    ]


def test_the_guards_markdown_link_finder_agrees_with_the_wikis() -> None:
    import random

    rnd = random.Random(25)
    alpha = ["`", "```", "~~~", " ", "\n", "\r\n", "a", "[[x]]", "[[", "]]", "#", "[a](b.md)", "[c](<d e.md>)",
             "](", "(", ")", "[", "]", "!", "%20", "<", ">", "http://q", "[x](#h)", "[t](f.md#H)", '"t"', "\\"]  # fmt: skip
    for _ in range(20000):
        t = "".join(rnd.choice(alpha) for _ in range(rnd.randint(0, 30)))
        ours = [(lk.start, lk.end, lk.path, lk.anchor) for lk in guardtext.find_md_links(t)]
        assert ours == [(lk.start, lk.end, lk.path, lk.anchor) for lk in linking.find_md_links(t)], t
        lo, hi = sorted(rnd.randint(0, len(t)) for _ in range(2))
        assert guardtext.find_md_links(t, lo, hi) == [lk for lk in guardtext.find_md_links(t) if lo <= lk.start < hi], t


def health(project: Project) -> Health:
    with layout.active(project.layout):
        return measure(tree_of(project))


def test_health_counts_markdown_links_as_obsidian_does(vault: Project) -> None:
    figures = health(vault)
    assert figures.broken_links == OBSIDIAN_VIEW["broken_links"]  # the one broken Markdown link, no URL, no image
    # Pages reached only through Markdown links are linked (the daily note is the journal here, no page).
    assert figures.orphans == [o for o in OBSIDIAN_VIEW["orphans"] if not o.startswith("Daily notes/")]
    data = json.loads(invoke(vault, "health", "--json").output)
    assert ["Projects/Budget", "Old sheet.md"] in data["broken_links"]
    for name in ("Projects/Budget", "Projects/Venue list", "Projects/Plan B"):
        assert name not in data["orphans"]


def test_a_page_the_map_reaches_only_through_markdown_links_is_mapped(vault: Project) -> None:
    write(vault.root, vault.layout.map_path(), "# Map\n\n## Pages\n\n- [[Start here]]\n\n## Open\n")
    unmapped = health(vault).unmapped
    assert not {"Projects/Budget", "Projects/Venue list", "Projects/Plan B"} & set(unmapped)
    assert "Orphan note" in unmapped


def test_the_guard_checks_the_markdown_links_an_agent_adds(vault: Project) -> None:
    old = read(vault, HISTORY)
    good = old + "See [the venues](../Projects/Venue%20list.md#Heading) and [plan](<../Projects/Plan B.md>), ![d](../Attachments/diagram.png), [web](https://x.org).\n"
    assert check(vault, {HISTORY: good}) == []
    bad = check(vault, {HISTORY: old + "See [the sheet](../Projects/Old%20sheet.md).\n"})
    assert [(v.rule, v.path) for v in bad] == [(8, HISTORY)] and "points to no page or file" in bad[0].message
    # A link that was there before is no added link, even when it is broken.
    budget = read(vault, BUDGET)
    assert check(vault, {BUDGET: budget + "More money.\n"}) == []


def test_a_split_rewires_markdown_heading_links_and_the_guard_agrees(vault: Project) -> None:
    write(vault.root, "Other.md", (
        "## Own\n\nSee [mine](#Own), [[#Own]], [cloud](<Obsidian Sync/Sync your notes across devices.md#iCloud>),\n"
        "[box](Obsidian%20Sync/Sync%20your%20notes%20across%20devices.md#Dropbox) and [setup](Sync%20your%20notes%20across%20devices#Setup).\n"
    ))  # fmt: skip
    commit_all(vault.root)
    base = tree_of(vault)
    with layout.active(vault.layout):
        out = split.split_in_tree(base, SYNC)
        assert isinstance(out, dict)
        assert out["Other.md"] == (
            "## Own\n\nSee [mine](#Own), [[#Own]], [cloud](<Obsidian Sync/iCloud.md#iCloud>),\n"
            "[box](Obsidian%20Sync/Sync%20your%20notes%20across%20devices.md#Dropbox) and [setup](iCloud#Setup).\n"
        )  # the moved sections' links point at the part; the rest, and the page's own heading, stay
        proposed = Overlay(base, {p: file(t) for p, t in out.items()})
        assert guard.check(base, proposed) == []
        assert measure(proposed).broken_links == measure(base).broken_links
        # A Markdown link left pointing into the moved section dangles: rule 5 says so.
        left = Overlay(base, {p: file(t) for p, t in out.items() if p != "Other.md"})
        assert any(v.rule == 5 and v.path == "Other.md" for v in guard.check(base, left))


def test_links_are_never_wrapped_inside_a_markdown_link(vault: Project) -> None:
    text = "Read [Start here](https://example.org/start) and [the plan](Projects/Plan%20B.md), then Start here.\n"
    assert linking.wrap_first_mention(text, "Start here", "Start here") == (
        "Read [Start here](https://example.org/start) and [the plan](Projects/Plan%20B.md), then [[Start here]].\n"
    )
    titles = {"Projects/Plan B": ("Plan B", []), "Projects/Budget": ("Budget", [])}
    tree = {"Projects/Budget.md": file("A [plan](Plan%20B.md) costs money; Plan B is cheaper.\n")}
    assert tidy.wrap_mentions(tree, ["Projects/Budget.md"], titles) == {}  # linked already, by a Markdown link


# --- 3. a list setting takes a list ----------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ('["* (aider)"]', ("* (aider)",)),
        ("['* (aider)', '*@bots.example.com']", ("* (aider)", "*@bots.example.com")),
        ("* (aider)", ("* (aider)",)),
        ("* (aider), codex", ("* (aider)", "codex")),
        (["* (aider)"], ("* (aider)",)),
        ("[]", ()),
    ],
)
def test_a_list_setting_takes_a_toml_or_json_list_and_plain_text(raw: object, value: tuple[str, ...]) -> None:
    assert parse_value("guard_agents", raw, where="test") == value


@pytest.mark.parametrize("raw", ["[* (aider)]", '["* (aider)"', "[1, 2]", '"* (aider)"]'])
def test_text_that_looks_like_a_list_but_is_not_one_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="looks like a list but is not one"):
        parse_value("guard_agents", raw, where="test")


def test_guard_agents_set_as_a_list_is_shown_as_one_and_matches_an_agents_commit(vault: Project) -> None:
    done = invoke(vault, "config", "set", "guard_agents", '["* (aider)"]')
    assert done.exit_code == 0, done.output
    assert 'guard_agents = ["* (aider)"]' in done.output
    assert invoke(vault, "config", "get", "guard_agents").output.splitlines()[0] == '["* (aider)"]'
    assert json.loads(invoke(vault, "config", "get", "guard_agents", "--json").output)["value"] == ["* (aider)"]
    refused = invoke(vault, "config", "set", "guard_agents", "[* (aider)]")
    assert refused.exit_code == 1 and "looks like a list" in refused.output
    assert read(vault, ".gitgarden/config.toml").count("guard_agents") == 1
    commit_all(vault.root, "settings")
    assert gitgarden(vault.root, "hook", "install").returncode == 0
    head = git(vault.root, "rev-parse", "HEAD")
    (vault.root / HISTORY).unlink()
    refused_commit = agent_commit(vault.root, author="Pat (aider) <pat@example.com>")
    assert refused_commit.returncode != 0 and "rule 2 (no-deletion)" in refused_commit.stdout + refused_commit.stderr
    assert git(vault.root, "rev-parse", "HEAD") == head


# --- 4. Obsidian's own files are outside the guard --------------------------------------------


def test_plain_guard_and_the_hook_are_silent_about_obsidians_files(vault: Project) -> None:
    git(vault.root, "add", ".obsidian")
    commit_all(vault.root, "Obsidian's settings")  # init leaves .obsidian/ as the person keeps it
    write(vault.root, WORKSPACE, '{"active": "Projects/Budget.md"}\n')
    write(vault.root, ".obsidian/plugins/x/data.json", "{}\n")
    done = gitgarden(vault.root, "guard")
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr
    assert gitgarden(vault.root, "hook", "install").returncode == 0
    head = git(vault.root, "rev-parse", "HEAD")
    committed = agent_commit(vault.root)
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert committed.stdout + committed.stderr == "" and git(vault.root, "rev-parse", "HEAD") != head


def test_an_agent_may_not_bring_in_code_obsidian_runs(vault: Project) -> None:
    git(vault.root, "add", ".obsidian")
    commit_all(vault.root, "Obsidian's settings")
    assert gitgarden(vault.root, "hook", "install").returncode == 0
    for code in (".obsidian/plugins/x/main.js", ".obsidian/snippets/wide.css", ".obsidian/themes/Dark/theme.css"):
        write(vault.root, code, "/* runs in Obsidian */\n")
        head = git(vault.root, "rev-parse", "HEAD")
        refused = agent_commit(vault.root)
        assert refused.returncode != 0 and code in refused.stdout + refused.stderr, refused.stdout + refused.stderr
        assert git(vault.root, "rev-parse", "HEAD") == head
        git(vault.root, "reset", "-q")
        (vault.root / code).unlink()
    # The person installs one: their commit passes, and plain `gitgarden guard` says nothing of it.
    write(vault.root, ".obsidian/plugins/x/main.js", "/* the person's plugin */\n")
    assert agent_commit(vault.root, agent=False).returncode == 0
    assert gitgarden(vault.root, "guard").returncode == 0


# --- 5. a split is judged on the pages it writes -----------------------------------------------


def test_a_split_is_not_refused_for_an_over_budget_page_that_links_into_it(vault: Project) -> None:
    # A page of the person's over the budget links into a section the split moves: the link is
    # rewired (it grows by the part's longer name), and that page is not what the split is judged on.
    filler = "Words of a long note that nobody has split yet. " * 130
    write(vault.root, "Getting started/Long reference.md", read(vault, "Getting started/Long reference.md").replace("## Hotkeys", "## Hotkeys and keyboard shortcuts"))
    write(vault.root, "Getting started/Functions.md", f"See [[Long reference#Hotkeys and keyboard shortcuts]].\n\n{filler}\n")
    commit_all(vault.root)
    done = invoke(vault, "split", "Long reference", "--yes")
    assert done.exit_code == 0, done.output
    assert read(vault, "Getting started/Functions.md").startswith("See [[Hotkeys and keyboard shortcuts#Hotkeys and keyboard shortcuts]].")
    # The budget still holds for a page whose text grows.
    functions = read(vault, "Getting started/Functions.md")
    grown = check(vault, {"Getting started/Functions.md": functions + "One more line.\n"}, agent=False)
    assert [v.rule for v in grown] == [9]



# --- 1. the gardener's own pages in one folder of its own -------------------------------------


def files_outside_bookkeeping(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    """The paths a pass added or changed, but for its records and read position."""
    return {p for p in after if before.get(p) != after[p] and not p.startswith(("log/", ".gitgarden/"))}


def test_the_first_model_free_pass_writes_only_the_map(vault: Project) -> None:
    before = workspace(vault.root)
    result = garden(vault, None, Settings())
    assert result.outcome == "no_model", (result.detail, result.refusals)  # the daily note waits for a model
    assert files_outside_bookkeeping(before, workspace(vault.root)) == {vault.layout.map_path()}
    assert health(vault).unmapped == []


def test_a_help_vault_of_173_notes_fits_its_map_without_a_hub(tmp_path: Path) -> None:
    root = tmp_path / "help"
    names = build_help_vault(root)
    project = Project(init_project(root).root)
    before = workspace(root)
    result = garden(project, None, Settings())
    assert result.outcome == "tidied", (result.detail, result.refusals)
    assert files_outside_bookkeeping(before, workspace(root)) == {"index.md"}  # no hub at the root or anywhere
    figures = health(project)
    assert figures.pages == len(names) and figures.unmapped == [] and figures.map_chars <= MAP_CEILING
    map_text = read(project, "index.md")
    for orphan in (n for n in names if "Unlinked note" in n):
        assert f"[[{orphan}]]" in map_text  # what nothing links to is listed; the rest is reached through it
    orphans = [n for n in names if "Unlinked note" in n]
    # Only what nothing links to takes an entry: the notes reached through others are reached there,
    # and the map keeps room for the gardener's pages and the Open questions (issue 33).
    assert result.job_figures["hubs"] == {"hubs": 0} and result.job_figures["map"]["entries"] == len(orphans)
    assert figures.map_chars <= MAP_CEILING * 3 // 4
    assert garden(project, None, Settings()).outcome == "nothing_new"


def test_a_large_vaults_hubs_go_in_the_gardeners_folder_never_for_one_or_two_pages(tmp_path: Path) -> None:
    root = tmp_path / "big"
    names = build_help_vault(root, notes=500, orphans=200)
    project = Project(init_project(root).root)
    before = workspace(root)
    result = garden(project, None, Settings())
    assert result.outcome == "tidied", (result.detail, result.refusals)
    made = files_outside_bookkeeping(before, workspace(root)) - {"index.md"}
    assert made and all(p.startswith("Gardener/") for p in made)  # nothing new among the person's folders
    for path in made:
        text = read(project, path)
        assert "\nhub: true\n" in text and len(text) <= PAGE_BUDGET
        assert text.count("\n- [[") >= 3, path  # never a hub for one or two pages
    assert result.job_figures["hubs"] == {"hubs": len(made)}
    figures = health(project)
    assert figures.pages == len(names) + len(made) and figures.unmapped == [] and figures.map_chars <= MAP_CEILING
    shown = invoke(project, "show").output
    assert f"hubs: hubs {len(made)}" in shown and "map: entries 0" not in shown
    assert garden(project, None, Settings()).outcome == "nothing_new"


def test_with_auto_hubs_off_no_hub_is_made_and_health_names_what_the_map_cannot_reach(tmp_path: Path) -> None:
    root = tmp_path / "big"
    build_help_vault(root, notes=300, orphans=120)
    project = Project(init_project(root).root)
    assert invoke(project, "config", "set", "auto_hubs", "false").exit_code == 0
    commit_all(root, "no hubs")
    before = workspace(root)
    result = garden(project, None, load_settings(root).settings)
    assert files_outside_bookkeeping(before, workspace(root)) == {"index.md"}
    figures = health(project)
    assert figures.map_chars <= MAP_CEILING and figures.unmapped  # the map lists what fits; health says the rest
    assert result.job_figures["hubs"] == {"hubs": 0}


def test_two_pages_the_full_map_has_no_room_for_get_no_hub() -> None:
    prose = "The person's own words about this vault, kept as written. " * 31
    tree: dict[str, Entry] = {"index.md": file(f"# Map\n\n{prose}\n\n## Pages\n\n## Open\n")}
    room = MAP_CEILING - len(tree["index.md"].data)
    new = [f"Notes/A new note with a rather long name, number {n}" for n in ("one", "two", "three")]
    assert 60 < room < 2 * len(f"- [[{new[0]}]] — {new[0][6:]}\n")  # a hub's line fits, two entries do not
    with layout.active(layout.Layout(".", "Daily notes")):
        for name in new[:2]:
            tree[f"{name}.md"] = file("A new note.\n")
        writes, added, unplaced = hubs.map_entries(tree, tidy.page_titles(tree), set())
        assert list(writes) == ["index.md"] and len(added) == 1 and len(unplaced) == 1  # what fits; health names the other
        tree[f"{new[2]}.md"] = file("A third.\n")
        writes, added, unplaced = hubs.map_entries(tree, tidy.page_titles(tree), set())
        assert sorted(writes) == ["Gardener/Pages in Notes.md", "index.md"] and sorted(added) == sorted(new) and not unplaced
        assert len(writes["index.md"].data) <= MAP_CEILING


def test_a_full_maps_prune_moves_its_entries_into_the_gardeners_folder(vault: Project) -> None:
    entries = "".join(f"- [[Start here]] — the start, as the person described it, line {i}\n" for i in range(3))
    names = [f"Projects/Idea {i}" for i in range(40)]
    for name in names:
        write(vault.root, f"{name}.md", f"{name} in a few words.\n")
    lines = entries + "".join(f"- [[{n}]] — {n.rsplit('/', 1)[-1]}, an idea of the person's\n" for n in names)
    write(vault.root, "index.md", f"# Map\n\nMy own words about the vault.\n\n## Pages\n\n{lines}\n## Open\n")
    commit_all(vault.root)
    before = workspace(vault.root)
    result = garden(vault, None, Settings())
    assert result.outcome == "no_model", (result.detail, result.refusals)
    made = files_outside_bookkeeping(before, workspace(vault.root)) - {"index.md"}
    assert made == {"Gardener/More pages.md"}  # one hub holds them all
    hub = read(vault, "Gardener/More pages.md")
    assert all(f"- [[{n}]] — {n.rsplit('/', 1)[-1]}, an idea of the person's" in hub for n in names)  # word for word
    assert "My own words about the vault." in read(vault, "index.md") and len(read(vault, "index.md")) <= MAP_CEILING


def test_a_new_page_in_a_vault_of_human_names_gets_its_titles_name_in_the_gardeners_folder(vault: Project, fake_model: FakeModel) -> None:
    capture(vault, "2026-11-29", "Ridge Roofing quoted the new roof", "Ridge Roofing starts in March, see the budget")
    commit_all(vault.root, "my day")
    capture(vault, "2026-11-29", "The new roof costs 9000 EUR, Ridge Roofing says")
    commit_all(vault.root, "more")
    fake_model.enqueue({"operations": [
        {"op": "create_page", "page": "ridge-roofing", "title": "Ridge Roofing", "body": "Ridge Roofing quoted the new roof.\n", "lines": ["2026-11-29#1"]},
        {"op": "append", "page": "ridge-roofing", "text": "Ridge Roofing starts in March.\n", "lines": ["2026-11-29#2"]},
        {"op": "create_page", "page": "new-roof", "title": "New roof", "body": "The new roof costs 9000 EUR, [[ridge-roofing|Ridge Roofing]] says.\n", "lines": ["2026-11-29#3"]},
    ]})  # fmt: skip
    result = garden(vault, fake_model)
    assert result.outcome == "pages_written", (result.refusals, result.detail)
    # The slug stays the operation's key: the append and the link reach the page by it.
    assert result.created == ["Gardener/Ridge Roofing.md", "Gardener/New roof.md"]
    text = read(vault, "Gardener/Ridge Roofing.md")
    assert "quoted the new roof" in text and "starts in March" in text
    assert "[[Ridge Roofing|Ridge Roofing]] says" in read(vault, "Gardener/New roof.md")
    assert "[[Gardener/Ridge Roofing]]" in read(vault, "index.md")
    assert not (vault.root / "ridge-roofing.md").exists()


def test_rule_3_lets_through_exactly_the_gardeners_human_names(vault: Project) -> None:
    base = tree_of(vault)

    def verdicts(path: str, title: str) -> list[int]:
        made = Overlay(base, {path: file(f"---\ntitle: {title}\nstate: open\nsource: []\ngardener: true\n---\nText.\n")})
        with layout.active(vault.layout):
            return [v.rule for v in guard.check(base, made, guard.PassContext())]

    assert verdicts("Gardener/Ridge Roofing.md", "Ridge Roofing") == []
    assert verdicts("Gardener/ridge-roofing.md", "Ridge Roofing") == []  # a slug, as ever
    assert verdicts("Ridge Roofing.md", "Ridge Roofing") == [3]  # a vault of folders: not among the person's notes
    assert verdicts("Projects/Ridge Roofing.md", "Ridge Roofing") == [3]
    assert verdicts("Gardener/Roofers.md", "Ridge Roofing") == [3]  # not its title's name
    assert verdicts("Gardener/Sub/Ridge Roofing.md", "Ridge Roofing") == [3]


def test_gardener_dir_is_a_setting_checked_where_it_is_set(vault: Project) -> None:
    for bad in ("../out", ".hidden", "/abs", "Daily notes", "log"):
        done = invoke(vault, "config", "set", "gardener_dir", bad)
        assert done.exit_code == 1 and "gardener_dir" in done.output, (bad, done.output)
    assert invoke(vault, "config", "set", "gardener_dir", "Tended/By gitgarden").exit_code == 0
    with layout.active(Project(vault.root).layout) as here:
        assert here.gardener_folder == "Tended/By gitgarden"
    assert invoke(vault, "config", "set", "gardener_dir", ".").exit_code == 0
    assert Project(vault.root).layout.gardener_folder == ""


# --- 6. every report says what happened ---------------------------------------------------------


def cli(root: Path, *args: str, clock: datetime | None = None) -> Any:
    from click.testing import CliRunner

    from gitgarden.cli.main import App
    from gitgarden.cli.main import cli as group

    cwd = os.getcwd()
    os.chdir(root)
    try:
        app = App(env=dict(os.environ), now=lambda: clock or FIXED_NOW, model_factory=lambda _s, _e: None)
        return CliRunner().invoke(group, list(args), obj=app)
    finally:
        os.chdir(cwd)


def test_status_counts_from_journal_from_even_after_a_tick_remembered_the_count(vault: Project) -> None:
    from gitgarden.schedule import registry

    capture(vault, "2026-10-01", "an old line", "another old line")
    capture(vault, "2026-11-29", "a new line")
    commit_all(vault.root, "my days")
    registry.register(vault.root, dict(os.environ))
    assert json.loads(cli(vault.root, "tick", "--json").output)["looked"] is True  # it remembers the count
    unread = json.loads(cli(vault.root, "status", "--json").output)["unread"]
    assert cli(vault.root, "config", "set", "journal_from", "2026-11-01").exit_code == 0
    now = json.loads(cli(vault.root, "status", "--json").output)["unread"]
    assert now == unread - 2  # the two lines of October go; the daily note of 27 November and today's stay
    health = json.loads(cli(vault.root, "health", "--json").output)
    assert health["unread_lines"] == now


def test_tick_says_how_many_projects_are_registered_when_it_does_not_look(vault: Project) -> None:
    from gitgarden.schedule import registry

    registry.register(vault.root, dict(os.environ))
    first = json.loads(cli(vault.root, "tick", "--json").output)
    again = json.loads(cli(vault.root, "tick", "--json").output)
    assert first["looked"] is True and first["registered"] == 1
    assert again["looked"] is False and again["reason"] == "interval" and again["registered"] == 1


def test_status_names_the_last_pass_from_the_records_when_this_machine_has_none(vault: Project) -> None:
    result = garden(vault, None, Settings())
    assert result.commit
    data = json.loads(cli(vault.root, "status", "--json").output)  # an unregistered project: no state kept
    assert data["last_pass_id"] == result.pass_id and data["last_outcome"] == result.outcome
    assert f"[{result.pass_id}]" in cli(vault.root, "status").output


def test_init_run_again_commits_only_the_notes_git_did_not_track_and_says_so(vault: Project) -> None:
    write(vault.root, "Projects/New idea.md", "An idea of mine.\n")
    again = cli(vault.root, "init", "--no-register")
    assert again.exit_code == 0 and "nothing changed" not in again.output
    assert "committed 1 of your files git did not track yet" in again.output and "Projects/New idea.md" in again.output
    assert git(vault.root, "log", "-1", "--format=%s%n%an").splitlines() == [
        "gitgarden init: 1 of your files git did not track yet", "Pat Person",
    ]  # fmt: skip
    assert "nothing changed" in cli(vault.root, "init", "--no-register").output


# --- 7. release references that exist ----------------------------------------------------------


def test_the_source_of_gitgarden_is_its_clones_remote_and_commit_not_a_tag(tmp_path: Path) -> None:
    from gitgarden.cli.ci import source_of

    clone = tmp_path / "gitgarden-clone"
    clone.mkdir()
    git(clone, "init", "-q")
    write(clone, "README.md", "gitgarden\n")
    commit_all(clone, "a commit")
    head = git(clone, "rev-parse", "HEAD").strip()
    local = source_of(json.dumps({"url": clone.as_uri(), "dir_info": {"editable": True}}))
    assert (local.url, local.clone, local.rev) == ("", clone, head)  # no remote: no URL a CI could clone
    git(clone, "remote", "add", "origin", "https://example.org/me/gitgarden.git")
    remote = source_of(json.dumps({"url": clone.as_uri(), "dir_info": {}}))
    assert (remote.url, remote.rev) == ("https://example.org/me/gitgarden.git", head)
    vcs = source_of(json.dumps({"url": "https://example.org/x.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}))
    assert (vcs.url, vcs.rev) == ("https://example.org/x.git", "abc123")
    assert source_of(None).rev == "" and source_of("not json").url == ""


def test_ci_init_fills_in_this_clone_and_names_no_tag_or_remote_that_is_not_there(vault: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitgarden.cli import ci

    monkeypatch.setattr(ci, "_installed_source", lambda: ci.Source("https://example.org/me/gitgarden.git", None, "abc1234def"))
    github = cli(vault.root, "ci", "init", "github")
    assert github.exit_code == 0
    assert 'pip install "gitgarden @ git+https://example.org/me/gitgarden.git@abc1234def"' in github.stdout
    assert "v0.2.0" not in github.stdout and "sets remote" not in github.stdout  # the project has none
    assert "gitgarden config set remote origin" in github.stdout
    assert cli(vault.root, "config", "set", "remote", "origin").exit_code == 0
    gitlab = cli(vault.root, "ci", "init", "gitlab")
    assert 'sets remote = "origin"' in gitlab.stdout and "git+https://example.org/me/gitgarden.git@abc1234def" in gitlab.stdout
    hooks = cli(vault.root, "ci", "init", "pre-commit")
    assert "repo: https://example.org/me/gitgarden.git" in hooks.stdout and "rev: abc1234def" in hooks.stdout
    monkeypatch.setattr(ci, "_installed_source", lambda: ci.Source("", None, ""))
    unknown = cli(vault.root, "ci", "init", "github")
    assert ci.URL_HOLE in unknown.stdout and ci.REV_HOLE in unknown.stdout and "No git URL is known" in unknown.stderr


# --- 8. smaller ----------------------------------------------------------------------------------


def test_split_completes_page_names_the_pages_over_budget_first(vault: Project) -> None:
    env = {**os.environ, "_GITGARDEN_COMPLETE": "bash_complete", "COMP_WORDS": "gitgarden split ", "COMP_CWORD": "2"}
    done = subprocess.run([sys.executable, "-m", "gitgarden"], cwd=vault.root, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    names = [line.split(",", 1)[1] for line in done.stdout.splitlines() if "," in line]
    over = {"Getting started/Long reference", "Obsidian Sync/Sync your notes across devices"}
    assert set(names[:2]) == over and "Projects/Venue list" in names and "index" not in names
    env["COMP_WORDS"] = "gitgarden split long"
    done = subprocess.run([sys.executable, "-m", "gitgarden"], cwd=vault.root, env=env, capture_output=True, text=True, timeout=60)
    assert [line.split(",", 1)[1] for line in done.stdout.splitlines() if "," in line] == ["Getting started/Long reference"]


def test_a_split_part_of_the_persons_note_gets_only_frontmatter_the_original_had(vault: Project) -> None:
    assert read(vault, "Getting started/Long reference.md").startswith("---\ntags: [reference]\n---\n")
    done = invoke(vault, "split", "Long reference", "--yes")
    assert done.exit_code == 0, done.output
    part = read(vault, "Getting started/Hotkeys.md")
    assert part.startswith("## Hotkeys") and "state:" not in part and "source:" not in part  # nothing the person never wrote
    write(vault.root, "Notes/Kept.md", "---\ntitle: Kept\nstate: decided\nsource: [2026-11-27]\n---\n" + read(vault, "Getting started/Long reference.md").split("---\n", 2)[2] * 2)
    commit_all(vault.root)
    assert invoke(vault, "split", "Kept", "--yes").exit_code == 0
    made = [p for p in git(vault.root, "show", "--name-only", "--format=", "HEAD").split() if p.startswith("Notes/") and "Kept" not in p]
    assert made and all(read(vault, p).startswith("---\ntitle: ") and "\nstate: decided\nsource: [2026-11-27]\n---\n" in read(vault, p) for p in made)
    assert all("gardener:" not in read(vault, p) for p in made)


def test_health_advice_for_a_long_note_without_sections_says_so_plainly(vault: Project) -> None:
    write(vault.root, "Notes/One long paragraph.md", "Words without any heading at all. " * 200 + "\n")
    commit_all(vault.root)
    out = invoke(vault, "health").output
    assert "Notes/One long paragraph is 6801 chars and has no `##` sections a split could move" in out
    assert "would move no" not in out
