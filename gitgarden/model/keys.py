"""Stored API keys, the way `llm keys` keeps them: one JSON file in the user's config folder.

`keys.json` sits next to the user config file (`GITGARDEN_CONFIG`'s folder,
else `$XDG_CONFIG_HOME/gitgarden`), mode 0600, and never inside a gitgarden
project: a project is committed and shared, a key is not. The file maps a name
(`openai`, `work`) to a key. This module stores and finds keys; where a key may
be sent is decided in `gitgarden.llm`, as for a key from the environment.
A key is never printed, logged or put in an error message here.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from gitgarden.atomic import atomic_write
from gitgarden.config import user_config_path
from gitgarden.errors import ConfigError, NotAProject
from gitgarden.project import find_project

__all__ = ["keys_path", "stored_keys", "stored_key", "set_key", "unset_key", "check_name", "looks_like_a_key"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def keys_path(env: Mapping[str, str] | None = None) -> Path:
    """Where stored keys live: `keys.json` in the user config file's folder."""
    return user_config_path(env).parent / "keys.json"


def check_name(name: str) -> str:
    """`name` when it is a usable key name (letters, digits, `_.-`), else ConfigError (which never
    repeats the text: it may be a key typed in the wrong place)."""
    if not _NAME.match(name) or looks_like_a_key(name):
        raise ConfigError("that is not a key name: use letters, digits, '_', '.' or '-' (e.g. openai)")
    return name


_KEY_PREFIXES = ("sk-", "sk_", "gsk_", "pk-", "rk-", "ghp_", "gho_", "github_pat_", "xoxb-", "xoxp-", "AKIA", "AIza", "glpat-", "hf_")


def looks_like_a_key(text: str) -> bool:
    """True when `text` looks like an API key rather than a name (a provider's key prefix, or 32 or
    more letters and digits in one run): such a text is refused, never stored as a name or shown."""
    if text.startswith(_KEY_PREFIXES):
        return True
    return len(text) >= 32 and text.isalnum() and any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def stored_keys(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every stored key by name ({} when there is no file); ConfigError naming the file when it is malformed."""
    path = keys_path(env)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        # The message names the line only: json's message could quote part of a key.
        raise ConfigError(f"{path}: malformed JSON at line {exc.lineno}") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ConfigError(f"{path}: malformed: expected {{\"name\": \"key\", …}}")
    return data


def stored_key(name: str, env: Mapping[str, str] | None = None) -> str:
    """The key stored as `name`, '' when there is none (or no readable file: a pass then runs without it)."""
    if not name:
        return ""
    with contextlib.suppress(ConfigError):
        return stored_keys(env).get(name, "")
    return ""


def _refuse_inside_a_project(path: Path) -> None:
    folder = path.parent.expanduser().absolute()
    with contextlib.suppress(NotAProject, OSError):
        root = find_project(folder).root
        raise ConfigError(
            f"{path} is inside the gitgarden project {root}: keys are never stored in a project "
            "(it would be committed); point GITGARDEN_CONFIG elsewhere"
        )


def _write(path: Path, keys: Mapping[str, str]) -> None:
    """Replace the file atomically; the new file is 0600 from its first byte."""
    _refuse_inside_a_project(path)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    text = json.dumps(dict(sorted(keys.items())), indent=2) + "\n"
    atomic_write(path, text, mode=0o600, tmp=path.with_name(f".{path.name}.{os.getpid()}.gitgarden-tmp"))


def set_key(name: str, key: str, env: Mapping[str, str] | None = None) -> Path:
    """Store `key` as `name` (replacing any earlier one); the file's path."""
    check_name(name)
    key = key.strip()
    if not key:
        raise ConfigError("no key given: nothing stored")
    if any(c.isspace() for c in key):
        raise ConfigError("a key has no spaces or line breaks: nothing stored (paste the key alone)")
    path = keys_path(env)
    keys = stored_keys(env)
    keys[name] = key
    _write(path, keys)
    return path


def unset_key(name: str, env: Mapping[str, str] | None = None) -> bool:
    """Forget the key stored as `name`; False when there was none."""
    keys = stored_keys(env)
    if name not in keys:
        return False
    del keys[name]
    _write(keys_path(env), keys)
    return True
