"""An Obsidian vault's notes in a real browser (Debian's Chromium, driven by Playwright) against a real
`gitgarden serve`: callouts open and fold, a highlight, a tag, an embedded note, a link to a block id
that lands on the block, a wide table that scrolls inside its card, and no script of a note runs.

A screenshot of every page goes to `screenshots/` under the test's temporary folder.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gitgarden.project import Project
from tests.helpers.vault import FORMATTED, QUOTED, build_formatted, make_vault

CHROMIUM = os.environ.get("GITGARDEN_CHROMIUM", "/usr/bin/chromium")
try:
    from playwright.sync_api import Browser, Page, sync_playwright
except ImportError:  # pragma: no cover - the skip below says why
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.skipif(
        sync_playwright is None or not Path(CHROMIUM).exists(),
        reason=f"no browser: the browser tests need Playwright's Python package and Chromium at {CHROMIUM}",
    ),
    pytest.mark.slow,
]
WAIT = 60_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert sync_playwright is not None
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


@contextmanager
def served(project: Project) -> Iterator[tuple[str, str]]:
    """`gitgarden serve` in the project: (the printed address with its token, the bare address)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitgarden", "serve"], cwd=project.root, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert re.match(r"http://127\.\d+\.\d+\.\d+:\d+/", url), proc.stderr.read() if proc.poll() is not None else url  # the garden's own loopback address
        yield url, url.split("/?", 1)[0]
    finally:
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err


def in_view(pg: Page, selector: str) -> bool:
    """True when the element's top stands inside the window (the browser scrolled to it)."""
    return bool(pg.eval_on_selector(selector, "e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; }"))


def test_a_vaults_notes_show_as_obsidian_shows_them(browser: Browser, tmp_path: Path) -> None:
    shots = tmp_path / "screenshots"
    shots.mkdir()
    project = make_vault(tmp_path / "vault", "wiki")
    build_formatted(project.root, "wiki")
    dialogs: list[str] = []
    with served(project) as (url, base):
        pg = browser.new_context(viewport={"width": 1280, "height": 700}).new_page()
        pg.set_default_timeout(WAIT)
        pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        pg.goto(url)
        pg.goto(base + "/page/" + FORMATTED.removesuffix(".md"))
        tip = pg.locator(".callout-tip")
        assert tip.locator(".callout-title").inner_text() == "Keep it short"
        assert tip.locator("mark").inner_text() == "highlight" and tip.locator("u").inner_text() == "plain"
        folded = pg.locator("details.callout-warning")
        assert not folded.locator(".callout-note").is_visible()  # folded with `-` until opened
        pg.screenshot(path=str(shots / "01-note.png"), full_page=True)
        folded.locator("summary").click()
        assert folded.locator(".callout-note").inner_text().endswith("Nested callouts keep their own box.")
        assert pg.locator(".hashtag").first.inner_text() == "#review/weekly"
        assert "The novel everyone should read first." in pg.locator(".embed-note").inner_text()
        wrap = pg.locator(".table-wrap")
        assert wrap.evaluate("e => e.scrollWidth > e.clientWidth")  # the wide table scrolls inside its box
        card, box = pg.locator(".page-body").bounding_box(), wrap.bounding_box()
        assert card is not None and box is not None and box["x"] + box["width"] <= card["x"] + card["width"]
        pg.get_by_role("link", name="^todo-list").click()
        pg.wait_for_url(re.compile(r"#b-todo-list$"))
        assert in_view(pg, "#b-todo-list") and pg.locator("#b-todo-list").inner_text().startswith("Ship the export")
        pg.screenshot(path=str(shots / "02-block-link-same-page.png"))
        pg.get_by_role("link", name="the best book").click()
        pg.wait_for_url(base + "/page/" + QUOTED.removesuffix(".md").replace(" ", "%20") + "#b-best-book")
        assert in_view(pg, "#b-best-book") and pg.locator("#b-best-book").inner_text() == "The novel everyone should read first."
        pg.screenshot(path=str(shots / "03-block-link-other-page.png"), full_page=True)
        assert dialogs == []  # `<img onerror>`, `<u onclick>`, `javascript:` and `<script>` in the note ran nothing
