"""`gitgarden guard` and `gitgarden hook install | uninstall | status`: the guard outside a pass.

Parse, call `hook` and `guard`, render. In hook mode (`guard --hook`, what the
installed hook and `.pre-commit-hooks.yaml` run) a passing commit prints
nothing; a refused one prints one line per verdict and a last line saying how
to bypass the hook once.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from gitgarden.cli.app import err, out_json

__all__ = ["register"]


def _toplevel(path: Path | None) -> Path:
    """The project's root when `path` (or here) is inside one — a project below the top of its
    repository is judged by its own paths — else the top of the repository."""
    from gitgarden.errors import GitError, GitgardenError, NotAProject
    from gitgarden.project import find_project
    from gitgarden.repo import gitrepo

    start = path or Path.cwd()
    if not start.is_dir():
        raise GitgardenError(f"{start} is not a folder: `gitgarden guard` checks a git work tree")
    try:
        return find_project(start).root
    except NotAProject:
        pass
    try:
        top = gitrepo.git(start, "rev-parse", "--show-toplevel").decode().strip()
    except GitError:
        top = ""
    if not top:
        raise GitgardenError(
            f"{start.absolute()} is not inside a git work tree: `gitgarden guard` compares a work tree "
            "with a commit (run it in a repository, or `git init` one)"
        )
    return Path(top)


def _layout_of(root: Path, hook_mode: bool) -> Any:
    """The project's layout in force while the guard judges (the default outside a project); in
    hook mode a broken settings file never blocks a commit (one warning line, the default layout)."""
    from gitgarden.errors import ConfigError
    from gitgarden.project import of_root
    from gitgarden.wiki import layout

    if not (root / ".gitgarden").is_dir():
        return layout.active(layout.DEFAULT)
    try:
        return layout.active(of_root(root))
    except ConfigError as exc:
        if not hook_mode:
            raise
        err(f"gitgarden guard: warning: {exc} (the default layout is used)")
        return layout.active(layout.DEFAULT)


def _agent_patterns(root: Path, hook_mode: bool) -> tuple[str, ...]:
    """`guard_agents` for this repository; in hook mode a broken settings file never blocks a
    person's commit (one warning line, and only GITGARDEN_AGENT marks an agent)."""
    from gitgarden.config import load_settings
    from gitgarden.errors import ConfigError

    try:
        resolved = load_settings(root)
    except ConfigError as exc:
        if not hook_mode:
            raise
        err(f"gitgarden guard: warning: {exc} (guard_agents not read)")
        return ()
    return resolved.settings.guard_agents


@click.command()
@click.option("--base", default="HEAD", show_default=True, help="The revision to compare the work tree with.")
@click.option("--staged", is_flag=True, help="Check what the next commit holds (the index against HEAD), as the hook does.")
@click.option("--hook", "hook_mode", is_flag=True, help="Hook mode: --staged, only for an agent's commit, silent when every rule holds.")
@click.option("--verbose", "-v", is_flag=True, help="Also list the checks that need a pass's context and were skipped.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts (and the skipped checks) as JSON.")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
def guard(base: str, staged: bool, hook_mode: bool, verbose: bool, as_json: bool, path: Path | None) -> None:
    """Check the work tree (tracked and untracked) against BASE with the pass's safety rules.

    With --staged, check the index instead: what the next commit holds, judged as an
    agent's commit (new pages may have human names, journal appends are capture).
    Exit 0 when every rule holds, 3 when any is broken.
    """
    from gitgarden.errors import EXIT_GUARD
    from gitgarden.guard import hook
    from gitgarden.repo import gitrepo

    if (staged or hook_mode) and base != "HEAD":
        raise click.UsageError("--staged and --hook compare the index with HEAD; --base is for the work tree")
    root = _toplevel(path)
    click.get_current_context().with_resource(_layout_of(root, hook_mode))
    env = dict(os.environ)
    why_agent = "checked by hand"
    if hook_mode:
        agent = hook.agent_of(root, env, _agent_patterns(root, True))
        if agent is None:  # a person's commit, or gitgarden's own: not the guard's business
            if as_json:
                out_json({"ok": True, "agent": None, "verdicts": [], "skipped": []})
            sys.exit(0)
        why_agent = agent
    from gitgarden.guard import rules  # only now: a person's commit never pays for it

    if staged or hook_mode:
        before, after = hook.staged_trees(root, env)
        verdicts = rules.check(before, after, None, agent=True)
    else:
        if gitrepo.head(root) is None and base == "HEAD":
            # The first commit: nothing is protected yet, and everything is new.
            err("gitgarden guard: no commit yet, nothing to protect")
            if as_json:
                out_json({"ok": True, "verdicts": [], "skipped": ["every rule: the repository has no commit yet"]})
            sys.exit(0)
        before, after = gitrepo.tree_at(root, base), gitrepo.worktree_tree(root)
        verdicts = rules.check(before, after, None)
    skipped = rules.skipped_checks(None)
    if as_json:
        data: dict[str, Any] = {"ok": not verdicts, "verdicts": [v.to_json() for v in verdicts], "skipped": skipped}
        if hook_mode:
            data["agent"] = why_agent
        out_json(data)
        sys.exit(EXIT_GUARD if verdicts else 0)
    for line in hook.verdict_lines(verdicts, before, after):
        click.echo(line)
    if verbose:
        for sentence in skipped:
            err(f"skipped: {sentence}")
    if hook_mode:
        if verdicts:
            err(hook.bypass_line(len(verdicts), why_agent))
    elif verdicts:
        err(f"gitgarden guard: {len(verdicts)} rule(s) broken")
    else:
        hint = "" if verbose else f" ({len(skipped)} checks need a pass's context: --verbose lists them)"
        err(f"gitgarden guard: every rule holds{hint}")
    sys.exit(EXIT_GUARD if verdicts else 0)


@click.group("hook")
def hook_group() -> None:
    """The pre-commit hook that puts the guard in front of agents (not of you)."""


_PATH_ARG = click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))


@hook_group.command("install")
@_PATH_ARG
def hook_install(path: Path | None) -> None:
    """Write the repository's pre-commit hook; a hook already there is kept and run first."""
    from gitgarden.guard import hook

    err(hook.install(_toplevel(path)))


@hook_group.command("uninstall")
@_PATH_ARG
def hook_uninstall(path: Path | None) -> None:
    """Remove gitgarden's pre-commit hook and put back the hook it chained."""
    from gitgarden.guard import hook

    err(hook.uninstall(_toplevel(path)))


@hook_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@_PATH_ARG
def hook_status(as_json: bool, path: Path | None) -> None:
    """Say whether the pre-commit hook is gitgarden's (installed), not installed, or foreign."""
    from gitgarden.guard import hook

    found = hook.status(_toplevel(path))
    if as_json:
        out_json(found.to_json())
        return
    click.echo(f"{found.state}: {found.hook}")
    if found.state == "foreign":
        err("  a hook that is not gitgarden's: `gitgarden hook install` keeps it and runs it first")
    if found.chained is not None:
        err(f"  chained (runs first): {found.chained}")
    if found.python is not None and not found.python_ok:
        err(f"  its interpreter {found.python} is gone: run `gitgarden hook install` again")


def register(cli: click.Group) -> None:
    """Add `guard` and `hook` to the command group."""
    cli.add_command(guard)
    cli.add_command(hook_group)
