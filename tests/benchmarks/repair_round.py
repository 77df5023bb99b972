"""How many refusals one repair round turns into landed operations, on sample-project/: a script, not a test.

    python3 tests/benchmarks/repair_round.py

A pass runs on a copy of sample-project/ (real git, every journal line unread)
with a scripted model. Its first reply holds one operation per faithful
paraphrase of the grounding calibration (tests/benchmarks/grounding_calibration.py),
and one skip of every other line; a share of those operations carry a second
sentence the cited line does not say (an uncited fact, or an invention), so
rule 11 refuses them whole. The repair round's answer is computed from the
follow-up message alone, as a model that does what it is told would: for each
refused operation the message shows, drop the sentences quoted as offending
text; send what is left, or skip the lines when nothing is. The figures say
whether the message carries what a correction needs, and what the round buys:
refusals in round 1, how many of them land in round 2, how many lines are read.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gitgarden.config import Settings  # noqa: E402
from gitgarden.gardener.pipeline import run_pass  # noqa: E402
from gitgarden.model.llm import Reply, Usage  # noqa: E402
from gitgarden.project import Project  # noqa: E402
from gitgarden.wiki import journal  # noqa: E402
from tests.benchmarks.grounding_calibration import FAITHFUL, INVENTED, UNCITED_FACT  # noqa: E402

SAMPLE = ROOT / "sample-project"
PAGES = {
    "Marta Okafor": "marta-okafor",
    "Lease at Lindenstrasse 14": "lease",
    "Dana Reyes": "dana-reyes",
    "Kessler Mill": "kessler-mill",
    "Deck oven": "oven",
    "Suppliers": "suppliers",
}
_REFUSED = re.compile(r"^Refused operation \d+: (\{.*\})$")
_OFFENDING = re.compile(r'^\s+offending text: (".*")$')


class Corrector:
    """A scripted model: the first reply as given; every later one built from the follow-up message."""

    name = "fake/corrector"

    def __init__(self, first: dict[str, Any]) -> None:
        self.first = first
        self.calls = 0
        self.tokens: list[int] = []  # per call
        self.skips: list[int] = []  # per repair answer: refused operations answered with a skip

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: Any) -> Reply:
        self.calls += 1
        reply = self.first if self.calls == 1 else correct(messages[-1]["content"])
        if self.calls > 1:
            self.skips.append(sum(op["op"] == "skip" for op in reply["operations"]))
        text = json.dumps(reply)
        usage = Usage(sum(len(m["content"]) for m in messages) // 4, len(text) // 4)
        self.tokens.append(usage.total_tokens)
        budget.charge(usage)
        return Reply(text=text, usage=usage, model=self.name)


def correct(message: str) -> dict[str, Any]:
    """Corrections from a repair message: each refused operation without its offending sentences."""
    out: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    offending: list[str] = []

    def flush() -> None:
        if current is None:
            return
        field = "text" if current["op"] == "append" else "body"
        kept = [s for s in re.split(r"(?<=[.!?])\s+", current.get(field, "").strip()) if s and s not in offending]
        if kept and offending:
            out.append({**current, field: " ".join(kept) + "\n"})
        else:
            out.append({"op": "skip", "lines": current["lines"]})

    for line in message.splitlines():
        m = _REFUSED.match(line)
        if m:
            flush()
            current, offending = json.loads(m.group(1)), []
            continue
        o = _OFFENDING.match(line)
        if o:
            offending.append(json.loads(o.group(1)))
    flush()
    return {"operations": out}


def first_reply(every: int) -> tuple[dict[str, Any], int]:
    """One operation per faithful case; every `every`-th carries an extra sentence no cited line says."""
    extras = [s for _, _, s in UNCITED_FACT] + [s for _, _, s in INVENTED]
    ops: list[dict[str, Any]] = []
    cited: set[str] = set()
    pages = dict(PAGES)
    spoiled = 0
    for i, (ids, title, sentence) in enumerate(FAITHFUL):
        text = sentence
        if i % every == 0:
            text += " " + extras[spoiled % len(extras)]
            spoiled += 1
        page = pages.get(title)
        if page is None:
            slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
            ops.append({"op": "create_page", "page": slug, "title": title, "body": text + "\n", "lines": ids})
            pages[title] = slug
        else:
            ops.append({"op": "append", "page": page, "text": text + "\n", "lines": ids})
        cited.update(ids)
    rest = [ln.id for ln in journal.all_lines(SAMPLE / "raw" / "journal") if ln.id not in cited]
    ops.append({"op": "skip", "lines": rest})
    return {"operations": ops}, spoiled


def project_copy(workdir: Path) -> Project:
    root = workdir / "sample"
    shutil.copytree(SAMPLE, root)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(workdir / "gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"}
    (workdir / "gitconfig").write_text("[user]\n\tname = Sample\n\temail = sample@example.com\n[init]\n\tdefaultBranch = main\n")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "sample project"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)
    os.environ.update(GIT_CONFIG_GLOBAL=env["GIT_CONFIG_GLOBAL"], GIT_CONFIG_NOSYSTEM="1")
    return Project(root)


def run(every: int, rounds: int) -> dict[str, Any]:
    from datetime import UTC, datetime

    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        os.environ.update(GITGARDEN_CONFIG=str(workdir / "user.toml"), GITGARDEN_STATE=str(workdir / "state"))
        project = project_copy(workdir)
        reply, spoiled = first_reply(every)
        settings = Settings(model="fake/corrector", context_window=200_000, token_budget=1_000_000, repair_rounds=rounds)
        model = Corrector(reply)
        result = run_pass(project, settings, model=model, now=lambda: datetime(2026, 11, 30, 9, tzinfo=UTC))  # type: ignore[arg-type]
        return {
            "ops": len(reply["operations"]) - 1,
            "spoiled": spoiled,
            "rounds": result.rounds,
            "outcome": result.outcome,
            "read": result.marked_read,
            "offered": len(result.offered),
            "calls": model.calls,
            "tokens": model.tokens,
            "skips": model.skips,
            "grounding_refused": sum(" rule 11 " in r and not r.startswith("round") for r in result.refusals),
        }


def main() -> None:
    print("sample-project/ (75 unread lines), one operation per faithful paraphrase (30); a share carry an")
    print("extra sentence no cited line says. Round 2 answers only from the repair message. Refusals that are")
    print("not rule 11 are the decided lease page (rule 10): the corrector skips those lines.")
    head = f"{'spoiled':>7} {'rounds':>6} | {'round 1':^22} | {'round 2':^26} | {'read':>6} | {'tokens 1 / 2':>13} | outcome"
    print(head)
    print("-" * len(head))
    for every in (2, 3, 5):
        for rounds in (0, 1):
            r = run(every, rounds)
            one = r["rounds"][0]
            first = f"{one['landed']:>2} landed {one['refused']:>2} refused"
            second = f"{'':>26}"
            if len(r["rounds"]) > 1:
                two = r["rounds"][1]
                second = f"{two['landed']:>2} landed {two['refused']:>2} ref. {r['skips'][0]:>2} skip"
            tokens = " / ".join(f"{t:,}" for t in r["tokens"])
            print(
                f"{r['spoiled']:>3}/{r['ops']:<3} {rounds:>6} | {first:^22} | {second:^26} | {r['read']:>2}/{r['offered']:<3} | "
                f"{tokens:>13} | {r['outcome']}"
            )
            if rounds == 1 and len(r["rounds"]) > 1:
                print(
                    f"{'':>14} round 1 refused {one['refused']} ({r['grounding_refused']} by rule 11); "
                    f"the repair round landed {r['rounds'][1]['landed']} of them"
                )


if __name__ == "__main__":
    main()
