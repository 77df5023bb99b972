"""One measured job in a fresh interpreter, so no cache of an earlier run helps the next.

    python -m tests.benchmarks.worker pass ROOT [--context-window N] [--model-free] [--profile FILE]
    python -m tests.benchmarks.worker tick [--profile FILE]
    python -m tests.benchmarks.worker guard ROOT --touch K [--profile FILE]
    python -m tests.benchmarks.worker guard-page [--chars N]
    python -m tests.benchmarks.worker sync ROOT

Prints one JSON object on stdout (with `maxrss_kb`, the process's peak resident
memory). The runner (`python -m tests.benchmarks`) calls it; it is also the
handy way to profile one pass by hand. `--model-free` runs the jobs that never
call a model (all but `promote`: merge notes, split, hubs, link, map, health).
It imports gitgarden only, so `python tests/benchmarks/worker.py ...` with
`PYTHONPATH=<a checkout>` times that checkout's code (tests/benchmarks/versus.py).
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import functools
import json
import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

NOW = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)
_LINE = re.compile(r"^\[(\d{4}-\d{2}-\d{2}#\d+)\] (.*?)(?:  \(similar pages: [^)]*\))?$", re.M)
CREATE = 3  # pages the instant model creates a pass; it skips every other line


def _measured(fn: Callable[[], T], profile: str | None) -> tuple[T, float, float]:
    """(fn's result, wall seconds, CPU seconds); with `profile`, a cProfile of the call goes there."""
    prof = cProfile.Profile() if profile else None
    cpu = _cpu()
    started = time.perf_counter()
    if prof:
        prof.enable()
    value = fn()
    if prof:
        prof.disable()
    seconds = time.perf_counter() - started
    cpu = _cpu() - cpu
    if prof and profile:
        prof.dump_stats(profile)
    return value, seconds, cpu


def _cpu() -> float:
    """CPU seconds of this process and the processes it waited for (git): steadier than wall time
    on a loaded machine."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class InstantModel:
    """Answers at once: a page for each of the first few unread lines in the prompt, skip the rest."""

    name = "bench/instant"

    def __init__(self) -> None:
        self.prompts: list[list[dict[str, str]]] = []

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: Any) -> Any:
        from gitgarden.model.llm import Reply, Usage

        self.prompts.append(messages)
        lines = _LINE.findall(messages[-1]["content"])
        ops: list[dict[str, Any]] = []
        for n, (line_id, text) in enumerate(lines[:CREATE], start=1):
            ops.append(
                {
                    "op": "create_page",
                    "page": f"bench-note-{n}",
                    "title": " ".join(text.split()[:3]),  # grounded: a title comes from its line too
                    "body": text + "\n",
                    "lines": [line_id],
                }
            )
        rest = [line_id for line_id, _ in lines[CREATE:]]
        if rest:
            ops.append({"op": "skip", "lines": rest})
        text = json.dumps({"operations": ops})
        usage = Usage(
            prompt_tokens=sum(len(m["content"]) for m in messages) // 4,
            completion_tokens=len(text) // 4,
        )
        budget.charge(usage)
        return Reply(text=text, usage=usage, finish_reason="stop", model=self.name)


class GitCounter:
    """Counts `git` processes: those gitrepo starts (its `run_bounded`, a Popen with a timeout;
    `_run` in older code) and those started through subprocess.run."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.seconds = 0.0  # wall time spent waiting for them
        self._real = subprocess.run
        self._real_gitrepo: Any = None
        self._name = ""

    def _counted(self, real: Callable[..., Any]) -> Callable[..., Any]:
        def run(args: Any, *a: Any, **kw: Any) -> Any:
            if isinstance(args, list | tuple) and args and Path(str(args[0])).name == "git":
                rest = [str(x) for x in args[1:]]
                while rest[:1] == ["-C"] or rest[:1] == ["-c"]:
                    rest = rest[2:]
                self.calls.append(rest[0] if rest else "")
                started = time.perf_counter()
                try:
                    return real(args, *a, **kw)
                finally:
                    self.seconds += time.perf_counter() - started
            return real(args, *a, **kw)

        return run

    def __enter__(self) -> GitCounter:
        from gitgarden.repo import gitrepo

        subprocess.run = self._counted(self._real)
        self._name = next((n for n in ("run_bounded", "_run") if hasattr(gitrepo, n)), "")
        if self._name:
            self._real_gitrepo = getattr(gitrepo, self._name)
            setattr(gitrepo, self._name, self._counted(self._real_gitrepo))
        return self

    def __exit__(self, *exc: object) -> None:
        from gitgarden.repo import gitrepo

        subprocess.run = self._real
        if self._real_gitrepo is not None:
            setattr(gitrepo, self._name, self._real_gitrepo)


def _pass(root: Path, context_window: int | None, profile: str | None, model_free: bool = False) -> dict[str, Any]:
    from gitgarden.config import Settings
    from gitgarden.gardener import context
    from gitgarden.gardener.outcome import JOBS
    from gitgarden.gardener.pipeline import run_pass
    from gitgarden.project import Project

    reports: list[Any] = []
    real_build = context.build_messages

    def build(inputs: Any, settings: Any) -> Any:
        messages, report = real_build(inputs, settings)
        reports.append((report, messages))
        return messages, report

    context.build_messages = build
    settings = Settings(model="bench/instant")
    if context_window:
        settings = dataclasses.replace(settings, context_window=context_window)
    model = None if model_free else InstantModel()
    jobs = [j for j in JOBS if j != "promote"] if model_free else None
    with GitCounter() as counter:
        result, seconds, cpu = _measured(
            lambda: run_pass(Project(root), settings, model=model, now=lambda: NOW, jobs=jobs), profile
        )
    report, messages = reports[-1] if reports else (None, [])
    return {
        "seconds": seconds,
        "cpu": cpu,
        "outcome": result.outcome,
        "created": result.created,
        "refusals": result.refusals[:5],
        "commit": result.commit,
        "git_calls": len(counter.calls),
        "git_seconds": counter.seconds,
        "git_commands": counter.calls,
        "prompt_estimate": report.prompt_tokens_estimate if report else None,
        "prompt_chars_over_4": sum(len(m["content"]) for m in messages) // 4 if messages else None,
        "pages_listed": report.pages_listed if report else None,
        "pages_with_bodies": len(report.pages_with_bodies) if report else None,
        "lines_offered": len(report.lines_offered) if report else None,
        "marked_read": result.marked_read,
    }


def _tick(profile: str | None) -> dict[str, Any]:
    """An in-process tick with the real clock: what `gitgarden tick` does after its imports."""
    from gitgarden.schedule import tick

    def run_one(_a: Any) -> Any:
        raise AssertionError("an idle tick found work")

    with GitCounter() as counter:
        report, seconds, cpu = _measured(
            lambda: tick.run_tick(dict(os.environ), lambda: datetime.now(UTC), run_one, on_message=lambda _m: None),
            profile,
        )
    return {
        "seconds": seconds,
        "cpu": cpu,
        "looked": report.looked,
        "reason": report.reason,
        "registered": report.registered,
        "nothing_to_do": report.nothing_to_do,
        "waiting": len(report.waiting),
        "skipped": len(report.skipped),
        "git_calls": len(counter.calls),
    }


def _guard(root: Path, touch: int, profile: str | None) -> dict[str, Any]:
    """The guard on a diff appending a linked sentence (and a source day) to `touch` pages of the
    project's wiki, as a pass hands it: a DiskTree base and an overlay of the changes."""
    from gitgarden.guard import rules as guard
    from gitgarden.store.disktree import DiskTree
    from gitgarden.wiki import journal
    from gitgarden.wiki import pages as wiki
    from gitgarden.wiki.tree import Overlay, file, text_of

    base = DiskTree(root, ["wiki", "raw/journal"], [journal.READ_PATH])
    pages = [
        p
        for p in base
        if wiki.page_name(p) and p != wiki.map_path() and not p.startswith("wiki/hub-")
    ]
    # Pages a pass may append to: not decided (rule 10), not done.
    open_pages = [
        p
        for p in pages
        if wiki.read_meta(text_of(base[p]) or "").get("state") in ("open", "hypothesis")
    ]
    step = max(1, len(open_pages) // max(1, touch))
    chosen = open_pages[::step][:touch]
    names = [wiki.page_name(p) for p in pages]
    day = NOW.strftime("%Y-%m-%d")
    changes = {}
    for k, path in enumerate(chosen):
        text = text_of(base[path]) or ""
        meta = wiki.read_meta(text)
        days = {*wiki.source_days(meta), day}
        text = wiki.patch_meta(text, {"source": wiki.render_source(days)})
        other = names[(k * 7919) % len(names)]
        changes[path] = file(
            wiki.append_body(text, f"Dana asked again about [[{other}]] and the {k} EUR quote.")
        )
    for p in base:  # a pass has read what it hands the guard; so has the `guard` command
        base[p]
    proposed = Overlay(base, changes)
    ctx = guard.PassContext(journal_lines=(), own_paths=frozenset({journal.READ_PATH}))
    verdicts, seconds, cpu = _measured(lambda: guard.check(base, proposed, ctx), profile)
    return {
        "seconds": seconds,
        "cpu": cpu,
        "touched": len(changes),
        "tree": len(pages),
        "verdicts": [str(v) for v in verdicts[:3]],
    }


def _guard_page(chars: int) -> dict[str, Any]:
    """The guard on one page of about `chars` characters (a line of links and code, then a blank
    line, over and over), changed two ways: a sentence appended (rule 9 says it is over budget)
    and a link typed into a line in its middle (rule 4 lines up every line to find it)."""
    from gitgarden.guard import rules as guard
    from gitgarden.wiki.tree import file

    line = "Line {} about [[dana|Dana]] and `code` here.\n\n"
    n = chars // len(line.format(50_000))
    head = "---\ntitle: Huge\nstate: open\nsource: [2026-11-28]\n---\n"
    body = "".join(line.format(i) for i in range(n))
    small = "---\ntitle: {}\nstate: open\nsource: [2026-11-28]\n---\n{}.\n"
    base = {
        "raw/journal/2026-11-28.md": file("Dana runs ops.\n"),
        "wiki/index.md": file("# Map\n\n## Pages\n\n- [[acme]]\n- [[dana]]\n- [[huge]]\n\n## Open\n"),
        "wiki/acme.md": file(small.format("Acme", "Acme")),
        "wiki/dana.md": file(small.format("Dana", "Dana")),
        "wiki/huge.md": file(head + body),
    }
    edits = {
        "append": head + body + "Appended.\n",
        "link": head + body.replace(f"Line {n // 2} ", f"Line {n // 2} [[acme]] ", 1),
    }
    out: dict[str, Any] = {"chars": len(head + body)}
    for name, text in edits.items():
        proposed = {**base, "wiki/huge.md": file(text)}
        verdicts, seconds, cpu = _measured(functools.partial(guard.check, base, proposed, None), None)
        out[name] = {"seconds": seconds, "cpu": cpu, "rules": sorted({v.rule for v in verdicts})}
    return out
def _sync(root: Path) -> dict[str, Any]:
    """Bring the project's wiki graph in step with its work tree, as `gitgarden health` would: a
    restored project is then as a project is between two of its passes."""
    from gitgarden.project import Project
    from gitgarden.store import wikisync
    from gitgarden.store.disktree import DiskTree
    from gitgarden.wiki import layout

    project = Project(root)
    with layout.active(project.layout):
        _, seconds, cpu = _measured(
            lambda: wikisync.health(root, lambda: DiskTree(root, project.layout.wiki_folders())), None
        )
    return {"seconds": seconds, "cpu": cpu}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("job", choices=["pass", "tick", "guard", "guard-page", "sync"])
    parser.add_argument("root", type=Path, nargs="?")
    parser.add_argument("--context-window", type=int)
    parser.add_argument("--touch", type=int, default=10)
    parser.add_argument("--chars", type=int, default=5_000_000, help="guard-page: the page's size")
    parser.add_argument("--model-free", action="store_true", help="a pass without the promote job (no model)")
    parser.add_argument("--profile")
    args = parser.parse_args()
    if args.job == "pass":
        out = _pass(args.root, args.context_window, args.profile, args.model_free)
    elif args.job == "guard":
        out = _guard(args.root, args.touch, args.profile)
    elif args.job == "guard-page":
        out = _guard_page(args.chars)
    elif args.job == "sync":
        out = _sync(args.root)
    else:
        out = _tick(args.profile)
    import gitgarden

    out["gitgarden"] = gitgarden.__file__  # which checkout ran (PYTHONPATH)
    out["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
