"""A local model found without configuration: with no model set, `run`, `status` and `llm status` look
on loopback ports for an OpenAI-compatible server, list what it serves and say the one command that
uses it — never using it by themselves, never sending a key.

Every test hands the ports to look at (the fake server's, and one that refuses), so what else runs on
this machine (a real ollama on 11434) does not matter.
"""

from __future__ import annotations

import json
import shlex
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from click.testing import CliRunner

from gitgarden.cli.main import App, cli
from gitgarden.model import servers
from gitgarden.project import Project
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.project import FIXED_NOW, git

MODEL_ID = "qwen2.5-1.5b-instruct"


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port bound but not listening for as long as the test runs: a connection is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


@pytest.fixture
def local() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(model_id=MODEL_ID) as fake:
        yield fake


def cli_in(project: Project, ports: dict[int, str], *args: str, env: dict[str, str] | None = None) -> Any:
    """`gitgarden ARGS` in `project` with no model anywhere, looking only at `ports`."""
    import os

    cwd = os.getcwd()
    os.chdir(project.root)
    try:
        app = App(env=dict(env or {}), now=lambda: FIXED_NOW, local_ports=ports)
        return CliRunner().invoke(cli, list(args), obj=app)
    finally:
        os.chdir(cwd)


def test_llm_status_names_the_server_its_models_and_the_command_and_sends_no_key(
    project: Project, local: FakeOpenAI, closed_port: int
) -> None:
    ports = {closed_port: "ollama", local.port: "llama.cpp"}
    env = {"GITGARDEN_API_KEY": "sk-secret-1", "OPENAI_API_KEY": "sk-secret-2"}
    done = cli_in(project, ports, "llm", "status", "--no-probe", env=env)
    assert done.exit_code == 0, done.output
    base = f"http://127.0.0.1:{local.port}/v1"
    assert f"A local model server answers on this machine: llama.cpp at {base} serves {MODEL_ID}. To use it:" in done.stderr
    command = f"gitgarden config set --user model openai/{MODEL_ID} && gitgarden config set --user api_base {base}"
    assert f"  {command}" in done.stderr.splitlines()
    assert "ollama at" not in done.stderr  # the refusing port: nothing there
    # One look, and no more: a GET of the model list, with no key of the person's, and no completion.
    assert [r["path"] for r in local.requests] == ["/v1/models"]
    assert "authorization" not in local.requests[0]["headers"]
    assert not any("sk-secret" in value for value in local.requests[0]["headers"].values())

    shown = json.loads(cli_in(project, ports, "llm", "status", "--no-probe", "--json").stdout)
    assert shown["configured"] is False
    assert shown["local_servers"] == [
        {"port": local.port, "kind": "llama.cpp", "api_base": base, "models": [MODEL_ID], "command": command}
    ]


def test_the_command_said_is_the_one_that_makes_gitgarden_use_the_server(
    project: Project, local: FakeOpenAI, tmp_path: Any
) -> None:
    env = {"GITGARDEN_CONFIG": str(tmp_path / "user" / "config.toml")}
    said = cli_in(project, {local.port: "LM Studio"}, "llm", "status", "--no-probe", env=env).stderr.splitlines()
    command = said[said.index(next(s for s in said if s.startswith("A local model server"))) + 1].strip()
    for part in command.split(" && "):
        words = shlex.split(part)
        assert words[0] == "gitgarden"
        assert cli_in(project, {}, *words[1:], env=env).exit_code == 0
    shown = json.loads(cli_in(project, {local.port: "LM Studio"}, "llm", "status", "--no-probe", "--json", env=env).stdout)
    assert (shown["model"], shown["endpoint"], shown["mode"]) == (f"openai/{MODEL_ID}", local.base_url, "small")
    assert "local_servers" not in shown  # a model is set: nothing is looked for
    assert git(project.root, "status", "--porcelain") == ""  # the user file changed, the project did not


def test_run_and_status_without_a_model_say_what_answers_and_use_nothing(
    project: Project, local: FakeOpenAI, closed_port: int
) -> None:
    (project.journal / "2026-11-29.md").write_text("Acme signed the pilot contract\n")
    ports = {local.port: "ollama", closed_port: "llama.cpp"}
    ran = cli_in(project, ports, "run")
    assert ran.exit_code == 0, ran.output
    assert "no model configured" in ran.stderr
    assert f"ollama at {local.base_url} serves {MODEL_ID}" in ran.stderr
    status = cli_in(project, ports, "status")
    assert f"ollama at {local.base_url} serves {MODEL_ID}" in status.stderr
    data = json.loads(cli_in(project, ports, "status", "--json").stdout)
    assert [s["api_base"] for s in data["local_servers"]] == [local.base_url]
    assert data["unread"] == 1  # the line still waits: nothing used the server
    assert {r["path"] for r in local.requests} == {"/v1/models"}


def test_with_a_model_set_nothing_is_looked_for(project: Project, local: FakeOpenAI) -> None:
    done = cli_in(project, {local.port: "ollama"}, "llm", "status", "--no-probe", env={"GITGARDEN_MODEL": "openai/gpt-4o-mini"})
    assert done.exit_code == 0 and "A local model server" not in done.stderr
    assert local.requests == []


class _Redirect(BaseHTTPRequestHandler):
    target = ""

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.send_response(302)
        self.send_header("Location", self.target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


def test_a_redirect_is_never_followed_and_odd_model_names_are_not_shown(local: FakeOpenAI) -> None:
    handler = type("_To", (_Redirect,), {"target": f"{local.base_url}/models"})
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as redirecting:
        thread = threading.Thread(target=redirecting.serve_forever, daemon=True)
        thread.start()
        try:
            assert servers.find({int(redirecting.server_address[1]): "llama.cpp"}) == []
        finally:
            redirecting.shutdown()
    assert local.requests == []  # the redirect led nowhere
    local.model_id = "evil\x1b]52;c;aGk=\x07"
    [found] = servers.find({local.port: "llama.cpp"})
    assert found.models == ()  # a name that could steer the terminal is dropped, the server still named
