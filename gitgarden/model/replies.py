"""A model's reply read off litellm's response: the text, the usage figures as they came (the caller
checks them, `wire.trusted`), the cost litellm knows for a hosted model, the finish reason and the
first token's alternatives (the small model's yes/no score reads them).
"""

from __future__ import annotations

import math
from typing import Any

from gitgarden.model import wire
from gitgarden.model.llm import Reply, Usage

__all__ = ["reply_of", "streamed_alternatives"]


def reply_of(response: Any, *, name: str, priced: bool) -> Reply:
    """litellm's response as a `Reply`: its text, usage (priced when `priced`: a hosted model's),
    finish reason, model name (`name` when it gives none) and first-token alternatives."""
    choice = response.choices[0] if getattr(response, "choices", None) else None
    message = getattr(choice, "message", None)
    text = getattr(message, "content", None) or ""
    raw_usage = getattr(response, "usage", None)
    prompt = getattr(raw_usage, "prompt_tokens", None)
    completion = getattr(raw_usage, "completion_tokens", None)
    cost = _cost(response) if priced else None
    # Figures are checked by the caller (`complete`) against what was sent; here they pass as they came.
    return Reply(
        text=str(text),
        usage=Usage(_as_int(prompt), _as_int(completion), cost),
        finish_reason=str(getattr(choice, "finish_reason", "") or ""),
        model=str(getattr(response, "model", "") or name),
        alternatives=_alternatives(choice),
    )


def streamed_alternatives(chunk: Any) -> dict[str, float]:
    """The alternatives a stream chunk carries for its token ({} when it carries none)."""
    choices = getattr(chunk, "choices", None) or []
    return _alternatives(choices[0]) if choices else {}


def _alternatives(choice: Any) -> dict[str, float]:
    """The first token's alternatives as {token (stripped, lowercased): probability}; {} when absent."""
    logprobs = getattr(choice, "logprobs", None)
    content = getattr(logprobs, "content", None) if logprobs is not None else None
    if content is None and isinstance(logprobs, dict):
        content = logprobs.get("content")
    if not content:
        return {}
    first = content[0]
    top = getattr(first, "top_logprobs", None) if not isinstance(first, dict) else first.get("top_logprobs")
    out: dict[str, float] = {}
    for alt in top or []:
        token = alt.get("token") if isinstance(alt, dict) else getattr(alt, "token", None)
        value = alt.get("logprob") if isinstance(alt, dict) else getattr(alt, "logprob", None)
        if isinstance(token, str) and isinstance(value, int | float) and math.isfinite(value):
            key = token.strip().lower()
            out[key] = out.get(key, 0.0) + math.exp(value)
    return out


def _as_int(value: Any) -> int:
    """A usage figure as it came, for `wire.trusted` to judge (None and non-numbers are 0; a negative stays negative)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value) if math.isfinite(value) else -1


def _cost(response: Any) -> float | None:
    litellm = wire.quiet_litellm()
    try:
        return float(litellm.completion_cost(completion_response=response))
    except Exception:  # litellm raises for models it has no price for: cost unknown
        return None
