"""How good a garden a model grows from a labelled journal (issue 33). Prints a table; asserts nothing.

    python -m tests.benchmarks.garden --api-base http://127.0.0.1:8090/v1 [--model openai/local]
        [--journals dev-kitchen,held-move] [--passes 3] [--json figures.json] [--keep DIR]

Each journal of tests/benchmarks/journals/ (its AGENTS.md and day files) is copied into a fresh
project, which `gitgarden run --json` gardens as a person would (the settings' defaults: small mode
for a loopback endpoint), pass after pass until nothing is left unread or `--passes` have run. The
garden is then read back and scored against the journal's `key.toml`:

- facts on their subject's page: a fact or decision line written on a page whose title or an alias
  is one of the line's subjects (any spelling the key gives); kept: on any page;
- chatter promoted: a chatter line on a page or in the map;
- people split: a person whose spellings answer to more than one page;
- corrections surfaced: a line that changes an earlier one, both quoted in one Open line of the map;
  false asks: an Open "Which holds?" line quoting two lines the key does not give as a change (a
  question the person answers for nothing);
- decided: a decision line's page ends `state: decided`;
- lines left unread, with a reason the person can see (the last pass's record) and without;
- passes, failed passes, prompt and reply tokens per line read, seconds per line, and how many
  times over that is what the model needs to read the lines once at the endpoint's measured pace.

Before the journal, a two-line "first day" is gardened in a project of its own sharing the state
folder: that pass measures the endpoint's speed and the model's threshold (kept a week), and its
seconds are shown apart (first-day-s). The journal's passes are then those of every later day.

Everything runs with its own HOME and gitgarden state (tests.benchmarks.__main__.isolated_env).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.benchmarks.__main__ import gitgarden_command, isolated_env

JOURNALS = Path(__file__).resolve().parent / "journals"


@dataclass
class Score:
    journal: str
    facts: int = 0
    on_subject: int = 0
    kept: int = 0
    chatter: int = 0
    promoted: int = 0
    persons: int = 0
    split_persons: list[str] = field(default_factory=list)
    off_subject: list[str] = field(default_factory=list)  # facts not on their subject's page: id, where, wanted
    corrections: int = 0
    surfaced: int = 0
    unasked: list[str] = field(default_factory=list)  # the changes no Open line quotes with their old line
    false_asks: list[str] = field(default_factory=list)  # "Which holds?" lines about two lines that change nothing
    decisions: int = 0
    decided: int = 0
    unread_reason: int = 0
    unread_silent: int = 0
    passes: int = 0
    failed: int = 0
    lines_read: int = 0
    prompt_tokens: int = 0
    reply_tokens: int = 0
    seconds: float = 0.0
    pages: int = 0
    titles: list[str] = field(default_factory=list)
    read_once: float = 0.0  # seconds the model needs to read the journal's lines once, at its measured pace
    measuring: float = 0.0  # seconds of a first day's pass against the endpoint: its speed and threshold measured, once


def fold(text: str) -> str:
    from gitgarden.wiki.subjects import fold as f

    return f(text)


def make_project(journal: Path, work: Path, env: dict[str, str]) -> Path:
    root = work / journal.name
    (root / "raw").mkdir(parents=True)
    shutil.copytree(journal / "raw" / "journal", root / "raw" / "journal")
    shutil.copy(journal / "AGENTS.md", root / "AGENTS.md")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "A week of notes"], cwd=root, check=True, env=env)
    subprocess.run([*gitgarden_command(), "init"], cwd=root, check=True, env=env, capture_output=True)
    return root


def read_pages(root: Path) -> dict[str, tuple[dict[str, Any], str]]:
    out = {}
    for path in sorted((root / "wiki").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        meta: dict[str, Any] = {}
        body = text
        m = re.match(r"^---\n(.*?)\n---\n(.*)$", text, re.S)
        if m:
            meta = yaml.safe_load(m.group(1)) or {}
            body = m.group(2)
        body = re.sub(r"\[\[([^\]|]*)\|([^\]]*)\]\]", r"\2", body)  # a linked mention reads as its words
        body = re.sub(r"\[\[([^\]|]*)\]\]", r"\1", body)
        out[path.relative_to(root / "wiki").as_posix()[:-3]] = (meta, body)
    return out


def labels(meta: dict[str, Any], name: str) -> set[str]:
    aliases = meta.get("aliases") or []
    aliases = [aliases] if isinstance(aliases, str) else aliases
    return {fold(str(x)) for x in (meta.get("title", name), name.rsplit("/", 1)[-1], *aliases) if str(x).strip()}


def about(page_labels: set[str], spellings: set[str]) -> bool:
    """True when a page's title or an alias is one of a subject's spellings, or holds one as whole
    words ("Quartz worktop" is about the worktop); a name said with its "The" is about the page titled
    without it ("Harbour Fryer" is "The Harbour Fryer")."""
    spellings = spellings | {s.removeprefix("the ") for s in spellings if s.startswith("the ") and len(s.split()) > 2}
    return any(label == s or f" {s} " in f" {label} " for label in page_labels for s in spellings)


def score(journal: Path, root: Path, runs: list[dict[str, Any]]) -> Score:
    key = tomllib.loads((journal / "key.toml").read_text(encoding="utf-8"))
    subjects = {s["name"]: {fold(x) for x in [s["name"], *s.get("spellings", [])]} for s in key.get("subject", [])}
    kinds = {s["name"]: s.get("kind", "") for s in key.get("subject", [])}
    found = read_pages(root)
    map_text = (root / "wiki" / "index.md").read_text(encoding="utf-8") if (root / "wiki" / "index.md").exists() else ""
    open_part = map_text.split("## Open", 1)[1] if "## Open" in map_text else ""
    s = Score(journal.name)
    s.pages = sum(1 for name in found if name != "index")
    s.titles = sorted(str(meta.get("title", name)) for name, (meta, _b) in found.items() if name != "index")

    def where(text: str) -> list[str]:
        return [name for name, (_m, body) in found.items() if name != "index" and text in body]

    for line in key["line"]:
        text = line["text"]
        if line["kind"] == "chatter":
            s.chatter += 1
            s.promoted += bool(where(text) or text in map_text)
            continue
        if line["kind"] in ("fact", "decision"):
            s.facts += 1
            homes = where(text)
            s.kept += bool(homes)
            wanted = set().union(*(subjects.get(n, {fold(n)}) for n in line.get("subjects", []))) if line.get("subjects") else set()
            hit = any(about(labels(found[h][0], h), wanted) for h in homes)
            s.on_subject += hit
            if not hit:
                s.off_subject.append(f"{line['id']} on {', '.join(homes) or 'no page'} (wanted {', '.join(line.get('subjects', []))})")
            if line.get("decides"):
                s.decisions += 1
                s.decided += any(found[h][0].get("state") == "decided" for h in homes)
        if line.get("corrects"):
            s.corrections += 1
            old = next(x["text"] for x in key["line"] if x["id"] == line["corrects"])
            asked = any(old in ol and text in ol for ol in open_part.splitlines())
            s.surfaced += asked
            if not asked:
                s.unasked.append(f"{line['id']} “{text}” changes “{old}”")
    by_text = {x["text"]: x for x in key["line"]}
    for ol in open_part.splitlines():
        pair = re.match(r"- Which holds\? “(.*?)” \(\S+?\) or “(.*?)” \(", ol)
        if pair:
            old_line, new_line = by_text.get(pair.group(1)), by_text.get(pair.group(2))
            if not old_line or not new_line or new_line.get("corrects") != old_line["id"]:
                s.false_asks.append(f"“{pair.group(2)}” asked against “{pair.group(1)}”")
    for name, spellings in subjects.items():
        if kinds.get(name) != "person":
            continue
        s.persons += 1
        answering = [p for p, (meta, _b) in found.items() if p != "index" and labels(meta, p) & spellings]
        if len(answering) > 1:
            s.split_persons.append(f"{name}: {', '.join(answering)}")
    last = runs[-1] if runs else {}
    offered = {i for r in runs for i in r.get("offered", [])}
    waiting = {u.get("line") for u in last.get("unread", [])} | {x.split(" ", 1)[0] for x in last.get("set_aside", [])}
    for line in key["line"]:
        if line["id"] in waiting:
            s.unread_reason += 1  # left unread by the last pass, with its reason in the record
        elif line["id"] not in offered:
            s.unread_silent += 1  # never offered: nothing says why
    for r in runs:
        s.passes += 1
        s.failed += r.get("outcome") == "failed"
        s.lines_read += len(r.get("offered", []))
        s.prompt_tokens += int(r.get("prompt_tokens") or 0)
        s.reply_tokens += int(r.get("completion_tokens") or 0)
    return s


def garden(journal: Path, work: Path, args: argparse.Namespace) -> Score:
    env = isolated_env(work)
    env.update(GITGARDEN_MODEL=args.model, GITGARDEN_API_BASE=args.api_base, GITGARDEN_STATE=str(work / "state"))
    if args.mode:
        env["GITGARDEN_MODE"] = args.mode
    result_measuring = first_day(work, env)
    root = make_project(journal, work, env)
    runs = []
    started = time.monotonic()
    for _ in range(args.passes):
        proc = subprocess.run([*gitgarden_command(), "run", "--json"], cwd=root, env=env, capture_output=True, text=True)
        try:
            record = json.loads(proc.stdout)
        except ValueError:
            record = {"outcome": "failed", "detail": proc.stderr[-500:]}
        runs.append(record)
        print(f"  {journal.name} pass {len(runs)}: {record.get('outcome')} {record.get('detail', '')[:100]}", flush=True)
        if record.get("outcome") == "nothing_new" or (len(runs) > 1 and not record.get("marked_read")):
            runs.pop()  # a pass that read nothing more is not one a person needed
            break
        if not record.get("unread"):
            break
    result = score(journal, root, runs)
    result.seconds = time.monotonic() - started
    speeds = json.loads((work / "state" / "speed.json").read_text()) if (work / "state" / "speed.json").is_file() else {}
    pace = next((float(v["prompt_tps"]) for v in speeds.values() if isinstance(v, dict) and v.get("prompt_tps")), 0.0)
    line_tokens = sum(len(day.read_text(encoding="utf-8")) for day in (journal / "raw" / "journal").glob("*.md")) / 4
    result.read_once = line_tokens / pace if pace else 0.0
    result.measuring = result_measuring
    return result


FIRST_DAY = "Signed the lease for the unit on Dock Street, 1,250 EUR a month from 1 May.\nSlept badly, too warm.\n"


def first_day(work: Path, env: dict[str, str]) -> float:
    """Seconds of the pass a person's first day takes: a two-line journal, in a project of its own
    sharing the state folder, so the endpoint's speed and this model's threshold are measured there,
    once (kept a week), and the journal's passes are the ones every later day takes."""
    root = work / "first-day"
    (root / "raw" / "journal").mkdir(parents=True)
    (root / "raw" / "journal" / "2026-01-05.md").write_text(FIRST_DAY, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "A first day"], cwd=root, check=True, env=env)
    subprocess.run([*gitgarden_command(), "init"], cwd=root, check=True, env=env, capture_output=True)
    started = time.monotonic()
    subprocess.run([*gitgarden_command(), "run", "--json"], cwd=root, env=env, capture_output=True, text=True)
    return time.monotonic() - started


