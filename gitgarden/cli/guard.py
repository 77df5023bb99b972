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

from gitgarden.cli.app import echo, err, out_json
from gitgarden.config import load_settings
from gitgarden.errors import EXIT_GUARD, ConfigError, GitError, GitgardenError, NotAProject
from gitgarden.gitguard import hook
from gitgarden.project import find_project, of_root
from gitgarden.repo import gitrepo
from gitgarden.wiki import layout

__all__ = ["guard", "hook_group"]  # the commands, which `cli.main` loads by name


def _toplevel(path: Path | None) -> Path:
    """The project's root when `path` (or here) is inside one — a project below the top of its
    repository is judged by its own paths — else the top of the repository."""

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

    try:
        resolved = load_settings(root)
    except ConfigError as exc:
        if not hook_mode:
            raise
        err(f"gitgarden guard: warning: {exc} (guard_agents not read)")
        return ()
    return resolved.settings.guard_agents


def _no_commit_yet(as_json: bool) -> None:
    """Exit 0 before the first commit: nothing is protected yet, and everything is new."""
    err("gitgarden guard: no commit yet, nothing to protect")
    if as_json:
        out_json({"ok": True, "verdicts": [], "skipped": ["every rule: the repository has no commit yet"]})
    sys.exit(0)


def _hook_agent(root: Path, env: dict[str, str], hook_name: str, message_file: Path | None, as_json: bool) -> tuple[str, str]:
    """In a hook: the agent whose commit is judged and the git command making it. Exits 0 when
    there is nothing to judge — a person's commit, gitgarden's own, or a command another hook judges."""

    agent = hook.agent_of(root, env, _agent_patterns(root, True))
    if agent is None:  # a person's commit, or gitgarden's own: not the guard's business
        if as_json:
            out_json({"ok": True, "agent": None, "verdicts": [], "skipped": []})
        sys.exit(0)
    command = "commit"
    if hook_name == "prepare-commit-msg":
        if message_file is not None:
            hook.mark_agent_commit(root, message_file, env)
        command = hook.committing_command()
        if command not in hook.JUDGED_BY_PREPARE:
            sys.exit(0)  # `git commit` and `git merge` are judged by pre-commit and pre-merge-commit
    elif hook_name == "pre-merge-commit":
        command = "merge"
    elif hook_name == "pre-applypatch":
        command = "am"
    return agent, command


@click.command()
@click.option("--base", default="HEAD", show_default=True, help="The revision to compare the work tree with.")
@click.option("--staged", is_flag=True, help="Check what the next commit holds (the index against HEAD), as the hook does.")
@click.option("--range", "range_spec", metavar="BASE..TIP", help="Judge every agent commit of a pushed range (CI: pushes and pull requests).")
@click.option("--pre-receive", "pre_receive", is_flag=True, help="Judge what a push brings, as the remote's pre-receive hook (OLD NEW REF lines on stdin).")
@click.option("--hook", "hook_mode", is_flag=True, help="Hook mode: --staged, only for an agent's commit, silent when every rule holds.")
@click.option("--hook-name", default="pre-commit", hidden=True, help="Which hook runs the guard (the hooks `hook install` writes say).")
@click.option("--message-file", type=click.Path(path_type=Path), hidden=True, help="prepare-commit-msg's message file.")
@click.option("--verbose", "-v", is_flag=True, help="Also list the checks that need a pass's context and were skipped.")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts (and the skipped checks) as JSON.")
@click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))
def guard(
    base: str,
    staged: bool,
    range_spec: str | None,
    pre_receive: bool,
    hook_mode: bool,
    hook_name: str,
    message_file: Path | None,
    verbose: bool,
    as_json: bool,
    path: Path | None,
) -> None:
    """Check the work tree (tracked and untracked) against BASE with the pass's safety rules.

    With --staged, check the index instead: what the next commit holds, judged as an
    agent's commit (new pages may have human names, journal appends are capture).
    With --range BASE..TIP, judge the commits of the range the wall can tell apart, from the
    settings file as BASE holds it: with `people` set, every commit whose author or committer
    is not one of them (gitgarden's own identity judged as a pass); with `require_signed`,
    every commit without a good signature; always, commits carrying the Gardener-Agent
    trailer or whose author matches guard_agents. --pre-receive does the same for a push, in
    the remote's own hook (PATH: the project's folder in the repository).

    What the wall cannot see: who typed a commit. An agent writing a person's name and email
    as author and committer is that person to it (unless signatures are required and the
    agent cannot sign with the person's key); without `people`, an agent committing with
    hooks off carries no trailer and is not judged.

    Exit 0 when every rule holds, 3 when any is broken.
    """

    modes = sum(bool(m) for m in (staged or hook_mode, range_spec, pre_receive))
    if modes > 1 or ((staged or hook_mode or range_spec or pre_receive) and base != "HEAD"):
        raise click.UsageError("choose one of --base, --staged (or --hook), --range and --pre-receive")
    if range_spec or pre_receive:
        _judge_pushed(range_spec, path, as_json)
        return
    root = _toplevel(path)
    click.get_current_context().with_resource(_layout_of(root, hook_mode))
    env = dict(os.environ)
    why_agent, command = "checked by hand", "commit"
    if hook_mode:
        why_agent, command = _hook_agent(root, env, hook_name, message_file, as_json)
    from gitgarden.guard import rules  # only now: a person's commit never pays for it

    if staged or hook_mode:
        before, after = hook.staged_trees(root, env)
        verdicts = rules.check(before, after, None, agent=True)
    else:
        if gitrepo.head(root) is None and base == "HEAD":
            _no_commit_yet(as_json)
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
        echo(line)
    if verbose:
        for sentence in skipped:
            err(f"skipped: {sentence}")
    if hook_mode:
        if verdicts:
            err(hook.bypass_line(len(verdicts), why_agent, hook_name, command))
    elif verdicts:
        err(f"gitgarden guard: {len(verdicts)} rule(s) broken")
    else:
        hint = "" if verbose else f" ({len(skipped)} checks need a pass's context: --verbose lists them)"
        err(f"gitgarden guard: every rule holds{hint}")
    sys.exit(EXIT_GUARD if verdicts else 0)


