"""The context builder: what the model sees, and that it stays within budget whatever the wiki's size."""

from __future__ import annotations

import builtins
import os
import pathlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.gardener import context
from gitgarden.gardener.context import (
    ContextInputs,
    PageInfo,
    build_messages,
    estimate_tokens,
    project_relative,
)
from gitgarden.wiki import pages as wiki
from gitgarden.wiki.journal import JournalLine


def line(day: str, n: int, text: str) -> JournalLine:
    return JournalLine(day, n, text, f"k{day}{n}")


class Reader:
    """A read_page that counts its calls."""

    def __init__(self, pages: dict[str, str]) -> None:
        self.pages = pages
        self.calls: list[str] = []

    def __call__(self, name: str) -> str | None:
        self.calls.append(name)
        return self.pages.get(name)


ACME = "---\ntitle: Acme Corp\nstate: open\nsource: [2026-11-28]\n---\nAcme is the pilot customer.\n"
PRICING = "---\ntitle: Pricing\nstate: decided\n---\n" + "Flat fee.\n" * 700


def small_inputs(reader: Callable[[str], str | None] | None = None, **over: Any) -> ContextInputs:
    pages = {"acme": ACME, "pricing": PRICING}
    base: dict[str, Any] = dict(
        project_name="demo",
        agents_md="# Premises\nWe build a small CRM for bakeries.\n",
        identity=[("me.md", "I am Dana, the founder.\n")],
        map_text="# Map\n- [[acme]] — the pilot customer\n\n## Open\n",
        pages=[
            PageInfo("acme", "Acme Corp", "open", len(pages["acme"]), ("ACME",)),
            PageInfo("pricing", "Pricing", "decided", len(pages["pricing"])),
            PageInfo("Bakery Visits", "Bakery Visits", "open", 40),
        ],
        read_page=reader or Reader(pages),
        unread=[
            line("2026-11-29", 1, "Acme wants CSV export before January"),
            line("2026-11-29", 2, "lunch was good"),
        ],
        overflow=3,
        conversation="dana: can Acme get exports?\nagent: I will note it.\n",
        today="2026-11-30",
        candidates={"2026-11-29#1": ["acme"]},
    )
    base.update(over)
    return ContextInputs(**base)


# -- snapshots ----------------------------------------------------------------------

EXPECTED_USER = """\
Today is 2026-11-30. Project: demo.

=== AGENTS.md — the project's premises ===
# Premises
We build a small CRM for bakeries.

=== identity file me.md ===
I am Dana, the founder.

=== the map (wiki/index.md) ===
# Map
- [[acme]] — the pilot customer

## Open

=== pages: name | title | state | size in characters ===
- acme | Acme Corp (also: ACME) | open | 86
- Bakery Visits | Bakery Visits | open | 40
- pricing | Pricing | decided | 7038 | over budget

=== page acme ===
---
title: Acme Corp
state: open
source: [2026-11-28]
---
Acme is the pilot customer.

=== recent conversation (its last part) ===
dana: can Acme get exports?
agent: I will note it.

=== unread journal lines ===
[2026-11-29#1] Acme wants CSV export before January  (similar pages: acme)
[2026-11-29#2] lunch was good
3 more lines wait for a later pass.

Answer with the JSON object now.
"""

