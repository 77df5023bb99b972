"""The tick: what a systemd timer or cron calls every minute, one pass at most.

`gitgarden tick` itself applies `enabled` and `interval_min`, so changing them
takes effect without reinstalling anything. When it looks, it collects every
registered project that has something to do and that the clocks (`clocks`) let
go, runs one pass on the least recently attempted (never-gardened first) and
names the others as waiting.

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

projects.json and state.json (the registry, attempts and failure counts), and
when the tick last looked, are kept by `registry`; what `status` shows is `services.status`; the systemd units and
crontab line that call the tick are in `timers`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gitgarden.atomic import atomic_write
from gitgarden.config import load_settings, state_dir
from gitgarden.errors import GitgardenError
from gitgarden.schedule.clocks import (
    FAILED_EXIT,
    INTERVAL_SLACK_S,
    Assessment,
    Clock,
    Hold,
    assess,
    order,
)
from gitgarden.schedule.registry import (
    ProjectState,
    flock,
    iso,
    last_look,
    load_state,
    record_attempt,
    registered,
    tick_path,
    to_stderr,
    ts,
    update_state,
)

__all__ = ["TickReport", "look", "run_tick"]

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

        update_state(env, change)
    eligible.sort(key=order)
    return eligible


def run_tick(
    env: Mapping[str, str],
    clock: Clock,
    run_one: Callable[[Assessment], Any],
    *,
    on_message: Callable[[str], None] | None = None,
    runner: Callable[..., Any] | None = None,
) -> TickReport:
    """One tick: honour `enabled` and `interval_min`, look, run at most one pass, record it.

    `run_one(assessment)` runs the pass and returns its result (a PassResult);
    it is the only way this module reaches the gardener, git or the model.
    A malformed user config file raises ConfigError: it holds the off switch.
    """
    say = on_message or to_stderr
    now = ts(clock())
    report = TickReport(at=iso(now))
    resolved = load_settings(None, env=env)
    report.warnings.extend(resolved.warnings)
    user = resolved.settings
    report.registered = len(registered(env))  # said whether or not this tick looks
    with flock(state_dir(env) / "tick.lock", wait=False) as held:
        if not held:
            report.reason = "busy"  # another tick is still running its pass
            return report
        last = last_look(env)
        due_at = None if last is None else last + user.interval_min * 60 - INTERVAL_SLACK_S
        if due_at is not None and last is not None and last <= now < due_at:
            report.reason = "interval"
            report.next_look = iso(last + user.interval_min * 60)
            return report
        atomic_write(tick_path(env), json.dumps({"last_look": report.at}) + "\n")
        report.next_look = iso(now + user.interval_min * 60)
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
            "signal": chosen.signal or None,
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


