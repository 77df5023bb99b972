"""Every face does a use case the same way, because each calls the one `services` function for it.

A pass from the command line and from the web app's run panel goes through `services.run.run` to
the same model path (litellm, HTTP) against tests/helpers/fake_openai.py's server on loopback; the
web panel streams the reply and the command line in a pipe does not, and both land the same page
whether the endpoint streams or answers a streamed request with a plain JSON completion.
"""

from __future__ import annotations

import html
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gitgarden.agents.tools import Door
from gitgarden.cli.main import App, cli
from gitgarden.errors import GitgardenError
from gitgarden.project import Project, init_project
from gitgarden.repo.gitdir import git_dir
from gitgarden.wiki import captured
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.project import FIXED_NOW, capture, commit_all, git
from tests.helpers.web_client import client, form

REPLY = json.dumps(
    {
        "operations": [
            {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]},
            {"op": "skip", "lines": ["2026-11-29#2"]},
        ]
    }
)


def _project(root: Path) -> Project:
    project = Project(init_project(root).root)
    capture(project, "2026-11-29", "Acme signed the pilot contract", "bought coffee")
    commit_all(project.root)
    return project


def _env(server: FakeOpenAI) -> dict[str, str]:
    return {**os.environ, "GITGARDEN_MODEL": "openai/fake", "GITGARDEN_API_BASE": server.base_url, "GITGARDEN_MODE": "full", "GITGARDEN_NUM_RETRIES": "0"}


def _cli_pass(project: Project, server: FakeOpenAI) -> dict[str, Any]:
    """`gitgarden run --json` in the project, with the model the command makes itself (the real one)."""
    cwd = os.getcwd()
    os.chdir(project.root)
    try:
        result = CliRunner().invoke(cli, ["run", "--json"], obj=App(env=_env(server), now=lambda: FIXED_NOW))
    finally:
        os.chdir(cwd)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _web_pass(project: Project, server: FakeOpenAI) -> dict[str, Any]:
    """The run panel's Start, with the model the server makes (the real one), waited for to its end."""
    from gitgarden.services.run import make_model

    c = client(project, env=_env(server), model_factory=make_model)
    r = c.post("/run/start", data=form(), follow_redirects=False)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state: dict[str, Any] = c.get(r.headers["location"] + "/status").json()
        if state["done"]:
            assert not state["error"], state
            return state
        time.sleep(0.05)
    raise AssertionError("the pass started from the page did not end")


@pytest.mark.litellm
@pytest.mark.parametrize("streams", [True, False], ids=["endpoint-streams", "endpoint-answers-plainly"])
def test_a_pass_from_the_command_line_and_from_the_web_lands_the_same_page(tmp_path: Path, server: FakeOpenAI, streams: bool) -> None:
    server.ignore_streams = not streams
    by_cli, by_web = _project(tmp_path / "cli"), _project(tmp_path / "web")
    server.enqueue(REPLY)
    assert _cli_pass(by_cli, server)["outcome"] == "pages_written"
    asked_by_cli = len(server.requests)
    server.enqueue(REPLY)
    if not streams:
        server.enqueue(REPLY)  # the streamed request it answered plainly is spent; one plain request reads it
    assert _web_pass(by_web, server)["outcome"] == "pages_written"

    # The pipe asks plainly; the panel shows tokens as they come, so it asks for a stream, and asks
    # plainly once when the endpoint answered without one.
    asked = [r["json"].get("stream") for r in server.requests if r["path"].endswith("/chat/completions")]
    assert asked[:asked_by_cli] == [None]
    assert asked[asked_by_cli:] == ([True] if streams else [True, None])
    assert server.pending == 0
    page = git(by_cli.root, "show", "HEAD:wiki/acme.md")
    assert "Acme signed the pilot contract." in page
    assert git(by_web.root, "show", "HEAD:wiki/acme.md") == page
    assert git(by_web.root, "show", "HEAD:.gitgarden/read.json") == git(by_cli.root, "show", "HEAD:.gitgarden/read.json")


# -- capture: one behaviour from the command line, the web app and the agents' door ------------------

