"""`gitgarden log`, `show`, `undo`, `stop` and `reread`: parse, call `gitgarden.history`, render
(`review` is `cli.review`).

Imported by `cli.main` for every command, so it stays cheap: git work and rich
are imported inside the commands that use them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from gitgarden.history.passlog import PassEntry

import getpass
import socket

from rich.console import Console
from rich.table import Table

from gitgarden.cli.app import (
    App,
    complete_passes,
    echo,
    err,
    git_policy,
    out_json,
    pass_app,
    render_figures,
    visible,
)
from gitgarden.gardener.reread import reread
from gitgarden.history import passlog as history
from gitgarden.history.undo import undo
from gitgarden.services.run import stop
from gitgarden.wiki.captured import claim

__all__ = ["log_cmd", "show_cmd", "undo_cmd", "stop_cmd", "reread_cmd"]  # the commands, which `cli.main` loads by name


def _short(sha: str) -> str:
    return sha[:10] if sha else ""


def _when(when: str) -> str:
    return when[:16].replace("T", " ") if when else "?"


def _note(entry: PassEntry) -> str:
    bits = [entry.trigger.split(" <")[0]] if entry.trigger else []
    if entry.captured_by:
        bits.append("captured through MCP by " + ", ".join(f"{claim(who)}: {len(ids)}" for who, ids in entry.captured_by.items()))
    if entry.undone_by:
        bits.append(f"undone by {_short(entry.undone_by)}")
    if entry.review == "waiting":
        bits.append("waits for review")
    elif entry.review:
        bits.append(f"review: {entry.review}")
    detail = str((entry.record or {}).get("detail") or "")
    if not entry.commit and detail:
        bits.append(detail)
    return "; ".join(bits)


def _colour_diff(diff: str) -> str:
    """`diff` with git's colours: file headers bold, hunks cyan, removals red, additions green."""
    out = []
    for line in diff.splitlines(keepends=True):
        body, end = (line[:-1], "\n") if line.endswith("\n") else (line, "")
        if line.startswith(("diff --git", "index ", "--- ", "+++ ", "new file", "deleted file", "similarity", "rename ")):
            out.append(click.style(body, bold=True) + end)
        elif line.startswith("@@"):
            out.append(click.style(body, fg="cyan") + end)
        elif line.startswith("-"):
            out.append(click.style(body, fg="red") + end)
        elif line.startswith("+"):
            out.append(click.style(body, fg="green") + end)
        else:
            out.append(line)
    return "".join(out)


def _wants_colour(env: Any) -> bool:
    """Colour on a terminal, unless NO_COLOR is set or the terminal is dumb."""
    return not env.get("NO_COLOR") and env.get("TERM", "") != "dumb"


@click.command("log")
@click.option("-n", "limit", type=click.IntRange(min=1), help="Show only the N newest passes.")
@click.option("--json", "as_json", is_flag=True, help="Plain JSON (a list of passes), nothing else.")
@pass_app
def log_cmd(app: App, limit: int | None, as_json: bool) -> None:
    """The gardener's passes, newest first, read from the pass commits (and attempts that made none)."""

    project = app.project()
    entries = history.passes(project.root, limit)
    if as_json:
        out_json([e.to_json() for e in entries])
        return
    if not entries:
        err("The gardener has made no pass here yet (gitgarden run makes one).")
        return
    columns = ("when", "pass", "outcome", "read", "created", "appended", "split", "refused", "tokens", "model", "commit", "note")
    rows: list[tuple[str, ...]] = [
        (
            _when(e.when),
            e.pass_id,
            e.outcome,
            str(e.read),
            str(e.created),
            str(e.appended),
            str(e.split),
            str(e.refused),
            str(e.tokens),
            e.model or "-",
            _short(e.commit) or "-",
            _note(e),
        )
        for e in entries
    ]
    rows = [tuple(visible(cell) for cell in row) for row in rows]  # a note may quote a record's text
    if not sys.stdout.isatty():  # piped: one tab-separated line a pass, nothing cut short
        echo("\t".join(columns))
        for row in rows:
            echo("\t".join(row))
        return

    console = Console()
    headers = ("when", "pass", "outcome", "read", "new", "app", "spl", "ref", "tokens", "model", "commit", "")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    fixed = sum(widths[:-1]) + 2 * (len(headers) - 1)
    if console.width - fixed < 12:  # the table would not fit: two short lines a pass instead
        for line in _log_lines(rows, console.width):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        return

    room = console.width - fixed
    table = Table(box=None, pad_edge=False, header_style="bold")
    for i, name in enumerate(headers):
        table.add_column(name, justify="right" if 3 <= i <= 8 else "left", no_wrap=True, min_width=widths[i] if i < 11 else None)
    for row in rows:
        note = row[-1] if len(row[-1]) <= room else row[-1][: room - 1] + "…"
        table.add_row(*row[:-1], note)
    console.print(table)


