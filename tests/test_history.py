"""Inspect and take back: `log`, `show`, `undo`, `stop`, and a dry run that changes nothing."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import git as gitpython
import pytest

from gitgarden.gardener.pipeline import PassResult, run_pass, stop_path
from gitgarden.history import passlog as history
from gitgarden.history.records import read_attempts
from gitgarden.history.undo import undo
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from tests.helpers.project import (
    FIXED_LOG,
    FIXED_NOW,
    SETTINGS,
    FakeModel,
    capture,
    commit_all,
    git,
    invoke,
    page,
    promote_reply,
    workspace,
    write,
)


def garden(project: Project, model: FakeModel | None, *, minutes: int = 0, **kw: Any) -> PassResult:
    """helpers.project's garden on a clock `minutes` after FIXED_NOW (passes in a row get distinct ids)."""
    when = FIXED_NOW + timedelta(minutes=minutes)
    return run_pass(project, SETTINGS, model=model, now=lambda: when, **kw)


OLDER = "2026-11-28#1"  # the fixture's older unread line: promote_reply(OLDER) accounts for every offered line


@pytest.fixture
def acme(project: Project) -> Project:
    """One committed page (pricing), a map, and three uncommitted journal lines."""
    write(project.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(project.root, "raw/journal/2026-11-28.md", "Pilot price set at 400 EUR a month\n")
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    write(project.root, "notes/todo.md", "the person's own notes\n")
    commit_all(project.root)
    capture(project, "2026-11-29", "Acme signed the pilot contract", "Acme wants export before January", "bought coffee")
    return project


def head(project: Project) -> str:
    return git(project.root, "rev-parse", "HEAD").strip()


def records(project: Project) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (project.root / FIXED_LOG).read_text().splitlines()]


def first_pass(acme: Project, fake_model: FakeModel) -> PassResult:
    result = garden(acme, fake_model.enqueue(promote_reply(OLDER)))
    assert result.outcome == "pages_written", result.refusals
    return result


# -- log and show ----------------------------------------------------------------


