"""One gardener pass: the steps of DESIGN §2 and the outcome they end in.

The pass is handed everything that varies — the project, its settings, the
model (or None), the clock — so tests drive it with real git and a scripted
model. Pure work (applying operations, the guard, the map) happens on an
in-memory overlay of the project's files; only the final, guarded result is
written, after a record of what is about to change, and committed with
exactly the pass's own paths.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden import gitrepo, grounding, guard, journal, outcome, passcommit, recovery, tidy, wiki
from gitgarden.config import Settings
from gitgarden.errors import GitgardenError, LockHeld, ModelError
from gitgarden.facts import FactsCache, page_facts
from gitgarden.lock import PassLock
from gitgarden.ops import Applied, ApplyContext, Op, Refusal, apply_op
from gitgarden.outcome import NO_MODEL_HINT, OUTCOMES, PassResult
from gitgarden.project import DiskTree, Project
from gitgarden.tree import Overlay, Tree, changed_paths, file, text_of

if TYPE_CHECKING:
    from gitgarden.llm import Budget, Model, Usage

__all__ = ["OUTCOMES", "PassResult", "run_pass", "Clock", "utcnow", "stop_path", "request_stop"]

Clock = Callable[[], datetime]

def utcnow() -> datetime:
    """The real clock (UTC, aware)."""
    return datetime.now(UTC)


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

    FOLDERS = ("raw/journal", "raw/chat", "wiki")

    def __init__(self, root: Path) -> None:
        self.root = root
        self.seen = self._scan()

    def _scan(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        todo = list(self.FOLDERS)
        while todo:
            rel = todo.pop()
            try:
                entries = list(os.scandir(self.root / rel))
            except OSError:
                continue
            for entry in entries:
                if entry.name.startswith("."):
                    continue
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

    def guard_ctx(self, own: frozenset[str]) -> guard.PassContext:
        return guard.PassContext(
            conversation=self.ctx_conversation,
            journal_lines=self.journal_texts,
            state_evidence=dict(self.state_evidence),
            own_paths=own,
            split_parents=dict(self.split_parents),
            merges=dict(self.merges),
        )

    def try_apply(self, applied: Applied, own: frozenset[str]) -> list[str]:
        """Add an operation's writes when the guard accepts them; else the verdicts, nothing added."""
        blocked = sorted(p for p in applied.writes if p in self.dirty)
        if blocked:
            return [f"{p} has uncommitted changes of yours; left for a later pass" for p in blocked]
        candidate = self.tree.with_changes(applied.writes)
        saved = (dict(self.state_evidence), dict(self.split_parents), dict(self.merges))
        self.state_evidence.update(applied.state_evidence)
        self.split_parents.update(applied.split_parents)
        self.merges.update(applied.merges)
        verdicts = guard.check(self.base, candidate, self.guard_ctx(own))
        if verdicts:
            self.state_evidence, self.split_parents, self.merges = saved
            return [str(v) for v in verdicts]
        self.tree = candidate
        return []


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
    trigger: str = "run",
) -> PassResult:
    """Run one pass on `project` and return its result; the project is left consistent whatever happens.

    `trigger` says who asked (`run by NAME <EMAIL>`, `tick`, `ci`): it goes to the
    record and the `Gardener-Trigger` trailer."""
    started = now()
    result = PassResult(
        pass_id=_new_pass_id(started),
        outcome="failed",
        started=started.isoformat(),
        record_path=outcome.log_path(started),
        dry_run=dry_run,
        trigger=trigger,
    )
    result.model = getattr(model, "name", "") if model is not None else ""
    root = project.root
    git_dir = gitrepo.git_dir(root)
    if project.turn_in_flight.exists():
        result.outcome, result.detail = "refused", "a turn is in flight (.gitgarden/turn-in-flight)"
        return _finish(project, result, now, record=not dry_run)
    try:
        with PassLock(git_dir, {"pass_id": result.pass_id, "started": result.started}):
            facts = FactsCache(git_dir / "gitgarden" / "facts.pickle")
            try:
                _run_locked(project, settings, model, now, result, git_dir, on_progress, facts)
            finally:
                if not dry_run:
                    facts.save()  # machine-local, in the git dir: the next pass re-reads only changed pages
    except LockHeld as exc:
        # No record: the pass holding the lock is writing log/ now, and this one said so on stderr.
        result.outcome, result.detail = "refused", str(exc)
        return _finish(project, result, now, record=False)
    # Attempts that made no commit leave a record only when they need a look (or are needed
    # later: a map that could not get under its ceiling); a quiet "nothing new" leaves no trace.
    worth = result.outcome in _RECORD_WITHOUT_COMMIT or result.map_chars is not None
    return _finish(project, result, now, record=not dry_run and worth and not result.commit)


