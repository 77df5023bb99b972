"""`gitgarden review [show PASS] | accept [PASS] [--only N…|--choose] | reject [PASS]`: what waits on
the branch gitgarden/review, and bringing it in or dropping it — whole passes, or the items of one
pass (each new page, append, link, split and map entry) taken one by one (`services.review`).
"""

from __future__ import annotations

from typing import Any

import click

from gitgarden.cli.app import App, complete_passes, echo, err, git_policy, out_json, pass_app
from gitgarden.history import review
from gitgarden.services.review import accept_items, items_of, parse_numbers

__all__ = ["review_group"]  # the commands, which `cli.main` loads by name


def _short(sha: str) -> str:
    return sha[:10] if sha else ""


# Files every pass changes for its own bookkeeping: the review shows the pages, not these.
_BOOKKEEPING = (".gitgarden/read.json", "log/")


def _without_bookkeeping(diff: str) -> tuple[str, list[str]]:
    """`diff` (git's format) without the sections of the read position and the log records; the paths left out."""
    kept: list[str] = []
    left_out: list[str] = []
    skipping = False
    for line in diff.splitlines(keepends=True):
        if line.startswith("diff --git "):
            path = line.rstrip("\n").rsplit(" b/", 1)[-1]
            skipping = path == _BOOKKEEPING[0] or path.startswith(_BOOKKEEPING[1])
            if skipping:
                left_out.append(path)
        if not skipping:
            kept.append(line)
    return "".join(kept), left_out




@click.group("review", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="What waits, as JSON.")
@click.pass_context
def review_group(ctx: click.Context, as_json: bool) -> None:
    """What waits on the branch gitgarden/review (review mode): its passes and their diff, pages first."""
    if ctx.invoked_subcommand is not None:
        return

    app = ctx.ensure_object(App)
    project = app.project()
    status = review.review_status(project.root)
    if as_json:
        out_json(status.to_json())
        return
    if status.tip is None:
        err("Nothing waits for review.")
        return
    echo(f"{len(status.passes)} pass(es) wait on {review.REVIEW_BRANCH} ({_short(status.tip)}):")
    for e in status.passes:
        echo(
            f"  {e.pass_id}  {e.outcome}: {e.created} created, {e.appended} appended, {e.split} split, "
            f"{e.read} line(s) read  ({_short(e.commit)})"
        )
    pages = [f for f in status.files if f != _BOOKKEEPING[0] and not f.startswith(_BOOKKEEPING[1])]
    echo(f"files: {', '.join(pages) or '(none but the bookkeeping)'}")
    diff, left_out = _without_bookkeeping(status.diff)
    if diff:
        echo("")
        echo(diff, nl=False)
    if left_out:
        err(f"(not shown: {', '.join(left_out)}: the read position and the passes' records)")
    err("Accept with `gitgarden review accept [PASS]`, drop with `gitgarden review reject [PASS]` (PASS: one of them, else all).")


@review_group.command("show")
@click.argument("pass_ref", metavar="PASS", shell_complete=complete_passes)
@click.option("--json", "as_json", is_flag=True, help="The items as JSON.")
@pass_app
def review_show(app: App, pass_ref: str, as_json: bool) -> None:
    """The items of the waiting pass PASS, numbered: each new page, append, link, state change, split
    and map entry, with the journal lines it cites (take some with `review accept PASS --only N…`)."""

    project = app.project()
    found = items_of(project.root, pass_ref)
    if as_json:
        out_json(found.to_json())
        return
    echo(f"Pass {found.pass_id} ({_short(found.commit)}): {len(found.items)} item(s)")
    for item in found.items:
        echo(_item_line(item))
        for kind, text in [("-", t) for t in item.removed()][:6] + [("+", t) for t in item.added()][:8]:
            echo(f"      {kind} {text}")
    err(f"Take some with `gitgarden review accept {found.pass_id} --only 1 3` (or --choose); the lines of the others come back unread.")


def _item_line(item: Any) -> str:
    cites = f"  (from {', '.join(item.lines)})" if item.lines else ""
    return f"  {item.number:>2}. [{item.kind}] {item.summary}{cites}"


def _choose(found: Any) -> set[int]:
    """Ask, item by item, which to take (Enter takes it)."""
    taken: set[int] = set()
    for item in found.items:
        err(_item_line(item))
        if click.confirm(f"  Take item {item.number}?", default=True, err=True):
            taken.add(item.number)
    return taken