EXPECTED_SYSTEM = """\
You are the gardener of the wiki of the project "demo". Between conversations you read the journal lines nobody has read yet and decide which of them earn a place in the wiki. You answer with operations; code applies them, checks them against its rules, and commits them.

Rules:
- Promote what the project will keep talking about: people, places, organisations, decisions, constraints, recurring problems. One-off details, chatter and logistics stay in the journal.
- Several lines about one thing are one page (or one append to the page it already has), not several pages.
- Most lines pass through: cite them in a "skip" operation with a short "reason" (chatter, logistics, one-off detail): the person reads it. A pass that promotes nothing has done its job.
- Before creating a page, read the page list: when the thing already has a page (by name, title or alias), append to that page instead.
- New pages start open. Never set a state without quoting, word for word, the journal or conversation line that shows it as "evidence".
- Do not settle contradictions. When a line disagrees with a page — above all a decided one — name both with an open_question and leave the page as it is.
- Never reword or delete: you can only add. Write only what the cited lines say — no guesses, no outside knowledge — in the language of the lines. A name, number or date the cited lines do not contain is refused.
- Every operation cites, in "lines", the ids of the journal lines it comes from: the id in brackets before each unread line.
- New page names are slugs: lowercase letters, digits and single hyphens. Refer to existing pages by their name as listed.

Answer with one JSON object on one line and nothing else — no prose, no code fence, no line break (inside a text, write a line break as \\n). Write each operation's fields in the order shown. The three most common shapes, with placeholders — <…> is text you write from the cited lines, 0000-00-00#1 stands for the id of an unread line and new-page-name for the slug you choose; never copy a placeholder:
{"operations": [{"op": "create_page", "lines": ["0000-00-00#1"], "page": "new-page-name", "title": "<Title from the cited line>", "body": "<A sentence from the cited line.>\\n"}, {"op": "append", "lines": ["0000-00-00#2"], "page": "<name of a listed page>", "text": "<A sentence from the cited line.>\\n"}, {"op": "skip", "lines": ["0000-00-00#3", "0000-00-00#4"], "reason": "<a few words why>"}]}

The other operations (fields in brackets, in order; * marks optional ones):
- link [lines, page, phrase, target]: Wrap the first unlinked mention of `phrase` in `page` as [[target|phrase]].
- set_state [lines, page, state (open|hypothesis|decided|done), evidence]: Move a page's state forward (open → hypothesis → decided → done); `evidence` quotes a journal or conversation line word for word.
- split [lines, page, parts [{page, title, headings}]]: Move the named `##` sections of an over-budget page, word for word, into new pages the original links to.
- open_question [lines, text, pages]: One line in the map's Open section naming the pages involved and the question; nothing is settled.
- recover_line [lines, text, evidence]: Append `[recovered] text` to today's journal; `evidence` quotes the conversation word for word.
- map [lines, entries* [{page, summary}], moves* [{text, to}]]: Map entries to add, and map prose to move word for word to the page it belongs to.
- promote_to_hub [lines, page, title, children]: A hub: a new page (or an existing hub) gathering related existing pages; code writes its list of links and moves their map entries into it.
- supersede [lines, page, by]: A later line makes `page` out of date: it gets `superseded_by` and a first line pointing to `by` (a decided page gets an Open line instead); its text stays.
- merge [lines, from, into]: Two pages health names as duplicate candidates: the body of `from` moves word for word under a heading in `into`; `from` keeps its name and one line linking to `into`.
Unknown fields and unknown operations are refused."""


def test_prompt_snapshot() -> None:
    reader = Reader({"acme": ACME, "pricing": PRICING})
    messages, report = build_messages(small_inputs(reader), Settings())
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0]["content"] == EXPECTED_SYSTEM
    assert messages[1]["content"] == EXPECTED_USER
    assert reader.calls == ["acme"]  # only the page the lines are about was read
    assert report.pages_with_bodies == ["acme"]
    assert (report.pages_listed, report.pages_omitted) == (3, 0)
    assert report.lines_offered == ["2026-11-29#1", "2026-11-29#2"] and report.lines_held_back == 0
    assert report.conversation_chars == len(small_inputs().conversation)
    assert report.prompt_tokens_estimate == sum(estimate_tokens(m["content"]) + 4 for m in messages)


def test_system_message_names_every_operation() -> None:
    from gitgarden.model import operations as ops

    text = context.system_message("x")
    for name in ops.OPERATIONS:
        assert name in text


# -- budgets ----------------------------------------------------------------------------

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike"]
PEOPLE = [f"{a}{b}" for a in ("Dana", "Rio", "Ola", "Kim", "Ana", "Lev", "Mia", "Tor") for b in ("son", "berg", "ez", "ova", "ini")]


