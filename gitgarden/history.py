"""What the gardener did, read back from git; taking one pass back; review mode.

There is no database: a pass is a commit with `Gardener-*` trailers, read with
`git log --format=%(trailers:key=…)`. Attempts that made no commit (failed,
refused, stopped…) exist only as records in `log/*.jsonl`; they are listed from
there. `undo` makes a new commit that puts back what the pass changed — history
is never rewritten — and refuses whatever it did not make or cannot take back
cleanly. Review mode commits passes to the branch `gitgarden/review`, built in
a temporary index so the person's checkout is never touched, and `accept` /
`reject` bring it in or drop it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitgarden import gitrepo, journal, recovery
from gitgarden.errors import GitError, GitgardenError
from gitgarden.tree import Entry, Overlay, Tree

__all__ = [
    "PassEntry",
    "NotAPass",
    "UndoRefused",
    "ReviewRefused",
    "passes",
    "find_pass",
    "show",
    "Shown",
    "undo",
    "UndoResult",
    "REVIEW_BRANCH",
    "REVIEW_REF",
    "review_waiting",
    "review_read_text",
    "review_base",
    "commit_to_review",
    "review_status",
    "ReviewStatus",
    "accept",
    "AcceptResult",
    "reject",
    "RejectResult",
]

REVIEW_BRANCH = "gitgarden/review"
REVIEW_REF = f"refs/heads/{REVIEW_BRANCH}"
LOG_DIR = "log"
_ZERO = "0" * 40
_KEYS = ("Pass", "Outcome", "Read", "Tokens", "Cost", "Model", "Created", "Appended", "Split", "Refused", "Snapshot", "Undoes")
_FORMAT = "%H%x1f%aI%x1f%s%x1f" + "%x1f".join(
    f"%(trailers:key=Gardener-{k},valueonly,separator=%x2C)" for k in _KEYS
) + "%x1e"


class NotAPass(GitgardenError):
    """The named pass or commit is not something the gardener made."""


class UndoRefused(GitgardenError):
    """An undo that cannot be done cleanly; nothing was changed."""


class ReviewRefused(GitgardenError):
    """`review accept` / `reject` cannot go ahead; nothing was changed."""


@dataclass
class PassEntry:
    """One pass as `gitgarden log` shows it: a pass commit, or a recorded attempt without one."""

    pass_id: str
    when: str
    outcome: str
    read: int = 0
    created: int = 0
    appended: int = 0
    split: int = 0
    refused: int = 0
    tokens: int = 0
    cost: float | None = None
    model: str = ""
    commit: str = ""
    undone_by: str = ""
    review: str = ""  # "waiting": on gitgarden/review, not accepted; "rejected": dropped by `review reject`
    snapshot: str = ""
    subject: str = ""
    message: str = ""
    record: dict[str, Any] | None = field(default=None, repr=False)

    def to_json(self) -> dict[str, Any]:
        """The plain JSON of `gitgarden log --json` (the full record is left to `show`)."""
        data = asdict(self)
        data.pop("record")
        return data


@dataclass
class _Undo:
    commit: str
    undoes: str


def _int(value: str) -> int:
    try:
        return int(value.split(",")[0].strip() or 0)
    except ValueError:
        return 0


def _cost(value: str) -> float | None:
    try:
        return float(value.strip())
    except ValueError:
        return None


def _when_key(when: str) -> datetime:
    try:
        dt = datetime.fromisoformat(when)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def review_tip(root: Path) -> str | None:
    """The commit `gitgarden/review` points at, or None when the branch does not exist."""
    out = gitrepo.git(root, "rev-parse", "--verify", "--quiet", f"{REVIEW_REF}^{{commit}}", check=False)
    return out.decode().strip() or None


def _is_ancestor(root: Path, a: str, b: str) -> bool:
    """True when commit `a` is `b` or one of its ancestors (nothing in `b..a`)."""
    out = gitrepo.git(root, "rev-list", "-n", "1", f"{b}..{a}", "--", check=False)
    return out.strip() == b""


def review_waiting(root: Path) -> str | None:
    """The review branch's tip when it holds commits the current branch does not have, else None."""
    tip = review_tip(root)
    if tip is None:
        return None
    head = gitrepo.head(root)
    if head is None or not _is_ancestor(root, tip, head):
        return tip
    return None


