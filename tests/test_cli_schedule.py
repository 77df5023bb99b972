"""The scheduling commands end to end: tick, projects, config, timer, status — real projects, a scripted model.

Time is an injected clock; mtimes are set relative to it. Subprocess tests
check what the real command imports and how it refuses a second pass.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from gitgarden.repo.lock import PassLock
from gitgarden.schedule import registry
from tests.helpers.project import FIXED_LOG, FakeModel, write
from tests.helpers.schedule import (
    NOW,
    Clock,
    age,
    invoke,
    make_app,
    tick_json,
    user_config,
    waiting_project,
)

REPO = Path(__file__).resolve().parents[1]
FAILURE = (
    "The gardener has failed 4 passes in a row on 'flaky': its journal is not becoming pages. "
    "Run `gitgarden run` in flaky to see the error."
)


def state(root: Path) -> registry.ProjectState:
    return registry.load_state(dict(os.environ)).get(str(root), registry.ProjectState())


# -- every command answers --help -------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["tick"],
        ["status"],
        ["projects"],
        ["projects", "add"],
        ["projects", "remove"],
        ["projects", "list"],
        ["config"],
        ["config", "get"],
        ["config", "set"],
        ["config", "unset"],
        ["config", "list"],
        ["timer"],
        ["timer", "print"],
        ["timer", "install"],
        ["timer", "uninstall"],
    ],
)
def test_every_scheduling_command_has_help(args: list[str]) -> None:
    res = invoke(make_app(), *args, "--help")
    assert res.exit_code == 0 and "Usage:" in res.output


# -- projects --------------------------------------------------------------------------------


def test_projects_add_list_remove(project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app()
    monkeypatch.chdir(project.root / "wiki")
    res = invoke(app, "projects", "add")
    assert res.exit_code == 0 and f"Registered {project.root}" in res.stderr
    assert "already registered" in invoke(app, "projects", "add", str(project.root)).stderr
    rows = json.loads(invoke(app, "projects", "list", "--json").stdout)
    assert rows == [
        {
            "path": str(project.root),
            "exists": True,
            "enabled": True,
            "last_attempt": None,
            "last_outcome": None,
            "consecutive_failures": 0,
            "error": None,
        }
    ]
    table = invoke(app, "projects", "list")
    assert str(project.root) in table.stdout and "never" in table.stdout
    assert invoke(app, "projects", "remove").exit_code == 0
    res = invoke(app, "projects", "remove")
    assert res.exit_code == 1 and "not registered" in res.stderr
    res = invoke(app, "projects", "add", str(tmp_path))
    assert res.exit_code == 1 and "gitgarden init" in res.stderr


def test_init_with_register_registers_the_project(tmp_path: Path) -> None:
    res = invoke(make_app(), "init", str(tmp_path / "notes"), "--register")
    assert res.exit_code == 0, res.output
    assert registry.registered(dict(os.environ)) == [(tmp_path / "notes").resolve()]


# -- config ----------------------------------------------------------------------------------


@pytest.fixture
def inside(project: Project, monkeypatch: pytest.MonkeyPatch) -> Project:
    monkeypatch.chdir(project.root)
    return project


def project_config(project: Project) -> Path:
    return project.root / ".gitgarden" / "config.toml"


def test_config_set_writes_reads_back_and_get_says_where_from(inside: Project) -> None:
    app = make_app()
    res = invoke(app, "config", "set", "idle_min", "45")
    assert res.exit_code == 0, res.output
    assert res.stdout == "idle_min = 45\n" and f"Wrote idle_min to {project_config(inside)}" in res.stderr
    assert "idle_min = 45" in project_config(inside).read_text()
    got = invoke(app, "config", "get", "idle_min")
    assert got.stdout == "45\n" and "from project" in got.stderr
    assert json.loads(invoke(app, "config", "get", "idle_min", "--json").stdout) == {
        "key": "idle_min",
        "value": 45,
        "source": "project",
        "scope": "project",
    }
    assert invoke(app, "config", "set", "enabled", "off").stdout == "enabled = false\n"
    assert invoke(app, "config", "set", "min_hours_between_passes", "0.5").stdout == "min_hours_between_passes = 0.5\n"


def test_config_set_to_the_same_value_does_not_rewrite_the_file(inside: Project) -> None:
    app = make_app()
    invoke(app, "config", "set", "idle_min", "45")
    before = project_config(inside).stat()
    res = invoke(app, "config", "set", "idle_min", "45")
    assert res.exit_code == 0 and "not rewritten" in res.stderr and res.stdout == "idle_min = 45\n"
    after = project_config(inside).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["idle_min", "5000"], "idle_min must be within 0–1440"),
        (["max_lines", "0"], "max_lines must be within 1–200"),
        (["interval_min", "5"], "use `gitgarden config set --user interval_min 5`"),
        (["notify_command", "touch /tmp/x"], "must not choose a command this machine runs"),
        (["reveiw", "true"], "did you mean `review`?"),
        (["idle_min", "soon"], "idle_min must be a whole number"),
        (["nosuch", "1"], "unknown setting 'nosuch'"),
        (["api_key", "sk-123"], "unknown setting 'api_key'"),
        (["api_key_env", "MY_KEY"], "never goes in a project file"),
    ],
)
def test_config_set_refuses_and_writes_nothing(inside: Project, args: list[str], message: str) -> None:
    before = project_config(inside).read_bytes()
    res = invoke(make_app(), "config", "set", *args)
    assert res.exit_code == 1 and message in res.stderr
    assert project_config(inside).read_bytes() == before


def test_config_set_refuses_a_key_its_environment_variable_overrides(inside: Project) -> None:
    res = invoke(make_app(GITGARDEN_IDLE_MIN="10"), "config", "set", "idle_min", "20")
    assert res.exit_code == 1 and "GITGARDEN_IDLE_MIN is set in the environment" in res.stderr


def test_config_user_scope_takes_what_a_project_file_may_not(inside: Project) -> None:
    app = make_app()
    res = invoke(app, "config", "set", "--user", "api_key_env", "MY_KEY")
    assert res.exit_code == 0 and 'api_key_env = "MY_KEY"' in user_config().read_text()
    res = invoke(app, "config", "set", "--user", "idle_min", "50")
    assert res.exit_code == 0
    invoke(app, "config", "set", "idle_min", "40")
    res = invoke(app, "config", "set", "--user", "idle_min", "55")
    assert "here the project layer wins: idle_min = 40" in res.stderr


def test_config_list_names_the_layer_of_every_value(inside: Project) -> None:
    user_config().write_text("interval_min = 60\n")
    project_config(inside).write_text("idle_min = 10\n")
    app = make_app(GITGARDEN_MODEL="openai/gpt-4o-mini")
    rows = json.loads(invoke(app, "config", "list", "--json").stdout)
    assert {k: (rows[k]["value"], rows[k]["source"]) for k in ("model", "idle_min", "interval_min", "min_hours_between_passes")} == {
        "model": ("openai/gpt-4o-mini", "env"),
        "idle_min": (10, "project"),
        "interval_min": (60, "user"),
        "min_hours_between_passes": (6.0, "default"),
    }
    assert rows["idle_min"]["range"] == [0, 1440] and rows["idle_min"]["env"] == "GITGARDEN_IDLE_MIN"
    assert json.loads(invoke(app, "config", "list", "--json", "--user").stdout)["idle_min"]["source"] == "default"
    table = invoke(app, "config", "list").stdout
    assert "interval_min" in table and "user" in table and "0–1440" in table


def test_an_out_of_range_value_in_a_file_is_clamped_with_a_warning(inside: Project) -> None:
    project_config(inside).write_text("idle_min = 5000\n")
    res = invoke(make_app(), "config", "list", "--json")
    assert res.exit_code == 0
    assert json.loads(res.stdout)["idle_min"]["value"] == 1440
    assert f"{project_config(inside)}: idle_min = 5000 is outside 0–1440; using 1440" in res.stderr


def test_a_malformed_config_file_is_reported_with_its_path_and_line(inside: Project) -> None:
    project_config(inside).write_text("idle_min = 10\nenabled = = true\n")
    res = invoke(make_app(), "config", "list")
    assert res.exit_code == 1
    assert str(project_config(inside)) in res.stderr and "line 2" in res.stderr
    res = invoke(make_app(), "config", "set", "idle_min", "20")
    assert res.exit_code == 1 and "line 2" in res.stderr
    assert project_config(inside).read_text() == "idle_min = 10\nenabled = = true\n"


def test_config_unset(inside: Project) -> None:
    app = make_app()
    invoke(app, "config", "set", "idle_min", "45")
    res = invoke(app, "config", "unset", "idle_min")
    assert res.exit_code == 0 and "Removed idle_min" in res.stderr and res.stdout == "idle_min = 30\n"
    res = invoke(app, "config", "unset", "idle_min")
    assert res.exit_code == 0 and "was not set" in res.stderr
    assert invoke(app, "config", "unset", "nosuch").exit_code == 1


def test_config_outside_a_project_is_the_user_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app()
    assert invoke(app, "config", "set", "interval_min", "60").exit_code == 0
    assert "interval_min = 60" in user_config().read_text()
    res = invoke(app, "config", "set", "--project", "idle_min", "5")
    assert res.exit_code == 1 and "gitgarden init" in res.stderr


# -- tick ---------------------------------------------------------------------------------------------


def skip(*ids: str) -> dict[str, Any]:
    return {"operations": [{"op": "skip", "lines": list(ids)}]}


def test_tick_runs_one_pass_a_tick_least_recently_attempted_first(tmp_path: Path) -> None:
    projects = [waiting_project(tmp_path, name, "Acme signed the pilot") for name in ("a-one", "b-two", "c-three")]
    model = FakeModel()
    for _ in range(3):
        model.enqueue(skip("2026-11-29#1"))
    clock = Clock()
    app = make_app(clock, model, GITGARDEN_MODEL="fake/scripted")

    data, res = tick_json(app)
    assert res.exit_code == 0, res.stderr
    assert data["ran"]["name"] == "a-one" and data["ran"]["outcome"] == "nothing_earned"
    assert [(w["name"], [h["clock"] for h in w["held"]]) for w in data["waiting"]] == [
        ("b-two", ["one_per_tick"]),
        ("c-three", ["one_per_tick"]),
    ]
    assert len(model.history) == 1
    for n, name in ((2, "b-two"), (3, "c-three")):
        clock.advance(minutes=30)
        assert tick_json(app)[0]["ran"]["name"] == name
        assert len(model.history) == n  # one pass, one model call, per tick
    for p in projects:
        assert len((p.root / FIXED_LOG).read_text().splitlines()) == 1
        assert (state(p.root).last_outcome, state(p.root).unread) == ("nothing_earned", 0)

    # a-one gets a new line; it waits for its distance from the last attempt.
    with (projects[0].journal / "2026-11-29.md").open("a") as fh:
        fh.write("Dana runs ops\n")
    age(projects[0].root, NOW)
    clock.advance(minutes=30)
    data, _ = tick_json(app)
    assert data["ran"] is None and data["nothing_to_do"] == 2
    assert [(w["name"], w["held"]) for w in data["waiting"]] == [
        (
            "a-one",
            [
                {
                    "clock": "min_hours_between_passes",
                    "detail": "last attempt 1 h 30 min ago; 6 h between passes",
                    "until": (NOW + timedelta(hours=6)).isoformat(),
                }
            ],
        )
    ]
    clock.advance(hours=5)
    model.enqueue(skip("2026-11-29#2"))
    assert tick_json(app)[0]["ran"]["name"] == "a-one"
    assert len(model.history) == 4


def test_a_project_without_a_model_is_attempted_and_waits_its_distance(tmp_path: Path) -> None:
    p = waiting_project(tmp_path, "p", "Acme signed the pilot")
    clock = Clock()
    app = make_app(clock)
    res = invoke(app, "tick")
    assert "p: no model configured" in res.stderr and "GITGARDEN_MODEL" in res.stderr
    assert (state(p.root).last_outcome, state(p.root).unread) == ("no_model", 1)
    clock.advance(minutes=30)
    data, _ = tick_json(app)
    assert [h["clock"] for h in data["waiting"][0]["held"]] == ["min_hours_between_passes"]


def test_a_tick_sooner_than_the_interval_prints_only_its_record(tmp_path: Path) -> None:
    waiting_project(tmp_path, "p", "a line")
    clock = Clock()
    app = make_app(clock)
    tick_json(app)
    clock.advance(minutes=5)
    data, res = tick_json(app)
    assert (data["looked"], data["reason"], data["ran"]) == (False, "interval", None)
    assert res.stderr == ""
    clock.advance(minutes=1)
    plain = invoke(app, "tick")
    assert plain.exit_code == 0 and plain.output == ""


def test_tick_gardens_with_the_model_and_then_finds_nothing(tmp_path: Path) -> None:
    p = waiting_project(tmp_path, "p", "Acme signed the pilot", "bought coffee")
    model = FakeModel().enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#1", "2026-11-29#2"]}]})
    clock = Clock()
    app = make_app(clock, model, GITGARDEN_MODEL="fake/scripted")
    res = invoke(app, "tick")
    assert res.exit_code == 0, res.stderr
    assert "Gardening p" in res.stderr and "p: nothing earned a page" in res.stderr
    assert len(model.history) == 1
    assert (state(p.root).last_outcome, state(p.root).unread) == ("nothing_earned", 0)
    clock.advance(hours=7)
    data, _ = tick_json(app)
    assert data["ran"] is None and data["nothing_to_do"] == 1


def test_tick_names_the_waiting_projects_and_their_clocks(tmp_path: Path) -> None:
    waiting_project(tmp_path, "a-ready", "a line")
    busy = waiting_project(tmp_path, "b-busy", "a line")
    os.utime(busy.journal / "2026-11-29.md", (NOW.timestamp() - 600,) * 2)
    res = invoke(make_app(), "tick")
    assert "a-ready: no model configured" in res.stderr
    assert "waiting: b-busy — idle_min: last edit (journal, conversation or wiki) 10 min ago; needs 30 min of quiet (until" in res.stderr


def test_tick_skips_a_project_with_a_malformed_config_and_runs_the_others(tmp_path: Path) -> None:
    bad = waiting_project(tmp_path, "a-bad", "a line")
    waiting_project(tmp_path, "b-good", "a line")
    project_config(bad).write_text("idle_min = 10\nidle_min = 20\n")
    res = invoke(make_app(), "tick")
    assert res.exit_code == 0
    assert f"skipped a-bad: {project_config(bad)}: malformed TOML" in res.stderr and "line 2" in res.stderr
    assert "b-good: no model configured" in res.stderr


def test_a_failing_model_notifies_on_the_fourth_failure_in_a_row(tmp_path: Path) -> None:
    seen = tmp_path / "notified.txt"
    script = write(tmp_path, "bin/notify", f"#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{seen}'\n")
    script.chmod(0o755)
    user_config().write_text(f'notify_command = "{script} --app=gitgarden"\n')
    p = waiting_project(tmp_path, "flaky", "Acme signed the pilot")
    model = FakeModel()
    for _ in range(8):
        model.enqueue("I think Acme deserves a page!")  # not JSON, twice a pass: "failed"
    clock = Clock()
    app = make_app(clock, model, GITGARDEN_MODEL="fake/scripted")
    for n in range(1, 5):
        data, res = tick_json(app)
        assert res.exit_code == 15 and data["ran"]["outcome"] == "failed", res.stderr
        assert state(p.root).consecutive_failures == n
        if n < 4:
            assert data["notification"] is None and FAILURE not in res.stderr
            clock.advance(hours=7)
    assert data["notification"] == FAILURE
    assert FAILURE in res.stderr
    assert seen.read_text() == f"--app=gitgarden\n{FAILURE}\n"
    assert len(model.history) == 8


def test_a_turn_starting_mid_pass_makes_the_tick_stand_down_with_the_journal_unread(tmp_path: Path) -> None:
    p = waiting_project(tmp_path, "p", "Acme signed the pilot")

    class PersonComesBack(FakeModel):
        def complete(self, messages, schema, budget):  # type: ignore[no-untyped-def]
            write(p.root, ".gitgarden/turn-in-flight", "")  # the chat tool starts a turn mid-pass
            return super().complete(messages, schema, budget)

    model = PersonComesBack().enqueue({"operations": [{"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot.\n", "lines": ["2026-11-29#1"]}]})
    clock = Clock()
    data, res = tick_json(make_app(clock, model, GITGARDEN_MODEL="fake/scripted"))
    assert data["ran"]["outcome"] == "stood_down" and res.exit_code == 12, res.stderr
    assert not (p.root / "wiki/acme.md").exists() and not (p.root / ".gitgarden/read.json").exists()
    record = state(p.root)
    assert (record.last_outcome, record.unread, record.consecutive_failures) == ("stood_down", 1, 0)
    clock.advance(hours=7)
    data, _ = tick_json(make_app(clock, model, GITGARDEN_MODEL="fake/scripted"))
    assert [h["clock"] for h in data["waiting"][0]["held"]] == ["turn_in_flight"]


def test_run_records_its_attempt_but_not_a_dry_run(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "a line\n")
    clock = Clock()
    assert invoke(make_app(clock), "run").exit_code == 0
    state_file = Path(os.environ["GITGARDEN_STATE"]) / "state.json"
    assert not state_file.exists()  # not registered: a demo in a scratch folder leaves no trace
    registry.register(project.root, dict(os.environ))
    res = invoke(make_app(clock), "run")
    assert res.exit_code == 0, res.output
    assert (state(project.root).last_outcome, state(project.root).last_attempt) == ("no_model", NOW.isoformat())
    clock.advance(hours=1)
    invoke(make_app(clock), "run", "--dry-run")
    assert state(project.root).last_attempt == NOW.isoformat()


# -- what the real command imports, and a second pass refused ---------------------------------------------


def run_gitgarden(*args: str, cwd: Path, python_args: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, *python_args, "-m", "gitgarden", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def imported_by(args: list[str], cwd: Path) -> list[str]:
    code = (
        "import json, sys\n"
        "from gitgarden.cli.main import App, cli\n"
        "try:\n"
        f"    cli.main({args!r}, obj=App(), standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'gitgarden', 'openai'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120
    )
    return json.loads(out.stdout.splitlines()[-1])


def test_a_tick_that_finds_nothing_imports_no_model_library(tmp_path: Path) -> None:
    waiting_project(tmp_path, "quiet")  # registered, nothing in its journal
    proc = run_gitgarden("tick", cwd=tmp_path, python_args=("-X", "importtime"))
    assert proc.returncode == 0, proc.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")]
    assert "gitgarden.schedule" in imported
    assert not [m for m in imported if m.split(".")[0] == "litellm" or m in ("gitgarden.gardener.pipeline", "gitgarden.model.llm")]
    modules = imported_by(["tick"], tmp_path)
    assert "gitgarden.schedule" in modules
    assert not {"litellm", "openai", "gitgarden.gardener.pipeline", "gitgarden.model.llm"} & set(modules)


def test_status_imports_neither_the_gardener_nor_the_model_library(tmp_path: Path) -> None:
    p = waiting_project(tmp_path, "p", "a line")
    modules = imported_by(["status"], p.root)
    assert "gitgarden.schedule" in modules
    assert not {"litellm", "gitgarden.gardener.pipeline", "gitgarden.model.llm"} & set(modules)


def test_a_second_run_is_refused_at_once_with_the_holders_pass_id(tmp_path: Path) -> None:
    p = waiting_project(tmp_path, "p", "a line")
    with PassLock(git_dir(p.root), {"pass_id": "20261130T085900Z-beef", "started": "2026-11-30T08:59:00+00:00"}):
        proc = run_gitgarden("run", cwd=p.root)
    assert proc.returncode == 14, proc.stderr
    assert "20261130T085900Z-beef" in proc.stderr and "2026-11-30T08:59:00" in proc.stderr
    assert state(p.root).last_attempt is None  # a refusal is not an attempt


# -- status -------------------------------------------------------------------------------------------------


def test_status_reads_the_journal_once_when_no_line_is_set_aside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up: the unread count parses every day file; the set-aside list needs them only when the
    set-aside file lists a line."""
    from gitgarden.wiki import journal

    p = waiting_project(tmp_path, "p", "one", "two", register=False)
    monkeypatch.chdir(p.root)
    reads: list[Path] = []
    real = journal.all_lines
    monkeypatch.setattr(journal, "all_lines", lambda folder: reads.append(folder) or real(folder))
    result = invoke(make_app(), "status")
    assert result.exit_code == 0, result.output
    assert "unread journal lines: 2" in result.stdout
    assert len(reads) == 1


