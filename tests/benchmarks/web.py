"""What `gitgarden serve`'s pages cost beside the command line reading the same data (issue 27).

    python -m tests.benchmarks.web [--pages 5000] [--passes 1000] [--runs 5] [--workdir DIR --keep]

A synthetic project (`generate.py`) of N pages gets P pass commits (with their trailers, made by
`git fast-import`) and their records in `log/` (health before and after, provenance of one
paragraph each). Each page of the app is timed in the server's own process through the
framework's test client (the time a request takes on the server, no browser), and beside it the
command that reads the same data, `--json`, timed in-process through click's runner (imports
warm, as in the server), in turns with the page: the ratio says what the page adds to the
reading. Medians of `--runs`, after one warm-up each. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.benchmarks.__main__ import isolated_env
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=5000)
    parser.add_argument("--passes", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gitgarden-bench-web-"))
    os.environ.clear()
    os.environ.update(isolated_env(work))
    started = time.perf_counter()
    gen = generate(work / "proj", pages=args.pages)
    names = [n for n, _ in gen.titles]
    ids = add_passes(gen.root, args.passes, names)
    print(f"project: {gen.pages:,} pages, {len(ids):,} passes, made in {time.perf_counter() - started:.1f} s", file=sys.stderr)

    from click.testing import CliRunner
    from starlette.testclient import TestClient

    from gitgarden.cli.main import App, cli
    from gitgarden.web.app import make_app
    from gitgarden.web.safety import cookie_name, cookie_value
    from gitgarden.web.site import Site

    env = dict(os.environ)
    site = Site(gen.root, env, lambda: NOW, lambda s, e: None, "bench", "127.0.0.1", 8765)
    client = TestClient(make_app(site), base_url="http://127.0.0.1:8765")
    client.cookies.set(cookie_name(8765), cookie_value("bench"))
    os.chdir(gen.root)

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
            (t_page,) = median_times([page(path)], args.runs)
            print(f"{path[:34]:34} {t_page:8.3f}s  {'—':32} {'':>9} {'':>7}")
            continue
        t_page, t_cmd = median_times([page(path), command(*argv)], args.runs)
        print(f"{path[:34]:34} {t_page:8.3f}s  {' '.join(argv)[:32]:32} {t_cmd:8.3f}s {t_page / t_cmd:6.2f}×")
    if not args.keep and not args.workdir:
        import shutil

        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
