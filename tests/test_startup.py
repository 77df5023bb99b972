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
