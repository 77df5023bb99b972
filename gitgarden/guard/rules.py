"""The guard: the rules of docs/guard.md checked against the diff of two trees.

`check(base, proposed, ctx)` is a pure function: no I/O, no following of
symlinks (a tree is data), nothing but the changed paths is read, except the
list of page names (and, lazily, aliases) that link resolution needs — asked
of `Diff.names`, which a tree read from git answers without listing it whole. In a pass
the gardener hands a `PassContext`; outside a pass (`gitgarden guard`, the
pre-commit hook) `ctx` is None and the checks that need the pass's evidence are
named by `skipped_checks(None)` instead of being guessed at.

Each rule is one function — rules 1 to 6 below, 7 to 11 (what the written pages say) in
`guard.pagerules` — listed with its number and name in `RULES`, so it can be read against
docs/guard.md on its own. A rule reads the change
through `Diff` — what changed, and how each page's old lines fared — which is
worked out once and shared; a rule yields (path, why, offending line) and
`check` turns those into `Verdict`s.

Lines are compared as they are: split on "\\n" only, so a CRLF file keeps its
"\\r" on every line and a conversion to LF is a change of every line. Finding
links and aligning old lines with new is `text`'s work, the change itself `diff`'s; this module judges.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gitgarden.guard import plain
from gitgarden.guard.anchors import dangling
from gitgarden.guard.diff import Diff, PassContext
from gitgarden.guard.pagerules import (
    rule_budgets,
    rule_contradictions,
    rule_grounded,
    rule_links_resolve,
    rule_valid_pages,
)
from gitgarden.guard.paths import encoding_change, obsidian_settings, slug_rule
from gitgarden.guard.statemove import state_move
from gitgarden.guard.text import (
    common_prefix,
    find_links,
)
from gitgarden.wiki import pages
from gitgarden.wiki.tree import Entry, Tree, text_of

__all__ = ["RULES", "RULE_NAMES", "Verdict", "PassContext", "Diff", "check", "skipped_checks"]

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_RECOVERED = re.compile(r'^\[recovered\] (?P<fact>.*\S) \(evidence: "(?P<quote>.*)"\)\s*$')
SUPERSEDED_KEY = "superseded_by"  # frontmatter a pass may add once: `superseded_by: "[[newer-page]]"`


_LINE_CAP = 300  # characters of an offending line kept in a verdict
_VERDICT_CAP = 20  # line verdicts per (path, rule) before they are summarised

Finding = tuple[str, str, str]  # (path, why, offending line or "")


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
        "own paths (log/ may still only grow; .gitgarden/config.toml stays refused); an "
        "agent's commit may not touch either.",
        "rule 11 (grounded): written sentences were not traced to cited journal lines "
        "(only a pass knows which lines an operation cites).",
    ]


def check(
    base: Tree, proposed: Tree, ctx: PassContext | None = None, *, agent: bool = False
) -> list[Verdict]:
    """Every rule of docs/guard.md that the change from `base` to `proposed` breaks.

    An empty list means the change may land. `ctx` None means "outside a pass":
    only what the two trees show is checked (see `skipped_checks`). `agent` True
    judges an agent's commit in a person's vault (the pre-commit hook): its new
    pages may have the vault's human names, since the slug rule is the gardener's.
    """
    diff = Diff(base, proposed, ctx, agent)
    verdicts: list[Verdict] = []
    counts: Counter[tuple[str, int]] = Counter()
    for number, name, rule in RULES:
        for path, why, line in rule(diff):
            counts[(path, number)] += 1
            if counts[(path, number)] > _VERDICT_CAP:
                continue  # summarised below
            if len(line) > _LINE_CAP:
                line = line[:_LINE_CAP] + "…"
            verdicts.append(Verdict(number, name, path, line, why))
    for (path, number), n in counts.items():
        if n > _VERDICT_CAP:
            message = f"and {n - _VERDICT_CAP} more verdicts like the ones above"
            verdicts.append(Verdict(number, RULE_NAMES[number], path, "", message))
    return sorted(verdicts, key=lambda v: (v.path, v.rule))


# --- small judgements the rules share -----------------------------------------------


def _is_day(name: str) -> bool:
    if not _DAY.match(name):
        return False
    try:
        dt.date.fromisoformat(name)
    except ValueError:
        return False
    return True


# --- the rules of docs/guard.md, one function each ------------------------------------


def rule_writable_surface(d: Diff) -> Iterator[Finding]:
    """1. Only wiki/**, the pass's own log/ record and .gitgarden/ state, and journal
    appends. AGENTS.md, raw/**, audit/** and everything else: refused."""
    for path in d.changed:
        kind = d.kinds[path]
        if kind == "unsafe":
            yield path, "the path is not a plain relative path inside the project", ""
        elif kind == "obsidian" and d.ctx is not None:
            yield path, "a pass never writes Obsidian's own files (.obsidian/)", ""
        elif kind == "obsidian" and d.agent and not obsidian_settings(d.layout, path):
            yield path, "an agent's commit may not change Obsidian's plugins, snippets or themes (code Obsidian runs): the person installs those", ""
        elif kind != "other":
            continue
        elif d.ctx is not None:
            if path not in d.ctx.own_paths or not path.startswith(("log/", ".gitgarden/")):
                why = f"a pass writes {d.layout.wiki_shown}, the journal and its own log/ and .gitgarden/ files only"
                yield path, why, ""
        elif d.agent and path.startswith(("log/", ".gitgarden/")):
            # An agent's read.json marks the person's lines read; its log record forges history.
            yield path, "gitgarden's own state (.gitgarden/, log/) is written by gitgarden only, never by an agent", ""
        elif path.startswith("log/"):
            old, new = d.base.get(path), d.proposed.get(path)
            if new is None or (old is not None and not new.data.startswith(old.data)):
                yield path, "log records only grow: a log file was changed or deleted", ""
        elif not path.startswith(".gitgarden/") or path == ".gitgarden/config.toml":
            yield path, f"only {d.layout.wiki_shown}, journal appends, log/ and .gitgarden/ state may change", ""


def rule_no_deletion(d: Diff) -> Iterator[Finding]:
    """2. Every file under wiki/ before exists after. No renames."""
    for path in d.paths("deleted"):
        moved = d.added.get(d.base[path])
        where = f" (it now stands at {moved}; a rename is a deletion)" if moved else ""
        yield path, f"a file under {d.layout.wiki_shown} was deleted{where}", ""
    for path in d.paths("submodule_gone"):
        yield path, "a submodule (gitlink) was removed or replaced by files; a submodule is no page and never goes", ""


def rule_safe_new_files(d: Diff) -> Iterator[Finding]:
    """3. New pages are wiki/<slug>.md (for an agent: the vault's own names), UTF-8 text,
    no symlinks, no `..`, no hidden files, nothing executable."""
    yield from plain.mode_findings(d, new=True)
    for path in d.paths("symlink"):
        if d.layout.in_wiki(path):
            yield path, f"a symlink under {d.layout.wiki_shown} was added or changed; none is ever written", ""
        else:
            yield path, "a symlink was added or changed; symlinks are never written", ""
    for path, why in d.new_file_problems.items():
        yield path, why, ""
    for path in d.paths("in_submodule"):
        why = f"{d.submodule_above(path)} is a submodule: its files are its own repository's, never written as pages"
        yield path, why, ""
    for path in d.paths("submodule_new"):
        yield path, "a submodule (gitlink) is never added by a pass or an agent", ""
    for path in d.human_named:
        parent = d.ctx.split_parents.get(path) if d.ctx is not None else d.parents.get(path)
        if parent is None:
            yield path, slug_rule(d.layout) + (
                "; only a split part takes a human name, as its folder's notes have, and a page of the gardener's "
                "its title's name in its own folder"
            ), ""


def rule_no_rewording(d: Diff) -> Iterator[Finding]:
    """4. An existing page's lines all survive, in order; only insertions — except link
    wrapping and verbatim split moves. Frontmatter: state moves forward only, with evidence
    (in a pass); source only grows; other keys unchanged. An attachment is never written, and no
    file becomes executable."""
    yield from plain.mode_findings(d, new=False)
    for path in d.paths("attachment"):
        yield path, "an attachment (a file that is not a page) is never written", ""
    for path in d.paths("filtered"):
        yield path, "a Git LFS pointer (git keeps the file elsewhere, through filter=lfs) is never written", ""
    for path in d.paths("reencoded"):
        what = encoding_change(d.base[path].data, d.proposed[path].data)
        yield path, f"{what} (the words are the same: an editor's setting?); a page keeps its bytes as they are", ""
    for path in d.paths("modified"):
        page = d.pages.get(path)
        if page is None:
            yield path, "a file that is not UTF-8 text was changed; it cannot be checked", ""
            continue
        if page.old_meta is None and page.new_meta is not None:
            yield path, "the old frontmatter did not parse, so a change to it cannot be checked", ""
        if page.front_changed and page.old_meta is not None and page.new_meta is not None:
            old, new = page.old_meta, page.new_meta
            move = page.state_move
            judged = state_move(path, *move, d.ctx) if move else None
            if move and judged and judged[0] == 4:
                line = f"state: {move[0]}" if move[1] is None else f"state: {move[1]}"
                yield path, judged[1], line
            old_days, new_days = set(pages.source_days(old)), set(pages.source_days(new))
            for day in sorted(old_days - new_days):
                yield path, f"source lost the day {day}; source only grows", f"source: {day}"
            for key in sorted({*old, *new} - {"state", "source"}):
                if key == SUPERSEDED_KEY and old.get(key) is None and _supersedes(d, new.get(key)):
                    continue  # a page may be marked superseded by an existing page, once
                if key == "aliases" and d.ctx is not None and _aliases_grow(d, old, new):
                    continue  # the gardener's page learns another name the journal gives it
                if old.get(key) != new.get(key):
                    why = f"frontmatter key '{key}' changed; only state and source may"
                    yield path, why, f"{key}: {new.get(key)}"
        moves = d.moves[path]
        for i in moves.blank_removed:
            yield path, "a blank line of the page was removed", page.old[i]
        if not moves.used:
            for i in moves.unplaced:
                yield path, "a line of the page was changed or removed", page.old[i]


def _aliases_grow(d: Diff, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """True when a pass only added aliases to a page of the gardener's, each a name that stands word
    for word in a journal line: a person's page keeps its frontmatter as they wrote it."""
    if not pages.is_gardeners(old):
        return False
    before, after = old.get("aliases") or [], new.get("aliases") or []
    if not isinstance(after, list) or not isinstance(before, list | str) or not after:
        return False
    before = [before] if isinstance(before, str) else before
    if after[: len(before)] != before:
        return False
    added = [a for a in after[len(before) :]]
    journal = d.ctx.journal_lines if d.ctx is not None else ()
    return all(isinstance(a, str) and a.strip() and any(a.casefold() in line.casefold() for line in journal) for a in added)


def _supersedes(d: Diff, value: Any) -> bool:
    """True when `value` is one link (`[[page]]`) to a page that exists after the change."""
    links = find_links(value) if isinstance(value, str) else []
    return len(links) == 1 and value.strip() == f"[[{links[0].target}]]" and d.resolve(links[0].target) is not None


def rule_verbatim_split(d: Diff) -> Iterator[Finding]:
    """5. Every line leaving a page stands, word for word and in order, in a page created by
    the same change, and the original links to each such page and keeps one part."""
    for path, moves in d.moves.items():
        if not moves.used:
            continue
        page = d.pages[path]
        for i in moves.unplaced:
            why = "a line that left the page is not, verbatim and in order, in a new page"
            yield path, why, page.old[i]
        for part in moves.unlinked:
            yield path, f"lines moved to {part}, but the page does not link to it", ""
        if not page.new.text.strip():
            yield path, "a split keeps part of the page, but its body is now empty", ""
        yield from dangling(d, page)


def rule_journal(d: Diff) -> Iterator[Finding]:
    """6. The journal: appends only; a pass adds at most one line, marked [recovered], whose
    evidence occurs verbatim in the conversation. Outside a pass, appends are capture."""
    added: list[tuple[str, str]] = []
    for path in d.paths("journal"):
        old, new = d.base.get(path), d.proposed.get(path)
        if new is None:
            yield path, "a journal file was deleted; the journal only grows", ""
            continue
        if old is None and not _is_day(path.rsplit("/", 1)[-1].removesuffix(".md")):
            yield path, "a new journal file is named by a real date: YYYY-MM-DD.md", ""
        was = old.data if old is not None else b""
        recoded = encoding_change(was, new.data) if old is not None else None
        if recoded:
            yield path, f"{recoded}; the journal only grows, its lines kept byte for byte", ""
            continue
        if not new.data.startswith(was):
            k = common_prefix(was, new.data)
            start, end = was.rfind(b"\n", 0, k) + 1, was.find(b"\n", k)
            line = was[start : end if end >= 0 else len(was)].decode("utf-8", "replace")
            yield path, "a journal line was changed or removed; the journal only grows", line
            continue
        tail = new.data[len(was) :]
        if was and not was.endswith(b"\n") and tail and not tail.startswith((b"\n", b"\r\n")):
            last = was[was.rfind(b"\n") + 1 :].decode("utf-8", "replace")
            yield path, "text was added to the last journal line, not on a new line", last
            continue
        text = text_of(Entry("file", tail))
        if text is None:
            yield path, "text appended to the journal is not UTF-8 text", ""
            continue
        added.extend((path, ln.removesuffix("\r")) for ln in text.split("\n") if ln.strip())
    if d.ctx is None:
        return
    for n, (path, line) in enumerate(added):
        m = _RECOVERED.match(line)
        quote = m.group("quote") if m else ""
        if n >= 1:
            yield path, "a pass appends at most one journal line", line
        elif m is None:
            yield path, 'a pass adds only `[recovered] <fact> (evidence: "<quote>")` lines', line
        elif not quote.strip() or quote not in d.ctx.conversation:
            why = "the [recovered] line's evidence is not in the conversation word for word"
            yield path, why, line


Rule = Callable[[Diff], Iterator[Finding]]

RULES: tuple[tuple[int, str, Rule], ...] = (
    (1, "writable-surface", rule_writable_surface),
    (2, "no-deletion", rule_no_deletion),
    (3, "safe-new-file", rule_safe_new_files),
    (4, "no-rewording", rule_no_rewording),
    (5, "verbatim-split", rule_verbatim_split),
    (6, "journal", rule_journal),
    (7, "valid-page", rule_valid_pages),
    (8, "links-resolve", rule_links_resolve),
    (9, "budgets", rule_budgets),
    (10, "contradictions", rule_contradictions),
    (11, "grounded", rule_grounded),
)
RULE_NAMES = {number: name for number, name, _ in RULES}
