"""Sharing a wiki through a git remote: the remote is where passes on several machines meet.

With `remote` set, a pass fetches and fast-forwards its branch before it reads
(or, with `sync = "merge"`, merges a diverged remote in with a merge commit),
and pushes after it commits. A push that fast-forwards is the lock between
machines: when the remote moved meanwhile, the pass replays its own commits
onto the new tip in memory (`git merge-tree`, nothing in the work tree moves),
has the guard judge the replayed diff again and pushes once more. When that
cannot be done cleanly, the pass is taken back locally — its commit and its
read position — and its lines wait for the next pass on the new tip.

Never a force push, never a rebase or rewrite of the person's commits: only the
commits this pass made itself (its journal commit and its pass commit) are
ever replayed.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gitgarden.errors import GitError, GitgardenError
from gitgarden.repo import commits, gitrepo, recovery
from gitgarden.sharing import meaning

__all__ = [
    "RemoteRefused",
    "RemoteFailed",
    "Position",
    "current_branch",
    "position",
    "fetch",
    "publish",
    "take_back",
    "run_net",
    "git_words",
    "tracking_ref",
    "rev",
    "replay",
    "move_branch",
    "EXIT_REFUSED",
]

EXIT_REFUSED = 14
EXIT_FAILED = 15

# Where git says the server could not be reached, or would not let us in.
_UNREACHABLE = re.compile(
    r"could not resolve|unable to access|connection (refused|timed out|reset)|network is unreachable|"
    r"does not appear to be a git repository|could not read from remote|no such file or directory|not found",
    re.I,
)
_AUTH = re.compile(r"authentication failed|permission denied|could not read username|403|401|access denied", re.I)
_PROTECTED = re.compile(r"protected branch|pre-receive hook declined|hook declined|GH006|not allowed to push", re.I)
_STALE = re.compile(r"non-fast-forward|fetch first|\[rejected\]|stale info|failed to update ref", re.I)


class RemoteRefused(GitgardenError):
    """The clone and the remote are in a state a pass must not touch (diverged, cannot fast-forward)."""

    exit_code = EXIT_REFUSED


class RemoteFailed(GitgardenError):
    """The remote could not be reached, refused us, or would not take the pass."""

    exit_code = EXIT_FAILED
    taken_back = False  # True: the pass's commits were undone in this clone


@dataclass(frozen=True)
class Position:
    """Where the clone stands against its remote-tracking branch (as last fetched)."""

    remote: str
    branch: str
    ahead: int
    behind: int
    tracking: bool  # the remote-tracking ref exists

    def summary(self) -> str:
        if not self.tracking:
            return f"{self.remote}/{self.branch} not fetched yet"
        if self.ahead and self.behind:
            return f"diverged from {self.remote}/{self.branch}: {self.ahead} ahead, {self.behind} behind"
        if self.behind:
            return f"{self.behind} behind {self.remote}/{self.branch}"
        if self.ahead:
            return f"{self.ahead} ahead of {self.remote}/{self.branch}"
        return f"up to date with {self.remote}/{self.branch}"


def _ssh_env(root: Path) -> dict[str, str]:
    """ssh in batch mode (no password or host-key prompt) — unless the person chose how git runs ssh
    (`core.sshCommand`, GIT_SSH_COMMAND, GIT_SSH: a deploy key, a jump host), which is then kept as
    it is: it runs without a terminal in a session of its own, so it cannot prompt either, and
    `remote_timeout` bounds it."""
    if os.environ.get("GIT_SSH_COMMAND") or os.environ.get("GIT_SSH"):
        return {}
    if gitrepo.git(root, "config", "--get", "core.sshCommand", check=False).strip():
        return {}
    return {"GIT_SSH_COMMAND": "ssh -o BatchMode=yes -o ConnectTimeout=10"}


def run_net(root: Path, args: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """A git command that talks to the remote: non-interactive (no password or host-key prompt), bounded.

    It runs in a session of its own: when it outlives `timeout`, it is stopped with every process it
    started (ssh, a credential helper, the transport's helpers), not only git itself.
    """
    env = gitrepo.ident_env("gitgarden", "gitgarden@localhost")
    env.update(_ssh_env(root), GIT_ASKPASS="true", SSH_ASKPASS="true")
    argv = ["git", "-C", str(root), *args]
    try:
        proc = gitrepo.run_bounded(argv, env={**gitrepo.clean_env(), **env}, input=None, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RemoteFailed(f"remote unreachable: git {args[0]} gave no answer within {timeout:.0f} s") from None
    return subprocess.CompletedProcess(argv, proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def git_words(proc: subprocess.CompletedProcess[str]) -> str:
    """git's reason in one line: its message, with the files it names (not only a closing "Aborting")."""
    lines = [ln.strip() for ln in (proc.stderr or proc.stdout or "").splitlines() if ln.strip()]
    lines = [ln for ln in lines if ln not in ("Aborting", "Please move or remove them before you merge.")]
    if not lines:
        return f"exit status {proc.returncode}"
    return lines[0].rstrip(":") + (": " + ", ".join(lines[1:4]) if len(lines) > 1 else "")


def current_branch(root: Path) -> str | None:
    """The checked-out branch's short name; None on a detached HEAD."""
    out = gitrepo.git(root, "symbolic-ref", "--quiet", "--short", "HEAD", check=False).decode().strip()
    return out or None


def tracking_ref(remote: str, branch: str) -> str:
    return f"refs/remotes/{remote}/{branch}"


def rev(root: Path, ref: str) -> str | None:
    out = gitrepo.git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).decode().strip()
    return out or None


