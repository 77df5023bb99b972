"""The model layer: usage and budgets, the key's destination, structured output, repair, errors, status.

Requests go through the real litellm to `FakeOpenAI`, a loopback server with
scripted replies, so headers, bodies and error mapping are the real ones.
"""

from __future__ import annotations

import json
import math
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.model import endpoints, llm, provider
from gitgarden.model import operations as ops
from gitgarden.model import status as model_status
from tests.helpers.fake_openai import FakeOpenAI

# These tests drive LiteLLMModel for real (against FakeOpenAI); conftest fakes it for every other test.
pytestmark = pytest.mark.litellm

KEY = "sk-test-4f9c2b7e1d8a6f3c5b0e"  # a recognisable fake key; it must never leak
ENV = {"GITGARDEN_API_KEY": KEY}
GOOD = '{"operations": [{"op": "skip", "lines": ["2026-11-29#1"]}]}'
MESSAGES = [
    {"role": "system", "content": "You are the gardener."},
    {"role": "user", "content": "[2026-11-29#1] lunch was good"},
]




def local(server: FakeOpenAI, **over: Any) -> Settings:
    """Settings for an openai/ model at the fake server: no retries, short timeout."""
    base: dict[str, Any] = dict(model="openai/fake", api_base=server.base_url, num_retries=0, timeout=10)
    base.update(over)
    return Settings(**base)


def budget(tokens: int = 100_000, seconds: float = 600) -> llm.Budget:
    return llm.Budget(tokens=tokens, seconds=seconds)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- usage and budgets -----------------------------------------------------------


def test_usage_sums_and_unknown_cost_stays_unknown() -> None:
    a = llm.Usage(100, 20, 0.01)
    b = llm.Usage(50, 5, 0.02)
    total = a + b
    assert (total.prompt_tokens, total.completion_tokens) == (150, 25) and total.cost == pytest.approx(0.03)
    assert (a + llm.Usage(10, 1, None)).cost is None
    assert llm.Usage() + a == a and a + llm.Usage() == a  # "no call" adds as zero
    assert sum([a, b], llm.Usage()).total_tokens == 175
    assert (llm.Usage() + llm.Usage(10, 1)).cost is None
    assert llm.Usage(1000, 234).describe() == "1,234 tokens (1,000 prompt + 234 completion), cost unknown"


def test_budget_checks_tokens_and_seconds() -> None:
    now = [100.0]
    b = llm.Budget(tokens=1000, seconds=60, started=100.0, clock=lambda: now[0])
    b.check()
    b.charge(llm.Usage(900, 99))
    b.check()
    b.charge(llm.Usage(1, 0))
    with pytest.raises(ModelError) as exc:
        b.check()
    assert exc.value.kind == "budget" and "token budget" in str(exc.value)
    b2 = llm.Budget(tokens=1000, seconds=60, started=100.0, clock=lambda: now[0])
    now[0] = 160.5
    with pytest.raises(ModelError) as exc:
        b2.check()
    assert exc.value.kind == "budget" and "time budget" in str(exc.value)
    with pytest.raises(ModelError):
        llm.Budget(tokens=0, seconds=60).check()


def test_budget_from_settings() -> None:
    b = llm.Budget.from_settings(Settings(token_budget=123, seconds_budget=45))
    assert (b.tokens, b.seconds, b.spent) == (123, 45.0, llm.Usage())


# -- where the key goes -----------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "api_base", "sent"),
    [
        ("openai/gemma", "http://127.0.0.1:8080/v1", True),
        ("ollama_chat/llama3", "http://localhost:11434", True),
        ("anything/at-all", "https://llm.example.org/v1", True),
        ("openai/gpt-4o-mini", "", True),
        ("anthropic/claude-sonnet-4", "", True),
        ("gemini/gemini-2.5-flash", "", True),
        ("ollama_chat/llama3", "", False),
        ("gpt-4o", "", False),
        ("hosted_vllm/some-model", "", False),
    ],
)
def test_key_goes_only_to_the_base_or_the_named_provider(model: str, api_base: str, sent: bool) -> None:
    key, why = provider.key_decision(Settings(model=model, api_base=api_base), ENV)
    if sent:
        assert (key, why) == (KEY, None)
    else:
        assert key is None
        assert why is not None and "withheld" in why and "GITGARDEN_API_BASE" in why and KEY not in why


