"""How fast an endpoint reads and writes, and the pass that fits it (issue: defaults that fit a CPU).

A model on a laptop CPU reads a prompt at tens of tokens a second: a prompt sized for a
hosted model takes it many minutes before the first reply token. Before the first pass
against an endpoint (and in `llm status`) one small streamed request measures the seconds
to the first token (the prompt's reading) and the reply's pace; the measure is kept per
endpoint and model in the state folder, and `fit` chooses the prompt size and the lines a
pass offers so each request fits `timeout` and the pass fits `seconds_budget` —
told in one line when it had to shrink anything.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from gitgarden.atomic import atomic_write
from gitgarden.config import Settings, state_dir

__all__ = ["Speed", "Fit", "PROBE_PROMPT", "cached", "remember", "measure", "fit", "describe"]

STALE_AFTER = timedelta(days=7)
# A prompt of a few hundred tokens: long enough that its reading time is the server's pace, not the
# request's overhead; short enough to cost seconds on a CPU. Its first words mark it (test servers answer it).
PROBE_PROMPT = "gitgarden speed probe: read these lines, then answer with a JSON object whose \"count\" counts from 1 to 20, separated by commas.\n" + "\n".join(
    f"{n}. The garden has a bed of herbs, a row of beans and a compost heap near the shed." for n in range(1, 9)
)
# The reply's shape, enforced as a pass's replies are: the pace includes what a grammar costs.
PROBE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"count": {"type": "string"}},
    "required": ["count"],
    "additionalProperties": False,
}
_REPLY_SHARE = 5  # a reply of a token or two times nothing: assume the ratio CPU servers show (75 read, 15 written)
_SAFETY = 0.8  # aim a fifth under the timeout: the measure is one sample on a machine that may be busy
# What a prompt holds besides its journal lines, and what a line costs, in tokens (estimates).
_FULL_OVERHEAD = 1500
_FULL_PER_LINE = 30
# Small mode asks one line a request after a fixed prefix the server keeps: it reads the prefix once
# and then only each line; it charges the whole prompt to the token budget, as the server counts it.
_JUDGE_PREFIX = 330
_JUDGE_PER_LINE = 40
_JUDGE_REQUEST_S = 0.3  # a request's own cost on a local server (HTTP, sampling one token)
_MIN_WINDOW = 1024
_MIN_REPLY = 256


@dataclass(frozen=True)
class Speed:
    """An endpoint's measured pace: prompt tokens read a second, reply tokens written a second."""

    prompt_tps: float
    reply_tps: float
    first_token_s: float
    measured: str  # ISO time of the measure
    # Small mode: the score between this model's facts and chatter, measured on labelled lines
    # (`model.judge.CALIBRATION`); None until measured.
    threshold: float | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Fit:
    """The settings a pass runs with on this endpoint, and the one line that says what was shrunk
    ('' when nothing was)."""

    settings: Settings
    sentence: str
    said: str = ""  # what the pass offers, in words (`passes offer 20 lines, one a request`), shrunk or not


def _path(env: Mapping[str, str]) -> Path:
    return state_dir(env) / "speed.json"


def _key(settings: Settings) -> str:
    return f"{settings.api_base or settings.model.partition('/')[0]}|{settings.model}"


