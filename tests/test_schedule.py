"""The scheduler as a library: registry, clocks, selection, attempts, notifications, timers.

Every time rule runs on an injected clock; mtimes are set with os.utime
relative to it. Projects here are tiny folders (no git) unless a test needs a
real one: the scheduler only stats and reads files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gitgarden.errors import GitgardenError, NotAProject
from gitgarden.project import Project
from gitgarden.repo.lock import PassLock
from gitgarden.schedule import clocks, registry, tick, timers
from gitgarden.services.status import list_projects, project_status
from gitgarden.wiki import journal
from tests.helpers.project import FIXED_NOW, write

NOW = FIXED_NOW
SNAPSHOTS = Path(__file__).parent / "snapshots"


def env() -> dict[str, str]:
    return dict(os.environ)


def ts(when: datetime) -> float:
    return when.timestamp()


def tiny(root: Path, *lines: str, read: bool = False, map_text: str = "# Map\n\n## Open\n", register: bool = True) -> Path:
    """A project folder without git (an empty .git dir for the lock), one day of journal lines, optionally all read;
    registered for the tick unless told otherwise (only registered projects' attempts are remembered)."""
    for folder in (".git", ".gitgarden", "wiki", "raw/journal", "raw/chat", "log"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    write(root, "wiki/index.md", map_text)
    if lines:
        write(root, "raw/journal/2026-11-29.md", "".join(f"{ln}\n" for ln in lines))
    if read:
        parsed = journal.all_lines(root / "raw" / "journal")
        write(root, journal.READ_PATH, journal.render_read(journal.mark_read({}, parsed)))
    if register:
        registry.register(root, dict(os.environ))
    return root


def age(root: Path, when: datetime) -> None:
    """Set the mtime of everything the idle clock looks at to `when`."""
    t = ts(when)
    for folder in ("raw/journal", "raw/chat", "wiki"):
        for dirpath, _dirs, files in os.walk(root / folder):
            for name in files:
                os.utime(os.path.join(dirpath, name), (t, t))
            os.utime(dirpath, (t, t))


def set_config(root: Path, text: str) -> None:
    write(root, ".gitgarden/config.toml", text)


def state_of(root: Path) -> registry.ProjectState:
    return registry.load_state(env()).get(str(root.resolve()), registry.ProjectState())


def result(outcome: str, exit_code: int = 0, **kw: Any) -> SimpleNamespace:
    return SimpleNamespace(outcome=outcome, exit_code=exit_code, sentence=f"{outcome} happened", pass_id=kw.pop("pass_id", "p-1"), commit="", dry_run=False, **kw)


def clocked(at: datetime) -> Callable[[], datetime]:
    return lambda: at


# -- registry ---------------------------------------------------------------------------


def test_register_keeps_each_project_once_by_its_resolved_root(project: Project, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(project.root)
    assert registry.register(project.root / "wiki", env()) is True
    assert registry.register(link, env()) is False
    assert registry.registered(env()) == [project.root.resolve()]
    data = json.loads((Path(os.environ["GITGARDEN_STATE"]) / "projects.json").read_text())
    assert data == {"projects": [str(project.root.resolve())]}
    assert registry.unregister(project.root, env()) is True
    assert registry.unregister(project.root, env()) is False
    assert registry.registered(env()) == []


def test_register_refuses_a_folder_that_is_not_a_project(tmp_path: Path) -> None:
    with pytest.raises(NotAProject):
        registry.register(tmp_path, env())


def test_a_project_whose_folder_is_gone_can_be_removed_and_is_skipped(tmp_path: Path) -> None:
    root = tiny(tmp_path / "gone", "a line")
    registry.register(root, env())
    os.rename(root, tmp_path / "elsewhere")
    report = tick.run_tick(env(), clocked(NOW), lambda a: pytest.fail("nothing is eligible"))
    assert [a.root for a in report.skipped] == [root] and "gone" in report.skipped[0].error
    assert report.exit_code == 1
    assert registry.unregister(root, env()) is True


def test_a_malformed_registry_is_named_and_never_overwritten(tmp_path: Path) -> None:
    path = Path(os.environ["GITGARDEN_STATE"]) / "projects.json"
    write(path.parent, path.name, '{"projects": [\n')
    with pytest.raises(GitgardenError, match=r"projects\.json: malformed JSON at line 2"):
        registry.registered(env())
    assert path.read_text() == '{"projects": [\n'


# -- what there is to do ----------------------------------------------------------------------


def test_unread_lines_are_work_and_read_lines_are_not(tmp_path: Path) -> None:
    busy = clocks.assess(tiny(tmp_path / "busy", "one", "two"), registry.ProjectState(), ts(NOW), env())
    done = clocks.assess(tiny(tmp_path / "done", "one", "two", read=True), registry.ProjectState(), ts(NOW), env())
    assert (busy.work, busy.unread) == ("journal", 2)
    assert (done.work, done.unread) == ("", 0)
    assert done.settings is None  # nothing to do: not even the config file was read


def test_an_unchanged_journal_is_not_parsed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tiny(tmp_path / "p", "one", "two")
    first = clocks.assess(root, registry.ProjectState(), ts(NOW), env())
    assert first.new_sig is not None
    record = registry.ProjectState(journal_sig=first.new_sig[0], unread=first.new_sig[1])

    def no_parsing(*_a: Any) -> Any:
        raise AssertionError("the journal was parsed although nothing changed")

    monkeypatch.setattr(journal, "all_lines", no_parsing)
    again = clocks.assess(root, record, ts(NOW), env())
    assert (again.unread, again.new_sig) == (2, None)
    monkeypatch.undo()
    with (root / "raw/journal/2026-11-29.md").open("a") as fh:
        fh.write("three\n")
    changed = clocks.assess(root, record, ts(NOW), env())
    assert changed.unread == 3 and changed.new_sig is not None


def test_marking_lines_read_changes_the_signature(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    before = registry.scan_journal(root).sig
    write(root, journal.READ_PATH, journal.render_read(journal.mark_read({}, journal.all_lines(root / "raw/journal"))))
    assert registry.scan_journal(root).sig != before


def test_the_map_is_work_when_over_its_ceiling_and_grown_since_the_last_pass(tmp_path: Path) -> None:
    big = "# Map\n\n" + "x" * 2100 + "\n"
    root = tiny(tmp_path / "p", map_text=big)
    assert clocks.assess(root, registry.ProjectState(), ts(NOW), env()).work == "map"
    left = registry.ProjectState(map_chars=len(big))
    assert clocks.assess(root, left, ts(NOW), env()).work == ""
    write(root, "wiki/index.md", big + "more\n")
    assert clocks.assess(root, left, ts(NOW), env()).work == "map"


def test_the_map_ceiling_counts_characters_not_bytes(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", map_text="ü" * 1500)  # 3,000 bytes, 1,500 characters
    assert clocks.assess(root, registry.ProjectState(), ts(NOW), env()).work == ""


def test_the_map_ceiling_and_failed_exit_agree_with_the_gardener() -> None:
    from gitgarden.gardener import pipeline as gardener
    from gitgarden.wiki import pages as wiki

    assert clocks.MAP_CEILING == wiki.MAP_CEILING
    assert gardener.OUTCOMES["failed"][0] == clocks.FAILED_EXIT
    assert {"stood_down", "stopped", "refused", "failed"} <= set(gardener.OUTCOMES)


# -- the clocks ------------------------------------------------------------------------------------


def holds(a: clocks.Assessment) -> dict[str, clocks.Hold]:
    return {h.clock: h for h in a.holds}


def test_idle_min_waits_for_quiet_in_journal_conversation_and_wiki(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    age(root, NOW - timedelta(hours=2))
    assert clocks.assess(root, registry.ProjectState(), ts(NOW), env()).eligible
    for rel in ("raw/journal/2026-11-30.md", "raw/chat/2026-11-30.md", "wiki/pricing.md"):
        age(root, NOW - timedelta(hours=2))
        path = write(root, rel, "typing…\n")
        os.utime(path, (ts(NOW - timedelta(minutes=10)),) * 2)
        os.utime(path.parent, (ts(NOW - timedelta(hours=2)),) * 2)
        hold = holds(clocks.assess(root, registry.ProjectState(), ts(NOW), env()))["idle_min"]
        assert hold.until == ts(NOW + timedelta(minutes=20)), rel
        assert "10 min ago" in hold.detail
        path.unlink()
        age(root, NOW - timedelta(hours=2))


def test_idle_min_ignores_hidden_folders_and_can_be_zero(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    write(root, "wiki/.obsidian/workspace.json", "{}")
    age(root, NOW - timedelta(hours=2))
    os.utime(root / "wiki/.obsidian/workspace.json", (ts(NOW),) * 2)
    assert clocks.assess(root, registry.ProjectState(), ts(NOW), env()).eligible
    os.utime(root / "raw/journal/2026-11-29.md", (ts(NOW),) * 2)
    assert not clocks.assess(root, registry.ProjectState(), ts(NOW), env()).eligible
    set_config(root, "idle_min = 0\n")
    assert clocks.assess(root, registry.ProjectState(), ts(NOW), env()).eligible


def test_min_hours_between_passes_counts_from_the_last_attempt(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    age(root, NOW - timedelta(days=1))
    record = registry.ProjectState(last_attempt=(NOW - timedelta(hours=2)).isoformat())
    hold = holds(clocks.assess(root, record, ts(NOW), env()))["min_hours_between_passes"]
    assert hold.until == ts(NOW + timedelta(hours=4))
    assert clocks.assess(root, record, ts(NOW + timedelta(hours=4)), env()).eligible
    set_config(root, "min_hours_between_passes = 0\n")
    assert clocks.assess(root, record, ts(NOW), env()).eligible


def test_a_turn_in_flight_a_held_lock_and_enabled_false_hold_a_project_back(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    age(root, NOW - timedelta(days=1))
    write(root, ".gitgarden/turn-in-flight", "")
    assert set(holds(clocks.assess(root, registry.ProjectState(), ts(NOW), env()))) == {"turn_in_flight"}
    (root / ".gitgarden/turn-in-flight").unlink()
    with PassLock(root / ".git", {"pass_id": "20261130T085900Z-beef", "started": "2026-11-30T08:59:00+00:00"}):
        hold = holds(clocks.assess(root, registry.ProjectState(), ts(NOW), env()))["lock"]
        assert "20261130T085900Z-beef" in hold.detail and "2026-11-30T08:59:00" in hold.detail
    assert clocks.assess(root, registry.ProjectState(), ts(NOW), env()).eligible
    set_config(root, "enabled = false\n")
    hold = holds(clocks.assess(root, registry.ProjectState(), ts(NOW), env()))["enabled"]
    assert "project" in hold.detail


def test_the_lock_of_a_worktree_is_found_through_its_gitdir_file(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    real = tmp_path / "repo.git" / "worktrees" / "p"
    real.mkdir(parents=True)
    (root / ".git").rmdir()
    write(root, ".git", f"gitdir: {real}\n")
    age(root, NOW - timedelta(days=1))
    with PassLock(real, {"pass_id": "wt-pass", "started": "x"}):
        assert "wt-pass" in holds(clocks.assess(root, registry.ProjectState(), ts(NOW), env()))["lock"].detail


def test_a_malformed_project_config_is_an_error_naming_its_path_and_line(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    set_config(root, "idle_min = 30\nenabled = = true\n")
    a = clocks.assess(root, registry.ProjectState(), ts(NOW), env())
    assert str(root / ".gitgarden/config.toml") in a.error and "line 2" in a.error
    assert not a.eligible


# -- the tick ----------------------------------------------------------------------------------------


class Runs:
    """A stand-in for the gardener: records which projects it was asked to garden."""

    def __init__(self, outcome: str = "nothing_earned", exit_code: int = 0) -> None:
        self.roots: list[Path] = []
        self.outcome, self.exit_code = outcome, exit_code

    def __call__(self, a: clocks.Assessment) -> SimpleNamespace:
        self.roots.append(a.root)
        return result(self.outcome, self.exit_code, pass_id=f"pass-{len(self.roots)}")


def test_a_tick_sooner_than_interval_min_does_nothing(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    age(root, NOW - timedelta(days=1))
    registry.register(root, env())
    runs = Runs()
    first = tick.run_tick(env(), clocked(NOW), runs)
    assert first.looked and runs.roots == [root]
    soon = tick.run_tick(env(), clocked(NOW + timedelta(minutes=10)), runs)
    assert (soon.looked, soon.reason) == (False, "interval")
    assert soon.next_look == (NOW + timedelta(minutes=30)).isoformat()
    # Timers fire a little early or late: a few seconds short of the interval is due.
    due = tick.run_tick(env(), clocked(NOW + timedelta(minutes=30) - timedelta(seconds=5)), runs)
    assert due.looked


def test_interval_min_and_enabled_take_effect_at_the_next_tick(tmp_path: Path) -> None:
    user = Path(os.environ["GITGARDEN_CONFIG"])
    assert tick.run_tick(env(), clocked(NOW), Runs()).looked
    user.write_text("interval_min = 5\n")
    assert tick.run_tick(env(), clocked(NOW + timedelta(minutes=6)), Runs()).looked
    user.write_text("interval_min = 5\nenabled = false\n")
    off = tick.run_tick(env(), clocked(NOW + timedelta(minutes=12)), Runs())
    assert (off.looked, off.reason) == (False, "disabled")
    back_on = tick.run_tick({**env(), "GITGARDEN_ENABLED": "true"}, clocked(NOW + timedelta(minutes=18)), Runs())
    assert back_on.looked


def test_a_clock_that_went_backwards_looks(tmp_path: Path) -> None:
    assert tick.run_tick(env(), clocked(NOW), Runs()).looked
    assert tick.run_tick(env(), clocked(NOW - timedelta(hours=1)), Runs()).looked


def test_a_malformed_user_config_stops_the_tick_with_its_path_and_line() -> None:
    Path(os.environ["GITGARDEN_CONFIG"]).write_text("enabled = nope\n")
    with pytest.raises(GitgardenError, match=r"gitgarden-user\.toml.*line 1"):
        tick.run_tick(env(), clocked(NOW), Runs())


def test_one_pass_a_tick_on_the_least_recently_attempted_never_gardened_first(tmp_path: Path) -> None:
    e = env()
    never = tiny(tmp_path / "c-never", "one")
    old = tiny(tmp_path / "a-old", "one")
    older = tiny(tmp_path / "b-older", "one")
    busy = tiny(tmp_path / "d-busy", "one")
    done = tiny(tmp_path / "e-done", "one", read=True)
    for root in (never, old, older, busy, done):
        age(root, NOW - timedelta(days=1))
        registry.register(root, e)
    registry.record_attempt(old, result("nothing_earned"), e, NOW - timedelta(hours=8))
    registry.record_attempt(older, result("nothing_earned"), e, NOW - timedelta(hours=10))
    set_config(busy, "idle_min = 120\n")
    os.utime(busy / "raw/journal/2026-11-29.md", (ts(NOW - timedelta(minutes=5)),) * 2)  # quiet from +115 min

    runs = Runs()
    report = tick.run_tick(e, clocked(NOW), runs)
    assert runs.roots == [never]
    assert report.ran is not None and report.ran["path"] == str(never) and report.ran["pass_id"] == "pass-1"
    assert report.nothing_to_do == 1
    waiting = {a.name: [h.clock for h in a.holds] for a in report.waiting}
    assert waiting == {"b-older": ["one_per_tick"], "a-old": ["one_per_tick"], "d-busy": ["idle_min"]}
    assert [a.name for a in report.waiting][:2] == ["b-older", "a-old"]  # the order the next ticks take

    for minutes, expected in ((31, [older]), (62, [old]), (93, []), (124, [busy])):
        runs = Runs()
        tick.run_tick(e, clocked(NOW + timedelta(minutes=minutes)), runs)
        assert runs.roots == expected, minutes
    report = tick.run_tick(e, clocked(NOW + timedelta(minutes=155)), Runs())
    assert report.ran is None
    assert {a.name: [h.clock for h in a.holds] for a in report.waiting} == {
        n: ["min_hours_between_passes"] for n in ("c-never", "b-older", "a-old", "d-busy")
    }


def test_a_malformed_project_config_skips_that_project_and_the_tick_goes_on(tmp_path: Path) -> None:
    bad = tiny(tmp_path / "a-bad", "one")
    good = tiny(tmp_path / "b-good", "one")
    set_config(bad, "idle_min = 30\nenabled = yes\n")
    for root in (bad, good):
        age(root, NOW - timedelta(days=1))
        registry.register(root, env())
    runs = Runs()
    report = tick.run_tick(env(), clocked(NOW), runs)
    assert runs.roots == [good]
    assert [a.root for a in report.skipped] == [bad]
    assert "config.toml" in report.skipped[0].error and "line" in report.skipped[0].error
    assert report.exit_code == 0  # the pass's


def test_a_pass_that_cannot_start_counts_as_failed(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    age(root, NOW - timedelta(days=1))
    registry.register(root, env())

    def broken(_a: clocks.Assessment) -> Any:
        raise GitgardenError("model endpoint unreachable")

    report = tick.run_tick(env(), clocked(NOW), broken)
    assert report.ran is not None and report.ran["outcome"] == "failed" and report.exit_code == 15
    assert state_of(root).consecutive_failures == 1


def test_a_second_tick_while_one_runs_is_busy(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    age(root, NOW - timedelta(days=1))
    registry.register(root, env())
    inner: list[tick.TickReport] = []

    def run_one(a: clocks.Assessment) -> SimpleNamespace:
        inner.append(tick.run_tick(env(), clocked(NOW + timedelta(hours=1)), Runs()))
        return result("nothing_earned")

    tick.run_tick(env(), clocked(NOW), run_one)
    assert inner[0].reason == "busy" and not inner[0].looked


# -- a thousand projects with nothing new ----------------------------------------------------------------


def thousand(tmp_path: Path, n: int = 1000) -> list[Path]:
    roots = []
    for i in range(n):
        root = tiny(tmp_path / "many" / f"p{i:04d}", f"line {i}", read=True)
        roots.append(root)
    registry._write_registry(env(), roots)
    return roots


def test_a_thousand_projects_with_nothing_new_need_stat_calls_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    roots = thousand(tmp_path)
    first = tick.run_tick(env(), clocked(NOW), Runs())
    assert (first.registered, first.nothing_to_do, first.ran) == (1000, 1000, None)

    with (roots[500] / "raw/journal/2026-11-29.md").open("a") as fh:
        fh.write("a new line\n")
    age(roots[500], NOW - timedelta(hours=1))
    parsed: list[Path] = []
    real_all_lines = journal.all_lines

    def counting(folder: Path) -> Any:
        parsed.append(folder)
        return real_all_lines(folder)

    def no_process(*_a: Any, **_k: Any) -> Any:
        raise AssertionError("a tick with nothing new started a process")

    monkeypatch.setattr(journal, "all_lines", counting)
    monkeypatch.setattr(subprocess, "Popen", no_process)
    runs = Runs()
    second = tick.run_tick(env(), clocked(NOW + timedelta(minutes=30)), runs)
    assert runs.roots == [roots[500]]
    assert second.nothing_to_do == 999
    assert set(parsed) == {roots[500] / "raw/journal"}  # the look, and record_attempt after the pass


# -- attempts, failures and notifications ----------------------------------------------------------------


def test_failures_in_a_row_notify_from_the_fourth_with_the_exact_text(tmp_path: Path) -> None:
    root = tiny(tmp_path / "acme-notes", "one")
    said: list[str] = []
    for n in range(1, 6):
        attempt = registry.record_attempt(root, result("failed", 15), env(), NOW + timedelta(hours=n), on_message=said.append)
        assert attempt is not None and attempt.consecutive_failures == n
        assert (attempt.notification is not None) == (n >= 4)
    assert said == [
        "The gardener has failed 4 passes in a row on 'acme-notes': its journal is not becoming pages. "
        "Run `gitgarden run` in acme-notes to see the error.",
        "The gardener has failed 5 passes in a row on 'acme-notes': its journal is not becoming pages. "
        "Run `gitgarden run` in acme-notes to see the error.",
    ]
    record = state_of(root)
    assert (record.last_outcome, record.last_exit_code, record.consecutive_failures) == ("failed", 15, 5)
    assert record.last_attempt == (NOW + timedelta(hours=5)).isoformat()


def test_every_place_that_says_when_notifications_start_names_the_failure_that_notifies() -> None:
    """One truth: the README, docs/ and the setting's help name the same failure in a row as the first to
    notify as the code does (the test above: the fourth), never "after the third" beside it."""
    import re

    from gitgarden.config import SPECS

    ordinal = ["first", "second", "third", "fourth", "fifth", "sixth"][registry.NOTIFY_AFTER]
    repo = Path(__file__).resolve().parents[1]
    readme = "\n".join(p.read_text() for p in [repo / "README.md", *sorted((repo / "docs").glob("*.md"))])
    [help_text] = [s.help for s in SPECS if s.key == "notify_command"]
    text = f"{readme}\n{help_text}".lower()
    said = re.findall(r"\b(from|after|past) the (\w+)(?: failed pass(?:es)?)? in a row", text)
    assert len(said) >= 5, said  # the tick, the no-model case, its departure, the setting (README and help)
    assert set(said) == {("from", ordinal)}, said
    assert not re.search(r"\bpast (three|3) in a row", readme)


def test_standing_down_keeps_the_count_and_a_pass_that_works_resets_it(tmp_path: Path) -> None:
    # no_model counts as failing here: the journal holds an unread line no pass can read.
    root = tiny(tmp_path / "p", "one")
    for outcome, expected in (("failed", 1), ("failed", 2), ("stood_down", 2), ("stopped", 2), ("failed", 3), ("no_model", 4), ("pages_written", 0)):
        attempt = registry.record_attempt(root, result(outcome), env(), NOW, on_message=lambda _m: None)
        assert attempt is not None and attempt.consecutive_failures == expected, outcome


def test_dry_runs_and_refusals_are_not_attempts(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one")
    assert registry.record_attempt(root, result("refused", 14), env(), NOW) is None
    dry = result("pages_written")
    dry.dry_run = True
    assert registry.record_attempt(root, dry, env(), NOW) is None
    assert state_of(root).last_attempt is None


def test_an_attempt_remembers_the_map_size_and_the_journal(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one", "two", map_text="# Map\n" + "y" * 2500)
    registry.record_attempt(root, result("no_model"), env(), NOW)
    record = state_of(root)
    assert (record.map_chars, record.unread) == (2506, 2)
    assert record.journal_sig == registry.scan_journal(root).sig


def test_notify_command_gets_the_message_as_its_last_argument_without_a_shell(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    script = write(tmp_path, "bin/notify", f"#!{sys.executable}\nimport json, sys\nopen({str(seen)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    script.chmod(0o755)
    root = tiny(tmp_path / "p", "one")
    Path(os.environ["GITGARDEN_CONFIG"]).write_text(f'notify_command = "{script} --urgency=low \'$HOME\'"\n')
    for _ in range(4):
        registry.record_attempt(root, result("failed", 15), env(), NOW, on_message=lambda _m: None)
    args = json.loads(seen.read_text())
    assert args[:2] == ["--urgency=low", "$HOME"]  # no shell: nothing expanded
    assert args[2].startswith("The gardener has failed 4 passes in a row on 'p'")


def test_a_notify_command_that_fails_or_hangs_is_reported_not_raised() -> None:
    said: list[str] = []
    calls: list[dict[str, Any]] = []

    def hangs(argv: list[str], **kw: Any) -> Any:
        calls.append({"argv": argv, **kw})
        raise subprocess.TimeoutExpired(argv, kw["timeout"])

    assert registry.notify("msg", "notify-send -u low", on_message=said.append, runner=hangs) is False
    assert calls[0]["argv"] == ["notify-send", "-u", "low", "msg"] and calls[0]["timeout"] == registry.NOTIFY_TIMEOUT
    assert "shell" not in calls[0]
    assert registry.notify("msg", "/no/such/command", on_message=said.append) is False
    assert registry.notify("msg", "false", on_message=said.append) is False
    assert said[0] == "msg" and any("exited with status 1" in s for s in said)


def test_a_broken_state_file_is_set_aside_and_counting_starts_again(tmp_path: Path) -> None:
    path = Path(os.environ["GITGARDEN_STATE"]) / "state.json"
    write(path.parent, path.name, "{not json")
    root = tiny(tmp_path / "p", "one")
    attempt = registry.record_attempt(root, result("failed", 15), env(), NOW, on_message=lambda _m: None)
    assert attempt is not None and attempt.consecutive_failures == 1
    assert path.with_name("state.json.broken").read_text() == "{not json"


# -- status and listing ---------------------------------------------------------------------------------


def test_project_status_says_which_clock_holds_it_back_and_until_when(tmp_path: Path) -> None:
    root = tiny(tmp_path / "p", "one", "two")
    age(root, NOW - timedelta(minutes=10))
    registry.register(root, env())
    data = project_status(Project(root), env(), NOW)
    assert data["unread"] == 2 and data["registered"] and not data["eligible"]
    assert [h["clock"] for h in data["held"]] == ["idle_min"]
    assert data["eligible_at"] == (NOW + timedelta(minutes=20)).isoformat()
    assert data["lock"] is None and data["consecutive_failures"] == 0
    assert project_status(Project(root), env(), NOW + timedelta(minutes=20))["eligible"]


def test_list_projects_reports_existence_enabled_and_failures(tmp_path: Path) -> None:
    a, b = tiny(tmp_path / "a"), tiny(tmp_path / "b")
    set_config(b, "enabled = false\n")
    registry._write_registry(env(), [a, b, tmp_path / "gone"])
    registry.record_attempt(a, result("failed", 15), env(), NOW, on_message=lambda _m: None)
    rows = {Path(r["path"]).name: r for r in list_projects(env())}
    assert (rows["a"]["enabled"], rows["a"]["consecutive_failures"], rows["a"]["last_outcome"]) == (True, 1, "failed")
    assert rows["b"]["enabled"] is False
    assert rows["gone"]["exists"] is False


# -- timers ---------------------------------------------------------------------------------------------

PAT = {"HOME": "/home/pat"}
EXE = ["/opt/gitgarden/bin/gitgarden", "tick"]


def snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("UPDATE_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs from its snapshot (UPDATE_SNAPSHOTS=1 rewrites it)"


def test_systemd_units_snapshot() -> None:
    units = timers.systemd_units(EXE, PAT)
    snapshot("gitgarden.service", units["gitgarden.service"])
    snapshot("gitgarden.timer", units["gitgarden.timer"])


def test_systemd_units_quote_spaces_percent_and_dollar() -> None:
    env_ = {"HOME": "/home/pat", "GITGARDEN_STATE": "/srv/garden 100%/state", "GITGARDEN_CONFIG": "/etc/gg.toml"}
    units = timers.systemd_units(["/opt/my tools/bin/gitgarden$", "tick"], env_)
    snapshot("gitgarden-quoted.service", units["gitgarden.service"])


def test_crontab_line_snapshot() -> None:
    snapshot("crontab.txt", timers.cron_line(EXE, PAT, which=lambda _n: "/usr/bin/git") + "\n")
    quoted = timers.cron_line(["/opt/my tools/gitgarden", "tick"], {**PAT, "GITGARDEN_STATE": "/srv/50%"}, which=lambda _n: None)
    snapshot("crontab-quoted.txt", quoted + "\n")


def test_the_crontab_line_runs_in_a_shell_as_written(tmp_path: Path) -> None:
    out = tmp_path / "state 1%"
    exe = write(tmp_path, "bin dir/gitgarden", "#!/bin/sh\necho \"ran $1 with $GITGARDEN_STATE, $GITGARDEN_CONFIG, model $GITGARDEN_MODEL\"\n")
    exe.chmod(0o755)
    where = {"HOME": str(tmp_path), "GITGARDEN_STATE": str(out), "XDG_CONFIG_HOME": str(tmp_path / "conf 50%")}
    line = timers.cron_line([str(exe), "tick"], where, which=lambda _n: None)
    out.mkdir()
    command = line.split(" ", 5)[5].replace("\\%", "%")  # what cron hands to sh
    subprocess.run(["/bin/sh", "-c", command], check=True, env={})  # no env file yet: it is optional
    config = tmp_path / "conf 50%" / "gitgarden" / "config.toml"
    assert (out / "tick.log").read_text() == f"ran tick with {out}, {config}, model \n"
    # The same env file as the systemd unit's EnvironmentFile=, and it wins over what the line pins.
    write(tmp_path, "conf 50%/gitgarden/env", "# the timer's model\nGITGARDEN_MODEL=openai/gpt-4o-mini\nGITGARDEN_STATE=/elsewhere\n")
    (out / "tick.log").unlink()
    subprocess.run(["/bin/sh", "-c", command], check=True, env={})
    assert (out / "tick.log").read_text() == f"ran tick with /elsewhere, {config}, model openai/gpt-4o-mini\n"
    assert "EnvironmentFile=-" + str(timers.env_file(where)).replace("%", "%%") in timers.systemd_units(["/x", "tick"], where)["gitgarden.service"]


def test_a_broken_env_file_is_reported_in_the_ticks_log(tmp_path: Path) -> None:
    out = tmp_path / "state"
    out.mkdir()
    where = {"HOME": str(tmp_path), "GITGARDEN_STATE": str(out)}
    envf = write(tmp_path, ".config/gitgarden/env", "GITGARDEN_MODEL='unclosed\n")
    exe = write(tmp_path, "bin/gitgarden", "#!/bin/sh\necho \"ran $1\"\n")
    exe.chmod(0o755)
    command = timers.cron_line([str(exe), "tick"], where, which=lambda _n: None).split(" ", 5)[5]
    done = subprocess.run(["/bin/sh", "-c", command], env={}, check=False, capture_output=True, text=True)
    assert done.returncode != 0 and (out / "tick.log").read_text().strip()
    log = (out / "tick.log").read_text()
    assert str(envf) in log, log  # the shell's complaint names the file, in the log the person reads
    assert "ran tick" not in log  # no tick without the settings the person wrote
    assert done.stdout == done.stderr == ""  # nothing for cron to mail: it all went to the log


def test_the_units_show_the_systemctl_commands_with_user() -> None:
    service = timers.systemd_units(EXE, PAT)["gitgarden.service"]
    assert "systemctl --user enable --now gitgarden.timer" in service
    assert "journalctl --user -u gitgarden.service" in service
    assert "systemctl enable" not in service.replace("systemctl --user", "")


def test_tick_command_prefers_this_executable(tmp_path: Path) -> None:
    script = write(tmp_path, "venv/bin/gitgarden", "#!/bin/sh\n")
    assert timers.tick_command(argv0=str(script), executable="/usr/bin/python3") == [str(script), "tick"]
    main = str(Path(timers.__file__).with_name("__main__.py"))
    assert timers.tick_command(argv0=main, executable="/venv/bin/python") == ["/venv/bin/python", "-m", "gitgarden", "tick"]
    assert timers.tick_command(argv0="pytest", which=lambda _n: "/usr/local/bin/gitgarden") == ["/usr/local/bin/gitgarden", "tick"]
    assert timers.tick_command(argv0="pytest", executable="/usr/bin/python3", which=lambda _n: None) == [
        "/usr/bin/python3",
        "-m",
        "gitgarden",
        "tick",
    ]


def test_install_systemd_writes_once_and_uninstall_removes_what_it_wrote() -> None:
    e = env()
    folder = timers.systemd_dir(e)
    assert folder == Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user"
    assert [changed for _p, changed in timers.install_systemd(e, EXE)] == [True, True]
    inode = (folder / "gitgarden.timer").stat().st_ino  # a rewrite is an atomic replace: a new inode
    assert [changed for _p, changed in timers.install_systemd(e, EXE)] == [False, False]
    assert (folder / "gitgarden.timer").stat().st_ino == inode
    assert [changed for _p, changed in timers.install_systemd(e, ["/elsewhere/gitgarden", "tick"])] == [True, False]
    (folder / "timers.target.wants").mkdir()
    (folder / "timers.target.wants" / "gitgarden.timer").symlink_to(folder / "gitgarden.timer")
    with pytest.raises(GitgardenError, match="disable --now"):
        timers.uninstall_systemd(e)
    (folder / "timers.target.wants" / "gitgarden.timer").unlink()
    assert timers.uninstall_systemd(e) == ([folder / "gitgarden.service", folder / "gitgarden.timer"], [])
    assert not (folder / "gitgarden.service").exists()


def test_install_systemd_never_overwrites_a_unit_someone_else_wrote() -> None:
    e = env()
    mine = write(timers.systemd_dir(e), "gitgarden.timer", "[Timer]\nOnCalendar=daily\n")
    with pytest.raises(GitgardenError, match="not written by gitgarden"):
        timers.install_systemd(e, EXE)
    assert mine.read_text() == "[Timer]\nOnCalendar=daily\n"
    assert not (timers.systemd_dir(e) / "gitgarden.service").exists()
    assert timers.uninstall_systemd(e) == ([], [mine])


class FakeCrontab:
    def __init__(self, text: str = "") -> None:
        self.text, self.writes = text, 0

    def read(self) -> str:
        return self.text

    def write(self, text: str) -> None:
        self.text, self.writes = text, self.writes + 1


def test_install_cron_keeps_the_other_lines_and_replaces_its_own() -> None:
    tab = FakeCrontab("MAILTO=pat@example.com\n0 3 * * * /usr/bin/backup\n")
    line = timers.cron_line(EXE, PAT, which=lambda _n: None)
    assert timers.install_cron(line, tab) == "added"
    assert tab.text == f"MAILTO=pat@example.com\n0 3 * * * /usr/bin/backup\n{line}\n"
    assert timers.install_cron(line, tab) == "unchanged" and tab.writes == 1
    other = timers.cron_line(["/elsewhere/gitgarden", "tick"], PAT, which=lambda _n: None)
    assert timers.install_cron(other, tab) == "updated"
    assert tab.text.count(timers.CRON_TAG) == 1 and other in tab.text
    assert timers.uninstall_cron(tab) == 1
    assert tab.text == "MAILTO=pat@example.com\n0 3 * * * /usr/bin/backup\n"
    assert timers.uninstall_cron(tab) == 0


def fake_crontab_bin(tmp_path: Path) -> tuple[Path, Path]:
    """A `crontab` executable that keeps the table in a file (never the real crontab)."""
    table = tmp_path / "crontab.txt"
    bin_dir = tmp_path / "fakebin"
    script = write(
        bin_dir,
        "crontab",
        f"""#!/bin/sh
if [ "$1" = "-l" ]; then
  if [ -f '{table}' ]; then cat '{table}'; else echo "no crontab for pat" >&2; exit 1; fi
elif [ "$1" = "-" ]; then
  cat > '{table}'
else
  exit 2
fi
""",
    )
    script.chmod(0o755)
    return bin_dir, table


def test_system_crontab_reads_and_writes_through_the_crontab_command(tmp_path: Path) -> None:
    bin_dir, table = fake_crontab_bin(tmp_path)
    tab = timers.SystemCrontab({"PATH": f"{bin_dir}:/usr/bin:/bin"})
    assert tab.read() == ""
    assert timers.install_cron("* * * * * x # gitgarden tick (gitgarden timer install)", tab) == "added"
    assert table.read_text() == "* * * * * x # gitgarden tick (gitgarden timer install)\n"
    with pytest.raises(GitgardenError, match="crontab is not installed"):
        timers.SystemCrontab({"PATH": str(tmp_path / "nothing")}).read()
