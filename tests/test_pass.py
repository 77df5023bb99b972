"""A gardener pass end to end: real git, a scripted model, every outcome."""

from __future__ import annotations

import json
from pathlib import Path

import git as gitpython
import pytest
from click.testing import CliRunner

from gitgarden.cli.main import App, cli
from gitgarden.gardener.pipeline import OUTCOMES, request_stop, run_pass
from gitgarden.history.records import read_attempts
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from tests.helpers.project import (
    FIXED_LOG,
    FIXED_NOW,
    SETTINGS,
    FakeModel,
    capture,
    commit_all,
    garden,
    git,
    page,
    promote_reply,
    write,
)

NO_CORRECTION = {"operations": []}  # the answer to a repair round that corrects nothing


@pytest.fixture
def acme(project: Project) -> Project:
    """A project with one page (pricing), committed, and three uncommitted journal lines."""
    write(project.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(project.root, "raw/journal/2026-11-28.md", "Pilot price set at 400 EUR a month\n")
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    commit_all(project.root)
    capture(project, "2026-11-29", "Acme signed the pilot contract", "Acme wants export before January", "bought coffee")
    return project


def test_pass_creates_and_appends_in_one_commit_after_a_journal_commit(acme: Project, fake_model: FakeModel) -> None:
    result = garden(acme, fake_model.enqueue(promote_reply()))

    assert result.outcome == "pages_written", result.refusals
    assert result.exit_code == 0
    repo = gitpython.Repo(acme.root)
    pass_commit, journal_commit = repo.commit("HEAD"), repo.commit("HEAD~1")
    assert pass_commit.author.email == "gitgarden@localhost"
    assert pass_commit.committer.email == "gitgarden@localhost"
    assert set(pass_commit.stats.files) == {
        "wiki/acme.md",
        "wiki/pricing.md",
        "wiki/index.md",
        ".gitgarden/read.json",
        FIXED_LOG,
    }
    trailers = pass_commit.trailers_dict
    assert trailers["Gardener-Pass"] == [result.pass_id]
    assert trailers["Gardener-Outcome"] == ["pages_written"]
    assert trailers["Gardener-Read"] == ["3"]  # the three lines the reply cites
    assert result.not_cited == ["2026-11-28#1"]  # the older unread line it does not cite stays unread
    assert "Gardener-Tokens" in trailers and "Gardener-Model" in trailers
    # The person's lines were committed first, under the person's identity, journal only.
    assert journal_commit.author.email == "pat@example.com"
    assert set(journal_commit.stats.files) == {"raw/journal/2026-11-29.md"}
    acme_page = (acme.root / "wiki/acme.md").read_text()
    assert "state: open" in acme_page and "source: [2026-11-29]" in acme_page
    pricing = (acme.root / "wiki/pricing.md").read_text()
    assert pricing.startswith("---\ntitle: Pricing\nstate: open\nsource: [2026-11-28, 2026-11-29]\n---\nPilot price is 400 EUR a month.\n")
    assert pricing.endswith("\n\n[[acme|Acme]] wants export before January.\n")  # appended, first mention linked
    assert "[[acme]]" in (acme.root / "wiki/index.md").read_text()
    assert git(acme.root, "status", "--porcelain") == ""
    # The model saw the unread lines with their ids.
    assert "2026-11-29#1" in fake_model.prompt and "Acme signed the pilot contract" in fake_model.prompt


def test_a_second_run_reports_nothing_new_and_calls_no_model(acme: Project, fake_model: FakeModel) -> None:
    reply = promote_reply()
    reply["operations"].append({"op": "skip", "lines": ["2026-11-28#1"]})  # type: ignore[attr-defined]
    garden(acme, fake_model.enqueue(reply))
    head = git(acme.root, "rev-parse", "HEAD")
    second = garden(acme, fake_model)
    assert second.outcome == "nothing_new"
    assert len(fake_model.history) == 1
    assert git(acme.root, "rev-parse", "HEAD") == head


def test_snapshot_tag_holds_untracked_files_and_leaves_staged_work_staged(acme: Project, fake_model: FakeModel) -> None:
    write(acme.root, "notes/draft.md", "untracked draft\n")
    write(acme.root, "AGENTS.md", "# staged change\n")
    git(acme.root, "add", "AGENTS.md")

    result = garden(acme, fake_model.enqueue(promote_reply()))

    assert result.snapshot == f"pre_gardener/{result.pass_id}"
    tagged = git(acme.root, "show", f"{result.snapshot}:notes/draft.md")
    assert tagged == "untracked draft\n"
    assert git(acme.root, "show", f"{result.snapshot}:AGENTS.md") == "# staged change\n"
    status = git(acme.root, "status", "--porcelain")
    assert "M  AGENTS.md" in status  # still staged, not committed
    assert "?? notes/" in status
    assert "AGENTS.md" not in git(acme.root, "show", "--name-only", "HEAD")


def test_edited_line_counts_as_unread_again(acme: Project, fake_model: FakeModel) -> None:
    garden(acme, fake_model.enqueue(promote_reply()))
    path = acme.journal / "2026-11-29.md"
    path.write_text(path.read_text().replace("bought coffee", "bought coffee beans from Kessler"))
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#3"]}]})
    result = garden(acme, fake_model)
    assert result.outcome == "nothing_earned"
    # The edited line, and the older line the first reply did not cite; not the two that landed.
    assert result.offered == ["2026-11-28#1", "2026-11-29#3"]


def test_nothing_earned_marks_the_journal_read(acme: Project, fake_model: FakeModel) -> None:
    reply = {"operations": [{"op": "skip", "lines": ["2026-11-29#1", "2026-11-29#2", "2026-11-29#3"]}]}
    result = garden(acme, fake_model.enqueue(reply))
    assert result.outcome == "nothing_earned"
    assert result.exit_code == 0
    read = json.loads((acme.root / ".gitgarden/read.json").read_text())
    assert len(read["2026-11-29"]) == 3
    assert "Gardener-Outcome: nothing_earned" in git(acme.root, "log", "-1", "--format=%B")


def test_a_refused_operation_keeps_some_refused_and_the_rest_lands_and_is_read(acme: Project, fake_model: FakeModel) -> None:
    reply = promote_reply()
    reply["operations"].append(  # type: ignore[attr-defined]
        {"op": "create_page", "page": "ghost", "title": "Ghost", "body": "Cites a line never offered.\n", "lines": ["2026-11-01#1"]}
    )
    result = garden(acme, fake_model.enqueue(reply).enqueue(NO_CORRECTION))
    assert result.outcome == "some_refused"
    assert result.exit_code == OUTCOMES["some_refused"][0] != 0
    assert (acme.root / "wiki/acme.md").exists()
    assert not (acme.root / "wiki/ghost.md").exists()
    # The lines of what landed (and the skipped one) are read in the pass commit.
    read = json.loads(git(acme.root, "show", "HEAD:.gitgarden/read.json"))
    assert len(read["2026-11-29"]) == 3 and "2026-11-28" not in read
    assert any("not offered" in r for r in result.refusals)


def test_finished_without_writing_when_every_write_is_refused(acme: Project, fake_model: FakeModel) -> None:
    reply = {"operations": [{"op": "append", "page": "no-such-page", "text": "x", "lines": ["2026-11-29#1"]}]}
    head = git(acme.root, "rev-parse", "HEAD")
    result = garden(acme, fake_model.enqueue(reply).enqueue(NO_CORRECTION))
    assert result.outcome == "finished_without_writing"
    assert result.exit_code == 10
    assert result.marked_read == 0 and not (acme.root / ".gitgarden/read.json").exists()
    # After the person's journal commit, the pass commits only its count of the refusal (no page, no read line).
    assert git(acme.root, "rev-parse", "HEAD~2") == head
    assert set(git(acme.root, "show", "--name-only", "--format=", "HEAD").split()) == {".gitgarden/set-aside.json", FIXED_LOG}


def test_bad_model_output_fails_and_writes_nothing(acme: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue("I think Acme deserves a page!").enqueue("still not JSON")
    result = garden(acme, fake_model)
    assert result.outcome == "failed" and result.exit_code == 15
    assert "bad model output" in result.detail
    assert not (acme.root / "wiki/acme.md").exists()
    assert git(acme.root, "status", "--porcelain", "wiki", ".gitgarden") == ""


def test_no_model_tidies_and_leaves_the_journal_unread(acme: Project) -> None:
    write(acme.root, "wiki/dana.md", page("Dana", "Dana runs ops with Pricing in mind.\n", source="[2026-11-28]", gardener=True))
    commit_all(acme.root, "a page an earlier pass made")
    result = garden(acme, None)
    assert result.outcome == "no_model" and result.exit_code == 0
    assert any("GITGARDEN_MODEL" in h for h in result.hints)
    assert "[[dana]]" in (acme.root / "wiki/index.md").read_text()
    assert "[[pricing|Pricing]]" in (acme.root / "wiki/dana.md").read_text()
    assert not (acme.root / ".gitgarden/read.json").exists()
    assert result.commit


def test_stop_between_two_model_calls(acme: Project) -> None:
    class AsksToStop(FakeModel):
        def complete(self, messages, schema, budget):  # type: ignore[no-untyped-def]
            request_stop(git_dir(acme.root), "pat", FIXED_NOW)  # arrives while the model answers
            return super().complete(messages, schema, budget)

    model = AsksToStop().enqueue("not JSON, so a repair call would follow").enqueue(promote_reply())
    result = garden(acme, model)
    assert result.outcome == "stopped" and result.exit_code == 13
    assert result.stop == {"who": "pat", "when": FIXED_NOW.isoformat()}
    assert len(model.history) == 1  # the repair call never happened
    assert not (acme.root / "wiki/acme.md").exists()


def test_stood_down_when_the_person_comes_back(acme: Project) -> None:
    class Interrupting(FakeModel):
        def complete(self, messages, schema, budget):  # type: ignore[no-untyped-def]
            capture(acme, "2026-11-29", "a new line typed while the pass ran")
            return super().complete(messages, schema, budget)

    model = Interrupting().enqueue(promote_reply())
    result = garden(acme, model)
    assert result.outcome == "stood_down" and result.exit_code == 12
    assert not (acme.root / "wiki/acme.md").exists()
    assert not (acme.root / ".gitgarden/read.json").exists()


def test_refused_when_a_turn_is_in_flight(acme: Project, fake_model: FakeModel) -> None:
    write(acme.root, ".gitgarden/turn-in-flight", "")
    result = garden(acme, fake_model)
    assert result.outcome == "refused" and result.exit_code == 14
    assert fake_model.history == []


def test_refused_when_another_pass_holds_the_lock(acme: Project, fake_model: FakeModel) -> None:
    from gitgarden.repo.lock import PassLock

    with PassLock(git_dir(acme.root), {"pass_id": "other-pass", "started": "2026-11-30T08:59:00"}):
        result = garden(acme, fake_model)
    assert result.outcome == "refused"
    assert "other-pass" in result.detail and "2026-11-30T08:59:00" in result.detail


def test_failed_attempt_leaves_a_record_in_the_git_dir_not_the_work_tree(acme: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue("nope").enqueue("nope")
    result = garden(acme, fake_model)
    records = read_attempts(git_dir(acme.root))
    assert records[-1]["outcome"] == "failed" and records[-1]["pass_id"] == result.pass_id
    assert result.record_path == ".git/gitgarden/attempts.jsonl"
    assert git(acme.root, "status", "--porcelain") == ""  # the journal lines it read were committed; nothing else
    assert not list((acme.root / "log").glob("*.jsonl"))  # no record, whatever the month


def test_run_outside_a_project_refuses_with_a_how_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["run"], obj=App())
    assert result.exit_code == 14
    assert "gitgarden init" in result.output


def test_cli_run_reports_the_outcome_and_exit_status(acme: Project, fake_model: FakeModel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(acme.root / "wiki")  # any sub-folder
    fake_model.enqueue(promote_reply())
    app = App(env={"GITGARDEN_MODEL": "fake/scripted"}, now=lambda: FIXED_NOW, model_factory=lambda s, e: fake_model)
    result = CliRunner().invoke(cli, ["run", "--json"], obj=app)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcome"] == "pages_written"
    assert data["created"] == ["wiki/acme.md"]


def test_a_project_file_cannot_send_files_outside_the_project_to_the_model(acme: Project, fake_model: FakeModel) -> None:
    from gitgarden.config import load_settings

    secret = acme.root.parent / "secret.txt"
    secret.write_text("SECRET-TOKEN-123\n")
    (acme.root / "inside.md").write_text("Identity: Pat runs the bakery.\n")
    (acme.root / "link.md").symlink_to(secret)
    (acme.state / "config.toml").write_text(f'identity_files = ["{secret}", "../secret.txt", "~/x", "link.md", "inside.md"]\n')
    resolved = load_settings(acme.root, env={})
    assert resolved.settings.identity_files == ("link.md", "inside.md")
    assert sum("identity file" in w for w in resolved.warnings) == 3
    run_pass(acme, resolved.settings.__class__(**{**resolved.settings.__dict__, "model": "fake"}), model=fake_model.enqueue(promote_reply()), now=lambda: FIXED_NOW)
    assert "SECRET-TOKEN-123" not in fake_model.prompt
    assert "Pat runs the bakery" in fake_model.prompt


def test_tokens_spent_on_a_failed_pass_are_recorded(acme: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue("nope").enqueue("still nope")
    result = garden(acme, fake_model)
    assert result.outcome == "failed"
    assert result.prompt_tokens > 0 and result.completion_tokens > 0


def test_a_pass_refused_by_the_lock_writes_nothing_into_the_project(acme: Project, fake_model: FakeModel) -> None:
    from gitgarden.repo.lock import PassLock

    before = git(acme.root, "status", "--porcelain")
    with PassLock(git_dir(acme.root), {"pass_id": "other", "started": "now"}):
        garden(acme, fake_model)
    assert git(acme.root, "status", "--porcelain") == before
    assert not list((acme.root / "log").glob("*.jsonl"))  # no record, whatever the month


def test_a_commit_refused_by_the_persons_hook_fails_cleanly(acme: Project, fake_model: FakeModel) -> None:
    hook = acme.root / ".git/hooks/pre-commit"
    hook.write_text('#!/bin/sh\n[ "$GIT_AUTHOR_EMAIL" = gitgarden@localhost ] && { echo "no robots" >&2; exit 1; }\nexit 0\n')
    hook.chmod(0o755)
    pricing = (acme.root / "wiki/pricing.md").read_bytes()
    result = garden(acme, fake_model.enqueue(promote_reply()))
    assert result.outcome == "failed" and result.exit_code == 15
    assert "did not land" in result.detail
    assert not (acme.root / "wiki/acme.md").exists()
    assert (acme.root / "wiki/pricing.md").read_bytes() == pricing
    assert not (acme.root / ".gitgarden/read.json").exists()
    assert git(acme.root, "status", "--porcelain", "wiki", ".gitgarden", "log") == ""
    record = read_attempts(git_dir(acme.root))[-1]
    assert record["outcome"] == "failed"
    # Nothing landed, so nothing is reported as written: what it meant to write is named apart.
    assert result.created == result.appended == record["created"] == record["appended"] == []
    assert record["not_written"]["created"] == ["wiki/acme.md"]
    assert record["not_written"]["appended"] == ["wiki/pricing.md"]


def test_a_model_free_run_with_nothing_to_tidy_leaves_no_trace(acme: Project) -> None:
    garden(acme, None)  # the first one tidies (and commits its record)
    before = git(acme.root, "status", "--porcelain")
    result = garden(acme, None)
    assert result.outcome == "no_model" and not result.commit
    assert git(acme.root, "status", "--porcelain") == before


def test_a_page_with_broken_frontmatter_is_appended_to_and_left_as_it_was(acme: Project, fake_model: FakeModel) -> None:
    broken = "---\ntitle: [Pricing\nstate: open\n---\nPilot price is 400 EUR a month.\n"
    write(acme.root, "wiki/pricing.md", broken)
    commit_all(acme.root, "a typo in the frontmatter")
    # A repair round is answered (with nothing) so that a refused append would show as a refusal.
    result = garden(acme, fake_model.enqueue(promote_reply()).enqueue(NO_CORRECTION))
    assert result.outcome == "pages_written" and result.refusals == [], result.refusals
    assert result.appended == ["wiki/pricing.md"]
    text = (acme.root / "wiki/pricing.md").read_text()
    assert text.startswith(broken)  # every byte the person wrote is still there
    # The append landed after them; the frontmatter that cannot be read is left as it was (no source added).
    assert text == broken + "\n[[acme|Acme]] wants export before January.\n"
    assert (acme.root / "wiki/acme.md").exists()
    assert len(fake_model.history) == 1  # nothing was refused: no repair round


def test_a_corrupt_read_position_fails_instead_of_rereading_everything(acme: Project, fake_model: FakeModel) -> None:
    garden(acme, fake_model.enqueue(promote_reply()))
    (acme.root / ".gitgarden/read.json").write_text("{ not json")
    head = git(acme.root, "rev-parse", "HEAD")
    result = garden(acme, fake_model)
    assert result.outcome == "failed" and "read.json is not valid JSON" in result.detail
    assert len(fake_model.history) == 1  # no second model call
    assert git(acme.root, "rev-parse", "HEAD") == head
    assert (acme.root / ".gitgarden/read.json").read_text() == "{ not json"


def test_the_record_follows_the_pass_clock_not_the_machine_date(acme: Project, fake_model: FakeModel) -> None:
    """Another month and year, and a pass whose clock crosses midnight into a new month: one record
    file, named from the pass's start, committed with the pass."""
    from datetime import UTC, datetime, timedelta

    ticks = iter(datetime(2031, 3, 31, 23, 59, 59, tzinfo=UTC) + timedelta(seconds=s) for s in range(1000))
    result = run_pass(acme, SETTINGS, model=fake_model.enqueue(promote_reply()), now=lambda: next(ticks))

    assert result.outcome == "pages_written", result.refusals
    assert result.record_path == "log/2031-03.jsonl"
    committed = git(acme.root, "show", "--name-only", "--format=", "HEAD").split()
    assert "log/2031-03.jsonl" in committed and "log/2031-04.jsonl" not in committed
    record = json.loads((acme.root / "log/2031-03.jsonl").read_text().splitlines()[-1])
    assert record["pass_id"] == result.pass_id and record["record_path"] == "log/2031-03.jsonl"
    assert not (acme.root / "log/2031-04.jsonl").exists()