def test_log_lists_passes_and_attempts_newest_first(acme: Project, fake_model: FakeModel) -> None:
    first = first_pass(acme, fake_model)
    capture(acme, "2026-11-30", "Dana joined Acme as ops lead")
    failed = garden(acme, fake_model.enqueue("no JSON").enqueue("still none"), minutes=1)
    assert failed.outcome == "failed" and not failed.commit
    # The attempt's record lives in the git dir: the person's work tree is left as it was.
    assert git(acme.root, "status", "--porcelain", "--", "log") == ""
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-30#1"]}]})
    third = garden(acme, fake_model, minutes=2)
    assert third.outcome == "nothing_earned"
    assert failed.pass_id not in git(acme.root, "show", f"{third.commit}:{FIXED_LOG}")

    result = invoke(acme, "log", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [d["pass_id"] for d in data] == [third.pass_id, failed.pass_id, first.pass_id]
    assert [d["outcome"] for d in data] == ["nothing_earned", "failed", "pages_written"]
    newest, attempt, oldest = data
    assert oldest["commit"] == first.commit and oldest["read"] == 4
    assert (oldest["created"], oldest["appended"], oldest["split"], oldest["refused"]) == (1, 1, 0, 0)
    assert oldest["tokens"] == first.tokens > 0 and oldest["model"] == "fake/scripted"
    assert oldest["undone_by"] == "" and oldest["when"] == FIXED_NOW.isoformat()
    assert attempt["commit"] == "" and "bad model output" in attempt["message"]
    assert newest["commit"] == third.commit
    for key in ("pass_id", "when", "outcome", "read", "created", "appended", "split", "refused", "tokens", "cost", "model", "commit", "undone_by"):
        assert key in newest

    limited = json.loads(invoke(acme, "log", "-n", "1", "--json").stdout)
    assert [d["pass_id"] for d in limited] == [third.pass_id]

    table = invoke(acme, "log")
    assert table.exit_code == 0
    assert first.pass_id in table.stdout and "failed" in table.stdout


def test_log_in_a_project_without_passes(acme: Project) -> None:
    result = invoke(acme, "log", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout) == []
    assert "no pass" in invoke(acme, "log").output


def test_show_prints_the_record_and_the_diff_pages_first(acme: Project, fake_model: FakeModel) -> None:
    first = first_pass(acme, fake_model)
    result = invoke(acme, "show")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"pass {first.pass_id}" in out and first.commit in out
    assert "created: wiki/acme.md" in out
    diff = out[out.index("diff --git") :]
    assert diff.index("wiki/acme.md") < diff.index(".gitgarden/read.json") < diff.index(FIXED_LOG)
    assert "+Acme signed the pilot contract." in diff

    by_commit = json.loads(invoke(acme, "show", first.commit[:8], "--json").stdout)
    by_id = json.loads(invoke(acme, "show", first.pass_id, "--json").stdout)
    assert by_commit == by_id
    assert by_id["record"]["created"] == ["wiki/acme.md"] and by_id["diff"].startswith("diff --git a/wiki/")


def test_show_refuses_what_is_not_a_pass(acme: Project, fake_model: FakeModel) -> None:
    first_pass(acme, fake_model)
    journal_commit = git(acme.root, "rev-parse", "HEAD~1").strip()
    result = invoke(acme, "show", journal_commit)
    assert result.exit_code == 1
    assert "is not a gardener pass" in result.stderr
    assert invoke(acme, "show", "no-such-thing").exit_code == 1


# -- undo ------------------------------------------------------------------------


def test_undo_reverts_the_pass_in_a_commit_of_its_own(acme: Project, fake_model: FakeModel) -> None:
    before = {p: (acme.root / p).read_bytes() for p in ("wiki/pricing.md", "wiki/index.md")}
    first = first_pass(acme, fake_model)
    read_after_pass = (acme.root / ".gitgarden/read.json").read_bytes()
    write(acme.root, "AGENTS.md", "# staged by the person\n")
    git(acme.root, "add", "AGENTS.md")
    write(acme.root, "notes/draft.md", "untracked\n")

    result = invoke(acme, "undo")

    assert result.exit_code == 0, result.output
    assert "Undid pass" in result.stderr
    repo = gitpython.Repo(acme.root)
    undo_commit = repo.commit("HEAD")
    assert repo.commit("HEAD~1").hexsha == first.commit  # history kept, the undo on top
    assert undo_commit.author.email == "pat@example.com" and undo_commit.committer.email == "pat@example.com"
    assert undo_commit.trailers_dict["Gardener-Undoes"] == [first.pass_id]
    assert first.commit in undo_commit.message
    assert not (acme.root / "wiki/acme.md").exists()
    assert {p: (acme.root / p).read_bytes() for p in before} == before
    # The lines stay read; the log keeps the pass's record and gains the undo's.
    assert (acme.root / ".gitgarden/read.json").read_bytes() == read_after_pass
    recs = records(acme)
    assert any(r.get("pass_id") == first.pass_id for r in recs)
    assert recs[-1]["kind"] == "undo" and recs[-1]["undoes"] == first.pass_id
    # The person's staged and untracked work is untouched and not in the undo commit.
    assert set(undo_commit.stats.files) == {"wiki/acme.md", "wiki/pricing.md", "wiki/index.md", FIXED_LOG}
    status = git(acme.root, "status", "--porcelain")
    assert status.splitlines() == ["M  AGENTS.md", "?? notes/draft.md"]
    # log shows who undid it; a second `undo` of it is refused.
    data = json.loads(invoke(acme, "log", "--json").stdout)
    assert data[0]["pass_id"] == first.pass_id and data[0]["undone_by"] == undo_commit.hexsha
    again = invoke(acme, "undo", first.pass_id)
    assert again.exit_code == 1 and "already undone" in again.stderr
    # The next pass does not promote the same lines again.
    assert garden(acme, fake_model).outcome == "nothing_new"


def test_undo_allowed_when_a_later_commit_touched_other_files(acme: Project, fake_model: FakeModel) -> None:
    first = first_pass(acme, fake_model)
    write(acme.root, "notes/todo.md", "changed later\n")
    write(acme.root, "wiki/people.md", page("People", "Pat and Dana.\n"))
    commit_all(acme.root, "the person's later work")
    result = invoke(acme, "undo", first.pass_id)
    assert result.exit_code == 0, result.output
    assert not (acme.root / "wiki/acme.md").exists()
    assert (acme.root / "notes/todo.md").read_text() == "changed later\n"
    assert (acme.root / "wiki/people.md").exists()


def second_pass(acme: Project, fake_model: FakeModel) -> PassResult:
    capture(acme, "2026-11-30", "Dana joined Acme as ops lead")
    op = {"op": "create_page", "page": "dana", "title": "Dana", "body": "Dana joined Acme as ops lead.\n", "lines": ["2026-11-30#1"]}
    second = garden(acme, fake_model.enqueue({"operations": [op]}), minutes=1)
    assert second.outcome == "pages_written", second.refusals
    return second


def test_undo_of_an_older_pass_keeps_what_a_later_pass_wrote_to_the_same_map(acme: Project, fake_model: FakeModel) -> None:
    pricing = (acme.root / "wiki/pricing.md").read_bytes()
    first = first_pass(acme, fake_model)
    second_pass(acme, fake_model)
    index = (acme.root / "wiki/index.md").read_text()
    assert "[[acme]]" in index and "[[dana]]" in index  # both passes added to the map

    result = invoke(acme, "undo", first.pass_id)

    assert result.exit_code == 0, result.output
    assert not (acme.root / "wiki/acme.md").exists()
    assert (acme.root / "wiki/pricing.md").read_bytes() == pricing
    index_after = (acme.root / "wiki/index.md").read_text()
    assert "[[acme]]" not in index_after and "[[dana]]" in index_after
    assert index_after == index.replace(next(ln for ln in index.splitlines(keepends=True) if "[[acme]]" in ln), "")
    assert (acme.root / "wiki/dana.md").exists()
    assert git(acme.root, "status", "--porcelain") == ""


def test_undo_keeps_the_lines_the_person_added_since_to_the_pages_the_pass_wrote(acme: Project, fake_model: FakeModel) -> None:
    pricing_path, acme_path = acme.root / "wiki/pricing.md", acme.root / "wiki/acme.md"
    pricing = pricing_path.read_text()
    first = first_pass(acme, fake_model)
    pricing_path.write_text(pricing_path.read_text() + "The person's note on pricing.\n")  # a page the pass appended to
    acme_path.write_text(acme_path.read_text() + "The person's own sentence.\n")  # a page the pass created
    commit_all(acme.root, "the person's later lines")

    result = invoke(acme, "undo", first.commit)

    assert result.exit_code == 0, result.output
    assert pricing_path.read_text() == pricing + "The person's note on pricing.\n"
    assert acme_path.read_text() == "The person's own sentence.\n"  # the pass's text is gone; the person's stays
    assert "Acme signed" not in acme_path.read_text()


def test_undo_refuses_a_real_overlap_and_names_the_lines(acme: Project, fake_model: FakeModel) -> None:
    first = first_pass(acme, fake_model)
    path = acme.root / "wiki/pricing.md"
    lines = path.read_text().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if "export before January" in ln)
    lines[at] = lines[at].replace("January", "February")  # the person edits the line the pass wrote
    path.write_text("".join(lines))
    commit_all(acme.root, "edit the pass's line")
    tip, status = head(acme), git(acme.root, "status", "--porcelain")

    result = invoke(acme, "undo", first.pass_id)

    assert result.exit_code == 1
    message = result.stderr
    assert f"wiki/pricing.md (line {at + 1})" in message and first.pass_id in message
    assert len(message.strip().splitlines()) == 1
    assert head(acme) == tip and git(acme.root, "status", "--porcelain") == status
    assert "before February" in path.read_text() and (acme.root / "wiki/acme.md").exists()


