"""Whether a project may be gardened now, and what holds it back: the clocks of docs/architecture.md, "When passes run"
(`interval_min`, `idle_min`, `min_hours_between_passes`), the nightly `at`, a remote that diverged,
a repository mid-merge, the map and health as second triggers — from stat calls and the state
`registry` remembers, never a git process or a journal parse until something changed.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.config import Settings, load_settings
from gitgarden.errors import ConfigError, GitgardenError
from gitgarden.repo.gitdir import find_git_dir
from gitgarden.repo.lock import holder
from gitgarden.schedule.registry import (
    ProjectState,
    count_unread,
    from_iso,
    iso,
    map_chars,
    scan_journal,
)
from gitgarden.wiki import layout

if TYPE_CHECKING:
    from gitgarden.project import Project

__all__ = [
    "MAP_CEILING",
    "FAILED_EXIT",
    "INTERVAL_SLACK_S",
    "Hold",
    "Assessment",
    "assess",
    "order",
    "project_at",
    "remote_position",
    "health_signal",
]

# The map's ceiling, as wiki.MAP_CEILING (a test keeps them equal): wiki imports
# YAML and frontmatter, which a tick that finds nothing must not pay for.
MAP_CEILING = 2000
FAILED_EXIT = 15  # gardener.OUTCOMES["failed"][0]
# A tick looks when at least interval_min minus this has passed: timers and cron
# fire a little early or late, and a look missed by a second waits a whole minute.
INTERVAL_SLACK_S = 30

Clock = Callable[[], datetime]


# -- time ------------------------------------------------------------------------------


def _span(seconds: float) -> str:
    """A duration for people: '40 s', '12 min', '3 h 5 min', '2 d 4 h'."""
    s = max(0, int(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    if s < 86_400:
        h, m = divmod(s // 60, 60)
        return f"{h} h" + (f" {m} min" if m else "")
    d, h = divmod(s // 3600, 24)
    return f"{d} d" + (f" {h} h" if h else "")


# -- what a project looks like on disk (stat calls only, until something changed) ---------------


def _map_over(root: Path | str, left: int | None) -> int | None:
    """The map's size when it is over the ceiling and bigger than the last pass left it, else None."""
    try:
        size = os.lstat(f"{root}/{layout.current().map_path()}").st_size  # a symlink's target is never the map
    except OSError:
        return None
    if size <= MAP_CEILING:  # bytes >= characters: no need to read it
        return None
    chars = map_chars(Path(root)) or 0
    return chars if chars > MAP_CEILING and (left is None or chars > left) else None


def _newest_mtime(folder: Path) -> float:
    """The newest mtime of `folder`, its files and sub-folders (hidden folders such as .obsidian skipped)."""
    newest = 0.0
    todo = [folder]
    while todo:
        here = todo.pop()
        try:
            newest = max(newest, os.stat(here).st_mtime)
            with os.scandir(here) as it:
                for entry in it:
                    is_dir = entry.is_dir(follow_symlinks=False)
                    if is_dir and entry.name.startswith("."):
                        continue
                    if is_dir:
                        todo.append(Path(entry.path))
                        continue
                    with contextlib.suppress(OSError):
                        newest = max(newest, entry.stat(follow_symlinks=False).st_mtime)
        except OSError:
            continue
    return newest


# -- eligibility -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hold:
    """Something that holds a project back: a clock (with when it lets go) or a condition."""

    clock: str  # repo_state | enabled | idle_min | min_hours_between_passes | at | remote | turn_in_flight | lock | registered | one_per_tick
    detail: str
    until: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"clock": self.clock, "detail": self.detail, "until": None if self.until is None else iso(self.until)}

    def __str__(self) -> str:
        when = f" (until {_human_time(self.until)})" if self.until is not None else ""
        return f"{self.clock}: {self.detail}{when}"


def _human_time(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).astimezone().strftime("%Y-%m-%d %H:%M")


@dataclass
class Assessment:
    """One project as a tick (or `status`) sees it."""

    root: Path
    record: ProjectState
    work: str = ""  # "journal" (unread lines) | "map" (over its ceiling and grown) | "health" | "" (nothing to do)
    signal: str = ""  # with work "health": which figure worsened past its threshold
    unread: int | None = None
    holds: list[Hold] = field(default_factory=list)
    settings: Settings | None = None
    warnings: list[str] = field(default_factory=list)
    error: str = ""  # why it could not be looked at (folder gone, malformed config)
    new_sig: tuple[str, int] | None = None  # (signature, unread) to remember when they changed

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def eligible(self) -> bool:
        return bool(self.work) and not self.holds and not self.error

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.root),
            "name": self.name,
            "work": self.work or None,
            "signal": self.signal or None,
            "unread": self.unread,
            "eligible": self.eligible,
            "held": [h.as_dict() for h in self.holds],
            "error": self.error or None,
            "last_attempt": self.record.last_attempt,
            "last_outcome": self.record.last_outcome,
            "consecutive_failures": self.record.consecutive_failures,
        }


