"""What every command shares: the `App` it is handed, messages, JSON, and a few renderings.

The command modules import this one and nothing imports them but `cli.main`, so
the imports of the command line run one way. Every command and `--help` load this module, so
what only some of its helpers need (the project, the settings, git, rich) is imported inside them.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from gitgarden.config import Resolved, Settings
    from gitgarden.model.llm import Model
    from gitgarden.project import Project

__all__ = [
    "App", "activate", "echo", "err", "visible", "out_json", "pass_app", "render_set_aside", "render_figures", "listing",
    "show_value", "table", "git_policy", "complete_passes",
]  # fmt: skip


def _default_model_factory(settings: Settings, env: Mapping[str, str]) -> Model | None:
    from gitgarden.model import provider

    return provider.make_model(settings, env)


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass
class App:
    """What commands are handed: the environment, the clock and how to make a model (tests swap these)."""

    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    now: Callable[[], datetime] = _now
    model_factory: Callable[[Settings, Mapping[str, str]], Model | None] = _default_model_factory
    debug: bool = False
    # The loopback ports looked at for a local model server when none is configured (None: the usual ones).
    local_ports: Mapping[int, str] | None = None

    def local_models(self) -> list[dict[str, Any]]:
        """The local model servers answering on this machine (as JSON), for a command run without a model."""
        from gitgarden.model import servers

        return [s.to_json() for s in servers.find(None if self.local_ports is None else dict(self.local_ports))]

    def say_local_models(self) -> list[dict[str, Any]]:
        """Say (stderr) which local model servers answer and the command that uses each, and the
        in-process model when installed; what was found, as JSON. Never chooses one by itself."""
        from gitgarden.model import servers

        found = servers.find(None if self.local_ports is None else dict(self.local_ports))
        for line in servers.advice(found, inprocess=servers.inprocess_installed()):
            err(line)
        return [s.to_json() for s in found]

    def project(self, start: Path | None = None) -> Project:
        """The project the command works on; its layout is in force until the command ends."""
        from gitgarden.project import find_project

        project = find_project(start)
        activate(project)
        return project

    def settings(self, project: Project | None, **flags: Any) -> Resolved:
        from gitgarden.config import load_settings

        resolved = load_settings(project.root if project else None, env=self.env, flags=flags)
        for warning in resolved.warnings:
            err(f"warning: {warning}")
        return resolved


def activate(project: Project) -> None:
    """Put `project`'s layout (where its wiki and journal are) in force for the running command:
    the pure cores read it, and it is taken back when the command's context closes."""
    from gitgarden.wiki import layout

    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.with_resource(layout.active(project.layout))


# What a terminal acts on instead of showing: control characters (ESC ] 0 retitles the terminal,
# ESC ] 52 writes the clipboard), line breaks other than \n, and the bidi controls that reorder
# what is shown ("costs \u202e500 EUR" reads "RUE 005").
_UNSEEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, lines: bool = False) -> str:
    """`text` safe to print on a terminal: each character a terminal would act on instead of show
    (a control character, a line break, a bidi control) as a visible escape (`\\x1b`, `\\u2028`).
    A tab stays; with `lines`, so does each `\\n` (text of several lines: a diff, a message)."""
    if lines:
        return "\n".join(_UNSEEN.sub(_escaped, part) for part in text.split("\n"))
    return _UNSEEN.sub(_escaped, text.replace("\n", "\\n"))


def echo(text: object = "", *, err: bool = False, nl: bool = True) -> None:
    """A line (or lines) for the person, on stdout (stderr with `err`): every output of the command
    line that can hold stored text (journal lines, pages, records) goes through here, escaped."""
    click.echo(visible(str(text), lines=True), err=err, nl=nl)


def err(message: str) -> None:
    """A message for the person (stderr), escaped as `echo` does: it may quote stored text."""
    echo(message, err=True)


def out_json(data: Any) -> None:
    """Plain JSON on stdout and nothing else."""
    click.echo(json.dumps(data, indent=2, sort_keys=True, default=str))


pass_app = click.make_pass_decorator(App, ensure=True)


def render_set_aside(entries: list[Mapping[str, Any]]) -> None:
    """The set-aside lines (as `status --json` lists them), each with why and what to do (for `status` and `health`)."""
    for entry in entries:
        echo(f"  set aside {entry['line']}: {entry['text']}")
        echo(f"    why: {entry['reason']}")
        echo(f"    to offer it again: {entry['advice']}")


def render_figures(figures: Mapping[str, Any]) -> str:
    """A job's figures on one line: `pages 2, entries 1`."""
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in figures.items()) or "nothing"


def listing(items: list[str], limit: int = 5) -> str:
    if not items:
        return "0"
    shown = ", ".join(items[:limit])
    return f"{len(items)}: {shown}" + (" …" if len(items) > limit else "")


def table(headers: list[str], rows: list[list[str]]) -> None:
    """A table on stdout (rich); piped, one row a line."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(*headers, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for row in rows:
        table.add_row(*(visible(cell) for cell in row))
    # Piped output keeps one row a line, however long the paths.
    Console(file=sys.stdout, width=None if sys.stdout.isatty() else 10_000).print(table)


def show_value(value: Any) -> str:
    """A setting's value as a person writes it: true/false, a list as a TOML list (`["* (aider)"]`,
    which `config set` takes back as it is), "" for empty."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return json.dumps([str(v) for v in value], ensure_ascii=False)
    if value == "":
        return '""'
    return str(value)


def settle_model_threads(timeout: float = 10.0) -> None:
    """Wait (at most `timeout` seconds) for model requests a stopped pass left behind, before the
    command exits: a request thread still inside litellm's lazy imports when the interpreter tears
    down holds a module lock the teardown needs, and the process would hang at exit."""
    import threading
    import time

    end = time.monotonic() + timeout
    for thread in threading.enumerate():
        if thread.name.startswith("gitgarden-model") and thread is not threading.current_thread():
            thread.join(max(0.0, end - time.monotonic()))


def git_policy(app: App, project: Any) -> AbstractContextManager[Any]:
    """The project's git settings (git_timeout, sign_commits) for the commands that commit, as for a pass."""
    from gitgarden.repo import gitrepo

    s = app.settings(project).settings
    return gitrepo.git_policy(gitrepo.GitPolicy(timeout=float(s.git_timeout), sign_commits=s.sign_commits))


def complete_passes(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[Any]:
    """Shell completion for PASS: the newest pass ids of the project you stand in, newest first."""
    from click.shell_completion import CompletionItem

    try:
        from gitgarden.history import passlog as history
        from gitgarden.project import find_project

        entries = history.passes(find_project().root, 50)
    except Exception:  # completion must never print a traceback into the person's shell
        return []
    return [CompletionItem(e.pass_id, help=e.outcome) for e in entries if e.pass_id.startswith(incomplete)]
