"""Scheduling: the registry, the three clocks, one pass a tick, failure counts.

`gitgarden tick` is what a systemd timer or cron calls every minute. The tick
itself applies `enabled` and `interval_min`, so changing them takes effect
without reinstalling anything. When it looks, it collects every registered
project that has something to do and that the clocks let go, runs one pass on
the least recently attempted (never-gardened first) and names the others as
waiting.

The common tick finds nothing, so it must cost next to nothing: no model
library, no git process, no journal parsing — a few stat calls per project,
compared against what `state.json` recorded. Everything heavy (the gardener,
git, the model) is reached only through the `run_one` callable the CLI hands in.

Machine-local state, under GITGARDEN_STATE:

    projects.json   the registry: absolute, resolved project roots
    state.json      per project: last attempt, outcome, consecutive failures,
                    the map size the last pass left, what the journal looked like
    tick.json       when a tick last looked (read by every tick: kept tiny)
    tick.lock       held for a whole tick, so two ticks never overlap
    state.lock      held while projects.json or state.json is rewritten

The systemd units and crontab line that call the tick are in `gitgarden.timers`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitgarden import journal
from gitgarden.config import Settings, load_settings, state_dir
from gitgarden.errors import ConfigError, GitgardenError
from gitgarden.lock import holder
from gitgarden.project import find_project

__all__ = [
    "FAILURE_TEXT",
    "NOTIFY_AFTER",
    "Hold",
    "Assessment",
    "ProjectState",
    "Attempt",
    "TickReport",
    "register",
    "unregister",
    "registered",
    "load_state",
    "assess",
    "look",
    "run_tick",
    "record_attempt",
    "notify",
    "project_status",
    "list_projects",
]

FAILURE_TEXT = (
    "The gardener has failed {n} passes in a row on '{name}': its journal is not becoming pages. "
    "Run `gitgarden run` in {name} to see the error."
)
NOTIFY_AFTER = 3  # failures in a row before every further failure notifies
NOTIFY_TIMEOUT = 10  # seconds notify_command may take
# The map's ceiling, as wiki.MAP_CEILING (a test keeps them equal): wiki imports
# YAML and frontmatter, which a tick that finds nothing must not pay for.
MAP_CEILING = 2000
FAILED_EXIT = 15  # gardener.OUTCOMES["failed"][0]
# A tick looks when at least interval_min minus this has passed: timers and cron
# fire a little early or late, and a look missed by a second waits a whole minute.
INTERVAL_SLACK_S = 30
# Outcomes that say nothing about the gardener's health: the failure count stands.
_NEUTRAL = frozenset({"stood_down", "stopped"})
# Not attempts at all: nothing ran (a dry run changes nothing either).
_NOT_ATTEMPTS = frozenset({"refused"})

Clock = Callable[[], datetime]


# -- time ------------------------------------------------------------------------------


def _ts(when: datetime) -> float:
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _from_iso(text: Any) -> float | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return _ts(datetime.fromisoformat(text))
    except ValueError:
        return None


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


# -- files under GITGARDEN_STATE --------------------------------------------------------


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@contextlib.contextmanager
def _flock(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold an flock on `path` for the block; yields False (not held) when busy and not waiting."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # closing releases the flock


def _read_json(path: Path) -> Any:
    """A JSON file's data (None when absent); GitgardenError naming the path when malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise GitgardenError(f"{path}: cannot be read ({exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise GitgardenError(f"{path}: malformed JSON at line {exc.lineno}: {exc.msg}") from None


# -- the registry -----------------------------------------------------------------------


def _registry_path(env: Mapping[str, str]) -> Path:
    return state_dir(env) / "projects.json"


def registered(env: Mapping[str, str]) -> list[Path]:
    """The registered project roots, in the order they were added."""
    path = _registry_path(env)
    data = _read_json(path)
    if data is None:
        return []
    items = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(items, list) or not all(isinstance(p, str) for p in items):
        raise GitgardenError(f"{path}: malformed: expected {{\"projects\": [paths…]}}")
    return [Path(p) for p in items]


