"""The guard in front of agents: the hooks, who is committing, and what is staged.

`install` writes the repository's commit hooks (wherever `core.hooksPath` and
worktrees put them) so that each runs `python -m gitgarden guard --hook` with
the interpreter that installed it, for the project it was installed in: a GUI's
or an agent's PATH need not know gitgarden. A hook that was there first is kept
beside it and run first; its refusal stands. The hooks judge what the commit
will hold (the index) against HEAD, and only for an agent's commit (`agent_of`);
a person's commit passes without a word.

git runs `pre-commit` for `git commit` only. The other commands that make a
commit are covered by the hook git does run for them (checked with git 2.39):
`pre-merge-commit` for a merge, `prepare-commit-msg` for `git revert` and
`git cherry-pick` (judged there when the git process that runs it is one of
them), `pre-applypatch` for `git am`. What no client hook can see is listed in
`NOT_COVERED`; the wall for it is `gitgarden guard --range` (gitguard/pushed.py).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import shlex
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.atomic import atomic_write
from gitgarden.errors import GitError, GitgardenError
from gitgarden.repo import gitrepo
from gitgarden.wiki.tree import Tree, text_of

if TYPE_CHECKING:  # a person's commit never needs the guard: the hook stays quick for them
    from gitgarden.guard.rules import Verdict

__all__ = [
    "AGENT_ENV",
    "AGENT_TRAILER",
    "HOOK_ID",
    "HOOKS",
    "NOT_COVERED",
    "WALL",
    "CHAINED_NAME",
    "HookFile",
    "HookStatus",
    "hooks_dir",
    "hook_script",
    "shared_hooks_path",
    "status",
    "install",
    "uninstall",
    "agent_name",
    "agent_of",
    "matches_author",
    "committing_command",
    "JUDGED_BY_PREPARE",
    "mark_agent_commit",
    "staged_trees",
    "verdict_lines",
    "bypass_line",
]

AGENT_ENV = "GITGARDEN_AGENT"  # set by an agent's harness (a name the outside world relies on: docs/architecture.md)
AGENT_TRAILER = "Gardener-Agent"  # added to an agent's commit message, so a pushed range knows it too
HOOK_ID = "gitgarden-guard"  # the hook's id in .pre-commit-hooks.yaml (SKIP=… names it)
_MARKER = "# gitgarden-hook:"  # the line that tells our hook from anyone else's
_GLOB = set("*?[")

# The hooks `install` writes, and the commands each puts the guard in front of.
HOOKS: dict[str, str] = {
    "pre-commit": "git commit (with -a, with paths, --amend, and a merge finished by git commit)",
    "pre-merge-commit": "git merge and git pull when they make a merge commit",
    "prepare-commit-msg": "git revert and git cherry-pick (git runs no pre-commit for them); it also adds a "
    f"{AGENT_TRAILER}: trailer to every commit made with {AGENT_ENV} set",
    "pre-applypatch": "git am",
}
NOT_COVERED = (
    "git commit --no-verify, git merge --no-verify and git am --no-verify: the way to let one commit through",
    "git rebase, fast-forward merges and pulls, git reset, git update-ref, git commit-tree: git runs no commit "
    "hook for them (they make no new commit of their own, or only plumbing does)",
    "an agent that removes these hooks, or sets core.hooksPath (or -c core.hooksPath) elsewhere",
)
WALL = (
    "`gitgarden guard --range BASE..HEAD` judges the commits of a pushed range on the remote's side, in CI "
    "(`gitgarden ci init` adds it for pushes and pull requests) or as the remote's pre-receive hook "
    "(`gitgarden guard --pre-receive`): with `people` set, every commit whose author or committer is not one "
    "of them; with `require_signed`, every unsigned one; always, those marked as an agent's. It cannot see who "
    "typed a commit that carries a person's name (unsigned), nor, without `people`, an unmarked agent commit"
)
JUDGED_BY_PREPARE = frozenset({"revert", "cherry-pick"})  # the commands prepare-commit-msg judges
CHAINED_NAME = "pre-commit.gitgarden-chained"  # where a pre-commit hook that was there first is kept


def _chained_name(name: str) -> str:
    return f"{name}.gitgarden-chained"


@dataclass(frozen=True)
class HookFile:
    """One hook file: gitgarden's (installed, or an older version), someone else's, or absent."""

    name: str
    path: Path
    state: str  # "installed" | "outdated" | "not installed" | "foreign"
    chained: Path | None  # the person's own hook, kept and run first
    python: str | None  # the interpreter our hook runs (None when not ours)
    project: str | None  # the project it judges, relative to the top of the work tree

    def to_json(self) -> dict[str, Any]:
        """The hook file as a plain JSON object."""
        return {
            "name": self.name,
            "path": str(self.path),
            "state": self.state,
            "chained": str(self.chained) if self.chained else None,
            "covers": HOOKS[self.name],
        }


@dataclass(frozen=True)
class HookStatus:
    """Whether gitgarden's hooks are installed, what they chain and run, and what they cover."""

    state: str  # "installed" | "partly installed" | "outdated" | "not installed" | "foreign"
    hook: Path  # the pre-commit hook's path
    chained: Path | None  # the person's own pre-commit hook, kept and run first
    python: str | None  # the interpreter our hooks run (None when not ours)
    files: tuple[HookFile, ...] = field(default=())

    @property
    def python_ok(self) -> bool:
        return self.python is not None and os.access(self.python, os.X_OK)

    def to_json(self) -> dict[str, Any]:
        """The status as a plain JSON object."""
        return {
            "state": self.state,
            "hook": str(self.hook),
            "chained": str(self.chained) if self.chained else None,
            "python": self.python,
            "python_ok": self.python_ok if self.python else None,
            "hooks": [f.to_json() for f in self.files],
            "not_covered": list(NOT_COVERED),
            "wall": WALL,
        }