def test_undo_refused_when_the_persons_files_are_dirty(acme: Project, fake_model: FakeModel) -> None:
    first = first_pass(acme, fake_model)
    path = acme.root / "wiki/pricing.md"
    path.write_text(path.read_text() + "typed but not committed\n")
    tip = head(acme)
    result = invoke(acme, "undo")
    assert result.exit_code == 1
    assert "uncommitted changes in wiki/pricing.md" in result.stderr and first.pass_id in result.stderr
    assert head(acme) == tip
    assert path.read_text().endswith("typed but not committed\n")
    assert (acme.root / "wiki/acme.md").exists()


def test_undo_of_an_undo_is_refused(acme: Project, fake_model: FakeModel) -> None:
    first_pass(acme, fake_model)
    assert invoke(acme, "undo").exit_code == 0
    tip = head(acme)
    result = invoke(acme, "undo", "HEAD")
    assert result.exit_code == 1
    assert "is itself an undo" in result.stderr and "run the pass again" in result.stderr
    assert head(acme) == tip


def test_undo_refuses_what_the_gardener_did_not_make(acme: Project, fake_model: FakeModel) -> None:
    first_pass(acme, fake_model)
    tip = head(acme)
    for ref in ("HEAD~1", "HEAD~2"):  # the person's journal commit; the person's own commit
        result = invoke(acme, "undo", ref)
        assert result.exit_code == 1
        assert "is not a gardener pass" in result.stderr
    assert head(acme) == tip


