"""`gitgarden llm status`: what is configured, where requests go, whether a key is sent, the mode and
why, and — with a probe — whether the endpoint answers and how fast it reads and writes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.model import speed
from gitgarden.model.provider import (
    LiteLLMModel,
    choose_mode,
    endpoint_of,
    key_decision,
    key_source,
    structured_output_mode,
)

__all__ = ["status"]


def status(settings: Settings, env: Mapping[str, str], *, probe: bool, now: datetime | None = None) -> dict[str, Any]:
    """What is configured, where requests go, whether a key is sent, and — with `probe` — whether it answers.

    Without `probe` this is free (no litellm import). With it, one tiny request
    is made; `reachable` is then True or False, and None when not established.
    """
    key, withheld = key_decision(settings, env)
    configured = bool(settings.model.strip())
    found, source = key_source(settings, env)
    info: dict[str, Any] = {
        "configured": configured,
        "reachable": None,
        "model": settings.model or None,
        "endpoint": endpoint_of(settings) if configured else None,
        "context_window": settings.context_window,
        "structured_output": structured_output_mode(settings),
        "mode": choose_mode(settings)[0] if configured else None,
        "mode_why": choose_mode(settings)[1] if configured else None,
        "api_key": "sent" if key else ("withheld" if found else "none"),
        "api_key_source": source or None,
        "api_key_withheld": withheld,
        "error": None,
        "error_kind": None,
    }

    now = now or datetime.now(UTC)
    pace = speed.cached(settings, env, now) if configured else None
    if probe and configured:
        model = LiteLLMModel(settings, env)
        try:
            model.probe()
            pace = speed.measure(model, settings, now)  # each status measures again: the machine may be busier
            speed.remember(settings, env, pace)
        except ModelError as exc:
            info["reachable"] = False
            info["error"] = str(exc)
            info["error_kind"] = exc.kind
        else:
            info["reachable"] = True
    info["speed"] = pace.to_json() if pace else None
    info["speed_said"] = speed.describe(pace) if pace else None
    info["fit"] = None
    if pace:
        fitted = speed.fit(settings, pace, info["mode"])
        info["fit"] = fitted.said if fitted.sentence else (
            f"passes offer up to {settings.max_lines} lines, as configured: the endpoint keeps up with timeout {settings.timeout} s"
        )
    return info
