"""`gitgarden mcp`: a real server process driven by the MCP SDK's own client over stdio.

The server runs on the test's fixed clock (`tests/helpers/mcp_server.py` builds the same
server `gitgarden mcp` runs); `gitgarden mcp` itself is started where the clock
does not matter (refusals, the install snippets of docs/agents.md).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client, types

from gitgarden.agents.tools import TOOLS
from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from gitgarden.wiki import captured
from tests.helpers.project import (
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    git,
    invoke,
    workspace,
    write,
)

if TYPE_CHECKING:
    from tests.helpers.fake_openai import FakeOpenAI

REPO = Path(__file__).resolve().parents[1]
LAUNCHER = Path(__file__).parent / "helpers" / "mcp_server.py"
DAY = f"{FIXED_NOW.astimezone():%Y-%m-%d}"
Body = Callable[[ClientSession], Awaitable[Any]]


def _env() -> dict[str, str]:
    """The test's isolated environment, the worktree first on the path, and a fixed zone."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    env["TZ"] = os.environ.get("TZ", "UTC")
    return env


def fixed_server(project: Project) -> StdioServerParameters:
    """The MCP server for `project` on the test's clock."""
    return StdioServerParameters(command=sys.executable, args=[str(LAUNCHER), str(project.root), FIXED_NOW.isoformat()], env=_env())


def talk(params: StdioServerParameters, body: Body, *, client: str = "test-agent") -> Any:
    """Start the server, initialise a session as client `client`, run `body`, close everything."""

    async def main() -> Any:
        async with stdio_client(params, errlog=sys.stderr) as (read, write_), ClientSession(
            read, write_, client_info=types.Implementation(name=client, version="1.0")
        ) as session:
            await session.initialize()
            return await body(session)

    return anyio.run(main)


async def call(session: ClientSession, tool: str, **args: Any) -> Any:
    """A tool's result as JSON; AssertionError (with its text) when the tool answered an error."""
    result = await session.call_tool(tool, args)
    text = result.content[0].text  # type: ignore[union-attr]
    assert not result.is_error, text
    return json.loads(text)


async def refused(session: ClientSession, tool: str, **args: Any) -> str:
    """The one-line error text of a call that must fail."""
    result = await session.call_tool(tool, args)
    assert result.is_error, result
    text = result.content[0].text  # type: ignore[union-attr]
    assert "\n" not in text.strip()
    return text



def test_the_tools_are_the_eight_with_schemas_and_none_can_change_a_page(sample: Project) -> None:
    async def body(session: ClientSession) -> Any:
        init_tools = (await session.list_tools()).tools
        unknown = [await refused(session, name, name="oven") for name in ("write_page", "delete_page", "move_page", "run_pass", "set_config")]
        resources = (await session.list_resources()).resources
        templates = (await session.list_resource_templates()).resource_templates
        return init_tools, unknown, resources, templates

    before = workspace(sample.root)
    tools, unknown, resources, templates = talk(fixed_server(sample), body)
    assert [t.name for t in tools] == list(TOOLS)
    for tool in tools:
        assert tool.description and tool.description.endswith(".") and ". " not in tool.description, tool.name
        assert tool.input_schema["type"] == "object"
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (tool.name != "capture")
        assert tool.annotations.destructive_hint is False
    schemas = {t.name: t.input_schema for t in tools}
    assert schemas["capture"]["required"] == ["text"] and schemas["capture"]["properties"]["text"]["type"] == "string"
    assert schemas["search"]["properties"]["limit"]["maximum"] == 100
    assert schemas["read_map"]["properties"] == {}
    assert all("Unknown tool" in text for text in unknown)
    assert [r.uri for r in resources] == ["gitgarden://map"]
    assert [t.uri_template for t in templates] == ["gitgarden://page/{+name}"]
    assert workspace(sample.root) == before  # listing and refused calls changed nothing


