"""`gitgarden ask`: answers from the garden, every sentence cited down to its journal lines and
checked by code, the newest value where a later line corrected one, "Not in the garden" (exit 4)
when nothing grounds an answer — with scripted models, on the command line and in the web app.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

import pytest

from gitgarden.config import Settings
from gitgarden.errors import EXIT_NOT_IN_GARDEN
from gitgarden.project import Project
from gitgarden.services.ask import ask
from tests.helpers.project import (
    FIXED_NOW,
    FakeModel,
    capture,
    commit_all,
    garden,
    git,
    invoke,
    page,
    workspace,
    write,
)
from tests.helpers.web_client import client

SMALL = Settings(model="fake/scripted", mode="small")
FULL = Settings(model="fake/scripted", mode="full")
QUOTE_OLD = "Tomasz's quote came in: 18,400 EUR for demolition, plumbing and fitting."
QUOTE_NEW = "Correction: Tomasz forgot the skip hire, his quote is 19,100 EUR, not 18,400."


class Picker(FakeModel):
    """A scripted small model: it picks the offered note holding `words` ("none" when no note does)."""

    def __init__(self, *words: str) -> None:
        super().__init__()
        self.words = words

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: Any) -> Any:
        rows = notes_offered(messages)
        picks = [n for w in self.words for n, text in rows.items() if w in text][:2] or ["none"]
        self.enqueue({"notes": list(dict.fromkeys(picks))})
        return super().complete(messages, schema, budget)


def notes_offered(messages: list[dict[str, str]]) -> dict[str, str]:
    """The notes a prompt offers, by number."""
    return dict(re.findall(r"^\[(\d+)\] (.*)$", messages[-1]["content"], re.M))


@pytest.fixture
def kitchen(project: Project) -> Project:
    """Three days of notes on a kitchen job: a quote, then its correction; chatter; an electrician."""
    capture(project, "2026-03-02", "Tomasz Wójcik came round to measure the kitchen.", "Marek from Kamień Studio quoted 2,950 EUR for a quartz worktop.")
    capture(project, "2026-03-04", QUOTE_OLD, "Rain all day, bins blew over again.")
    capture(project, "2026-03-05", QUOTE_NEW, "Piotr Nowak the electrician comes on Friday 13 March.")
    commit_all(project.root, "notes")
    return project


def answer(project: Project, question: str, model: FakeModel, settings: Settings = SMALL) -> Any:
    return ask(project, question, env={}, now=lambda: FIXED_NOW, model_factory=lambda _s, _e: model, settings=settings)


def text_of(html: str) -> str:
    """The page's words, tags gone and entities read (what a person sees)."""
    import html as htmllib

    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def line_text(project: Project, line_id: str) -> str:
    """The journal line `line_id` names, read from its day file as written."""
    day, number = line_id.split("#")
    return (project.journal / f"{day}.md").read_text(encoding="utf-8").splitlines()[int(number) - 1]


def test_small_mode_answers_with_the_picked_line_word_for_word_its_day_and_its_citation(kitchen: Project) -> None:
    model = Picker("electrician")
    got = answer(kitchen, "Who is the electrician?", model)
    assert [(s.text, [ln.id for ln in s.lines]) for s in got.sentences] == [
        ("Piotr Nowak the electrician comes on Friday 13 March (5 March 2026).", ["2026-03-05#2"])
    ]
    assert not got.abstained and got.dropped == []
    assert model.prompt.rstrip().endswith("Question: Who is the electrician?")  # what repeats first, the question last


def test_full_mode_keeps_a_grounded_sentence_and_drops_one_holding_a_number_its_lines_lack(kitchen: Project) -> None:
    model = FakeModel()
    prompt_notes: dict[str, str] = {}

    class Writer(FakeModel):
        def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: Any) -> Any:
            prompt_notes.update(notes_offered(messages))
            marek = next(n for n, t in prompt_notes.items() if "Marek" in t)
            self.enqueue({"sentences": [
                {"text": "Marek quoted 2,950 EUR for the quartz worktop.", "notes": [marek]},
                {"text": "Marek quoted 3,400 EUR for fitting it.", "notes": [marek]},
            ]})  # fmt: skip
            return super().complete(messages, schema, budget)

    model = Writer()
    got = answer(kitchen, "What did Marek quote for the worktop?", model, FULL)
    assert [s.text for s in got.sentences] == ["Marek quoted 2,950 EUR for the quartz worktop."]
    assert [ln.id for ln in got.sentences[0].lines] == ["2026-03-02#2"]
    assert [(text, "3400" in why) for text, why in got.dropped] == [("Marek quoted 3,400 EUR for fitting it.", True)]