def _commits(root: Path, revs: Sequence[str]) -> list[tuple[str, str, str, dict[str, str]]]:
    """(sha, author date, subject, trailers) of the gardener's commits reachable from `revs`, newest first."""
    if not revs:
        return []
    out = gitrepo.git(root, "log", "-E", "--grep=^Gardener-(Pass|Undoes):", f"--format={_FORMAT}", *revs, "--", check=False)
    rows = []
    for chunk in out.decode("utf-8", "replace").split("\x1e"):
        parts = chunk.strip("\n").split("\x1f")
        if len(parts) != 3 + len(_KEYS):
            continue
        sha, date, subject, *values = parts
        trailers = {k: v.strip() for k, v in zip(_KEYS, values, strict=True) if v.strip()}
        if "Pass" in trailers or "Undoes" in trailers:
            rows.append((sha.strip(), date, subject, trailers))
    return rows


def _records_in(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        try:
            data = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            out.append(data)
    return out


def _records(root: Path, extra_rev: str | None) -> list[dict[str, Any]]:
    """Every record under `log/` in the work tree (and at `extra_rev`, when given), oldest first."""
    records: list[dict[str, Any]] = []
    folder = root / LOG_DIR
    if folder.is_dir():
        for path in sorted(folder.glob("*.jsonl")):
            if path.is_file() and not path.is_symlink():
                records.extend(_records_in(path.read_text(encoding="utf-8", errors="replace")))
    if extra_rev:
        seen = {json.dumps(r, sort_keys=True) for r in records}
        for _path, entry in sorted(gitrepo.tree_at(root, extra_rev, [LOG_DIR]).items()):
            for rec in _records_in(entry.data.decode("utf-8", "replace")):
                if json.dumps(rec, sort_keys=True) not in seen:
                    records.append(rec)
    return records


def _from_record(rec: dict[str, Any]) -> PassEntry:
    def count(key: str) -> int:
        value = rec.get(key)
        return len(value) if isinstance(value, list) else int(value or 0)

    return PassEntry(
        pass_id=str(rec.get("pass_id", "")),
        when=str(rec.get("started") or rec.get("finished") or ""),
        outcome=str(rec.get("outcome", "")),
        read=int(rec.get("marked_read") or 0),
        created=count("created"),
        appended=count("appended"),
        split=count("split"),
        refused=count("refusals"),
        tokens=int(rec.get("prompt_tokens") or 0) + int(rec.get("completion_tokens") or 0),
        cost=rec.get("cost"),
        model=str(rec.get("model") or ""),
        review=str(rec.get("review") or ""),
        snapshot=str(rec.get("snapshot") or ""),
        message=str(rec.get("message") or ""),
        record=rec,
    )


def _scan(root: Path) -> tuple[list[PassEntry], dict[str, _Undo]]:
    """All passes (newest first) and the undo commits by sha."""
    head = gitrepo.head(root)
    waiting = review_waiting(root)
    revs = [r for r in (head, waiting) if r]
    rows = _commits(root, revs)
    on_review: set[str] = set()
    if waiting and head:
        out = gitrepo.git(root, "rev-list", f"{head}..{waiting}", check=False)
        on_review = set(out.decode().split())
    elif waiting:
        on_review = {r[0] for r in rows}
    records = _records(root, waiting)
    by_id: dict[str, dict[str, Any]] = {}
    order: dict[str, int] = {}
    for i, rec in enumerate(records):
        pid = rec.get("pass_id")
        if isinstance(pid, str) and rec.get("kind") is None:
            by_id[pid] = rec
            order[pid] = i
    undos: dict[str, _Undo] = {}
    undone: dict[str, str] = {}
    entries: list[tuple[PassEntry, int]] = []
    n = len(rows)
    for i, (sha, date, subject, t) in enumerate(rows):
        if "Undoes" in t and "Pass" not in t:
            undos[sha] = _Undo(sha, t["Undoes"])
            undone.setdefault(t["Undoes"], sha)  # newest undo first
            continue
        pid = t["Pass"]
        known = by_id.get(pid)
        entry = PassEntry(
            pass_id=pid,
            when=str(known.get("started")) if known and known.get("started") else date,
            outcome=t.get("Outcome", ""),
            read=_int(t.get("Read", "0")),
            created=_int(t.get("Created", "0")),
            appended=_int(t.get("Appended", "0")),
            split=_int(t.get("Split", "0")),
            refused=_int(t.get("Refused", "0")),
            tokens=_int(t.get("Tokens", "0")),
            cost=_cost(t.get("Cost", "")),
            model="" if t.get("Model") in (None, "none") else t["Model"],
            commit=sha,
            review="waiting" if sha in on_review else "",
            snapshot=t.get("Snapshot", ""),
            subject=subject,
            message=str(known.get("message", "")) if known else "",
            record=known,
        )
        entries.append((entry, order.get(pid, len(records) + n - i)))
    committed = {e.pass_id for e, _ in entries}
    for pid, rec in by_id.items():
        if pid not in committed and not rec.get("dry_run"):
            entries.append((_from_record(rec), order[pid]))
    for entry, _ in entries:
        entry.undone_by = undone.get(entry.pass_id, "")
    entries.sort(key=lambda pair: (_when_key(pair[0].when), pair[1]), reverse=True)
    return [e for e, _ in entries], undos


def passes(root: Path, limit: int | None = None) -> list[PassEntry]:
    """The passes, newest first: pass commits (and those waiting on the review branch) and recorded attempts."""
    entries, _ = _scan(root)
    return entries if limit is None else entries[: max(0, limit)]


def _resolve_commit(root: Path, ref: str) -> str | None:
    if not ref or ref.startswith("-"):
        return None
    out = gitrepo.git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False)
    return out.decode().strip() or None


