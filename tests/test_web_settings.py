"""The settings page's forms: what they write is what `gitgarden config get` reads back, they refuse
what `gitgarden config set` refuses (with the same line, nothing written), and a key typed into them
is stored as `gitgarden keys set` stores it and never shown back — not on a page, not in a message,
not in the address a form redirects to."""

from __future__ import annotations

import html
import json
import os
import re
from pathlib import Path

import pytest

from gitgarden.project import Project
from tests.helpers.project import invoke, write
from tests.helpers.web_client import client, form

KEY = "sk-proj-a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6"
NO_MODEL = {"GITGARDEN_MODEL": ""}  # the test client's scripted model out of the way: the files decide


def cli_env() -> dict[str, str]:
    """The command line's environment, reading the same user file as the app."""
    return {**NO_MODEL, "GITGARDEN_CONFIG": os.environ["GITGARDEN_CONFIG"]}


def user_file() -> Path:
    return Path(os.environ["GITGARDEN_CONFIG"])


def note_after(c: object, response: object) -> str:
    """The message of the page a POST redirected to."""
    location = response.headers["location"]  # type: ignore[attr-defined]
    page = c.get(location).text  # type: ignore[attr-defined]
    start = page.index('<p class="note" role="status">') + len('<p class="note" role="status">')
    return html.unescape(re.sub(r"</?code>", "`", page[start : page.index("</p>", start)]))  # a note shows `code` as code


def test_the_model_form_writes_the_user_file_that_config_get_reads(project: Project) -> None:
    project_file = (project.root / ".gitgarden/config.toml").read_text()
    c = client(project, env=NO_MODEL)
    fields = {"form": "model", "keys": "model,api_base,mode", "model": "openai/qwen", "api_base": "http://127.0.0.1:8080/v1", "mode": "small", "scope": "user"}
    r = c.post("/settings/set", data=form(**fields), follow_redirects=False)
    assert r.status_code == 303
    note = note_after(c, r)
    assert note.startswith(f"Saved model = openai/qwen, api_base = http://127.0.0.1:8080/v1, mode = small in {user_file()}.")
    for key, want in (("model", "openai/qwen"), ("api_base", "http://127.0.0.1:8080/v1"), ("mode", "small")):
        got = json.loads(invoke(project, "config", "get", key, "--json", env=cli_env()).stdout)
        assert (got["value"], got["source"]) == (want, "user")
    assert (project.root / ".gitgarden/config.toml").read_text() == project_file


def test_budgets_and_review_go_to_the_project_file(project: Project) -> None:
    c = client(project, env=NO_MODEL)
    c.post("/settings/set", data=form(form="budgets", keys="token_budget,timeout", token_budget="5000", timeout="60", scope="project"))
    c.post("/settings/set", data=form(form="review", keys="review", review="true", scope="project"))
    for key, want in (("token_budget", 5000), ("timeout", 60), ("review", True)):
        got = json.loads(invoke(project, "config", "get", key, "--json", env=cli_env()).stdout)
        assert (got["value"], got["source"]) == (want, "project")
    c.post("/settings/set", data=form(form="review", keys="review", scope="project"))  # the box unticked
    assert json.loads(invoke(project, "config", "get", "review", "--json").stdout)["value"] is False


@pytest.mark.parametrize(
    ("key", "value", "scope"),
    [
        ("api_base", "ftp://models.example.org/v1", "user"),
        ("api_base", "http://me:hunter2@models.example.org/v1", "user"),
        ("api_base", "models.example.org", "user"),
        ("timeout", "99999", "project"),
        ("mode", "huge", "project"),
        ("api_key_env", "MY_KEY", "project"),  # a key's name never goes in a committed file
    ],
)
def test_the_form_refuses_what_config_set_refuses_in_the_same_words(project: Project, key: str, value: str, scope: str) -> None:
    before = {p: p.read_bytes() if p.exists() else None for p in (user_file(), project.root / ".gitgarden/config.toml")}
    cli = invoke(project, "config", "set", *(["--user"] if scope == "user" else []), key, value, env=cli_env())
    assert cli.exit_code == 1
    said = cli.stderr.strip().removeprefix("gitgarden: ")
    c = client(project, env=NO_MODEL)
    r = c.post("/settings/set", data=form(form="every", key=key, value=value, scope=scope), follow_redirects=False)
    assert note_after(c, r) == f"Nothing was written: {said}"
    assert {p: p.read_bytes() if p.exists() else None for p in before} == before
    assert "hunter2" not in r.headers["location"]


