"""The wall: the commits of a pushed range judged by the guard on the remote's side (CI, or its own
pre-receive hook), which no setting of the agent's checkout reaches.

A client hook is a guard rail: an agent can commit with `--no-verify`, through a
command no hook sees (`git rebase`, plumbing), or remove the hook. What reaches
the shared remote can still be judged: `gitgarden guard --range BASE..TIP` (a CI
job on pushes and pull requests) and `gitgarden guard --pre-receive` (the remote's
own hook) read nothing but git objects.

Which commits it judges, from what it can prove (`WALL_SEES`, `WALL_CANNOT_SEE`):
- with `people` set (`["Pat <pat@example.com>"]`), every commit whose author or committer is
  not one of them is judged: as an agent's, or — when both are gitgarden's own identity (the
  `author` setting) — as a pass, by the rules two trees show;
- with `require_signed = true`, every commit without a good signature (`git verify-commit`,
  with the keys the checking machine trusts) is judged as an agent's;
- always, a commit whose message carries the `Gardener-Agent:` trailer or whose author matches
  `guard_agents`. Without `people` that is all it judges, and the trailer is written by the
  agent's own side (a hook it can skip): an agent that commits without hooks is not seen.
Who counts as whom, and the project's layout, come from `.gitgarden/config.toml` as it stood
*before* the range: a pushed commit cannot change them for itself. Each judged commit is
judged against its first parent, as the pre-commit hook would have judged it.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gitgarden.errors import ConfigError, GitError, GitgardenError
from gitgarden.gitguard import hook
from gitgarden.guard.rules import Verdict, check
from gitgarden.repo import gitrepo
from gitgarden.wiki import layout
from gitgarden.wiki.tree import Entry, Overlay, Tree

__all__ = ["Judged", "Wall", "ZERO", "WALL_SEES", "WALL_CANNOT_SEE", "judge_range", "judge_pushes", "settings_at"]

ZERO = "0" * 40
GARDENER = "gitgarden <gitgarden@localhost>"  # the `author` setting's default: gitgarden's own commits
WALL_SEES = (
    "with `people` set in .gitgarden/config.toml, every commit whose author or committer is not one of them "
    "(gitgarden's own passes judged by the rules two trees show); with `require_signed = true`, every commit "
    "without a good signature; always, commits with the Gardener-Agent: trailer or an author matching guard_agents"
)
WALL_CANNOT_SEE = (
    "who typed a commit: an agent that writes a person's name and email as author and committer is that person "
    "to it, unless signatures are required and the agent cannot sign with the person's key; without `people`, "
    "an agent that commits with hooks off (--no-verify, -c core.hooksPath=…) carries no trailer and is not "
    "judged; and what only a pass knows (its cited lines, state evidence) for commits in gitgarden's name"
)


@dataclass(frozen=True)
class Wall:
    """Who the wall judges, from the project's settings file as it stood before the range."""

    layout: layout.Layout = layout.DEFAULT
    agents: tuple[str, ...] = ()  # guard_agents
    people: tuple[str, ...] = ()
    require_signed: bool = False
    gardener: str = GARDENER


@dataclass
class Judged:
    """One agent commit of a range and what the guard found in it."""

    commit: str
    subject: str
    why_agent: str
    verdicts: list[Verdict]
    base: Tree
    proposed: Tree


def settings_at(root: Path, rev: str | None, prefix: str) -> Wall:
    """Who the wall judges in the project at `prefix`, as commit `rev` holds its settings file (the
    defaults when there is none); ConfigError when the file sets them badly."""
    if not rev:
        return Wall()
    proc = gitrepo.git(root, "cat-file", "blob", f"{rev}:{prefix}.gitgarden/config.toml", check=False)
    if not proc:
        return Wall()
    where = f"{rev[:10]}:{prefix}.gitgarden/config.toml"
    try:
        table = tomllib.loads(proc.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{where} is not valid TOML ({exc})") from None
    lists = {}
    for key in ("guard_agents", "people"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
            raise ConfigError(f"{where}: {key} must be a list of texts")
        lists[key] = tuple(value)
    signed, gardener = table.get("require_signed", False), table.get("author", GARDENER)
    if not isinstance(signed, bool) or not isinstance(gardener, str):
        raise ConfigError(f"{where}: require_signed must be true or false, author a text")
    return Wall(layout.from_table(table, where=where), lists["guard_agents"], lists["people"], signed, gardener)


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


def _ident_is(who: str, ident: str) -> bool:
    """True when `ident` (`Name <email>`) is the identity `who` names: the whole `Name <email>`, the
    email alone, or a glob pattern (as guard_agents')."""
    if set(who) & set("*?["):
        return hook.matches_author(who, ident)
    want, have = " ".join(who.lower().split()), " ".join(ident.lower().split())
    email = have.rpartition("<")[2].rstrip(">")
    return want == have or want.strip("<>") == email


def _whose(root: Path, commit: str, wall: Wall) -> tuple[str, str, bool] | None:
    """(why the commit is judged, its subject, True to judge it as an agent's — False: as a pass),
    or None for a commit the wall lets pass."""
    fmt = f"%an <%ae>%x00%cn <%ce>%x00%s%x00%G?%x00%(trailers:key={hook.AGENT_TRAILER},valueonly,separator=%x2c)"
    shown = gitrepo.git(root, "show", "-s", f"--format={fmt}", commit).decode("utf-8", "replace")
    author, committer, subject, signature, trailer = shown.split("\0")
    trailer = trailer.strip()
    if trailer:
        return f"{hook.AGENT_TRAILER}: {trailer}", subject, True
    for pattern in wall.agents:
        if hook.matches_author(pattern, author):
            return f"the author {author} matches guard_agents {pattern!r}", subject, True
    if wall.require_signed and signature.strip() not in ("G", "U"):
        return f"no good signature (git says {signature.strip() or 'N'}) where require_signed is set", subject, True
    if not wall.people:
        return None
    strangers = [f"{role} {who}" for role, who in (("author", author), ("committer", committer)) if not any(_ident_is(p, who) for p in wall.people)]
    if not strangers:
        return None
    if all(_ident_is(wall.gardener, who) for who in (author, committer)):
        return f"gitgarden's own identity ({wall.gardener}), judged as a pass", subject, False
    return f"{' and '.join(strangers)} not among the people", subject, True


def _judge(root: Path, commits: Iterable[str], wall: Wall, prefix: str) -> list[Judged]:
    out: list[Judged] = []
    for commit in commits:
        whose = _whose(root, commit, wall)
        if whose is None:
            continue
        parents = gitrepo.git(root, "rev-list", "--parents", "-n", "1", commit).decode().split()[1:]
        parent = parents[0] if parents else None
        base = _tree(root, parent, prefix)
        proposed = Overlay(base, _changes(root, parent, commit, prefix))
        out.append(Judged(commit, whose[1], whose[0], check(base, proposed, None, agent=whose[2]), base, proposed))
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
    wall = settings_at(root, base_commit, prefix)
    with layout.active(wall.layout):
        return _judge(root, commits, wall, prefix)


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
        wall = settings_at(root, before, prefix)
        with layout.active(wall.layout):
            found.extend(_judge(root, commits, wall, prefix))
    return found