def _describe_commit(root: Path, sha: str) -> str:
    subject = gitrepo.git(root, "log", "-1", "--format=%s", sha, check=False).decode().strip()
    return f'{sha[:10]} ("{subject}")' if subject else sha[:10]


def find_pass(root: Path, ref: str | None, *, committed_only: bool = False) -> PassEntry:
    """The pass named by a pass id, a unique pass-id prefix or a commit-ish; default the latest.

    Raises NotAPass (naming what `ref` is instead) when it names no pass.
    """
    entries, undos = _scan(root)
    if committed_only:
        entries = [e for e in entries if e.commit]
    if ref is None:
        if not entries:
            raise NotAPass("the gardener has made no pass here yet")
        return entries[0]
    for entry in entries:
        if entry.pass_id == ref:
            return entry
    sha = _resolve_commit(root, ref)
    if sha is not None:
        for entry in entries:
            if entry.commit == sha:
                return entry
        if sha in undos:
            raise UndoRefused(
                f"{_describe_commit(root, sha)} is itself an undo (of pass {undos[sha].undoes}): "
                "to have that pass's pages back, run the pass again instead (gitgarden run)"
            )
        raise NotAPass(f"{_describe_commit(root, sha)} is not a gardener pass (gitgarden log lists them)")
    prefixed = [e for e in entries if e.pass_id.startswith(ref)]
    if len(prefixed) == 1:
        return prefixed[0]
    if len(prefixed) > 1:
        raise NotAPass(f"{ref!r} names {len(prefixed)} passes: give more of the pass id")
    raise NotAPass(f"{ref!r} is neither a pass id nor a commit here (see gitgarden log)")


# -- show ----------------------------------------------------------------------


@dataclass
class Shown:
    """One pass for `gitgarden show`: its entry, its full record (when one was found) and its diff."""

    entry: PassEntry
    record: dict[str, Any] | None
    diff: str

    def to_json(self) -> dict[str, Any]:
        data = self.entry.to_json()
        data["record"] = self.record
        data["diff"] = self.diff
        return data


def _diff_pages_first(root: Path, a: str, b: str) -> str:
    """`git diff a b`, the wiki's pages first, then everything else."""
    pages = gitrepo.git(root, "diff", "--no-color", "--no-ext-diff", a, b, "--", "wiki")
    rest = gitrepo.git(root, "diff", "--no-color", "--no-ext-diff", a, b, "--", ".", ":(exclude)wiki")
    return (pages + rest).decode("utf-8", "replace")