def hooks_dir(root: Path) -> Path:
    """The folder git runs hooks from: `core.hooksPath` if set, else the common git dir's hooks/."""
    out = gitrepo.git(root, "rev-parse", "--git-path", "hooks").decode().strip()
    return (root / out).resolve()  # relative answers are relative to `root`


def shared_hooks_path(root: Path) -> str | None:
    """`core.hooksPath` when it comes from a configuration other than this repository's own (the
    person's global or system file): a folder whose hooks run for every repository that uses it."""
    here = gitrepo.git(root, "config", "--local", "--get", "core.hooksPath", check=False).strip()
    if here:
        return None
    found = gitrepo.git(root, "config", "--show-origin", "--get", "core.hooksPath", check=False).decode().strip()
    return found.replace("\t", " (") + ")" if found else None


def hook_script(python: str, name: str = "pre-commit", project: str = ".") -> str:
    """A hook's text: run the chained hook first, then the guard by absolute path for `project`."""
    py = shlex.quote(python)
    args = ' --message-file "$1"' if name == "prepare-commit-msg" else ""
    return f"""#!/bin/sh
{_MARKER} installed by `gitgarden hook install`; `gitgarden hook uninstall` removes it
# and puts back the hook that was here before (kept as {_chained_name(name)}).
chained="${{0%/*}}/{_chained_name(name)}"
if [ -x "$chained" ]; then
    "$chained" "$@" || exit $?
fi
if [ ! -x {py} ]; then
    echo "gitgarden hook: "{py}" is gone; run \\`gitgarden hook install\\` again." >&2
    # A person's commit goes on unchecked; an agent's waits until the guard can run.
    [ -z "${AGENT_ENV}" ] || exit 1
    exit 0
fi
exec {py} -m gitgarden guard --hook --hook-name {name}{args} {shlex.quote(project)}
"""


