"""Passes that fit the machine: the endpoint's pace measured once, the pass fitted to `timeout`, one
deadline per request that says what happened, a stop or a deadline that shuts the request's socket,
and token counts that hold when a stream runs long, fails, or reports figures that cannot be.

Everything goes through the real path (litellm, HTTP) to tests/helpers/fake_openai.py's server on loopback,
scripted slow where a test needs a slow server.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.gardener.pipeline import PassResult, request_stop, run_pass
from gitgarden.history.records import read_attempts
from gitgarden.model import llm, speed
from gitgarden.model import operations as ops
from gitgarden.model import status as model_status
from gitgarden.model.provider import LiteLLMModel
from gitgarden.project import Project, init_project
from gitgarden.repo.gitdir import git_dir
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.project import FIXED_NOW, commit_all, git, write
from tests.helpers.streaming import Watch

pytestmark = [pytest.mark.litellm, pytest.mark.slow]

MESSAGES = [{"role": "user", "content": "Turn the journal into pages."}]
# About 2,000 tokens of words, no two chunks in a row alike (litellm ends a stream that repeats one chunk).
ENDLESS = " the herb bed grows by the shed" * 280




def _settings(server: FakeOpenAI | None, **over: Any) -> Settings:
    base: dict[str, Any] = dict(model="openai/fake", api_base=server.base_url if server else "", num_retries=0, timeout=60, mode="full")
    base.update(over)
    return Settings(**base)


def _journal(root: Path, lines: int) -> Project:
    project = Project(init_project(root).root)
    write(project.root, "raw/journal/2026-11-29.md", "".join(f"Supplier {n} quoted {n * 10} EUR for flour\n" for n in range(1, lines + 1)))
    commit_all(project.root)
    return project


def _pass(project: Project, settings: Settings, **kw: Any) -> PassResult:
    return run_pass(project, settings, model=LiteLLMModel(settings, {}), now=lambda: FIXED_NOW, **kw)


def _skip_all(n: int) -> str:
    return json.dumps({"operations": [{"op": "skip", "lines": [f"2026-11-29#{i}" for i in range(1, n + 1)], "reason": "test"}]})


def _remember_fast(settings: Settings) -> None:
    """A measure already kept for this endpoint: the pass asks no probe."""
    import os

    speed.remember(settings, os.environ, speed.Speed(5000.0, 500.0, 0.1, FIXED_NOW.isoformat()))


# -- the measure and the fit ----------------------------------------------------------------


def test_a_slow_server_is_measured_once_and_the_pass_fits_its_timeout(tmp_path: Path, server: FakeOpenAI) -> None:
    project = _journal(tmp_path / "p", 30)
    server.probe_delay, server.probe_chunk_delay, server.probe_usage = 2.0, 0.1, (600, 20)  # ~300 tokens/s read, ~20 written
    settings = _settings(server, timeout=20)
    server.enqueue(_skip_all(30))
    result = _pass(project, settings)
    assert result.outcome == "nothing_earned", result.detail
    assert len(server.probes) == 1
    said = result.fit
    assert said.startswith("This model reads about") and said not in result.hints  # said once, as the pass starts
    assert "prompt tokens a second and writes about" in said and f"passes offer {len(result.offered)} lines" in said
    # The prompt was fitted: fewer lines than were waiting, a window and a reply bound under the settings'.
    assert 0 < len(result.offered) < 30 and result.overflow == 30 - len(result.offered)
    request = server.requests[0]["json"]
    assert request["max_tokens"] < settings.max_output_tokens
    assert sum(len(m["content"]) for m in request["messages"]) // 4 < settings.context_window
    # The measure is kept per endpoint and model: the next pass measures nothing.
    server.enqueue(_skip_all(30))
    _pass(project, settings)
    assert len(server.probes) == 1


def test_a_fast_endpoint_is_not_shrunk_and_nothing_is_said(tmp_path: Path, server: FakeOpenAI) -> None:
    project = _journal(tmp_path / "p", 5)
    server.enqueue(_skip_all(5))
    result = _pass(project, _settings(server))
    assert len(server.probes) == 1 and len(result.offered) == 5
    assert result.fit == "" and not any("reads about" in h for h in result.hints)
    assert server.requests[0]["json"]["max_tokens"] == 2048


def test_fit_in_small_mode_offers_the_lines_the_budgets_can_judge() -> None:
    slow = speed.Speed(prompt_tps=40.0, reply_tps=4.0, first_token_s=15.0, measured=FIXED_NOW.isoformat())
    fitted = speed.fit(Settings(timeout=120, seconds_budget=300), slow, "small")
    per_line = 40 / 40 + 1 / 4 + 0.3  # one request a line: the line read, one token written
    assert fitted.settings.max_lines * per_line + 330 / 40 <= 300 * 0.8  # the pass fits seconds_budget
    assert fitted.settings.max_lines < 200 and "this model reads about 40 prompt tokens a second" in fitted.sentence
    fast = speed.Speed(prompt_tps=4000.0, reply_tps=200.0, first_token_s=0.2, measured=FIXED_NOW.isoformat())
    assert speed.fit(Settings(), fast, "small").sentence == ""


def test_llm_status_measures_and_says_the_pace_and_the_fit(server: FakeOpenAI, tmp_path: Path) -> None:

    server.probe_delay = 1.0
    server.enqueue("ok", completion_tokens=1)  # the reachability probe; the pace is measured after it
    info = model_status.status(_settings(server, mode="auto"), {}, probe=True)
    assert info["reachable"] is True and info["mode"] == "small"
    assert info["speed"]["prompt_tps"] > 0 and "reads about" in info["speed_said"]
    assert "passes offer" in info["fit"]


# -- failures that say what happened ---------------------------------------------------------


def test_a_refused_connection_fails_at_once_without_retries(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    project = _journal(tmp_path / "p", 2)
    settings = Settings(model="openai/fake", api_base=f"http://127.0.0.1:{port}/v1", num_retries=3, timeout=120, mode="full")
    started = time.monotonic()
    result = _pass(project, settings)
    assert time.monotonic() - started < 20  # a functional bound: not 55 s of retries, not the timeout
    assert result.outcome == "failed" and "connection refused" in result.detail, result.detail
    assert result.prompt_tokens == 0 and result.completion_tokens == 0  # nothing went out


def test_no_first_token_before_the_timeout_says_the_server_was_reading_the_prompt_and_keeps_the_tokens(
    tmp_path: Path, server: FakeOpenAI
) -> None:
    project = _journal(tmp_path / "p", 3)
    settings = _settings(server, timeout=3, num_retries=2)
    _remember_fast(settings)
    gate = threading.Event()
    server.enqueue(_skip_all(3), gate=gate)
    try:
        result = _pass(project, settings, on_step=Watch().step)  # a terminal's live line: the reply streams
        # The deadline shut the request's socket while the server still held its reply behind the
        # gate: the server sees the client go before its first token. The gate opens only once the
        # server has said so — opened earlier, a loaded machine's server thread could find it open
        # first and start a stream the client had left.
        ended = server.wait_for_stream_end(timeout=30)
    finally:
        gate.set()
    assert ended == "closed by the client before the first token"
    assert result.outcome == "failed"
    assert "model too slow" in result.detail and "no first token within 3 s" in result.detail, result.detail
    assert "still reading the prompt" in result.detail and "raise timeout" in result.detail
    assert len(server.requests) == 1  # one deadline for the request: a server too slow is not asked again
    # The tokens sent so far are recorded (an estimate: no usage came back).
    assert result.prompt_tokens > 0 and result.tokens_estimated
    record = read_attempts(git_dir(project.root))[-1]
    assert record["prompt_tokens"] == result.prompt_tokens and record["outcome"] == "failed"


def test_a_probe_past_the_timeout_fails_the_pass_saying_so(tmp_path: Path, server: FakeOpenAI) -> None:
    project = _journal(tmp_path / "p", 2)
    server.probe_delay = 6.0
    result = _pass(project, _settings(server, timeout=2))
    assert result.outcome == "failed" and "no first token within 2 s" in result.detail, result.detail
    assert server.requests == []


# -- tokens as they arrive (#23 item 13) -----------------------------------------------------------


def test_a_stream_past_the_output_bound_is_cut_and_counted(server: FakeOpenAI) -> None:
    endless = '{"operations": [' + ENDLESS  # a model that writes on, and a server that ignores max_tokens
    server.enqueue(endless, chunk_chars=4, completion_tokens=1000, chunk_delay=0.005)
    model = LiteLLMModel(_settings(server, max_output_tokens=64), {})
    budget = llm.Budget(tokens=100_000, seconds=600)
    reply = model.complete(MESSAGES, ops.schema(), budget, on_tokens=lambda _n: None)
    assert reply.finish_reason == "length"
    assert 64 <= budget.spent.completion_tokens <= 2 * 64  # cut near the bound (litellm's count of what came may exceed the estimate)
    assert server.wait_for_stream_end(timeout=30) == "closed by the client"
    assert server.chunks_sent < len(endless) // 8


def test_the_token_budget_stops_a_stream_as_tokens_arrive(tmp_path: Path, server: FakeOpenAI) -> None:
    project = _journal(tmp_path / "p", 2)
    settings = _settings(server, token_budget=2500, max_output_tokens=2048)
    _remember_fast(settings)
    server.enqueue('{"operations": [' + ENDLESS, chunk_chars=4, completion_tokens=2000, chunk_delay=0.002)
    result = _pass(project, settings, on_step=Watch().step)
    assert result.outcome == "failed" and "token budget spent" in result.detail, result.detail
    # The prompt and what came before the cut at the budget, not the 2,000 tokens the server sent.
    assert result.tokens <= 2500 * 1.1 and result.completion_tokens < 1800  # cut at the budget; ~2,000 is what the server sent
    assert server.wait_for_stream_end(timeout=30) == "closed by the client"


def test_a_failed_stream_records_the_tokens_it_brought(server: FakeOpenAI) -> None:
    server.enqueue('{"operations": []}' + " " * 400, chunk_chars=4, chunk_delay=0.03)  # ~100 chunks, 3 s
    model = LiteLLMModel(_settings(server, timeout=1), {})
    budget = llm.Budget(tokens=100_000, seconds=600)
    with pytest.raises(ModelError) as caught:
        model.complete(MESSAGES, ops.schema(), budget, on_tokens=lambda _n: None)
    assert caught.value.kind == "timeout" and "tokens received" in str(caught.value)
    assert budget.spent.completion_tokens > 0 and budget.spent.prompt_tokens > 0 and budget.estimated


@pytest.mark.parametrize(
    ("prompt", "completion"),
    [(-150_000, 12), (321, -5), (10**12, 12), (321, 10**9)],
)
def test_a_negative_or_absurd_usage_is_never_believed(server: FakeOpenAI, prompt: int, completion: int) -> None:
    server.enqueue('{"operations": []}', prompt_tokens=prompt, completion_tokens=completion)
    budget = llm.Budget(tokens=100_000, seconds=600)
    reply = LiteLLMModel(_settings(server), {}).complete(MESSAGES, ops.schema(), budget)
    assert 0 < reply.usage.prompt_tokens < 1000 and 0 <= reply.usage.completion_tokens < 1000
    assert budget.spent == reply.usage and budget.estimated


# -- a stop during a streamed reply closes its socket (#23 item 12) ---------------------------------

TRIES = 25  # per moment; the whole test runs 50 stops


@pytest.mark.parametrize("moment", ["before the first token", "mid-stream"])
def test_stop_during_a_streamed_reply_shuts_its_socket_every_time(tmp_path: Path, server: FakeOpenAI, moment: str) -> None:
    project = _journal(tmp_path / "p", 2)
    settings = _settings(server, timeout=120)
    _remember_fast(settings)
    late: list[float] = []
    for n in range(TRIES):
        gate = threading.Event()
        if moment == "mid-stream":
            server.enqueue(_skip_all(2), gate=gate, gate_after=2 + n % 4, chunk_chars=2, chunk_delay=0.005 * (n % 3))
        else:
            server.enqueue(_skip_all(2), gate=gate)
        watch = Watch()
        asked: list[float] = []

        def stop(watch: Watch = watch, asked: list[float] = asked, n: int = n) -> None:
            started = watch.streaming.wait(60) if moment == "mid-stream" else server.wait_for_requests(n + 1, 60)
            if started:
                time.sleep(0.01 * (n % 5))  # stops injected at varied moments
                asked.append(time.monotonic())
                request_stop(git_dir(project.root), "pat@example.com", FIXED_NOW)

        stopper = threading.Thread(target=stop, daemon=True)
        stopper.start()
        try:
            result = _pass(project, settings, on_step=watch.step)
            ended = time.monotonic()
            how = server.wait_for_stream_end(timeout=10)
        finally:
            gate.set()
            stopper.join(timeout=10)
        assert asked and result.outcome == "stopped", (n, result.outcome, result.detail)
        assert how is not None and how.startswith("closed by the client"), (n, how)
        late.append(ended - asked[0])
    assert max(late) < 5, late  # a functional bound: every stop ended its pass, none waited for the reply
    assert git(project.root, "status", "--porcelain") == ""


# -- the live line while the prompt is read (item 4) ------------------------------------------------


def test_the_live_line_says_the_server_is_reading_the_prompt_against_its_measured_pace() -> None:
    import io

    from gitgarden.cli.progress import _Live, plain_console
    from gitgarden.gardener.steps import Step

    now = [100.0]
    console = plain_console(io.StringIO(), {"NO_COLOR": "1"})
    live = _Live(io.StringIO(), console, lambda: now[0])

    def shown() -> str:
        out = io.StringIO()
        plain_console(out, {"NO_COLOR": "1"}).print(live.render())
        return out.getvalue()

    live.step(Step("asking", "openai/local (about 1,900 prompt tokens)", expect_s=47.0))
    now[0] += 29
    assert "reading prompt 29 s of ~47 s" in shown()
    live.step(Step("asking", "openai/local (about 1,900 prompt tokens)", tokens=12, expect_s=47.0))
    assert "12 tokens" in shown() and "reading prompt" not in shown()  # the reply has begun
    fresh = _Live(io.StringIO(), console, lambda: now[0])
    fresh.step(Step("asking", "openai/local (about 1,900 prompt tokens)"))  # no measured pace: no expectation
    assert "reading prompt 0 s" in _render(fresh) and "of ~" not in _render(fresh)
    # Small mode asks a line a request, each read in a moment: no "reading prompt" for minutes.
    lines = _Live(io.StringIO(), console, lambda: now[0])
    lines.step(Step("asking", "openai/local: 40 of 78 line(s) read (small mode)", expect_s=103.0, per_line=True))
    now[0] += 60
    assert "· 60 s of ~103 s" in _render(lines) and "reading prompt" not in _render(lines)


def _render(live: object) -> str:
    import io

    from gitgarden.cli.progress import plain_console

    out = io.StringIO()
    plain_console(out, {"NO_COLOR": "1"}).print(live.render())  # type: ignore[attr-defined]
    return out.getvalue()
