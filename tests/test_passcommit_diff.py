"""The dry run's diff reads like git's, even for a file without a final newline."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitgarden.gardener.commit import diff
from gitgarden.wiki.tree import file


def test_a_file_without_a_final_newline_gets_gits_marker_not_a_glued_line() -> None:
    before = {"wiki/acme.md": file("# Acme\n\nAcme signed the pilot.")}
    after = {"wiki/acme.md": file("# Acme\n\nAcme signed the pilot.\nThe pilot starts in May.\n")}
    text = diff(before, after, ["wiki/acme.md"])
    assert text.splitlines()[-4:] == [
        "-Acme signed the pilot.",
        "\\ No newline at end of file",
        "+Acme signed the pilot.",
        "+The pilot starts in May.",
    ]
    assert "pilot.+" not in text and "pilot.-" not in text


def test_the_diff_applies_with_git_apply(tmp_path: Path) -> None:
    old, new = "one\ntwo", "one\ntwo\nthree"
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki/p.md").write_text(old)
    patch = diff({"wiki/p.md": file(old)}, {"wiki/p.md": file(new)}, ["wiki/p.md"])
    (tmp_path / "x.patch").write_text(patch)
    subprocess.run(["git", "apply", "x.patch"], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "wiki/p.md").read_text() == new
    back = diff({"wiki/p.md": file(new)}, {"wiki/p.md": file(old)}, ["wiki/p.md"])
    assert back.endswith("+two\n\\ No newline at end of file\n")


def test_a_carriage_return_is_part_of_its_line() -> None:
    text = diff({"wiki/p.md": file("a\rb\n")}, {"wiki/p.md": file("a\rb\nc\n")}, ["wiki/p.md"])
    assert "No newline" not in text and "+c\n" in text
