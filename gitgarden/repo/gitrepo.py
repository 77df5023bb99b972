"""Git at the edge: plumbing through the `git` executable, one command at a time.

gitgarden calls git directly rather than through GitPython: every call gets a
cleaned environment (no inherited GIT_DIR / GIT_INDEX_FILE from hooks or cron),
identity is passed to the one command that needs it, and no `cat-file --batch`
processes outlive a pass. Model output never becomes an option or a ref:
paths go after `--`, ref names are built by code.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar, cast

from gitgarden.errors import GitError
from gitgarden.wiki.tree import Entry, from_git

T = TypeVar("T")

__all__ = [
    "git",
    "GitPolicy",
    "git_policy",
    "QUARANTINE_ENV",
    "DEFAULT_TIMEOUT",
    "ensure_repo",
    "head",
    "person_identity",
    "index_lock_error",
    "blob_id",
    "blob_ids",
    "dirty_paths",
    "tree_at",
    "worktree_tree",
    "ident_env",
    "RepoSettings",
    "repo_settings",
    "run_bounded",
    "read_blobs",
    "remembered",
    "current_policy",
    "clean_env",
]


# Variables a hook or a parent git process may leave behind; they would point
# our commands at another repository or index.
_GIT_ENV_STRIP = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_PREFIX",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    # An agent's harness sets it for the agent's own commits (the guard's hooks judge those). A git
    # process gitgarden starts makes gitgarden's commit (a pass, undo, a sync's merge), which its own
    # guard judged: the person's hooks see no agent in it. Nothing an agent can mint marks it.
    "GITGARDEN_AGENT",
)


# Every git process runs without a person to answer it: a pass may run from cron with nobody
# at the keyboard, and a prompt or an editor there would hang it forever while it holds the lock.
_NON_INTERACTIVE = {
    "GIT_TERMINAL_PROMPT": "0",  # no username/password prompt on the terminal
    "GIT_ASKPASS": "true",  # an askpass program answers empty at once instead of opening a window
    "SSH_ASKPASS": "true",
    "SSH_ASKPASS_REQUIRE": "never",
    "GCM_INTERACTIVE": "never",  # Git Credential Manager: no sign-in window
    "GIT_EDITOR": "true",  # an editor git wants (a tag or merge message) "saves" at once
    "GIT_SEQUENCE_EDITOR": "true",
    "GIT_MERGE_AUTOEDIT": "no",
    "GIT_PAGER": "cat",
}

DEFAULT_TIMEOUT = 300.0  # seconds; the `git_timeout` setting changes it for a pass
QUARANTINE_ENV = ("GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH")


@dataclass(frozen=True)
class GitPolicy:
    """How git runs for one pass or command: the timeout of each process, and whether the
    commits gitgarden makes may be signed (`sign_commits = false` turns commit.gpgsign off)."""

    timeout: float = DEFAULT_TIMEOUT
    sign_commits: bool = True
    # A server-side hook (pre-receive) sees the pushed objects only through the quarantine git
    # names in GIT_OBJECT_DIRECTORY / GIT_ALTERNATE_OBJECT_DIRECTORIES: kept for every git call.
    objects_env: tuple[tuple[str, str], ...] = ()


# The policy is set once at the start of a pass (`with git_policy(...)`) rather than handed to
# each of the dozens of git calls a pass makes through several modules; outside one, the default.
_DEFAULT_POLICY = GitPolicy()
_POLICY: ContextVar[GitPolicy | None] = ContextVar("gitgarden_git_policy", default=None)
# What git said of a repository's settings inside the block (its config and identity, where its
# hooks live): a pass makes two commits and asks once, not once a commit.
_MEMO: ContextVar[dict[tuple[str, str], Any] | None] = ContextVar("gitgarden_git_memo", default=None)


@contextlib.contextmanager
def git_policy(policy: GitPolicy) -> Iterator[GitPolicy]:
    """Run every git command inside the block under `policy`; the repository's settings are asked once."""
    token = _POLICY.set(policy)  # reset on leaving, so nested blocks and later commands see their own
    memo = _MEMO.set({})
    try:
        yield policy
    finally:
        _MEMO.reset(memo)
        _POLICY.reset(token)


def remembered(root: Path, what: str, ask: Callable[[], T]) -> T:
    """`ask()`, once per repository and question inside a `git_policy` block (every time outside one)."""
    memo = _MEMO.get()
    if memo is None:
        return ask()
    key = (str(root), what)
    if key not in memo:
        memo[key] = ask()
    return cast(T, memo[key])


