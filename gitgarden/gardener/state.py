"""The state a pass carries from step to step (docs/architecture.md, "One pass, step by step"), and the checks that can end it early.

Three stages, each made by one step and read by the ones after it:

- `Pass`: what the pass was handed (project, settings, model, clock, callbacks)
  and what it is building (the `PassResult`, the budget it spends);
- `Reading`: the journal as the read step found it — the read position, the
  unread lines, the lines set aside, the lines offered;
- `Work`: the wiki in memory between reading and writing — the tree the pass
  started from, the overlay its landed operations make, and the model-free
  work that was due.

`Interrupts.check()` is the one place a pass learns that it must end early: a
`gitgarden stop` request (Stopped) or the person coming back (StandDown).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitgarden.atomic import atomic_write
from gitgarden.gardener import setaside
from gitgarden.gardener.operations import Applied
from gitgarden.gardener.steps import Step
from gitgarden.guard import rules as guard
from gitgarden.repo import commits, recovery, worktree
from gitgarden.wiki import journal, layout, tidy
from gitgarden.wiki.placement import Placement
from gitgarden.wiki.tree import Overlay, Tree

if TYPE_CHECKING:
    from gitgarden.config import Settings
    from gitgarden.gardener.outcome import PassResult
    from gitgarden.model.llm import Budget, Model
    from gitgarden.project import Project
    from gitgarden.wiki.facts import FactsCache

__all__ = [
    "Clock", "Pass", "Reading", "Work", "Due", "Interrupts", "Stopped", "StandDown", "stop_path", "request_stop",
]  # fmt: skip

Clock = Callable[[], datetime]


def stop_path(git_dir: Path) -> Path:
    """Where `gitgarden stop` leaves its request (inside the git dir: never untracked content)."""
    return git_dir / "gitgarden" / "stop"


def request_stop(git_dir: Path, who: str, when: datetime) -> None:
    """Ask the running pass to stop at its next check."""
    atomic_write(stop_path(git_dir), json.dumps({"who": who, "when": when.isoformat()}))


class StandDown(Exception):
    """The person came back mid-pass."""


class Stopped(Exception):
    """`gitgarden stop` asked this pass to end."""


class _Watch:
    """The person's files (journal, conversation, wiki) as they were when the pass began."""

    def __init__(self, root: Path, folders: Iterable[str]) -> None:
        self.root = root
        self.folders = list(folders)
        self.seen = self._scan()

    def _scan(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        todo = list(self.folders)
        while todo:
            rel = todo.pop()
            try:
                entries = list(os.scandir(self.root / rel))
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith(".") or (rel == "." and layout.reserved_at_top(entry.name)):
                    continue  # at the root: the pass's own log/ and state are not the person coming back
                child = f"{rel}/{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    todo.append(child)
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                out[child] = (st.st_mtime_ns, st.st_size)
        return out

    def changed(self) -> list[str]:
        now = self._scan()
        return sorted(p for p in set(now) | set(self.seen) if now.get(p) != self.seen.get(p))


class Interrupts:
    """What ends a pass early: a stop request, a turn in flight, the person's files changing.

    The watch on the person's files starts at `begin()`, after the pass's own
    fetch from a remote (which changes them) and before it reads anything.
    """

    def __init__(self, project: Project, stop_file: Path, result: PassResult) -> None:
        self.project = project
        self.stop_file = stop_file
        self.result = result
        self.watch: _Watch | None = None

    def begin(self) -> None:
        """From here on, a change to the person's journal, conversation or wiki means they came back."""
        here = layout.current()
        # The journal named on its own too: inside the wiki under a hidden name (`notes/.daily`) the wiki's scan skips it.
        self.watch = _Watch(self.project.root, dict.fromkeys([*here.tree_folders(), here.journal_dir, "raw/chat"]))

    def check(self) -> None:
        """Raise Stopped or StandDown when the pass must end now (the stop request goes to the result)."""
        if self.stop_file.exists():
            try:
                self.result.stop = json.loads(self.stop_file.read_text())
            except (OSError, json.JSONDecodeError):
                self.result.stop = {}
            raise Stopped
        if self.project.turn_in_flight.exists():
            raise StandDown("a turn is in flight")
        changed = self.watch.changed() if self.watch is not None else []
        if changed:
            raise StandDown(f"{changed[0]} changed since the pass began")


def _quiet(_item: object) -> None:
    return None


@dataclass
class Pass:
    """What a pass was handed, and what it is building: the same object from the first step to the last."""

    project: Project
    settings: Settings
    model: Model | None
    now: Clock
    result: PassResult
    git_dir: Path
    facts: FactsCache | None = None  # per-page facts, machine-local: the next pass re-reads only changed pages
    on_progress: Callable[[str], None] = _quiet
    on_step: Callable[[Step], None] = _quiet
    step: recovery.Step = recovery.no_step  # called at the exact steps of the final write (tests act there)
    budget: Budget | None = None  # made by the ask step; what the model calls spent
    interrupts: Interrupts = field(init=False)
    snapshot_commit: str = ""  # the snapshot, tagged only when the pass commit lands (in the same ref update)
    _status: worktree.Status | None = field(default=None, init=False, repr=False)
    _commits: commits.CommitIndex | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.interrupts = Interrupts(self.project, stop_path(self.git_dir), self.result)

    def status(self) -> worktree.Status:
        """The work tree and the index against HEAD, read once (after the journal, before the wiki):
        which of the person's files are dirty, which day files git ignores, what HEAD holds."""
        if self._status is None:
            self._status = worktree.read_status(self.project.root)
        return self._status

    def commit_index(self) -> commits.CommitIndex:
        """The temporary index the pass's journal and pass commits are built in, one for both."""
        if self._commits is None:
            self._commits = commits.CommitIndex(self.project.root, self._status)
        return self._commits

    def close(self) -> None:
        """Remove what the pass kept in the git dir while it ran (its commit index)."""
        if self._commits is not None:
            self._commits.close()

    @property
    def jobs(self) -> list[str]:
        return self.result.jobs

    @property
    def dry_run(self) -> bool:
        return self.result.dry_run


@dataclass
class Reading:
    """The journal as the read step found it. Without the promote job only `lines` is filled:
    no line is read, offered, marked or set aside."""

    lines: list[journal.JournalLine] = field(default_factory=list)  # every journal line
    read: Mapping[str, set[str]] = field(default_factory=dict)  # the read position
    unread: list[journal.JournalLine] = field(default_factory=list)
    aside_before: Mapping[str, setaside.Entry] = field(default_factory=dict)  # set aside as the pass began
    aside: Mapping[str, setaside.Entry] = field(default_factory=dict)  # ... after `--retry`
    long_lines: Mapping[str, str] = field(default_factory=dict)  # line id -> why no prompt can hold it
    newly_long: list[journal.JournalLine] = field(default_factory=list)  # too long, not set aside yet
    offered: list[journal.JournalLine] = field(default_factory=list)  # what the pass offers the model


@dataclass
class Due:
    """The model-free work the wiki needed as the pass began (the jobs not run count as none)."""

    map_entries: bool = False  # pages the map does not reach: their entries are due
    mapped: list[str] = field(default_factory=list)  # the page names new to the map
    over_budget: list[str] = field(default_factory=list)  # the gardener's pages to split
    prune_map: bool = False  # the map is over its ceiling (or full): entries move into hubs
    link_pages: list[str] = field(default_factory=list)  # `run --job link`: every page of the gardener's
    links_due: bool = False


@dataclass
class Work:
    """The pass's in-memory state between reading and writing: the tree it started from, the overlay
    its landed operations make, and what the guard needs to judge them."""

    base: Tree
    tree: Overlay
    ctx_conversation: str
    offered: dict[str, journal.JournalLine]  # the lines offered (after the ask step: those the prompt held)
    state_evidence: dict[str, str] = field(default_factory=dict)
    split_parents: dict[str, str] = field(default_factory=dict)
    merges: dict[str, str] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)
    journal_texts: tuple[str, ...] = ()
    max_person_pages: int = 3
    person_touched: set[str] = field(default_factory=set)  # the person's pages this pass writes
    titles: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # page name -> title, aliases
    own: frozenset[str] = frozenset()  # the paths the pass writes besides pages (read position, record)
    due: Due = field(default_factory=Due)
    place: Placement = field(default_factory=Placement)  # where the gardener's own pages go, and their names
    keys: dict[str, str] = field(default_factory=dict)  # the model's key of each page created -> its name
    never_written: dict[str, str] = field(default_factory=dict)  # files git keeps through a filter -> its name
    # Offered lines the model was unsure of in the passes before (counted toward setting them aside):
    # line id -> that reason. Small mode does not ask the same model the same question again.
    unsure_before: dict[str, str] = field(default_factory=dict)

    def guard_ctx(self) -> guard.PassContext:
        return guard.PassContext(
            conversation=self.ctx_conversation,
            journal_lines=self.journal_texts,
            state_evidence=dict(self.state_evidence),
            own_paths=self.own,
            split_parents=dict(self.split_parents),
            merges=dict(self.merges),
        )

    def try_apply(self, applied: Applied) -> list[guard.Verdict | str]:
        """Add an operation's writes when the guard accepts them; else the verdicts, nothing added."""
        blocked = sorted(p for p in applied.writes if p in self.dirty)
        if blocked:
            return [f"{p} has uncommitted changes of yours; left for a later pass" for p in blocked]
        filtered = sorted(p for p in applied.writes if p in self.never_written)
        if filtered:
            return [
                f"{p} is stored by git through a filter (filter={self.never_written[p]}): never a page, never written"
                for p in filtered
            ]
        touched = self.person_touched | tidy.person_pages(self.base, set(applied.writes))
        if len(touched) > self.max_person_pages:
            # No pass rewrites a vault: past the limit, the person's pages wait for later passes.
            return [f"it would touch more than {self.max_person_pages} of your pages in one pass (max_person_pages)"]
        candidate = self.tree.with_changes(applied.writes)
        saved = (dict(self.state_evidence), dict(self.split_parents), dict(self.merges))
        self.state_evidence.update(applied.state_evidence)
        self.split_parents.update(applied.split_parents)
        self.merges.update(applied.merges)
        verdicts = guard.check(self.base, candidate, self.guard_ctx())
        if verdicts:
            self.state_evidence, self.split_parents, self.merges = saved
            return list(verdicts)
        self.tree = candidate
        self.person_touched = touched
        return []

    def offered_lines(self) -> list[journal.JournalLine]:
        """The offered lines in the order they were offered."""
        return list(self.offered.values())
