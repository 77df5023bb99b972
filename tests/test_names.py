"""Names that would mislead the person (issue 12, item 10): journal files a pass never reads are
named in `run`, `status` and `health`; page names Windows cannot check out are refused."""

from __future__ import annotations

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.operations import ApplyContext, Refusal, apply_op
from gitgarden.gardener.pipeline import run_pass
from gitgarden.guard.rules import check
from gitgarden.model.operations import parse_reply
from gitgarden.project import Project
from gitgarden.wiki import journal
from gitgarden.wiki import pages as wiki
from gitgarden.wiki.names import unportable_part
from gitgarden.wiki.tree import file
from tests.helpers.project import FIXED_NOW, FakeModel, invoke, write

BAD_DAYS = ["2026-02-30.md", "2026-13-45.md", "notadate.md"]


def odd_journal(project: Project) -> None:
    for name in BAD_DAYS:
        write(project.root, f"raw/journal/{name}", "A line the person expects to be read\n")
    write(project.root, "raw/journal/2026-11-29.md", "Acme signed the pilot contract\n")


def test_not_read_names_lists_every_file_that_is_not_a_real_day(project: Project) -> None:
    odd_journal(project)
    assert journal.not_read_names(project.journal) == BAD_DAYS
    assert [ln.day for ln in journal.all_lines(project.journal)] == ["2026-11-29"]


def test_run_warns_which_journal_files_are_not_read(project: Project) -> None:
    odd_journal(project)
    model = FakeModel().enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#1"]}]})

    result = invoke(project, "run", model=model)

    assert result.exit_code == 0, result.output
    assert "these files in raw/journal are not read: 2026-02-30.md, 2026-13-45.md, notadate.md" in result.output
    assert "YYYY-MM-DD.md" in result.output
    assert "A line the person expects" not in model.prompt  # and indeed not read


def test_the_warning_is_in_the_pass_record_too(project: Project) -> None:
    odd_journal(project)
    result = run_pass(project, Settings(), model=None, now=lambda: FIXED_NOW)
    assert any("not read: 2026-02-30.md" in h for h in result.record()["hints"])


@pytest.mark.parametrize("command", [["status"], ["health"], ["status", "--json"], ["health", "--json"]])
def test_status_and_health_warn_which_journal_files_are_not_read(project: Project, command: list[str]) -> None:
    odd_journal(project)

    result = invoke(project, *command)

    assert result.exit_code == 0, result.output
    assert "warning: these files in raw/journal are not read: 2026-02-30.md, 2026-13-45.md, notadate.md" in result.output


def test_no_warning_for_a_journal_of_days_only(project: Project) -> None:
    write(project.root, "raw/journal/2026-11-29.md", "Acme signed the pilot contract\n")
    assert journal.not_read_names(project.journal) == []  # .gitkeep is hidden, not a day file
    assert "not read" not in invoke(project, "health").output


WINDOWS = ["con", "nul", "aux", "prn", "com1", "com9", "lpt1", "lpt9"]


@pytest.mark.parametrize("name", WINDOWS)
def test_a_new_page_named_like_a_windows_device_is_refused(name: str) -> None:
    reply = {"operations": [{"op": "create_page", "page": name, "title": "T", "body": "Text.\n", "lines": ["2026-11-29#1"]}]}
    [op] = parse_reply(__import__("json").dumps(reply))
    line = journal.JournalLine("2026-11-29", 1, "Text", "k")
    ctx = ApplyContext(offered={line.id: line}, today="2026-11-29")

    out = apply_op(op, {"wiki/index.md": file("# Map\n")}, ctx)

    assert isinstance(out, Refusal)
    assert f"page name {name!r} refused" in out.reason and "Windows" in out.reason


def test_a_split_part_named_like_a_windows_device_is_refused() -> None:
    body = "---\ntitle: Big\nstate: open\nsource: []\n---\n## One\ntext\n## Two\nmore\n"
    reply = {"operations": [{"op": "split", "page": "big", "lines": [], "parts": [{"page": "aux", "title": "Aux", "headings": ["Two"]}]}]}
    [op] = parse_reply(__import__("json").dumps(reply))
    out = apply_op(op, {"wiki/big.md": file(body)}, ApplyContext(offered={}, today="2026-11-29"))
    assert isinstance(out, Refusal) and "'aux' refused" in out.reason


@pytest.mark.parametrize(
    "path",
    ["wiki/con.md", "wiki/CON.md", "wiki/Nul.txt", "wiki/aux", "wiki/com1.md", "wiki/LPT9.md", "wiki/con/page.md",
     "wiki/prn.tar.gz", "wiki/notes..md.", "wiki/trailing .md ", "wiki/folder./page.md", "wiki/aux .md"],
)
def test_the_guard_refuses_a_path_windows_cannot_check_out(path: str) -> None:
    base = {"wiki/index.md": file("# Map\n")}
    verdicts = check(base, {**base, path: file("---\ntitle: T\nstate: open\nsource: []\n---\nText.\n")}, None)
    assert any(v.path == path for v in verdicts), verdicts
    control = "wiki/fine.md"
    assert check(base, {**base, control: file("---\ntitle: T\nstate: open\nsource: []\n---\nText.\n")}, None) == []


@pytest.mark.parametrize("name", ["console", "com10", "connect", "auxiliary", "nullable", "lpt", "a-con"])
def test_names_that_only_look_like_devices_are_fine(name: str) -> None:
    assert unportable_part(wiki.page_path(name)) is None


def test_a_pass_does_not_create_the_page_and_says_why(project: Project) -> None:
    write(project.root, "raw/journal/2026-11-29.md", "Con is the new supplier\n")
    reply = {"operations": [{"op": "create_page", "page": "con", "title": "Con", "body": "Con is the new supplier.\n", "lines": ["2026-11-29#1"]}]}

    result = run_pass(project, Settings(model="fake/scripted"), model=FakeModel().enqueue(reply).enqueue({"operations": []}), now=lambda: FIXED_NOW)

    assert not (project.root / "wiki/con.md").exists()
    assert result.outcome == "finished_without_writing"
    assert any("page name 'con' refused" in r for r in result.refusals)