def project_at(root: Path | str) -> Project | None:
    """The gitgarden project at `root` (its layout read once, for all that follows), or None."""
    from gitgarden.project import Project, wiki_exists

    if not os.path.isdir(f"{root}/.gitgarden"):
        return None
    project = Project(Path(root))
    return project if wiki_exists(project) else None


def _wiki_mtime(root: Path) -> float:
    """The newest mtime in the wiki; a wiki at the root leaves out what is not the person's
    (log/ and raw/, which a pass writes, and hidden folders)."""
    here = layout.current()
    if not here.at_root:
        return _newest_mtime(root / here.wiki_dir)
    newest = 0.0
    try:
        entries = [e for e in os.scandir(root) if not layout.reserved_at_top(e.name)]
    except OSError:
        return newest
    for entry in entries:
        with contextlib.suppress(OSError):
            newest = max(newest, _newest_mtime(Path(entry.path)) if entry.is_dir(follow_symlinks=False) else entry.stat(follow_symlinks=False).st_mtime)
    return newest


def assess(
    root: Path, record: ProjectState, now: float, env: Mapping[str, str], *, full: bool = False, project: Project | None = None
) -> Assessment:
    """What `root` has to do and what holds it back at `now` (epoch seconds).

    Without `full`, a project with nothing to do is left after the stat calls
    (the common tick); `full` (for `status`) checks every clock regardless. `project`: the
    project at `root` when the caller has it already (its layout is not read again).
    """
    a = Assessment(root, record)
    project = project or project_at(root)
    if project is None:
        a.error = "the folder is gone or is no longer a gitgarden project (`gitgarden projects remove` it)"
        return a
    try:
        here = project.layout
    except ConfigError as exc:
        a.error = str(exc)
        return a
    with layout.active(here):
        return _assess(a, root, record, now, env, full)


def _assess(a: Assessment, root: Path, record: ProjectState, now: float, env: Mapping[str, str], full: bool) -> Assessment:
    where = str(root)
    scan = scan_journal(where)
    if scan.sig == record.journal_sig and record.unread is not None:
        a.unread = record.unread
    else:
        a.unread = count_unread(root)
        a.new_sig = (scan.sig, a.unread)
    if a.unread:
        a.work = "journal"
    elif _map_over(where, record.map_chars) is not None:
        a.work = "map"
    last = from_iso(record.last_attempt)
    wiki_moved = not a.work and last is not None and _wiki_mtime(root) > last
    if not a.work and not full and not wiki_moved:
        return a
    try:
        resolved = load_settings(root, env=env)
    except ConfigError as exc:
        a.error = str(exc)
        return a
    a.settings, a.warnings = resolved.settings, resolved.warnings
    s = resolved.settings
    if not a.work and (wiki_moved or full):
        # The second reason for a pass: the wiki's health worsened since the last one.
        a.signal = health_signal(root, s)
        if a.signal:
            a.work = "health"
        elif not full:
            return a
    if not s.enabled:
        a.holds.append(Hold("enabled", f"enabled = false (from the {resolved.sources['enabled']} setting)"))
    if (root / ".gitgarden" / "turn-in-flight").exists():
        a.holds.append(Hold("turn_in_flight", "a turn is in flight (.gitgarden/turn-in-flight)"))
    if s.idle_min > 0:
        newest = max(scan.newest, _newest_mtime(root / "raw" / "chat"), _wiki_mtime(root))
        until = newest + s.idle_min * 60
        if now < until:
            a.holds.append(
                Hold("idle_min", f"last edit (journal, conversation or wiki) {_span(now - newest)} ago; needs {s.idle_min} min of quiet", until)
            )
    if last is not None and s.min_hours_between_passes > 0:
        until = last + s.min_hours_between_passes * 3600
        if now < until:
            a.holds.append(
                Hold(
                    "min_hours_between_passes",
                    f"last attempt {_span(now - last)} ago; {s.min_hours_between_passes:g} h between passes",
                    until,
                )
            )
    if s.remote:
        hold = _remote_hold(root, s)
        if hold is not None:
            a.holds.append(hold)
    if s.at:
        nightly = _parse_at(s.at)
        if nightly is None:
            a.warnings.append(f"at = {s.at!r} is not a time like 03:30 (local, 24-hour); ignored")
        else:
            hold = _at_hold(s.at, nightly, last, now)
            if hold is not None:
                a.holds.append(hold)
    git_dir = find_git_dir(root)
    info = holder(git_dir) if git_dir is not None else None
    if info is not None:
        a.holds.append(
            Hold("lock", f"pass {info.get('pass_id', '?')} (started {info.get('started', '?')}, pid {info.get('pid', '?')}) holds the lock")
        )
    state = _repo_state(root, git_dir)
    if state:  # first: a merge or rebase in progress is what the person needs to hear before anything else
        a.holds.insert(0, Hold("repo_state", state))
    return a