_TRUE = frozenset({"true", "yes", "on"})
_FALSE = frozenset({"false", "no", "off", ""})


@dataclass(frozen=True)
class RepoSettings:
    """The repository's config as git resolves it (every file, includes, `-c`) and the author git would
    name, from one `git var -l`."""

    config: Mapping[str, tuple[str | None, ...]]  # key (section and name in lower case) -> its values, in order
    author: str  # `Name <email>` (GIT_AUTHOR_IDENT without its date), "" when git has none

    def value(self, key: str) -> str | None:
        """The last value of `key`, or None when it is not set (or set without a value)."""
        values = self.config.get(key.lower())
        return values[-1] if values else None

    def flag(self, key: str) -> bool:
        """`key` read as git reads a boolean (unset: False; set without a value: True)."""
        values = self.config.get(key.lower())
        if not values:
            return False
        last = values[-1]
        if last is None:
            return True
        low = last.strip().lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        try:
            return int(low, 0) != 0
        except ValueError:
            return False


def repo_settings(root: Path) -> RepoSettings:
    """The repository's config and author identity (asked once inside a `git_policy` block)."""

    def ask() -> RepoSettings:
        out = git(root, "var", "-l", check=False).decode("utf-8", "replace")
        config: dict[str, list[str | None]] = {}
        author = ""
        for line in out.split("\n"):
            key, eq, value = line.partition("=")
            if key == "GIT_AUTHOR_IDENT":
                end = value.rfind(">")
                author = value[: end + 1] if end >= 0 else value
            elif key and not key.startswith("GIT_") and "." in key:
                config.setdefault(key.lower(), []).append(value if eq else None)
        return RepoSettings({k: tuple(v) for k, v in config.items()}, author)

    return remembered(root, "settings", ask)


def _env(extra: Mapping[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_STRIP}
    env.setdefault("LC_ALL", "C")
    env.update(_NON_INTERACTIVE)
    env.update((_POLICY.get() or _DEFAULT_POLICY).objects_env)
    if extra:
        env.update(extra)
    return env


def run_bounded(
    argv: list[str], *, env: dict[str, str], input: bytes | None, timeout: float, cwd: str | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run one git process (or a hook) in a session of its own, stdin closed (or fed `input`),
    killed with all its children (a hook, gpg, ssh) when it outlives `timeout`.

    A new session has no terminal: a pinentry or an ssh passphrase prompt cannot open /dev/tty
    and wait there, it fails and git reports the failure.
    """
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        start_new_session=True,
    )
    try:
        out, errs = proc.communicate(input, timeout=timeout)
    except BaseException:  # the timeout, or Ctrl-C: no git process (or its children) outlives the call
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, errs)


def _signing_failed(words: str) -> bool:
    low = words.lower()
    return "failed to sign" in low or "gpg failed" in low or "signing failed" in low


_MAKES_COMMITS = frozenset({"commit", "commit-tree", "merge", "am", "rebase", "cherry-pick", "revert"})


def _command(args: Sequence[str]) -> str:
    """The git subcommand of `args`, past any leading `-c key=value` pairs (for messages)."""
    i = 0
    while i + 1 < len(args) and args[i] == "-c":
        i += 2
    return args[i] if i < len(args) else ""


SIGNING_HINT = (
    "fix your signing setup, or let gitgarden commit unsigned: `gitgarden config set --user sign_commits false`"
)


def wants_signing(root: Path) -> bool:
    """True when the person's git signs commits (commit.gpgsign) and gitgarden may (sign_commits)."""
    policy = _POLICY.get() or _DEFAULT_POLICY
    if not policy.sign_commits:
        return False
    return repo_settings(root).flag("commit.gpgsign")


def clean_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every git process of gitgarden's gets (inherited GIT_* pointers stripped),
    with `extra` on top."""
    return _env(extra)


def current_policy() -> GitPolicy:
    """The policy git runs under here: the innermost `git_policy` block's, else the default."""
    return _POLICY.get() or _DEFAULT_POLICY


def git(
    root: Path,
    *args: str,
    env: Mapping[str, str] | None = None,
    input: bytes | None = None,
    check: bool = True,
) -> bytes:
    """Run `git -C root args…` and return stdout; GitError with git's own words on failure.

    Never interactive, and never longer than the policy's timeout (GitError naming the
    command and the timeout).
    """
    policy = _POLICY.get() or _DEFAULT_POLICY
    name = _command(args)
    config = [] if policy.sign_commits or name not in _MAKES_COMMITS else ["-c", "commit.gpgsign=false"]
    argv = ["git", "-C", str(root), *config, *args]
    try:
        proc = run_bounded(argv, env=_env(env), input=input, timeout=policy.timeout)
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH)") from None
    except subprocess.TimeoutExpired:
        why = " (a signing program or a hook waiting for an answer?)" if name in ("commit", "commit-tree", "merge", "tag") else ""
        raise GitError(
            f"git {name} did not finish within {policy.timeout:g} s and was stopped{why}; "
            "the `git_timeout` setting changes the limit"
        ) from None
    if check and proc.returncode != 0:
        text = proc.stderr.decode("utf-8", "replace").strip()
        if _signing_failed(text):
            first = text.splitlines()[0]
            raise GitError(f"git {name} failed: signing failed ({first}; commit.gpgsign is on): {SIGNING_HINT}")
        raise GitError(f"git {name} failed: {_failure_detail(proc.stderr, proc.returncode)}")
    return proc.stdout


def _failure_detail(stderr: bytes, returncode: int) -> str:
    """git's own last words; for a held lock, the line that names the file (git's last line does not)."""
    words = stderr.decode("utf-8", "replace").strip().splitlines()
    for line in words:
        if ".lock'" in line and ("File exists" in line or "Unable to create" in line):
            start, end = line.find("'"), line.rfind("'")
            if 0 <= start < end:
                return index_lock_error(Path(line[start + 1 : end]))
    return words[-1] if words else f"exit status {returncode}"


def index_lock_error(lock: Path) -> str:
    """The one line naming a stale git lock file and how to remove it."""
    return (
        f"{lock} exists: another git command is running in this repository, or one was killed and left it; "
        f"if no git command is running, remove it: rm '{lock}'"
    )


def ensure_repo(root: Path) -> bool:
    """`git init` when `root` is not inside a work tree; True when it made one."""
    if git(root, "rev-parse", "--is-inside-work-tree", check=False).strip() == b"true":
        return False
    git(root, "init", "--quiet")
    return True


def head(root: Path) -> str | None:
    """HEAD's commit id, or None in a repository without commits."""
    out = git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).decode().strip()
    return out or None