_RECORD_WITHOUT_COMMIT = frozenset({"failed", "refused", "stopped", "stood_down", "finished_without_writing", "some_refused"})


def _finish(project: Project, result: PassResult, now: Clock, *, record: bool) -> PassResult:
    result.finished = now().isoformat()
    if record:
        # Attempts that made no commit still leave a record (committed by the next pass).
        try:
            rel = result.record_path
            data = recovery.with_records(project.root, rel, [result.record()])
            recovery.atomic_write(project.root / rel, data)
        except (OSError, GitgardenError):
            pass
    return result


def _run_locked(
    project: Project,
    settings: Settings,
    model: Model | None,
    now: Clock,
    result: PassResult,
    git_dir: Path,
    on_progress: Callable[[str], None],
    facts: FactsCache,
) -> None:
    root = project.root
    stop_file = stop_path(git_dir)
    if not result.dry_run:
        stop_file.unlink(missing_ok=True)  # a stale request must not stop this new pass
        found = passcommit.roll_back(root, git_dir, lambda pid: passcommit.is_committed(root, pid))
        if found is not None:
            result.recovery = found.summary()
            on_progress(result.recovery)
    watch = _Watch(root)

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
    read_text = (project.state / "read.json").read_text() if (project.state / "read.json").exists() else None
    from gitgarden import review

    read_text = review.review_read_text(root, read_text)  # lines waiting for review are read: never promoted twice
    try:
        read = journal.load_read(read_text, strict=True)
    except journal.ReadPositionError as exc:
        result.detail = f"{exc}: mend it, or restore it with `git checkout -- {journal.READ_PATH}` (removing it makes every journal line unread)"
        return  # outcome stays "failed"; nothing was read, tagged or written
    lines = journal.all_lines(project.journal)
    unread = journal.unread_lines(lines, read)
    offered = unread[: settings.max_lines]
    result.overflow = len(unread) - len(offered)
    base: Tree = DiskTree(root, ["wiki", "raw/journal"], [journal.READ_PATH], facts_cache=facts)
    if settings.review:  # build on what waits for review, so the review commit stacks on it cleanly
        base = review.review_base(root, base)
    dirty = gitrepo.dirty_paths(root, ["wiki"])
    titles = tidy.page_titles(base)
    tree = Overlay(base)
    work = _Work(
        base=base,
        tree=tree,
        ctx_conversation="",
        offered={ln.id: ln for ln in offered},
        dirty=dirty,
        journal_texts=tuple(ln.text for ln in lines),
    )
    own = frozenset({journal.READ_PATH, result.record_path})

    # What needs no model: map entries for pages the map does not reach, links in those pages.
    map_writes, mapped, unplaced = tidy.map_entries(base, titles, dirty)
    over_budget = [p for p in tidy.over_budget(base) if p not in dirty]
    map_text = tidy.read_text(base, wiki.MAP_PATH) or ""
    last_map = passcommit.last_map_chars(project)
    prune_map = len(map_text) > wiki.MAP_CEILING and (last_map is None or len(map_text) > last_map)
    # A full map with pages it cannot list: its entries move into hubs to make room for the hubs' lines.
    prune_map = prune_map or bool(unplaced and tidy.prune_into_hubs(base, titles, map_text))
    if not offered and not map_writes and not over_budget and not prune_map:
        result.outcome = "nothing_new"
        return

    # Snapshot.
    if not result.dry_run:
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
    try:
        if offered and model is not None:
            from gitgarden.llm import Budget

            budget = Budget(tokens=settings.token_budget, seconds=float(settings.seconds_budget))
            if not result.dry_run:
                result.journal_commit = passcommit.commit_journal(root, offered, result.pass_id)
            work.ctx_conversation = _conversation(project, settings.chat_window_chars)
            ops, offered = _ask(project, settings, model, work, titles, offered, result, check_interrupts, now, budget)
            _apply_all(ops, work, result, own, now, titles, settings.grounding_min)
        # Pages still over budget are split at their headings; a map over its ceiling is pruned.
        for path in over_budget:
            if path in work.tree and len(tidy.read_text(work.tree, path) or "") > wiki.PAGE_BUDGET:
                _heading_split(work, path, result, own, titles)
        if prune_map:
            _prune_map(work, result, own, titles)
        # Links in the pages this pass writes, and in pages new to the map.
        written = [p for p in changed_paths(base, work.tree) if wiki.page_name(p)]
        link_targets = sorted(set(written) | {wiki.page_path(n) for n in mapped} - dirty)
        titles_now = {**titles, **tidy.page_titles({p: work.tree[p] for p in written if p in work.tree})}
        link_writes = tidy.wrap_mentions(work.tree, link_targets, titles_now)
        if link_writes:
            errors = work.try_apply(Applied(Op("link", {}, (), -1), writes=link_writes), own)
            if errors:
                result.refusals.extend(f"links: {e}" for e in errors)
            else:
                result.tidied.extend(sorted(set(link_writes) - set(written)))
        # Map last.
        map_writes, _, _ = tidy.map_entries(work.tree, titles_now, dirty)
        if map_writes and wiki.MAP_PATH not in dirty:
            errors = work.try_apply(Applied(Op("map", {}, (), -1), writes=map_writes), own)
            if errors:
                result.refusals.extend(f"map: {e}" for e in errors)
            else:
                result.tidied.extend(p for p in sorted(map_writes) if p not in result.tidied)
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

    result.outcome = _decide(result, model, offered, changes)
    if prune_map:
        result.map_chars = len(tidy.read_text(work.tree, wiki.MAP_PATH) or "")
        if result.map_chars > wiki.MAP_CEILING and not changes:
            result.outcome = "finished_without_writing"
            result.detail = (
                f"the map is {result.map_chars} characters, over its {wiki.MAP_CEILING} ceiling, and holds no "
                "entries to move; not retried until it grows"
            )
    mark = result.outcome in ("nothing_earned", "pages_written")
    if result.outcome == "finished_without_writing" or (not changes and not mark):
        return
    writes: dict[str, bytes] = {p: work.tree[p].data for p in changes}
    if mark:
        new_read = journal.mark_read(read, offered)
        writes[journal.READ_PATH] = journal.render_read(new_read).encode()
        result.marked_read = len(offered)
    from gitgarden.health import measure

    result.map_chars = len(tidy.read_text(work.tree, wiki.MAP_PATH) or "")
    unread_after = len(offered) + result.overflow - result.marked_read
    result.health_before = measure(base, unread_lines=len(offered) + result.overflow).summary()
    result.health_after = measure(work.tree, unread_lines=unread_after).summary()
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
    try:
        passcommit.write_and_commit(project, settings, result, writes, git_dir, now)
    except GitgardenError as exc:  # e.g. the person's pre-commit hook said no: every write was rolled back
        result.outcome, result.detail, result.marked_read = "failed", f"the pass commit did not land: {exc}", 0


