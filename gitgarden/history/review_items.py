"""Review item by item: a waiting pass's change cut into the items a person decides on one at a time
— each new page, each append (or other change) to a page, each set of links, each state change,
each split, each map entry — and a commit of only the items taken.

A pass's change is the difference between its commit and its parent. Each changed page's lines
are compared (difflib) and every changed run of lines is a piece; pieces are grouped into items:

- a new page is one item (the whole file); a page split, with the parts it made, is one item;
- a run of lines added to a page is an append, one that only wraps words in links is links, the
  `state:` line of a page's frontmatter is a state change, anything else a change; the other
  frontmatter lines (`source:` days) go with the page's other items;
- each line the pass added to the map is a map entry of its own (blank lines go with the entry
  before them); another change to the map is one item.

The bookkeeping follows what is taken: the read position keeps the lines the taken items cite and
those the pass read without an item citing them (its skips), and loses the lines only rejected
items cite (unless the person keeps them read); the pass's record says which items were taken. A
link a taken item adds to a new page that was not taken is left as its words, so nothing points
nowhere. Nothing here moves a ref: `land` puts the commit where `review accept PASS` would.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gitgarden.history.common import changed_files
from gitgarden.history.passlog import find_pass
from gitgarden.history.records import LOG_DIR, records_in
from gitgarden.history.replay import dangling, replay
from gitgarden.history.review import (
    AcceptResult,
    ReviewRefused,
    bring_in,
    chain_of,
    move_review,
    refuse_state,
    restack,
)
from gitgarden.repo import gitrepo
from gitgarden.repo.commits import build_commit
from gitgarden.wiki import journal, layout, linking, pages

__all__ = ["Piece", "Item", "Items", "Partial", "review_items", "build_partial", "land"]

_STATE = re.compile(r"^state\s*:")
_COUNTS = {"Created": "page", "Appended": "append", "Split": "split"}


@dataclass(frozen=True)
class Piece:
    """One run of lines of one file: lines [start, end) of the file before become `new`."""

    path: str
    start: int
    end: int
    old: tuple[str, ...]
    new: tuple[str, ...]


@dataclass
class Item:
    """One thing a person takes or leaves: its number (as `review show` lists them), its kind, the
    page, a few words, the pieces it changes, the journal lines it cites, the pages it makes."""

    number: int
    kind: str  # "page" | "append" | "links" | "state" | "change" | "split" | "map"
    page: str
    summary: str
    pieces: list[Piece] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    creates: list[str] = field(default_factory=list)

    def added(self) -> list[str]:
        """The lines the item adds, as they read."""
        return [ln.rstrip("\r\n") for p in self.pieces for ln in p.new]

    def removed(self) -> list[str]:
        return [ln.rstrip("\r\n") for p in self.pieces for ln in p.old]

    @property
    def headline(self) -> str:
        """The summary's words before its quote: `new page acme (Acme)`, `append to pricing`, `map entry`."""
        return self.summary.split(": ", 1)[0]

    def shown(self) -> list[tuple[str, str]]:
        """The item's lines as a person reads them, ("-" or "+", text): a new file's frontmatter left out."""
        out: list[tuple[str, str]] = []
        for p in self.pieces:
            new = list(p.new)[_frontmatter_end(list(p.new)) :] if not p.old and p.start == p.end == 0 else list(p.new)
            while new and not new[0].strip():  # the blank line an append starts with
                new.pop(0)
            out += [("-", ln.rstrip("\r\n")) for ln in p.old] + [("+", ln.rstrip("\r\n")) for ln in new]
        return out

    def to_json(self) -> dict[str, Any]:
        """The item as `review show --json` prints it."""
        return {
            "number": self.number, "kind": self.kind, "page": self.page, "summary": self.summary,
            "lines": self.lines, "creates": self.creates, "added": self.added(), "removed": self.removed(),
        }  # fmt: skip


@dataclass
class Items:
    """A waiting pass and its items: the pass's commit and parent, its record, the items in order."""

    pass_id: str
    commit: str
    parent: str
    record: dict[str, Any]
    items: list[Item]
    attached: list[Piece] = field(default_factory=list)  # frontmatter pieces that go with a page's other items

    def to_json(self) -> dict[str, Any]:
        return {"pass_id": self.pass_id, "commit": self.commit, "items": [i.to_json() for i in self.items]}


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", "surrogateescape").splitlines(keepends=True)


def _frontmatter_end(lines: list[str]) -> int:
    """The index just past a page's frontmatter (0 when it has none)."""
    if not lines or lines[0].rstrip("\r\n") != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") in ("---", "..."):
            return i + 1
    return 0


