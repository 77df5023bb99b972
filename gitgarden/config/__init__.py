"""Settings: defaults, ranges, clamping, TOML files and environment overrides (`config.settings`),
and writing one setting into a TOML file without disturbing the rest (`config.files`).

Precedence: flag > `GITGARDEN_*` environment > project `.gitgarden/config.toml`
> user config file > default. May import wiki, errors and atomic.
"""

from __future__ import annotations

from gitgarden.config.files import unset_value, write_value
from gitgarden.config.settings import (
    LAYERS,
    SPECS,
    ConfigError,
    Resolved,
    Settings,
    Spec,
    clamp,
    did_you_mean,
    env_name,
    load_settings,
    parse_value,
    read_toml,
    state_dir,
    timer_env_file,
    user_config_path,
)

__all__ = [
    "Settings", "Spec", "SPECS", "Resolved", "load_settings", "user_config_path", "state_dir", "timer_env_file", "env_name",
    "parse_value", "read_toml", "write_value", "unset_value", "LAYERS", "did_you_mean", "clamp", "ConfigError",
]  # fmt: skip
