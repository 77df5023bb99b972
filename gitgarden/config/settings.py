"""Settings: defaults, ranges, clamping, TOML files and environment overrides.

Precedence: flag > `GITGARDEN_*` environment > project `.gitgarden/config.toml`
> user config file > default. Out-of-range numbers in a file are clamped with a
warning, never rejected: a stricter reader would take the off switch down with
the bad value. The API key is never read from a project file.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from datetime import date
from pathlib import Path
from typing import Any

from gitgarden.errors import ConfigError

__all__ = [
    "Settings",
    "Spec",
    "SPECS",
    "Resolved",
    "load_settings",
    "user_config_path",
    "state_dir",
    "timer_env_file",
    "env_name",
    "parse_value",
    "read_toml",
    "LAYERS",
    "did_you_mean",
]

LAYERS = ("flag", "env", "project", "user", "default")


@dataclass(frozen=True)
class Spec:
    """One setting: its type, default, allowed range and meaning."""

    key: str
    type: type
    default: Any
    help: str
    lo: float | None = None
    hi: float | None = None
    project_ok: bool = True  # False: may not live in a project file (it would be committed)
    choices: tuple[str, ...] = ()  # the values a text setting takes; another falls back to the default
    # Why a project file may not hold it, in words (shown when one does, and by `config set`).
    not_in_project: str = ""
    project_only: bool = False  # True: read from the project file alone (the project's layout)


# Why some settings are read from the environment and the user file only.
_KEY_ONLY = "keys never live in a project file (it would be committed)"
_MACHINE_ONLY = "it belongs to this machine's tick, which looks at every project at once"
_COMMAND_ONLY = "a committed file must not choose a command this machine runs"
# Why the layout is read from the project file alone.
_PROJECT_ONLY = "where a project's wiki and journal live is a fact of that project, the same on every machine"


SPECS: tuple[Spec, ...] = (
    Spec("model", str, "", "litellm model string (openai/…, ollama_chat/…, anthropic/…; local/gemma3-270m runs in-process); empty: no model"),
    Spec("api_base", str, "", "the model endpoint; the API key is sent only here"),
    Spec("api_key_env", str, "GITGARDEN_API_KEY", "name of the environment variable holding the API key", project_ok=False, not_in_project=_KEY_ONLY),
    Spec("api_key_name", str, "", "the key stored with `gitgarden keys set NAME` the model uses (empty: the model's provider, e.g. openai)", project_ok=False, not_in_project=_KEY_ONLY),
    Spec(
        "mode",
        str,
        "auto",
        "how the model is used: small (it judges each line, code finds its page and writes it), full (it writes operations) or auto "
        "(small for a local endpoint or a context_window under 16,000 you set, full otherwise)",
        choices=("auto", "small", "full"),
    ),
    Spec("context_window", int, 8192, "tokens the model's context holds", 512, 10_000_000),
    Spec("token_budget", int, 60_000, "tokens a pass may spend in all its model calls", 0, 100_000_000),
    Spec("seconds_budget", int, 900, "seconds a pass may spend in model calls", 1, 86_400),
    Spec("max_output_tokens", int, 2048, "tokens one reply may take", 16, 1_000_000),
    Spec("temperature", float, 0.2, "model temperature", 0.0, 2.0),
    Spec("timeout", int, 120, "seconds one model request may take", 1, 3600),
    Spec("num_retries", int, 1, "retries of a failed model request", 0, 10),
    Spec("enabled", bool, True, "the periodic pass (tick) runs this project at all"),
    Spec("interval_min", int, 30, "how often a tick looks for work (minutes; this machine's tick, not one project)", 1, 1440, project_ok=False, not_in_project=_MACHINE_ONLY),
    Spec("idle_min", int, 30, "silence required in the project before a pass (minutes)", 0, 1440),
    Spec("min_hours_between_passes", float, 6.0, "distance before the same project again (hours, from attempts)", 0, 8760),
    Spec("max_lines", int, 200, "unread journal lines read by one pass", 1, 200),
    Spec("chat_window_chars", int, 6000, "characters of recent conversation the model sees", 0, 200_000),
    Spec("grounding_min", float, 0.6, "share of a written sentence's content words found in its cited lines (0 turns the rule off)", 0.0, 1.0),
    Spec("repair_rounds", int, 1, "follow-ups that show the model its refused operations and ask for corrections (0 turns them off)", 0, 3),
    Spec("author", str, "gitgarden <gitgarden@localhost>", "the pass commits' author and committer"),
    Spec("identity_files", list, [], "extra files (inside the project, or named by the person) shown to the model"),
    Spec("review", bool, False, "commit passes to the branch gitgarden/review instead of the current branch"),
    Spec("notify_command", str, "", "command run with the message from the fourth failed pass in a row, at every failure after it", project_ok=False, not_in_project=_COMMAND_ONLY),
    Spec("git_timeout", int, 300, "seconds one git command may take before the pass stops it", 1, 86_400),
    Spec(
        "sign_commits",
        bool,
        True,
        "gitgarden's commits follow commit.gpgsign; false: never signed (when signing cannot work unattended)",
        project_ok=False,  # signing is the person's policy: a shared project file must not turn it off
    ),
    Spec("max_person_pages", int, 3, "the person's pages (those no pass created) one pass may touch", 0, 10_000),
    Spec("guard_agents", list, [], "commit authors the pre-commit hook treats as agents: glob or substring patterns, e.g. '* (aider)'"),
    Spec("people", list, [], "the people of the project ('Pat <pat@example.com>', an email, or a glob): the wall judges every pushed commit whose author or committer is not one of them (read from the project file as the range's base holds it)"),
    Spec("require_signed", bool, False, "the wall judges every pushed commit without a good signature (git verify-commit) as an agent's (read from the project file)"),
    Spec("remote", str, "", "git remote a pass fetches from before reading and pushes to after committing; empty: none"),
    Spec("sync", str, "ff", "when the branch and the remote have diverged: ff (refuse the pass) or merge (merge the remote in first)", choices=("ff", "merge")),
    Spec("push_tags", bool, False, "push the pass's pre_gardener snapshot tag along with the pass"),
    Spec("push_tries", int, 3, "pushes a pass tries when the remote moved meanwhile", 1, 10),
    Spec("remote_timeout", int, 60, "seconds one fetch or push may take", 1, 3600),
    Spec("health_unmapped", int, 1, "health trigger: pages the map and its hubs do not reach (0 turns it off)", 0, 1_000_000),
    Spec("health_orphan_ratio", float, 0.5, "health trigger: share of pages no other page links to, once it grew (0 off)", 0.0, 1.0),
    Spec("health_duplicates", int, 5, "health trigger: new duplicate candidates since the last pass (0 off)", 0, 1_000_000),
    Spec("health_over_budget", int, 1, "health trigger: new pages over the page budget since the last pass (0 off)", 0, 1_000_000),
    Spec("health_growth", int, 100, "health trigger: pages added since the last pass (0 off)", 0, 1_000_000),
    Spec("wiki_dir", str, "wiki", "the wiki's folder, relative to the project ('.': the project root, an Obsidian vault in place)", project_only=True),
    Spec("journal_dir", str, "raw/journal", "the journal's folder of YYYY-MM-DD.md day files (e.g. 'Daily notes')", project_only=True),
    Spec("journal_from", str, "", "the first journal day a pass reads (YYYY-MM-DD): older daily notes stay as they are, never offered; empty: every day", project_only=True),
    Spec("map_page", str, "index", "the map's page name at the top of the wiki (init picks another when a vault's own index.md is the person's)", project_only=True),
    Spec("gardener_dir", str, "", "the folder of the gardener's own pages (hubs, and new pages in a vault of folders), relative to the wiki; empty: Gardener for a vault at the project root, the wiki itself otherwise ('.')", project_only=True),
    Spec("auto_hubs", bool, True, "code gathers pages the map has no room for into hub pages (in gardener_dir); false: never (health names the pages the map does not reach)"),
    Spec("at", str, "", "a nightly clock: local time (24-hour, e.g. 03:30) after which a tick starts the day's pass; empty: off"),
)
_BY_KEY = {s.key: s for s in SPECS}


@dataclass(frozen=True)
class Settings:
    """Resolved settings for one project (or for the user when outside one)."""

    model: str = ""
    api_base: str = ""
    api_key_env: str = "GITGARDEN_API_KEY"
    api_key_name: str = ""
    mode: str = "auto"
    context_window: int = 8192
    token_budget: int = 60_000
    seconds_budget: int = 900
    max_output_tokens: int = 2048
    temperature: float = 0.2
    timeout: int = 120
    num_retries: int = 1
    enabled: bool = True
    interval_min: int = 30
    idle_min: int = 30
    min_hours_between_passes: float = 6.0
    max_lines: int = 200
    chat_window_chars: int = 6000
    grounding_min: float = 0.6
    repair_rounds: int = 1
    author: str = "gitgarden <gitgarden@localhost>"
    identity_files: tuple[str, ...] = ()
    review: bool = False
    notify_command: str = ""
    git_timeout: int = 300
    sign_commits: bool = True
    max_person_pages: int = 3
    guard_agents: tuple[str, ...] = ()
    people: tuple[str, ...] = ()
    require_signed: bool = False
    remote: str = ""
    sync: str = "ff"
    push_tags: bool = False
    push_tries: int = 3
    remote_timeout: int = 60
    health_unmapped: int = 1
    health_orphan_ratio: float = 0.5
    health_duplicates: int = 5
    health_over_budget: int = 1
    health_growth: int = 100
    wiki_dir: str = "wiki"
    journal_dir: str = "raw/journal"
    map_page: str = "index"
    journal_from: str = ""
    gardener_dir: str = ""
    auto_hubs: bool = True
    at: str = ""
    # Where api_base came from: a key is never sent to an endpoint named only by a committed
    # project file (a shared project must not be able to redirect the person's key).
    api_base_source: str = "default"
    # Where context_window came from: the default is a safe guess, not a fact about the model, so
    # only a window someone set says the model is small (mode = auto).
    context_window_source: str = "default"

    @property
    def author_name(self) -> str:
        return _split_ident(self.author)[0]

    @property
    def author_email(self) -> str:
        return _split_ident(self.author)[1]

    def api_key(self, env: Mapping[str, str] | None = None) -> str:
        """The API key from `GITGARDEN_API_KEY` or the named variable; '' when none."""
        env = os.environ if env is None else env
        return env.get("GITGARDEN_API_KEY") or env.get(self.api_key_env, "") or ""


@dataclass
class Resolved:
    """Settings with the layer each value came from and the warnings reading them raised."""

    settings: Settings
    sources: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _split_ident(ident: str) -> tuple[str, str]:
    m = re.match(r"^\s*(.*?)\s*<([^<>]+)>\s*$", ident)
    if not m or not m.group(1):
        return "gitgarden", "gitgarden@localhost"
    return m.group(1), m.group(2)


def env_name(key: str) -> str:
    """The environment variable that overrides `key` (`idle_min` -> `GITGARDEN_IDLE_MIN`)."""
    return "GITGARDEN_" + key.upper()


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    """`GITGARDEN_CONFIG`, else `$XDG_CONFIG_HOME/gitgarden/config.toml`."""
    env = os.environ if env is None else env
    if env.get("GITGARDEN_CONFIG"):
        return Path(env["GITGARDEN_CONFIG"]).expanduser()
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "gitgarden" / "config.toml"


def timer_env_file(env: Mapping[str, str] | None = None) -> Path:
    """The KEY=value file the timer's tick reads (systemd and cron alike): `$XDG_CONFIG_HOME/gitgarden/env`."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return (Path(base) / "gitgarden" / "env").expanduser().absolute()


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """`GITGARDEN_STATE`, else `$XDG_STATE_HOME/gitgarden`: machine-local scheduler state."""
    env = os.environ if env is None else env
    if env.get("GITGARDEN_STATE"):
        return Path(env["GITGARDEN_STATE"]).expanduser()
    base = env.get("XDG_STATE_HOME") or str(Path(env.get("HOME", "~")).expanduser() / ".local" / "state")
    return Path(base) / "gitgarden"


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's table ({} when absent); ConfigError naming the path and line when malformed."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        detail = str(exc)
        if "line" not in detail:  # "at end of document": name the last line
            last = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
            detail += f" (line {last})"
        raise ConfigError(f"{path}: malformed TOML: {detail}") from None


