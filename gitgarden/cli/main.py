"""The `gitgarden` command: parse, call a library function, render. Nothing else lives here.

stdout carries data (and `--json`), stderr carries messages. Every
GitgardenError becomes one line and its exit status in `main`; `--debug`
shows the traceback instead.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from gitgarden import __version__
from gitgarden.cli.app import (
    App,
    echo,
    err,
    listing,
    out_json,
    pass_app,
    render_figures,
    render_set_aside,
    settle_model_threads,
)
from gitgarden.errors import EXIT_INTERRUPTED, GitgardenError
from gitgarden.gardener.jobs import JOBS

__all__ = ["main", "cli", "App", "ELSEWHERE"]

# The commands the other `cli` modules hold: name -> (module, attribute, summary). A call imports
# only the module of the command it names (`status` never pays for `log` or `serve`), and `--help`
# lists them all from the summaries here, importing none (as pip's `commands_dict`). Each summary
# is the command's first sentence, as click makes it from the docstring; tests/test_startup.py
# holds the two equal.
ELSEWHERE: dict[str, tuple[str, str, str]] = {
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


@cli.command()
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--register/--no-register", default=None, help="Register the project for `gitgarden tick` (asked when interactive).")
@pass_app
def init(app: App, path: Path | None, register: bool | None) -> None:
    """Make a project folder (git repo, journal, wiki, map) at PATH (default: here)."""
    from gitgarden.project import init_project

    report = init_project(path or Path.cwd())
    theirs = f"{len(report.adopted)} of your files git did not track yet" if report.adopted else ""
    shown = ", ".join(report.adopted[:3]) + (f" and {len(report.adopted) - 3} more" if len(report.adopted) > 3 else "")
    if report.created:
        err(f"Made a gitgarden project in {report.root}: {', '.join(report.created)}")
        if report.git_initialised:
            err("  git init: a new repository")
        if report.committed:
            err("  committed the layout" + (f" and {theirs} (under your name, so a pass protects them): {shown}" if theirs else ""))
    elif report.adopted:
        err(f"{report.root} is already a gitgarden project: committed {theirs} (under your name, so a pass protects them): {shown}")
    else:
        err(f"{report.root} is already a gitgarden project: nothing changed.")
    for note in report.notes:
        err(f"  {note}")
    lines, days, oldest = _waiting(report.root) if report.created else (0, 0, "")
    today = f"{app.now().astimezone():%Y-%m-%d}"
    if oldest and oldest < today:
        err(
            f"  {lines:,} journal line(s) in {days:,} day file(s), from {oldest} on, wait to be read: passes offer "
            f"them oldest first, a few hundred at a time. To garden only from today on: "
            f"gitgarden config set journal_from {today}"
        )
    _maybe_register(app, report.root, register)


def _waiting(root: Path) -> tuple[int, int, str]:
    """The unread journal lines a first pass would find (an adopted vault's daily notes): how
    many, in how many day files, and the oldest day ('' when none)."""
    from gitgarden.gardener.setaside import on_disk
    from gitgarden.project import of_root_or_default
    from gitgarden.wiki.layout import active

    with active(of_root_or_default(root)):
        unread, _aside = on_disk(root)
    days = sorted({ln.day for ln in unread})
    return len(unread), len(days), days[0] if days else ""


def _maybe_register(app: App, root: Path, register: bool | None) -> None:
    try:
        from gitgarden.schedule import registry
    except ImportError:  # the scheduler is optional for init
        return
    if register is None:
        if not sys.stdin.isatty():
            return
        register = click.confirm("Register it for periodic passes (gitgarden tick)?", default=True, err=True)
    if register:
        added = registry.register(root, app.env)
        err(f"Registered {root} for gitgarden tick." if added else f"{root} was already registered.")


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


@cli.command()
@click.option("--dry-run", is_flag=True, help="Compute everything (the model is called), show the diff, change nothing.")
@click.option("--model", "model_flag", help="Override the model for this pass.")
@click.option("--json", "as_json", is_flag=True, help="Print the pass record as JSON.")
@click.option("--retry", is_flag=True, help="Offer the lines set aside after repeated refusals again (`gitgarden status` lists them).")
@click.option(
    "--reread",
    "reread",
    multiple=True,
    metavar="LINE-ID|DAY",
    help="Make these journal lines unread again first (repeatable; as `gitgarden reread`).",
)
@click.option(
    "--job",
    "jobs",
    multiple=True,
    type=click.Choice(JOBS),
    help="Run only this job (repeatable; default: all, in the order " + ", ".join(JOBS) + "). Only promote calls the model.",
)
@pass_app
def run(
    app: App, dry_run: bool, model_flag: str | None, as_json: bool, retry: bool, reread: tuple[str, ...], jobs: tuple[str, ...]
) -> None:
    """Run one gardener pass on the project you stand in."""
    from gitgarden.errors import NotAProject

    try:
        project = app.project()
    except NotAProject as exc:
        if as_json:
            out_json({"outcome": "refused", "message": str(exc), "exit_code": 14})
        err(str(exc))
        sys.exit(14)
    settings = app.settings(project, model=model_flag).settings
    if reread:
        if dry_run:
            raise GitgardenError("--reread commits the read position; it cannot go with --dry-run (run `gitgarden reread` first)")
        from gitgarden.cli.history import reread_lines
        from gitgarden.repo import gitrepo

        with gitrepo.git_policy(gitrepo.GitPolicy(timeout=float(settings.git_timeout), sign_commits=settings.sign_commits)):
            reread_lines(app, project, reread)
    from gitgarden.cli.progress import display
    from gitgarden.services import run as passes

    with display(sys.stderr, app.env, enabled=not as_json) as shown:
        result = passes.run(
            project,
            settings,
            env=app.env,
            now=app.now,
            model_factory=app.model_factory,
            on_progress=shown.message,
            on_step=shown.step,
            dry_run=dry_run,
            retry=retry,
            jobs=jobs,
        )
    unset = not settings.model.strip() and (not jobs or "promote" in jobs)  # a local server may be there to use
    if as_json:
        data = passes.shown(result)
        if unset:
            data["local_servers"] = app.local_models()
        out_json(data)
    else:
        _render_pass(result)
        if unset:
            app.say_local_models()
    settle_model_threads()
    sys.exit(result.exit_code)


def _render_pass(result: Any) -> None:
    prefix = "[dry run] " if result.dry_run else ""
    err(f"{prefix}{result.sentence}")
    for label, items in (("created", result.created), ("appended", result.appended), ("split", result.split), ("tidied", result.tidied)):
        if items:
            err(f"  {label}: {', '.join(items)}")
    for label, items in result.not_written.items():
        err(f"  not written ({label}): {', '.join(items)}")
    if result.offered:
        err(f"  lines offered: {len(result.offered)}" + (f" ({result.overflow} more wait)" if result.overflow else ""))
    if result.unread:
        reasons: dict[str, int] = {}
        for item in result.unread:
            why = item["reason"].split(":", 1)[0] if item["reason"].startswith(("unsure", "refused")) else item["reason"]
            reasons[why] = reasons.get(why, 0) + 1
        said = "; ".join(f"{n} {why}" for why, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
        err(f"  left unread: {len(result.unread)} line(s): {said}; `gitgarden show` lists them")
    elif result.not_cited:
        err(f"  not cited by the reply, left unread: {listing(result.not_cited)}")
    if result.skipped:
        reasons: dict[str, int] = {}
        for item in result.skipped:
            reasons[item["reason"]] = reasons.get(item["reason"], 0) + 1
        said = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
        err(f"  skipped (read, no page): {len(result.skipped)} line(s): {said}; `gitgarden show` lists them, `gitgarden reread LINE-ID` gives one back")
    for item in result.already_there:
        err(f"  already there: {item}")
    for refusal in result.refusals:
        err(f"  refused: {refusal}")
    if len(result.rounds) > 1 or any("repair" in r for r in result.rounds):
        err("  rounds: " + "; ".join(f"{r['refused']} refused, {r['landed']} landed" for r in result.rounds))
        for note in (r["repair"] for r in result.rounds if "repair" in r):
            err(f"  repair: {note}")
    if not result.all_jobs:
        err(f"  jobs: {', '.join(result.jobs)}")
        for job, figures in result.job_figures.items():
            err(f"  {job}: {render_figures(figures)}")
    if result.model and result.tokens:
        cost = "unknown" if result.cost is None else f"${result.cost:.4f}"
        err(f"  tokens: {result.tokens} ({result.prompt_tokens} prompt, {result.completion_tokens} reply), cost {cost}")
    if result.commit:
        err(f"  commit {result.commit[:10]}" + (f", snapshot {result.snapshot}" if result.snapshot else ""))
    if result.recovery:
        err(f"  {result.recovery}")
    for hint in result.hints:
        err(hint)
    if result.dry_run and result.diff:
        echo(result.diff, nl=False)


@cli.command()
def schema() -> None:
    """Print the JSON Schema of the operations a model returns."""
    from gitgarden.model.operations import schema as op_schema

    out_json(op_schema())


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@pass_app
def health(app: App, as_json: bool) -> None:
    """Deterministic health figures: orphans, broken links, duplicates, oversized pages, the map."""
    from gitgarden.services.health import health as project_health
    from gitgarden.wiki import journal

    found = project_health(app.project(), app.now().date())
    for warning in found.warnings:
        err(f"warning: {warning}")
    if as_json:
        out_json(found.to_json())
        return
    figures, aside, headings = found.figures, found.aside, found.headings
    rows = [
        ("pages", str(figures.pages)),
        ("orphans (no other page links to them)", listing(figures.orphans)),
        ("unmapped (the map does not reach them)", listing(figures.unmapped)),
        ("broken links", listing([f"{a} -> {b}" for a, b in figures.broken_links])),
        ("links to a heading the page lacks", listing([f"{a} -> {b}" for a, b in figures.broken_headings])),
        ("duplicate candidates", listing([f"{a} ~ {b}" for a, b in figures.duplicates])),
        ("pages over 6,000 chars", listing(figures.over_budget)),
        ("map size", f"{figures.map_chars} / {figures.map_ceiling} chars"),
        ("stale open pages", listing(figures.stale)),
        ("superseded pages", listing(figures.superseded)),
        ("unread journal lines", str(figures.unread_lines)),
        ("journal lines set aside", str(len(aside))),
        ("heading lines in the journal", str(len(headings))),
        ("open questions", str(figures.open_questions)),
    ]
    for label, value in rows:
        echo(f"{label:40} {value}")
    if headings:
        echo(f"note: {journal.heading_warning(headings)}")
    for advice in figures.split_advice:  # the person's pages: a pass never splits them on its own
        if advice["cut"]:
            cut = ", ".join(f"## {h}" for h in advice["cut"])
            echo(f"advice: {advice['page']} is {advice['chars']} chars; `gitgarden split` would move {cut}")
        else:
            echo(
                f"advice: {advice['page']} is {advice['chars']} chars and has no `##` sections a split could move: "
                "give it `##` headings, or split it by hand"
            )
    render_set_aside(found.to_json()["set_aside"])


@cli.group()
def llm() -> None:
    """The model: what is configured and whether it answers."""


@llm.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--no-probe", is_flag=True, help="Do not make the one tiny call that checks reachability.")
@pass_app
def llm_status(app: App, as_json: bool, no_probe: bool) -> None:
    """Configured model, endpoint, context window, structured-output mode, small or full mode, key sent or
    withheld, reachable, and the endpoint's measured pace with what a pass fits into timeout."""
    from gitgarden.errors import NotAProject
    from gitgarden.services.llm import llm_status

    try:
        project = app.project()
    except NotAProject:
        project = None
    resolved = app.settings(project)
    settings = resolved.settings
    data = llm_status(settings, app.env, probe=not no_probe and bool(settings.model), now=app.now())
    if as_json:
        if not data["configured"]:
            data["local_servers"] = app.local_models()
        out_json(data)
    else:
        _render_llm_status(data, resolved.sources)
        if not data["configured"]:
            app.say_local_models()
    if data["reachable"] is False:
        sys.exit(1)


def _render_llm_status(data: dict[str, Any], sources: Mapping[str, str]) -> None:
    """The status in words: a person reads 'yes' and 'not checked', not True and null."""
    rows: list[tuple[str, str]] = []
    if not data["configured"]:
        rows.append(("model", "none configured"))
    else:
        rows.append(("model", f"{data['model']} (from {sources.get('model', 'default')})"))
        rows.append(("endpoint", str(data["endpoint"])))
    rows.append(("context window", f"{data['context_window']:,} tokens"))
    if data["configured"]:
        rows.append(("structured output", str(data["structured_output"])))
        rows.append(("mode", f"{data['mode']} ({data['mode_why']})"))
    key = {"sent": "sent", "withheld": "withheld", "none": "none configured"}[data["api_key"]]
    if data["api_key_source"]:
        key += f" (from {data['api_key_source']})"
    rows.append(("API key", key))
    if data.get("speed_said"):
        rows.append(("speed", str(data["speed_said"])))
        rows.append(("fits", str(data["fit"])))
    if data["reachable"] is True:
        rows.append(("reachable", "yes"))
    elif data["reachable"] is False:
        rows.append(("reachable", f"no: {data['error']}"))
    else:
        rows.append(("reachable", "not checked" + (" (no model)" if not data["configured"] else " (--no-probe)")))
    for label, value in rows:
        echo(f"{label:18} {value}")
    if data["api_key_withheld"]:
        err(data["api_key_withheld"])
    if not data["configured"]:
        err(
            "No model is configured. Set one, e.g. `gitgarden config set --user model openai/gpt-4o-mini` "
            "(or GITGARDEN_MODEL) and store its key with `gitgarden keys set openai`; for a local server "
            "(llama.cpp, ollama) also set api_base, e.g. `gitgarden config set --user api_base http://127.0.0.1:8080/v1`."
        )


def main() -> None:
    """Entry point of the `gitgarden` command and `python -m gitgarden`."""
    cli(obj=App(), complete_var="_GITGARDEN_COMPLETE")  # the same under `python -m gitgarden`
