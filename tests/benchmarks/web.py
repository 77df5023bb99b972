"""What `gitgarden serve`'s pages cost beside the command line reading the same data (issue 27).

    python -m tests.benchmarks.web [--pages 5000] [--passes 1000] [--runs 5] [--workdir DIR --keep]

A synthetic project (`generate.py`) of N pages gets P pass commits (with their trailers, made by
`git fast-import`) and their records in `log/` (health before and after, provenance of one
paragraph each). Each page of the app is timed in the server's own process through the
framework's test client (the time a request takes on the server, no browser), and beside it the
command that reads the same data, `--json`, timed in-process through click's runner (imports
warm, as in the server), in turns with the page: the ratio says what the page adds to the
reading. Medians of `--runs`, after one warm-up each. Prints figures; asserts nothing.

    python -m tests.benchmarks.web --views [--before main] [--pages 5000] [--rounds 40]

`--views` measures what a person's browser waits for instead, over HTTP from real `gitgarden serve`
processes on loopback: a page view (each view another page, as a person browses; its first, median
and 95th percentile), the Pages list, and four clients viewing pages at once (views a second and
their median). With `--before REF` a second server runs that commit's code (a `git worktree` of
it) on the same project, and every measurement alternates between the two, so both see the same
load on a shared machine: the last column is after / before.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from tests.benchmarks.__main__ import REPO, isolated_env
from tests.benchmarks.generate import generate

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def add_passes(root: Path, count: int, names: list[str]) -> list[str]:
    """`count` pass commits on top of HEAD (trailers only; one commit), then their records in
    `log/`, each naming a page it created and a paragraph of it as provenance."""
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    stream: list[bytes] = []
    records: list[str] = []
    ids: list[str] = []
    start = NOW - timedelta(days=30)
    for i in range(count):
        when = start + timedelta(minutes=40 * i)
        pass_id = f"{when:%Y%m%dT%H%M%SZ}-{i:04x}"
        ids.append(pass_id)
        page = names[i % len(names)]
        text = (root / "wiki" / f"{page}.md").read_text(encoding="utf-8").split("---\n", 2)[-1].strip().split("\n\n")[0]
        message = (
            f"gitgarden pass {pass_id}: pages written\n\n"
            f"Gardener-Pass: {pass_id}\nGardener-Outcome: pages_written\nGardener-Read: 3\nGardener-Tokens: 2400\n"
            "Gardener-Cost: unknown\nGardener-Model: openai/bench\nGardener-Created: 1\nGardener-Appended: 1\n"
            "Gardener-Split: 0\nGardener-Refused: 0\nGardener-Trigger: tick\n"
        ).encode()
        stamp = int(when.timestamp())
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"committer gitgarden <gitgarden@localhost> {stamp} +0000\n".encode())
        stream.append(f"data {len(message)}\n".encode() + message + b"\n")
        if i == 0:
            stream.append(f"from {head}\n".encode())
        figures = {"pages": 5000, "orphans": 40 + i % 7, "unmapped": i % 3, "broken_links": i % 5, "map_chars": 1990}
        records.append(json.dumps({
            "pass_id": pass_id, "outcome": "pages_written", "started": when.isoformat(), "finished": when.isoformat(),
            "offered": [f"2026-11-01#{n}" for n in range(1, 4)], "marked_read": 3, "created": [f"wiki/{page}.md"],
            "appended": [], "refusals": ["rule 11 (grounded) wiki/x.md: a sentence not traceable: 'Zed paid 9 EUR'"],
            "prompt_tokens": 2000, "completion_tokens": 400, "model": "openai/bench", "trigger": "tick",
            "health_before": figures, "health_after": figures,
            "provenance": [{"page": page, "op": "create_page", "text": text, "lines": [{"id": "2026-11-01#1", "text": text[:80]}]}],
        }, sort_keys=True))
    subprocess.run(["git", "-C", str(root), "fast-import", "--quiet"], input=b"".join(stream), check=True)
    subprocess.run(["git", "-C", str(root), "reset", "-q", "--hard", "refs/heads/main"], check=True)
    log = root / "log" / f"{NOW:%Y-%m}.jsonl"
    log.write_text("".join(r + "\n" for r in records), encoding="utf-8")
    subprocess.run(["git", "-C", str(root), "add", "-A", "log"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "records"], check=True)
    return ids


def median_times(fns: list[Callable[[], object]], runs: int) -> list[float]:
    """The median time of each of `fns`, run in turns (so both sides of a ratio see the same load
    on a shared machine), after one warm-up each: imports, caches, the facts cache."""
    for fn in fns:
        fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for i, fn in enumerate(fns):
            started = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - started)
    return [statistics.median(t) for t in times]


@contextmanager
def served(root: Path, code: Path, env: dict[str, str]) -> Iterator[httpx.Client]:
    """`gitgarden serve` on the project at `root`, running the package found in `code` (a checkout);
    a client holding its token's cookie. Ctrl-C ends it on leaving."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gitgarden", "serve"], cwd=root, env={**env, "PYTHONPATH": str(code), "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        base, _, query = url.partition("/?")
        with httpx.Client(base_url=base, timeout=120) as client:
            client.get("/?" + query)  # the token becomes the cookie every later request carries
            yield client
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def timed_get(client: httpx.Client, path: str) -> float:
    started = time.perf_counter()
    r = client.get(path)
    took = time.perf_counter() - started
    assert r.status_code == 200, (path, r.status_code, r.text[:300])
    return took


