"""`python -m tests.benchmarks.versus OLD NEW`: the same passes and commands on two checkouts, as ratios.

    python -m tests.benchmarks.versus /work/wt/bench-old . [--rounds 5] [--sizes 1000,5000]

OLD and NEW are gitgarden checkouts (a release in a `git worktree`, and this
tree). Each measured job runs in a fresh interpreter with `PYTHONPATH=<that
checkout>`, so it times that checkout's code; both run this tree's worker
(tests/benchmarks/worker.py, which imports gitgarden only) on byte-identical
copies of the same generated projects. The runs are interleaved (old, new;
then new, old; ...) so a noisy machine slows both alike, and every row is a
ratio new/old of the minimums and of the medians.

Rows: a pass with the instant scripted model and a model-free pass (every
job but `promote`) at each size; `gitgarden status` in the 50-page project
(the whole command: start-up included); `gitgarden health` on the largest
project. Times are wall seconds (a pass: the pass alone, in-process; a
command: the whole process); cpu is the CPU seconds of the process and the
git processes it waited for, steadier than wall time on a shared machine.
Memory is the peak resident size (ru_maxrss) of the Python process that did
the work (git's processes not included).

The machinery (`Variant`, `compare`, `render`) is shared with
tests/benchmarks/layout_root.py, which compares two layouts on one checkout.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.benchmarks.__main__ import isolated_env, machine, say
from tests.benchmarks.generate import Generated, generate, restore

HERE = Path(__file__).resolve().parent
WORKER = HERE / "worker.py"
STATUS_PAGES = 50


@dataclass
class Variant:
    """One side of a comparison: a checkout of gitgarden and the projects it runs on."""

    label: str
    tree: Path  # goes first on PYTHONPATH
    env: dict[str, str]
    projects: dict[int, Generated] = field(default_factory=dict)  # by page count
    outcomes: set[str] = field(default_factory=set)  # the passes' outcomes, to check both did the same


@dataclass
class Sample:
    seconds: float
    maxrss_kb: int
    cpu: float  # CPU seconds of the process and the git processes it waited for: steadier than wall


@dataclass
class Measure:
    """A row: `run(variant)` does one measured run and returns its time and peak memory."""

    label: str
    run: Callable[[Variant], Sample]
    samples: dict[str, list[Sample]] = field(default_factory=dict)


def run_child(
    cmd: Sequence[str], env: dict[str, str], cwd: Path | None = None
) -> tuple[float, int, str, str, os.struct_rusage]:
    """(wall seconds, return code, stdout, stderr, resource usage) of one process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as errf:
        started = time.perf_counter()
        proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdout=out, stderr=errf)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        errf.seek(0)
        return seconds, proc.returncode, out.read().decode(), errf.read().decode(), usage


def side_env(base: dict[str, str], tree: Path) -> dict[str, str]:
    """`base` with `tree` alone on PYTHONPATH (the venv's editable install comes after it)."""
    return dict(base, PYTHONPATH=str(tree))


def worker_pass(size: int, *, model_free: bool) -> Callable[[Variant], Sample]:
    """One pass (in-process time, as the worker measures it) on the variant's `size`-page project."""

    def run(v: Variant) -> Sample:
        gen = v.projects[size]
        restore(gen)
        args = [sys.executable, str(WORKER), "pass", str(gen.root)]
        if model_free:
            args.append("--model-free")
        _, rc, out, err, _ = run_child(args, v.env)
        if rc != 0:
            raise RuntimeError(f"{v.label}: worker pass at {size} failed:\n{err[-3000:]}")
        data = json.loads(out.strip().splitlines()[-1])
        if not Path(data["gitgarden"]).is_relative_to(v.tree):
            raise RuntimeError(f"{v.label}: ran {data['gitgarden']}, not the code in {v.tree}")
        v.outcomes.add(f"{size}{' model-free' if model_free else ''}: {data['outcome']}")
        expected = "pages_written" if not model_free else None
        if expected and (data["outcome"] != expected or data["refusals"]):
            raise RuntimeError(f"{v.label}: the pass at {size} pages did not write its pages: {data}")
        return Sample(data["seconds"], data["maxrss_kb"], data["cpu"])

    return run


def cli(size: int, *args: str) -> Callable[[Variant], Sample]:
    """`python -m gitgarden ARGS` in the variant's `size`-page project: wall time, start-up included."""

    def run(v: Variant) -> Sample:
        gen = v.projects[size]
        seconds, rc, _out, err, usage = run_child([sys.executable, "-m", "gitgarden", *args], v.env, gen.root)
        if rc not in (0, 3):
            raise RuntimeError(f"{v.label}: gitgarden {' '.join(args)} failed ({rc}): {err[-2000:]}")
        # The child's rusage includes the git processes it waited for.
        return Sample(seconds, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)

    return run


