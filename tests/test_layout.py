"""The layout settings (issue 14, item 1): `wiki_dir` and `journal_dir`, and an Obsidian vault
adopted in place.

Every test that can runs in both layouts on the hand-made vault of tests/helpers/vault.py: the vault
under `wiki/`, and the vault at the project root with `wiki_dir = "."`. In both the journal is
the vault's own daily-notes folder, so the two are the same vault in two places.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.errors import ConfigError
from gitgarden.guard import rules as guard
from gitgarden.project import Project, find_project, init_project, of_root
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import layout
from gitgarden.wiki.health import measure
from gitgarden.wiki.layout import Layout
from gitgarden.wiki.tree import Overlay, file
from tests.helpers.project import (
    FIXED_LOG,
    FIXED_NOW,
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
    LAYOUTS,
    OBSIDIAN_VIEW,
    ORPHAN,
    START,
    SYNC,
    VAULT,
    at,
    build_vault,
    make_vault,
)

DAY = "2026-11-29"
# What the gardener keeps for itself: never a note of the person's.
BOOKKEEPING = (".gitgarden/", "log/")


@pytest.fixture(params=sorted(LAYOUTS))
def vault(request: pytest.FixtureRequest, tmp_path: Path) -> Project:
    return make_vault(tmp_path / "vault", request.param)


@pytest.fixture
def root_vault(tmp_path: Path) -> Project:
    return make_vault(tmp_path / "vault", "root")


def files(project: Project) -> dict[str, bytes]:
    return {p: d for p, d in workspace(project.root).items() if not p.startswith(BOOKKEEPING)}


def tree_of(project: Project) -> DiskTree:
    return DiskTree(project.root, project.layout.tree_folders())


# --- the Layout itself -------------------------------------------------------------------


def test_a_wiki_at_the_root_leaves_gitgardens_obsidians_and_the_journals_files_out() -> None:
    here = Layout(".", "Daily notes").with_identity(["AGENTS.md", "about/me.md"])
    assert here.map_path() == "index.md" and here.page_path("Orphan note") == "Orphan note.md"
    assert here.page_name("Obsidian Sync/Version history.md") == "Obsidian Sync/Version history"
    for path in ("raw/journal/2026-11-29.md", "log/x.md", ".gitgarden/x.md", ".obsidian/x.md", ".trash/old.md",
                 ".github/x.md", "Daily notes/2026-11-29.md", "AGENTS.md", "about/me.md"):
        assert here.page_name(path) is None and not here.in_wiki(path), path
    assert here.in_wiki("Attachments/diagram.png") and here.is_journal_file("Daily notes/2026-11-29.md")
    assert here.day_path(DAY) == "Daily notes/2026-11-29.md"
    default = Layout()
    assert default.page_name("wiki/a.md") == "a" and default.page_name("AGENTS.md") is None
    assert default.map_path() == "wiki/index.md" and default.day_path(DAY) == f"raw/journal/{DAY}.md"


@pytest.mark.parametrize(
    ("table", "why"),
    [
        ({"wiki_dir": "/abs"}, "relative"),
        ({"wiki_dir": "../up"}, "no .."),
        ({"journal_dir": "notes\\daily"}, "not \\"),
        ({"journal_dir": ".git/x"}, "keeps for itself"),
        ({"journal_dir": ".gitgarden"}, "keeps for itself"),
        ({"wiki_dir": "log"}, "keeps for itself"),
        ({"journal_dir": "."}, "may not be the project root"),
        ({"wiki_dir": "notes", "journal_dir": "notes"}, "a folder of its own"),
        ({"wiki_dir": 3}, "must be a folder"),
    ],
)
def test_a_bad_layout_is_one_clear_line(table: dict[str, object], why: str) -> None:
    with pytest.raises(ConfigError) as exc:
        layout.from_table(table, where="config.toml")
    assert why in str(exc.value) and "\n" not in str(exc.value)


def test_a_listing_of_the_root_skips_reserved_folders_and_lists_the_journal_once(root_vault: Project) -> None:
    write(root_vault.root, "raw/chat/x.md", "chat\n")
    write(root_vault.root, ".trash/old.md", "gone\n")
    tree = tree_of(root_vault)
    assert DAILY in tree and ORPHAN in tree and "index.md" in tree
    assert not [p for p in tree if p.startswith((".git", ".obsidian", ".trash", "log/", "raw/", ".gitgarden"))]
    assert len(list(tree)) == len(set(tree))


# --- settings ----------------------------------------------------------------------------


def test_config_sets_and_lists_the_layout_and_refuses_bad_values(project: Project) -> None:
    write(project.root, "notes/a.md", "A note.\n")
    config = project.root / ".gitgarden" / "config.toml"
    done = invoke(project, "config", "set", "journal_dir", "Daily notes")
    assert done.exit_code == 0, done.output
    assert invoke(project, "config", "get", "journal_dir").output.startswith("Daily notes\n")
    listed = json.loads(invoke(project, "config", "list", "--json").output)
    assert listed["journal_dir"]["value"] == "Daily notes" and listed["journal_dir"]["source"] == "project"
    assert listed["wiki_dir"] == {**listed["wiki_dir"], "value": "wiki", "source": "default"}
    before = config.read_bytes()
    for args, why in (
        (["--user", "wiki_dir", "notes"], "a project's own setting"),
        (["wiki_dir", "../elsewhere"], "may not leave the project"),
        (["wiki_dir", "nowhere"], "no such folder"),
        (["journal_dir", "wiki"], "a folder of its own"),
        (["journal_dir", "log/days"], "keeps for itself"),
    ):
        refused = invoke(project, "config", "set", *args)
        assert refused.exit_code == 1 and why in refused.output, (args, refused.output)
        assert refused.output.count("\n") == 1
    assert config.read_bytes() == before  # nothing written
    moved = invoke(project, "config", "set", "wiki_dir", "notes")
    assert moved.exit_code == 0, moved.output
    assert find_project(project.root).layout.page_name("notes/a.md") == "a"


def test_the_layout_in_the_user_file_or_the_environment_is_ignored(project: Project) -> None:
    from gitgarden.config import user_config_path

    user = user_config_path({})  # the file `invoke`'s environment names
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('wiki_dir = "."\n')
    listed = invoke(project, "config", "list", "--json")
    assert json.loads(listed.stdout)["wiki_dir"]["value"] == "wiki"
    assert "wiki_dir is ignored here" in listed.stderr
    assert find_project(project.root).layout.wiki_dir == "wiki"


def test_unsetting_wiki_dir_is_refused_where_the_default_folder_is_missing(root_vault: Project) -> None:
    config = root_vault.root / ".gitgarden" / "config.toml"
    before = config.read_bytes()
    refused = invoke(root_vault, "config", "unset", "wiki_dir")
    assert refused.exit_code == 1 and "does not have" in refused.output
    assert config.read_bytes() == before and find_project(root_vault.root).layout.at_root


@pytest.mark.parametrize("kind", sorted(LAYOUTS))
def test_find_project_from_inside_the_vault(tmp_path: Path, kind: str) -> None:
    project = make_vault(tmp_path / "vault", kind)
    inside = project.root / project.layout.wiki_prefix / "Obsidian Sync"
    found = find_project(inside)
    assert found.root == project.root and found.layout.wiki_dir == LAYOUTS[kind].wiki_dir
    assert found.wiki == (project.root if kind == "root" else project.root / "wiki")
    assert found.map == project.root / at(project, "index.md")


# --- init of an Obsidian vault -----------------------------------------------------------


def test_init_adopts_an_obsidian_vault_in_place_and_moves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "vault"
    build_vault(root, ".")
    write(root, ".obsidian/daily-notes.json", json.dumps({"folder": "Daily notes", "format": "YYYY-MM-DD"}))
    write(root, ".gitignore", ".obsidian/workspace.json")
    before = workspace(root)
    monkeypatch.chdir(tmp_path)
    done = subprocess.run([sys.executable, "-m", "gitgarden", "init", "--no-register", str(root)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "adopted the Obsidian vault in place: wiki_dir = ., journal_dir = Daily notes" in done.stderr
    after = workspace(root)
    assert {p: after[p] for p in before if p != ".gitignore"} == {p: d for p, d in before.items() if p != ".gitignore"}
    assert after[".gitignore"].startswith(before[".gitignore"] + b"\n")  # the person's lines kept
    made = sorted(set(after) - set(before))
    assert made == [".gitgarden/config.toml", "index.md", "log/.gitkeep"]
    assert not (root / "wiki").exists() and not (root / "raw").exists() and not (root / "AGENTS.md").exists()
    assert of_root(root) == Layout(".", "Daily notes").with_identity(["AGENTS.md"])
    assert git(root, "status", "--porcelain") == "?? .obsidian/\n"  # notes adopted; Obsidian's settings left alone
    assert f"{SYNC}\n" in git(root, "ls-files")
    again = init_project(root)
    assert again.created == [] and workspace(root) == after


def test_init_keeps_the_vaults_own_index_and_reads_other_daily_note_settings(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    write(root, "index.md", "# My own index\n")
    write(root, "Journal/Days/2026-11-27.md", "- a day\n")
    write(root, ".obsidian/daily-notes.json", json.dumps({"folder": "Journal/Days/", "format": "DD.MM.YYYY"}))
    report = init_project(root)
    assert (root / "index.md").read_text() == "# My own index\n"
    assert of_root(root).journal_dir == "Journal/Days"
    assert any("'DD.MM.YYYY'" in n and "YYYY-MM-DD" in n for n in report.notes)

    other = tmp_path / "plain"
    write(other, ".obsidian/app.json", "{}")
    report = init_project(other)
    assert of_root(other).journal_dir == "Daily notes" and (other / "Daily notes").is_dir()
    assert any("vault root" in n for n in report.notes)


def test_a_vaults_own_index_stays_the_persons_and_the_map_gets_a_page_of_its_own(tmp_path: Path, fake_model: FakeModel) -> None:
    root = tmp_path / "vault"
    build_vault(root, ".")
    write(root, ".obsidian/daily-notes.json", json.dumps({"folder": "Daily notes"}))
    write(root, "index.md", f"# My index\n\nStart at [[{START}]].\n")
    write(root, "Map.md", "A map of the valley, not of the wiki.\n")
    report = init_project(root)
    project = Project(report.root)
    assert project.layout.map_path() == "Gardener map.md"  # "Map" is taken by a note of the person's
    assert any("index.md stays yours" in n for n in report.notes)
    assert (root / "Gardener map.md").read_text().startswith("# Map")
    own = {p: (root / p).read_bytes() for p in ("index.md", "Map.md")}

    capture(project, DAY, "had lunch")
    commit_all(root, "my day")
    result = garden(project, fake_model.enqueue({"operations": [{"op": "skip", "lines": [f"{DAY}#1", "2026-11-27#1"]}]}))
    assert result.commit, (result.outcome, result.refusals, result.detail)
    assert {p: (root / p).read_bytes() for p in own} == own
    changed = git(root, "show", "--name-only", "--format=", "HEAD").splitlines()
    assert all(p == "Gardener map.md" or p.startswith(BOOKKEEPING) for p in changed), changed
    with layout.active(project.layout):
        figures = measure(tree_of(project))
    assert figures.map_chars == len((root / "Gardener map.md").read_text())
    assert figures.pages == 10  # the vault's eight notes, and the person's index and Map: pages like any
    assert "[[index]]" in (root / "Gardener map.md").read_text() and not figures.unmapped


def test_moving_the_wiki_onto_a_persons_index_says_so_and_names_the_remedy(project: Project) -> None:
    write(project.root, "notes/index.md", "# My index\n\nWhere I start.\n")
    done = invoke(project, "config", "set", "wiki_dir", "notes")
    assert done.exit_code == 0, done.output
    assert "notes/index.md is now the map" in done.output and "gitgarden config set map_page Map" in done.output
    done = invoke(project, "config", "set", "map_page", "Map")
    assert done.exit_code == 0 and "is now the map" not in done.output  # no such note: init-style map to come
    done = invoke(project, "config", "set", "wiki_dir", "wiki")
    assert done.exit_code == 0 and "is now the map" not in done.output  # wiki/Map.md: none there either
    done = invoke(project, "config", "set", "map_page", "index")
    assert done.exit_code == 0 and "is now the map" not in done.output  # wiki/index.md is gitgarden's own map


def test_map_page_is_a_note_name_set_in_the_project(vault: Project) -> None:
    done = invoke(vault, "config", "set", "map_page", "notes/Map")
    assert done.exit_code != 0 and "map_page must be a note name" in done.output
    done = invoke(vault, "config", "set", "--user", "map_page", "Map")
    assert done.exit_code != 0 and "project's own setting" in done.output
    assert invoke(vault, "config", "set", "map_page", "Map").exit_code == 0
    assert find_project(vault.root).layout.map_path() == at(vault, "Map.md")


# --- capture, unread lines, status -------------------------------------------------------


def test_init_names_the_waiting_daily_notes_and_journal_from_leaves_them_unoffered(tmp_path: Path, fake_model: FakeModel) -> None:
    from click.testing import CliRunner

    from gitgarden.cli.main import App, cli

    root = tmp_path / "vault"
    build_vault(root, ".")
    write(root, ".obsidian/daily-notes.json", json.dumps({"folder": "Daily notes"}))
    app = App(env={}, now=lambda: FIXED_NOW, model_factory=lambda s, e: None)
    done = CliRunner().invoke(cli, ["init", "--no-register", str(root)], obj=app)
    assert done.exit_code == 0, done.output
    assert "1 journal line(s) in 1 day file(s), from 2026-11-27 on, wait to be read" in done.output
    assert "gitgarden config set journal_from 2026-11-30" in done.output
    project = Project(root)
    assert invoke(project, "config", "set", "journal_from", "2026-11-30").exit_code == 0
    daily = (root / DAILY).read_bytes()

    capture(project, "2026-11-30", "Version history keeps a year")
    commit_all(root, "my day")
    assert json.loads(invoke(project, "status", "--json").output)["unread"] == 1  # the old daily note waits no more
    result = garden(project, fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-30#1"]}]}))
    assert result.marked_read == 1, (result.outcome, result.detail)
    assert "Looked at" not in fake_model.prompt and "Version history keeps a year" in fake_model.prompt
    assert (root / DAILY).read_bytes() == daily  # history left as it was, in the person's daily note

    assert invoke(project, "config", "unset", "journal_from").exit_code == 0
    assert json.loads(invoke(project, "status", "--json").output)["unread"] == 1  # offered again: nothing was lost


def test_a_daily_note_git_ignores_is_never_read_nor_committed(vault: Project, fake_model: FakeModel) -> None:
    private = capture(vault, DAY, "my private worries")
    write(vault.root, ".gitignore", (vault.root / ".gitignore").read_text() + f"{private}\n")
    commit_all(vault.root, "keep that day private")
    kept = capture(vault, "2026-11-30", "Version history keeps a year")
    result = garden(vault, fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-30#1", "2026-11-27#1"]}]}))
    assert result.marked_read == 2, (result.outcome, result.detail)
    assert "my private worries" not in fake_model.prompt
    assert any("git ignores" in h and private in h for h in result.hints), result.hints
    tracked = git(vault.root, "ls-files").splitlines()
    assert kept in tracked and private not in tracked  # the other day was committed as ever; this one never
    assert (vault.root / private).read_text() == "my private worries\n"


@pytest.mark.parametrize("value", ["2026-13-01", "yesterday", "2026-1-5"])
def test_journal_from_is_a_real_day(vault: Project, value: str) -> None:
    done = invoke(vault, "config", "set", "journal_from", value)
    assert done.exit_code != 0 and "journal_from must be a day written YYYY-MM-DD" in done.output


def test_journal_from_in_the_file_that_is_no_day_is_one_line(vault: Project) -> None:
    with pytest.raises(ConfigError, match="journal_from must be a day written YYYY-MM-DD"):
        layout.from_table({"journal_from": 20261128}, where="config.toml")


def test_a_bare_toml_date_is_a_journal_from_day(vault: Project) -> None:
    path = vault.root / ".gitgarden" / "config.toml"
    path.write_text(path.read_text() + "journal_from = 2026-11-28\n")
    assert of_root(vault.root).journal_from == "2026-11-28"
    assert json.loads(invoke(vault, "status", "--json").output)["unread"] == 0  # the vault's daily note is older


def test_capture_lands_in_the_journal_folder_and_status_counts_it(vault: Project) -> None:
    done = invoke(vault, "capture", "Version history keeps a year")
    assert done.exit_code == 0, done.output
    day = f"{FIXED_NOW.astimezone():%Y-%m-%d}"
    where = f"{vault.layout.journal_dir}/{day}.md"
    assert (vault.root / where).read_text() == "Version history keeps a year\n"
    assert where in done.output
    status = json.loads(invoke(vault, "status", "--json").output)
    assert status["unread"] == 2  # the vault's own daily note, and the captured line
    health = json.loads(invoke(vault, "health", "--json").output)
    assert health["unread_lines"] == 2


# --- the pass ----------------------------------------------------------------------------


def test_a_pass_that_skips_everything_changes_and_creates_none_of_the_persons_files(vault: Project, fake_model: FakeModel) -> None:
    journal = capture(vault, DAY, "had lunch", "the weather was fine")
    commit_all(vault.root, "my day")
    before = files(vault)
    lines = [f"{DAY}#1", f"{DAY}#2", "2026-11-27#1"]
    result = garden(vault, fake_model.enqueue({"operations": [{"op": "skip", "lines": lines}]}))
    assert result.commit and result.marked_read == 3, (result.outcome, result.refusals, result.detail)
    after = files(vault)
    gardeners = at(vault, "index.md")
    assert {p: d for p, d in after.items() if p != gardeners} == {p: d for p, d in before.items() if p != gardeners}
    assert journal in after
    changed = git(vault.root, "show", "--name-only", "--format=", "HEAD").split()
    assert changed and all(p == gardeners or p.startswith(BOOKKEEPING) for p in changed), changed
    assert git(vault.root, "status", "--porcelain") == ""


def test_a_pass_without_a_model_leaves_the_vault_as_it_was(vault: Project) -> None:
    before = files(vault)
    result = garden(vault, None, Settings())
    assert result.split == [] and result.created == []
    after = files(vault)
    assert {p for p in after if after[p] != before.get(p)} <= {at(vault, "index.md")}


def test_a_created_page_lands_in_the_wiki_and_the_map_beside_it(vault: Project, fake_model: FakeModel) -> None:
    capture(vault, DAY, "Lunch spots near the office: the noodle bar")
    fake_model.enqueue({"operations": [
        {"op": "create_page", "page": "lunch-spots", "title": "Lunch spots", "body": "Lunch spots near the office: the noodle bar.\n", "lines": [f"{DAY}#1"]},
        {"op": "skip", "lines": ["2026-11-27#1"]},
    ]})
    result = garden(vault, fake_model)
    # A vault of human names in folders: the page gets its title's name, in the gardener's own folder
    # (Gardener/ at the root, the wiki folder itself when the vault is kept in wiki/).
    name = "Gardener/Lunch spots" if vault.layout.at_root else "Lunch spots"
    page_path = at(vault, f"{name}.md")
    assert result.created == [page_path], (result.outcome, result.refusals, result.detail)
    assert (vault.root / page_path).read_text().startswith("---\ntitle: Lunch spots\n")
    assert f"[[{name}]]" in (vault.root / at(vault, "index.md")).read_text()
    assert not (vault.root / "wiki").exists() or not vault.layout.at_root


def test_an_identity_file_at_the_root_is_no_page_and_never_written(tmp_path: Path, fake_model: FakeModel) -> None:
    root = tmp_path / "vault"
    build_vault(root, ".")
    write(root, "about.md", "Who I am.\n")
    write(root, ".gitgarden/config.toml", 'wiki_dir = "."\njournal_dir = "Daily notes"\nidentity_files = ["about.md"]\n')
    vault = Project(init_project(root).root)
    capture(vault, DAY, "About the project: it is a vault")
    before = files(vault)
    fake_model.enqueue({"operations": [
        {"op": "create_page", "page": "about", "title": "About", "body": "About the project: it is a vault.\n", "lines": [f"{DAY}#1"]},
    ]}).enqueue({"operations": []})
    result = garden(vault, fake_model)
    assert result.created == [] and any("not a page of this wiki" in r for r in result.refusals), result.refusals
    after = files(vault)
    assert {p for p in after if after[p] != before.get(p)} <= {"index.md"}
    with layout.active(vault.layout):
        assert "about" not in measure(tree_of(vault)).orphans


def test_an_append_to_the_persons_note_at_the_root(root_vault: Project, fake_model: FakeModel) -> None:
    capture(root_vault, DAY, "Version history keeps every change for a year")
    reply = {"operations": [
        {"op": "append", "page": "Version history", "text": "Version history keeps every change for a year.\n", "lines": [f"{DAY}#1"]},
        {"op": "skip", "lines": ["2026-11-27#1"]},
    ]}
    result = garden(root_vault, fake_model.enqueue(reply))
    assert result.appended == [HISTORY], (result.outcome, result.refusals)
    assert (root_vault.root / HISTORY).read_text() == VAULT[HISTORY] + "\nVersion history keeps every change for a year.\n"
    # The journal day file the pass read was committed first, as the person's.
    assert git(root_vault.root, "log", "-1", "--format=%an", "HEAD~1") == "Pat Person\n"
    assert git(root_vault.root, "ls-files", f"Daily notes/{DAY}.md").strip() == f"Daily notes/{DAY}.md"


def test_undo_of_a_pass_at_the_root(root_vault: Project, fake_model: FakeModel) -> None:
    capture(root_vault, DAY, "Lunch spots near the office: the noodle bar")
    commit_all(root_vault.root, "my day")
    before = files(root_vault)
    fake_model.enqueue({"operations": [
        {"op": "create_page", "page": "lunch-spots", "title": "Lunch spots", "body": "Lunch spots near the office: the noodle bar.\n", "lines": [f"{DAY}#1"]},
        {"op": "skip", "lines": ["2026-11-27#1"]},
    ]})
    assert garden(root_vault, fake_model).created == ["Gardener/Lunch spots.md"]
    shown = invoke(root_vault, "show")
    assert shown.output.index("+++ b/Gardener/Lunch spots.md") < shown.output.index("+++ b/log/")  # pages first
    undone = invoke(root_vault, "undo")
    assert undone.exit_code == 0, undone.output
    assert not (root_vault.root / "Gardener/Lunch spots.md").exists()
    assert {p: d for p, d in files(root_vault).items() if p != "index.md"} == {p: d for p, d in before.items() if p != "index.md"}


# --- the guard ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    ["AGENTS.md", "raw/notes.md", ".gitgarden/config.toml", ".trash/x.md"],
)
def test_the_guard_refuses_writes_outside_the_wiki_at_the_root(root_vault: Project, path: str) -> None:
    base = tree_of(root_vault)
    proposed = Overlay(base, {path: file("# written by a pass\n")})
    with layout.active(root_vault.layout):
        outside = guard.check(base, proposed)
        in_pass = guard.check(base, proposed, guard.PassContext(own_paths=frozenset({".gitgarden/read.json"})))
    assert [v.rule for v in outside] == [1] and "the wiki (the project root)" in outside[0].message
    assert [v.rule for v in in_pass] == [1]


def test_the_guard_judges_the_journal_and_pages_of_the_root_layout(root_vault: Project) -> None:
    base = tree_of(root_vault)
    with layout.active(root_vault.layout):
        reworded = Overlay(base, {DAILY: file("- Looked at nothing.\n")})
        assert [v.rule for v in guard.check(base, reworded)] == [6]
        appended = Overlay(base, {DAILY: file(VAULT[DAILY] + "- and more\n")})  # type: ignore[operator]
        assert guard.check(base, appended) == []
        new_page = Overlay(base, {"lunch-spots.md": file(page("Lunch", "x\n", source=f"[{DAY}]"))})
        assert [v.message for v in guard.check(base, new_page)] == [f"source names {DAY}, but Daily notes/{DAY}.md does not exist"]
        deleted = Overlay(base, {ORPHAN: None})
        assert [v.rule for v in guard.check(base, deleted)] == [2]


def test_health_is_the_same_in_both_layouts_and_as_obsidian_sees_the_notes(tmp_path: Path) -> None:
    figures = {}
    for kind in LAYOUTS:
        project = make_vault(tmp_path / kind, kind)
        with layout.active(project.layout):
            figures[kind] = measure(DiskTree(project.root, project.layout.wiki_folders()))
        shown = json.loads(invoke(project, "health", "--json").output)
        assert shown["pages"] == figures[kind].pages and shown["orphans"] == figures[kind].orphans
    one, other = figures["wiki"], figures["root"]
    assert (one.pages, one.broken_links, one.orphans, one.unmapped) == (other.pages, other.broken_links, other.orphans, other.unmapped)
    assert one.pages == 8  # the daily note is the journal, not a page
    assert one.broken_links == OBSIDIAN_VIEW["broken_links"]
    assert one.orphans == [o for o in OBSIDIAN_VIEW["orphans"] if o != DAILY.removesuffix(".md")]


def test_a_page_linked_only_from_a_daily_note_is_no_orphan(root_vault: Project) -> None:
    write(root_vault.root, "Daily notes/2026-11-28.md", "- met about [[Orphan note]]\n")
    with layout.active(root_vault.layout):
        assert "Orphan note" not in measure(tree_of(root_vault)).orphans


# --- split -------------------------------------------------------------------------------


def test_a_requested_split_at_the_root_keeps_every_link_resolving(root_vault: Project) -> None:
    before = files(root_vault)
    dry = invoke(root_vault, "split", "Sync your notes across devices")
    assert dry.exit_code == 0, dry.output
    assert "+++ b/Obsidian Sync/iCloud.md" in dry.output and files(root_vault) == before
    done = invoke(root_vault, "split", "Sync your notes across devices", "--yes")
    assert done.exit_code == 0, done.output
    assert (root_vault.root / "Obsidian Sync" / "iCloud.md").exists() and not (root_vault.root / "wiki").exists()
    start = (root_vault.root / START).read_text()
    assert "[[iCloud#iCloud]]" in start and "[[iCloud#^icloud-tip]]" in start
    with layout.active(root_vault.layout):
        assert measure(tree_of(root_vault)).broken_links == OBSIDIAN_VIEW["broken_links"]
    assert git(root_vault.root, "status", "--porcelain") == "?? .obsidian/\n"
    assert invoke(root_vault, "undo").exit_code == 0
    assert files(root_vault) == before


# --- the hook ----------------------------------------------------------------------------


def _commit(root: Path, *, agent: bool) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if agent:
        env["GITGARDEN_AGENT"] = "an agent"
    git(root, "add", "-A")
    return subprocess.run(["git", "-C", str(root), "commit", "-qm", "change"], capture_output=True, text=True, env=env)


def test_the_hook_at_the_root_lets_the_person_through_and_judges_an_agent_by_the_layout(root_vault: Project) -> None:
    root = root_vault.root
    done = subprocess.run([sys.executable, "-m", "gitgarden", "hook", "install"], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    git(root, "add", ".obsidian")
    commit_all(root, "Obsidian's settings")
    # The person may change anything: Obsidian's settings, AGENTS.md, their notes.
    write(root, ".obsidian/app.json", '{"theme": "dark"}\n')
    write(root, "AGENTS.md", "What this vault is about.\n")
    write(root, ORPHAN, "Rewritten by me.\n")
    assert _commit(root, agent=False).returncode == 0
    # An agent may add a note with a human name and append to a day of the journal...
    write(root, "Obsidian Sync/Selective sync.md", page("Selective sync", "Only some folders.\n"))
    with (root / DAILY).open("a") as fh:
        fh.write("- synced\n")
    ok = _commit(root, agent=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # ...and change what Obsidian itself writes as it runs (issue 25: not the agent's doing)...
    write(root, ".obsidian/app.json", '{"theme": "light"}\n')
    assert _commit(root, agent=True).returncode == 0
    # ...but not reword the person's note.
    write(root, ".obsidian/workspace.json", '{"active": "Orphan note.md"}\n')
    write(root, HISTORY, "Nothing is kept.\n")
    refused = _commit(root, agent=True)
    assert refused.returncode != 0
    assert f"{HISTORY}:1: rule 4" in refused.stderr and ".obsidian" not in refused.stderr


def test_the_scheduler_looks_at_the_journal_and_wiki_of_the_layout(root_vault: Project) -> None:
    from gitgarden.schedule import clocks
    from gitgarden.schedule.registry import ProjectState, scan_journal

    capture(root_vault, DAY, "one line")
    a = clocks.assess(root_vault.root, ProjectState(), FIXED_NOW.timestamp(), dict(os.environ), full=True)
    assert a.error == "" and a.unread == 2 and a.work == "journal"
    with layout.active(root_vault.layout):
        before = scan_journal(root_vault.root).sig
        capture(root_vault, DAY, "another line")
        assert scan_journal(root_vault.root).sig != before  # the daily-notes folder is the journal
        # What a pass writes itself (log/, .gitgarden/) is no edit of the wiki's: it never holds a tick back.
        wiki_time = clocks._wiki_mtime(root_vault.root)
        later = wiki_time + 3600
        for rel in (FIXED_LOG, ".gitgarden/read.json"):
            write(root_vault.root, rel, "{}\n")
            os.utime(root_vault.root / rel, (later, later))
        os.utime(root_vault.root / "log", (later, later))
        assert clocks._wiki_mtime(root_vault.root) == wiki_time
        os.utime(root_vault.root / ORPHAN, (later, later))
        assert clocks._wiki_mtime(root_vault.root) == later


def test_review_mode_at_the_root_shows_pages_first_and_accept_brings_the_page_in(root_vault: Project, fake_model: FakeModel) -> None:
    capture(root_vault, DAY, "Lunch spots near the office: the noodle bar")
    commit_all(root_vault.root, "my day")
    fake_model.enqueue({"operations": [
        {"op": "create_page", "page": "lunch-spots", "title": "Lunch spots", "body": "Lunch spots near the office: the noodle bar.\n", "lines": [f"{DAY}#1"]},
        {"op": "skip", "lines": ["2026-11-27#1"]},
    ]})
    result = garden(root_vault, fake_model, Settings(model="fake/scripted", review=True))
    made = "Gardener/Lunch spots.md"
    assert result.created == [made] and not (root_vault.root / made).exists()
    shown = json.loads(invoke(root_vault, "review", "--json").output)
    assert made in shown["files"] and shown["files"].index(made) < shown["files"].index(".gitgarden/read.json")  # the wiki's files first
    assert shown["files"].index("index.md") < shown["files"].index(".gitgarden/read.json")
    accepted = invoke(root_vault, "review", "accept")
    assert accepted.exit_code == 0, accepted.output
    assert (root_vault.root / made).read_text().startswith("---\ntitle: Lunch spots\n")
