"""Machine-local state: the registry of projects and what this machine remembers of each.

Under GITGARDEN_STATE:

    projects.json   the registry: absolute, resolved project roots
    state.json      per project: last attempt, outcome, consecutive failures,
                    the map size the last pass left, what the journal looked like
    state.lock      held while projects.json or state.json is rewritten
    tick.json       when a tick last looked (written by `tick`; read here, as `status` shows it)

Recording an attempt counts failures in a row and, past `NOTIFY_AFTER`, runs
the person's `notify_command`. The cheap looks at a project that state.json
remembers (the journal's stat signature, its unread count, the map's size) are
here too, since recording an attempt takes them.

It is apart from `gitgarden.schedule` because any pass writes it (`gitgarden
run` as much as a tick), while the schedule only reads it to decide who goes
next. Like the schedule, it imports no model library, no git and no YAML: a
tick that finds nothing reads it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitgarden.atomic import atomic_write
from gitgarden.config import load_settings, state_dir
from gitgarden.errors import ConfigError, GitgardenError
from gitgarden.wiki import layout

try:  # blake2b without OpenSSL's start-up cost (hashlib loads _hashlib first): every tick hashes
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without the builtin module
    from hashlib import blake2b

# gitgarden.journal's READ_PATH (a test keeps them equal): the journal module is imported
# only when lines must be counted, which a tick that finds nothing new never does.
READ_PATH = ".gitgarden/read.json"

__all__ = [
    "FAILURE_TEXT",
    "NOTIFY_AFTER",
    "NO_MODEL_TEXT",
    "ProjectState",
    "Attempt",
    "JournalScan",
    "register",
    "unregister",
    "registered",
    "load_state",
    "scan_journal",
    "count_unread",
    "map_chars",
    "tick_path",
    "last_look",
    "record_attempt",
    "notify",
]

FAILURE_TEXT = (
    "The gardener has failed {n} passes in a row on '{name}': its journal is not becoming pages. "
    "Run `gitgarden run` in {name} to see the error."
)
NOTIFY_AFTER = 3  # failures in a row before every further failure notifies
NO_MODEL_TEXT = (
    "The gardener has found unread journal lines and no model {n} times in a row on '{name}': "
    "nothing becomes pages. Set GITGARDEN_MODEL (and the key) in {env_file}, which the timer reads, "
    "or `gitgarden config set --user model …`."
)
# A missing model is the same every time: say so once a day, not at every tick.
NO_MODEL_NOTIFY_EVERY_S = 86_400
NOTIFY_TIMEOUT = 10  # seconds notify_command may take
# Outcomes that say nothing about the gardener's health: the failure count stands.
_NEUTRAL = frozenset({"stood_down", "stopped"})
# Not attempts at all: nothing ran (a dry run changes nothing either).
_NOT_ATTEMPTS = frozenset({"refused"})


# -- time ------------------------------------------------------------------------------


def ts(when: datetime) -> float:
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def from_iso(text: Any) -> float | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return ts(datetime.fromisoformat(text))
    except ValueError:
        return None


# -- files under GITGARDEN_STATE --------------------------------------------------------


@contextlib.contextmanager
def flock(path: Path, *, wait: bool = True) -> Iterator[bool]:
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


def tick_path(env: Mapping[str, str]) -> Path:
    """tick.json: when a tick last looked (read by every tick: kept tiny)."""
    return state_dir(env) / "tick.json"


def last_look(env: Mapping[str, str]) -> float | None:
    """When a tick last looked for work (epoch seconds), if ever. Here, not in `tick`, so that
    `status` shows it without importing the tick."""
    try:
        data = json.loads(tick_path(env).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return from_iso(data.get("last_look")) if isinstance(data, dict) else None


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
    atomic_write(_registry_path(env), json.dumps({"projects": [str(r) for r in roots]}, indent=2) + "\n")


def register(root: Path, env: Mapping[str, str]) -> bool:
    """Add the project containing `root` to the registry; True when newly added."""
    from gitgarden.project import find_project

    project_root = find_project(root).root  # NotAProject when it is none
    with flock(state_dir(env) / "state.lock"):
        roots = registered(env)
        if project_root in roots:
            return False
        _write_registry(env, [*roots, project_root])
    return True


def unregister(root: Path, env: Mapping[str, str]) -> bool:
    """Remove `root` (a registered path, even one whose folder is gone) and its state; False when absent."""
    target = root.expanduser().absolute()
    with flock(state_dir(env) / "state.lock"):
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
    last_notified: str | None = None  # when a no-model notification last went out
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
    atomic_write(_state_path(env), json.dumps({"projects": records}, indent=1, sort_keys=True) + "\n")


def update_state(env: Mapping[str, str], change: Callable[[dict[str, Any]], Any]) -> None:
    with flock(state_dir(env) / "state.lock"):
        _update_state_locked(env, change)


# -- what the state remembers of a project on disk (stat calls only, until something changed) ---------------


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
    folder = f"{root}/{layout.current().journal_dir}"
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
    # Where the journal starts is part of what is unread: a new `journal_from` counts again.
    entries.append(("\0from", 0, int(layout.current().journal_from.replace("-", "") or 0)))
    for tag, rel in (("\0read", READ_PATH), ("\0aside", ".gitgarden/set-aside.json")):
        try:
            st = os.stat(f"{root}/{rel}")
            entries.append((tag, st.st_mtime_ns, st.st_size))
        except OSError:
            pass
    entries.sort()
    return JournalScan(blake2b(repr(entries).encode(), digest_size=10).hexdigest(), newest)


def count_unread(root: Path) -> int:
    """Unread journal lines a pass would offer: parsed against `.gitgarden/read.json`, without
    the lines set aside (`.gitgarden/set-aside.json`), which wait for an edit or `run --retry`."""
    from gitgarden.gardener import setaside

    offerable, _aside = setaside.on_disk(root)
    return len(offerable)


def map_chars(root: Path) -> int | None:
    """The map's length in characters (None when there is no map, or a symlink stands in its place:
    nothing is read through one)."""
    try:
        fd = os.open(root / layout.current().map_path(), os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "rb") as fh:
            return len(fh.read().decode("utf-8", "replace"))
    except OSError:
        return None


# -- attempts and failures ---------------------------------------------------------------------------


@dataclass
class Attempt:
    """One recorded attempt: its outcome, the failure count after it, and the notification it raised."""

    root: Path
    outcome: str
    consecutive_failures: int
    notification: str | None = None


def to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def record_attempt(
    root: Path,
    result: Any,
    env: Mapping[str, str],
    now: datetime,
    *,
    on_message: Callable[[str], None] | None = None,
    runner: Callable[..., Any] | None = None,
) -> Attempt | None:
    """Remember a pass's attempt on registered `root`; past three failures in a row, notify.
    None when nothing was recorded.

    Dry runs and refused passes (locked, turn in flight) are not attempts, and a
    project the tick does not look at (not registered) has nothing to remember.
    "failed" counts up, and so does "no_model" while unread lines wait (a tick
    that can never read them is failing, though its pass exits 0); "stood_down"
    and "stopped" leave the count as it is; every other outcome resets it. A
    no-model failure notifies at most once a day. Never raises: the pass is done
    either way.
    """
    say = on_message or to_stderr
    if getattr(result, "dry_run", False) or result.outcome in _NOT_ATTEMPTS:
        return None
    root = root.resolve()
    try:
        if root not in registered(env):
            # The state is what this machine's tick remembers: a `gitgarden run` in a folder
            # the tick never looks at (a demo in /tmp, a scratch copy) leaves no trace in it.
            return None
    except GitgardenError:
        pass  # a broken registry: record anyway, the tick will say what is wrong with it
    from gitgarden.project import of_root_or_default

    with layout.active(of_root_or_default(root)):
        scan = scan_journal(root)
        try:
            unread = count_unread(root)
        except OSError:
            unread = None
        after_map = map_chars(root)
    failed = result.outcome == "failed" or (result.outcome == "no_model" and bool(unread))
    failures = 0
    at = ts(now)
    quiet = False  # a no-model notice went out less than a day ago

    def change(records: dict[str, Any]) -> None:
        nonlocal failures, quiet
        rec = ProjectState.from_dict(records.get(str(root)))
        if failed:
            rec.consecutive_failures += 1
        elif result.outcome not in _NEUTRAL:
            rec.consecutive_failures = 0
        failures = rec.consecutive_failures
        rec.last_attempt = iso(ts(now))
        rec.last_outcome = result.outcome
        rec.last_pass_id = getattr(result, "pass_id", "") or None
        rec.last_sentence = result.sentence
        rec.last_exit_code = result.exit_code
        rec.last_commit = getattr(result, "commit", "") or ""
        rec.map_chars = after_map
        rec.journal_sig, rec.unread = (scan.sig, unread) if unread is not None else (None, None)
        if result.outcome == "no_model" and failed and rec.consecutive_failures > NOTIFY_AFTER:
            last = from_iso(rec.last_notified)
            quiet = last is not None and 0 <= at - last < NO_MODEL_NOTIFY_EVERY_S
            if not quiet:
                rec.last_notified = iso(at)
        records[str(root)] = asdict(rec)

    try:
        update_state(env, change)
    except (OSError, GitgardenError) as exc:
        say(f"gitgarden: could not record the attempt in {_state_path(env)}: {exc}")
        return None
    attempt = Attempt(root, result.outcome, failures)
    if failed and failures > NOTIFY_AFTER and not quiet:
        _notify(attempt, env, say, runner)
    return attempt


def _notify(attempt: Attempt, env: Mapping[str, str], say: Callable[[str], None], runner: Callable[..., Any] | None) -> None:
    """Tell the person a project's passes keep failing: the notice, through their notify command."""
    root, failures = attempt.root, attempt.consecutive_failures
    if attempt.outcome == "no_model":
        from gitgarden.config import timer_env_file as env_file

        attempt.notification = NO_MODEL_TEXT.format(n=failures, name=root.name, env_file=env_file(env))
    else:
        attempt.notification = FAILURE_TEXT.format(n=failures, name=root.name)
    try:
        command = load_settings(root, env=env).settings.notify_command
    except ConfigError:
        command = ""
    notify(attempt.notification, command, on_message=say, runner=runner)


def notify(
    message: str,
    command: str,
    *,
    on_message: Callable[[str], None] | None = None,
    runner: Callable[..., Any] | None = None,
) -> bool:
    """Say `message` on stderr and, when `command` is set, run it with the message as its last argument.

    No shell; a short timeout; a command that fails is reported, never raised.
    True when the command ran and succeeded (or there was none).
    """
    import shlex
    import subprocess

    say = on_message or to_stderr
    say(message)
    if not command.strip():
        return True
    runner = runner or subprocess.run
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