def _repo_state(root: Path, git_dir: Path | None) -> str | None:
    """Why a pass would refuse this repository's state now (repostate), or None."""
    from gitgarden.repo.states import blocking_state

    try:
        return blocking_state(root, git_dir)
    except GitgardenError as exc:
        return str(exc)


def _remote_hold(root: Path, s: Settings) -> Hold | None:
    """A clone that has diverged from its remote (as last fetched) by the person's commits cannot take a
    pass unless sync = "merge" (gitgarden's own journal commits are replayed onto the remote's tip)."""
    from gitgarden.repo import gitrepo
    from gitgarden.sharing import remote, sync

    branch = remote.current_branch(root)
    if branch is None or s.sync == "merge":
        return None
    pos = remote.position(root, s.remote, branch)
    if pos.ahead and pos.behind:
        local = gitrepo.git(root, "rev-list", "--reverse", f"{remote.tracking_ref(s.remote, branch)}..HEAD").decode().split()
        if sync.only_own_journal(root, local, layout.current().journal_dir):
            return None
        return Hold("remote", f"{pos.summary()}: merge them yourself, or set sync = \"merge\"")
    return None


def remote_position(root: Path, env: Mapping[str, str]) -> str | None:
    """How far this clone is ahead of or behind its remote, as last fetched; None without `remote`."""
    s = load_settings(root, env=env).settings
    if not s.remote:
        return None  # and no git module loaded: status stays light
    from gitgarden.sharing import remote

    branch = remote.current_branch(root)
    return None if branch is None else remote.position(root, s.remote, branch).summary()


def _last_health(root: Path) -> dict[str, int]:
    """The health figures the newest committed pass left (its record's `health_after`)."""
    folder = root / "log"
    for path in sorted(folder.glob("*.jsonl"), reverse=True) if folder.is_dir() else []:
        for line in reversed(path.read_text(encoding="utf-8", errors="replace").splitlines()):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and isinstance(record.get("health_after"), dict) and record["health_after"]:
                return {k: int(v) for k, v in record["health_after"].items() if isinstance(v, int | float)}
    return {}


def health_signal(root: Path, s: Settings) -> str:
    """Which health figure worsened past its threshold since the last pass ('' when none).

    Read off the wiki graph in the git dir (`repo.wikisync`): only the files git says changed
    since it was last brought in step are read.
    """
    from gitgarden.store import wikisync
    from gitgarden.store.disktree import DiskTree

    now = wikisync.health(root, lambda: DiskTree(root, layout.current().wiki_folders()))
    before = _last_health(root)
    unmapped = len(now.unmapped)
    pages = max(1, now.pages)
    checks = [
        (s.health_unmapped, unmapped, f"{unmapped} page(s) the map and its hubs do not reach"),
        (s.health_over_budget, len(now.over_budget) - before.get("over_budget", 0), f"{len(now.over_budget)} page(s) over the page budget"),
        (s.health_duplicates, len(now.duplicates) - before.get("duplicates", 0), f"{len(now.duplicates)} duplicate candidate pair(s)"),
        (s.health_growth, now.pages - before.get("pages", now.pages), f"{now.pages - before.get('pages', now.pages)} page(s) added since the last pass"),
    ]
    for threshold, value, what in checks:
        if threshold > 0 and value >= threshold:
            return f"{what} (threshold {threshold})"
    ratio, old_ratio = len(now.orphans) / pages, before.get("orphans", 0) / max(1, before.get("pages", pages))
    if s.health_orphan_ratio > 0 and ratio >= s.health_orphan_ratio and ratio > old_ratio:
        return f"{ratio:.0%} of pages are orphans (threshold {s.health_orphan_ratio:.0%})"
    return ""


def _parse_at(text: str) -> tuple[int, int] | None:
    """`HH:MM` (24-hour) as (hour, minute); None when it is not such a time."""
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(p.isascii() and p.isdigit() and 1 <= len(p) <= 2 for p in parts):
        return None
    hour, minute = int(parts[0]), int(parts[1])
    return (hour, minute) if hour < 24 and minute < 60 else None


def _at_hold(text: str, at: tuple[int, int], last: float | None, now: float) -> Hold | None:
    """The nightly clock: one pass a day, started by the first tick after `at` (local time)."""
    local = datetime.fromtimestamp(now).astimezone()
    today = local.replace(hour=at[0], minute=at[1], second=0, microsecond=0)
    if now < today.timestamp():
        return Hold("at", f"the day's pass starts after {text}", today.timestamp())
    if last is not None and last >= today.timestamp():
        tomorrow = (local + timedelta(days=1)).replace(hour=at[0], minute=at[1], second=0, microsecond=0)
        return Hold("at", f"today's pass after {text} has been attempted", tomorrow.timestamp())
    return None


def order(a: Assessment) -> tuple[bool, float, str]:
    """Never-gardened first, then the least recently attempted; the path breaks ties."""
    last = from_iso(a.record.last_attempt)
    return (last is not None, last or 0.0, str(a.root))