def _charge(result: PassResult, usage: Usage | None) -> None:
    if usage is not None:
        result.prompt_tokens, result.completion_tokens, result.cost = (
            usage.prompt_tokens,
            usage.completion_tokens,
            usage.cost,
        )


def _decide(result: PassResult, model: Model | None, offered: list[journal.JournalLine], changes: list[str]) -> str:
    wrote_pages = bool(result.created or result.appended or result.split)
    if not offered:
        return "tidied" if changes else "nothing_new"
    if model is None:
        result.hints.append(NO_MODEL_HINT)
        return "no_model"
    if result.refusals:
        return "some_refused" if wrote_pages or changes else "finished_without_writing"
    return "pages_written" if changes else "nothing_earned"


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
) -> tuple[list[Op], list[journal.JournalLine]]:
    """Ask the model; returns its operations and the lines the prompt really held (the rest wait)."""
    from gitgarden import context, llm

    agents = project.root / "AGENTS.md"
    inputs = context.ContextInputs(
        project_name=project.name,
        agents_md=agents.read_text(encoding="utf-8", errors="replace") if agents.is_file() and not agents.is_symlink() else "",
        identity=_identity_texts(project, settings),
        map_text=tidy.read_text(work.base, wiki.MAP_PATH) or "",
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
    ops, _usage = llm.ask_operations(model, messages, budget, before_call=check_interrupts)
    return ops, offered


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
) -> None:
    ctx = ApplyContext(
        offered=work.offered,
        today=f"{now().astimezone():%Y-%m-%d}",  # the person's day, as capture writes it
        conversation=work.ctx_conversation,
        journal_texts=work.journal_texts,
    )
    for op in ops:
        if op.kind == "skip":
            continue
        ctx.links = tidy.link_index(titles)
        applied = apply_op(op, work.tree, ctx)
        if isinstance(applied, Applied) and _split_pushed_over(applied, work, result, own, titles):
            ctx.links = tidy.link_index(titles)
            applied = apply_op(op, work.tree, ctx)  # again, onto the page's kept part
        if isinstance(applied, Refusal):
            result.refusals.append(str(applied))
            continue
        if not applied.writes:
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
            cited = [work.offered[i].text for i in op.lines]
            verdicts, lowest = grounding.check(prose, cited, prose_titles, grounding_min)
            if verdicts:
                result.refusals.extend(f"{op.describe()}: {v}" for v in verdicts)
                continue
        errors = work.try_apply(applied, own)
        if errors:
            result.refusals.extend(f"{op.describe()}: {e}" for e in errors)
            continue
        if lowest is not None:
            old = result.grounding_min_score
            result.grounding_min_score = lowest if old is None else min(old, lowest)
        titles.update(tidy.page_titles({p: work.tree[p] for p in applied.writes if p in work.tree}))
        result.created.extend(applied.created)
        result.appended.extend(p for p in applied.appended if p not in result.appended)
        if op.kind == "split":
            result.split.append(op.get("page"))


