"""A pass taken back after its push was refused: what the person wrote meanwhile is never lost.

Two clones and a bare remote, real git. Clone A's pass lands first; clone B's
push is then refused (`push_tries = 1`) and B's pass is taken back. The person
on B appends a line to the map or to the page B's pass created at one exact
moment (while the push is in flight, right before or right after the take-back
replaces or removes that file), through the pass's `step` callable. Their line
must survive, their index must be as they had it, and the report must not list
what was taken back as written.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.project import Project
from tests.helpers.project import FIXED_NOW, FakeModel, capture, git, write
from tests.helpers.remote import (
    SETTINGS,
    OtherMachineFirst,
    append,
    create,
    garden,
    no_force_push,
)

PERSON_LINE = b"- a line the person typed while the push was in flight\n"
ONE_TRY = replace(SETTINGS, push_tries=1)


class Person:
    """Appends a line to `target` once, at `moment` of the pass (a step name of the take-back)."""

    def __init__(self, root: Path, target: str, moment: str) -> None:
        self.path, self.target, self.moment = root / target, target, moment
        self.wrote = False

    def __call__(self, step: str, rel: str) -> None:
        if self.wrote or step != self.moment or (rel and rel != self.target):
            return
        with open(self.path, "ab") as fh:
            fh.write(PERSON_LINE)
        self.wrote = True


def race(a: Project, b: Project, person: Person) -> tuple[PassResult, PassResult]:
    """A's pass lands while B's model answers; B's pass creates `acme` (and its map entry) and is refused."""
    capture(a, "2026-11-29", "Acme wants export before January")
    capture(b, "2026-11-30", "Acme signed the pilot contract")
    a_result: list[PassResult] = []

    def a_pass() -> None:
        a_result.append(garden(a, FakeModel().enqueue(append("pricing", "Acme wants export before January.\n", "2026-11-29#1"))))

    model = OtherMachineFirst(a_pass).enqueue(create("acme", "Acme", "Acme signed the pilot contract.\n", "2026-11-30#1"))
    result = run_pass(b, ONE_TRY, model=model, now=lambda: FIXED_NOW, step=person)
    return a_result[0], result


MOMENTS = ["pushing", "take_back:before_replace", "take_back:after_replace"]
PAGE_MOMENTS = ["pushing", "take_back:before_remove", "take_back:after_remove"]


@pytest.mark.parametrize(
    ("target", "moment"),
    [("wiki/index.md", m) for m in MOMENTS] + [("wiki/acme.md", m) for m in PAGE_MOMENTS],
)
def test_a_line_typed_while_the_push_is_refused_survives_the_take_back(
    shared: tuple[Path, Project, Project], target: str, moment: str
) -> None:
    remote, a, b = shared
    write(b.root, "AGENTS.md", "# staged by the person on B\n")
    git(b.root, "add", "AGENTS.md")
    index_before = git(b.root, "ls-files", "-s")
    head_before = git(b.root, "rev-parse", "HEAD").strip()
    person = Person(b.root, target, moment)

    a_result, result = race(a, b, person)

    assert a_result.commit
    assert person.wrote, f"the pass never reached {moment} for {target}"
    assert (result.outcome, result.exit_code) == ("failed", 15), result.detail
    assert "taken back" in result.detail
    # The person's line is where they typed it.
    assert PERSON_LINE in (b.root / target).read_bytes()
    # The branch is back where it was, and the index exactly as the person had it.
    assert git(b.root, "rev-parse", "HEAD").strip() == head_before
    assert git(b.root, "ls-files", "-s") == index_before
    status = git(b.root, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert not [s for s in status if s[:2] in ("AM", "MM", "A ") or (s[0] not in " ?" and "AGENTS.md" not in s)], status
    # The report lists nothing as written: the take-back left nothing of the pass committed.
    assert result.created == [] and result.appended == [] and result.commit == ""
    assert result.taken_back
    # A file the person changed is named in the report: their version stays, with the pass's text in it.
    if moment in ("pushing", "take_back:before_replace", "take_back:before_remove"):
        assert target in result.detail, result.detail
    no_force_push(remote)


def test_a_take_back_nobody_races_restores_every_file_and_the_index(shared: tuple[Path, Project, Project]) -> None:
    _remote, a, b = shared
    index_before = git(b.root, "ls-files", "-s")
    map_before = (b.root / "wiki/index.md").read_bytes()
    person = Person(b.root, "wiki/index.md", "never")
    _a, result = race(a, b, person)
    assert (result.outcome, result.exit_code) == ("failed", 15)
    assert not (b.root / "wiki/acme.md").exists()
    assert (b.root / "wiki/index.md").read_bytes() == map_before
    assert git(b.root, "ls-files", "-s") == index_before
    assert git(b.root, "status", "--porcelain", "--untracked-files=all").splitlines() == ["?? raw/journal/2026-11-30.md"]