def at_once(client: httpx.Client, paths: list[str], clients: int = 4) -> tuple[float, float]:
    """(views a second, median seconds a view) with `clients` browsers viewing `paths` at once."""
    times: list[float] = []
    lock = threading.Lock()

    def browse(mine: list[str]) -> None:
        with httpx.Client(base_url=str(client.base_url), cookies=client.cookies, timeout=120) as own:
            for path in mine:
                took = timed_get(own, path)
                with lock:
                    times.append(took)

    threads = [threading.Thread(target=browse, args=(paths[i::clients],)) for i in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return len(times) / (time.perf_counter() - started), statistics.median(times)


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def in_turns(sides: list[str], i: int) -> list[str]:
    """The sides in the order of round `i`: neither always goes first."""
    return sides if i % 2 == 0 else sides[::-1]


def measure_views(clients: dict[str, httpx.Client], sample: list[str], rounds: int) -> dict[str, dict[str, float]]:
    """Each figure of `bench_views` for each server, the servers taking turns."""
    sides = list(clients)
    figures: dict[str, dict[str, float]] = {side: {} for side in sides}
    views: dict[str, list[float]] = {side: [] for side in sides}
    lists: dict[str, list[float]] = {side: [] for side in sides}
    for side in sides:
        figures[side]["first view"] = timed_get(clients[side], f"/page/{sample[0]}")
    for i in range(rounds):
        for side in in_turns(sides, i):
            views[side].append(timed_get(clients[side], f"/page/{sample[i % len(sample)]}"))
            if i % 4 == 0:
                lists[side].append(timed_get(clients[side], "/pages"))
    crowd: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
    for i in range(2):
        for side in in_turns(sides, i):
            crowd[side].append(at_once(clients[side], [f"/page/{n}" for n in sample[:rounds]]))
    for side in sides:
        figures[side]["page view, median"] = statistics.median(views[side])
        figures[side]["page view, 95th percentile"] = p95(views[side])
        figures[side]["Pages list, median"] = statistics.median(lists[side])
        figures[side]["4 clients: views a second"] = statistics.mean(rate for rate, _ in crowd[side])
        figures[side]["4 clients: median view"] = statistics.mean(med for _, med in crowd[side])
    return figures


def bench_views(root: Path, names: list[str], before: str | None, rounds: int, work: Path, pages: int) -> None:
    """Page views, the Pages list and four clients at once, over HTTP, alternating between this
    checkout's server and `before`'s when given; prints the figures (and after / before)."""
    codes = {"after": REPO}
    if before:
        tree = work / "before-code"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "-q", "--detach", str(tree), before], check=True)
        codes = {"before": tree, **codes}
    sample = random.Random(7).sample(names, min(len(names), rounds * 2))
    try:
        with ExitStack() as stack:
            clients = {side: stack.enter_context(served(root, code, dict(os.environ))) for side, code in codes.items()}
            figures = measure_views(clients, sample, rounds)
    finally:
        if before:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(work / "before-code")], check=False)
    print(f"{f'over HTTP, {pages:,} pages':34} " + " ".join(f"{side:>10}" for side in codes) + ("   after/before" if before else ""))
    for row in figures[next(iter(codes))]:
        cells = [figures[side][row] for side in codes]
        shown = " ".join(f"{v:9.1f} " if "a second" in row else f"{v * 1000:7.1f} ms" for v in cells)
        print(f"{row:34} {shown}" + (f"   {cells[-1] / cells[0]:10.2f}×" if before else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--passes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--views", action="store_true", help="page views over HTTP instead of the table of pages beside commands")
    parser.add_argument("--before", metavar="REF", help="with --views: a second server running REF's code, measured in turns")
    parser.add_argument("--rounds", type=int, default=40, help="with --views: page views per server")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gitgarden-bench-web-"))
    os.environ.clear()
    os.environ.update(isolated_env(work))
    started = time.perf_counter()
    gen = generate(work / "proj", pages=args.pages)
    names = [n for n, _ in gen.titles]
    ids = add_passes(gen.root, args.passes, names)
    print(f"project: {gen.pages:,} pages, {len(ids):,} passes, made in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    if args.views:
        bench_views(gen.root, names, args.before, args.rounds, work, gen.pages)
    else:
        bench_pages(gen.root, names, ids, args.runs)
    if not args.keep and not args.workdir:
        import shutil

        shutil.rmtree(work, ignore_errors=True)


def bench_pages(root: Path, names: list[str], ids: list[str], runs: int) -> None:
    """Each page's time on the server beside the command that reads the same data."""
    from click.testing import CliRunner
    from starlette.testclient import TestClient

    from gitgarden.cli.main import App, cli
    from gitgarden.web.app import make_app
    from gitgarden.web.safety import cookie_name, cookie_value
    from gitgarden.web.site import Site

    env = dict(os.environ)
    site = Site(root, env, lambda: NOW, lambda s, e: None, "bench", "127.0.0.1", 8765)
    client = TestClient(make_app(site), base_url="http://127.0.0.1:8765")
    client.cookies.set(cookie_name(8765), cookie_value("bench"))
    os.chdir(root)

    def page(path: str) -> Callable[[], object]:
        def get() -> object:
            r = client.get(path)
            assert r.status_code == 200, (path, r.status_code, r.text[:300])
            return r

        return get

    def command(*argv: str) -> Callable[[], object]:
        def run() -> object:
            r = CliRunner().invoke(cli, list(argv), obj=App(env=env, now=lambda: NOW))
            assert r.exit_code in (0, 1), (argv, r.output[-300:])
            return r

        return run

    pairs = [
        ("/passes", ("log", "--json")),
        ("/health", ("health", "--json")),
        ("/", ("status", "--json")),
        (f"/pass/{ids[-1]}", ("show", "--json", ids[-1])),
        ("/settings", ("config", "list", "--json")),
        (f"/page/{names[10]}", None),
        ("/pages", None),
        ("/journal", None),
        ("/journal/2026-11-20", None),
        ("/review", ("review", "--json")),
    ]
    print(f"{'page':34} {'server':>9}  {'command (--json, in-process)':32} {'command':>9} {'ratio':>7}")
    for path, argv in pairs:
        if argv is None:
            (t_page,) = median_times([page(path)], runs)
            print(f"{path[:34]:34} {t_page:8.3f}s  {'—':32} {'':>9} {'':>7}")
            continue
        t_page, t_cmd = median_times([page(path), command(*argv)], runs)
        print(f"{path[:34]:34} {t_page:8.3f}s  {' '.join(argv)[:32]:32} {t_cmd:8.3f}s {t_page / t_cmd:6.2f}×")


if __name__ == "__main__":
    main()
