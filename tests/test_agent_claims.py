"""A line an agent captured (through `gitgarden mcp`) is the agent's, whatever name its client gave —
the person's own, or none: it never marks a page of the person's superseded (the question goes to
the map's Open section), and the name is shown as the client's claim, never as who captured."""

from __future__ import annotations

import json

import pytest

from gitgarden.agents.tools import Door
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from gitgarden.wiki import captured, pages
from tests.helpers.project import FIXED_NOW, FakeModel, commit_all, garden, invoke, page, write

DAY = f"{FIXED_NOW:%Y-%m-%d}"
LINE = "Acme is superseded by Acme two since the merger"
SUPERSEDE = {"operations": [{"op": "supersede", "page": "acme", "by": "acme-two", "lines": [f"{DAY}#1"]}]}


@pytest.fixture
def acme(project: Project) -> Project:
    write(project.root, "wiki/acme.md", page("Acme", "Acme is the pilot customer.\n"))
    write(project.root, "wiki/acme-two.md", page("Acme two", "Acme two is the merged company.\n", gardener=True))
    commit_all(project.root, "pages")
    return project


@pytest.mark.parametrize("client", ["Pat Person", "", "evil-agent"], ids=["the persons name", "no name", "a name"])
def test_an_agents_line_asks_on_the_map_instead_of_superseding_the_persons_page(acme: Project, client: str) -> None:
    before = (acme.root / "wiki/acme.md").read_text()
    Door(acme, {}, lambda: FIXED_NOW).capture(LINE, client=client)
    result = garden(acme, FakeModel().enqueue(SUPERSEDE))
    assert result.outcome == "pages_written", result.refusals
    assert (acme.root / "wiki/acme.md").read_text() == before  # no superseded_by, no banner
    opened = pages.open_lines((acme.root / pages.map_path()).read_text())
    assert f"- [[acme]] is your page; a line an agent captured ({DAY}#1) says [[acme-two]] supersedes it" in opened
    shown = client or captured.NO_NAME
    assert result.captured_by == {shown: [f"{DAY}#1"]}
    said = invoke(acme, "show").output
    claim = f'an MCP client calling itself "{client}" (as the client says)' if client else "an MCP client that gave no name"
    assert f"captured through MCP by {claim}: {DAY}#1" in said, said


def test_the_persons_own_line_supersedes_their_page(acme: Project) -> None:
    assert invoke(acme, "capture", LINE).exit_code == 0
    result = garden(acme, FakeModel().enqueue(SUPERSEDE))
    assert result.outcome == "pages_written", result.refusals
    text = (acme.root / "wiki/acme.md").read_text()
    assert pages.read_meta(text)["superseded_by"] == "[[acme-two]]" and "> Superseded by [[acme-two]]." in text
    assert result.captured_by == {}


def test_an_agents_line_may_supersede_a_page_of_the_gardeners(acme: Project) -> None:
    write(acme.root, "wiki/beta.md", page("Beta", "Beta is a prospect.\n", gardener=True))
    commit_all(acme.root, "beta")
    Door(acme, {}, lambda: FIXED_NOW).capture("Beta is superseded by Acme two", client="claude-code")
    reply = {"operations": [{"op": "supersede", "page": "beta", "by": "acme-two", "lines": [f"{DAY}#1"]}]}
    assert garden(acme, FakeModel().enqueue(reply)).outcome == "pages_written"
    assert pages.read_meta((acme.root / "wiki/beta.md").read_text())["superseded_by"] == "[[acme-two]]"


def test_a_client_without_a_name_is_still_logged_as_an_agent(project: Project) -> None:
    Door(project, {}, lambda: FIXED_NOW).capture("a line from a nameless client", client="")
    log = captured.log_path(git_dir(project.root)).read_text().splitlines()
    assert [json.loads(line)["by"] for line in log] == [captured.NO_NAME]
    assert invoke(project, "capture", "the person's line").exit_code == 0
    assert len(captured.log_path(git_dir(project.root)).read_text().splitlines()) == 1  # the person's is not logged