def synthetic_wiki(n_pages: int) -> tuple[list[PageInfo], Reader]:
    """n pages: people, places and topics, each a few hundred characters."""
    infos: list[PageInfo] = []
    texts: dict[str, str] = {}
    for i in range(n_pages):
        who = PEOPLE[i % len(PEOPLE)]
        name = f"{who.lower()}-{WORDS[i % len(WORDS)]}-{i}"
        title = f"{who} {WORDS[i % len(WORDS)].title()} {i}"
        body = f"{title} works on project {WORDS[(i * 7) % len(WORDS)]}.\n" * (3 + i % 5)
        text = wiki.new_page(title, body, source=["2026-11-01"])
        infos.append(PageInfo(name, title, ("open", "decided")[i % 2], len(text)))
        texts[name] = text
    return infos, Reader(texts)


def synthetic_lines(n: int = 200) -> list[JournalLine]:
    return [
        line("2026-11-29", i + 1, f"Talked with {PEOPLE[i % 40]} about {WORDS[i % len(WORDS)]} budget, item {i}")
        for i in range(n)
    ]


def inputs_for(pages: list[PageInfo], reader: Reader, unread: list[JournalLine], **over: Any) -> ContextInputs:
    base: dict[str, Any] = dict(
        project_name="big",
        agents_md="We run a studio.\n" * 20,
        identity=[],
        map_text="# Map\n" + "".join(f"- [[{p.name}]]\n" for p in pages[:40]),
        pages=pages,
        read_page=reader,
        unread=unread,
        overflow=0,
        conversation="",
        today="2026-11-30",
    )
    base.update(over)
    return ContextInputs(**base)


@pytest.mark.parametrize(
    "settings",
    [Settings(), Settings(context_window=128_000, token_budget=60_000), Settings(context_window=32_000, max_output_tokens=4096)],
    ids=["default", "large", "medium"],
)
def test_a_5000_page_wiki_costs_about_what_a_50_page_one_does(settings: Settings) -> None:
    unread = synthetic_lines(200)
    small_pages, small_reader = synthetic_wiki(50)
    big_pages, big_reader = synthetic_wiki(5000)
    _, small = build_messages(inputs_for(small_pages, small_reader, unread), settings)
    messages, big = build_messages(inputs_for(big_pages, big_reader, unread), settings)
    limit = min(settings.context_window - settings.max_output_tokens, settings.token_budget)
    assert big.prompt_tokens_estimate <= 1.3 * small.prompt_tokens_estimate
    assert big.prompt_tokens_estimate <= limit and small.prompt_tokens_estimate <= limit
    assert len(big_reader.calls) <= context.MAX_READS
    assert big.pages_listed <= context.MAX_LISTED and big.pages_omitted == 5000 - big.pages_listed
    assert f"{big.pages_omitted:,} more pages, not listed" in messages[1]["content"]
    assert big.lines_offered == small.lines_offered  # the wiki's size does not cost journal lines


def test_large_wiki_reads_only_relevant_pages() -> None:
    pages, reader = synthetic_wiki(5000)
    target = pages[1206]
    unread = [line("2026-11-29", 1, f"{target.title} moved the launch to March")]
    messages, report = build_messages(inputs_for(pages, reader, unread), Settings(context_window=32_000))
    assert report.pages_with_bodies[0] == target.name
    assert len(reader.calls) <= context.MAX_READS
    assert set(report.pages_with_bodies) <= set(reader.calls)
    listed = messages[1]["content"].split("=== pages")[1]
    assert listed.split("\n- ")[1].startswith(target.name)  # listed first


def test_lines_that_do_not_fit_wait_for_a_later_pass() -> None:
    pages, reader = synthetic_wiki(20)
    unread = synthetic_lines(200)
    settings = Settings(context_window=4096, max_output_tokens=1024)
    messages, report = build_messages(inputs_for(pages, reader, unread, overflow=7), settings)
    assert 0 < len(report.lines_offered) < 200
    assert report.lines_offered == [ln.id for ln in unread[: len(report.lines_offered)]]
    assert report.lines_held_back == 200 - len(report.lines_offered)
    assert f"{report.lines_held_back + 7:,} more lines wait for a later pass." in messages[1]["content"]
    assert report.prompt_tokens_estimate <= 4096 - 1024


