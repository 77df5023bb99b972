"""What the gardener did, read back from git: `gitgarden log` and `show`.

There is no database: a pass is a commit with `Gardener-*` trailers, read with
`git log --format=%(trailers:key=…)`. Attempts that made no commit (failed,
refused, stopped…) exist only as records in the git dir
(`gitgarden/attempts.jsonl`, or `log/*.jsonl` from older versions); they are
listed from there. Taking a pass back is `undo`; review mode (the branch
`gitgarden/review`, `accept`, `reject`) is `review`; both build on this module.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitgarden.errors import GitgardenError
from gitgarden.history.common import diff_pages_first, review_tip, review_waiting
from gitgarden.history.records import LOG_DIR, attempts_path, read_attempts, records_in
from gitgarden.repo import gitdir, gitrepo, worktree

__all__ = [
    "PassEntry",
    "NotAPass",
    "UndoRefused",
    "passes",
    "passes_state",
    "find_pass",
    "show",
    "Shown",
]

_KEYS = (
    "Pass", "Outcome", "Read", "Tokens", "Cost", "Model", "Created", "Appended", "Split", "Refused", "Snapshot", "Undoes",
    "Trigger", "Review", "Skipped",
)  # fmt: skip
_FORMAT = "%H%x1f%aI%x1f%s%x1f" + "%x1f".join(
    f"%(trailers:key=Gardener-{k},valueonly,separator=%x2C)" for k in _KEYS
) + "%x1e"


class NotAPass(GitgardenError):
    """The named pass or commit is not something the gardener made."""


class UndoRefused(GitgardenError):
    """An undo that cannot be done cleanly (or of something that is itself an undo); nothing was changed."""


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
    skipped: int = 0  # lines read because a skip cited them (the record lists them with their reasons)
    not_written: int = 0  # writes an attempt meant to make and did not (counted above only when they landed)
    tokens: int = 0
    cost: float | None = None
    model: str = ""
    commit: str = ""
    undone_by: str = ""
    review: str = ""  # "waiting": on gitgarden/review, not accepted; "rejected": dropped by `review reject`
    snapshot: str = ""
    trigger: str = ""  # who started it: "run by NAME <EMAIL>", "tick", "ci" (older passes: "")
    reviewed: bool = False  # made in review mode (accepted, rejected or still waiting)
    subject: str = ""
    message: str = ""
    captured_by: dict[str, list[str]] = field(default_factory=dict)  # the name an MCP client gave (its claim) -> the line ids it captured that the pass read
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


def _records(root: Path, extra_rev: str | None) -> list[dict[str, Any]]:
    """Every record under `log/` in the work tree (and at `extra_rev`, when given), then the attempts."""
    records: list[dict[str, Any]] = []
    folder = root / LOG_DIR
    if folder.is_dir():
        for path in sorted(folder.glob("*.jsonl")):
            if path.is_file() and not path.is_symlink():
                records.extend(records_in(path.read_text(encoding="utf-8", errors="replace")))
    if extra_rev:
        seen = {json.dumps(r, sort_keys=True) for r in records}
        for _path, entry in sorted(gitrepo.tree_at(root, extra_rev, [LOG_DIR]).items()):
            for rec in records_in(entry.data.decode("utf-8", "replace")):
                if json.dumps(rec, sort_keys=True) not in seen:
                    records.append(rec)
    records.extend(read_attempts(gitdir.git_dir(root)))
    return records


def _captured_by(rec: dict[str, Any] | None) -> dict[str, list[str]]:
    """Who captured the lines a pass read, from its record (agents only; records before it: none)."""
    value = (rec or {}).get("captured_by")
    if not isinstance(value, dict):
        return {}
    return {str(k): [str(i) for i in v] for k, v in value.items() if isinstance(v, list) and v}


def _from_record(rec: dict[str, Any]) -> PassEntry:
    # Records of older versions listed unlanded writes as written; a rejected review pass's writes
    # did land, on the review branch (`rejected_commit`), before the person dropped them.
    landed = bool(rec.get("commit") or rec.get("rejected_commit"))

    def count(key: str) -> int:
        value = rec.get(key)
        return len(value) if isinstance(value, list) else int(value or 0)

    held = rec.get("not_written")
    not_written = sum(len(v) for v in held.values() if isinstance(v, list)) if isinstance(held, dict) else 0
    if not landed:
        not_written += sum(count(k) for k in ("created", "appended", "split"))

    return PassEntry(
        pass_id=str(rec.get("pass_id", "")),
        when=str(rec.get("started") or rec.get("finished") or ""),
        outcome=str(rec.get("outcome", "")),
        read=int(rec.get("marked_read") or 0),
        created=count("created") if landed else 0,
        appended=count("appended") if landed else 0,
        split=count("split") if landed else 0,
        refused=count("refusals"),
        skipped=count("skipped"),
        not_written=not_written,
        tokens=int(rec.get("prompt_tokens") or 0) + int(rec.get("completion_tokens") or 0),
        cost=rec.get("cost"),
        model=str(rec.get("model") or ""),
        review=str(rec.get("review") or ""),
        snapshot=str(rec.get("snapshot") or ""),
        trigger=str(rec.get("trigger") or ""),
        reviewed=bool(rec.get("review")),
        message=str(rec.get("message") or ""),
        captured_by=_captured_by(rec),
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
            skipped=_int(t.get("Skipped", "0")),
            tokens=_int(t.get("Tokens", "0")),
            cost=_cost(t.get("Cost", "")),
            model="" if t.get("Model") in (None, "none") else t["Model"],
            commit=sha,
            review="waiting" if sha in on_review else "",
            snapshot=t.get("Snapshot", ""),
            trigger=t.get("Trigger", ""),
            reviewed="Review" in t,
            subject=subject,
            message=str(known.get("message", "")) if known else "",
            captured_by=_captured_by(known),
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


_DECISION_KINDS = (("created", "new pages", "page"), ("appended", "appends", "append"), ("split", "splits", "split"))


def _left_out(entry: PassEntry, kind: str) -> int:
    """How many items of `kind` the person left out when taking a pass item by item (its record's `review_items`)."""
    items = (entry.record or {}).get("review_items")
    rejected = items.get("rejected") if isinstance(items, dict) else None
    return sum(1 for i in rejected if isinstance(i, dict) and i.get("kind") == kind) if isinstance(rejected, list) else 0


def review_decisions(root: Path, recent: int = 20) -> dict[str, tuple[int, int]]:
    """What the person did with the last `recent` reviewed passes, per kind of write:
    {kind: (accepted, proposed)}. Accepted = brought in by `review accept`; rejected passes
    are known from their records, and so are the items left out of a pass taken item by item.
    Derived from history, so every clone agrees."""
    decided = [e for e in passes(root) if e.reviewed and e.review != "waiting"][:recent]
    out: dict[str, tuple[int, int]] = {}
    for attr, label, kind in _DECISION_KINDS:
        accepted = sum(getattr(e, attr) for e in decided if e.review != "rejected")
        proposed = sum(getattr(e, attr) + (_left_out(e, kind) if e.review != "rejected" else 0) for e in decided)
        if proposed:
            out[label] = (accepted, proposed)
    return out


def review_summary(root: Path) -> str:
    """One short line for the prompt: the person's recent review decisions ('' when there are none)."""
    decisions = review_decisions(root)
    if not decisions:
        return ""
    parts = [f"{label}: {a} of {n} accepted" for label, (a, n) in decisions.items()]
    return (
        "In review, the person's recent decisions on this project were — " + "; ".join(parts)
        + ". Propose less of what they reject; they decide, not you.\n"
    )


def passes(root: Path, limit: int | None = None) -> list[PassEntry]:
    """The passes, newest first: pass commits (and those waiting on the review branch) and recorded attempts."""
    entries, _ = _scan(root)
    return entries if limit is None else entries[: max(0, limit)]


def passes_state(root: Path) -> tuple[object, ...]:
    """What `passes` is read from, cheaply: HEAD, the review branch's tip, and the stat of every
    record file (those under `log/` and the attempts). Equal states give equal passes, so a
    long-running reader (the web app, the MCP server) keeps what it derived from them until it
    changes."""
    files: list[tuple[str, int, int, int]] = []
    for path in [*sorted((root / LOG_DIR).glob("*.jsonl")), attempts_path(gitdir.git_dir(root))]:
        try:
            st = path.lstat()
        except OSError:
            continue
        files.append((str(path), st.st_mtime_ns, st.st_size, st.st_ino))
    found = worktree.head_from_files(root)  # no git process for the common case: a page view asks this each time
    return (found[1] if found is not None else gitrepo.head(root), review_tip(root), tuple(files))


def resolve_commit(root: Path, ref: str) -> str | None:
    if not ref or ref.startswith("-") or "\0" in ref:  # an option, or what no argument may hold
        return None
    out = gitrepo.git(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}", check=False)
    return out.decode().strip() or None


def describe_commit(root: Path, sha: str) -> str:
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
    sha = resolve_commit(root, ref)
    if sha is not None:
        for entry in entries:
            if entry.commit == sha:
                return entry
        if sha in undos:
            raise UndoRefused(
                f"{describe_commit(root, sha)} is itself an undo (of pass {undos[sha].undoes}): "
                "to have that pass's pages back, run the pass again instead (gitgarden run)"
            )
        raise NotAPass(f"{describe_commit(root, sha)} is not a gardener pass (gitgarden log lists them)")
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


def show(root: Path, ref: str | None = None) -> Shown:
    """A pass's record and its diff with pages first (default: the latest pass)."""
    entry = find_pass(root, ref)
    diff = ""
    if entry.commit:
        parent = resolve_commit(root, f"{entry.commit}~1")
        if parent:
            diff = diff_pages_first(root, parent, entry.commit)
    return Shown(entry, entry.record, diff)


