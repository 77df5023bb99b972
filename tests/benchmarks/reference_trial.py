"""The reference trial: a labelled week of notes through passes of a real model, in small and full mode.

    python3 tests/benchmarks/reference_trial.py --model openai/local --api-base http://127.0.0.1:8080/v1
    python3 tests/benchmarks/reference_trial.py --mode small --passes 4 --json figures.json

The journal (`reference/journal/`, 24 lines: facts, decisions, a date that changed,
questions, chatter) was written for this trial; `reference/labels.json` labels every
line and names the words a page must hold for it to count as kept. For each mode the
script makes a fresh project (real git, its own HOME and state), runs passes until no
line is unread or `--passes` ran, and prints:

- facts kept: fact, decision and changed-fact lines whose words stand in some page (of 14);
- the changed date: both dates on a page, and an Open line about it;
- questions: question lines whose words reach the map's Open section or a page (of 2);
- chatter promoted: chatter lines whose words reached a page (of 8; lower is better);
- duplicates: fact lines found on two pages or more, and `health`'s duplicate candidates;
- lines skipped (read without a page), facts among them, and lines left unread;
- passes, tokens, seconds.

Nothing is asserted: the figures go to tests/benchmarks/README.md. The model is whatever
`--model`/`--api-base` (or GITGARDEN_MODEL / GITGARDEN_API_BASE) name.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gitgarden.config import Settings, load_settings  # noqa: E402
from gitgarden.project import Project, init_project  # noqa: E402

HERE = Path(__file__).resolve().parent / "reference"
FACTS = ("fact", "decision", "changed")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def _project(where: Path) -> Project:
    project = Project(init_project(where).root)
    shutil.copytree(HERE / "journal", project.journal, dirs_exist_ok=True)
    _git(project.root, "add", "-A")
    _git(project.root, "-c", "user.name=Pat", "-c", "user.email=pat@example.com", "commit", "-qm", "A week of notes")
    return project


def _pages(root: Path) -> dict[str, str]:
    from gitgarden.wiki import pages

    out = {}
    for path in sorted((root / "wiki").rglob("*.md")):
        rel = path.relative_to(root).as_posix()
        if rel != pages.map_path():
            out[rel] = pages.split_frontmatter(path.read_text(encoding="utf-8"))[1].casefold()
    return out


def _holds(text: str, words: list[str]) -> bool:
    return all(w.casefold() in text for w in words)


def score(root: Path, labels: dict[str, Any], results: list[Any]) -> dict[str, Any]:
    """The trial's figures for the project at `root` after `results` (the passes' PassResults)."""
    from gitgarden.project import of_root_or_default
    from gitgarden.wiki import layout

    with layout.active(of_root_or_default(root)):
        return _score(root, labels, results)


def _score(root: Path, labels: dict[str, Any], results: list[Any]) -> dict[str, Any]:
    from gitgarden.store.disktree import DiskTree
    from gitgarden.wiki import pages
    from gitgarden.wiki.health import measure

    found = _pages(root)
    map_text = (root / pages.map_path()).read_text(encoding="utf-8") if (root / pages.map_path()).exists() else ""
    open_text = "\n".join(pages.open_lines(map_text)).casefold()
    lines = labels["lines"]
    kept = [i for i, lab in lines.items() if lab["label"] in FACTS and any(_holds(t, lab["keep"]) for t in found.values())]
    facts = [i for i, lab in lines.items() if lab["label"] in FACTS]
    questions = [i for i, lab in lines.items() if lab["label"] == "question"]
    asked = [i for i in questions if _holds(open_text, lines[i]["keep"]) or any(_holds(t, lines[i]["keep"]) for t in found.values())]
    chatter = [i for i, lab in lines.items() if lab["label"] == "chatter"]
    promoted = [i for i in chatter if any(_holds(t, lines[i]["keep"]) for t in found.values())]
    twice = [i for i in facts if sum(_holds(t, lines[i]["keep"]) for t in found.values()) > 1]
    changed = next(i for i, lab in lines.items() if lab["label"] == "changed")
    old = lines[changed]["was"]
    both = any(_holds(t, lines[changed]["keep"]) and _holds(t, lines[old]["keep"]) for t in found.values())
    open_about = "january" in open_text
    skipped = [s for r in results for s in r.skipped]
    skipped_facts = [s["line"] for s in skipped if lines.get(s["line"], {}).get("label") in FACTS]
    health = measure(DiskTree(root, ["wiki"]), unread_lines=0)
    unread = _unread(root)
    return {
        "facts_kept": f"{len(kept)}/{len(facts)}",
        "changed_date": ("both dates" if both else "one date or none") + (", Open line" if open_about else ", no Open line"),
        "questions": f"{len(asked)}/{len(questions)}",
        "chatter_promoted": f"{len(promoted)}/{len(chatter)}",
        "duplicates": f"{len(twice)} facts on 2+ pages, {len(health.duplicates)} candidates",
        "pages": len(found),
        "skipped": len(skipped),
        "skipped_facts": len(skipped_facts),
        "unread": unread,
        "refused": sum(len(r.refusals) for r in results),
        "passes": len(results),
        "tokens": sum(r.tokens for r in results),
        "outcomes": [r.outcome for r in results],
    }


def _unread(root: Path) -> int:
    from gitgarden.gardener.setaside import on_disk
    from gitgarden.project import of_root_or_default
    from gitgarden.wiki import layout

    with layout.active(of_root_or_default(root)):
        offerable, aside = on_disk(root)
    return len(offerable) + len(aside)


def trial(mode: str, settings: Settings, workdir: Path, passes: int, log: Any) -> dict[str, Any]:
    from gitgarden.gardener.pipeline import run_pass
    from gitgarden.model.provider import LiteLLMModel

    project = _project(workdir / f"bakery-{mode}")
    labels = json.loads((HERE / "labels.json").read_text())
    settings = replace(settings, mode=mode)
    results = []
    started = time.monotonic()
    for n in range(passes):
        model = LiteLLMModel(settings, os.environ)
        result = run_pass(project, settings, model=model, on_progress=lambda m: print(f"  {m}", file=log, flush=True))
        results.append(result)
        print(f"  pass {n + 1}: {result.outcome}: {len(result.offered)} offered, {result.marked_read} read, "
              f"{len(result.created)} created, {len(result.appended)} appended, {len(result.refusals)} refused, "
              f"{result.tokens:,} tokens — {result.detail[:160]}", file=log, flush=True)  # fmt: skip
        if result.outcome in ("nothing_new", "failed") or not _unread(project.root):
            break
    figures = score(project.root, labels, results)
    figures["seconds"] = round(time.monotonic() - started)
    figures["mode"] = mode
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=os.environ.get("GITGARDEN_MODEL", ""))
    parser.add_argument("--api-base", default=os.environ.get("GITGARDEN_API_BASE", ""))
    parser.add_argument("--mode", default="small,full", help="small, full or both (comma-separated)")
    parser.add_argument("--passes", type=int, default=4, help="passes at most per mode (default 4)")
    parser.add_argument("--timeout", type=int, default=0, help="seconds a request may take (default: the settings')")
    parser.add_argument("--max-output-tokens", type=int, default=0)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    if not args.model:
        parser.error("name a model: --model (or GITGARDEN_MODEL)")
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gitgarden-trial-"))
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / ".gitconfig").write_text("[user]\n\tname = Pat\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n")
    os.environ.update(HOME=str(home), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"), GIT_CONFIG_NOSYSTEM="1",
                      GITGARDEN_CONFIG=str(home / "config.toml"), GITGARDEN_STATE=str(home / "state"),
                      LITELLM_LOCAL_MODEL_COST_MAP="True")  # fmt: skip
    over: dict[str, Any] = {"model": args.model, "api_base": args.api_base, "num_retries": 0, "temperature": 0.0}
    if args.timeout:
        over["timeout"] = args.timeout
    if args.max_output_tokens:
        over["max_output_tokens"] = args.max_output_tokens
    settings = replace(load_settings(None).settings, **over)
    rows = []
    for mode in [m.strip() for m in args.mode.split(",") if m.strip()]:
        print(f"{mode} mode, {args.model} at {args.api_base or 'its default endpoint'}:", file=sys.stderr, flush=True)
        rows.append(trial(mode, settings, work, args.passes, sys.stderr))
    keys = ["mode", "facts_kept", "changed_date", "questions", "chatter_promoted", "duplicates", "pages", "skipped",
            "skipped_facts", "unread", "refused", "passes", "tokens", "seconds"]  # fmt: skip
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row[k]) for k in keys) + " |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
