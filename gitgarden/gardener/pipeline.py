"""One gardener pass: the steps of docs/architecture.md ("One pass, step by step") as a pipeline, and the outcome they end in.

The pass is handed everything that varies — the project, its settings, the
model (or None), the clock — so tests drive it with real git and a scripted
model. `_run_locked` reads as the steps themselves, each a function over the
pass's state (`state.py`) in a module of its own:

    read, survey        read.py      the journal lines offered; the wiki in memory
    snapshot            commit.py    `pre_gardener/<pass-id>`
    ask                 ask.py       the context and the model call
    apply and guard,    apply.py     operations onto an in-memory overlay, each guarded;
      repair, account                the refusals shown back once; every line accounted for
    tidy, map last      tidying.py   split, hubs, links, then the map; health
    commit              commit.py    exactly the pass's own bytes, one commit
    publish             publish.py   the shared remote (and `sync` before reading)
    record              here         `_finish`: the attempt record of a pass without a commit

Only the final, guarded result is written, after a record of what is about
to change, and committed with exactly the pass's own paths.
"""

from __future__ import annotations

import errno
import json
import secrets
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from gitgarden.config import Settings
from gitgarden.errors import GitError, GitgardenError, LockHeld, ModelError
from gitgarden.gardener import apply, ask, commit, publish, read, tidying
from gitgarden.gardener.apply import Ledger
from gitgarden.gardener.outcome import JOBS, NO_MODEL_HINT, OUTCOMES, PassResult
from gitgarden.gardener.state import Clock, Pass, StandDown, Stopped, Work, request_stop, stop_path
from gitgarden.gardener.steps import Step
from gitgarden.history import records
from gitgarden.project import Project, file_text
from gitgarden.repo import gitdir, gitrepo, recovery
from gitgarden.repo.lock import LOCK_NAME, PassLock
from gitgarden.repo.states import blocking_state
from gitgarden.wiki import captured, journal, layout, pages, tidy
from gitgarden.wiki.facts import FactsCache
from gitgarden.wiki.tree import changed_paths

if TYPE_CHECKING:
    from gitgarden.model.llm import Model

__all__ = ["JOBS", "OUTCOMES", "PassResult", "run_pass", "select_jobs", "Clock", "utcnow", "stop_path", "request_stop"]


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


def _new_pass_id(now: datetime) -> str:
    return f"{now:%Y%m%dT%H%M%SZ}-{secrets.token_hex(2)}"


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
        record_path=records.log_path(started),
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
    result.endpoint = str(getattr(model, "endpoint", "") or "") if model is not None else ""
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
    git_dir = gitdir.git_dir(root)
    blocked = blocking_state(root, git_dir)
    if blocked:
        # No record in log/: the work tree belongs to the git operation the person is finishing.
        result.outcome, result.detail = "refused", blocked
        return _finish(project, result, now, record=False)
    not_read = journal.not_read_names(project.journal)
    if not_read:
        result.hints.append(journal.not_read_warning(not_read))
    if not settings.sign_commits and gitrepo.repo_settings(root).flag("commit.gpgsign"):
        result.hints.append("gitgarden's commits are not signed although commit.gpgsign is on: sign_commits = false")
    if project.turn_in_flight.exists():
        result.outcome, result.detail = "refused", "a turn is in flight (.gitgarden/turn-in-flight)"
        return _finish(project, result, now, record=not dry_run)
    killed = _killed_pass(git_dir)  # read before the lock is taken: taking it clears what a killed holder left
    try:
        with PassLock(git_dir, {"pass_id": result.pass_id, "started": result.started}):
            if killed and not dry_run and not commit.is_committed(root, killed):
                commit.drop_snapshot(root, killed)  # its snapshot marks a pass that never committed
            facts = FactsCache(git_dir / "gitgarden" / "facts.pickle")
            run = Pass(project, settings, model, now, result, git_dir, facts, on_progress, on_step, step)
            try:
                _run_locked(run)
            except recovery.ChangedUnderfoot as exc:  # a day file changed between two reads of it
                result.outcome, result.detail, result.marked_read = "stood_down", str(exc), 0
            except GitError as exc:  # e.g. the journal commit: a stale index lock, the person's hook said no
                result.outcome, result.detail, result.marked_read = "failed", str(exc), 0
            finally:
                run.close()
                if not dry_run:
                    facts.save()  # machine-local, in the git dir: the next pass re-reads only changed pages
                if result.commit and not dry_run:
                    _after_commit(project, settings, git_dir)
                if not result.commit and not result.taken_back:
                    # `pre_gardener/<id>` is made with the pass commit: a pass without one has no tag.
                    result.snapshot = ""
    except LockHeld as exc:
        # No record: the pass holding the lock is writing log/ now, and this one said so on stderr.
        result.outcome, result.detail = "refused", str(exc)
        return _finish(project, result, now, record=False)
    # Attempts that made no commit leave a record only when they need a look (or are needed
    # later: a map that could not get under its ceiling); a quiet "nothing new" leaves no trace.
    worth = result.outcome in _RECORD_WITHOUT_COMMIT or result.map_chars is not None
    return _finish(project, result, now, record=not dry_run and worth and not result.commit)


