"""Small mode end to end with scripted sorts: the model only sorts lines, code writes them.

A sort reply becomes verbatim bullets under the right pages, a decision moves a page
to decided with the line as its evidence, a question goes to the map's Open section,
a changed number is kept beside the old one with an Open line, chatter is skipped with
its kind as the reason — all through the same guard as a full-mode reply.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gitgarden.config import Settings, load_settings
from gitgarden.gardener import small
from gitgarden.gardener.pipeline import PassResult, run_pass
from gitgarden.model import provider, sort
from gitgarden.model import status as model_status
from gitgarden.project import Project
from gitgarden.wiki import pages
from gitgarden.wiki.journal import JournalLine
from tests.helpers.project import FIXED_LOG, FIXED_NOW, FakeModel, commit_all, git, page, write

SMALL = Settings(model="fake/scripted", mode="small")
LINES = [
    "Acme signed the pilot contract",
    "Acme wants rye bread every Monday",
    "Pilot price is 450 EUR a month",
    "We decided delivery is on Mondays",
    "Who pays for the flyers?",
    "lunch was good",
]


@pytest.fixture
def bakery(project: Project) -> Project:
    write(project.root, "wiki/pilot-price.md", page("Pilot price", "- Pilot price is 400 EUR a month (2026-11-28)\n", source="[2026-11-28]", gardener=True))
    write(project.root, "wiki/delivery.md", page("Delivery", "Bread goes out by van.\n", source="[2026-11-28]", gardener=True))
    write(project.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pilot-price]] — Pilot price\n- [[delivery]] — Delivery\n\n## Open\n")
    write(project.root, "raw/journal/2026-11-28.md", "Pilot price is 400 EUR a month\n")
    commit_all(project.root)
    git(project.root, "add", "-A")
    write(project.root, "raw/journal/2026-11-29.md", "".join(f"{line}\n" for line in LINES))
    return project


def garden(project: Project, model: FakeModel, settings: Settings = SMALL) -> PassResult:
    return run_pass(project, settings, model=model, now=lambda: FIXED_NOW)  # type: ignore[arg-type]


def sorted_reply(*rows: tuple[int, str, str, str]) -> dict[str, Any]:
    return {"lines": [{"line": f"2026-11-29#{n}", "kind": kind, "page": p, "title": title} for n, kind, p, title in rows]}


def body(project: Project, name: str) -> str:
    return pages.split_frontmatter(git(project.root, "show", f"HEAD:wiki/{name}.md"))[1]


def test_a_sort_becomes_verbatim_bullets_decisions_open_lines_and_skips(bakery: Project, fake_model: FakeModel) -> None:
    # The first pass reads the older day's line too: sort it onto its page (already there, nothing written).
    fake_model.enqueue(
        {
            "lines": [
                {"line": "2026-11-28#1", "kind": "fact", "page": "pilot-price", "title": ""},
                *sorted_reply(
                    (1, "fact", "new", "Acme"),
                    (2, "fact", "new", "Acme"),
                    (3, "fact", "pilot-price", ""),
                    (4, "decision", "delivery", ""),
                    (5, "question", "new", "flyers"),
                    (6, "chatter", "new", ""),
                )["lines"],
            ]
        }
    )
    result = garden(bakery, fake_model)
    assert result.outcome == "pages_written", (result.detail, result.refusals)
    assert result.mode == "small" and result.refusals == []
    # The model was shown each line with the pages code found for it, and nothing to write.
    prompt = fake_model.prompt
    assert '[2026-11-29#3] Pilot price is 450 EUR a month\n    pages: "pilot-price", "new"' in prompt
    assert '[2026-11-29#4] We decided delivery is on Mondays\n    pages: "delivery", "new"' in prompt
    assert "create_page" not in prompt
    # Facts: the line itself, a bullet ending in its day, under a page titled with the line's words.
    assert body(bakery, "acme") == "- Acme signed the pilot contract (2026-11-29)\n- Acme wants rye bread every Monday (2026-11-29)\n"
    acme = pages.read_meta(git(bakery.root, "show", "HEAD:wiki/acme.md"))
    assert acme["title"] == "Acme" and acme["state"] == "open" and pages.source_days(acme) == ["2026-11-29"]
    # A changed number: written beside the old one, and an Open line asks which holds.
    assert body(bakery, "pilot-price") == "- Pilot price is 400 EUR a month (2026-11-28)\n- Pilot price is 450 EUR a month (2026-11-29)\n"
    map_text = git(bakery.root, "show", "HEAD:wiki/index.md")
    open_lines = pages.open_lines(map_text)
    assert any("Which holds?" in ln and "400 EUR" in ln and "450 EUR" in ln and "[[pilot-price]]" in ln for ln in open_lines), open_lines
    # A decision: the bullet, and the page moves to decided with the line as its evidence.
    assert body(bakery, "delivery").endswith("- We decided delivery is on Mondays (2026-11-29)\n")
    assert pages.read_meta(git(bakery.root, "show", "HEAD:wiki/delivery.md"))["state"] == "decided"
    # A question goes to the Open section; chatter is skipped with its kind as the reason.
    assert "- Who pays for the flyers?" in open_lines
    assert result.skipped == [{"line": "2026-11-29#6", "text": "lunch was good", "reason": "chatter"}]
    assert result.marked_read == 7 and result.not_cited == []
    record = json.loads(git(bakery.root, "show", f"HEAD:{FIXED_LOG}").splitlines()[-1])
    assert record["mode"] == "small"
    assert "Gardener-Mode: small" in git(bakery.root, "log", "-1", "--format=%B")


def test_lines_the_sort_leaves_out_or_gets_wrong_stay_unread(bakery: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue(
        {
            "lines": [
                {"line": "2026-11-28#1", "kind": "fact", "page": "pilot-price", "title": ""},
                {"line": "2026-11-29#1", "kind": "fact", "page": "delivery", "title": ""},  # a page not offered for it
                {"line": "2026-11-29#2", "kind": "rumour", "page": "new", "title": "x"},  # no such kind
                {"line": "2026-11-30#1", "kind": "fact", "page": "new", "title": "Mars"},  # no such line
                {"line": "2026-11-29#6", "kind": "chatter", "page": "new", "title": ""},
            ]
        }
    )
    result = garden(bakery, fake_model)
    assert result.outcome == "nothing_earned", result.detail
    assert sorted(result.not_cited) == [f"2026-11-29#{n}" for n in (1, 2, 3, 4, 5)]
    assert any("was not offered" in h for h in result.hints)
    assert not (bakery.root / "wiki/acme.md").exists()


def test_a_new_pages_title_is_made_of_the_lines_words() -> None:
    line = "Met Dana Whitfield from Ridge Roofing about the gutter"
    assert small.title_from_line("Ridge Roofing", line) == "Ridge Roofing"
    assert small.title_from_line("Roofing company quote", line) == "Met Dana Whitfield"  # "company", "quote" are not in the line
    assert small.title_from_line("", "the oven price went up again") == "oven price went"
    assert small.title_from_line("", "Ana's birthday cake was lovely") == "Ana"
    ln = JournalLine("2026-11-29", 3, "- [ ] call the plumber", "k")
    assert small.bullet(ln) == "- call the plumber (2026-11-29)\n"


def test_a_changed_fact_is_seen_by_its_numbers_not_by_any_shared_word() -> None:
    old = "- Pilot price is 400 EUR a month (2026-11-28)\nThe van leaves at 7.\n"
    assert small.changed_fact("Pilot price is 450 EUR a month", old) == "Pilot price is 400 EUR a month"
    assert small.changed_fact("Pilot price is 400 EUR a month", old) is None  # the same numbers: no change
    assert small.changed_fact("The flyers cost 450 EUR", old) is None  # another subject
    assert small.changed_fact("Pilot price is going up", old) is None  # no number to differ


def test_the_sort_schema_offers_only_the_lines_kinds_and_pages_of_the_batch() -> None:
    items = [sort.Item("2026-11-29#1", "Acme pays", ("acme",)), sort.Item("2026-11-29#2", "lunch", ())]
    sch = sort.schema(items)
    # One required key per line, in order: a grammar-constrained server cannot leave a line out.
    assert list(sch["properties"]) == sch["required"] == ["2026-11-29#1", "2026-11-29#2"]
    first, second = (sch["properties"][i]["properties"] for i in sch["required"])
    assert first["kind"]["enum"] == ["fact", "decision", "question", "chatter"]
    assert first["page"]["enum"] == ["acme", "new"] and second["page"]["enum"] == ["new"]  # each line its own pages
    keyed = '{"2026-11-29#1": {"kind": "fact", "page": "acme", "title": ""}, "2026-11-29#2": {"kind": "chatter", "page": "new", "title": ""}}'
    assert sort.parse(keyed, items) == ([sort.Sorted("2026-11-29#1", "fact", "acme"), sort.Sorted("2026-11-29#2", "chatter", "new")], [])
    messages = sort.messages("bakery", items)
    assert "\n" not in messages[0]["content"].splitlines()[-1]  # the example reply is one line (llama.cpp's grammar)


def test_a_batch_is_a_few_dozen_lines_at_most(bakery: Project, fake_model: FakeModel) -> None:
    many = [f"Supplier {n} quoted {n * 10} EUR" for n in range(1, 21)]
    write(bakery.root, "raw/journal/2026-11-30.md", "".join(f"{line}\n" for line in many))
    ids = ["2026-11-28#1", *(f"2026-11-29#{n}" for n in range(1, 7)), *(f"2026-11-30#{n}" for n in range(1, 21))]
    for start in range(0, len(ids), sort.BATCH):
        fake_model.enqueue({"lines": [{"line": i, "kind": "chatter", "page": "new", "title": ""} for i in ids[start : start + sort.BATCH]]})
    result = garden(bakery, fake_model)
    assert len(fake_model.history) == -(-len(ids) // sort.BATCH) == 3
    assert result.marked_read == len(ids) and len(result.skipped) == len(ids)


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
    env = {"GITGARDEN_MODEL": "openai/gpt-4o-mini", "GITGARDEN_CONTEXT_WINDOW": "4096", "GITGARDEN_CONFIG": str(tmp_path / "u.toml")}
    info = model_status.status(load_settings(None, env=env).settings, env, probe=False)
    assert info["mode"] == "small" and "4,096" in info["mode_why"]


def test_full_mode_stays_as_it_was_for_a_hosted_model(bakery: Project, fake_model: FakeModel) -> None:
    fake_model.enqueue({"operations": [{"op": "skip", "lines": [f"2026-11-29#{n}" for n in range(1, 7)] + ["2026-11-28#1"], "reason": "x"}]})
    result = garden(bakery, fake_model, Settings(model="fake/scripted"))
    assert result.mode == "full" and "operations" in fake_model.prompt and result.outcome == "nothing_earned"


def test_small_mode_writes_go_through_the_guard(bakery: Project, fake_model: FakeModel) -> None:
    """A fact for a page of the person's that is over its budget is refused by the guard like any append."""
    write(bakery.root, "wiki/delivery.md", page("Delivery", "x" * 6100 + "\n", source="[2026-11-28]"))
    commit_all(bakery.root)
    fake_model.enqueue(sorted_reply((4, "fact", "delivery", "")))
    result = garden(bakery, fake_model)
    assert result.outcome == "finished_without_writing" and any("over" in r for r in result.refusals), result.refusals
    assert not (bakery.root / ".gitgarden/read.json").exists()  # the refused line stays unread
