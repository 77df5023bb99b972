"""`python -m tests.benchmarks [--quick]`: what a pass and a tick cost, and how that grows. One table.

Every figure is the median of several runs; every comparison is a ratio of
figures measured in the same run, with the runs of the things compared
interleaved, so a noisy machine slows both sides alike. Passes, ticks and
the guard each run in a fresh interpreter (tests/benchmarks/worker.py), so no
cache of one run helps the next. Everything happens in a temporary folder
with its own HOME, git identity and GITGARDEN_* paths; nothing of the
person's setup is read or written.

See tests/benchmarks/README.md for what each row means.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.benchmarks.generate import Generated, cached, generate, restore

REPO = Path(__file__).resolve().parents[2]

PROFILES: dict[str, dict[str, Any]] = {
    "full": {
        "runs": 5,
        "startup_runs": 9,
        "pages": (50, 500, 5000, 20000),
        "scale": (50, 5000, 20000),
        "init_runs": 3,
        "projects": (10, 100, 1000),
        "touch": (10, 100, 1000),
    },
    "quick": {
        "runs": 3,
        "startup_runs": 5,
        "pages": (50, 500, 1000),
        "scale": (50, 1000, 5000),
        "init_runs": 1,
        "projects": (10, 100, 300),
        "touch": (10, 100, 300),
    },
}
BIG = 50_000  # `--big`: the scale section and the passes at 50,000 pages too (the project takes minutes to make)
PASS_TARGET_PAGES = 5000  # issue 7's target compares 5,000 pages with 50
MAX_GIT = 15  # git processes of a pass that writes five files (issue 29)
UNREAD = 200  # lines captured today: what every pass reads
READ = 1000  # older lines, already read
BIG_WINDOW = 128_000  # a hosted model's context window: the prompt is not capped by it

# The targets of issue 7.
STATUS_MAX = 2.0  # `gitgarden status` ≤ 2× `python3 -c "import click, rich"`
TICK_MAX_S = 1.0  # an idle tick over 1,000 projects
PASS_MAX = 1.5  # pass overhead at 5,000 pages ≤ 1.5× at 50
PROMPT_MAX = 1.3  # prompt tokens at 5,000 pages ≤ 1.3× at 50


# -- helpers ---------------------------------------------------------------------------------


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def isolated_env(work: Path) -> dict[str, str]:
    """The environment every measured process gets: its own HOME, git identity and gitgarden paths."""
    home = work / "home"
    home.mkdir(parents=True, exist_ok=True)
    gitconfig = home / ".gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Bench Person\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n"
        "[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n"
    )
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GITGARDEN_", "GIT_", "LITELLM_"))
    }
    # An installed gitgarden runs from cached bytecode; cache it here, not in the source tree.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".state"),
        GIT_CONFIG_GLOBAL=str(gitconfig),
        GIT_CONFIG_NOSYSTEM="1",
        GITGARDEN_CONFIG=str(home / "gitgarden.toml"),
        GITGARDEN_STATE=str(work / "state-none"),
        PYTHONPYCACHEPREFIX=str(work / "pycache"),
        PYTHONPATH=str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""),
        # ECOSYSTEM.md: litellm fetches its price map at import unless told not to.
        LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    return env


def gitgarden_command() -> list[str]:
    """The installed `gitgarden` script of this interpreter (not a version manager's shim)."""
    here = Path(sys.executable).parent / "gitgarden"
    if here.is_file():
        return [str(here)]
    found = shutil.which("gitgarden")
    return [found] if found else [sys.executable, "-m", "gitgarden"]


def timed(
    cmd: Sequence[str], env: dict[str, str], cwd: Path | None = None
) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    proc = subprocess.run(list(cmd), cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, proc


def worker(args: Sequence[str], env: dict[str, str]) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.benchmarks.worker", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"worker {' '.join(args)} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def git(root: Path, *args: str, env: dict[str, str]) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True
    ).stdout


def fmt_s(seconds: float) -> str:
    return f"{seconds:.3f} s" if seconds < 10 else f"{seconds:.1f} s"


def fmt_n(n: int) -> str:
    return f"{n:,}"


# -- the table ---------------------------------------------------------------------------------


@dataclass
class Row:
    section: str
    measure: str
    value: str
    compare: str = ""
    target: str = ""
    met: str = ""


@dataclass
class Report:
    rows: list[Row] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict)

    def add(self, *cells: str) -> None:
        self.rows.append(Row(*cells))

    def render(self) -> str:
        headers = Row("section", "measure", "median", "compared", "target", "met")
        cols = ["section", "measure", "value", "compare", "target", "met"]
        table = [headers, *self.rows]
        widths = [max(len(getattr(r, c)) for r in table) for c in cols]
        lines = []
        last = None
        for n, row in enumerate(table):
            cells = [getattr(row, c) for c in cols]
            if n > 0 and row.section == last:
                cells[0] = ""
            elif n > 1:
                lines.append("-+-".join("-" * w for w in widths))
            last = row.section
            lines.append(
                " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()
            )
            if n == 0:
                lines.append("=+=".join("=" * w for w in widths))
        return "\n".join(lines)


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("yes" if ok else "NO")


