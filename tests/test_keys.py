"""`gitgarden keys`: stored keys in the user's config folder, and where `llm status` says they go."""

from __future__ import annotations

import json
import os
import pty
import select
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gitgarden.cli.main import App, cli
from gitgarden.config import Settings, load_settings
from gitgarden.model import keys as store
from gitgarden.model import provider
from gitgarden.project import Project
from tests.helpers.fake_openai import FakeOpenAI

KEY = "sk-stored-8d1f3a9c7e5b2d4f6a0c"  # recognisable: it must never appear in any output
OTHER = "sk-env-1b2c3d4e5f6a7b8c9d0e"


def invoke(*args: str, stdin: str | None = None, **env: str) -> Result:
    app = App(env={**os.environ, **env})
    return CliRunner().invoke(cli, list(args), obj=app, input=stdin)


def keys_file() -> Path:
    return Path(os.environ["GITGARDEN_CONFIG"]).parent / "keys.json"


def test_set_list_path_unset_and_the_key_is_never_shown() -> None:
    res = invoke("keys", "set", "openai", stdin=KEY + "\n")
    assert res.exit_code == 0, res.output
    assert "Stored the key 'openai'" in res.stderr and KEY not in res.output
    assert stat.S_IMODE(keys_file().stat().st_mode) == 0o600
    assert json.loads(keys_file().read_text()) == {"openai": KEY}
    assert invoke("keys", "set", "work", stdin="sk-work-0000000000000000").exit_code == 0
    listed = invoke("keys", "list")
    assert listed.stdout == "openai\nwork\n" and KEY not in listed.output
    assert json.loads(invoke("keys", "list", "--json").stdout) == ["openai", "work"]
    assert invoke("keys", "path").stdout == f"{keys_file()}\n"
    assert invoke("keys", "unset", "work").exit_code == 0
    assert json.loads(keys_file().read_text()) == {"openai": KEY}
    gone = invoke("keys", "unset", "work")
    assert gone.exit_code == 1 and "no key named 'work'" in gone.stderr
    assert stat.S_IMODE(keys_file().stat().st_mode) == 0o600


def test_a_key_is_never_taken_from_the_command_line() -> None:
    res = invoke("keys", "set", "openai", KEY)
    assert res.exit_code == 2 and not keys_file().exists()


@pytest.mark.parametrize(("stdin", "message"), [("", "no key given"), ("sk one two", "no spaces")])
def test_an_empty_or_garbled_key_is_refused(stdin: str, message: str) -> None:
    res = invoke("keys", "set", "openai", stdin=stdin)
    assert res.exit_code == 1 and message in res.stderr and not keys_file().exists()


def test_a_bad_name_is_refused() -> None:
    res = invoke("keys", "set", "../evil", stdin=KEY)
    assert res.exit_code == 1 and "is not a key name" in res.stderr and not keys_file().exists()


def test_keys_are_never_stored_inside_a_project(project: Project) -> None:
    inside = project.root / "gitgarden-user.toml"
    res = invoke("keys", "set", "openai", stdin=KEY, GITGARDEN_CONFIG=str(inside))
    assert res.exit_code == 1 and "never stored in a project" in res.stderr
    assert not (project.root / "keys.json").exists()


def test_a_malformed_keys_file_is_named_without_quoting_it() -> None:
    keys_file().parent.mkdir(parents=True, exist_ok=True)
    keys_file().write_text('{"openai": "' + KEY + '"')
    res = invoke("keys", "list")
    assert res.exit_code == 1 and str(keys_file()) in res.stderr and KEY not in res.output


def test_the_hidden_prompt_does_not_echo_the_key(tmp_path: Path) -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child: gitgarden on a terminal
        os.execv(sys.executable, [sys.executable, "-m", "gitgarden", "keys", "set", "openai"])
    seen = b""
    try:
        seen += _read_until(fd, b"Key for openai")
        os.write(fd, KEY.encode() + b"\r")
        seen += _read_until(fd, b"Stored the key")
    finally:
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, seen
    assert KEY.encode() not in seen
    assert json.loads(keys_file().read_text()) == {"openai": KEY}


def _read_until(fd: int, marker: bytes, timeout: float = 60) -> bytes:
    got = b""
    deadline = time.monotonic() + timeout
    while marker not in got and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            try:
                chunk = os.read(fd, 1024)
            except OSError:
                break
            if not chunk:
                break
            got += chunk
    assert marker in got, got
    return got


