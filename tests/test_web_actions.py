"""What `gitgarden serve` changes, through the framework's test client: each change is the command
line's own (capture, undo, review accept/reject of one pass, run, stop), under the same lock."""

from __future__ import annotations

import json
import time
from typing import Any

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.history.passlog import passes
from gitgarden.project import Project
from gitgarden.repo.lock import PassLock
from gitgarden.services.views import journal_day
from tests.helpers.project import FIXED_NOW, FakeModel, capture, git, invoke, workspace, write
from tests.helpers.web_client import client, created, form

SETTINGS = Settings(model="fake/scripted")


def pass_with(project: Project, *ops: dict[str, object], settings: Settings = SETTINGS) -> str:
    result = run_pass(project, settings, model=FakeModel().enqueue({"operations": list(ops)}), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written", (result.refusals, result.detail)
    return result.pass_id


def note_of(c: Any, response: Any) -> str:
    """The one-line message the page a POST redirected to shows."""
    assert response.status_code == 303, response.text[:300]
    page = c.get(response.headers["location"]).text
    start = page.index('<p class="note" role="status">') + len('<p class="note" role="status">')
    return page[start : page.index("</p>", start)]


def test_capture_appends_to_todays_journal_as_the_command_does(project: Project) -> None:
    c = client(project)
    r = c.post("/journal/capture", data=form(text="Acme signed the pilot contract\n\n  Dana starts Monday  \n"), follow_redirects=False)
    assert r.headers["location"].startswith("/journal/2026-11-30")
    assert note_of(c, r) == "Captured 2 line(s) in raw/journal/2026-11-30.md (not committed: the next pass reads them)."
    by_web = (project.journal / "2026-11-30.md").read_bytes()
    (project.journal / "2026-11-30.md").unlink()
    assert invoke(project, "capture", "Acme signed the pilot contract\n\n  Dana starts Monday  \n").exit_code == 0
    assert (project.journal / "2026-11-30.md").read_bytes() == by_web
    assert git(project.root, "status", "--porcelain", "--", "raw") == "?? raw/journal/2026-11-30.md\n"  # never committed
    r = c.post("/journal/capture", data=form(text="  \n"))
    assert r.status_code == 409 and "nothing to capture" in r.text


def test_undo_does_what_gitgarden_undo_does_and_refuses_on_overlap(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    first = pass_with(project, created("acme", "Acme", "Acme is the pilot customer.\n", "2026-11-28#1"))
    capture(project, "2026-11-29", "Acme wants export before January")
    second = pass_with(project, {"op": "append", "page": "acme", "text": "Acme wants export before January.\n", "lines": ["2026-11-29#1"]})
    c = client(project)
    # The page's own text was reworded since the first pass wrote it: undo refuses, nothing changes.
    path = project.root / "wiki/acme.md"
    path.write_text(path.read_text().replace("Acme is the pilot customer.", "Acme is our pilot customer."))
    git(project.root, "commit", "-qam", "person rewords")
    before, head = workspace(project.root), git(project.root, "rev-parse", "HEAD")
    r = c.post(f"/pass/{first}/undo", data=form())
    assert r.status_code == 409 and f"changes made since pass {first} overlap what it wrote" in r.text
    assert workspace(project.root) == before and git(project.root, "rev-parse", "HEAD") == head
    # The second pass can be undone: its paragraph leaves the page, the lines come back with reread.
    r = c.post(f"/pass/{second}/undo", data=form(reread="1"), follow_redirects=False)
    assert note_of(c, r).startswith(f"Undid pass {second} in commit ")
    assert "export before January" not in path.read_text() and "our pilot customer" in path.read_text()
    entry = next(e for e in passes(project.root) if e.pass_id == second)
    assert entry.undone_by == git(project.root, "rev-parse", "HEAD").strip()
    assert "Gardener-Undoes: " + second in git(project.root, "log", "-1", "--format=%B")
    r = c.post(f"/pass/{second}/undo", data=form())
    assert r.status_code == 409 and "was already undone" in r.text


def test_an_undo_waits_for_no_pass_it_is_refused_while_one_holds_the_lock(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    pass_id = pass_with(project, created("acme", "Acme", "Acme is the pilot customer.\n", "2026-11-28#1"))
    before = workspace(project.root)
    with PassLock(project.root / ".git", {"pass_id": "20261130T090000Z-busy", "started": "now"}):
        r = client(project).post(f"/pass/{pass_id}/undo", data=form())
    assert r.status_code == 409 and "pass 20261130T090000Z-busy" in r.text and "try again when it has finished" in r.text
    assert workspace(project.root) == before


def test_review_accepts_one_pass_and_rejects_another(project: Project) -> None:
    write(project.root, ".gitgarden/config.toml", "review = true\n")
    capture(project, "2026-11-28", "Acme is the pilot customer", "Dana joined as ops lead")
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "journal")
    review = Settings(model="fake/scripted", review=True)
    acme = pass_with(project, created("acme", "Acme", "Acme is the pilot customer.\n", "2026-11-28#1"), settings=review)
    dana = pass_with(project, created("dana", "Dana", "Dana joined as ops lead.\n", "2026-11-28#2"), settings=review)
    c = client(project)
    page = c.get("/review").text
    assert page.index(acme) < page.index(dana)  # oldest first: the order they stack in
    assert '<a href="/page/dana">dana</a>' in page and '<a href="/page/acme">acme</a>' in page  # each pass's own diff
    r = c.post("/review/accept", data=form(**{"pass": dana}), follow_redirects=False)
    assert note_of(c, r) == f"Accepted pass {dana} (commit); 1 pass(es) still wait."
    assert (project.root / "wiki/dana.md").exists() and not (project.root / "wiki/acme.md").exists()
    r = c.post("/review/reject", data=form(**{"pass": acme}), follow_redirects=False)
    assert note_of(c, r) == f"Dropped pass {acme}; 0 pass(es) still wait. Their journal lines are unread again."
    assert not (project.root / "wiki/acme.md").exists()
    assert [(v.id, v.state) for v in journal_day(project, "2026-11-28")] == [("2026-11-28#1", "unread"), ("2026-11-28#2", "read")]
    states = {e.pass_id: e.review for e in passes(project.root)}
    assert states[acme] == "rejected" and states[dana] == ""
    assert "1 of 2 accepted" in c.get("/review").text  # the figures the prompt learns from
    r = c.post("/review/accept", data=form(**{"pass": acme}))
    assert r.status_code == 409 and "does not wait for review" in r.text


def wait_done(c: Any, run_url: str, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state: dict[str, Any] = c.get(run_url + "/status").json()
        if state["done"]:
            return state
        time.sleep(0.05)
    raise AssertionError("the pass started from the page did not end")


def test_a_pass_started_here_is_gitgarden_run_and_reports_its_steps(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    model = FakeModel().enqueue({"operations": [created("acme", "Acme", "Acme is the pilot customer.\n", "2026-11-28#1")]})
    c = client(project, model)
    r = c.post("/run/start", data=form(**{f"job-{j}": "1" for j in ("promote", "merge", "split", "hubs", "link", "map", "health")}), follow_redirects=False)
    run_url = r.headers["location"]
    state = wait_done(c, run_url)
    assert state["outcome"] == "pages_written" and not state["error"]
    words = [s["words"] for s in state["steps"]]
    assert any(w.startswith("asking fake/scripted") for w in words) and any(w.startswith("committing") for w in words)
    entry = passes(project.root)[0]
    assert entry.outcome == "pages_written" and entry.trigger == "run by Pat Person <pat@example.com>"
    assert (project.root / "wiki/acme.md").exists()
    shown = c.get(run_url).text
    assert f'href="/pass/{entry.pass_id}"' in shown and 'href="/page/acme"' in shown


def test_a_rehearsal_changes_nothing_and_shows_what_it_would_write(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    model = FakeModel().enqueue({"operations": [created("acme", "Acme", "Acme is the pilot customer.\n", "2026-11-28#1")]})
    c = client(project, model)
    before, head = workspace(project.root), git(project.root, "rev-parse", "HEAD")
    r = c.post("/run/start", data=form(dry_run="1", **{"job-promote": "1"}), follow_redirects=False)
    state = wait_done(c, r.headers["location"])
    assert state["outcome"] == "pages_written", state
    assert workspace(project.root) == before and git(project.root, "rev-parse", "HEAD") == head
    shown = c.get(r.headers["location"]).text
    assert "[rehearsal] pages would be written" in shown
    assert '<div class="add"><span class="sign">+</span>Acme is the pilot customer.</div>' in shown


def test_a_second_pass_is_refused_with_the_holder_named(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    c = client(project, FakeModel())
    with PassLock(project.root / ".git", {"pass_id": "20261130T090000Z-busy", "started": "2026-11-30T09:00:00+00:00"}):
        assert "20261130T090000Z-busy" in c.get("/run").text  # the panel names the holder, with Stop
        r = c.post("/run/start", data=form(), follow_redirects=False)
        state = wait_done(c, r.headers["location"])
        r = c.post("/run/stop", data=form(back="/run"), follow_redirects=False)
        assert note_of(c, r).startswith("Asked pass 20261130T090000Z-busy to stop")
    assert state["outcome"] == "refused" and "pass 20261130T090000Z-busy" in state["sentence"]
    assert json.loads((project.root / ".git/gitgarden/stop").read_text())["who"].endswith("(browser)")
    r = c.post("/run/stop", data=form(), follow_redirects=False)
    assert note_of(c, r) == "No pass is running: nothing to stop."
