"""A scripted model that tries everything the rules forbid: each attempt is refused, the rest lands."""

from __future__ import annotations

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.project import Project
from tests.helpers.project import FIXED_LOG, FIXED_NOW, FakeModel, commit_all, git, page, write

LINE = "2026-11-29#1"


def test_every_forbidden_attempt_is_refused_and_the_good_operation_lands(project: Project, fake_model: FakeModel) -> None:
    acme = page("Acme", "Acme signed the pilot contract.\n", source="[2026-11-28]")
    write(project.root, "wiki/acme.md", acme)
    write(project.root, "wiki/plain.md", page("Plain", "A page without headings.\n", source="[2026-11-28]"))
    write(project.root, "raw/journal/2026-11-28.md", "Acme signed the pilot contract\n")
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[acme]]\n- [[plain]]\n\n## Open\n")
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "Dana Reyes runs the bakery's operations\n")
    agents_before = (project.root / "AGENTS.md").read_bytes()
    attempts = [
        {"op": "delete_page", "page": "acme", "lines": [LINE]},                                             # delete
        {"op": "replace", "page": "acme", "text": "Acme never signed.", "lines": [LINE]},                   # reword
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme never signed anything.\n", "lines": [LINE]},  # overwrite
        {"op": "rename", "page": "acme", "to": "acme-corp", "lines": [LINE]},                               # rename
        {"op": "append", "page": "../AGENTS", "text": "Dana Reyes runs operations.\n", "lines": [LINE]},   # AGENTS.md
        {"op": "create_page", "page": "../outside", "title": "Out", "body": "Dana Reyes.\n", "lines": [LINE]},  # outside
        {"op": "create_page", "page": "Dana Reyes", "title": "Dana Reyes", "body": "Dana Reyes runs operations.\n", "lines": [LINE]},  # non-slug
        {"op": "create_page", "page": "ops", "title": "Operations", "body": "Dana Reyes runs the bakery's [[operations]].\n", "lines": [LINE]},  # dangling link
        {"op": "append", "page": "plain", "text": "Dana Reyes runs the bakery's operations. " * 200, "lines": [LINE]},  # over budget
        {"op": "create_page", "page": "dana-reyes", "title": "Dana Reyes", "body": "Dana Reyes runs the bakery's operations.\n", "lines": [LINE]},  # the good one
        {"op": "set_state", "page": "dana-reyes", "state": "decided", "evidence": "We decided Dana runs it", "lines": [LINE]},  # decided, quoting nothing
    ]
    fake_model.enqueue({"operations": attempts}).enqueue({"operations": []})  # shown its refusals, it corrects nothing
    result = run_pass(project, Settings(model="fake/scripted"), model=fake_model, now=lambda: FIXED_NOW)

    assert result.outcome == "some_refused", result.refusals
    assert result.created == ["wiki/dana-reyes.md"]
    assert len(result.refusals) >= 9
    # Each attempt is refused for its own reason: six by the reply's check before any file is
    # written (no such operation, no such page, not a page name), four by the guard's rules.
    expected = [
        "operations[0] (delete_page): unknown operation 'delete_page'",
        "operations[1] (replace): unknown operation 'replace'",
        # never an overwrite: the page exists, so its body is judged as an append, and it is not grounded
        "create_page acme: rule 11 (grounded) wiki/acme.md: sentence grounded 0.33 < 0.60; not in the cited lines or the title: never, signed",
        "operations[3] (rename): unknown operation 'rename'",
        "append ../AGENTS: page '../AGENTS' does not exist",
        "operations[5] (create_page): operations[5].page '../outside' does not match",
        "operations[6] (create_page): operations[6].page 'Dana Reyes' does not match",
        "create_page ops: rule 8 (links-resolve) wiki/ops.md: the link [[operations]] points to no page",
        "append plain: rule 9 (budgets) wiki/plain.md: it ends at 8293 characters, over the page budget of 6000",
        "set_state dana-reyes: rule 7 (valid-page) wiki/dana-reyes.md: a new page is open: 'state: decided'",
    ]
    assert len(result.refusals) == len(expected), result.refusals
    for reason in expected:
        assert sum(r.startswith(reason) for r in result.refusals) == 1, (reason, result.refusals)
    dana = (project.root / "wiki/dana-reyes.md").read_text()
    assert "state: open" in dana  # a new page starts open: "decided" needs a journal line quoted word for word
    text = (project.root / "wiki/acme.md").read_text()
    assert text.startswith(acme)  # nothing of the page was lost or reworded
    assert "never signed" not in text
    assert (project.root / "AGENTS.md").read_bytes() == agents_before
    assert not (project.root / "outside.md").exists() and not (project.root.parent / "outside.md").exists()
    assert not (project.root / "wiki/Dana Reyes.md").exists() and not (project.root / "wiki/ops.md").exists()
    assert len((project.root / "wiki/plain.md").read_text()) < 6000
    changed = set(git(project.root, "show", "--name-only", "--format=", "HEAD").split())
    assert changed <= {"wiki/dana-reyes.md", "wiki/index.md", "wiki/acme.md", FIXED_LOG, ".gitgarden/set-aside.json"}
    assert not (project.root / ".gitgarden/read.json").exists()  # refused operations cite the line: it stays unread