def show(root: Path, ref: str | None = None) -> Shown:
    """A pass's record and its diff with pages first (default: the latest pass)."""
    entry = find_pass(root, ref)
    diff = ""
    if entry.commit:
        parent = _resolve_commit(root, f"{entry.commit}~1")
        if parent:
            diff = _diff_pages_first(root, parent, entry.commit)
    return Shown(entry, entry.record, diff)


# -- undo ----------------------------------------------------------------------


@dataclass
class UndoResult:
    """What `undo` did."""

    pass_id: str
    undone_commit: str
    commit: str
    restored: list[str]
    reread: bool
    unread: int = 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _own_state(path: str) -> bool:
    """Files the pass writes as bookkeeping, which undo handles itself rather than reverting."""
    return path == journal.READ_PATH or (path.startswith(f"{LOG_DIR}/") and path.endswith(".jsonl"))


def _changed_files(root: Path, parent: str, commit: str) -> list[str]:
    out = gitrepo.git(root, "diff-tree", "-r", "-z", "--no-renames", "--name-only", "--no-commit-id", parent, commit)
    return sorted(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)


def _later_commits(root: Path, commit: str, paths: Sequence[str]) -> list[str]:
    """'<sha> (<files>)' for every commit after `commit` on HEAD that touched one of `paths`."""
    if not paths:
        return []
    out = gitrepo.git(root, "log", "--format=%x1e%h", "--name-only", "-z", f"{commit}..HEAD", "--", *paths)
    found = []
    wanted = set(paths)
    for chunk in out.decode("utf-8", "surrogateescape").split("\x1e"):
        bits = [b.strip("\n") for b in chunk.split("\0") if b.strip("\n")]
        if not bits:
            continue
        head, *rest = bits
        sha, *first = head.split("\n")
        files = sorted({f for f in [*first, *rest] if f in wanted})
        found.append(f"{sha} ({', '.join(files)})" if files else sha)
    return found


def _blob_at(root: Path, rev: str, path: str) -> bytes | None:
    entry = gitrepo.tree_at(root, rev, [path]).get(path)
    return None if entry is None else entry.data


def _read_at(root: Path, rev: str) -> dict[str, set[str]]:
    data = _blob_at(root, rev, journal.READ_PATH)
    return journal.load_read(None if data is None else data.decode("utf-8", "replace"))


def _log_rel(now: datetime) -> str:
    return f"{LOG_DIR}/{now:%Y-%m}.jsonl"


def _with_record(root: Path, rel: str, records: Sequence[Mapping[str, Any]]) -> bytes:
    path = root / rel
    old = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
    if old and not old.endswith(b"\n"):
        old += b"\n"
    return old + b"".join((json.dumps(r, sort_keys=True) + "\n").encode() for r in records)


def _checked_target(root: Path, rel: str) -> Path:
    if rel.startswith("/") or ".." in rel.split("/"):
        raise GitgardenError(f"refusing to write {rel!r}: outside the project")
    target = root / rel
    parent = target.parent
    while parent != root:
        if parent.is_symlink():
            raise GitgardenError(f"refusing to write {rel!r}: {parent} is a symlink")
        parent = parent.parent
    if target.is_symlink():
        raise GitgardenError(f"refusing to write {rel!r}: it is a symlink")
    return target


def _write_and_commit_as_person(root: Path, contents: Mapping[str, bytes | None], message: str) -> str:
    """Write (None: delete) `contents` and commit exactly those paths as the person; all undone on failure."""
    originals: dict[str, bytes | None] = {}
    for rel in contents:
        target = _checked_target(root, rel)
        originals[rel] = target.read_bytes() if target.exists() else None
    try:
        for rel, data in contents.items():
            target = root / rel
            if data is None:
                target.unlink(missing_ok=True)
            else:
                recovery.atomic_write(target, data)
        gitrepo.commit_paths(root, sorted(contents), message=message, author=None)
    except BaseException:
        for rel, data in originals.items():
            target = root / rel
            if data is None:
                target.unlink(missing_ok=True)
            else:
                recovery.atomic_write(target, data)
        gitrepo.git(root, "reset", "-q", "--", *sorted(contents), check=False)
        raise
    return gitrepo.head(root) or ""


