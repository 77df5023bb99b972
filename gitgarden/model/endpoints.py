"""Where a model's requests go and in what form — settings in, decisions out, no litellm: which
provider a model string names, whether the key may go with a request (`key_decision`), the
structured-output form an endpoint takes (`response_format`, `wire_schema`), whether the endpoint
is on this machine or network (`is_local`), and the mode a pass uses the model in (`choose_mode`).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from gitgarden.config import Settings
from gitgarden.model import inprocess, keys

__all__ = [
    "HOSTED_PROVIDERS",
    "OLLAMA",
    "NO_KEY",
    "SMALL_WINDOW",
    "provider_of",
    "redirect_vars",
    "key_source",
    "key_decision",
    "structured_output_mode",
    "wire_schema",
    "response_format",
    "is_local",
    "choose_mode",
    "endpoint_of",
]

# Hosted providers a key may go to without an api_base, and the structured-output
# form each accepts through litellm. Short on purpose: a provider not named here
# gets no key unless the person names its endpoint.
HOSTED_PROVIDERS: dict[str, str] = {
    "openai": "json_schema",
    "anthropic": "json_schema",
    "gemini": "json_schema",
    "xai": "json_schema",
    "mistral": "json_object",
    "groq": "json_object",
    "deepseek": "json_object",
    "openrouter": "prompt",  # depends on the routed model: rely on the prompt alone
}
# litellm turns a json_schema response_format into Ollama's `format` field.
OLLAMA = ("ollama_chat", "ollama")

# litellm's openai provider refuses to run without some key, and would otherwise
# fall back to OPENAI_API_KEY from the environment and send *that* to the
# endpoint. This placeholder is not a secret.
NO_KEY = "no-key"

def provider_of(model: str) -> str:
    """The litellm provider a model string names (`openai/gemma` -> `openai`); '' when it names none."""
    head, sep, _ = model.partition("/")
    return head.strip().lower() if sep else ""


def redirect_vars(provider: str) -> tuple[str, ...]:
    """Environment variables litellm reads to send a provider's requests to another host."""
    up = provider.upper()
    return (f"{up}_API_BASE", f"{up}_BASE_URL")


def key_source(settings: Settings, env: Mapping[str, str]) -> tuple[str, str]:
    """(the configured key or '', where it comes from in words, never the key itself).

    `GITGARDEN_API_KEY`, then the variable `api_key_env` names, then a key stored
    with `gitgarden keys set`: the one `api_key_name` names, else — only when no
    api_base is set, so it can go nowhere but its provider — the one named after
    the model's provider (`openai/…` -> `openai`), as `llm` users expect.
    """
    if env.get("GITGARDEN_API_KEY"):
        return env["GITGARDEN_API_KEY"], "the environment (GITGARDEN_API_KEY)"
    if env.get(settings.api_key_env):
        return env[settings.api_key_env], f"the environment ({settings.api_key_env})"

    name = settings.api_key_name or ("" if settings.api_base else provider_of(settings.model))
    stored = keys.stored_key(name, env)
    return (stored, f"the stored key {name!r} (gitgarden keys)") if stored else ("", "")