# -- start-up ------------------------------------------------------------------------------------


def litellm_imported(args: Sequence[str], env: dict[str, str], cwd: Path) -> bool:
    """Whether `python -X importtime -m gitgarden ARGS` imports litellm (or any litellm.* module)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitgarden", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name == "litellm" or name.startswith("litellm."):
                return True
    return False


def bench_startup(
    report: Report, env: dict[str, str], project: Path, tick_state: Path | None, runs: int
) -> None:
    gg = gitgarden_command()
    commands: list[tuple[str, list[str], Path | None]] = [
        ('python3 -c "import click, rich"', [sys.executable, "-c", "import click, rich"], None),
        ("gitgarden --help", [*gg, "--help"], None),
        ("gitgarden status (in a project)", [*gg, "status"], project),
        ("gitgarden guard (in a project)", [*gg, "guard"], project),
    ]
    times: dict[str, list[float]] = {label: [] for label, _, _ in commands}
    for label, cmd, cwd in commands:  # warm the page cache and the .pyc files
        _, proc = timed(cmd, env, cwd)
        if proc.returncode not in (0, 3):
            raise RuntimeError(f"{label} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    for r in range(runs):
        say(f"  start-up round {r + 1}/{runs}")
        for label, cmd, cwd in commands:
            seconds, _ = timed(cmd, env, cwd)
            times[label].append(seconds)
    bare = median(times[commands[0][0]])
    report.raw["startup"] = times
    for label, _, _ in commands:
        m = median(times[label])
        ratio = m / bare
        is_status = label.startswith("gitgarden status")
        report.add(
            "start-up",
            label,
            fmt_s(m),
            "1.00× (the baseline)" if label == commands[0][0] else f"{ratio:.2f}× bare import",
            f"≤ {STATUS_MAX:g}× bare import" if is_status else "",
            verdict(ratio <= STATUS_MAX) if is_status else "",
        )
    tick_env = dict(env, GITGARDEN_STATE=str(tick_state)) if tick_state else None
    checks = [("--help", ["--help"], env), ("status", ["status"], env), ("guard", ["guard"], env)]
    if tick_env is not None:
        (tick_state / "tick.json").unlink(missing_ok=True)  # type: ignore[operator]
        checks.append(("tick", ["tick"], tick_env))
    found = {name: litellm_imported(args, e, project) for name, args, e in checks}
    report.raw["litellm_imported"] = found
    text = ", ".join(f"{name} {'YES' if hit else 'no'}" for name, hit in found.items())
    if tick_env is None:
        text += ", tick n/a"
    report.add(
        "start-up",
        "litellm imported (-X importtime)",
        text,
        "",
        "no on all",
        verdict(not any(found.values())),
    )


# -- idle tick ----------------------------------------------------------------------------------


def make_tick_projects(
    work: Path, env: dict[str, str], counts: Sequence[int]
) -> dict[int, Path] | str:
    """State dirs registering 10, 100, 1,000 copies of a small project with nothing new; or why not."""
    try:
        from gitgarden.schedule import registry
    except ImportError as exc:
        return f"gitgarden.schedule cannot be imported ({exc})"
    template = generate(work / "tick-template", pages=20, lines=40, unread=0, seed=11)
    git(template.root, "repack", "-adq", env=env)
    git(template.root, "prune-packed", env=env)
    pool = work / "tick-projects"
    pool.mkdir()
    copies = [pool / f"project-{i:04d}" for i in range(max(counts))]
    for root in copies:
        shutil.copytree(template.root, root, symlinks=True)
    states: dict[int, Path] = {}
    for count in counts:
        state = work / f"state-{count}"
        tick_env = dict(env, GITGARDEN_STATE=str(state))
        for root in copies[:count]:
            registry.register(root, tick_env)
        states[count] = state
    return states


def bench_tick(
    report: Report,
    env: dict[str, str],
    states: dict[int, Path] | str,
    counts: Sequence[int],
    runs: int,
) -> None:
    if isinstance(states, str):
        for count in counts:
            report.add(
                "idle tick",
                f"{fmt_n(count)} projects, nothing new",
                "n/a",
                states,
                f"≤ {TICK_MAX_S:g} s" if count == 1000 else "",
                "n/a",
            )
        return
    gg = gitgarden_command()
    cli: dict[int, list[float]] = {c: [] for c in counts}
    inproc: dict[int, list[float]] = {c: [] for c in counts}
    for count, state in states.items():  # the first tick counts every journal and remembers it
        tick_env = dict(env, GITGARDEN_STATE=str(state))
        (state / "tick.json").unlink(missing_ok=True)
        _, proc = timed([*gg, "tick", "--json"], tick_env)
        if proc.returncode != 0:
            raise RuntimeError(f"warm-up tick over {count} failed: {proc.stderr[-2000:]}")
    for r in range(runs):
        say(f"  tick round {r + 1}/{runs}")
        for count, state in states.items():
            tick_env = dict(env, GITGARDEN_STATE=str(state))
            (state / "tick.json").unlink(missing_ok=True)  # else the tick waits out interval_min
            seconds, proc = timed([*gg, "tick", "--json"], tick_env)
            data = json.loads(proc.stdout)
            if proc.returncode != 0 or not data["looked"] or data["nothing_to_do"] != count:
                raise RuntimeError(
                    f"the idle tick over {count} did not find {count} projects with nothing to do: {proc.stdout[-1000:]} {proc.stderr[-1000:]}"
                )
            cli[count].append(seconds)
            (state / "tick.json").unlink(missing_ok=True)
            inproc[count].append(worker(["tick"], tick_env)["seconds"])
    report.raw["tick"] = {"cli": cli, "in_process": inproc}
    for count in counts:
        m = median(cli[count])
        is_target = count == max(counts)
        report.add(
            "idle tick",
            f"`gitgarden tick`, {fmt_n(count)} projects, nothing new",
            fmt_s(m),
            f"{fmt_s(median(inproc[count]))} of it after start-up (run_tick in-process)",
            f"≤ {TICK_MAX_S:g} s" if is_target else "",
            verdict(m <= TICK_MAX_S) if is_target else "",
        )


# -- passes, bare git, prompts --------------------------------------------------------------------


def pass_files(gen: Generated, env: dict[str, str]) -> dict[str, bytes]:
    """What the pass (and its journal commit) committed, as the files' new bytes."""
    names = git(gen.root, "diff", "--name-only", "-z", gen.base, "HEAD", env=env).split("\0")
    out = {}
    for name in filter(None, names):
        out[name] = subprocess.run(
            ["git", "-C", str(gen.root), "show", f"HEAD:{name}"],
            env=env,
            capture_output=True,
            check=True,
        ).stdout
    return out