def table(scores: list[Score]) -> str:
    head = "journal            facts on-subject kept  chatter-promoted  persons-split  corrections  decided  unread(reason/silent)  passes(failed)  tok/line(prompt+reply)  s/line  x-read-once  first-day-s  pages  false-asks"
    rows = [head]
    for s in scores:
        per = max(1, s.lines_read)
        rows.append(
            f"{s.journal:18} {s.facts:5} {s.on_subject:4} ({s.on_subject / max(1, s.facts):4.0%}) {s.kept:4}"
            f"  {s.promoted:3}/{s.chatter:<3}           {len(s.split_persons)}/{s.persons:<3}          {s.surfaced}/{s.corrections:<3}"
            f"        {s.decided}/{s.decisions:<3}    {s.unread_reason:3}/{s.unread_silent:<3}               {s.passes}({s.failed})"
            f"            {s.prompt_tokens / per:6.0f}+{s.reply_tokens / per:<4.1f}          {s.seconds / per:5.1f}  {s.seconds / s.read_once if s.read_once else 0:9.1f}  {s.measuring:11.0f}  {s.pages:5}  {len(s.false_asks)}"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api-base", required=True)
    parser.add_argument("--model", default="openai/local")
    parser.add_argument("--mode", default="")
    parser.add_argument("--journals", default="dev-kitchen,dev-garden-club,dev-freelance")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--keep", help="garden here and keep the projects")
    args = parser.parse_args(argv)
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gitgarden-garden-"))
    work.mkdir(parents=True, exist_ok=True)
    scores = []
    for name in args.journals.split(","):
        print(f"gardening {name} with {args.model} at {args.api_base}", flush=True)
        scores.append(garden(JOURNALS / name, work / name, args))
        print(table(scores[-1:]), flush=True)
        for s in scores[-1].split_persons:
            print(f"    split: {s}")
        for s in scores[-1].off_subject:
            print(f"    off subject: {s}")
        print(f"    titles: {', '.join(scores[-1].titles)}", flush=True)
    print()
    print(table(scores))
    if args.json_path:
        Path(args.json_path).write_text(json.dumps([asdict(s) for s in scores], indent=1))
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
