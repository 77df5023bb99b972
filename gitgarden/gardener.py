"""One gardener pass: the steps of DESIGN §2 and the outcome they end in.

The pass is handed everything that varies — the project, its settings, the
model (or None), the clock — so tests drive it with real git and a scripted
model. Pure work (applying operations, the guard, the map) happens on an
in-memory overlay of the project's files; only the final, guarded result is
written, after a record of what is about to change, and committed with
exactly the pass's own paths.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden import (
    gitrepo,
    grounding,
    guard,
    journal,
    layout,
    outcome,
    passcommit,
    recovery,
    setaside,
    tidy,
    wiki,
)
from gitgarden.config import Settings
from gitgarden.errors import GitError, GitgardenError, LockHeld, ModelError
from gitgarden.facts import FactsCache, page_facts
from gitgarden.lock import LOCK_NAME, PassLock
from gitgarden.ops import Applied, ApplyContext, Op, Refusal, apply_op
from gitgarden.outcome import JOBS, NO_MODEL_HINT, OUTCOMES, PassResult
from gitgarden.progress import Step
from gitgarden.project import DiskTree, Project
from gitgarden.repair import Refused
from gitgarden.repostate import blocking_state
from gitgarden.tree import Overlay, Tree, changed_paths, file, text_of

if TYPE_CHECKING:
    from gitgarden.llm import Answer, Budget, Model, Usage

__all__ = ["JOBS", "OUTCOMES", "PassResult", "run_pass", "select_jobs", "Clock", "utcnow", "stop_path", "request_stop"]

Clock = Callable[[], datetime]

def utcnow() -> datetime:
    """The real clock (UTC, aware)."""
    return datetime.now(UTC)


def select_jobs(named: Iterable[str] | None) -> list[str]:
    """The jobs a pass runs, in the fixed order of JOBS (None or none named: all of them)."""
    wanted = set(named or ())
    if not wanted:
        return list(JOBS)
    unknown = sorted(wanted - set(JOBS))
    if unknown:
        raise GitgardenError(f"unknown job {unknown[0]!r}: the jobs are {', '.join(JOBS)}")
    return [job for job in JOBS if job in wanted]


MERGE_NOTE = "Merges are proposed by the model in the promote job: `gitgarden run --job promote` (or a full pass) runs them."


def stop_path(git_dir: Path) -> Path:
    """Where `gitgarden stop` leaves its request (inside the git dir: never untracked content)."""
    return git_dir / "gitgarden" / "stop"


def request_stop(git_dir: Path, who: str, when: datetime) -> None:
    """Ask the running pass to stop at its next check."""
    path = stop_path(git_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"who": who, "when": when.isoformat()}))


class _StandDown(Exception):
    """The person came back mid-pass."""


class _Stopped(Exception):
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
                    continue  # a wiki at the root: the pass's own log/ and raw/ are not the person's
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


def _new_pass_id(now: datetime) -> str:
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(2)}"


@dataclass
class _Work:
    """The pass's in-memory state between reading and writing."""

    base: Tree
    tree: Overlay
    ctx_conversation: str
    offered: dict[str, journal.JournalLine]
    state_evidence: dict[str, str] = field(default_factory=dict)
    split_parents: dict[str, str] = field(default_factory=dict)
    merges: dict[str, str] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)
    journal_texts: tuple[str, ...] = ()
    max_person_pages: int = 3
    person_touched: set[str] = field(default_factory=set)  # the person's pages this pass writes

    def guard_ctx(self, own: frozenset[str]) -> guard.PassContext:
        return guard.PassContext(
            conversation=self.ctx_conversation,
            journal_lines=self.journal_texts,
            state_evidence=dict(self.state_evidence),
            own_paths=own,
            split_parents=dict(self.split_parents),
            merges=dict(self.merges),
        )

    def try_apply(self, applied: Applied, own: frozenset[str]) -> list[guard.Verdict | str]:
        """Add an operation's writes when the guard accepts them; else the verdicts, nothing added."""
        blocked = sorted(p for p in applied.writes if p in self.dirty)
        if blocked:
            return [f"{p} has uncommitted changes of yours; left for a later pass" for p in blocked]
        touched = self.person_touched | tidy.person_pages(self.base, set(applied.writes))
        if len(touched) > self.max_person_pages:
            # No pass rewrites a vault: past the limit, the person's pages wait for later passes.
            return [f"it would touch more than {self.max_person_pages} of your pages in one pass (max_person_pages)"]
        candidate = self.tree.with_changes(applied.writes)
        saved = (dict(self.state_evidence), dict(self.split_parents), dict(self.merges))
        self.state_evidence.update(applied.state_evidence)
        self.split_parents.update(applied.split_parents)
        self.merges.update(applied.merges)
        verdicts = guard.check(self.base, candidate, self.guard_ctx(own))
        if verdicts:
            self.state_evidence, self.split_parents, self.merges = saved
            return list(verdicts)
        self.tree = candidate
        self.person_touched = touched
        return []


@dataclass
class _Round:
    """What one model round's operations came to."""

    landed: int = 0  # operations that landed, "already there" ones included (skips are not counted)
    read: set[str] = field(default_factory=set)  # offered lines cited by a landed operation or a skip
    refused: list[Refused] = field(default_factory=list)


