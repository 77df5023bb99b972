"""Every setting `config list` shows is read, by the command that uses it, from every layer it claims.

One test per family: the tick's own settings (this machine only), the clocks of
one project, the model settings, the on/off switch, the key and command settings
a committed file may not choose.
"""

from __future__ import annotations

import json
import os
import tomllib
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from gitgarden.config import SPECS
from gitgarden.project import Project
from tests.helpers.schedule import NOW, Clock, invoke, make_app, user_config, waiting_project


def project_file(project: Project, text: str) -> None:
    (project.root / ".gitgarden" / "config.toml").write_text(text)


def status(app: object, project: Project, monkeypatch: pytest.MonkeyPatch) -> tuple[dict, str, str]:
    monkeypatch.chdir(project.root)
    as_json = invoke(app, "status", "--json")  # type: ignore[arg-type]
    human = invoke(app, "status")  # type: ignore[arg-type]
    assert as_json.exit_code == 0 and human.exit_code == 0, human.output
    return json.loads(as_json.stdout), human.stdout, human.stderr


def test_interval_min_is_the_ticks_and_config_says_so_in_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = waiting_project(tmp_path, "notes", "- a line")
    monkeypatch.chdir(p.root)
    app = make_app()
    refused = invoke(app, "config", "set", "interval_min", "5")
    assert refused.exit_code == 1 and "config set --user interval_min 5" in refused.stderr
    assert "interval_min" not in tomllib.loads((p.root / ".gitgarden" / "config.toml").read_text())
    assert invoke(app, "config", "set", "--user", "interval_min", "5").exit_code == 0
    got = invoke(app, "config", "get", "interval_min")
    assert got.stdout == "5\n" and "from user" in got.stderr
    data, human, _ = status(app, p, monkeypatch)
    assert data["tick"]["interval_min"] == 5 and "looks every 5 min" in human
    tick = json.loads(invoke(app, "tick", "--json").stdout)
    assert tick["looked"] and datetime.fromisoformat(tick["next_look"]) == NOW + timedelta(minutes=5)


def test_a_project_file_naming_interval_min_is_warned_about_not_silently_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = waiting_project(tmp_path, "notes", "- a line")
    project_file(p, "interval_min = 5\n")
    user_config().write_text("interval_min = 45\n")
    data, human, stderr = status(make_app(), p, monkeypatch)
    assert data["tick"]["interval_min"] == 45 and "looks every 45 min" in human
    assert "interval_min is ignored here" in stderr and "--user" in stderr
    rows = json.loads(invoke(make_app(), "config", "list", "--json").stdout)
    assert (rows["interval_min"]["value"], rows["interval_min"]["source"]) == (45, "user")


def test_the_clocks_of_one_project_are_read_from_its_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = waiting_project(tmp_path, "notes", "- a line")  # quiet for two hours
    user_config().write_text("idle_min = 10\n")
    project_file(p, "idle_min = 180\n")
    data, human, _ = status(make_app(), p, monkeypatch)
    assert [h["clock"] for h in data["held"]] == ["idle_min"] and "needs 180 min of quiet" in human
    project_file(p, "idle_min = 60\n")
    data, _, _ = status(make_app(GITGARDEN_IDLE_MIN="240"), p, monkeypatch)
    assert "needs 240 min" in data["held"][0]["detail"]  # the environment beats the project file


def test_the_switch_is_read_from_the_project_and_from_the_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = waiting_project(tmp_path, "notes", "- a line")
    project_file(p, "enabled = false\n")
    data, _, _ = status(make_app(), p, monkeypatch)
    assert data["held"][0]["clock"] == "enabled" and "project" in data["held"][0]["detail"]
    tick = json.loads(invoke(make_app(), "tick", "--json").stdout)
    assert tick["ran"] is None and tick["waiting"][0]["held"][0]["clock"] == "enabled"
    project_file(p, "")
    user_config().write_text("enabled = false\n")
    later = Clock(NOW + timedelta(hours=1))  # past the interval: the tick looks again
    assert json.loads(invoke(make_app(later), "tick", "--json").stdout)["reason"] == "disabled"


def test_the_model_settings_are_read_from_the_project_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = waiting_project(tmp_path, "notes")
    user_config().write_text('model = "openai/from-user"\ncontext_window = 4096\n')
    project_file(p, 'model = "ollama_chat/from-project"\ncontext_window = 16384\n')
    monkeypatch.chdir(p.root)
    data = json.loads(invoke(make_app(), "llm", "status", "--no-probe", "--json").stdout)
    assert (data["model"], data["context_window"]) == ("ollama_chat/from-project", 16384)


@pytest.mark.parametrize("key", ["api_key_env", "api_key_name", "notify_command", "interval_min"])
def test_what_a_committed_file_may_not_choose_is_ignored_with_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str) -> None:
    p = waiting_project(tmp_path, "notes")
    value = "5" if key == "interval_min" else '"chosen-by-the-project"'
    project_file(p, f"{key} = {value}\n")
    monkeypatch.chdir(p.root)
    res = invoke(make_app(), "config", "list", "--json")
    assert json.loads(res.stdout)[key]["source"] == "default"
    assert f"{key} is ignored here" in res.stderr


def test_every_setting_a_project_may_hold_is_read_from_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = waiting_project(tmp_path, "notes")
    monkeypatch.chdir(p.root)
    for spec in SPECS:
        res = invoke(make_app(), "config", "set", spec.key, _other_value(spec))
        if spec.project_ok:
            assert res.exit_code == 0, res.output
            assert "note:" not in res.stderr  # the project layer is the one that applies here
        else:
            assert res.exit_code == 1 and "never goes in a project file" in res.stderr


def _other_value(spec: object) -> str:
    kind = spec.type  # type: ignore[attr-defined]
    if kind is bool:
        return "false" if spec.default else "true"  # type: ignore[attr-defined]
    if kind in (int, float):
        return str(spec.lo + 1)  # type: ignore[attr-defined]
    if kind is list:
        return "AGENTS.md"
    if spec.choices:  # type: ignore[attr-defined]
        return next(c for c in spec.choices if c != spec.default)  # type: ignore[attr-defined]
    layout = {"wiki_dir": ".", "journal_dir": "Daily notes", "map_page": "Map", "journal_from": "2026-11-01"}  # what the project may name
    if spec.key in layout:  # type: ignore[attr-defined]
        return layout[spec.key]  # type: ignore[attr-defined]
    if spec.key == "api_base":  # type: ignore[attr-defined]
        return "http://127.0.0.1:8080/v1"  # an endpoint is a URL (`config set` refuses anything else)
    return "x <x@example.org>" if spec.key == "author" else "openai/x"  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", [["get", "reveiw"], ["set", "reveiw", "true"], ["unset", "reveiw"], ["get", "idel_min"]])
def test_a_misspelt_key_gets_a_suggestion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]) -> None:
    p = waiting_project(tmp_path, "notes")
    monkeypatch.chdir(p.root)
    res = invoke(make_app(), "config", *command)
    want = "review" if "reveiw" in command else "idle_min"
    assert res.exit_code == 1 and f"did you mean `{want}`?" in res.stderr
    assert os.path.getsize(p.root / ".gitgarden" / "config.toml") == 0 or "reveiw" not in (p.root / ".gitgarden" / "config.toml").read_text()