def test_status_shows_the_clock_that_holds_back_the_lock_and_the_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = waiting_project(tmp_path, "p", "one", "two")
    age(p.root, NOW - timedelta(minutes=10))
    monkeypatch.chdir(p.root / "wiki")
    registry.record_attempt(
        p.root,
        type("R", (), {"outcome": "failed", "exit_code": 15, "sentence": "failed: bad model output", "pass_id": "x-1", "commit": ""})(),
        dict(os.environ),
        NOW - timedelta(hours=1),
        on_message=lambda _m: None,
    )
    with PassLock(git_dir(p.root), {"pass_id": "held-1", "started": "2026-11-30T08:59:00+00:00"}):
        data = json.loads(invoke(make_app(), "status", "--json").stdout)
        text = invoke(make_app(), "status").stdout
    assert data["unread"] == 2 and data["registered"] and not data["eligible"]
    assert [h["clock"] for h in data["held"]] == ["idle_min", "min_hours_between_passes", "lock"]
    assert data["eligible_at"] is None  # nobody knows when the lock is let go
    free = json.loads(invoke(make_app(), "status", "--json").stdout)
    assert free["lock"] is None and free["eligible_at"] == (NOW + timedelta(hours=5)).isoformat()
    assert (data["last_outcome"], data["last_pass_id"], data["consecutive_failures"]) == ("failed", "x-1", 1)
    assert data["lock"]["pass_id"] == "held-1"
    assert "unread journal lines: 2" in text and "held back:" in text
    assert "idle_min: last edit" in text and "lock: held by pass held-1" in text
    assert "failed passes in a row: 1" in text and "failed: bad model output [x-1]" in text