@dataclass
class _Ledger:
    """Every offered line accounted for across the rounds: read, or held unread by a refusal.

    A later round speaks for the lines it cites: a line refused in the first
    round and landed in the repair round is read; a line an operation landed
    for but another refused stays unread (re-promoting it is idempotent, losing
    it is not).
    """

    status: dict[str, str] = field(default_factory=dict)  # line id -> "read" | "refused"
    last_refusal: dict[str, str] = field(default_factory=dict)
    held: list[list[str]] = field(default_factory=list)  # the offered lines each refusal cited
    rounds: list[_Round] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # why a repair round was not asked
    listed: int = 0  # refusal sentences the rounds added to the record

    def add(self, rnd: _Round, offered: Mapping[str, journal.JournalLine]) -> None:
        refused: dict[str, str] = {}
        for item in rnd.refused:
            self.held.append(item.cited(offered))
            for line_id in item.cited(offered):
                refused.setdefault(line_id, (item.reasons() or ["refused"])[0])
        for line_id in rnd.read - set(refused):
            self.status[line_id] = "read"
        for line_id, reason in refused.items():
            self.status[line_id] = "refused"
            self.last_refusal[line_id] = f"{_op_of(rnd, line_id)}: {reason}"
        self.rounds.append(rnd)

    def ids(self, state: str) -> set[str]:
        return {i for i, s in self.status.items() if s == state}

    @property
    def landed(self) -> int:
        return sum(r.landed for r in self.rounds)

    def open_refusals(self) -> bool:
        """True when a refusal stands. A refusal is resolved only when every offered line it cited
        ends read (a later round landed it); one citing no offered line never is."""
        return any(not ids or any(self.status.get(i) != "read" for i in ids) for ids in self.held)

    def record(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = [{"refused": len(r.refused), "landed": r.landed} for r in self.rounds]
        if out and self.notes:
            out[-1]["repair"] = "; ".join(self.notes)
        return out


def _op_of(rnd: _Round, line_id: str) -> str:
    for item in rnd.refused:
        if line_id in item.op.lines:
            return item.op.describe()
    return "?"


def _conversation(project: Project, limit: int) -> str:
    """The last `limit` characters of the newest conversation transcripts (symlinks not followed)."""
    if limit <= 0 or not project.chat.is_dir():
        return ""
    files = sorted(
        (p for p in project.chat.iterdir() if p.is_file() and not p.is_symlink() and not p.name.startswith(".")),
        key=lambda p: (p.stat().st_mtime, p.name),
    )
    chunks: list[str] = []
    size = 0
    for path in reversed(files):
        text = path.read_bytes().decode("utf-8", "replace")
        chunks.append(text)
        size += len(text)
        if size >= limit:
            break
    return "\n".join(reversed(chunks))[-limit:]


def _identity_texts(project: Project, settings: Settings) -> list[tuple[str, str]]:
    """Configured identity files, never through a symlink. Relative names must stay inside the
    project; absolute ones only come from the person's own settings (config drops them from a
    project file)."""
    out: list[tuple[str, str]] = []
    root = project.root.resolve()
    for name in settings.identity_files:
        given = Path(name).expanduser()
        path = given if given.is_absolute() else project.root / given
        if path.is_symlink() or not path.is_file():
            continue
        if not given.is_absolute():
            try:
                path.resolve().relative_to(root)
            except ValueError:
                continue
            if any((project.root / Path(*given.parts[: i + 1])).is_symlink() for i in range(len(given.parts))):
                continue
        out.append((name, path.read_text(encoding="utf-8", errors="replace")[:20_000]))
    return out


def run_pass(
    project: Project,
    settings: Settings,
    *,
    model: Model | None,
    now: Clock = utcnow,
    dry_run: bool = False,
    on_progress: Callable[[str], None] = lambda _msg: None,
    on_step: Callable[[Step], None] = lambda _step: None,
    step: recovery.Step = recovery.no_step,
    retry: bool = False,
    trigger: str = "run",
    jobs: Iterable[str] | None = None,
) -> PassResult:
    """Run one pass on `project` and return its result; the project is left consistent whatever happens.

    `on_progress` gets messages for the person; `on_step` the step the pass is at (for a progress display).
    `step` is called at the exact steps of the final write (recovery.Step): tests act there as the person would.
    `trigger` says who asked (`run by NAME <EMAIL>`, `tick`, `ci`): it goes to the record and the
    `Gardener-Trigger` trailer.
    `jobs` names the jobs to run (JOBS; None: all). Without `promote` no journal line is read,
    offered, marked or set aside, and the model is never asked.
    """
    started = now()
    result = PassResult(
        pass_id=_new_pass_id(started),
        outcome="failed",
        started=started.isoformat(),
        record_path=outcome.log_path(started),
        dry_run=dry_run,
        retry=retry,
        trigger=trigger,
        jobs=select_jobs(jobs),
    )
    if "promote" not in result.jobs:
        model = None  # the model-free jobs never call (or import) the model library
        if "merge" in result.jobs:
            result.hints.append(MERGE_NOTE)
    result.model = getattr(model, "name", "") if model is not None else ""
    # Every git process of the pass: never interactive, never longer than git_timeout.
    with gitrepo.git_policy(gitrepo.GitPolicy(timeout=float(settings.git_timeout), sign_commits=settings.sign_commits)):
        try:
            with layout.active(project.layout.with_identity(settings.identity_files)):
                return _run_pass(project, settings, model, now, result, on_progress, on_step, step)
        except (GitgardenError, OSError) as exc:
            # A failure the pass did not expect still ends as an outcome with a record and one line.
            if result.commit:  # after its commit landed: the pass stands, the failure is noted
                result.hints.append(f"after the commit: {_failure_detail(exc)}")
                return result
            result.outcome, result.detail, result.marked_read = "failed", _failure_detail(exc), 0
            return _finish(project, result, now, record=not dry_run)


def _failure_detail(exc: GitgardenError | OSError) -> str:
    if isinstance(exc, GitgardenError):
        return str(exc)
    where = f" ({exc.filename})" if exc.filename else ""
    fix = "; free some space, then run gitgarden again" if exc.errno == errno.ENOSPC else ""
    return f"{exc.strerror or exc}{where}{fix}"


def _run_pass(
    project: Project,
    settings: Settings,
    model: Model | None,
    now: Clock,
    result: PassResult,
    on_progress: Callable[[str], None],
    on_step: Callable[[Step], None],
    step: recovery.Step,
) -> PassResult:
    dry_run = result.dry_run
    root = project.root
    git_dir = gitrepo.git_dir(root)
    blocked = blocking_state(root, git_dir)
    if blocked:
        # No record in log/: the work tree belongs to the git operation the person is finishing.
        result.outcome, result.detail = "refused", blocked
        return _finish(project, result, now, record=False)
    not_read = journal.not_read_names(project.journal)
    if not_read:
        result.hints.append(journal.not_read_warning(not_read))
    if not settings.sign_commits and gitrepo.git(root, "config", "--bool", "commit.gpgsign", check=False).strip() == b"true":
        result.hints.append("gitgarden's commits are not signed although commit.gpgsign is on: sign_commits = false")
    if project.turn_in_flight.exists():
        result.outcome, result.detail = "refused", "a turn is in flight (.gitgarden/turn-in-flight)"
        return _finish(project, result, now, record=not dry_run)
    killed = _killed_pass(git_dir)  # read before the lock is taken: taking it clears what a killed holder left
    try:
        with PassLock(git_dir, {"pass_id": result.pass_id, "started": result.started}):
            if killed and not dry_run and not passcommit.is_committed(root, killed):
                passcommit.drop_snapshot(root, killed)  # its snapshot marks a pass that never committed
            facts = FactsCache(git_dir / "gitgarden" / "facts.pickle")
            try:
                _run_locked(project, settings, model, now, result, git_dir, on_progress, facts, on_step, step)
            except recovery.ChangedUnderfoot as exc:  # a day file changed between two reads of it
                result.outcome, result.detail, result.marked_read = "stood_down", str(exc), 0
            except GitError as exc:  # e.g. the journal commit: a stale index lock, the person's hook said no
                result.outcome, result.detail, result.marked_read = "failed", str(exc), 0
            finally:
                if not dry_run:
                    facts.save()  # machine-local, in the git dir: the next pass re-reads only changed pages
                if result.snapshot and not result.commit and not result.taken_back and not dry_run:
                    # `pre_gardener/<id>` marks passes that committed: a pass without a commit has nothing to undo.
                    passcommit.drop_snapshot(root, result.pass_id)
                    result.snapshot = ""
    except LockHeld as exc:
        # No record: the pass holding the lock is writing log/ now, and this one said so on stderr.
        result.outcome, result.detail = "refused", str(exc)
        return _finish(project, result, now, record=False)
    # Attempts that made no commit leave a record only when they need a look (or are needed
    # later: a map that could not get under its ceiling); a quiet "nothing new" leaves no trace.
    worth = result.outcome in _RECORD_WITHOUT_COMMIT or result.map_chars is not None
    return _finish(project, result, now, record=not dry_run and worth and not result.commit)


def _killed_pass(git_dir: Path) -> str:
    """The id of a pass killed while it held the lock (a pass that ends, however it ends, clears the file)."""
    try:
        info = json.loads((git_dir / LOCK_NAME).read_text() or "{}")
    except (OSError, ValueError):
        return ""
    return str(info.get("pass_id") or "") if isinstance(info, dict) else ""


_RECORD_WITHOUT_COMMIT = frozenset({"failed", "refused", "stopped", "stood_down", "finished_without_writing", "some_refused"})


def _finish(project: Project, result: PassResult, now: Clock, *, record: bool) -> PassResult:
    result.finished = now().isoformat()
    if not result.commit and not result.dry_run:
        result.hold_back_writes()  # a report names only writes that landed
    if record:
        # An attempt without a commit is recorded in the git dir, never in the person's work tree.
        try:
            git_dir = gitrepo.git_dir(project.root)
            result.record_path = _shown_path(project.root, outcome.attempts_path(git_dir))
            outcome.append_attempt(git_dir, result.record())
        except (OSError, GitgardenError):
            pass
    return result


def _shown_path(root: Path, path: Path) -> str:
    """`path` relative to the project when it is inside it (`.git/gitgarden/…`), else as it is."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _run_locked(
    project: Project,
    settings: Settings,
    model: Model | None,
    now: Clock,
    result: PassResult,
    git_dir: Path,
    on_progress: Callable[[str], None],
    facts: FactsCache,
    on_step: Callable[[Step], None],
    step: recovery.Step = recovery.no_step,
) -> None:
    root = project.root
    stop_file = stop_path(git_dir)
    if not result.dry_run:
        stop_file.unlink(missing_ok=True)  # a stale request must not stop this new pass
        found = passcommit.roll_back(root, git_dir, lambda pid: passcommit.is_committed(root, pid))
        if found is not None:
            result.recovery = found.summary()
            on_progress(result.recovery)
    if settings.remote and not result.dry_run and not _sync_remote(root, settings, result, on_progress):
        return
    watch = _Watch(root, [*layout.current().tree_folders(), "raw/chat"])

    def check_interrupts() -> None:
        if stop_file.exists():
            try:
                result.stop = json.loads(stop_file.read_text())
            except (OSError, json.JSONDecodeError):
                result.stop = {}
            raise _Stopped
        if project.turn_in_flight.exists():
            raise _StandDown("a turn is in flight")
        changed = watch.changed()
        if changed:
            raise _StandDown(f"{changed[0]} changed since the pass began")

    # Read.
    jobs = result.jobs
    from gitgarden import review

    read: Mapping[str, set[str]] = {}
    unread: list[journal.JournalLine] = []
    aside_before: Mapping[str, setaside.Entry] = {}
    aside: Mapping[str, setaside.Entry] = {}
    long_lines: Mapping[str, str] = {}
    newly_long: list[journal.JournalLine] = []
    offered: list[journal.JournalLine] = []
    # Jobs without promote leave the journal alone: no line is read, offered, marked or set aside.
    if "promote" in jobs:
        read_text = (project.state / "read.json").read_text() if (project.state / "read.json").exists() else None
        read_text = review.review_read_text(root, read_text)  # lines waiting for review are read: never promoted twice
        try:
            read = journal.load_read(read_text, strict=True)
        except journal.ReadPositionError as exc:
            result.detail = f"{exc}: mend it, or restore it with `git checkout -- {journal.READ_PATH}` (removing it makes every journal line unread)"
            return  # outcome stays "failed"; nothing was read, tagged or written
    lines = journal.all_lines(project.journal)
    if "promote" in jobs:
        unread = journal.unread_lines(lines, read)
        aside_before = setaside.load(_set_aside_text(project))
        aside = setaside.retry(aside_before) if result.retry else aside_before
        # Lines refused pass after pass wait for an edit or --retry; a line too long for any prompt is
        # looked at again every pass (a raised budget lets it in), and never blocks the lines behind it.
        waiting = [ln for ln in unread if not setaside.is_aside(aside, ln, setaside.REFUSED)]
        long_lines = setaside.too_long(waiting, setaside.line_room(settings, project.name))
        newly_long = [ln for ln in waiting if ln.id in long_lines and not setaside.is_aside(aside, ln)]
        waiting = [ln for ln in waiting if ln.id not in long_lines]
        offered = waiting[: settings.max_lines]
        result.overflow = len(waiting) - len(offered)
    on_step(Step("reading", f"{len(offered)} unread line(s)"))
    base: Tree = DiskTree(root, layout.current().tree_folders(), [journal.READ_PATH, setaside.SET_ASIDE_PATH], facts_cache=facts)
    if settings.review:  # build on what waits for review, so the review commit stacks on it cleanly
        base = review.review_base(root, base)
    dirty = gitrepo.dirty_paths(root, layout.current().wiki_folders())
    titles = tidy.page_titles(base)
    tree = Overlay(base)
    work = _Work(
        base=base,
        tree=tree,
        ctx_conversation="",
        offered={ln.id: ln for ln in offered},
        dirty=dirty,
        journal_texts=tuple(ln.text for ln in lines),
        max_person_pages=settings.max_person_pages,
    )
    own = frozenset({journal.READ_PATH, setaside.SET_ASIDE_PATH, result.record_path})

    # What needs no model: map entries for pages the map does not reach, links in those pages.
    map_writes, mapped, unplaced = tidy.map_entries(base, titles, dirty)
    if "map" not in jobs:
        map_writes, mapped = {}, []
    # Only the gardener's own pages are split on its own; the person's are a health advisory.
    over_budget = [p for p in tidy.over_budget(base) if p not in dirty and tidy.is_gardeners(base, p)] if "split" in jobs else []
    prune_map = False
    if "hubs" in jobs:
        map_text = tidy.read_text(base, wiki.map_path()) or ""
        last_map = passcommit.last_map_chars(project)
        prune_map = len(map_text) > wiki.MAP_CEILING and (last_map is None or len(map_text) > last_map)
        # A full map with pages it cannot list: its entries move into hubs to make room for the hubs' lines.
        prune_map = prune_map or bool(unplaced and tidy.prune_into_hubs(base, titles, map_text))
    # The link job named without all the others reaches every page of the gardener's; a full pass
    # links only the pages it writes and the pages new to the map.
    link_pages = _gardeners_pages(base, dirty) if "link" in jobs and not result.all_jobs else []
    links_due = bool(link_pages and tidy.wrap_mentions(base, link_pages, titles))
    if not offered and not map_writes and not over_budget and not prune_map and not newly_long and not links_due:
        result.outcome = "nothing_new"
        if "health" in jobs and not result.all_jobs:  # `run --job health`: the figures, though nothing is written
            from gitgarden.health import measure

            now_figures = measure(base, unread_lines=_unread_count(project, offered, result)).summary()
            result.health_before, result.health_after = now_figures, now_figures
            result.job_figures["health"] = now_figures
        return

    # Snapshot.
    if not result.dry_run:
        on_step(Step("snapshot"))
        try:
            result.snapshot = f"pre_gardener/{result.pass_id}"
            gitrepo.snapshot(
                root,
                result.snapshot,
                message=f"gitgarden snapshot before pass {result.pass_id}",
                ident=(settings.author_name, settings.author_email),
            )
        except GitgardenError as exc:
            result.snapshot, result.snapshot_error = "", str(exc)
            on_progress(f"snapshot failed ({exc}); the pass goes on")

    budget = None
    ledger: _Ledger | None = None
    figures = result.job_figures
    promoted = {"created": 0, "appended": 0, "refused": 0}
    try:
        if offered and model is not None:
            from gitgarden.llm import Budget

            budget = Budget(tokens=settings.token_budget, seconds=float(settings.seconds_budget))
            if not result.dry_run:
                result.journal_commit = passcommit.commit_journal(root, offered, result.pass_id, base)
            work.ctx_conversation = _conversation(project, settings.chat_window_chars)
            answer, offered = _ask(project, settings, model, work, titles, offered, result, check_interrupts, now, budget, on_step)
            on_step(Step("applying", f"{len(answer.operations)} operation(s)", tokens=budget.spent.total_tokens))
            ledger = _promote(answer, settings, model, work, result, own, now, titles, check_interrupts, budget)
            promoted = {"created": len(result.created), "appended": len(result.appended), "refused": len(result.refusals)}
        if "merge" in jobs:
            figures["merge"] = {"merged": len(work.merges)}  # the model's merges, landed through promote
        # Pages still over budget are split at their headings; a map over its ceiling is pruned.
        if "split" in jobs:
            figures["split"] = {"pages": 0}
        for path in over_budget:
            if path in work.tree and len(tidy.read_text(work.tree, path) or "") > wiki.PAGE_BUDGET:
                figures["split"]["pages"] += int(_heading_split(work, path, result, own, titles))
        if "hubs" in jobs:
            figures["hubs"] = {"hubs": len(_prune_map(work, result, own, titles)) if prune_map else 0}
        # Links in the pages this pass writes, and in pages new to the map.
        written = [p for p in changed_paths(base, work.tree) if wiki.page_name(p)]
        # Pages new to the map take links only when they are the gardener's (never the person's
        # page the pass does not otherwise write).
        new_to_map = {wiki.page_path(n) for n in mapped if tidy.is_gardeners(base, wiki.page_path(n))}
        link_targets = sorted(set(written) | new_to_map - dirty | set(link_pages))
        titles_now = {**titles, **tidy.page_titles({p: work.tree[p] for p in written if p in work.tree})}
        if "link" in jobs:
            figures["link"] = {"pages": 0}
            link_writes = tidy.wrap_mentions(work.tree, link_targets, titles_now)
            if link_writes:
                errors = work.try_apply(Applied(Op("link", {}, (), -1), writes=link_writes), own)
                if errors:
                    result.refusals.extend(f"links: {e}" for e in errors)
                else:
                    result.tidied.extend(sorted(set(link_writes) - set(written)))
                    figures["link"]["pages"] = len(link_writes)
        # Map last. Without the map job, the pages this pass created still get their entries:
        # no page a pass makes is left where the map does not reach it.
        skip = dirty if "map" in jobs else _not_created(work.tree, dirty, result.created)
        map_writes, added, _ = tidy.map_entries(work.tree, titles_now, skip)
        if map_writes and wiki.map_path() not in dirty:
            errors = work.try_apply(Applied(Op("map", {}, (), -1), writes=map_writes), own)
            if errors:
                result.refusals.extend(f"map: {e}" for e in errors)
                added = []
            else:
                result.tidied.extend(p for p in sorted(map_writes) if p not in result.tidied)
        else:
            added = []
        if "map" in jobs:
            figures["map"] = {"entries": len(added)}
    except _Stopped:
        result.outcome = "stopped"
        return
    except _StandDown as exc:
        result.outcome, result.detail = "stood_down", str(exc)
        return
    except ModelError as exc:
        result.outcome, result.detail = "failed", str(exc)
        return
    finally:
        _charge(result, None if budget is None else budget.spent)

    changes = changed_paths(base, work.tree)
    final_verdicts = guard.check(base, work.tree, work.guard_ctx(own))
    if final_verdicts:
        result.outcome = "failed"
        result.detail = "the guard refused the pass's whole diff: " + "; ".join(map(str, final_verdicts[:3]))
        result.refusals.extend(str(v) for v in final_verdicts)
        return

    accounting = _account(result, read, aside_before, aside, unread, offered, ledger, long_lines) if "promote" in jobs else {}
    if "promote" in jobs:
        figures["promote"] = {"offered": len(result.offered), "read": result.marked_read, **promoted}
    result.outcome = _decide(result, model, offered, changes, ledger)
    if prune_map:
        result.map_chars = len(tidy.read_text(work.tree, wiki.map_path()) or "")
        if result.map_chars > wiki.MAP_CEILING and not changes:
            result.outcome = "finished_without_writing"
            result.detail = (
                f"the map is {result.map_chars} characters, over its {wiki.MAP_CEILING} ceiling, and holds no "
                "entries to move; not retried until it grows"
            )
    writes: dict[str, bytes] = {p: work.tree[p].data for p in changes}
    writes.update(accounting)  # the read position and the set-aside lines, in the same commit as the pages
    if not writes:
        return
    result.map_chars = len(tidy.read_text(work.tree, wiki.map_path()) or "")
    if "health" in jobs:
        from gitgarden.health import measure

        unread_before = _unread_count(project, offered, result)
        result.health_before = measure(base, unread_lines=unread_before).summary()
        result.health_after = measure(work.tree, unread_lines=unread_before - result.marked_read).summary()
        figures["health"] = result.health_after
    if result.dry_run:
        result.diff = passcommit.diff(base, work.tree, changes)
        return
    try:
        check_interrupts()
    except _Stopped:
        result.outcome = "stopped"
        return
    except _StandDown as exc:
        result.outcome, result.detail = "stood_down", str(exc)
        return
    on_step(Step("committing"))
    read_before = {p: base[p].data if p in base else None for p in writes}  # what the pass's writes were made from
    try:
        passcommit.write_and_commit(project, settings, result, writes, git_dir, now, read_before, step)
    except recovery.ChangedUnderfoot as exc:  # the person wrote to a file in the moment the pass replaced it
        result.outcome, result.detail, result.marked_read = "stood_down", str(exc), 0
    except GitgardenError as exc:  # e.g. the person's pre-commit hook said no: every write was rolled back
        result.outcome, result.detail, result.marked_read = "failed", f"the pass commit did not land: {exc}", 0
        return
    if settings.remote and result.commit:
        _publish(project, settings, result, lambda b, n: _reguard(root, b, n, work.guard_ctx(own)), on_progress)


def _sync_remote(root: Path, settings: Settings, result: PassResult, on_progress: Callable[[str], None]) -> bool:
    """Fetch and fast-forward (or merge) before reading; False when the pass must not go on."""
    from gitgarden import remote

    try:
        result.remote = remote.sync_before(
            root,
            settings.remote,
            merge=settings.sync == "merge",
            timeout=settings.remote_timeout,
            ident=(settings.author_name, settings.author_email),
        )
    except remote.RemoteRefused as exc:
        result.outcome, result.detail = "refused", str(exc)
        return False
    except remote.RemoteFailed as exc:
        result.outcome, result.detail = "failed", str(exc)
        return False
    on_progress(result.remote)
    return True


def _reguard(root: Path, base_rev: str, new_rev: str, ctx: guard.PassContext) -> list[str]:
    """The guard on the pass replayed onto a new remote tip: the pages it appended to may have grown."""
    prefixes = [*layout.current().tree_folders(), ".gitgarden", "log"]
    base = gitrepo.tree_at(root, base_rev, prefixes)
    new = gitrepo.tree_at(root, new_rev, prefixes)
    return [str(v) for v in guard.check(base, new, ctx)]


def _publish(
    project: Project,
    settings: Settings,
    result: PassResult,
    reguard: Callable[[str, str], list[str]],
    on_progress: Callable[[str], None],
) -> None:
    """Push the pass; a pass that cannot land on the remote is taken back here and ends `failed`."""
    from gitgarden import remote

    root = project.root
    if settings.review:
        from gitgarden.review import REVIEW_BRANCH

        branch: str | None = REVIEW_BRANCH
        tries = 1  # the review branch is the person's to merge: never replayed, only pushed
    else:
        branch, tries = None, settings.push_tries
    tags = [result.snapshot] if settings.push_tags and result.snapshot else []
    try:
        done = remote.publish(
            root,
            settings.remote,
            pass_commit=result.commit,
            journal_commit="" if settings.review else result.journal_commit,
            branch=branch,
            tries=tries,
            timeout=settings.remote_timeout,
            reguard=reguard,
            journal_dir=project.journal.relative_to(root).as_posix(),
            tags=tags,
            take_back_on_failure=not settings.review,
        )
    except remote.RemoteFailed as exc:
        result.detail = str(exc)
        result.remote = "; ".join(x for x in (result.remote, "not pushed") if x)
        result.outcome = "failed"
        if exc.taken_back:  # its snapshot tag stays: the pass did commit here, and was taken back
            result.taken_back, result.commit, result.marked_read = result.commit, "", 0
        on_progress(str(exc))
        return
    result.commit, result.journal_commit = done.commit, done.journal_commit
    result.remote = "; ".join(x for x in (result.remote, done.summary) if x)
    on_progress(done.summary)


def _charge(result: PassResult, usage: Usage | None) -> None:
    if usage is not None:
        result.prompt_tokens, result.completion_tokens, result.cost = (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.cost,
        )


def _decide(
    result: PassResult, model: Model | None, offered: list[journal.JournalLine], changes: list[str], ledger: _Ledger | None
) -> str:
    if not offered:
        if result.set_aside and not changes:
            result.detail = result.detail or f"{len(result.set_aside)} journal line(s) set aside: {result.set_aside[0]}"
            return "finished_without_writing"
        return "tidied" if changes else "nothing_new"
    if model is None or ledger is None:
        result.hints.append(NO_MODEL_HINT)
        return "no_model"
    read = ledger.ids("read")
    tidy_refused = len(result.refusals) > ledger.listed
    if ledger.open_refusals() or tidy_refused:
        if changes or read:
            return "some_refused"
        result.detail = result.detail or "every operation was refused; their lines stay unread"
        return "finished_without_writing"
    if not read and not ledger.landed:
        # An empty reply, or one that cites no offered line: nothing is read, nothing is lost.
        result.detail = result.detail or f"the reply cited none of the {len(offered)} line(s) offered; they stay unread"
        return "finished_without_writing"
    return "pages_written" if changes else "nothing_earned"


def _account(
    result: PassResult,
    read: Mapping[str, set[str]],
    aside_before: Mapping[str, setaside.Entry],
    aside: Mapping[str, setaside.Entry],
    unread: list[journal.JournalLine],
    offered: list[journal.JournalLine],
    ledger: _Ledger | None,
    long_lines: Mapping[str, str],
) -> dict[str, bytes]:
    """Every offered line accounted for: the read position and the set-aside lines the pass
    commits (bytes by path, only what changed), and what the record says about the rest."""
    writes: dict[str, bytes] = {}
    status = {} if ledger is None else ledger.status
    read_lines = [ln for ln in offered if status.get(ln.id) == "read"]
    if ledger is not None:
        result.not_cited = [ln.id for ln in offered if ln.id not in status]
        result.rounds = ledger.record()
    if read_lines:
        writes[journal.READ_PATH] = journal.render_read(journal.mark_read(read, read_lines)).encode()
        result.marked_read = 0 if result.dry_run else len(read_lines)
    refused = {} if ledger is None else {i: ledger.last_refusal[i] for i in ledger.ids("refused")}
    state, newly = setaside.account(
        aside,
        unread=unread,
        offered=offered if ledger is not None else [],  # no model answered: no line's run moves
        refused=refused,
        long_lines=long_lines,
        pass_id=result.pass_id,
    )
    for entry in newly:
        why = "too long for any prompt" if entry.why == setaside.TOO_LONG else f"refused in {setaside.STRIKES} passes in a row"
        result.set_aside.append(f"{entry.line} ({why}: {entry.reason})")
        result.hints.append(f"Set aside {entry.line}, {why}: {entry.advice()}.")
    if state != aside_before:
        writes[setaside.SET_ASIDE_PATH] = setaside.render(state).encode()
    return writes


def _set_aside_text(project: Project) -> str | None:
    """`.gitgarden/set-aside.json` as a pass starts from it: the newest pass waiting for review
    wrote it, else the work tree holds it (never read through a symlink)."""
    from gitgarden import review

    tip = review.review_waiting(project.root)
    if tip is not None:
        entry = gitrepo.tree_at(project.root, tip, [setaside.SET_ASIDE_PATH]).get(setaside.SET_ASIDE_PATH)
        if entry is not None:
            return text_of(entry)
    path = project.root / setaside.SET_ASIDE_PATH
    if path.is_symlink() or not path.is_file():
        return None
    return path.read_bytes().decode("utf-8", "replace")


_REPAIR_OUTPUT_MIN = 256  # tokens a repair round must have left for its answer


def _promote(
    answer: Answer,
    settings: Settings,
    model: Model,
    work: _Work,
    result: PassResult,
    own: frozenset[str],
    now: Clock,
    titles: dict[str, tuple[str, list[str]]],
    check_interrupts: Callable[[], None],
    budget: Budget,
) -> _Ledger:
    """Apply the model's operations; while some are refused, show the model its refusals in the same
    conversation and apply its corrections (at most `repair_rounds` times, within the budget)."""
    from gitgarden import llm, repair

    ledger = _Ledger()
    rnd = _apply_all(answer.operations, work, result, own, now, titles, settings.grounding_min, ledger)
    ledger.add(rnd, work.offered)
    for n in range(2, settings.repair_rounds + 2):
        if not rnd.refused:
            break
        convo = llm.follow_up(answer, repair.request(rnd.refused, work.offered))
        short = _no_room_for(convo, settings, budget)
        if short:
            ledger.notes.append(f"round {n} not asked: {short}")
            break
        try:
            answer = _call_model(model, convo, budget, check_interrupts, result)
        except ModelError as exc:  # the first round's work stands; the refused lines stay unread
            ledger.notes.append(f"round {n} failed: {exc}")
            break
        rnd = _apply_all(answer.operations, work, result, own, now, titles, settings.grounding_min, ledger, label=f"round {n}: ")
        ledger.add(rnd, work.offered)
    return ledger


def _no_room_for(convo: list[dict[str, str]], settings: Settings, budget: Budget) -> str:
    """Why the budget cannot take a repair call with this conversation ('' when it can)."""
    from gitgarden.context import estimate_tokens

    need = sum(estimate_tokens(m["content"]) + 4 for m in convo) + _REPAIR_OUTPUT_MIN
    if budget.seconds_left() <= 0:
        return "the pass's seconds_budget is spent"
    if need > budget.tokens_left():
        return f"it needs about {need:,} tokens and the token_budget has {max(0, budget.tokens_left()):,} left"
    if need > settings.context_window:
        return f"it needs about {need:,} tokens, over the model's context_window of {settings.context_window:,}"
    return ""


def _ask(
    project: Project,
    settings: Settings,
    model: Model,
    work: _Work,
    titles: Mapping[str, tuple[str, list[str]]],
    offered: list[journal.JournalLine],
    result: PassResult,
    check_interrupts: Callable[[], None],
    now: Clock,
    budget: Budget,
    on_step: Callable[[Step], None],
) -> tuple[Answer, list[journal.JournalLine]]:
    """Ask the model; returns its answer and the lines the prompt really held (the rest wait)."""
    from gitgarden import context, llm

    agents = project.root / "AGENTS.md"
    inputs = context.ContextInputs(
        project_name=project.name,
        agents_md=agents.read_text(encoding="utf-8", errors="replace") if agents.is_file() and not agents.is_symlink() else "",
        identity=_identity_texts(project, settings),
        map_text=tidy.read_text(work.base, wiki.map_path()) or "",
        pages=_page_infos(work.base, titles),
        read_page=lambda name: tidy.read_text(work.base, wiki.page_path(name)),
        unread=offered,
        overflow=result.overflow,
        conversation=work.ctx_conversation,
        today=f"{now().astimezone():%Y-%m-%d}",  # the person's day, as capture writes it
        candidates=tidy.candidates(offered, titles),
        review_summary=_review_summary(project.root) if settings.review else "",
    )
    messages, report = context.build_messages(inputs, settings)
    shown = set(report.lines_offered)
    held_back = [ln for ln in offered if ln.id not in shown]
    offered = [ln for ln in offered if ln.id in shown]
    result.overflow += len(held_back)
    result.offered = [ln.id for ln in offered]
    work.offered = {ln.id: ln for ln in offered}
    if report.conversation_chars < len(work.ctx_conversation):
        # A recovered line's evidence must come from what the model was shown.
        work.ctx_conversation = work.ctx_conversation[len(work.ctx_conversation) - report.conversation_chars :]
    on_step(Step("asking", f"{model.name} (about {llm.estimate_tokens(messages):,} prompt tokens)"))
    answer = _call_model(model, messages, budget, check_interrupts, result)
    return answer, offered


def _call_model(
    model: Model, messages: list[dict[str, str]], budget: Budget, check_interrupts: Callable[[], None], result: PassResult
) -> Answer:
    """One request (and its schema repair) in a thread of its own, so `gitgarden stop` or the person
    coming back ends the wait at once; an abandoned request's prompt is counted, estimated."""
    from gitgarden import llm

    calls: list[threading.Event] = []

    def ask(abandoned: threading.Event) -> Answer:
        calls.append(abandoned)

        def before_call() -> None:
            if abandoned.is_set():
                raise _Stopped  # left behind: start nothing new (nobody waits for this any more)
            check_interrupts()

        return llm.ask(model, messages, budget, before_call=before_call)

    try:
        return llm.call_abandonable(ask, check_interrupts)
    except (_Stopped, _StandDown):
        if calls and calls[0].is_set():  # a request was in flight: its prompt was spent, count it
            budget.charge(llm.Usage(prompt_tokens=llm.estimate_tokens(messages)))
            result.tokens_estimated = True
        raise


def _review_summary(root: Path) -> str:
    from gitgarden.history import review_summary

    return review_summary(root)


def _page_infos(tree: Tree, titles: Mapping[str, tuple[str, list[str]]]) -> list[Any]:
    from gitgarden.context import PageInfo

    infos = []
    for name, (title, aliases) in sorted(titles.items()):
        path = wiki.page_path(name)
        found = page_facts(tree, path) if path in tree else None
        state = "open" if found is None else "?" if found.meta is None else str(found.meta.get("state", "open"))
        infos.append(PageInfo(name, title, state, 0 if found is None else found.chars, tuple(aliases)))
    return infos


def _apply_all(
    ops: list[Op],
    work: _Work,
    result: PassResult,
    own: frozenset[str],
    now: Clock,
    titles: dict[str, tuple[str, list[str]]],
    grounding_min: float,
    ledger: _Ledger,
    label: str = "",
) -> _Round:
    """Apply one round's operations through the guard; what landed stays in `work.tree`."""
    ctx = ApplyContext(
        offered=work.offered,
        today=f"{now().astimezone():%Y-%m-%d}",  # the person's day, as capture writes it
        conversation=work.ctx_conversation,
        journal_texts=work.journal_texts,
    )
    rnd = _Round()

    def refuse(op: Op, verdicts: list[Any]) -> None:
        item = Refused(op, verdicts)
        rnd.refused.append(item)
        reasons = [f"{label}{op.describe()}: {r}" for r in item.reasons()]
        result.refusals.extend(reasons)
        ledger.listed += len(reasons)

    for op in ops:
        cited = {i for i in op.lines if i in work.offered}
        if op.kind == "skip":
            rnd.read |= cited
            continue
        ctx.links = tidy.link_index(titles)
        applied = apply_op(op, work.tree, ctx)
        if isinstance(applied, Applied) and _split_pushed_over(applied, work, result, own, titles):
            ctx.links = tidy.link_index(titles)
            applied = apply_op(op, work.tree, ctx)  # again, onto the page's kept part
        if isinstance(applied, Refusal):
            refuse(op, [applied.reason])
            continue
        if not applied.writes:
            # Already there (or nothing to change): it lands, and its lines are read.
            rnd.landed += 1
            rnd.read |= cited
            if applied.already_in:
                result.already_there.append(f"{op.describe()}: already in {applied.already_in}")
            continue
        lowest: float | None = None
        if applied.prose:
            # Rule 11: a sentence the cited lines do not carry drops the whole operation.
            names = {p: wiki.page_name(p) or "" for p, _ in applied.prose}
            prose_titles = {p: titles[n][0] if n in titles else str(op.get("title") or "") for p, n in names.items()}
            prose = list(applied.prose)
            for path, name in names.items():
                if name not in titles and prose_titles[path]:
                    # A new page's title grounds its body, so it must itself come from the cited lines.
                    prose.append((f"{path} (title)", prose_titles[path]))
            cited_texts = [work.offered[i].text for i in op.lines]
            days = [work.offered[i].day for i in op.lines]
            verdicts, lowest = grounding.check(prose, cited_texts, prose_titles, grounding_min, days=days)
            if verdicts:
                refuse(op, list(verdicts))
                continue
        errors = work.try_apply(applied, own)
        if errors:
            refuse(op, errors)
            continue
        rnd.landed += 1
        rnd.read |= cited
        if lowest is not None:
            old = result.grounding_min_score
            result.grounding_min_score = lowest if old is None else min(old, lowest)
        titles.update(tidy.page_titles({p: work.tree[p] for p in applied.writes if p in work.tree}))
        result.created.extend(applied.created)
        result.appended.extend(p for p in applied.appended if p not in result.appended)
        if op.kind == "split":
            result.split.append(op.get("page"))
    return rnd


def _heading_split(
    work: _Work,
    path: str,
    result: PassResult,
    own: frozenset[str],
    titles: dict[str, tuple[str, list[str]]],
    room: int = 0,
) -> bool:
    """Split a page at its `##` headings until it fits its budget with `room` to spare; True when it landed.

    The parts go in the page's folder, named in its style; heading links into moved sections are rewired."""
    from gitgarden.split import split_in_tree

    name = wiki.page_name(path)
    if path not in work.tree or name is None or path == wiki.map_path() or path in work.dirty:
        return False
    out = split_in_tree(work.tree, path, budget=wiki.PAGE_BUDGET - room)
    if isinstance(out, str):
        return False  # nothing to split at its headings: the guard's budget rule speaks for it
    parts = [p for p in out if p not in work.tree]
    applied = Applied(Op("split", {"page": name}, (), -1), writes={p: file(t) for p, t in out.items()})
    applied.split_parents = dict.fromkeys(parts, path)
    errors = work.try_apply(applied, own)
    if errors:
        result.refusals.extend(f"split {name}: {e}" for e in errors)
        return False
    titles.update(tidy.page_titles({p: work.tree[p] for p in out}))
    result.split.append(name)
    result.created.extend(parts)
    return True


def _split_pushed_over(
    applied: Applied, work: _Work, result: PassResult, own: frozenset[str], titles: dict[str, tuple[str, list[str]]]
) -> bool:
    """Before an operation pushes an existing page over its budget, split that page at its headings."""
    split_any = False
    if applied.op.kind == "split":
        return False  # a split's own result is the model's plan; what stays over is split after
    for path, entry in applied.writes.items():
        if path in work.tree and path != wiki.map_path() and len(entry.data) > wiki.PAGE_BUDGET and tidy.is_gardeners(work.tree, path):
            text, old = text_of(entry), tidy.read_text(work.tree, path)
            if text is not None and old is not None and len(text) > wiki.PAGE_BUDGET:
                split_any |= _heading_split(work, path, result, own, titles, room=len(text) - len(old))
    return split_any


def _prune_map(work: _Work, result: PassResult, own: frozenset[str], titles: dict[str, tuple[str, list[str]]]) -> list[str]:
    """Move the map's entry lines, word for word, into the hubs their pages belong to; the hubs written."""
    text = tidy.read_text(work.tree, wiki.map_path())
    if text is None or wiki.map_path() in work.dirty:
        return []
    writes = tidy.prune_into_hubs(work.tree, titles, text)
    if not writes or any(p in work.dirty for p in writes):
        return []
    errors = work.try_apply(Applied(Op("map", {}, (), -1), writes=writes), own)
    if errors:
        result.refusals.extend(f"map prune: {e}" for e in errors)
        return []
    titles.update(tidy.page_titles({p: work.tree[p] for p in writes if p != wiki.map_path()}))
    result.tidied.extend(p for p in sorted(writes) if p not in result.tidied)
    return sorted(p for p in writes if p != wiki.map_path())


def _gardeners_pages(tree: Tree, dirty: set[str]) -> list[str]:
    """The gardener's own pages (the map and the person's uncommitted pages left out)."""
    return sorted(
        p for p in tree if wiki.page_name(p) and p != wiki.map_path() and p not in dirty and tidy.is_gardeners(tree, p)
    )


def _not_created(tree: Tree, dirty: set[str], created: list[str]) -> set[str]:
    """What the map step leaves alone without the map job: every page but the ones this pass created
    (and the hubs that may take their entries), and the person's uncommitted pages."""
    made = set(created)
    others = {
        p for p in tree
        if (name := wiki.page_name(p)) and p != wiki.map_path() and p not in made and not tidy.is_hub(tree, name)
    }  # fmt: skip
    return set(dirty) | others


def _unread_count(project: Project, offered: list[journal.JournalLine], result: PassResult) -> int:
    """The unread lines a health figure counts: what the pass offered and left waiting, or, when
    the promote job did not run, the lines a pass would offer."""
    if "promote" in result.jobs:
        return len(offered) + result.overflow
    return len(setaside.on_disk(project.root)[0])