def test_the_server_tells_the_agent_what_it_is_for() -> None:
    from gitgarden.agents.server import INSTRUCTIONS

    assert "Capture facts; the gardener writes the pages." in INSTRUCTIONS
    assert "no tool that writes, moves or deletes a page, runs a pass or changes a setting" in INSTRUCTIONS


def test_capture_then_find_the_line_with_journal_and_search(sample: Project) -> None:
    head = git(sample.root, "rev-parse", "HEAD")

    async def body(session: ClientSession) -> Any:
        done = await call(session, "capture", text="Acme signed the pilot contract\n\n   Sourdough starter fed at six  \n")
        day = await call(session, "journal")
        found = await call(session, "search", query="sourdough")
        return done, day, found

    done, day, found = talk(fixed_server(sample), body)
    assert done["ids"] == [f"{DAY}#1", f"{DAY}#2"]
    assert done["file"] == f"raw/journal/{DAY}.md"
    assert (sample.root / done["file"]).read_text() == "Acme signed the pilot contract\nSourdough starter fed at six\n"
    assert day["day"] == DAY
    assert [(ln["id"], ln["text"], ln["state"]) for ln in day["lines"]] == [
        (f"{DAY}#1", "Acme signed the pilot contract", "unread"),
        (f"{DAY}#2", "Sourdough starter fed at six", "unread"),
    ]
    assert [(r["kind"], r.get("id")) for r in found["results"]] == [("line", f"{DAY}#2")]
    assert found["results"][0]["snippet"] == "**Sourdough** starter fed at six"
    assert git(sample.root, "rev-parse", "HEAD") == head  # capture never commits
    assert "test-agent" not in (sample.root / done["file"]).read_text()


