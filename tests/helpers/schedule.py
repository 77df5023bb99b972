"""The command line on a clock a test moves: an App, a registered project waiting with lines, a tick's JSON."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from gitgarden.cli.main import App, cli
from gitgarden.project import Project, init_project
from gitgarden.schedule import registry
from tests.helpers.project import FIXED_NOW, FakeModel, write

NOW = FIXED_NOW


class Clock:
    """An injected clock the test moves by hand."""

    def __init__(self, at: datetime = NOW) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def advance(self, **kw: float) -> None:
        self.at += timedelta(**kw)


def make_app(clock: Clock | None = None, model: FakeModel | None = None, **env: str) -> App:
    return App(env={**os.environ, **env}, now=clock or Clock(), model_factory=lambda _s, _e: model)


def invoke(app: App, *args: str) -> Result:
    return CliRunner().invoke(cli, list(args), obj=app)


def age(root: Path, when: datetime) -> None:
    """Set the mtime of everything the idle clock looks at to `when`."""
    t = when.timestamp()
    for folder in ("raw/journal", "raw/chat", "wiki"):
        for dirpath, _dirs, files in os.walk(root / folder):
            for name in files:
                os.utime(os.path.join(dirpath, name), (t, t))
            os.utime(dirpath, (t, t))


def waiting_project(tmp_path: Path, name: str, *lines: str, register: bool = True) -> Project:
    """A real initialised project with unread journal lines, quiet for two hours, registered."""
    project = Project(init_project(tmp_path / name).root)
    if lines:
        write(project.root, "raw/journal/2026-11-29.md", "".join(f"{ln}\n" for ln in lines))
    age(project.root, NOW - timedelta(hours=2))
    if register:
        registry.register(project.root, dict(os.environ))
    return project


def tick_json(app: App) -> tuple[dict[str, Any], Result]:
    res = invoke(app, "tick", "--json")
    return json.loads(res.stdout), res


def user_config() -> Path:
    return Path(os.environ["GITGARDEN_CONFIG"])