def undo(root: Path, ref: str | None, *, reread: bool = False, now: datetime | None = None) -> UndoResult:
    """Take back one pass with a new commit by the person (history is never rewritten).

    Puts every file the pass wrote back as it was before the pass. The lines
    the pass read stay read unless `reread`; `log/` keeps its records and gains
    one for the undo. Refuses — changing nothing — when `ref` is not a pass,
    is an undo, made no commit, waits on the review branch or was undone
    already; when a later commit touched a file the pass wrote; and when the
    person has uncommitted changes in those files.
    """
    now = now or datetime.now(UTC)
    if ref is None:
        todo = [e for e in passes(root) if e.commit and not e.review and not e.undone_by]
        if not todo:
            raise NotAPass("there is no gardener pass to undo on this branch")
        entry = todo[0]
    else:
        try:
            entry = find_pass(root, ref)
        except NotAPass as exc:
            raise NotAPass(f"{exc}: undo only takes back what gitgarden made") from None
    if not entry.commit:
        raise UndoRefused(f"pass {entry.pass_id} ended {entry.outcome} and made no commit: there is nothing to undo")
    if entry.review == "waiting":
        raise UndoRefused(f"pass {entry.pass_id} waits on {REVIEW_BRANCH}: drop it with `gitgarden review reject`")
    if entry.undone_by:
        raise UndoRefused(
            f"pass {entry.pass_id} was already undone by {_describe_commit(root, entry.undone_by)}: "
            "to have its pages back, run the pass again instead"
        )
    commit = entry.commit
    parent = _resolve_commit(root, f"{commit}~1")
    if parent is None:
        raise UndoRefused(f"pass {entry.pass_id}'s commit {commit[:10]} has no parent to go back to")
    files = _changed_files(root, parent, commit)
    revert = [p for p in files if not _own_state(p)]
    later = _later_commits(root, commit, revert)
    if later:
        raise UndoRefused(
            f"later commits touched files pass {entry.pass_id} wrote: {'; '.join(later)}. "
            "Undo refuses rather than merge: take those changes back by hand with git if you want them gone"
        )
    guarded = revert + ([journal.READ_PATH] if reread else [])
    dirty = sorted(gitrepo.dirty_paths(root, guarded))
    if dirty:
        raise UndoRefused(
            f"you have uncommitted changes in {', '.join(dirty)}, which pass {entry.pass_id} wrote: "
            "commit or stash them, then undo"
        )
    before = gitrepo.tree_at(root, parent, revert) if revert else {}
    contents: dict[str, bytes | None] = {p: (before[p].data if p in before else None) for p in revert}
    unread = 0
    if reread:
        gained = {
            day: keys - _read_at(root, parent).get(day, set()) for day, keys in _read_at(root, commit).items()
        }
        current = _read_at(root, "HEAD")
        left = {day: keys - gained.get(day, set()) for day, keys in current.items()}
        unread = sum(len(current[d]) - len(left[d]) for d in current)
        if unread:
            contents[journal.READ_PATH] = journal.render_read(left).encode()
    person = gitrepo.person_identity(root)
    log_rel = _log_rel(now)
    record = {
        "kind": "undo",
        "undoes": entry.pass_id,
        "undone_commit": commit,
        "when": now.isoformat(),
        "by": f"{person[0]} <{person[1]}>",
        "restored": revert,
        "reread": reread,
        "unread": unread,
    }
    contents[log_rel] = _with_record(root, log_rel, [record])
    subject = entry.subject or f"gitgarden pass {entry.pass_id}"
    lines_note = (
        f"{unread} line(s) it read are unread again (--reread)."
        if reread
        else "The journal lines it read stay read (undo --reread would make them unread)."
    )
    message = (
        f"Undo gitgarden pass {entry.pass_id}\n\n"
        f'This reverts commit {commit} ("{subject}"):\n'
        f"{len(revert)} file(s) put back as they were before the pass. {lines_note}\n\n"
        f"Gardener-Undoes: {entry.pass_id}\n"
    )
    new = _write_and_commit_as_person(root, contents, message)
    return UndoResult(entry.pass_id, commit, new, revert, reread, unread)