def test_status_outside_a_project_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = invoke(make_app(), "status")
    assert res.exit_code == 1 and "gitgarden init" in res.stderr


# -- timer ---------------------------------------------------------------------------------------------------


def test_timer_print_writes_the_units_to_stdout() -> None:
    res = invoke(make_app(), "timer", "print", "--systemd")
    assert res.exit_code == 0
    assert "Type=oneshot" in res.stdout and "OnCalendar=*-*-* *:*:00" in res.stdout and "Persistent=true" in res.stdout
    exec_start = next(line for line in res.stdout.splitlines() if line.startswith("ExecStart="))
    assert exec_start.startswith("ExecStart=/") and exec_start.endswith(" tick")


def test_timer_install_systemd_writes_the_units_and_prints_the_steps() -> None:
    app = make_app()
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "systemd" / "user"
    res = invoke(app, "timer", "install", "--systemd")
    assert res.exit_code == 0, res.output
    assert (folder / "gitgarden.service").exists() and (folder / "gitgarden.timer").exists()
    assert "systemctl --user daemon-reload && systemctl --user enable --now gitgarden.timer" in res.stderr
    assert "loginctl enable-linger $USER" in res.stderr
    assert "Unchanged" in invoke(app, "timer", "install", "--systemd").stderr
    res = invoke(app, "timer", "uninstall", "--systemd")
    assert res.exit_code == 0 and not (folder / "gitgarden.timer").exists()
    assert "nothing changed" in invoke(app, "timer", "uninstall", "--systemd").stderr