def test_read_page_map_status_and_page_sources(sample: Project, fake_model: FakeModel) -> None:
    with (sample.root / ".gitgarden" / "config.toml").open("a") as fh:
        fh.write(f'journal_from = "{DAY}"\n')  # the sample's week stays history: the pass reads today only
    commit_all(sample.root, "garden from today on")
    sample = Project(sample.root)
    write(sample.root, f"raw/journal/{DAY}.md", "Acme signed the pilot contract\nAcme wants export before January\n")
    reply = {"operations": [
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": [f"{DAY}#1"]},
        {"op": "append", "page": "acme", "text": "Acme wants export before January.\n", "lines": [f"{DAY}#2"]},
    ]}  # fmt: skip
    result = run_pass(sample, Settings(model="fake/scripted"), model=fake_model.enqueue(reply), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written" and "wiki/acme.md" in result.created, result.refusals

    async def body(session: ClientSession) -> Any:
        by_title = await call(session, "read_page", name="kessler mill")
        the_map = await call(session, "read_map")
        status = await call(session, "status")
        sources = await call(session, "page_sources", name="Acme")
        page_text = await session.read_resource("gitgarden://page/Kessler%20Mill")  # type: ignore[arg-type]
        map_text = await session.read_resource("gitgarden://map")  # type: ignore[arg-type]
        return by_title, the_map, status, sources, page_text, map_text

    page, the_map, status, sources, page_text, map_text = talk(fixed_server(sample), body)
    assert (page["name"], page["path"], page["title"], page["state"], page["source"]) == (
        "kessler-mill", "wiki/kessler-mill.md", "Kessler Mill", "open", ["2026-11-24"]
    )  # fmt: skip
    assert page["text"] == (sample.root / "wiki/kessler-mill.md").read_text()
    assert page["backlinks"] == ["index"]  # the page nothing linked to, which the pass put on the map
    assert the_map["path"] == "wiki/index.md" and the_map["text"] == (sample.root / "wiki/index.md").read_text()
    assert len(the_map["open"]) == 1 and "[[lease]]" in the_map["open"][0]
    assert status["last_pass"]["pass_id"] == result.pass_id and status["last_pass"]["commit"] == result.commit
    assert status["unread"] == 0 and status["set_aside"] == [] and status["review_waiting"] == []
    assert [s["pass_id"] for s in sources["sources"]] == [result.pass_id] * len(sources["sources"])
    cited = {ln["id"]: ln["text"] for s in sources["sources"] for ln in s["lines"]}
    assert cited[f"{DAY}#1"] == "Acme signed the pilot contract"
    assert page_text.contents[0].text == page["text"]  # type: ignore[union-attr]
    assert map_text.contents[0].text == the_map["text"]  # type: ignore[union-attr]


def test_ask_answers_from_the_garden_with_its_lines_and_changes_nothing(project: Project, server: FakeOpenAI) -> None:
    capture(project, "2026-03-05", "Piotr Nowak the electrician comes on Friday 13 March.", "Rain all day, bins blew over again.")
    commit_all(project.root, "notes")
    server.enqueue('{"notes": ["1"]}')  # a loopback endpoint: small mode, the model picks the note that answers
    env = {**_env(), "GITGARDEN_MODEL": "openai/fake", "GITGARDEN_API_BASE": server.base_url}
    params = StdioServerParameters(command=sys.executable, args=[str(LAUNCHER), str(project.root), FIXED_NOW.isoformat()], env=env)
    before, head = workspace(project.root), git(project.root, "rev-parse", "HEAD")

    async def body(session: ClientSession) -> Any:
        tool = next(t for t in (await session.list_tools()).tools if t.name == "ask")
        return tool, await call(session, "ask", question="Who is the electrician?"), await call(session, "ask", question="What colour are the tiles?")

    tool, got, none = talk(params, body)
    assert tool.annotations is not None and tool.annotations.read_only_hint is True and tool.input_schema["required"] == ["question"]
    assert got["answer"] == "Piotr Nowak the electrician comes on Friday 13 March (5 March 2026)." and got["abstained"] is False
    assert got["sentences"][0]["lines"] == ["2026-03-05#1"] and got["lines"][0]["text"] == "Piotr Nowak the electrician comes on Friday 13 March."
    assert none["abstained"] is True and none["answer"] == "Not in the garden."
    assert len(server.requests) == 1  # the second question asked no model: the garden holds nothing of tiles
    assert workspace(project.root) == before and git(project.root, "rev-parse", "HEAD") == head


def test_a_name_outside_the_wiki_or_a_symlink_is_refused(sample: Project, tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("---\ntitle: Secret\n---\nthe password is swordfish\n")
    os.symlink(tmp_path / "secret.md", sample.root / "wiki" / "secret.md")

    async def body(session: ClientSession) -> Any:
        texts = [await refused(session, "read_page", name=n) for n in ("../AGENTS", "/etc/passwd", "../../secret", "secret", "nope")]
        texts.append(await refused(session, "page_sources", name="../AGENTS"))
        with pytest.raises(Exception, match="page"):
            await session.read_resource("gitgarden://page/..%2FAGENTS")  # type: ignore[arg-type]
        return texts

    texts = talk(fixed_server(sample), body)
    assert "is no page name" in texts[0] and "is no page name" in texts[1] and "is no page name" in texts[2]
    assert "no page named 'secret'" in texts[3] and "no page named 'nope'" in texts[4]
    assert all("swordfish" not in t for t in texts)


def test_bad_input_gets_a_clear_error_and_changes_nothing(sample: Project) -> None:
    big = "x" * 1_048_576
    before = workspace(sample.root)

    async def body(session: ClientSession) -> Any:
        return [
            await refused(session, "capture", text="  \n\n "),
            await refused(session, "capture", text=big),
            await refused(session, "journal", day="2026-13-45"),
            await refused(session, "journal", day="2026-11-01"),
            await refused(session, "search", query='" "'),
            await refused(session, "search", query="oven", limit=0),
        ]

    empty, too_big, bad_day, no_day, no_query, no_limit = talk(fixed_server(sample), body)
    assert workspace(sample.root) == before
    assert "nothing to capture" in empty
    assert "over the 100,000-byte limit" in too_big
    cli = subprocess.run(
        [sys.executable, "-m", "gitgarden", "capture"], input=big, cwd=sample.root, env=_env(), capture_output=True, text=True, timeout=60
    )
    assert cli.returncode == 1 and cli.stderr.strip() == f"gitgarden: {too_big.split(': ', 1)[1]}"  # the CLI's message, word for word
    assert workspace(sample.root) == before
    assert "not a day" in bad_day and "no day file for 2026-11-01" in no_day
    assert "nothing to search for" in no_query
    assert "limit" in no_limit


def test_a_server_started_outside_a_project_refuses_in_one_line(tmp_path: Path) -> None:
    outside = tmp_path / "plain"
    outside.mkdir()
    for args, cwd in ((["mcp"], outside), (["mcp", "--project", str(outside)], tmp_path)):
        done = subprocess.run(
            [sys.executable, "-m", "gitgarden", *args], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
        assert done.returncode == 1
        assert done.stdout == ""  # stdout is the protocol's: nothing but MCP there
        assert done.stderr.count("\n") == 1 and "is not inside a gitgarden project" in done.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "gitgarden", "mcp", "--project", str(tmp_path / "nowhere")],
        env=_env(), capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def _snippets(lang: str) -> list[str]:
    """The fenced blocks in `lang` of docs/agents.md's section on the MCP server."""
    page = (REPO / "docs" / "agents.md").read_text()
    section = page.split("## The MCP server: `gitgarden mcp`", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{lang}\n(.*?)```", section, re.S)


def _command_path() -> str:
    """The installed `gitgarden` command beside this Python (the venv's), as an agent would find it on PATH."""
    found = shutil.which("gitgarden", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    assert found, "the gitgarden command is not installed beside this Python"
    return str(Path(found).parent)


def test_the_readme_snippets_start_the_server_through_the_sdk_client(sample: Project) -> None:
    claude = _snippets("sh")
    assert claude == ["claude mcp add gitgarden -- gitgarden mcp\n"]
    command = claude[0].split(" -- ", 1)[1].split()
    codex = tomllib.loads(_snippets("toml")[0])["mcp_servers"]["gitgarden"]
    cursor, vscode = (json.loads(text) for text in _snippets("json"))
    configs = [
        {"command": command[0], "args": command[1:]},
        {"command": codex["command"], "args": [a if a != "/home/pat/notes" else str(sample.root) for a in codex["args"]]},
        cursor["mcpServers"]["gitgarden"],
        {k: v for k, v in vscode["servers"]["gitgarden"].items() if k != "type"},
    ]
    assert vscode["servers"]["gitgarden"]["type"] == "stdio"
    env = _env()
    env["PATH"] = os.pathsep.join([_command_path(), env.get("PATH", "")])

    async def body(session: ClientSession) -> Any:
        return [t.name for t in (await session.list_tools()).tools], (await call(session, "read_map"))["path"]

    for config in configs:
        params = StdioServerParameters(command=config["command"], args=config["args"], env=env, cwd=str(sample.root))
        assert talk(params, body) == (list(TOOLS), "wiki/index.md"), config


def test_who_captured_is_in_the_record_log_and_show_not_in_the_line(project: Project, fake_model: FakeModel) -> None:
    async def body(session: ClientSession) -> Any:
        return await call(session, "capture", text="Acme signed the pilot contract\nAcme wants export before January")

    done = talk(fixed_server(project), body, client="claude-code")
    invoke(project, "capture", "bought coffee")  # the person's own line: no agent
    assert done["ids"] == [f"{DAY}#1", f"{DAY}#2"]
    assert (project.journal / f"{DAY}.md").read_text() == (
        "Acme signed the pilot contract\nAcme wants export before January\nbought coffee\n"
    )
    reply = {"operations": [
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": [f"{DAY}#1"]},
        {"op": "append", "page": "acme", "text": "Acme wants export before January.\n", "lines": [f"{DAY}#2"]},
        {"op": "skip", "lines": [f"{DAY}#3"]},
    ]}  # fmt: skip
    result = run_pass(project, Settings(model="fake/scripted"), model=fake_model.enqueue(reply), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written", result.refusals
    assert result.captured_by == {"claude-code": [f"{DAY}#1", f"{DAY}#2"]}
    shown_log = invoke(project, "log")
    assert 'captured through MCP by an MCP client calling itself "claude-code" (as the client says): 2' in shown_log.output
    shown = invoke(project, "show")
    assert f'captured through MCP by an MCP client calling itself "claude-code" (as the client says): {DAY}#1, {DAY}#2' in shown.output
    log_json = json.loads(invoke(project, "log", "--json").output)
    assert log_json[0]["captured_by"] == {"claude-code": [f"{DAY}#1", f"{DAY}#2"]}
    in_journal = subprocess.run(["git", "-C", str(project.root), "grep", "-q", "claude-code", "HEAD", "--", "raw/"], check=False)
    assert in_journal.returncode == 1  # the committed journal holds the words captured, not who captured them
    assert captured.load(captured.log_path(git_dir(project.root))) == {}  # read lines leave the capture log


_CLI_WORKER = """
import sys, time
from datetime import datetime
from pathlib import Path
from gitgarden.cli.main import App, cli
go, worker, n, instant = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), datetime.fromisoformat(sys.argv[4])
while not go.exists():
    time.sleep(0.005)
for i in range(n):
    text = "\\n".join(f"{worker} capture {i} line {j}" for j in range(3))
    cli.main(["capture", text], standalone_mode=False, obj=App(now=lambda: instant))
"""


def test_captures_from_mcp_and_the_cli_at_once_lose_and_interleave_nothing(project: Project, tmp_path: Path) -> None:
    n, cli_workers, agents = 25, 3, 2
    go = tmp_path / "go"
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", _CLI_WORKER, str(go), f"cli{w}", str(n), FIXED_NOW.isoformat()],
            cwd=project.root, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for w in range(cli_workers)
    ]  # fmt: skip
    returned: dict[str, list[list[str]]] = {}

    async def agent(name: str, ready: anyio.Event, start: anyio.Event) -> None:
        async with stdio_client(fixed_server(project), errlog=sys.stderr) as (read, write_), ClientSession(
            read, write_, client_info=types.Implementation(name=name, version="1")
        ) as session:
            await session.initialize()
            ready.set()
            await start.wait()
            for i in range(n):
                text = "\n".join(f"{name} capture {i} line {j}" for j in range(3))
                returned.setdefault(name, []).append((await call(session, "capture", text=text))["ids"])

    async def main() -> None:
        readies = [anyio.Event() for _ in range(agents)]
        start = anyio.Event()
        async with anyio.create_task_group() as tg:
            for a, ready in enumerate(readies):
                tg.start_soon(agent, f"agent{a}", ready, start)
            for ready in readies:
                await ready.wait()
            go.write_text("go")  # everyone starts at once
            start.set()

    try:
        anyio.run(main)
        for proc in workers:
            assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.kill()
    lines = (project.journal / f"{DAY}.md").read_text().split("\n")
    assert lines[-1] == ""  # ends with a newline
    lines = lines[:-1]
    writers = [f"cli{w}" for w in range(cli_workers)] + [f"agent{a}" for a in range(agents)]
    assert len(lines) == len(writers) * n * 3  # no line lost, no blank line between captures
    expected = {f"{w} capture {i} line {j}" for w in writers for i in range(n) for j in range(3)}
    assert set(lines) == expected
    for k, line in enumerate(lines):  # each capture's three lines stand together, in order
        if line.endswith("line 0"):
            stem = line[: -len("line 0")]
            assert lines[k + 1 : k + 3] == [stem + "line 1", stem + "line 2"]
    for ids_per_capture in returned.values():  # each agent was told where its lines went
        for ids in ids_per_capture:
            numbers = [int(i.split("#")[1]) for i in ids]
            assert numbers == list(range(numbers[0], numbers[0] + 3))
            assert lines[numbers[0] - 1].endswith("line 0")
    order = [lines[int(ids[0].split("#")[1]) - 1] for ids in returned["agent0"]]
    assert order == [f"agent0 capture {i} line 0" for i in range(n)]
    who = captured.load(captured.log_path(git_dir(project.root)))
    assert sorted(set(who.values())) == ["agent0", "agent1"] and len(who) == agents * n * 3


def _wait_for_a_blocked_flock(inode: int, timeout: float = 30.0) -> None:
    """Until /proc/locks shows a process waiting for an flock on the file `inode`."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in Path("/proc/locks").read_text().splitlines():
            if "-> FLOCK" in line and f":{inode} " in line:
                return
        time.sleep(0.02)
    raise AssertionError("no capture waited for the day file's lock")


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux's /proc/locks to see a waiting lock")
def test_a_capture_waits_while_another_holds_the_day_file_and_reports_where_its_lines_went(project: Project) -> None:
    import fcntl

    day = project.journal / f"{DAY}.md"
    day.write_text("")
    fd = os.open(day, os.O_RDWR | os.O_APPEND)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as a capture in another process holds it while it writes

    async def body(session: ClientSession) -> Any:
        got: dict[str, Any] = {}

        async def capture() -> None:
            got.update(await call(session, "capture", text="Acme signed\nDana runs ops"))

        async with anyio.create_task_group() as tg:
            tg.start_soon(capture)
            await anyio.to_thread.run_sync(_wait_for_a_blocked_flock, day.stat().st_ino)
            assert day.read_text() == ""  # it waits: nothing written yet
            os.write(fd, b"typed by the other capture, no newline")
            fcntl.flock(fd, fcntl.LOCK_UN)
        return got

    try:
        got = talk(fixed_server(project), body)
    finally:
        os.close(fd)
    assert day.read_text() == "typed by the other capture, no newline\nAcme signed\nDana runs ops\n"
    assert got["ids"] == [f"{DAY}#2", f"{DAY}#3"]


def test_without_the_sdk_the_command_says_how_to_install_it(project: Project, tmp_path: Path) -> None:
    shadow = tmp_path / "no-sdk"
    (shadow / "mcp").mkdir(parents=True)
    (shadow / "mcp" / "__init__.py").write_text("raise ImportError('No module named mcp', name='mcp')\n")  # as if not installed
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), str(shadow)])
    done = subprocess.run(
        [sys.executable, "-m", "gitgarden", "mcp"], cwd=project.root, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "pip install 'gitgarden[agents]'" in done.stderr


def test_a_capture_that_is_not_utf8_is_refused_in_one_line_and_writes_nothing(project: Project) -> None:
    before = workspace(project.root)
    done = subprocess.run(
        [sys.executable.encode(), b"-m", b"gitgarden", b"capture", b"caf\xe9 in Latin-1"], cwd=project.root, env=_env(), capture_output=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stderr.decode().count("\n") == 1 and "is not UTF-8" in done.stderr.decode()
    assert workspace(project.root) == before


def test_the_door_shows_a_page_edited_since_its_last_call(project: Project) -> None:
    """The door keeps the pages' facts and the traced paragraphs for the server's life: an edit shows
    at the next call all the same."""
    from gitgarden.agents.tools import Door

    write(project.root, "wiki/acme.md", "---\ntitle: Acme\n---\nOur customer.\n")
    commit_all(project.root)
    door = Door(project, _env(), lambda: FIXED_NOW)
    assert door.read_page("acme")["backlinks"] == [] and door.page_sources("acme")["sources"] == []
    write(project.root, "wiki/beta.md", "---\ntitle: Beta\n---\nSee [[Acme]].\n")
    (project.root / "wiki/acme.md").write_text("---\ntitle: Acme\n---\nOur first customer.\n")
    seen = door.read_page("acme")
    assert seen["backlinks"] == ["beta"] and "Our first customer." in seen["text"]
