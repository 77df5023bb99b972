"""`gitgarden init` and `gitgarden capture`: the person's cheap entry points."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from gitgarden.cli.main import App, cli
from tests.helpers.project import FIXED_NOW, git


def invoke(args: list[str], *, input: str | None = None) -> object:
    return CliRunner().invoke(cli, args, input=input, obj=App(now=lambda: FIXED_NOW))


def test_init_makes_the_layout_and_a_first_commit(tmp_path: Path) -> None:
    target = tmp_path / "notes"
    result = invoke(["init", str(target), "--no-register"])
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    for rel in ("AGENTS.md", "raw/journal", "raw/chat", "wiki/index.md", "log", ".gitgarden/config.toml", ".gitignore"):
        assert (target / rel).exists(), rel
    assert "## Open" in (target / "wiki/index.md").read_text()
    assert git(target, "log", "--format=%s") == "gitgarden init: project layout\n"
    assert git(target, "status", "--porcelain") == ""


def test_init_twice_changes_nothing_and_says_so(tmp_path: Path) -> None:
    target = tmp_path / "notes"
    invoke(["init", str(target), "--no-register"])
    (target / "AGENTS.md").write_text("# mine, edited\n")
    head = git(target, "rev-parse", "HEAD")
    result = invoke(["init", str(target), "--no-register"])
    assert result.exit_code == 0
    assert "nothing changed" in result.output  # type: ignore[attr-defined]
    assert (target / "AGENTS.md").read_text() == "# mine, edited\n"
    assert git(target, "rev-parse", "HEAD") == head


def test_init_in_an_existing_repo_keeps_its_files(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("secret.txt\n")
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "index.md").write_text("# my own map\n")
    result = invoke(["init", str(tmp_path), "--no-register"])
    assert result.exit_code == 0
    assert (tmp_path / ".gitignore").read_text().startswith("secret.txt\n")  # theirs kept, the turn file added
    assert ".gitgarden/turn-in-flight" in (tmp_path / ".gitignore").read_text()
    assert (tmp_path / "wiki/index.md").read_text() == "# my own map\n"


def test_capture_appends_to_today_and_never_commits(project, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(project.root / "raw")
    head = git(project.root, "rev-parse", "HEAD")
    assert invoke(["capture", "Acme", "signed", "the", "pilot"]).exit_code == 0  # type: ignore[attr-defined]
    assert invoke(["capture"], input="Dana runs ops\n\n  Marta is the landlord  \n").exit_code == 0  # type: ignore[attr-defined]
    day = project.journal / "2026-11-30.md"
    assert day.read_text() == "Acme signed the pilot\nDana runs ops\nMarta is the landlord\n"
    assert git(project.root, "rev-parse", "HEAD") == head


def test_capture_adds_a_missing_final_newline_first(project, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(project.root)
    (project.journal / "2026-11-30.md").write_text("typed by hand, no newline")
    invoke(["capture", "next fact"])
    assert (project.journal / "2026-11-30.md").read_text() == "typed by hand, no newline\nnext fact\n"


def test_capture_of_nothing_is_an_error(project, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(project.root)
    result = invoke(["capture"], input="\n\n")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "nothing to capture" in result.output  # type: ignore[attr-defined]


def test_capture_outside_a_project_says_how_to_make_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(["capture", "x"])
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "gitgarden init" in result.output  # type: ignore[attr-defined]


def _all_commands() -> list[list[str]]:
    import click

    out: list[list[str]] = []

    def walk(group: click.Group, prefix: list[str]) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):  # the commands `cli` loads when named, too
            command = group.get_command(ctx, name)
            assert command is not None, f"{name} is listed but cannot be loaded"
            out.append([*prefix, name])
            if isinstance(command, click.Group):
                walk(command, [*prefix, name])

    walk(cli, [])
    return out


@pytest.mark.parametrize("command", _all_commands(), ids=" ".join)
def test_every_command_has_help(command: list[str]) -> None:
    result = invoke([*command, "--help"])
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]
    assert "Usage" in result.output  # type: ignore[attr-defined]
    assert len(_all_commands()) >= 25