def _after_commit(project: Project, settings: Settings, git_dir: Path) -> None:
    """The machine-local caches a committed pass leaves current: the capture log loses the lines now
    read (the record says who captured them), and a search index, where there is one, takes the
    pages the pass wrote. Neither may fail the pass: both are rebuilt or ignored when broken."""
    try:
        read = journal.load_read(file_text(project.root, journal.READ_PATH))
        captured.prune(captured.log_path(git_dir), read)
    except Exception:  # a convenience: the pass has committed, whatever happens here
        pass
    try:
        from gitgarden.search.index import refresh

        refresh(project, identity=tuple(settings.identity_files), only_if_present=True)
    except Exception:  # the next search brings the index up to date itself
        pass


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
            git_dir = gitdir.git_dir(project.root)
            result.record_path = _shown_path(project.root, records.attempts_path(git_dir))
            records.append_attempt(git_dir, result.record())
        except (OSError, GitgardenError):
            pass
    return result


def _shown_path(root: Path, path: Path) -> str:
    """`path` relative to the project when it is inside it (`.git/gitgarden/…`), else as it is."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _run_locked(run: Pass) -> None:
    """The steps of a pass (docs/architecture.md) under its lock, in order; every `return` is an early end,
    and the outcome it ends in is already in `run.result`."""
    result = run.result
    if not run.dry_run:
        _recover(run)  # a stale stop request cleared; what a killed pass left rolled back
    if run.settings.remote and not run.dry_run and not publish.sync(run):
        return  # the shared remote refused, or could not be reached (refused / failed)
    run.interrupts.begin()  # from here a change to the person's files means they came back

    reading = read.read(run)
    if reading is None:
        return  # the read position is broken: nothing read, tagged or written (failed)
    work = read.survey(run, reading)
    if not read.anything_due(reading, work):
        tidying.nothing_new(run, reading, work)
        return  # nothing to read and nothing to tidy: no snapshot, no record
    if not run.dry_run:
        commit.snapshot(run)

    ledger: Ledger | None = None
    try:
        if work.offered and run.model is not None:
            if not run.dry_run:
                commit.commit_offered(run, work)
            answer = ask.ask(run, work)
            ledger = apply.apply_and_guard(run, work, answer)
            ledger = apply.repair(run, work, answer, ledger)
    except (Stopped, StandDown, ModelError) as exc:
        _ended(run, exc, work)
        return  # stop requested, the person came back, the model failed or the budget ran out
    finally:
        _charge(run)
        result.served_by = str(getattr(run.model, "served_by", "") or "")
    tidying.tidy_pages(run, work)
    tidying.map_last(run, work)

    if not apply.guard_whole_diff(run, work):
        return  # the guard refused the pass's whole diff (failed): nothing is written
    accounting = apply.account(run, reading, work, ledger)
    changes = changed_paths(work.base, work.tree)
    _decide(run, work, changes, ledger)
    writes: dict[str, bytes] = {p: work.tree[p].data for p in changes}
    writes.update(accounting)  # the read position and the set-aside lines, in the same commit as the pages
    if not writes:
        return  # nothing to commit
    result.map_chars = len(tidy.read_text(work.tree, pages.map_path()) or "")
    tidying.health(run, work)
    if run.dry_run:
        result.diff = commit.diff(work.base, work.tree, changes)
        return  # a dry run shows its diff and writes nothing
    try:
        run.interrupts.check()
    except (Stopped, StandDown) as exc:
        _ended(run, exc)
        return  # stop requested, or the person came back, before anything was written
    commit.commit(run, work, writes)
    if run.settings.remote and result.commit:
        publish.publish(run, work, writes)


def _recover(run: Pass) -> None:
    """Clear a stale stop request (it must not stop this new pass) and roll back what a killed pass left."""
    root = run.project.root
    run.interrupts.stop_file.unlink(missing_ok=True)
    found = commit.roll_back(root, run.git_dir, lambda pid: commit.is_committed(root, pid))
    if found is not None:
        run.result.recovery = found.summary()
        run.on_progress(run.result.recovery)


def _ended(run: Pass, exc: Stopped | StandDown | ModelError, work: Work | None = None) -> None:
    """The outcome of a pass that ended before its commit."""
    result = run.result
    if isinstance(exc, Stopped):
        result.outcome = "stopped"
    elif isinstance(exc, StandDown):
        result.outcome, result.detail = "stood_down", str(exc)
    else:
        result.outcome, result.detail = "failed", str(exc)
        result.failure = failure_of(exc)
        given = {u["line"] for u in result.unread}
        result.unread += [
            {"line": ln.id, "text": ln.text, "reason": f"request failed: {exc}"}
            for ln in (work.offered_lines() if work is not None else [])
            if ln.id not in given
        ]


REPLY_KEPT = 2000  # characters of a failed reply the record keeps (the page shows the first few hundred)


def failure_of(exc: ModelError) -> dict[str, str]:
    """What the record keeps of a failed model request: the error, its kind, which request, and the
    start of the reply when the reply was the trouble."""
    reply = exc.reply if len(exc.reply) <= REPLY_KEPT else exc.reply[:REPLY_KEPT] + " […]"
    out = {"error": str(exc), "kind": exc.kind, "request": exc.request}
    if exc.reply or exc.kind == "bad_output":
        out["reply"] = reply
    return out


def _charge(run: Pass) -> None:
    """What the model calls spent, into the result (nothing when the pass asked no model)."""
    if run.budget is not None:
        usage = run.budget.spent
        run.result.tokens_estimated = run.result.tokens_estimated or run.budget.estimated
        run.result.prompt_tokens, run.result.completion_tokens, run.result.cost = (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.cost,
        )


def _decide(run: Pass, work: Work, changes: list[str], ledger: Ledger | None) -> None:
    """The pass's outcome from what it offered, what landed and what was refused."""
    result = run.result
    result.outcome = _outcome(result, run.model, len(work.offered), changes, ledger)
    if work.due.prune_map:
        result.map_chars = len(tidy.read_text(work.tree, pages.map_path()) or "")
        if result.map_chars > pages.MAP_CEILING and not changes:
            result.outcome = "finished_without_writing"
            result.detail = (
                f"the map is {result.map_chars} characters, over its {pages.MAP_CEILING} ceiling, and holds no "
                "entries to move; not retried until it grows"
            )