# -- review mode ---------------------------------------------------------------


def _union_lines(first: bytes, second: bytes) -> bytes:
    """`first`'s lines, then `second`'s lines that `first` lacks (log records: append-only on both sides)."""
    seen = set(first.splitlines())
    extra = [ln for ln in second.splitlines() if ln not in seen]
    out = first if not first or first.endswith(b"\n") else first + b"\n"
    return out + b"".join(ln + b"\n" for ln in extra)


def _union_read(*texts: bytes | None) -> bytes:
    merged: dict[str, set[str]] = {}
    for data in texts:
        for day, keys in journal.load_read(None if data is None else data.decode("utf-8", "replace")).items():
            merged.setdefault(day, set()).update(keys)
    return journal.render_read(merged).encode()


def review_read_text(root: Path, worktree_text: str | None) -> str | None:
    """The read position a pass starts from: the work tree's, plus what passes waiting for review read."""
    tip = review_waiting(root)
    if tip is None:
        return worktree_text
    tip_read = _blob_at(root, tip, journal.READ_PATH)
    if tip_read is None:
        return worktree_text
    return _union_read(None if worktree_text is None else worktree_text.encode(), tip_read).decode()


def review_base(root: Path, base: Tree, folders: Sequence[str] = ("wiki", "raw/journal")) -> Tree:
    """`base` (the work tree) with what the passes waiting for review changed, so a new pass builds on them."""
    tip = review_waiting(root)
    head = gitrepo.head(root)
    if tip is None or head is None:
        return base
    fork = gitrepo.git(root, "merge-base", head, tip, check=False).decode().strip()
    if not fork:
        return base
    changed = _changed_files(root, fork, tip)
    changed = [p for p in changed if any(p.startswith(f + "/") for f in folders)]
    if not changed:
        return base
    at_tip = gitrepo.tree_at(root, tip, changed)
    changes: dict[str, Entry | None] = {p: at_tip.get(p) for p in changed}
    return Overlay(base, changes)


def _build_commit(
    root: Path,
    parent: str,
    blobs: Mapping[str, bytes],
    message: str,
    ident: tuple[str, str],
    *,
    start_tree: str | None = None,
    parents: Sequence[str] = (),
) -> str:
    """A commit of `start_tree` (default: `parent`'s) with `blobs` replaced, built in a temporary index."""
    gdir = gitrepo.git_dir(root)
    tmp = gdir / "gitgarden-review.index"
    env = {"GIT_INDEX_FILE": str(tmp)}
    try:
        tmp.unlink(missing_ok=True)
        gitrepo.git(root, "read-tree", start_tree or parent, env=env)
        records = []
        for path, data in sorted(blobs.items()):
            oid = gitrepo.git(root, "hash-object", "-w", "--stdin", input=data).decode().strip()
            records.append(f"100644 {oid}\t{path}".encode("utf-8", "surrogateescape") + b"\0")
        if records:
            gitrepo.git(root, "update-index", "-z", "--index-info", input=b"".join(records), env=env)
        tree = gitrepo.git(root, "write-tree", env=env).decode().strip()
    finally:
        tmp.unlink(missing_ok=True)
    args = ["commit-tree", "--no-gpg-sign", tree]
    for p in parents or (parent,):
        args += ["-p", p]
    return gitrepo.git(root, *args, input=message.encode(), env=gitrepo.ident_env(*ident)).decode().strip()