def test_key_withheld_when_an_env_variable_would_redirect_the_provider() -> None:
    key, why = provider.key_decision(Settings(model="openai/gpt-4o-mini"), {**ENV, "OPENAI_BASE_URL": "http://evil.example"})
    assert key is None and why is not None and "OPENAI_BASE_URL" in why


def test_no_key_and_no_model() -> None:
    assert provider.key_decision(Settings(model="openai/x", api_base="http://h/v1"), {}) == (None, None)
    key, why = provider.key_decision(Settings(), ENV)
    assert key is None and why is not None and "no model" in why


def test_named_key_variable() -> None:
    settings = Settings(model="openai/x", api_base="http://h/v1", api_key_env="MY_KEY")
    assert provider.key_decision(settings, {"MY_KEY": KEY}) == (KEY, None)


@pytest.mark.parametrize(
    ("model", "api_base", "mode"),
    [
        ("openai/gemma", "http://127.0.0.1:8080/v1", "json_object"),
        ("openai/gpt-4o-mini", "", "json_schema"),
        ("anthropic/claude-sonnet-4", "", "json_schema"),
        ("gemini/gemini-2.5-flash", "", "json_schema"),
        ("ollama_chat/llama3", "http://localhost:11434", "json_schema"),
        ("mistral/mistral-small", "", "json_object"),
        ("openrouter/x/y", "", "prompt"),
        ("hosted_vllm/m", "http://h/v1", "prompt"),
    ],
)
def test_structured_output_mode(model: str, api_base: str, mode: str) -> None:
    assert provider.structured_output_mode(Settings(model=model, api_base=api_base)) == mode


def test_make_model_is_none_without_a_model() -> None:
    assert provider.make_model(Settings(), ENV) is None
    model = provider.make_model(Settings(model="openai/x", api_base="http://h/v1"), ENV)
    assert isinstance(model, provider.LiteLLMModel) and model.name == "openai/x"
    assert KEY not in repr(model)


def test_wire_schema_is_grammar_friendly_and_keeps_field_names() -> None:
    wire = endpoints.wire_schema(ops.schema())
    text = json.dumps(wire)
    assert "maxLength" not in text and "\\\\d" not in text and "$schema" not in text
    create = wire["properties"]["operations"]["items"]["oneOf"][0]
    assert "title" in create["properties"] and create["required"] == ["op", "lines", "page", "title", "body"]


# -- through litellm to the fake server --------------------------------------------


def test_key_and_schema_reach_the_configured_base(server: FakeOpenAI) -> None:
    server.enqueue(GOOD, prompt_tokens=321, completion_tokens=12)
    settings = local(server, max_output_tokens=77, temperature=0.3)
    reply = provider.LiteLLMModel(settings, ENV).complete(MESSAGES, ops.schema(), budget())
    assert reply.text == GOOD and reply.finish_reason == "stop"
    assert reply.usage == llm.Usage(321, 12, None)  # local endpoint: cost unknown, not zero
    (req,) = server.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["authorization"] == f"Bearer {KEY}"
    body = req["json"]
    assert body["response_format"] == {"type": "json_object", "schema": endpoints.wire_schema(ops.schema())}
    assert body["max_tokens"] == 77 and body["temperature"] == 0.3
    assert body["messages"] == MESSAGES


