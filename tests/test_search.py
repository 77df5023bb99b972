"""`gitgarden search`: the FTS5 index over pages and journal lines, kept current in the git dir."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.project import Project, init_project
from gitgarden.search import index
from gitgarden.search.index import SearchError, cache_path, search
from tests.helpers.project import (
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    git,
    invoke,
    page,
    write,
)


def pages_found(project: Project, query: str, limit: int = 20) -> list[str]:
    return [h.ref for h in search(project, query, limit=limit).hits if h.kind == "page"]


def test_the_page_about_a_thing_ranks_above_pages_that_mention_it_once(sample: Project) -> None:
    marta = pages_found(sample, "marta")
    assert marta[0] == "marta-okafor"
    for once in ("oven", "kessler-mill", "dana-reyes"):  # each says "Marta" once
        assert marta.index("marta-okafor") < marta.index(once)
    dana = pages_found(sample, "Dana")
    assert dana[0] == "dana-reyes"
    assert dana.index("dana-reyes") < dana.index("lease")


def test_a_result_has_its_path_a_marked_snippet_and_for_a_page_its_state_and_source_days(sample: Project) -> None:
    hits = search(sample, "oven", limit=20).hits
    oven = next(h for h in hits if h.kind == "page" and h.ref == "oven")
    assert (oven.path, oven.title, oven.state, oven.source) == ("wiki/oven.md", "Deck oven", "open", ("2026-11-25", "2026-11-26"))
    assert "**oven**" in oven.snippet
    line = next(h for h in hits if h.kind == "line" and h.ref == "2026-11-28#4")
    assert line.path == "raw/journal/2026-11-28.md"
    assert line.snippet == "Tomasz wants the three-phase line finished before 14 December, or the **oven** installation slips."
    assert hits == sorted(hits, key=lambda h: -h.score)


def test_a_phrase_finds_the_words_together_and_not_apart(sample: Project) -> None:
    write(sample.root, "raw/journal/2026-11-29.md", "the line was three-phase after all\n")
    ids = [h.ref for h in search(sample, '"three-phase line"').hits]
    assert "2026-11-28#4" in ids and "2026-11-26#2" in ids  # "...the three-phase line..."
    assert "2026-11-29#1" not in ids  # both words, not together
    assert "2026-11-29#1" in [h.ref for h in search(sample, "three-phase line").hits]  # as words: found


def test_a_prefix_finds_words_starting_so(sample: Project) -> None:
    assert pages_found(sample, "kess*")[0] == "kessler-mill"
    assert pages_found(sample, "kess") == []  # no word is just "kess"


def test_words_in_any_case_and_with_or_without_accents(project: Project) -> None:
    write(project.root, "wiki/notes.md", page("Notes", "Zoë runs the CAFÉ by the harbour.\n"))
    for query in ("cafe zoe", "CAFÉ ZOË", "Café", "zoe", "ZOË*", "Cafe HARBOUR"):
        assert pages_found(project, query) == ["notes"], query


def test_a_page_titled_so_ranks_above_one_that_says_the_word_more_often(project: Project) -> None:
    write(project.root, "wiki/tomasz.md", page("Tomasz", "Installs ovens; reachable on weekdays.\n"))
    write(project.root, "wiki/oven.md", page("Oven", "Tomasz looked at it. Tomasz says it fits. We paid Tomasz.\n"))
    assert pages_found(project, "tomasz") == ["tomasz", "oven"]


def test_a_page_edited_after_indexing_is_found_by_its_new_words_not_its_old_ones(sample: Project) -> None:
    assert "oven" in pages_found(sample, "MIWE")
    oven = sample.root / "wiki/oven.md"
    oven.write_text(oven.read_text().replace("MIWE", "Wiesheu"))
    assert "oven" not in pages_found(sample, "MIWE")
    assert pages_found(sample, "Wiesheu") == ["oven"]
    oven.unlink()
    assert pages_found(sample, "Wiesheu") == []  # a deleted page leaves the index


def test_a_line_captured_after_indexing_is_found(sample: Project) -> None:
    assert search(sample, "sourdough").hits == []
    capture(sample, "2026-11-29", "Sourdough starter fed at six")
    assert [h.ref for h in search(sample, "sourdough").hits] == ["2026-11-29#1"]


def test_the_index_lives_in_the_git_dir_and_a_deleted_one_is_rebuilt(sample: Project) -> None:
    search(sample, "oven")
    path = cache_path(sample)
    assert path == sample.root / ".git" / "gitgarden" / "search.sqlite" and path.is_file()
    assert git(sample.root, "status", "--porcelain") == ""  # nothing in the work tree
    path.unlink()
    found = search(sample, "oven")
    assert "oven" in [h.ref for h in found.hits] and found.notes == []
    assert path.is_file()


def test_a_corrupt_index_is_rebuilt_with_a_note(sample: Project) -> None:
    search(sample, "oven")
    cache_path(sample).write_bytes(b"this is no database" * 100)
    found = search(sample, "oven")
    assert "oven" in [h.ref for h in found.hits]
    assert len(found.notes) == 1 and "unreadable" in found.notes[0] and "rebuilt" in found.notes[0]
    assert search(sample, "oven").notes == []  # rebuilt for good


def test_an_index_with_its_tables_gone_is_rebuilt(sample: Project) -> None:
    search(sample, "oven")
    with sqlite3.connect(cache_path(sample)) as conn:
        conn.execute("DROP TABLE docs")
    found = search(sample, "oven")
    assert "oven" in [h.ref for h in found.hits]
    assert found.notes and "rebuilt" in found.notes[0]


def test_the_root_layout_finds_human_note_names_and_slugs_and_leaves_out_what_is_no_page(tmp_path: Path) -> None:
    vault = tmp_path / "Notes"
    write(vault, ".obsidian/app.json", "{}")
    write(vault, "Projects/Ridge Roofing.md", "Quote for the roof: 14,000 EUR.\n")
    write(vault, "Daily notes/2026-11-29.md", "Called Ridge Roofing about the gutters\n")
    write(vault, ".obsidian/snippets/ridge.md", "ridge in a hidden folder\n")
    write(vault, ".trash/Ridge old.md", "ridge in the trash\n")
    git(vault, "init", "-q")
    commit_all(vault, "my vault")
    root = init_project(vault).root
    project = Project(root)
    assert project.layout.at_root
    write(root, "raw/ridge.md", "ridge in raw\n")
    write(root, "log/ridge.md", "ridge in log\n")
    hits = search(project, "ridge", limit=50).hits
    assert [(h.kind, h.ref, h.path) for h in hits if h.kind == "page"] == [("page", "Projects/Ridge Roofing", "Projects/Ridge Roofing.md")]
    assert [(h.ref, h.path) for h in hits if h.kind == "line"] == [("2026-11-29#1", "Daily notes/2026-11-29.md")]
    assert pages_found(project, "ridge-roofing") == ["Projects/Ridge Roofing"]  # the slug finds the human name
    assert pages_found(project, "Ridge Roofing") == ["Projects/Ridge Roofing"]


def test_a_page_that_is_a_symlink_is_never_read(project: Project, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("the password is swordfish\n")
    os.symlink(secret, project.root / "wiki" / "leak.md")
    assert search(project, "swordfish").hits == []


def test_an_alias_finds_its_page(project: Project) -> None:
    write(project.root, "wiki/dana-reyes.md", "---\ntitle: Dana Reyes\nstate: open\nsource: []\naliases: [DR, the partner]\n---\nRuns ops.\n")
    assert pages_found(project, "partner") == ["dana-reyes"]


def test_operators_in_capitals_and_a_query_fts5_rejects(sample: Project) -> None:
    assert set(pages_found(sample, "oven OR lease")) >= {"oven", "lease"}
    assert "oven" not in pages_found(sample, "tomasz NOT oven")
    found = search(sample, "OR oven")  # FTS5 refuses a leading OR: retried with the words as words
    assert found.notes and "taken as words" in found.notes[0]
    assert [h.ref for h in found.hits] == ["2026-11-28#4", "index"]  # the only texts with "or" and "oven"
    for odd in ("c++", "a:b", "NEAR(x", "(oven", '"unclosed phrase'):
        search(sample, odd)  # never an error
    with pytest.raises(SearchError, match="nothing to search for"):
        search(sample, ' " " ')


def test_no_fts5_is_one_clear_line(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(index, "FTS_MODULE", "fts5_not_built_in")  # what a Python without FTS5 answers
    with pytest.raises(SearchError) as caught:
        search(project, "anything")
    assert "without FTS5" in str(caught.value) and "\n" not in str(caught.value)
    result = invoke(project, "search", "anything")
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and "without FTS5" in result.output


def test_a_cache_folder_that_cannot_be_made_searches_in_memory_with_a_note(sample: Project) -> None:
    (sample.root / ".git" / "gitgarden").write_text("a file where the cache folder goes\n")
    found = search(sample, "oven")
    assert "oven" in [h.ref for h in found.hits]
    assert found.notes and "in memory" in found.notes[0]
    assert (sample.root / ".git" / "gitgarden").read_text() == "a file where the cache folder goes\n"


def test_the_command_prints_results_and_json(sample: Project) -> None:
    result = invoke(sample, "search", "kessler", "mill", "--limit", "2")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "kessler-mill  Kessler Mill  (open; source 2026-11-24)  wiki/kessler-mill.md"
    assert lines[1].startswith("    **Kessler Mill**") or lines[1].startswith("    **Kessler** **Mill**")
    assert len([ln for ln in lines if not ln.startswith("    ")]) == 2
    data = json.loads(invoke(sample, "search", "--json", "kessler*").output)
    assert data["query"] == "kessler*" and data["notes"] == []
    first = data["results"][0]
    assert {k: first[k] for k in ("kind", "name", "title", "state", "source", "path")} == {
        "kind": "page", "name": "kessler-mill", "title": "Kessler Mill", "state": "open",
        "source": ["2026-11-24"], "path": "wiki/kessler-mill.md",
    }  # fmt: skip
    assert any(r["kind"] == "line" and r["id"] == "2026-11-24#7" for r in data["results"])
    nothing = invoke(sample, "search", "zeppelin")
    assert nothing.exit_code == 0 and "Nothing found for 'zeppelin'" in nothing.output


def test_a_pass_brings_an_existing_index_up_to_date_and_a_broken_one_never_fails_it(sample: Project, fake_model: FakeModel) -> None:
    search(sample, "oven")
    capture(sample, "2026-11-30", "Acme signed the pilot contract")
    reply = {"operations": [{"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-30#1"]}]}
    result = run_pass(sample, Settings(model="fake/scripted"), model=fake_model.enqueue(reply), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written", result.refusals
    with sqlite3.connect(cache_path(sample)) as conn:  # before any search: the pass indexed its page
        assert conn.execute("SELECT ref FROM entries WHERE path = 'wiki/acme.md'").fetchall() == [("acme",)]
    cache_path(sample).write_bytes(b"garbage")
    capture(sample, "2026-11-30", "Acme wants export before January")
    reply = {"operations": [{"op": "append", "page": "acme", "text": "Acme wants export before January.\n", "lines": ["2026-11-30#2"]}]}
    result = run_pass(sample, Settings(model="fake/scripted"), model=fake_model.enqueue(reply), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written" and result.commit


def test_a_project_nobody_searched_gets_no_index_from_a_pass(project: Project, fake_model: FakeModel) -> None:
    capture(project, "2026-11-30", "Acme signed the pilot contract")
    reply = {"operations": [{"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-30#1"]}]}
    result = run_pass(project, Settings(model="fake/scripted"), model=fake_model.enqueue(reply), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written"
    assert not cache_path(project).exists()


def test_a_search_with_nothing_changed_writes_nothing(tmp_path: Path) -> None:
    vault = tmp_path / "Notes"
    write(vault, ".obsidian/app.json", "{}")
    write(vault, "Ridge Roofing.md", "Quote for the roof.\n")
    write(vault, "AGENTS.md", "The roof project.\n")  # at the root: no page, but a .md file the walk meets
    write(vault, "Daily notes/2026-11-29.md", "Called about the roof\n")
    write(vault, "Daily notes/notes.md", "not a day\n")
    git(vault, "init", "-q")
    commit_all(vault, "my vault")
    project = Project(init_project(vault).root)
    for path in vault.rglob("*.md"):  # written long ago: no file is "just modified" for the index
        os.utime(path, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    assert pages_found(project, "roof") == ["Ridge Roofing"]
    before = cache_path(project).read_bytes()
    assert pages_found(project, "roof") == ["Ridge Roofing"]
    assert cache_path(project).read_bytes() == before