def _outcome(result: PassResult, model: Model | None, offered: int, changes: list[str], ledger: Ledger | None) -> str:
    if not offered:
        if result.set_aside and not changes:
            result.detail = result.detail or f"{len(result.set_aside)} journal line(s) set aside: {result.set_aside[0]}"
            return "finished_without_writing"
        return "tidied" if changes else "nothing_new"
    if model is None or ledger is None:
        result.hints.append(NO_MODEL_HINT)
        return "no_model"
    read_ids = ledger.ids("read")
    tidy_refused = len(result.refusals) > ledger.listed
    if ledger.open_refusals() or tidy_refused:
        if changes or read_ids:
            if not read_ids and not ledger.landed:
                # What the pass commits is its model-free tidying: say so, not "the landed ones".
                result.detail = result.detail or "every operation of the reply was refused, its lines stay unread; the pass commits only its model-free tidying"
            return "some_refused"
        result.detail = result.detail or "every operation was refused; their lines stay unread"
        return "finished_without_writing"
    if not read_ids and not ledger.landed:
        # An empty reply, or one that cites no offered line: nothing is read_ids, nothing is lost.
        if result.unread and all(not u["reason"].startswith("no operation") for u in result.unread):
            reasons = sorted({u["reason"].split(":", 1)[0] for u in result.unread})
            result.detail = result.detail or f"{len(result.unread)} line(s) left unread ({', '.join(reasons)}); `gitgarden show` says why"
        else:
            result.detail = result.detail or f"the reply cited none of the {offered} line(s) offered; they stay unread"
        return "finished_without_writing"
    return "pages_written" if changes else "nothing_earned"