def test_output_bound_shrinks_with_the_budget(server: FakeOpenAI) -> None:
    server.enqueue(GOOD)
    b = budget(tokens=1000)
    b.charge(llm.Usage(960, 0))
    provider.LiteLLMModel(local(server, max_output_tokens=500), ENV).complete(MESSAGES, ops.schema(), b)
    sent = "\n".join(m["content"] for m in MESSAGES)
    prompt = -(-len(sent.encode()) // 4)  # this request's own prompt counts against the budget too
    assert server.requests[0]["json"]["max_tokens"] == 40 - prompt


def test_without_a_key_a_placeholder_is_sent_not_the_environments(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-key-that-must-stay-home-123")
    server.enqueue(GOOD)
    provider.LiteLLMModel(local(server), {}).complete(MESSAGES, ops.schema(), budget())
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {provider.NO_KEY}"


def test_withheld_key_is_not_sent(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    # No api_base: ollama_chat goes where litellm's OLLAMA_API_BASE says — here, the fake server.
    monkeypatch.setenv("OLLAMA_API_BASE", server.root_url)
    server.enqueue(GOOD)
    model = provider.LiteLLMModel(Settings(model="ollama_chat/llama3", num_retries=0, timeout=10), ENV)
    assert model.key_withheld is not None
    reply = model.complete(MESSAGES, ops.schema(), budget())
    assert reply.text == GOOD and reply.usage.cost is None
    chats = [r for r in server.requests if r["path"] == "/api/chat"]
    assert chats and chats[0]["json"]["format"] == endpoints.wire_schema(ops.schema())
    for req in server.requests:
        assert KEY not in json.dumps(req)


def test_redirect_variable_gets_no_key(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    server.enqueue(GOOD)
    model = provider.LiteLLMModel(Settings(model="openai/gpt-4o-mini", num_retries=0, timeout=10), ENV)
    model.complete(MESSAGES, ops.schema(), budget())
    (req,) = server.requests
    assert req["headers"]["authorization"] == f"Bearer {provider.NO_KEY}"
    assert KEY not in json.dumps(req)


def test_key_in_a_prompt_is_redacted(server: FakeOpenAI) -> None:
    server.enqueue(GOOD)
    leaky = [{"role": "user", "content": f"my key is {KEY}, keep it safe"}]
    provider.LiteLLMModel(local(server), ENV).complete(leaky, ops.schema(), budget())
    sent = server.requests[0]["json"]["messages"][0]["content"]
    assert KEY not in sent and "[redacted]" in sent


# -- ask_operations: validation and one repair ---------------------------------------


def test_good_reply_gives_ops(server: FakeOpenAI) -> None:
    server.enqueue(GOOD, prompt_tokens=100, completion_tokens=20)
    b = budget()
    found, usage = llm.ask_operations(provider.LiteLLMModel(local(server), ENV), MESSAGES, b)
    assert [op.kind for op in found] == ["skip"] and found[0].lines == ("2026-11-29#1",)
    assert usage == llm.Usage(100, 20, None) and b.spent == usage


def test_bad_then_good_is_repaired(server: FakeOpenAI) -> None:
    server.enqueue("Sure! Here are the operations you asked for.", prompt_tokens=100, completion_tokens=9)
    server.enqueue(GOOD, prompt_tokens=130, completion_tokens=20)
    found, usage = llm.ask_operations(provider.LiteLLMModel(local(server), ENV), MESSAGES, budget())
    assert [op.kind for op in found] == ["skip"]
    assert usage == llm.Usage(230, 29, None)
    repair = server.requests[1]["json"]["messages"]
    assert repair[:2] == MESSAGES
    assert repair[2] == {"role": "assistant", "content": "Sure! Here are the operations you asked for."}
    assert repair[3]["role"] == "user" and "not JSON" in repair[3]["content"] and '{"operations": [' in repair[3]["content"]


def test_bad_twice_is_bad_output(server: FakeOpenAI) -> None:
    server.enqueue('{"operations": [{"op": "delete_everything", "lines": []}]}')
    server.enqueue('{"ops": []}')
    b = budget()
    with pytest.raises(ModelError) as exc:
        llm.ask_operations(provider.LiteLLMModel(local(server), ENV), MESSAGES, b)
    assert exc.value.kind == "bad_output"
    assert str(exc.value).startswith("bad model output: ") and "operations" in str(exc.value)
    assert len(server.requests) == 2 and b.spent.total_tokens == 240  # both calls charged


def test_cut_off_reply_gets_a_repair(server: FakeOpenAI) -> None:
    server.enqueue('{"operations": [{"op": "skip", "lines": ["2026-11-29#1"]}]}', finish_reason="length")
    server.enqueue(GOOD)
    found, _ = llm.ask_operations(provider.LiteLLMModel(local(server, max_output_tokens=64), ENV), MESSAGES, budget())
    assert [op.kind for op in found] == ["skip"]
    assert 'finish_reason "length"' in server.requests[1]["json"]["messages"][-1]["content"]
    assert "64 tokens" in server.requests[1]["json"]["messages"][-1]["content"]


class ScriptedModel:
    """An in-process Model: replies from a list, requests recorded."""

    name = "scripted"

    def __init__(self, *replies: llm.Reply) -> None:
        self.replies = list(replies)
        self.history: list[list[dict[str, str]]] = []

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: llm.Budget) -> llm.Reply:
        self.history.append(messages)
        answer = self.replies.pop(0)
        budget.charge(answer.usage)  # a Model charges what it spent
        return answer


def reply(text: str, finish: str = "stop", tokens: int = 10) -> llm.Reply:
    return llm.Reply(text, llm.Usage(tokens, tokens), finish)


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (reply(""), "empty"),
        (reply("   \n"), "empty"),
        (reply("x" * (ops.MAX_REPLY_CHARS + 1)), "characters"),
        (reply(GOOD, finish="length"), "cut off"),
    ],
)
def test_empty_huge_and_truncated_replies_get_one_repair(bad: llm.Reply, problem: str) -> None:
    model = ScriptedModel(bad, reply(GOOD))
    found, usage = llm.ask_operations(model, MESSAGES, budget())
    assert len(found) == 1 and usage.total_tokens == 40
    assert problem in model.history[1][-1]["content"]
    assert len(model.history[1][-2]["content"]) < 2100  # a huge bad reply is not echoed whole
    assert model.history[1][-2]["content"]  # never an empty assistant message


def test_stop_and_budget_are_checked_before_every_call() -> None:
    class Stop(Exception):
        pass

    calls: list[str] = []

    def before() -> None:
        calls.append("check")
        if len(calls) == 2:
            raise Stop

    model = ScriptedModel(reply("nope"), reply(GOOD))
    with pytest.raises(Stop):
        llm.ask_operations(model, MESSAGES, budget(), before_call=before)
    assert len(model.history) == 1  # the repair call never happened

    spent = budget(tokens=25)
    model = ScriptedModel(reply("nope", tokens=15), reply(GOOD))
    with pytest.raises(ModelError) as exc:
        llm.ask_operations(model, MESSAGES, spent)
    assert exc.value.kind == "budget" and len(model.history) == 1


# -- errors -------------------------------------------------------------------------


def _fail(settings: Settings, env: dict[str, str] = ENV) -> ModelError:
    with pytest.raises(ModelError) as exc:
        provider.LiteLLMModel(settings, env).complete(MESSAGES, ops.schema(), budget())
    message = str(exc.value)
    assert KEY not in message and KEY[:12] not in message and KEY[-8:] not in message
    assert "\n" not in message
    return exc.value


@pytest.mark.parametrize(
    ("status", "kind"),
    [(401, "auth"), (403, "auth"), (429, "rate_limited"), (404, "error"), (503, "unavailable"), (500, "error"), (400, "error")],
)
def test_http_errors_map_to_kinds_without_the_key(server: FakeOpenAI, status: int, kind: str) -> None:
    # Providers echo the key (whole or masked) in their errors; none of it may reach the message.
    server.enqueue_error(status, f"Incorrect API key provided: {KEY}. Masked: {KEY[:7]}****{KEY[-6:]} Bearer {KEY}")
    error = _fail(local(server))
    assert error.kind == kind
    assert server.base_url in str(error)


def test_context_too_long(server: FakeOpenAI) -> None:
    server.enqueue_error(400, "Requested tokens (9000) exceed context window of 8192")
    error = _fail(local(server))
    assert error.kind == "context_too_long" and "context_window" in str(error)


def test_connection_refused_is_unreachable() -> None:
    port = closed_port()
    error = _fail(Settings(model="openai/fake", api_base=f"http://127.0.0.1:{port}/v1", num_retries=0, timeout=5))
    assert error.kind == "unreachable" and "connection refused" in str(error) and str(port) in str(error)


def test_a_server_too_slow_for_the_timeout_says_it_was_reading_the_prompt(server: FakeOpenAI) -> None:
    server.enqueue(GOOD, delay=2.5)
    error = _fail(local(server, timeout=1))
    # A plain request shows nothing until the reply is whole: the message says what it waited for.
    assert error.kind == "timeout" and "no reply within 1 s" in str(error), error
    assert "for a prompt of about" in str(error) and "raise timeout" in str(error)


def test_auth_error_without_a_key_says_how_to_send_one(server: FakeOpenAI) -> None:
    server.enqueue_error(401, "no key")
    error = _fail(local(server), env={})
    assert error.kind == "auth" and "GITGARDEN_API_KEY" in str(error)


def test_retries_are_explicit(server: FakeOpenAI) -> None:
    server.enqueue_error(429, "slow down")
    server.enqueue(GOOD)
    found, _ = llm.ask_operations(provider.LiteLLMModel(local(server, num_retries=1), ENV), MESSAGES, budget())
    assert len(found) == 1 and len(server.requests) == 2


def test_errors_print_nothing(server: FakeOpenAI, capfd: pytest.CaptureFixture[str]) -> None:
    server.enqueue_error(401, f"bad key {KEY}")
    _fail(local(server))
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    import litellm

    assert not litellm.set_verbose and litellm.suppress_debug_info


def test_programming_errors_are_not_disguised(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    import litellm

    def broken(**_kwargs: Any) -> Any:
        raise KeyError("a bug, not a model failure")

    monkeypatch.setattr(litellm, "completion", broken)
    with pytest.raises(KeyError):
        provider.LiteLLMModel(local(server), ENV).complete(MESSAGES, ops.schema(), budget())


# -- status ----------------------------------------------------------------------------


def test_status_without_probe_is_free_and_says_what_is_configured() -> None:
    code = (
        "import sys; from gitgarden.model import status as model_status; from gitgarden.config import Settings;"
        "print(model_status.status(Settings(model='ollama_chat/llama3'), {'GITGARDEN_API_KEY': 'k' * 20}, probe=False));"
        "import gitgarden.gardener.context;"
        "assert 'litellm' not in sys.modules, 'litellm was imported'"
    )
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=root)
    assert done.returncode == 0, done.stderr
    assert "'reachable': None" in done.stdout and "'api_key': 'withheld'" in done.stdout


def test_status_fields() -> None:
    info = model_status.status(Settings(model="ollama_chat/llama3"), ENV, probe=False)
    assert info == {
        "configured": True,
        "reachable": None,
        "model": "ollama_chat/llama3",
        "endpoint": "http://localhost:11434 (litellm's default for Ollama)",
        "context_window": 8192,
        "structured_output": "json_schema",
        "mode": "small",
        "mode_why": "auto: http://localhost:11434 (litellm's default for Ollama) is a local endpoint",
        "speed": None,
        "speed_said": None,
        "fit": None,
        "api_key": "withheld",
        "api_key_source": "the environment (GITGARDEN_API_KEY)",
        "api_key_withheld": provider.key_decision(Settings(model="ollama_chat/llama3"), ENV)[1],
        "error": None,
        "error_kind": None,
    }
    assert model_status.status(Settings(), {}, probe=True) | {} == {
        **model_status.status(Settings(), {}, probe=False),
        "reachable": None,
    }
    assert model_status.status(Settings(), {}, probe=False)["configured"] is False


def test_status_probe_reaches_the_fake_server(server: FakeOpenAI) -> None:
    server.enqueue("ok", completion_tokens=1)
    info = model_status.status(local(server), ENV, probe=True)
    assert info["reachable"] is True and info["error"] is None
    assert info["api_key"] == "sent" and info["endpoint"] == server.base_url
    assert info["structured_output"] == "json_object"
    body = server.requests[0]["json"]
    assert body["max_tokens"] <= 8 and "response_format" not in body


def test_status_probe_reports_an_unreachable_endpoint() -> None:
    settings = Settings(model="openai/x", api_base=f"http://127.0.0.1:{closed_port()}/v1", num_retries=3)
    info = model_status.status(settings, ENV, probe=True)
    assert info["reachable"] is False and info["error_kind"] == "unreachable"
    assert KEY not in json.dumps(info)


def test_status_probe_reports_a_refused_key(server: FakeOpenAI) -> None:
    server.enqueue_error(401, f"invalid key {KEY}")
    info = model_status.status(replace(local(server)), ENV, probe=True)
    assert info["reachable"] is False and info["error_kind"] == "auth"
    assert KEY not in json.dumps(info)


# -- log-probabilities (small mode's one-token answers) ----------------------------


def test_log_probabilities_come_with_a_streamed_answer(server: FakeOpenAI) -> None:
    # llama-cpp-python works out a plain reply's log-probabilities for every prompt position (seconds
    # a line on a CPU); streamed, only for the answer's one token.
    server.enqueue("yes", completion_tokens=1, logprobs={"yes": -0.2, "no": -1.8})
    reply = provider.LiteLLMModel(local(server), ENV).complete(MESSAGES, {}, budget(), max_tokens=1, logprobs=5)
    body = server.requests[0]["json"]
    assert (body["stream"], body["logprobs"], body["top_logprobs"], body["max_tokens"]) == (True, True, 5, 1)
    assert reply.text == "yes"
    assert reply.alternatives == {"yes": pytest.approx(math.exp(-0.2)), "no": pytest.approx(math.exp(-1.8))}


def test_a_stream_without_log_probabilities_is_its_own_label_then_they_are_asked_plainly(server: FakeOpenAI) -> None:
    for _ in range(2):
        server.enqueue("no", completion_tokens=1, logprobs={"yes": -2.0, "no": -0.1}, plain_logprobs_only=True)
    model = provider.LiteLLMModel(local(server), ENV)
    first = model.complete(MESSAGES, {}, budget(), max_tokens=1, logprobs=5)
    second = model.complete(MESSAGES, {}, budget(), max_tokens=1, logprobs=5)
    assert [r["json"].get("stream", False) for r in server.requests] == [True, False]  # one request each
    assert (first.text, first.alternatives) == ("no", {})  # the answer is the label: judge.score_of reads it
    assert second.alternatives == {"yes": pytest.approx(math.exp(-2.0)), "no": pytest.approx(math.exp(-0.1))}


def test_a_streamed_reply_starts_no_logging_task_per_chunk(server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    """litellm would hand every streamed chunk to a thread that starts an event loop for callbacks
    gitgarden never sets; one such loop crashed a test process. None is started."""
    from litellm.litellm_core_utils import thread_pool_executor

    handed: list[str] = []
    real_submit = thread_pool_executor.executor.submit

    def submit(fn: Any, *args: Any, **kwargs: Any) -> Any:
        handed.append(getattr(fn, "__name__", repr(fn)))
        return real_submit(fn, *args, **kwargs)

    monkeypatch.setattr(thread_pool_executor.executor, "submit", submit)
    server.enqueue(GOOD, prompt_tokens=100, completion_tokens=20)
    shown: list[Any] = []
    reply = provider.LiteLLMModel(local(server), ENV).complete(MESSAGES, ops.schema(), budget(), on_tokens=shown.append)
    assert reply.text == GOOD and shown  # it streamed
    assert "run_success_logging_and_cache_storage" not in handed
