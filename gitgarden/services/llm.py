"""The model as `gitgarden llm status` and the web app's settings page show it: what is configured,
where the key comes from and whether it is sent (never the key), the endpoint's measured pace, and —
when asked, with one small call — whether it answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from gitgarden.config import Settings
from gitgarden.model import provider
from gitgarden.model import status as model_status

__all__ = ["llm_status"]


def llm_status(settings: Settings, env: Mapping[str, str], *, probe: bool, now: datetime) -> dict[str, Any]:
    """The model's status (`probe`: make the one tiny call that checks reachability). The key never
    appears in it, even inside an endpoint's error message that quoted it."""
    data = model_status.status(settings, env, probe=probe, now=now)
    key = provider.key_source(settings, env)[0]
    if key:
        data = {k: v.replace(key, "[the key]") if isinstance(v, str) else v for k, v in data.items()}
    return data