def _load(env: Mapping[str, str]) -> dict[str, Any]:
    try:
        data = json.loads(_path(env).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cached(settings: Settings, env: Mapping[str, str], now: datetime) -> Speed | None:
    """The endpoint's measure when one younger than a week is kept, else None."""
    row = _load(env).get(_key(settings))
    if not isinstance(row, dict):
        return None
    try:
        limit = row.get("threshold")
        speed = Speed(
            float(row["prompt_tps"]), float(row["reply_tps"]), float(row["first_token_s"]), str(row["measured"]),
            float(limit) if isinstance(limit, int | float) and 0 < limit < 1 else None,
        )  # fmt: skip
        when = datetime.fromisoformat(speed.measured)
    except (KeyError, TypeError, ValueError):
        return None
    if speed.prompt_tps <= 0 or speed.reply_tps <= 0 or not now - STALE_AFTER <= when <= now + timedelta(days=1):
        return None
    return speed


def remember(settings: Settings, env: Mapping[str, str], speed: Speed) -> None:
    """Keep the measure for this endpoint and model (machine-local: another machine measures its own)."""
    data = _load(env)
    data[_key(settings)] = speed.to_json()
    path = _path(env)
    try:
        # A cache measured again when lost: no folder sync; passes of two projects may write it at once.
        text = json.dumps(data, indent=1, sort_keys=True) + "\n"
        atomic_write(path, text, tmp=path.with_name(f".{path.name}.{os.getpid()}.gitgarden-tmp"), durable=False)
    except OSError:
        pass  # a measure not kept is measured again next time


def measure(model: Any, settings: Settings, now: datetime) -> Speed:
    """One small streamed request's pace (ModelError when the endpoint cannot be reached, or is too slow
    to send a first token within `timeout`)."""
    first, total, prompt_tokens, reply_tokens = model.measure_speed(PROBE_PROMPT, float(settings.timeout), PROBE_SCHEMA)
    prompt_tps = prompt_tokens / max(first, 0.01)
    writing = total - first
    reply_tps = (reply_tokens - 1) / writing if reply_tokens > 3 and writing > 0.05 else prompt_tps / _REPLY_SHARE
    return Speed(round(prompt_tps, 1), round(max(reply_tps, 0.1), 1), round(first, 2), now.isoformat())


def fit(settings: Settings, speed: Speed, mode: str) -> Fit:
    """The settings (context_window, max_output_tokens, max_lines) that let each request finish within
    `timeout` and the pass within `seconds_budget` at this pace."""
    room = settings.timeout * _SAFETY
    ps, rs = speed.prompt_tps, speed.reply_tps
    if mode == "small":
        per_line = _JUDGE_PER_LINE / ps + 1 / rs + _JUDGE_REQUEST_S
        fixed = _JUDGE_PREFIX / ps
        # The token budget is not fitted here: where it runs out, the lines not judged yet stay
        # unread with that reason and the next pass takes them.
        lines = max(1, min(settings.max_lines, math.floor((settings.seconds_budget * _SAFETY - fixed) / per_line)))
        new = replace(settings, max_lines=lines)
        said = f"passes offer {lines} lines, one a request"
        return Fit(new, _sentence(speed, said) if lines < settings.max_lines else "", said)
    reply = settings.max_output_tokens
    if reply / rs > room / 2:
        reply = max(_MIN_REPLY, math.floor(rs * room / 2))
    prompt = max(0.0, (room - reply / rs) * ps)
    # The full mode's rules take about 1,000 tokens before any line: a prompt smaller than that and
    # ten lines is no prompt at all, however slow the server.
    least = reply + _FULL_OVERHEAD + 10 * _FULL_PER_LINE
    window = min(settings.context_window, max(least, _MIN_WINDOW, math.floor(prompt + reply)))
    lines = settings.max_lines  # a window left as it was: the prompt's own budget decides how many lines it holds
    if window < settings.context_window:
        lines = max(1, min(settings.max_lines, math.floor((window - reply - _FULL_OVERHEAD) / _FULL_PER_LINE)))
    new = replace(settings, context_window=window, max_output_tokens=min(settings.max_output_tokens, reply), max_lines=lines)
    shrunk = window < settings.context_window or lines < settings.max_lines
    said = f"passes offer {lines} lines in a prompt of about {window - reply:,} tokens"
    needs = (window - reply) / ps + reply / rs
    if needs > settings.timeout:
        said += f"; even that needs about {needs:,.0f} s, over timeout {settings.timeout} s: mode = small suits this model"
    return Fit(new, _sentence(speed, said) if shrunk else "", said)


def _sentence(speed: Speed, said: str) -> str:
    return (
        f"this model reads about {speed.prompt_tps:,.0f} prompt tokens a second and writes about "
        f"{speed.reply_tps:,.0f}: {said} (measured {speed.measured[:10]}; `gitgarden llm status` measures again)"
    )


def describe(speed: Speed) -> str:
    """`reads about 40 prompt tokens a second, writes about 8 (first token after 5.1 s)`."""
    return (
        f"reads about {speed.prompt_tps:,.0f} prompt tokens a second, writes about {speed.reply_tps:,.0f} "
        f"(first token after {speed.first_token_s:.1f} s; measured {speed.measured[:16].replace('T', ' ')})"
    )
