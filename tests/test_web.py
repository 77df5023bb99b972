"""`gitgarden serve`'s pages through the framework's test client: every page renders on an empty
project, on the sample project after passes and on a vault at the root; what each shows is what the
command line reads; the gate (Host, token, CSRF) holds; nothing outside the layout is served; a
note's `<script>` is text."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.project import Project
from tests.helpers.project import (
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    invoke,
    page,
    workspace,
    write,
)
from tests.helpers.web_client import PAGES, TOKEN, client, created, form, root_vault, sample

SETTINGS = Settings(model="fake/scripted")


def pass_with(project: Project, *ops: dict[str, object]) -> str:
    """One pass with the scripted model; its id."""
    result = run_pass(project, SETTINGS, model=FakeModel().enqueue({"operations": list(ops)}), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written", (result.refusals, result.detail)
    return result.pass_id


@pytest.fixture
def acme(project: Project) -> tuple[Project, str]:
    """Two journal days and a pass that made a page from one line and skipped the other."""
    capture(project, "2026-11-28", "Acme is the pilot customer", "lunch was good")
    pass_id = pass_with(
        project,
        created("acme", "Acme", "Acme is the pilot customer.\n", "2026-11-28#1"),
        {"op": "skip", "lines": ["2026-11-28#2"]},
    )
    return project, pass_id


def text_of(html: str) -> str:
    """The page's words, tags gone and entities read (what a person sees)."""
    import html as htmllib

    return htmllib.unescape(re.sub(r"<[^>]+>", " ", html))


def test_every_page_renders_on_an_empty_project(project: Project) -> None:
    c = client(project)
    for path in PAGES:
        r = c.get(path)
        assert r.status_code == 200, (path, r.text[:500])
        assert "Traceback" not in r.text
    assert "The gardener has made no pass here yet" in c.get("/passes").text
    assert "Nothing waits for review." in c.get("/review").text


def test_every_page_renders_on_the_sample_project_after_passes(tmp_path: Path) -> None:
    project = sample(tmp_path)
    assert invoke(project, "run", "--json").exit_code == 0  # no model: the model-free work, one commit
    line = "Dana and I are aiming to open Crumb & Co on Saturday 16 January 2027."
    pass_id = pass_with(project, created("crumb-and-co", "Crumb & Co", line + "\n", "2026-11-23#7"))
    c = client(project)
    for path in (*PAGES, f"/pass/{pass_id}", "/page/crumb-and-co", "/page/kessler-mill", "/journal/2026-11-23", f"/pass/{pass_id}/undo"):
        r = c.get(path)
        assert r.status_code == 200, (path, r.text[:500])
    passes = c.get("/passes").text
    assert f'href="/pass/{pass_id}"' in passes and "pages written" in passes and "no model" in passes
    shown = text_of(c.get("/page/crumb-and-co").text)
    assert line in shown and "2026-11-23#7" in shown and pass_id in shown  # the sentence traced to its line
    day = text_of(c.get("/journal/2026-11-23").text)
    assert re.search(rf"7\s+Dana and I are aiming to open Crumb & Co on Saturday 16 January 2027.\s+on a page\s+Read again\s+on\s+crumb-and-co\s+·\s+by pass\s+{pass_id}", day)
    assert re.search(r"8\s+parking fine near the shop, annoying\s+unread", day)


