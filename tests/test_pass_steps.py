"""The steps of a pass, each alone: read, ask, apply and guard, account, map last.

Each test builds the state a step takes (from a real project, or by hand)
and checks what the step makes of it, without running the rest of the pass.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.gardener import apply as passapply
from gitgarden.gardener import ask as passask
from gitgarden.gardener import read as passread
from gitgarden.gardener import setaside
from gitgarden.gardener import tidying as passtidy
from gitgarden.gardener.outcome import PassResult
from gitgarden.gardener.state import Pass, Reading, StandDown, Stopped, Work, request_stop
from gitgarden.history import records
from gitgarden.model.llm import Answer, Usage
from gitgarden.model.operations import parse_reply
from gitgarden.project import Project
from gitgarden.repo.gitdir import git_dir
from gitgarden.wiki import journal, tidy
from gitgarden.wiki.tree import Overlay, file, text_of
from tests.helpers.project import FIXED_NOW, SETTINGS, FakeModel, commit_all, page, write

DAY = "2026-11-29"
LINES = "Acme signed the pilot contract\nAcme wants export before January\nbought coffee\nthe van needs new tyres\n"


def start(project: Project, model: FakeModel | None = None, *, settings: Settings = SETTINGS, **result: Any) -> Pass:
    """A pass's state as `run_pass` makes it, before its first step."""
    made = PassResult(
        pass_id="20261130T090000Z-beef",
        outcome="failed",
        started=FIXED_NOW.isoformat(),
        record_path=records.log_path(FIXED_NOW),
        **result,
    )
    return Pass(project, settings, model, lambda: FIXED_NOW, made, git_dir(project.root))  # type: ignore[arg-type]


def day_lines(text: str = LINES) -> list[journal.JournalLine]:
    return journal.parse_day(DAY, text)


def answer(*ops: dict[str, Any]) -> Answer:
    """A validated reply, as the ask step returns it, closing a one-message conversation."""
    reply = json.dumps({"operations": list(ops)})
    conversation = [{"role": "user", "content": "the prompt"}, {"role": "assistant", "content": reply}]
    return Answer(operations=parse_reply(reply), usage=Usage(), messages=conversation)


def hand_made(run: Pass, lines: list[journal.JournalLine]) -> Work:
    """The project in memory without a disk: the day file, a map and one page of the person's; all lines offered."""
    base = {
        f"raw/journal/{DAY}.md": file("".join(ln.text + "\n" for ln in lines)),
        "wiki/index.md": file("# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n"),
        "wiki/pricing.md": file(page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]")),
    }
    return Work(
        base=base,
        tree=Overlay(base),
        ctx_conversation="",
        offered={ln.id: ln for ln in lines},
        journal_texts=tuple(ln.text for ln in lines),
        titles=tidy.page_titles(base),
        own=frozenset({journal.READ_PATH, setaside.SET_ASIDE_PATH, run.result.record_path}),
    )