def commit_to_review(root: Path, writes: Mapping[str, bytes], message: str, ident: tuple[str, str]) -> str:
    """Commit a pass's files to `gitgarden/review` without touching the work tree, the index or HEAD.

    The commit goes on the review branch's tip when passes wait there, else on
    HEAD. Log files are merged line by line with the version already on that
    parent so no record is lost. Returns the new commit.
    """
    tip = review_tip(root)
    waiting = review_waiting(root)
    parent = waiting or gitrepo.head(root)
    if parent is None:
        raise GitError("review mode needs a commit to start from: commit something first")
    blobs = dict(writes)
    for path, data in writes.items():
        if path.startswith(f"{LOG_DIR}/"):
            there = _blob_at(root, parent, path)
            if there is not None:
                blobs[path] = _union_lines(there, data)
    new = _build_commit(root, parent, blobs, message, ident)
    gitrepo.git(root, "update-ref", "-m", "gitgarden pass (review mode)", REVIEW_REF, new, tip or _ZERO)
    return new


@dataclass
class ReviewStatus:
    """What waits on the review branch."""

    tip: str | None
    passes: list[PassEntry]
    files: list[str]
    diff: str

    def to_json(self) -> dict[str, Any]:
        return {
            "branch": REVIEW_BRANCH,
            "tip": self.tip,
            "passes": [p.to_json() for p in self.passes],
            "files": self.files,
            "diff": self.diff,
        }


def review_status(root: Path) -> ReviewStatus:
    """The passes waiting on `gitgarden/review` and their combined diff (pages first)."""
    tip = review_waiting(root)
    if tip is None:
        return ReviewStatus(None, [], [], "")
    waiting = [e for e in passes(root) if e.review == "waiting"]
    head = gitrepo.head(root)
    fork = gitrepo.git(root, "merge-base", head, tip, check=False).decode().strip() if head else ""
    if not fork:
        return ReviewStatus(tip, waiting, [], "")
    files = sorted(_changed_files(root, fork, tip), key=lambda p: (not p.startswith("wiki/"), p))
    return ReviewStatus(tip, waiting, files, _diff_pages_first(root, fork, tip))


@dataclass
class AcceptResult:
    """What `review accept` did."""

    kind: str  # "fast-forward" | "merge"
    commit: str
    passes: list[str]
    resolved: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _merge_target(root: Path, head: str, tip: str, ident: tuple[str, str], ids: list[str]) -> tuple[str, list[str]]:
    """A merge commit of HEAD and the review tip, made without touching the work tree; refuses on conflicts.

    Conflicts in the read position and in log records are resolved by union
    (both only ever grow); any other conflict is refused.
    """
    proc = gitrepo.git(root, "merge-tree", "--write-tree", "--name-only", "-z", head, tip, check=False)
    parts = proc.split(b"\0")
    tree = parts[0].decode().strip()
    conflicted: list[str] = []
    for raw in parts[1:]:
        if not raw:
            break
        conflicted.append(raw.decode("utf-8", "surrogateescape"))
    if not tree or len(tree) < 40:
        raise ReviewRefused(f"git could not merge {REVIEW_BRANCH}: {proc.decode('utf-8', 'replace').strip()[:200]}")
    conflicted = sorted(set(conflicted))
    hard = [p for p in conflicted if not _own_state(p)]
    if hard:
        raise ReviewRefused(
            f"accepting would conflict in {', '.join(hard)} (changed both here and on {REVIEW_BRANCH}); nothing changed. "
            f"Merge it by hand (git merge {REVIEW_BRANCH}) or drop it (gitgarden review reject)"
        )
    blobs: dict[str, bytes] = {}
    for path in conflicted:
        ours, theirs = _blob_at(root, head, path), _blob_at(root, tip, path)
        if path == journal.READ_PATH:
            blobs[path] = _union_read(ours, theirs)
        else:
            blobs[path] = _union_lines(ours or b"", theirs or b"")
    message = (
        f"Merge {REVIEW_BRANCH}: {len(ids)} gardener pass(es) accepted\n\n"
        + "".join(f"Accepted pass {i}\n" for i in ids)
    )
    new = _build_commit(root, head, blobs, message, ident, start_tree=tree, parents=(head, tip))
    return new, conflicted