def _write_registry(env: Mapping[str, str], roots: Sequence[Path]) -> None:
    _atomic_write(_registry_path(env), json.dumps({"projects": [str(r) for r in roots]}, indent=2) + "\n")


def register(root: Path, env: Mapping[str, str]) -> bool:
    """Add the project containing `root` to the registry; True when newly added."""
    project_root = find_project(root).root  # NotAProject when it is none
    with _flock(state_dir(env) / "state.lock"):
        roots = registered(env)
        if project_root in roots:
            return False
        _write_registry(env, [*roots, project_root])
    return True


def unregister(root: Path, env: Mapping[str, str]) -> bool:
    """Remove `root` (a registered path, even one whose folder is gone) and its state; False when absent."""
    target = root.expanduser().absolute()
    with _flock(state_dir(env) / "state.lock"):
        roots = registered(env)
        keep = [r for r in roots if r not in (target, target.resolve())]
        if len(keep) == len(roots):
            return False
        _write_registry(env, keep)
        gone = {str(r) for r in roots} - {str(r) for r in keep}
        _update_state_locked(env, lambda records: [records.pop(g, None) for g in gone])
    return True


# -- per-project state --------------------------------------------------------------------


@dataclass
class ProjectState:
    """What this machine remembers about one project between ticks."""

    last_attempt: str | None = None
    last_outcome: str | None = None
    last_pass_id: str | None = None
    last_sentence: str = ""
    last_exit_code: int | None = None
    last_commit: str = ""
    consecutive_failures: int = 0
    map_chars: int | None = None  # the map's size when the last pass ended
    journal_sig: str | None = None  # the journal's stat signature when `unread` was counted
    unread: int | None = None

    @classmethod
    def from_dict(cls, data: Any) -> ProjectState:
        if not isinstance(data, dict):
            return cls()
        return cls(**{k: v for k, v in data.items() if k in _STATE_FIELDS})


_STATE_FIELDS = frozenset(f.name for f in fields(ProjectState))


def _state_path(env: Mapping[str, str]) -> Path:
    return state_dir(env) / "state.json"


def _load_records(env: Mapping[str, str]) -> dict[str, Any]:
    path = _state_path(env)
    try:
        data = _read_json(path)
    except GitgardenError:
        # Counts and clocks are worth less than a tick that keeps working: set the
        # broken file aside (for a look) and start again.
        with contextlib.suppress(OSError):
            os.replace(path, path.with_name(path.name + ".broken"))
        return {}
    records = data.get("projects") if isinstance(data, dict) else None
    return records if isinstance(records, dict) else {}


def load_state(env: Mapping[str, str]) -> dict[str, ProjectState]:
    """Every project's recorded state, by root path."""
    return {k: ProjectState.from_dict(v) for k, v in _load_records(env).items()}


def _update_state_locked(env: Mapping[str, str], change: Callable[[dict[str, Any]], Any]) -> None:
    records = _load_records(env)
    change(records)
    _atomic_write(_state_path(env), json.dumps({"projects": records}, indent=1, sort_keys=True) + "\n")


def _update_state(env: Mapping[str, str], change: Callable[[dict[str, Any]], Any]) -> None:
    with _flock(state_dir(env) / "state.lock"):
        _update_state_locked(env, change)


# -- what a project looks like on disk (stat calls only, until something changed) ---------------


@dataclass(frozen=True)
class JournalScan:
    """The journal's day files and read position as stat results: a signature and the newest mtime."""

    sig: str
    newest: float


def scan_journal(root: Path | str) -> JournalScan:
    """Stat the journal's `*.md` files and `.gitgarden/read.json`; nothing is read."""
    # Plain strings, not Path: this runs for every registered project on every tick.
    entries: list[tuple[str, int, int]] = []
    newest = 0.0
    folder = f"{root}/raw/journal"
    try:
        newest = os.stat(folder).st_mtime
        with os.scandir(folder) as it:
            for entry in it:
                if not entry.name.endswith(".md"):
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                entries.append((entry.name, st.st_mtime_ns, st.st_size))
                newest = max(newest, st.st_mtime)
    except OSError:
        pass
    try:
        st = os.stat(f"{root}/{journal.READ_PATH}")
        entries.append(("\0read", st.st_mtime_ns, st.st_size))
    except OSError:
        pass
    entries.sort()
    return JournalScan(hashlib.blake2b(repr(entries).encode(), digest_size=10).hexdigest(), newest)


