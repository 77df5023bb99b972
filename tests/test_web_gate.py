"""The gate of `gitgarden serve` against a hostile caller, through the framework's test client: a
cookie another local app received changes nothing, redirects stay on the server, `/static/` deep in
a path is not a way past the token, hidden files are never served, a flood of a form is cut, and no
request, however odd its path, ends in a server error."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import pytest

from gitgarden.project import Project
from gitgarden.web.app import make_app
from gitgarden.web.safety import KEY_FIELD, POST_LIMIT, cookie_value, csrf_value, form_key
from gitgarden.web.site import Site
from tests.helpers.project import FIXED_NOW, FakeModel, capture, commit_all, git, workspace, write
from tests.helpers.project import garden as run_garden
from tests.helpers.web_client import BASE, PORT, TOKEN, client, created, form, root_vault


@pytest.fixture
def acme(project: Project) -> tuple[Project, str]:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    result = run_garden(project, FakeModel().enqueue({"operations": [created("acme", "Acme", "Acme is the pilot customer.\n", "2026-11-28#1")]}))
    assert result.outcome == "pages_written", result.refusals
    return project, result.pass_id


def test_the_cookie_holds_no_token_and_the_key_comes_only_in_the_fragment(acme: tuple[Project, str]) -> None:
    project, _ = acme
    c = client(project, token=False)
    r = c.get(f"/journal?token={TOKEN}", follow_redirects=False)
    cookie = r.headers["set-cookie"].split(";")[0].split("=", 1)[1]
    assert TOKEN not in r.headers["set-cookie"] and cookie == cookie_value(TOKEN)
    path, _, fragment = r.headers["location"].partition("#")
    assert path == "/journal" and fragment == f"gitgarden-key={form_key(TOKEN)}"  # never sent to a server again
    # Whoever received the cookie cannot present it as the token to be given the key.
    assert c.get(f"/?token={cookie}", follow_redirects=False).status_code == 403
    page = c.get("/journal")
    assert page.status_code == 200 and form_key(TOKEN) not in page.text and TOKEN not in page.text


def test_a_cookie_and_a_page_read_with_it_change_nothing_without_the_key(acme: tuple[Project, str]) -> None:
    """What another local web app has when the person's browser sent it the garden's cookie: the
    cookie, and every page it reads with it (the forms' CSRF value included). Not the key."""
    project, pass_id = acme
    replay = client(project)
    html = replay.get("/journal").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', html)
    assert csrf is not None
    before, head = workspace(project.root), git(project.root, "rev-parse", "HEAD")
    for url, fields in (("/journal/capture", {"text": "planted by another app"}), (f"/pass/{pass_id}/undo", {}), ("/run/start", {})):
        r = replay.post(url, data={"csrf": csrf.group(1), **fields}, follow_redirects=False)
        assert r.status_code == 403 and "key of this start" in r.text, url
    assert workspace(project.root) == before and git(project.root, "rev-parse", "HEAD") == head
    assert replay.post("/journal/capture", data=form(text="the person's own line"), follow_redirects=False).status_code == 303


def test_a_wrong_csrf_value_or_key_is_refused(acme: tuple[Project, str]) -> None:
    project, _ = acme
    c = client(project)
    before = workspace(project.root)
    for fields in (
        {"csrf": "0" * 64, KEY_FIELD: form_key(TOKEN)},
        {"csrf": csrf_value(TOKEN)[:-1] + "x", KEY_FIELD: form_key(TOKEN)},
        {"csrf": csrf_value(TOKEN), KEY_FIELD: "0" * 64},
        {"csrf": csrf_value(TOKEN), KEY_FIELD: cookie_value(TOKEN)},
        {"csrf": csrf_value("another start"), KEY_FIELD: form_key("another start")},
    ):
        r = c.post("/journal/capture", data={**fields, "text": "a line"}, follow_redirects=False)
        assert r.status_code == 403, fields
    assert workspace(project.root) == before


@pytest.mark.parametrize("path", ["//evil.example/", "/\\evil.example/", "/\\/evil.example/", "///evil.example/x", "/%2F%2Fevil.example/"])
def test_the_tokens_redirect_stays_on_the_server(acme: tuple[Project, str], path: str) -> None:
    project, _ = acme
    c = client(project, token=False)
    r = c.get(f"{path}?token={TOKEN}", follow_redirects=False)
    location = r.headers["location"]
    assert r.status_code == 303 and location.startswith("/") and not location.startswith(("//", "/\\")), location
    assert urlsplit(urljoin(BASE + "/", location)).netloc == BASE.split("//")[1], location  # as a browser reads it


def test_static_deep_in_a_path_is_no_way_past_the_token(acme: tuple[Project, str]) -> None:
    project, _ = acme
    c = client(project, token=False)
    for path in ("/page/acme/static/x", "/page/static/acme", "/journal/static/2026-11-28", "/file/static/x.png", "/static/../page/acme", "/static%2F../page/acme"):
        r = c.get(path)
        assert r.status_code in (403, 404) and "pilot customer" not in r.text, path
    assert c.get("/page/acme/static/b").status_code == 403
    assert c.get("/static/garden.css").status_code == 200  # the package's own files need no token


def test_hidden_files_of_the_wiki_are_never_served(tmp_path: Path) -> None:
    project = root_vault(tmp_path)
    root = project.root
    write(root, ".env", "API_KEY=sk-hidden-secret\n")
    write(root, ".obsidian/plugins/sync/data.json", '{"token": "sk-hidden-secret"}\n')
    write(root, "Attachments/.secret.png", "sk-hidden-secret")
    write(root, ".hidden/diagram.png", "sk-hidden-secret")
    commit_all(root)
    c = client(project)
    for rel in (".env", ".obsidian/plugins/sync/data.json", "Attachments/.secret.png", ".hidden/diagram.png", "%2eenv", "Attachments/%2esecret.png"):
        r = c.get("/file/" + rel)
        assert r.status_code in (403, 404) and b"sk-hidden-secret" not in r.content, rel
    assert c.get("/file/Attachments/diagram.png").status_code == 200


def test_a_form_larger_than_the_cap_is_refused_and_changes_nothing(acme: tuple[Project, str]) -> None:
    project, _ = acme
    c = client(project)
    before = workspace(project.root)
    body = "&".join(f"{k}={v}" for k, v in form().items()) + "&text=" + "a" * POST_LIMIT
    r = c.post("/journal/capture", content=body, headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 403 and f"more than {POST_LIMIT:,} bytes" in r.text
    assert workspace(project.root) == before
    ok = c.post("/journal/capture", data=form(text="a" * 1000), follow_redirects=False)
    assert ok.status_code == 303  # a long note still fits


ODD = (
    "%00", "a%00b", "%2e%2e", "%2e%2e%2f%2e%2e%2fetc%2fpasswd", "..%2f..%2f", "%c0%ae%c0%ae", "%c0%af", "%ff%fe",
    "%e2%80%ae", "%0a%0d", "%1b%5b31m", "%ef%bf%bf", "%f4%90%80%80", "%ed%a0%80", "%25", "%", "%zz", "CON", "x" * 5000,
    "%2F" * 300, "a/" * 400, "²", "%C2%B2", "ü", ".git", ".", "~", "-rf", "--help", "HEAD", "HEAD~999", "main@{u}", ":/",
    "pic.png%7C%C2%B2",
)


def _routes(project: Project) -> list[tuple[str, str]]:
    """(path, method) of every route of the app."""
    site = Site(project.root, {"GITGARDEN_MODEL": "fake/scripted"}, lambda: FIXED_NOW, lambda _s, _e: None, TOKEN, "127.0.0.1", PORT)
    return [(r.path, m) for r in make_app(site).routes for m in sorted(getattr(r, "methods", ())) if m != "HEAD"]


def test_no_request_ends_in_a_server_error(acme: tuple[Project, str]) -> None:
    """Every route, each parameter odd (NUL, `..` encoded, overlong UTF-8, huge, non-ASCII digits):
    an answer of the app (a page, 403, 404, 405, 409), never a 500 or a traceback."""
    project, pass_id = acme
    write(project.root, "wiki/pic.png", "\x89PNG")
    write(project.root, "wiki/widths.md", "---\ntitle: Widths\n---\n![[pic.png|²]] ![[pic.png|٣]] ![[pic.png|99999999999999999999]]\n")
    commit_all(project.root)
    c = client(project)
    assert c.get("/page/widths").status_code == 200
    seen = 0
    for route, method in _routes(project):
        # A POST with a parameter reaches its handler (an undo of an odd pass id); one without
        # (start a pass, capture) is fuzzed through the gate only, so nothing starts.
        fields = (form() if "{" in route else {"csrf": "x"}) if method == "POST" else None
        for odd in ODD:
            path = re.sub(r"\{[^}]+\}", odd, route)
            for query in ("", "?note=%00&probe=%ff&pass=%2e%2e"):
                r = c.request(method, path + query, data=fields, follow_redirects=False)
                seen += 1
                assert r.status_code != 500 and "Traceback" not in r.text, (method, path[:80], query, r.text[:300])
        r = c.get(route.split("{")[0] + f"?token={quote(TOKEN)}%00", follow_redirects=False)
        assert r.status_code == 403, route
    assert seen > 500
    assert c.get(f"/pass/{pass_id}").status_code == 200


def test_the_garden_has_an_address_of_its_own_and_falls_back_to_127_0_0_1_saying_what_that_leaves(tmp_path: Path) -> None:
    import ipaddress

    from gitgarden.web.server import bind_own, own_address

    one, other = own_address(tmp_path / "a"), own_address(tmp_path / "b")
    assert one == own_address(tmp_path / "a") and one != other  # the same each start, one a project
    assert ipaddress.ip_address(one) in ipaddress.ip_network("127.0.0.0/8") and one != "127.0.0.1"
    said: list[str] = []
    host, sock = bind_own(one, 0, said.append)
    sock.close()
    assert (host, said) == (one, [])  # Linux answers on every 127.x.y.z
    host, sock = bind_own("192.0.2.7", 0, said.append)  # an address no interface of this machine has
    sock.close()
    assert host == "127.0.0.1"
    assert said == [
        "note: this machine answers only on 127.0.0.1, so other web apps you open there receive this garden's cookie: "
        "they cannot change the garden, but could read it. To give it an address of its own: sudo ifconfig lo0 alias 192.0.2.7 up"
    ]


def test_a_wikilinks_label_is_text_resolved_or_broken(acme: tuple[Project, str]) -> None:
    project, _ = acme
    write(
        project.root,
        "wiki/labels.md",
        "---\ntitle: Labels\n---\nSee [[acme|<img src=x onerror=alert(1)>]] and [[nowhere|<img src=y onerror=alert(2)>]].\n",
    )
    commit_all(project.root)
    html = client(project).get("/page/labels").text
    assert "<img src=x" not in html and "<img src=y" not in html
    assert re.search(r'<a class="wl" href="/page/acme"[^>]*>&lt;img src=x onerror=alert\(1\)&gt;</a>', html), html
    assert re.search(r'<span class="wl broken"[^>]*>&lt;img src=y onerror=alert\(2\)&gt;</span>', html), html
