"""Vaults of 50 to 50,000 pages: the hook, health, status and init, each against the git command
that walks the same files (the `scale` section of `python -m tests.benchmarks`; issue 29).

Every command runs as a person runs it (a fresh `gitgarden` process, start-up included), in the
same round as `git status` on the same repository, the sizes interleaved; every "compared"
figure is a ratio of medians measured in one run.

- hook: `gitgarden guard --staged` (what the pre-commit hook runs) on a one-line append, with a
  link, to one page, staged. Its first run at each size (no warm-up) is shown apart.
- health: `gitgarden health --json`, its wiki graph in step (warm); once with the graph removed
  (cold: the graph built, every page read).
- status: `gitgarden status --json`.
- init: `gitgarden init --no-register` in a copy of the project's wiki and journal without git,
  against `git init && git add -A && git commit` in another copy.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.benchmarks.generate import Generated, restore

__all__ = ["bench_scale", "HOOK_MAX", "HEALTH_MAX", "INIT_MAX"]

HOOK_MAX = 1.5  # the hook at any size ≤ 1.5× at the smallest
HEALTH_MAX = 2.0  # health (warm) at the largest size ≤ 2× at 5,000 pages
INIT_MAX = 2.0  # init ≤ 2× `git add -A && git commit` of the same files
HOOK_COLD_MAX = 2.0  # the hook's first run ≤ 2× its warm runs
LARGE_VAULT = 5000  # pages from which init's target applies


def _run(cmd: Sequence[str], env: dict[str, str], cwd: Path, ok: tuple[int, ...] = (0,)) -> float:
    started = time.perf_counter()
    proc = subprocess.run(list(cmd), cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if proc.returncode not in ok:
        raise RuntimeError(f"{' '.join(cmd)} in {cwd} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return seconds


def _stage_one_line(gen: Generated, env: dict[str, str]) -> None:
    """An agent's one-line append, with a link to another page, to one page, staged."""
    middle = len(gen.titles) // 2
    for name, _title in gen.titles[middle:] + gen.titles[:middle]:  # an open page: a decided one takes no lines
        page = gen.root / "wiki" / f"{name}.md"
        if "\nstate: open\n" in page.read_text(encoding="utf-8"):
            break
    other = gen.titles[1][0]
    with open(page, "a", encoding="utf-8") as fh:
        fh.write(f"\nDana asked again about [[{other}]].\n")
    subprocess.run(["git", "-C", str(gen.root), "add", "--", f"wiki/{name}.md"], env=env, check=True)


def _graphs(gen: Generated) -> list[Path]:
    return list((gen.root / ".git" / "gitgarden").glob("wiki-*.sqlite*"))