def count_unread(root: Path) -> int:
    """Unread journal lines, parsed against `.gitgarden/read.json`."""
    read_file = root / journal.READ_PATH
    try:
        read_text: str | None = read_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        read_text = None
    return len(journal.unread_lines(journal.all_lines(root / "raw" / "journal"), journal.load_read(read_text)))


def map_chars(root: Path) -> int | None:
    """The map's length in characters (None when there is no map)."""
    try:
        return len((root / "wiki" / "index.md").read_bytes().decode("utf-8", "replace"))
    except OSError:
        return None


def _map_over(root: Path | str, left: int | None) -> int | None:
    """The map's size when it is over the ceiling and bigger than the last pass left it, else None."""
    try:
        size = os.stat(f"{root}/wiki/index.md").st_size
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


def _git_dir(root: Path) -> Path | None:
    """The project's git dir: `.git` itself, or the `gitdir:` of a worktree; git only for odd layouts."""
    dot = root / ".git"
    if dot.is_dir():
        return dot
    if dot.is_file():
        with contextlib.suppress(OSError, UnicodeDecodeError):
            text = dot.read_text(encoding="utf-8").strip()
            if text.startswith("gitdir:"):
                found = Path(text[len("gitdir:") :].strip())
                return found if found.is_absolute() else (root / found).resolve()
    from gitgarden import gitrepo

    try:
        return gitrepo.git_dir(root)
    except GitgardenError:
        return None


# -- eligibility -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hold:
    """Something that holds a project back: a clock (with when it lets go) or a condition."""

    clock: str  # enabled | idle_min | min_hours_between_passes | turn_in_flight | lock | registered | one_per_tick
    detail: str
    until: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"clock": self.clock, "detail": self.detail, "until": None if self.until is None else _iso(self.until)}

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
    work: str = ""  # "journal" (unread lines) | "map" (over its ceiling and grown) | "" (nothing to do)
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
            "unread": self.unread,
            "eligible": self.eligible,
            "held": [h.as_dict() for h in self.holds],
            "error": self.error or None,
            "last_attempt": self.record.last_attempt,
            "last_outcome": self.record.last_outcome,
            "consecutive_failures": self.record.consecutive_failures,
        }


def _is_project(root: Path | str) -> bool:
    return os.path.isdir(f"{root}/.gitgarden") and os.path.isdir(f"{root}/wiki")


def assess(root: Path, record: ProjectState, now: float, env: Mapping[str, str], *, full: bool = False) -> Assessment:
    """What `root` has to do and what holds it back at `now` (epoch seconds).

    Without `full`, a project with nothing to do is left after the stat calls
    (the common tick); `full` (for `status`) checks every clock regardless.
    """
    a = Assessment(root, record)
    where = str(root)
    if not _is_project(where):
        a.error = "the folder is gone or is no longer a gitgarden project (`gitgarden projects remove` it)"
        return a
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
    if not a.work and not full:
        return a
    try:
        resolved = load_settings(root, env=env)
    except ConfigError as exc:
        a.error = str(exc)
        return a
    a.settings, a.warnings = resolved.settings, resolved.warnings
    s = resolved.settings
    if not s.enabled:
        a.holds.append(Hold("enabled", f"enabled = false (from the {resolved.sources['enabled']} setting)"))
    if (root / ".gitgarden" / "turn-in-flight").exists():
        a.holds.append(Hold("turn_in_flight", "a turn is in flight (.gitgarden/turn-in-flight)"))
    if s.idle_min > 0:
        newest = max(scan.newest, _newest_mtime(root / "raw" / "chat"), _newest_mtime(root / "wiki"))
        until = newest + s.idle_min * 60
        if now < until:
            a.holds.append(
                Hold("idle_min", f"last edit (journal, conversation or wiki) {_span(now - newest)} ago; needs {s.idle_min} min of quiet", until)
            )
    last = _from_iso(record.last_attempt)
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
    git_dir = _git_dir(root)
    info = holder(git_dir) if git_dir is not None else None
    if info is not None:
        a.holds.append(
            Hold("lock", f"pass {info.get('pass_id', '?')} (started {info.get('started', '?')}, pid {info.get('pid', '?')}) holds the lock")
        )
    return a


