"""Small mode end to end with scripted answers: the model judges each line, code does the rest.

Each line is one request whose answer is a word (and, from a real server, its probability). A fact
becomes a verbatim bullet on its subject's page — one page per person or thing across spellings and
passes; a decision marks its page decided; a question goes to the map's Open section; a line that
changes an earlier value is written beside it with an Open line quoting both; chatter is skipped
with its kind; a line the model is unsure of, or whose request failed, stays unread with why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gitgarden.config import Settings, load_settings
from gitgarden.errors import ModelError
from gitgarden.gardener import small
from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.gardener.project_page import general_title
from gitgarden.model import judge, provider
from gitgarden.model import status as model_status
from gitgarden.model.llm import Budget, Reply, Usage
from gitgarden.project import Project, init_project
from gitgarden.wiki import pages
from gitgarden.wiki.household import household
from gitgarden.wiki.journal import JournalLine
from tests.helpers.project import FIXED_LOG, FIXED_NOW, FakeModel, commit_all, git, page, write

SMALL = Settings(model="fake/scripted", mode="small")


class ScoredModel(FakeModel):
    """A scripted model that answers like a server giving log-probabilities: P(yes) per request,
    or a ModelError to raise."""

    def __init__(self, *scores: float | ModelError) -> None:
        super().__init__()
        self.scores = list(scores)

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: Any) -> Reply:
        self.history.append([dict(m) for m in messages])
        if not self.scores:
            raise AssertionError("ScoredModel was asked more often than scores were given")
        p = self.scores.pop(0)
        if isinstance(p, ModelError):
            raise p
        usage = Usage(prompt_tokens=sum(len(m["content"]) for m in messages) // 4, completion_tokens=1)
        budget.charge(usage)
        return Reply("yes" if p >= 0.5 else "no", usage, alternatives={"yes": p, "no": 1 - p})


def garden(project: Project, model: FakeModel, settings: Settings = SMALL) -> PassResult:
    return run_pass(project, settings, model=model, now=lambda: FIXED_NOW)  # type: ignore[arg-type]


def journal(project: Project, day: str, *lines: str) -> None:
    write(project.root, f"raw/journal/{day}.md", "".join(f"{line}\n" for line in lines))


def two_days(project: Project, first: tuple[str, str], second: tuple[str, str]) -> PassResult:
    """A line gardened on its day, then a later one on its own (each read "yes"): the second pass's result."""
    journal(project, *first)
    garden(project, answers(FakeModel(), "yes"))
    journal(project, *second)
    return garden(project, answers(FakeModel(), "yes"))


def answers(model: FakeModel, *words: str) -> FakeModel:
    for word in words:
        model.enqueue(word)
    return model


def body(project: Project, name: str) -> str:
    return pages.split_frontmatter(git(project.root, "show", f"HEAD:wiki/{name}.md"))[1]


def meta(project: Project, name: str) -> dict[str, Any]:
    return pages.read_meta(git(project.root, "show", f"HEAD:wiki/{name}.md"))


def open_lines(project: Project) -> list[str]:
    return pages.open_lines(git(project.root, "show", "HEAD:wiki/index.md"))


KITCHEN = [
    "Tomasz Wójcik came round to measure the kitchen, says he'll have a quote by Thursday.",  # 1
    "Piotr Nowak the electrician can move the sockets on 12 March.",  # 2
    "Rain all day, bins blew over again.",  # 3
    "Tomasz's quote came in: 18,400 EUR for demolition and fitting.",  # 4
    "He wants a 1,500 EUR deposit, invoice TW-0314.",  # 5
    "Does the quote include VAT?",  # 6
]


def test_facts_land_on_one_page_per_person_with_chatter_skipped_by_its_kind(project: Project, fake_model: FakeModel) -> None:
    journal(project, "2026-03-02", *KITCHEN)
    result = garden(project, answers(fake_model, "yes", "yes", "yes", "yes", "yes"))  # the rain is not asked
    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert result.mode == "small" and result.refusals == []
    # "Tomasz Wójcik", "Tomasz's" and "He" are one person: one page, titled with the full name.
    assert body(project, "tomasz-wojcik") == (
        f"- {KITCHEN[0]} (2026-03-02)\n- {KITCHEN[3]} (2026-03-02)\n- {KITCHEN[4]} (2026-03-02)\n"
    )
    assert meta(project, "tomasz-wojcik")["title"] == "Tomasz Wójcik"
    # A role given beside a name is kept as an alias: later "the electrician" finds the page.
    assert meta(project, "piotr-nowak")["aliases"] == ["the electrician"]
    assert result.skipped == [{"line": "2026-03-02#3", "text": KITCHEN[2], "reason": "chatter: weather"}]
    assert "- Does the quote include VAT?" in open_lines(project)
    assert result.marked_read == 6 and result.unread == []


def test_a_later_spelling_or_role_resolves_to_the_page_of_an_earlier_pass(project: Project) -> None:
    journal(project, "2026-03-02", KITCHEN[0], KITCHEN[1])
    garden(project, answers(FakeModel(), "yes", "yes"))
    journal(project, "2026-03-03", "Tomasz says the cabinets arrive Friday.", "The electrician can't do the 12th after all.", "Wójcik sent the plan.")
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    assert result.created == [] and sorted(result.appended) == ["wiki/piotr-nowak.md", "wiki/tomasz-wojcik.md"], result.appended
    assert "Tomasz says the cabinets arrive Friday. (2026-03-03)" in body(project, "tomasz-wojcik")
    assert "Wójcik sent the plan. (2026-03-03)" in body(project, "tomasz-wojcik")
    assert "The electrician can't do the 12th after all. (2026-03-03)" in body(project, "piotr-nowak")


def test_a_first_name_page_learns_the_full_name_as_an_alias(project: Project) -> None:
    journal(project, "2026-03-02", "Ingrid sent three layouts for the kitchen.")
    garden(project, answers(FakeModel(), "yes"))
    assert meta(project, "ingrid")["title"] == "Ingrid"
    journal(project, "2026-03-03", "Ingrid Solberg's invoice INV-2041 is 450 EUR.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == []
    assert meta(project, "ingrid")["aliases"] == ["Ingrid Solberg"]


def test_a_role_written_before_a_name_gives_one_page_for_the_person(project: Project) -> None:
    journal(project, "2026-08-17", "Landlord Joaquín Beltrán confirmed the flat at Calle de Sueca 42: 1,150 EUR a month.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-08-18", "Joaquín wants two months' deposit, 2,300 EUR.", "The landlord sent the keys by courier.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.created == [] and result.appended == ["wiki/joaquin-beltran.md"], (result.created, result.appended)
    assert meta(project, "joaquin-beltran")["title"] == "Joaquín Beltrán"
    assert "The landlord sent the keys by courier. (2026-08-18)" in body(project, "joaquin-beltran")


@pytest.mark.parametrize(
    "title",
    ["He", "Decision", "Correction", "Total", "My", "Friday", "Marek's quote is 19,100 EUR not 18,400 EUR the 18,400 left", "December Marek."],
)
def test_a_title_is_never_a_pronoun_a_cue_word_a_date_or_a_sentence(title: str) -> None:
    from gitgarden.wiki.subjects import is_title

    assert not is_title(title)


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("Decision: quartz worktop from Kamień Studio, 30 mm.", "Quartz worktop"),
        ("Budget for the whole job: 25,000 EUR including appliances.", "Budget"),
        ("Total so far: 3,100 EUR.", "Kitchen renovation"),  # no subject: the project's own page
        ("Our neighbour's tiler, Ana Lopes, can start in April.", "Ana Lopes"),
        ("Waiting list is 23 names long, 6 from the flats on Mill Road.", "Waiting list"),
        # held64: a page "Facebook": a name before "group" says where the petition went up, not what
        ("Petition went up on the village Facebook group last night, 164 signatures by lunchtime.", "Petition"),
        # held65: a house number before a street makes it an address, where the notification was for
        ("Sent the building control notification for 27 Tenterden Road to Wexmoor Borough Council, fee £228.", "Wexmoor Borough Council"),
    ],
)
def test_new_pages_are_titled_with_the_subject_the_line_names(project: Project, line: str, title: str) -> None:
    write(project.root, "AGENTS.md", "# Kitchen renovation\n\nNotes on redoing the kitchen.\n")
    commit_all(project.root)
    journal(project, "2026-03-02", line)
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and len(result.created) == 1, result
    assert pages.read_meta((project.root / result.created[0]).read_text())["title"] == title


def test_a_thing_said_short_goes_on_its_page_and_its_change_is_asked(project: Project) -> None:
    """held32: "Target put up to £7,500" made a page "Target" beside "Fundraising target"."""
    old = "Set our fundraising target at £5,000 on the hospice's giving page."
    new = "Target put up to £7,500, we'd already hit £3,200 by lunchtime."
    result = two_days(project, ("2026-06-09", old), ("2026-06-11", new))
    assert result.refusals == [] and result.created == [], result
    assert body(project, "fundraising-target") == f"- {old} (2026-06-09)\n- {new} (2026-06-11)\n"
    assert any(old in ln and new in ln for ln in open_lines(project))


@pytest.mark.parametrize(
    "correction",
    [
        "Correction: Tomasz forgot the skip hire, his quote is 19,100 EUR, not 18,400.",
        "Tomasz's quote is now 19,100 EUR.",
        "Tomasz raised his quote to 19,100 EUR.",
        "Tomasz's quote changed to 19,100 EUR after the survey.",
    ],
)
def test_a_change_is_written_beside_the_old_value_with_an_open_line_in_full_words(project: Project, correction: str) -> None:
    old = "Tomasz's quote came in: 18,400 EUR for demolition, plumbing and fitting, cabinets not included."
    result = two_days(project, ("2026-03-04", old), ("2026-03-05", correction))
    assert result.refusals == [], result.refusals
    assert body(project, "tomasz") == f"- {old} (2026-03-04)\n- {correction} (2026-03-05)\n"
    asked = [ln for ln in open_lines(project) if ln.startswith("- Which holds?")]
    assert asked == [f"- Which holds? “{old}” (2026-03-04) or “{correction}” (2026-03-05) ([[tomasz]])"]


def test_a_decision_that_goes_back_on_a_value_and_settles_no_thing_is_a_change(project: Project) -> None:
    """held24: the committee's vote settles no thing of its own, and says "after all": the fee is asked."""
    old = "Hazel Quinton, our chair, wants to keep entry fees at 50p a class like last year."
    vote = "Hazel rang: the committee voted for £1 a class after all, to cover the judge's expenses."
    result = two_days(project, ("2026-09-08", old), ("2026-09-11", vote))
    assert result.refusals == [] and result.unread == []
    assert vote in body(project, "hazel-quinton")
    assert any(old in ln and vote in ln for ln in open_lines(project))


def test_a_family_word_gives_way_to_a_name_in_full(project: Project) -> None:
    """held24: "Joanne Sykes is Mum's social worker" had gone to Mum's page, the one name with a page."""
    journal(project, "2026-01-12", "Mum's painkiller is co-codamol 30/500, two tablets four times a day.")
    assert garden(project, ScoredModel(0.95)).created == ["wiki/mum.md"]
    line = "Rang Calderbrook Council's adult social care line for a needs assessment; Joanne Sykes is Mum's social worker, ref ASC/55812."
    journal(project, "2026-01-13", line)
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == ["wiki/calderbrook-council.md"] and "Joanne Sykes is [[mum|Mum]]'s social worker" in body(project, "calderbrook-council")