def _log_lines(rows: Sequence[tuple[str, ...]], width: int) -> list[str]:
    """The log for a narrow terminal (80 columns): per pass, when, id, outcome and commit on one
    line, then its figures, model and note indented below, cut to `width`."""
    out: list[str] = []
    for when, pass_id, outcome, read, created, appended, split, refused, tokens, model, commit, note in rows:
        out.append(_cut(f"{when[5:]}  {pass_id}  {outcome}" + (f"  {commit}" if commit != "-" else ""), width))
        figures = f"read {read}, new {created}, appended {appended}"
        figures += f", split {split}" if split != "0" else ""
        figures += f", refused {refused}" if refused != "0" else ""
        figures += f"; {tokens} tokens, {model}" if model != "-" else ""
        out.append(_cut(f"             {figures}" + (f"; {note}" if note else ""), width))
    return out


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[: max(1, width - 1)] + "…"


def _list(record: dict[str, Any] | None, key: str) -> list[str]:
    value = (record or {}).get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def skipped_lines(record: dict[str, Any] | None) -> list[str]:
    """The lines a pass read because a skip cited them, each with its reason, and how to have them back."""
    items = [s for s in ((record or {}).get("skipped") or []) if isinstance(s, dict)]
    if not items:
        return []
    out = [f"skipped:  {len(items)} line(s), read without a page (`gitgarden reread LINE-ID` gives one back):"]
    for item in items:
        out.append(f"  {item.get('line', '?')} ({item.get('reason') or 'no reason given'}): {item.get('text', '')}")
    return out


def unread_lines(record: dict[str, Any] | None) -> list[str]:
    """The lines a pass offered and left unread, each with why (its request failed, the model was
    unsure, an operation citing it was refused): the next pass offers them again."""
    items = [s for s in ((record or {}).get("unread") or []) if isinstance(s, dict)]
    if not items:
        return []
    out = [f"unread:   {len(items)} line(s) left for the next pass:"]
    for item in items:
        out.append(f"  {item.get('line', '?')} ({item.get('reason') or 'no reason given'}): {item.get('text', '')}")
    return out


def _job_lines(record: dict[str, Any] | None) -> list[str]:
    """The jobs a pass ran and what each came to (records older than `run --job` have none)."""
    jobs = _list(record, "jobs")
    if not jobs:
        return []
    figures = (record or {}).get("job_figures")
    figures = figures if isinstance(figures, dict) else {}
    out = [f"jobs:     {', '.join(jobs)}"]
    for job in jobs:
        if isinstance(figures.get(job), dict):
            out.append(f"  {job}: {render_figures(figures[job])}")
    return out


def _grounding_lines(record: dict[str, Any] | None) -> list[str]:
    """Why rule 11 refused each sentence, at a glance: its score, the words its cited lines lack and
    the other offered lines that hold them (records older than this have none)."""
    entries = (record or {}).get("grounding")
    out: list[str] = []
    for e in entries if isinstance(entries, list) else []:
        if not isinstance(e, dict):
            continue
        score, threshold = e.get("score"), e.get("threshold")
        figure = f"{score:.2f}" if isinstance(score, int | float) else "?"
        if isinstance(threshold, int | float) and isinstance(score, int | float) and score < threshold:
            figure += f" < {threshold:.2f}"
        where = f" (round {e['round']})" if e.get("round", 1) != 1 else ""
        out.append(f"grounding: {e.get('op', '?')}{where}, {e.get('page', '?')}: {json.dumps(str(e.get('sentence', '')), ensure_ascii=False)}")
        unfounded = [str(w) for w in e.get("unfounded") or []]
        missing = [str(w) for w in e.get("missing") or []]
        out.append(f"  scored {figure}; cited {', '.join(map(str, e.get('cited') or [])) or 'nothing'}")
        if unfounded:
            out.append(f"  numbers and names not in the cited lines: {', '.join(unfounded)}")
        if missing:
            out.append(f"  words not in the cited lines: {', '.join(missing)}")
        holding = e.get("lines_holding")
        for line_id, held in (holding.items() if isinstance(holding, dict) else []):
            out.append(f"  in {line_id}, not cited: {', '.join(map(str, held))}")
    return out