def did_you_mean(key: str) -> str:
    """'; did you mean `review`?' for a misspelt setting name, else ''."""
    import difflib

    close = difflib.get_close_matches(key, list(_BY_KEY), n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""


def parse_value(key: str, value: Any, *, where: str) -> Any:
    """`value` (from TOML, the environment or a flag) converted to `key`'s type; ConfigError if it can't be."""
    spec = _BY_KEY.get(key)
    if spec is None:
        raise ConfigError(f"{where}: unknown setting {key!r}{did_you_mean(key) or ' (see `gitgarden config list`)'}")
    try:
        if spec.type is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if spec.type is list:
            return _as_list(key, value, where)
        if spec.type is int:
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            return int(value)
        if spec.type is float:
            if isinstance(value, bool):
                raise ValueError
            return float(value)
        if isinstance(value, date):  # TOML's bare `journal_from = 2026-12-01`
            return value.isoformat()
        if not isinstance(value, str | int | float):
            raise ValueError
        return str(value)
    except (TypeError, ValueError):
        kind = {bool: "true or false", int: "a whole number", float: "a number", list: "a list of strings"}.get(
            spec.type, "text"
        )
        raise ConfigError(f"{where}: {key} must be {kind}, not {value!r}") from None


def _as_list(key: str, value: Any, where: str) -> tuple[str, ...]:
    """A list setting's value: a TOML list, a TOML or JSON list written as text (what `config set`
    and the environment hand in), or plain text (one item, or items separated by commas).

    Text that opens like a list but does not parse as one is refused: taken as one pattern it
    would match nothing, and `guard_agents = '["* (aider)"]'` then let an agent's commit through.
    """
    if isinstance(value, list | tuple):
        if not all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
            raise ValueError
        return tuple(str(v) for v in value)
    if not isinstance(value, str):
        raise ValueError
    text = value.strip()
    if text.startswith("[") or text.endswith("]"):
        parsed: Any = None
        try:
            parsed = tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            import contextlib
            import json

            with contextlib.suppress(ValueError):
                parsed = json.loads(text)
        if not isinstance(parsed, list) or not all(isinstance(v, str) for v in parsed):
            raise ConfigError(
                f"{where}: {key} = {value!r} looks like a list but is not one: write it as a TOML or JSON "
                f"list of quoted strings, such as '[\"* (aider)\"]', or as plain text without brackets"
            )
        return tuple(v.strip() for v in parsed if v.strip())
    return tuple(p for p in (s.strip() for s in text.split(",")) if p)


def clamp(key: str, value: Any) -> tuple[Any, str | None]:
    """(value within `key`'s range, a warning when it had to be moved)."""
    spec = _BY_KEY[key]
    if spec.choices and value not in spec.choices:
        return spec.default, f"{key} = {value!r} is not one of {', '.join(spec.choices)}; using {spec.default!r}"
    if spec.lo is None or isinstance(value, bool) or not isinstance(value, int | float):
        return value, None
    bound = spec.lo if value < spec.lo else spec.hi if spec.hi is not None and value > spec.hi else None
    if bound is None:
        return value, None
    bound = spec.type(bound)
    return bound, f"{key} = {value} is outside {spec.type(spec.lo)}–{spec.type(spec.hi)}; using {bound}"


def _project_relative_only(paths: tuple[str, ...], where: str, resolved: Resolved) -> tuple[str, ...]:
    """A committed project file may name only files inside the project: it must never be able
    to send the person's other files (~/.ssh/…) to a model. Absolute paths belong in the user file."""
    kept = []
    for path in paths:
        parts = path.replace("\\", "/").split("/")
        if path.startswith(("/", "~")) or ".." in parts:
            resolved.warnings.append(f"{where}: identity file {path!r} ignored (a project file may name only files inside the project)")
        else:
            kept.append(path)
    return tuple(kept)


def _layer(table: Mapping[str, Any], where: str, *, project: bool, resolved: Resolved, out: dict[str, Any], layer: str) -> None:
    for key, raw in table.items():
        if key in out:
            continue
        if key == "api_key":
            resolved.warnings.append(f"{where}: api_key is ignored ({_KEY_ONLY}; use `gitgarden keys set`)")
            continue
        if not project and key in _BY_KEY and _BY_KEY[key].project_only:
            if layer == "user":
                resolved.warnings.append(f"{where}: {key} is ignored here ({_PROJECT_ONLY}): set it in the project with `gitgarden config set`")
            continue
        if project and key in _BY_KEY and not _BY_KEY[key].project_ok:
            resolved.warnings.append(f"{where}: {key} is ignored here ({_BY_KEY[key].not_in_project}): set it with `--user`")
            continue
        if key not in _BY_KEY:
            resolved.warnings.append(f"{where}: unknown setting {key!r} ignored{did_you_mean(key)}")
            continue
        value = parse_value(key, raw, where=where)
        if project and key == "identity_files":
            value = _project_relative_only(value, where, resolved)
        if _BY_KEY[key].project_only:
            from gitgarden.wiki.layout import check_layout_value

            value = check_layout_value(key, value, where=where)
        value, warning = clamp(key, value)
        if warning:
            resolved.warnings.append(f"{where}: {warning}")
        out[key] = value
        resolved.sources[key] = layer


def load_settings(
    project_root: Path | None,
    *,
    env: Mapping[str, str] | None = None,
    flags: Mapping[str, Any] | None = None,
) -> Resolved:
    """Resolve every setting through flag > env > project file > user file > default."""
    env = os.environ if env is None else env
    resolved = Resolved(Settings())
    values: dict[str, Any] = {}
    _layer({k: v for k, v in (flags or {}).items() if v is not None}, "flag", project=False, resolved=resolved, out=values, layer="flag")
    env_table = {s.key: env[env_name(s.key)] for s in SPECS if env.get(env_name(s.key), "") != ""}
    _layer(env_table, "environment", project=False, resolved=resolved, out=values, layer="env")
    if project_root is not None:
        path = project_root / ".gitgarden" / "config.toml"
        _layer(read_toml(path), str(path), project=True, resolved=resolved, out=values, layer="project")
    upath = user_config_path(env)
    _layer(read_toml(upath), str(upath), project=False, resolved=resolved, out=values, layer="user")
    for spec in SPECS:
        resolved.sources.setdefault(spec.key, "default")
    names = {f.name for f in fields(Settings)}
    values["api_base_source"] = resolved.sources.get("api_base", "default")
    values["context_window_source"] = resolved.sources.get("context_window", "default")
    resolved.settings = replace(Settings(), **{k: v for k, v in values.items() if k in names})
    return resolved