def bare_git(gen: Generated, files: dict[str, bytes], env: dict[str, str], tag: str) -> float:
    """`git add -A && git commit && git tag` of the same files on the same repository, in seconds."""
    restore(gen)
    for name, data in files.items():
        path = gen.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    total = 0.0
    for cmd in (["add", "-A"], ["commit", "-q", "-m", "bench: the same files, bare"], ["tag", tag]):
        seconds, proc = timed(["git", "-C", str(gen.root), *cmd], env)
        if proc.returncode != 0:
            raise RuntimeError(f"git {cmd[0]} failed: {proc.stderr}")
        total += seconds
    return total


def bench_passes(
    report: Report, env: dict[str, str], gens: dict[int, Generated], runs: int
) -> None:
    sizes = sorted(gens)
    results: dict[int, list[dict[str, Any]]] = {n: [] for n in sizes}
    bare: dict[int, list[float]] = {n: [] for n in sizes}
    for r in range(runs):
        say(f"  pass round {r + 1}/{runs}")
        for n in sizes:
            gen = gens[n]
            restore(gen)
            worker(["sync", str(gen.root)], env)  # the wiki graph in step, as between periodic passes
            out = worker(["pass", str(gen.root)], env)
            if out["outcome"] != "pages_written" or out["refusals"]:
                raise RuntimeError(f"the pass at {n} pages did not write its pages: {out}")
            results[n].append(out)
            bare[n].append(bare_git(gen, pass_files(gen, env), env, f"bench/{r}"))
    big: dict[int, dict[str, Any]] = {}
    for n in sizes:
        restore(gens[n])
        big[n] = worker(["pass", str(gens[n].root), "--context-window", str(BIG_WINDOW)], env)
        restore(gens[n])
    report.raw["pass"] = results
    report.raw["bare_git"] = bare
    report.raw["prompt_big_window"] = big

    wall = {n: median([o["seconds"] for o in results[n]]) for n in sizes}
    cpu = {n: median([o["cpu"] for o in results[n]]) for n in sizes}
    in_git = {n: median([o["git_seconds"] for o in results[n]]) for n in sizes}
    small = sizes[0]
    large = PASS_TARGET_PAGES if PASS_TARGET_PAGES in sizes else sizes[-1]
    for n in sizes:
        calls = sorted({o["git_calls"] for o in results[n]})
        is_target = n == large
        ratio = wall[n] / wall[small]
        report.add(
            "pass overhead",
            f"instant model, {fmt_n(n)} pages, {UNREAD} unread lines",
            fmt_s(wall[n]),
            f"{ratio:.2f}× {small} pages (cpu {cpu[n]:.2f} s, {cpu[n] / cpu[small]:.2f}×); "
            f"{'/'.join(map(str, calls))} git processes, {in_git[n]:.3f} s",
            f"≤ {PASS_MAX:g}× {small} pages" if is_target else "",
            verdict(ratio <= PASS_MAX) if is_target else "",
        )
    counts = {n: max(o["git_calls"] for o in results[n]) for n in sizes}
    report.add(
        "pass overhead",
        "git processes a pass starts (most of any run)",
        " / ".join(str(counts[n]) for n in sizes),
        f"at {' / '.join(fmt_n(n) for n in sizes)} pages",
        f"≤ {MAX_GIT} at every size",
        verdict(all(c <= MAX_GIT for c in counts.values())),
    )
    bare_m = {n: median(bare[n]) for n in sizes}
    for n in sizes:
        report.add(
            "pass overhead",
            f"bare git add -A + commit + tag, same files, {fmt_n(n)} pages",
            fmt_s(bare_m[n]),
            f"{bare_m[n] / bare_m[small]:.2f}× {small} pages; the pass is {wall[n] / bare_m[n]:.1f}× this",
        )

    first = {n: results[n][0] for n in sizes}
    for n in sizes:
        o = first[n]
        is_target = n == large
        ratio = o["prompt_estimate"] / first[small]["prompt_estimate"]
        report.add(
            "prompt size",
            f"{fmt_n(n)} pages, context_window 8,192 (default)",
            f"{fmt_n(o['prompt_estimate'])} tokens",
            f"{ratio:.2f}× {small} pages; chars/4 {fmt_n(o['prompt_chars_over_4'])}; {o['lines_offered']}/{UNREAD} lines, "
            f"{o['pages_listed']} pages listed, {o['pages_with_bodies']} bodies",
            f"≤ {PROMPT_MAX:g}× {small} pages" if is_target else "",
            verdict(ratio <= PROMPT_MAX) if is_target else "",
        )
    for n in sizes:
        o = big[n]
        ratio = o["prompt_estimate"] / big[small]["prompt_estimate"]
        is_target = n == large
        report.add(
            "prompt size",
            f"{fmt_n(n)} pages, context_window {BIG_WINDOW:,}",
            f"{fmt_n(o['prompt_estimate'])} tokens",
            f"{ratio:.2f}× {small} pages; chars/4 {fmt_n(o['prompt_chars_over_4'])}; {o['lines_offered']}/{UNREAD} lines, "
            f"{o['pages_listed']} pages listed, {o['pages_with_bodies']} bodies",
            f"≤ {PROMPT_MAX:g}× {small} pages" if is_target else "",
            verdict(ratio <= PROMPT_MAX) if is_target else "",
        )
    read = {n: first[n]["marked_read"] for n in sizes}
    if any(read[n] != first[n]["lines_offered"] for n in sizes):
        report.add(
            "prompt size",
            "lines marked read vs lines in the prompt",
            ", ".join(f"{read[n]} vs {first[n]['lines_offered']}" for n in sizes),
            "lines that did not fit the prompt were marked read",
            "equal",
            "NO",
        )


