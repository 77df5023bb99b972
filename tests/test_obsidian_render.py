"""A page as Obsidian shows it (gitgarden/web/obsidian.py, web/render.py): callouts, highlights,
tags, block ids and links to them, embeds of notes and images, the inline HTML of an allow-list —
and nothing a note holds ever runs as script. Health counts a link to a block id as Obsidian does."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gitgarden.project import Project
from gitgarden.web.render import Links, render_blocks, render_line
from gitgarden.wiki import layout
from gitgarden.wiki.health import measure
from gitgarden.wiki.linking import LinkIndex
from gitgarden.wiki.tree import file
from tests.helpers.project import capture, invoke, page, write
from tests.helpers.vault import FORMATTED, QUOTED, build_formatted, make_vault
from tests.helpers.web_client import client

NOTES = {
    "Other": "Intro ^intro\n\n## Part\n\nPart text, [[Start]] and ![[Start]].\n\n## Next\n\nNot shown.\n\n- a\n- b\n\n^list\n",
    "Start": "Start's own words.\n",
}


def links(read: bool = True) -> Links:
    index = LinkIndex(
        ["Other", "Start", "Here"], {}, attachments=["pic.png", "song.mp3", "doc.pdf"]
    )
    return Links(index, read=(lambda name: NOTES.get(name)) if read else None)


def html(text: str, into: Links | None = None) -> str:
    return "".join(b.html for b in render_blocks(text, into or links()))


class Tags(HTMLParser):
    """Every element of a piece of HTML with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, {k: v or "" for k, v in attrs}))


def elements(fragment: str) -> list[tuple[str, dict[str, str]]]:
    parser = Tags()
    parser.feed(fragment)
    return parser.found


HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "<u onclick=alert(1)>click</u>",
    "<mark style='position:fixed'>m</mark>",
    "<script>alert(1)</script>",
    "<svg onload=alert(1)>",
    "<iframe src='https://evil.example'></iframe>",
    '<a href="javascript:alert(1)">x</a>',
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "<javascript:alert(1)>",
    "[x](data:text/html,<script>alert(1)</script>)",
    "<details open ontoggle=alert(1)>x</details>",
    "<br onmouseover=alert(1)>",
    "<div>\n<script>alert(1)</script>\n</div>",
    "> [!tip] <img src=x onerror=alert(1)>\n> body <u onclick=x>u</u>",
    "==<img src=x onerror=alert(1)>==",
    "[[Other|<img src=x onerror=alert(1)>]]",
    "![[pic.png|<script>alert(1)</script>]]",
    "#<script>alert(1)</script>",
    "<u>ok</u></u></u><style>body{display:none}</style>",
    "<<u>>x</u>",
    "![x](javascript:alert(1))",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_no_note_runs_a_script_or_brings_a_tag_outside_the_allow_list(text: str) -> None:
    out = html(text) + render_line(text, links())
    for tag, attrs in elements(out):
        assert tag not in (
            "script",
            "style",
            "iframe",
            "svg",
            "object",
            "embed",
            "details",
        ) or attrs.get("class", "").startswith("callout"), (tag, out)
        assert not any(name.startswith("on") or name == "style" for name in attrs), (
            tag,
            attrs,
            out,
        )
        for name in ("href", "src"):
            assert not attrs.get(name, "").strip().lower().startswith(("javascript:", "data:")), (
                tag,
                attrs,
                out,
            )
        if tag == "img":
            assert attrs["src"] in ("", "/file/pic.png"), out  # only the wiki's own attachments


def test_the_allowed_tags_render_bare_and_a_tag_left_open_is_closed() -> None:
    out = html(
        "<u>under</u> <mark>m</mark> H<sub>2</sub>O x<sup>2</sup> <kbd>Ctrl</kbd><br/>end <U>up</U>"
    )
    assert (
        out
        == "<p><u>under</u> <mark>m</mark> H<sub>2</sub>O x<sup>2</sup> <kbd>Ctrl</kbd><br>end <u>up</u></p>\n"
    )
    assert html("An <u>open tag\n\nNext.") == "<p>An <u>open tag</u></p>\n<p>Next.</p>\n"
    assert html("A stray </u> and <!-- a comment -->.") == "<p>A stray &lt;/u&gt; and .</p>\n"


