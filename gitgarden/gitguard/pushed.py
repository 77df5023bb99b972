"""The wall: every agent commit of a pushed range judged by the guard, where no local setting can skip it.

A client hook is a guard rail: an agent can commit with `--no-verify`, through a
command no hook sees (`git rebase`, plumbing), or remove the hook. What reaches
the shared remote can still be judged: `gitgarden guard --range BASE..TIP` (a CI
job on pushes and pull requests) and `gitgarden guard --pre-receive` (the remote's
own hook) read nothing but git objects.

A commit of the range is an agent's when its message carries the
`Gardener-Agent:` trailer (the prepare-commit-msg hook adds it to every commit
made with GITGARDEN_AGENT set) or its author matches `guard_agents`. Who counts
as an agent, and the project's layout, come from `.gitgarden/config.toml` as it
stood *before* the range: a pushed commit cannot change them for itself. Each
agent commit is judged against its first parent, as the pre-commit hook would
have judged it; everyone else's commits (the person's, gitgarden's own) pass.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gitgarden.errors import ConfigError, GitError, GitgardenError
from gitgarden.gitguard import hook
from gitgarden.guard.rules import Verdict, check
from gitgarden.repo import gitrepo
from gitgarden.wiki import layout
from gitgarden.wiki.tree import Entry, Overlay, Tree

__all__ = ["Judged", "ZERO", "judge_range", "judge_pushes", "settings_at"]

ZERO = "0" * 40


@dataclass
class Judged:
    """One agent commit of a range and what the guard found in it."""

    commit: str
    subject: str
    why_agent: str
    verdicts: list[Verdict]
    base: Tree
    proposed: Tree


def settings_at(root: Path, rev: str | None, prefix: str) -> tuple[layout.Layout, tuple[str, ...]]:
    """The layout and `guard_agents` of the project at `prefix` as commit `rev` holds its settings file
    (the defaults when there is none); ConfigError when the file sets them badly."""
    if not rev:
        return layout.DEFAULT, ()
    proc = gitrepo.git(root, "cat-file", "blob", f"{rev}:{prefix}.gitgarden/config.toml", check=False)
    if not proc:
        return layout.DEFAULT, ()
    where = f"{rev[:10]}:{prefix}.gitgarden/config.toml"
    try:
        table = tomllib.loads(proc.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{where} is not valid TOML ({exc})") from None
    agents = table.get("guard_agents", [])
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise ConfigError(f"{where}: guard_agents must be a list of texts")
    return layout.from_table(table, where=where), tuple(agents)


def _tree(root: Path, rev: str | None, prefix: str) -> dict[str, Entry]:
    """The files of `rev` under the project at `prefix`, by project-relative path (empty for no commit)."""
    if not rev:
        return {}
    found = gitrepo.tree_at(root, rev, [prefix] if prefix else [])
    return {p.removeprefix(prefix): e for p, e in found.items()} if prefix else found


def _changes(root: Path, parent: str | None, commit: str, prefix: str) -> dict[str, Entry | None]:
    """What `commit` changed against `parent` under the project, read from git: path -> entry (None: removed).

    `root` is the top of the repository (or a bare repository): git names every path from there."""
    if not parent:
        return dict(_tree(root, commit, prefix))
    out = gitrepo.git(root, "diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", parent, commit, "--", *([prefix] if prefix else []))
    fields = out.split(b"\0")
    changed: list[str] = []
    for meta, raw in zip(fields[0:-1:2], fields[1::2], strict=False):
        path = raw.decode("utf-8", "surrogateescape")
        if meta.startswith(b":") and path.startswith(prefix):
            changed.append(path)
    now = gitrepo.tree_at(root, commit, changed) if changed else {}
    return {p.removeprefix(prefix): now.get(p) for p in changed}


def _agent(root: Path, commit: str, patterns: Sequence[str]) -> tuple[str, str] | None:
    """(why the commit is an agent's, its subject), or None for anyone else's commit."""
    fmt = f"%an <%ae>%x00%s%x00%(trailers:key={hook.AGENT_TRAILER},valueonly,separator=%x2c)"
    author, subject, trailer = gitrepo.git(root, "show", "-s", f"--format={fmt}", commit).decode("utf-8", "replace").split("\0")
    trailer = trailer.strip()
    if trailer:
        return f"{hook.AGENT_TRAILER}: {trailer}", subject
    for pattern in patterns:
        if hook.matches_author(pattern, author):
            return f"the author {author} matches guard_agents {pattern!r}", subject
    return None


def _judge(root: Path, commits: Iterable[str], patterns: Sequence[str], prefix: str) -> list[Judged]:
    out: list[Judged] = []
    for commit in commits:
        agent = _agent(root, commit, patterns)
        if agent is None:
            continue
        parents = gitrepo.git(root, "rev-list", "--parents", "-n", "1", commit).decode().split()[1:]
        parent = parents[0] if parents else None
        base = _tree(root, parent, prefix)
        proposed = Overlay(base, _changes(root, parent, commit, prefix))
        out.append(Judged(commit, agent[1], agent[0], check(base, proposed, None, agent=True), base, proposed))
    return out


def judge_range(root: Path, spec: str, prefix: str = "") -> list[Judged]:
    """Every agent commit of `BASE..TIP` (oldest first) with its verdicts, judged with the settings BASE holds.

    `root` is the top of the repository, `prefix` the project's folder in it ("" at the top, else
    ending in "/")."""
    if spec.startswith("-") or ".." not in spec:
        raise GitgardenError(f"--range takes BASE..TIP (two revisions), not {spec!r}")
    base_rev, _, tip = spec.partition("..")
    tip = tip.lstrip(".") or "HEAD"
    try:
        base_commit = gitrepo.git(root, "rev-parse", "--verify", "--quiet", f"{base_rev or 'HEAD'}^{{commit}}").decode().strip()
        commits = gitrepo.git(root, "rev-list", "--reverse", f"{base_commit}..{tip}").decode().split()
    except GitError:
        raise GitgardenError(f"{spec!r} is not a range of this repository (fetch both ends first: `git fetch`)") from None
    here, patterns = settings_at(root, base_commit, prefix)
    with layout.active(here):
        return _judge(root, commits, patterns, prefix)


def judge_pushes(root: Path, lines: Iterable[str], prefix: str = "") -> list[Judged]:
    """What a pre-receive hook reads on stdin (`OLD NEW REF` a line): every agent commit each pushed
    branch would gain, judged with the settings the branch held before (for a new branch, the
    repository's HEAD)."""
    # The pushed objects wait in git's quarantine until the hook says yes: every git call must see them.
    objects = tuple((k, os.environ[k]) for k in gitrepo.QUARANTINE_ENV if k in os.environ)
    with gitrepo.git_policy(gitrepo.GitPolicy(objects_env=objects)):
        return _judge_pushes(root, lines, prefix)


def _judge_pushes(root: Path, lines: Iterable[str], prefix: str) -> list[Judged]:
    found: list[Judged] = []
    for line in lines:
        parts = line.split()
        if len(parts) != 3 or not parts[2].startswith("refs/heads/") or parts[1] == ZERO:
            continue
        old, new, _ref = parts
        if old == ZERO:
            commits = gitrepo.git(root, "rev-list", "--reverse", new, "--not", "--all").decode().split()
            before = gitrepo.git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).decode().strip() or None
        else:
            commits = gitrepo.git(root, "rev-list", "--reverse", f"{old}..{new}").decode().split()
            before = old
        here, patterns = settings_at(root, before, prefix)
        with layout.active(here):
            found.extend(_judge(root, commits, patterns, prefix))
    return found
