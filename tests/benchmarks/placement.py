"""Where code puts each line when the reader is perfect (issue 33). Prints figures; asserts nothing.

    python -m tests.benchmarks.placement [--journals held8-school-trip,held8-amateur-film] [--lines]

Small mode splits the work: the model says whether a line is worth keeping, code says where it goes
(its subject's page, a change beside the value it changes, a decided page). `garden.py` measures both
together with a real model, minutes a journal; this measures code's half alone, in seconds: each
labelled journal is gardened in one pass with a scripted reader that answers every line by its key
(a fact, decision or question "yes" with P(yes) 0.95, chatter "no" with 0.05), and the garden is
scored as `garden.py` scores it. What it still misses is code's (subjects, titles, changes,
decisions), not the model's. `--lines` prints each line it put off its subject's page, each change
no Open line quotes with the line it changes, each Open "Which holds?" line about two lines the key
gives as no change (a false ask), and any decision line whose page is not decided.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from gitgarden.config import Settings
from gitgarden.gardener.pipeline import run_pass
from gitgarden.model.llm import Reply, Usage
from gitgarden.project import find_project
from tests.benchmarks.garden import JOURNALS, read_pages, score


class KeyReader:
    """A scripted small-mode reader: answers each line as its journal's key labels it."""

    name = "fake/scripted"

    def __init__(self, key: dict[str, Any]) -> None:
        self.lines = sorted(key["line"], key=lambda line: -len(line["text"]))  # the longest text first

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: Any) -> Reply:
        asked = messages[-1]["content"]
        kind = next((line["kind"] for line in self.lines if line["text"] in asked), "fact")
        p = 0.05 if kind == "chatter" else 0.95
        usage = Usage(prompt_tokens=10, completion_tokens=1)
        budget.charge(usage)
        return Reply("yes" if p >= 0.5 else "no", usage, alternatives={"yes": p, "no": 1 - p})


def garden_one(journal: Path, work: Path) -> tuple[Any, Path, dict[str, Any]]:
    key = tomllib.loads((journal / "key.toml").read_text(encoding="utf-8"))
    root = work / journal.name
    (root / "raw").mkdir(parents=True)
    shutil.copytree(journal / "raw" / "journal", root / "raw" / "journal")
    shutil.copy(journal / "AGENTS.md", root / "AGENTS.md")
    ident = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid"]
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", *ident, "commit", "-qm", "A week of notes"]):
        subprocess.run(cmd, cwd=root, check=True)
    subprocess.run([sys.executable, "-m", "gitgarden", "init"], cwd=root, check=True, capture_output=True)
    last = max(p.stem for p in (root / "raw" / "journal").glob("*.md"))
    now = datetime.fromisoformat(last).replace(tzinfo=UTC) + timedelta(days=1, hours=9)  # the morning after the week
    run_pass(find_project(root), Settings(model="fake/scripted", mode="small"), model=KeyReader(key), now=lambda: now)  # type: ignore[arg-type]
    return score(journal, root, []), root, key


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--journals", default="", help="comma-separated journal names (default: every labelled week)")
    parser.add_argument("--lines", action="store_true", help="print each line off its subject's page")
    args = parser.parse_args(argv)
    names = [n for n in args.journals.split(",") if n] or sorted(
        p.name for p in JOURNALS.iterdir() if (p / "key.toml").is_file() and not p.name.startswith("long")
    )
    on = facts = kept = false = 0
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'journal':28} {'on subject':>12} {'kept':>5} {'changes':>8} {'decided':>8} {'false asks':>11}")
        for name in names:
            s, root, key = garden_one(JOURNALS / name, Path(tmp))
            on, facts, kept = on + s.on_subject, facts + s.facts, kept + s.kept
            print(f"{name:28} {s.on_subject:>5}/{s.facts:<3} {s.on_subject / max(s.facts, 1):4.0%} {s.kept:>5} {s.surfaced:>4}/{s.corrections:<3} {s.decided:>4}/{s.decisions:<3} {len(s.false_asks):>11}")
            false += len(s.false_asks)
            if args.lines:
                for miss in s.off_subject:
                    print(f"    off subject: {miss}")
                for miss in s.unasked:
                    print(f"    change not asked: {miss}")
                for miss in s.false_asks:
                    print(f"    false ask: {miss}")
                found = read_pages(root)
                for line in key["line"]:
                    homes = [h for h, (_m, body) in found.items() if h != "index" and line["text"] in body]
                    if line.get("decides") and not any(found[h][0].get("state") == "decided" for h in homes):
                        print(f"    not decided: {line['text']} -> {', '.join(homes) or 'no page'}")
    print(f"{'all':28} {on:>5}/{facts:<3} {on / max(facts, 1):4.0%} {kept:>5} {'':>8} {'':>8} {false:>11}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