def test_an_answer_left_with_no_sentence_is_not_in_the_garden(kitchen: Project) -> None:
    class Inventor(FakeModel):
        def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: Any) -> Any:
            self.enqueue({"sentences": [{"text": "Piotr charges 85 EUR an hour.", "notes": ["1"]}]})
            return super().complete(messages, schema, budget)

    got = answer(kitchen, "What does the electrician Piotr charge?", Inventor(), FULL)
    assert got.abstained and got.text == "Not in the garden."
    assert got.sentences == [] and len(got.dropped) == 1 and "85" in got.dropped[0][1]


def test_a_picked_note_that_does_not_answer_the_question_is_dropped(kitchen: Project) -> None:
    got = answer(kitchen, "Which electrician does Tomasz bring?", Picker("Tomasz Wójcik"))  # about Tomasz, not an electrician
    assert got.abstained and got.sentences == []
    assert got.dropped == [("Tomasz Wójcik came round to measure the kitchen.", got.dropped[0][1])]
    assert "does not answer the question" in got.dropped[0][1]


def test_a_question_about_nothing_the_garden_holds_asks_no_model_and_exits_4_with_the_nearest_pages(kitchen: Project) -> None:
    result = garden(kitchen, FakeModel().enqueue({"operations": [
        {"op": "create_page", "page": "kitchen", "title": "Kitchen", "body": "Tomasz Wójcik came round to measure the kitchen.\n",
         "lines": ["2026-03-02#1"]},
    ]}))  # fmt: skip
    assert result.outcome == "pages_written", result.refusals
    model = FakeModel()  # no reply enqueued: a call would fail the test
    before = workspace(kitchen.root)
    run = invoke(kitchen, "ask", "What", "colour", "are", "the", "kitchen", "wall", "tiles?", model=model)
    assert run.exit_code == EXIT_NOT_IN_GARDEN == 4, run.output
    assert run.stdout.splitlines()[0] == "Not in the garden."
    assert "The garden holds nothing about: colour, wall, tiles." in run.stdout
    assert "Nearest pages: [[kitchen]] Kitchen" in run.stdout
    assert model.history == [] and workspace(kitchen.root) == before


def test_the_newest_value_is_given_and_the_older_named_as_corrected_citing_both(kitchen: Project) -> None:
    got = answer(kitchen, "What is Tomasz's quote?", Picker("18,400 EUR for demolition"))  # the model picks the old one
    first, second = got.sentences
    assert first.text == QUOTE_NEW.rstrip(".") + " (5 March 2026)." and [ln.id for ln in first.lines] == ["2026-03-05#1"]
    assert first.corrected_by == ""
    assert second.text == QUOTE_OLD.rstrip(".") + " (4 March 2026)." and [ln.id for ln in second.lines] == ["2026-03-04#1"]
    assert second.corrected_by == "2026-03-05#1" and second.shown.startswith("Earlier (corrected by 2026-03-05#1): ")
    assert [ln.id for ln in got.lines] == ["2026-03-04#1", "2026-03-05#1"]
    newest_first = answer(kitchen, "What is Tomasz's quote?", Picker("19,100"))  # picked the newest: the older still named
    assert [(s.lines[0].id, s.corrected_by) for s in newest_first.sentences] == [("2026-03-05#1", ""), ("2026-03-04#1", "2026-03-05#1")]


def test_a_line_that_moves_a_date_corrects_it_though_it_leaves_words_of_the_question_out(project: Project) -> None:
    capture(project, "2026-05-11", "New job from LinguaBridge: pharma leaflet, 4,200 words, due Friday 15 May 17:00.")
    capture(project, "2026-05-14", "LinguaBridge pushed the leaflet to Monday 18 May, 12:00, their client is late.")
    commit_all(project.root)
    got = answer(project, "When is the pharma leaflet due?", Picker("due Friday"))
    assert [(s.lines[0].id, s.corrected_by) for s in got.sentences] == [("2026-05-14#1", ""), ("2026-05-11#1", "2026-05-14#1")]
    assert "18 May" in got.sentences[0].text