def test_timer_install_cron_goes_through_the_crontab_command(tmp_path: Path) -> None:
    table = tmp_path / "crontab.txt"
    table.write_text("0 3 * * * /usr/bin/backup\n")
    fake = write(
        tmp_path,
        "fakebin/crontab",
        f"#!/bin/sh\nif [ \"$1\" = \"-l\" ]; then cat '{table}'; else cat > '{table}'; fi\n",
    )
    fake.chmod(0o755)
    app = make_app(PATH=f"{fake.parent}:{os.environ['PATH']}")
    res = invoke(app, "timer", "install", "--cron")
    assert res.exit_code == 0, res.output
    line = invoke(app, "timer", "print", "--cron").stdout.strip()
    assert table.read_text() == f"0 3 * * * /usr/bin/backup\n{line}\n"
    assert line.startswith("* * * * * { set -a; PATH=") and "tick.log" in line and " tick; } >> " in line
    envf = Path(os.environ["XDG_CONFIG_HOME"]) / "gitgarden" / "env"
    assert f". {envf};" in line and f"reads {envf}" in res.stderr
    assert stat.S_IMODE(envf.stat().st_mode) == 0o600 and "# GITGARDEN_MODEL=" in envf.read_text()
    assert "unchanged" in invoke(app, "timer", "install", "--cron").stderr
    assert invoke(app, "timer", "uninstall", "--cron").exit_code == 0
    assert table.read_text() == "0 3 * * * /usr/bin/backup\n"


