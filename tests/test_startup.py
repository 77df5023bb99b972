"""Only a pass that calls a model pays litellm's import (~3 s on these machines)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gitgarden.project import Project


@pytest.mark.parametrize("args", [["--help"], ["status"], ["guard"], ["health"], ["schema"], ["run", "--help"]])
def test_commands_that_call_no_model_never_import_litellm(project: Project, args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitgarden", *args], cwd=project.root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode in (0, 1, 3), done.stderr[-2000:]
    imported = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert imported, "importtime printed nothing: the check would be vacuous"
    assert not [line for line in imported if "litellm" in line or " openai" in line]


def test_a_run_with_nothing_new_never_imports_litellm(project: Project) -> None:
    env_model = {"GITGARDEN_MODEL": "openai/never-called", "GITGARDEN_API_BASE": "http://127.0.0.1:9/v1"}
    import os

    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitgarden", "run"],
        cwd=project.root, capture_output=True, text=True, timeout=120, env={**os.environ, **env_model},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "nothing new" in done.stderr
    assert "litellm" not in done.stderr


# What `status` (and a tick that finds nothing) does not need stays unimported: the YAML and
# page parsers, the tree, the TOML writer, OpenSSL's hashlib, subprocess, rich, the timers, the keys.
DEFERRED = (
    "gitgarden.wiki.facts", "gitgarden.wiki.pages", "gitgarden.wiki.tree", "gitgarden.schedule.timers", "gitgarden.model.keys",
    "gitgarden.gardener.pipeline",
    "yaml", "frontmatter", "tomli_w", "hashlib", "_hashlib", "subprocess", "shlex", "shutil", "pickle", "rich",
)  # fmt: skip


def test_status_defers_what_it_does_not_need(project: Project) -> None:
    import os

    (project.root / "raw/journal/2026-11-29.md").write_text("a line no model will read\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITGARDEN_MODEL")}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitgarden", "status"], cwd=project.root, capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "NO MODEL" in done.stdout  # the path that names the timer's env file, too
    names = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "gitgarden.schedule" in names, "importtime printed nothing useful: the check would be vacuous"
    assert sorted(names & set(DEFERRED)) == []


def test_the_registry_knows_where_the_read_position_lives() -> None:
    from gitgarden.schedule import registry
    from gitgarden.wiki import journal

    assert registry.READ_PATH == journal.READ_PATH
