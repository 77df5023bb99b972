"""The `gitgarden` command: parse, call a library function, render. Nothing else lives here.

stdout carries data (and `--json`), stderr carries messages. Every
GitgardenError becomes one line and its exit status in `main`; `--debug`
shows the traceback instead.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from gitgarden import __version__
from gitgarden.cli.app import (
    App,
    err,
    pass_app,
)
from gitgarden.errors import EXIT_INTERRUPTED, GitgardenError

__all__ = ["main", "cli", "App", "ELSEWHERE"]

# The commands the other `cli` modules hold (all but `capture`, the one agents call most): name -> (module, attribute, summary). A call imports
# only the module of the command it names (`status` never pays for `log` or `serve`), and `--help`
# lists them all from the summaries here, importing none (as pip's `commands_dict`). Each summary
# is the command's first sentence, as click makes it from the docstring; tests/test_startup.py
# holds the two equal.
ELSEWHERE: dict[str, tuple[str, str, str]] = {
    "init": ("garden", "init", "Make a project folder (git repo, journal, wiki, map) at PATH (default: here)."),
    "run": ("garden", "run", "Run one gardener pass on the project you stand in."),
    "schema": ("garden", "schema", "Print the JSON Schema of the operations a model returns."),
    "health": ("garden", "health", "Deterministic health figures: orphans, broken links, duplicates, oversized pages, the map."),
    "llm": ("garden", "llm", "The model: what is configured and whether it answers."),
    "ask": ("ask", "ask_cmd", "Answer QUESTION from the garden: every sentence cites its page and the journal lines it rests on (`[[lease]] 2026-11-23#4`), and code checks it as it checks a pass's sentences: a number, name or date its lines lack drops it."),
    "search": ("agents", "search_cmd", "Search the wiki's pages and the journal's lines, best first."),
    "mcp": ("agents", "mcp_cmd", "Serve the project to chat agents over MCP (stdio): they capture and read; they never write a page."),
    "ci": ("ci", "ci", "Run one pass as a scheduled CI job: no questions, the exit status cron would get, a summary."),
    "guard": ("guard", "guard", "Check the work tree (tracked and untracked) against BASE with the pass's safety rules."),
    "hook": ("guard", "hook_group", "The hooks that put the guard in front of agents' commits (not of yours)."),
    "keys": ("keys", "keys", "API keys stored in your config folder (keys.json, mode 0600, never in a project)."),
    "log": ("history", "log_cmd", "The gardener's passes, newest first, read from the pass commits (and attempts that made none)."),
    "show": ("history", "show_cmd", "One pass (a pass id or a commit; default the latest): its record, then its diff, pages first."),
    "undo": ("history", "undo_cmd", "Take back one pass (default: the latest) with a new commit; history is never rewritten."),
    "stop": ("history", "stop_cmd", "Ask the running pass to stop now (a model call in flight is abandoned); it keeps what it committed."),
    "review": ("review", "review_group", "What waits on the branch gitgarden/review (review mode): its passes and their diff, pages first."),
    "reread": ("history", "reread_cmd", "Make journal lines unread again (a line id such as 2026-11-29#3, or a whole day), without undoing a pass."),
    "tick": ("schedule", "tick", "Look at every registered project and run at most one pass: what cron or a systemd timer calls."),
    "projects": ("schedule", "projects", "The projects `gitgarden tick` looks at (on this machine)."),
    "timer": ("schedule", "timer", "Run `gitgarden tick` every minute from a systemd user timer or cron."),
    "status": ("schedule", "status", "The project you stand in: unread lines, whether a tick would garden it now (or what holds it back, and until when), the last pass, the lock and the failures in a row."),
    "serve": ("serve", "serve_cmd", "Serve the garden in your browser (passes, pages and where they came from, journal, review, run) until Ctrl-C."),
    "config": ("settings", "config_group", "Read and change settings: flag > GITGARDEN_* environment > project file > user file > default."),
    "split": ("split", "split_command", "Split PAGE (one of your pages over the budget) at its `##` headings."),
}  # fmt: skip


class _Group(click.Group):
    """Turns every GitgardenError into one line on stderr and its exit status (in one place), and
    loads a command of another module when it is named (`ELSEWHERE`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *ELSEWHERE})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in ELSEWHERE:
            module, attribute, _summary = ELSEWHERE[cmd_name]
            self.add_command(getattr(importlib.import_module(f"gitgarden.cli.{module}"), attribute), cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's listing, but a command not loaded yet is shown from its summary in `ELSEWHERE`:
        asking it for its help would import its module, and `--help` would import them all."""
        rows: list[tuple[str, click.Command]] = []
        for name in self.list_commands(ctx):
            # A stand-in for one not loaded, so that click shortens its summary as it shortens any help.
            cmd = self.commands.get(name) or click.Command(name, help=ELSEWHERE[name][2])
            if not cmd.hidden:
                rows.append((name, cmd))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _cmd in rows)
            with formatter.section("Commands"):
                formatter.write_dl([(name, cmd.get_short_help_str(limit)) for name, cmd in rows])

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except GitgardenError as exc:
            app = ctx.find_object(App)
            if app is not None and app.debug:
                raise
            err(f"gitgarden: {exc}")
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            err("Interrupted.")
            ctx.exit(EXIT_INTERRUPTED)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gitgarden")
@click.option("--debug", is_flag=True, help="Show tracebacks instead of one-line errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Garden a wiki folder kept in git: journal lines become linked pages, one guarded commit per pass."""
    app = ctx.ensure_object(App)
    app.debug = debug


# Words that look like options (`---`, `-5 degrees`) are text to capture: only --help is capture's own.
@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("text", nargs=-1, type=click.UNPROCESSED)
@pass_app
def capture(app: App, text: tuple[str, ...]) -> None:
    """Append TEXT (or stdin) to today's journal, one line per non-empty line. Never commits.

    A line a pass would take for a Markdown heading (`# Meeting …`) is stored as `\\# Meeting …`,
    so it is read."""
    from gitgarden.services.capture import capture as do_capture

    project = app.project()
    done = do_capture(project, " ".join(text) if text else sys.stdin.read(), app.now())
    for warning in done.warnings:
        err(f"warning: {warning}")
    err(done.message)


def main() -> None:
    """Entry point of the `gitgarden` command and `python -m gitgarden`."""
    cli(obj=App(), complete_var="_GITGARDEN_COMPLETE")  # the same under `python -m gitgarden`
