"""Health read off the wiki graph, kept in step with the work tree by asking git what changed.

The graph in the git dir is brought in step from the files git names — commits in between,
changed, untracked and ignored files — and only those are read again. Whatever the person did
(edit, commit, delete, ignore, check out), `gitgarden health` says what reading every page says.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path

import pytest

from gitgarden.project import Project
from gitgarden.repo import gitdir, gitrepo
from gitgarden.store import wikisync
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import layout
from gitgarden.wiki.health import Health, measure
from tests.helpers.project import FIXED_NOW, commit_all, git, invoke, page, write

TODAY = date(2026, 11, 30)


def figures(project: Project) -> tuple[Health, Health]:
    """(the figures off the graph, the figures of reading every page)."""
    folders = project.layout.wiki_folders()
    with layout.active(project.layout):
        got = wikisync.health(project.root, lambda: DiskTree(project.root, folders), today=TODAY)
        want = measure(DiskTree(project.root, folders), today=TODAY)
    want.malformed.sort()
    want.stale.sort()
    return got, want


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The files the graph's sync reads from disk."""
    seen: list[str] = []
    real = wikisync.read_file

    def read(root: Path, rel: str) -> object:
        seen.append(rel)
        return real(root, rel)

    monkeypatch.setattr(wikisync, "read_file", read)
    yield seen


def wiki(project: Project) -> Project:
    write(project.root, "wiki/acme.md", page("Acme", "Acme signed. See [[pricing]] and [[Dana]].\n", source="[2026-08-01]"))
    write(project.root, "wiki/pricing.md", page("Pricing", "400 EUR.\n", state="decided"))
    write(project.root, "wiki/people/dana.md", "---\ntitle: Dana\nstate: open\naliases: [DW]\n---\nRuns the bakery.\n")
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[acme]]\n\n## Open\n")
    commit_all(project.root, "a wiki")
    return project


def edit(rel: str, text: str) -> Callable[[Project], None]:
    def change(project: Project) -> None:
        write(project.root, rel, text)

    change.__name__ = f"edit {rel}"
    return change


def commit(change: Callable[[Project], None]) -> Callable[[Project], None]:
    def committed(project: Project) -> None:
        change(project)
        commit_all(project.root, "the person's commit")

    committed.__name__ = f"{change.__name__}, committed"
    return committed


def delete(rel: str) -> Callable[[Project], None]:
    def change(project: Project) -> None:
        (project.root / rel).unlink()

    change.__name__ = f"delete {rel}"
    return change


def ignore_a_note(project: Project) -> None:
    write(project.root, ".gitignore", "private/\n*.draft.md\n")
    write(project.root, "wiki/private/secret.md", page("Secret", "Links [[acme]] and [[nowhere]].\n"))
    write(project.root, "wiki/idea.draft.md", page("Idea", "A draft linking [[pricing]].\n"))


def check_out_the_past(project: Project) -> None:
    first = git(project.root, "rev-list", "--max-parents=0", "HEAD").strip()
    write(project.root, "wiki/later.md", page("Later", "Added later, linked from nowhere.\n"))
    commit_all(project.root, "later")
    git(project.root, "checkout", "-q", "-b", "past", first)


CHANGES = [
    edit("wiki/acme.md", page("Acme", "Acme signed. See [[pricing]] and [[DW]] and [[gone]].\n")),
    commit(edit("wiki/pricing.md", page("Pricing", "400 EUR, see [[people/dana]].\n", state="decided"))),
    edit("wiki/Dana.md", page("Dana too", "A second Dana: [[acme]].\n")),
    commit(delete("wiki/people/dana.md")),
    delete("wiki/acme.md"),
    edit("wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]]\n\n## Open\n"),
    edit("wiki/img/diagram.png", "\x89PNG"),
    ignore_a_note,
    check_out_the_past,
]


