"""Tokens as they come: a pass that shows progress streams the model's reply.

Everything goes through the real path — litellm, HTTP, server-sent events — to
tests/helpers/fake_openai.py's server on loopback. A streamed reply must end in the same
operations and the same recorded usage as a plain one; the display hears the
tokens grow; `gitgarden stop` closes a slow stream at once and keeps the tokens
it brought; an endpoint that cannot stream gets one plain request instead.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.gardener.pipeline import PassResult, request_stop, run_pass
from gitgarden.gardener.steps import Step, token_steps
from gitgarden.history.records import read_attempts
from gitgarden.model import llm
from gitgarden.model import operations as ops
from gitgarden.model.llm import Budget
from gitgarden.model.provider import LiteLLMModel
from gitgarden.project import Project, init_project
from gitgarden.repo.gitdir import git_dir
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.project import FIXED_NOW, commit_all, git, write
from tests.helpers.streaming import Watch

pytestmark = [pytest.mark.litellm, pytest.mark.slow]

JOURNAL = "Acme signed the pilot contract\nbought coffee\n"
ACME = {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]}
COFFEE = {"op": "skip", "lines": ["2026-11-29#2"]}
REPLY = json.dumps({"operations": [ACME, COFFEE]})
MESSAGES = [{"role": "user", "content": "Turn the journal into pages."}]


def _settings(server: FakeOpenAI) -> Settings:
    return Settings(model="openai/fake", api_base=server.base_url, num_retries=0, timeout=120, mode="full")


def _budget() -> Budget:
    return Budget(tokens=100_000, seconds=600)


def _journal_project(root: Path) -> Project:
    project = Project(init_project(root).root)
    write(project.root, "raw/journal/2026-11-29.md", JOURNAL)
    commit_all(project.root)
    return project


def _pass(project: Project, server: FakeOpenAI, **kw: Any) -> PassResult:
    settings = _settings(server)
    return run_pass(project, settings, model=LiteLLMModel(settings, {}), now=lambda: FIXED_NOW, **kw)


# -- the same reply, streamed or not ------------------------------------------------


def test_a_streamed_pass_writes_and_records_what_a_plain_pass_does(tmp_path: Path, server: FakeOpenAI) -> None:
    plain_project, streamed_project = _journal_project(tmp_path / "plain"), _journal_project(tmp_path / "streamed")
    server.enqueue(REPLY, prompt_tokens=1234, completion_tokens=77)
    plain = _pass(plain_project, server)
    server.enqueue(REPLY, prompt_tokens=1234, completion_tokens=77, chunk_chars=3)
    watch = Watch()
    streamed = _pass(streamed_project, server, on_step=watch.step)

    plain_request, streamed_request = (r["json"] for r in server.requests)
    assert "stream" not in plain_request  # no display that shows tokens: asked exactly as before
    assert streamed_request["stream"] is True and streamed_request["stream_options"] == {"include_usage": True}
    for result in (plain, streamed):
        assert result.outcome == "pages_written", result.detail
        assert result.created == ["wiki/acme.md"]
        # The provider's own usage, not an estimate.
        assert (result.prompt_tokens, result.completion_tokens, result.tokens_estimated) == (1234, 77, False)
    assert git(plain_project.root, "show", "HEAD:wiki/acme.md") == git(streamed_project.root, "show", "HEAD:wiki/acme.md")
    assert git(streamed_project.root, "show", "HEAD:.gitgarden/read.json") == git(plain_project.root, "show", "HEAD:.gitgarden/read.json")
    assert watch.asking_tokens()[-1] == 77
    applying = next(s for s in watch.steps if s.name == "applying")
    assert applying.tokens == 1234 + 77


def test_a_streamed_reply_is_the_plain_reply(server: FakeOpenAI) -> None:
    model = LiteLLMModel(_settings(server), {})
    server.enqueue(REPLY, prompt_tokens=500, completion_tokens=60, finish_reason="stop")
    plain = llm.ask(model, MESSAGES, _budget())
    server.enqueue(REPLY, prompt_tokens=500, completion_tokens=60, finish_reason="stop", chunk_chars=1)
    budget = _budget()
    streamed = llm.ask(model, MESSAGES, budget, on_tokens=lambda _n: None)
    assert streamed.operations == plain.operations == ops.parse_reply(REPLY)
    assert streamed.usage == plain.usage == llm.Usage(500, 60, None)
    assert streamed.messages == plain.messages
    assert budget.spent == llm.Usage(500, 60, None)


def test_a_streamed_reply_cut_off_at_the_limit_is_repaired_as_a_plain_one_is(server: FakeOpenAI) -> None:
    model = LiteLLMModel(_settings(server), {})
    server.enqueue(REPLY[:40], finish_reason="length", prompt_tokens=300, completion_tokens=10)
    server.enqueue(REPLY, prompt_tokens=400, completion_tokens=60)
    seen: list[int] = []
    answer = llm.ask(model, MESSAGES, _budget(), on_tokens=seen.append)
    assert answer.operations == ops.parse_reply(REPLY)
    assert answer.usage == llm.Usage(700, 70, None)
    assert [r["json"].get("stream") for r in server.requests] == [True, True]
    assert "cut off at the output limit" in server.requests[1]["json"]["messages"][-1]["content"]


def test_without_a_usage_chunk_the_tokens_are_litellms_count(server: FakeOpenAI) -> None:
    """A server that ignores include_usage: the reply still parses, and its usage is counted, not zero."""
    server.enqueue(REPLY, chunk_chars=4, usage_chunk=False)
    reply = LiteLLMModel(_settings(server), {}).complete(MESSAGES, ops.schema(), _budget(), on_tokens=lambda _n: None)
    assert ops.parse_reply(reply.text) == ops.parse_reply(REPLY)
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0


def test_a_provider_without_stream_options_still_records_its_own_usage(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ollama takes no stream_options; its last line carries the counts, and those are recorded."""
    monkeypatch.setenv("OLLAMA_API_BASE", server.root_url)
    server.enqueue(REPLY, prompt_tokens=812, completion_tokens=64, chunk_chars=5)
    seen: list[int] = []
    model = LiteLLMModel(Settings(model="ollama_chat/llama3", num_retries=0, timeout=60), {})
    reply = model.complete(MESSAGES, ops.schema(), _budget(), on_tokens=seen.append)
    chat = next(r["json"] for r in server.requests if r["path"] == "/api/chat")
    assert chat["stream"] is True and "stream_options" not in chat
    assert ops.parse_reply(reply.text) == ops.parse_reply(REPLY)
    assert reply.usage == llm.Usage(812, 64, None) and seen[-1] == 64