def test_callouts_with_their_kind_title_folding_and_nesting() -> None:
    out = html("> [!tip] A **bold** title\n> Body ==lit==.\n")
    assert out.startswith(
        '<div class="callout callout-tip" data-callout="tip">\n<div class="callout-title">A <strong>bold</strong> title</div>'
    )
    assert '<div class="callout-body">\n<p>Body <mark>lit</mark>.</p>\n</div>\n</div>' in out
    folded, opened = html("> [!FAQ]- Why?\n> Because."), html("> [!bug]+\n> Found.")
    assert folded.startswith(
        '<details class="callout callout-question" data-callout="faq">\n<summary class="callout-title">Why?</summary>'
    )
    assert opened.startswith(
        '<details class="callout callout-bug" data-callout="bug" open="">\n<summary class="callout-title">Bug</summary>'
    )
    nested = html("> [!note] Outer\n> > [!warning] Inner\n> > Careful.\n")
    assert nested.count('class="callout ') == 2 and nested.index("callout-warning") > nested.index(
        "callout-note"
    )
    assert html("> [!unknown-kind]\n> x").startswith(
        '<div class="callout callout-note" data-callout="unknown-kind">'
    )
    assert (
        html("> A plain quote [!tip]")
        == "<blockquote>\n<p>A plain quote [!tip]</p>\n</blockquote>\n"
    )


def test_highlights_and_tags() -> None:
    assert html("a ==lit== b, a == b, ==x") == "<p>a <mark>lit</mark> b, a == b, ==x</p>\n"
    out = html(
        "#start then #nested/tag-1 and #_x, not #123, 2026-11-28#1, `#code`, [#in link](https://x.org), http://x.org/#frag"
    )
    assert re.findall(r'<span class="hashtag"[^>]*>(#[^<]*)</span>', out) == [
        "#start",
        "#nested/tag-1",
        "#_x",
    ]
    assert html("## A heading #not") == '<h2 id="h-a-heading-not">A heading #not</h2>\n'
    assert "hashtag" in html("| t |\n|---|\n| #in-table |") and "hashtag" in html("- #in-list")


def test_block_ids_are_hidden_and_give_their_block_the_id_a_link_jumps_to() -> None:
    text = "Para text ^para-1\n\n- item one ^item-1\n- item two\n\n| a |\n|---|\n| 1 |\n\n^table-1\n\n> [!note]\n> boxed\n\n^box-1\n\n[[#^para-1]] [[Other#^intro|intro]]"
    out = html(text)
    assert '<p id="b-para-1">Para text</p>' in out
    assert '<li id="b-item-1">item one</li>' in out
    assert (
        '<table id="b-table-1">' in out
        and 'class="callout callout-note" data-callout="note" id="b-box-1"' in out
    )
    assert '<a class="wl" href="#b-para-1">^para-1</a>' in out
    assert '<a class="wl" href="/page/Other#b-intro" title="Other">intro</a>' in out
    assert "^table-1" not in out and "^box-1" not in out and "^item-1" not in out
    assert html("`code ^not-an-id`") == "<p><code>code ^not-an-id</code></p>\n"


def test_embeds_of_notes_one_level_deep_and_of_attachments() -> None:
    whole = html("![[Start]]")
    assert whole.startswith(
        '<div class="embed-note" data-note="Start"><div class="embed-title"><a class="wl" href="/page/Start"'
    )
    assert "<p>Start&#x27;s own words.</p>" in whole or "<p>Start's own words.</p>" in whole
    part = html("![[Other#Part]]")
    assert "Part text" in part and "Not shown" not in part and "Intro" not in part
    assert (
        'href="/page/Start"' in part and part.count("embed-note") == 1
    )  # its own embed is a link: one level deep
    assert (
        'data-id="h-part"' in part and ' id="h-part"' not in part
    )  # the embedding page's ids stay its own
    assert "Intro" in html("![[Other#^intro]]") and "Part" not in html("![[Other#^intro]]")
    block = html("![[Other#^list]]")
    assert "<li>a</li>" in block and "Not shown" not in block
    assert "no part '^nowhere' in this note" in html("![[Other#^nowhere]]")
    assert (
        html("![[Other]]", links(read=False))
        == '<p><a class="wl" href="/page/Other" title="Other">Other</a></p>\n'
    )
    assert '<audio class="embed" controls preload="none" src="/file/song.mp3"></audio>' in html(
        "![[song.mp3]]"
    )
    assert '<a class="wl file" href="/file/doc.pdf">doc.pdf</a>' in html("![[doc.pdf]]")