# -- the guard ------------------------------------------------------------------------------------


def bench_guard(
    report: Report, env: dict[str, str], gen: Generated, touches: Sequence[int], runs: int
) -> None:
    restore(gen)
    times: dict[int, list[float]] = {k: [] for k in touches}
    big: dict[str, list[float]] = {"append": [], "link": []}
    chars = 0
    for r in range(runs):
        say(f"  guard round {r + 1}/{runs}")
        for k in touches:
            out = worker(["guard", str(gen.root), "--touch", str(k)], env)
            if out["verdicts"]:
                raise RuntimeError(f"the guard refused the benchmark's diff: {out['verdicts']}")
            times[k].append(out["seconds"])
        out = worker(["guard-page", "--chars", "5000000"], env)
        if (out["append"]["rules"], out["link"]["rules"]) != ([9], [4, 9]):
            raise RuntimeError(f"the guard's verdicts on the big page changed: {out}")
        chars = out["chars"]
        for edit in big:
            big[edit].append(out[edit]["seconds"])
    report.raw["guard"] = times
    report.raw["guard_page"] = big
    small = touches[0]
    base = median(times[small])
    for k in touches:
        m = median(times[k])
        report.add(
            "guard",
            f"diff touching {fmt_n(k)} pages of {fmt_n(gen.pages)}",
            fmt_s(m),
            f"{m / base:.1f}× {small} pages ({m / k * 1000:.2f} ms a page)",
        )
    for edit, what in (("append", "a sentence appended"), ("link", "a link typed in its middle")):
        m = median(big[edit])
        report.add("guard", f"one {chars / 1e6:.1f} MB page, {what}", fmt_s(m), f"{m / base:.1f}× {small} pages")