# -- the tokens as they come ----------------------------------------------------------


def test_the_callback_hears_growing_counts_at_most_about_ten_times_a_second(server: FakeOpenAI) -> None:
    text = json.dumps({"operations": [COFFEE]}) + " " * 200  # 60 chunks of 4 characters
    server.enqueue(text, completion_tokens=80, chunk_chars=4, chunk_delay=0.02)
    heard: list[tuple[float, int]] = []
    reply = LiteLLMModel(_settings(server), {}).complete(
        MESSAGES, ops.schema(), _budget(), on_tokens=lambda n: heard.append((time.monotonic(), n))
    )
    counts = [n for _, n in heard]
    assert len(set(counts)) >= 3, counts  # it moved while the reply came
    assert counts == sorted(counts) and counts[-1] == 80 == reply.usage.completion_tokens
    span = heard[-1][0] - heard[0][0]
    assert len(heard) <= span * 10 + 2, (len(heard), span)  # not once per chunk (there were 60)
    assert server.chunks_sent >= 60


def test_only_a_display_that_shows_tokens_gets_a_token_callback() -> None:
    import io

    from gitgarden.cli.progress import Display

    asking = Step("asking", "openai/fake")
    assert token_steps(lambda _s: None, asking) is None  # tick, ci: no display
    assert token_steps(Display(io.StringIO()).step, asking) is None  # a pipe, --json
    watch = Watch()
    tell = token_steps(watch.step, asking)
    assert tell is not None
    tell(12)
    assert watch.steps == [Step("asking", "openai/fake", tokens=12)]


# -- stop ----------------------------------------------------------------------------