# -- which key a model uses, and where it may go ----------------------------------------------------


def test_the_stored_key_is_chosen_by_name_or_by_the_models_provider() -> None:
    store.set_key("openai", KEY)
    store.set_key("work", "sk-work-0000000000000000")
    env = dict(os.environ)
    assert provider.key_decision(Settings(model="openai/gpt-4o-mini"), env) == (KEY, None)
    chosen = Settings(model="openai/gpt-4o-mini", api_key_name="work")
    assert provider.key_decision(chosen, env)[0] == "sk-work-0000000000000000"
    # With an endpoint of the person's own, the provider's key goes there only when named.
    local = Settings(model="openai/gemma", api_base="http://127.0.0.1:8080/v1")
    assert provider.key_decision(local, env) == (None, None)
    named = Settings(model="openai/gemma", api_base="http://127.0.0.1:8080/v1", api_key_name="openai")
    assert provider.key_decision(named, env) == (KEY, None)


def test_the_environment_still_comes_first() -> None:
    store.set_key("openai", KEY)
    env = {**os.environ, "MY_KEY": OTHER}
    assert provider.key_decision(Settings(model="openai/gpt-4o-mini", api_key_env="MY_KEY"), env) == (OTHER, None)
    assert provider.key_source(Settings(model="openai/gpt-4o-mini"), {**os.environ, "GITGARDEN_API_KEY": OTHER})[0] == OTHER


def test_a_stored_key_is_withheld_from_an_api_base_only_a_committed_file_names(tmp_path: Path) -> None:
    store.set_key("openai", KEY)
    Path(os.environ["GITGARDEN_CONFIG"]).write_text('api_key_name = "openai"\n')
    root = tmp_path / "shared"
    (root / ".gitgarden").mkdir(parents=True)
    (root / ".gitgarden/config.toml").write_text('model = "openai/gpt-4o-mini"\napi_base = "https://collector.example/v1"\n')
    env = dict(os.environ)
    key, why = provider.key_decision(load_settings(root, env=env).settings, env)
    assert key is None and why is not None and "project" in why
    trusted = {**env, "GITGARDEN_API_BASE": "https://collector.example/v1"}
    assert provider.key_decision(load_settings(root, env=trusted).settings, trusted) == (KEY, None)



@pytest.mark.litellm
def test_the_stored_key_reaches_the_endpoint_and_no_output(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    store.set_key("local", KEY)
    server.enqueue("ok", completion_tokens=1)
    env = {"GITGARDEN_MODEL": "openai/fake", "GITGARDEN_API_BASE": server.base_url, "GITGARDEN_API_KEY_NAME": "local"}
    res = invoke("llm", "status", **env)
    assert res.exit_code == 0, res.output
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"
    assert "reachable          yes" in res.stdout and "the stored key 'local'" in res.stdout
    assert KEY not in res.output


# -- llm status in words -------------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.litellm
def test_llm_status_exits_non_zero_when_the_model_is_unreachable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"GITGARDEN_MODEL": "openai/x", "GITGARDEN_API_BASE": f"http://127.0.0.1:{closed_port()}/v1", "GITGARDEN_NUM_RETRIES": "0"}
    res = invoke("llm", "status", **env)
    assert res.exit_code == 1 and "reachable          no: " in res.stdout
    as_json = invoke("llm", "status", "--json", **env)
    assert as_json.exit_code == 1 and json.loads(as_json.stdout)["reachable"] is False


def test_llm_status_speaks_words_and_says_what_to_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = invoke("llm", "status")
    assert res.exit_code == 0
    for word in ("True", "False", "null", "None"):
        assert word not in res.stdout
    assert "model              none configured" in res.stdout and "reachable          not checked" in res.stdout
    assert "gitgarden config set --user model" in res.stderr and "gitgarden keys set" in res.stderr
    res = invoke("llm", "status", "--no-probe", GITGARDEN_MODEL="ollama_chat/llama3")
    assert "model              ollama_chat/llama3 (from env)" in res.stdout
    assert "not checked (--no-probe)" in res.stdout and "API key            none configured" in res.stdout


def test_keys_set_in_a_subprocess_reads_stdin(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gitgarden", "keys", "set", "openai"], input=KEY + "\n", capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert KEY not in done.stdout + done.stderr and store.stored_keys() == {"openai": KEY}