def _ours(hook: Path) -> tuple[str, str | None] | None:
    """(the interpreter our hook runs, the project it names — None for an older hook), or None when
    `hook` is not gitgarden's."""
    try:
        text = hook.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if _MARKER not in text:
        return None
    for line in text.splitlines():
        if line.startswith("exec ") and " -m gitgarden guard --hook" in line:
            words = shlex.split(line)
            python = words[1] if len(words) > 1 else ""
            project = words[-1] if "--hook-name" in words and not words[-1].startswith("-") else None
            return python, project
    return "", None


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _file_status(hooks: Path, name: str, script: str | None) -> HookFile:
    hook, chained = hooks / name, hooks / _chained_name(name)
    kept = chained if _exists(chained) else None
    if not _exists(hook):
        return HookFile(name, hook, "not installed", kept, None, None)
    ours = _ours(hook)
    if ours is None:
        return HookFile(name, hook, "foreign", kept, None, None)
    python, project = ours
    current = project is not None and (script is None or hook.read_text(encoding="utf-8", errors="replace") == script)
    return HookFile(name, hook, "installed" if current else "outdated", kept, python, project)


def status(root: Path) -> HookStatus:
    """Are gitgarden's hooks installed (all, some, an older version), someone else's, or absent?"""
    hooks = hooks_dir(root)
    files = tuple(_file_status(hooks, name, None) for name in HOOKS)
    states = {f.state for f in files}
    pre = files[0]
    if states == {"installed"}:
        state = "installed"
    elif "installed" in states or "outdated" in states:
        state = "outdated" if pre.state in ("installed", "outdated") and pre.project is None else "partly installed"
    elif pre.state == "foreign":
        state = "foreign"
    else:
        state = "not installed"
    return HookStatus(state, pre.path, pre.chained, pre.python, files)


def _write_hook(hook: Path, text: str) -> None:
    atomic_write(hook, text, mode=0o755)


def install(root: Path, project: str = ".", python: str = sys.executable, *, shared_ok: bool = False) -> str:
    """Write gitgarden's hooks for the project at `project` (relative to the top of the work tree),
    keeping and chaining the hooks that were there first.

    Idempotent: a second run changes nothing (or only the interpreter's path). Returns
    sentences saying what was done; GitgardenError when it would have to overwrite a
    hook, or when core.hooksPath is a folder shared by other repositories and
    `shared_ok` is not given.
    """
    shared = shared_hooks_path(root)
    if shared and not shared_ok:
        raise GitgardenError(
            f"core.hooksPath = {shared} is set outside this repository: its hooks run for every repository "
            "that uses it, so all of them would be guarded. Give this repository hooks of its own "
            "(`git config core.hooksPath .git/hooks`), or install there anyway with "
            "`gitgarden hook install --global-hooks-path`"
        )
    hooks = hooks_dir(root)
    for name in HOOKS:  # refuse before writing anything
        hook, chained = hooks / name, hooks / _chained_name(name)
        if _exists(hook) and _ours(hook) is None and _exists(chained):
            raise GitgardenError(
                f"{hook} is not gitgarden's, and {chained} holds another hook already: "
                "move one of them away by hand, then install again"
            )
    hooks.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    notes: list[str] = []
    for name in HOOKS:
        hook, chained = hooks / name, hooks / _chained_name(name)
        script = hook_script(python, name, project)
        if _exists(hook) and _ours(hook) is not None:
            if hook.read_text(encoding="utf-8", errors="replace") == script:
                continue
        elif _exists(hook):
            os.replace(hook, chained)  # a move keeps its mode (and a symlink stays a symlink)
            notes.append(f"your {name} hook now lives at {chained} and runs first")
        _write_hook(hook, script)
        written.append(name)
    if not written:
        return f"gitgarden's hooks are already installed in {hooks}: nothing changed."
    shown = "the top of the work tree" if project == "." else project
    text = f"Installed gitgarden's hooks in {hooks} ({', '.join(written)}), for the project at {shown}"
    text += "".join(f"; {n}" for n in notes) + "."
    if shared:
        text += f" Warning: core.hooksPath = {shared} is shared: every repository using it now runs them."
    return text