def test_stop_during_a_slow_stream_ends_the_pass_at_once_and_keeps_the_tokens_it_brought(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    project = _journal_project(tmp_path / "proj")
    gate = threading.Event()  # the stream sends 5 chunks, then waits (up to two minutes) for the test
    server.enqueue(REPLY, prompt_tokens=1234, completion_tokens=77, chunk_chars=4, gate_after=5, gate=gate, chunk_delay=0.01)
    watch = Watch()
    asked: list[float] = []

    def stop_once_streaming() -> None:
        if watch.streaming.wait(120):
            asked.append(time.monotonic())
            request_stop(git_dir(project.root), "pat@example.com", FIXED_NOW)

    stopper = threading.Thread(target=stop_once_streaming, daemon=True)
    stopper.start()
    try:
        result = _pass(project, server, on_step=watch.step)
        ended = time.monotonic()
    finally:
        gate.set()
        stopper.join(timeout=10)
    assert asked, "the stream never brought a token"
    assert ended - asked[0] < 10  # a functional bound: the pass did not wait for the rest of the reply
    assert result.outcome == "stopped" and result.exit_code == 13
    # The tokens so far: the prompt (estimated: its usage never came) and what the stream brought,
    # five chunks of four characters (about a token each), though the display may have heard fewer.
    assert result.completion_tokens == 5 and result.prompt_tokens > 0 and result.tokens_estimated
    assert 0 < watch.asking_tokens()[-1] <= 5
    assert result.created == [] and result.marked_read == 0
    record = read_attempts(git_dir(project.root))[-1]
    assert record["outcome"] == "stopped" and record["completion_tokens"] == 5
    assert git(project.root, "status", "--porcelain") == ""
    # The left-behind request closes its stream at the next chunk: the server cannot send the rest.
    assert server.wait_for_stream_end(timeout=60) == "closed by the client"
    assert server.chunks_sent < -(-len(REPLY) // 4)


def test_a_stream_left_behind_closes_at_its_next_chunk(server: FakeOpenAI) -> None:
    """The request thread itself: once its callback raises (the pass was stopped), the stream ends."""
    server.enqueue(REPLY, chunk_chars=2, chunk_delay=0.02)

    class Stop(Exception):
        pass

    def stop_at_once(n: int) -> None:
        if n:
            raise Stop

    with pytest.raises(Stop):
        LiteLLMModel(_settings(server), {}).complete(MESSAGES, ops.schema(), _budget(), on_tokens=stop_at_once)
    assert server.wait_for_stream_end(timeout=60) == "closed by the client"
    assert server.chunks_sent < len(REPLY) // 2


# -- endpoints that cannot stream ----------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "Unrecognized request argument supplied: stream_options"),
        (501, "Streaming is not supported by this server"),
        (422, "stream: extra inputs are not permitted"),
    ],
)
def test_an_endpoint_that_refuses_to_stream_gets_one_plain_request(server: FakeOpenAI, status: int, message: str) -> None:
    server.refuse_streams = (status, message)
    model = LiteLLMModel(_settings(server), {})
    server.enqueue(REPLY, prompt_tokens=500, completion_tokens=60)
    server.enqueue(REPLY, prompt_tokens=500, completion_tokens=60)
    seen: list[int] = []
    first = model.complete(MESSAGES, ops.schema(), _budget(), on_tokens=seen.append)
    second = model.complete(MESSAGES, ops.schema(), _budget(), on_tokens=seen.append)
    assert first.usage == second.usage == llm.Usage(500, 60, None)
    assert ops.parse_reply(first.text) == ops.parse_reply(REPLY)
    # One refused stream, its plain request, and no second try at streaming.
    assert [r["json"].get("stream") for r in server.requests] == [True, None, None]
    assert message.split(":")[0] in model.stream_refused
    assert seen == []


@pytest.mark.parametrize(
    ("status", "message", "kind"),
    [
        (401, "Incorrect API key provided (stream)", "auth"),
        (500, "upstream model crashed", "error"),
        (400, "the prompt has an invalid role", "error"),
    ],
)
def test_other_failures_of_a_stream_are_not_retried_plainly(server: FakeOpenAI, status: int, message: str, kind: str) -> None:
    server.enqueue_error(status, message)
    model = LiteLLMModel(_settings(server), {})
    with pytest.raises(ModelError) as caught:
        model.complete(MESSAGES, ops.schema(), _budget(), on_tokens=lambda _n: None)
    assert caught.value.kind == kind
    assert len(server.requests) == 1 and model.stream_refused == ""


def test_a_stream_that_outlasts_the_timeout_fails_as_unreachable(server: FakeOpenAI) -> None:
    settings = Settings(model="openai/fake", api_base=server.base_url, num_retries=0, timeout=1)
    server.enqueue(REPLY, chunk_chars=1, chunk_delay=0.05)  # each chunk is quick; the whole reply takes 4 s
    with pytest.raises(ModelError) as caught:
        LiteLLMModel(settings, {}).complete(MESSAGES, ops.schema(), _budget(), on_tokens=lambda _n: None)
    assert caught.value.kind == "timeout" and "the reply did not finish within 1 s" in str(caught.value)


def test_the_key_goes_with_the_stream_as_with_a_plain_request_and_is_never_shown(server: FakeOpenAI) -> None:
    key = "sk-test-streaming-0123456789abcdef"
    settings = Settings(model="openai/fake", api_base=server.base_url, num_retries=0, timeout=60)
    server.enqueue_error(401, f"Incorrect API key provided: {key}")
    with pytest.raises(ModelError) as caught:
        LiteLLMModel(settings, {"GITGARDEN_API_KEY": key}).complete(MESSAGES, ops.schema(), _budget(), on_tokens=lambda _n: None)
    assert key not in str(caught.value) and key[:12] not in str(caught.value)
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {key}"
    assert server.requests[0]["json"]["stream"] is True
