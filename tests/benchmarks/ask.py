"""`gitgarden ask` against the raw journal: the labelled journals gardened by a real model, then
every question asked twice with the same model.

    python3 tests/benchmarks/ask.py --model openai/qwen --api-base http://127.0.0.1:8091/v1 --label "Qwen2.5 1.5B"
    python3 tests/benchmarks/ask.py --journals 'dev-*' --mode small --json figures.json

For each journal of `tests/benchmarks/journals/` the glob names: its `raw/` and `AGENTS.md` are
copied into a fresh project (git init, one commit of the notes, `gitgarden init`, as a person
starts), and passes run with the model until nothing is unread or `--passes` ran. Then each
question of `questions.toml` is asked

- through `ask`: the notes retrieval finds in the garden, the model's reply, code's checks;
- against the raw journal: every journal line, oldest first, numbered as `ask` numbers its notes
  (the newest lines that fit the context window when the whole journal does not), in the same
  prompt and reply format of the mode, the answer taken as the model gave it (no retrieval, no
  check, no correction lookup: what pasting the notes into a chat gives).

Both answers are judged the same way: right when one of the question's `answer` strings stands in
the answer (case, accents, spacing and thousands separators aside); an unanswerable question is
declined when the answer is "Not in the garden" (no sentence). Printed per journal and way:
answerable questions right, unanswerable declined, answer sentences holding a number, name or date
their citations lack (rule 11's `unfounded`; `ask` must show 0), prompt tokens and seconds per
question. Nothing is asserted: the figures go to tests/benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gitgarden.answer import compose, prompts  # noqa: E402
from gitgarden.answer.asking import ask, ask_model  # noqa: E402
from gitgarden.answer.notes import line_note  # noqa: E402
from gitgarden.config import Settings, load_settings  # noqa: E402
from gitgarden.guard.grounding import score_text  # noqa: E402
from gitgarden.model.endpoints import choose_mode  # noqa: E402
from gitgarden.model.llm import Budget  # noqa: E402
from gitgarden.project import Project, init_project  # noqa: E402
from gitgarden.wiki import journal, layout  # noqa: E402

JOURNALS = Path(__file__).resolve().parent / "journals"
_RAW_INSTRUCTIONS = 450  # tokens the instructions, the question and the framing take beside the lines


@dataclass
class Asked:
    """One question asked one way, judged."""

    question: str
    kind: str
    answerable: bool
    answer: str
    abstained: bool
    right: bool
    ungrounded: int
    sentences: int
    prompt_tokens: int
    seconds: float
    error: str = ""


@dataclass
class Row:
    """One journal asked one way: the questions' figures."""

    journal: str
    way: str  # "ask" | "raw journal"
    asked: list[Asked] = field(default_factory=list)
    notes: str = ""

    def figures(self) -> dict[str, Any]:
        answerable = [a for a in self.asked if a.answerable]
        unanswerable = [a for a in self.asked if not a.answerable]
        done = [a for a in self.asked if not a.error]
        return {
            "journal": self.journal,
            "way": self.way,
            "right": f"{sum(a.right for a in answerable)}/{len(answerable)}",
            "declined": f"{sum(a.abstained for a in unanswerable)}/{len(unanswerable)}",
            "answerable declined": sum(a.abstained for a in answerable),
            "ungrounded sentences": sum(a.ungrounded for a in self.asked),
            "prompt tokens/question": round(statistics.mean(a.prompt_tokens for a in done)) if done else 0,
            "seconds/question": round(statistics.mean(a.seconds for a in done), 1) if done else 0,
            "errors": sum(bool(a.error) for a in self.asked),
        }


def normalised(text: str) -> str:
    """Text as answers are compared: case, accents, spacing and thousands separators aside."""
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = "".join(ch for i, ch in enumerate(text) if not (ch == "," and 0 < i < len(text) - 1 and text[i - 1].isdigit() and text[i + 1].isdigit()))
    return " ".join(text.split())


def ungrounded(sentences: list[compose.Sentence], titles: dict[str, str]) -> int:
    """The sentences holding a number, name or date that their cited lines (and pages' titles) lack."""
    count = 0
    for s in sentences:
        title = " ".join(titles.get(p, "") for p in s.pages)
        scores = score_text(s.text, [ln.text for ln in s.lines], title, [ln.day for ln in s.lines])
        count += any(sc.unfounded for sc in scores)
    return count


