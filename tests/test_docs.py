"""The documentation a newcomer meets: a short README that opens with the two commands that work on a
fresh machine, `docs/` with the reference pages made from the code, and no link to a file or heading
that is not there. And the repository itself stays small: no large file, nothing at the top but what
belongs there."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from gitgarden.cli import docs

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
TOP = {"pyproject.toml", "gitgarden", "tests", "docs", "sample-project", "CHANGELOG.md", "README.md", ".ci"}
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def markdown_files() -> list[Path]:
    return [README, *sorted((REPO / "docs").rglob("*.md"))]


def test_the_generated_references_are_what_the_code_makes_now() -> None:
    for rel, text in docs.pages().items():
        on_disk = (REPO / rel).read_text(encoding="utf-8") if (REPO / rel).is_file() else ""
        assert on_disk == text, f"{rel} is out of date: run `{docs.REGENERATE}` at the repository's top"


def test_every_command_and_setting_is_in_the_references() -> None:
    from gitgarden.config import SPECS

    commands = (REPO / "docs/commands.md").read_text(encoding="utf-8")
    for name in ("gitgarden run", "gitgarden llm status", "gitgarden review accept", "gitgarden hook install", "gitgarden mcp"):
        assert f"\n## {name}\n" in commands, name
    settings = (REPO / "docs/settings.md").read_text(encoding="utf-8")
    assert all(f"| `{spec.key}` |" in settings for spec in SPECS)


def _anchors(text: str) -> set[str]:
    """The anchors a forge gives the headings of a Markdown text (GitHub's rule: lower case, spaces to
    hyphens, punctuation dropped, a repeated heading numbered)."""
    seen: dict[str, int] = {}
    found = set()
    for line in FENCE.sub("", text).splitlines():
        m = re.match(r"#{1,6} +(.*?) *#* *$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def _links(text: str) -> list[str]:
    prose = FENCE.sub("", text)
    prose = re.sub(r"`[^`\n]*`", "", prose)  # a link written as code is an example, not a link
    return LINK.findall(prose)


def test_no_link_in_the_readme_or_docs_points_at_a_missing_file_or_heading() -> None:
    broken = []
    for path in markdown_files():
        for target in _links(path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # https://, mailto: — outside the repository
            rel, _, anchor = target.partition("#")
            dest = (path.parent / rel).resolve() if rel else path
            if not dest.exists():
                broken.append(f"{path.relative_to(REPO)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest.read_text(encoding="utf-8")):
                broken.append(f"{path.relative_to(REPO)}: {target} (no such heading)")
    assert broken == []


def test_the_links_are_checked_for_real() -> None:
    """The check above finds links and headings at all (or it would pass on anything)."""
    readme = README.read_text(encoding="utf-8")
    assert "docs/architecture.md" in _links(readme)
    assert "the-parts" in _anchors((REPO / "docs/architecture.md").read_text(encoding="utf-8"))
    assert _links("see `[x](nowhere.md)` and [y](there.md#a)\n```\n[z](code.md)\n```\n") == ["there.md#a"]


def _blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)


def test_the_readme_is_short_and_opens_with_the_demo_and_the_test_command() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    before = text.split("\n## ", 1)[0]  # everything above the first section
    demo, tests = _blocks(before)[:2]
    assert "cp -R sample-project/." in demo and '.venv/bin/gitgarden" run' in demo
    ci = (REPO / ".ci/run").read_text(encoding="utf-8")
    commands = [line for line in ci.splitlines() if line and not line.startswith("#") and not line.startswith(("set ", "cd "))]
    assert tests.splitlines() == commands, "the README's test command and .ci/run must run the same"


def test_nothing_points_at_a_design_document_the_repository_does_not_hold() -> None:
    places = [REPO / "gitgarden", REPO / "docs", README, REPO / "CHANGELOG.md"]
    found = []
    for place in places:
        for path in [place] if place.is_file() else sorted(p for p in place.rglob("*") if p.suffix in (".py", ".md", ".html")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"DESIGN(\.md| ?§)", line):
                    found.append(f"{path.relative_to(REPO)}:{n}")
    assert found == []


def test_no_tracked_file_is_large_and_the_top_holds_only_what_belongs_there() -> None:
    listed = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, text=True, check=True).stdout
    files = [f for f in listed.split("\0") if f]
    assert files, "git lists no file: the check would be vacuous"
    large = [f for f in files if (REPO / f).is_file() and (REPO / f).stat().st_size > 1_000_000]
    assert large == []
    top = {f.split("/", 1)[0] for f in files}
    assert {t for t in top if not t.startswith(".")} <= TOP, sorted(top - TOP)
    images = [f for f in files if f.startswith("docs/images/")]
    assert images and all((REPO / f).stat().st_size <= 200_000 for f in images)
