"""Commands for scheduling: `tick`, `projects`, `timer`, `status`.

Every `gitgarden` call imports this module, and the timer calls `gitgarden
tick` every minute: importing it must stay cheap. The gardener, the model
library and rich are imported inside the commands that need them.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gitgarden.cli.app import (
    App,
    echo,
    err,
    out_json,
    pass_app,
    render_set_aside,
    settle_model_threads,
    show_value,
    table,
)
from gitgarden.config import load_settings, state_dir
from gitgarden.config import timer_env_file as env_file
from gitgarden.errors import GitgardenError, NotAProject
from gitgarden.project import Project, find_project
from gitgarden.schedule import clocks, registry
from gitgarden.services.status import list_projects, project_status
from gitgarden.wiki.journal import heading_warning

if TYPE_CHECKING:
    from gitgarden.schedule.tick import Assessment, TickReport
    from gitgarden.schedule.timers import Crontab

__all__ = ["tick", "projects", "timer", "status"]  # the commands, which `cli.main` loads by name


# -- tick -------------------------------------------------------------------------------


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the tick's record as JSON.")
@pass_app
def tick(app: App, as_json: bool) -> None:
    """Look at every registered project and run at most one pass: what cron or a systemd timer calls.

    A tick called sooner than interval_min after the last one that looked does
    nothing. Exit status: the pass's when one ran; else 1 when a registered
    project could not be looked at (malformed config, folder gone); else 0.
    """
    # only here: `status` must not load the tick (test_startup)
    from gitgarden.schedule.tick import run_tick

    report = run_tick(app.env, app.now, lambda a: _run_one(app, a), on_message=err)
    if report.looked or report.reason == "disabled":
        for warning in report.warnings:
            err(f"warning: {warning}")
    if as_json:
        out_json(report.as_dict())
    else:
        _render_tick(report)
    settle_model_threads()
    sys.exit(report.exit_code)


def _run_one(app: App, a: Assessment) -> Any:
    # only here: the pass machinery, which `status` never loads
    from gitgarden.services import run as passes

    settings = a.settings
    assert settings is not None  # an eligible project's settings were read
    err(f"Gardening {a.name} ({a.root})…")
    # The tick records the attempt itself: a pass that could not even start counts as failed too.
    result = passes.run(
        Project(a.root), settings, env=app.env, now=app.now, model_factory=app.model_factory, on_progress=err, trigger="tick", record=False
    )
    for hint in result.hints:
        err(hint)
    return result


def _holds(a: Assessment) -> str:
    return "; ".join(str(h) for h in a.holds)


def _render_tick(report: TickReport) -> None:
    if report.reason == "disabled":
        err("The periodic pass is disabled (enabled = false); `gitgarden run` still works in a project.")
    if report.reason == "busy":
        err("Another tick is still running its pass: this one did nothing.")
    if report.reason == "interval" and report.next_look and sys.stderr.isatty():
        # Under a timer this is every minute but one: tick.log keeps only ticks that looked.
        err(
            f"Not looking yet: the last look was under interval_min ago; the next look is at "
            f"{_when(report.next_look)} ({report.registered} registered project(s); `gitgarden status` in one says what it waits for)."
        )
    if not report.looked:
        return
    for a in report.skipped:
        err(f"skipped {a.name}: {a.error}")
    if report.ran is not None:
        commit = f" (commit {report.ran['commit'][:10]})" if report.ran.get("commit") else ""
        err(f"{report.ran['name']}: {report.ran['message']}{commit}")
    elif not report.waiting and not report.skipped:
        err(f"Nothing to garden in {report.registered} registered project(s).")
    for a in report.waiting:
        err(f"waiting: {a.name} — {_holds(a)}")


# -- projects -----------------------------------------------------------------------------


@click.group()
def projects() -> None:
    """The projects `gitgarden tick` looks at (on this machine)."""


@projects.command("add")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@pass_app
def projects_add(app: App, path: Path | None) -> None:
    """Register the project at PATH (default: the one you stand in) for `gitgarden tick`."""

    root = find_project(path).root
    if registry.register(root, app.env):
        err(f"Registered {root} for gitgarden tick.")
    else:
        err(f"{root} was already registered.")


@projects.command("remove")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
@pass_app
def projects_remove(app: App, path: Path | None) -> None:
    """Stop `gitgarden tick` looking at PATH (default: here); works for a folder that is gone."""

    target = (path or Path.cwd()).expanduser().absolute()
    candidates = [target, target.resolve()]
    with contextlib.suppress(NotAProject):
        candidates.append(find_project(target).root)
    for candidate in candidates:
        if registry.unregister(candidate, app.env):
            err(f"Removed {candidate} from gitgarden tick.")
            return
    raise GitgardenError(f"{target} is not registered (see `gitgarden projects list`)")


@projects.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@pass_app
def projects_list(app: App, as_json: bool) -> None:
    """The registered projects: whether each exists and is enabled, its last attempt and failures."""

    rows = list_projects(app.env)
    if as_json:
        out_json(rows)
        return
    if not rows:
        err("No projects registered: run `gitgarden projects add` in a project.")
        return
    table(
        ["path", "exists", "enabled", "last attempt", "outcome", "failures in a row"],
        [
            [
                r["path"],
                "yes" if r["exists"] else "no",
                "config error" if r["error"] else ("-" if r["enabled"] is None else show_value(r["enabled"])),
                r["last_attempt"] or "never",
                r["last_outcome"] or "-",
                str(r["consecutive_failures"]),
            ]
            for r in rows
        ],
    )
    for r in rows:
        if r["error"]:
            err(f"warning: {r['error']}")


# -- timer -------------------------------------------------------------------------------------


def _crontab(env: Mapping[str, str]) -> Crontab:
    # only here: `status` must not load the timers (test_startup)
    from gitgarden.schedule import timers

    return timers.SystemCrontab(env)


def _kind_options(func: Callable[..., Any]) -> Callable[..., Any]:
    func = click.option("--cron", "kind", flag_value="cron", help="A line in your crontab.")(func)
    func = click.option("--systemd", "kind", flag_value="systemd", help="systemd user units (the default on Linux).")(func)
    return func


def _kind(kind: str | None) -> str:
    return kind or ("systemd" if sys.platform.startswith("linux") else "cron")


@click.group()
def timer() -> None:
    """Run `gitgarden tick` every minute from a systemd user timer or cron.

    The tick applies enabled and interval_min itself, so changing them needs
    no reinstall.
    """


@timer.command("print")
@_kind_options
@pass_app
def timer_print(app: App, kind: str | None) -> None:
    """Write the unit files (or the crontab line) to stdout without installing anything."""
    # only here, as in `_crontab`
    from gitgarden.schedule import timers

    command = timers.tick_command()
    if _kind(kind) == "cron":
        echo(timers.cron_line(command, app.env))
        return
    folder = timers.systemd_dir(app.env)
    for name, text in timers.systemd_units(command, app.env).items():
        echo(f"# --- {folder / name} ---")
        echo(text)


@timer.command("install")
@_kind_options
@pass_app
def timer_install(app: App, kind: str | None) -> None:
    """Install the systemd user units (and print the systemctl steps) or the crontab line."""
    # only here, as in `_crontab`
    from gitgarden.schedule import timers

    command = timers.tick_command()
    interval = load_settings(None, env=app.env).settings.interval_min
    envf = timers.env_file(app.env)
    crontab = _crontab(app.env) if _kind(kind) == "cron" else None
    if crontab is not None:
        crontab.read()  # no crontab program (or one that fails): refused before anything is written
    if timers.ensure_env_file(app.env):
        err(f"Wrote {envf} (mode 0600, every line commented out): the timer's environment.")
    if crontab is not None:
        line = timers.cron_line(command, app.env)
        state_dir(app.env).mkdir(parents=True, exist_ok=True)  # the log's folder must exist for `>>`
        done = timers.install_cron(line, crontab)
        err(f"crontab: gitgarden line {done}:\n  {line}")
        err(f"It runs every minute; the tick looks every interval_min ({interval}) minutes. Output goes to {state_dir(app.env) / 'tick.log'}.")
        err(
            f"cron does not see your shell's environment: the line reads {envf}\n"
            "(KEY=value lines: GITGARDEN_MODEL, GITGARDEN_API_BASE, GITGARDEN_API_KEY), the same file as the\n"
            "systemd service. Keys stored with `gitgarden keys set` are found without it."
        )
        return
    for path, changed in timers.install_systemd(app.env, command):
        err(f"{'Wrote' if changed else 'Unchanged'}: {path}")
    err(
        "gitgarden does not run systemctl for you. To start the timer:\n"
        "  systemctl --user daemon-reload && systemctl --user enable --now gitgarden.timer\n"
        f"It fires every minute; the tick looks every interval_min ({interval}) minutes, so\n"
        "`gitgarden config set --user interval_min N` takes effect without reinstalling.\n"
        "User timers run only while you are logged in. To let passes run while you are\n"
        "logged out (and from boot), allow your user manager to linger:\n"
        "  loginctl enable-linger $USER\n"
        f"The service does not see your shell's environment: put GITGARDEN_MODEL,\n"
        f"GITGARDEN_API_BASE and GITGARDEN_API_KEY as KEY=value lines in {envf}\n"
        "(keys stored with `gitgarden keys set` are found without it)."
    )


@timer.command("uninstall")
@_kind_options
@pass_app
def timer_uninstall(app: App, kind: str | None) -> None:
    """Remove what `timer install` wrote (the units, or the crontab line)."""
    # only here, as in `_crontab`
    from gitgarden.schedule import timers

    if _kind(kind) == "cron":
        removed = timers.uninstall_cron(_crontab(app.env))
        err(f"Removed {removed} gitgarden line(s) from your crontab." if removed else "No gitgarden line in your crontab: nothing changed.")
        return
    gone, left = timers.uninstall_systemd(app.env)
    for path in gone:
        err(f"Removed {path}")
    for path in left:
        err(f"Left {path}: it was not written by gitgarden.")
    if not gone and not left:
        err("No gitgarden units installed: nothing changed.")
    elif gone:
        err("Then: systemctl --user daemon-reload")


# -- status ----------------------------------------------------------------------------------------


def _when(iso: str) -> str:
    """An ISO time from the state, in local time for people."""

    return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")


def _say_no_model(app: App, data: Mapping[str, Any]) -> None:
    """First, before anything else: unread lines no pass can read, for want of a model."""
    if not data["no_model"]:
        return

    if data["no_model"] == "here":
        echo(
            f"  NO MODEL: {data['unread']} unread journal line(s) wait and no model is configured, so no pass "
            "can read them. Set one: `gitgarden config set --user model …` or GITGARDEN_MODEL "
            f"(for the timer: in {env_file(app.env)})."
        )
    elif data["no_model"] == "last_pass":
        failures = data["consecutive_failures"]
        echo(
            f"  NO MODEL in the last pass ({failures} in a row): you have one here, the timer does not. "
            f"Put GITGARDEN_MODEL (and the key) in {env_file(app.env)}."
        )


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@pass_app
def status(app: App, as_json: bool) -> None:
    """The project you stand in: unread lines, whether a tick would garden it now (or what holds it
    back, and until when), the last pass, the lock and the failures in a row."""

    project = app.project()
    data = project_status(project, app.env, app.now())
    aside = data["set_aside"]
    for warning in data["warnings"]:
        err(f"warning: {warning}")
    unset = not load_settings(project.root, env=app.env).settings.model.strip()  # its warnings were said above
    if as_json:
        if unset:
            data["local_servers"] = app.local_models()
        out_json(data)
        return
    echo(f"{data['name']}  ({data['path']})")
    _say_no_model(app, data)
    if unset:
        app.say_local_models()
    echo(f"  unread journal lines: {data['unread']}" + (f" ({len(aside)} more set aside)" if aside else ""))
    if data["journal_headings"]:

        echo(f"  {heading_warning(data['journal_headings'])}")
    render_set_aside(aside)
    if data["map_over_ceiling"]:
        echo(f"  map: {data['map_chars']:,} chars, over its {clocks.MAP_CEILING:,} ceiling")
    if data.get("signal"):
        echo(f"  health: {data['signal']}: a pass is due")
    if not data["work"]:
        echo("  nothing to do: no unread lines, and the map has not grown past its ceiling")
    if data["eligible"]:
        echo("  eligible now: the next tick that looks gardens it (unless another project comes first)")
    elif data["held"]:
        several = len(data["held"]) > 1 and data["eligible_at"] and data["work"]
        echo("  held back" + (f" (eligible from {_when(data['eligible_at'])})" if several else "") + ":")
        for hold in data["held"]:
            until = f" (until {_when(hold['until'])})" if hold["until"] else ""
            echo(f"    {hold['clock']}: {hold['detail']}{until}")
    if data.get("remote"):
        echo(f"  remote: {data['remote']} (as last fetched)")
    if data["last_attempt"]:
        pass_id = f" [{data['last_pass_id']}]" if data["last_pass_id"] else ""
        echo(f"  last pass: {_when(data['last_attempt'])}: {data['last_message'] or data['last_outcome']}{pass_id}")
    else:
        echo("  last pass: never (no pass record in log/ or on this machine)")
    skipped = data.get("skipped") or {}
    if skipped.get("lines"):
        echo(
            f"  skipped: {skipped['lines']} journal line(s) read without a page by the last {skipped['passes']} pass(es); "
            "`gitgarden show PASS` lists them with the reasons, `gitgarden reread LINE-ID|DAY` gives them back"
        )
    for why, n in sorted((data.get("last_unread") or {}).items(), key=lambda kv: -kv[1]):
        echo(f"  left unread by the last pass: {n} line(s): {why}")
    echo(f"  failed passes in a row: {data['consecutive_failures']}")
    lock = data["lock"]
    if lock is None:
        echo("  lock: free")
    else:
        echo(f"  lock: held by pass {lock.get('pass_id', '?')} (started {lock.get('started', '?')}, pid {lock.get('pid', '?')})")
    t = data["tick"]
    looks = f"looks every {t['interval_min']} min" + (f", next look {_when(t['next_look'])}" if t["next_look"] else "")
    echo(f"  tick: {'enabled' if t['enabled'] else 'disabled'}, {looks}")