def _check_remote(root: Path, remote: str) -> None:
    if not remote or remote.startswith("-") or not re.fullmatch(r"[A-Za-z0-9._/-]+", remote):
        raise RemoteRefused(f"remote = {remote!r} is not a remote name (see `git remote -v`)")
    known = gitrepo.git(root, "remote", check=False).decode().split()
    if remote not in known:
        raise RemoteRefused(f"this clone has no remote named {remote!r}: add it with `git remote add {remote} URL`, or unset remote")


def fetch(root: Path, remote: str, branch: str, timeout: float) -> bool:
    """Fetch `branch` into its remote-tracking ref; False when the remote has no such branch yet."""
    _check_remote(root, remote)
    proc = run_net(root, ["fetch", "--quiet", "--no-tags", remote, f"+refs/heads/{branch}:{tracking_ref(remote, branch)}"], timeout)
    if proc.returncode == 0:
        return True
    words = git_words(proc)
    if "couldn't find remote ref" in words.lower():
        return False
    raise RemoteFailed(_failure("fetch from", remote, words))


def _failure(what: str, remote: str, words: str) -> str:
    if _AUTH.search(words):
        return f"the remote {remote!r} refused authentication ({words}); check the credentials this machine uses for it"
    if _UNREACHABLE.search(words):
        return f"remote unreachable: could not {what} {remote!r} ({words})"
    return f"could not {what} {remote!r}: {words}"


def position(root: Path, remote: str, branch: str) -> Position:
    """Ahead/behind against the remote-tracking ref as last fetched (no network)."""
    tracking = rev(root, tracking_ref(remote, branch))
    if tracking is None or gitrepo.head(root) is None:
        return Position(remote, branch, 0, 0, tracking is not None)
    out = gitrepo.git(root, "rev-list", "--left-right", "--count", f"HEAD...{tracking}").decode().split()
    return Position(remote, branch, int(out[0]), int(out[1]), True)


Reguard = Callable[[str, str], list[str]]  # (base commit, proposed commit) -> verdicts


def _push(root: Path, remote: str, commit: str, branch: str, timeout: float) -> tuple[bool, str]:
    """Push `commit` as `branch` (never forced): (landed, git's words)."""
    proc = run_net(root, ["push", "--porcelain", "--no-verify", remote, f"{commit}:refs/heads/{branch}"], timeout)
    words = (proc.stdout or "") + (proc.stderr or "")
    if proc.returncode == 0:
        return True, ""
    if _PROTECTED.search(words):
        raise RemoteFailed(
            f"{remote} refused the push to {branch} (a protected branch?): the pass stays committed in this clone; "
            "review mode (`gitgarden config set review true`) pushes the review branch instead"
        )
    if _STALE.search(words):
        return False, "the remote moved"
    raise RemoteFailed(_failure("push to", remote, git_words(proc)))


def _own_commits(root: Path, base: str, tip: str) -> list[str]:
    """The commits in base..tip, oldest first."""
    out = gitrepo.git(root, "rev-list", "--reverse", f"{base}..{tip}").decode().split()
    return out