def ident_env(name: str, email: str) -> dict[str, str]:
    """Environment for one git command authored and committed by `name <email>`."""
    return {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
    }


def person_identity(root: Path) -> tuple[str, str]:
    """The person's git identity; falls back to their login name when git has none."""
    out = repo_settings(root).author.strip()
    if "<" in out and ">" in out:
        name = out[: out.index("<")].strip()
        email = out[out.index("<") + 1 : out.index(">")]
        if name and email:
            return name, email
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or "person"
    return user, f"{user}@localhost"


def dirty_paths(root: Path, paths: Iterable[str]) -> set[str]:
    """Which of `paths` differ from HEAD in the index or the work tree (untracked included)."""
    paths = list(paths)
    if not paths:
        return set()
    out = git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths)
    # Porcelain paths are the repository's; a project below the top of its repository
    # (`gitgarden init notes/`) names its files relative to itself.
    prefix = "" if (root / ".git").exists() else git(root, "rev-parse", "--show-prefix").decode().strip()
    dirty: set[str] = set()
    records = out.split(b"\0")
    i = 0
    while i < len(records):
        rec = records[i]
        if len(rec) > 3:
            dirty.add(rec[3:].decode("utf-8", "surrogateescape").removeprefix(prefix))
            if rec[:1] in (b"R", b"C"):
                i += 1  # a rename's source path follows
        i += 1
    return dirty


def read_blobs(root: Path, names: Sequence[str], env: Mapping[str, str] | None = None) -> list[bytes]:
    """The contents of `names` (object ids, or `rev:path` / `:path` for the index `env` names) in
    one `git cat-file --batch`; b"" for a name git cannot find. A name holds no newline."""
    if not names:
        return []
    out = git(root, "cat-file", "--batch", input=("\n".join(names) + "\n").encode("utf-8", "surrogateescape"), env=env)
    blobs: list[bytes] = []
    pos = 0
    for _ in names:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        if len(header) != 3 or not header[2].isdigit():  # "<name> missing" (or ambiguous)
            blobs.append(b"")
            pos = nl + 1
            continue
        size = int(header[2])
        blobs.append(out[nl + 1 : nl + 1 + size])
        pos = nl + 1 + size + 1
    return blobs