def _pieces(path: str, old: list[str], new: list[str]) -> list[Piece]:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [
        Piece(path, i1, i2, tuple(old[i1:i2]), tuple(new[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _kind(piece: Piece) -> str:
    if not piece.old:
        return "append"
    if len(piece.old) == len(piece.new) and all(linking.unlinked(n) == o for o, n in zip(piece.old, piece.new, strict=True)):
        return "links"
    return "change"


def _map_entries(piece: Piece) -> list[Piece]:
    """A run of lines added to the map, one piece per entry (a blank line goes with the entry before it)."""
    if piece.old:
        return [piece]
    groups: list[list[str]] = []
    for line in piece.new:
        if line.strip() or not groups:
            groups.append([line])
        else:
            groups[-1].append(line)
    return [Piece(piece.path, piece.start, piece.end, (), tuple(g)) for g in groups]


def _cited(record: dict[str, Any], page: str, text: str) -> list[str]:
    """The journal lines the record's provenance gives for what was written on `page` within `text`."""
    found: list[str] = []
    for prov in record.get("provenance") or []:
        if not isinstance(prov, dict) or prov.get("page") != page:
            continue
        written = str(prov.get("text") or "").strip()
        if written and (written in text or linking.unlinked(text).find(linking.unlinked(written)) >= 0 or not text):
            found += [str(c.get("id")) for c in prov.get("lines") or [] if isinstance(c, dict) and c.get("id")]
    return list(dict.fromkeys(found))


def _first(lines: list[str], limit: int = 90) -> str:
    for line in lines:
        text = line.strip().lstrip("-*# ").strip()
        if text and text != "---":
            return text if len(text) <= limit else text[: limit - 1] + "…"
    return ""


def review_items(root: Path, pass_ref: str) -> Items:
    """The items of the waiting pass `pass_ref`, numbered pages first, then the changes to pages,
    then the map; ReviewRefused when the pass does not wait for review."""
    chain = chain_of(root, pass_ref, "review")
    mine = chain.entry
    record = find_pass(root, mine.pass_id).record or {}
    here = layout.current()
    paths = [p for p in changed_files(root, mine.parent, mine.commit) if here.page_name(p) is not None]
    before = gitrepo.tree_at(root, mine.parent, paths) if paths else {}
    after = gitrepo.tree_at(root, mine.commit, paths) if paths else {}
    names = {p: here.page_name(p) or p for p in paths}
    split_sources = {str(s) for s in record.get("split") or []}
    new_pages = [p for p in paths if p not in before and p in after]
    out = Items(mine.pass_id, mine.commit, mine.parent, record, [])
    taken_as_part: set[str] = set()
    grouped: list[Item] = []
    for path in paths:
        if path in before and (names[path] in split_sources or path in split_sources):
            text = after[path].data.decode("utf-8", "replace") if path in after else ""
            had = before[path].data.decode("utf-8", "replace")
            linked = {lk.target.lower() for lk in linking.find_links(text)} - {lk.target.lower() for lk in linking.find_links(had)}
            parts = [p for p in new_pages if names[p].lower() in linked or names[p].rsplit("/", 1)[-1].lower() in linked]
            taken_as_part.update(parts)
            item = Item(0, "split", names[path], f"split {names[path]} into {', '.join(names[p] for p in parts) or 'parts'}")
            item.pieces = _pieces(path, _lines(before[path].data), _lines(after[path].data if path in after else None))
            item.pieces += [Piece(p, 0, 0, (), tuple(_lines(after[p].data))) for p in parts]
            item.creates = [names[p] for p in parts]
            grouped.append(item)
    for path in new_pages:
        if path in taken_as_part:
            continue
        body = _lines(after[path].data)
        meta = pages.read_meta(after[path].data.decode("utf-8", "replace")) if _frontmatter_end(body) else {}
        title = str(meta.get("title") or names[path])
        item = Item(0, "page", names[path], f"new page {names[path]} ({title}): {_first(body[_frontmatter_end(body):])}")
        item.pieces = [Piece(path, 0, 0, (), tuple(body))]
        item.creates = [names[path]]
        item.lines = _cited(record, names[path], "")
        out.items.append(item)
    out.items += grouped
    map_items: list[Item] = []
    for path in paths:
        if path not in before or path not in after or any(i.pieces and i.pieces[0].path == path for i in grouped):
            continue
        old, new = _lines(before[path].data), _lines(after[path].data)
        head = _frontmatter_end(old)
        is_map = path == here.map_path()
        for piece in _pieces(path, old, new):
            if piece.start < head and not any(_STATE.match(ln) for ln in (*piece.old, *piece.new)):
                out.attached.append(piece)  # source: days and the like: they go with the page's other items
                continue
            kind = "state" if piece.start < head else "map" if is_map else _kind(piece)
            for part in _map_entries(piece) if is_map else [piece]:
                added = "".join(part.new)
                words = {
                    "state": f"state of {names[path]}: " + " → ".join(ln.split(":", 1)[1].strip() for ln in (*part.old, *part.new) if _STATE.match(ln)),
                    "map": f"map entry: {_first(list(part.new)) or 'a change to the map'}",
                    "append": f"append to {names[path]}: {_first(list(part.new))}",
                    "links": f"links in {names[path]}: " + ", ".join(f"[[{lk.target}]]" for lk in linking.find_links(added)),
                    "change": f"change in {names[path]}: {_first(list(part.new)) or 'lines removed'}",
                }[kind]
                item = Item(0, kind, names[path], words, [part], _cited(record, names[path], added) if kind in ("append", "change", "map") else [])
                (map_items if is_map else out.items).append(item)
    out.items += map_items
    for n, item in enumerate(out.items, start=1):
        item.number = n
    return out


@dataclass
class Partial:
    """The commit of the items taken, on the pass's parent, and what it changed (path -> bytes)."""

    commit: str
    changes: dict[str, bytes]
    taken: list[int]
    rejected: list[int]
    unread: list[str]  # lines that come back unread (only rejected items cite them)
    followed: list[int] = field(default_factory=list)  # map entries taken but left out with their page


def _apply(old: list[str], pieces: list[Piece]) -> list[str]:
    out: list[str] = []
    at = 0
    for piece in sorted(pieces, key=lambda p: (p.start, p.end)):
        out += old[at : piece.start]
        out += list(piece.new)
        at = max(at, piece.end)
    return out + old[at:]


def build_partial(root: Path, found: Items, taken: set[int], *, keep_read: bool = False) -> Partial:
    """A commit on the pass's parent holding only the items `taken` (numbers), with the read position
    and the pass's record to match; it is not on any branch until `land` puts it there."""
    lost_pages = {name.lower() for i in found.items if i.number not in taken for name in i.creates}
    # A map entry of a page that was left out goes with it: the map names pages that exist.
    followed = [i for i in found.items if i.number in taken and i.kind == "map" and _only_links_to(i, lost_pages)]
    chosen = [i for i in found.items if i.number in taken and i not in followed]
    dropped = [i for i in found.items if i not in chosen]
    by_path: dict[str, list[Piece]] = {}
    for item in chosen:
        for piece in item.pieces:
            by_path.setdefault(piece.path, []).append(piece)
    for piece in found.attached:
        if piece.path in by_path:
            by_path[piece.path].append(piece)
    before = gitrepo.tree_at(root, found.parent, list(by_path)) if by_path else {}
    changes: dict[str, bytes] = {}
    for path, pieces in by_path.items():
        text = "".join(_apply(_lines(before[path].data if path in before else None), pieces))
        for link in reversed(linking.find_links(text)):  # a link to a page that was left out: its words
            if link.target.lower() in lost_pages or link.target.rsplit("/", 1)[-1].lower() in lost_pages:
                text = text[: link.start] + (link.shown or link.target) + text[link.end :]
        changes[path] = text.encode("utf-8", "surrogateescape")
    kept_lines = {ln for i in chosen for ln in i.lines}
    unread = [] if keep_read else sorted({ln for i in dropped for ln in i.lines} - kept_lines)
    changes.update(_bookkeeping(root, found, unread, [i.number for i in chosen], [i.number for i in dropped]))
    message = _message(root, found, chosen, dropped, len(unread))
    ident = _author(root, found.commit)
    commit = build_commit(root, found.parent, changes, message, ident)
    return Partial(commit, changes, [i.number for i in chosen], [i.number for i in dropped], unread, [i.number for i in followed])


def _only_links_to(item: Item, names: set[str]) -> bool:
    links = linking.find_links("".join(item.added()))
    return bool(links) and all(lk.target.lower() in names or lk.target.rsplit("/", 1)[-1].lower() in names for lk in links)


def _bookkeeping(root: Path, found: Items, unread: list[str], taken: list[int], rejected: list[int]) -> dict[str, bytes]:
    """The pass's own files as they go with the items taken: the read position without the lines
    that come back unread, the record saying which items were taken, the set-aside lines as the pass left them."""
    out: dict[str, bytes] = {}
    for path in changed_files(root, found.parent, found.commit):
        if layout.current().page_name(path) is not None:
            continue
        data = gitrepo.tree_at(root, found.commit, [path]).get(path)
        if data is None:
            continue
        if path == journal.READ_PATH and unread:
            read = journal.load_read(data.data.decode("utf-8", "replace"))
            for line in _journal_lines(root, found.commit, unread):
                read.get(line.day, set()).discard(line.key)
            out[path] = journal.render_read(read).encode()
        elif path.startswith(f"{LOG_DIR}/") and path.endswith(".jsonl"):
            out[path] = _with_items(data.data, found, taken, rejected, unread)
        else:
            out[path] = data.data
    return out


def _journal_lines(root: Path, commit: str, ids: list[str]) -> list[journal.JournalLine]:
    here = layout.current()
    days = sorted({i.partition("#")[0] for i in ids})
    files = gitrepo.tree_at(root, commit, [here.day_path(d) for d in days]) if days else {}
    wanted = set(ids)
    found: list[journal.JournalLine] = []
    for day in days:
        entry = files.get(here.day_path(day))
        if entry is not None:
            found += [ln for ln in journal.parse_day(day, entry.data.decode("utf-8", "replace")) if ln.id in wanted]
    return found


def _with_items(data: bytes, found: Items, taken: list[int], rejected: list[int], unread: list[str]) -> bytes:
    """The log file with the pass's record saying which of its items were taken."""
    lines = data.decode("utf-8", "replace").splitlines(keepends=True)
    for n, line in enumerate(lines):
        recs = records_in(line)
        if recs and recs[0].get("pass_id") == found.pass_id and recs[0].get("kind") is None:
            rec = dict(recs[0])
            rec["review_items"] = {
                "taken": [{"number": i.number, "kind": i.kind, "summary": i.summary} for i in found.items if i.number in taken],
                "rejected": [{"number": i.number, "kind": i.kind, "summary": i.summary} for i in found.items if i.number in rejected],
                "unread_again": unread,
            }
            for key, kind in (("created", "page"), ("appended", "append")):
                if isinstance(rec.get(key), list):
                    left = {pages.page_path(i.page) for i in found.items if i.kind == kind and i.number in rejected}
                    rec[key] = [p for p in rec[key] if p not in left]
            lines[n] = json.dumps(rec, sort_keys=True) + "\n"
    return "".join(lines).encode()


def _message(root: Path, found: Items, chosen: list[Item], dropped: list[Item], unread: int) -> str:
    """The pass's commit message with its counts for what was taken and the items named."""
    message = gitrepo.git(root, "log", "-1", "--format=%B", found.commit).decode("utf-8", "replace").rstrip("\n")
    counts = {kind: sum(1 for i in chosen if i.kind == kind) for kind in set(_COUNTS.values())}
    for trailer, kind in _COUNTS.items():
        message = re.sub(rf"(?m)^Gardener-{trailer}: \d+$", f"Gardener-{trailer}: {counts[kind]}", message)
    read = re.search(r"(?m)^Gardener-Read: (\d+)$", message)
    if read and unread:
        message = message.replace(read.group(0), f"Gardener-Read: {max(0, int(read.group(1)) - unread)}")
    said = f"Review: items {', '.join(str(i.number) for i in chosen)} of {len(chosen) + len(dropped)} taken; left out: " + (
        "; ".join(f"{i.number}. {i.summary}" for i in dropped) or "none"
    )
    body, sep, trailers = message.rpartition("\n\nGardener-")
    if not sep:
        return f"{message}\n\n{said}\n"
    return f"{body}\n\n{said}\n\nGardener-{trailers}\nGardener-Items: {','.join(str(i.number) for i in chosen)}/{len(chosen) + len(dropped)}\n"


def _author(root: Path, commit: str) -> tuple[str, str]:
    out = gitrepo.git(root, "log", "-1", "--format=%an%x00%ae", commit).decode("utf-8", "replace").strip()
    name, _, email = out.partition("\x00")
    return name or "gitgarden", email or "gitgarden@localhost"


def land(root: Path, pass_ref: str, partial: Partial) -> AcceptResult:
    """Bring the commit of the taken items into the current branch in place of the pass (as `review
    accept PASS` brings a whole pass) and put the passes after it back on top; refuses, changing
    nothing, as that does."""
    chain = chain_of(root, pass_ref, "accept")
    refuse_state(root, "accept")
    mine = chain.entry
    target = replay(root, partial.commit, mine.parent, chain.head)
    if isinstance(target, list):
        raise ReviewRefused(
            f"the items taken of pass {mine.pass_id} do not fit your branch: {'; '.join(c.describe() for c in target)}. "
            "Nothing changed: accept the passes before it first, or merge by hand"
        )
    loose = dangling(root, partial.commit, mine.parent, target) if target != partial.commit else []
    if loose:
        raise ReviewRefused(f"the items taken of pass {mine.pass_id} link to pages your branch does not have: {', '.join(loose)}. Nothing changed")
    rest = [w for i, w in enumerate(chain.commits) if i != chain.at]
    new_tip, still = restack(root, rest, target, f"taking items of pass {mine.pass_id}")
    bring_in(root, chain.head, target)
    move_review(root, chain.tip, new_tip if still else None)
    return AcceptResult("items", target, [mine.pass_id], [], still)