def test_an_open_question_of_the_map_pairs_two_values_code_would_not_call_the_same(project: Project) -> None:
    capture(project, "2026-05-01", "The boat club meets on Tuesday evenings.")
    capture(project, "2026-05-09", "Club nights are Thursdays from June.")
    write(project.root, "wiki/index.md", "# Map\n\n## Open\n\n- Which holds? “The boat club meets on Tuesday evenings.” or “Club nights are Thursdays from June.” (2026-05-09)\n")
    commit_all(project.root, "notes and a map")
    got = answer(project, "When does the boat club meet?", Picker("Tuesday"))
    assert [(s.lines[0].id, s.corrected_by) for s in got.sentences] == [("2026-05-09#1", ""), ("2026-05-01#1", "2026-05-09#1")]
    write(project.root, "wiki/index.md", "# Map\n\n## Open\n")
    commit_all(project.root, "the question settled")
    alone = answer(project, "When does the boat club meet?", Picker("Tuesday"))
    assert [s.lines[0].id for s in alone.sentences] == ["2026-05-01#1"]  # "club nights" share too little to be the same thing


def test_values_of_other_things_are_no_correction(project: Project) -> None:
    capture(project, "2026-11-23", "Rent for the shop is 2,400 EUR a month, heating not included.",
            "Marta asks for a deposit of three months' rent, so 7,200 EUR.")  # fmt: skip
    capture(project, "2026-11-24", "Kessler Mill quoted type 550 wheat flour at 0.78 EUR a kilo in 25 kg sacks.",
            "Kessler Mill rye flour type 1150 is 0.92 EUR a kilo, same sacks.")  # fmt: skip
    commit_all(project.root)
    rent = answer(project, "How much is the rent for the shop?", Picker("Rent for the shop"))
    assert [s.lines[0].id for s in rent.sentences] == ["2026-11-23#1"]
    wheat = answer(project, "How much is the wheat flour from Kessler Mill?", Picker("wheat"))
    assert [s.lines[0].id for s in wheat.sentences] == ["2026-11-24#1"]


def test_every_citation_resolves_to_the_journal_line_it_quotes(kitchen: Project) -> None:
    got = answer(kitchen, "What is Tomasz's quote?", Picker("18,400 EUR for demolition"))
    data = got.to_json()
    assert data["lines"] and all(line_text(kitchen, ln["id"]) == ln["text"] for ln in data["lines"])
    assert {i for s in data["sentences"] for i in s["lines"]} == {ln["id"] for ln in data["lines"]}


def test_a_page_a_pass_wrote_is_cited_with_its_name_and_the_lines_it_came_from(kitchen: Project) -> None:
    result = garden(kitchen, FakeModel().enqueue({"operations": [
        {"op": "create_page", "page": "worktop", "title": "Worktop",
         "body": "Marek of Kamień Studio quoted 2,950 EUR for the quartz worktop.\n", "lines": ["2026-03-02#2"]},
    ]}))  # fmt: skip
    assert result.outcome == "pages_written", result.refusals
    got = answer(kitchen, "What does the worktop cost?", Picker("Marek of"))
    assert [(s.text, s.pages, [ln.id for ln in s.lines]) for s in got.sentences] == [
        ("Marek of Kamień Studio quoted 2,950 EUR for the quartz worktop (2 March 2026).", ("worktop",), ["2026-03-02#2"])
    ]
    assert got.sentences[0].citation == "[[worktop]] 2026-03-02#2"


def test_a_persons_page_sentence_is_cited_with_the_lines_of_its_source_days_that_ground_it(project: Project) -> None:
    capture(project, "2026-11-23", "Rent for the shop is 2,400 EUR a month, heating not included.", "parking fine near the shop")
    write(project.root, "wiki/lease.md", page("Lease", "We rent the shop for 2,400 EUR a month.\n\nWe like the street.\n", source="[2026-11-23]"))
    commit_all(project.root)
    got = answer(project, "What is the rent?", Picker("We rent"))
    assert [(s.pages, [ln.id for ln in s.lines]) for s in got.sentences] == [(("lease",), ["2026-11-23#1"])]
    assert "We like the street" not in json.dumps(got.to_json())  # no line grounds it: never offered


