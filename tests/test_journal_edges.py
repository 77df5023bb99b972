"""What a person types always reaches a pass, and an unclear case says so in one line.

Lines that begin with `#` (a tag, a heading-like note), a line of dashes, a key
typed on the command line, a journal folder renamed behind gitgarden's back, a
`journal_from` in the future, a project copied into a new repository.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gitgarden.cli.main import App, cli
from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.project import Project
from gitgarden.wiki import journal
from tests.helpers.project import FIXED_NOW, FakeModel, git, write

DAY = "2026-11-30"


def invoke(project_root: Path, args: list[str], *, input: str | None = None, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.chdir(project_root)
    return CliRunner().invoke(cli, args, input=input, obj=App(now=lambda: FIXED_NOW))


# -- item 3: lines that begin with `#` -------------------------------------------------------------


def test_a_tag_at_the_start_of_a_line_is_a_journal_line_and_a_heading_is_not() -> None:
    text = "#idea sell sourdough on Sundays\n# Meeting notes\n## Tasks\n#\n####### seven hashes are text\n  # indented heading\n"
    lines = journal.parse_day(DAY, text)
    assert [ln.text for ln in lines] == ["#idea sell sourdough on Sundays", "####### seven hashes are text"]
    assert journal.headings(DAY, text) == [(2, "# Meeting notes"), (3, "## Tasks"), (4, "#"), (6, "# indented heading")]


def test_capture_stores_every_line_so_a_pass_offers_it(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    typed = "#idea sell sourdough on Sundays\n# Meeting with Dana: oven price is 11,500 EUR\nDana will call back\n"
    done = invoke(project.root, ["capture"], input=typed, monkeypatch=monkeypatch)
    assert done.exit_code == 0, done.output
    assert "Captured 3 line(s)" in done.stderr
    assert "\\#" in done.stderr  # it says how the heading-like line was stored
    stored = (project.journal / f"{DAY}.md").read_text()
    assert stored == "#idea sell sourdough on Sundays\n\\# Meeting with Dana: oven price is 11,500 EUR\nDana will call back\n"
    model = FakeModel().enqueue({"operations": [{"op": "skip", "lines": [f"{DAY}#1", f"{DAY}#2", f"{DAY}#3"]}]})
    result = run_pass(project, Settings(model="fake/scripted"), model=model, now=lambda: FIXED_NOW)
    assert result.offered == [f"{DAY}#1", f"{DAY}#2", f"{DAY}#3"]
    assert "11,500 EUR" in model.prompt and "#idea sell sourdough" in model.prompt


def test_status_and_health_count_and_name_headings_in_day_files(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project.root, f"raw/journal/{DAY}.md", "# Meeting with Dana: oven price is 11,500 EUR\nDana will call back\n")
    status = invoke(project.root, ["status", "--json"], monkeypatch=monkeypatch)
    data = json.loads(status.stdout)
    assert data["unread"] == 1
    assert data["journal_headings"] == [{"id": f"{DAY}#1", "text": "# Meeting with Dana: oven price is 11,500 EUR"}]
    shown = invoke(project.root, ["status"], monkeypatch=monkeypatch)
    assert "1 heading line(s)" in shown.output and f"{DAY}#1" in shown.output
    health = invoke(project.root, ["health", "--json"], monkeypatch=monkeypatch)
    assert json.loads(health.stdout)["journal_headings"] == data["journal_headings"]
    assert "1 heading line(s)" in invoke(project.root, ["health"], monkeypatch=monkeypatch).output


# -- item 24: a line of dashes; init on a copied project ----------------------------------------


def test_a_line_of_dashes_is_text_to_capture(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    done = invoke(project.root, ["capture", "---"], monkeypatch=monkeypatch)
    assert done.exit_code == 0, done.output
    assert (project.journal / f"{DAY}.md").read_text() == "---\n"
    done = invoke(project.root, ["capture", "-5", "degrees", "at", "the", "mill"], monkeypatch=monkeypatch)
    assert done.exit_code == 0, done.output
    assert (project.journal / f"{DAY}.md").read_text() == "---\n-5 degrees at the mill\n"


def test_init_on_a_copied_project_commits_what_the_project_holds(project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project.root, "raw/chat/2026-11-29.md", "me: the oven is 11,500 EUR\n")
    write(project.root, ".gitgarden/read.json", "{}\n")
    write(project.root, "log/2026-11.jsonl", '{"pass_id": "x"}\n')
    copy = tmp_path / "copy"
    shutil.copytree(project.root, copy, ignore=shutil.ignore_patterns(".git"))
    done = invoke(copy, ["init", str(copy), "--no-register"], monkeypatch=monkeypatch)
    assert done.exit_code == 0, done.output
    assert git(copy, "status", "--porcelain", "--untracked-files=all") == ""
    tracked = git(copy, "ls-files").split()
    for rel in (".gitgarden/config.toml", ".gitgarden/read.json", "log/2026-11.jsonl", "raw/chat/2026-11-29.md", ".gitignore"):
        assert rel in tracked, rel


# -- item 11: a key on the command line --------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [["keys", "set", "openai", "sk-live-0123456789abcdefSECRET"], ["keys", "set", "sk-live-0123456789abcdefSECRET"]],
)
def test_a_key_on_the_command_line_is_refused_without_repeating_it(tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    done = invoke(tmp_path, args, input="", monkeypatch=monkeypatch)
    assert done.exit_code != 0
    assert "SECRET" not in done.output and "sk-live" not in done.output
    assert "stdin" in done.output or "prompt" in done.output
    listed = invoke(tmp_path, ["keys", "list", "--json"], monkeypatch=monkeypatch)
    assert json.loads(listed.stdout) == []


# -- item 20: a renamed journal folder, journal_from in the future --------------------------------


def test_a_renamed_journal_folder_is_named_by_status_and_capture(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project.root, f"raw/journal/{DAY}.md", "Dana will call back\n")
    (project.root / "raw/journal").rename(project.root / "raw/daily")
    status = invoke(project.root, ["status", "--json"], monkeypatch=monkeypatch)
    assert any("raw/journal" in w and "journal_dir" in w for w in json.loads(status.stdout)["warnings"])
    done = invoke(project.root, ["capture", "Marta wants the lease signed"], monkeypatch=monkeypatch)
    assert done.exit_code == 0
    assert "raw/journal" in done.stderr and "journal_dir" in done.stderr and "missing" in done.stderr


def test_journal_from_in_the_future_is_accepted_with_a_warning(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    done = invoke(project.root, ["config", "set", "journal_from", "2999-01-01"], monkeypatch=monkeypatch)
    assert done.exit_code == 0
    assert "future" in done.stderr and "no journal line is offered" in done.stderr
    write(project.root, f"raw/journal/{DAY}.md", "Dana will call back\n")
    status = invoke(project.root, ["status", "--json"], monkeypatch=monkeypatch)
    assert any("2999-01-01" in w and "future" in w for w in json.loads(status.stdout)["warnings"])


def test_a_day_in_the_past_gives_no_warning(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    done = invoke(project.root, ["config", "set", "journal_from", "2026-11-01"], monkeypatch=monkeypatch)
    assert done.exit_code == 0 and "future" not in done.stderr
