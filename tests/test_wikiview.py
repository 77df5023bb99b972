"""The wiki picture a long-running reader keeps (`services.wikiview.KeptWiki`): after every kind of
change a person or a pass makes on disk — a page written, edited in place, renamed, removed, an
alias changed, a folder made, a symlink, an attachment — it answers what a picture read afresh
answers, whether the kernel tells it what changed or it lists the wiki again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitgarden.project import Project
from gitgarden.services.views import find_page
from gitgarden.services.wikiview import KeptWiki, WikiPicture
from gitgarden.store.disktree import DiskTree
from gitgarden.store.watch import Watcher
from gitgarden.wiki import layout
from tests.helpers.project import page, write
from tests.helpers.web_client import client


def fresh(project: Project) -> WikiPicture:
    with layout.active(project.layout):
        return WikiPicture.read(
            DiskTree(project.root, project.layout.wiki_folders()), project.layout
        )


def answers(picture: WikiPicture, asked: list[str]) -> dict[str, object]:
    """What a page view reads off a picture: the page list, every page's backlinks, how names,
    aliases and attachments resolve."""
    with layout.active(picture.here):
        return {
            "rows": picture.rows(),
            "titles": picture.titles,
            "backlinks": {r.name: picture.backlinks(r.name) for r in picture.rows()},
            "found": {
                a: (picture.index.resolve(a), picture.links.resolve(a), picture.links.attachment(a))
                for a in asked
            },
        }


def edit_in_place(path: Path, text: str) -> None:
    """Write over a file's bytes as Obsidian saves a note: the same file, no rename."""
    with open(path, "r+", encoding="utf-8") as fh:
        fh.seek(0)
        fh.write(text)
        fh.truncate()


def changes(project: Project, outside: Path) -> list[tuple[str, object]]:
    root = project.root
    wiki = root / "wiki"
    return [
        (
            "a page written",
            lambda: write(root, "wiki/dana.md", page("Dana", "Dana likes [[Sea]] and [[acme]].\n")),
        ),
        (
            "a page edited in place",
            lambda: edit_in_place(wiki / "beta.md", page("Beta", "Beta now links [[acme]].\n")),
        ),
        (
            "an alias changed in place",
            lambda: edit_in_place(
                wiki / "coast.md", "---\ntitle: Coast\naliases: [Ocean]\n---\nWaves.\n"
            ),
        ),
        (
            "a title changed in place",
            lambda: edit_in_place(wiki / "dana.md", page("Dana Smith", "Still [[Sea]].\n")),
        ),
        (
            "a link taken out in place",
            lambda: edit_in_place(wiki / "dana.md", page("Dana Smith", "Only [[beta]] now.\n")),
        ),
        ("a page removed", lambda: (wiki / "acme.md").unlink()),
        (
            "a folder made, with a page",
            lambda: write(
                root, "wiki/people/erin.md", page("Erin", "Erin knows [[beta]] and [[Ocean]].\n")
            ),
        ),
        (
            "a page renamed",
            lambda: os.rename(wiki / "people/erin.md", wiki / "people/erin-moss.md"),
        ),
        ("a symlink page", lambda: (wiki / "linked.md").symlink_to(outside)),
        ("an attachment added", lambda: (wiki / "chart.png").write_bytes(b"\x89PNG")),
        (
            "the map edited in place",
            lambda: edit_in_place(wiki / "index.md", "# Map\n\n- [[dana]]\n- [[coast]]\n"),
        ),
        ("a page that is no text", lambda: (wiki / "blob.md").write_bytes(b"\xff\xfe\0\0")),
        (
            "a folder removed",
            lambda: [p.unlink() for p in (wiki / "people").iterdir()] and (wiki / "people").rmdir(),
        ),
    ]


@pytest.mark.parametrize("watch", [True, False], ids=["told-by-the-kernel", "listed-each-time"])
def test_a_kept_picture_answers_as_a_fresh_one_after_every_change(
    project: Project, tmp_path: Path, watch: bool
) -> None:
    root = project.root
    write(root, "wiki/acme.md", page("Acme", "Acme buys from [[beta]].\n"))
    write(root, "wiki/beta.md", page("Beta", "Beta sells.\n"))
    write(root, "wiki/coast.md", "---\ntitle: Coast\naliases: [Sea]\n---\nWaves.\n")
    write(root, "wiki/index.md", "# Map\n\n- [[acme]]\n")
    outside = tmp_path / "outside.md"
    outside.write_text("secret [[acme]]\n")
    asked = [
        "acme",
        "Beta",
        "Sea",
        "Ocean",
        "Dana Smith",
        "people/erin-moss",
        "erin",
        "chart.png",
        "linked",
        "blob",
    ]
    kept = KeptWiki(root, None, watch=watch)
    with kept.held(project.layout) as picture:
        assert answers(picture, asked) == answers(fresh(project), asked)
    for what, change in changes(project, outside):
        change()
        with kept.held(project.layout) as picture:
            assert answers(picture, asked) == answers(fresh(project), asked), what
    with kept.held(project.layout) as picture:
        assert picture.backlinks("dana") == ["index"]  # the map first, and only it
        assert picture.backlinks("beta") == ["dana"]  # erin, who linked it, went with her folder
        assert picture.index.resolve("linked") is None  # a symlink is never read through: no page
    kept.close()


def test_edits_in_existing_folders_are_read_alone_without_listing_the_wiki(
    project: Project,
) -> None:
    if Watcher.open(project.root) is None:
        pytest.skip(
            "the kernel cannot tell this reader what changed (no inotify): it lists the wiki each time"
        )
    root = project.root
    write(root, "wiki/acme.md", page("Acme", "Acme.\n"))
    write(root, "wiki/beta.md", page("Beta", "Beta.\n"))
    kept = KeptWiki(root, None)
    with kept.held(project.layout) as picture:
        assert picture.backlinks("acme") == []
    edit_in_place(root / "wiki/beta.md", page("Beta", "Beta links [[acme]].\n"))
    write(root, "wiki/carol.md", page("Carol", "Carol too: [[acme]].\n"))
    with kept.held(project.layout) as picture:
        assert picture.backlinks("acme") == ["beta", "carol"]
    assert kept.listings == 1  # the kernel said which two files changed: only they were read
    write(root, "wiki/new folder/dave.md", page("Dave", "[[acme]]\n"))
    with kept.held(project.layout) as picture:
        assert picture.backlinks("acme") == ["beta", "carol", "new folder/dave"]
    assert kept.listings == 2  # a folder made: listed again, and watched
    kept.close()


def test_a_page_view_shows_a_backlink_written_in_place_since_the_last_view(
    project: Project,
) -> None:
    root = project.root
    write(root, "wiki/acme.md", page("Acme", "Acme is the pilot customer.\n"))
    write(root, "wiki/pricing.md", page("Pricing", "400 EUR a month.\n"))
    c = client(project)
    assert "No page links here." in c.get("/page/acme").text
    edit_in_place(root / "wiki/pricing.md", page("Pricing", "400 EUR a month for [[acme]].\n"))
    html = c.get("/page/acme").text
    assert '<li><a href="/page/pricing">pricing</a></li>' in html
    assert find_page(project, "acme").backlinks == ["pricing"]  # what the command line reads
