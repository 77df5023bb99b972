"""The guard: the rules of DESIGN §5 (1-10) checked against the diff of two trees.

`check(base, proposed, ctx)` is a pure function: no I/O, no following of
symlinks (a tree is data), nothing but the changed paths is read, except the
list of page names (and, lazily, aliases) that link resolution needs. In a pass
the gardener hands a `PassContext`; outside a pass (`gitgarden guard`) `ctx` is
None and the checks that need the pass's evidence are named by
`skipped_checks(None)` instead of being guessed at.

Lines are compared as they are: split on "\\n" only, so a CRLF file keeps its
"\\r" on every line and a conversion to LF is a change of every line. Finding
links and aligning old lines with new is `guardtext`'s work; this module judges.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gitgarden import wiki
from gitgarden.guardtext import (
    _align,
    _Alignment,
    _common_prefix,
    _find_links,
    _Finder,
    _key,
    _Lines,
    _lines,
    _same,
)
from gitgarden.tree import Entry, Tree, changed_paths, text_of

__all__ = ["RULE_NAMES", "Verdict", "PassContext", "check", "skipped_checks"]

RULE_NAMES = {
    1: "writable-surface",
    2: "no-deletion",
    3: "safe-new-file",
    4: "no-rewording",
    5: "verbatim-split",
    6: "journal",
    7: "valid-page",
    8: "links-resolve",
    9: "budgets",
    10: "contradictions",
}
_JOURNAL = "raw/journal/"
_KNOWN_STATES = ", ".join(wiki.STATES)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_RECOVERED = re.compile(r'^\[recovered\] (?P<fact>.*\S) \(evidence: "(?P<quote>.*)"\)\s*$')
SUPERSEDED_KEY = "superseded_by"  # frontmatter a pass may add once: `superseded_by: "[[newer-page]]"`
_LINE_CAP = 300  # characters of an offending line kept in a verdict
_VERDICT_CAP = 20  # line verdicts per (path, rule) before they are summarised


@dataclass(frozen=True)
class Verdict:
    """One broken rule: which rule, on which path, the offending line and why."""

    rule: int
    name: str
    path: str
    line: str
    message: str

    def __str__(self) -> str:
        tail = f": {self.line!r}" if self.line else ""
        return f"rule {self.rule} ({self.name}) {self.path}: {self.message}{tail}"

    def to_json(self) -> dict[str, Any]:
        """The verdict as a plain JSON object."""
        return {
            "rule": self.rule,
            "name": self.name,
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }


@dataclass(frozen=True)
class PassContext:
    """What a pass knows that the trees do not: its evidence sources and its own paths."""

    conversation: str = ""
    journal_lines: tuple[str, ...] = ()
    state_evidence: Mapping[str, str] = field(default_factory=dict)
    own_paths: frozenset[str] = frozenset()
    split_parents: Mapping[str, str] = field(default_factory=dict)
    merges: Mapping[str, str] = field(default_factory=dict)  # merged page -> the page its body moved into


def skipped_checks(ctx: PassContext | None) -> list[str]:
    """Sentences naming the checks `check` could not apply with this context."""
    if ctx is not None:
        return []
    return [
        "rule 4: state changes were not checked for evidence quoted from the journal "
        "or the conversation (only a pass has them).",
        "rule 6: journal appends were not limited to one [recovered] line, and no "
        "[recovered] line's evidence was checked against the conversation.",
        "rule 7: split parts were recognised from the trees (a new page holding lines "
        "that left a page which now links to it), not from a pass's record.",
        "rule 1: log/ and .gitgarden/ changes were allowed without a pass's list of its "
        "own paths (log/ may still only grow; .gitgarden/config.toml stays refused).",
        "rule 11 (grounded): written sentences were not traced to cited journal lines "
        "(only a pass knows which lines an operation cites).",
    ]


def check(base: Tree, proposed: Tree, ctx: PassContext | None = None) -> list[Verdict]:
    """Every rule of DESIGN §5 (1-10) that the change from `base` to `proposed` breaks.

    An empty list means the change may land. `ctx` None means "outside a pass":
    only what the two trees show is checked (see `skipped_checks`).
    """
    return _Guard(base, proposed, ctx).run()


# --- the rules ---------------------------------------------------------------------


def _unsafe_path(path: str) -> bool:
    """True for paths that are not plain, relative and inside the project."""
    return (
        not path
        or path.startswith("/")
        or "\\" in path
        or "\0" in path
        or any(part in ("", ".", "..") for part in path.split("/"))
    )


def _is_day(name: str) -> bool:
    if not _DAY.match(name):
        return False
    try:
        dt.date.fromisoformat(name)
    except ValueError:
        return False
    return True


def _rank(state: Any) -> int | None:
    """A state's place in open -> hypothesis -> decided -> done; None when unknown."""
    return wiki.STATES.index(state) if isinstance(state, str) and state in wiki.STATES else None


