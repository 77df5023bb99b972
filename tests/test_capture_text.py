"""What a captured line may hold, from every face (the CLI, an agent's door, the web app): one capture,
one line each for each line given, or a refusal naming the character; and every output of the command
line shows stored text with the characters a terminal would act on escaped."""

from __future__ import annotations

import pytest

from gitgarden.agents.tools import Door
from gitgarden.errors import GitgardenError
from gitgarden.project import Project
from gitgarden.wiki.journal import capture_refusal
from tests.helpers.project import FIXED_NOW, commit_all, invoke, workspace, write
from tests.helpers.web_client import client, form

DAY = f"{FIXED_NOW:%Y-%m-%d}"
REFUSED = {
    "\x1b": "U+001B (a control character",
    "\x07": "U+0007 (a control character",
    "\x00": "U+0000 (a control character",
    "\x7f": "U+007F (a control character",
    "\x9b": "U+009B (a control character",
    "\x08": "U+0008 (a control character",
    "\x0b": "U+000B (a vertical tab, which would split one line into several",
    "\x0c": "U+000C (a form feed, which would split one line into several",
    "\x1c": "U+001C (a file separator, which would split one line into several",
    "\x1d": "U+001D (a group separator, which would split one line into several",
    "\x1e": "U+001E (a record separator, which would split one line into several",
    "\x85": "U+0085 (a next-line character, which would split one line into several",
    "\u2028": "U+2028 (a line separator, which would split one line into several",
    "\u2029": "U+2029 (a paragraph separator, which would split one line into several",
}


def _cli(project: Project, text: str) -> str:
    r = invoke(project, "capture", text)
    if r.exit_code != 0:
        raise GitgardenError(r.output.strip().removeprefix("gitgarden: "))
    return r.output


def _door(project: Project, text: str) -> object:
    return Door(project, {}, lambda: FIXED_NOW).capture(text, client="an agent")


def _web(project: Project, text: str) -> object:
    r = client(project).post("/journal/capture", data=form(text=text), follow_redirects=False)
    if r.status_code != 303:
        raise GitgardenError(r.text)
    return r


FACES = {"cli": _cli, "door": _door, "web": _web}


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("char", REFUSED)
def test_a_control_character_or_a_stray_line_break_is_refused_by_every_face_naming_it(project: Project, face: str, char: str) -> None:
    before = workspace(project.root)
    text = f"Acme signed{char}]0;pwned the pilot"
    with pytest.raises(GitgardenError) as refused:
        FACES[face](project, text)
    assert REFUSED[char] in str(refused.value) and "at character 12" in str(refused.value)
    assert "nothing captured" in str(refused.value)
    assert workspace(project.root) == before  # no day file, no part of a line


@pytest.mark.parametrize("face", FACES)
def test_one_capture_gives_one_line_for_each_line_given_and_no_more(project: Project, face: str) -> None:
    FACES[face](project, "Acme signed\twith a tab\r\nDana joined\rcafé, naïve, 東京, مرحبا\n\n")
    lines = (project.journal / f"{DAY}.md").read_text().split("\n")
    assert lines == ["Acme signed\twith a tab", "Dana joined", "café, naïve, 東京, مرحبا", ""]
    assert len(lines) - 1 == len((project.journal / f"{DAY}.md").read_text().splitlines())  # as a pass counts them


def test_the_policy_is_one_pure_function() -> None:
    assert capture_refusal("Acme signed\nDana joined") is None
    assert capture_refusal("a\x1bb") == (
        "nothing captured: the text holds U+001B (a control character, which a journal line may not hold) at character 2; "
        "take it out and capture again"
    )
    assert capture_refusal(" \n ") == "nothing to capture: give text with at least one non-blank line"


HOSTILE = "Acme \x1b]0;retitled\x07 and \x1b]52;c;cHduZWQ=\x07 \u202eRUE 005\u202c \x9b31m"
SHOWN = "Acme \\x1b]0;retitled\\x07 and \\x1b]52;c;cHduZWQ=\\x07 \\u202eRUE 005\\u202c \\x9b31m"


def test_stored_text_is_escaped_on_every_output_of_the_command_line(project: Project) -> None:
    """A day file and a page written by hand (an editor, an agent's commit) hold what capture refuses;
    `search`, `status` and `health` show it escaped, never raw."""
    write(project.root, "raw/journal/2026-11-29.md", f"{HOSTILE}\n# heading {HOSTILE}\n")
    write(project.root, "wiki/acme.md", f"---\ntitle: Acme {HOSTILE}\nstate: open\n---\n{HOSTILE}\n")
    commit_all(project.root)
    outputs = {
        "search": invoke(project, "search", "Acme"),
        "search --limit 1": invoke(project, "search", "--limit", "1", "retitled"),
        "status": invoke(project, "status"),
        "health": invoke(project, "health"),
    }
    for name, r in outputs.items():
        assert r.exit_code == 0, (name, r.output)
        raw = [c for c in r.output if c in "\x1b\x07\x9b\u202e\u202c"]
        assert raw == [], (name, r.output)
    assert "**Acme** " + SHOWN.removeprefix("Acme ") in outputs["search"].output
    assert "# heading Acme \\x1b]0;retitled" in outputs["status"].output
