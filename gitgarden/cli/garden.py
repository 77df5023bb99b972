"""`gitgarden init`, `run`, `schema`, `health` and `llm`: make a project, garden it, look at it.

`cli.main` loads this module only when one of these commands is named (its `ELSEWHERE`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

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
from gitgarden.cli.history import reread_lines
from gitgarden.cli.progress import display
from gitgarden.errors import GitgardenError, NotAProject
from gitgarden.gardener.jobs import JOBS
from gitgarden.gardener.setaside import on_disk
from gitgarden.model.operations import schema as op_schema
from gitgarden.project import init_project, of_root_or_default
from gitgarden.repo import gitrepo
from gitgarden.services import run as passes
from gitgarden.services.health import health as project_health
from gitgarden.services.llm import llm_status as status_of_model
from gitgarden.wiki import journal
from gitgarden.wiki.layout import active

__all__ = ["init", "run", "schema", "health", "llm"]  # the commands, which `cli.main` loads by name


@click.command()
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--register/--no-register", default=None, help="Register the project for `gitgarden tick` (asked when interactive).")
@pass_app
def init(app: App, path: Path | None, register: bool | None) -> None:
    """Make a project folder (git repo, journal, wiki, map) at PATH (default: here)."""

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


@click.command()
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

        with gitrepo.git_policy(gitrepo.GitPolicy(timeout=float(settings.git_timeout), sign_commits=settings.sign_commits)):
            reread_lines(app, project, reread)

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
        kinds: dict[str, int] = {}
        for item in result.skipped:
            kinds[item["reason"]] = kinds.get(item["reason"], 0) + 1
        said = ", ".join(f"{n} {reason}" for reason, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
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


@click.command()
def schema() -> None:
    """Print the JSON Schema of the operations a model returns."""

    out_json(op_schema())


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@pass_app
def health(app: App, as_json: bool) -> None:
    """Deterministic health figures: orphans, broken links, duplicates, oversized pages, the map."""

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


@click.group()
def llm() -> None:
    """The model: what is configured and whether it answers."""


@llm.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@click.option("--no-probe", is_flag=True, help="Do not make the one tiny call that checks reachability.")
@pass_app
def llm_status(app: App, as_json: bool, no_probe: bool) -> None:
    """Configured model, endpoint, context window, structured-output mode, small or full mode, key sent or
    withheld, reachable, and the endpoint's measured pace with what a pass fits into timeout."""

    try:
        project = app.project()
    except NotAProject:
        project = None
    resolved = app.settings(project)
    settings = resolved.settings
    data = status_of_model(settings, app.env, probe=not no_probe and bool(settings.model), now=app.now())
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
