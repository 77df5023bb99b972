"""How a failed model request reads: one line, the key scrubbed out of it (`map_error`, `scrub`), and
the pieces of a stream (`piece`, `reported_tokens`, `tokens_in`, `close_stream`, `stream_refusal`).

Kept apart from `provider` (which makes the requests) so each reads as one idea; httpx, openai and
litellm are imported inside the functions that need them.
"""

from __future__ import annotations

import contextlib
import math
import re
from typing import Any

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.model.wire import quiet_litellm

__all__ = ["map_error", "scrub", "detail", "chain", "stream_refusal", "piece", "reported_tokens", "tokens_in", "close_stream"]

_DETAIL_CHARS = 200

# -- streaming -----------------------------------------------------------------------

# An endpoint that cannot stream says so with a client error naming the stream
# ("stream_options is not supported", "streaming is not supported"); \b keeps
# "upstream" out.
_STREAM_WORD = re.compile(r"(?i)\bstream")
_REFUSAL_STATUS = frozenset({400, 405, 415, 422, 501})


def stream_refusal(exc: Exception) -> str | None:
    """What the endpoint said when `exc` is its refusal to stream, else None."""
    import openai

    links = chain(exc)
    status = next((getattr(e, "status_code", None) for e in links if getattr(e, "status_code", None)), None)
    client_error = status in _REFUSAL_STATUS or any(isinstance(e, openai.BadRequestError | openai.UnprocessableEntityError) for e in links)
    text = " ".join(str(e) for e in links)
    if client_error and _STREAM_WORD.search(text):
        return detail(exc, ())
    return None


def piece(chunk: Any) -> str:
    """The text a stream chunk adds to the reply."""
    choices = getattr(chunk, "choices", None) or []
    delta = getattr(choices[0], "delta", None) if choices else None
    content = getattr(delta, "content", None)
    return content if isinstance(content, str) else ""


def reported_tokens(chunk: Any) -> int:
    """The output tokens a chunk's usage reports (the provider's own count), 0 when it has none."""
    usage = getattr(chunk, "usage", None)
    return int(getattr(usage, "completion_tokens", 0) or 0)


def tokens_in(text: str) -> int:
    """An estimate of the tokens in `text`, as gitgarden estimates prompts (about 4 bytes a token)."""
    return math.ceil(len(text.encode("utf-8")) / 4)


def close_stream(stream: Any) -> None:
    """Close a stream's connection; a stream that is already gone is fine."""
    close = getattr(stream, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):  # closing is tidying up: never the failure the person sees
            close()


# -- errors ----------------------------------------------------------------------

_PREFIX = re.compile(r"^\s*(?:litellm\.)?[A-Za-z]*(?:Error|Exception|Timeout)\s*[:\-]\s*")
_CONTEXT_PHRASES = (
    "context length",
    "context window",
    "context size",
    "context limit",
    "maximum context",
    "prompt is too long",
    "too many tokens",
    "context_length_exceeded",
)
_BEARER = re.compile(r"(?i)bearer\s+\S+")


def scrub(text: str, secrets: tuple[str, ...], *, pieces: bool = True) -> str:
    """`text` with every secret replaced; with `pieces`, also bearer tokens and any word sharing 8 characters with one."""
    out = text
    for secret in secrets:
        if len(secret) >= (4 if pieces else 8):  # a short "key" in a prompt is more likely a word than a secret
            out = out.replace(secret, "[redacted]")
    if not pieces:
        return out
    out = _BEARER.sub("Bearer [redacted]", out)
    long = [s for s in secrets if len(s) >= 8]
    if long:
        # Providers echo masked keys ("sk-abc***wxyz"); drop any word holding a piece of the key.
        chunks = {s[i : i + 8] for s in long for i in range(len(s) - 7)}
        out = " ".join("[redacted]" if any(c in word for c in chunks) else word for word in out.split(" "))
    return out


def detail(exc: BaseException, secrets: tuple[str, ...]) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    for _ in range(4):
        stripped = _PREFIX.sub("", text)
        if stripped == text:
            break
        text = stripped
    text = re.sub(r"^[A-Za-z_]*Exception\s*-\s*", "", text).strip() or type(exc).__name__
    text = scrub(text, secrets)
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 1] + "…"


def chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in seen and len(seen) < 10:
        seen.append(cur)
        cur = cur.__cause__ or cur.__context__
    return seen


def map_error(
    exc: Exception,
    settings: Settings,
    secrets: tuple[str, ...],
    *,
    timeout: Any = None,
    key_note: str = "",
    endpoint: str = "",
) -> ModelError | None:
    """A one-line ModelError for a failed request, or None when `exc` is not a model failure."""
    import httpx
    import openai

    links = chain(exc)
    if not any(isinstance(e, openai.OpenAIError | httpx.HTTPError) for e in links):
        return None
    litellm = quiet_litellm()
    ex = litellm.exceptions
    where = endpoint
    said = detail(exc, secrets)
    model = settings.model
    if any(isinstance(e, openai.APITimeoutError | httpx.TimeoutException | TimeoutError) for e in links):
        return ModelError(
            f"model too slow: {where} did not answer within {timeout or settings.timeout} s; lower context_window or max_lines, or raise timeout",
            kind="timeout",
        )
    if any(isinstance(e, openai.APIConnectionError | httpx.ConnectError | ConnectionError) for e in links):
        reason = "connection refused" if any(isinstance(e, ConnectionRefusedError) for e in links) else said
        return ModelError(f"model unreachable: {where} ({reason})", kind="unreachable")
    if isinstance(exc, ex.ContextWindowExceededError) or (
        isinstance(exc, openai.BadRequestError) and any(p in said.lower() for p in _CONTEXT_PHRASES)
    ):
        return ModelError(
            f"the prompt is too long for {model}'s context ({said}); lower context_window "
            f"(now {settings.context_window:,}) so gitgarden sends less",
            kind="context_too_long",
        )
    # litellm does not map every status to its own class (403 arrives as a plain APIError): look at both.
    code = getattr(exc, "status_code", None)
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError) or code in (401, 403):
        return ModelError(f"model endpoint refused the API key: {where} ({said}){key_note}", kind="auth")
    if isinstance(exc, openai.RateLimitError) or code == 429:
        return ModelError(f"model endpoint is rate-limiting requests: {where} ({said}); try again later", kind="rate_limited")
    if isinstance(exc, openai.NotFoundError) or code == 404:
        return ModelError(f"model {model!r} not found at {where} ({said})", kind="error")
    if isinstance(exc, ex.ServiceUnavailableError | ex.BadGatewayError) or code in (502, 503, 504):
        return ModelError(f"model endpoint unavailable: {where} ({said})", kind="unavailable")
    if isinstance(exc, openai.BadRequestError):
        return ModelError(f"model endpoint refused the request: {where} ({said})", kind="error")
    return ModelError(f"model call failed: {where} ({said})", kind="error")