def test_undo_refuses_an_attempt_without_a_commit(acme: Project, fake_model: FakeModel) -> None:
    failed = garden(acme, fake_model.enqueue("nope").enqueue("nope"))
    result = invoke(acme, "undo", failed.pass_id)
    assert result.exit_code == 1 and "made no commit" in result.stderr


def test_undo_reread_makes_the_lines_unread_again(acme: Project, fake_model: FakeModel) -> None:
    first = first_pass(acme, fake_model)
    result = invoke(acme, "undo", "--reread", first.pass_id)
    assert result.exit_code == 0, result.output
    assert "4 journal line(s) are unread again" in result.stderr
    assert json.loads((acme.root / ".gitgarden/read.json").read_text()) == {}
    assert ".gitgarden/read.json" in git(acme.root, "show", "--name-only", "--format=", "HEAD")
    again = garden(acme, fake_model.enqueue(promote_reply(OLDER)))
    assert again.outcome == "pages_written"
    assert again.offered == ["2026-11-28#1", "2026-11-29#1", "2026-11-29#2", "2026-11-29#3"]


def test_undo_reread_keeps_lines_a_later_pass_read(acme: Project, fake_model: FakeModel) -> None:
    first = first_pass(acme, fake_model)
    capture(acme, "2026-11-30", "Dana joined Acme as ops lead")
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-30#1"]}]})
    assert garden(acme, fake_model).outcome == "nothing_earned"
    assert invoke(acme, "undo", "--reread", first.pass_id).exit_code == 0
    read = json.loads((acme.root / ".gitgarden/read.json").read_text())
    assert list(read) == ["2026-11-30"]


def test_default_undo_takes_the_latest_pass_not_yet_undone(acme: Project, fake_model: FakeModel) -> None:
    index = (acme.root / "wiki/index.md").read_bytes()
    first = first_pass(acme, fake_model)
    second = second_pass(acme, fake_model)
    undone = undo(acme.root, None, now=FIXED_NOW)
    assert undone.pass_id == second.pass_id
    assert not (acme.root / "wiki/dana.md").exists() and (acme.root / "wiki/acme.md").exists()
    # The map went through both passes and the first undo; the next undo takes the first pass.
    assert undo(acme.root, None, now=FIXED_NOW).pass_id == first.pass_id
    assert (acme.root / "wiki/index.md").read_bytes() == index
    assert not (acme.root / "wiki/acme.md").exists()


# -- stop ------------------------------------------------------------------------


