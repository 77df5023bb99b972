"""`gitgarden serve` in a real browser: headless Chromium (Debian's `chromium`, driven by Playwright)
against a real `gitgarden serve` process on loopback, a person's clicks and what they change on disk.
The model is a scripted OpenAI-compatible server on loopback (tests/helpers/fake_openai.py).

A screenshot of every page goes to `screenshots/` under the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.history.passlog import passes
from gitgarden.project import Project
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.project import (
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    git,
    invoke,
    page,
    workspace,
    write,
)

CHROMIUM = os.environ.get("GITGARDEN_CHROMIUM", "/usr/bin/chromium")
try:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - the skip below says why
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(
        sync_playwright is None or not Path(CHROMIUM).exists(),
        reason=f"no browser: the browser tests need Playwright's Python package and Chromium at {CHROMIUM} "
        "(apt-get install chromium; .ci/run installs both)",
    ),
    pytest.mark.litellm,  # passes started in the browser reach the scripted model through litellm
    pytest.mark.slow,
]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"]
WAIT = 60_000  # ms a step of a test waits for the page (litellm's first import alone takes seconds)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert sync_playwright is not None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = tmp_path / "screenshots"
    folder.mkdir()
    return folder


@contextmanager
def served(project: Project, env: dict[str, str] | None = None, *args: str) -> Iterator[tuple[str, str]]:
    """`gitgarden serve` in the project: (the printed address with its token, the bare address). On
    leaving, Ctrl-C ends it, cleanly."""
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitgarden", "serve", *args], cwd=project.root, env=full_env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.\d+\.\d+\.\d+:\d+/\?token=[\w-]{40,}", url), (url, proc.stderr.read() if proc.poll() is not None else "")
        yield url, url.split("/?", 1)[0]
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert err.rstrip().endswith("Stopped serving."), err
    assert "Traceback" not in err, err


def snap(pg: Page, shots: Path, name: str) -> None:
    pg.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def open_page(browser: Browser, url: str) -> Page:
    pg = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
    pg.set_default_timeout(WAIT)
    pg.goto(url)
    return pg


def model_env(server: FakeOpenAI) -> dict[str, str]:
    return {
        "GITGARDEN_MODEL": "openai/fake",
        "GITGARDEN_API_BASE": server.base_url,
        "GITGARDEN_API_KEY": "sk-test-key-never-shown",
        "GITGARDEN_NUM_RETRIES": "0",
        "GITGARDEN_IDLE_MIN": "0",
        "GITGARDEN_MODE": "full",  # the fake server is on loopback: auto would choose small mode (#24)
    }


def pass_with(project: Project, *ops: dict[str, Any], settings: Settings | None = None) -> str:
    result = run_pass(project, settings or Settings(model="fake/scripted"), model=FakeModel().enqueue({"operations": list(ops)}), now=lambda: FIXED_NOW)
    assert result.outcome == "pages_written", (result.refusals, result.detail)
    return result.pass_id


def acme_op(line: str = "2026-11-28#1") -> dict[str, Any]:
    return {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme is the pilot customer.\n", "lines": [line]}


def test_the_garden_a_pass_and_its_undo(browser: Browser, project: Project, shots: Path) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer", "lunch was good")
    pass_with(project, acme_op(), {"op": "skip", "lines": ["2026-11-28#2"]})
    capture(project, "2026-11-29", "Acme wants export before January", "<script>alert('x')</script> is how the old site did it")
    second = pass_with(project, {"op": "append", "page": "acme", "text": "Acme wants export before January.\n", "lines": ["2026-11-29#1"]}, {"op": "skip", "lines": ["2026-11-29#2"]})
    with served(project) as (url, base):
        pg = open_page(browser, url)
        assert pg.url == base + "/"  # the token left the address bar for a cookie
        pg.get_by_role("link", name=re.compile("Lines waiting")).wait_for()
        snap(pg, shots, "01-garden")
        pg.get_by_role("link", name="Passes", exact=True).click()
        pg.wait_for_url(base + "/passes")
        snap(pg, shots, "02-passes")
        pg.locator(f'a[href="/pass/{second}"]').click()
        pg.locator(".diff .add").filter(has_text="Acme wants export before January.").first.wait_for()
        snap(pg, shots, "03-pass")
        pg.get_by_role("link", name="Undo this pass…").click()
        snap(pg, shots, "04-undo-confirm")
        pg.get_by_role("button", name="Undo the pass").click()
        pg.locator(".note").wait_for()
        assert pg.locator(".note").inner_text().startswith(f"Undid pass {second}")
        assert "export before January" not in (project.root / "wiki/acme.md").read_text()  # on disk
        assert passes(project.root)[0].undone_by
        snap(pg, shots, "05-undone")
        pg.goto(base + "/page/acme")
        pg.locator("details.trace summary").first.click()
        cited = pg.locator(".trace-box").first.inner_text()
        assert "2026-11-28#1" in cited and "Acme is the pilot customer" in cited
        snap(pg, shots, "06-page-provenance")
        pg.goto(base + "/journal/2026-11-29")
        assert pg.get_by_text("<script>alert('x')</script> is how the old site did it").count() == 1  # text, not a script
        snap(pg, shots, "07-journal-day")
        for path, name in (("/pages", "08-pages"), ("/map", "09-map"), ("/health", "10-health"), ("/settings", "11-settings"), ("/journal", "12-journal")):
            pg.goto(base + path)
            snap(pg, shots, name)


def test_capture_then_a_rehearsal_watched_to_its_end(browser: Browser, project: Project, shots: Path) -> None:
    with FakeOpenAI() as server, served(project, model_env(server)) as (url, base):
        pg = open_page(browser, url)
        pg.get_by_role("link", name="Journal", exact=True).click()
        pg.get_by_label(re.compile("One fact a line")).fill("Acme is the pilot customer")
        pg.get_by_role("button", name="Capture").click()
        note = pg.locator(".note").inner_text()
        day_file = re.search(r"in (\S+\.md)", note)
        assert note.startswith("Captured 1 line(s)") and day_file, note
        assert (project.root / day_file.group(1)).read_text() == "Acme is the pilot customer\n"
        snap(pg, shots, "13-captured")
        day = Path(day_file.group(1)).stem
        server.enqueue(json.dumps({"operations": [acme_op(f"{day}#1")]}), chunk_delay=0.05)
        before, head = workspace(project.root), git(project.root, "rev-parse", "HEAD")
        pg.get_by_role("link", name="Run", exact=True).click()
        snap(pg, shots, "14-run-panel")
        pg.get_by_label(re.compile("Rehearse only")).check()
        pg.get_by_role("button", name="Start the pass").click()
        pg.get_by_text("[rehearsal] pages would be written", exact=False).wait_for()
        snap(pg, shots, "15-rehearsal-done")
        assert pg.locator(".diff .add").filter(has_text="Acme is the pilot customer.").count() == 1
        assert workspace(project.root) == before and git(project.root, "rev-parse", "HEAD") == head


def test_stop_a_pass_waiting_on_a_slow_model(browser: Browser, project: Project, shots: Path) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    commit_all(project.root, "journal")
    gate = threading.Event()
    with FakeOpenAI() as server, served(project, model_env(server)) as (url, base):
        reply = json.dumps({"operations": [acme_op()]})
        server.enqueue(reply, gate=gate, gate_after=2, chunk_chars=4)
        try:
            pg = open_page(browser, url)
            pg.goto(base + "/run")
            pg.get_by_role("button", name="Start the pass").click()
            expect(pg.locator("#tokens")).not_to_have_text("0", timeout=WAIT)  # the reply's tokens, as they stream in
            assert pg.locator("#step").inner_text().startswith("asking openai/fake")
            snap(pg, shots, "16-run-live")
            head = git(project.root, "rev-parse", "HEAD")
            pg.get_by_role("button", name="Stop").click()
            pg.get_by_text("stopped on request", exact=False).wait_for()
            snap(pg, shots, "17-run-stopped")
            # Once ended, the live line gives the reply tokens the record kept, not a count "so far".
            recorded = re.search(r"\(([\d,]+) prompt, ([\d,]+) reply\)", pg.locator(".result").inner_text())
            assert recorded is not None
            assert pg.locator("#tokens").inner_text() == recorded.group(2)
            assert "so far" not in pg.locator("#live").inner_text()
            assert git(project.root, "rev-parse", "HEAD") == head and not (project.root / "wiki/acme.md").exists()
        finally:
            gate.set()


def test_accept_one_review_pass_and_reject_another(browser: Browser, project: Project, shots: Path) -> None:
    write(project.root, ".gitgarden/config.toml", "review = true\n")
    capture(project, "2026-11-28", "Acme is the pilot customer", "Dana joined as ops lead")
    write(project.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n"))
    commit_all(project.root, "journal")
    review = Settings(model="fake/scripted", review=True)
    acme = pass_with(project, acme_op(), settings=review)
    dana = pass_with(project, {"op": "create_page", "page": "dana", "title": "Dana", "body": "Dana joined as ops lead.\n", "lines": ["2026-11-28#2"]}, settings=review)
    with served(project) as (url, base):
        pg = open_page(browser, url)
        pg.locator("header nav").get_by_role("link", name=re.compile("^Review")).click()
        snap(pg, shots, "18-review")
        pg.locator(f"#p-{dana}").get_by_role("button", name="Accept this pass").click()
        assert pg.locator(".note").inner_text() == f"Accepted pass {dana} (commit); 1 pass(es) still wait."
        pg.locator(f"#p-{acme}").get_by_role("button", name="Reject this pass").click()
        assert pg.locator(".note").inner_text().startswith(f"Dropped pass {acme}; 0 pass(es) still wait.")
        snap(pg, shots, "19-review-decided")
    assert (project.root / "wiki/dana.md").exists() and not (project.root / "wiki/acme.md").exists()
    assert {e.pass_id: e.review for e in passes(project.root)} == {acme: "rejected", dana: ""}


def _answering(port: int) -> None:
    """Return once the server on `port` answers a request (any status), at most a minute on."""
    for _ in range(600):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            threading.Event().wait(0.1)
    raise AssertionError(f"nothing answered on port {port} within a minute")


def test_serve_refuses_a_taken_port_in_one_line_and_warns_off_loopback(project: Project) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "gitgarden", "serve", "--host", "127.0.0.1", "--port", str(port)], cwd=project.root, capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.strip() == f"gitgarden: cannot serve on 127.0.0.1:{port}: it is in use; pick another with --port (or leave it out for a free one)"
    proc = subprocess.Popen([sys.executable, "-m", "gitgarden", "serve", "--host", "0.0.0.0"], cwd=project.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    address = proc.stdout.readline()
    assert address.startswith("http://0.0.0.0:")
    _answering(int(urlsplit(address.strip()).port or 0))  # the stop comes once the server listens, not during its start
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert err.startswith("warning: serving on 0.0.0.0, which other machines may reach")
    assert proc.returncode == 0


def test_set_the_model_in_the_browser_and_check_it(browser: Browser, project: Project, shots: Path) -> None:
    with FakeOpenAI() as server, served(project) as (url, base):
        pg = open_page(browser, url)
        pg.get_by_role("link", name="Settings", exact=True).click()
        snap(pg, shots, "20-settings-empty")
        pg.get_by_label("model", exact=True).fill("openai/fake")
        pg.get_by_label("api_base", exact=True).fill(server.base_url)
        pg.locator("#f-mode").select_option("full")
        model_form = pg.locator("form.settings-form").filter(has=pg.locator("#f-model"))
        assert model_form.get_by_label(re.compile("your settings on this machine")).is_checked()
        model_form.get_by_role("button", name="Save").click()
        assert pg.locator(".note").inner_text().startswith("Saved model = openai/fake, api_base = http://127.0.0.1:")
        shown = json.loads(invoke(project, "config", "get", "model", "--json", env={"GITGARDEN_MODEL": "", "GITGARDEN_CONFIG": os.environ["GITGARDEN_CONFIG"]}).stdout)
        assert (shown["value"], shown["source"]) == ("openai/fake", "user")
        server.enqueue("ok")
        server.enqueue('{"operations": []}')
        pg.get_by_role("button", name="Check the model").click()
        assert pg.locator(".note").inner_text() == "The model answered."
        assert pg.locator("dd.reachable").inner_text().startswith("yes")
        assert server.requests[0]["path"] == "/v1/chat/completions"  # the probe went to the endpoint set in the form
        snap(pg, shots, "21-settings-checked")


def test_a_skipped_lines_reason_and_read_again(browser: Browser, project: Project, shots: Path) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer", "rain all day")
    pass_id = pass_with(project, acme_op(), {"op": "skip", "lines": ["2026-11-28#2"], "reason": "chatter: weather"})
    with served(project) as (url, base):
        pg = open_page(browser, url)
        pg.goto(base + "/journal/2026-11-28")
        skipped = pg.locator("#l2")
        assert skipped.locator(".state").inner_text() == "skipped"
        assert skipped.locator(".why").inner_text() == f"skipped: chatter: weather · by pass {pass_id}"
        assert pg.locator("#l1 .why").inner_text() == f"on acme · by pass {pass_id}"
        snap(pg, shots, "22-journal-states")
        skipped.get_by_role("button", name="Read again").click()
        assert pg.locator(".note").inner_text().startswith("Line 2026-11-28#2 is unread again (commit ")
        assert pg.locator("#l2 .state").inner_text() == "unread"
        assert pg.locator("#l1 .state").inner_text() == "on a page"
        snap(pg, shots, "23-journal-read-again")
    status = json.loads(invoke(project, "status", "--json").stdout)
    assert status["unread"] == 1  # the next pass offers it again


def test_a_failed_pass_says_why(browser: Browser, project: Project, shots: Path) -> None:
    capture(project, "2026-11-28", "Acme is the pilot customer")
    commit_all(project.root, "journal")
    with FakeOpenAI() as server, served(project, model_env(server)) as (url, base):
        garbage = "I'd love to help! <b>Acme</b> sounds great. " * 20
        server.enqueue(garbage)
        server.enqueue(garbage)
        pg = open_page(browser, url)
        pg.goto(base + "/run")
        pg.get_by_role("button", name="Start the pass").click()
        pg.locator(".result").wait_for()
        assert pg.locator(".done-mark.bad").inner_text() == "✗" and pg.locator("#step").inner_text() == "failed"
        assert pg.locator(".result .outcome.bad").inner_text() == "failed"
        snap(pg, shots, "24-run-failed")
        pg.get_by_role("link", name="see why").click()
        why = pg.locator("#why")
        assert why.locator("h2").inner_text() == "Why it failed"
        assert "bad model output: the reply is not JSON" in why.inner_text()
        assert f"the request for operations to openai/fake at {server.base_url}" in why.inner_text()
        shown = why.locator("pre.reply").inner_text()
        assert shown.startswith("I'd love to help! <b>Acme</b> sounds great.") and shown.endswith("…") and len(shown) == 401
        assert "Acme is the pilot customer" in pg.locator("#unread").inner_text()
        assert f"openai/fake at {server.base_url}" in pg.locator("dl.facts").first.inner_text()
        snap(pg, shots, "25-pass-failed")
        pg.get_by_role("link", name="the whole record").click()
        assert json.loads(pg.locator("body").inner_text())["failure"]["reply"] == garbage


def test_review_item_by_item_lands_one_page_and_not_the_other(browser: Browser, project: Project, shots: Path) -> None:
    write(project.root, ".gitgarden/config.toml", "review = true\n")
    capture(project, "2026-11-28", "Acme is the pilot customer", "Dana joined as ops lead")
    commit_all(project.root, "journal")
    review = Settings(model="fake/scripted", review=True)
    pass_id = pass_with(project, acme_op(), {"op": "create_page", "page": "dana", "title": "Dana", "body": "Dana joined as ops lead.\n", "lines": ["2026-11-28#2"]}, settings=review)
    with served(project) as (url, base):
        pg = open_page(browser, url)
        pg.goto(base + "/review")
        block = pg.locator(f"#p-{pass_id}")
        assert block.locator("li.item").count() == 4  # two pages, two map entries
        snap(pg, shots, "26-review-items")
        block.get_by_label(re.compile(r"take item 2: new page dana")).uncheck()
        block.get_by_label(re.compile(r"take item \d: map entry: \[\[dana\]\]")).uncheck()
        block.get_by_role("button", name="Take the ticked items").click()
        note = pg.locator(".note").inner_text()
        assert re.match(rf"Took item\(s\) 1, [34] of pass {pass_id} \(commit [0-9a-f]{{10}}\)", note) and "1 journal line(s) are unread again" in note, note
        snap(pg, shots, "27-review-items-taken")
    assert (project.root / "wiki/acme.md").exists() and not (project.root / "wiki/dana.md").exists()
    status = json.loads(invoke(project, "status", "--json").stdout)
    assert status["unread"] == 1  # Dana's line waits for the next pass


@contextmanager
def another_app(host: str) -> Iterator[tuple[str, list[str]]]:
    """Another local web app the person opens (a dev server, a notebook): it keeps every `Cookie`
    header the browser sends it."""
    got: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
            got.append(self.headers.get("Cookie", ""))
            body = b"<p>another app</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer((host, 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://{host}:{server.server_address[1]}", got
    finally:
        server.shutdown()
        server.server_close()


def replay(base: str, path: str, cookie: str, form: dict[str, str] | None = None) -> tuple[int, str]:
    """What that app can do with what it received: ask the garden itself, outside any browser."""
    headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
    request = urllib.request.Request(base + path, data=urlencode(form).encode() if form is not None else None, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def capture_in(pg: Page, base: str, text: str) -> str:
    """Capture `text` from the journal's page; the day file it went to."""
    pg.goto(base + "/journal")
    pg.get_by_label(re.compile("One fact a line")).fill(text)
    pg.get_by_role("button", name="Capture").click()
    note = pg.locator(".note").inner_text()
    found = re.search(r"in (\S+\.md)", note)
    assert note.startswith("Captured 1 line(s)") and found, note
    return found.group(1)