def _meta(text: str) -> dict[str, Any] | None:
    """The page's frontmatter, or None when it does not parse."""
    try:
        return wiki.read_meta(text)
    except wiki.PageError:
        return None


@dataclass
class _Page:
    """A modified wiki text file: its old body lines and how they fared."""

    path: str
    new_text: str
    old: list[str]
    new: _Lines  # the new body
    tail: int  # index of the unterminated last line of a CRLF text, else -1
    fate: _Alignment
    decided: bool


class _Guard:
    """One run of `check`: the two trees, the context, and the verdicts so far."""

    def __init__(self, base: Tree, proposed: Tree, ctx: PassContext | None) -> None:
        self.base, self.proposed, self.ctx = base, proposed, ctx
        self.verdicts: list[Verdict] = []
        self.counts: Counter[tuple[str, int]] = Counter()
        self.changed = changed_paths(base, proposed)
        self.pages: dict[str, _Page] = {}  # modified wiki text files
        self.new_pages: dict[str, str] = {}  # created wiki/**.md -> text
        self.parents: dict[str, str] = {}  # split part -> the page its lines came from
        self.journal_added: list[tuple[str, str]] = []
        self._names: list[str] | None = None
        self._index: wiki.LinkIndex | None = None
        self._full_index: wiki.LinkIndex | None = None
        self._dests: dict[str, _Finder] | None = None
        self._taken: dict[str, set[int]] = {}
        self._new_bodies: dict[str, _Lines] = {}
        self._added: dict[Entry, str] | None = None  # added file -> its path (to name renames)
        self._lower: set[str] | None = None

    def say(self, rule: int, path: str, message: str, line: str = "") -> None:
        self.counts[(path, rule)] += 1
        if self.counts[(path, rule)] > _VERDICT_CAP:
            return  # summarised at the end of run()
        if len(line) > _LINE_CAP:
            line = line[:_LINE_CAP] + "…"
        self.verdicts.append(Verdict(rule, RULE_NAMES[rule], path, line, message))

    def run(self) -> list[Verdict]:
        for path in self.changed:
            self.surface(path)
        for page in self.pages.values():
            self.splits(page)
        for path, text in self.new_pages.items():
            self.new_page(path, text)
        for path in sorted({*self.pages, *self.new_pages}):
            if path.endswith(".md"):
                self.links_and_budget(path)
        self.journal_pass()
        for (path, rule), n in self.counts.items():
            if n > _VERDICT_CAP:
                message = f"and {n - _VERDICT_CAP} more verdicts like the ones above"
                self.verdicts.append(Verdict(rule, RULE_NAMES[rule], path, "", message))
        return sorted(self.verdicts, key=lambda v: (v.path, v.rule))

    def resolve(self, target: str) -> str | None:
        """The page a link target names in the proposed tree; aliases are parsed only if needed."""
        if self._names is None:
            wiki_paths = [p for p in self.proposed if p.startswith("wiki/")]
            # A non-page file (an image) resolves by its name with its extension.
            self._names = [wiki.page_name(p) or p[len("wiki/") :] for p in wiki_paths]
            self._index = wiki.LinkIndex(self._names)
        assert self._index is not None
        hit = self._index.resolve(target)
        if hit is not None:
            return hit
        if self._full_index is None:
            aliases: dict[str, list[str]] = {}
            for p, e in self.proposed.items():
                name = wiki.page_name(p)
                head = e.data[: e.data.find(b"\n---", 3) + 1] if e.data[:3] == b"---" else b""
                if name and b"alias" in head and (text := text_of(e)) is not None:
                    meta = _meta(text)
                    if meta:
                        aliases[name] = wiki.aliases_of(meta)
            self._full_index = wiki.LinkIndex(self._names, aliases)
        return self._full_index.resolve(target)

    def base_lower(self) -> set[str]:
        """The base tree's paths in lower case (computed once)."""
        if self._lower is None:
            self._lower = {p.lower() for p in self.base}
        return self._lower

    # rules 1-3: where a change may land, and what a new file may be
    def surface(self, path: str) -> None:
        old, new = self.base.get(path), self.proposed.get(path)
        journal_day = path.startswith(_JOURNAL) and "/" not in path[len(_JOURNAL) :]
        if _unsafe_path(path):
            self.say(1, path, "the path is not a plain relative path inside the project")
        elif path.startswith("wiki/"):
            self.wiki_file(path, old, new)
        elif any(e is not None and e.is_symlink for e in (old, new)):
            self.say(3, path, "a symlink was added or changed; symlinks are never written")
        elif journal_day and path.endswith(".md"):
            self.journal(path, old, new)
        elif self.ctx is not None:
            if path not in self.ctx.own_paths or not path.startswith(("log/", ".gitgarden/")):
                why = "a pass writes wiki/, the journal and its own log/ and .gitgarden/ files only"
                self.say(1, path, why)
        elif path.startswith("log/"):
            if new is None or (old is not None and not new.data.startswith(old.data)):
                self.say(1, path, "log records only grow: a log file was changed or deleted")
        elif not path.startswith(".gitgarden/") or path == ".gitgarden/config.toml":
            self.say(1, path, "only wiki/, journal appends, log/ and .gitgarden/ state may change")

    def wiki_file(self, path: str, old: Entry | None, new: Entry | None) -> None:
        if new is None:
            if self._added is None:
                self._added = {self.proposed[p]: p for p in self.changed if p not in self.base}
            moved = self._added.get(old) if old is not None else None
            where = f" (it now stands at {moved}; a rename is a deletion)" if moved else ""
            self.say(2, path, f"a file under wiki/ was deleted{where}")
        elif new.is_symlink or (old is not None and old.is_symlink):
            self.say(3, path, "a symlink under wiki/ was added or changed; none is ever written")
        elif old is None:
            self.new_file(path, new)
        else:
            self.modified(path, old, new)

    def new_file(self, path: str, new: Entry) -> None:
        segments = path[len("wiki/") :].removesuffix(".md").split("/")
        text = text_of(new)
        if any(s.startswith(".") for s in segments):
            self.say(3, path, "a new file under wiki/ is never hidden")
        elif not path.endswith(".md") or not all(wiki.is_slug(s) for s in segments):
            self.say(3, path, "a new page is named wiki/<slug>.md (lowercase letters, digits, '-')")
        elif text is None:
            self.say(3, path, "a new page is UTF-8 text without NUL bytes")
        elif path.lower() in self.base_lower():
            # On a case-insensitive disk this file would overwrite the person's page.
            self.say(3, path, "a file with this name in other letter case exists already")
        else:
            self.new_pages[path] = text

    # rules 4 and 10: what may happen to an existing page
    def modified(self, path: str, old: Entry, new: Entry) -> None:
        old_text, new_text = text_of(old), text_of(new)
        if old_text is None or new_text is None:
            self.say(4, path, "a file that is not UTF-8 text was changed; it cannot be checked")
            return
        is_page = path.endswith(".md")
        old_meta = _meta(old_text) if is_page else {}
        if old_meta is None:
            # The person's frontmatter is malformed: every raw line stays protected, and a
            # frontmatter that now parses is refused, since its change cannot be judged.
            old_body, new_body = old_text, new_text
            if _meta(new_text) is not None:
                why = "the old frontmatter did not parse, so a change to it cannot be checked"
                self.say(4, path, why)
        elif is_page:
            old_block, old_body = wiki.split_frontmatter(old_text)
            new_block, new_body = wiki.split_frontmatter(new_text)
            if new_block != old_block:
                self.frontmatter(path, old_meta, new_text)
        else:
            old_body, new_body = old_text, new_text
        old_lines = _lines(old_body)
        tail = -1
        if old_body and not old_body.endswith("\n") and wiki.newline_of(old_text) == "\r\n":
            tail = len(old_lines) - 1
        body = _Lines(new_body)
        fate = _align(old_body, old_lines, body, tail)
        decided = old_meta is not None and old_meta.get("state") == "decided"
        self.pages[path] = _Page(path, new_text, old_lines, body, tail, fate, decided)

    def frontmatter(self, path: str, old: dict[str, Any], new_text: str) -> None:
        new = _meta(new_text)
        if new is None:
            self.say(7, path, "the page's frontmatter no longer parses")
            return
        if old.get("state") != new.get("state"):
            self.state_change(path, old.get("state"), new.get("state"))
        old_days, new_days = set(wiki.source_days(old)), set(wiki.source_days(new))
        for day in sorted(old_days - new_days):
            self.say(4, path, f"source lost the day {day}; source only grows", f"source: {day}")
        for day in sorted(new_days - old_days):
            self.require_journal(path, day)
        for key in sorted({*old, *new} - {"state", "source"}):
            if key == SUPERSEDED_KEY and old.get(key) is None and self.supersedes(new.get(key)):
                continue  # rule 4: a page may be marked superseded by an existing page, once
            if old.get(key) != new.get(key):
                why = f"frontmatter key '{key}' changed; only state and source may"
                self.say(4, path, why, f"{key}: {new.get(key)}")

    def supersedes(self, value: Any) -> bool:
        """True when `value` is one link (`[[page]]`) to a page that exists after the change."""
        links = _find_links(value) if isinstance(value, str) else []
        return len(links) == 1 and value.strip() == f"[[{links[0].target}]]" and self.resolve(links[0].target) is not None

    def state_change(self, path: str, before: Any, after: Any) -> None:
        line = f"state: {after}"
        if before == "decided":
            why = "a decided page's state never changes; a contradiction becomes an Open line"
            self.say(10, path, why, line)
        elif after is None:
            self.say(4, path, "the page's state was removed", f"state: {before}")
        elif before is not None and _rank(before) is None:
            self.say(4, path, f"state '{before}' is not a known state, so it cannot move", line)
        elif _rank(after) is None:
            self.say(7, path, f"state must be one of {_KNOWN_STATES}", line)
        elif before is not None and (_rank(after) or 0) < (_rank(before) or 0):
            self.say(4, path, f"state moved backward from {before}; it only moves forward", line)
        elif self.ctx is not None and not (before is None and after == "open"):
            # Giving a page its first state, `open`, claims nothing; every other move does.
            quote = self.ctx.state_evidence.get(path, "").strip()
            sources = (self.ctx.conversation, *self.ctx.journal_lines)
            if not quote:
                why = "a state change needs evidence quoted from the journal or the conversation"
                self.say(4, path, why, line)
            elif not any(quote in source for source in sources):
                why = "the quoted evidence is not in the journal or the conversation word for word"
                self.say(4, path, why, line)

    # rule 5: lines that left a page stand verbatim in a page this change created
    def destinations(self, path: str) -> dict[str, _Finder]:
        """Where a page's lines may go: new pages; for the map also lines other pages gained; for a
        page a pass merges (rule 5, like a split), the lines the page it merges into gained."""
        if self._dests is None:
            self._dests = {p: self.new_body(p).finder() for p in self.new_pages}
            self._taken = {p: set() for p in self._dests}
        into = self.ctx.merges.get(path) if self.ctx is not None else None
        if path != wiki.MAP_PATH and into is None:
            return self._dests
        gained = {
            p: page.new.finder(page.fate.inserted)
            for p, page in self.pages.items()
            if p != wiki.MAP_PATH and (into is None or p == into)
        }
        for p in gained:
            self._taken.setdefault(p, set())
        return {**self._dests, **gained}

    def splits(self, page: _Page) -> None:
        moved = [i for i in page.fate.left if page.old[i].strip()]
        if page.fate.left and not moved:
            for i in page.fate.left:
                self.say(4, page.path, "a blank line of the page was removed", page.old[i])
        dests = self.destinations(page.path) if moved else {}
        after = dict.fromkeys(dests, -1)
        used: dict[str, list[int]] = {}
        unplaced: list[int] = []
        prev: list[str] = []
        for i in moved:
            # Prefer the page the previous line went to: a moved section stays together.
            for p in prev + sorted(dests):
                j = dests[p].find(page.old[i], after[p], i == page.tail, self._taken[p])
                if j is not None:
                    after[p], prev = j, [p]
                    self._taken[p].add(j)
                    used.setdefault(p, []).append(i)
                    break
            else:
                unplaced.append(i)
        for i in unplaced:
            if used:
                why = "a line that left the page is not, verbatim and in order, in a new page"
                self.say(5, page.path, why, page.old[i])
            else:
                self.say(4, page.path, "a line of the page was changed or removed", page.old[i])
        if used:
            # Any link counts, changed line or not: the map lists its pages already.
            linked = {self.resolve(lk.target) for lk in _find_links(page.new.text)}
            for p in used:
                if wiki.page_name(p) not in linked:
                    self.say(5, page.path, f"lines moved to {p}, but the page does not link to it")
                elif p in self.new_pages:
                    self.parents.setdefault(p, page.path)
            if not page.new.text.strip():
                self.say(5, page.path, "a split keeps part of the page, but its body is now empty")
        if page.decided:
            self.decided_insertions(page, {wiki.page_name(p) for p in used})

    def decided_insertions(self, page: _Page, parts: set[str | None]) -> None:
        """Rule 10: a decided page gains no lines, except the links to its split parts."""
        for j in page.fate.inserted:
            line = page.new.lines[j]
            if parts and (
                not line.strip()
                or any(self.resolve(lk.target) in parts for lk in page.new.links.get(j, []))
            ):
                continue
            why = "a decided page gets no new lines; a contradiction becomes an Open line"
            self.say(10, page.path, why, line)

    # rule 7: new pages are valid and start open (a split part inherits its parent's state)
    def new_page(self, path: str, text: str) -> None:
        meta = _meta(text)
        if path == wiki.MAP_PATH:  # the map needs no frontmatter
            if meta is None:
                self.say(7, path, "the map's frontmatter does not parse")
            return
        if meta is None:
            self.say(7, path, "the new page's frontmatter does not parse")
            return
        state = meta.get("state")
        parent = (
            self.ctx.split_parents.get(path) if self.ctx is not None else self.parents.get(path)
        )
        allowed = ["open"]
        if parent is not None:
            inherited = [self.state_of(tree, parent) for tree in (self.base, self.proposed)]
            allowed = [s for s in inherited if _rank(s) is not None] or allowed
        if _rank(state) is None:
            self.say(7, path, f"state must be one of {_KNOWN_STATES}", f"state: {state}")
        elif state not in allowed:
            why = f"a split part takes the state of {parent}" if parent else "a new page is open"
            self.say(7, path, why, f"state: {state}")
        for day in wiki.source_days(meta):
            self.require_journal(path, day)

    def state_of(self, tree: Tree, path: str) -> Any:
        entry = tree.get(path)
        text = text_of(entry) if entry is not None else None
        meta = _meta(text) if text is not None else None
        return meta.get("state") if meta else None

    def require_journal(self, path: str, day: str) -> None:
        entry = self.proposed.get(f"{_JOURNAL}{day}.md")
        if entry is None or entry.is_symlink:
            why = f"source names {day}, but raw/journal/{day}.md does not exist"
            self.say(7, path, why, f"source: {day}")

    # rules 8 and 9: added links resolve; pages keep their budgets; Open lines stay
    def new_body(self, path: str) -> _Lines:
        """A created page's body lines, with all their links (cached)."""
        if path not in self._new_bodies:
            body = _Lines(wiki.split_frontmatter(self.new_pages[path])[1])
            body.load_links()
            self._new_bodies[path] = body
        return self._new_bodies[path]

    def links_and_budget(self, path: str) -> None:
        page = self.pages.get(path)
        if page is None:  # a new page: every link in it is added
            new_text, body = self.new_pages[path], self.new_body(path)
            added: list[tuple[int, Counter[str]]] = [(j, Counter()) for j in body.links]
        else:  # only lines the change touched can hold added links
            new_text, body = page.new_text, page.new
            added = [(j, Counter()) for j in page.fate.inserted if j in body.links]
            for i, j in page.fate.rewrapped:
                old = page.old[i]
                added.append((j, Counter(old[lk.start : lk.end] for lk in _find_links(old))))
        for j, before in added:
            line = body.lines[j]
            for lk in body.links.get(j, []):
                raw = line[lk.start : lk.end]
                if before[raw] > 0:
                    before[raw] -= 1
                elif self.resolve(lk.target) is None:
                    self.say(8, path, f"the link {raw} points to no page", line)
        old_entry = self.base.get(path)
        old_text = text_of(old_entry) if old_entry is not None else None
        limit = wiki.MAP_CEILING if path == wiki.MAP_PATH else wiki.PAGE_BUDGET
        old_len = len(old_text) if old_text is not None else 0
        if len(new_text) > limit and not (old_len > limit and len(new_text) <= old_len):
            what = "the map's ceiling" if path == wiki.MAP_PATH else "the page budget"
            self.say(9, path, f"it ends at {len(new_text)} characters, over {what} of {limit}")
        if path == wiki.MAP_PATH and old_text is not None:
            self.open_lines(path, old_text, new_text)

    def open_lines(self, path: str, old_text: str, new_text: str) -> None:
        pool: dict[str, list[str]] = {}
        for line in wiki.open_lines(new_text):
            pool.setdefault(_key(line), []).append(line)
        for line in wiki.open_lines(old_text):
            cands = pool.get(_key(line), [])
            hit = next((c for c in cands if _same(line, c, _find_links(c), False)), None)
            if hit is None:
                self.say(9, path, "a line of the map's Open section was removed", line)
            else:
                cands.remove(hit)

    # rule 6: the journal only grows; a pass adds at most one [recovered] line
    def journal(self, path: str, old: Entry | None, new: Entry | None) -> None:
        if new is None:
            self.say(6, path, "a journal file was deleted; the journal only grows")
            return
        if old is None and not _is_day(path[len(_JOURNAL) : -len(".md")]):
            self.say(6, path, "a new journal file is named by a real date: YYYY-MM-DD.md")
        was = old.data if old is not None else b""
        if not new.data.startswith(was):
            k = _common_prefix(was, new.data)
            start, end = was.rfind(b"\n", 0, k) + 1, was.find(b"\n", k)
            line = was[start : end if end >= 0 else len(was)].decode("utf-8", "replace")
            self.say(6, path, "a journal line was changed or removed; the journal only grows", line)
            return
        added = new.data[len(was) :]
        if was and not was.endswith(b"\n") and added and not added.startswith((b"\n", b"\r\n")):
            last = was[was.rfind(b"\n") + 1 :].decode("utf-8", "replace")
            self.say(6, path, "text was added to the last journal line, not on a new line", last)
            return
        text = text_of(Entry("file", added))
        if text is None:
            self.say(6, path, "text appended to the journal is not UTF-8 text")
            return
        self.journal_added.extend(
            (path, ln.removesuffix("\r")) for ln in text.split("\n") if ln.strip()
        )

    def journal_pass(self) -> None:
        if self.ctx is None:
            return
        for n, (path, line) in enumerate(self.journal_added):
            m = _RECOVERED.match(line)
            quote = m.group("quote") if m else ""
            if n >= 1:
                self.say(6, path, "a pass appends at most one journal line", line)
            elif m is None:
                why = 'a pass adds only `[recovered] <fact> (evidence: "<quote>")` lines'
                self.say(6, path, why, line)
            elif not quote.strip() or quote not in self.ctx.conversation:
                why = "the [recovered] line's evidence is not in the conversation word for word"
                self.say(6, path, why, line)
