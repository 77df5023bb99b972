"""Who asked for a pass (the Gardener-Trigger trailer, the record, `gitgarden log`), and the nightly clock `at`."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import git as gitpython

from gitgarden.project import Project
from tests.helpers.project import FakeModel, commit_all, invoke, write
from tests.helpers.schedule import Clock, age, make_app, tick_json, waiting_project
from tests.helpers.schedule import invoke as invoke_app


def skip_reply(*ids: str) -> dict[str, object]:
    return {"operations": [{"op": "skip", "lines": list(ids)}]}


def test_run_records_the_person_who_asked_and_log_shows_it(project: Project) -> None:
    write(project.root, "raw/journal/2026-11-29.md", "Acme signed the pilot contract\n")
    model = FakeModel().enqueue(
        {"operations": [{"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]}]}
    )
    res = invoke(project, "run", "--json", model=model)
    data = json.loads(res.stdout)
    assert data["trigger"] == "run by Pat Person <pat@example.com>"
    commit = gitpython.Repo(project.root).commit("HEAD")
    assert commit.trailers_dict["Gardener-Trigger"] == ["run by Pat Person <pat@example.com>"]
    log = json.loads(invoke(project, "log", "--json").stdout)
    assert log[0]["trigger"] == "run by Pat Person <pat@example.com>"


def test_tick_records_tick_as_the_trigger(tmp_path: Path) -> None:
    p = waiting_project(tmp_path, "bakery", "Acme signed the pilot")
    app = make_app(Clock(), FakeModel().enqueue(skip_reply("2026-11-29#1")), GITGARDEN_MODEL="fake/scripted")
    data, res = tick_json(app)
    assert res.exit_code == 0, res.stderr
    commit = gitpython.Repo(p.root).commit("HEAD")
    assert commit.trailers_dict["Gardener-Trigger"] == ["tick"]
    (log_file,) = p.log.glob("*.jsonl")
    record = json.loads(log_file.read_text().splitlines()[-1])
    assert record["trigger"] == "tick"


def test_the_nightly_clock_starts_one_pass_a_day_after_its_time(tmp_path: Path) -> None:
    night = datetime(2026, 11, 30, 2, 0, tzinfo=UTC)
    p = waiting_project(tmp_path, "bakery", "Acme signed the pilot", "Dana runs ops")
    age(p.root, night - timedelta(hours=5))
    (p.root / ".gitgarden" / "config.toml").write_text('at = "03:30"\nmin_hours_between_passes = 0\n')
    model = FakeModel().enqueue(skip_reply("2026-11-29#1")).enqueue(skip_reply("2026-11-29#2"))
    clock = Clock(night)
    app = make_app(clock, model, GITGARDEN_MODEL="fake/scripted")

    data, _ = tick_json(app)  # 02:00: before the clock's time
    assert data["ran"] is None
    held = data["waiting"][0]["held"]
    assert [h["clock"] for h in held] == ["at"] and held[0]["until"].startswith("2026-11-30T03:30")

    clock.advance(minutes=100)  # 03:40: the first tick after 03:30 starts the day's pass
    data, _ = tick_json(app)
    assert data["ran"]["name"] == "bakery"

    with (p.journal / "2026-11-29.md").open("a") as fh:
        fh.write("Acme wants export\n")
    age(p.root, clock.at - timedelta(hours=1))
    clock.advance(minutes=60)  # later the same day: the day's pass has been attempted
    data, _ = tick_json(app)
    assert data["ran"] is None
    assert [h["clock"] for h in data["waiting"][0]["held"]] == ["at"]
    assert data["waiting"][0]["held"][0]["until"].startswith("2026-12-01T03:30")


def test_an_unparsable_nightly_clock_is_warned_about_and_ignored(tmp_path: Path) -> None:
    p = waiting_project(tmp_path, "bakery", "Acme signed the pilot")
    (p.root / ".gitgarden" / "config.toml").write_text('at = "half past three"\n')
    app = make_app(Clock(), FakeModel().enqueue(skip_reply("2026-11-29#1")), GITGARDEN_MODEL="fake/scripted")
    cwd = os.getcwd()
    os.chdir(p.root)
    try:
        res = invoke_app(app, "status")
    finally:
        os.chdir(cwd)
    assert res.exit_code == 0
    assert "at = 'half past three' is not a time like 03:30" in res.stderr
    data, res = tick_json(app)
    assert data["ran"]["name"] == "bakery"  # ignored, never fatal


def test_a_wiki_whose_health_worsened_starts_a_pass_and_status_names_the_signal(tmp_path: Path) -> None:
    p = waiting_project(tmp_path, "bakery", "Acme signed the pilot")
    clock = Clock()
    app = make_app(clock, FakeModel().enqueue(skip_reply("2026-11-29#1")), GITGARDEN_MODEL="fake/scripted")
    assert tick_json(app)[0]["ran"]["outcome"] == "nothing_earned"

    clock.advance(hours=7)
    data, _ = tick_json(app)
    assert data["ran"] is None and data["nothing_to_do"] == 1  # a quiet wiki: nothing to do, no health read

    # The person (or an agent) adds pages the map does not reach.
    for name in ("dana", "ovens"):
        write(p.root, f"wiki/{name}.md", f"---\ntitle: {name.title()}\nstate: open\nsource: []\n---\n{name} notes.\n")
    commit_all(p.root, "two pages of mine")
    age(p.root, clock.at - timedelta(hours=1))
    cwd = os.getcwd()
    os.chdir(p.root)
    try:
        status = json.loads(invoke_app(app, "status", "--json").stdout)
    finally:
        os.chdir(cwd)
    assert status["work"] == "health"
    assert status["signal"] == "2 page(s) the map and its hubs do not reach (threshold 1)"

    clock.advance(minutes=30)  # the tick's own interval
    data, _ = tick_json(app)
    assert data["ran"] is not None, data
    assert data["ran"]["name"] == "bakery" and data["ran"]["outcome"] == "tidied"
    assert data["ran"]["signal"] == status["signal"]
    index = (p.root / "wiki/index.md").read_text()
    assert "[[dana]]" in index and "[[ovens]]" in index
