"""Review mode: passes commit to `gitgarden/review`; `review` shows, `accept` brings in, `reject` drops."""

from __future__ import annotations

import json
from typing import Any

import git as gitpython
import pytest

from gitgarden.history import review
from gitgarden.project import Project
from tests.helpers.project import (
    FIXED_LOG,
    FakeModel,
    commit_all,
    git,
    invoke,
    page,
    promote_reply,
    workspace,
    write,
)

REVIEW = "gitgarden/review"


OLDER = "2026-11-28#1"  # the fixture's older unread line: promote_reply(OLDER) accounts for every offered line


def dana_reply() -> dict[str, Any]:
    return {"operations": [{"op": "create_page", "page": "dana", "title": "Dana", "body": "Dana joined Acme as ops lead.\n", "lines": ["2026-11-30#1"]}]}


@pytest.fixture
def acme(project: Project) -> Project:
    """Review mode on; one page, a map, and three journal lines — all committed by the person."""
    write(project.root, ".gitgarden/config.toml", "review = true\n")
    write(project.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(project.root, "raw/journal/2026-11-28.md", "Pilot price set at 400 EUR a month\n")
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    write(project.root, "raw/journal/2026-11-29.md", "Acme signed the pilot contract\nAcme wants export before January\nbought coffee\n")
    commit_all(project.root)
    return project


def rev(project: Project, name: str) -> str:
    return git(project.root, "rev-parse", name).strip()


def review_pass(project: Project, model: FakeModel, reply: dict[str, Any]) -> dict[str, Any]:
    result = invoke(project, "run", "--json", model=model.enqueue(reply))
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    assert data["outcome"] == "pages_written", data["refusals"]
    return data


def test_a_review_pass_leaves_the_branch_and_the_work_tree_alone(acme: Project, fake_model: FakeModel) -> None:
    write(acme.root, "AGENTS.md", "# staged by the person\n")
    git(acme.root, "add", "AGENTS.md")
    head, files = rev(acme, "HEAD"), workspace(acme.root)
    status = git(acme.root, "status", "--porcelain")

    data = review_pass(acme, fake_model, promote_reply(OLDER))

    assert rev(acme, "HEAD") == head
    assert workspace(acme.root) == files
    assert git(acme.root, "status", "--porcelain") == status
    assert git(acme.root, "symbolic-ref", "--short", "HEAD").strip() == "main"
    repo = gitpython.Repo(acme.root)
    commit = repo.commit(REVIEW)
    assert commit.hexsha == data["commit"]
    assert [p.hexsha for p in commit.parents] == [head]
    assert commit.author.email == "gitgarden@localhost"
    assert commit.trailers_dict["Gardener-Pass"] == [data["pass_id"]]
    assert set(commit.stats.files) == {"wiki/acme.md", "wiki/pricing.md", "wiki/index.md", ".gitgarden/read.json", FIXED_LOG}
    assert "AGENTS.md" in git(acme.root, "ls-tree", "-r", "--name-only", REVIEW).split()
    assert repo.git.show(f"{REVIEW}:AGENTS.md") != "# staged by the person"  # the person's staged work stays theirs
    # log lists it as waiting; `review` shows it, with its diff.
    entry = json.loads(invoke(acme, "log", "--json").stdout)[0]
    assert entry["pass_id"] == data["pass_id"] and entry["review"] == "waiting"
    shown = invoke(acme, "review")
    assert shown.exit_code == 0
    assert data["pass_id"] in shown.stdout and "+Acme signed the pilot contract." in shown.stdout
    diff = shown.stdout[shown.stdout.index("diff --git") :]
    assert "wiki/acme.md" in diff and ".gitgarden/read.json" not in diff  # bookkeeping left out for people
    full = json.loads(invoke(acme, "review", "--json").stdout)["diff"]
    assert full.index("wiki/acme.md") < full.index(".gitgarden/read.json")


def test_the_journal_commit_is_the_only_change_to_the_current_branch(acme: Project, fake_model: FakeModel) -> None:
    write(acme.root, "raw/journal/2026-11-30.md", "Dana joined Acme as ops lead\n")
    head = rev(acme, "HEAD")
    fake_model.enqueue({"operations": promote_reply(OLDER)["operations"] + dana_reply()["operations"]})
    result = invoke(acme, "run", "--json", model=fake_model)
    assert result.exit_code == 0, result.output
    # The person's lines were committed (journal only, their identity) so the pages' sources exist.
    repo = gitpython.Repo(acme.root)
    assert repo.commit("HEAD~1").hexsha == head
    assert set(repo.commit("HEAD").stats.files) == {"raw/journal/2026-11-30.md"}
    assert repo.commit("HEAD").author.email == "pat@example.com"
    assert repo.commit(REVIEW).parents[0].hexsha == rev(acme, "HEAD")
    assert not (acme.root / "wiki/acme.md").exists()


def test_a_second_review_pass_stacks_on_the_first_and_reads_only_new_lines(acme: Project, fake_model: FakeModel) -> None:
    first = review_pass(acme, fake_model, promote_reply(OLDER))
    write(acme.root, "raw/journal/2026-11-30.md", "Dana joined Acme as ops lead\n")
    commit_all(acme.root, "journal")
    second = review_pass(acme, fake_model, dana_reply())
    assert second["offered"] == ["2026-11-30#1"]  # the lines waiting for review are not promoted twice
    repo = gitpython.Repo(acme.root)
    tip = repo.commit(REVIEW)
    assert tip.hexsha == second["commit"] and tip.parents[0].hexsha == first["commit"]
    index = repo.git.show(f"{REVIEW}:wiki/index.md")
    assert "[[acme]]" in index and "[[dana]]" in index
    log = repo.git.show(f"{REVIEW}:{FIXED_LOG}").splitlines()
    assert [json.loads(line)["pass_id"] for line in log] == [first["pass_id"], second["pass_id"]]
    waiting = review.review_status(acme.root)
    assert [e.pass_id for e in waiting.passes] == [second["pass_id"], first["pass_id"]]


def test_accept_fast_forwards(acme: Project, fake_model: FakeModel) -> None:
    data = review_pass(acme, fake_model, promote_reply(OLDER))
    write(acme.root, "AGENTS.md", "# staged by the person\n")
    git(acme.root, "add", "AGENTS.md")
    result = invoke(acme, "review", "accept")
    assert result.exit_code == 0, result.output
    assert "fast-forward" in result.stderr
    assert rev(acme, "HEAD") == data["commit"]
    assert (acme.root / "wiki/acme.md").read_text().endswith("Acme signed the pilot contract.\n")
    assert git(acme.root, "status", "--porcelain") == "M  AGENTS.md\n"
    git(acme.root, "reset", "-q", "--hard")
    assert git(acme.root, "branch", "--list", REVIEW) == ""
    assert invoke(acme, "review").stderr.strip() == "Nothing waits for review."
    entry = json.loads(invoke(acme, "log", "--json").stdout)[0]
    assert entry["pass_id"] == data["pass_id"] and entry["review"] == "" and entry["commit"] == data["commit"]
    # Accepted passes can be undone like any other.
    assert invoke(acme, "undo").exit_code == 0
    assert not (acme.root / "wiki/acme.md").exists()


def test_accept_makes_a_merge_commit_when_the_branch_moved(acme: Project, fake_model: FakeModel) -> None:
    data = review_pass(acme, fake_model, promote_reply(OLDER))
    write(acme.root, "notes/todo.md", "the person's later work\n")
    commit_all(acme.root, "later work")
    moved = rev(acme, "HEAD")
    write(acme.root, "notes/draft.md", "untracked, not in the way\n")
    write(acme.root, "AGENTS.md", "# staged by the person\n")
    git(acme.root, "add", "AGENTS.md")

    result = invoke(acme, "review", "accept", "--json")

    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["kind"] == "merge" and out["passes"] == [data["pass_id"]]
    merge = gitpython.Repo(acme.root).commit("HEAD")
    assert [p.hexsha for p in merge.parents] == [moved, data["commit"]]
    assert merge.author.email == "pat@example.com"
    assert (acme.root / "wiki/acme.md").exists() and (acme.root / "notes/todo.md").exists()
    assert git(acme.root, "status", "--porcelain") == "M  AGENTS.md\n?? notes/draft.md\n"
    assert "AGENTS.md" not in git(acme.root, "diff", "--name-only", "HEAD^1", "HEAD")
    assert "wiki/acme.md" in git(acme.root, "diff", "--name-only", "HEAD^1", "HEAD")


def test_accept_merges_read_positions_and_log_records_by_union(acme: Project, fake_model: FakeModel) -> None:
    data = review_pass(acme, fake_model, promote_reply(OLDER))
    # Review mode off; a normal pass lands on main meanwhile, writing read.json and the log too.
    write(acme.root, ".gitgarden/config.toml", "review = false\n")
    write(acme.root, "raw/journal/2026-11-30.md", "Dana joined Acme as ops lead\n")
    commit_all(acme.root, "journal; review off")
    skip = {"operations": [{"op": "skip", "lines": ["2026-11-30#1"]}]}
    normal = invoke(acme, "run", "--json", model=fake_model.enqueue(skip))
    assert json.loads(normal.stdout)["offered"] == ["2026-11-30#1"], normal.output
    assert json.loads(normal.stdout)["outcome"] == "nothing_earned"
    result = invoke(acme, "review", "accept", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["kind"] == "merge" and ".gitgarden/read.json" in out["resolved"]
    read = json.loads((acme.root / ".gitgarden/read.json").read_text())
    assert len(read["2026-11-29"]) == 3 and len(read["2026-11-30"]) == 1
    ids = [json.loads(line).get("pass_id") for line in (acme.root / FIXED_LOG).read_text().splitlines()]
    assert data["pass_id"] in ids and json.loads(normal.stdout)["pass_id"] in ids
    assert git(acme.root, "status", "--porcelain") == ""


def test_accept_refuses_on_conflicts_and_changes_nothing(acme: Project, fake_model: FakeModel) -> None:
    review_pass(acme, fake_model, promote_reply(OLDER))
    path = acme.root / "wiki/pricing.md"
    path.write_text(path.read_text() + "\nThe person appended this here too.\n")
    commit_all(acme.root, "person edits pricing")
    head, tip, files = rev(acme, "HEAD"), rev(acme, REVIEW), workspace(acme.root)

    result = invoke(acme, "review", "accept")

    assert result.exit_code == 1
    assert "conflict in wiki/pricing.md" in result.stderr
    assert (rev(acme, "HEAD"), rev(acme, REVIEW)) == (head, tip)
    assert workspace(acme.root) == files
    assert git(acme.root, "status", "--porcelain") == ""
    assert not (acme.root / ".git/MERGE_HEAD").exists()


def test_accept_refuses_when_the_person_has_uncommitted_changes_in_its_files(acme: Project, fake_model: FakeModel) -> None:
    review_pass(acme, fake_model, promote_reply(OLDER))
    path = acme.root / "wiki/pricing.md"
    path.write_text(path.read_text() + "typing…\n")
    head = rev(acme, "HEAD")
    result = invoke(acme, "review", "accept")
    assert result.exit_code == 1 and "uncommitted changes in wiki/pricing.md" in result.stderr
    assert rev(acme, "HEAD") == head and path.read_text().endswith("typing…\n")


def test_reject_keep_read_drops_the_branch_and_the_lines_stay_read(acme: Project, fake_model: FakeModel) -> None:
    data = review_pass(acme, fake_model, promote_reply(OLDER))
    head = rev(acme, "HEAD")
    result = invoke(acme, "review", "reject", "--keep-read")
    assert result.exit_code == 0, result.output
    assert git(acme.root, "branch", "--list", REVIEW) == ""
    repo = gitpython.Repo(acme.root)
    commit = repo.commit("HEAD")
    assert commit.parents[0].hexsha == head and commit.author.email == "pat@example.com"
    assert set(commit.stats.files) == {".gitgarden/read.json", FIXED_LOG}
    assert commit.trailers_dict["Gardener-Rejects"] == [data["pass_id"]]
    assert not (acme.root / "wiki/acme.md").exists()
    assert git(acme.root, "status", "--porcelain") == ""
    entry = json.loads(invoke(acme, "log", "--json").stdout)[0]
    assert entry["pass_id"] == data["pass_id"] and entry["review"] == "rejected" and entry["commit"] == ""
    # The lines stay read: the next pass has nothing new and calls no model.
    again = invoke(acme, "run", "--json", model=fake_model)
    assert json.loads(again.stdout)["outcome"] == "nothing_new"
    assert len(fake_model.history) == 1


def test_reject_gives_the_lines_back_unread_and_says_so(acme: Project, fake_model: FakeModel) -> None:
    review_pass(acme, fake_model, promote_reply(OLDER))
    head = rev(acme, "HEAD")
    result = invoke(acme, "review", "reject")
    assert result.exit_code == 0, result.output
    assert "Their journal lines are unread again: the next pass offers them." in result.stderr
    assert rev(acme, "HEAD") == head
    assert git(acme.root, "branch", "--list", REVIEW) == ""
    assert git(acme.root, "status", "--porcelain") == ""  # the records went to the git dir
    entry = json.loads(invoke(acme, "log", "--json").stdout)[0]
    assert entry["review"] == "rejected"
    again = review_pass(acme, fake_model, promote_reply(OLDER))
    assert again["offered"] == ["2026-11-28#1", "2026-11-29#1", "2026-11-29#2", "2026-11-29#3"]


def test_review_commands_with_nothing_waiting(acme: Project) -> None:
    for args in (("review",), ("review", "accept"), ("review", "reject")):
        result = invoke(acme, *args)
        assert result.exit_code == 0 and "Nothing waits for review." in result.stderr


def test_review_decisions_reach_the_prompt_as_a_short_summary(acme: Project, fake_model: FakeModel) -> None:
    """A rejected page creation and an accepted append are counted per kind and shown to the model;
    nothing is accepted or rejected by itself."""
    review_pass(acme, fake_model, {"operations": [
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]},
    ]})
    assert "review decisions" not in fake_model.prompt  # nothing decided yet
    assert invoke(acme, "review", "reject").exit_code == 0
    with (acme.journal / "2026-11-30.md").open("a") as fh:
        fh.write("Acme wants export before January\n")
    review_pass(acme, fake_model, {"operations": [
        {"op": "append", "page": "pricing", "text": "Acme wants export before January.\n", "lines": ["2026-11-30#1"]},
    ]})
    assert invoke(acme, "review", "accept").exit_code == 0

    assert review.review_waiting(acme.root) is None
    from gitgarden.history.passlog import review_decisions

    assert review_decisions(acme.root) == {"new pages": (0, 1), "appends": (1, 1)}
    with (acme.journal / "2026-11-30.md").open("a") as fh:
        fh.write("Dana joined Acme as ops lead\n")
    review_pass(acme, fake_model, dana_reply() | {"operations": [
        {"op": "create_page", "page": "dana", "title": "Dana", "body": "Dana joined Acme as ops lead.\n", "lines": ["2026-11-30#2"]},
    ]})
    assert "new pages: 0 of 1 accepted; appends: 1 of 1 accepted" in fake_model.prompt
    assert review.review_waiting(acme.root) is not None  # the third pass still waits for the person