def _judge_pushed(range_spec: str | None, path: Path | None, as_json: bool) -> None:
    """`guard --range` (in a clone: the project around PATH or here) and `guard --pre-receive` (in a
    bare repository: PATH is the project's folder in it, the top by default)."""
    # only here: it loads the rules, which a person's commit never pays for
    from gitgarden.gitguard import pushed

    here = Path.cwd()
    try:
        if range_spec:
            project = _toplevel(path)
            top = Path(_top(project))
            prefix = project.resolve().relative_to(top.resolve()).as_posix()
            judged = pushed.judge_range(top, range_spec, "" if prefix == "." else prefix + "/")
        else:
            prefix = (path.as_posix().strip("/") + "/") if path and path.as_posix().strip("/.") else ""
            judged = pushed.judge_pushes(here, sys.stdin.read().splitlines(), prefix)
    except GitError as exc:
        raise GitgardenError(str(exc)) from None
    broken = [j for j in judged if j.verdicts]
    if as_json:
        out_json(
            {
                "ok": not broken,
                "commits": [
                    {"commit": j.commit, "subject": j.subject, "agent": j.why_agent, "verdicts": [v.to_json() for v in j.verdicts]}
                    for j in judged
                ],
            }
        )
        sys.exit(EXIT_GUARD if broken else 0)
    for j in broken:
        for line in hook.verdict_lines(j.verdicts, j.base, j.proposed):
            echo(f"{j.commit[:10]} {line}")
    if broken:
        count = sum(len(j.verdicts) for j in broken)
        err(
            f"gitgarden guard: {len(broken)} judged commit(s) of {len(judged)} break the rules ({count} verdict(s)): "
            f"{broken[0].commit[:10]} {broken[0].subject!r} ({broken[0].why_agent}) first"
        )
        sys.exit(EXIT_GUARD)
    err(f"gitgarden guard: {len(judged)} commit(s) judged, every rule holds. What it cannot see: {pushed.WALL_CANNOT_SEE}")
    sys.exit(0)


def _top(path: Path) -> str:
    """The top of the work tree that holds `path`."""

    return gitrepo.git(path, "rev-parse", "--show-toplevel").decode().strip()


@click.group("hook")
def hook_group() -> None:
    """The hooks that put the guard in front of agents' commits (not of yours)."""


_PATH_ARG = click.argument("path", required=False, type=click.Path(file_okay=False, path_type=Path))


def _project_root(path: Path | None) -> Path:
    """The gitgarden project around `path` (or here); a one-line refusal outside one."""

    try:
        return find_project(path or Path.cwd()).root
    except NotAProject:
        raise GitgardenError(
            f"{(path or Path.cwd()).absolute()} is not inside a gitgarden project: the hooks guard a project's "
            "wiki (run `gitgarden init` first, or install from inside the project)"
        ) from None


@hook_group.command("install")
@click.option("--global-hooks-path", "shared_ok", is_flag=True, help="Install even where core.hooksPath is a folder other repositories use too.")
@_PATH_ARG
def hook_install(shared_ok: bool, path: Path | None) -> None:
    """Write the repository's hooks for this project; hooks already there are kept and run first."""

    root = _project_root(path)
    top = Path(_top(root))
    project = root.resolve().relative_to(top.resolve()).as_posix()
    err(hook.install(root, project, shared_ok=shared_ok))


@hook_group.command("uninstall")
@_PATH_ARG
def hook_uninstall(path: Path | None) -> None:
    """Remove gitgarden's hooks and put back the hooks they chained."""

    err(hook.uninstall(_toplevel(path)))


@hook_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
@_PATH_ARG
def hook_status(as_json: bool, path: Path | None) -> None:
    """Say whether gitgarden's hooks are installed, which commands they cover, and which they cannot."""

    found = hook.status(_toplevel(path))
    if as_json:
        out_json(found.to_json())
        return
    echo(f"{found.state}: {found.hook.parent}")
    for f in found.files:
        echo(f"  {f.name}: {f.state} — {hook.HOOKS[f.name]}")
        if f.chained is not None:
            err(f"    chained (runs first): {f.chained}")
    if found.state == "foreign":
        err("  a pre-commit hook that is not gitgarden's: `gitgarden hook install` keeps it and runs it first")
    elif found.state in ("outdated", "partly installed"):
        err("  run `gitgarden hook install` again to cover every command listed")
    if found.python is not None and not found.python_ok:
        err(f"  its interpreter {found.python} is gone: run `gitgarden hook install` again")
    echo("  not covered (no client hook sees them):")
    for line in hook.NOT_COVERED:
        echo(f"    - {line}")
    echo(f"  the wall: {hook.WALL}")