@click.command("show")
@click.argument("pass_ref", metavar="[PASS]", required=False, shell_complete=complete_passes)
@click.option("--json", "as_json", is_flag=True, help="The record and the diff as JSON.")
@pass_app
def show_cmd(app: App, pass_ref: str | None, as_json: bool) -> None:
    """One pass (a pass id or a commit; default the latest): its record, then its diff, pages first."""

    project = app.project()
    shown = history.show(project.root, pass_ref)
    if as_json:
        out_json(shown.to_json())
        return
    e, rec = shown.entry, shown.record
    lines = [f"pass {e.pass_id}" + (f"  commit {e.commit}" if e.commit else "  (no commit)")]
    lines.append(f"when:     {e.when}")
    lines.append(f"outcome:  {e.outcome}" + (f" — {e.message}" if e.message else ""))
    lines.append(f"read:     {e.read} line(s)")
    for who, ids in e.captured_by.items():
        lines.append(f"  captured through MCP by {claim(who)}: {', '.join(ids)}")
    lines.append(f"pages:    {e.created} created, {e.appended} appended, {e.split} split; {e.refused} refusal(s)")
    cost = "unknown" if e.cost is None else f"${e.cost:.4f}"
    mode = f" ({rec['mode']} mode)" if rec and rec.get("mode") else ""
    lines.append(f"model:    {e.model or 'none'}{mode}, {e.tokens} tokens, cost {cost}")
    if rec and rec.get("fit"):
        lines.append(f"fit:      {rec['fit']}")
    if e.snapshot:
        lines.append(f"snapshot: {e.snapshot}")
    if e.undone_by:
        lines.append(f"undone by {e.undone_by}")
    if e.review:
        lines.append(f"review:   {e.review}")
    for label, key in (("created", "created"), ("appended", "appended"), ("split", "split"), ("tidied", "tidied")):
        items = _list(rec, key)
        if items:
            lines.append(f"{label}: {', '.join(items)}")
    for refusal in _list(rec, "refusals"):
        lines.append(f"refused: {refusal}")
    lines.extend(_grounding_lines(rec))
    lines.extend(skipped_lines(rec))
    lines.extend(unread_lines(rec))
    if rec and rec.get("recovery"):
        lines.append(f"recovery: {rec['recovery']}")
    if rec and rec.get("stop"):
        stop = rec["stop"]
        lines.append(f"stop requested by {stop.get('who', '?')} at {stop.get('when', '?')}")
    lines.extend(_job_lines(rec))
    text = "\n".join(lines) + "\n"
    if not sys.stdout.isatty():
        echo(text + ("\n" + shown.diff if shown.diff else ""), nl=False)
        return
    # Like `git show`: through the pager, coloured, and gone when it fits on one screen.
    colour = _wants_colour(app.env)
    text = visible(text, lines=True)  # stored text escaped before the pager's colours go in
    if shown.diff:
        diff = visible(shown.diff, lines=True)
        text += "\n" + (_colour_diff(diff) if colour else diff)
    os.environ.setdefault("LESS", "FRX")  # git's default for its pager; only the pager reads it
    click.echo_via_pager(text, color=colour)


@click.command("undo")
@click.argument("pass_ref", metavar="[PASS]", required=False, shell_complete=complete_passes)
@click.option("--reread", is_flag=True, help="Make the lines the pass read unread again (the next pass reads them).")
@click.option("--json", "as_json", is_flag=True, help="What was done, as JSON.")
@pass_app
def undo_cmd(app: App, pass_ref: str | None, reread: bool, as_json: bool) -> None:
    """Take back one pass (default: the latest) with a new commit; history is never rewritten."""

    project = app.project()
    with git_policy(app, project):
        result = undo(project.root, pass_ref, reread=reread, now=app.now())
    if as_json:
        out_json(result.to_json())
        return
    err(
        f"Undid pass {result.pass_id} ({_short(result.undone_commit)}) in commit {_short(result.commit)}: "
        f"{len(result.restored)} file(s) put back."
    )
    if reread:
        err(f"  {result.unread} journal line(s) are unread again.")
    elif result.read_by_pass:
        err(f"  The {result.read_by_pass} journal line(s) it read stay read (--reread would make them unread).")
    else:
        err("  It read no journal line.")


@click.command("reread")
@click.argument("targets", nargs=-1, required=True, metavar="LINE-ID|DAY...")
@click.option("--json", "as_json", is_flag=True, help="What was done, as JSON.")
@pass_app
def reread_cmd(app: App, targets: tuple[str, ...], as_json: bool) -> None:
    """Make journal lines unread again (a line id such as 2026-11-29#3, or a whole day), without undoing a pass."""
    project = app.project()
    with git_policy(app, project):
        result = reread_lines(app, project, targets)
    if as_json:
        out_json(result.to_json())


def reread_lines(app: App, project: Any, targets: Sequence[str]) -> Any:
    """`gitgarden reread` (and `run --reread`): the lines made unread, said on stderr."""

    result = reread(project.root, project.journal, list(targets), now=app.now())
    if result.lines:
        err(f"{len(result.lines)} journal line(s) unread again (commit {_short(result.commit)}): the next pass offers them.")
    if result.already_unread:
        err(f"  already unread: {', '.join(result.already_unread)}")
    return result


def _who() -> str:

    try:
        user = getpass.getuser()
    except (OSError, KeyError):
        user = "someone"
    return f"{user}@{socket.gethostname()}"


@click.command("stop")
@pass_app
def stop_cmd(app: App) -> None:
    """Ask the running pass to stop now (a model call in flight is abandoned); it keeps what it committed."""

    holder = stop(app.project(), who=_who(), when=app.now())
    if holder is None:
        err("No pass is running: nothing to stop.")
        return
    err(
        f"Asked pass {holder.get('pass_id', '?')} (pid {holder.get('pid', '?')}) to stop; "
        "it stops within a second, leaving a model call in flight unanswered, and writes nothing more."
    )
