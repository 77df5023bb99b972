"""The person's day: capture and a recovered line write the day file of the person's local date.

Each case is a fixed instant a little before or after local midnight, in a zone
west of UTC (Honolulu, UTC-10) and one east of it (Tokyo, UTC+9). The zones are
POSIX TZ strings, so no case depends on the machine's timezone database. Half
the cases fall on another day in UTC than locally: a UTC day file fails them.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from gitgarden.cli.main import App, cli
from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.project import Project
from tests.helpers.project import FakeModel, commit_all, git, write

HONOLULU, TOKYO = "HST10", "JST-9"  # Pacific/Honolulu and Asia/Tokyo: neither keeps summer time

CASES = [
    # zone, the instant (UTC), the person's day there
    (HONOLULU, datetime(2026, 11, 30, 9, 30, tzinfo=UTC), "2026-11-29"),  # 23:30 on the 29th
    (HONOLULU, datetime(2026, 11, 30, 10, 30, tzinfo=UTC), "2026-11-30"),  # 00:30 on the 30th
    (TOKYO, datetime(2026, 11, 30, 14, 30, tzinfo=UTC), "2026-11-30"),  # 23:30 on the 30th
    (TOKYO, datetime(2026, 11, 30, 15, 30, tzinfo=UTC), "2026-12-01"),  # 00:30 on 1 December
]
IDS = ["honolulu-before-midnight", "honolulu-after-midnight", "tokyo-before-midnight", "tokyo-after-midnight"]


@pytest.fixture
def in_zone(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Put the process in a zone for the rest of the test (the isolation fixture puts UTC back)."""

    def put(zone: str) -> None:
        monkeypatch.setenv("TZ", zone)
        time.tzset()

    return put


def day_files(project: Project) -> list[str]:
    return sorted(p.name for p in project.journal.glob("*.md"))


@pytest.mark.parametrize(("zone", "instant", "day"), CASES, ids=IDS)
def test_capture_writes_the_persons_local_day(project: Project, in_zone, zone: str, instant: datetime, day: str, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    in_zone(zone)
    monkeypatch.chdir(project.root)
    app = App(env={**os.environ}, now=lambda: instant)

    result = CliRunner().invoke(cli, ["capture", "Acme signed the pilot"], obj=app)

    assert result.exit_code == 0, result.output
    assert f"Captured 1 line(s) in raw/journal/{day}.md" in result.stderr
    assert day_files(project) == [f"{day}.md"]
    assert (project.journal / f"{day}.md").read_text() == "Acme signed the pilot\n"


@pytest.mark.parametrize(("zone", "instant", "day"), CASES, ids=IDS)
def test_a_recovered_line_goes_to_the_persons_local_day(project: Project, in_zone, zone: str, instant: datetime, day: str) -> None:  # type: ignore[no-untyped-def]
    in_zone(zone)
    write(project.root, "raw/chat/call.md", "Dana: The health inspection is booked for 9 December.\nMe: great\n")
    write(project.root, "raw/journal/2026-11-28.md", "bought coffee filters\n")
    commit_all(project.root)
    model = FakeModel().enqueue({"operations": [
        {"op": "recover_line", "text": "Health inspection booked for 9 December", "evidence": "The health inspection is booked for 9 December.", "lines": []},
        {"op": "skip", "lines": ["2026-11-28#1"]},
    ]})

    result = run_pass(project, Settings(model="fake/scripted"), model=model, now=lambda: instant)

    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert f"Today is {day}." in model.prompt  # the model is told the same day
    assert day_files(project) == sorted(["2026-11-28.md", f"{day}.md"])
    assert (project.journal / f"{day}.md").read_text() == (
        '[recovered] Health inspection booked for 9 December (evidence: "The health inspection is booked for 9 December.")\n'
    )
    assert f"raw/journal/{day}.md" in git(project.root, "show", "--name-only", "--format=", "HEAD").split()