@pytest.mark.parametrize("change", CHANGES, ids=[c.__name__ for c in CHANGES])
def test_the_graph_follows_what_the_person_did(project: Project, change: Callable[[Project], None]) -> None:
    wiki(project)
    got, want = figures(project)  # built whole, the first time
    assert got == want
    change(project)
    got, want = figures(project)
    assert got == want
    again, _ = figures(project)
    assert again == want


def test_a_warm_graph_reads_only_the_files_git_names(project: Project, reads: list[str]) -> None:
    wiki(project)
    for n in range(30):
        write(project.root, f"wiki/notes/n{n}.md", page(f"Note {n}", f"Note {n} links [[acme]].\n"))
    commit_all(project.root, "notes")
    figures(project)
    assert len(reads) >= 34  # the first run reads the wiki whole
    reads.clear()
    figures(project)
    assert reads == ["wiki/index.md"]  # warm: only the map's text (what health shows of it)
    write(project.root, "wiki/notes/n3.md", page("Note 3", "Now links [[pricing]].\n"))
    reads.clear()
    got, want = figures(project)
    assert got == want
    assert sorted(reads) == ["wiki/index.md", "wiki/notes/n3.md"]
    commit_all(project.root, "n3")  # committed unchanged: its signature stands, it is not read again
    reads.clear()
    figures(project)
    assert reads == ["wiki/index.md"]


def test_the_health_command_reads_the_graph_and_a_broken_graph_is_measured_the_slow_way(project: Project) -> None:
    wiki(project)
    first = invoke(project, "health", "--json")
    assert first.exit_code == 0, first.output
    graphs = list((gitdir.git_dir(project.root) / "gitgarden").glob("wiki-*.sqlite"))
    assert len(graphs) == 1
    graphs[0].write_bytes(b"this is not a database")
    again = invoke(project, "health", "--json")
    assert again.exit_code == 0, again.output
    assert again.output == first.output


def test_a_pass_keeps_the_graph_in_step_so_the_next_asks_git_nothing_about_it(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    from gitgarden.config import Settings
    from gitgarden.gardener.pipeline import run_pass
    from tests.helpers.project import FakeModel, capture

    wiki(project)
    commands: list[str] = []
    real = gitrepo.run_bounded

    def run(argv: list[str], **kw: object) -> object:
        commands.append(gitrepo._command(argv[3:]))
        return real(argv, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(gitrepo, "run_bounded", run)
    for day, line, name in (("2026-11-29", "Kessler owns the mill", "kessler"), ("2026-11-30", "The mill needs a roof", "mill")):
        capture(project, day, line)
        reply = {"operations": [{"op": "create_page", "page": name, "title": name.title(), "body": f"{line}.\n", "lines": [f"{day}#1"]}]}
        commands.clear()
        result = run_pass(project, Settings(model="fake/scripted"), model=FakeModel().enqueue(reply), now=lambda: FIXED_NOW)
        assert result.outcome == "pages_written", result.detail
    assert "diff-tree" not in commands  # the graph followed the first pass's commit
    assert len(commands) <= 15, commands
    got, want = figures(project)
    assert got == want and want.pages == 5  # both passes' pages counted


@pytest.mark.parametrize("kind", ["wiki", "root"])
def test_an_obsidian_vault_in_either_layout_through_the_persons_week(tmp_path: Path, kind: str) -> None:
    from tests.helpers.vault import at, make_vault

    project = make_vault(tmp_path / "vault", kind)
    got, want = figures(project)
    assert got == want and want.pages >= 5 and want.split_advice
    steps = [
        lambda: write(project.root, at(project, "Daily notes/2026-11-30.md"), "Met [[Dana]] about the unlinked note\n"),
        lambda: write(project.root, ".gitignore", "Private/\n.obsidian/workspace.json\n"),
        lambda: write(project.root, at(project, "Private/Diary.md"), "A private note linking [[nowhere]].\n"),
        lambda: write(project.root, ".obsidian/workspace.json", "{}\n"),
        lambda: commit_all(project.root, "the week"),
        lambda: (project.root / at(project, "Private/Diary.md")).unlink(),
    ]
    for step in steps:
        step()
        got, want = figures(project)
        assert got == want
