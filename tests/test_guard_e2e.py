"""A scripted model that tries everything the rules forbid: each attempt is refused, the rest lands."""

from __future__ import annotations

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.project import Project
from tests.conftest import FIXED_LOG, FIXED_NOW, FakeModel, commit_all, git, page, write

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
        {"op": "create_page", "page": "ops", "title": "Operations", "body": "Dana Reyes runs [[nowhere]] operations.\n", "lines": [LINE]},  # dangling link
        {"op": "append", "page": "plain", "text": "Dana Reyes runs the bakery's operations. " * 200, "lines": [LINE]},  # over budget
        {"op": "create_page", "page": "dana-reyes", "title": "Dana Reyes", "body": "Dana Reyes runs the bakery's operations.\n", "lines": [LINE]},  # the good one
        {"op": "set_state", "page": "dana-reyes", "state": "decided", "evidence": "Dana Reyes runs the bakery's operations", "lines": [LINE]},  # new page decided
    ]
    fake_model.enqueue({"operations": attempts}).enqueue({"operations": []})  # shown its refusals, it corrects nothing
    result = run_pass(project, Settings(model="fake/scripted"), model=fake_model, now=lambda: FIXED_NOW)

    assert result.outcome == "some_refused", result.refusals
    assert result.created == ["wiki/dana-reyes.md"]
    assert len(result.refusals) >= 9
    dana = (project.root / "wiki/dana-reyes.md").read_text()
    assert "state: open" in dana  # a new page starts open; "decided" was refused
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