def _order(a: Assessment) -> tuple[bool, float, str]:
    """Never-gardened first, then the least recently attempted; the path breaks ties."""
    last = _from_iso(a.record.last_attempt)
    return (last is not None, last or 0.0, str(a.root))


# -- the tick ------------------------------------------------------------------------------------


@dataclass
class TickReport:
    """What one tick did: whether it looked, what ran, who waits and why."""

    at: str
    looked: bool = False
    reason: str = ""  # why it did not look: interval | disabled | busy
    next_look: str | None = None
    registered: int = 0
    nothing_to_do: int = 0
    chosen: Assessment | None = None
    ran: dict[str, Any] | None = None
    waiting: list[Assessment] = field(default_factory=list)
    skipped: list[Assessment] = field(default_factory=list)
    notification: str | None = None
    warnings: list[str] = field(default_factory=list)
    exit_code: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "looked": self.looked,
            "reason": self.reason or None,
            "next_look": self.next_look,
            "registered": self.registered,
            "nothing_to_do": self.nothing_to_do,
            "ran": self.ran,
            "waiting": [a.as_dict() for a in self.waiting],
            "skipped": [{"path": str(a.root), "name": a.name, "message": a.error} for a in self.skipped],
            "notification": self.notification,
            "warnings": self.warnings,
            "exit_code": self.exit_code,
        }


def _tick_path(env: Mapping[str, str]) -> Path:
    return state_dir(env) / "tick.json"