def test_a_small_mode_bullet_is_its_line_with_its_day_once(kitchen: Project) -> None:
    write(kitchen.root, "wiki/worktop.md", page("Worktop", "- Marek from Kamień Studio quoted 2,950 EUR for a quartz worktop. (2026-03-02)\n", gardener=True))
    commit_all(kitchen.root)
    model = Picker("Marek")
    got = answer(kitchen, "What did Marek quote for the worktop?", model)
    assert [(s.text, s.pages) for s in got.sentences] == [("Marek from Kamień Studio quoted 2,950 EUR for a quartz worktop (2 March 2026).", ("worktop",))]
    assert "(2026-03-02)" not in model.prompt  # the day is shown once, beside the note, not as a note of its own


def test_ask_json_has_the_answer_its_sentences_their_citations_and_whether_it_abstained(kitchen: Project) -> None:
    (kitchen.root / ".gitgarden" / "config.toml").open("a").write('mode = "small"\n')
    before, head = workspace(kitchen.root), git(kitchen.root, "rev-parse", "HEAD")
    run = invoke(kitchen, "ask", "--json", "Who is the electrician?", model=Picker("electrician"))
    assert run.exit_code == 0, run.output
    data = json.loads(run.stdout)
    assert set(data) == {"question", "answer", "abstained", "mode", "sentences", "lines", "nearest", "dropped", "usage", "notes_offered", "unknown"}
    assert data["abstained"] is False and data["mode"] == "small" and data["question"] == "Who is the electrician?"
    assert data["answer"] == "Piotr Nowak the electrician comes on Friday 13 March (5 March 2026)."
    assert data["sentences"] == [{"text": data["answer"], "pages": [], "lines": ["2026-03-05#2"], "corrected_by": None}]
    assert data["lines"] == [{"id": "2026-03-05#2", "day": "2026-03-05", "text": "Piotr Nowak the electrician comes on Friday 13 March."}]
    assert data["usage"]["prompt_tokens"] > 0 and data["notes_offered"] >= 1
    assert workspace(kitchen.root) == before and git(kitchen.root, "rev-parse", "HEAD") == head  # asking changes nothing
    shown = invoke(kitchen, "ask", "Who is the electrician?", model=Picker("electrician"))
    assert shown.exit_code == 0 and shown.stdout.splitlines()[:2] == [data["answer"], "  2026-03-05#2"]
    none = invoke(kitchen, "ask", "--json", "Who measured the kitchen?", model=Picker("nothing-matches"))
    assert none.exit_code == EXIT_NOT_IN_GARDEN and json.loads(none.stdout)["abstained"] is True


def test_ask_refuses_in_one_line_without_a_model_or_a_question(kitchen: Project) -> None:
    run = invoke(kitchen, "ask", "Who is the electrician?", model=None)
    assert run.exit_code == 1 and "ask needs a model" in run.stderr and len(run.stderr.strip().splitlines()) == 1
    run = invoke(kitchen, "ask", "   ", model=Picker("x"))
    assert run.exit_code == 1 and "nothing to ask" in run.stderr
    run = invoke(kitchen, "ask", "why " * 400, model=Picker("x"))
    assert run.exit_code == 1 and "over the 1,000" in run.stderr


def test_the_ask_box_links_each_citation_to_the_page_words_and_the_journal_line(kitchen: Project) -> None:
    garden(kitchen, FakeModel().enqueue({"operations": [
        {"op": "create_page", "page": "worktop", "title": "Worktop",
         "body": "Marek of Kamień Studio quoted 2,950 EUR for the quartz worktop.\n", "lines": ["2026-03-02#2"]},
    ]}))  # fmt: skip
    c = client(kitchen, Picker("Marek of"), env={"GITGARDEN_MODE": "small"})
    assert 'action="/ask"' in c.get("/").text  # the box on the Garden page
    html = c.get("/ask", params={"q": "What does the worktop cost?"}).text
    assert "Marek of Kamień Studio quoted 2,950 EUR for the quartz worktop (2 March 2026)." in html
    page_link = re.search(r'href="(/page/worktop#:~:text=[^"]+)"', html)
    line_link = re.search(r'href="(/journal/2026-03-02#l2)"', html)
    assert page_link and line_link
    path, words = unquote(page_link.group(1)).split("#:~:text=")
    assert words in text_of(c.get(path).text)  # the page shows the words the link scrolls to
    day = c.get(line_link.group(1).split("#")[0]).text
    assert re.search(r'<li id="l2"[^>]*>.*?Marek from Kamień Studio quoted 2,950 EUR', day, re.S)
    gone = c.get("/ask", params={"q": "What colour are the kitchen wall tiles?"}).text
    assert "Not in the garden." in gone and "colour, wall, tiles" in gone
