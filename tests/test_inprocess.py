"""The in-process model (the `local` extra): `model = "local/…"` goes through litellm as a provider of
its own, in the very request shape a llama.cpp server gets — the schema as a JSON grammar, the
output bound, log-probabilities when asked — and nothing loads llama_cpp before a request.

The llama.cpp model itself is faked here by a recorder of the chat completions it is asked for
(what reaches it is the point); the test marked realmodel gardens with the packaged Gemma.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.model import inprocess
from gitgarden.model.endpoints import wire_schema
from gitgarden.model.llm import Budget
from gitgarden.model.operations import schema as operations_schema
from gitgarden.model.provider import LiteLLMModel
from gitgarden.project import Project

REPLY = '{"operations": [{"op": "skip", "lines": ["2026-11-29#1"], "reason": "chatter"}]}'


class FakeLlama:
    """Records each `create_chat_completion` and answers as llama-cpp-python does (numpy floats included)."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []

    def create_chat_completion(self, **kwargs: Any) -> Any:
        import numpy as np

        self.asked.append(kwargs)
        logprobs = None
        if kwargs.get("logprobs"):
            top = [{"token": t, "logprob": np.float32(lp), "bytes": None} for t, lp in (("yes", -0.1), ("no", -2.4))]
            logprobs = {"content": [{"token": "yes", "logprob": np.float32(-0.1), "bytes": None, "top_logprobs": top}]}
        if kwargs.get("stream"):
            return self._chunks(logprobs)
        return {
            "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY}, "finish_reason": "stop", "logprobs": logprobs}],
            "usage": {"prompt_tokens": 41, "completion_tokens": 23, "total_tokens": 64},
        }

    n_tokens = 0

    def _chunks(self, logprobs: Any = None) -> Iterator[dict[str, Any]]:
        for i in range(0, len(REPLY), 10):
            self.n_tokens += 1
            yield {"choices": [{"index": 0, "delta": {"content": REPLY[i : i + 10]}, "finish_reason": None, "logprobs": logprobs if i == 0 else None}]}
        yield {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}


@pytest.fixture
def fake_llama(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[tuple[FakeLlama, list[bool], Settings]]:
    fake, logits_all = FakeLlama(), []
    gguf = tmp_path / "models" / "tiny.gguf"
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF")

    def load(path: str, n_ctx: int, all_logits: bool) -> FakeLlama:
        assert (path, n_ctx) == (str(gguf), 4096)
        logits_all.append(all_logits)
        return fake

    monkeypatch.setattr(inprocess, "_llama", load)
    monkeypatch.setattr(inprocess, "installed", lambda packaged=False: True)
    yield fake, logits_all, Settings(model=f"local/{gguf}", context_window=4096)


@pytest.mark.litellm
def test_a_request_reaches_the_in_process_model_in_the_shape_a_server_gets(fake_llama: tuple[FakeLlama, list[bool], Settings]) -> None:
    fake, logits_all, settings = fake_llama
    model = LiteLLMModel(settings, {"GITGARDEN_API_KEY": "sk-never-sent"})
    assert model.endpoint.startswith("in-process: ") and model.key_withheld is None
    budget = Budget(tokens=10_000, seconds=600)
    messages = [{"role": "system", "content": "Sort the lines."}, {"role": "user", "content": "2026-11-29#1 bought coffee"}]
    reply = model.complete(messages, operations_schema(), budget, max_tokens=300)

    [asked] = fake.asked
    assert asked["messages"] == messages
    assert asked["response_format"] == {"type": "json_object", "schema": wire_schema(operations_schema())}
    assert (asked["max_tokens"], asked["temperature"]) == (300, 0.2)
    assert not {"api_key", "stream_options", "max_retries"} & set(asked)
    assert logits_all == [False]
    assert (reply.text, reply.usage.prompt_tokens, reply.usage.completion_tokens, reply.usage.cost) == (REPLY, 41, 23, None)
    assert budget.spent.total_tokens == 64

    shown: list[int] = []
    streamed = model.complete(messages, operations_schema(), budget, on_tokens=shown.append, max_tokens=300)
    assert fake.asked[-1]["stream"] is True and fake.asked[-1]["response_format"]["type"] == "json_object"
    assert streamed.text == REPLY and shown and shown[-1] == streamed.usage.completion_tokens


@pytest.mark.litellm
def test_log_probabilities_asked_for_come_back_as_a_server_gives_them(fake_llama: tuple[FakeLlama, list[bool], Settings]) -> None:
    fake, logits_all, settings = fake_llama
    from gitgarden.model import wire

    litellm = wire.quiet_litellm()
    inprocess.register(litellm, settings.model, settings.context_window, {})
    done = litellm.completion(
        model=settings.model, messages=[{"role": "user", "content": "A fact? yes or no"}],
        max_tokens=1, temperature=0.0, logprobs=True, top_logprobs=2,
    )  # fmt: skip
    assert (fake.asked[-1]["logprobs"], fake.asked[-1]["top_logprobs"], fake.asked[-1]["max_tokens"]) == (True, 2, 1)
    assert fake.asked[-1]["stream"] is True  # a plain reply works out every prompt position's (seconds on a CPU)
    assert logits_all == [True]  # llama-cpp-python keeps every position's logits only for such a request
    top = done.choices[0].logprobs["content"][0]["top_logprobs"]
    assert [(t["token"], t["logprob"]) for t in top] == [("yes", pytest.approx(-0.1)), ("no", pytest.approx(-2.4))]
    assert json.dumps(done.choices[0].logprobs)  # plain floats, as a server's JSON gives them


@pytest.mark.litellm
def test_without_the_extra_the_failure_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(inprocess, "installed", lambda packaged=False: False)
    model = LiteLLMModel(Settings(model="local/gemma3-270m"), {})
    with pytest.raises(ModelError, match=r"needs the local extra .*gitgarden\[local\]"):
        model.complete([{"role": "user", "content": "hi"}], operations_schema(), Budget(tokens=1000, seconds=60))


def test_help_and_status_never_load_llama_cpp(project: Project) -> None:
    env = {**os.environ, "GITGARDEN_MODEL": "local/gemma3-270m"}
    for args in (["--help"], ["llm", "status", "--no-probe", "--json"], ["status"]):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "gitgarden", *args], cwd=project.root, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr[-2000:]
        imported = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
        assert imported and not [line for line in imported if "llama_cpp" in line or "litellm" in line], args
        if args[0] == "llm":
            shown = json.loads(done.stdout)
            assert shown["endpoint"].startswith("in-process: Gemma 3 270M") and shown["mode"] == "small"
            assert shown["structured_output"] == "json_object"


@pytest.mark.realmodel
@pytest.mark.slow
@pytest.mark.skipif(not inprocess.installed(packaged=True), reason="the local extra is not installed (.ci/run installs it)")
def test_a_small_mode_pass_in_process_with_the_packaged_gemma(sample: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitgarden.gardener.pipeline import run_pass
    from gitgarden.model.provider import make_model
    from tests.helpers.project import FIXED_NOW

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    settings = Settings(model="local/gemma3-270m", max_lines=3, timeout=600, seconds_budget=1200)
    model = make_model(settings, dict(os.environ))
    result = run_pass(sample, settings, model=model, now=lambda: FIXED_NOW)
    assert result.outcome != "failed", result.detail
    record = result.record()
    assert record["model"] == "local/gemma3-270m" and record.get("mode") == "small"
