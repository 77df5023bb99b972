"""Every face does a use case the same way, because each calls the one `services` function for it.

A pass from the command line and from the web app's run panel goes through `services.run.run` to
the same model path (litellm, HTTP) against tests/helpers/fake_openai.py's server on loopback; the
web panel streams the reply and the command line in a pipe does not, and both land the same page
whether the endpoint streams or answers a streamed request with a plain JSON completion.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gitgarden.cli.main import App, cli
from gitgarden.project import Project, init_project
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
