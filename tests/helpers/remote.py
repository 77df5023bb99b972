"""Two clones of one project sharing a bare remote, and the replies their passes use."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import PassResult
from gitgarden.project import Project
from tests.helpers import project as helpers
from tests.helpers.project import FakeModel, git

SETTINGS = Settings(model="fake/scripted", remote="origin")


def garden(project: Project, model: FakeModel | None, settings: Settings = SETTINGS) -> PassResult:
    """helpers.project's garden with the remote set (this file's SETTINGS)."""
    return helpers.garden(project, model, settings)


def create(page_name: str, title: str, body: str, line: str) -> dict[str, Any]:
    return {"operations": [{"op": "create_page", "page": page_name, "title": title, "body": body, "lines": [line]}]}


def append(page_name: str, text: str, line: str) -> dict[str, Any]:
    return {"operations": [{"op": "append", "page": page_name, "text": text, "lines": [line]}]}


def remote_log(remote: Path) -> list[str]:
    return git(remote, "log", "--format=%s", "main").splitlines()


def no_force_push(remote: Path) -> None:
    """Every update of the remote's main in its reflog was a fast-forward."""
    ids = git(remote, "reflog", "show", "--format=%H", "refs/heads/main").split()
    for newer, older in zip(ids, ids[1:], strict=False):
        proc = subprocess.run(["git", "-C", str(remote), "merge-base", "--is-ancestor", older, newer], check=False)
        assert proc.returncode == 0, f"{older} -> {newer} was not a fast-forward"


class OtherMachineFirst(FakeModel):
    """A model that, before it answers, lets the other clone's whole pass happen (the race)."""

    def __init__(self, other: Any) -> None:
        super().__init__()
        self.other = other

    def complete(self, messages: Any, schema: Any, budget: Any) -> Any:
        if self.other is not None:
            other, self.other = self.other, None
            other()
        return super().complete(messages, schema, budget)
