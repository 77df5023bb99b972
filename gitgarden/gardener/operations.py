"""How code applies the model's operations: pure — each reads a tree and returns the files it would
write (or why not), with what the guard needs to judge them. Code, not the model, writes `source:`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gitgarden.model.operations import INVALID, Op
from gitgarden.wiki import linking, pages
from gitgarden.wiki.journal import JournalLine, day_path
from gitgarden.wiki.names import unportable_part
from gitgarden.wiki.placement import Placement
from gitgarden.wiki.subjects import SubjectIndex
from gitgarden.wiki.tree import Entry, Tree, file, text_of

__all__ = ["Applied", "Refusal", "ApplyContext", "apply_op"]


@dataclass(frozen=True)
class Refusal:
    """Why an operation was not applied (before the guard saw it)."""

    op: Op
    reason: str

    def __str__(self) -> str:
        return f"{self.op.describe()}: {self.reason}"


@dataclass
class Applied:
    """What one operation would write: full new contents by path, plus what the guard needs to know."""

    op: Op
    writes: dict[str, Entry] = field(default_factory=dict)
    state_evidence: dict[str, str] = field(default_factory=dict)
    split_parents: dict[str, str] = field(default_factory=dict)
    merges: dict[str, str] = field(default_factory=dict)  # merged page -> the page its body moved into
    prose: list[tuple[str, str]] = field(default_factory=list)  # (page path, new text) to score for grounding
    created: list[str] = field(default_factory=list)
    appended: list[str] = field(default_factory=list)
    already_in: str = ""  # the page that already holds what the operation would write: it lands, writing nothing


@dataclass
class ApplyContext:
    """What applying needs besides the tree: the offered lines, today, the conversation window."""

    offered: Mapping[str, JournalLine]
    today: str
    conversation: str = ""
    links: linking.LinkIndex | None = None
    journal_texts: tuple[str, ...] = ()  # every journal line, to refuse recovering what one already says
    place: Placement | None = None  # where the gardener's new pages go, and their names' style
    # The model's slug of each page this pass created -> the page's name (a human name in the
    # gardener's folder): the slug stays the operation's key for later operations and links.
    keys: dict[str, str] = field(default_factory=dict)
    # The offered lines an agent captured (`gitgarden mcp`'s capture log) -> the name its client gave:
    # such a line never decides about a page of the person's (`supersede` asks on the map instead).
    agent_lines: Mapping[str, str] = field(default_factory=dict)
    # Pages by the ways a journal names them (first names, roles, plurals): a new page the model
    # proposes for a subject that has one already becomes more text for it.
    subjects: SubjectIndex | None = None


def _text(tree: Tree, path: str) -> str | None:
    entry = tree.get(path)
    return None if entry is None else text_of(entry)


def _cited_days(op: Op, ctx: ApplyContext) -> list[str]:
    return sorted({ctx.offered[i].day for i in op.lines})


class _Ambiguous(Exception):
    """A page name that more than one page answers to: the operation is refused, never guessed."""

    def __init__(self, name: str, candidates: list[str]) -> None:
        super().__init__(name)
        self.name, self.candidates = name, candidates


def _resolve(tree: Tree, ctx: ApplyContext, name: str) -> str | None:
    """The path of an existing page named `name` (a page name, file name or alias, or the key
    a page this pass created was proposed under); _Ambiguous when several pages answer to it
    (`Plan` with `Work/Plan.md` and `Home/Plan.md`)."""
    keyed = ctx.keys.get(name.strip().lower())
    if keyed is not None and pages.page_path(keyed) in tree:
        return pages.page_path(keyed)
    if ctx.links is not None and isinstance(name, str):
        twins = ctx.links.candidates(name)
        if twins:
            raise _Ambiguous(name, twins)
        found = ctx.links.resolve(name)
        if found is not None and pages.page_path(found) in tree:
            return pages.page_path(found)
    path = pages.page_path(name)
    # At the root the tree also lists files that are no pages (an identity file, AGENTS.md).
    return path if path in tree and pages.page_name(path) is not None else None


def _with_source(text: str, days: list[str]) -> str:
    """The page with `days` added to its `source:`.

    A page without frontmatter (the person's note as they wrote it) gets none forced
    onto it; on the person's pages `source:` is the only key a pass adds (docs/architecture.md, "A project on disk").
    """
    if not pages.split_frontmatter(text)[0]:
        return text
    try:
        meta = pages.read_meta(text)
    except pages.PageError:
        return text  # protected as it is: the guard will refuse a change to its frontmatter
    updates: dict[str, str] = {}
    have = pages.source_days(meta)
    if not set(days) <= set(have):
        updates["source"] = pages.render_source([*have, *days])
    if "state" not in meta and pages.is_gardeners(meta):
        updates["state"] = "open"
    return pages.patch_meta(text, updates) if updates else text


def apply_op(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    """Apply one operation to `tree` (not modified); the files it would write, or why not."""
    if op.kind == INVALID:
        return Refusal(op, str(op.get("reason")).split(": ", 1)[-1])
    unknown = [i for i in op.lines if i not in ctx.offered]
    if unknown:
        return Refusal(op, f"cites line(s) not offered in this pass: {', '.join(unknown)}")
    if op.kind in ("create_page", "append") and not op.lines:
        return Refusal(op, "cites no journal line")
    handler = _HANDLERS.get(op.kind)
    if handler is None:
        return Applied(op)
    try:
        return handler(op, tree, ctx)
    except _Ambiguous as exc:
        shown = " and ".join(exc.candidates)
        return Refusal(op, f"{exc.name!r} names {len(exc.candidates)} pages, {shown}: name one with its folder ({exc.candidates[0]})")


def _unsafe_name(name: str) -> str | None:
    """Why a new page may not be called `name` (a file not every system can check out), or None."""
    path = pages.page_path(name)
    why = unportable_part(path)
    if why is None and pages.page_name(path) != name:
        # A wiki at the project root: `raw/x`, `AGENTS`, `.obsidian/x` or a day of the journal folder.
        return f"page name {name!r} refused: that path is not a page of this wiki (gitgarden's, Obsidian's or the journal's)"
    return None if why is None else f"page name {name!r} refused: {why}, so the page could not be checked out there"


def _create_page(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    name = op.get("page")
    existing = _resolve(tree, ctx, name) or _resolve(tree, ctx, op.get("title")) or _same_subject(tree, ctx, op.get("title"))
    if existing is not None:
        # Never an overwrite: the same thing again is more text for the page it already has.
        as_append = Op("append", {"page": pages.page_name(existing), "text": op.get("body")}, op.lines, op.index)
        return _append(as_append, tree, ctx, original=op)
    unsafe = _unsafe_name(name)
    if unsafe:
        return Refusal(op, unsafe)
    made = _made_before(tree, op.get("body"), _cited_days(op, ctx))
    if made is not None:
        return Applied(op, already_in=made)  # the same lines already made this page, under another name
    placed = ctx.place.new_page(name, op.get("title")) if ctx.place is not None else name
    if placed != name:
        if _unsafe_name(placed) or pages.page_path(placed) in tree or _resolve(tree, ctx, placed.rsplit("/", 1)[-1]):
            folder = placed.rpartition("/")[0]
            placed = f"{folder}/{name}" if folder else name  # its human name is taken: the slug, in the same folder
        if placed == name or _unsafe_name(placed) or pages.page_path(placed) in tree:
            placed = name
        else:
            ctx = replace(ctx, keys={**ctx.keys, name.strip().lower(): placed})
    path = pages.page_path(placed)
    body = _rekey(op.get("body"), ctx)
    text = pages.new_page(op.get("title"), body, source=_cited_days(op, ctx), aliases=op.get("aliases") or ())
    return Applied(op, writes={path: file(text)}, prose=[(path, body)], created=[path])


def _same_subject(tree: Tree, ctx: ApplyContext, title: str) -> str | None:
    """The page of the subject `title` names under another spelling ("Tomasz" for "Tomasz Wójcik",
    "Electricians" for "Electrician"), or None."""
    if ctx.subjects is None or not isinstance(title, str):
        return None
    found = ctx.subjects.resolve(title)
    return pages.page_path(found) if found is not None and pages.page_path(found) in tree else None


def _rekey(text: str, ctx: ApplyContext) -> str:
    """`text` with wiki links to a page this pass created under another name than its key pointed
    at that name (`[[ridge-roofing|roofers]]` -> `[[Ridge Roofing|roofers]]`)."""
    if not ctx.keys or "[[" not in text:
        return text
    out, pos = [], 0
    for lk in linking.find_links(text):
        name = ctx.keys.get(lk.target.strip().lower())
        if name is None or name == lk.target:
            continue
        base = name.rsplit("/", 1)[-1]
        shown = base if ctx.links is None or ctx.links.resolve(base) in (None, name) else name
        anchor = f"#{lk.anchor}" if lk.anchor else ""
        out.append(text[pos : lk.start] + f"[[{shown}{anchor}{'|' + lk.shown if lk.shown else ''}]]")
        pos = lk.end
    return "".join(out) + text[pos:]


def _append(op: Op, tree: Tree, ctx: ApplyContext, original: Op | None = None) -> Applied | Refusal:
    owner = original or op
    path = _resolve(tree, ctx, op.get("page"))
    if path is None:
        return Refusal(owner, f"page {op.get('page')!r} does not exist")
    old = _text(tree, path)
    if old is None:
        return Refusal(owner, f"{path} is not a text page")
    if _stands_in(op.get("text"), old):
        return Applied(owner, already_in=path)  # proposing the same thing twice never writes it twice
    text = _rekey(op.get("text"), ctx)
    new = pages.append_body(_with_aliases(_with_source(old, _cited_days(op, ctx)), op.get("aliases") or ()), text)
    return Applied(owner, writes={path: file(new)}, prose=[(path, text)], appended=[path])


def _with_aliases(text: str, names: Sequence[str]) -> str:
    """The page with `names` added to its aliases (small mode: "Tomasz Wójcik" for the page
    "Tomasz"), on a page of the gardener's only; the person's frontmatter is theirs."""
    if not names:
        return text
    try:
        meta = pages.read_meta(text)
    except pages.PageError:
        return text
    if not pages.is_gardeners(meta):
        return text
    have = pages.aliases_of(meta)
    folded = {a.casefold() for a in (*have, str(meta.get("title", "")))}
    added = [n for n in names if n.casefold() not in folded]
    return pages.patch_meta(text, {"aliases": pages.render_aliases([*have, *added])}) if added else text


def _persons(text: str | None) -> bool:
    """True for the person's page (no pass created it): a pass only appends to it and adds
    `source:` days, or splits it as the model proposes ("Whose page is it": docs/architecture.md)."""
    if text is None:
        return False
    try:
        return not pages.is_gardeners(pages.read_meta(text))
    except pages.PageError:
        return True


_WIKILINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_MDLINK = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\s]*\)")


def _shown(inner: str) -> str:
    inner = inner.replace("\\|", "|")
    return inner.split("|", 1)[1] if "|" in inner else inner


def _sentence_keys(text: str) -> list[tuple[str, ...]]:
    """The sentences of markdown `text` as their words: links read as their shown text, case,
    punctuation and whitespace ignored. Two texts that differ only in those say the same."""
    from gitgarden.guard.grounding import sentences  # the sentence splitter rule 11 scores with

    plain = _MDLINK.sub(r"\1", _WIKILINK.sub(lambda m: _shown(m.group(1)), text))
    keys = [tuple(re.findall(r"\w+", s.casefold())) for s in sentences(plain)]
    return [k for k in keys if k]


def _stands_in(text: str, page: str) -> bool:
    """True when every sentence of `text` already stands, as a sentence, in the page's body."""
    wanted = _sentence_keys(text)
    if not wanted:
        return False  # nothing comparable (a bare heading): not "already there"
    _, body = pages.split_frontmatter(page)
    return set(wanted) <= set(_sentence_keys(body))


def _made_before(tree: Tree, body: str, days: list[str]) -> str | None:
    """An existing page that the same days' lines already made with these sentences (a create_page
    proposed again under another name), or None. Only pages whose `source:` holds every cited
    day are read, so this costs a few page reads, not the wiki; which pages those are comes from
    an index the tree read from disk keeps (facts.pages_citing), one sweep a pass, not one a page."""
    from gitgarden.wiki.facts import page_facts, pages_citing

    if not days or not _sentence_keys(body):
        return None
    for path in pages_citing(tree, days):
        if pages.page_name(path) is None or path == pages.map_path():
            continue
        facts = page_facts(tree, path)
        if facts is None or facts.meta is None or not set(days) <= set(pages.source_days(facts.meta)):
            continue
        text = _text(tree, path)
        if text is not None and _stands_in(body, text):
            return path
    return None


def _link(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    path = _resolve(tree, ctx, op.get("page"))
    target = _resolve(tree, ctx, op.get("target"))
    if path is None or target is None:
        # Say which: "the page or the target" left the person (and the repair round) guessing.
        missing = [f"{what} {name!r}" for what, name, found in (("page", op.get("page"), path), ("link target", op.get("target"), target)) if found is None]
        verb = "do" if len(missing) > 1 else "does"
        return Refusal(op, f"{' and '.join(missing)} {verb} not exist (use a page name as the page list shows it)")
    if _persons(_text(tree, path)):
        return Refusal(op, f"{path} is the person's page: a pass only appends to it")
    old = _text(tree, path)
    new = None if old is None else linking.wrap_first_mention(old, op.get("phrase"), pages.page_name(target) or "")
    if new is None:
        return Refusal(op, f"no unlinked mention of {op.get('phrase')!r} in {path}")
    return Applied(op, writes={path: file(new)})


def _set_state(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    path = _resolve(tree, ctx, op.get("page"))
    old = None if path is None else _text(tree, path)
    if path is None or old is None:
        return Refusal(op, f"page {op.get('page')!r} does not exist")
    if _persons(old):
        return Refusal(op, f"{path} is the person's page: its state is theirs to set")
    new = pages.patch_meta(old, {"state": op.get("state")})
    return Applied(op, writes={path: file(new)}, state_evidence={path: op.get("evidence")})


def _open_question(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    old = _text(tree, pages.map_path()) or ""
    names = []
    for page in op.get("pages"):
        path = _resolve(tree, ctx, page)
        if path is None:
            return Refusal(op, f"page {page!r} does not exist")
        names.append(f"[[{pages.page_name(path)}]]")
    text = " ".join(op.get("text").split())
    line = f"- {text} ({', '.join(names)})" if names else f"- {text}"  # small mode: a question about no page yet
    if line in pages.open_lines(old):
        return Applied(op)
    new = pages.add_open_line(old, line)
    if len(new) > pages.MAP_CEILING:
        return _open_overflow(op, tree, ctx, line, old)
    return Applied(op, writes={pages.map_path(): file(new)})


OPEN_OVERFLOW = "Open questions"  # the gardener's page that takes the Open lines a full map has no room for


def _open_overflow(op: Op, tree: Tree, ctx: ApplyContext, line: str, old_map: str) -> Applied | Refusal:
    """An Open line the map has no room for goes to the gardener's "Open questions" page, which the
    map's Open section links to once: an Open question is never refused for room."""
    path = _resolve(tree, ctx, OPEN_OVERFLOW)
    days = _cited_days(op, ctx)
    writes: dict[str, Entry] = {}
    if path is not None and not _persons(_text(tree, path)):
        page = _text(tree, path) or ""
        if line in pages.split_frontmatter(page)[1].splitlines():
            return Applied(op)
        writes[path] = file(pages.append_body(_with_source(page, days), line))
    else:
        name = ctx.place.new_page("open-questions", OPEN_OVERFLOW) if ctx.place is not None else "open-questions"
        if _unsafe_name(name) or pages.page_path(name) in tree:
            name = "open-questions"
        if pages.page_path(name) in tree:
            return Refusal(op, f"the map is full and {pages.page_path(name)} is not the gardener's to add Open questions to")
        path = pages.page_path(name)
        writes[path] = file(pages.new_page(OPEN_OVERFLOW, line + "\n", source=days))
    target = pages.page_name(path) or ""
    pointer = f"- More open questions: [[{target}]]"
    if not any(f"[[{target}]]" in ln for ln in pages.open_lines(old_map)):
        with_pointer = pages.add_open_line(old_map, pointer)
        if len(with_pointer) <= pages.MAP_CEILING:  # else the map's entries job lists the page when it can
            writes[pages.map_path()] = file(with_pointer)
    return Applied(op, writes=writes, created=[path] if path not in tree else [])


def _recover_line(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    evidence = op.get("evidence")
    if evidence not in ctx.conversation:
        return Refusal(op, "the evidence does not occur word for word in the conversation")
    text = " ".join(op.get("text").split())
    if _already_said(text, ctx.journal_texts):
        return Refusal(op, "a journal line already says it")
    path = day_path(ctx.today)
    old = _text(tree, path) or ""
    quote = " ".join(evidence.split()) if " ".join(evidence.split()) in ctx.conversation else evidence
    line = f'[recovered] {text} (evidence: "{quote}")'
    if old and not old.endswith("\n"):
        old += "\n"
    return Applied(op, writes={path: file(old + line + "\n")})


def _already_said(text: str, lines: tuple[str, ...]) -> bool:
    """True when some journal line holds nearly all of `text`'s content words (a duplicate
    recovered line would become a second page, or a page that argues with itself)."""
    from gitgarden.guard.grounding import score_text

    for line in lines:
        scores = score_text(text, [line])
        if scores and min(s.score for s in scores) >= 0.8:
            return True
    return False


def _split(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    from gitgarden.wiki.split import split_in_tree  # splitting has its own module

    path = _resolve(tree, ctx, op.get("page"))
    old = None if path is None else _text(tree, path)
    if path is None or old is None:
        return Refusal(op, f"page {op.get('page')!r} does not exist")
    parts = op.get("parts")
    for part in parts:
        unsafe = _unsafe_name(part["page"])
        if unsafe:
            return Refusal(op, unsafe)
    parts = op.get("parts")
    # The parts go in the page's folder; heading links into moved sections are rewired.
    result = split_in_tree(tree, path, [list(p["headings"]) for p in parts], names=[(p["page"], p["title"]) for p in parts])
    if isinstance(result, str):
        return Refusal(op, result)
    writes = {p: file(t) for p, t in result.items()}
    made = [p for p in result if p not in tree]
    return Applied(op, writes=writes, split_parents=dict.fromkeys(made, path), created=made)


def _map(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    old = _text(tree, pages.map_path()) or ""
    new = old
    writes: dict[str, Entry] = {}
    entries = []
    for entry in op.get("entries", []):
        path = _resolve(tree, ctx, entry["page"])
        if path is None:
            return Refusal(op, f"map entry for missing page {entry['page']!r}")
        summary = " ".join(entry["summary"].split())
        entries.append(f"- [[{pages.page_name(path)}]]" + (f" — {summary}" if summary else ""))
    new = pages.add_map_entries(new, entries)
    for move in op.get("moves", []):
        dest = _resolve(tree, ctx, move["to"])
        if dest is None or dest == pages.map_path():
            return Refusal(op, f"cannot move map prose to {move['to']!r}")
        chunk = move["text"].strip("\n")
        if chunk not in new or any(chunk in ln or ln in chunk for ln in pages.open_lines(new) if ln.strip()):
            return Refusal(op, "moved prose must be map text, word for word, outside the Open section")
        name = pages.page_name(dest)
        new = new.replace(chunk, f"See [[{name}]].", 1)
        dest_text = writes[dest].data.decode() if dest in writes else _text(tree, dest) or ""
        writes[dest] = file(pages.append_body(dest_text, chunk))
    if new != old:
        writes[pages.map_path()] = file(new)
    return Applied(op, writes=writes)


def _promote_to_hub(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    from gitgarden.wiki import hubs, tidy  # hubs are the map's business

    name = op.get("page")
    path = _resolve(tree, ctx, name)
    if path is None and ctx.place is not None:
        placed = ctx.place.own_page(name, op.get("title")) if "/" not in name else name
        if not _unsafe_name(placed) and pages.page_path(placed) not in tree:
            name = placed  # a new hub goes in the gardener's own folder
    if path is not None and not hubs.is_hub(tree, pages.page_name(path) or ""):
        return Refusal(op, f"{path} exists and is not a hub; a hub is a new page (or an existing hub)")
    children: list[str] = []
    for child in op.get("children"):
        found = _resolve(tree, ctx, child)
        if found is None or found == pages.map_path() or found == path:
            return Refusal(op, f"child page {child!r} does not exist")
        if pages.page_name(found) not in children:
            children.append(pages.page_name(found) or "")
    map_text = _text(tree, pages.map_path()) or ""
    open_set = set(pages.open_lines(map_text))
    hub_name = pages.page_name(path) if path is not None else name
    old = _text(tree, path) if path is not None else None
    held = {lk.target.strip().lower() for lk in linking.find_links(pages.split_frontmatter(old)[1])} if old else set()
    lines, moved = [], set()
    for child in children:
        if child.lower() in held:
            continue
        # The child's map entry moves into the hub word for word; a child without one gets a new line.
        entry = next(
            (ln for ln in map_text.splitlines() if ln.startswith("- [[") and ln not in open_set
             and any(ctx.links is not None and ctx.links.resolve(lk.target) == child for lk in linking.find_links(ln))),
            None,
        )
        if entry is not None:
            moved.add(entry)
            lines.append(entry)
        else:
            title = pages.read_meta(_text(tree, pages.page_path(child)) or "").get("title") if _safe_meta(tree, child) else None
            lines.append(f"- [[{child}]]" + (f" — {title}" if title and title != child else ""))
    if not lines:
        return Applied(op)  # every child is already in the hub: already there
    hub_path = path or pages.page_path(hub_name or name)
    if old is None:
        writes = {hub_path: file(hubs.hub_page_text(op.get("title"), lines))}
    else:
        writes = {hub_path: file(pages.append_body(old, "\n".join(lines)))}
    kept = "".join(ln for ln in map_text.splitlines(keepends=True) if ln.rstrip("\r\n") not in moved)
    if not any(ctx.links is not None and ctx.links.resolve(lk.target) == hub_name for lk in linking.find_links(kept)) and f"[[{hub_name}]]" not in kept:
        kept = pages.add_map_entries(kept or tidy.MAP_START, [f"- [[{hub_name}]] — {op.get('title')}"])
    if kept != map_text:
        writes[pages.map_path()] = file(kept)
    return Applied(op, writes=writes, created=[hub_path] if old is None else [])


def _meta_or_none(text: str) -> dict[str, Any] | None:
    try:
        return pages.read_meta(text)
    except pages.PageError:
        return None


def _supersede(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    path, newer = _resolve(tree, ctx, op.get("page")), _resolve(tree, ctx, op.get("by"))
    if path is None or newer is None or pages.map_path() in (path, newer) or path == newer:
        return Refusal(op, "the page and the page that supersedes it must be two existing pages")
    old = _text(tree, path)
    meta = None if old is None else _meta_or_none(old)
    if old is None or meta is None:
        return Refusal(op, f"{path} has no frontmatter that parses; it is left as it is")
    by = pages.page_name(newer) or ""
    if meta.get("superseded_by"):
        return Applied(op)  # already there
    unnamed = _not_named(path, meta, [ctx.offered[i].text for i in op.lines])
    if unnamed:
        return Refusal(op, unnamed)
    agents = sorted(i for i in op.lines if i in ctx.agent_lines)
    line = None
    if meta.get("state") == "decided":  # a decided page is never edited: the question goes to the map
        line = f"- [[{pages.page_name(path)}]] is decided, but [[{by}]] may supersede it"
    elif agents and not pages.is_gardeners(meta):
        # Only the person's own line marks their page: an agent's (whatever name its client gave) asks.
        line = f"- [[{pages.page_name(path)}]] is your page; a line an agent captured ({', '.join(agents)}) says [[{by}]] supersedes it"
    if line is not None:
        map_text = _text(tree, pages.map_path()) or ""
        if line in pages.open_lines(map_text):
            return Applied(op)
        return Applied(op, writes={pages.map_path(): file(pages.add_open_line(map_text, line))})
    nl = pages.newline_of(old)
    new = _with_source(pages.patch_meta(old, {"superseded_by": f'"[[{by}]]"'}), _cited_days(op, ctx))
    block, body = pages.split_frontmatter(new)
    new = block + f"> Superseded by [[{by}]].{nl}" + (nl if body.strip() else "") + body
    return Applied(op, writes={path: file(new)})


def _not_named(path: str, meta: dict[str, Any], cited: list[str]) -> str | None:
    """Why the cited lines may not supersede the page at `path`, or None. They must be about it: a
    word of its title (or name) for a page of the gardener's; the page itself — its whole title,
    name or an alias — for a page of the person's, which a pass never marks on a guess."""
    from gitgarden.guard.grounding import content_words

    name = pages.page_name(path) or path
    title = str(meta.get("title") or name.rsplit("/", 1)[-1])
    said = " ".join(cited)
    if pages.is_gardeners(meta):
        if set(content_words(f"{title} {name.rsplit('/', 1)[-1].replace('-', ' ')}")) & set(content_words(said)):
            return None
        return f"the cited line(s) do not mention {title!r}: a page is superseded only by a line about it"
    low = " ".join(said.lower().split())
    names = [title, name.rsplit("/", 1)[-1], name.rsplit("/", 1)[-1].replace("-", " "), *map(str, pages.aliases_of(meta))]
    if any(n.strip() and re.search(rf"(?<!\w){re.escape(' '.join(n.lower().split()))}(?!\w)", low) for n in names):
        return None
    return (
        f"{path} is your page, and the cited line(s) do not name it ({title!r}): a person's page is marked "
        "superseded only by a line that names it"
    )


def _merge(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    from gitgarden.wiki.health import duplicate_pair

    src, dst = _resolve(tree, ctx, op.get("from")), _resolve(tree, ctx, op.get("into"))
    if src is None or dst is None or pages.map_path() in (src, dst) or src == dst:
        return Refusal(op, "merge needs two existing pages")
    src_text, dst_text = _text(tree, src), _text(tree, dst)
    src_meta = None if src_text is None else _meta_or_none(src_text)
    dst_meta = None if dst_text is None else _meta_or_none(dst_text)
    if src_text is None or dst_text is None or src_meta is None or dst_meta is None:
        return Refusal(op, "both pages need frontmatter that parses")
    src_name, dst_name = pages.page_name(src) or "", pages.page_name(dst) or ""
    if not duplicate_pair((src_name, src_meta), (dst_name, dst_meta)):
        return Refusal(op, f"{src_name} and {dst_name} are not duplicate candidates (`gitgarden health` names those)")
    if "decided" in (src_meta.get("state"), dst_meta.get("state")):
        return Refusal(op, "a decided page is never merged into or out of; the question goes to the Open section")
    block, body = pages.split_frontmatter(src_text)
    if not body.strip() or body.strip() == f"Merged into [[{dst_name}]].":
        return Applied(op)  # already there
    nl = pages.newline_of(src_text)
    title = str(src_meta.get("title") or src_name)
    days = [d for d in pages.source_days(src_meta) if d not in pages.source_days(dst_meta)]
    dst_new = _with_source(dst_text, days) if days else dst_text
    dst_new = pages.append_body(dst_new, f"## {title}{nl}{nl}{body.strip(nl)}")
    src_new = block + f"Merged into [[{dst_name}]].{nl}"
    return Applied(op, writes={src: file(src_new), dst: file(dst_new)}, merges={src: dst}, appended=[dst])


def _safe_meta(tree: Tree, name: str) -> bool:
    try:
        pages.read_meta(_text(tree, pages.page_path(name)) or "")
    except pages.PageError:
        return False
    return True


_HANDLERS = {
    "promote_to_hub": _promote_to_hub,
    "supersede": _supersede,
    "merge": _merge,
    "create_page": _create_page,
    "append": _append,
    "link": _link,
    "set_state": _set_state,
    "open_question": _open_question,
    "recover_line": _recover_line,
    "split": _split,
    "map": _map,
}
