"""`python -m tests.benchmarks.layout_root`: a wiki at the project root (an adopted vault) vs under `wiki/`.

    python -m tests.benchmarks.layout_root [--sizes 1000,5000] [--rounds 5] [--hidden-files 20000]

The same generated wiki (the same page, map and journal bytes) in two layouts:

- `wiki/`: the default, `wiki/` and `raw/journal/`;
- `root`: `wiki_dir = "."`, `journal_dir = "Daily notes"`, as `gitgarden init`
  adopts an Obsidian vault in place.

Both projects get the same hidden folders at their root, which no listing
may walk into: `.obsidian/` (settings and 12 plugins, committed), `.trash/` (50
deleted notes, committed) and `.sync-cache/` (`--hidden-files` small files in
200 sub-folders, about the size of a `.git` folder; listed in `.gitignore`, so
git skips it and only gitgarden's own listings could find it). Under `wiki/`
nothing walks the root, so the ratio root/wiki shows what listing the root
costs (the skipped names, the journal inside the wiki) and what the layout's
path logic costs on every path.

Rows, each a ratio root/wiki of the minimums and of the medians of interleaved
runs, on this checkout's code: a pass with the instant scripted model and a
model-free pass at each size, `gitgarden status` and `gitgarden health` on the
largest. Figures only; nothing is asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from gitgarden.wiki.layout import Layout
from tests.benchmarks.__main__ import isolated_env, say
from tests.benchmarks.generate import GIT_IDENTITY, Generated, generate
from tests.benchmarks.versus import (
    Measure,
    Variant,
    cli,
    compare,
    report,
    side_env,
    worker_pass,
)

REPO = Path(__file__).resolve().parents[2]
ROOT_LAYOUT = Layout(wiki_dir=".", journal_dir="Daily notes")
PLUGINS = 12
TRASHED = 50
HIDDEN_FOLDERS = 200
IGNORED = ".sync-cache"


def _write(path: Path, data: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data, encoding="utf-8")


def add_hidden(gen: Generated, hidden_files: int) -> Generated:
    """Give the project its hidden folders; commit the tracked ones (the base moves to that commit)."""
    root = gen.root
    for name in ("app", "appearance", "core-plugins", "workspace", "daily-notes"):
        _write(root / ".obsidian" / f"{name}.json", json.dumps({"setting": name, "values": list(range(40))}))
    for k in range(PLUGINS):
        plugin = root / ".obsidian" / "plugins" / f"plugin-{k:02d}"
        _write(plugin / "manifest.json", json.dumps({"id": f"plugin-{k:02d}", "version": "1.0.0"}))
        _write(plugin / "main.js", "// a plugin's bundle\n" + "console.log('x');\n" * 2_000)
        _write(plugin / "data.json", "{}")
    for k in range(TRASHED):  # notes: `.md` files that are not pages
        _write(root / ".trash" / f"Old note {k}.md", f"# Old note {k}\n\nDeleted, see [[hub-1-001]].\n")
    per = max(1, hidden_files // HIDDEN_FOLDERS)
    made = 0
    for d in range(HIDDEN_FOLDERS):
        folder = root / IGNORED / f"{d:02x}"
        folder.mkdir(parents=True, exist_ok=True)
        for f in range(min(per, hidden_files - made)):
            (folder / f"{d:02x}{f:038x}.md").write_bytes(b"x" * 64)
            made += 1
    ignore = root / ".gitignore"  # gitgarden init's own lines stay
    ignore.write_text((ignore.read_text() if ignore.exists() else "") + f"/{IGNORED}/\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k.startswith("GIT_CONFIG")}

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(root), *GIT_IDENTITY, *args], env=env, capture_output=True, text=True, check=True
        ).stdout

    git("add", "--", ".gitignore", ".obsidian", ".trash")
    git("commit", "-q", "--no-verify", "-m", "the vault's hidden folders")
    return dataclasses.replace(gen, base=git("rev-parse", "HEAD").strip())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.layout_root", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,5000", help="page counts of the projects")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--model-free-max",
        type=int,
        default=1000,
        help="model-free passes only on projects up to this size (the link job's sweep of every page "
        "was pages × titles before the link sweep was indexed: see the README)",
    )
    parser.add_argument("--hidden-files", type=int, default=20_000, help="files in the ignored hidden folder")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--json", type=Path, help="also write every run's figures here")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    work = args.workdir or Path(tempfile.mkdtemp(prefix="gitgarden-layout-"))
    work.mkdir(parents=True, exist_ok=True)
    env = isolated_env(work)
    os.environ.clear()
    os.environ.update(env)
    started = time.perf_counter()
    try:
        under = Variant("wiki", REPO, side_env(env, REPO))
        at_root = Variant("root", REPO, side_env(env, REPO))
        for n in sizes:
            say(f"generating {n} pages, twice …")
            under.projects[n] = add_hidden(generate(work / f"wiki-{n}", pages=n), args.hidden_files)
            at_root.projects[n] = add_hidden(
                generate(work / f"root-{n}", pages=n, layout=ROOT_LAYOUT), args.hidden_files
            )
        measures = [Measure(f"pass, scripted model, {n:,} pages", worker_pass(n, model_free=False)) for n in sizes]
        measures += [
            Measure(f"pass, model-free jobs, {n:,} pages", worker_pass(n, model_free=True))
            for n in sizes
            if n <= args.model_free_max
        ]
        measures.append(Measure(f"gitgarden status, {sizes[-1]:,} pages (wall)", cli(sizes[-1], "status")))
        measures.append(Measure(f"gitgarden health, {sizes[-1]:,} pages (wall)", cli(sizes[-1], "health")))
        compare([under, at_root], measures, args.rounds)
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    title = (
        f"gitgarden layouts: wiki/ + raw/journal/ vs the root + Daily notes/; hidden folders in both "
        f"(.obsidian/, .trash/, {IGNORED}/ of {args.hidden_files:,} ignored files); {args.rounds} interleaved rounds"
    )
    report(title, [under, at_root], measures, started, args.json)


if __name__ == "__main__":
    main()
