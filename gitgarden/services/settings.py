"""Changing a setting, as `gitgarden config set` and the web app's settings form both do it: the
same checks, the same file, the same value read back.

flag > GITGARDEN_* environment > the project's `.gitgarden/config.toml` > the user config file >
defaults. A value is checked before anything is written: an unknown key, a value of the wrong type,
out of its range or not one of its choices, a key an environment variable overrides (it would never
be read), a key that may not live in the chosen file, and an endpoint a key must not travel to are
refused with one line, and no file changes. A value that looks like an API key is refused without
being repeated: keys are stored with `gitgarden keys set`, never as a setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from gitgarden.config import (
    SPECS,
    Settings,
    Spec,
    clamp,
    did_you_mean,
    env_name,
    load_settings,
    parse_value,
    read_toml,
    user_config_path,
    write_value,
)
from gitgarden.errors import ConfigError
from gitgarden.model import keys
from gitgarden.model.endpoints import endpoint_of, is_local, key_decision, key_source, provider_of
from gitgarden.project import check_on_disk
from gitgarden.wiki.layout import check_layout_value, from_table

__all__ = [
    "SCOPES", "SetReport", "spec_of", "setting_path", "check_setting", "set_setting", "check_endpoint",
    "key_names", "key_lookup_name", "where_the_key_goes", "store_key",
]  # fmt: skip

SCOPES = ("project", "user")


def spec_of(key: str) -> Spec:
    """The setting `key` names; ConfigError (with a near name) for one that is not a setting."""
    for spec in SPECS:
        if spec.key == key:
            return spec
    if key == "api_key":
        raise ConfigError("unknown setting 'api_key': keys are not settings; store one with `gitgarden keys set NAME`")
    raise ConfigError(f"unknown setting {key!r}{did_you_mean(key) or ' (see `gitgarden config list`)'}")


def setting_path(scope: str, root: Path | None, env: Mapping[str, str]) -> Path:
    """The file a `scope` setting is written to: the project's `.gitgarden/config.toml`, or the user file."""
    if scope == "project" and root is not None:
        return root / ".gitgarden" / "config.toml"
    return user_config_path(env)


@dataclass(frozen=True)
class SetReport:
    """What `config set` did: the file, whether it was rewritten, the value read back, and what applies here."""

    path: Path
    changed: bool
    value: Any
    effective: Any
    source: str


def check_endpoint(raw: str) -> str:
    """`raw` when it can be an api_base a key may be sent to, else ConfigError (nothing written).

    An endpoint is an http(s) URL with a host. It carries no user or password (a URL holding one
    sends a secret with every request, to wherever the URL leads, and shows it wherever the
    setting is shown), no query or fragment, no space or control character. Empty: no endpoint.
    """
    text = raw.strip()
    if not text:
        return ""
    if keys.looks_like_a_key(text):
        raise ConfigError("api_base looks like an API key, not an endpoint: nothing written (store a key with `gitgarden keys set NAME`)")
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in text):
        raise ConfigError("api_base is one URL without spaces or line breaks, e.g. http://127.0.0.1:8080/v1; nothing written")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise ConfigError("api_base is not a URL (its port is not a number), e.g. http://127.0.0.1:8080/v1; nothing written") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError("api_base must be an http:// or https:// URL with a host, e.g. http://127.0.0.1:8080/v1; nothing written")
    if parts.username is not None or parts.password is not None:
        raise ConfigError(
            "api_base must not hold a user or password (user:secret@host): it would go with every request and show wherever "
            "the setting is shown; store the key with `gitgarden keys set NAME` instead; nothing written"
        )
    if parts.query or parts.fragment:
        raise ConfigError("api_base is the endpoint alone, without ?query or #fragment; nothing written")
    return text


