"""Review one pass at a time: `review accept PASS` and `review reject PASS` decide on one waiting pass
and leave the others waiting, put back on top; a pass that needs another still waiting is refused."""

from __future__ import annotations

import json
from typing import Any

import git as gitpython
import pytest

from gitgarden.history import review
from gitgarden.history.passlog import passes, review_decisions
from gitgarden.project import Project
from tests.helpers.project import (
    FIXED_LOG,
    FakeModel,
    commit_all,
    git,
    invoke,
    page,
    workspace,
    write,
)

REVIEW = "gitgarden/review"


def op_create(name: str, title: str, body: str, line: str) -> dict[str, Any]:
    return {"op": "create_page", "page": name, "title": title, "body": body, "lines": [line]}


@pytest.fixture
def three(project: Project, fake_model: FakeModel) -> tuple[Project, list[str]]:
    """Review mode; three passes wait: A makes `acme`, B makes `dana`, C appends to A's `acme`."""
    root = project.root
    write(root, ".gitgarden/config.toml", "review = true\n")
    write(root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    write(root, "raw/journal/2026-11-28.md", "Acme signed the pilot contract\nbought coffee\n")
    write(root, "raw/journal/2026-11-29.md", "Dana joined as ops lead\n")
    write(root, "raw/journal/2026-11-30.md", "Acme pays by invoice\n")
    commit_all(root)
    # Each pass cites only its own lines: the others stay unread for the next one, and the branch
    # the passes fork from never moves.
    ids = [
        run(project, fake_model, [op_create("acme", "Acme", "Acme signed the pilot contract.\n", "2026-11-28#1"), {"op": "skip", "lines": ["2026-11-28#2"]}])
    ]
    ids.append(run(project, fake_model, [op_create("dana", "Dana", "Dana joined as ops lead.\n", "2026-11-29#1")]))
    ids.append(run(project, fake_model, [{"op": "append", "page": "acme", "text": "Acme pays by invoice.\n", "lines": ["2026-11-30#1"]}]))
    return project, ids


def run(project: Project, model: FakeModel, ops: list[dict[str, Any]]) -> str:
    result = invoke(project, "run", "--json", model=model.enqueue({"operations": ops}))
    data = json.loads(result.stdout)
    assert data["outcome"] == "pages_written", data
    return str(data["pass_id"])


def rev(project: Project, name: str) -> str:
    return git(project.root, "rev-parse", name).strip()


def waiting(project: Project) -> list[str]:
    """The waiting pass ids, oldest first."""
    return [e.pass_id for e in reversed(passes(project.root)) if e.review == "waiting"]


def chain(project: Project) -> list[str]:
    """The pass ids of the review branch's commits, oldest first."""
    repo = gitpython.Repo(project.root)
    return [c.trailers_dict["Gardener-Pass"][0] for c in reversed(list(repo.iter_commits(f"HEAD..{REVIEW}")))]


def test_accepting_the_oldest_pass_fast_forwards_to_its_own_commit(three: tuple[Project, list[str]]) -> None:
    project, (a, b, c) = three
    tip = rev(project, REVIEW)
    first = gitpython.Repo(project.root).commit(tip).parents[0].parents[0].hexsha
    assert gitpython.Repo(project.root).commit(first).parents[0].hexsha == rev(project, "HEAD")

    result = invoke(project, "review", "accept", a, "--json")

    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["kind"] == "fast-forward" and out["passes"] == [a] and out["waiting"] == [b, c]
    assert rev(project, "HEAD") == out["commit"] == first
    assert rev(project, REVIEW) == tip  # the others stand as they were
    assert (project.root / "wiki/acme.md").read_text().endswith("Acme signed the pilot contract.\n")
    assert not (project.root / "wiki/dana.md").exists()
    assert waiting(project) == [b, c]
    assert git(project.root, "status", "--porcelain") == ""


def test_accepting_a_later_pass_brings_only_it_in_and_puts_the_others_back(three: tuple[Project, list[str]]) -> None:
    project, (a, b, c) = three
    head = rev(project, "HEAD")

    result = invoke(project, "review", "accept", b)

    assert result.exit_code == 0, result.output
    assert f"Accepted pass {b}" in result.stderr and "2 pass(es) still wait" in result.stderr
    repo = gitpython.Repo(project.root)
    new = repo.commit("HEAD")
    assert new.parents[0].hexsha == head
    assert new.trailers_dict["Gardener-Pass"] == [b] and new.author.email == "gitgarden@localhost"
    assert set(new.stats.files) == {"wiki/dana.md", "wiki/index.md", ".gitgarden/read.json", FIXED_LOG}
    assert (project.root / "wiki/dana.md").exists() and not (project.root / "wiki/acme.md").exists()
    index = (project.root / "wiki/index.md").read_text()
    assert "[[dana]]" in index and "[[acme]]" not in index
    read = json.loads((project.root / ".gitgarden/read.json").read_text())
    assert set(read) == {"2026-11-29"}  # only B's line is read on the branch; A's and C's wait with them
    # A and C wait on top of the new branch, in their order, and still hold what they wrote.
    assert chain(project) == [a, c] and waiting(project) == [a, c]
    assert repo.git.show(f"{REVIEW}:wiki/acme.md").endswith("Acme signed the pilot contract.\n\nAcme pays by invoice.")
    assert "[[acme]]" in repo.git.show(f"{REVIEW}:wiki/index.md") and "[[dana]]" in repo.git.show(f"{REVIEW}:wiki/index.md")
    # log: B is on the branch now, no longer waiting; its record is there once.
    entries = {e.pass_id: e for e in passes(project.root)}
    assert entries[b].review == "" and entries[b].commit == new.hexsha
    ids = [json.loads(line).get("pass_id") for line in (project.root / FIXED_LOG).read_text().splitlines()]
    assert ids.count(b) == 1 and a not in ids
    # The rest can be accepted afterwards, all at once.
    assert invoke(project, "review", "accept").exit_code == 0
    assert (project.root / "wiki/acme.md").read_text().endswith("Acme pays by invoice.\n")
    assert waiting(project) == []


def test_a_pass_that_needs_an_earlier_waiting_pass_is_refused_and_nothing_changes(three: tuple[Project, list[str]]) -> None:
    project, (a, _b, c) = three
    head, tip, files = rev(project, "HEAD"), rev(project, REVIEW), workspace(project.root)

    result = invoke(project, "review", "accept", c)

    assert result.exit_code == 1
    assert f"pass {c} builds on pass {a}" in result.stderr and "wiki/acme.md" in result.stderr
    assert "accept those first" in result.stderr
    assert (rev(project, "HEAD"), rev(project, REVIEW)) == (head, tip)
    assert workspace(project.root) == files


def test_rejecting_a_pass_another_builds_on_is_refused_and_nothing_changes(three: tuple[Project, list[str]]) -> None:
    project, (a, _b, c) = three
    head, tip, files = rev(project, "HEAD"), rev(project, REVIEW), workspace(project.root)

    result = invoke(project, "review", "reject", a)

    assert result.exit_code == 1
    assert f"rejecting pass {a} would leave pass {c} with nothing to build on" in result.stderr
    assert (rev(project, "HEAD"), rev(project, REVIEW)) == (head, tip)
    assert workspace(project.root) == files


def test_rejecting_one_pass_drops_only_it_and_its_lines_stay_read(three: tuple[Project, list[str]], fake_model: FakeModel) -> None:
    project, (a, b, c) = three
    head = rev(project, "HEAD")

    result = invoke(project, "review", "reject", b, "--keep-read", "--json")

    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["passes"] == [b] and out["waiting"] == [a, c] and not out["reread"]
    repo = gitpython.Repo(project.root)
    commit = repo.commit("HEAD")
    assert commit.parents[0].hexsha == head and commit.author.email == "pat@example.com"
    assert commit.trailers_dict["Gardener-Rejects"] == [b]
    assert json.loads((project.root / ".gitgarden/read.json").read_text()) == {"2026-11-29": json.loads(repo.git.show(f"{out['dropped_tip']}:.gitgarden/read.json"))["2026-11-29"]}
    assert chain(project) == [a, c]
    assert "dana" not in repo.git.show(f"{REVIEW}:wiki/index.md")
    assert "wiki/dana.md" not in repo.git.ls_tree("-r", "--name-only", REVIEW).split()
    entries = {e.pass_id: e for e in passes(project.root)}
    assert entries[b].review == "rejected" and [entries[a].review, entries[c].review] == ["waiting", "waiting"]
    assert git(project.root, "status", "--porcelain") == ""
    # B's line stays read; the others still wait with their passes: nothing is offered again.
    again = invoke(project, "run", "--json", model=fake_model)
    assert json.loads(again.stdout)["outcome"] == "nothing_new"
    # The per-kind figures the prompt learns from count B as rejected once the rest is accepted.
    assert invoke(project, "review", "accept").exit_code == 0
    assert review_decisions(project.root)["new pages"] == (1, 2)
    assert (project.root / "wiki/acme.md").read_text().endswith("Acme pays by invoice.\n")
    assert not (project.root / "wiki/dana.md").exists()


def test_rejecting_the_newest_pass_with_reread_gives_back_only_its_lines(three: tuple[Project, list[str]], fake_model: FakeModel) -> None:
    project, (a, b, c) = three
    head = rev(project, "HEAD")

    result = invoke(project, "review", "reject", c, "--reread")

    assert result.exit_code == 0, result.output
    assert f"Dropped pass {c}; 2 pass(es) still wait" in result.stderr
    assert rev(project, "HEAD") == head and git(project.root, "status", "--porcelain") == ""
    assert chain(project) == [a, b]
    again = invoke(project, "run", "--json", model=fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-30#1"]}]}))
    assert json.loads(again.stdout)["offered"] == ["2026-11-30#1"]


def test_a_pass_that_does_not_wait_is_refused_in_one_line(three: tuple[Project, list[str]]) -> None:
    project, (a, _b, _c) = three
    assert invoke(project, "review", "accept", a).exit_code == 0
    for verb in ("accept", "reject"):
        result = invoke(project, "review", verb, a)
        assert result.exit_code == 1
        assert result.stderr.strip() == f"gitgarden: pass {a} does not wait for review (it is not on the review branch); nothing changed"
    result = invoke(project, "review", "accept", "nonesuch")
    assert result.exit_code == 1 and "cannot accept 'nonesuch'" in result.stderr


def test_accepting_one_pass_after_the_branch_moved_makes_a_commit_on_top(three: tuple[Project, list[str]]) -> None:
    project, (a, b, c) = three
    write(project.root, "notes/todo.md", "the person's later work\n")
    commit_all(project.root, "later work")
    moved = rev(project, "HEAD")

    out = review.accept(project.root, a)

    assert out is not None and out.kind == "commit" and out.waiting == [b, c]
    assert gitpython.Repo(project.root).commit("HEAD").parents[0].hexsha == moved
    assert (project.root / "notes/todo.md").exists() and (project.root / "wiki/acme.md").exists()
    assert chain(project) == [b, c]


def test_a_pass_linking_to_a_page_only_a_waiting_pass_made_is_refused(three: tuple[Project, list[str]], fake_model: FakeModel) -> None:
    project, (a, b, _c) = three
    with (project.journal / "2026-11-30.md").open("a") as fh:
        fh.write("Dana met the Acme team\n")
    commit_all(project.root, "journal")
    e = run(project, fake_model, [{"op": "append", "page": "dana", "text": "Dana met the team at [[acme]].\n", "lines": ["2026-11-30#2"]}])
    assert invoke(project, "review", "accept", b).exit_code == 0  # dana is on the branch now; acme still waits
    head, tip, files = rev(project, "HEAD"), rev(project, REVIEW), workspace(project.root)

    result = invoke(project, "review", "accept", e)

    assert result.exit_code == 1
    assert f"pass {e} links to pages your branch does not have: dana -> [[acme]]" in result.stderr
    assert f"pass {a}" in result.stderr  # the one still waiting that makes it
    assert (rev(project, "HEAD"), rev(project, REVIEW)) == (head, tip) and workspace(project.root) == files
    # Rejecting the pass that makes the page is refused too: the later one would link to nothing.
    result = invoke(project, "review", "reject", a)
    assert result.exit_code == 1 and "would leave pass" in result.stderr
    assert (rev(project, "HEAD"), rev(project, REVIEW)) == (head, tip)