def key_decision(settings: Settings, env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(the key to send or None, a sentence saying why a configured key is withheld, or None).

    The key goes to the configured api_base, or — with no api_base — to a hosted
    provider named by the model string. A provider's own base-URL variable
    (OPENAI_BASE_URL and friends) would silently send it elsewhere, so it
    withholds the key too; litellm reads those from the process environment,
    hence both `env` and `os.environ` are looked at.
    """
    key = key_source(settings, env)[0] or None
    if key is None:
        return None, None
    if not settings.model:
        return None, "the API key is not used: no model is configured"
    if provider_of(settings.model) == inprocess.PROVIDER:
        return None, None  # the model runs in this process: a key has nowhere to go
    if settings.api_base and settings.api_base_source == "project":
        return None, (
            "the API key is withheld: api_base comes from the project's committed .gitgarden/config.toml; "
            "set it in your user config or GITGARDEN_API_BASE to send the key there"
        )
    if settings.api_base:
        return key, None
    provider = provider_of(settings.model)
    if provider not in HOSTED_PROVIDERS:
        known = ", ".join(f"{p}/" for p in HOSTED_PROVIDERS)
        return None, (
            f"the API key is withheld: model {settings.model!r} names no hosted provider gitgarden sends keys to "
            f"({known}) and no api_base is set; set api_base (GITGARDEN_API_BASE) to the endpoint that should receive it"
        )
    for var in redirect_vars(provider):
        if env.get(var) or os.environ.get(var):
            return None, (
                f"the API key is withheld: {var} is set and would send {provider}/ requests to another host; "
                f"set api_base (GITGARDEN_API_BASE) to that endpoint if it should receive the key"
            )
    return key, None


def structured_output_mode(settings: Settings) -> str:
    """How the reply's shape is enforced: "json_schema", "json_object" or "prompt" (the prompt alone)."""
    provider = provider_of(settings.model)
    if (provider == "openai" and settings.api_base) or provider == inprocess.PROVIDER:
        return "json_object"  # llama.cpp, served or in-process: json_object + schema, enforced by a grammar
    if provider in OLLAMA:
        return "json_schema"
    return HOSTED_PROVIDERS.get(provider, "prompt")


_WIRE_DROP = frozenset({"$schema", "title", "maxLength", "minLength"})


def wire_schema(node: Any, *, names: bool = False) -> Any:
    """The reply schema as endpoints can take it; the code still validates the full schema.

    llama.cpp turns the schema into a grammar: `maxLength: 20000` there becomes
    twenty thousand nested rules (the server drops the connection), and `\\d`
    in a pattern becomes a literal "\\d". So lengths are left to the code's
    check, `\\d` is spelled `[0-9]`, and meta keys some providers reject go.
    `names` marks a `properties` table, whose keys are field names, not keywords.
    """
    if isinstance(node, list):
        return [wire_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if names:
            out[key] = wire_schema(value)
        elif key in _WIRE_DROP:
            continue
        elif key == "pattern" and isinstance(value, str):
            out[key] = value.replace("\\d", "[0-9]")
        else:
            out[key] = wire_schema(value, names=key == "properties")
    return out


def response_format(settings: Settings, schema: Mapping[str, Any]) -> dict[str, Any] | None:
    mode = structured_output_mode(settings)
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "operations", "schema": wire_schema(schema)}}
    if mode == "json_object":
        if (provider_of(settings.model) == "openai" and settings.api_base) or provider_of(settings.model) == inprocess.PROVIDER:
            return {"type": "json_object", "schema": wire_schema(schema)}
        return {"type": "json_object"}
    return None


def is_local(settings: Settings) -> bool:
    """True when requests stay on this machine or a private network: cost is then unknown, not priced."""
    if provider_of(settings.model) in (*OLLAMA, inprocess.PROVIDER) and not settings.api_base:
        return True
    if not settings.api_base:
        return False
    host = (urlsplit(settings.api_base).hostname or "").lower()
    if host in ("localhost", "") or host.endswith(".local") or host.endswith(".localhost"):
        return True
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return False
    return addr.is_loopback or addr.is_private or addr.is_link_local


SMALL_WINDOW = 16_000  # a context window someone set under this: the model is small (mode = auto)


def choose_mode(settings: Settings) -> tuple[str, str]:
    """("small" or "full", why in words): how a pass uses the model.

    `mode = small|full` is taken as set. `auto` picks small for a local endpoint (ollama, llama.cpp,
    LM Studio, any api_base on loopback or a private network: most likely a small model on a CPU)
    and for a context_window under 16,000 that someone set (the default 8,192 is a guess, not a fact
    about the model); full otherwise.
    """
    if settings.mode in ("small", "full"):
        return settings.mode, f"mode = {settings.mode}"
    if provider_of(settings.model) == inprocess.PROVIDER:
        return "small", "auto: the model runs in this process"
    if settings.model and is_local(settings):
        return "small", f"auto: {endpoint_of(settings)} is a local endpoint"
    if settings.context_window_source != "default" and settings.context_window < SMALL_WINDOW:
        return "small", f"auto: context_window {settings.context_window:,} is under {SMALL_WINDOW:,}"
    return "full", "auto: a hosted endpoint" + (
        f" and context_window {settings.context_window:,}" if settings.context_window_source != "default" else ""
    )


def endpoint_of(settings: Settings) -> str:
    """Where requests go, in words."""
    if settings.api_base:
        return settings.api_base
    provider = provider_of(settings.model)
    if provider == inprocess.PROVIDER:
        return inprocess.describe(settings.model)
    if provider in OLLAMA:
        return "http://localhost:11434 (litellm's default for Ollama)"
    if provider:
        return f"the {provider} API (litellm's default endpoint)"
    return "litellm's default endpoint for this model"
