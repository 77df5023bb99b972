"""What a pass writes shows what it says: no bidi control or invisible character, whatever the journal
line holds (the scripts that need a joiner keep it); no frontmatter block opening a body, and no
ungrounded line hidden as a heading under one; and no page a pass commits becomes executable."""

from __future__ import annotations

from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.guard import grounding
from gitgarden.guard.diff import PassContext
from gitgarden.guard.plain import hidden_character
from gitgarden.guard.rules import check
from gitgarden.project import Project
from gitgarden.repo.commits import commit_blobs
from gitgarden.wiki.tree import file
from tests.helpers.project import FakeModel, capture, commit_all, garden, git, page, write

NO_REPAIR = Settings(model="fake/scripted", repair_rounds=0)  # the refusal itself, not a second try


def created(body: str, line: str = "2026-11-29#1", name: str = "acme") -> dict[str, Any]:
    return {"operations": [{"op": "create_page", "page": name, "title": "Acme", "body": body, "lines": [line]}]}


@pytest.mark.parametrize(
    ("char", "kind"),
    [
        ("\u202e", "U+202E, a bidi control"),
        ("\u2066", "U+2066, a bidi control"),
        ("\u200f", "U+200F, a bidi control"),
        ("\u061c", "U+061C, a bidi control"),
        ("\u200b", "U+200B, an invisible format character"),
        ("\u2060", "U+2060, an invisible format character"),
        ("\ufeff", "U+FEFF, an invisible format character"),
        ("\u00ad", "U+00AD, an invisible format character"),
        ("\U000e0041", "U+E0041, a tag character"),
        ("\x1b", "U+001B, a control character"),
    ],
)
def test_a_hidden_character_is_refused_even_when_the_journal_line_holds_it(project: Project, char: str, kind: str) -> None:
    line = f"Acme costs {char}500 EUR a month"
    capture(project, "2026-11-29", line)
    commit_all(project.root, "journal")
    result = garden(project, FakeModel().enqueue(created(line + ".\n")), NO_REPAIR)
    assert result.outcome != "pages_written"
    assert any("rule 7 (valid-page)" in r and kind in r for r in result.refusals), result.refusals
    assert not (project.root / "wiki/acme.md").exists()


def test_the_joiners_a_script_needs_and_an_emoji_flag_land(project: Project) -> None:
    line = "Acme's Tehran office می\u200cخواهد the pilot 👩\u200d💻 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    capture(project, "2026-11-29", line)
    commit_all(project.root, "journal")
    result = garden(project, FakeModel().enqueue(created(line + ".\n")))
    assert result.outcome == "pages_written", result.refusals
    assert line in (project.root / "wiki/acme.md").read_text()
    assert hidden_character("a\u200c b") == "U+200C, an invisible format character"  # a joiner beside a space joins nothing
    assert hidden_character("500\u200d00") == "U+200D, an invisible format character"


def test_the_persons_own_hidden_characters_are_carried_by_a_split_not_written() -> None:
    person = page("Acme", "## Team\nDana\u200b leads.\n\n## Money\nCosts 400 EUR.\n")
    base = {"wiki/acme.md": file(person), "wiki/index.md": file("# Map\n")}
    proposed = dict(base)
    proposed["wiki/acme.md"] = file(page("Acme", "## Team\nDana\u200b leads.\n\nSee [[acme-money]].\n"))
    proposed["wiki/acme-money.md"] = file(page("Acme money", "## Money\nCosts 400 EUR.\n"))
    ctx = PassContext(split_parents={"wiki/acme-money.md": "wiki/acme.md"}, own_paths=frozenset(proposed))
    assert not [v for v in check(base, proposed, ctx) if "U+200B" in v.message]
    proposed["wiki/acme-money.md"] = file(page("Acme money", "## Money\nCosts 400 EUR.\nNew\u200b words.\n"))
    assert [v.path for v in check(base, proposed, ctx) if "U+200B" in v.message] == ["wiki/acme-money.md"]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("---\ngardener: false\n---\nAcme is the pilot customer.\n", "rule 11 (grounded) wiki/acme.md: sentence grounded 0.00"),
        ("---\nAcme: pilot customer\n---\nAcme is the pilot customer.\n", "a page's body never starts with a frontmatter block"),
    ],
    ids=["ungrounded", "grounded"],
)
def test_a_body_opening_with_a_frontmatter_block_is_refused(project: Project, body: str, said: str) -> None:
    capture(project, "2026-11-29", "Acme is the pilot customer")
    commit_all(project.root, "journal")
    result = garden(project, FakeModel().enqueue(created(body)), NO_REPAIR)
    assert result.outcome != "pages_written"
    assert said in "\n".join(result.refusals), result.refusals
    assert not (project.root / "wiki/acme.md").exists()


def test_a_line_between_thematic_breaks_is_judged_on_its_own() -> None:
    """`gardener: false` under `---` was glued to the grounded sentence after it and passed."""
    scores = grounding.score_text("---\ngardener: false\n---\nAcme is the pilot customer.\n", ["Acme is the pilot customer"])
    assert [(s.sentence, s.score) for s in scores] == [("gardener: false", 0.0), ("Acme is the pilot customer.", 1.0)]
    assert grounding.sentences("Acme\n***\nDana\n___\nBeta\n===\n") == ["Acme", "Dana", "Beta"]


def test_a_page_made_executable_is_left_to_the_person_and_never_committed_executable(project: Project) -> None:
    """An agent's `chmod +x` on a page: the pass leaves the page (an uncommitted change of the
    person's), and a commit of the bytes a pass wrote takes the mode HEAD has, not the work tree's
    (the page made executable between the pass's write and its commit)."""
    write(project.root, "wiki/acme.md", page("Acme", "Acme is the pilot customer.\n"))
    capture(project, "2026-11-29", "Acme wants export before January")
    commit_all(project.root, "journal and page")
    page_file = project.root / "wiki/acme.md"
    page_file.chmod(0o755)
    reply = {"operations": [{"op": "append", "page": "acme", "text": "Acme wants export before January.\n", "lines": ["2026-11-29#1"]}]}
    result = garden(project, FakeModel().enqueue(reply), NO_REPAIR)
    assert result.refusals == ["append acme: wiki/acme.md has uncommitted changes of yours; left for a later pass"]
    written = page_file.read_bytes() + b"Acme wants export before January.\n"
    page_file.write_bytes(written)  # as a pass writes it; still executable
    commit_blobs(project.root, {"wiki/acme.md": written}, message="a pass", ident=("gitgarden", "g@example.com"))
    assert git(project.root, "ls-tree", "HEAD", "wiki/acme.md").split()[0] == "100644"
    assert git(project.root, "show", "HEAD:wiki/acme.md").encode() == written
