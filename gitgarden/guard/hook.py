"""The guard in front of agents: the pre-commit hook, who is committing, and what is staged.

`install` writes the repository's pre-commit hook (wherever `core.hooksPath`
and worktrees put it) so that it runs `python -m gitgarden guard --hook` with
the interpreter that installed it: a GUI's or an agent's PATH need not know
gitgarden. A hook that was there first is kept beside it and run first; its
refusal stands. The hook judges the staged index against HEAD, and only for an
agent's commit (`agent_of`); a person's commit passes without a word.
"""

from __future__ import annotations

import fnmatch
import os
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.errors import GitgardenError
from gitgarden.repo import gitrepo
from gitgarden.wiki.tree import Entry, Overlay, Tree, text_of

if TYPE_CHECKING:  # a person's commit never needs the guard: the hook stays quick for them
    from gitgarden.guard.rules import Verdict

__all__ = [
    "AGENT_ENV",
    "HOOK_ID",
    "CHAINED_NAME",
    "HookStatus",
    "hooks_dir",
    "hook_script",
    "status",
    "install",
    "uninstall",
    "agent_of",
    "staged_trees",
    "verdict_lines",
    "bypass_line",
]

AGENT_ENV = "GITGARDEN_AGENT"  # set by an agent's harness (DESIGN §7)
HOOK_ID = "gitgarden-guard"  # the hook's id in .pre-commit-hooks.yaml (SKIP=… names it)
CHAINED_NAME = "pre-commit.gitgarden-chained"  # where a hook that was there first is kept
_MARKER = "# gitgarden-hook:"  # the line that tells our hook from anyone else's
_GLOB = set("*?[")


@dataclass(frozen=True)
class HookStatus:
    """Whether the pre-commit hook is gitgarden's, and what it chains and runs."""

    state: str  # "installed" | "not installed" | "foreign"
    hook: Path
    chained: Path | None  # the person's own hook, kept and run first
    python: str | None  # the interpreter our hook runs (None when not ours)

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
        }


def hooks_dir(root: Path) -> Path:
    """The folder git runs hooks from: `core.hooksPath` if set, else the common git dir's hooks/."""
    out = gitrepo.git(root, "rev-parse", "--git-path", "hooks").decode().strip()
    return (root / out).resolve()  # relative answers are relative to `root`


def hook_script(python: str) -> str:
    """The pre-commit hook's text: run the chained hook first, then the guard by absolute path."""
    py = shlex.quote(python)
    return f"""#!/bin/sh
{_MARKER} installed by `gitgarden hook install`; `gitgarden hook uninstall` removes it
# and puts back the hook that was here before (kept as {CHAINED_NAME}).
chained="${{0%/*}}/{CHAINED_NAME}"
if [ -x "$chained" ]; then
    "$chained" "$@" || exit $?
fi
if [ ! -x {py} ]; then
    echo "gitgarden hook: "{py}" is gone; run \\`gitgarden hook install\\` again." >&2
    # A person's commit goes on unchecked; an agent's waits until the guard can run.
    [ -z "${AGENT_ENV}" ] || exit 1
    exit 0
fi
exec {py} -m gitgarden guard --hook
"""


def _ours(hook: Path) -> str | None:
    """The interpreter our hook runs, or None when `hook` is not gitgarden's."""
    try:
        text = hook.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if _MARKER not in text:
        return None
    for line in text.splitlines():
        if line.startswith("exec ") and line.endswith(" -m gitgarden guard --hook"):
            words = shlex.split(line)
            return words[1] if len(words) > 1 else ""
    return ""


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def status(root: Path) -> HookStatus:
    """Is the pre-commit hook gitgarden's (installed), someone else's (foreign), or absent?"""
    hooks = hooks_dir(root)
    hook, chained = hooks / "pre-commit", hooks / CHAINED_NAME
    kept = chained if _exists(chained) else None
    if not _exists(hook):
        return HookStatus("not installed", hook, kept, None)
    python = _ours(hook)
    if python is None:
        return HookStatus("foreign", hook, kept, None)
    return HookStatus("installed", hook, kept, python)


