"""`gitgarden init` in a folder that already holds notes, without `.obsidian/`: the notes are adopted
where they stand (the wiki is the folder, the journal the folder of its day files), never a second
`wiki/` tree beside them. A code repository with a README is not a folder of notes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gitgarden.cli.main import App, cli
from gitgarden.config import load_settings
from gitgarden.project import find_project
from tests.helpers.project import FIXED_NOW, FakeModel, garden, git, write


def init(path: Path, *more: str) -> Any:
    return CliRunner().invoke(cli, ["init", str(path), "--no-register", *more], obj=App(env={}, now=lambda: FIXED_NOW))


def notes_folder(root: Path) -> None:
    """A person's folder of notes: pages in folders, a journal of day files, an attachment, their own index."""
    write(root, "Bakery plan.md", "The bakery opens in spring.\n")
    write(root, "index.md", "# My index\n\n- [[Bakery plan]]\n")
    write(root, "Suppliers/Kessler Mill.md", "Flour from Kessler Mill.\n")
    write(root, "Journal/2026-11-27.md", "Visited Kessler Mill\n")
    write(root, "Journal/2026-11-28.md", "Dana Reyes signed the lease at 900 EUR a month\nbought coffee\n")
    write(root, "Archive/2026-01-05.md", "an old day file elsewhere\n")
    (root / "Suppliers" / "mill.png").write_bytes(b"\x89PNG\r\n\x1a\n")


def test_a_folder_of_notes_is_adopted_in_place_with_its_journal_folder(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    notes_folder(root)
    done = init(root)
    assert done.exit_code == 0, done.output
    assert "adopted your folder of notes in place: wiki_dir = ., journal_dir = Journal" in done.stderr
    assert "the journal is Journal/, the folder of 2 day file(s)" in done.stderr
    assert "3 journal line(s) in 2 day file(s), from 2026-11-27 on, wait to be read" in done.stderr
    assert not (root / "wiki").exists() and not (root / "raw").exists() and not (root / "AGENTS.md").exists()
    settings = load_settings(root).settings
    assert (settings.wiki_dir, settings.journal_dir) == (".", "Journal")
    assert settings.map_page != "index"  # their index.md stays theirs: the map is a page of its own
    assert (root / "index.md").read_text() == "# My index\n\n- [[Bakery plan]]\n"
    tracked = set(git(root, "ls-files", "-z").split("\0"))
    assert {"Bakery plan.md", "Suppliers/Kessler Mill.md", "Journal/2026-11-28.md", "Suppliers/mill.png"} <= tracked
    assert git(root, "status", "--porcelain") == ""

    # The notes are the wiki and the day files the journal: a pass reads Journal/ and writes beside the notes.
    project = find_project(root)
    model = FakeModel().enqueue({"operations": [
        {"op": "create_page", "page": "dana-reyes", "title": "Dana Reyes",
         "body": "Dana Reyes signed the lease at 900 EUR a month.\n", "lines": ["2026-11-28#1"]},
        {"op": "skip", "lines": ["2026-11-27#1", "2026-11-28#2"], "reason": "chatter"},
    ]})  # fmt: skip
    result = garden(project, model)
    assert result.outcome == "pages_written", result.refusals
    assert not (root / "wiki").exists()
    assert "Dana Reyes signed the lease" in json.dumps(model.history[0])  # the line came from Journal/
    written = git(root, "show", "--name-only", "--format=", "HEAD").split("\n")
    assert [p for p in written if p.endswith("Dana Reyes.md") or p.endswith("dana-reyes.md")], written

    again = init(root)
    assert again.exit_code == 0 and "nothing changed" in again.stderr


def test_a_folder_of_notes_without_day_files_gets_a_journal_folder_and_says_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "notes"
    write(root, "Ideas.md", "A sourdough class on Saturdays.\n")
    write(root, "People/Dana Reyes.md", "Our landlord.\n")
    write(root, "2026-11-28.md", "a day file at the top\n")
    done = init(root)
    assert done.exit_code == 0, done.output
    assert "no folder holds day files named YYYY-MM-DD.md: the journal is Daily notes/" in done.stderr
    assert "1 day file(s) at the top stay notes, not journal" in done.stderr
    assert (root / "Daily notes").is_dir() and not (root / "wiki").exists()
    assert load_settings(root).settings.journal_dir == "Daily notes"
    monkeypatch.chdir(root)
    captured = CliRunner().invoke(cli, ["capture", "Dana wants the rent by the 1st"], obj=App(env={}, now=lambda: FIXED_NOW))
    assert captured.exit_code == 0, captured.output
    [day] = (root / "Daily notes").glob("*.md")
    assert day.read_text() == "Dana wants the rent by the 1st\n"


def test_a_code_repository_with_a_readme_gets_the_default_layout(tmp_path: Path) -> None:
    root = tmp_path / "app"
    write(root, "README.md", "# app\n")
    write(root, "docs/usage.md", "How to use it.\n")
    for name in ("main", "cli", "db", "web"):
        write(root, f"src/app/{name}.py", "pass\n")
    write(root, "pyproject.toml", "[project]\nname = 'app'\n")
    done = init(root)
    assert done.exit_code == 0, done.output
    assert "adopted" not in done.stderr
    assert (root / "wiki/index.md").is_file() and (root / "raw/journal").is_dir()
    assert load_settings(root).settings.wiki_dir == "wiki"
