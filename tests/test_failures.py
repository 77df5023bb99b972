"""Every failure ends in an outcome, a record (when the disk allows) and one line (issue 12, item 8).

A reply nested thousands of levels deep, and a full disk at the lock and at the
writes: none of them may end in a traceback, and the person's files stay as they were.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import PassResult
from gitgarden.model import operations as ops
from gitgarden.project import Project
from gitgarden.repo import recovery
from tests.helpers.project import (
    LINE,
    FakeModel,
    capture_line,
    commit_all,
    garden,
    invoke,
    page,
    workspace,
    write,
)

DEEP = "[" * 5000  # 5 KB: well under the reply cap


def records(project: Project, result: PassResult) -> list[dict[str, Any]]:
    path = project.root / result.record_path
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def no_space(*_args: Any, **_kwargs: Any) -> Any:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("reply", [DEEP, DEEP + "]" * 5000, '{"operations": ' + "[" * 5000 + "]" * 5000 + "}"])
def test_a_deeply_nested_reply_is_bad_output_not_a_recursion_error(reply: str) -> None:
    assert len(reply) < ops.MAX_REPLY_CHARS
    with pytest.raises(ops.BadOutput, match="nests lists or objects too deeply"):
        ops.parse_reply(reply)


def test_a_pass_given_a_deeply_nested_reply_twice_fails_with_a_record(project: Project) -> None:
    day = capture_line(project)

    result = garden(project, FakeModel().enqueue(DEEP).enqueue(DEEP))

    assert result.outcome == "failed" and result.exit_code == 15
    assert "too deeply" in result.detail
    assert [r["outcome"] for r in records(project, result)] == ["failed"]
    assert day.read_text() == LINE + "\n"
    assert not (project.root / "wiki/acme.md").exists()


def test_the_cli_ends_a_deeply_nested_reply_in_one_line(project: Project) -> None:
    capture_line(project)

    result = invoke(project, "run", model=FakeModel().enqueue(DEEP).enqueue(DEEP))

    assert result.exit_code == 15
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert result.output.splitlines()[0].startswith("failed; the journal left unread: bad model output")


def test_a_full_disk_at_the_lock_fails_the_pass_in_one_line_and_changes_nothing(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    capture_line(project)
    before = workspace(project.root)
    monkeypatch.setattr(os, "pwrite", no_space)  # only the lock writes with pwrite

    result = garden(project, FakeModel())  # no reply queued: it must not get as far as the model

    assert result.outcome == "failed" and result.exit_code == 15
    assert "cannot take the pass lock" in result.detail and "gitgarden.lock" in result.detail
    assert "No space left on device" in result.detail and "free some space" in result.detail
    after = workspace(project.root)
    after.pop(result.record_path, None)  # the record of the failure, when the disk allows one
    assert after == before


def test_a_full_disk_when_the_lock_file_cannot_even_be_made(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    capture_line(project)
    real_open = os.open

    def open_(path: Any, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith("gitgarden.lock"):
            no_space()
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    result = invoke(project, "run", model=FakeModel())

    assert result.exit_code == 15
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.splitlines()
    assert lines[0].startswith("failed; the journal left unread: cannot take the pass lock")
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "where",
    [
        ".jsonl",  # the record: the last write, after every page
        "pending.json",  # the recovery record: before any write
        ".md",  # the new page: the first write
        "wiki/pricing.md",  # the person's page: written after a new page and the map, which stood before
    ],
)
def test_a_full_disk_at_a_write_fails_the_pass_and_leaves_the_persons_files(
    project: Project, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """The disk fills at the record write, at the recovery record, or at a page: every page
    write is undone (new files removed, the ones that stood before put back byte for byte),
    and the journal keeps the person's line."""
    write(project.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    commit_all(project.root)
    day = capture_line(project)
    before = workspace(project.root)
    real, real_checked = recovery.atomic_write, recovery.replace_checked
    written: list[str] = []

    def fails(path: Path) -> bool:
        if where == "wiki/pricing.md":
            return str(path).endswith(where)
        return path.name.endswith(where) and "wiki/index" not in str(path)

    def atomic_write(path: Path, data: bytes) -> None:
        if fails(path):
            no_space()
        real(path, data)

    def replace_checked(path: Path, data: bytes, expected: bytes | None, **kw: Any) -> None:
        if fails(path):
            no_space()
        real_checked(path, data, expected, **kw)
        written.append(str(path.relative_to(project.root)))

    monkeypatch.setattr(recovery, "atomic_write", atomic_write)
    monkeypatch.setattr(recovery, "replace_checked", replace_checked)  # the pass's page and record writes
    reply = {"operations": [
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]},
        {"op": "append", "page": "pricing", "text": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]},
    ]}
    result = garden(project, FakeModel().enqueue(reply))

    assert result.outcome == "failed" and result.exit_code == 15
    assert "No space left on device" in result.detail and "\n" not in result.sentence
    assert result.commit == "" and result.marked_read == 0
    assert day.read_text() == LINE + "\n"
    assert not (project.root / "wiki/acme.md").exists()
    assert not (project.root / ".git/gitgarden/pending.json").exists() or where == "pending.json"
    if where == "wiki/pricing.md":  # the rollback had work to do: a new page and a page that stood before
        assert {"wiki/acme.md", "wiki/index.md"} <= set(written), written
    after = workspace(project.root)
    assert after == before, sorted(k for k in {*before, *after} if before.get(k) != after.get(k))


@pytest.mark.litellm
def test_a_deeply_nested_reply_through_the_real_model_path_is_bad_output(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same reply from an OpenAI-compatible server, through litellm and HTTP: a ModelError, no traceback."""
    from gitgarden.errors import ModelError
    from gitgarden.model import llm, provider
    from tests.helpers.fake_openai import FakeOpenAI

    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(var, raising=False)
    with FakeOpenAI() as server:
        server.enqueue(DEEP)
        server.enqueue(DEEP)
        settings = Settings(model="openai/fake", api_base=server.base_url, num_retries=0, timeout=10)
        model = provider.LiteLLMModel(settings, {"GITGARDEN_API_KEY": "sk-test"})
        messages = [{"role": "user", "content": "[2026-11-29#1] a line"}]
        with pytest.raises(ModelError, match="too deeply") as caught:
            llm.ask_operations(model, messages, llm.Budget(tokens=100_000, seconds=600))
    assert caught.value.kind == "bad_output"