def compare(variants: Sequence[Variant], measures: Sequence[Measure], rounds: int) -> None:
    """One unmeasured run of each measure on each variant (bytecode, page cache, facts cache),
    then `rounds` rounds, alternating which variant goes first."""
    for m in measures:
        for v in variants:
            m.run(v)
            m.samples[v.label] = []
    for r in range(rounds):
        say(f"  round {r + 1}/{rounds}")
        order = list(variants) if r % 2 == 0 else list(reversed(variants))
        for m in measures:
            for v in order:
                m.samples[v.label].append(m.run(v))


def _fmt(seconds: float) -> str:
    return f"{seconds:.3f} s"


def render(variants: Sequence[Variant], measures: Sequence[Measure]) -> str:
    """A table: each variant's median, then b/a of the minimums and of the medians, and peak memory."""
    a, b = variants[0].label, variants[1].label
    head = [
        "measure",
        f"{a} median",
        f"{b} median",
        f"{b}/{a} min",
        f"{b}/{a} median",
        f"cpu {b}/{a} min",
        f"cpu {b}/{a} median",
        f"peak RSS {a}",
        f"peak RSS {b}",
        f"RSS {b}/{a}",
    ]
    rows = [head]
    for m in measures:
        ta = [s.seconds for s in m.samples[a]]
        tb = [s.seconds for s in m.samples[b]]
        ca = [s.cpu for s in m.samples[a]]
        cb = [s.cpu for s in m.samples[b]]
        ra = statistics.median(s.maxrss_kb for s in m.samples[a])
        rb = statistics.median(s.maxrss_kb for s in m.samples[b])
        rows.append(
            [
                m.label,
                _fmt(statistics.median(ta)),
                _fmt(statistics.median(tb)),
                f"{min(tb) / min(ta):.2f}",
                f"{statistics.median(tb) / statistics.median(ta):.2f}",
                f"{min(cb) / min(ca):.2f}",
                f"{statistics.median(cb) / statistics.median(ca):.2f}",
                f"{ra / 1024:.0f} MiB",
                f"{rb / 1024:.0f} MiB",
                f"{rb / ra:.2f}",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def raw(variants: Sequence[Variant], measures: Sequence[Measure]) -> dict[str, Any]:
    return {
        m.label: {v.label: [dataclasses.asdict(s) for s in m.samples[v.label]] for v in variants}
        for m in measures
    }


def copy_project(gen: Generated, root: Path) -> Generated:
    """A byte-identical copy of a generated project (its .git included) at `root`."""
    shutil.copytree(gen.root, root, symlinks=True)
    return dataclasses.replace(gen, root=root, today_path=root / gen.today_path.relative_to(gen.root))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.versus", description=__doc__.split("\n\n")[0])
    parser.add_argument("old", type=Path, help="the older checkout (e.g. a worktree of the last release)")
    parser.add_argument("new", type=Path, help="the newer checkout (e.g. .)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--model-free-max",
        type=int,
        default=1000,
        help="model-free passes only on projects up to this size (the link job's sweep of every page "
        "was pages × titles before the link sweep was indexed: see the README)",
    )
    parser.add_argument("--sizes", default="1000,5000", help="page counts of the pass projects")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gitgarden-versus-"))
    work.mkdir(parents=True, exist_ok=True)
    env = isolated_env(work)
    os.environ.clear()
    os.environ.update(env)
    started = time.perf_counter()
    try:
        old = Variant("old", args.old.resolve(), side_env(env, args.old.resolve()))
        new = Variant("new", args.new.resolve(), side_env(env, args.new.resolve()))
        for n in sorted({STATUS_PAGES, *sizes}):
            say(f"generating {n} pages …")
            gen = generate(work / f"new-{n}", pages=n)
            new.projects[n] = gen
            old.projects[n] = copy_project(gen, work / f"old-{n}")
        measures = [Measure(f"pass, scripted model, {n:,} pages", worker_pass(n, model_free=False)) for n in sizes]
        measures += [
            Measure(f"pass, model-free jobs, {n:,} pages", worker_pass(n, model_free=True))
            for n in sizes
            if n <= args.model_free_max
        ]
        measures.append(Measure(f"gitgarden status, {STATUS_PAGES} pages (wall)", cli(STATUS_PAGES, "status")))
        measures.append(Measure(f"gitgarden health, {sizes[-1]:,} pages (wall)", cli(sizes[-1], "health")))
        compare([old, new], measures, args.rounds)
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    report(f"gitgarden old vs new: {args.old} vs {args.new}; {args.rounds} interleaved rounds", [old, new], measures, started, args.json)


def report(title: str, variants: list[Variant], measures: list[Measure], started: float, json_path: Path | None) -> None:
    """Print the run's figures (and write them to `json_path` when given): the table, the machine, the outcomes."""
    print(title)
    print(f"machine: {machine()}")
    for v in variants:
        print(f"{v.label} pass outcomes: {', '.join(sorted(v.outcomes))}")
    print()
    print(render(variants, measures))
    print()
    print(f"({time.perf_counter() - started:.0f} s in all)")
    if json_path:
        json_path.write_text(json.dumps({"machine": machine(), "raw": raw(variants, measures)}, indent=1))


if __name__ == "__main__":
    main()