def test_an_endpoint_the_environment_holds_is_refused_and_shown_as_held(project: Project) -> None:
    env = {**NO_MODEL, "GITGARDEN_API_BASE": "http://127.0.0.1:9/v1"}
    c = client(project, env=env)
    assert 'set by <code>GITGARDEN_API_BASE</code> in the environment' in c.get("/settings").text
    r = c.post("/settings/set", data=form(form="every", key="api_base", value="http://127.0.0.1:8/v1", scope="user"), follow_redirects=False)
    assert note_after(c, r) == "Nothing was written: GITGARDEN_API_BASE is set in the environment and overrides any file: unset it (or change it there) instead"
    assert not user_file().exists()


def test_one_refused_value_leaves_every_file_as_it_was(project: Project) -> None:
    write(project.root, ".gitgarden/config.toml", "# mine\ntoken_budget = 100\n")
    c = client(project, env=NO_MODEL)
    r = c.post("/settings/set", data=form(form="budgets", keys="token_budget,timeout", token_budget="7000", timeout="0", scope="project"), follow_redirects=False)
    assert note_after(c, r) == "Nothing was written: timeout must be within 1–3600; 0 refused (nothing written)"
    assert (project.root / ".gitgarden/config.toml").read_text() == "# mine\ntoken_budget = 100\n"


def test_an_endpoint_in_the_project_file_is_saved_and_said_to_get_no_key(project: Project) -> None:
    c = client(project, env={**NO_MODEL, "GITGARDEN_API_KEY": KEY})
    r = c.post("/settings/set", data=form(form="model", keys="model,api_base", model="openai/qwen", api_base="https://models.example.org/v1", scope="project"), follow_redirects=False)
    note = note_after(c, r)
    assert "The API key is withheld: api_base comes from the project's committed .gitgarden/config.toml" in note
    assert KEY not in note and KEY not in c.get("/settings").text


def test_a_key_is_stored_and_never_shown_back(project: Project) -> None:
    c = client(project, env=NO_MODEL)
    c.post("/settings/set", data=form(form="model", keys="model", model="openai/gpt-4o-mini", scope="user"))
    r = c.post("/settings/key", data=form(name="openai", secret=KEY), follow_redirects=False)
    assert KEY not in r.headers["location"]
    note = note_after(c, r)
    assert note.startswith("Stored the key 'openai' in ") and "The model openai/gpt-4o-mini uses it: it is sent to the openai API" in note
    keys_file = user_file().parent / "keys.json"
    assert json.loads(keys_file.read_text()) == {"openai": KEY} and keys_file.stat().st_mode & 0o777 == 0o600
    page = c.get("/settings").text
    assert KEY not in page and "<code>openai</code>" in page  # the name, never the key
    assert 'type="password" name="secret" value=""' in page
    assert json.loads(invoke(project, "llm", "status", "--no-probe", "--json", env=cli_env()).stdout)["api_key"] == "sent"


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("openai", "sk-proj-a1b2 c3d4e5f6g7h8i9j0"),  # a space: not one key
        (KEY, "whatever"),  # the key pasted into the name field
    ],
)
def test_a_refused_key_is_never_echoed(project: Project, name: str, secret: str) -> None:
    c = client(project, env=NO_MODEL)
    r = c.post("/settings/key", data=form(name=name, secret=secret), follow_redirects=False)
    note = note_after(c, r)
    assert note.startswith("No key was stored: ")
    for text in (secret, name if name == KEY else "sk-proj-a1b2"):
        assert text not in note and text not in r.headers["location"] and text not in c.get("/settings").text
    assert not (user_file().parent / "keys.json").exists()


def test_a_key_pasted_into_a_setting_is_refused_without_being_repeated(project: Project) -> None:
    c = client(project, env=NO_MODEL)
    for key in ("model", "api_base", "timeout"):
        r = c.post("/settings/set", data=form(form="every", key=key, value=KEY, scope="user"), follow_redirects=False)
        note = note_after(c, r)
        assert note.startswith("Nothing was written: ") and "looks like an API key" in note and KEY not in note, note
    assert not user_file().exists()
    cli = invoke(project, "config", "set", "--user", "model", KEY, env=cli_env())
    assert cli.exit_code == 1 and KEY not in cli.output