def _write_hook(hook: Path, text: str) -> None:
    tmp = hook.with_name(hook.name + ".gitgarden-tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, hook)


def install(root: Path, python: str = sys.executable) -> str:
    """Write gitgarden's pre-commit hook, keeping and chaining a hook that was there first.

    Idempotent: a second run changes nothing (or only the interpreter's path). Returns a
    sentence saying what was done; GitgardenError when it would have to overwrite a hook.
    """
    hooks = hooks_dir(root)
    hook, chained = hooks / "pre-commit", hooks / CHAINED_NAME
    script = hook_script(python)
    note = ""
    if _exists(hook):
        current = _ours(hook)
        if current is not None:
            if hook.read_text(encoding="utf-8", errors="replace") == script:
                return f"gitgarden's pre-commit hook is already installed at {hook}: nothing changed."
            _write_hook(hook, script)
            return f"Updated gitgarden's pre-commit hook at {hook} (it now runs {python})."
        if _exists(chained):
            raise GitgardenError(
                f"{hook} is not gitgarden's, and {chained} holds another hook already: "
                "move one of them away by hand, then install again"
            )
        os.replace(hook, chained)  # a move keeps its mode (and a symlink stays a symlink)
        note = f"; your hook now lives at {chained} and runs first"
    hooks.mkdir(parents=True, exist_ok=True)
    _write_hook(hook, script)
    return f"Installed gitgarden's pre-commit hook at {hook}{note}."


def uninstall(root: Path) -> str:
    """Remove gitgarden's pre-commit hook and put back the hook it chained. Idempotent."""
    hooks = hooks_dir(root)
    hook, chained = hooks / "pre-commit", hooks / CHAINED_NAME
    if _exists(hook) and _ours(hook) is None:
        return f"{hook} is not gitgarden's: left as it is."
    if _exists(hook):
        hook.unlink()
    if _exists(chained):
        os.replace(chained, hook)
        return f"Removed gitgarden's pre-commit hook; your own hook is back at {hook}."
    return "gitgarden's pre-commit hook is not installed: nothing changed."


# --- who commits -----------------------------------------------------------------


def _author(root: Path) -> str:
    """The commit's author as `Name <email>` (git's own answer: GIT_AUTHOR_* or config)."""
    out = gitrepo.git(root, "var", "GIT_AUTHOR_IDENT", check=False).decode("utf-8", "replace")
    ident = out.strip()
    end = ident.rfind(">")
    return ident[: end + 1] if end >= 0 else ident


def _matches(pattern: str, author: str) -> bool:
    """A glob matches the whole `Name <email>`, the name or the email; other text is a substring."""
    pattern, author = pattern.strip().lower(), author.lower()
    if not pattern:
        return False
    if _GLOB & set(pattern):
        name, _, email = author.partition(" <")
        return any(fnmatch.fnmatchcase(s, pattern) for s in (author, name, email.rstrip(">")))
    return pattern in author


def agent_of(root: Path, env: Mapping[str, str], patterns: Sequence[str]) -> str | None:
    """Why this commit is an agent's (for the refusal's last line), or None for a person's.

    gitgarden's own commits (a pass, undo) are nobody's agent: they carry its one-time token
    (`gitrepo.own_commit`), which no variable an agent exports can stand in for.
    """
    if gitrepo.is_own_commit(root, env):
        return None
    name = env.get(AGENT_ENV, "").strip()
    if name:
        return f"{AGENT_ENV}={name}"
    if not patterns:
        return None
    author = _author(root)
    for pattern in patterns:
        if _matches(pattern, author):
            return f"the author {author} matches guard_agents {pattern!r}"
    return None


# --- what will be committed ---------------------------------------------------------


def staged_trees(root: Path, env: Mapping[str, str]) -> tuple[Tree, Tree]:
    """(HEAD's files, the files the commit will hold): the index git names in GIT_INDEX_FILE
    (for `commit -a` or `commit <paths>` a temporary one) or the repository's own index.

    HEAD is the empty tree before the first commit. The index is only read, never locked.
    """
    index_file = env.get("GIT_INDEX_FILE") or None
    if index_file and not os.path.isabs(index_file):
        index_file = os.path.abspath(index_file)  # git names it relative to the hook's folder
    base: dict[str, Entry] = gitrepo.tree_at(root, "HEAD") if gitrepo.head(root) else {}
    return base, Overlay(base, gitrepo.staged_changes(root, index_file))


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


def bypass_line(count: int, why_agent: str) -> str:
    """The refusal's last line: how many rules, why the guard applied, how to commit anyway once."""
    return (
        f"gitgarden guard refused this commit ({count} rule(s) broken; {why_agent}). "
        f"To commit anyway, once: git commit --no-verify (pre-commit framework: "
        f"SKIP={HOOK_ID} git commit)"
    )