# -- main ------------------------------------------------------------------------------------------


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    git_version = subprocess.run(
        ["git", "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    load = ""
    if hasattr(os, "getloadavg"):
        load = ", load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    return (
        f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {git_version}{load}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m tests.benchmarks", description="gitgarden benchmarks: prints one table."
    )
    parser.add_argument(
        "--quick", action="store_true", help="fewer runs and smaller sizes (a minute or two)"
    )
    parser.add_argument(
        "--only", default="startup,tick,pass,guard,scale", help="comma-separated sections to run"
    )
    parser.add_argument(
        "--big", action="store_true", help=f"the scale section and the passes at {BIG:,} pages too"
    )
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gitgarden-bench",
        help="where generated projects are kept between runs (default: %(default)s)",
    )
    parser.add_argument("--no-cache", action="store_true", help="generate every project anew, in the work folder")
    parser.add_argument(
        "--workdir", type=Path, help="where to build the projects (default: a temporary folder)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--json", type=Path, help="also write every measured figure to this file")
    args = parser.parse_args(argv)
    profile = PROFILES["quick" if args.quick else "full"]
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gitgarden-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    env = isolated_env(work)
    os.environ.clear()
    os.environ.update(env)  # generate() and registry.register() run in this process
    report = Report()
    started = time.perf_counter()
    say(f"gitgarden benchmarks ({'quick' if args.quick else 'full'}) in {work}")
    big = (BIG,) if args.big else ()
    cache = None if args.no_cache else args.cache

    def project(n: int) -> Generated:
        say(f"{'generating' if cache is None else 'generating (or restoring from the cache)'} {n} pages …")
        made = generate(work / f"pass-{n}", pages=n, lines=READ, unread=UNREAD) if cache is None else cached(cache, n, lines=READ, unread=UNREAD)
        say(f"  {made.pages} pages ({made.hubs} hubs); made in {made.seconds:.1f} s")
        return made

    try:
        sizes: tuple[int, ...] = (*profile["pages"], *big) if only & {"pass", "guard", "startup"} else ()
        scale_sizes: tuple[int, ...] = (*profile["scale"], *big) if "scale" in only else ()
        guard_size = max((n for n in sizes if n <= PASS_TARGET_PAGES), default=0)
        needed = set(scale_sizes)
        needed |= set(sizes) if "pass" in only else set(sizes[:1]) if "startup" in only else set()
        needed |= {guard_size} if "guard" in only and guard_size else set()
        gens: dict[int, Generated] = {n: project(n) for n in sorted(needed)}
        states: dict[int, Path] | str = "not run"
        if only & {"tick", "startup"}:
            say("registering projects for the tick …")
            states = make_tick_projects(
                work, env, profile["projects"] if "tick" in only else profile["projects"][:1]
            )
        if "startup" in only:
            say("start-up …")
            small_state = states[min(states)] if isinstance(states, dict) else None
            bench_startup(report, env, gens[sizes[0]].root, small_state, profile["startup_runs"])
        if "tick" in only:
            say("idle tick …")
            bench_tick(report, env, states, profile["projects"], profile["runs"])
        if "pass" in only:
            say("passes …")
            bench_passes(report, env, {n: gens[n] for n in sizes}, profile["runs"])
        if "guard" in only:
            say("guard …")
            bench_guard(report, env, gens[guard_size], profile["touch"], profile["runs"])
        if "scale" in only:
            from tests.benchmarks.scale import bench_scale

            say("scale: the hook, health, status and init …")
            scale_gens = {n: gens[n] for n in scale_sizes}
            bench_scale(report, env, scale_gens, profile["runs"], work, gitgarden_command(), worker, profile["init_runs"])
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    print(
        f"gitgarden benchmarks, {'quick' if args.quick else 'full'} run: medians of {profile['runs']} runs ({profile['startup_runs']} for start-up)"
    )
    print(f"machine: {machine()}")
    print()
    print(report.render())
    print()
    print(f"({time.perf_counter() - started:.0f} s in all)")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "machine": machine(),
                    "raw": report.raw,
                    "rows": [r.__dict__ for r in report.rows],
                },
                indent=1,
                default=str,
            )
        )


if __name__ == "__main__":
    main()
