"""A failed or stopped pass says why: its record keeps the error, which request failed and the start
of the model's reply (`failure`), where the requests went (`endpoint`) and which model the server
said answered (`served_by`); the pass's page shows them (the reply escaped and shortened, with a
link to the whole record) with the lines that stayed unread, and outcomes wear their colours: green
for a pass that did its job, red for a failed or refused one, grey for a stopped one."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import REPLY_KEPT, run_pass
from gitgarden.gardener.steps import Step
from gitgarden.history.passlog import passes
from gitgarden.history.records import append_attempt
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from gitgarden.web.runs import Run
from tests.helpers.project import FIXED_NOW, FakeModel, capture, commit_all
from tests.helpers.web_client import client

SETTINGS = Settings(model="fake/scripted", repair_rounds=0)


class ServedModel(FakeModel):
    """A scripted model behind an endpoint whose server names the model it runs, as llama.cpp does."""

    def __init__(self, name: str, endpoint: str, served: str) -> None:
        super().__init__()
        self.name, self.endpoint, self.served_by = name, endpoint, served


def failed_pass(project: Project, *replies: str, settings: Settings = SETTINGS) -> Any:
    capture(project, "2026-11-28", "Acme is the pilot customer", "Dana starts Monday")
    commit_all(project.root, "journal")
    model = FakeModel()
    for reply in replies:
        model.enqueue(reply)
    result = run_pass(project, settings, model=model, now=lambda: FIXED_NOW)
    assert result.outcome == "failed", result.detail
    return result


def record_of(project: Project, pass_id: str) -> dict[str, Any]:
    return next(e.record for e in passes(project.root) if e.pass_id == pass_id)  # type: ignore[return-value]


def test_the_record_of_a_failed_request_keeps_the_error_the_request_and_the_reply(project: Project) -> None:
    garbage = "Sure! " + "x" * (REPLY_KEPT + 50)
    result = failed_pass(project, "not JSON at all", garbage)
    failure = record_of(project, result.pass_id)["failure"]
    assert failure["kind"] == "bad_output" and failure["error"] == result.detail
    assert re.fullmatch(r"the request for operations to fake/scripted \(about [\d,]+ prompt tokens\), then one request to repair its reply", failure["request"])
    assert failure["reply"] == garbage[:REPLY_KEPT] + " […]"  # the second reply, the one that ended the pass
    assert record_of(project, result.pass_id)["offered"] == ["2026-11-28#1", "2026-11-28#2"]


def test_small_modes_unusable_answers_leave_their_lines_unread_with_the_answer_shown(project: Project) -> None:
    """In small mode a reply is one word a line: an unusable one fails that line, never the pass."""
    capture(project, "2026-11-28", "Acme is the pilot customer", "Dana starts Monday")
    commit_all(project.root, "journal")
    model = FakeModel().enqueue("no").enqueue("still no?")  # a word, and then not one
    result = run_pass(project, Settings(model="fake/scripted", mode="small"), model=model, now=lambda: FIXED_NOW)
    assert result.outcome == "nothing_earned" and not record_of(project, result.pass_id).get("failure")  # the first line skipped
    reasons = {u["line"]: u["reason"] for u in record_of(project, result.pass_id)["unread"]}
    assert reasons["2026-11-28#2"] == "the model answered 'still no?', not yes or no"


def test_the_failed_pass_page_shows_why_escaped_and_shortened(project: Project) -> None:
    reply = "<script>alert('x')</script> " + "word " * 200
    result = failed_pass(project, reply, reply)
    c = client(project)
    page = c.get(f"/pass/{result.pass_id}").text
    assert '<span class="outcome bad">failed</span>' in page
    assert "Why it failed" in page and "bad model output: the reply is not JSON" in page
    assert "then one request to repair its reply" in page
    assert "<script>alert" not in page and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; word word" in page
    assert f"the first 400 of {len(reply):,} characters kept" in page
    assert f'<a href="/pass/{result.pass_id}/record">the whole record</a>' in page
    left = page[page.index('id="unread"') :]
    assert "2 lines the next pass offers again" in left and "Acme is the pilot customer" in left and "Dana starts Monday" in left
    record = c.get(f"/pass/{result.pass_id}/record")
    assert record.headers["content-type"] == "application/json" and record.json()["failure"]["reply"] == reply


def test_a_record_without_failure_fields_still_has_a_page(project: Project) -> None:
    append_attempt(git_dir(project.root), {"pass_id": "20261129T090000Z-0001", "outcome": "failed", "started": "2026-11-29T09:00:00+00:00", "detail": "model unreachable", "failure": "not a dict"})
    page = client(project).get("/pass/20261129T090000Z-0001").text
    assert "Why it failed" in page and "model unreachable" in page and "The model&#39;s reply" not in page


@pytest.mark.parametrize(
    ("outcome", "kind"),
    [("pages_written", "good"), ("failed", "bad"), ("refused", "bad"), ("stopped", "stopped"), ("stood_down", "stopped"), ("some_refused", "warn")],
)
def test_outcomes_wear_their_colours(project: Project, outcome: str, kind: str) -> None:
    append_attempt(git_dir(project.root), {"pass_id": "20261129T090000Z-0001", "outcome": outcome, "started": "2026-11-29T09:00:00+00:00"})
    words = outcome.replace("_", " ")
    assert f'<span class="outcome {kind}">{words}</span>' in client(project).get("/passes").text
    page = client(project).get("/pass/20261129T090000Z-0001").text
    assert ("Why it stopped" in page) == (kind == "stopped") and ("Why it failed" in page) == (kind == "bad")


def test_each_pass_shows_its_model_and_where_it_went(project: Project) -> None:
    ids = []
    for day, served in (("2026-11-28", "qwen2.5-1.5b-instruct-q4_k_m.gguf"), ("2026-11-29", "gemma-3-270m.gguf")):
        capture(project, day, f"Acme news of {day}")
        model = ServedModel("openai/local", "http://127.0.0.1:8080/v1", served)
        model.enqueue({"operations": [{"op": "skip", "lines": [f"{day}#1"], "reason": "chatter"}]})
        result = run_pass(project, SETTINGS, model=model, now=lambda: FIXED_NOW)
        assert (result.endpoint, result.served_by) == ("http://127.0.0.1:8080/v1", served)
        ids.append(result.pass_id)
    c = client(project)
    for pass_id, served in zip(ids, ("qwen2.5-1.5b-instruct-q4_k_m.gguf", "gemma-3-270m.gguf"), strict=True):
        page = c.get(f"/pass/{pass_id}").text
        assert "<code>openai/local</code> at <code>http://127.0.0.1:8080/v1</code>" in page
        assert f"the server answered as <code>{served}</code>" in page
    listing = c.get("/passes").text
    assert "127.0.0.1:8080" in listing and "qwen2.5-1.5b-instruct-q4_k" in listing and "gemma-3-270m.gguf" in listing


def test_the_run_panel_says_the_prompt_is_being_read_against_its_expected_time() -> None:
    run = Run("r1", dry_run=False, retry=False, jobs=[], started=0.0)
    run.step_to(Step("reading", "the journal"))
    assert run.to_json()["reading"] is None
    run.step_to(Step("asking", "openai/local (about 3,500 prompt tokens)", expect_s=46.6))
    reading = run.to_json()["reading"]
    assert reading["expected"] == 47 and reading["seconds"] >= 0
    run.step_to(Step("asking", "openai/local (about 3,500 prompt tokens)", tokens=3, expect_s=46.6))
    assert run.to_json()["reading"] is None and run.to_json()["tokens"] == 3  # the reply has begun
    run.step_to(Step("asking", "openai/local to sort 12 line(s)"))
    assert run.to_json()["reading"] == {"seconds": run.to_json()["reading"]["seconds"], "expected": None}  # no measured pace
    assert json.dumps(run.to_json())