def test_stop_with_no_pass_running_says_so(acme: Project) -> None:
    result = invoke(acme, "stop")
    assert result.exit_code == 0
    assert "No pass is running" in result.stderr
    assert not stop_path(git_dir(acme.root)).exists()


def test_stop_ends_a_running_pass_and_records_who_asked(acme: Project) -> None:
    class StoppedMidCall(FakeModel):
        def complete(self, messages, schema, budget):  # type: ignore[no-untyped-def]
            stopped = invoke(acme, "stop")  # another terminal, while the model answers
            assert stopped.exit_code == 0 and "to stop" in stopped.stderr
            return super().complete(messages, schema, budget)

    model = StoppedMidCall().enqueue("not JSON: a repair call would follow").enqueue(promote_reply(OLDER))
    journal_before = head(acme)
    result = garden(acme, model)
    assert result.outcome == "stopped" and result.exit_code == 13
    assert len(model.history) == 1
    assert result.stop is not None and "@" in result.stop["who"] and result.stop["when"] == FIXED_NOW.isoformat()
    # What it had committed (the person's journal lines) stays; nothing else was written.
    assert git(acme.root, "rev-parse", "HEAD~1").strip() == journal_before
    assert not (acme.root / "wiki/acme.md").exists()
    assert git(acme.root, "status", "--porcelain", "wiki", ".gitgarden") == ""
    rec = read_attempts(git_dir(acme.root))[-1]
    assert rec["outcome"] == "stopped" and rec["stop"] == result.stop
    shown = json.loads(invoke(acme, "log", "--json").stdout)[0]
    assert shown["outcome"] == "stopped" and shown["commit"] == ""


def test_stop_before_writing(acme: Project) -> None:
    class StopsAfterAnswering(FakeModel):
        def complete(self, messages, schema, budget):  # type: ignore[no-untyped-def]
            reply = super().complete(messages, schema, budget)
            invoke(acme, "stop")
            return reply

    result = garden(acme, StopsAfterAnswering().enqueue(promote_reply(OLDER)))
    assert result.outcome == "stopped"
    assert not (acme.root / "wiki/acme.md").exists()
    assert "Gardener-Pass" not in git(acme.root, "log", "-1", "--format=%B")
    # The report says what happened: the pages it had ready were not written.
    assert result.created == result.appended == []
    assert result.not_written == {"created": ["wiki/acme.md"], "appended": ["wiki/pricing.md"], "tidied": ["wiki/index.md"]}
    shown = invoke(acme, "log", "--json")
    entry = json.loads(shown.stdout)[0]
    assert (entry["outcome"], entry["created"], entry["appended"], entry["not_written"]) == ("stopped", 0, 0, 3)
    assert git(acme.root, "status", "--porcelain", "--", "log") == ""


# -- dry run ---------------------------------------------------------------------


def _git_state(root: Path) -> tuple[str, str, str, str]:
    return (
        git(root, "status", "--porcelain", "--untracked-files=all"),
        git(root, "tag"),
        git(root, "for-each-ref"),
        git(root, "stash", "list"),
    )


def test_dry_run_changes_nothing(acme: Project, fake_model: FakeModel) -> None:
    write(acme.root, "AGENTS.md", "# staged\n")
    git(acme.root, "add", "AGENTS.md")
    files, state = workspace(acme.root), _git_state(acme.root)
    fake_model.enqueue(promote_reply(OLDER))

    result = invoke(acme, "run", "--dry-run", "--json", model=fake_model)

    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["outcome"] == "pages_written" and data["dry_run"] is True
    assert data["prompt_tokens"] > 0  # the model was called and its tokens reported
    assert "+Acme signed the pilot contract." in data["diff"]
    assert data["commit"] == "" and data["snapshot"] == "" and data["journal_commit"] == ""
    assert len(fake_model.history) == 1
    assert workspace(acme.root) == files
    assert _git_state(acme.root) == state
    assert not stop_path(git_dir(acme.root)).exists()
    assert not (git_dir(acme.root) / "gitgarden" / "pending.json").exists()
    assert history.passes(acme.root) == []