def uninstall(root: Path) -> str:
    """Remove gitgarden's hooks and put back the hooks they chained. Idempotent."""
    hooks = hooks_dir(root)
    said: list[str] = []
    for name in HOOKS:
        hook, chained = hooks / name, hooks / _chained_name(name)
        if _exists(hook) and _ours(hook) is None:
            said.append(f"{hook} is not gitgarden's: left as it is")
            continue
        removed = _exists(hook)
        if removed:
            hook.unlink()
        if _exists(chained):
            os.replace(chained, hook)
            said.append(f"your own {name} hook is back at {hook}")
        elif removed:
            said.append(f"removed gitgarden's {name} hook")
    if not said:
        return "gitgarden's hooks are not installed: nothing changed."
    return "; ".join(said)[0].upper() + "; ".join(said)[1:] + "."


# --- who commits -----------------------------------------------------------------


def _author(root: Path) -> str:
    """The commit's author as `Name <email>` (git's own answer: GIT_AUTHOR_* or config)."""
    out = gitrepo.git(root, "var", "GIT_AUTHOR_IDENT", check=False).decode("utf-8", "replace")
    ident = out.strip()
    end = ident.rfind(">")
    return ident[: end + 1] if end >= 0 else ident


def matches_author(pattern: str, author: str) -> bool:
    """A glob matches the whole `Name <email>`, the name or the email; other text is a substring."""
    pattern, author = pattern.strip().lower(), author.lower()
    if not pattern:
        return False
    if _GLOB & set(pattern):
        name, _, email = author.partition(" <")
        return any(fnmatch.fnmatchcase(s, pattern) for s in (author, name, email.rstrip(">")))
    return pattern in author


def agent_name(env: Mapping[str, str]) -> str | None:
    """GITGARDEN_AGENT's value when the committing process has it set to anything but nothing.

    One definition for the hook script (`[ -z "$GITGARDEN_AGENT" ]`) and here: whitespace
    counts as set — a harness that sets the variable means an agent, whatever name it gives.
    """
    value = env.get(AGENT_ENV, "")
    return value if value else None


def agent_of(root: Path, env: Mapping[str, str], patterns: Sequence[str]) -> str | None:
    """Why this commit is an agent's (for the refusal's last line), or None for a person's.

    gitgarden's own commits (a pass, undo) are nobody's agent: every git process gitgarden starts
    runs without GITGARDEN_AGENT (`gitrepo` strips it), its own guard having judged the commit. No
    mark an agent could mint in the same checkout (a file, a variable) lets a commit through.
    """
    name = agent_name(env)
    if name is not None:
        return f"{AGENT_ENV}={name.strip() or repr(name)}"
    if not patterns:
        return None
    author = _author(root)
    for pattern in patterns:
        if matches_author(pattern, author):
            return f"the author {author} matches guard_agents {pattern!r}"
    return None


def _subcommand(argv: Sequence[str]) -> str:
    """git's subcommand in a command line (`git -c x=y -C dir revert …` -> "revert")."""
    if argv and Path(argv[0]).name.startswith("git-"):
        return Path(argv[0]).name[4:]
    i = 1
    while i < len(argv):
        word = argv[i]
        if word in ("-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"):
            i += 2
        elif word.startswith("-"):
            i += 1
        else:
            return word
    return ""


def committing_command(pid: int | None = None) -> str:
    """The git command that runs this hook ("commit", "revert", "cherry-pick", …): a hook is git's
    child (the hook script `exec`s the guard). "" when it cannot be told."""
    pid = os.getppid() if pid is None else pid
    try:
        argv = [w.decode("utf-8", "replace") for w in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if w]
    except OSError:
        try:  # no /proc (macOS, the BSDs): ps says it
            out = subprocess.run(["ps", "-o", "args=", "-p", str(pid)], capture_output=True, text=True, check=False)
        except OSError:
            return ""
        argv = shlex.split(out.stdout.strip()) if out.returncode == 0 else []
    return _subcommand(argv)


