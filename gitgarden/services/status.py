"""What the front ends show of a project: `status` and `projects list` (its clocks, its last
attempt, the lock, the tick, the lines set aside — read from the registry and stat calls, with
neither the pass's machinery nor the model). The views the web app and the agents' door share are `views`: `status` must stay light.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.config import load_settings
from gitgarden.errors import ConfigError, GitgardenError
from gitgarden.gardener import setaside
from gitgarden.history.records import recent_skips
from gitgarden.repo.gitdir import find_git_dir
from gitgarden.repo.lock import holder
from gitgarden.schedule.registry import (
    ProjectState,
    iso,
    last_look,
    load_state,
    map_chars,
    registered,
    ts,
)
from gitgarden.wiki import layout

if TYPE_CHECKING:
    from gitgarden.project import Project

from gitgarden.schedule.clocks import (
    MAP_CEILING,
    Assessment,
    Hold,
    assess,
    project_at,
    remote_position,
)

__all__ = ["project_status", "list_projects"]


def project_status(project: Project, env: Mapping[str, str], now: datetime) -> dict[str, Any]:
    """Everything `gitgarden status` shows for one project (no gardener, no model library)."""
    with layout.active(project.layout):
        return _project_status(project, env, now)


def _project_status(project: Project, env: Mapping[str, str], now: datetime) -> dict[str, Any]:
    root = project.root
    tnow = ts(now)
    is_registered = root in registered(env)
    record = load_state(env).get(str(root), ProjectState())
    load_settings(root, env=env)  # a malformed config file: ConfigError with its path and line
    a = assess(root, record, tnow, env, full=True, project=project)
    if a.error:
        raise GitgardenError(a.error)
    if not is_registered:
        first = 1 if a.holds and a.holds[0].clock == "repo_state" else 0  # the repository's state stays first
        a.holds.insert(first, Hold("registered", "not registered for tick (`gitgarden projects add`)"))
    user = load_settings(None, env=env).settings
    last = last_look(env)
    git_dir = find_git_dir(root)
    lock = holder(git_dir) if git_dir is not None else None
    size = map_chars(root)
    return {
        "no_model": _no_model(a, record),
        "path": str(root),
        "name": root.name,
        "registered": is_registered,
        "unread": a.unread,
        "map_chars": size,
        "map_over_ceiling": size is not None and size > MAP_CEILING,
        "work": a.work or None,
        "signal": a.signal or None,
        "eligible": a.eligible and is_registered,
        "held": [h.as_dict() for h in a.holds],
        "eligible_at": iso(max([tnow] + [h.until for h in a.holds if h.until is not None]))
        if a.holds and all(h.until is not None for h in a.holds)
        else None,
        "remote": remote_position(root, env),
        **_last_pass(root, git_dir, record),
        "consecutive_failures": record.consecutive_failures,
        "lock": lock,
        "tick": {
            "enabled": user.enabled,
            "interval_min": user.interval_min,
            "last_look": None if last is None else iso(last),
            "next_look": None if last is None else iso(max(tnow, last + user.interval_min * 60)),
        },
        "skipped": recent_skips(root),  # lines the last passes read only because a skip cited them
        "warnings": a.warnings + _journal_warnings(root, now) + _map_warnings(root),
        "journal_headings": _headings(root),
        "set_aside": [setaside.summary(e) for _, e in setaside.aside_on_disk(root)],
    }


def _last_pass(root: Path, git_dir: Path | None, record: ProjectState) -> dict[str, Any]:
    """The last pass: from this machine's state (a registered project's attempts), else from the
    project's own records — the newest committed pass in `log/` or attempt in the git dir — so
    passes run with `gitgarden run` (or on another clone) are never reported as none."""
    found: dict[str, Any] = {
        "last_attempt": record.last_attempt,
        "last_outcome": record.last_outcome,
        "last_pass_id": record.last_pass_id,
        "last_message": record.last_sentence or None,
        "last_from": "state" if record.last_attempt else None,
    }
    newest = _newest_record(root, git_dir)
    if newest is None:
        return found
    found["last_unread"] = _unread_why(newest)
    when = str(newest.get("finished") or newest.get("started") or "")
    if record.last_attempt and when <= str(record.last_attempt):
        return found
    return {
        "last_attempt": when or None,
        "last_outcome": newest.get("outcome"),
        "last_pass_id": newest.get("pass_id") or None,
        "last_message": newest.get("message") or None,
        "last_from": "records",
        "last_unread": _unread_why(newest),
    }


def _unread_why(record: Mapping[str, Any]) -> dict[str, int]:
    """reason -> lines, for the lines the newest pass left unread ({} for a record without them)."""
    out: dict[str, int] = {}
    for item in record.get("unread") or []:
        if isinstance(item, dict) and isinstance(item.get("reason"), str):
            out[item["reason"]] = out.get(item["reason"], 0) + 1
    return out


def _newest_record(root: Path, git_dir: Path | None) -> dict[str, Any] | None:
    """The newest pass record of the project: the last line of the newest `log/YYYY-MM.jsonl`, or
    the newest attempt in the git dir, whichever finished last (None when there is neither)."""
    from gitgarden.history.records import LOG_DIR, read_attempts, records_in

    found: list[dict[str, Any]] = []
    folder = root / LOG_DIR
    try:
        months = sorted(n for n in os.listdir(folder) if n.endswith(".jsonl"))
    except OSError:
        months = []
    for name in reversed(months):
        path = folder / name
        if path.is_symlink() or not path.is_file():
            continue
        records = records_in(path.read_text(encoding="utf-8", errors="replace"))
        if records:
            found.append(records[-1])
            break
    if git_dir is not None:
        attempts = read_attempts(git_dir)
        if attempts:
            found.append(attempts[-1])
    found = [r for r in found if r.get("finished") or r.get("started")]
    return max(found, key=lambda r: str(r.get("finished") or r.get("started")), default=None)


def _map_warnings(root: Path) -> list[str]:
    """A symlink where the map should be: the gardener never writes through one, so the map is not kept."""
    rel = layout.current().map_path()
    if not os.path.islink(f"{root}/{rel}"):
        return []
    return [f"{rel} is a symlink, and the gardener never writes through one: the map is not kept until it is a file (or map_page names another)"]


def _journal_warnings(root: Path, now: datetime) -> list[str]:
    from gitgarden.project import journal_went_missing
    from gitgarden.wiki.journal import not_read_names, not_read_warning

    here = layout.current()
    folder = root / here.journal_dir
    if journal_went_missing(root, here.journal_dir):
        # Renamed or removed: "0 unread" would hide every line in it, and capture would make it again.
        return [
            f"the journal folder {here.journal_dir}/ does not exist: if you renamed it, set journal_dir to its new "
            "name (`gitgarden config set journal_dir NEW`); until then no journal line is read"
        ]
    warnings = []
    names = not_read_names(folder)
    if names:
        warnings.append(not_read_warning(names))
    today = now.astimezone().date().isoformat()
    if here.journal_from and here.journal_from > today:
        warnings.append(
            f"journal_from = {here.journal_from} is in the future (today is {today}): no journal line is offered "
            "until then (`gitgarden config unset journal_from` offers every day)"
        )
    return warnings


def _headings(root: Path) -> list[dict[str, str]]:
    from gitgarden.wiki.journal import journal_headings

    here = layout.current()
    return journal_headings(root / here.journal_dir, here.journal_from)
def _no_model(a: Assessment, record: ProjectState) -> str | None:
    """Why no pass can read the waiting lines for want of a model (here, or in the last attempt), or None."""
    if not a.unread:
        return None
    if a.settings is not None and not a.settings.model.strip():
        return "here"  # no model in this environment or any settings file
    if record.last_outcome == "no_model":
        return "last_pass"  # this shell has one; the timer that ran the last pass did not
    return None


def list_projects(env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The registry with what the state remembers of each project."""
    records = load_state(env)
    rows = []
    for root in registered(env):
        rec = records.get(str(root), ProjectState())
        exists = project_at(root) is not None
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