def judged(q: dict[str, Any], answer: compose.Answer, titles: dict[str, str], error: str = "") -> Asked:
    text = normalised(answer.text)
    right = not answer.abstained and any(normalised(a) in text for a in q.get("answer", []))
    return Asked(
        q["q"], q.get("kind", ""), bool(q.get("answerable")), answer.text, answer.abstained, right,
        ungrounded(answer.sentences, titles), len(answer.sentences), answer.usage.prompt_tokens, round(answer.seconds, 1), error,
    )  # fmt: skip


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def make_project(name: str, work: Path) -> Project:
    """The journal copied into a fresh project, as a person starts: the notes committed, then `init`."""
    root = work / name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    shutil.copytree(JOURNALS / name / "raw", root / "raw")
    if (JOURNALS / name / "AGENTS.md").is_file():
        shutil.copy(JOURNALS / name / "AGENTS.md", root / "AGENTS.md")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "My notes")
    return Project(init_project(root).root)


def unread(project: Project) -> int:
    from gitgarden.gardener.setaside import on_disk

    with layout.active(project.layout):
        offerable, aside = on_disk(project.root)
    return len(offerable) + len(aside)


def garden(project: Project, settings: Settings, passes: int, log: Any) -> dict[str, Any]:
    """Passes until nothing is unread or `passes` ran: what they came to."""
    from gitgarden.gardener.pipeline import run_pass
    from gitgarden.model.provider import LiteLLMModel

    started = time.monotonic()
    outcomes = []
    tokens = 0
    for n in range(passes if unread(project) else 0):  # a garden kept from an earlier run (--keep) may be done
        result = run_pass(project, settings, model=LiteLLMModel(settings, os.environ), on_progress=lambda m: print(f"    {m}", file=log, flush=True))
        outcomes.append(result.outcome)
        tokens += result.tokens
        print(f"  pass {n + 1}: {result.outcome}, {result.marked_read} read, {len(result.created)} created, "
              f"{len(result.appended)} appended, {result.tokens:,} tokens — {result.detail[:120]}", file=log, flush=True)  # fmt: skip
        if result.outcome in ("nothing_new", "failed") or not unread(project):
            break
    pages = len([p for p in (project.root / "wiki").rglob("*.md")]) - 1
    return {"passes": len(outcomes), "outcomes": outcomes, "tokens": tokens, "pages": pages, "seconds": round(time.monotonic() - started), "unread": unread(project)}


def page_titles(project: Project) -> dict[str, str]:
    from gitgarden.store.disktree import DiskTree
    from gitgarden.wiki import tidy

    with layout.active(project.layout):
        return {name: title for name, (title, _aliases) in tidy.page_titles(DiskTree(project.root, project.layout.wiki_folders())).items()}


def raw_answer(project: Project, question: str, settings: Settings, model: Any, mode: str) -> tuple[compose.Answer, int]:
    """The question over the raw journal (the newest lines that fit the context), answered as the
    model gives it: (the answer, how many lines were left out)."""
    lines = journal.all_lines(project.journal)
    room = settings.context_window - prompts.reply_tokens(mode) - _RAW_INSTRUCTIONS
    notes, used = [], 0
    for ln in reversed(lines):
        cost = len(prompts.shown(line_note(ln))) // 4 + 6
        if used + cost > room:
            break
        notes.append(line_note(ln))
        used += cost
    notes.reverse()
    started = time.monotonic()
    written, usage = ask_model(model, project.name, question, notes, mode, Budget.from_settings(settings))
    if mode == "small":
        sentences = [compose.Sentence(compose.dated(notes[w.notes[0]]), notes[w.notes[0]].lines) for w in written if w.notes]
    else:
        sentences = [compose.Sentence(w.text, tuple(ln for i in w.notes for ln in notes[i].lines)) for w in written]
    answer = compose.Answer(question, mode, sentences, usage=usage, notes_offered=len(notes))
    answer.seconds = time.monotonic() - started
    return answer, len(lines) - len(notes)