ACME = {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": [f"{DAY}#1"]}
INVENTED = {"op": "append", "page": "pricing", "text": "Acme plans an office on Mars by 2031.\n", "lines": [f"{DAY}#2"]}
COFFEE = {"op": "skip", "lines": [f"{DAY}#3"]}


# -- read ------------------------------------------------------------------------------------------


def test_read_offers_unread_and_edited_lines_and_holds_back_a_set_aside_one(project: Project) -> None:
    before = day_lines("Acme signed the pilot contract\nAcme wants export\nbought coffee\nthe van needs new tyres\n")
    write(project.root, journal.READ_PATH, journal.render_read(journal.mark_read({}, before[:2])))
    now = day_lines("Acme signed the pilot contract\nAcme wants export before January\nbought coffee\nthe van needs new tyres\n")
    write(project.root, f"raw/journal/{DAY}.md", "".join(ln.text + "\n" for ln in now))
    coffee = now[2]
    aside = setaside.Entry(DAY, coffee.key, coffee.id, coffee.text, 3, setaside.REFUSED, "rule 11", "earlier-pass")
    write(project.root, setaside.SET_ASIDE_PATH, setaside.render({aside.ident: aside}))

    reading = passread.read(start(project))

    assert reading is not None
    # Line 1 was read and is unchanged; line 2 was read but edited since, so it counts as unread again;
    # line 3 is set aside (refused three passes in a row) and waits for an edit or --retry.
    assert [ln.id for ln in reading.offered] == [f"{DAY}#2", f"{DAY}#4"]
    assert [ln.id for ln in reading.unread] == [f"{DAY}#2", f"{DAY}#3", f"{DAY}#4"]
    retried = passread.read(start(project, retry=True))
    assert retried is not None and [ln.id for ln in retried.offered] == [f"{DAY}#2", f"{DAY}#3", f"{DAY}#4"]


def test_read_without_the_promote_job_offers_nothing_but_knows_the_lines(project: Project) -> None:
    write(project.root, f"raw/journal/{DAY}.md", LINES)
    reading = passread.read(start(project, jobs=["map"]))
    assert reading is not None
    assert reading.offered == [] and reading.unread == [] and len(reading.lines) == 4


def test_read_refuses_a_broken_read_position_and_says_how_to_mend_it(project: Project) -> None:
    write(project.root, f"raw/journal/{DAY}.md", LINES)
    write(project.root, journal.READ_PATH, "{not json")
    run = start(project)
    assert passread.read(run) is None
    assert journal.READ_PATH in run.result.detail and "git checkout" in run.result.detail


# -- ask -------------------------------------------------------------------------------------------


def asking(project: Project, model: FakeModel) -> tuple[Pass, Work]:
    write(project.root, f"raw/journal/{DAY}.md", LINES)
    commit_all(project.root)
    run = start(project, model)
    reading = passread.read(run)
    assert reading is not None
    work = passread.survey(run, reading)
    run.interrupts.begin()
    return run, work


def test_ask_sends_the_offered_lines_and_returns_the_models_operations(project: Project, fake_model: FakeModel) -> None:
    run, work = asking(project, fake_model.enqueue({"operations": [ACME, COFFEE]}))
    got = passask.ask(run, work)
    assert [op.kind for op in got.operations] == ["create_page", "skip"]
    assert "Acme wants export before January" in fake_model.prompt
    assert run.result.offered == [f"{DAY}#{n}" for n in (1, 2, 3, 4)]
    assert run.budget is not None and run.budget.spent.total_tokens > 0


def test_ask_makes_no_call_after_a_stop_request(project: Project, fake_model: FakeModel) -> None:
    run, work = asking(project, fake_model.enqueue({"operations": [ACME]}))
    request_stop(run.git_dir, "Pat Person", FIXED_NOW)
    with pytest.raises(Stopped):
        passask.ask(run, work)
    assert fake_model.history == []  # the model was never called
    assert run.result.stop is not None and run.result.stop["who"] == "Pat Person"


def test_ask_stands_down_when_the_person_writes_in_the_wiki(project: Project, fake_model: FakeModel) -> None:
    run, work = asking(project, fake_model.enqueue({"operations": [ACME]}))
    write(project.root, "wiki/mine.md", "the person is back\n")
    with pytest.raises(StandDown, match="wiki/mine.md"):
        passask.ask(run, work)
    assert fake_model.history == []


# -- apply and guard, then account -------------------------------------------------------------------


def test_apply_and_guard_refuses_one_operation_and_keeps_the_others(project: Project) -> None:
    run = start(project)
    work = hand_made(run, day_lines())

    ledger = passapply.apply_and_guard(run, work, answer(ACME, INVENTED, COFFEE))

    assert "wiki/acme.md" in work.tree and run.result.created == ["wiki/acme.md"]
    pricing = text_of(work.tree["wiki/pricing.md"]) or ""
    assert "Mars" not in pricing and pricing == text_of(work.base["wiki/pricing.md"])
    assert len(run.result.refusals) == 1 and run.result.refusals[0].startswith("append pricing: ")
    assert ledger.ids("read") == {f"{DAY}#1", f"{DAY}#3"}  # the landed page and the skip
    assert ledger.ids("refused") == {f"{DAY}#2"}
    assert ledger.open_refusals()


def test_account_marks_read_exactly_the_lines_landed_operations_and_skips_cite(project: Project) -> None:
    run = start(project)
    lines = day_lines()
    work = hand_made(run, lines)
    ledger = passapply.apply_and_guard(run, work, answer(ACME, INVENTED, COFFEE))
    reading = Reading(lines=lines, unread=lines, offered=lines)

    writes = passapply.account(run, reading, work, ledger)

    read = journal.load_read(writes[journal.READ_PATH].decode())
    assert read == {DAY: {lines[0].key, lines[2].key}}  # line 1 (landed), line 3 (skipped)
    assert run.result.marked_read == 2
    assert run.result.not_cited == [f"{DAY}#4"]  # no operation cites it: it stays unread, listed
    counted = setaside.load(writes[setaside.SET_ASIDE_PATH].decode())
    assert [(e.line, e.strikes, e.aside) for e in counted.values()] == [(f"{DAY}#2", 1, False)]  # refused once
    assert run.result.job_figures["promote"]["read"] == 2


def test_account_without_an_answer_reads_nothing(project: Project) -> None:
    run = start(project)
    lines = day_lines()
    work = hand_made(run, lines)
    writes = passapply.account(run, Reading(lines=lines, unread=lines, offered=lines), work, None)
    assert journal.READ_PATH not in writes and run.result.marked_read == 0


def test_repair_shows_the_refusal_and_lands_the_correction(project: Project, fake_model: FakeModel) -> None:
    from gitgarden.model.llm import Budget

    corrected = {**INVENTED, "text": "Acme wants export before January.\n"}
    run = start(project, fake_model.enqueue({"operations": [corrected]}))
    run.budget = Budget(tokens=100_000, seconds=600.0)
    work = hand_made(run, day_lines())
    first = answer(ACME, INVENTED, COFFEE)
    ledger = passapply.apply_and_guard(run, work, first)

    ledger = passapply.repair(run, work, first, ledger)

    assert "Mars" in fake_model.prompt  # the refused operation went back to the model
    assert [r.landed for r in ledger.rounds] == [1, 1]
    assert ledger.ids("read") == {f"{DAY}#1", f"{DAY}#2", f"{DAY}#3"} and not ledger.open_refusals()
    assert "export before January" in (text_of(work.tree["wiki/pricing.md"]) or "")


def test_no_repair_round_when_repair_rounds_is_0(project: Project, fake_model: FakeModel) -> None:
    from gitgarden.model.llm import Budget

    run = start(project, fake_model, settings=Settings(model="fake/scripted", repair_rounds=0))
    run.budget = Budget(tokens=100_000, seconds=600.0)
    work = hand_made(run, day_lines())
    first = answer(ACME, INVENTED, COFFEE)
    ledger = passapply.repair(run, work, first, passapply.apply_and_guard(run, work, first))
    assert fake_model.history == [] and len(ledger.rounds) == 1 and ledger.ids("refused") == {f"{DAY}#2"}


# -- map last ----------------------------------------------------------------------------------------


def test_map_last_gives_a_new_page_its_entry(project: Project) -> None:
    run = start(project)
    work = hand_made(run, day_lines())
    work.tree = work.tree.with_changes({"wiki/acme.md": file(page("Acme", "Acme signed.\n", gardener=True))})
    run.result.created.append("wiki/acme.md")

    passtidy.map_last(run, work)

    the_map = text_of(work.tree["wiki/index.md"]) or ""
    assert "[[acme]]" in the_map and "[[pricing]]" in the_map
    assert run.result.job_figures["map"] == {"entries": 1}
    assert "wiki/index.md" in run.result.tidied


def test_map_last_without_the_map_job_maps_only_the_pages_the_pass_created(project: Project) -> None:
    run = start(project, jobs=["promote"])
    work = hand_made(run, day_lines())
    work.tree = work.tree.with_changes(
        {
            "wiki/acme.md": file(page("Acme", "Acme signed.\n", gardener=True)),
            "wiki/notes.md": file(page("Notes", "The person's own page, not on the map.\n")),
        }
    )
    run.result.created.append("wiki/acme.md")

    passtidy.map_last(run, work)

    the_map = text_of(work.tree["wiki/index.md"]) or ""
    assert "[[acme]]" in the_map and "[[notes]]" not in the_map
    assert "map" not in run.result.job_figures
