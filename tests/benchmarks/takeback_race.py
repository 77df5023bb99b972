"""The take-back race, tried many times: a script, not a test.

    python3 tests/benchmarks/takeback_race.py [--tries 60]

Two clones (A, B) of one wiki and a bare remote, real git, scripted models. In
each try A's pass lands while B's model answers, so B's push is refused
(`push_tries = 1`) and B's pass is taken back. Meanwhile the person on B appends
a line to a file B's pass wrote — the map, or the page it created (alternately)
— from another thread, after a random delay counted from the moment B starts to
push: sometimes before the take-back begins, sometimes in the middle of it,
sometimes after it ended. Half the delays spread over 1.5× the push-and-take-back
time measured in a calibration try, half over the take-back's own few
milliseconds in that try.

A try **held** when: the person's line is in the file; B's branch is back where
it was; B's index is byte for byte what the person had (`git ls-files -s`,
their own staged file included); nothing of the pass is staged; the report
lists nothing as created or appended; and the pass ended `failed` (exit 15)
without an exception. Prints one line per try and the counts by when the line
landed.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from gitgarden.config import Settings  # noqa: E402
from gitgarden.gardener.pipeline import run_pass  # noqa: E402
from gitgarden.project import Project, init_project  # noqa: E402
from tests.helpers.project import FIXED_NOW, FakeModel, capture, commit_all, page, write  # noqa: E402

LINE = b"- the person's line, typed while the push was refused\n"
SETTINGS = Settings(model="fake/scripted", remote="origin", push_tries=1)


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def isolate(tmp: Path) -> None:
    home = tmp / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Pat Person\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n")
    for var in list(os.environ):
        if var.startswith(("GITGARDEN_", "GIT_")):
            del os.environ[var]
    os.environ.update(
        HOME=str(home),
        GIT_CONFIG_GLOBAL=str(home / ".gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        GITGARDEN_CONFIG=str(home / "user.toml"),
        GITGARDEN_STATE=str(home / "state"),
        XDG_CONFIG_HOME=str(home / ".config"),
    )


def shared(tmp: Path) -> tuple[Project, Project]:
    remote = tmp / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    a = Project(init_project(tmp / "a").root)
    write(a.root, "wiki/pricing.md", page("Pricing", "Pilot price is 400 EUR a month.\n", source="[2026-11-28]"))
    write(a.root, "wiki/index.md", "# Map\n\n## Pages\n\n- [[pricing]] — Pricing\n\n## Open\n")
    write(a.root, "raw/journal/2026-11-28.md", "Pilot price set at 400 EUR a month\n")
    commit_all(a.root, "a shared wiki")
    git(a.root, "remote", "add", "origin", str(remote))
    git(a.root, "push", "-q", "-u", "origin", "main")
    subprocess.run(["git", "clone", "-q", str(remote), str(tmp / "b")], check=True, capture_output=True)
    return a, Project(tmp / "b")


class OtherMachineFirst(FakeModel):
    def __init__(self, other: Any) -> None:
        super().__init__()
        self.other = other

    def complete(self, messages: Any, schema: Any, budget: Any) -> Any:
        if self.other is not None:
            other, self.other = self.other, None
            other()
        return super().complete(messages, schema, budget)


class Person:
    """Starts a timer when B starts to push; the line lands `delay` seconds later, from another thread."""

    def __init__(self, path: Path, delay: float | None) -> None:
        self.path, self.delay = path, delay
        self.thread: threading.Thread | None = None
        self.pushed = self.began = self.ended = self.wrote = 0.0

    def __call__(self, step: str, _rel: str) -> None:
        now = time.monotonic()
        if step == "pushing" and not self.pushed:
            self.pushed = now
            if self.delay is not None:
                self.thread = threading.Thread(target=self._type)
                self.thread.start()
        elif step.startswith("take_back:"):
            self.began = self.began or now
            self.ended = now

    def _type(self) -> None:
        assert self.delay is not None
        time.sleep(self.delay)
        with open(self.path, "ab") as fh:
            fh.write(LINE)
        self.wrote = time.monotonic()


def one_try(tmp: Path, target: str, delay: float | None) -> tuple[bool, str, Person, float]:
    a, b = shared(tmp)
    write(b.root, "AGENTS.md", "# staged by the person on B\n")
    git(b.root, "add", "AGENTS.md")
    index_before = git(b.root, "ls-files", "-s")
    head_before = git(b.root, "rev-parse", "HEAD").strip()
    capture(a, "2026-11-29", "Acme wants export before January")
    capture(b, "2026-11-30", "Acme signed the pilot contract")
    ops_a = {"operations": [{"op": "append", "page": "pricing", "text": "Acme wants export before January.\n", "lines": ["2026-11-29#1"]}]}
    ops_b = {"operations": [{"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-30#1"]}]}

    def a_pass() -> None:
        run_pass(a, replace(SETTINGS, push_tries=3), model=FakeModel().enqueue(ops_a), now=lambda: FIXED_NOW)

    person = Person(b.root / target, delay)
    started = time.monotonic()
    try:
        result = run_pass(b, SETTINGS, model=OtherMachineFirst(a_pass).enqueue(ops_b), now=lambda: FIXED_NOW, step=person)
    except Exception as exc:  # noqa: BLE001 - a try that raised did not hold
        if person.thread:
            person.thread.join()
        return False, f"raised {exc!r}", person, time.monotonic() - started
    finished = time.monotonic()
    if person.thread:
        person.thread.join()
    problems = []
    if delay is not None and LINE not in (b.root / target).read_bytes():
        problems.append("the person's line is gone")
    if git(b.root, "rev-parse", "HEAD").strip() != head_before:
        problems.append("HEAD moved")
    if git(b.root, "ls-files", "-s") != index_before:
        problems.append("the index changed")
    if (result.outcome, result.exit_code) != ("failed", 15) or not result.taken_back:
        problems.append(f"outcome {result.outcome}: {result.detail}")
    if result.created or result.appended:
        problems.append(f"report lists {result.created + result.appended}")
    return not problems, "; ".join(problems), person, finished - person.pushed if person.pushed else finished - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=60)
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="gitgarden-takeback-") as tmpdir:
        tmp = Path(tmpdir)
        isolate(tmp)
        ok, _why, cal, window = one_try(tmp / "calibrate", "wiki/index.md", None)
        tb_start, tb_end = cal.began - cal.pushed, cal.ended - cal.pushed
        print(
            f"calibration: held={ok}; push and take-back took {window * 1000:.0f} ms, "
            f"the take-back from +{tb_start * 1000:.1f} to +{tb_end * 1000:.1f} ms"
        )
        held = 0
        by_when: dict[str, list[int]] = {"before the take-back": [0, 0], "during it": [0, 0], "after it": [0, 0]}
        for i in range(args.tries):
            target = ("wiki/index.md", "wiki/acme.md")[(i // 2) % 2]
            # Every other try aims at the take-back itself (a few milliseconds), the rest anywhere.
            delay = rng.uniform(0, window * 1.5) if i % 2 == 0 else rng.uniform(tb_start, tb_end + 0.002)
            good, why, person, _ = one_try(tmp / f"try{i}", target, delay)
            if not person.wrote or not person.began or person.wrote < person.began:
                when = "before the take-back"
            elif person.wrote <= person.ended:
                when = "during it"
            else:
                when = "after it"
            by_when[when][0] += 1
            by_when[when][1] += good
            held += good
            print(f"try {i + 1:3}: {target:14} line at +{delay * 1000:6.1f} ms ({when}): {'held' if good else 'LOST: ' + why}")
        print(f"\n{held} of {args.tries} tries held")
        for when, (n, good) in by_when.items():
            print(f"  line typed {when}: {good} of {n} held")
        return 0 if held == args.tries else 1


if __name__ == "__main__":
    sys.exit(main())
