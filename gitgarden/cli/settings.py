"""`gitgarden config get|set|unset|list`: settings and the layer each comes from.

flag > GITGARDEN_* environment > the project's `.gitgarden/config.toml` > the
user config file > defaults. Setting a value is `services.settings.set_setting`
(the web app's settings form calls it too): checked, refused with one line when
it cannot be read where it is written, and read back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.shell_completion import CompletionItem

from gitgarden.cli.app import App, echo, err, out_json, pass_app, show_value, table
from gitgarden.config import SPECS, env_name, read_toml, unset_value
from gitgarden.errors import ConfigError, GitgardenError, NotAProject
from gitgarden.project import Project, find_project, of_root
from gitgarden.services.settings import set_setting, setting_path, spec_of

__all__ = ["config_group"]  # the commands, which `cli.main` loads by name


def _complete_keys(_ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion for KEY: the setting names, each with what it means."""


    return [CompletionItem(s.key, help=s.help) for s in SPECS if s.key.startswith(incomplete)]


def _scope_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--project", "scope", flag_value="project", help="The project's .gitgarden/config.toml.")(func)
    func = click.option("--user", "scope", flag_value="user", help="The user config file (GITGARDEN_CONFIG).")(func)
    return func


def _where(app: App, scope: str | None) -> tuple[str, Path | None]:
    """(scope, project root or None): the project when inside one, unless --user."""

    if scope == "user":
        return "user", None
    try:
        return "project", find_project().root
    except NotAProject:
        if scope == "project":
            raise
        return "user", None


def _config_file(app: App, scope: str, root: Path | None) -> Path:
    return setting_path(scope, root, app.env)


def _spec(key: str) -> Any:
    return spec_of(key)


@click.group("config")
def config_group() -> None:
    """Read and change settings: flag > GITGARDEN_* environment > project file > user file > default.

    The scope is the project when you stand in one, else the user file;
    --user or --project chooses.
    """


@config_group.command("get")
@click.argument("key", shell_complete=_complete_keys)
@click.option("--json", "as_json", is_flag=True, help="Print key, value and layer as JSON.")
@_scope_options
@pass_app
def config_get(app: App, key: str, as_json: bool, scope: str | None) -> None:
    """Print KEY's value here (its layer on stderr)."""
    _spec(key)
    where, root = _where(app, scope)
    resolved = app.settings(_project(root))
    value, source = getattr(resolved.settings, key), resolved.sources[key]
    if as_json:
        out_json({"key": key, "value": value, "source": source, "scope": where})
        return
    echo(show_value(value) if isinstance(value, bool | tuple | list) else value)
    err(f"({key} from {source})")


def _project(root: Path | None) -> Any:

    return Project(root) if root else None


@config_group.command("set")
@click.argument("key", shell_complete=_complete_keys)
@click.argument("value")
@_scope_options
@pass_app
def config_set(app: App, key: str, value: str, scope: str | None) -> None:
    """Set KEY to VALUE in the project or user file; print the value read back."""
    where, root = _where(app, scope)
    path = _config_file(app, where, root)
    here = root if root is not None else _where(app, None)[1]  # what applies where you stand
    report = set_setting(path, key, value, scope=where, env=app.env, root=here)
    if report.changed:
        err(f"Wrote {key} to {path}.")
    else:
        err(f"{key} is already {show_value(report.value)} in {path}: the file was not rewritten.")
    echo(f"{key} = {show_value(report.value)}")
    if report.source != where:
        err(f"note: here the {report.source} layer wins: {key} = {show_value(report.effective)}")
    if key in ("wiki_dir", "map_page") and where == "project" and here is not None:
        _warn_of_a_persons_map(here)
    today = app.now().astimezone().date().isoformat()
    if key == "journal_from" and isinstance(report.value, str) and report.value > today:
        err(
            f"warning: journal_from = {report.value} is in the future (today is {today}): no journal line is offered "
            "until then; `gitgarden config unset journal_from` offers every day again"
        )


def _warn_of_a_persons_map(root: Path) -> None:
    """Say so when the map the layout now names is a note of the person's (gitgarden's own map has
    its `## Pages` and `## Open` sections): a pass adds entries to the map."""

    try:
        map_path = root / of_root(root).map_path()
        text = map_path.read_text(encoding="utf-8", errors="replace") if map_path.is_file() and not map_path.is_symlink() else None
    except (OSError, GitgardenError):
        return
    if text is not None and not ("## Pages" in text and "## Open" in text):
        err(
            f"note: {map_path.relative_to(root).as_posix()} is now the map, and a pass adds its entries there; "
            "if it is a note of yours, name another page for the map: gitgarden config set map_page Map"
        )


@config_group.command("unset")
@click.argument("key", shell_complete=_complete_keys)
@_scope_options
@pass_app
def config_unset(app: App, key: str, scope: str | None) -> None:
    """Remove KEY from the project or user file; print the value that applies now."""

    where, root = _where(app, scope)
    path = _config_file(app, where, root)
    if key not in {s.key for s in SPECS} and key not in read_toml(path):
        _spec(key)
    if key == "wiki_dir" and where == "project" and root is not None and not (root / "wiki").is_dir() and key in read_toml(path):
        # Back to the default, the project would have no wiki folder and no longer be found.
        raise ConfigError(f"without wiki_dir the wiki is wiki/, which {root} does not have: set wiki_dir to the folder of your notes instead")
    if unset_value(path, key):
        err(f"Removed {key} from {path}.")
    else:
        err(f"{key} was not set in {path}: nothing changed.")
    if key in {s.key for s in SPECS}:
        resolved = app.settings(_project(root))
        echo(f"{key} = {show_value(getattr(resolved.settings, key))}")
        err(f"({key} from {resolved.sources[key]})")


@config_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print every setting as JSON.")
@_scope_options
@pass_app
def config_list(app: App, as_json: bool, scope: str | None) -> None:
    """Every setting, its value here and the layer it comes from (flag, env, project, user, default)."""

    _where_scope, root = _where(app, scope)
    resolved = app.settings(_project(root))
    rows = {
        s.key: {
            "value": getattr(resolved.settings, s.key),
            "source": resolved.sources[s.key],
            "default": s.default,
            "range": None if s.lo is None else [s.type(s.lo), s.type(s.hi)],
            "env": env_name(s.key),
            "help": s.help,
        }
        for s in SPECS
    }
    if as_json:
        out_json(rows)
        return
    table(
        ["key", "value", "from", "range", "meaning"],
        [
            [k, show_value(r["value"]), r["source"], "" if r["range"] is None else f"{r['range'][0]}–{r['range'][1]}", r["help"]]
            for k, r in rows.items()
        ],
    )