DAY_FILE = "raw/journal/2026-11-30.md"  # FIXED_NOW's local day (the tests' zone is UTC)
AGENT = "claude-code"


def _by_cli(project: Project, text: str) -> tuple[dict[str, Any] | None, str]:
    """`gitgarden capture` with `text` on stdin: (the day file's ids, None when refused; what it said)."""
    result = invoke_cli(project, text)
    said = result.stderr.strip().removeprefix("gitgarden: ")
    if result.exit_code != 0:
        return None, said
    return {"ids": _ids(project)}, said


def _by_web(project: Project, text: str) -> tuple[dict[str, Any] | None, str]:
    """The web app's capture box."""
    c = client(project)
    r = c.post("/journal/capture", data=form(text=text), follow_redirects=False)
    if r.status_code != 303:
        page = r.text
        start = page.index('<p class="failure">') + len('<p class="failure">')
        return None, html.unescape(page[start : page.index("</p>", start)])
    page = c.get(r.headers["location"]).text
    start = page.index('<p class="note" role="status">') + len('<p class="note" role="status">')
    return {"ids": _ids(project)}, html.unescape(page[start : page.index("</p>", start)])


def _by_mcp(project: Project, text: str) -> tuple[dict[str, Any] | None, str]:
    """The agents' door's `capture` tool, as the MCP server calls it with the client's name."""
    try:
        done = Door(project, dict(os.environ), lambda: FIXED_NOW).capture(text, AGENT)
    except GitgardenError as exc:
        return None, str(exc)
    return done, done["message"]


def invoke_cli(project: Project, text: str) -> Any:
    cwd = os.getcwd()
    os.chdir(project.root)
    try:
        return CliRunner().invoke(cli, ["capture"], input=text, obj=App(env=dict(os.environ), now=lambda: FIXED_NOW))
    finally:
        os.chdir(cwd)


def _ids(project: Project) -> list[str]:
    """The ids of the day file's lines, as the journal view numbers them."""
    from gitgarden.services.views import journal_day

    return [ln.id for ln in journal_day(project, "2026-11-30")]


FACES = {"cli": _by_cli, "web": _by_web, "mcp": _by_mcp}
TEXTS = {
    "one line": "Acme signed the pilot contract",
    "several lines": "Acme signed the pilot contract\n\n   Dana starts Monday  \n# Meeting with Acme\r\nprice: 40 EUR\n",
    "empty": "  \n\n \t\n",
}


@pytest.mark.parametrize("text", list(TEXTS.values()), ids=list(TEXTS))
def test_capture_writes_the_same_lines_says_the_same_and_refuses_the_same_from_every_face(tmp_path: Path, text: str) -> None:
    outcomes = {}
    for face, do in FACES.items():
        project = Project(init_project(tmp_path / face).root)
        head = git(project.root, "rev-parse", "HEAD")
        done, said = do(project, text)
        day_file = project.root / DAY_FILE
        outcomes[face] = (day_file.read_bytes() if day_file.exists() else None, None if done is None else done["ids"], said)
        assert git(project.root, "rev-parse", "HEAD") == head  # capture never commits
        logged = captured.load(captured.log_path(git_dir(project.root)))
        # Who captured is logged for an agent's lines only, by the name its client gave.
        assert list(logged.values()) == ([AGENT] * len(done["ids"]) if face == "mcp" and done else [])
    assert outcomes["cli"] == outcomes["web"] == outcomes["mcp"], outcomes
    day, ids, said = outcomes["cli"]
    if text.strip():
        lines = [ln for ln in text.splitlines() if ln.strip()]
        assert ids == [f"2026-11-30#{n}" for n in range(1, len(lines) + 1)]
        assert day is not None and day.decode().splitlines() == [
            "\\" + ln.strip() if ln.startswith("#") else ln.strip() for ln in lines
        ]
        assert said.startswith(f"Captured {len(lines)} line(s) in {DAY_FILE} (not committed")
    else:
        assert day is None and ids is None
        assert said == "nothing to capture: give text with at least one non-blank line"