def test_no_room_for_a_line_is_an_error() -> None:
    with pytest.raises(ModelError) as exc:
        build_messages(small_inputs(), Settings(context_window=1024, max_output_tokens=900))
    assert exc.value.kind == "context_too_long"
    with pytest.raises(ModelError):
        build_messages(small_inputs(), Settings(token_budget=0))


def test_no_unread_lines_is_fine_for_a_map_pass() -> None:
    messages, report = build_messages(small_inputs(unread=[], overflow=0), Settings())
    assert report.lines_offered == [] and "(none)" in messages[1]["content"]


def test_big_sections_are_clipped_with_a_note() -> None:
    agents = "".join(f"Premise number {i} of the project.\n" for i in range(5000))
    messages, report = build_messages(small_inputs(agents_md=agents), Settings())
    user = messages[1]["content"]
    assert "Premise number 0 " in user and "Premise number 4999" not in user
    assert "more characters not shown]" in user
    assert report.prompt_tokens_estimate <= Settings().context_window - Settings().max_output_tokens


def test_conversation_window_is_the_newest_part_and_capped() -> None:
    talk = "".join(f"turn {i}: something said\n" for i in range(2000))
    messages, report = build_messages(small_inputs(conversation=talk), Settings(chat_window_chars=300))
    assert report.conversation_chars <= 300
    shown = talk[-report.conversation_chars :]
    assert shown.rstrip() in messages[1]["content"] and "turn 1999" in shown
    _, none = build_messages(small_inputs(conversation=talk), Settings(chat_window_chars=0))
    assert none.conversation_chars == 0


def test_candidates_bring_a_page_in() -> None:
    pages = [PageInfo("q4-plan", "Q4 Plan", "open", 100), PageInfo("misc", "Misc", "open", 100)]
    reader = Reader({"q4-plan": "The plan.\n", "misc": "Other.\n"})
    inputs = small_inputs(
        reader,
        pages=pages,
        unread=[line("2026-11-29", 4, "the thing we discussed on Tuesday")],
        candidates={"2026-11-29#4": ["q4-plan"]},
    )
    _, report = build_messages(inputs, Settings())
    assert report.pages_with_bodies == ["q4-plan"] and reader.calls == ["q4-plan"]


def test_common_words_rank_below_rare_ones() -> None:
    pages = [PageInfo(f"meeting-{i}", f"Meeting {i}", "open", 10) for i in range(30)] + [
        PageInfo("zanzibar", "Zanzibar", "open", 10)
    ]
    ranked = context.rank_pages(pages, [line("2026-11-29", 1, "meeting about Zanzibar")], {})
    assert ranked[0][1].name == "zanzibar"


@given(
    n_pages=st.integers(0, 400),
    n_lines=st.integers(0, 200),
    body_chars=st.integers(0, 20_000),
    window=st.integers(2048, 64_000),
    out=st.integers(128, 1500),
    token_budget=st.integers(1500, 100_000),
    chat=st.integers(0, 20_000),
)
@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_prompt_always_fits(n_pages: int, n_lines: int, body_chars: int, window: int, out: int, token_budget: int, chat: int) -> None:
    pages, reader = synthetic_wiki(n_pages)
    settings = Settings(context_window=window, max_output_tokens=out, token_budget=token_budget, chat_window_chars=chat)
    inputs = inputs_for(
        pages,
        reader,
        synthetic_lines(n_lines),
        agents_md="x " * body_chars,
        identity=[("a.md", "y " * body_chars), ("b.md", "z\n" * body_chars)],
        conversation="talk " * body_chars,
    )
    limit = min(window - out, token_budget)
    try:
        messages, report = build_messages(inputs, settings)
    except ModelError as exc:
        # Refused only when something does not fit: an unread line, or the rules themselves.
        no_room = "no room for a prompt" in str(exc)
        assert exc.kind == "context_too_long" and (n_lines > 0 or no_room), str(exc)
        return
    assert report.prompt_tokens_estimate <= limit
    assert len(reader.calls) <= context.MAX_READS
    assert len(report.lines_offered) + report.lines_held_back == n_lines
    assert report.conversation_chars <= chat


