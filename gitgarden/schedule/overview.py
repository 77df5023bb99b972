"""What `gitgarden status` and `gitgarden projects list` show: a project's clocks, its last attempt,
the lock, the tick — read from the registry and stat calls, with neither the gardener nor the model.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.config import load_settings
from gitgarden.errors import ConfigError, GitgardenError
from gitgarden.repo.lock import holder
from gitgarden.schedule.registry import (
    ProjectState,
    iso,
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
    git_dir_of,
    project_at,
    remote_position,
)
from gitgarden.schedule.tick import last_look

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
    git_dir = git_dir_of(root)
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
        "last_attempt": record.last_attempt,
        "last_outcome": record.last_outcome,
        "last_pass_id": record.last_pass_id,
        "last_message": record.last_sentence or None,
        "consecutive_failures": record.consecutive_failures,
        "lock": lock,
        "tick": {
            "enabled": user.enabled,
            "interval_min": user.interval_min,
            "last_look": None if last is None else iso(last),
            "next_look": None if last is None else iso(max(tnow, last + user.interval_min * 60)),
        },
        "warnings": a.warnings + _journal_warnings(root) + _map_warnings(root),
    }


def _map_warnings(root: Path) -> list[str]:
    """A symlink where the map should be: the gardener never writes through one, so the map is not kept."""
    rel = layout.current().map_path()
    if not os.path.islink(f"{root}/{rel}"):
        return []
    return [f"{rel} is a symlink, and the gardener never writes through one: the map is not kept until it is a file (or map_page names another)"]


def _journal_warnings(root: Path) -> list[str]:
    from gitgarden.wiki.journal import not_read_names, not_read_warning

    names = not_read_names(root / layout.current().journal_dir)
    return [not_read_warning(names)] if names else []
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
