"""`python -m tests.benchmarks.search`: what `gitgarden search` and `gitgarden mcp` cost (issue 28).

    python -m tests.benchmarks.search [--sizes 50,1000,5000] [--runs 5] [--workdir DIR --keep]

For each size, a generated project (tests/benchmarks/generate.py: pages under
`wiki/`, 1,200 journal lines under `raw/journal/`) and, interleaved run by run:

- `gitgarden search WORD` with no index (the first search builds it), warm
  (nothing changed since), and after one page was edited;
- the same search in-process (`search.index.search`, the median of five warm
  searches in one interpreter: what the MCP server, already running, spends;
  the interpreter's and the CLI's start-up left out);
- `grep -ril WORD wiki raw/journal` over the same files.

WORD is a word most pages hold (`bakery`, where `grep -l` stops at each file's
first match) and a word none holds (`zeppelin`: grep reads every byte). Then
`gitgarden mcp`'s start-up — spawned by the MCP SDK's client until `initialize`
and `tools/list` answered — against `gitgarden status`'s wall time.

Every figure is the median of the runs; compared figures are ratios of medians
taken in the same run. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.__main__ import gitgarden_command, isolated_env, say
from tests.benchmarks.generate import generate

WORDS = ("bakery", "zeppelin")
_IN_PROCESS = """
import sys, time
from gitgarden.project import Project
from gitgarden.search.index import search
project = Project(__import__("pathlib").Path(sys.argv[1]))
search(project, sys.argv[2])  # warm the index and the imports
times = []
for _ in range(5):
    started = time.perf_counter()
    search(project, sys.argv[2])
    times.append(time.perf_counter() - started)
print(sorted(times)[2])  # the median of five warm searches
"""
_MCP_START = """
import sys, time, anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
async def main():
    started = time.perf_counter()
    params = StdioServerParameters(command=sys.argv[1], args=["mcp"], cwd=sys.argv[2], env=dict(__import__("os").environ))
    async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
        await s.initialize()
        await s.list_tools()
        print(time.perf_counter() - started)
anyio.run(main)
"""


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if proc.returncode not in (0, 1):  # grep: 1 = nothing found
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return seconds, proc.stdout


def _median(values: list[float]) -> float:
    return statistics.median(values)


def bench_size(pages: int, runs: int, work: Path, env: dict[str, str]) -> dict[str, float]:
    say(f"generating {pages:,} pages …")
    gen = generate(work / f"p{pages}", pages=pages)
    root = gen.root
    index = root / ".git" / "gitgarden" / "search.sqlite"
    gg = gitgarden_command()
    files = subprocess.run(["bash", "-c", "find wiki raw/journal -name '*.md' | wc -l"], cwd=root, capture_output=True, text=True).stdout.strip()
    out: dict[str, float] = {"files": float(files)}
    edited = root / "wiki" / sorted(p.name for p in (root / "wiki").glob("*.md"))[1]
    for word in WORDS:
        times: dict[str, list[float]] = {k: [] for k in ("cold", "warm", "edited", "inprocess", "grep")}
        for n in range(runs):
            index.unlink(missing_ok=True)
            times["cold"].append(_run([*gg, "search", word], env, root)[0])
            times["warm"].append(_run([*gg, "search", word], env, root)[0])
            times["inprocess"].append(float(_run([sys.executable, "-c", _IN_PROCESS, str(root), word], env, root)[1]))
            times["grep"].append(_run(["grep", "-ril", word, "wiki", "raw/journal"], env, root)[0])
            with edited.open("a") as fh:
                fh.write(f"\nEdited in run {n}.\n")
            old = time.time() - 60  # edited a minute ago: not "just written", which the index hashes again each time
            os.utime(edited, (old, old))
            times["edited"].append(_run([*gg, "search", word], env, root)[0])
        for key, values in times.items():
            out[f"{word}.{key}"] = _median(values)
    out["index_bytes"] = float(index.stat().st_size)
    return out


def bench_startup(runs: int, work: Path, env: dict[str, str]) -> dict[str, float]:
    root = work / "p50"
    gg = gitgarden_command()
    mcp: list[float] = []
    status: list[float] = []
    for _ in range(runs):
        status.append(_run([*gg, "status"], env, root)[0])
        mcp.append(float(_run([sys.executable, "-c", _MCP_START, gg[0], str(root)], env, root)[1]))
    return {"mcp": _median(mcp), "status": _median(status)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="50,1000,5000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gitgarden-search-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    env = isolated_env(work)
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        results = {size: bench_size(size, args.runs, work, env) for size in sizes}
        if 50 not in sizes:
            generate(work / "p50", pages=50)
        start = bench_startup(args.runs * 2 - 1, work, env)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"search (median of {args.runs} runs; ratios to `grep -ril WORD wiki raw/journal` in the same run)")
    print(f"{'pages':>6} {'files':>6} {'word':>9} {'grep':>8} {'first':>8} {'warm':>8} {'edited':>8} {'in-proc':>8}"
          f" {'first/grep':>10} {'warm/grep':>9} {'in-proc/grep':>12} {'index':>8}")  # fmt: skip
    for size, r in results.items():
        for word in WORDS:
            g = r[f"{word}.grep"]
            print(
                f"{size:>6,} {int(r['files']):>6,} {word:>9} {g:>7.3f}s {r[f'{word}.cold']:>7.3f}s {r[f'{word}.warm']:>7.3f}s "
                f"{r[f'{word}.edited']:>7.3f}s {r[f'{word}.inprocess']:>7.3f}s {r[f'{word}.cold'] / g:>9.2f}x "
                f"{r[f'{word}.warm'] / g:>8.2f}x {r[f'{word}.inprocess'] / g:>11.2f}x {r['index_bytes'] / 1e6:>6.1f}MB"
            )
    print(f"\nstart-up (median of {args.runs * 2 - 1}): gitgarden mcp until initialize + tools/list {start['mcp']:.3f}s, "
          f"gitgarden status {start['status']:.3f}s: {start['mcp'] / start['status']:.2f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
