"""`gitgarden keys set|list|path|unset`: API keys stored in the user's config folder, like `llm keys`.

A key is read from stdin or a hidden prompt, never from the command line (it
would sit in the shell history and in `ps`), and is never printed.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from gitgarden.cli.app import App, echo, err, out_json, pass_app
from gitgarden.errors import ConfigError
from gitgarden.model import keys as store

__all__ = ["keys"]


def _complete_names(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion: the names of the stored keys (never the keys)."""

    try:
        names = sorted(store.stored_keys())
    except ConfigError:
        return []
    return [n for n in names if n.startswith(incomplete)]


@click.group()
def keys() -> None:
    """API keys stored in your config folder (keys.json, mode 0600, never in a project).

    A model uses the key `api_key_name` names; when that is empty and no api_base
    is set, the key named after the model's provider (openai/… uses `openai`).
    GITGARDEN_API_KEY and the variable `api_key_env` names come first.
    """


_NEVER_ON_THE_LINE = (
    "a key is never given on the command line (it would stay in your shell history and in `ps`): "
    "run `gitgarden keys set NAME` and type it at the hidden prompt, or pipe it: `… | gitgarden keys set NAME`"
)


# A key typed after the name must not reach click's "Got unexpected extra argument (sk-…)", which
# repeats it: the extra words are taken in and refused without being shown.
@keys.command("set", context_settings={"ignore_unknown_options": True})
@click.argument("name", shell_complete=_complete_names)
@click.argument("extra", nargs=-1, type=click.UNPROCESSED, metavar="")
@pass_app
def keys_set(app: App, name: str, extra: tuple[str, ...]) -> None:
    """Store a key as NAME: typed at a hidden prompt, or piped on stdin (`… | gitgarden keys set NAME`)."""

    if extra or store.looks_like_a_key(name):
        raise click.UsageError(_NEVER_ON_THE_LINE)
    store.check_name(name)
    if sys.stdin.isatty():
        value = click.prompt(f"Key for {name}", hide_input=True, err=True, default="", show_default=False)
    else:
        value = sys.stdin.read()
    path = store.set_key(name, value, app.env)
    err(f"Stored the key {name!r} in {path}.")


@keys.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the names as a JSON list.")
@pass_app
def keys_list(app: App, as_json: bool) -> None:
    """The names of the stored keys (never the keys)."""

    names = sorted(store.stored_keys(app.env))
    if as_json:
        out_json(names)
        return
    if not names:
        err(f"No keys stored ({store.keys_path(app.env)}): `gitgarden keys set NAME` stores one.")
    for name in names:
        echo(name)


@keys.command("path")
@pass_app
def keys_path(app: App) -> None:
    """The file the keys are stored in."""

    echo(str(store.keys_path(app.env)))


@keys.command("unset")
@click.argument("name", shell_complete=_complete_names)
@pass_app
def keys_unset(app: App, name: str) -> None:
    """Forget the key stored as NAME."""

    if not store.unset_key(name, app.env):
        raise ConfigError(f"no key named {name!r} is stored (see `gitgarden keys list`)")
    err(f"Removed the key {name!r} from {store.keys_path(app.env)}.")