def last_look(env: Mapping[str, str]) -> float | None:
    """When a tick last looked for work (epoch seconds), if ever."""
    try:
        data = json.loads(_tick_path(env).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return _from_iso(data.get("last_look")) if isinstance(data, dict) else None


def look(env: Mapping[str, str], now: float, report: TickReport) -> list[Assessment]:
    """Assess every registered project (cheaply) and fill `report`; the eligible ones, best first."""
    roots = registered(env)
    records = load_state(env)
    report.registered = len(roots)
    eligible: list[Assessment] = []
    remember: dict[str, tuple[str, int]] = {}
    for root in roots:
        a = assess(root, records.get(str(root), ProjectState()), now, env)
        if a.new_sig is not None:
            remember[str(root)] = a.new_sig
        if a.error:
            report.skipped.append(a)
        elif not a.work:
            report.nothing_to_do += 1
        elif a.holds:
            report.waiting.append(a)
        else:
            eligible.append(a)
    if remember:
        # Counted once, remembered: the next tick stats the journal and compares.
        def change(recs: dict[str, Any]) -> None:
            for key, (sig, unread) in remember.items():
                rec = recs.setdefault(key, {})
                rec["journal_sig"], rec["unread"] = sig, unread

        _update_state(env, change)
    eligible.sort(key=_order)
    return eligible


def run_tick(
    env: Mapping[str, str],
    clock: Clock,
    run_one: Callable[[Assessment], Any],
    *,
    on_message: Callable[[str], None] | None = None,
    runner: Callable[..., Any] = subprocess.run,
) -> TickReport:
    """One tick: honour `enabled` and `interval_min`, look, run at most one pass, record it.

    `run_one(assessment)` runs the pass and returns its result (a PassResult);
    it is the only way this module reaches the gardener, git or the model.
    A malformed user config file raises ConfigError: it holds the off switch.
    """
    say = on_message or _stderr
    now = _ts(clock())
    report = TickReport(at=_iso(now))
    resolved = load_settings(None, env=env)
    report.warnings.extend(resolved.warnings)
    user = resolved.settings
    with _flock(state_dir(env) / "tick.lock", wait=False) as held:
        if not held:
            report.reason = "busy"  # another tick is still running its pass
            return report
        last = last_look(env)
        due_at = None if last is None else last + user.interval_min * 60 - INTERVAL_SLACK_S
        if due_at is not None and last is not None and last <= now < due_at:
            report.reason = "interval"
            report.next_look = _iso(last + user.interval_min * 60)
            return report
        _atomic_write(_tick_path(env), json.dumps({"last_look": report.at}) + "\n")
        report.next_look = _iso(now + user.interval_min * 60)
        if not user.enabled:
            report.reason = "disabled"
            return report
        report.looked = True
        eligible = look(env, now, report)
        if report.skipped:
            report.exit_code = 1
        if not eligible:
            return report
        chosen, *others = eligible
        for other in others:
            other.holds.append(Hold("one_per_tick", f"{chosen.name} is gardened this tick"))
        report.waiting = others + report.waiting
        report.chosen = chosen
        report.warnings.extend(chosen.warnings)
        try:
            result = run_one(chosen)
        except GitgardenError as exc:
            result = _Failed(str(exc))
        report.ran = {
            "path": str(chosen.root),
            "name": chosen.name,
            "work": chosen.work,
            "outcome": result.outcome,
            "exit_code": result.exit_code,
            "pass_id": getattr(result, "pass_id", ""),
            "message": result.sentence,
            "commit": getattr(result, "commit", ""),
        }
        report.exit_code = result.exit_code
        attempt = record_attempt(chosen.root, result, env, clock(), on_message=say, runner=runner)
        if attempt is not None:
            report.notification = attempt.notification
    return report


@dataclass
class _Failed:
    """A pass that could not even start (the model could not be made, git failed)."""

    detail: str
    outcome: str = "failed"
    pass_id: str = ""
    commit: str = ""
    dry_run: bool = False

    @property
    def exit_code(self) -> int:
        return FAILED_EXIT

    @property
    def sentence(self) -> str:
        return f"failed: {self.detail}"


# -- attempts and failures ---------------------------------------------------------------------------


@dataclass
class Attempt:
    """One recorded attempt: its outcome, the failure count after it, and the notification it raised."""

    root: Path
    outcome: str
    consecutive_failures: int
    notification: str | None = None


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def record_attempt(
    root: Path,
    result: Any,
    env: Mapping[str, str],
    now: datetime,
    *,
    on_message: Callable[[str], None] | None = None,
    runner: Callable[..., Any] = subprocess.run,
) -> Attempt | None:
    """Remember a pass's attempt on `root`; past three failures in a row, notify. None when nothing ran.

    Dry runs and refused passes (locked, turn in flight) are not attempts.
    "failed" counts up; "stood_down" and "stopped" leave the count as it is;
    every other outcome resets it. Never raises: the pass is done either way.
    """
    say = on_message or _stderr
    if getattr(result, "dry_run", False) or result.outcome in _NOT_ATTEMPTS:
        return None
    root = root.resolve()
    scan = scan_journal(root)
    try:
        unread = count_unread(root)
    except OSError:
        unread = None
    after_map = map_chars(root)
    failures = 0

    def change(records: dict[str, Any]) -> None:
        nonlocal failures
        rec = ProjectState.from_dict(records.get(str(root)))
        if result.outcome == "failed":
            rec.consecutive_failures += 1
        elif result.outcome not in _NEUTRAL:
            rec.consecutive_failures = 0
        failures = rec.consecutive_failures
        rec.last_attempt = _iso(_ts(now))
        rec.last_outcome = result.outcome
        rec.last_pass_id = getattr(result, "pass_id", "") or None
        rec.last_sentence = result.sentence
        rec.last_exit_code = result.exit_code
        rec.last_commit = getattr(result, "commit", "") or ""
        rec.map_chars = after_map
        rec.journal_sig, rec.unread = (scan.sig, unread) if unread is not None else (None, None)
        records[str(root)] = asdict(rec)

    try:
        _update_state(env, change)
    except (OSError, GitgardenError) as exc:
        say(f"gitgarden: could not record the attempt in {_state_path(env)}: {exc}")
        return None
    attempt = Attempt(root, result.outcome, failures)
    if result.outcome == "failed" and failures > NOTIFY_AFTER:
        attempt.notification = FAILURE_TEXT.format(n=failures, name=root.name)
        try:
            command = load_settings(root, env=env).settings.notify_command
        except ConfigError:
            command = ""
        notify(attempt.notification, command, on_message=say, runner=runner)
    return attempt


def notify(
    message: str,
    command: str,
    *,
    on_message: Callable[[str], None] | None = None,
    runner: Callable[..., Any] = subprocess.run,
) -> bool:
    """Say `message` on stderr and, when `command` is set, run it with the message as its last argument.

    No shell; a short timeout; a command that fails is reported, never raised.
    True when the command ran and succeeded (or there was none).
    """
    say = on_message or _stderr
    say(message)
    if not command.strip():
        return True
    try:
        argv = [*shlex.split(command), message]
        proc = runner(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=NOTIFY_TIMEOUT, check=False)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        say(f"gitgarden: notify_command {command!r} failed: {exc}")
        return False
    if proc.returncode != 0:
        say(f"gitgarden: notify_command {command!r} exited with status {proc.returncode}")
        return False
    return True


# -- status and listing -------------------------------------------------------------------------------


def project_status(root: Path, env: Mapping[str, str], now: datetime) -> dict[str, Any]:
    """Everything `gitgarden status` shows for one project (no gardener, no model library)."""
    root = root.resolve()
    tnow = _ts(now)
    is_registered = root in registered(env)
    record = load_state(env).get(str(root), ProjectState())
    load_settings(root, env=env)  # a malformed config file: ConfigError with its path and line
    a = assess(root, record, tnow, env, full=True)
    if a.error:
        raise GitgardenError(a.error)
    if not is_registered:
        a.holds.insert(0, Hold("registered", "not registered for tick (`gitgarden projects add`)"))
    user = load_settings(None, env=env).settings
    last = last_look(env)
    git_dir = _git_dir(root)
    lock = holder(git_dir) if git_dir is not None else None
    size = map_chars(root)
    return {
        "path": str(root),
        "name": root.name,
        "registered": is_registered,
        "unread": a.unread,
        "map_chars": size,
        "map_over_ceiling": size is not None and size > MAP_CEILING,
        "work": a.work or None,
        "eligible": a.eligible and is_registered,
        "held": [h.as_dict() for h in a.holds],
        "eligible_at": _iso(max([tnow] + [h.until for h in a.holds if h.until is not None]))
        if a.holds and all(h.until is not None for h in a.holds)
        else None,
        "last_attempt": record.last_attempt,
        "last_outcome": record.last_outcome,
        "last_pass_id": record.last_pass_id,
        "last_message": record.last_sentence or None,
        "consecutive_failures": record.consecutive_failures,
        "lock": lock,
        "tick": {
            "enabled": user.enabled,
            "interval_min": user.interval_min,
            "last_look": None if last is None else _iso(last),
            "next_look": None if last is None else _iso(max(tnow, last + user.interval_min * 60)),
        },
        "warnings": a.warnings,
    }


def list_projects(env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The registry with what the state remembers of each project."""
    records = load_state(env)
    rows = []
    for root in registered(env):
        rec = records.get(str(root), ProjectState())
        exists = _is_project(root)
        enabled: bool | None = None
        error = None
        if exists:
            try:
                enabled = load_settings(root, env=env).settings.enabled
            except ConfigError as exc:
                error = str(exc)
        rows.append(
            {
                "path": str(root),
                "exists": exists,
                "enabled": enabled,
                "last_attempt": rec.last_attempt,
                "last_outcome": rec.last_outcome,
                "consecutive_failures": rec.consecutive_failures,
                "error": error,
            }
        )
    return rows