def _blob(root: Path, rev: str, path: str) -> bytes | None:
    proc = subprocess.run(
        ["git", "-C", str(root), "cat-file", "blob", f"{rev}:{path}"],
        capture_output=True,
        env=gitrepo.clean_env(),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    return proc.stdout if proc.returncode == 0 else None


def replay(root: Path, own: list[str], onto: str, journal_dir: str) -> dict[str, str] | None:
    """Replay the pass's own commits onto `onto` in memory (a temporary index; the work tree and the
    person's index are untouched): {old commit: its replay}, None when any file cannot merge."""
    parent = onto
    out: dict[str, str] = {}
    for commit in own:
        old_parent = gitrepo.git(root, "rev-parse", f"{commit}^").decode().strip()
        changed = gitrepo.git(root, "diff", "--name-only", "-z", old_parent, commit).decode("utf-8", "surrogateescape")
        blobs: dict[str, bytes] = {}
        for path in filter(None, changed.split("\0")):
            merged = meaning.merge_file(
                root, path, _blob(root, old_parent, path), _blob(root, commit, path), _blob(root, parent, path), journal_dir
            )
            if merged is None:
                return None
            blobs[path] = merged
        name, email = gitrepo.git(root, "log", "-1", "--format=%an%x00%ae", commit).decode().rstrip("\n").split("\0")
        message = gitrepo.git(root, "log", "-1", "--format=%B", commit).decode("utf-8", "replace")
        parent = out[commit] = commits.build_commit(root, parent, blobs, message, (name, email))
    return out


def move_branch(root: Path, branch: str, old: str, new: str) -> bool:
    """Move the checked-out branch from `old` to `new` as a checkout would: the person's other
    changes, staged or not, stay; False (nothing moved) when a file they changed would be overwritten."""
    # The pass's own writes replaced files after the index learnt their contents: refresh the stat
    # data first, or git takes them for the person's edits ("not uptodate").
    gitrepo.git(root, "update-index", "-q", "--refresh", check=False)
    proc = subprocess.run(
        ["git", "-C", str(root), "read-tree", "-m", "-u", old, new],
        capture_output=True,
        env=gitrepo.clean_env(),
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if proc.returncode != 0:
        return False
    gitrepo.git(root, "update-ref", "-m", "gitgarden: pass replayed onto the remote", f"refs/heads/{branch}", new, old)
    return True


def take_back(
    root: Path,
    branch: str,
    base: str,
    tip: str,
    journal_dir: str,
    files: Mapping[str, tuple[bytes | None, bytes]] | None = None,
    step: recovery.Step = recovery.no_step,
) -> list[str]:
    """Undo the pass's commits in this clone: the branch back to `base`, each file the pass wrote
    back to what it was, the person's index back to what it held; returns the files left as the
    person has them.

    Every file goes through the pass's compare-before-write (`replace_checked`,
    `remove_checked`): one the person changed since the pass wrote it is not
    touched — their version wins, the pass's text stays in it — and named in
    the result. `files` holds, by path, what the pass read (None: absent) and
    what it wrote; a path it lacks is taken from the commits. Journal files keep
    their lines on disk (uncommitted again, unread). The index takes `base`'s
    version only where it held the pass's (git's carry-forward rule), so what
    the person staged meanwhile stays staged and nothing of the pass does.
    RemoteFailed, with nothing changed, when the branch moved past the pass (a
    commit of the person's on top): then the pass stays committed here.
    """
    files = files or {}
    changed = gitrepo.git(root, "diff", "--name-only", "-z", base, tip).decode("utf-8", "surrogateescape").split("\0")
    changed = [p for p in changed if p]
    try:
        gitrepo.git(root, "update-ref", "-m", "gitgarden: pass taken back (push refused)", f"refs/heads/{branch}", base, tip)
    except GitError:
        raise RemoteFailed(
            f"{branch} moved past the pass (a commit of yours on top?): the pass stays committed in this clone, "
            f"not pushed; run `git pull --no-rebase` and push when you are ready"
        ) from None
    kept: list[str] = []
    for path in changed:
        if path.startswith(journal_dir.rstrip("/") + "/"):
            continue  # the lines stay on disk, unread; only the index forgets them (below)
        before, wrote = files.get(path, (_blob(root, base, path), _blob(root, tip, path) or b""))
        try:
            target = recovery.safe_target(root, path)
            if before is None:
                recovery.remove_checked(target, wrote, rel=path, step=step)
            else:
                recovery.replace_checked(target, before, wrote, rel=path, step=step)
        except recovery.ChangedUnderfoot:
            kept.append(path)
        except GitgardenError:
            kept.append(path)  # a symlink stands there now: never written through
    commits.sync_index(root, tip, base, changed)
    return kept


def _exists(root: Path, rev: str, path: str) -> bool:
    proc = subprocess.run(
        ["git", "-C", str(root), "cat-file", "-e", f"{rev}:{path}"], capture_output=True, env=gitrepo.clean_env(), check=False
    )
    return proc.returncode == 0


@dataclass
class Published:
    """What became of a pass's push."""

    summary: str
    commit: str  # the commit that stands on the remote (the pass's own, or its replay)
    journal_commit: str
    tries: int
    warnings: list[str] = field(default_factory=list)  # what did not go as asked (a tag the remote refused)


def _landed(
    root: Path,
    remote: str,
    branch: str,
    pass_commit: str,
    tip: str,
    new_journal: str,
    attempt: int,
    tags: Sequence[str],
    timeout: float,
) -> Published:
    """The pass is on the remote as `tip`: this clone follows a replay, the snapshot tags go too."""
    note = f"pushed to {remote}/{branch}"
    if tip != pass_commit:
        note += f" after replaying the pass onto the remote's new tip (try {attempt})"
        if not move_branch(root, branch, pass_commit, tip):
            note += (
                f"; this clone could not follow without overwriting your changes: "
                f"run `git reset --keep {remote}/{branch}` when they are saved"
            )
    warnings = []
    for tag in tags:
        pushed = run_net(root, ["push", "--quiet", "--no-verify", remote, f"refs/tags/{tag}:refs/tags/{tag}"], timeout)
        if pushed.returncode != 0:
            warnings.append(f"the snapshot tag {tag} was not pushed ({remote} said: {git_words(pushed)}); it stays in this clone")
    return Published("; ".join([note, *warnings]), tip, new_journal, attempt, warnings)


def publish(
    root: Path,
    remote: str,
    *,
    pass_commit: str,
    journal_commit: str,
    branch: str | None,
    tries: int,
    timeout: float,
    reguard: Reguard,
    journal_dir: str,
    tags: Sequence[str] = (),
    take_back_on_failure: bool = True,
    files: Mapping[str, tuple[bytes | None, bytes]] | None = None,
    step: recovery.Step = recovery.no_step,
) -> Published:
    """Push the pass; when the remote moved, replay the pass's own commits onto it and try again.

    RemoteFailed when the pass cannot land on the remote: by then it has been
    taken back in this clone (unless it was refused by a protected branch, when it
    stays committed here). `files` (what the pass read and wrote, by path) and
    `step` are for the take-back (see `take_back`).
    """
    branch = branch or current_branch(root)
    if branch is None:
        raise RemoteFailed("HEAD is detached: the pass was committed but not pushed")
    own_first = journal_commit or pass_commit
    base = gitrepo.git(root, "rev-parse", f"{own_first}^").decode().strip()
    own = _own_commits(root, base, pass_commit)
    tip, new_journal = pass_commit, journal_commit
    why = ""
    for attempt in range(1, max(1, tries) + 1):
        step("pushing", "")
        landed, why = _push(root, remote, tip, branch, timeout)
        if landed:
            return _landed(root, remote, branch, pass_commit, tip, new_journal, attempt, tags, timeout)
        if attempt == max(1, tries):
            why += f" {attempt} times"
            break
        if not fetch(root, remote, branch, timeout):
            why = f"{remote}/{branch} disappeared"
            break
        onto = rev(root, tracking_ref(remote, branch))
        if onto is None or not _is_ancestor(root, base, onto):
            why = f"{remote}/{branch} no longer contains the commit the pass started from; the person's commits are never replayed"
            break
        replayed = replay(root, own, onto, journal_dir)
        if replayed is None:
            why = f"the pass's changes conflict with what {remote}/{branch} received meanwhile"
            break
        tip = replayed[pass_commit]
        new_journal = replayed.get(journal_commit, "") if journal_commit else ""
        verdicts = reguard(rev(root, f"{tip}^") or onto, tip)
        if verdicts:
            why = "the guard refused the pass replayed onto the remote's new tip: " + "; ".join(verdicts[:3])
            break
    if not take_back_on_failure:
        raise RemoteFailed(f"the pass could not be pushed ({why}); it stays committed in this clone")
    kept = take_back(root, branch, base, pass_commit, journal_dir, files, lambda s, r: step(f"take_back:{s}", r))
    words = f"the pass could not be pushed ({why}); it was taken back in this clone and its lines stay unread"
    if kept:
        words += (
            f"; you changed {', '.join(kept)} meanwhile: your version is kept as it is (it still holds the pass's "
            "text, uncommitted)"
        )
    failed = RemoteFailed(words)
    failed.taken_back = True
    raise failed


def _is_ancestor(root: Path, older: str, newer: str) -> bool:
    proc = subprocess.run(
        ["git", "-C", str(root), "merge-base", "--is-ancestor", older, newer],
        capture_output=True,
        env=gitrepo.clean_env(),
        check=False,
    )
    return proc.returncode == 0