# -- nothing from outside --------------------------------------------------------------


def test_estimate_tokens() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    assert estimate_tokens("日本") == 2  # six bytes


@pytest.mark.parametrize(
    ("name", "clean"),
    [
        ("me.md", "me.md"),
        ("notes/me.md", "notes/me.md"),
        ("./notes//me.md", "notes/me.md"),
        ("../secret.txt", None),
        ("notes/../../secret.txt", None),
        ("/etc/passwd", None),
        ("~/secret.txt", None),
        ("C:/secret.txt", None),
        (".git/config", None),
        ("notes/.env", None),
        ("", None),
        (".", None),
    ],
)
def test_project_relative(name: str, clean: str | None) -> None:
    assert project_relative(name) == clean


def _caller_reads(root: Path, rel: str) -> str | None:
    """How the pass is expected to read a configured file: a checked name, no symlink anywhere on the way."""
    clean = project_relative(rel)
    if clean is None:
        return None
    path = root
    for part in clean.split("/"):
        path = path / part
        if path.is_symlink():
            return None
    return path.read_text(encoding="utf-8") if path.is_file() else None


def test_a_secret_beside_the_project_never_reaches_the_prompt(tmp_path: Path) -> None:
    secret = "SECRET-7f3a9c-do-not-send"
    (tmp_path / "secret.txt").write_text(f"{secret}\n")
    (tmp_path / "other-project" / "wiki").mkdir(parents=True)
    (tmp_path / "other-project" / "wiki" / "acme.md").write_text(f"Acme {secret}\n")
    root = tmp_path / "proj"
    (root / "wiki").mkdir(parents=True)
    (root / "AGENTS.md").write_text("We bake.\n")
    (root / "me.md").write_text("I am Dana.\n")
    (root / "wiki" / "acme.md").write_text(wiki.new_page("Acme", "Acme buys bread.\n"))
    os.symlink(tmp_path / "secret.txt", root / "linked.md")
    os.symlink(tmp_path / "secret.txt", root / "wiki" / "leak.md")
    os.symlink(tmp_path / "other-project" / "wiki", root / "wiki" / "theirs")

    configured = ["me.md", "../secret.txt", str(tmp_path / "secret.txt"), "linked.md", "wiki/theirs/acme.md"]
    identity = [(name, text) for name in configured if (text := _caller_reads(root, name)) is not None]
    assert [name for name, _ in identity] == ["me.md"]

    pages = [
        PageInfo("acme", "Acme", "open", 40),
        PageInfo("leak", "Acme leak", "open", 40),
        PageInfo("theirs/acme", "Acme", "open", 40),
    ]
    inputs = ContextInputs(
        project_name="proj",
        agents_md=(root / "AGENTS.md").read_text(),
        identity=identity,
        map_text="",
        pages=pages,
        read_page=lambda name: _caller_reads(root, f"wiki/{name}.md"),
        unread=[line("2026-11-29", 1, "Acme wants more bread; see the Acme leak")],
        overflow=0,
        conversation="",
        today="2026-11-30",
    )
    messages, report = build_messages(inputs, Settings())
    assert "acme" in report.pages_with_bodies
    for message in messages:
        assert secret not in message["content"]


def test_build_messages_does_no_file_io(monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = small_inputs()

    def no_io(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("context.py touched the file system")

    monkeypatch.setattr(builtins, "open", no_io)
    monkeypatch.setattr(os, "open", no_io)
    monkeypatch.setattr(os, "scandir", no_io)
    monkeypatch.setattr(os, "stat", no_io)
    monkeypatch.setattr(pathlib.Path, "read_text", no_io)
    monkeypatch.setattr(pathlib.Path, "read_bytes", no_io)
    messages, _ = build_messages(inputs, Settings())
    assert "Acme" in messages[1]["content"]