def accept(root: Path) -> AcceptResult | None:
    """Bring what waits on `gitgarden/review` into the current branch; None when nothing waits.

    Fast-forward when the branch has not moved, else a merge commit by the
    person. Refuses, changing nothing, on conflicting changes and when the
    person has uncommitted changes in files it would bring in.
    """
    tip = review_waiting(root)
    head = gitrepo.head(root)
    if tip is None or head is None:
        return None
    ids = [e.pass_id for e in passes(root) if e.review == "waiting"]
    resolved: list[str] = []
    if _is_ancestor(root, head, tip):
        target, kind = tip, "fast-forward"
    else:
        target, resolved = _merge_target(root, head, tip, gitrepo.person_identity(root), ids)
        kind = "merge"
    changed = _changed_files(root, head, target)
    dirty = gitrepo.dirty_paths(root, changed)
    covered: list[str] = []
    for path in sorted(dirty):
        if not path.startswith(f"{LOG_DIR}/"):
            continue
        mine = (root / path).read_bytes() if (root / path).is_file() else b""
        theirs = _blob_at(root, target, path) or b""
        if set(mine.splitlines()) <= set(theirs.splitlines()):
            covered.append(path)  # only records the incoming version already holds
    blocking = sorted(dirty - set(covered))
    if blocking:
        raise ReviewRefused(
            f"you have uncommitted changes in {', '.join(blocking)}, which {REVIEW_BRANCH} changes: "
            "commit or stash them, then accept; nothing changed"
        )
    for path in covered:
        if _blob_at(root, head, path) is None:
            (root / path).unlink(missing_ok=True)
        else:
            gitrepo.git(root, "checkout", "-q", "HEAD", "--", path)
    gitrepo.git(root, "merge", "--ff-only", "--quiet", target, env=gitrepo.ident_env(*gitrepo.person_identity(root)))
    gitrepo.git(root, "update-ref", "-d", REVIEW_REF, tip, check=False)
    return AcceptResult(kind, target, ids, resolved)


@dataclass
class RejectResult:
    """What `review reject` did."""

    passes: list[str]
    dropped_tip: str
    commit: str
    reread: bool

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def reject(root: Path, *, reread: bool = False, now: datetime | None = None) -> RejectResult | None:
    """Drop `gitgarden/review`; None when nothing waits.

    By default the lines its passes read stay read: the read position is
    committed on the current branch (with the dropped passes' records, marked
    rejected). With `reread` they become unread again and the records are
    left in `log/` uncommitted, as for any attempt that made no commit.
    """
    now = now or datetime.now(UTC)
    tip = review_waiting(root)
    if tip is None:
        return None
    waiting = [e for e in passes(root) if e.review == "waiting"]
    ids = [e.pass_id for e in waiting]
    records: list[dict[str, Any]] = []
    for entry in reversed(waiting):
        rec = dict(entry.record or {"pass_id": entry.pass_id, "outcome": entry.outcome, "started": entry.when})
        rec["review"] = "rejected"
        rec["rejected_commit"] = entry.commit
        records.append(rec)
    person = gitrepo.person_identity(root)
    records.append(
        {"kind": "review_reject", "passes": ids, "dropped_tip": tip, "when": now.isoformat(),
         "by": f"{person[0]} <{person[1]}>", "reread": reread}
    )
    log_rel = _log_rel(now)
    commit = ""
    if reread:
        recovery.atomic_write(_checked_target(root, log_rel), _with_record(root, log_rel, records))
    else:
        if gitrepo.dirty_paths(root, [journal.READ_PATH]):
            raise ReviewRefused(f"{journal.READ_PATH} has uncommitted changes: commit or restore it, then reject")
        read_now = root / journal.READ_PATH
        new_read = _union_read(read_now.read_bytes() if read_now.is_file() else None, _blob_at(root, tip, journal.READ_PATH))
        contents: dict[str, bytes | None] = {log_rel: _with_record(root, log_rel, records)}
        if not read_now.is_file() or read_now.read_bytes() != new_read:
            contents[journal.READ_PATH] = new_read
        message = (
            f"gitgarden review reject: {len(ids)} pass(es) dropped, their journal lines stay read\n\n"
            f"{REVIEW_BRANCH} was at {tip}.\n\n"
            + "".join(f"Gardener-Rejects: {i}\n" for i in ids)
        )
        commit = _write_and_commit_as_person(root, contents, message)
    gitrepo.git(root, "update-ref", "-d", REVIEW_REF, tip)
    return RejectResult(ids, tip, commit, reread)