def run_journal(name: str, settings: Settings, args: argparse.Namespace, work: Path) -> tuple[list[Row], dict[str, Any]]:
    from gitgarden.errors import GitgardenError
    from gitgarden.model.provider import LiteLLMModel

    log = sys.stderr
    print(f"{name}:", file=log, flush=True)
    kept = work / name
    project = Project(kept) if args.keep and (kept / ".gitgarden").is_dir() else make_project(name, work)
    gardened = garden(project, settings, args.passes, log)
    titles = page_titles(project)
    questions = tomllib.loads((JOURNALS / name / "questions.toml").read_text(encoding="utf-8"))["question"]
    if args.questions and len(questions) > args.questions:  # evenly spread, the same ones both ways
        questions = questions[:: math.ceil(len(questions) / args.questions)]
    mode = choose_mode(settings)[0]
    via_ask, via_raw = Row(name, "ask"), Row(name, "raw journal")
    left_out = 0
    for q in questions:
        model = LiteLLMModel(settings, os.environ)
        try:
            answer = ask(project, q["q"], settings, model, env=os.environ, now=lambda: datetime.now(UTC))
            via_ask.asked.append(judged(q, answer, titles))
        except GitgardenError as exc:
            via_ask.asked.append(judged(q, compose.Answer(q["q"], mode), titles, str(exc)))
        a = via_ask.asked[-1]
        print(f"  ask  {'right' if a.right else 'declined' if a.abstained else 'wrong'}: {q['q']} -> {a.answer[:140]} ({a.seconds} s){' ' + a.error if a.error else ''}", file=log, flush=True)
        if args.no_raw:
            continue
        try:
            raw, left_out = raw_answer(project, q["q"], settings, model, mode)
            via_raw.asked.append(judged(q, raw, titles))
        except GitgardenError as exc:
            via_raw.asked.append(judged(q, compose.Answer(q["q"], mode), titles, str(exc)))
        r = via_raw.asked[-1]
        print(f"  raw  {'right' if r.right else 'declined' if r.abstained else 'wrong'}: {r.answer[:140]} ({r.seconds} s){' ' + r.error if r.error else ''}", file=log, flush=True)
    if left_out:
        via_raw.notes = f"{left_out} oldest lines did not fit the context"
    return [via_ask] + ([] if args.no_raw else [via_raw]), gardened


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=os.environ.get("GITGARDEN_MODEL", ""))
    parser.add_argument("--api-base", default=os.environ.get("GITGARDEN_API_BASE", ""))
    parser.add_argument("--label", default="", help="the model's name in the table (default: --model)")
    parser.add_argument("--journals", default="dev-*", help="a glob over tests/benchmarks/journals/ (default dev-*)")
    parser.add_argument("--mode", default="", help="small or full (default: as mode = auto picks)")
    parser.add_argument("--passes", type=int, default=5, help="passes at most per journal (default 5)")
    parser.add_argument("--timeout", type=int, default=0, help="seconds a request may take (default: the settings')")
    parser.add_argument("--seconds-budget", type=int, default=0, help="seconds a pass may spend in model calls (default: the settings')")
    parser.add_argument("--context-window", type=int, default=0, help="the model's context (default: the settings')")
    parser.add_argument("--no-raw", action="store_true", help="ask through the garden only")
    parser.add_argument("--questions", type=int, default=0, help="ask at most N of a journal's questions, evenly spread (a long journal's raw prompt takes minutes a question on 2 cores)")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true", help="ask over the gardens an earlier run left in --workdir (passes run only while lines are unread)")
    parser.add_argument("--json", type=Path, help="write the raw figures here too")
    args = parser.parse_args(argv)
    if not args.model:
        parser.error("name a model: --model (or GITGARDEN_MODEL)")
    names = sorted(p.name for p in JOURNALS.iterdir() if p.is_dir() and fnmatch.fnmatch(p.name, args.journals))
    if not names:
        parser.error(f"no journal under {JOURNALS} matches {args.journals!r}")
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gitgarden-ask-"))
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text("[user]\n\tname = Pat\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n")
    os.environ.update(HOME=str(home), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"), GIT_CONFIG_NOSYSTEM="1",
                      GITGARDEN_CONFIG=str(home / "config.toml"), GITGARDEN_STATE=str(home / "state"),
                      LITELLM_LOCAL_MODEL_COST_MAP="True")  # fmt: skip
    over: dict[str, Any] = {"model": args.model, "api_base": args.api_base, "num_retries": 0, "temperature": 0.0}
    if args.mode:
        over["mode"] = args.mode
    if args.timeout:
        over["timeout"] = args.timeout
    if args.seconds_budget:
        over["seconds_budget"] = args.seconds_budget
    if args.context_window:
        over.update(context_window=args.context_window, context_window_source="flag")
    settings = replace(load_settings(None).settings, **over)
    label = args.label or args.model
    rows: list[Row] = []
    gardens: dict[str, Any] = {}
    for name in names:
        found, gardens[name] = run_journal(name, settings, args, work)
        rows += found
    keys = ["journal", "way", "right", "declined", "answerable declined", "ungrounded sentences", "prompt tokens/question", "seconds/question"]
    print(f"{label}, {choose_mode(settings)[0]} mode:")
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        fig = row.figures()
        print("| " + " | ".join(str(fig[k]) for k in keys) + " |" + (f" {row.notes}" if row.notes else "") + (f" ({fig['errors']} errors)" if fig["errors"] else ""))
    for name, g in gardens.items():
        print(f"{name}: gardened in {g['passes']} pass(es), {g['seconds']} s, {g['tokens']:,} tokens, {g['pages']} pages, {g['unread']} lines unread")
    if args.json:
        data = {"model": label, "settings": {"model": args.model, "mode": choose_mode(settings)[0]}, "gardens": gardens,
                "rows": [{**r.figures(), "notes": r.notes, "asked": [a.__dict__ for a in r.asked]} for r in rows]}  # fmt: skip
        args.json.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