@pytest.mark.parametrize(
    ("shown", "attrs"),
    [
        ("400", ' width="400"'),
        ("300x200", ' width="300" height="200"'),
        ("٤٠٠", ""),
        ("²", ""),
        ("１２", ""),
        ("99999999", ""),
        ("a caption", ""),
    ],
)
def test_an_image_embed_takes_its_size_in_ascii_digits_only(shown: str, attrs: str) -> None:
    alt = "pic.png" if attrs or not shown else shown
    assert (
        html(f"![[pic.png|{shown}]]")
        == f'<p><img class="embed" src="/file/pic.png" alt="{alt}"{attrs}></p>\n'
    )
    assert 'width="120"' in html("![diagram|120](pic.png)")


def test_health_takes_a_link_to_a_block_id_on_its_own_line_and_refuses_one_to_none(
    project: Project,
) -> None:
    target = page(
        "Todo", "- Ship the export\n- Call the landlord\n\n^todo-list\n\nA paragraph ^para\n"
    )
    other = page("Other", "See [[todo#^todo-list]], [[todo#^para]] and [[todo#^gone]].\n")
    tree = {
        "wiki/todo.md": file(target),
        "wiki/other.md": file(other),
        "wiki/index.md": file("# Map\n\n## Pages\n\n## Open\n"),
    }
    with layout.active(layout.DEFAULT):
        assert measure(tree).broken_headings == [("other", "todo#^gone")]
    write(project.root, "wiki/todo.md", target)
    write(project.root, "wiki/other.md", other)
    figures = json.loads(invoke(project, "health", "--json").output)  # off the wiki graph
    assert figures["broken_headings"] == [["other", "todo#^gone"]]


def test_a_vault_page_in_the_app_shows_it_all_and_the_counts_agree(tmp_path: Path) -> None:
    project = make_vault(tmp_path / "v", "wiki")
    build_formatted(project.root, "wiki")
    c = client(project)
    out = c.get("/page/" + FORMATTED.removesuffix(".md")).text
    assert (
        'data-callout="tip"' in out
        and "<mark>highlight</mark>" in out
        and '<p id="b-went-well">' in out
    )
    assert (
        '<ul id="b-todo-list">' in out
        and 'class="embed-note" data-note="Formatting/Reading list"' in out
    )
    assert '<span class="hashtag" title="tag #review/weekly">#review/weekly</span>' in out
    assert (
        '<img class="embed" src="/file/wiki/Attachments/diagram.png" alt="diagram.png" width="120">'
        in out
    )
    assert '<div class="table-wrap"><table>' in out
    assert (
        "onerror=alert" not in out.replace("onerror=alert(1)&gt;", "")
        and 'href="javascript:' not in out
    )
    reading = c.get("/page/" + QUOTED.removesuffix(".md")).text
    assert (
        'href="/page/Formatting/Weekly%20review"' in reading and reading.count("embed-note") == 1
    )  # no loop
    health = json.loads(invoke(project, "health", "--json").output)
    listed = re.search(
        r"<small class=\"muted\">([\d,]+) pages and the map</small>", c.get("/pages").text
    )
    assert listed is not None and int(listed.group(1)) == health["pages"]
    assert f"{health['pages']} pages" in c.get("/health").text


def test_the_days_arrows_read_older_on_the_left_newer_on_the_right(project: Project) -> None:
    for day in ("2026-11-27", "2026-11-28", "2026-11-29"):
        capture(project, day, f"a line of {day}")
    meta = (
        client(project)
        .get("/journal/2026-11-28")
        .text.split('<p class="meta">')[1]
        .split("</p>")[0]
    )
    assert meta.index("← 2026-11-27") < meta.index("2026-11-29 →")


def test_messages_show_their_backticked_words_as_code(project: Project) -> None:
    out = (
        client(project).get("/").text
    )  # the project is registered with no timer: a hold names the command
    assert "`gitgarden projects add`" not in out and "<code>gitgarden projects add</code>" in out