def test_every_page_renders_on_a_vault_at_the_root(tmp_path: Path) -> None:
    project = root_vault(tmp_path)
    c = client(project)
    for path in (*PAGES, "/page/Getting started/Start here", "/journal/2026-11-27", "/file/Attachments/diagram.png"):
        r = c.get(path)
        assert r.status_code == 200, (path, r.text[:500])
    start = c.get("/page/Getting started/Start here").text
    # Links as Obsidian resolves them: by file name in any folder, heading anchors, shown text, attachments.
    assert 'href="/page/Obsidian%20Sync/Sync%20your%20notes%20across%20devices#h-icloud"' in start
    assert '>Dropbox sync</a>' in start
    assert '<img class="embed" src="/file/Attachments/diagram.png" alt="diagram.png" width="400">' in start
    assert 'class="wl broken"' in start and "Missing note" in start
    assert 'href="/page/Obsidian%20Sync/Version%20history"' in start  # inside a table, `\|` and all
    # Markdown links, as Obsidian writes them with wikilinks off: relative, URL-encoded, in angle brackets.
    with (project.root / "Orphan note.md").open("a") as fh:
        fh.write("See [Start](Getting%20started/Start%20here.md) and [history](<../Obsidian Sync/Version history.md#Every>).\n")
    orphan = c.get("/page/Orphan note").text
    assert '<a href="/page/Getting%20started/Start%20here">Start</a>' in orphan
    assert '<a href="#" class="broken"' in orphan  # `../` leaves the vault: no such note
    pages = c.get("/pages").text
    assert "Start here" in pages and "Daily notes" not in pages  # the daily notes are the journal
    # A human name and another letter case lead to the page's own address.
    r = c.get("/page/start HERE", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "/page/Getting%20started/Start%20here"


def test_the_passes_and_a_pass_show_what_log_and_show_read(acme: tuple[Project, str]) -> None:
    project, pass_id = acme
    c = client(project)
    logged = json.loads(invoke(project, "log", "--json").stdout)[0]
    listed = c.get("/passes").text
    row = text_of(listed)
    assert logged["pass_id"] == pass_id and f'href="/pass/{pass_id}"' in listed
    assert "pages written" in row and "gitgarden run" in row and "pages 0→1" in row
    one = c.get(f"/pass/{pass_id}").text
    assert '<div class="add"><span class="sign">+</span>Acme is the pilot customer.</div>' in one
    assert one.index('href="/page/acme"') < one.index(".gitgarden/read.json")  # pages first, bookkeeping last
    assert f'href="/pass/{pass_id}/undo"' in one
    assert c.get("/pass/nonesuch").status_code == 404


def test_a_refusal_shows_its_rule_and_words(project: Project) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    model = FakeModel().enqueue({"operations": [created("acme", "Acme", "Acme paid 9,000 EUR in March.\n", "2026-11-28#1")]})
    model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-28#1"]}]})
    result = run_pass(project, SETTINGS, model=model, now=lambda: FIXED_NOW)
    assert result.refusals and result.commit, result
    shown = client(project).get(f"/pass/{result.pass_id}").text
    assert '<span class="rule">rule 11 (grounded)</span>' in shown
    words = text_of(shown)
    assert "Acme paid 9,000 EUR in March." in words
    entry = result.grounding[0]  # what the record keeps of the refused sentence, shown as it is
    assert f"scored {entry['score']:.2f} (needs {entry['threshold']:.2f})" in " ".join(words.split())
    assert entry["unfounded"] and f"numbers and names not in the cited lines: {', '.join(entry['unfounded'])}" in words


def test_a_page_traces_each_paragraph_a_pass_wrote_and_not_the_persons(acme: tuple[Project, str]) -> None:
    project, pass_id = acme
    with (project.root / "wiki/acme.md").open("a") as fh:
        fh.write("\nMy own line about [[acme]].\n")
    html = client(project).get("/page/acme").text
    traced, untraced = html.split("My own line")[0], html.split("My own line")[1]
    assert 'class="block traced"' in traced and f'href="/pass/{pass_id}"' in traced
    assert '<a class="lineid" href="/journal/2026-11-28#l1"><code>2026-11-28#1</code></a><q>Acme is the pilot customer</q>' in traced
    assert "block traced" not in untraced


def test_a_page_shows_what_changed_since_the_servers_last_request(acme: tuple[Project, str]) -> None:
    """The server keeps the pages' facts and the traced paragraphs between requests: an edit by the
    person, a new pass and an undo each show at the next request of the same server."""
    from gitgarden.history.undo import undo

    project, pass_id = acme
    c = client(project)
    first = c.get("/page/acme").text
    backlink = '<li><a href="/page/beta">beta</a></li>'
    assert backlink not in first and f'href="/pass/{pass_id}"' in first
    write(project.root, "wiki/beta.md", "---\ntitle: Beta\n---\nSee [[Acme]].\n")  # a new page linking here
    with (project.root / "wiki/acme.md").open("a") as fh:
        fh.write("\nFresh words of mine, see [[beta]].\n")
    second = c.get("/page/acme").text
    assert "Fresh words of mine" in second and backlink in second
    assert 'href="/page/beta"' in second.split("Fresh words of mine")[1]  # its new link resolves
    (project.root / "wiki/beta.md").write_text("---\ntitle: Beta\n---\nNo link any more.\n")
    assert backlink not in c.get("/page/acme").text
    commit_all(project.root, "my edits")
    capture(project, "2026-11-29", "Acme wants export before January")
    second_pass = pass_with(project, {"op": "append", "page": "acme", "text": "Acme wants export before January.\n", "lines": ["2026-11-29#1"]})
    traced = c.get("/page/acme").text
    assert f'href="/pass/{second_pass}"' in traced and "Acme wants export before January." in traced
    undo(project.root, second_pass, now=FIXED_NOW)
    after = c.get("/page/acme").text
    assert f'href="/pass/{second_pass}"' not in after and f'href="/pass/{pass_id}"' in after


def test_a_note_with_a_script_renders_as_text(project: Project) -> None:
    evil = '<script>alert("x")</script> <img src=x onerror=alert(1)> [click](javascript:alert(1))'
    write(project.root, "wiki/evil.md", page("<b>Evil</b>", evil + "\n"))
    capture(project, "2026-11-28", evil)
    write(project.root, ".gitgarden/config.toml", 'identity_files = ["<script>x</script>"]\n')
    c = client(project)
    for path in ("/page/evil", "/journal/2026-11-28", "/journal", "/pages", "/settings"):
        html = c.get(path).text
        assert "<script>" not in html and "onerror=alert" not in html.replace("onerror=alert(1)&gt;", ""), path
        assert 'href="javascript:' not in html, path
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in c.get("/page/evil").text or "&lt;script&gt;" in c.get("/page/evil").text
    assert "&lt;b&gt;Evil&lt;/b&gt;" in c.get("/page/evil").text


def test_a_request_for_another_host_gets_nothing(acme: tuple[Project, str]) -> None:
    project, _ = acme
    c = client(project)
    for host in ("evil.example:8765", "127.0.0.1:9999", "127.0.0.1.nip.io:8765", ""):
        r = c.get("/", headers={"host": host})
        assert r.status_code == 403 and "Acme" not in r.text
    assert c.get("/", headers={"host": "localhost:8765"}).status_code == 200


def test_the_token_in_the_url_becomes_a_cookie_and_nothing_is_shown_without_it(acme: tuple[Project, str]) -> None:
    project, _ = acme
    c = client(project, token=False)
    for path in (*PAGES, "/page/acme", "/pass/x", "/file/x.png", "/run/x/status"):
        r = c.get(path)
        assert r.status_code == 403 and "acme" not in r.text.lower(), path
    assert c.get("/?token=wrong").status_code == 403
    r = c.get(f"/page/acme?token={TOKEN}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].split("#")[0] == "/page/acme"  # the token leaves the address bar
    assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]
    assert c.get("/page/acme").status_code == 200
    assert "script-src 'self'" in c.get("/").headers["content-security-policy"]


POSTS = (
    ("/journal/capture", {"text": "a line from nowhere"}),
    ("/run/start", {"dry_run": "1"}),
    ("/run/stop", {}),
    ("/pass/{pass_id}/undo", {}),
    ("/review/accept", {}),
    ("/review/reject", {}),
)


def test_every_change_is_refused_without_the_token_or_the_forms_value(acme: tuple[Project, str]) -> None:
    project, pass_id = acme
    before, head = workspace(project.root), (project.root / ".git/HEAD").read_text()
    no_token, with_token = client(project, token=False), client(project)
    for path, fields in POSTS:
        url = path.format(pass_id=pass_id)
        assert no_token.post(url, data=form(**fields)).status_code == 403, url
        assert with_token.post(url, data=fields).status_code == 403, url  # no CSRF value
        foreign = with_token.post(url, data=form(**fields), headers={"origin": "http://evil.example"})
        assert foreign.status_code == 403, url
        cross = with_token.post(url, data=form(**fields), headers={"sec-fetch-site": "cross-site"})
        assert cross.status_code == 403, url
        assert with_token.get(url).status_code in (404, 405, 200), url  # a GET changes nothing
    assert workspace(project.root) == before
    assert (project.root / ".git/HEAD").read_text() == head
    assert not (project.root / ".git/gitgarden/stop").exists()


def test_reading_every_page_changes_nothing(acme: tuple[Project, str]) -> None:
    project, pass_id = acme
    before = workspace(project.root)
    c = client(project)
    for path in (*PAGES, f"/pass/{pass_id}", f"/pass/{pass_id}/undo", "/page/acme", "/journal/2026-11-28"):
        assert c.get(path).status_code == 200
    assert workspace(project.root) == before


def test_files_are_served_only_from_inside_the_wiki(tmp_path: Path) -> None:
    project = root_vault(tmp_path)
    root = project.root
    outside = tmp_path / "secret.png"
    outside.write_bytes(b"\x89PNG secret")
    os.symlink(outside, root / "Attachments" / "link.png")
    os.symlink(tmp_path, root / "Linked folder")
    write(root, "raw/private.png", "raw")
    commit_all(root)
    c = client(project)
    assert c.get("/file/Attachments/diagram.png").content.startswith(b"\x89PNG")
    for rel in (
        "Attachments/link.png",  # a symlink to a file outside
        "Linked folder/secret.png",  # through a symlinked folder
        "../secret.png",
        "Attachments/../../secret.png",
        "%2e%2e/secret.png",
        ".git/config",
        ".gitgarden/config.toml",
        ".obsidian/daily-notes.json",
        "raw/private.png",
        "log/.gitkeep",
        "Getting started/Start here.md",  # a page is rendered, never served raw
        "Daily notes/2026-11-27.md",
        "/etc/passwd",
    ):
        r = c.get("/file/" + rel)
        assert r.status_code in (403, 404), rel
        assert b"PNG secret" not in r.content and b"[core]" not in r.content, rel
    svg = c.get("/file/Attachments/Lucide-Cog.svg")
    assert svg.status_code == 200 and "sandbox" in svg.headers["content-security-policy"]


def test_pages_named_to_leave_the_wiki_or_through_a_symlink_are_refused(acme: tuple[Project, str], tmp_path: Path) -> None:
    project, _ = acme
    (tmp_path / "outside.md").write_text(page("Outside", "secret words\n"))
    os.symlink(tmp_path / "outside.md", project.root / "wiki" / "linked.md")
    c = client(project)
    for name in ("linked", "../AGENTS", "..%2F..%2Foutside", "/etc/passwd", "%2e%2e/outside"):
        r = c.get(f"/page/{name}")
        assert r.status_code == 404 and "secret words" not in r.text, name
    for day in ("../../etc/passwd", "2026-13-45", "today"):
        assert c.get(f"/journal/{day}").status_code == 404, day


def test_settings_show_each_layer_and_never_the_key(project: Project) -> None:
    write(project.root, ".gitgarden/config.toml", "idle_min = 5\n")
    key = "sk-very-secret-key-1234567890"
    c = client(project, env={"GITGARDEN_MODEL": "openai/gpt-4o-mini", "GITGARDEN_API_KEY": key, "GITGARDEN_TIMEOUT": "60"})
    html = c.get("/settings").text
    assert key not in html
    words = text_of(html)
    assert re.search(r"idle_min\s+5\s+project", words) and re.search(r"timeout\s+60\s+env", words)
    assert re.search(r"API key\s+sent \(from the environment \(GITGARDEN_API_KEY\)\)", words)
    assert "openai/gpt-4o-mini" in words


def test_the_garden_shows_what_status_shows_and_the_last_passes(acme: tuple[Project, str]) -> None:
    project, pass_id = acme
    capture(project, "2026-11-29", "Acme wants export before January", "Dana starts Monday")
    with (project.root / "wiki/index.md").open("a") as fh:
        fh.write("- Does [[acme]] want export before January?\n")
    status = json.loads(invoke(project, "status", "--json").stdout)
    html = client(project).get("/").text
    words = " ".join(text_of(html).split())
    assert status["unread"] == 2 and "LINES WAITING 2".lower() in words.lower()
    assert f'href="/pass/{pass_id}"' in html and "pages written" in words
    assert 'Does <a class="wl" href="/page/acme" title="acme">acme</a> want export before January?' in html
    assert "pages 1 (0–1)" not in words and "pages 1 (1–1)" in words  # the chart: one pass, one page
    assert "not registered for tick" in words  # the clock that holds it back, as status says