def mark_agent_commit(root: Path, message_file: Path, env: Mapping[str, str]) -> None:
    """Add `Gardener-Agent: NAME` to an agent's commit message (prepare-commit-msg), so that a pushed
    range (`guard --range`, where no environment is left) knows the commit was an agent's."""
    name = agent_name(env)
    if name is None:
        return
    shown = " ".join(name.split()) or "unnamed"
    with contextlib.suppress(GitError):  # a message git cannot read is git's to refuse
        gitrepo.git(
            root, "interpret-trailers", "--in-place", "--if-exists", "addIfDifferent", "--trailer",
            f"{AGENT_TRAILER}: {shown}", str(message_file),
        )  # fmt: skip


# --- what will be committed ---------------------------------------------------------


def staged_trees(root: Path, env: Mapping[str, str]) -> tuple[Tree, Tree]:
    """(HEAD's files, the files the commit will hold): the index git names in GIT_INDEX_FILE
    (for `commit -a` or `commit <paths>` a temporary one) or the repository's own index.

    Only what the commit changes is read, whatever the wiki's size (`guard.staged`). HEAD is
    the empty tree before the first commit. The index is only read, never locked.
    """
    from gitgarden.gitguard import (
        staged,  # reads only what the commit changes (and what a rule asks)
    )

    return staged.staged_trees(root, env)


# --- what the person reads ------------------------------------------------------------


def _line_number(line: str, texts: Iterable[str | None]) -> int | None:
    """The first line (1-based) of the first text holding `line` (a verdict may cut it short)."""
    cut = line.endswith("…")
    want = line.removesuffix("…").removesuffix("\r")
    for text in texts:
        if text is None:
            continue
        for n, candidate in enumerate(text.split("\n"), 1):
            candidate = candidate.removesuffix("\r")
            if candidate == want or (cut and candidate.startswith(want)):
                return n
    return None


def verdict_lines(verdicts: Sequence[Verdict], base: Tree, proposed: Tree) -> list[str]:
    """One `path:line: rule N (name): what` line per verdict (the line in the new text, or in
    the old one for a line that was removed; no number when the verdict names no line)."""
    out = []
    for v in verdicts:
        where = v.path
        if v.line:
            texts = [text_of(t[v.path]) if v.path in t else None for t in (proposed, base)]
            n = _line_number(v.line, texts)
            if n is not None:
                where = f"{v.path}:{n}"
        what = f"{v.message}: {v.line!r}" if v.line else v.message
        out.append(f"{where}: rule {v.rule} ({v.name}): {what}")
    return out


def bypass_line(count: int, why_agent: str, hook_name: str = "pre-commit", command: str = "commit") -> str:
    """The refusal's last line: how many rules, why the guard applied, how to commit anyway once
    (or, for revert and cherry-pick, which have no --no-verify, what was left and how to undo it)."""
    head = f"gitgarden guard refused this {command or 'commit'} ({count} rule(s) broken; {why_agent})."
    if hook_name == "prepare-commit-msg":
        return (
            f"{head} git {command} left its changes staged: `git reset --merge` takes them back; to keep them "
            "anyway, commit them yourself (without GITGARDEN_AGENT): git commit"
        )
    if hook_name == "pre-merge-commit":
        return f"{head} To merge anyway, once: git merge --no-verify (or git commit --no-verify to finish it)"
    if hook_name == "pre-applypatch":
        return f"{head} To apply anyway, once: git am --no-verify"
    return (
        f"{head} To commit anyway, once: git commit --no-verify (pre-commit framework: "
        f"SKIP={HOOK_ID} git commit)"
    )
