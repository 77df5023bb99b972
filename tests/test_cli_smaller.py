"""The smaller rough edges of everyday use: guard outside a repository, completion, the review diff, show's pager, log at 80 columns."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gitgarden.cli.history import _log_lines
from gitgarden.cli.main import App, cli
from gitgarden.project import Project
from tests.helpers.project import FakeModel, commit_all, write
from tests.helpers.project import invoke as run_in


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), obj=App())


def test_guard_outside_a_repository_says_so_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gitgarden", "guard"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={**os.environ, "GIT_CEILING_DIRECTORIES": str(tmp_path.parent)},
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"gitgarden: {tmp_path} is not inside a git work tree: `gitgarden guard` compares a work tree "
        "with a commit (run it in a repository, or `git init` one)"
    ]
    assert "fatal" not in done.stderr and "rev-parse" not in done.stderr


# -- review, show, log ---------------------------------------------------------------------------------


def _promote() -> dict[str, Any]:
    return {
        "operations": [
            {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]},
            {"op": "skip", "lines": ["2026-11-29#2"]},
        ]
    }


@pytest.fixture
def passed(project: Project) -> Project:
    """A project with one pass committed (a page created, two lines read)."""
    write(project.root, "raw/journal/2026-11-29.md", "Acme signed the pilot contract\nbought coffee\n")
    commit_all(project.root)
    res = run_in(project, "run", "--json", model=FakeModel().enqueue(_promote()))
    assert res.exit_code == 0 and json.loads(res.stdout)["outcome"] == "pages_written", res.output
    return project


def test_the_review_diff_leaves_out_the_read_position_and_the_log(project: Project) -> None:
    write(project.root, ".gitgarden/config.toml", "review = true\n")
    write(project.root, "raw/journal/2026-11-29.md", "Acme signed the pilot contract\nbought coffee\n")
    commit_all(project.root)
    assert run_in(project, "run", model=FakeModel().enqueue(_promote())).exit_code == 0
    res = run_in(project, "review")
    assert res.exit_code == 0, res.output
    assert "diff --git a/wiki/acme.md b/wiki/acme.md" in res.stdout
    assert "read.json" not in res.stdout and "log/20" not in res.stdout
    assert "(not shown: .gitgarden/read.json, log/" in res.stderr
    full = json.loads(run_in(project, "review", "--json").stdout)
    assert "read.json" in full["diff"]  # the data keeps everything


def _on_a_terminal(args: list[str], cwd: Path, **env: str) -> tuple[int, str]:
    """Run gitgarden with stdin and stdout on a pseudo-terminal; (exit status, what the terminal showed)."""
    environ = {k: v for k, v in os.environ.items() if k not in ("LESS", "NO_COLOR", "PAGER")}
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execve(sys.executable, [sys.executable, "-m", "gitgarden", *args], {**environ, **env})
    seen = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), seen.decode("utf-8", "replace")


def test_show_on_a_terminal_goes_through_the_pager_in_colour(passed: Project, tmp_path: Path) -> None:
    paged = tmp_path / "paged.txt"
    pager = write(tmp_path, "bin/pager", f"#!/bin/sh\necho \"LESS=$LESS\" > '{paged}.env'\ncat > '{paged}'\n")
    pager.chmod(0o755)
    env = {"PAGER": str(pager), "TERM": "xterm"}
    env.pop("LESS", None)
    code, screen = _on_a_terminal(["show"], passed.root, **env)
    assert code == 0 and paged.exists(), screen
    assert "R" in Path(f"{paged}.env").read_text()  # less keeps the colours (git's FRX)
    text = paged.read_text()
    assert "pass " in text and "wiki/acme.md" in text
    assert "\x1b[32m+Acme signed the pilot contract.\x1b[0m" in text  # additions in green, as git shows them
    code, _screen = _on_a_terminal(["show"], passed.root, PAGER=str(pager), TERM="xterm", NO_COLOR="1")
    assert code == 0 and "\x1b[" not in paged.read_text() and "+Acme signed the pilot contract." in paged.read_text()


def test_show_piped_is_plain_text_without_a_pager(passed: Project, tmp_path: Path) -> None:
    res = run_in(passed, "show")
    assert res.exit_code == 0 and "\x1b[" not in res.stdout and "+Acme signed the pilot contract." in res.stdout


def test_log_on_an_80_column_terminal_keeps_every_line_within_80(passed: Project) -> None:
    write(passed.root, "raw/journal/2026-11-30.md", "Dana joined\n")
    commit_all(passed.root)
    code, screen = _on_a_terminal(["log"], passed.root, COLUMNS="80", LINES="40", TERM="xterm", NO_COLOR="1")
    assert code == 0, screen
    lines = [ln for ln in screen.replace("\r", "").splitlines() if ln.strip()]
    assert lines and all(len(ln) <= 80 for ln in lines), lines
    assert any("pages_written" in ln for ln in lines) and any("read 2, new 1, appended 0" in ln for ln in lines)


def test_log_lines_fit_any_width() -> None:
    row = ("2026-11-30 09:00", "20261130T090000Z-beef", "finished_without_writing", "200", "12", "30", "1", "4", "123456",
           "openai/a-very-long-model-name-indeed", "0123456789", "undone by 0123456789; waits for review")  # fmt: skip
    for width in (40, 60, 80):
        assert all(len(line) <= width for line in _log_lines([row], width))


# -- completion ----------------------------------------------------------------------------------------


def _complete(cwd: Path, words: str) -> list[str]:
    env = {**os.environ, "_GITGARDEN_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
    done = subprocess.run([sys.executable, "-m", "gitgarden"], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if "," in line]


def test_completion_of_pass_ids_setting_keys_and_key_names(passed: Project) -> None:
    pass_id = json.loads(run_in(passed, "log", "--json").stdout)[0]["pass_id"]
    assert _complete(passed.root, "gitgarden show ") == [pass_id]
    assert _complete(passed.root, f"gitgarden undo {pass_id[:6]}") == [pass_id]
    assert _complete(passed.root, "gitgarden config get idle") == ["idle_min"]
    assert set(_complete(passed.root, "gitgarden config set api_")) == {"api_base", "api_key_env", "api_key_name"}
    assert _complete(passed.root, "gitgarden config unset rev") == ["review"]


def test_completion_is_documented_with_the_variable_click_reads() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "getting-started.md").read_text()
    assert "_GITGARDEN_COMPLETE=bash_source gitgarden" in page and "_GITGARDEN_COMPLETE=zsh_source gitgarden" in page


def test_the_live_lines_spinner_moves_as_time_passes() -> None:
    import io

    from rich.console import Console

    from gitgarden.cli.progress import _Live
    from gitgarden.gardener.steps import Step

    now = [100.0]
    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, color_system=None, width=80, get_time=lambda: now[0])
    shown = _Live(stream, console, lambda: now[0])
    shown.step(Step("asking the model"))

    def drawn() -> str:
        with console.capture() as seen:
            console.print(shown.render())
        return seen.get()

    frames = []
    for _ in range(4):
        frames.append(drawn()[:1])  # the spinner's frame opens the line
        now[0] += 0.1
    assert len(set(frames)) > 1, frames  # a redraw a few times a second shows the next frame
    assert "asking the model" in drawn()