def _heading_split(
    work: _Work,
    path: str,
    result: PassResult,
    own: frozenset[str],
    titles: dict[str, tuple[str, list[str]]],
    room: int = 0,
) -> bool:
    """Split a page at its `##` headings until it fits its budget with `room` to spare; True when it landed."""
    from gitgarden.split import heading_plan, split_page

    text = tidy.read_text(work.tree, path)
    name = wiki.page_name(path)
    if text is None or name is None or path == wiki.MAP_PATH or path in work.dirty:
        return False
    plan: list[tuple[str, str, list[str]]] = []
    for slug, title, headings in heading_plan(text, wiki.PAGE_BUDGET - room):
        for candidate in (slug, f"{name.rsplit('/', 1)[-1]}-{slug}"):
            if wiki.page_path(candidate) not in work.tree and all(candidate != p for p, _, _ in plan):
                plan.append((candidate, title, headings))
                break
    if not plan:
        return False
    out = split_page(path, text, plan)
    if isinstance(out, str):
        result.refusals.append(f"split {name}: {out}")
        return False
    applied = Applied(Op("split", {"page": name}, (), -1), writes={p: file(t) for p, t in out.items()})
    applied.split_parents = {p: path for p in out if p != path}
    errors = work.try_apply(applied, own)
    if errors:
        result.refusals.extend(f"split {name}: {e}" for e in errors)
        return False
    titles.update(tidy.page_titles({p: work.tree[p] for p in out}))
    result.split.append(name)
    result.created.extend(p for p in out if p != path)
    return True


def _split_pushed_over(
    applied: Applied, work: _Work, result: PassResult, own: frozenset[str], titles: dict[str, tuple[str, list[str]]]
) -> bool:
    """Before an operation pushes an existing page over its budget, split that page at its headings."""
    split_any = False
    if applied.op.kind == "split":
        return False  # a split's own result is the model's plan; what stays over is split after
    for path, entry in applied.writes.items():
        if path in work.tree and path != wiki.MAP_PATH and len(entry.data) > wiki.PAGE_BUDGET:
            text, old = text_of(entry), tidy.read_text(work.tree, path)
            if text is not None and old is not None and len(text) > wiki.PAGE_BUDGET:
                split_any |= _heading_split(work, path, result, own, titles, room=len(text) - len(old))
    return split_any


def _prune_map(work: _Work, result: PassResult, own: frozenset[str], titles: dict[str, tuple[str, list[str]]]) -> bool:
    """Move the map's entry lines, word for word, into the hubs their pages belong to."""
    text = tidy.read_text(work.tree, wiki.MAP_PATH)
    if text is None or wiki.MAP_PATH in work.dirty:
        return False
    writes = tidy.prune_into_hubs(work.tree, titles, text)
    if not writes or any(p in work.dirty for p in writes):
        return False
    errors = work.try_apply(Applied(Op("map", {}, (), -1), writes=writes), own)
    if errors:
        result.refusals.extend(f"map prune: {e}" for e in errors)
        return False
    titles.update(tidy.page_titles({p: work.tree[p] for p in writes if p != wiki.MAP_PATH}))
    result.tidied.extend(p for p in sorted(writes) if p not in result.tidied)
    return True