def _vault_copy(gen: Generated, dest: Path) -> None:
    """The project's wiki, journal and AGENTS.md as a folder of notes without git."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for part in ("wiki", "raw/journal"):
        shutil.copytree(gen.root / part, dest / part)
    shutil.copy2(gen.root / "AGENTS.md", dest / "AGENTS.md")


def bench_scale(
    report: Any,
    env: dict[str, str],
    gens: dict[int, Generated],
    runs: int,
    work: Path,
    gitgarden: list[str],
    worker: Any,
    init_runs: int,
) -> None:
    """Add the scale section's rows to `report` (see the module's docstring)."""
    from tests.benchmarks.__main__ import fmt_n, fmt_s, median, say, verdict

    sizes = sorted(gens)
    small, large = sizes[0], sizes[-1]
    mid = 5000 if 5000 in gens else sizes[len(sizes) // 2]
    times: dict[str, dict[int, list[float]]] = {k: {n: [] for n in sizes} for k in ("git", "hook", "health", "status")}
    first_hook: dict[int, float] = {}
    cold: dict[int, float] = {}
    for n in sizes:  # the graph built once (cold), unmeasured runs done before the rounds
        gen = gens[n]
        restore(gen)
        for path in _graphs(gen):
            path.unlink()
        say(f"  health, graph built at {fmt_n(n)} pages …")
        cold[n] = _run([*gitgarden, "health", "--json"], env, gen.root)
    for r in range(runs):
        say(f"  scale round {r + 1}/{runs}")
        for n in sizes:
            gen = gens[n]
            restore(gen)
            worker(["sync", str(gen.root)], env)  # the graph in step, as between passes
            _stage_one_line(gen, env)
            times["git"][n].append(_run(["git", "status", "--porcelain"], env, gen.root))
            hook = _run([*gitgarden, "guard", "--staged"], env, gen.root)
            if r == 0:
                first_hook[n] = hook
            else:
                times["hook"][n].append(hook)
            times["health"][n].append(_run([*gitgarden, "health", "--json"], env, gen.root))
            times["status"][n].append(_run([*gitgarden, "status", "--json"], env, gen.root, ok=(0, 1)))
    init: dict[int, list[float]] = {n: [] for n in sizes}
    bare: dict[int, list[float]] = {n: [] for n in sizes}
    for r in range(init_runs):
        say(f"  init round {r + 1}/{init_runs}")
        for n in sizes:
            a, b = work / "init-a", work / "init-b"
            _vault_copy(gens[n], a)
            _vault_copy(gens[n], b)
            started = time.perf_counter()
            for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "my notes"]):
                _run(["git", *cmd], env, b)
            bare[n].append(time.perf_counter() - started)
            init[n].append(_run([*gitgarden, "init", "--no-register"], env, a))
            shutil.rmtree(a)
            shutil.rmtree(b)
    report.raw["scale"] = {**times, "first_hook": first_hook, "health_cold": cold, "init": init, "bare_init": bare}

    m = {k: {n: median(v[n]) for n in sizes} for k, v in times.items()}
    for n in sizes:
        report.add("scale", f"git status, {fmt_n(n)} pages", fmt_s(m["git"][n]), "the walk the rows below are compared with")
    for n in sizes:
        ratio = m["hook"][n] / m["hook"][small]
        report.add(
            "scale",
            f"hook (guard --staged), one-line append, {fmt_n(n)} pages",
            fmt_s(m["hook"][n]),
            f"{ratio:.2f}× {fmt_n(small)} pages; {m['hook'][n] / m['git'][n]:.1f}× git status",
            f"≤ {HOOK_MAX:g}× {fmt_n(small)} pages" if n != small else "",
            verdict(ratio <= HOOK_MAX) if n != small else "",
        )
    for n in sizes:
        ratio = first_hook[n] / m["hook"][n]
        report.add(
            "scale",
            f"hook, first run (no warm-up), {fmt_n(n)} pages",
            fmt_s(first_hook[n]),
            f"{ratio:.2f}× its warm median",
            f"≤ {HOOK_COLD_MAX:g}× warm",
            verdict(ratio <= HOOK_COLD_MAX),
        )
    for n in sizes:
        ratio = m["health"][n] / m["health"][mid]
        is_target = n == large and large > mid
        report.add(
            "scale",
            f"health, graph warm, {fmt_n(n)} pages",
            fmt_s(m["health"][n]),
            f"{ratio:.2f}× {fmt_n(mid)} pages; {m['health'][n] / m['git'][n]:.1f}× git status",
            f"≤ {HEALTH_MAX:g}× {fmt_n(mid)} pages" if is_target else "",
            verdict(ratio <= HEALTH_MAX) if is_target else "",
        )
    for n in sizes:
        report.add("scale", f"health, graph built (cold), {fmt_n(n)} pages", fmt_s(cold[n]), f"{cold[n] / m['health'][n]:.1f}× warm; once")
    for n in sizes:
        report.add(
            "scale",
            f"status, {fmt_n(n)} pages",
            fmt_s(m["status"][n]),
            f"{m['status'][n] / m['status'][small]:.2f}× {fmt_n(small)} pages; {m['status'][n] / m['git'][n]:.1f}× git status",
        )
    for n in sizes:
        ratio = median(init[n]) / median(bare[n])
        is_target = n >= LARGE_VAULT  # a small folder's init is Python's start-up, not the commit
        report.add(
            "scale",
            f"init, {fmt_n(n)} pages (no git yet)",
            fmt_s(median(init[n])),
            f"{ratio:.2f}× git init + add -A + commit ({fmt_s(median(bare[n]))})",
            f"≤ {INIT_MAX:g}× git" if is_target else "",
            verdict(ratio <= INIT_MAX) if is_target else "",
        )