def test_a_tick_with_unread_lines_and_no_model_fails_for_the_notification_rule_once_a_day(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = tmp_path / "notified.txt"
    script = write(tmp_path, "bin/notify", f"#!/bin/sh\nprintf '%s\\n' \"$@\" >> '{seen}'\n")
    script.chmod(0o755)
    user_config().write_text(f'notify_command = "{script}"\n')
    p = waiting_project(tmp_path, "quiet", "Acme signed the pilot")
    clock = Clock()
    app = make_app(clock)  # no model anywhere: what a cron line without the env file sees
    notices = []
    for n in range(1, 9):
        data, res = tick_json(app)
        assert data["ran"]["outcome"] == "no_model", res.stderr
        assert state(p.root).consecutive_failures == n
        notices.append(data["notification"])
        clock.advance(hours=7)  # past min_hours_between_passes: every tick after it runs the project
    sent = [i + 1 for i, text in enumerate(notices) if text]
    assert sent == [4, 8]  # from the fourth in a row, then not again within a day (7 h apart: the 8th)
    assert "no model 4 times in a row on 'quiet'" in notices[3] and str(Path(os.environ["XDG_CONFIG_HOME"]) / "gitgarden" / "env") in notices[3]
    assert seen.read_text().count("no model") == 2
    monkeypatch.chdir(p.root)
    text = invoke(make_app(clock), "status").stdout.splitlines()
    assert text[1].startswith("  NO MODEL: 1 unread journal line(s) wait")
    text = invoke(make_app(clock, GITGARDEN_MODEL="openai/x"), "status").stdout.splitlines()
    assert text[1].startswith("  NO MODEL in the last pass (8 in a row)") and "timer does not" in text[1]
    # A model at last: the count resets, and status has nothing to say about models.
    model = FakeModel().enqueue(skip("2026-11-29#1"))
    data, res = tick_json(make_app(clock, model, GITGARDEN_MODEL="fake/scripted"))
    assert data["ran"]["outcome"] == "nothing_earned" and state(p.root).consecutive_failures == 0, res.stderr
    assert "NO MODEL" not in invoke(make_app(clock), "status").stdout


def test_no_model_and_nothing_unread_is_no_failure(tmp_path: Path) -> None:
    p = waiting_project(tmp_path, "empty")
    write(p.root, "wiki/index.md", "# Map\n" + "x" * 3000)  # over the ceiling: work, but no lines
    registry.record_attempt(
        p.root,
        type("R", (), {"outcome": "no_model", "exit_code": 0, "sentence": "no model", "pass_id": "", "commit": ""})(),
        dict(os.environ),
        NOW,
        on_message=lambda _m: None,
    )
    assert state(p.root).consecutive_failures == 0


def test_timer_install_cron_without_crontab_is_refused_before_it_writes_anything(tmp_path: Path) -> None:
    empty = tmp_path / "no-crontab-here"
    empty.mkdir()
    app = make_app(PATH=str(empty))
    res = invoke(app, "timer", "install", "--cron")
    assert res.exit_code == 1 and "crontab is not installed" in res.stderr
    assert not (Path(os.environ["XDG_CONFIG_HOME"]) / "gitgarden" / "env").exists()  # no env file left behind
