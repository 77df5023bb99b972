"""Every line accounted for: what a pass reads, what it leaves unread, what it sets aside,
the repair round that shows the model its refusals, and re-promotion that never writes twice."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gitgarden.config import Settings
from gitgarden.gardener import setaside
from gitgarden.gardener.pipeline import PassResult
from gitgarden.project import Project
from tests.helpers.project import FakeModel, commit_all, garden, git, invoke, page, write

NOTHING = {"operations": []}


@pytest.fixture
def shop(project: Project) -> Project:
    """One committed page (pricing) and a map; three uncommitted journal lines."""
    write(project.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    commit_all(project.root)
    write(
        project.root,
        "raw/journal/2026-11-29.md",
        "Acme signed the pilot contract\nAcme wants export before January\nbought coffee\n",
    )
    return project


def read_ids(project: Project, rev: str = "HEAD") -> dict[str, list[str]]:
    text = git(project.root, "show", f"{rev}:.gitgarden/read.json")
    return json.loads(text)  # type: ignore[no-any-return]


def last_record(project: Project) -> dict[str, Any]:
    """The newest attempt without a commit (recorded in the git dir, never in the work tree)."""
    from gitgarden.history.records import read_attempts
    from gitgarden.repo.gitdir import git_dir

    return read_attempts(git_dir(project.root))[-1]


ACME = {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]}
EXPORT = {"op": "append", "page": "pricing", "text": "Acme wants export before January.\n", "lines": ["2026-11-29#2"]}
COFFEE = {"op": "skip", "lines": ["2026-11-29#3"]}
INVENTED = {"op": "append", "page": "pricing", "text": "Acme plans an office on Mars by 2031.\n", "lines": ["2026-11-29#2"]}


# -- 1. a line is read only when something that landed cites it --------------------------------------


def test_an_empty_reply_reads_nothing_and_finishes_without_writing(shop: Project, fake_model: FakeModel) -> None:
    result = garden(shop, fake_model.enqueue(NOTHING))
    assert result.outcome == "finished_without_writing" and result.exit_code == 10
    assert result.marked_read == 0 and not (shop.root / ".gitgarden/read.json").exists()
    assert result.not_cited == ["2026-11-29#1", "2026-11-29#2", "2026-11-29#3"]
    assert "cited none of the 3" in result.detail
    assert "Gardener-Pass" not in git(shop.root, "log", "-1", "--format=%B")  # nothing to commit
    assert last_record(shop)["not_cited"] == result.not_cited
    # The next pass is offered every line again.
    again = garden(shop, fake_model.enqueue({"operations": [ACME, EXPORT, COFFEE]}))
    assert again.offered == ["2026-11-29#1", "2026-11-29#2", "2026-11-29#3"]
    assert again.outcome == "pages_written"


def test_lines_the_reply_does_not_cite_stay_unread_and_are_listed(shop: Project, fake_model: FakeModel) -> None:
    result = garden(shop, fake_model.enqueue({"operations": [ACME]}))
    assert result.outcome == "pages_written" and result.marked_read == 1
    assert result.not_cited == ["2026-11-29#2", "2026-11-29#3"]
    assert len(read_ids(shop)["2026-11-29"]) == 1
    assert git(shop.root, "log", "-1", "--format=%(trailers:key=Gardener-Read,valueonly)").strip() == "1"
    assert json.loads(git(shop.root, "show", f"HEAD:{result.record_path}").splitlines()[-1])["not_cited"] == result.not_cited
    again = garden(shop, fake_model.enqueue({"operations": [EXPORT, COFFEE]}))
    assert again.offered == ["2026-11-29#2", "2026-11-29#3"]


def test_a_partly_refused_reply_reads_exactly_the_landed_and_skipped_lines(shop: Project, fake_model: FakeModel) -> None:
    result = garden(shop, fake_model.enqueue({"operations": [ACME, INVENTED, COFFEE]}).enqueue(NOTHING))
    assert result.outcome == "some_refused" and result.exit_code == 11
    assert (shop.root / "wiki/acme.md").exists()
    assert "Mars" not in (shop.root / "wiki/pricing.md").read_text()
    assert result.marked_read == 2
    read = read_ids(shop)  # in the pass commit itself
    lines = {ln.key: ln.id for ln in __import__("gitgarden.wiki.journal", fromlist=["x"]).all_lines(shop.journal)}
    assert sorted(lines[k] for k in read["2026-11-29"]) == ["2026-11-29#1", "2026-11-29#3"]
    again = garden(shop, fake_model.enqueue({"operations": [EXPORT]}))
    assert again.offered == ["2026-11-29#2"]  # only the refused operation's line
    assert again.outcome == "pages_written"


def test_an_all_refused_reply_reads_nothing(shop: Project, fake_model: FakeModel) -> None:
    result = garden(shop, fake_model.enqueue({"operations": [INVENTED]}).enqueue(NOTHING))
    assert result.outcome == "finished_without_writing" and result.exit_code == 10
    assert result.marked_read == 0 and not (shop.root / ".gitgarden/read.json").exists()
    assert "Mars" not in (shop.root / "wiki/pricing.md").read_text()


def test_an_all_refused_reply_beside_model_free_tidying_says_only_the_tidying_landed(shop: Project, fake_model: FakeModel) -> None:
    write(shop.root, "wiki/oven.md", page("Oven", "The oven runs on gas.\n", source="[2026-11-28]"))  # not in the map
    commit_all(shop.root, "a page the map lacks")
    result = garden(shop, fake_model.enqueue({"operations": [INVENTED]}).enqueue(NOTHING))
    assert result.outcome == "some_refused" and result.commit, (result.outcome, result.detail)
    assert "every operation of the reply was refused" in result.sentence and "model-free tidying" in result.sentence
    assert result.marked_read == 0 and "[[oven]]" in (shop.root / "wiki/index.md").read_text()


def test_nothing_earned_when_every_line_is_skipped(shop: Project, fake_model: FakeModel) -> None:
    reply = {"operations": [{"op": "skip", "lines": ["2026-11-29#1", "2026-11-29#2", "2026-11-29#3"]}]}
    result = garden(shop, fake_model.enqueue(reply))
    assert result.outcome == "nothing_earned" and result.exit_code == 0
    assert result.marked_read == 3 and result.not_cited == []


def test_a_line_landed_by_one_operation_and_refused_by_another_stays_unread(shop: Project, fake_model: FakeModel) -> None:
    result = garden(shop, fake_model.enqueue({"operations": [EXPORT, INVENTED, COFFEE]}).enqueue(NOTHING))
    assert result.outcome == "some_refused"
    assert "Acme wants export before January." in (shop.root / "wiki/pricing.md").read_text()
    assert result.marked_read == 1  # the skipped line; #2 waits, and its landed append will be "already there"


# -- 2. re-promotion is idempotent -----------------------------------------------------------------


def test_re_proposing_an_append_that_landed_writes_no_duplicate(shop: Project, fake_model: FakeModel) -> None:
    garden(shop, fake_model.enqueue({"operations": [ACME, EXPORT, INVENTED, COFFEE]}).enqueue(NOTHING))
    pricing = (shop.root / "wiki/pricing.md").read_text()
    assert pricing.count("wants export before January") == 1
    # The refusal kept #2 unread; the model proposes the same append again (links and spacing differ).
    again_op = {**EXPORT, "text": "[[acme|Acme]]  wants export\nbefore January.\n"}
    result = garden(shop, fake_model.enqueue({"operations": [again_op]}))
    assert result.outcome == "nothing_earned", result.refusals
    assert result.already_there == ["append pricing: already in wiki/pricing.md"]
    assert result.refusals == [] and result.marked_read == 1
    assert (shop.root / "wiki/pricing.md").read_text() == pricing
    assert garden(shop, fake_model).outcome == "nothing_new"


def test_a_page_made_again_under_another_name_is_already_there(shop: Project, fake_model: FakeModel) -> None:
    garden(shop, fake_model.enqueue({"operations": [ACME, {**INVENTED, "lines": ["2026-11-29#1"]}, COFFEE]}).enqueue(NOTHING))
    assert (shop.root / "wiki/acme.md").exists()
    renamed = {**ACME, "page": "acme-corp", "title": "Acme Corp"}
    result = garden(shop, fake_model.enqueue({"operations": [renamed, EXPORT]}))
    assert not (shop.root / "wiki/acme-corp.md").exists()
    assert result.already_there == ["create_page acme-corp: already in wiki/acme.md"]
    assert result.outcome == "pages_written" and result.marked_read == 2


def test_the_same_create_page_twice_in_one_reply_is_written_once(shop: Project, fake_model: FakeModel) -> None:
    result = garden(shop, fake_model.enqueue({"operations": [ACME, ACME, EXPORT, COFFEE]}))
    assert result.outcome == "pages_written", result.refusals
    assert (shop.root / "wiki/acme.md").read_text().count("Acme signed the pilot contract.") == 1
    assert result.already_there == ["create_page acme: already in wiki/acme.md"]


def test_an_append_with_a_new_sentence_is_still_appended(shop: Project, fake_model: FakeModel) -> None:
    write(shop.root, "raw/journal/2026-11-30.md", "Pilot price is 400 EUR a month, billed quarterly\n")
    op = {"op": "append", "page": "pricing", "text": "Pilot price is 400 EUR a month. It is billed quarterly.\n", "lines": ["2026-11-30#1"]}
    garden(shop, fake_model.enqueue({"operations": [op, ACME, EXPORT, COFFEE]}))
    assert "billed quarterly" in (shop.root / "wiki/pricing.md").read_text()


# -- 3. the guard talks back -----------------------------------------------------------------------


def test_a_refused_operation_is_shown_to_the_model_and_its_correction_lands(shop: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [ACME, INVENTED, COFFEE]}).enqueue({"operations": [EXPORT]})
    result = garden(shop, fake_model)

    assert result.outcome == "pages_written", result.refusals
    assert "wants export before January." in (shop.root / "wiki/pricing.md").read_text()
    assert "Mars" not in (shop.root / "wiki/pricing.md").read_text()
    assert result.rounds == [{"refused": 1, "landed": 1}, {"refused": 0, "landed": 1}]
    assert result.marked_read == 3 and result.not_cited == []
    # The follow-up continues the same conversation: the prompt, the model's reply, then the refusals.
    first, second = fake_model.history
    assert second[: len(first)] == first
    assert second[len(first)]["role"] == "assistant" and json.loads(second[len(first)]["content"])["operations"][1] == INVENTED
    ask = second[-1]
    assert ask["role"] == "user" and len(second) == len(first) + 2
    text = ask["content"]
    assert '"op": "append"' in text and "Mars" in text  # the refused operation as sent
    assert "[2026-11-29#2] Acme wants export before January" in text  # its cited line
    assert "rule 11 (grounded)" in text and "grounded 0.20 < 0.60" in text  # the rule and the score
    assert "plans, office, mars, 2031" in text  # the words the cited lines do not hold
    assert 'offending text: "Acme plans an office on Mars by 2031."' in text
    assert "skip" in text
    assert "Acme signed the pilot contract" not in text.split("Refused operation 1")[1]  # what landed is not re-shown
    record = json.loads(git(shop.root, "show", f"HEAD:{result.record_path}").splitlines()[-1])
    assert record["rounds"] == result.rounds


def test_a_correction_goes_through_the_same_guard(shop: Project, fake_model: FakeModel) -> None:
    still_wrong = {**INVENTED, "text": "Acme plans an office on Venus.\n"}
    fake_model.enqueue({"operations": [ACME, INVENTED, COFFEE]}).enqueue({"operations": [still_wrong]})
    result = garden(shop, fake_model)
    assert result.outcome == "some_refused"
    assert "Venus" not in (shop.root / "wiki/pricing.md").read_text()
    assert result.rounds == [{"refused": 1, "landed": 1}, {"refused": 1, "landed": 0}]
    assert any(r.startswith("round 2: append pricing: rule 11") for r in result.refusals)
    assert len(fake_model.history) == 2  # one repair round by default


def test_a_skip_as_the_correction_reads_the_line(shop: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [ACME, INVENTED, COFFEE]}).enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#2"]}]})
    result = garden(shop, fake_model)
    assert result.outcome == "pages_written" and result.marked_read == 3


def test_repair_rounds_zero_asks_once(shop: Project, fake_model: FakeModel) -> None:
    result = garden(shop, fake_model.enqueue({"operations": [ACME, INVENTED, COFFEE]}), Settings(model="fake/scripted", repair_rounds=0))
    assert result.outcome == "some_refused" and len(fake_model.history) == 1
    assert result.rounds == [{"refused": 1, "landed": 1}]


def test_two_repair_rounds_when_configured(shop: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [ACME, INVENTED, COFFEE]}).enqueue({"operations": [INVENTED]}).enqueue({"operations": [EXPORT]})
    result = garden(shop, fake_model, Settings(model="fake/scripted", repair_rounds=2))
    assert result.outcome == "pages_written"
    assert [r["refused"] for r in result.rounds] == [1, 1, 0]
    assert len(fake_model.history[2]) == len(fake_model.history[1]) + 2  # still one conversation


def test_no_repair_round_when_the_token_budget_is_spent(shop: Project) -> None:
    class Costly(FakeModel):
        def complete(self, messages, schema, budget):  # type: ignore[no-untyped-def]
            reply = super().complete(messages, schema, budget)
            budget.charge(type(reply.usage)(prompt_tokens=budget.tokens_left() - 50))
            return reply

    model = Costly().enqueue({"operations": [ACME, INVENTED, COFFEE]})
    result = garden(shop, model)
    assert len(model.history) == 1
    assert result.outcome == "some_refused" and (shop.root / "wiki/acme.md").exists()
    assert "round 2 not asked" in result.rounds[-1]["repair"] and "token_budget" in result.rounds[-1]["repair"]


def test_a_failed_repair_call_keeps_the_first_rounds_work(shop: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [ACME, INVENTED, COFFEE]}).enqueue("not JSON").enqueue("still not JSON")
    result = garden(shop, fake_model)
    assert result.outcome == "some_refused" and result.commit
    assert (shop.root / "wiki/acme.md").exists()
    assert "round 2 failed: bad model output" in result.rounds[-1]["repair"]


# -- 4. a line that keeps failing is set aside ------------------------------------------------------


def refuse_line_2(project: Project, model: FakeModel) -> PassResult:
    return garden(project, model.enqueue({"operations": [INVENTED]}).enqueue(NOTHING))


def test_a_line_refused_three_passes_in_a_row_is_set_aside_listed_and_retried(shop: Project, fake_model: FakeModel) -> None:
    garden(shop, fake_model.enqueue({"operations": [ACME, COFFEE]}))
    for _ in range(2):
        assert refuse_line_2(shop, fake_model).set_aside == []
    third = refuse_line_2(shop, fake_model)
    assert third.outcome == "finished_without_writing"
    assert len(third.set_aside) == 1 and third.set_aside[0].startswith("2026-11-29#2 (refused in 3 passes in a row")
    assert any("run --retry" in h for h in third.hints)
    committed = setaside.load(git(shop.root, "show", "HEAD:.gitgarden/set-aside.json"))
    [entry] = committed.values()
    assert (entry.line, entry.why, entry.strikes) == ("2026-11-29#2", "refused", 3)
    assert "rule 11 (grounded)" in entry.reason and entry.since == third.pass_id

    # No longer offered: nothing left to do, no model call.
    calls = len(fake_model.history)
    assert garden(shop, fake_model).outcome == "nothing_new" and len(fake_model.history) == calls
    # status and health list it with its last refusal and what to do.
    status = invoke(shop, "status", "--json", model=fake_model)
    data = json.loads(status.stdout)
    assert data["unread"] == 0
    assert [(e["line"], e["why"]) for e in data["set_aside"]] == [("2026-11-29#2", "refused")]
    assert "rule 11" in data["set_aside"][0]["reason"] and "--retry" in data["set_aside"][0]["advice"]
    text = invoke(shop, "status", model=fake_model).stdout
    assert "set aside 2026-11-29#2: Acme wants export before January" in text and "rule 11" in text
    health = invoke(shop, "health", model=fake_model).stdout
    assert "journal lines set aside" in health and "set aside 2026-11-29#2" in health
    assert json.loads(invoke(shop, "health", "--json", model=fake_model).stdout)["set_aside"][0]["line"] == "2026-11-29#2"

    # `run --retry` offers it again.
    fake_model.enqueue({"operations": [EXPORT]})
    retried = invoke(shop, "run", "--retry", "--json", model=fake_model)
    out = json.loads(retried.stdout)
    assert out["offered"] == ["2026-11-29#2"] and out["outcome"] == "pages_written" and out["retry"] is True
    assert setaside.load(git(shop.root, "show", "HEAD:.gitgarden/set-aside.json")) == {}


def test_editing_a_set_aside_line_offers_it_again(shop: Project, fake_model: FakeModel) -> None:
    garden(shop, fake_model.enqueue({"operations": [ACME, COFFEE]}))
    for _ in range(3):
        refuse_line_2(shop, fake_model)
    path = shop.journal / "2026-11-29.md"
    path.write_text(path.read_text().replace("before January", "before 1 January"))
    result = garden(shop, fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#2"]}]}))
    assert result.offered == ["2026-11-29#2"] and result.outcome == "nothing_earned"


def test_a_pass_that_does_not_refuse_the_line_breaks_the_run(shop: Project, fake_model: FakeModel) -> None:
    garden(shop, fake_model.enqueue({"operations": [ACME, COFFEE]}))
    refuse_line_2(shop, fake_model)
    refuse_line_2(shop, fake_model)
    garden(shop, fake_model.enqueue(NOTHING))  # offered, not refused: the run is broken
    assert refuse_line_2(shop, fake_model).set_aside == []
    assert refuse_line_2(shop, fake_model).set_aside == []
    assert refuse_line_2(shop, fake_model).set_aside != []


def test_a_line_too_long_for_any_prompt_is_set_aside_and_the_rest_flow(project: Project, fake_model: FakeModel) -> None:
    """Issue 12, item 9: one 1 MB line at the top of the journal no longer stops every pass."""
    huge = "x" * 1_000_000
    write(project.root, "raw/journal/2026-11-28.md", huge + "\n")
    write(project.root, "raw/journal/2026-11-29.md", "bought coffee\n")
    result = garden(project, fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-29#1"]}]}))
    assert result.outcome == "nothing_earned", result.detail
    assert result.offered == ["2026-11-29#1"]
    assert len(result.set_aside) == 1 and result.set_aside[0].startswith("2026-11-28#1 (too long for any prompt: 1,000,000 characters")
    assert any("shorten or split the line, or raise context_window / token_budget" in h for h in result.hints)
    assert huge not in fake_model.prompt
    [entry] = setaside.load(git(project.root, "show", "HEAD:.gitgarden/set-aside.json")).values()
    assert entry.why == "too_long" and len(entry.text) < 200  # the file keeps only the line's start
    data = json.loads(invoke(project, "status", "--json").stdout)
    assert data["unread"] == 0 and data["set_aside"][0]["why"] == "too_long"
    assert "raise context_window" in data["set_aside"][0]["advice"]
    assert garden(project, fake_model).outcome == "nothing_new"
    # With a budget that holds it, the next pass offers it.
    big = Settings(model="fake/scripted", context_window=2_000_000, token_budget=2_000_000, max_output_tokens=2048)
    later = garden(project, fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-11-28#1"]}]}), big)
    assert later.offered == ["2026-11-28#1"] and later.outcome == "nothing_earned"


def test_a_journal_of_only_a_too_long_line_says_so_once(project: Project, fake_model: FakeModel) -> None:
    write(project.root, "raw/journal/2026-11-28.md", "y" * 1_000_000 + "\n")
    result = garden(project, fake_model)
    assert result.outcome == "finished_without_writing" and "set aside: 2026-11-28#1" in result.detail
    assert fake_model.history == []
    assert ".gitgarden/set-aside.json" in git(project.root, "show", "--name-only", "--format=", "HEAD")
    assert garden(project, fake_model).outcome == "nothing_new"


# -- 8. small things ---------------------------------------------------------------------------------


def test_a_dry_run_does_not_say_lines_are_marked_read(shop: Project, fake_model: FakeModel) -> None:
    result = invoke(shop, "run", "--dry-run", model=fake_model.enqueue({"operations": [ACME, EXPORT, COFFEE]}))
    assert "would be marked read" in result.stderr and "are marked read" not in result.stderr
    data = json.loads(invoke(shop, "run", "--dry-run", "--json", model=fake_model.enqueue({"operations": [ACME]})).stdout)
    assert data["marked_read"] == 0 and "would be marked read" in data["message"]
    assert not (shop.root / ".gitgarden/read.json").exists()


def test_a_body_that_repeats_a_sentence_lists_its_refusal_once(shop: Project, fake_model: FakeModel) -> None:
    twice = {**INVENTED, "text": "Acme plans an office on Mars by 2031.\n\nAcme plans an office on Mars by 2031.\n"}
    result = garden(shop, fake_model.enqueue({"operations": [twice]}).enqueue(NOTHING))
    assert len(result.refusals) == 1
    assert fake_model.history[1][-1]["content"].count("offending text") == 1


# -- the set-aside state, alone -----------------------------------------------------------------------


def test_set_aside_state_counts_runs_round_trips_and_retries() -> None:
    from gitgarden.wiki.journal import parse_day

    a, b = parse_day("2026-11-29", "first line\nsecond line\n")
    state: dict[str, setaside.Entry] = {}
    for n in range(1, 4):
        state, newly = setaside.account(state, unread=[a, b], offered=[a, b], refused={a.id: "rule 11"}, long_lines={}, pass_id=f"p{n}")
        assert [e.line for e in newly] == ([a.id] if n == 3 else [])
    assert setaside.is_aside(state, a) and not setaside.is_aside(state, b)
    assert setaside.load(setaside.render(state)) == state
    assert setaside.load("not json") == {} and setaside.load('{"lines": [{"day": 1}]}') == {}
    assert setaside.retry(state) == {}
    # A line no longer unread (read, edited, gone) drops out of the state.
    assert setaside.account(state, unread=[b], offered=[], refused={}, long_lines={}, pass_id="p4")[0] == {}


def test_no_line_is_too_long_when_the_settings_leave_no_prompt_at_all() -> None:
    from gitgarden.wiki.journal import parse_day

    [line] = parse_day("2026-11-29", "a line\n")
    assert setaside.too_long([line], 0.0) == {}
    assert line.id in setaside.too_long([line], 5.0)
    room = setaside.line_room(Settings(), "bakery")
    assert 1000 < room < 3000  # about 8,000 characters of a line with the default settings
