"""The layout settings under attack and in odd but legal vaults (issue 14, item 1).

Symlinks that lead out of the project, a journal in a hidden folder, layouts changed after
passes ran, the guard's surface at the root: each test is a case that once went wrong.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.errors import ConfigError
from gitgarden.guard import rules as guard
from gitgarden.project import Project, init_project, of_root
from gitgarden.wiki import layout
from gitgarden.wiki.layout import Layout
from gitgarden.wiki.tree import Overlay, file
from tests.helpers.project import (
    FIXED_NOW,
    FakeModel,
    commit_all,
    garden,
    git,
    invoke,
    workspace,
    write,
)

DAY = "2026-11-29"
SECRET = "- a line from outside the project"


def vault(root: Path, daily: str = "Daily notes", notes: dict[str, str] | None = None) -> Path:
    """An Obsidian vault (not yet a project) whose daily notes live in `daily`."""
    write(root, ".obsidian/daily-notes.json", json.dumps({"folder": daily, "format": "YYYY-MM-DD"}))
    for rel, text in (notes or {"Orphan note.md": "A note of mine.\n"}).items():
        write(root, rel, text)
    return root


def outside(tmp_path: Path) -> Path:
    """A folder beside the project holding a day file and a note nobody may read through gitgarden."""
    folder = tmp_path / "outside"
    write(folder, f"{DAY}.md", SECRET + "\n")
    write(folder, "secret.md", "a secret note\n")
    return folder


# --- symlinks out of the project --------------------------------------------------------------


def test_a_journal_folder_that_is_a_symlink_out_is_refused_in_one_line_and_never_read(tmp_path: Path, fake_model: FakeModel) -> None:
    away = outside(tmp_path)
    root = vault(tmp_path / "vault", "Days")
    project = Project(init_project(root).root)
    shutil.rmtree(root / "Days")
    (root / "Days").symlink_to(away, target_is_directory=True)
    commit_all(root, "my days live elsewhere")
    before, theirs = workspace(root), workspace(away)
    for args in (["status"], ["status", "--json"], ["health"], ["capture", "a new line"], ["run"]):
        done = invoke(project, *args, model=fake_model)
        assert done.exit_code == 1, (args, done.output)
        assert "Days is a symlink" in done.output and done.output.count("\n") == 1, (args, done.output)
        assert SECRET not in done.output
    assert fake_model.history == []  # no prompt ever held a line from outside
    assert workspace(root) == before and workspace(away) == theirs
    refused = invoke(project, "config", "set", "journal_dir", "Days")
    assert refused.exit_code == 1 and "Days is a symlink" in refused.output
    (root / "Real days").mkdir()
    assert invoke(project, "config", "set", "journal_dir", "Real days").exit_code == 0  # the way out the message names
    assert invoke(project, "status").exit_code == 0


def test_a_wiki_folder_or_a_journal_parent_that_is_a_symlink_is_refused(tmp_path: Path, fake_model: FakeModel) -> None:
    away = outside(tmp_path)
    project = Project(init_project(tmp_path / "proj").root)
    root = project.root
    os.rename(root / "wiki", tmp_path / "old-wiki")
    (root / "wiki").symlink_to(away, target_is_directory=True)
    done = invoke(project, "health", "--json")
    assert done.exit_code == 1 and "wiki is a symlink" in done.output and "secret" not in done.output
    (root / "wiki").unlink()
    os.rename(tmp_path / "old-wiki", root / "wiki")
    # raw/ itself leading out takes the journal (raw/journal) with it.
    os.rename(root / "raw", tmp_path / "old-raw")
    (root / "raw").symlink_to(tmp_path / "old-raw", target_is_directory=True)
    write(tmp_path, f"old-raw/journal/{DAY}.md", SECRET + "\n")
    result = garden(Project(root), fake_model)
    assert result.outcome == "failed" and "raw is a symlink" in result.detail and fake_model.history == []


def test_init_refuses_a_vault_whose_daily_notes_folder_is_a_symlink_and_makes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    away = outside(tmp_path)
    root = vault(tmp_path / "vault")
    (root / "Daily notes").symlink_to(away, target_is_directory=True)
    before = workspace(root)
    monkeypatch.chdir(tmp_path)
    done = subprocess.run([sys.executable, "-m", "gitgarden", "init", "--no-register", str(root)], capture_output=True, text=True)
    assert done.returncode == 1 and "Daily notes is a symlink" in done.stderr and done.stderr.count("\n") == 1
    assert workspace(root) == before and not (root / ".git").exists()


@pytest.mark.parametrize("theirs", ["Index.md", "index.md -> nowhere"])
def test_a_vaults_own_index_in_another_case_or_as_a_symlink_is_never_taken_for_the_map(tmp_path: Path, theirs: str) -> None:
    root = vault(tmp_path / "vault")
    if "->" in theirs:
        (root / "index.md").symlink_to(tmp_path / "nowhere.md")
    else:
        write(root, theirs, "# My own index\n")
    project = Project(init_project(root).root)
    assert project.layout.map_path() == "Map.md"
    assert (root / "Map.md").read_text().startswith("# Map")


# --- odd but legal layouts --------------------------------------------------------------------


def test_a_journal_in_a_hidden_folder_of_a_root_vault_is_read_captured_and_gardened(tmp_path: Path, fake_model: FakeModel) -> None:
    root = vault(tmp_path / "vault", ".journal")
    project = Project(init_project(root).root)
    assert project.layout.journal_dir == ".journal"
    assert invoke(project, "capture", "Lunch spots near the office: the noodle bar").exit_code == 0
    day = f"{FIXED_NOW.astimezone():%Y-%m-%d}"
    assert (root / ".journal" / f"{day}.md").is_file()
    assert json.loads(invoke(project, "status", "--json").output)["unread"] == 1
    commit_all(root, "my day")
    fake_model.enqueue({"operations": [
        {"op": "create_page", "page": "lunch-spots", "title": "Lunch spots", "body": "Lunch spots near the office: the noodle bar.\n", "lines": [f"{day}#1"]},
    ]})
    result = garden(project, fake_model)
    # A vault of human names kept without folders: the page takes its title's name, at the top.
    assert result.outcome == "pages_written" and result.created == ["Lunch spots.md"], (result.outcome, result.detail, result.refusals)
    assert json.loads(invoke(project, "status", "--json").output)["unread"] == 0
    with layout.active(project.layout):
        assert not project.layout.in_wiki(f".journal/{day}.md")
    assert git(root, "status", "--porcelain") == ""


def test_a_symlink_in_the_maps_place_is_never_read_and_status_says_the_map_is_not_kept(tmp_path: Path, fake_model: FakeModel) -> None:
    away = outside(tmp_path)
    write(away, "big.md", "x" * 5000)  # over the map's ceiling: status would call for map work
    root = vault(tmp_path / "vault")
    project = Project(init_project(root).root)
    (root / "index.md").unlink()
    (root / "index.md").symlink_to(away / "big.md")
    commit_all(root, "my index lives elsewhere")
    done = invoke(project, "status", "--json")
    assert done.exit_code == 0, done.output
    shown = json.loads(done.stdout)
    assert shown["map_chars"] is None and not shown["map_over_ceiling"] and shown["work"] != "map"
    assert any("index.md is a symlink" in w for w in shown["warnings"])
    theirs = workspace(away)
    write(root, f"Daily notes/{DAY}.md", "- had lunch\n")
    result = garden(project, fake_model.enqueue({"operations": [{"op": "skip", "lines": [f"{DAY}#1"]}]}))
    assert result.commit and (root / "index.md").is_symlink() and workspace(away) == theirs


# --- settings no one should be able to write --------------------------------------------------


@pytest.mark.parametrize("value", ["Days\\u0000x", "Days\\nx", "Days\\tx"])
def test_a_layout_folder_with_a_control_character_is_one_clear_line(project: Project, value: str) -> None:
    config = project.root / ".gitgarden" / "config.toml"
    config.write_text(config.read_text() + f'journal_dir = "{value}"\n')
    done = invoke(project, "status")
    assert done.exit_code == 1 and "holds a control character" in done.output and done.output.count("\n") == 1, done.output
    config.write_text(config.read_text().rsplit("journal_dir", 1)[0])
    before = config.read_bytes()
    refused = invoke(project, "config", "set", "journal_dir", json.loads(f'"{value}"'))
    assert refused.exit_code == 1 and "holds a control character" in refused.output and refused.output.count("\n") == 1
    assert config.read_bytes() == before


@pytest.mark.parametrize(
    ("settings", "why"),
    [
        ("not json {", "is not valid JSON"),
        ("[1, 2]", "is not a JSON object"),
        (json.dumps({"folder": ["Days"]}), "names the folder ['Days']"),
        (json.dumps({"folder": 5}), "names the folder 5"),
        (json.dumps({"folder": "Days\u0000x"}), "holds a control character"),
        (json.dumps({"folder": "Days\nx"}), "holds a control character"),
        (json.dumps({"folder": "Days", "pad": "x" * 100_000}), "too large"),
        ("symlink", "is a symlink"),
        ("folder", "cannot be read"),
    ],
)
def test_daily_notes_settings_obsidian_never_wrote_leave_the_journal_in_daily_notes(tmp_path: Path, settings: str, why: str) -> None:
    root = vault(tmp_path / "vault")
    target = root / ".obsidian" / "daily-notes.json"
    if settings == "symlink":
        write(tmp_path, "elsewhere.json", json.dumps({"folder": "Secret"}))
        target.unlink()
        target.symlink_to(tmp_path / "elsewhere.json")
    elif settings == "folder":
        target.unlink()
        target.mkdir()
    else:
        target.write_text(settings)
    report = init_project(root)
    assert of_root(root).journal_dir == "Daily notes" and (root / "Daily notes").is_dir()
    assert any(why in n and "the journal is Daily notes/" in n and "\n" not in n for n in report.notes), report.notes
    assert not [p for p in os.listdir(root) if p not in (".obsidian", ".git", ".gitgarden", ".gitignore", "log", "index.md", "Daily notes", "Orphan note.md")]


# --- the guard's surface at the root ----------------------------------------------------------

ROOT_LAYOUT = Layout(".", "Daily notes").with_identity(["AGENTS.md", "about.md"])
# What the hook sees of a root vault: HEAD's tree, gitgarden's own folders included.
HEAD_TREE = {
    "Daily notes/2026-11-28.md": file("- had lunch\n"),
    "Orphan note.md": file("A note of mine.\n"),
    "Notes/Travel.md": file("Trips.\n"),
    "about.md": file("Who I am.\n"),
    "index.md": file("# Map\n"),
    "log/.gitkeep": file(""),
    ".gitgarden/config.toml": file('wiki_dir = "."\n'),
}
NEW_PAGE = "---\ntitle: A note\nstate: open\nsource: []\n---\nText.\n"


@pytest.mark.parametrize(
    ("path", "twin"),
    [
        ("Raw/x.md", "raw/"),  # raw/ need not exist yet to be raw/ on a case-insensitive disk
        ("RAW/journal/2026-11-30.md", "raw/"),
        ("LOG/x.md", "log/"),
        ("Log/2026-12.jsonl.md", "log/"),
        ("daily notes/notes.md", "Daily notes/"),  # a note in the journal folder that is no day file
        ("DAILY NOTES/2026-11-30.md", "Daily notes/"),
        ("Daily Notes/sub/x.md", "Daily notes/"),
        ("agents.md", "AGENTS.md"),
        ("ABOUT.md", "about.md"),
        ("notes/Travel plans.md", "Notes/"),
    ],
)
def test_an_agents_new_note_named_like_a_reserved_folder_in_other_case_is_refused(path: str, twin: str) -> None:
    proposed = Overlay(HEAD_TREE, {path: file(NEW_PAGE)})
    with layout.active(ROOT_LAYOUT):
        verdicts = guard.check(HEAD_TREE, proposed, agent=True)
    assert [v.rule for v in verdicts] == [3], [v.message for v in verdicts]
    assert twin in verdicts[0].message or "other letter case" in verdicts[0].message


@pytest.mark.parametrize("path", ["Notes/Travel plans.md", "Daily notes.md", "Rawness.md", "New folder/x.md", "Daily notes/2026-11-30.md"])
def test_an_agents_new_note_in_its_own_case_still_lands(path: str) -> None:
    proposed = Overlay(HEAD_TREE, {path: file(NEW_PAGE if not path.startswith("Daily notes/") else "- a day\n")})
    with layout.active(ROOT_LAYOUT):
        assert guard.check(HEAD_TREE, proposed, agent=True) == []


def test_a_vault_with_two_folders_in_other_case_may_still_grow_both() -> None:
    base = {**HEAD_TREE, "notes/old.md": file("An old note.\n")}  # kept on a case-sensitive disk: both exist
    for path in ("notes/new.md", "Notes/new two.md"):
        with layout.active(ROOT_LAYOUT):
            assert guard.check(base, Overlay(base, {path: file(NEW_PAGE)}), agent=True) == [], path


# --- split, capture, undo and review at the root ----------------------------------------------


def _big_note(headings: list[str]) -> str:
    para = "word " * 120
    return "Intro.\n\n" + "".join(f"## {h}\n\n" + "\n\n".join([para] * 5) + "\n\n" for h in headings)


@pytest.mark.parametrize("heading", ["AGENTS", "Agents", "About"])
def test_a_split_at_the_root_never_names_a_part_like_agents_md_or_an_identity_file(tmp_path: Path, heading: str) -> None:
    root = vault(tmp_path / "vault", notes={"Big note.md": _big_note(["Keep", heading, "More"]), "about.md": "Who I am.\n"})
    write(root, ".gitgarden/config.toml", 'wiki_dir = "."\njournal_dir = "Daily notes"\nidentity_files = ["about.md"]\n')
    project = Project(init_project(root).root)
    done = invoke(project, "split", "Big note", "--yes")
    assert done.exit_code == 0, done.output
    made = git(root, "show", "--name-only", "--format=", "HEAD").split("\n")
    assert f"Big note - {heading}.md" in made and not any(p.lower() in ("agents.md", "about.md") for p in made), made
    assert (root / "about.md").read_text() == "Who I am.\n" and not (root / "AGENTS.md").exists()


@pytest.mark.parametrize("wiki_dir", ["wiki", "."])
def test_hidden_notes_at_any_depth_are_no_pages_in_either_layout(tmp_path: Path, wiki_dir: str) -> None:
    root = tmp_path / "vault"
    prefix = "" if wiki_dir == "." else "wiki/"
    for rel, text in {"Kept.md": "A note of mine.\n", ".trash/Deleted.md": "Gone, links [[Nowhere]].\n",
                      "Notes/.drafts/Draft.md": "Not yet.\n", ".obsidian/templates/T.md": "{{title}}\n"}.items():
        write(root, prefix + rel, text)
    write(root, ".gitgarden/config.toml", f'wiki_dir = "{wiki_dir}"\n')
    project = Project(init_project(root).root)
    shown = json.loads(invoke(project, "health", "--json").output)
    assert shown["pages"] == 1 and shown["broken_links"] == [] and shown["unmapped"] == ["Kept"], shown
    result = garden(project, None, Settings())  # the map job needs no model
    mapped = (root / project.layout.map_path()).read_text()
    assert "[[Kept]]" in mapped and "Deleted" not in mapped and "Draft" not in mapped and result.commit


def test_a_raw_folder_of_a_root_vault_that_is_a_symlink_out_never_reaches_the_prompt(tmp_path: Path, fake_model: FakeModel) -> None:
    away = outside(tmp_path)
    write(away, "chat/session.md", "a secret conversation\n")
    root = vault(tmp_path / "vault")
    (root / "raw").symlink_to(away, target_is_directory=True)  # the person's own link, not gitgarden's folder
    project = Project(init_project(root).root)
    write(root, f"Daily notes/{DAY}.md", "- had lunch\n")
    commit_all(root, "my day")
    result = garden(project, fake_model.enqueue({"operations": [{"op": "skip", "lines": [f"{DAY}#1"]}]}))
    assert result.commit, (result.outcome, result.detail)
    assert "a secret conversation" not in fake_model.prompt and "had lunch" in fake_model.prompt


@pytest.mark.parametrize("name", ["AGENTS", "agents", "About"])
def test_map_page_may_not_name_a_file_no_pass_writes(tmp_path: Path, name: str) -> None:
    root = vault(tmp_path / "vault", notes={"about.md": "Who I am.\n"})
    project = Project(init_project(root).root)
    config = root / ".gitgarden" / "config.toml"
    config.write_text(config.read_text() + 'identity_files = ["about.md"]\n')
    before = config.read_bytes()
    refused = invoke(project, "config", "set", "map_page", name)
    assert refused.exit_code == 1 and "a file no pass may write" in refused.output and refused.output.count("\n") == 1
    assert config.read_bytes() == before
    config.write_text(config.read_text() + f'map_page = "{name}"\n')  # written by hand: every command says so
    done = invoke(project, "status")
    assert done.exit_code == 1 and "a file no pass may write" in done.output and done.output.count("\n") == 1


def test_init_says_when_the_vaults_own_log_or_raw_folder_holds_notes_and_moves_none(tmp_path: Path) -> None:
    root = vault(tmp_path / "vault", notes={"log/Work log.md": "- shipped it\n", "Notes/a.md": "A.\n"})
    before = workspace(root)
    report = init_project(root)
    said = [n for n in report.notes if "the vault's own log/ holds notes" in n]
    assert len(said) == 1 and "\n" not in said[0], report.notes
    assert {p: d for p, d in workspace(root).items() if p in before} == before
    plain = vault(tmp_path / "plain")
    assert not any("notes, which stay where they are" in n for n in init_project(plain).notes)


def test_init_takes_the_daily_notes_folder_as_the_disk_spells_it_in_unicode(tmp_path: Path) -> None:
    import unicodedata

    decomposed = unicodedata.normalize("NFD", "Tägliche Notizen")  # as a Mac wrote the folder
    root = vault(tmp_path / "vault", unicodedata.normalize("NFC", "Tägliche Notizen"))  # as Obsidian's settings name it
    write(root, f"{decomposed}/{DAY}.md", "- ein Tag\n")
    project = Project(init_project(root).root)
    assert project.layout.journal_dir == decomposed
    assert sorted(p for p in os.listdir(root) if p.startswith("T")) == [decomposed]  # no second, look-alike folder
    assert json.loads(invoke(project, "status", "--json").output)["unread"] == 1


@pytest.mark.parametrize("folder", ["raw/chat", "raw/chat/days", "./raw/chat/"])
def test_the_journal_may_not_be_the_conversations_folder(folder: str) -> None:
    with pytest.raises(ConfigError) as exc:
        layout.from_table({"journal_dir": folder}, where="config.toml")
    assert "holds the conversation" in str(exc.value) and "\n" not in str(exc.value)


def test_a_layout_folder_that_is_a_file_is_one_clear_line_not_a_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = vault(tmp_path / "vault")
    write(root, "Daily notes", "A note without .md, named like the daily-notes folder.\n")
    before = workspace(root)
    monkeypatch.chdir(tmp_path)
    done = subprocess.run([sys.executable, "-m", "gitgarden", "init", "--no-register", str(root)], capture_output=True, text=True)
    assert done.returncode == 1 and "Daily notes is a file, not a folder" in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert workspace(root) == before and not (root / ".git").exists()
    project = Project(init_project(tmp_path / "proj").root)
    write(project.root, "notes", "a file\n")
    refused = invoke(project, "config", "set", "journal_dir", "notes")
    assert refused.exit_code == 1 and "notes is a file, not a folder" in refused.output and refused.output.count("\n") == 1


def test_symlinked_notes_and_folders_at_the_vault_root_are_never_read_nor_mapped(tmp_path: Path, fake_model: FakeModel) -> None:
    away = outside(tmp_path)
    root = vault(tmp_path / "vault", notes={"Kept.md": "Mine. See [[secret]].\n"})
    (root / "secret.md").symlink_to(away / "secret.md")
    (root / "Elsewhere").symlink_to(away, target_is_directory=True)
    project = Project(init_project(root).root)
    write(root, f"Daily notes/{DAY}.md", "- the secret note is elsewhere\n")
    commit_all(root, "my day")
    result = garden(project, fake_model.enqueue({"operations": [{"op": "skip", "lines": [f"{DAY}#1"]}]}))
    assert result.commit, (result.outcome, result.detail)
    assert "a secret note" not in fake_model.prompt and SECRET not in fake_model.prompt
    mapped = (root / "index.md").read_text()
    assert "[[Kept]]" in mapped and "secret" not in mapped.lower() and "Elsewhere" not in mapped
    assert (root / "secret.md").is_symlink() and (away / "secret.md").read_text() == "a secret note\n"


@pytest.mark.parametrize(("wiki_dir", "journal_dir"), [("notes", "notes/.daily"), (".", ".journal"), (".", "Notes/Daily")])
def test_an_edit_to_the_journal_mid_pass_is_noticed_wherever_the_layout_puts_it(tmp_path: Path, wiki_dir: str, journal_dir: str) -> None:
    from gitgarden.gardener.outcome import PassResult as Result
    from gitgarden.gardener.state import Interrupts, StandDown

    root = tmp_path / "proj"
    write(root, f"{journal_dir}/{DAY}.md", "- a line\n")
    write(root, "notes/a.md" if wiki_dir == "notes" else "a.md", "A note.\n")
    write(root, ".gitgarden/config.toml", f'wiki_dir = "{wiki_dir}"\njournal_dir = "{journal_dir}"\n')
    project = Project(init_project(root).root)
    interrupts = Interrupts(project, tmp_path / "stop", Result(pass_id="x", outcome="failed"))
    with layout.active(project.layout):
        interrupts.begin()
        interrupts.check()  # nothing changed yet
        with (root / journal_dir / f"{DAY}.md").open("a") as fh:
            fh.write("- written while the pass ran\n")
        with pytest.raises(StandDown):
            interrupts.check()


def test_a_journal_folder_named_in_other_letter_case_is_the_folder_on_disk(tmp_path: Path) -> None:
    root = vault(tmp_path / "vault", "daily notes")  # Obsidian on a Mac finds it so, in `Daily notes/`
    write(root, f"Daily notes/{DAY}.md", "- a day\n")
    project = Project(init_project(root).root)
    assert project.layout.journal_dir == "Daily notes" and sorted(os.listdir(root)).count("daily notes") == 0
    assert json.loads(invoke(project, "status", "--json").output)["unread"] == 1
    config = root / ".gitgarden" / "config.toml"
    before = config.read_bytes()
    refused = invoke(project, "config", "set", "journal_dir", "DAILY NOTES")
    assert refused.exit_code == 1 and "spelt 'Daily notes'" in refused.output and refused.output.count("\n") == 1
    assert config.read_bytes() == before