@review_group.command("accept")
@click.argument("pass_ref", metavar="[PASS]", required=False, shell_complete=complete_passes)
@click.option("--only", "only", multiple=True, metavar="N…", help="Take only these items of PASS (numbers as `review show PASS` lists them: 1 3, 1,3 or 2-4); the rest are dropped.")
@click.option("--choose", is_flag=True, help="Ask item by item which of PASS's items to take.")
@click.option("--keep-read", is_flag=True, help="With --only/--choose: the lines of the items left out stay read (by default they come back unread).")
@click.option("--json", "as_json", is_flag=True, help="What was done, as JSON.")
@pass_app
def review_accept(app: App, pass_ref: str | None, only: tuple[str, ...], choose: bool, keep_read: bool, as_json: bool) -> None:
    """Bring what waits in (or only PASS, or only some items of PASS): fast-forward when possible,
    else a commit; refuses on conflicts."""

    project = app.project()
    if only or choose:
        if pass_ref is None:
            raise click.UsageError("--only and --choose take the items of one pass: name it (gitgarden review accept PASS --only 1 3)")
        _accept_items(app, project, pass_ref, only, choose, keep_read, as_json)
        return
    with git_policy(app, project):
        result = review.accept(project.root, pass_ref)
    if as_json:
        out_json(None if result is None else result.to_json())
        return
    if result is None:
        err("Nothing waits for review.")
        return
    how = {"fast-forward": "fast-forward", "merge": f"merge commit {_short(result.commit)}"}.get(result.kind, f"commit {_short(result.commit)}")
    if pass_ref is None:
        err(f"Accepted {len(result.passes)} pass(es) ({how}).")
    else:
        err(f"Accepted pass {result.passes[0]} ({how}); {len(result.waiting)} pass(es) still wait.")


def _accept_items(app: App, project: Any, pass_ref: str, only: tuple[str, ...], choose: bool, keep_read: bool, as_json: bool) -> None:
    """`review accept PASS --only N… | --choose`: the items taken, as one commit."""

    found = items_of(project.root, pass_ref)
    taken = _choose(found) if choose else parse_numbers(only, len(found.items))
    with git_policy(app, project):
        result = accept_items(project.root, found.pass_id, taken, keep_read=keep_read)
    if as_json:
        out_json(result.to_json())
        return
    taken_said = ", ".join(map(str, result.taken))
    err(f"Took item(s) {taken_said} of pass {result.pass_id} in commit {_short(result.commit)}; {len(result.waiting)} pass(es) still wait.")
    if result.followed:
        err(f"  Map entr{'y' if len(result.followed) == 1 else 'ies'} {', '.join(map(str, result.followed))} left out with the page{'s' if len(result.followed) > 1 else ''} they name.")
    if result.rejected:
        lines = "stay read" if keep_read else (f"{len(result.unread)} journal line(s) are unread again" if result.unread else "no journal line came back")
        err(f"  Left out: {', '.join(map(str, result.rejected))}; {lines}.")


@review_group.command("reject")
@click.argument("pass_ref", metavar="[PASS]", required=False, shell_complete=complete_passes)
@click.option(
    "--reread/--keep-read",
    default=True,
    help="The lines those passes read become unread again, so a later pass offers them (default); --keep-read keeps them read.",
)
@click.option("--json", "as_json", is_flag=True, help="What was done, as JSON.")
@pass_app
def review_reject(app: App, pass_ref: str | None, reread: bool, as_json: bool) -> None:
    """Drop what waits on gitgarden/review (or only PASS); the lines it read are unread again (--keep-read keeps them read)."""

    project = app.project()
    with git_policy(app, project):
        result = review.reject(project.root, reread=reread, now=app.now(), pass_ref=pass_ref)
    if as_json:
        out_json(None if result is None else result.to_json())
        return
    if result is None:
        err("Nothing waits for review.")
        return
    if pass_ref is None:
        err(f"Dropped {len(result.passes)} pass(es) (the branch was at {_short(result.dropped_tip)}).")
    else:
        err(f"Dropped pass {result.passes[0]}; {len(result.waiting)} pass(es) still wait.")
    err(
        "  Their journal lines are unread again: the next pass offers them."
        if reread
        else f"  Their journal lines stay read (commit {_short(result.commit)})."
    )