def test_another_local_app_gets_nothing_that_reads_or_changes_the_garden(browser: Browser, project: Project) -> None:
    with served(project) as (url, base):
        own = urlsplit(base).hostname
        assert own is not None and own != "127.0.0.1"  # Linux answers on the garden's own address
        pg = open_page(browser, url)
        assert pg.url == base + "/"  # the key's fragment left the address bar too
        day = project.root / capture_in(pg, base, "the person's own line")
        with another_app("127.0.0.1") as (elsewhere, got), another_app(own) as (beside, got_beside):
            pg.goto(elsewhere + "/")
            pg.goto(beside + "/")
        assert got and all("gitgarden" not in c for c in got)  # where other apps live: no cookie of the garden
        assert replay(base, "/journal", got[0])[0] == 403
        # An app on the garden's own address (another port) does receive its cookie, and can read
        # with it; with every cookie and the CSRF value of a page read with them, it changes nothing.
        jar = "; ".join(c for c in (*got, *got_beside) if c)
        status, html = replay(base, "/journal", jar)
        csrf = re.search(r'name="csrf" value="([^"]+)"', html)
        assert status == 200 and csrf is not None
        status, text = replay(base, "/journal/capture", jar, {"csrf": csrf.group(1), "text": "planted by another app"})
        assert status == 403 and "key of this start" in text
        assert day.read_text() == "the person's own line\n"
        capture_in(pg, base, "and a second one")  # the person's page still can
        assert day.read_text() == "the person's own line\nand a second one\n"


def test_on_127_0_0_1_the_cookie_other_apps_receive_changes_nothing(browser: Browser, project: Project) -> None:
    with served(project, None, "--host", "127.0.0.1") as (url, base):
        pg = open_page(browser, url)
        day = project.root / capture_in(pg, base, "the person's own line")
        with another_app("127.0.0.1") as (elsewhere, got):
            pg.goto(elsewhere + "/")
        assert any("gitgarden-" in c for c in got)  # cookies are not kept apart by port
        status, html = replay(base, "/journal", got[0])
        csrf = re.search(r'name="csrf" value="([^"]+)"', html)
        assert csrf is not None, status
        for path in ("/journal/capture", "/run/start", "/review/reject"):
            status, text = replay(base, path, got[0], {"csrf": csrf.group(1), "text": "planted"})
            assert status == 403 and "key of this start" in text, path
        assert day.read_text() == "the person's own line\n"
