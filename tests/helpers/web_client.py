"""The web app of `gitgarden serve` in a test: a client through Starlette's test client, with the
token's cookie, the scripted model and the fixed clock; and the projects its tests open."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from gitgarden.project import Project, init_project
from gitgarden.services.run import ModelFactory
from gitgarden.web.app import make_app
from gitgarden.web.safety import KEY_FIELD, cookie_name, cookie_value, csrf_value, form_key
from gitgarden.web.site import Site
from tests.helpers.project import FIXED_NOW, FakeModel, sample_repo, write
from tests.helpers.vault import build_vault

TOKEN = "the-token-of-this-start"
PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
# Every page of the app a GET reaches (a pass's, a page's and a day's added where a test has them).
PAGES = ("/", "/passes", "/pages", "/map", "/journal", "/review", "/run", "/health", "/settings")


def client(
    project: Project,
    model: FakeModel | None = None,
    *,
    env: dict[str, str] | None = None,
    token: bool = True,
    model_factory: ModelFactory | None = None,
) -> TestClient:
    """A browser of the app for `project`, holding the token's cookie unless `token` is False (its
    forms, `form()`, carry what the page's script adds: the key of the start); the pass it starts
    gets `model`, or what `model_factory` makes (the real one reaches an endpoint)."""
    site = Site(
        project.root,
        {**os.environ, "GITGARDEN_MODEL": "fake/scripted", **(env or {})},
        lambda: FIXED_NOW,
        model_factory or (lambda _settings, _env: model),
        TOKEN,
        "127.0.0.1",
        PORT,
    )
    c = TestClient(make_app(site), base_url=BASE)
    if token:
        c.cookies.set(cookie_name(PORT), cookie_value(TOKEN))
    return c


def form(**fields: str) -> dict[str, str]:
    """A form as the app's own page sends it: with its CSRF value and the key its script adds."""
    return {"csrf": csrf_value(TOKEN), KEY_FIELD: form_key(TOKEN), **fields}


def sample(tmp: Path) -> Project:
    """The repository's sample project, as a person would have it: committed, then `gitgarden init`."""
    return Project(init_project(sample_repo(tmp)).root)


def root_vault(tmp: Path) -> Project:
    """An Obsidian vault kept at the project's root (folders, human names, attachments, daily notes)."""
    root = tmp / "vault"
    build_vault(root, ".")
    write(
        root,
        ".obsidian/daily-notes.json",
        json.dumps({"folder": "Daily notes", "format": "YYYY-MM-DD"}),
    )
    return Project(init_project(root).root)


def created(op_page: str, title: str, body: str, line: str) -> dict[str, Any]:
    return {"op": "create_page", "page": op_page, "title": title, "body": body, "lines": [line]}
