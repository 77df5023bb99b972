"""litellm behind the model interface: where requests go and whether the key goes with them, the
structured-output form each endpoint takes, the streamed and plain completion, one-line errors
with the key scrubbed, and `status` (reachable or not, the key's source, never the key).

The only module that imports litellm, and only inside functions: the import costs seconds, and
`--help`, `status`, `tick` and `guard` must not pay it. The rules:

- the API key goes only to the configured `api_base`, or — with no base — to
  the hosted provider the model string names; anything else withholds it and
  says why (`key_decision`);
- the key never appears in an error message or a prompt (`_scrub`);
- every request carries an explicit timeout, retry count and output bound;
- litellm's exceptions become one-line `ModelError`s with a `kind`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import time
from collections.abc import Mapping
from typing import Any

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.model import failures, inprocess, replies, wire
from gitgarden.model.endpoints import (
    HOSTED_PROVIDERS,
    NO_KEY,
    SMALL_WINDOW,
    choose_mode,
    endpoint_of,
    is_local,
    key_decision,
    key_source,
    provider_of,
    redirect_vars,
    response_format,
    structured_output_mode,
)
from gitgarden.model.llm import Budget, Model, Reply, TokenCallback, Usage

__all__ = [
    "HOSTED_PROVIDERS",
    "NO_KEY",
    "LiteLLMModel",
    "make_model",
    "key_decision",
    "key_source",
    "structured_output_mode",
    "provider_of",
    "choose_mode",
    "endpoint_of",
    "SMALL_WINDOW",
]

_PROBE_TOKENS = 4
_PROBE_TIMEOUT = 60
_SPEED_TOKENS = 16  # reply tokens the speed measure asks for: enough to time the reply
_BOUND_SLACK = 8  # tokens past the output bound a stream may bring before it is cut (estimates are rough)
_RETRY_WAIT = 2.0  # seconds before a retry (times the attempt): only rate limits and busy servers are retried
_RETRYABLE = frozenset({"rate_limited", "unavailable"})
# Seconds the HTTP client waits past the request's deadline: the deadline (`wire.within`) is the one
# clock that ends a request and says why; the client's own timeout only backs it up. Both at the same
# second, a loaded machine let the client's fire first ("did not answer") instead of the deadline's
# ("no first token …: the server was still reading the prompt").
_HTTP_SLACK = 5
_TELL_EVERY = 0.1  # seconds between two reports of the tokens a stream has brought (at most ~10 a second)
_DETAIL_CHARS = 200


# -- the litellm model -----------------------------------------------------------


class LiteLLMModel:
    """A `Model` that calls `litellm.completion` with the settings' model and endpoint.

    Every request runs in a thread of its own against one deadline (`timeout` seconds for the whole
    request, retries included), over connections whose sockets `abandon()` can shut from another
    thread; retries are gitgarden's own and only for what a retry can mend (a rate limit, a busy
    server), never for a refused connection or a server too slow for the deadline.
    """

    streams = True  # `complete` takes `on_tokens` and `max_tokens` (StreamingModel)

    def __init__(self, settings: Settings, env: Mapping[str, str] | None = None) -> None:
        self.settings = settings
        self.name = settings.model
        env = os.environ if env is None else env
        self.env = env
        key, self.key_withheld = key_decision(settings, env)
        self._key = key
        self._secrets = tuple(s for s in {key, key_source(settings, env)[0]} if s)
        self.stream_refused = ""  # why the endpoint cannot stream, once it said so: later calls do not try again
        self.logprobs_refused = ""  # why the endpoint gives no log-probabilities, once it said so: answers are then labels
        self.logprobs_plain = ""  # why log-probabilities are asked plainly: a stream brought none, once
        self.served_by = ""  # the model the server named in its last reply, when another than `name`
        self.sockets = wire.Sockets()
        self._client: Any = None  # the OpenAI client over `sockets`, made at the first request
        self.speed: Any = None  # the endpoint's measured speed (model.speed.Speed), when known

    def __repr__(self) -> str:
        return f"LiteLLMModel(model={self.name!r}, api_base={self.settings.api_base!r})"

    @property
    def endpoint(self) -> str:
        """Where requests go, in words."""
        return endpoint_of(self.settings)

    def abandon(self) -> int:
        """Shut the sockets of the requests in flight (a stop, the person back, a deadline): a read
        blocked on the server ends at once and the server stops; how many were open."""
        return self.sockets.shut()

    def _auth(self) -> dict[str, str]:
        if self._key:
            return {"api_key": self._key}
        provider = provider_of(self.name)
        redirected = any(os.environ.get(v) for v in redirect_vars(provider))
        if self.settings.api_base or redirected:
            # A non-default destination with nothing to send: a placeholder keeps
            # litellm from reaching for a provider key in the environment.
            return {"api_key": NO_KEY}
        return {}

    def _mapped(self, exc: Exception, timeout: Any) -> Exception:
        """The one-line ModelError for a failed request, or `exc` itself when it is no model failure
        (a programming error must surface as one)."""
        mapped = failures.map_error(exc, self.settings, self._secrets, timeout=timeout, key_note=self._key_note(), endpoint=self.endpoint)
        return exc if mapped is None else mapped

    def _key_note(self) -> str:
        if self._key:
            return ""
        return f"; {self.key_withheld}" if self.key_withheld else "; no API key was sent (set GITGARDEN_API_KEY, or store one with `gitgarden keys set NAME`)"

    def _scrub_message(self, message: Mapping[str, str]) -> dict[str, str]:
        return {k: failures.scrub(v, self._secrets, pieces=False) if isinstance(v, str) else v for k, v in message.items()}

    def complete(
        self,
        messages: list[dict[str, str]],
        schema: dict[str, Any],
        budget: Budget,
        on_tokens: TokenCallback | None = None,
        max_tokens: int | None = None,
        logprobs: int | None = None,
    ) -> Reply:
        """One completion, bounded by the settings and what is left of `budget`, which it charges —
        also when it fails: the prompt it sent (estimated) and the tokens it received.

        With `logprobs` the first token's alternatives come back (`Reply.alternatives`), streamed:
        llama-cpp-python's plain reply works out log-probabilities for every position of the prompt
        (seconds a request on a CPU), its stream only for the reply's token. An endpoint whose stream
        brings none has that answer taken as its label and is asked plainly from then on; one that
        refuses log-probabilities (llama.cpp without `--logits_all`) is asked again without them, and
        remembered: its answers are then labels.

        With `on_tokens` the reply is streamed and `on_tokens` is told the output tokens so far, at
        most about ten times a second (whatever it raises ends the request and goes up); a stream
        that goes past the output bound is cut there. The Reply is the one a plain request gives,
        with the provider's usage when the stream reports it and the figures are believable.
        """
        s = self.settings
        wire.quiet_litellm()  # imported before the clock starts: seconds of start-up are not the server's
        sent = "\n".join(str(m.get("content") or "") for m in messages)
        # The reply may take what the pass's token budget leaves once this prompt is counted.
        left = budget.tokens_left() - wire.estimate(sent)
        bound = max(1, min(max_tokens or s.max_output_tokens, s.max_output_tokens, left))
        timeout = max(1, min(s.timeout, math.ceil(budget.seconds_left())))
        extra: dict[str, Any] = {"timeout": timeout + _HTTP_SLACK, "num_retries": 0, "max_tokens": bound, "temperature": s.temperature}
        shape = response_format(s, schema) if schema else None
        if shape is not None:
            extra["response_format"] = shape
        if logprobs is not None and not self.logprobs_refused:
            extra.update(logprobs=True, top_logprobs=logprobs)
            if self.logprobs_plain or provider_of(self.name) == inprocess.PROVIDER:
                on_tokens = None  # the in-process model gathers its own stream (`inprocess`)
            elif on_tokens is None:
                on_tokens = _unheard
        deadline = time.monotonic() + timeout
        for attempt in range(1 + max(0, s.num_retries)):
            progress = wire.Progress(prompt_tokens=wire.estimate(sent), bound=bound, timeout=timeout)
            try:
                reply = wire.within(
                    deadline,
                    functools.partial(self._once, messages, extra, on_tokens, budget, progress, bound),
                    self.abandon,
                    functools.partial(self._too_slow, progress, timeout),
                )
            except ModelError as exc:
                if "logprobs" in extra and exc.kind == "error" and "logprob" in str(exc).lower() + repr(exc.__cause__).lower():
                    self.logprobs_refused = str(exc)  # asked once more, plainly: its answer is the label
                    return self.complete(messages, schema, budget, None, max_tokens, logprobs)
                if not progress.refused_at_once:  # what went out and came back is spent, even on a failure
                    budget.charge(Usage(progress.prompt_tokens, progress.received), estimated=True)
                wait = _RETRY_WAIT * (attempt + 1)
                if attempt < s.num_retries and exc.kind in _RETRYABLE and time.monotonic() + wait < deadline:
                    time.sleep(wait)
                    continue
                raise
            prompt, completion, guessed = wire.trusted(
                reply.usage.prompt_tokens, reply.usage.completion_tokens, sent=sent, text=reply.text, bound=bound
            )
            if guessed:
                reply = dataclasses.replace(reply, usage=Usage(prompt, completion, None))
            budget.charge(reply.usage, estimated=guessed)
            # The model the server says answered: one endpoint (a llama.cpp server as `openai/local`)
            # serves whichever model it was started with, and the pass's record names it.
            self.served_by = reply.model if reply.model not in (self.name, self.name.partition("/")[2]) else ""
            return reply
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _once(
        self,
        messages: list[dict[str, str]],
        extra: dict[str, Any],
        on_tokens: TokenCallback | None,
        budget: Budget,
        progress: wire.Progress,
        bound: int,
    ) -> Reply:
        """One request: streamed when someone shows its tokens (and the endpoint can stream), else plain."""
        if on_tokens is not None and not self.stream_refused:
            reply = self._streamed(messages, extra, on_tokens, budget, progress, bound)
            if reply is not None:
                return reply
        try:
            response = self._request_raw(messages, **extra)
        except Exception as exc:
            raise self._failed(exc, progress.timeout, progress) from None
        return self._reply(response)

    def _failed(self, exc: Exception, timeout: Any, progress: wire.Progress) -> Exception:
        mapped = self._mapped(exc, timeout)
        if mapped is exc:
            raise exc  # not a model failure (or the caller's own exception: a stopped pass)
        if isinstance(mapped, ModelError) and "connection refused" in str(mapped):
            progress.refused_at_once = True
        return mapped

    def _too_slow(self, progress: wire.Progress, timeout: int) -> ModelError:
        """What a request that ran out of time saw, in one line (the server was reachable: it is slow)."""
        waited = time.monotonic() - progress.started
        speed = self.speed
        if not progress.streamed:
            # A plain request shows nothing until the whole reply is written: say what it needed.
            what = f"no reply within {timeout} s ({waited:.0f} s waited) for a prompt of about {progress.prompt_tokens:,} tokens"
            if speed is not None and speed.prompt_tps > 0 and speed.reply_tps > 0:
                need = progress.prompt_tokens / speed.prompt_tps + progress.bound / speed.reply_tps
                what += f" and up to {progress.bound:,} reply tokens (at its measured pace up to about {need:,.0f} s)"
        elif progress.first_token is None:
            reading = f"the server was still reading the prompt of about {progress.prompt_tokens:,} tokens"
            if speed is not None and speed.prompt_tps > 0:
                need = progress.prompt_tokens / speed.prompt_tps
                reading += f" (at about {speed.prompt_tps:,.0f} tokens a second it needs about {need:,.0f} s)"
            what = f"no first token within {timeout} s ({waited:.0f} s waited): {reading}"
        else:
            what = f"the reply did not finish within {timeout} s ({progress.received:,} tokens received)"
        return ModelError(
            f"model too slow: {self.endpoint} answered, but {what}; lower context_window or max_lines, or raise timeout",
            kind="timeout",
        )

    def _streamed(
        self,
        messages: list[dict[str, str]],
        extra: dict[str, Any],
        on_tokens: TokenCallback,
        budget: Budget,
        progress: wire.Progress,
        bound: int,
    ) -> Reply | None:
        """The reply, streamed; None when the endpoint says it cannot stream, or answered without
        streaming (the caller then asks plainly).

        Endpoints that cannot stream, or that refuse `stream_options`, answer the request with an
        error before the first chunk. One plain request then does the work — rather than a stream
        without usage, whose tokens would be litellm's count and not the provider's — and the model
        remembers it, so a repair request does not ask twice.
        """
        litellm = wire.quiet_litellm()
        if self._takes_stream_options(litellm):
            extra = {**extra, "stream_options": {"include_usage": True}}
        budget.receiving = 0
        progress.streamed = True
        try:
            stream = self._request_raw(messages, stream=True, **extra)
            chunks = [next(iter(stream))]  # some endpoints refuse only when the first chunk is read
        except StopIteration:
            chunks = []
        except Exception as exc:
            refusal = failures.stream_refusal(exc)
            if refusal is None:
                raise self._failed(exc, progress.timeout, progress) from None
            self.stream_refused = failures.scrub(refusal, self._secrets)
            progress.streamed = False
            return None
        over = False
        try:
            more, over = self._read(stream, chunks, on_tokens, budget, progress, progress.timeout, bound)
            chunks += more
        finally:
            failures.close_stream(stream)  # a stopped pass leaves mid-stream: the connection goes, the server stops
        if not over and not any(failures.piece(c) for c in chunks):
            # A server (or proxy) that does not stream but does not say so answers with its plain JSON
            # completion, which litellm reads as a stream of no text: the reply would be empty. The
            # prompt it read is spent; one plain request reads the answer, and later calls ask plainly.
            budget.charge(Usage(progress.prompt_tokens, 0), estimated=True)
            self.stream_refused = "the endpoint answered a streamed request without streaming"
            progress.streamed = False
            return None
        response = litellm.stream_chunk_builder(chunks, messages=messages)
        reply = self._reply(response)
        if over:  # the server went on past max_tokens: what came is the reply, cut off at the bound
            usage = Usage(reply.usage.prompt_tokens, max(reply.usage.completion_tokens, progress.received), reply.usage.cost)
            reply = Reply(reply.text, usage, "length", reply.model)
        if "logprobs" in extra:
            found = next((a for c in chunks if (a := replies.streamed_alternatives(c))), {})
            if found:
                reply = dataclasses.replace(reply, alternatives=found)
            else:
                # litellm's builder drops a stream's log-probabilities, and some servers stream none:
                # this answer is its own label, and later requests ask for them plainly.
                self.logprobs_plain = "the endpoint's stream brought no log-probabilities"
        on_tokens(reply.usage.completion_tokens or failures.tokens_in(reply.text))
        return reply

    def _read(
        self,
        stream: Any,
        first: list[Any],
        on_tokens: TokenCallback,
        budget: Budget,
        progress: wire.Progress,
        timeout: Any,
        bound: int,
    ) -> tuple[list[Any], bool]:
        """The rest of the stream's chunks, and True when it was cut at the output bound. `budget.receiving`
        and `progress` hold the output tokens so far at every chunk; `on_tokens` hears them at most
        every _TELL_EVERY seconds."""
        chunks: list[Any] = []
        received = "".join(failures.piece(c) for c in first)
        if received:
            progress.heard(failures.tokens_in(received))
        told = -math.inf
        try:
            for chunk in stream:
                chunks.append(chunk)
                received += failures.piece(chunk)
                tokens = failures.reported_tokens(chunk) or failures.tokens_in(received)
                budget.receiving = tokens
                progress.heard(tokens)
                if tokens > bound + _BOUND_SLACK:
                    return chunks, True  # counted as they come: a server that ignores max_tokens is cut here
                now = time.monotonic()
                if now - told >= _TELL_EVERY:
                    told = now
                    on_tokens(budget.receiving)
        except ModelError:
            raise
        except Exception as exc:
            raise self._failed(exc, timeout, progress) from None
        return chunks, False

    def _request_raw(self, messages: list[dict[str, str]], **extra: Any) -> Any:
        """`litellm.completion` with the model, endpoint and key, its exceptions left as they are."""
        litellm = wire.quiet_litellm()
        if provider_of(self.name) == inprocess.PROVIDER:
            inprocess.register(litellm, self.name, self.settings.context_window, self.env)
        kwargs: dict[str, Any] = {"model": self.name, "messages": [self._scrub_message(m) for m in messages]}
        if self.settings.api_base:
            kwargs["api_base"] = self.settings.api_base
        kwargs.update(self._auth())
        client = self._openai_client(kwargs.get("api_key"), extra.get("timeout"))
        if client is not None:
            kwargs["client"] = client
        kwargs.update(extra)
        return litellm.completion(**kwargs)

    def _openai_client(self, api_key: str | None, timeout: Any) -> Any:
        """For an OpenAI-compatible endpoint of the person's (llama.cpp, LM Studio, vLLM…): an OpenAI
        client over connections `abandon()` can shut, without the SDK's own retries. None elsewhere."""
        if provider_of(self.name) != "openai" or not self.settings.api_base or not api_key:
            return None
        if self._client is None:
            import openai

            http = wire.http_client(self.sockets, float(timeout or self.settings.timeout))
            if http is None:
                return None
            self._client = openai.OpenAI(api_key=api_key, base_url=self.settings.api_base, http_client=http, max_retries=0)
        return self._client

    def _takes_stream_options(self, litellm: Any) -> bool:
        """Whether litellm passes `stream_options` on for this provider (others reject the parameter)."""
        provider = provider_of(self.name) or None
        try:
            params = litellm.get_supported_openai_params(model=self.name.partition("/")[2] or self.name, custom_llm_provider=provider)
        except Exception:  # an unknown provider: do not send what it may reject
            return False
        return "stream_options" in (params or [])

    def probe(self) -> Reply:
        """One tiny request (a few output tokens, no retries) to see whether the endpoint answers."""
        timeout = min(self.settings.timeout, _PROBE_TIMEOUT)
        progress = wire.Progress(prompt_tokens=8)
        wire.quiet_litellm()

        def ask() -> Reply:
            try:
                response = self._request_raw(
                    [{"role": "user", "content": "Reply with the single word: ok"}],
                    timeout=timeout,
                    num_retries=0,
                    max_tokens=_PROBE_TOKENS,
                    temperature=0.0,
                )
            except Exception as exc:
                raise self._failed(exc, timeout, progress) from None
            return self._reply(response)

        return wire.within(time.monotonic() + timeout, ask, self.abandon, lambda: self._too_slow(progress, timeout))

    def measure_speed(self, prompt: str, timeout: float, schema: dict[str, Any] | None = None) -> tuple[float, float, int, int]:
        """One small streamed request: (seconds to the first token, seconds of the whole reply, prompt
        tokens, reply tokens). With `schema` the reply's shape is enforced as a pass's is (a llama.cpp
        grammar slows sampling several times over: the pace measured is the one a pass gets). A slow
        first token past `timeout` raises ModelError(kind="timeout")."""
        messages = [{"role": "user", "content": prompt}]
        progress = wire.Progress(prompt_tokens=wire.estimate(prompt), bound=_SPEED_TOKENS, streamed=True)
        seconds = max(1, math.ceil(timeout))
        wire.quiet_litellm()

        def ask() -> tuple[float, float, int, int]:
            extra: dict[str, Any] = {"timeout": seconds, "num_retries": 0, "max_tokens": _SPEED_TOKENS, "temperature": 0.0}
            shape = response_format(self.settings, schema) if schema is not None else None
            if shape is not None:
                extra["response_format"] = shape
            litellm = wire.quiet_litellm()
            if self._takes_stream_options(litellm):
                extra["stream_options"] = {"include_usage": True}
            started = time.monotonic()
            try:
                stream = self._request_raw(messages, stream=True, **extra)
                chunks = []
                text = ""
                for chunk in stream:
                    chunks.append(chunk)
                    piece = failures.piece(chunk)
                    if piece and progress.first_token is None:
                        progress.heard(1)
                    text += piece
            except Exception as exc:
                raise self._failed(exc, seconds, progress) from None
            ended = time.monotonic()
            usage = next((c.usage for c in reversed(chunks) if getattr(c, "usage", None)), None)
            prompt_tokens, reply_tokens, _ = wire.trusted(
                getattr(usage, "prompt_tokens", None), getattr(usage, "completion_tokens", None),
                sent=prompt, text=text, bound=_SPEED_TOKENS,
            )  # fmt: skip
            first = (progress.first_token or ended) - started
            return first, ended - started, prompt_tokens or wire.estimate(prompt), reply_tokens or failures.tokens_in(text)

        return wire.within(time.monotonic() + seconds, ask, self.abandon, lambda: self._too_slow(progress, seconds))

    def _reply(self, response: Any) -> Reply:
        return replies.reply_of(response, name=self.name, priced=not is_local(self.settings))


def _unheard(_tokens: int) -> None:
    """A stream's progress nobody shows (a one-token answer streamed for its log-probabilities)."""


def make_model(settings: Settings, env: Mapping[str, str] | None = None) -> Model | None:
    """The configured model, or None when no model is configured (promotion is then skipped)."""
    if not settings.model.strip():
        return None
    return LiteLLMModel(settings, env)