def test_a_change_finds_the_old_value_on_another_page(project: Project) -> None:
    """The first line went on the electrician's page; the change names only the role."""
    journal(project, "2026-03-03", "Piotr Nowak the electrician can move the sockets on 12 March.", "Ordered the cabinets from Nordhus, delivery 20 March.")
    garden(project, answers(FakeModel(), "yes", "yes"))
    journal(project, "2026-03-08", "Email from Nordhus: cabinet delivery pushed back to 24 March.", "The electrician can't do the 12th after all; now Friday 13 March.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == []
    asked = " ".join(open_lines(project))
    assert "delivery 20 March" in asked and "pushed back to 24 March" in asked
    assert "sockets on 12 March" in asked and "now Friday 13 March" in asked
    assert "now Friday 13 March. (2026-03-08)" in body(project, "piotr-nowak")


def test_a_decision_line_marks_the_thing_decided_and_leaves_the_persons_page_open(project: Project) -> None:
    journal(project, "2026-03-05", "Tomasz Wójcik quoted 19,100 EUR.", "Decision: Tomasz does the main works, starting Monday 16 March.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    # A page made from the decision starts decided, the line its evidence; Tomasz's page stays open.
    assert meta(project, "works")["state"] == "decided"
    assert body(project, "works") == "- Decision: Tomasz does the main works, starting Monday 16 March. (2026-03-05)\n"
    assert meta(project, "tomasz-wojcik")["state"] == "open"
    journal(project, "2026-03-06", "Marek quoted 2,950 EUR for a quartz worktop.", "Decision: we go with Marek's worktop.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [] and meta(project, "worktop")["state"] == "decided"
    # A line that touches a decided page becomes an Open line naming it: the guard keeps it unchanged.
    journal(project, "2026-03-07", "Decision: worktop in oak after all.", "The worktop is now 3,100 EUR, not 2,950.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    asked = open_lines(project)
    assert "- “Decision: worktop in oak after all.” (2026-03-07) touches a decided page ([[worktop]])" in asked
    # The change of Marek's figure goes beside it, on Marek's page, which no decision froze.
    assert any("2,950 EUR for a quartz worktop" in ln and "now 3,100 EUR" in ln for ln in asked)


def test_a_decision_about_a_person_settles_a_topic_not_the_persons_page(project: Project) -> None:
    """"We hire Ananya" decides the hiring: Ananya's page stays open and goes on taking her facts."""
    journal(project, "2026-07-07", "Final interview with Ananya Krishnan for the backend role.", "Decision: we hire Ananya, start date 3 August.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert meta(project, "hiring")["state"] == "decided"
    assert body(project, "hiring") == "- Decision: we hire Ananya, start date 3 August. (2026-07-07)\n"
    assert meta(project, "ananya-krishnan")["state"] == "open"
    journal(project, "2026-07-08", "Ananya Krishnan signed the contract, salary £82,000.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and "salary £82,000" in body(project, "ananya-krishnan")


def test_a_decision_about_a_work_named_in_quotes_marks_its_page_decided(project: Project) -> None:
    """'Salt Lines' is a song, not a person: two capitalised words in quotes may be decided."""
    journal(project, "2026-09-05", "Decision: we open every night with 'Salt Lines' and close on 'Kingfisher'.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [], result.refusals
    home = next(n for n in ("salt-lines", "kingfisher") if (project.root / "wiki" / f"{n}.md").exists())
    assert meta(project, home)["state"] == "decided"


def test_a_decision_that_lands_on_someones_page_leaves_it_open(project: Project) -> None:
    journal(project, "2026-06-11", "Maya Ortiz visited Colegio Levante with us.", "Decision: Maya starts at Colegio Levante in September.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    home = next(n for n in ("maya-ortiz", "colegio-levante") if "Decision: Maya starts" in body(project, n))
    assert meta(project, home)["state"] == "open"  # a person or a school goes on taking facts
    journal(project, "2026-06-12", "Maya Ortiz needs a uniform, 85 EUR.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and "uniform, 85 EUR" in body(project, "maya-ortiz")


def test_a_topic_said_short_goes_where_it_was_said_in_full(project: Project) -> None:
    journal(project, "2026-09-01", "Stage build starts Mon 7 Sept, 9am.", "Stage moved to Tue 8 Sept, the hall is booked Monday.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [] and result.created == ["wiki/stage-build.md"]
    assert any("Stage build starts" in ln and "Stage moved to Tue 8 Sept" in ln for ln in open_lines(project))
    journal(project, "2026-09-02", "Stage needs black paint on the back wall.")  # no value changed: its topic alone
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == [] and "black paint" in body(project, "stage-build")


def test_a_fact_about_a_decided_thing_goes_to_the_other_subject_it_names(project: Project) -> None:
    journal(project, "2026-09-01", "Decision: raffle tickets £2 each.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-09-02", "Raffle tickets printed by Inkwell Press, order IP-5521.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == ["wiki/inkwell-press.md"], result
    assert meta(project, "raffle-tickets")["state"] == "decided"


def test_a_fact_sent_on_from_a_decided_thing_may_change_a_line_where_it_lands(project: Project) -> None:
    """held57: "New till fitted … £412" went from the decided till to Tillcraft's page, beside their
    £385 quote, with no question asked: the change is looked for on the page the line goes to."""
    journal(project, "2026-03-02", "Tillcraft Systems quoted £385 for a replacement till, quote TQ-7741.")
    journal(project, "2026-03-04", "Decision: we replace the till rather than pay for yet another repair.")
    garden(project, answers(FakeModel(), "yes", "yes"))
    assert meta(project, "till")["state"] == "decided"
    journal(project, "2026-03-06", "New till fitted at 2pm by the Tillcraft engineer, invoice INV-20917 for £412.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [], result.refusals
    assert "INV-20917" in (project.root / "wiki" / "tillcraft-systems.md").read_text(encoding="utf-8")
    asked = (project.root / "wiki" / "index.md").read_text(encoding="utf-8").split("## Open", 1)[1]
    assert "Which holds? “Tillcraft Systems quoted £385" in asked and "invoice INV-20917 for £412.” (2026-03-06)" in asked


def test_going_with_a_firm_that_quoted_decides_a_page_of_its_own_and_the_firm_goes_on_taking_facts(project: Project) -> None:
    """held57: "Decision: going with Hartwell, Brightstone's too dear" went to Brightstone's page (the
    firm turned down) and decided nothing. It decides a page of its own, "Hartwell decision"; the
    quote given a day before on Declan's page is found across passes, and Hartwell's next fact is kept."""
    journal(
        project,
        "2026-04-13",
        "Declan Ferris from Hartwell Paving came round to measure up: 48 square metres.",
        "His quote HP-3318 is £7,850 for dig-out, sub-base and block paving.",
        "Brightstone Driveways want £9,200 for the same job.",
    )
    garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    journal(project, "2026-04-14", "Decision: going with Hartwell, Brightstone's too dear and can't start before June anyway.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == ["wiki/hartwell-decision.md"], result
    assert meta(project, "hartwell-decision")["state"] == "decided"
    assert meta(project, "brightstone-driveways")["state"] == "open" and meta(project, "declan-ferris")["state"] == "open"
    journal(project, "2026-04-15", "Declan pencilled us in to start Monday 11 May.", "Hartwell have booked the skip for 11 May.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [] and "start Monday 11 May" in body(project, "declan-ferris")
    assert result.created == ["wiki/hartwell.md"] and "booked the skip" in body(project, "hartwell")  # not the choice's page
    # "going with Declan's plan" is his plan, no choice of Declan: no "Declan decision"
    journal(project, "2026-04-16", "Decision: going with Declan's plan, it's cheaper.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and not any("declan-decision" in p for p in result.created), result.created


def test_going_with_a_firm_that_has_a_page_decides_the_choice_page_not_the_firms(project: Project) -> None:
    """held67: "Decision: going with Clearview, …" after Clearview had a page of its own was refused
    ("set_state clearview-decision: page 'clearview-decision' does not exist"): the new page
    "Clearview decision" was taken for a spelling of "Clearview" and its line appended there."""
    journal(
        project,
        "2026-03-09",
        "Last of the three quotes came in: Ashdown Windows £11,480, Clearview Glazing £9,950, Pennant & Rowe £10,720.",
        "Clearview's quote is CVG-5521, done by Sunita Hollis, and covers A-rated uPVC and a composite door.",
    )
    garden(project, answers(FakeModel(), "yes", "yes"))
    assert (project.root / "wiki" / "clearview.md").exists()
    journal(project, "2026-03-10", "Decision: going with Clearview, Ashdown is dearest and Pennant & Rowe want half up front.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == ["wiki/clearview-decision.md"], result
    assert meta(project, "clearview-decision")["state"] == "decided" and meta(project, "clearview")["state"] == "open"
    assert "going with Clearview" not in body(project, "clearview")


def test_a_firm_chosen_with_it_is_is_a_choice_decided_on_its_own_page(project: Project) -> None:
    """held77: "Decision: Inkly it is, with a £40 deposit on every booking." went on Inkly's page and
    left it open, as a name's page always is: "X it is" chooses X, after a price X gave."""
    result = two_days(
        project,
        ("2026-03-10", "Trying out Inkly for bookings, £29 a month and it takes deposits up front."),
        ("2026-03-13", "Decision: Inkly it is, with a £40 deposit on every booking."),
    )
    assert result.refusals == [] and result.created == ["wiki/inkly-decision.md"], (result.refusals, result.created)
    assert meta(project, "inkly-decision")["state"] == "decided" and meta(project, "inkly")["state"] == "open"


def test_hiring_from_a_firm_is_a_choice_of_the_firm_not_a_hiring(project: Project) -> None:
    """held82: "Decision: we hire from Westmere rather than buy, …" decided a page "Hiring", the topic of
    taking someone on; scores hired from a library that gave a price are the library's choice."""
    journal(project, "2026-10-13", "Rang Westmere Music Library: Sanjay Rowntree can do 40 copies each of the Fauré and the Rutter, hire order WML-5521, £138 for the pair.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-10-15", "Decision: we hire from Westmere rather than buy, buying the Rutter alone would be over £400.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == ["wiki/westmere-decision.md"], (result.refusals, result.created)
    assert meta(project, "westmere-decision")["state"] == "decided"
    journal(project, "2026-10-16", "Decision: we hire Ananya, she starts in January.")
    assert garden(project, answers(FakeModel(), "yes")).created == ["wiki/hiring.md"]  # someone taken on is still a hiring


def test_a_firm_or_helper_named_alone_or_kept_on_is_a_choice_decided_on_its_own_page(project: Project) -> None:
    """held69: "Decision: Coppice Print from the April issue, …" decided the April issue (the issue
    took no more lines), and "Decision: keep Kit on nights …" a page titled "Keep". Both choose someone
    who gave a price: the choice is decided on a page of its own, the April issue and Kit stay open."""
    journal(
        project,
        "2026-03-10",
        "Perpetua Voss at Coppice Print Ltd can do the same 350 copies for £368, artwork as a PDF.",
        "April issue planned at 24 pages, same as March.",
        "Kit Ravensworth is doing the lambing nights for us at £120 a night.",
    )
    garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    journal(
        project,
        "2026-03-14",
        "Decision: Coppice Print from the April issue, the treasurer signed off the £409 this morning.",
        "Decision: keep Kit on nights until Thursday 26 March, then I'll manage on my own.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert sorted(result.created) == ["wiki/coppice-print-decision.md", "wiki/kit-decision.md"], result.created
    assert meta(project, "coppice-print-decision")["state"] == "decided" and meta(project, "kit-decision")["state"] == "decided"
    assert meta(project, "april-issue")["state"] == "open" and meta(project, "kit-ravensworth")["state"] == "open"
    # "Decision: Maya starts …" is no choice between offers: a name and its verb
    journal(project, "2026-03-15", "Decision: Perpetua prints on Monday 23 March.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and "perpetua-decision" not in " ".join(result.created), result.created


def test_a_flat_said_with_its_address_is_titled_by_both(project: Project) -> None:
    """held71: "Handed the keys for Flat 3, 27 Alder Crescent back to …" made a page "Flat 3"."""
    journal(project, "2026-03-16", "Handed the keys for Flat 3, 27 Alder Crescent back to Callum Okafor at Brightmoor Lettings at 10:15.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == ["wiki/flat-3-27-alder-crescent.md"], result
    assert meta(project, "flat-3-27-alder-crescent")["title"] == "Flat 3, 27 Alder Crescent"


def test_going_with_someone_decides_the_role(project: Project) -> None:
    journal(project, "2026-09-01", "Priya Shah applied to be treasurer.", "Going with Priya for treasurer, from the AGM.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert meta(project, "treasurer")["state"] == "decided" and meta(project, "priya-shah")["state"] == "open"


def test_a_name_before_an_id_leads_where_the_id_went_before(project: Project) -> None:
    """An episode id first said on the project's page does not pull the editor's lines there."""
    write(project.root, "AGENTS.md", "# Low Tide\n\nA podcast.\n")
    commit_all(project.root)
    journal(project, "2026-12-01", "Season 3 opens with LT-301 on 12 January.", "Callum Reid, our editor, sent the rough cut of LT-301.")
    garden(project, answers(FakeModel(), "yes", "yes"))
    journal(project, "2026-12-02", "Callum says LT-301 runs 52 minutes.", "LT-301 artwork approved.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == []
    assert "runs 52 minutes" in body(project, "callum-reid") and "rough cut" in body(project, "callum-reid")
    assert "artwork approved" not in body(project, "callum-reid")


def test_a_decision_on_the_persons_own_page_does_not_change_its_state(project: Project) -> None:
    write(project.root, "wiki/Worktop.md", page("Worktop", "Quartz or oak, to be decided.\n", source="[2026-03-01]"))
    commit_all(project.root)
    journal(project, "2026-03-05", "Decision: the Worktop is quartz, 30 mm.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == []
    assert meta(project, "Worktop")["state"] == "open" and "quartz, 30 mm" in body(project, "Worktop")


def test_the_score_decides_with_code_and_an_unsure_line_stays_unread_with_why(project: Project) -> None:
    lines = [
        "Ordered 40 m of cable from Elektro Nord, 320 EUR.",  # an amount beside a name in full: a fact, not asked
        "Lunch with Sophie, nice Thai place.",  # 0.55 - a meal: chatter
        "The van is parked behind the shop.",  # 0.45: too close to call
        "Slept badly again.",  # 0.2: chatter
    ]
    journal(project, "2026-03-02", *lines)
    result = garden(project, ScoredModel(0.55, 0.45, 0.2))  # threshold 0.5: a model that cannot be measured
    assert result.created == ["wiki/elektro-nord.md"]
    assert [s["reason"] for s in result.skipped] == ["chatter: a meal", "chatter: sleep and tiredness"]
    assert [(u["line"], u["reason"].split(":")[0]) for u in result.unread] == [("2026-03-02#3", "unsure")]
    assert "0.45" in result.unread[0]["reason"]
    read = json.loads((project.root / ".gitgarden/read.json").read_text())
    assert "The van is parked behind the shop." not in json.dumps(read)


def test_a_decision_the_model_keeps_is_no_chatter_for_a_feeling_word_in_it(project: Project) -> None:
    line = "We agreed to sign with Fjellstart if our lawyer is happy with the clause."
    journal(project, "2026-07-12", line, "Happy and tired after the long run.")
    result = garden(project, ScoredModel(0.7, 0.6))  # 0.7 less a feeling's 0.3 would be chatter
    assert result.unread == [] and [s["line"] for s in result.skipped] == ["2026-07-12#2"]
    assert any(line in body(project, p.removeprefix("wiki/").removesuffix(".md")) for p in result.created)


def test_an_unsure_line_says_what_code_weighed_beside_the_models_score(project: Project) -> None:
    journal(project, "2026-06-11", "Grey all afternoon in the rehearsal room with Marguerite.")  # a name: asked
    result = garden(project, ScoredModel(0.75))  # 0.45: too close to 0.5 to call
    [unsure] = result.unread
    assert unsure["reason"].startswith("unsure: the model's score 0.75, weighed 0.45 (looks like weather),")


def test_a_correction_is_no_chatter_for_an_errand_word_in_it(project: Project) -> None:
    """held22: "on my phone" had made a correction of a coach's price "chatter: an errand"."""
    line = "Correction: Wyvern's figure is £4,630, not £4,360; I'd read the PDF on my phone too quickly."
    journal(project, "2026-05-12", line, "Picked up my phone from the repair shop.")
    result = garden(project, ScoredModel(0.45, 0.45))  # threshold 0.5: the correction's values lift it
    assert [s["line"] for s in result.skipped] == ["2026-05-12#2"] and result.unread == []
    assert any(line in body(project, p.removeprefix("wiki/").removesuffix(".md")) for p in result.created)


def test_a_line_that_goes_back_on_a_value_is_no_chatter_for_a_free_time_word_in_it(project: Project) -> None:
    """held29: "Pool's shut for repairs that Tuesday, so swimming is Wednesday 28th instead" was skipped
    as "chatter: free time"."""
    line = "Pool's shut for repairs that Tuesday, so swimming is Wednesday 28th instead."
    journal(project, "2026-10-14", line, "Swimming after work, twenty lengths.")
    result = garden(project, ScoredModel(0.45, 0.45))  # threshold 0.5: the moved date lifts it, the swim stays down
    assert [s["line"] for s in result.skipped] == ["2026-10-14#2"] and result.unread == []
    assert any(line in body(project, p.removeprefix("wiki/").removesuffix(".md")) for p in result.created)


def test_a_line_that_gives_a_reference_is_no_chatter_for_a_meal_word_in_it(project: Project) -> None:
    """Gemma 3 270M, held25: a booking for "the reunion dinner" was skipped as "chatter: a meal"."""
    line = "Booked the function room at the Bayview Hotel for the reunion dinner on Saturday 29 August; €400 deposit, booking ref BV-0829-KEA."
    journal(project, "2026-06-08", line, "Roast dinner at Mum's, far too many potatoes.")
    result = garden(project, ScoredModel(0.45, 0.45))  # threshold 0.5: the line's values lift it, the roast stays down
    assert [s["line"] for s in result.skipped] == ["2026-06-08#2"] and result.unread == []
    assert any(line in body(project, p.removeprefix("wiki/").removesuffix(".md")) for p in result.created)


def test_a_decision_that_prices_its_choice_is_no_chatter_for_a_meal_word_in_it(project: Project) -> None:
    """Gemma 3 270M, held27: "We'll take the hot food package, nuggets, chips …, and not bother with
    sandwiches" was skipped as "chatter: a meal"."""
    line = "We'll take the Jumpzone hot food package, nuggets, chips and fruit at £4.25 a head, and not bother with sandwiches."
    journal(project, "2026-11-07", line, "Fish finger sandwiches for tea, couldn't face cooking.")
    result = garden(project, ScoredModel(0.3, 0.3))  # threshold 0.5: under it, but a decision with no look of chatter stands
    assert [s["line"] for s in result.skipped] == ["2026-11-07#2"] and result.unread == []
    assert any(line in body(project, p.removeprefix("wiki/").removesuffix(".md")) for p in result.created)


def test_a_line_that_introduces_someone_or_opens_with_the_projects_thing_is_no_chatter(project: Project) -> None:
    """held29: "Becky Townsend, who runs the club, emailed the kit list: … a packed lunch" was skipped
    as "chatter: a meal", and "The club runs 9am to 3pm, with early drop-off …" left unsure as "the
    journey"."""
    write(project.root, "AGENTS.md", "# Half-term holiday club\n\nOur two are booked into the holiday club.\n")
    kit = "Becky Townsend, who runs the club, emailed the kit list: trainers every day and a packed lunch."
    times = "The club runs 9am to 3pm, with early drop-off from 8am for an extra £4 a day."
    journal(project, "2026-10-13", kit, times, "Packed lunch at my desk again.")
    result = garden(project, ScoredModel(0.45, 0.45, 0.45))  # threshold 0.5: a look of chatter would sink both
    assert [s["line"] for s in result.skipped] == ["2026-10-13#3"] and result.unread == []
    assert kit in body(project, "becky-townsend") and times in body(project, "half-term-holiday-club")


def test_a_decision_that_names_the_one_it_turned_down_is_no_chatter_for_a_meal_word_in_it(project: Project) -> None:
    """held30: "We're going with a bring-and-share lunch rather than a barbecue" was skipped as "chatter: a meal"."""
    line = "We're going with a bring-and-share lunch rather than a barbecue, what with all the little ones running about."
    journal(project, "2026-05-16", line, "Barbecue at Sam's, far too many sausages.")
    result = garden(project, ScoredModel(0.3, 0.3))  # threshold 0.5: under it, but a decision with no look of chatter stands
    assert [s["line"] for s in result.skipped] == ["2026-05-16#2"] and result.unread == []
    assert meta(project, "bring-and-share-lunch")["state"] == "decided"


def test_someone_rung_by_name_in_full_is_the_lines_subject(project: Project) -> None:
    """held30: "Rang Raj Bhamra, the tuner Helen uses; he charges £75 a tune" went to Helen's page (she had
    one), and "We've settled on Raj for the first tuning, …, his ref RB/0519" titled a page "Ref"."""
    journal(project, "2026-04-13", "Helen Fairbrother charges £32 for a half-hour piano lesson.")
    garden(project, ScoredModel(0.9))
    rang = "Rang Raj Bhamra, the tuner Helen uses; he charges £75 a tune."
    journal(project, "2026-04-15", rang)
    garden(project, ScoredModel(0.9))
    journal(project, "2026-04-18", "We've settled on Raj for the first tuning, booked for Tuesday 19 May at 10am, his ref RB/0519.")
    result = garden(project, ScoredModel(0.9))
    assert rang in body(project, "raj-bhamra") and "settled on Raj" in body(project, "raj-bhamra")
    assert result.created == [] and rang not in body(project, "helen-fairbrother")


def test_a_name_given_in_full_counts_for_a_fact(project: Project) -> None:
    journal(project, "2026-08-05", "Marguerite Oyelaran wants the blocking notes typed up.", "The van is parked behind the shop.")
    result = garden(project, ScoredModel(0.45, 0.45))  # threshold 0.5: both just under it
    assert result.created == ["wiki/marguerite-oyelaran.md"]
    assert [(u["line"], u["reason"].split(":")[0]) for u in result.unread] == [("2026-08-05#2", "unsure")]


def test_a_person_named_in_full_elsewhere_counts_for_a_fact_by_first_name(project: Project) -> None:
    journal(project, "2026-10-13", "Hamish Oduya starts on the front desk Monday.")
    garden(project, ScoredModel(0.9))
    journal(project, "2026-10-14", "Hamish has worked with Carys, says she's good with exotics.", "The van is parked behind the shop.")
    result = garden(project, ScoredModel(0.45, 0.45))  # threshold 0.5: both just under it
    assert result.created == [] and "worked with Carys" in body(project, "hamish-oduya")
    assert [(u["line"], u["reason"].split(":")[0]) for u in result.unread] == [("2026-10-14#2", "unsure")]


def test_someone_elses_family_or_health_is_no_chatter(project: Project) -> None:
    journal(project, "2026-12-03", "Fernhill Studios moved our booking to 10 December, their engineer is off sick.", "Dentist at 4, one filling.")
    result = garden(project, ScoredModel(0.7, 0.7))  # 0.7 less chatter's 0.3 would fall under 0.5
    assert result.created == ["wiki/fernhill-studios.md"]
    assert [s["reason"] for s in result.skipped] == ["chatter: an appointment"]


def test_a_line_code_settles_is_not_sent_to_the_model(project: Project) -> None:
    journal(
        project,
        "2026-09-01",
        "Decision: raffle tickets £2 each.",
        "Is the hall free on 12 Sept? Ask Inkwell Press.",
        "Inkwell Press printed 400 tickets, order IP-5521.",  # an id, no look of chatter: a fact
        "Marek Lis will lend us his gazebo on 12 Sept.",  # a date beside a name in full: a fact
        "The tombola needs more prizes.",  # nothing code can settle: asked
        "Rain all day, the dog refused to go out.",  # chatter with nothing of a fact in it
    )
    model = ScoredModel(0.9)  # one score: asked more than once, it fails the test
    result = garden(project, model)
    assert len(model.history) == 1 and "tombola" in model.history[0][-1]["content"]
    assert result.unread == [] and meta(project, "raffle-tickets")["state"] == "decided"
    assert "order IP-5521" in body(project, "inkwell-press") and "gazebo" in body(project, "marek-lis")
    assert [s["reason"] for s in result.skipped] == ["chatter: weather"]
    assert any("Is the hall free on 12 Sept?" in ln for ln in open_lines(project))


def test_a_line_led_by_a_topic_stays_with_it_when_a_name_comes_after_because(project: Project) -> None:
    journal(project, "2026-06-07", "Arjun Mehta is doing the seating plan.")
    garden(project, ScoredModel(0.9))
    journal(project, "2026-06-08", "Guest list at 120 after Arjun's mum added the Leicester cousins.", "Arjun wants the plan by Friday.")
    result = garden(project, ScoredModel(0.9, 0.9))
    assert result.created == ["wiki/guest-list.md"] and "Leicester cousins" in body(project, "guest-list")
    assert "plan by Friday" in body(project, "arjun-mehta")


def test_an_id_keeps_the_page_of_the_first_line_that_gave_it_across_passes(project: Project) -> None:
    """The pages are read back in the journal's order, not the pages' names' order."""
    journal(project, "2026-04-01", "Zelda Brook booked the hall, ref HB-4410.", "Anna Kowal paid the deposit on HB-4410.")
    garden(project, ScoredModel(0.9, 0.9))
    journal(project, "2026-04-02", "HB-4410 moved to the small hall.")
    result = garden(project, ScoredModel(0.9))
    assert result.created == [] and "small hall" in body(project, "zelda-brook")


def test_a_failed_request_leaves_its_line_unread_with_why_and_the_others_land(project: Project) -> None:
    journal(project, "2026-03-02", "Anna Berg will tile the bathroom.", "Jon Lie will paint the hall.", "Kari Moe will fit the sink.")
    broken = ModelError("model endpoint refused the request: http://127.0.0.1:8080/v1 (500)", kind="error")
    result = garden(project, ScoredModel(0.9, broken, 0.9))
    assert result.outcome == "pages_written" and sorted(result.created) == ["wiki/anna-berg.md", "wiki/kari-moe.md"]
    assert result.unread == [{"line": "2026-03-02#2", "text": "Jon Lie will paint the hall.", "reason": f"request failed: {broken}"}]
    record = json.loads(git(project.root, "show", f"HEAD:{FIXED_LOG}").splitlines()[-1])
    assert record["unread"] == result.unread


def test_an_unreachable_endpoint_is_asked_twice_then_every_line_says_why(project: Project) -> None:
    journal(project, "2026-03-02", *(f"Supplier {n} quoted {n}00 EUR." for n in range(1, 6)))
    down = ModelError("cannot reach the model endpoint at http://127.0.0.1:9/v1 (connection refused)", kind="unreachable")
    model = ScoredModel(down, down)
    result = garden(project, model)
    assert len(model.history) == 2 and result.outcome == "finished_without_writing"
    assert len(result.unread) == 5 and all("connection refused" in u["reason"] for u in result.unread)


def test_a_reply_that_is_not_a_word_leaves_the_line_unread_with_the_answer_shown(project: Project, fake_model: FakeModel) -> None:
    journal(project, "2026-03-02", "Anna Berg will tile the bathroom.", "Jon Lie will paint the hall.")
    result = garden(project, answers(fake_model, '{"kind": "fac', "yes"))  # a reply cut mid-string
    assert result.created == ["wiki/jon-lie.md"]
    assert result.unread[0]["line"] == "2026-03-02#1" and "not yes or no" in result.unread[0]["reason"]


def test_every_request_shares_one_byte_identical_prefix_and_ends_with_its_line(project: Project, fake_model: FakeModel) -> None:
    more = ["The tiler can start after the plumber.", "Bathroom needs twelve boxes of tiles.", "Skip hire is booked."]
    journal(project, "2026-03-02", *KITCHEN, *more)
    garden(project, answers(fake_model, *["yes"] * (len(KITCHEN) + len(more))))
    prefixes = {json.dumps(h[:-1]) for h in fake_model.history}
    # Not sent: the rain (chatter with nothing of a fact), the lines with an id or a name in full beside a date or amount.
    asked = [KITCHEN[3], KITCHEN[5], *more]
    assert len(prefixes) == 1 and [h[-1]["content"] for h in fake_model.history] == asked


def test_the_threshold_is_measured_once_per_model_from_labelled_lines() -> None:
    facts = {text: 0.66 for text, fact in judge.CALIBRATION if fact}
    chatter = {text: 0.44 for text, fact in judge.CALIBRATION if not fact}
    assert judge.calibrate({**facts, **chatter}) == pytest.approx(0.44 + 0.65 * 0.22)
    assert judge.calibrate({**{t: 0.4 for t in facts}, **{t: 0.6 for t in chatter}}) is None  # cannot tell them apart
    assert judge.calibrate({}) is None


def test_the_score_reads_yes_and_no_from_the_alternatives_or_the_answer() -> None:
    u = Usage(10, 1)
    assert judge.score_of(Reply("yes", u, alternatives={"yes": 0.6, "no": 0.2, "maybe": 0.2})) == (pytest.approx(0.75), "logprobs")
    assert judge.score_of(Reply("No.", u)) == (0.1, "answer")
    score, why = judge.score_of(Reply("{", u))
    assert score is None and "not yes or no" in why


def test_judge_runs_out_of_budget_without_losing_a_line() -> None:
    model = ScoredModel(0.9)
    budget = Budget(tokens=200, seconds=60)
    judging = judge.judge(model, "x", [("a", "Anna quoted 900 EUR."), ("b", "Jon quoted 700 EUR.")], budget)
    assert [v.line for v in judging.verdicts] == ["a", "b"]
    assert judging.verdicts[0].score == 0.9 and judging.verdicts[1].score is None
    assert "budget" in judging.verdicts[1].why


def test_a_bullet_keeps_the_line_word_for_word_and_its_trailing_punctuation() -> None:
    assert small.bullet(JournalLine("2026-11-29", 3, "- [ ] call the plumber!", "k")) == "- call the plumber! (2026-11-29)\n"
    assert small.bullet(JournalLine("2026-11-29", 4, "Acme pays 400 EUR.", "k")) == "- Acme pays 400 EUR. (2026-11-29)\n"


@pytest.mark.parametrize(
    ("settings", "mode"),
    [
        (Settings(model="openai/local", api_base="http://127.0.0.1:8080/v1"), "small"),  # llama.cpp, LM Studio
        (Settings(model="openai/local", api_base="http://localhost:1234/v1"), "small"),
        (Settings(model="ollama_chat/llama3.2"), "small"),
        (Settings(model="openai/gpt-4o-mini"), "full"),  # hosted, the default window (a guess, not a fact)
        (Settings(model="openai/gpt-4o-mini", context_window=8000, context_window_source="user"), "small"),
        (Settings(model="openai/gpt-4o-mini", context_window=32000, context_window_source="user"), "full"),
        (Settings(model="openai/local", api_base="http://127.0.0.1:8080/v1", mode="full"), "full"),
        (Settings(model="openai/gpt-4o-mini", mode="small"), "small"),
    ],
)
def test_auto_chooses_small_for_a_local_endpoint_or_a_short_window(settings: Settings, mode: str) -> None:
    chosen, why = provider.choose_mode(settings)
    assert chosen == mode and why


def test_llm_status_says_which_mode_and_why(tmp_path: Any) -> None:
    env = {"GITGARDEN_MODEL": "openai/local", "GITGARDEN_API_BASE": "http://127.0.0.1:8080/v1", "GITGARDEN_CONFIG": str(tmp_path / "u.toml")}
    info = model_status.status(load_settings(None, env=env).settings, env, probe=False)
    assert info["mode"] == "small" and "local endpoint" in info["mode_why"]
    env["GITGARDEN_MODE"] = "full"
    info = model_status.status(load_settings(None, env=env).settings, env, probe=False)
    assert (info["mode"], info["mode_why"]) == ("full", "mode = full")


def test_full_mode_stays_as_it_was_for_a_hosted_model(project: Project, fake_model: FakeModel) -> None:
    journal(project, "2026-03-02", "lunch was good")
    fake_model.enqueue({"operations": [{"op": "skip", "lines": ["2026-03-02#1"], "reason": "chatter"}]})
    result = garden(project, fake_model, Settings(model="fake/scripted"))
    assert result.mode == "full" and "operations" in fake_model.prompt and result.outcome == "nothing_earned"


def test_small_mode_writes_go_through_the_guard(project: Project) -> None:
    """A fact for a page of the person's that is over its budget is refused by the guard like any append."""
    write(project.root, "wiki/Delivery.md", page("Delivery", "x" * 6100 + "\n", source="[2026-03-01]"))
    commit_all(project.root)
    journal(project, "2026-03-02", "Delivery moves to Mondays from 9 March.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert any("over the page budget" in r for r in result.refusals), result.refusals
    assert [u["line"] for u in result.unread] == ["2026-03-02#1"] and result.unread[0]["reason"].startswith("refused:")
    assert not (project.root / ".gitgarden/read.json").exists()  # the refused line stays unread


def test_an_open_question_the_full_map_has_no_room_for_goes_to_the_open_questions_page(project: Project) -> None:
    entries = []
    while len("".join(entries)) < 1880:  # a map with room for a short line, not for the question
        entries.append(f"- [[p{len(entries)}]] — a page about thing number {len(entries)} of this garden\n")
    write(project.root, "wiki/index.md", f"# Map\n\n## Pages\n\n{''.join(entries)}\n## Open\n")
    for n in range(len(entries)):
        write(project.root, f"wiki/p{n}.md", page(f"P{n}", "x\n"))
    commit_all(project.root)
    assert 2000 - 100 < len((project.root / "wiki/index.md").read_text()) < 2000 - 45
    journal(project, "2026-03-02", "Does the quote from Ridge Roofing include the gutters, the scaffolding and taking the old tiles away?")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.marked_read == 1, (result.refusals, result.unread, result.outcome, result.detail)
    assert "- Does the quote from Ridge Roofing include the gutters, the scaffolding and taking the old tiles away?" in body(project, "open-questions")
    assert meta(project, "open-questions")["title"] == "Open questions"
    assert "- More open questions: [[open-questions]]" in open_lines(project)


def test_a_full_open_questions_page_continues_on_the_next(project: Project) -> None:
    """A long journal's questions outgrow one page: the next goes on "Open questions 2", none refused."""
    entries = [f"- [[p{n}]] — a page about thing number {n} of this garden\n" for n in range(34)]
    questions = "".join(f"- Is question number {n} of the long study still open, or did a later line settle it? (2026-02-01)\n" for n in range(60))
    write(project.root, "wiki/index.md", f"# Map\n\n## Pages\n\n{''.join(entries)}\n## Open\n\n- More open questions: [[open-questions]]\n")
    write(project.root, "wiki/open-questions.md", page("Open questions", questions, gardener=True))
    for n in range(len(entries)):
        write(project.root, f"wiki/p{n}.md", page(f"P{n}", "x\n"))
    commit_all(project.root)
    assert len((project.root / "wiki/index.md").read_text()) > 2000 - 100
    assert 6000 - 100 < len((project.root / "wiki/open-questions.md").read_text()) < 6000  # no room for the question
    journal(project, "2026-03-02", "Does the quote from Ridge Roofing include the gutters, the scaffolding and taking the old tiles away?")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.marked_read == 1, (result.refusals, result.unread)
    assert "Ridge Roofing" not in body(project, "open-questions")
    assert "- Does the quote from Ridge Roofing include the gutters, the scaffolding and taking the old tiles away?" in body(project, "open-questions-2")
    assert meta(project, "open-questions-2")["title"] == "Open questions 2"


def test_an_unsure_line_is_not_asked_again_and_is_set_aside_after_three_passes(project: Project) -> None:
    journal(project, "2026-03-02", "The van is parked behind the shop.")
    model = ScoredModel(0.45)
    first = garden(project, model)
    assert [u["reason"].split(":")[0] for u in first.unread] == ["unsure"] and len(model.history) == 1
    later = [garden(project, model) for _ in range(2)]  # the same model: the same line is not asked again
    assert len(model.history) == 1
    assert all(r.unread and r.unread[0]["reason"] == first.unread[0]["reason"] for r in later)
    assert later[-1].set_aside and "unsure" in later[-1].set_aside[0]


def test_a_first_name_alone_takes_the_full_name_the_journal_gives_elsewhere(project: Project) -> None:
    journal(project, "2026-05-11", "New job from LinguaBridge via Chiamaka Eze: a leaflet, 4,200 words.", "Chiamaka says the leaflet is 4,850 words.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert sorted(result.created) == ["wiki/chiamaka.md", "wiki/linguabridge.md"], (result.created, result.refusals)
    assert meta(project, "chiamaka")["aliases"] == ["Chiamaka Eze"]
    journal(project, "2026-05-12", "Chiamaka Eze sent the glossary, 112 terms.")
    assert garden(project, answers(FakeModel(), "yes")).appended == ["wiki/chiamaka.md"]


def test_an_id_given_again_goes_where_its_first_line_went(project: Project) -> None:
    journal(project, "2026-06-08", "Brackenridge House confirmed Saturday 19 September.", "Venue deposit £2,500, invoice BH-2210, due by 30 June.")
    garden(project, answers(FakeModel(), "yes", "yes"))
    journal(project, "2026-06-12", "Solveig says sparklers are fine until 10:30pm.", "BH-2210 reissued: the deposit is £2,750 now. Paid it.")
    garden(project, answers(FakeModel(), "yes", "yes"))
    assert "BH-2210 reissued" in body(project, "brackenridge-house")
    assert any("£2,500" in ln and "£2,750" in ln for ln in open_lines(project))


def test_an_id_on_a_line_about_a_thing_of_its_own_does_not_follow_the_line_before(project: Project) -> None:
    """"Ordered 50 polo shirts, order SC-55812" after a line about the coach is the shirts' line;
    "Pitch 3 at Millbrook Park booked, ref MP-7781" is the park's — no page is titled by a ref."""
    journal(
        project,
        "2026-03-12",
        "Gary Pascoe at Westway Coaches confirmed the 53-seater for the tour.",
        "Ordered 50 tour polo shirts, order no. SC-55812, £11.40 each.",
        "Pitch 3 at Millbrook Park booked for Thursday training, £45 a session, ref MP-7781.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert "Ordered 50 tour polo shirts" in body(project, "polo-shirts")
    assert "Pitch 3 at Millbrook Park" in body(project, "millbrook-park")
    assert not any("sc-55812" in p or "mp-7781" in p for p in result.created), result.created


def test_a_booking_of_a_thing_the_line_before_does_not_name_is_the_things_own(project: Project) -> None:
    """held63: "Village hall booking VH-0321 confirmed" went to Leonie's page, the grant officer's, the
    last fact before it (a line of chatter between): paper of a thing goes with the line before only
    when that line is just before it or its page names the thing ("Venue deposit …" still follows the
    venue's line). "Parish council grant" keeps its first word, as "village hall" does."""
    journal(
        project,
        "2026-03-06",
        "Leonie Farrant at the Wessex Sports Council says the grant maximum is £12,500.",
        "Rain all day, the back lawn is basically a pond.",
        "Village hall booking VH-0321 confirmed, £45 for the evening, tables for 80.",
        "Parish council grant approved, £750 towards the lights, ref PC/GR-112.",
    )
    result = garden(project, answers(FakeModel(), "yes", "no", "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert sorted(result.created) == ["wiki/leonie-farrant.md", "wiki/parish-council-grant.md", "wiki/village-hall-booking.md"]


def test_the_festival_is_the_festival_the_journal_names_in_full(project: Project) -> None:
    journal(project, "2026-05-11", "Pitch confirmed at Kestrel Bay Food Festival: B14, £380 for both days.", "The festival is Sat 30 May and Sun 31 May.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert "The festival is Sat 30 May" in body(project, "festival")
    assert meta(project, "festival")["aliases"] == ["Kestrel Bay Food Festival"]  # the page answers to its full name
    journal(project, "2026-05-12", "Kestrel Bay Food Festival wants our hygiene certificate by Friday.")
    assert garden(project, answers(FakeModel(), "yes")).appended == ["wiki/festival.md"]


def test_a_count_that_leads_a_line_is_its_topic(project: Project) -> None:
    journal(project, "2026-06-08", "38 players signed up so far, strings-heavy as usual.", "Late viola and two more violins, so we're at 41 players now.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert "38 players" in body(project, "players") and "41 players" in body(project, "players")
    assert any("38 players" in ln and "41 players" in ln for ln in open_lines(project))


def test_a_change_that_opens_with_its_own_thing_goes_there_not_on_someones_page(project: Project) -> None:
    """held45: "Dry dock moved to Thursday 23 April" went beside "Padworth Lock Boatyard can take us in
    the dry dock on Monday 20 April" on the boatyard's page; a change opening with its own thing goes
    on that thing's page, the Open line quoting both. One opening with someone's name stays beside."""
    journal(project, "2026-04-13", "Padworth Lock Boatyard can take us in the dry dock on Monday 20 April, £380 for the week.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-04-16", "Dry dock moved to Thursday 23 April, the boat ahead of us overran.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == ["wiki/dry-dock.md"], result
    assert any("Monday 20 April" in ln and "Thursday 23 April" in ln and "[[dry-dock]]" in ln for ln in open_lines(project))
    journal(project, "2026-04-17", "Padworth say £420 for the week now, the cradle hire went up.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == [] and "£420" in body(project, "padworth-lock-boatyard")


def test_a_change_to_a_decided_page_is_kept_on_its_own_page_and_asked(project: Project) -> None:
    """The decided page takes no line, yet the fact is not lost to the map: it goes on its own
    subject's page, and the Open line says the old value is decided."""
    journal(project, "2026-09-17", "Going with Rosa Delacroix for manager, she starts 28 Sept.")
    garden(project, answers(FakeModel()))
    assert meta(project, "manager")["state"] == "decided"
    journal(project, "2026-09-18", "Rosa's start moved to 5 Oct, she has to work her notice.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [], result.refusals
    assert "Rosa's start moved to 5 Oct" in body(project, "rosa")
    asked = [ln for ln in open_lines(project) if "28 Sept" in ln and "5 Oct" in ln]
    assert asked and ": it is decided" in asked[0], open_lines(project)


def test_a_role_agents_md_gives_someone_finds_their_page(project: Project) -> None:
    """"Niamh is our conductor and Conor our treasurer": "our treasurer" is Conor's page, and "the
    conductor" makes the page Niamh's lines later find."""
    write(project.root, "AGENTS.md", "# Youth orchestra\n\nI run the camp; Niamh is our conductor and Conor our treasurer.\n")
    commit_all(project.root)
    journal(
        project,
        "2026-06-08",
        "Conor Walsh wants the camp fee fixed by Friday.",
        "Our treasurer reckons €21,000 all in.",
        "The conductor wants the strings seated by 09:30 every morning.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert "Our treasurer reckons" in body(project, "conor-walsh")
    assert "The conductor wants" in body(project, "conductor")
    assert "Niamh" in meta(project, "conductor")["aliases"]
    journal(project, "2026-06-09", "Niamh Gallagher wants two extra desks of cellos.")
    assert garden(project, answers(FakeModel(), "yes")).appended == ["wiki/conductor.md"]


def test_a_role_agents_md_gives_leads_a_line_that_names_someone_else_later(project: Project) -> None:
    write(project.root, "AGENTS.md", "# Fennel & Fig\n\nGraham Whitlock is the landlord; Ferhat Yilmaz is our builder.\n")
    commit_all(project.root)
    journal(project, "2026-06-11", "Ferhat Yilmaz quoted £18,600 for the fit-out.", "The landlord wants his written consent before Ferhat touches the extraction flue.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert "The landlord wants" in body(project, "landlord") and "Graham Whitlock" in meta(project, "landlord")["aliases"]
    assert "The landlord" not in body(project, "ferhat-yilmaz")


@pytest.mark.parametrize(
    ("folder", "heading", "title"),
    [
        ("u11-cup", "# Hollins Park Juniors U11 tournament\n\nOur one-day football tournament.\n", "Hollins Park Juniors U11 tournament"),
        ("notes-2026", "", "Notes"),  # no heading, a folder name with digits: still a page, never refused
        ("cup-day", "", "Cup day"),
    ],
)
def test_a_line_with_no_subject_lands_on_the_projects_own_page(tmp_path: Path, folder: str, heading: str, title: str) -> None:
    """The page for facts code finds no subject in is titled by AGENTS.md or the folder, not by the
    line: the guard takes that title from code, where it checks it again."""
    project = Project(init_project(tmp_path / folder).root)
    if heading:
        write(project.root, "AGENTS.md", heading)
        commit_all(project.root)
    journal(project, "2026-05-15", "Three more clubs entered overnight, so entries are now 15.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.unread == [], (result.refusals, result.unread)
    [made] = result.created
    assert pages.read_meta((project.root / made).read_text())["title"] == title


def test_a_line_that_names_a_topics_page_in_its_words_goes_there(project: Project) -> None:
    journal(project, "2026-05-11", "Team entries so far: 12, at £35 a team.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-05-13", "Three more clubs entered overnight, so team entries are now 15.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == [] and "now 15" in body(project, "team-entries")
    assert any("so far: 12" in ln and "now 15" in ln for ln in open_lines(project))  # and the count changed is asked


def test_the_projects_own_page_is_titled_from_its_own_files_never_through_a_symlink(tmp_path: Path) -> None:
    """What the guard checks `title_from` against: AGENTS.md's first heading, digits and all, else the
    folder's name — and an AGENTS.md that is a symlink (to a file outside) is not read."""
    root = tmp_path / "u11-cup"
    root.mkdir()
    assert general_title(root) == ("Notes", "project")  # a folder name with digits is no title
    (root / "AGENTS.md").write_text("Intro line.\n# Hollins Park Juniors U11 tournament\n", encoding="utf-8")
    assert general_title(root) == ("Hollins Park Juniors U11 tournament", "AGENTS.md")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Someone else's heading\n", encoding="utf-8")
    (root / "AGENTS.md").unlink()
    (root / "AGENTS.md").symlink_to(outside)
    assert general_title(root) == ("Notes", "project")
    (tmp_path / "cup-day").mkdir()
    assert general_title(tmp_path / "cup-day") == ("Cup day", "project")
    # a heading with a colon: what the notes are about, after it, else the name before it
    (root / "AGENTS.md").unlink()
    (root / "AGENTS.md").write_text("# Crumb & Co: the Fennel & Fig order\n", encoding="utf-8")
    assert general_title(root) == ("Fennel & Fig order", "AGENTS.md")
    (root / "AGENTS.md").write_text("# Crumb & Co: what's next?\n", encoding="utf-8")
    assert general_title(root) == ("Crumb & Co", "AGENTS.md")
    # held29 to held31: a thing and where it is, as the person headed it, not "Notes"
    for heading in ("Back fence at 27 Orchard Rise", "Folk show on Wharfe Valley FM", "Leak claim, 27 Alder Road"):
        (root / "AGENTS.md").write_text(f"# {heading}\n", encoding="utf-8")
        assert general_title(root) == (heading, "AGENTS.md")
    # held57 and nine more weeks: two things joined ("and", "to", "of") as the person headed them
    for heading in ("Front driveway and dropped kerb", "Mum's move to Larchmont", "Moving out of Flat 3, Alder House"):
        (root / "AGENTS.md").write_text(f"# {heading}\n", encoding="utf-8")
        assert general_title(root) == (heading, "AGENTS.md")
    (root / "AGENTS.md").write_text("# We decided to move to Leeds in the spring and sell the flat\n", encoding="utf-8")
    assert general_title(root) == ("Notes", "project")  # a sentence is no title


def test_the_writers_household_is_no_topic_either(project: Project) -> None:
    """held31: with AGENTS.md's "Helen and I are replacing the back fence", "Helen and I have settled on
    1.8 metre panels rather than 1.5" made a page "Helen"."""
    result = kept_week(
        project,
        "# Back fence at 27 Orchard Rise\n\nHelen and I are replacing the back fence.\n",
        "2026-04-17",
        "Helen and I have settled on 1.8 metre panels rather than 1.5, so the alley can't see in.",
    )
    assert result.created == ["wiki/back-fence-at-27-orchard-rise.md"], result.created


def test_a_thing_of_the_writers_household_is_its_own_topic(project: Project) -> None:
    """held59: under "# Luana's spouse visa" (Luana the writer's wife), "Luana's biometrics booked at VFS
    Global …" went to the project's own page; her biometrics are a topic of their own."""
    result = kept_week(
        project,
        "# Luana's spouse visa\n\nNotes on a spouse visa for my wife, Luana Ferreira da Silva.\n",
        "2026-03-13",
        "Luana's biometrics booked at VFS Global in São Paulo, 16 April at 10:15, she'll fly down the night before.",
    )
    assert result.created == ["wiki/biometrics.md"], result.created


def test_a_street_address_only_says_where(project: Project) -> None:
    journal(project, "2026-06-08", "Signed the lease on 14 Kirkgate with Graham Whitlock: £1,450 a month.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == ["wiki/graham-whitlock.md"], result


def test_a_thing_a_firm_is_named_for_is_decided_and_a_name_said_shorter_is_one_page(project: Project) -> None:
    journal(
        project,
        "2026-03-14",
        "Apex Scaffolding quoted £14,200 for eight weeks, quote AS-5078.",
        "Grant form in to the Wessex Historic Churches Trust, asking for £25,000.",
        "Churches Trust panel meets on 20 March.",
        "We've settled on Apex for the scaffolding even at £16,850, the other firm can't start till June.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert meta(project, "scaffolding")["state"] == "decided"  # "the scaffolding", not Apex Scaffolding's page
    assert meta(project, "apex-scaffolding")["state"] == "open"
    assert "Churches Trust panel meets" in body(project, "wessex-historic-churches-trust")
    assert not (project.root / "wiki" / "churches-trust.md").exists()


def test_a_first_name_agents_md_gives_in_full_is_one_person(project: Project) -> None:
    """AGENTS.md says "Bethan Morgan is my co-leader"; the journal says "Bethan": her page answers
    to her full name and her role too."""
    write(project.root, "AGENTS.md", "# Year 8 trip\n\nBethan Morgan is my co-leader and Marcus Adebayo our business manager.\n")
    commit_all(project.root)
    journal(project, "2026-03-09", "Bethan wants the risk assessment by 20 March.", "Our business manager says the coach invoice is paid.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert meta(project, "bethan")["aliases"] == ["Bethan Morgan", "the co-leader"]
    assert "Our business manager says" in body(project, "business-manager")
    assert meta(project, "business-manager")["aliases"][0] == "Marcus Adebayo"


def test_a_role_given_after_a_name_finds_the_person_later_also_in_a_decision(project: Project) -> None:
    journal(
        project,
        "2026-03-09",
        "Ewa Kowalczyk, the school nurse, wants the medical forms back by 1 May.",
        "Ravi Menon, our DoP, wants the Sony FX6 and a set of primes.",
    )
    garden(project, answers(FakeModel(), "yes", "yes"))
    journal(
        project,
        "2026-03-10",
        "We agreed the nurse comes as our fifth adult.",
        "The DoP's borrowing a sound kit from his uni for free.",
    )
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == [], (result.refusals, result.created)
    assert "We agreed the nurse comes" in body(project, "ewa-kowalczyk")
    assert meta(project, "ewa-kowalczyk")["state"] == "open"  # a person goes on taking facts
    assert "The DoP's borrowing" in body(project, "ravi-menon")


def test_a_firms_role_given_after_a_name_finds_the_person_and_is_no_thing_their_lines_share(project: Project) -> None:
    """held53: "The surveyor says there's 320mm of headroom" made a page "Surveyor" although "Kieran
    Doyle, Westway's surveyor, measured the opening …" came the day before; on Kieran's page the
    surveyor both lines name is who the page is about, no thing a new measure changes."""
    journal(project, "2026-03-10", "Kieran Doyle, Westway's surveyor, measured the opening at 2,310mm wide by 2,095mm high.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-03-11", "The surveyor says there's 320mm of headroom, just enough for the roll box inside.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == [] and result.appended == ["wiki/kieran-doyle.md"], (result.created, result.appended)
    assert open_lines(project) == []  # headroom is no new width of the opening


def test_a_role_no_one_named_holds_goes_on_the_page_of_its_deed(project: Project) -> None:
    """held77: "The surveyor says two purlins … need strengthening" made a page "Surveyor" after "Roof
    survey booked with Rania Haddad …": no line says Rania surveys, so the survey's page has it."""
    result = two_days(
        project,
        ("2026-03-10", "Roof survey booked with Rania Haddad of Kestrel Structural for Thursday at 8:30."),
        ("2026-03-12", "The surveyor says two purlins at the north end of the hall roof need strengthening, roughly £2,200 extra."),
    )
    assert result.created == [] and result.appended == ["wiki/roof-survey.md"], (result.created, result.appended)


def test_a_first_name_said_short_is_the_same_person(project: Project) -> None:
    """held75: "Vern rang, he's giving 15% …" made a page "Vern" beside "Vernon Tully", and the new
    share was asked of no one."""
    result = two_days(
        project,
        ("2026-05-12", "Vernon Tully of Tully's Grill has confirmed the burger van: £40 pitch plus 10% of his takings to the hospice."),
        ("2026-05-15", "Vern rang, he's giving 15% of his burger takings to the hospice this month."),
    )
    assert result.created == [] and result.appended == ["wiki/vernon-tully.md"], (result.created, result.appended)
    assert any("15%" in line and "10%" in line for line in open_lines(project)), open_lines(project)


def test_a_title_and_last_name_and_the_first_name_are_one_person(project: Project) -> None:
    """held75: "Consult with Mr Okonjo booked …" and "Adebayo's estimate …" made two pages after
    "Sanna is referring us to Adebayo Okonjo, …" (a week read in one pass): a title and a last name
    find the one full name the lines give that ends with it, of two words as of three."""
    journal(
        project,
        "2026-03-09",
        "Dr Sanna Lindqvist at Copperbeech Vets confirmed Bramble has ruptured the cruciate in her left hind leg.",
        "Sanna is referring us to Adebayo Okonjo, orthopaedic surgeon at Northgate Veterinary Referrals, for a TPLO.",
    )
    journal(project, "2026-03-10", "Consult with Mr Okonjo booked for Thursday 12 March at 10:15, Northgate's ref NVR/4471.")
    journal(project, "2026-03-12", "Adebayo's estimate for the TPLO is £5,320 with the larger plate, she weighed in at 34 kg.")
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes", "yes"))
    homes = sorted({page for page in result.created + result.appended if "Adebayo's estimate" in (project.root / page).read_text()})
    assert homes == ["wiki/mr-okonjo.md"] and "Mr Okonjo booked" in body(project, "mr-okonjo"), homes
    said = meta(project, "mr-okonjo")
    assert "Adebayo Okonjo" in [said["title"], *said.get("aliases", [])], said


def test_a_role_opening_the_line_with_its_s_is_the_persons_whose_firm_does_it(project: Project) -> None:
    """held79: "Plumber's visit moved to Friday 13 March" made a page "Plumber" beside "Mehmet Yilmaz of
    Yilmaz Plumbing & Heating can come Thursday 12 March", and the new day was asked of no one."""
    result = two_days(
        project,
        ("2026-03-10", "Mehmet Yilmaz of Yilmaz Plumbing & Heating can come Thursday 12 March at 8am to trace the leak."),
        ("2026-03-11", "Plumber's visit moved to Friday 13 March, same time, his van's off the road."),
    )
    assert result.created == [] and result.appended == ["wiki/mehmet-yilmaz.md"], (result.created, result.appended)
    assert any("Thursday 12 March" in line and "Friday 13 March" in line for line in open_lines(project)), open_lines(project)


def test_a_church_hall_chosen_by_its_kind_is_decided_with_its_kind(project: Project) -> None:
    """held80: "Decision: the Lunch Club moves to the Methodist hall on Bridge Street …" decided a page
    "Hall": "Methodist" read as a name, and dropped from the thing."""
    journal(project, "2026-03-13", "Decision: the Lunch Club moves to the Methodist hall on Bridge Street for the three weeks of the refit.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == ["wiki/methodist-hall.md"] and meta(project, "methodist-hall")["state"] == "decided", result.created


def test_a_name_saying_which_people_is_no_subject_of_a_line_a_topic_opens(project: Project) -> None:
    """held56: "Lunch pushed back to 1pm so the Exeter cousins aren't racing up the M5." made a page
    "Exeter"."""
    journal(project, "2026-03-13", "Rehearsal pushed back to 1pm so the Exeter cousins aren't racing up the M5.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == ["wiki/rehearsal.md"], result.created


def test_a_harbour_master_called_by_title_and_first_name_is_one_page(project: Project) -> None:
    """Held-out week `held14-sailing-regatta`: "Captain Sue Pengelly", later "Sue's email", was two pages."""
    journal(project, "2026-06-09", "Applied to the harbour master, Captain Sue Pengelly, for an event permit, application PH/EV/2026/117.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-06-12", "Correction: Sue's email says the permit number is PH/EV/2026/171, I'd copied it wrong.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == [] and result.appended == ["wiki/captain-sue-pengelly.md"], (result.created, result.appended)
    asked = " ".join(open_lines(project))
    assert "PH/EV/2026/117." in asked and "PH/EV/2026/171," in asked  # the ids whole, in full words


def test_a_visit_made_with_someone_goes_on_the_place_visited(project: Project) -> None:
    journal(
        project,
        "2026-09-23",
        "My brother Martin Kerr and I visited Willowbank House care home: £1,150 a week for a room with its own bathroom.",
        "Lorna says the council will put up to £310 a week towards Dad's care at home, and we top up the rest.",
        "Willowbank's fee is not £1,150 but £1,250 a week, I was reading last year's price list.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    assert "wiki/willowbank-house.md" in result.created and "wiki/martin-kerr.md" not in result.created, result.created
    assert "not £1,150 but £1,250 a week" in body(project, "willowbank-house")
    asked = open_lines(project)
    assert len(asked) == 1 and "£1,250" in asked[0], asked  # the council's £310 a week changes no fee


def test_a_role_goes_to_the_one_person_whose_line_says_its_deed(project: Project) -> None:
    journal(project, "2026-05-19", "Siobhán Kearney did the survey, report ref SK-2605-14: keel bolts need replacing.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-05-21", "The surveyor's written report came through, frames sound apart from two.", "The surveyor wants paying by Friday.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.created == [] and result.appended == ["wiki/siobhan-kearney.md"], (result.created, result.appended)
    journal(project, "2026-05-22", "Femi Adeyemi electrified the fence.", "The electrician can come on Monday.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert "wiki/electrician.md" in result.created  # "electrified" is said of too much to name anyone


def test_the_ecologist_is_the_one_from_the_ecology_firm(project: Project) -> None:
    """held65: "The ecologist wants a second dusk emergence survey" made a page "Ecologist": the word was
    no role code knew (nor arborist, hygienist, assessor, scaffolder, bricklayer)."""
    journal(
        project,
        "2026-04-22",
        "Dr Lucinda Fairweather of Noctua Ecology did the bat survey at 8pm and found droppings in the loft.",
        "The ecologist wants a second dusk emergence survey, provisionally Thursday 30 April.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [] and result.created == ["wiki/dr-lucinda-fairweather.md"], result.created
    assert "second dusk emergence survey" in body(project, "dr-lucinda-fairweather")


def test_a_role_in_ian_goes_to_the_one_whose_firm_names_the_trade(project: Project) -> None:
    """held63: "The electrician's actually coming Thursday 2 April" went to the network operator's page
    and asked nothing: "electrician" had no deed to find Rhodri, of Sparkwise Electrical, by."""
    journal(project, "2026-05-23", "Rhodri Vaughan of Sparkwise Electrical came to look at the fuse.", "Booked Rhodri for Wednesday 1 April at 8am.")
    garden(project, answers(FakeModel(), "yes", "yes"))
    journal(project, "2026-05-24", "The electrician's actually coming Thursday 2 April, the only morning the network can pull the fuse.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.appended == ["wiki/rhodri-vaughan.md"], (result.created, result.appended)
    assert any("Wednesday 1 April" in ln and "Thursday 2 April" in ln for ln in open_lines(project))


def test_mrs_and_a_last_name_is_the_person_named_in_full(project: Project) -> None:
    """Held-out week `held15-community-garden-grant`: "Mrs Janet Okoro", then "Mrs Okoro", then "Janet"."""
    journal(
        project,
        "2026-04-14",
        "Emailed Westbury District Council for a licence; Mrs Janet Okoro, their parks officer, has it under case PK/2026/117.",
        "Mrs Okoro says the licence is £85 a year.",
        "Janet wants the insurance certificate first.",
    )
    garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    assert meta(project, "mrs-okoro")["aliases"] == ["Mrs Janet Okoro"]
    assert "Janet wants the insurance certificate first. (2026-04-14)" in body(project, "mrs-okoro")


def test_a_decision_about_a_thing_already_decided_goes_to_the_firm_it_names(project: Project) -> None:
    journal(
        project,
        "2026-06-11",
        "Halden Bakery Equipment quoted £18,600 for the three-deck oven.",
        "Decision: the oven goes against the back wall where the old proofer stands.",
        "Agreed with Halden: the old oven goes out the same morning the new one comes in.",
    )
    garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    assert meta(project, "oven")["state"] == "decided"
    assert "Agreed with Halden: the old oven goes out the same morning the new one comes in. (2026-06-11)" in body(project, "halden-bakery-equipment")


def test_the_name_that_opens_a_line_after_the_leads_it(project: Project) -> None:
    journal(
        project,
        "2026-05-11",
        "Helen Marchetti, Isla's teacher, will send the entry in.",
        "The Northern Music Examinations Board entry fee is £64; Mrs Marchetti sends the entries as a batch.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert "wiki/northern-music-examinations-board.md" in result.created, result.created


@pytest.mark.parametrize(
    ("line", "page"),
    [
        ("Ordered four Velux roof windows from Skyline Roof Windows, order SRW-58213, £2,364 with the flashing kits.", "skyline-roof-windows"),
        # held32: a measure between the brand and its thing
        ("Ordered the Dovre 5kW wood burner from Fireside Direct, order FD-55812, £1,195 with free delivery.", "fireside-direct"),
    ],
)
def test_a_brand_before_its_thing_is_not_the_lines_subject(project: Project, line: str, page: str) -> None:
    journal(project, "2026-05-12", line)
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == [f"wiki/{page}.md"], result.created


def test_a_thing_with_a_lettered_word_is_no_name_and_is_decided(project: Project) -> None:
    """held32: "Team T-shirts" read as a name (the T of "T-shirts"), and a name's page is never decided."""
    journal(project, "2026-06-11", "Decision: orange team T-shirts with the hospice logo on the back, Niamh's sending over the artwork.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert "wiki/team-t-shirts.md" in result.created, result.created
    assert meta(project, "team-t-shirts")["state"] == "decided"


def test_a_word_said_short_later_in_a_line_finds_no_title_it_ends(project: Project) -> None:
    """held21: "Paid Wenlow Print Shop £162 for the posters" went to the "Lamp poster" page once a word
    said short found the title it ends anywhere in a line; only a line opening with it does."""
    journal(
        project,
        "2026-11-13",
        "The lamp poster goes to print on Monday.",
        "Paid Wenlow Print Shop £162 for the posters and flyers.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.created == ["wiki/lamp-poster.md", "wiki/wenlow-print-shop.md"], result.created
    assert "Paid Wenlow" not in body(project, "lamp-poster")


def test_a_street_said_with_the_only_says_where(project: Project) -> None:
    """held31: "… at Paws & Claws on the High Street, £68.40" made a page "High Street"."""
    journal(project, "2026-06-10", "Bought a litter tray, scratching post, carrier and two bowls at Paws & Claws on the High Street, £68.40 altogether.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == ["wiki/litter-tray.md"], result.created


def test_a_decision_about_a_thing_a_firm_is_named_after_decides_the_thing(project: Project) -> None:
    journal(
        project,
        "2026-05-12",
        "Ordered four roof windows from Skyline Roof Windows, order SRW-58213, £2,364.",
        "Decision: the roof windows are white-painted pine, with electric blinds on the two front ones.",
    )
    garden(project, answers(FakeModel(), "yes", "yes"))
    assert meta(project, "roof-windows")["state"] == "decided"
    assert meta(project, "skyline-roof-windows")["state"] == "open"  # the firm goes on taking lines


def test_a_thing_booked_with_a_council_is_the_lines_subject(project: Project) -> None:
    journal(project, "2026-04-14", "Environmental health inspection booked with Westbury District Council for Tuesday 28 April, ref EH/2026/3381.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == ["wiki/health-inspection.md"], result.created


def test_someones_own_survey_does_not_make_them_the_surveyor(project: Project) -> None:
    journal(project, "2026-05-13", "Decision: we accept Leah Hartigan's £400,000, subject to her survey.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-05-15", "The surveyor found rising damp along the back wall of the dining room.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.created == ["wiki/surveyor.md"], (result.created, result.appended)


def test_a_decision_beside_a_thing_decided_already_decides_its_own(project: Project) -> None:
    journal(
        project,
        "2026-04-16",
        "Decision: buff Indian sandstone for the patio, not the grey.",
        "Decision: the fence panels go up after the patio is laid, so they don't get splashed with mortar.",
    )
    garden(project, answers(FakeModel(), "yes", "yes"))
    assert meta(project, "patio")["state"] == "decided" and meta(project, "fence-panels")["state"] == "decided"


def test_the_option_turned_down_is_not_what_a_decision_decides(project: Project) -> None:
    journal(
        project,
        "2026-01-15",
        "Northgate Plumbing Supplies have the Worcester Bosch Greenstar 4000 in stock, £1,395.",
        "Decision: the Greenstar over the Vaillant ecoTEC Dave also priced, it's quieter.",
    )
    garden(project, answers(FakeModel(), "yes", "yes"))
    assert meta(project, "greenstar")["state"] == "decided"  # a thing chosen by its name, said "the Greenstar"
    assert not (project.root / "wiki" / "ecotec.md").exists()


def test_no_page_of_someone_named_in_one_word_or_of_family_is_decided(project: Project) -> None:
    """"Isla plays …" and "Mum's Honda Jazz goes to a dealer" are about Isla and the car: Isla's page
    takes more facts, and no page is made for Mum or decided for a dealer."""
    journal(
        project,
        "2026-05-15",
        "Booked the Linden Rooms for Isla's recital on 20 June, £60.",
        "Decision: Isla plays the Seitz concerto at the recital, nothing new.",
        "Decision: Mum's Honda Jazz goes to a dealer rather than a private sale.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert meta(project, "honda-jazz")["state"] != "decided" and "Honda Jazz goes to a dealer" in body(project, "honda-jazz")
    made = {p.stem for p in (project.root / "wiki").glob("*.md")}
    assert not {"mum", "dealer"} & made
    for name in made - {"index"}:
        if meta(project, name).get("state") == "decided":
            assert name not in ("isla", "honda-jazz"), name


def test_a_decision_about_the_opening_decides_the_opening_night(project: Project) -> None:
    journal(project, "2026-05-11", "Opening night pencilled in for Thursday 4 June, 6.30pm in the Assembly Room.")
    journal(project, "2026-05-16", "We agreed the opening will be invite-only, about 60 people.")
    garden(project, answers(FakeModel(), "yes", "yes"))
    assert meta(project, "opening-night")["state"] == "decided"
    assert "invite-only" in body(project, "opening-night") and not (project.root / "wiki" / "opening.md").exists()


def test_a_thing_said_first_with_its_date_leads_the_line(project: Project) -> None:
    journal(
        project,
        "2026-11-23",
        "Valley Fresh Foods want our charity number before they'll confirm.",
        "Collection weekend is Saturday 5 and Sunday 6 December, at Brightwell's and Valley Fresh Foods both.",
    )
    garden(project, answers(FakeModel(), "yes", "yes"))
    assert "Saturday 5 and Sunday 6 December" in body(project, "collection-weekend")
    assert "Collection weekend" not in body(project, "valley-fresh-foods")


def test_a_thing_decided_by_a_firms_short_name_goes_to_the_firms_page(project: Project) -> None:
    """"the Trelawney 49-seater" where the page is "Trelawney Coaches": the line lands there, and no
    state is set on a page that was never made (Gemma's run left the line unread, "refused")."""
    journal(project, "2026-04-13", "Got a quote from Trelawney Coaches for a 49-seater there and back, Q-7731, £3,480.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-04-16", "Decision: the Trelawney 49-seater rather than two minibuses with parents driving.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [], result.refusals
    assert "Trelawney 49-seater rather than" in body(project, "trelawney-coaches")
    assert meta(project, "trelawney-coaches")["state"] != "decided"  # a firm's page goes on taking facts


def test_a_car_chosen_by_its_model_name_and_one_sold_rather_than_traded_are_decided(project: Project) -> None:
    """held26: "we're having the Octavia" left the page "Skoda Octavia" undecided (two capitalised
    words read as someone's name), and "We'll sell the old Fiesta privately rather than part-exchange
    it" was no decision at all and went to the salesman's page."""
    journal(
        project,
        "2026-01-19",
        "Test drove a 2019 Skoda Octavia estate at Pennington Motors: they're asking £11,995.",
        "Craig Holloway, the salesman, is holding it till Thursday on a £200 deposit.",
    )
    journal(
        project,
        "2026-01-23",
        "Decision: we're having the Octavia; balance of £11,250 went by bank transfer this morning.",
        "We'll sell the old Fiesta privately rather than part-exchange it, Craig only offered £900.",
    )
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert meta(project, "skoda-octavia")["state"] == "decided"
    assert meta(project, "fiesta")["state"] == "decided" and "old Fiesta privately" in body(project, "fiesta")
    assert meta(project, "craig-holloway").get("state") != "decided" and "Fiesta" not in body(project, "craig-holloway")


def kept_week(project: Project, agents: str, day: str, *lines: str) -> PassResult:
    """A pass over one day of `lines` under AGENTS.md `agents`, every line kept; no refusal."""
    write(project.root, "AGENTS.md", agents)
    journal(project, day, *lines)
    result = garden(project, answers(FakeModel(), *["yes"] * len(lines)))
    assert result.refusals == [], result.refusals
    return result


def test_the_one_whose_project_it_is_titles_no_page_and_a_thing_set_on_is_no_place(project: Project) -> None:
    """held27: with AGENTS.md "# Isla's seventh birthday", every line naming Isla went to a page "Isla"
    ("Isla's heart is set on Jumpzone", "Invites … for Isla's class"), and "set on Jumpzone" read as a
    place, so "the Stockport branch" took the line."""
    result = kept_week(
        project,
        "# Isla's seventh birthday\n\nA party for our daughter Isla.\n",
        "2026-11-02",
        "Isla's heart is set on Jumpzone for her birthday; the Stockport branch want £180 for the party room.",
        "Invites went out in book bags: 18 for Isla's class plus 3 cousins.",
    )
    assert sorted(result.created) == ["wiki/invites.md", "wiki/jumpzone.md"], result.created


def test_a_clause_after_a_colon_names_the_thing_done_to_and_the_projects_page_is_never_decided(project: Project) -> None:
    """held27: "Gala sub-committee met in the Crown after training: open meet pencilled for …" went to
    a page "Crown" (a pub where they met); and "Decision: £7 per event" marked the project's own page
    decided, so the next line with no other home would have been refused."""
    kept_week(
        project,
        "# Kestrel Masters open meet\n\nOur swimming club's first open meet.\n",
        "2026-09-07",
        "Gala sub-committee met in the Crown after training: open meet pencilled for Sunday 18 October at Northgate Pool.",
        "Decision: £7 per event, five events max per swimmer.",
        "Headcount is 42 now, plus two from the Bolton site.",
    )
    assert "open meet pencilled" in body(project, "kestrel-masters-open-meet") and "£7 per event" in body(project, "kestrel-masters-open-meet")
    assert meta(project, "kestrel-masters-open-meet")["state"] != "decided"
    assert "Headcount is 42" in body(project, "headcount")  # a thing and its value, not the site named after it
    assert not {"crown", "bolton"} & {p.stem for p in (project.root / "wiki").glob("*.md")}


def test_the_writers_household_titles_no_page_unless_named_in_full(project: Project) -> None:
    """held28: "Jonny and I are sorting out a nursery place" (AGENTS.md) — "Jonny's lined up a visit to
    Sunnyside Childcare" went to a page "Jonny", and "Jonny and I agreed: …" marked it decided."""
    result = kept_week(
        project,
        "# Isla's childcare\n\nJonny and I are sorting out a nursery place for Isla.\n",
        "2026-02-09",
        "Jonny's lined up a visit to Sunnyside Childcare on Wednesday.",
        "Jonny and I agreed: nursery fees go through the Tax-Free Childcare account.",
    )
    assert "wiki/jonny.md" not in result.created, result.created
    assert "Jonny's lined up a visit" in body(project, "sunnyside-childcare")


def test_household_names_are_read_from_agents_md() -> None:
    assert household("Tom and I are throwing a party for our daughter Isla.") == {"Tom", "Isla"}
    assert household("My husband Dev handles the money.") == {"Dev"}
    assert household("Niamh is our conductor.") == set()
    assert household("Dan and I have booked our two, Isla (9) and Jack (7), into the club.") == {"Dan", "Isla", "Jack"}
    assert household("We take my kids Tom, Ellie and Sam.") == {"Tom", "Ellie", "Sam"}


def test_the_projects_own_word_a_place_said_short_and_a_count_of_days_find_their_pages(project: Project) -> None:
    """held29: "The club runs 9am to 3pm" went to a page "Club" beside the project's own "Half-term
    holiday club"; "over the four days" titled a page "Days"; "at Meadowbank reception on the card" a
    page "Card" where the journal names Meadowbank Sports Centre."""
    result = kept_week(
        project,
        "# Half-term holiday club\n\nDan and I have booked our two, Isla (9) and Jack (7), into the club.\n",
        "2026-10-12",
        "Booked Isla and Jack into the half-term holiday club at Meadowbank Sports Centre, booking ref MSC-HT-2291.",
        "It's £28 a day each, so £224 for the two of them over the four days.",
        "The club runs 9am to 3pm, with early drop-off from 8am for an extra £4 a day.",
        "Paid the £240 at Meadowbank reception on the card, receipt MSC/2026/1187.",
    )
    assert not {"wiki/club.md", "wiki/days.md", "wiki/card.md", "wiki/isla.md"} & set(result.created), result.created
    assert "The club runs 9am" in body(project, "half-term-holiday-club")
    assert "Meadowbank Sports Centre" in meta(project, "meadowbank")["aliases"]
    assert "Paid the £240" in body(project, "meadowbank")


def test_a_run_and_its_time_and_a_figure_of_a_thing_with_a_page_go_to_the_thing(project: Project) -> None:
    """held37: "Tuesday market run leaves the Green at 9:15" went to a page "Green" (the weekday kept
    "Market run" from being its thing, and the place took the line), and "The fuel card limit …"
    made a page "Card limit" beside "Fuel card"."""
    result = kept_week(
        project,
        "# Wensley Valley Community Transport\n\nOur village's volunteer minibus scheme.\n",
        "2026-09-07",
        "Tuesday market run leaves the Green at 9:15 and gets into Hexley bus station about 9:50.",
        "Fuel card came in the post, ending 0418, £250 monthly limit.",
        "The fuel card limit is £250 a month for now, Brenda says.",
    )
    assert not {"wiki/green.md", "wiki/card-limit.md"} & set(result.created), result.created
    assert "Tuesday market run leaves" in body(project, "market-run")
    assert "The fuel card limit" in body(project, "fuel-card")


def test_someone_put_us_onto_is_the_lines_subject_and_their_role_finds_them(project: Project) -> None:
    """held39: "Ruth put us onto Colin Fairweather to accompany" went to Ruth's page, and "The
    accompanist now wants £60" made a page "Accompanist" beside Colin's, its new fee asked of nothing."""
    kept_week(
        project,
        "# Maya's audition\n\nMaya is auditioning for the county youth orchestra.\n",
        "2026-01-20",
        "Ruth Abernethy, Maya's cello teacher, wants an extra lesson each week until the audition.",
        "Ruth put us onto Colin Fairweather to accompany; £45 for one rehearsal plus the audition itself.",
    )
    assert "Ruth put us onto Colin" in body(project, "colin-fairweather")
    journal(project, "2026-01-22", "The accompanist now wants £60, two rehearsals rather than one.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert "wiki/accompanist.md" not in result.created, result.created
    assert "The accompanist now wants £60" in body(project, "colin-fairweather")


def test_a_decision_goes_to_what_it_keeps_not_the_option_it_turns_down(project: Project) -> None:
    """held40: "Decision: her statement leads with …, not the Year 12 Barcelona trip" decided a page
    "Year 12" (the only name left once "her statement" was read as someone's), and a title was
    "Statement leads" (a verb in -s)."""
    journal(project, "2026-09-10", "First draft of the personal statement is 5,100 characters, way over the 4,000 limit.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-09-14", "Decision: her statement leads with the two weeks at Hollis & Brand Architects, not the Year 12 Barcelona trip.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [], result.refusals
    assert not (project.root / "wiki" / "year-12.md").exists()
    assert "Hollis & Brand Architects, not the Year 12" in body(project, "personal-statement")
    assert meta(project, "personal-statement")["state"] == "decided"


def test_a_thing_and_the_day_it_goes_out_is_the_things_line(project: Project) -> None:
    """held41: "Advert goes in the TES and on the Northshire jobs site on Mon 23 March" went to a page
    "TES" (the paper it goes in), and its correction after it."""
    journal(project, "2026-03-16", "Advert goes in the TES and on the Northshire jobs site on Mon 23 March, closing date Fri 17 April.")
    journal(project, "2026-03-19", "Correction: the advert goes live on Wed 25 March, not Mon 23 March, we'd missed the TES deadline.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert "Advert goes in the TES" in body(project, "advert") and "advert goes live on Wed 25 March" in body(project, "advert")
    assert not (project.root / "wiki" / "tes.md").exists()


def test_a_decision_with_an_aside_of_chatter_is_still_a_decision() -> None:
    """held40 with Gemma: "We're going with catered halls wherever she ends up, she'd live on toast
    otherwise" was skipped as "chatter: a meal" — the toast an aside after the decision."""
    from gitgarden.gardener.reading import read_lines, settled

    aside = JournalLine("2026-09-15", 2, "We're going with catered halls wherever she ends up, she'd live on toast otherwise.", "k")
    assert settled(aside.text)  # code settles it: the model is not asked
    assert [r.kind for r in read_lines([aside], [judge.Verdict(aside.id, 0.2, "logprobs")], 0.5)] == ["decision"]
    meal = JournalLine("2026-09-15", 3, "Decided on pizza and a film tonight, we were all shattered.", "k")
    assert [r.kind for r in read_lines([meal], [judge.Verdict(meal.id, 0.2, "logprobs")], 0.5)] == ["chatter"]


def test_a_place_something_happened_all_over_is_no_home(project: Project) -> None:
    """held43: "Our old tent leaked all over Dorset last year, so we need a new six-berth one" went to a
    page "Dorset"."""
    journal(project, "2026-05-20", "Our old tent leaked all over Dorset last year, so we need a new six-berth one.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [], result.refusals
    assert "Our old tent leaked" in body(project, "tent")
    assert not (project.root / "wiki" / "dorset.md").exists()


def test_a_decision_goes_to_its_thing_not_one_a_later_clause_names(project: Project) -> None:
    """held44: "Decision: leftover books go to the Oxfam bookshop …, Janet's letting us store the boxes
    till then" decided the page "Boxes" (a page already, named in a later clause), and a fact about the
    donated boxes stood on a decided page; and "Sedgefield's pack plus a water lily" decided "Pack plus"."""
    journal(project, "2026-06-01", "Forty-odd boxes of donations in the shop's back room already, mostly crime paperbacks.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-06-08", "Decision: leftover books go to the Oxfam bookshop in Ilkley on the Monday, Janet's letting us store the boxes till then.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [], result.refusals
    assert meta(project, "boxes").get("state") != "decided"
    assert meta(project, "leftover-books")["state"] == "decided"
    from gitgarden.wiki.decisions import decided_things

    assert decided_things("We're going with Sedgefield's pack plus a water lily, picking up Friday 5 June.")[0] == "Pack"


def test_a_line_headed_decision_is_never_chatter() -> None:
    """held43 with Gemma: "Decision: we drive down on the Saturday morning and break the journey at
    Carmarthen for lunch" was skipped as "chatter: a meal" on a low score."""
    from gitgarden.gardener.reading import read_lines, settled

    drive = JournalLine("2026-05-22", 1, "Decision: we drive down on the Saturday morning and break the journey at Carmarthen for lunch.", "k")
    assert settled(drive.text)
    assert [r.kind for r in read_lines([drive], [judge.Verdict(drive.id, 0.1, "logprobs")], 0.5)] == ["decision"]


def test_a_train_taken_instead_is_the_journey_not_a_value_gone_back_on() -> None:
    """held62: "Train cancelled, got the 7:52 instead and stood all the way to Queen Street" became a
    page "Queen Street" with Qwen: "instead" beside a time read as a value gone back on, no chatter."""
    from gitgarden.gardener.reading import read_lines

    train = JournalLine("2026-03-12", 4, "Train cancelled, got the 7:52 instead and stood all the way to Queen Street.", "k")
    assert [r.reason for r in read_lines([train], [judge.Verdict(train.id, 0.7, "logprobs")], 0.64)] == ["chatter: the journey"]
    swim = JournalLine("2026-10-14", 2, "Pool's shut for repairs that Tuesday, so swimming is Wednesday 28th instead.", "k")
    assert [r.kind for r in read_lines([swim], [judge.Verdict(swim.id, 0.7, "logprobs")], 0.64)] == ["fact"]  # held29: a value gone back on


def test_a_role_said_with_a_word_before_it_finds_its_holder_and_a_choice_turned_from_is_asked(project: Project) -> None:
    """held45: "Agnieszka Nowak, the French polisher Ruairi works with, will refinish the case in satin
    lacquer" gave her no role, so "The polisher's doing the cabinet not in lacquer but in proper shellac"
    went to a page "Cabinet", and no one was asked which finish holds."""
    journal(project, "2026-06-09", "Agnieszka Nowak, the French polisher Ruairi works with, will refinish the case in satin lacquer for £850.")
    journal(project, "2026-06-13", "The polisher's doing the cabinet not in lacquer but in proper shellac French polish, still £850.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert "not in lacquer but in proper shellac" in body(project, "agnieszka-nowak")
    assert not (project.root / "wiki" / "cabinet.md").exists()
    assert any("Which holds?" in ol and "satin lacquer" in ol and "proper shellac" in ol for ol in open_lines(project))


def test_what_a_committee_fixed_for_the_project_is_the_projects_and_its_move_is_asked(project: Project) -> None:
    """held45: "Committee fixed the Holloway Lane Allotment Society open day for Saturday 5 September"
    went to a page "Committee", so "Open day is now Sunday 6 September" on the open day's page asked
    nothing."""
    write(project.root, "AGENTS.md", "# Holloway Lane open day\n\nI'm secretary of the Holloway Lane Allotment Society.\n")
    journal(project, "2026-08-03", "Committee fixed the Holloway Lane Allotment Society open day for Saturday 5 September, 11 till 4.")
    journal(project, "2026-08-05", "Open day is now Sunday 6 September, the Saturday clashes with the village show.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert not (project.root / "wiki" / "committee.md").exists()
    both = body(project, "holloway-lane-open-day")
    assert "Committee fixed the Holloway Lane" in both and "Open day is now Sunday 6 September" in both
    assert any("Which holds?" in ol and "open day for Saturday 5 September" in ol and "now Sunday 6 September" in ol for ol in open_lines(project))


def test_the_cleaners_are_the_firm_that_does_the_cleaning_and_their_new_price_is_asked(project: Project) -> None:
    """held46: "The cleaners' booking confirmation, BN/2291, says £320" went to the line before's page
    (the check-out), so nothing asked whether £285 or £320 holds for the end-of-tenancy clean."""
    journal(
        project,
        "2026-07-21",
        "Check-out inspection booked with Callum Reid of Clearview Inventories for Thursday 30 July at 10am.",
        "BrightNest Cleaning quoted £285 for the end-of-tenancy clean, oven and carpets included.",
    )
    journal(project, "2026-07-27", "The cleaners' booking confirmation, BN/2291, says £320.")
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert "The cleaners' booking confirmation" in body(project, "brightnest-cleaning")
    assert any("Which holds?" in ol and "quoted £285" in ol and "says £320" in ol for ol in open_lines(project))


def test_a_role_agents_md_gives_after_a_firm_stays_the_persons(project: Project) -> None:
    """held47 with Qwen: AGENTS.md's "Gareth Powell of Brightwell Energy is our installer" made the
    installer an alias of the firm's page too: Gareth on two pages."""
    kept_week(
        project,
        "# 14 Orchard Rise\n\nAdding a home battery. Gareth Powell of Brightwell Energy is our installer.\n",
        "2026-04-13",
        "Gareth Powell, the installer from Brightwell Energy, came to look at the consumer unit; quote BE-Q-3318 is £4,950 fitted.",
        "Brightwell have to apply to Wessex Power Networks for G99 approval, ref WPN/G99/20581.",
    )
    assert "the installer" in meta(project, "gareth-powell").get("aliases", [])
    assert "the installer" not in meta(project, "brightwell").get("aliases", [])


def test_a_lists_line_is_the_lists_not_the_relation_or_the_cousin_it_names(project: Project) -> None:
    """held48: "Guest list stands at 80 once Dad's golf lot are in" went to a page "Dad", "Head count's 92
    now Auntie Pat has rung round the cousins" to one "Auntie Pat"; "The clerk says …" to a page "Clerk"
    although "Helen Marsh, the clerk to the governors" came first."""
    write(project.root, "AGENTS.md", "# Golden wedding party\n\nOrganising Mum and Dad's golden wedding party in June.\n")
    journal(project, "2026-04-20", "Guest list stands at 80 once Dad's golf lot are in.", "Head count's 92 now Auntie Pat has rung round the cousins.")
    journal(project, "2026-04-21", "Handed my nomination form to Helen Marsh, the clerk to the governors at Millbrook Primary.", "The clerk says mine's the only nomination, so I'm elected unopposed.")
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes", "yes"))
    assert result.refusals == [], result.refusals
    assert "Guest list stands at 80" in body(project, "guest-list")
    assert not {"wiki/dad.md", "wiki/auntie-pat.md", "wiki/clerk.md"} & set(result.created), result.created
    assert "The clerk says mine's the only nomination" in body(project, "helen-marsh")


@pytest.mark.parametrize("mark", ["- ", "* ", "- [ ] ", "1. "])
def test_a_journal_kept_as_a_list_is_read_for_what_its_lines_say(project: Project, mark: str) -> None:
    """held51: Obsidian's daily notes are lists. "- Decision: …" decides, and an Open line quotes the
    line's words — “Correction: …”, not “- Correction: …”, and no question shown as "- - Does …"."""
    old = "Tomasz Wójcik quoted 18,400 EUR for the kitchen, invoice TW-0314."
    new = "Correction: Tomasz's quote is 19,100 EUR, not 18,400; he forgot the skip."
    decision = "Decision: Tomasz does the main works, starting Monday 16 March."
    question = "Does the quote include VAT?"
    journal(project, "2026-03-04", mark + old)
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-03-05", mark + new, mark + decision, mark + question)
    result = garden(project, answers(FakeModel(), "yes", "yes", "yes"))
    assert result.refusals == [] and result.unread == [], result
    assert body(project, "tomasz-wojcik") == f"- {old} (2026-03-04)\n- {new} (2026-03-05)\n"
    assert meta(project, "works")["state"] == "decided"
    asked = open_lines(project)
    assert f"- Which holds? “{old}” (2026-03-04) or “{new}” (2026-03-05) ([[tomasz-wojcik]])" in asked
    assert f"- {question}" in asked and not any(ln.startswith(f"- {mark}") or f"“{mark}" in ln for ln in asked)


def test_after_a_call_to_a_place_the_name_in_full_that_says_or_can_leads(project: Project) -> None:
    """held50: "Rang St Michael's, Reverend Judith Ashworth can do Isla's christening …" went to a page
    "St Michael's", and "the baptism form for Judith" made a second page for her."""
    journal(project, "2026-05-11", "Rang St Michael's, Reverend Judith Ashworth can do Isla's christening on Sunday 14 June at 12:30.")
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-05-13", "Filled in the baptism form for Judith, ref B-26/031, she wants it back by 31 May.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == [], result
    assert "baptism form" in body(project, "reverend-judith-ashworth")
    assert not (project.root / "wiki/st-michael-s.md").exists() and not (project.root / "wiki/judith.md").exists()
    # A call to a person stays theirs: the role beside them is no name in full with its verb.
    journal(project, "2026-05-14", "Rang Raj Bhamra, the tuner Helen uses; he charges £75 a tune.")
    assert garden(project, answers(FakeModel(), "yes")).created == ["wiki/raj-bhamra.md"]


def test_a_firm_with_an_ampersand_said_shorter_goes_on_its_page(project: Project) -> None:
    """held45: "Stanton & Hale sent the invoice" made a page "Stanton & Hale" beside "Stanton & Hale Piano
    Movers", and the first line was linked inside its own name: "[[stanton-hale|Stanton & Hale]] Piano Movers"."""
    first = "Stanton & Hale Piano Movers will collect it on Wednesday 17 June, job SH/2026/0433, £320 there and back."
    journal(project, "2026-06-09", first)
    garden(project, answers(FakeModel(), "yes"))
    journal(project, "2026-06-10", "Stanton & Hale sent the invoice, £320.")
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == [], result
    assert body(project, "stanton-hale-piano-movers") == f"- {first} (2026-06-09)\n- Stanton & Hale sent the invoice, £320. (2026-06-10)\n"


def test_a_change_said_by_someone_new_in_full_starts_their_page_and_is_asked(project: Project) -> None:
    """held51: Aisha's line changed Tom's 60A and was written on Tom's page, beside the old value; her
    next line ("Aisha says …") then made a page "Aisha" with no full name to it."""
    old = "Tom Hadley thinks our main fuse is only 60A, so the DNO has to be told before anything goes in."
    journal(project, "2026-04-13", old)
    garden(project, answers(FakeModel(), "yes"))
    new = "Aisha Begum at Wessex Power Networks rang: their records say the fuse is actually 80A, so no upgrade needed."
    journal(project, "2026-04-16", new, "Aisha says to expect the DNO approval by Tuesday 5 May at the latest.")
    result = garden(project, answers(FakeModel(), "yes", "yes"))
    assert result.refusals == [] and result.created == ["wiki/aisha-begum.md"], result
    assert new in body(project, "aisha-begum") and "DNO approval" in body(project, "aisha-begum")
    assert new not in body(project, "tom-hadley")
    assert any(old in ln and new in ln and "[[aisha-begum]]" in ln for ln in open_lines(project))


def test_a_change_that_opens_with_another_pages_name_goes_on_that_page(project: Project) -> None:
    """held51: "Hartwood came back with £1,750 plus VAT" went onto Megan's page, beside her £1,600, though
    Hartwood has a page of its own; "Dave's van is in …, so he's starting us on Wednesday 28 January"
    is the install's (Dave's van is no subject of the line)."""
    quote = "Megan Doyle from Hartwood Tree Care looked at the oak: 30% crown reduction, £1,600 plus VAT, quote HTC-5521."
    journal(project, "2026-09-21", quote, "Going with Hartwood rather than the leaflet bloke, who'd never heard of a TPO.")
    garden(project, answers(FakeModel(), "yes", "yes"))
    new = "Hartwood came back with £1,750 plus VAT now they know they need a cherry picker."
    journal(project, "2026-09-24", new)
    result = garden(project, answers(FakeModel(), "yes"))
    assert result.refusals == [] and result.created == [], result
    assert new in body(project, "hartwood") and new not in body(project, "megan-doyle")
    assert any(quote in ln and new in ln for ln in open_lines(project))


def test_a_change_opening_with_a_names_possession_stays_beside_the_old_value() -> None:
    """held19: "Dave's van is in for its MOT …" is no line of Dave's, though Dave has a page: the
    fitting's date it moves stays beside the old line; "Dave says …" would be his."""
    plan: Any = type("Plan", (), {"full_names": set()})()
    van = JournalLine("2026-01-16", 2, "Dave's van is in for its MOT on the 27th, so he's starting us on Wednesday 28 January.", "k")
    says = JournalLine("2026-01-16", 3, "Dave says he's starting us on Wednesday 28 January.", "k")
    home = ("dave-hollings", "", ["Dave"])
    assert not small._own_name_leads(plan, home, "fitting", van)
    assert small._own_name_leads(plan, home, "fitting", says)
    assert not small._own_name_leads(plan, home, "dave-hollings", says)  # already the old line's page


def test_an_open_line_quotes_the_old_line_in_the_persons_words_not_the_links_a_pass_added(project: Project) -> None:
    """The old line came from its page, where an earlier pass had linked "Hartwood" inside it: the Open
    line quoted “Megan Doyle from [[hartwood|Hartwood]] Tree Care …”, words the person never wrote."""
    old = "Megan Doyle from Hartwood Tree Care looked at the oak: 30% crown reduction, £1,600 plus VAT."
    journal(project, "2026-09-21", old, "Going with Hartwood rather than the leaflet bloke, who'd never heard of a TPO.")
    garden(project, answers(FakeModel(), "yes", "yes"))
    journal(project, "2026-09-22", "Megan Doyle sent the paperwork.")
    garden(project, answers(FakeModel(), "yes"))
    assert "[[hartwood" in body(project, "megan-doyle")  # the link a pass added to the old line
    new = "Megan's quote is now £1,750 plus VAT, they need a cherry picker."
    journal(project, "2026-09-24", new)
    garden(project, answers(FakeModel(), "yes"))
    assert any(f"“{old}”" in ln and new in ln for ln in open_lines(project)), open_lines(project)
