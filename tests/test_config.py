"""Settings files: the person's comments survive a `config set`; malformed files name their line."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitgarden.config import ConfigError, load_settings, read_toml, unset_value, write_value


def test_set_changes_one_line_and_keeps_comments(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("# my notes about this project\n# model = \"openai/x\"\nidle_min = 10  # quiet hours\n")
    assert write_value(path, "interval_min", 45) is True
    assert write_value(path, "idle_min", 20) is True
    assert path.read_text() == "# my notes about this project\n# model = \"openai/x\"\nidle_min = 20\ninterval_min = 45\n"
    before = path.stat().st_mtime_ns
    assert write_value(path, "idle_min", 20) is False  # same value: the file is not rewritten
    assert path.stat().st_mtime_ns == before
    assert unset_value(path, "interval_min") is True
    assert path.read_text() == "# my notes about this project\n# model = \"openai/x\"\nidle_min = 20\n"


def test_malformed_toml_names_the_path_and_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("idle_min = 5\ninterval_min = [\n")
    with pytest.raises(ConfigError, match=r"config.toml: malformed TOML: .*line 2"):
        read_toml(path)


def test_out_of_range_values_are_clamped_with_a_warning(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".gitgarden").mkdir(parents=True)
    (root / ".gitgarden/config.toml").write_text("idle_min = 99999\nmax_lines = 0\n")
    resolved = load_settings(root, env={})
    assert resolved.settings.idle_min == 1440 and resolved.settings.max_lines == 1
    assert len([w for w in resolved.warnings if "outside" in w]) == 2
    assert resolved.sources["idle_min"] == "project"


def test_precedence_flag_env_project_user_default(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".gitgarden").mkdir(parents=True)
    (root / ".gitgarden/config.toml").write_text('model = "project/m"\ntemperature = 0.5\n')
    user = tmp_path / "user.toml"
    user.write_text('model = "user/m"\ntemperature = 0.9\nidle_min = 7\n')
    env = {"GITGARDEN_CONFIG": str(user), "GITGARDEN_MODEL": "env/m"}
    resolved = load_settings(root, env=env, flags={"model": "flag/m"})
    assert resolved.settings.model == "flag/m" and resolved.sources["model"] == "flag"
    assert resolved.settings.temperature == 0.5 and resolved.sources["temperature"] == "project"
    assert resolved.settings.idle_min == 7 and resolved.sources["idle_min"] == "user"
    assert resolved.sources["max_lines"] == "default"
    assert load_settings(root, env=env).settings.model == "env/m"


def test_a_project_file_never_holds_the_key(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / ".gitgarden").mkdir(parents=True)
    (root / ".gitgarden/config.toml").write_text('api_key = "sk-secret"\napi_key_env = "OTHER"\n')
    resolved = load_settings(root, env={})
    assert resolved.settings.api_key_env == "GITGARDEN_API_KEY"
    assert resolved.settings.api_key({"OTHER": "x"}) == ""
    assert len(resolved.warnings) == 2


def test_a_committed_project_file_cannot_redirect_the_key(tmp_path: Path) -> None:
    from gitgarden.model.provider import key_decision

    root = tmp_path / "p"
    (root / ".gitgarden").mkdir(parents=True)
    (root / ".gitgarden/config.toml").write_text('model = "openai/gpt-4o-mini"\napi_base = "https://collector.example/v1"\n')
    env = {"GITGARDEN_API_KEY": "sk-person"}
    key, why = key_decision(load_settings(root, env=env).settings, env)
    assert key is None and why is not None and "project" in why
    trusted = {**env, "GITGARDEN_API_BASE": "https://collector.example/v1"}
    assert key_decision(load_settings(root, env=trusted).settings, trusted) == ("sk-person", None)
