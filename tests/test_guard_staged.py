"""The hook and `guard --staged` judge what the commit changes, reading no more of the wiki.

An agent commits many times an hour into vaults of tens of thousands of notes: the verdicts
must be those of the guard over the whole trees, while git reads only the changed paths'
blobs and answers names with pathspec queries.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gitgarden.gitguard import staged
from gitgarden.guard import rules
from gitgarden.repo import gitrepo
from gitgarden.wiki import layout
from gitgarden.wiki.tree import Entry, Overlay
from tests.helpers.project import commit_all, git, page, write

PAGES = {
    "wiki/acme.md": page("Acme", "Acme signed the pilot. See [[pricing]].\n\n## Terms\n\nMonthly.\n", source="[2026-11-29]"),
    "wiki/pricing.md": page("Pricing", "400 EUR a month.\n", source="[2026-11-29]"),
    "wiki/People/Dana Weber.md": "---\ntitle: Dana Weber\nstate: open\naliases: [Dana, DW]\n---\nDana runs the bakery.\n",
    "wiki/people/dana.md": page("Dana (other)", "Another Dana.\n"),
    "wiki/Projects/Mill/Kessler Mill.md": page("Kessler Mill", "The mill. See [[Acme#Terms]].\n"),
    "wiki/img/diagram.png": "\x89PNG not really\n",
    "wiki/Notes.md": page("Notes", "Loose notes.\n"),
    "raw/journal/2026-11-29.md": "Acme signed the pilot\n",
}


def staged_changes(root: Path, index_file: str | None) -> dict[str, Entry | None]:
    """The oracle the fast reader is compared with: everything the index holds that HEAD does not
    (the empty tree before the first commit), every staged file read in full, as the hook read it
    before it judged only what a commit changes: path -> its staged file, or None when removed."""
    env = {"GIT_INDEX_FILE": index_file} if index_file else None
    metas: list[tuple[str, str, str]] = []  # (path, mode, blob id; mode "" when removed)
    if gitrepo.head(root) is not None:
        # --relative: a project below the top of its repository sees its own paths only.
        out = gitrepo.git(root, "diff-index", "--cached", "-z", "--no-renames", "--relative", "HEAD", env=env)
        fields = out.split(b"\0")
        for meta, raw in zip(fields[0:-1:2], fields[1::2], strict=True):
            _old_mode, mode, _old_id, oid, status = meta.decode().lstrip(":").split()
            if status != "U":  # an unmerged path: git refuses the commit itself
                path = raw.decode("utf-8", "surrogateescape")
                metas.append((path, "" if status == "D" else mode, oid))
    else:
        for rec in gitrepo.git(root, "ls-files", "-s", "-z", env=env).split(b"\0"):
            if rec:
                meta, raw = rec.split(b"\t", 1)
                mode, oid, stage = meta.decode().split()
                if stage == "0":
                    metas.append((raw.decode("utf-8", "surrogateescape"), mode, oid))
    # A submodule's commit id is not a file of this repository: it is a gitlink entry, never read.
    blobs = iter(gitrepo.read_blobs(root, [oid for _, mode, oid in metas if mode and mode != "160000"]))
    return {
        path: (
            None if not mode
            else Entry("gitlink", b"") if mode == "160000"
            else Entry("symlink" if mode == "120000" else "file", next(blobs))
        )
        for path, mode, _ in metas
    }  # fmt: skip


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in PAGES.items():
        write(root, rel, text)
    for n in range(40):  # pages no change touches: the guard must not need them
        write(root, f"wiki/filler/note-{n:02d}.md", page(f"Filler {n}", f"Filler {n} links [[pricing]].\n"))
    commit_all(root, "a vault")
    return root


Place = Callable[[str], str]  # a path of the `wiki/` layout -> where the layout under test keeps it


def in_wiki(rel: str) -> str:
    return rel


def at_root(rel: str) -> str:
    """A path of the `wiki/` vault as it stands in a vault kept at the root (Obsidian's layout)."""
    return rel.removeprefix("wiki/").replace("raw/journal/", "Daily notes/")


Change = Callable[[Path, Place], None]


def append(rel: str, text: str) -> Change:
    def change(root: Path, place: Place) -> None:
        path = root / place(rel)
        path.write_text(path.read_text() + text)

    change.__name__ = f"append to {rel}: {text.strip()}"
    return change


def create(rel: str, text: str) -> Change:
    def change(root: Path, place: Place) -> None:
        write(root, place(rel), text)

    change.__name__ = f"create {rel}"
    return change


def split_acme_md(root: Path, place: Place) -> None:
    """The same split with a Markdown heading link to the moved section in another page."""
    path = root / place("wiki/pricing.md")
    path.write_text(path.read_text() + "See [terms](acme.md#Terms).\n")
    commit_all(root, "a Markdown heading link")
    split_acme(root, place)


def split_acme(root: Path, place: Place) -> None:
    """Move `## Terms` out of acme into a part the page links to; kessler-mill's heading link dangles."""
    write(root, place("wiki/acme.md"), page("Acme", "Acme signed the pilot. See [[pricing]].\n\nSee [[acme-terms]].\n", source="[2026-11-29]"))
    write(root, place("wiki/acme-terms.md"), page("Acme terms", "## Terms\n\nMonthly.\n", source="[2026-11-29]"))


CHANGES: list[Change] = [
    append("wiki/acme.md", "Dana asked about [[pricing]] and [[Kessler Mill]].\n"),
    append("wiki/acme.md", "Linked by alias: [[DW]] and [[dana]] and [[people/DANA]].\n"),
    append("wiki/acme.md", "A link to nothing: [[no such page]] and [[Projects/Mill/kessler mill|the mill]].\n"),
    append("wiki/acme.md", "An embed: ![[diagram.png|400]] and [[img/diagram.png]] and [[diagram]].\n"),
    append("wiki/acme.md", "A glob in a name: [[Acme*]] and [[p?icing]] and [[[x]]].\n"),
    append("wiki/acme.md", "Not pages at the root: [[today]] and [[2026-11-29]] and [[AGENTS]].\n"),
    append("wiki/pricing.md", "Pricing stays, see [[notes.md]] and [[NOTES]].\n"),
    append("wiki/acme.md", "Markdown: [the price](pricing.md), [Dana](People/Dana%20Weber.md), [mill](<Projects/Mill/Kessler Mill.md>).\n"),
    append("wiki/People/Dana Weber.md", "Relative: [acme](../acme.md), [up](../../outside.md), [none](nowhere.md), ![d](../img/diagram.png).\n"),
    append("wiki/acme.md", "By file name: [Dana](dana.md) and [Notes](Notes.md) and [DW](DW.md) and [x](/pricing.md).\n"),
    create("wiki/New idea.md", page("New idea", "Links [[Dana]] and [[acme]].\n")),
    create("wiki/ACME.md", page("Acme again", "A twin in other letter case.\n")),
    create("wiki/projects/Other.md", page("Other", "A folder in other letter case.\n")),
    create("Raw/notes.md", "A reserved folder in other letter case.\n"),
    create("raw/journal/2026-11-30.md", "Captured by an agent\n"),
    append("wiki/pricing.md", "Changed my mind.\n"),
    split_acme,
    split_acme_md,
]


@pytest.mark.parametrize("place", [in_wiki, at_root], ids=["wiki/", "root"])
@pytest.mark.parametrize("change", CHANGES, ids=[c.__name__ for c in CHANGES])
def test_the_staged_guard_gives_the_verdicts_of_the_guard_over_the_whole_trees(tmp_path: Path, change: Change, place: Place) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    git(root, "init", "-q")
    for rel, text in {**PAGES, "AGENTS.md": "# Agents\n", "raw/chat/today.md": "Not a page: [[acme]]\n"}.items():
        write(root, place(rel), text)
    commit_all(root, "a vault")
    change(root, place)
    git(root, "add", "-A")
    base, proposed = staged.staged_trees(root, {})
    whole_base = gitrepo.tree_at(root, "HEAD")
    whole = Overlay(whole_base, staged_changes(root, None))
    with layout.active(layout.Layout(".", "Daily notes") if place is at_root else layout.DEFAULT):
        got = rules.check(base, proposed, None, agent=True)
        want = rules.check(whole_base, whole, None, agent=True)
    assert got == want


def test_a_split_that_leaves_a_heading_link_dangling_is_found_through_git(vault: Path) -> None:
    split_acme(vault, in_wiki)
    git(vault, "add", "-A")
    with layout.active(layout.DEFAULT):
        verdicts = rules.check(*staged.staged_trees(vault, {}), None, agent=True)
    assert [(v.rule, v.path) for v in verdicts] == [(5, "wiki/Projects/Mill/Kessler Mill.md")]


@pytest.fixture
def git_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[list[str]]]:
    """Every git process gitgarden starts: its arguments and what it was fed."""
    calls: list[list[str]] = []
    real = gitrepo.run_bounded

    def run(argv: list[str], **kw: object) -> subprocess.CompletedProcess[bytes]:
        fed = kw.get("input")
        calls.append([*argv[3:], *(fed.decode().split("\n") if isinstance(fed, bytes) else [])])
        return real(argv, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(gitrepo, "run_bounded", run)
    yield calls


def test_a_one_line_append_reads_the_two_blobs_it_changes_and_lists_nothing(vault: Path, git_calls: list[list[str]]) -> None:
    append("wiki/acme.md", "Dana asked about [[pricing]] again.\n")(vault, in_wiki)
    git(vault, "add", "wiki/acme.md")
    with layout.active(layout.DEFAULT):
        assert rules.check(*staged.staged_trees(vault, {}), None, agent=True) == []
    commands = [c[0] for c in git_calls]
    # HEAD, the change, its blobs, whether its folder is a submodule, the one name it links to.
    assert commands == ["rev-parse", "diff-index", "cat-file", "ls-tree", "ls-files"]
    cat_file = git_calls[2]
    assert len([name for name in cat_file[2:] if name]) == 2  # the old and the new acme, nothing else
    assert not any(c[:2] == ["ls-tree", "-r"] for c in git_calls)  # no listing of the tree


def test_the_hook_reads_a_temporary_index_as_git_names_it(vault: Path) -> None:
    """`git commit -a` hands the hook a temporary index: the names it queries are that index's."""
    append("wiki/acme.md", "Linked to a page only the commit's index has: [[fresh]].\n")(vault, in_wiki)
    write(vault, "wiki/fresh.md", page("Fresh", "New.\n"))
    index = vault / ".git" / "tmp-index"
    env = {"GIT_INDEX_FILE": str(index)}
    subprocess.run(["git", "-C", str(vault), "read-tree", "HEAD"], env={**_env(), **env}, check=True)
    subprocess.run(["git", "-C", str(vault), "add", "-A"], env={**_env(), **env}, check=True)
    with layout.active(layout.DEFAULT):
        assert rules.check(*staged.staged_trees(vault, env), None, agent=True) == []
        # The repository's own index lacks the page: judged by it, the link points to nothing.
        git(vault, "add", "wiki/acme.md")
        verdicts = rules.check(*staged.staged_trees(vault, {}), None, agent=True)
    assert [(v.rule, v.path) for v in verdicts] == [(8, "wiki/acme.md")]


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_a_submodule_staged_in_the_wiki_is_judged_as_with_the_whole_trees(vault: Path) -> None:
    head = git(vault, "rev-parse", "HEAD").strip()
    git(vault, "update-index", "--add", "--cacheinfo", f"160000,{head},wiki/People/vendored")
    append("wiki/People/Dana Weber.md", "Dana vendors a notes repository.\n")(vault, in_wiki)
    git(vault, "add", "wiki/People/Dana Weber.md")
    base, proposed = staged.staged_trees(vault, {})
    whole_base = gitrepo.tree_at(vault, "HEAD")
    whole = Overlay(whole_base, staged_changes(vault, None))
    with layout.active(layout.DEFAULT):
        got = rules.check(base, proposed, None, agent=True)
        assert got == rules.check(whole_base, whole, None, agent=True)
    assert proposed["wiki/People/vendored"].is_gitlink