def check_setting(key: str, raw: str, *, scope: str, path: Path, env: Mapping[str, str], root: Path | None) -> Any:
    """`raw` checked and converted for `key` in a `scope` file at `path`; ConfigError, nothing written, otherwise.

    Refused: an unknown key; a value of the wrong type or out of range (with the range); a key whose
    environment variable is set (it would never be read); a key that may not live in a project
    file; a layout setting outside a project; an api_base a key must not go to; a value that looks
    like an API key (never repeated in the message).
    """
    spec = spec_of(key)
    var = env_name(key)
    if key != "api_base" and keys.looks_like_a_key(raw.strip()):  # api_base says so in its own words
        raise ConfigError(f"that value of {key} looks like an API key: nothing written (store a key with `gitgarden keys set NAME`)")
    if spec.project_only:
        _check_layout_setting(key, raw, scope=scope, path=path, root=root)
    elif env.get(var, "") != "":
        raise ConfigError(f"{var} is set in the environment and overrides any file: unset it (or change it there) instead")
    if scope == "project" and not spec.project_ok:
        raise ConfigError(f"{key} never goes in a project file ({spec.not_in_project}): use `gitgarden config set --user {key} {raw}`")
    if key == "api_base":
        raw = check_endpoint(raw)
    value = parse_value(key, raw, where="gitgarden config set")
    if spec.project_only:
        from gitgarden.wiki.layout import check_layout_value

        value = check_layout_value(key, value, where="gitgarden config set")
    if clamp(key, value)[1] is not None:
        if spec.choices:
            raise ConfigError(f"{key} must be one of {', '.join(spec.choices)}; {raw} refused (nothing written)")
        raise ConfigError(f"{key} must be within {spec.type(spec.lo)}–{spec.type(spec.hi)}; {raw} refused (nothing written)")
    return value


def set_setting(path: Path, key: str, raw: str, *, scope: str, env: Mapping[str, str], root: Path | None) -> SetReport:
    """Check and write `key = raw` into `path` (a `scope` file), then read it back (see `check_setting`)."""
    value = check_setting(key, raw, scope=scope, path=path, env=env, root=root)
    changed = write_value(path, key, value)
    back = parse_value(key, read_toml(path)[key], where=str(path))
    resolved = load_settings(root, env=env)
    return SetReport(path, changed, back, getattr(resolved.settings, key), resolved.sources[key])


def _check_layout_setting(key: str, raw: str, *, scope: str, path: Path, root: Path | None) -> None:
    """Refuse (ConfigError, nothing written) a layout setting outside a project, one that names
    a wiki folder that does not exist, or one that leaves the two folders clashing."""
    if scope != "project" or root is None:
        raise ConfigError(f"{key} is a project's own setting (a fact of the project, the same on every machine): run `gitgarden config set {key} …` inside the project, without --user")
    value = check_layout_value(key, raw, where="gitgarden config set")
    table = {**read_toml(path), key: value}
    check_on_disk(from_table(table, where="gitgarden config set"), root, where="gitgarden config set")
    if key == "wiki_dir" and value != "." and not (root / value).is_dir():
        raise ConfigError(f"wiki_dir {value!r}: there is no such folder in {root}; make it (or move your notes there) first")


def key_names(env: Mapping[str, str]) -> list[str]:
    """The names of the stored keys (never the keys); ConfigError when the keys file is malformed."""
    return sorted(keys.stored_keys(env))


def key_lookup_name(settings: Settings) -> str:
    """The name a stored key is looked up by: `api_key_name`, else (with no api_base, so it can go
    nowhere but its provider) the model's provider; '' when there is none."""
    return settings.api_key_name or ("" if settings.api_base else provider_of(settings.model))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def where_the_key_goes(settings: Settings, env: Mapping[str, str]) -> str:
    """In one sentence, what the settings now do with a configured key when that needs saying: withheld
    (and why), or sent over plain http to another machine; '' otherwise."""
    withheld = key_decision(settings, env)[1]
    if withheld:
        return _sentence(withheld)
    if settings.api_base.startswith("http://") and settings.model and not is_local(settings) and key_source(settings, env)[0]:
        return f"Careful: {endpoint_of(settings)} is plain http on another machine, so the key travels unencrypted."
    return ""


def store_key(name: str, secret: str, settings: Settings, env: Mapping[str, str]) -> str:
    """`gitgarden keys set NAME` with `secret`: stored in the user's config folder; what was done and
    whether the model uses it, in words. ConfigError (never holding the key) when it is refused."""
    try:
        path = keys.set_key(name.strip(), secret, env)
    except ConfigError as exc:
        said = str(exc).replace(secret.strip(), "[the key]") if secret.strip() else str(exc)
        raise ConfigError(said) from None
    uses = key_lookup_name(settings)
    if not settings.model:
        tail = "No model is configured yet: set one above."
    elif uses == name.strip():
        tail = where_the_key_goes(settings, env) if key_decision(settings, env)[1] else f"The model {settings.model} uses it: it is sent to {endpoint_of(settings)} only."
    else:
        tail = f"The model {settings.model} uses {'the key ' + repr(uses) if uses else 'no stored key'} (api_key_name), not this one."
    return f"Stored the key {name.strip()!r} in {path}. {tail}"

