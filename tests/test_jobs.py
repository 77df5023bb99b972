"""`gitgarden run --job NAME`: a pass runs only the jobs named, in a fixed order, each with its figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitgarden.gardener.pipeline import JOBS, PassResult
from gitgarden.gardener.setaside import on_disk
from gitgarden.project import Project
from tests.helpers import project as helpers
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

REPO = Path(__file__).resolve().parents[1]
LINES = ("Acme signed the pilot contract at our Pricing", "bought coffee")


def garden(project: Project, model: FakeModel | None, jobs: list[str] | None) -> PassResult:
    """helpers.project's garden running only `jobs` (None: every job), named by position."""
    return helpers.garden(project, model, jobs=jobs)


@pytest.fixture
def wiki(project: Project) -> Project:
    """Pricing (the person's), helpdesk (the gardener's) and notes (the person's) both naming Pricing
    unlinked, vendors (the gardener's) which the map does not list; two unread journal lines."""
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n- [[helpdesk]] — Helpdesk\n- [[notes]] — Notes\n\n## Open\n")
    write(project.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n"))
    write(project.root, "wiki/helpdesk.md", page("Helpdesk", "Questions about Pricing go to Sam.\n", gardener=True))
    write(project.root, "wiki/notes.md", page("Notes", "Pricing came up at lunch.\n"))
    write(project.root, "wiki/vendors.md", page("Vendors", "We buy paper from Papyro.\n", gardener=True))
    commit_all(project.root)
    write(project.root, "raw/journal/2026-11-29.md", "".join(f"{line}\n" for line in LINES))
    return project


def promote_reply() -> dict[str, object]:
    return {
        "operations": [
            {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract at our Pricing.\n", "lines": ["2026-11-29#1"]},
            {"op": "skip", "lines": ["2026-11-29#2"]},
        ]
    }


def last_record(project: Project) -> dict[str, object]:
    return json.loads((project.root / FIXED_LOG).read_text().splitlines()[-1])


def trailer(project: Project, key: str) -> str:
    return git(project.root, "log", "-1", f"--format=%(trailers:key=Gardener-{key},valueonly)").strip()


def assert_journal_left_alone(project: Project) -> None:
    assert not (project.root / ".gitgarden/read.json").exists()
    assert [ln.text for ln in on_disk(project.root)[0]] == list(LINES)  # both lines still unread
    assert "raw/journal" in git(project.root, "status", "--porcelain")  # no journal commit was made


def test_the_map_job_lists_an_unlisted_page_and_never_asks_the_model(wiki: Project, fake_model: FakeModel) -> None:
    result = garden(wiki, fake_model, ["map"])  # no reply is enqueued: a model call would fail the pass

    assert result.outcome == "tidied", (result.detail, result.refusals)
    assert fake_model.history == []
    assert result.offered == [] and result.marked_read == 0
    assert "- [[vendors]] — Vendors" in (wiki.root / "wiki/index.md").read_text()
    assert "[[" not in (wiki.root / "wiki/helpdesk.md").read_text()  # the link job did not run
    assert_journal_left_alone(wiki)
    assert result.jobs == ["map"]
    assert result.job_figures == {"map": {"entries": 1}}
    assert trailer(wiki, "Jobs") == "map"
    assert trailer(wiki, "Model") == "none"
    record = last_record(wiki)
    assert record["jobs"] == ["map"] and record["job_figures"] == {"map": {"entries": 1}}
    assert result.sentence == "tidied (jobs: map); the journal left unread"


def test_the_link_job_wraps_mentions_in_the_gardeners_pages_only(wiki: Project, fake_model: FakeModel) -> None:
    notes_before = (wiki.root / "wiki/notes.md").read_bytes()
    map_before = (wiki.root / "wiki/index.md").read_bytes()

    result = garden(wiki, fake_model, ["link"])

    assert result.outcome == "tidied", (result.detail, result.refusals)
    assert fake_model.history == []
    assert "[[pricing" in (wiki.root / "wiki/helpdesk.md").read_text().lower()
    assert (wiki.root / "wiki/notes.md").read_bytes() == notes_before  # the person's page is theirs
    assert (wiki.root / "wiki/index.md").read_bytes() == map_before  # the map job did not run
    assert result.job_figures == {"link": {"pages": 1}}
    assert result.tidied == ["wiki/helpdesk.md"]
    assert_journal_left_alone(wiki)
    # Run again: nothing left to link, nothing written, no commit.
    head = git(wiki.root, "rev-parse", "HEAD")
    again = garden(wiki, fake_model, ["link"])
    assert again.outcome == "nothing_new" and git(wiki.root, "rev-parse", "HEAD") == head


def test_the_promote_job_promotes_and_maps_only_the_pages_it_created(wiki: Project, fake_model: FakeModel) -> None:
    result = garden(wiki, fake_model.enqueue(promote_reply()), ["promote"])

    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert result.marked_read == 2
    acme = (wiki.root / "wiki/acme.md").read_text()
    assert "[[" not in acme  # no link job: "Pricing" stays as written
    assert "[[" not in (wiki.root / "wiki/helpdesk.md").read_text()
    index = (wiki.root / "wiki/index.md").read_text()
    assert "[[acme]]" in index  # a page the pass created is never left where the map does not reach
    assert "[[vendors]]" not in index  # the map job's own work waits for it
    assert result.jobs == ["promote"]
    assert result.job_figures == {"promote": {"offered": 2, "read": 2, "created": 1, "appended": 0, "refused": 0}}
    assert trailer(wiki, "Jobs") == "promote"
    assert result.health_after == {}  # the health job did not run: no figures, no Health trailer
    assert trailer(wiki, "Health") == ""


def test_a_full_pass_runs_every_job_and_says_nothing_about_jobs(wiki: Project, fake_model: FakeModel) -> None:
    result = garden(wiki, fake_model.enqueue(promote_reply()), None)

    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert result.jobs == list(JOBS)
    assert set(result.job_figures) == set(JOBS)
    assert result.job_figures["map"]["entries"] == 2  # acme and vendors
    assert result.job_figures["link"]["pages"] >= 1
    assert "[[vendors]]" in (wiki.root / "wiki/index.md").read_text()
    assert trailer(wiki, "Jobs") == ""
    assert trailer(wiki, "Health") != ""
    assert last_record(wiki)["jobs"] == list(JOBS)


def test_jobs_run_in_the_fixed_order_whatever_order_they_are_named(wiki: Project) -> None:
    result = garden(wiki, None, ["health", "map", "link"])

    assert result.jobs == ["link", "map", "health"]
    assert trailer(wiki, "Jobs") == "link, map, health"
    assert set(result.job_figures) == {"link", "map", "health"}
    assert result.job_figures["health"]["unread_lines"] == 2  # counted, though not read
    assert_journal_left_alone(wiki)


def test_the_cli_runs_the_named_jobs_and_show_lists_them(wiki: Project, fake_model: FakeModel) -> None:
    done = invoke(wiki, "run", "--job", "map", "--job", "link", model=fake_model)

    assert done.exit_code == 0, done.output
    assert "jobs: link, map" in done.output
    assert "map: entries 1" in done.output
    assert fake_model.history == []
    shown = invoke(wiki, "show")
    assert "jobs:     link, map" in shown.output
    assert "  link: pages 1" in shown.output
    as_json = json.loads(invoke(wiki, "show", "--json").output)
    assert as_json["record"]["jobs"] == ["link", "map"]
    assert as_json["record"]["job_figures"]["map"] == {"entries": 1}


def test_an_unknown_job_is_a_usage_error_and_changes_nothing(wiki: Project) -> None:
    before = workspace(wiki.root)

    done = invoke(wiki, "run", "--job", "prune")

    assert done.exit_code == 2
    assert "Invalid value for '--job'" in done.output
    assert workspace(wiki.root) == before


def test_the_merge_job_alone_says_where_merges_come_from(wiki: Project, fake_model: FakeModel) -> None:
    before = workspace(wiki.root)

    done = invoke(wiki, "run", "--job", "merge", model=fake_model)

    assert done.exit_code == 0, done.output
    assert "Merges are proposed by the model in the promote job" in done.output
    assert fake_model.history == []
    assert workspace(wiki.root) == before


def test_the_health_job_alone_reports_and_writes_nothing(wiki: Project) -> None:
    before = workspace(wiki.root)
    head = git(wiki.root, "rev-parse", "HEAD")

    done = invoke(wiki, "run", "--job", "health", "--json")

    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    assert record["jobs"] == ["health"]
    assert record["job_figures"]["health"]["unmapped"] == 1  # vendors
    assert record["job_figures"]["health"]["unread_lines"] == 2
    assert workspace(wiki.root) == before
    assert git(wiki.root, "rev-parse", "HEAD") == head


def test_model_free_jobs_never_import_the_model_library(wiki: Project) -> None:
    code = (
        "import json, sys\n"
        "from gitgarden.cli.main import App, cli\n"
        "try:\n"
        "    cli.main(['run', '--job', 'split', '--job', 'hubs', '--job', 'link', '--job', 'map', '--job', 'merge',"
        " '--job', 'health'], obj=App(), standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'gitgarden', 'openai'))))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "GITGARDEN_MODEL": "openai/never-called",  # a model is configured: only the jobs keep it away
        "GITGARDEN_API_BASE": "http://127.0.0.1:9/v1",
    }
    done = subprocess.run([sys.executable, "-c", code], cwd=wiki.root, env=env, capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr[-2000:]
    modules = json.loads(done.stdout.splitlines()[-1])
    assert "gitgarden.gardener.pipeline" in modules, "the pass did not run: the check would be vacuous"
    assert "[[vendors]]" in (wiki.root / "wiki/index.md").read_text()  # it ran and wrote
    assert not [m for m in modules if m.split(".")[0] in ("litellm", "openai")]
    assert_journal_left_alone(wiki)


def test_a_job_without_promote_leaves_the_set_aside_lines_as_they_are(wiki: Project, fake_model: FakeModel) -> None:
    from gitgarden.gardener import setaside
    from gitgarden.wiki import journal

    line = journal.all_lines(wiki.journal)[1]
    entry = setaside.Entry(line.day, line.key, line.id, line.text, setaside.STRIKES, setaside.REFUSED, "refused", "earlier-pass")
    write(wiki.root, setaside.SET_ASIDE_PATH, setaside.render({entry.ident: entry}))
    commit_all(wiki.root, "a line set aside")
    before = (wiki.root / setaside.SET_ASIDE_PATH).read_bytes()

    result = garden(wiki, fake_model, ["map", "link"])

    assert result.outcome == "tidied", (result.detail, result.refusals)
    assert result.set_aside == []
    assert (wiki.root / setaside.SET_ASIDE_PATH).read_bytes() == before
    assert [e.line for _, e in on_disk(wiki.root)[1]] == [line.id]
    assert setaside.SET_ASIDE_PATH not in git(wiki.root, "show", "--name-only", "--format=", "HEAD")