def tree_at(root: Path, rev: str, prefixes: Sequence[str] = ()) -> dict[str, Entry]:
    """The files of commit `rev` under `root` (optionally only under `prefixes`) as a tree, by
    path relative to `root` (a project below the top of its repository sees only itself)."""
    if rev.startswith("-"):
        raise GitError(f"not a revision: {rev!r}")
    out = git(root, "ls-tree", "-r", "-z", rev, "--", *prefixes)
    metas: list[tuple[str, str, str]] = []
    gitlinks: list[str] = []
    for rec in out.split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        mode, kind, oid = meta.decode().split()
        if kind == "blob":
            metas.append((path.decode("utf-8", "surrogateescape"), mode, oid))
        elif kind == "commit":  # a submodule: known, so no rule lets it go, but never read
            gitlinks.append(path.decode("utf-8", "surrogateescape"))
    blobs = read_blobs(root, [oid for _, _, oid in metas])
    tree = {
        path: from_git(mode, data)
        for (path, mode, _), data in zip(metas, blobs, strict=True)
    }
    tree.update((path, Entry("gitlink", b"")) for path in gitlinks)
    return tree


def worktree_tree(root: Path, prefixes: Sequence[str] = ()) -> dict[str, Entry]:
    """The work tree's tracked and untracked (not ignored) files as a tree; symlinks not followed."""
    out = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *prefixes)
    tree: dict[str, Entry] = {}
    for raw in sorted(set(out.split(b"\0"))):
        if not raw:
            continue
        rel = raw.decode("utf-8", "surrogateescape")
        path = root / rel
        try:
            if path.is_symlink():
                tree[rel] = Entry("symlink", os.fsencode(os.readlink(path)))
            elif path.is_file():
                tree[rel] = Entry("file", path.read_bytes())
            elif path.is_dir():  # git lists a submodule (a gitlink) as one path: its folder
                tree[rel] = Entry("gitlink", b"")
        except OSError:
            continue
    return tree


def entries(root: Path, args: Sequence[str], env: Mapping[str, str] | None = None) -> dict[str, tuple[str, str]]:
    """(mode, object id) by path from `ls-files -s` or `ls-tree` output (-z); unmerged entries kept apart."""
    out: dict[str, tuple[str, str]] = {}
    for rec in git(root, *args, env=env).split(b"\0"):
        if not rec:
            continue
        meta, path = rec.split(b"\t", 1)
        bits = meta.decode().split()
        rel = path.decode("utf-8", "surrogateescape")
        if args[0] == "ls-files":
            mode, oid, stage = bits
            out[rel] = (mode, oid) if stage == "0" else ("unmerged", stage)
        else:
            out[rel] = (bits[0], bits[2])
    return out


def show_prefix(root: Path) -> str:
    """`root`'s path below the top of its repository ('' at the top, else ending in '/')."""
    if (root / ".git").exists():
        return ""  # `root` is the top of a work tree (its own repository, or a linked worktree)
    return remembered(root, "prefix", lambda: git(root, "rev-parse", "--show-prefix").decode().strip())


def head_ref(root: Path) -> tuple[str, str | None, str | None]:
    """The ref HEAD names ("HEAD" when detached), its commit and tree (None, None on an unborn branch)."""
    out = git(root, "rev-parse", "HEAD", "HEAD^{tree}", "--symbolic-full-name", "HEAD", check=False).decode().split()
    if len(out) == 3:
        return out[2], out[0], out[1]
    ref = git(root, "symbolic-ref", "-q", "HEAD", check=False).decode().strip()
    return ref or "HEAD", None, None


def blob_id(data: bytes) -> str:
    """The object id git gives `data` as a blob in a SHA-1 repository (no filters applied)."""
    import hashlib

    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def blob_ids(root: Path, rev: str, paths: Sequence[str]) -> dict[str, str]:
    """Object ids of `paths` in `rev` (none when `rev` does not exist yet)."""
    if not paths:
        return {}
    out = git(root, "ls-tree", "-z", "--full-tree", rev, "--", *paths, check=False)
    ids = {}
    for rec in out.split(b"\0"):
        if b"\t" in rec:
            meta, path = rec.split(b"\t", 1)
            ids[path.decode("utf-8", "surrogateescape")] = meta.decode().split()[2]
    return ids


