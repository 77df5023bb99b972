"""Writing one setting into a TOML file (`gitgarden config set`/`unset`, the web settings page):
only the key's own line changes, so the person's comments and layout stay, and the result is
parsed back before it replaces the file.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from gitgarden.atomic import atomic_write
from gitgarden.config.settings import parse_value, read_toml
from gitgarden.errors import ConfigError

__all__ = ["unset_value", "write_value"]


def _key_line(lines: list[str], key: str) -> int | None:
    """Index of the top-level `key = …` line, or None."""
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for i, line in enumerate(lines):
        if line.lstrip().startswith("["):
            return None  # past the top-level table
        if pattern.match(line):
            return i
    return None


def _replace_file(path: Path, text: str) -> None:
    atomic_write(path, text)


def write_value(path: Path, key: str, value: Any) -> bool:
    """Set `key` in a TOML file; False (file untouched) when it already holds that value.

    Only the key's own line changes (or one line is added), so the person's
    comments and layout stay; the result is parsed back before it replaces the file.
    """
    import tomli_w  # only a write needs it: every command reads settings

    table = read_toml(path)
    if key in table and parse_value(key, table[key], where=str(path)) == value:
        return False
    if isinstance(value, tuple | list):
        import json

        # One line, as a person writes it (tomli_w spreads a list of two over four lines); a JSON
        # string is a TOML basic string.
        rendered = f"{key} = [{', '.join(json.dumps(str(v), ensure_ascii=False) for v in value)}]"
    else:
        rendered = tomli_w.dumps({key: value}).strip()
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    lines = text.splitlines(keepends=True)
    at = _key_line(lines, key)
    if at is not None:
        lines[at] = rendered + "\n"
    else:
        first_table = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("[")), len(lines))
        if first_table == len(lines) and lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        lines.insert(first_table, rendered + "\n")
    new_text = "".join(lines)
    try:
        ok = parse_value(key, tomllib.loads(new_text).get(key), where=str(path)) == value
    except (tomllib.TOMLDecodeError, ConfigError):
        ok = False
    if not ok:  # a multi-line value or an odd layout: rewrite the table whole rather than break it
        table[key] = list(value) if isinstance(value, tuple) else value
        new_text = tomli_w.dumps(table)
    _replace_file(path, new_text)
    return True


def unset_value(path: Path, key: str) -> bool:
    """Remove `key` from a TOML file; False when it was not there. Other lines stay as they are."""
    import tomli_w

    table = read_toml(path)
    if key not in table:
        return False
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = _key_line(lines, key)
    new_text = "".join(lines[:at] + lines[at + 1 :]) if at is not None else ""
    try:
        ok = at is not None and key not in tomllib.loads(new_text)
    except tomllib.TOMLDecodeError:
        ok = False
    if not ok:
        del table[key]
        new_text = tomli_w.dumps(table)
    _replace_file(path, new_text)
    return True
