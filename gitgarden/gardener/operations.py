"""How code applies the model's operations: pure — each reads a tree and returns the files it would
write (or why not), with what the guard needs to judge them. Code, not the model, writes `source:`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from gitgarden.gardener import reshape
from gitgarden.gardener.applied import (
    AmbiguousName,
    Applied,
    ApplyContext,
    Refusal,
    cited_days,
    page_text,
    resolve_page,
    unsafe_name,
    with_source,
)
from gitgarden.guard.grounding import score_text, sentences
from gitgarden.model.operations import INVALID, Op
from gitgarden.wiki import linking, pages
from gitgarden.wiki.facts import page_facts, pages_citing
from gitgarden.wiki.journal import day_path
from gitgarden.wiki.split import split_in_tree
from gitgarden.wiki.subjects import Mention, said_as_thing
from gitgarden.wiki.tree import Entry, Tree, file

__all__ = ["Applied", "Refusal", "ApplyContext", "apply_op"]


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
    except AmbiguousName as exc:
        shown = " and ".join(exc.candidates)
        return Refusal(op, f"{exc.name!r} names {len(exc.candidates)} pages, {shown}: name one with its folder ({exc.candidates[0]})")


def _create_page(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    name = op.get("page")
    existing = resolve_page(tree, ctx, name) or resolve_page(tree, ctx, op.get("title")) or _same_subject(tree, ctx, op.get("title"), op.lines)
    if existing is not None:
        # Never an overwrite: the same thing again is more text for the page it already has.
        as_append = Op("append", {"page": pages.page_name(existing), "text": op.get("body")}, op.lines, op.index)
        return _append(as_append, tree, ctx, original=op)
    unsafe = unsafe_name(name)
    if unsafe:
        return Refusal(op, unsafe)
    made = _made_before(tree, op.get("body"), cited_days(op, ctx))
    if made is not None:
        return Applied(op, already_in=made)  # the same lines already made this page, under another name
    placed = ctx.place.new_page(name, op.get("title")) if ctx.place is not None else name
    if placed != name:
        if unsafe_name(placed) or pages.page_path(placed) in tree or resolve_page(tree, ctx, placed.rsplit("/", 1)[-1]):
            folder = placed.rpartition("/")[0]
            placed = f"{folder}/{name}" if folder else name  # its human name is taken: the slug, in the same folder
        if placed == name or unsafe_name(placed) or pages.page_path(placed) in tree:
            placed = name
        else:
            ctx = replace(ctx, keys={**ctx.keys, name.strip().lower(): placed})
    path = pages.page_path(placed)
    body = _rekey(op.get("body"), ctx)
    text = pages.new_page(op.get("title"), body, source=cited_days(op, ctx), aliases=op.get("aliases") or ())
    return Applied(op, writes={path: file(text)}, prose=[(path, body)], created=[path])


def _same_subject(tree: Tree, ctx: ApplyContext, title: str, cited: Sequence[str] = ()) -> str | None:
    """The page of the subject `title` names under another spelling ("Tomasz" for "Tomasz Wójcik",
    "Electricians" for "Electrician"), or None. A word the cited lines write only in lower case
    ("the scaffolding") is a thing, never the last name of "Apex Scaffolding"."""
    if ctx.subjects is None or not isinstance(title, str):
        return None
    common = said_as_thing(title, (ctx.offered[i].text for i in cited if i in ctx.offered))
    found = ctx.subjects.resolve(Mention(title, "topic" if common else "name", 0))
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
    path = resolve_page(tree, ctx, op.get("page"))
    if path is None:
        return Refusal(owner, f"page {op.get('page')!r} does not exist")
    old = page_text(tree, path)
    if old is None:
        return Refusal(owner, f"{path} is not a text page")
    if _stands_in(op.get("text"), old):
        return Applied(owner, already_in=path)  # proposing the same thing twice never writes it twice
    text = _rekey(op.get("text"), ctx)
    new = pages.append_body(_with_aliases(with_source(old, cited_days(op, ctx)), op.get("aliases") or ()), text)
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
    if not days or not _sentence_keys(body):
        return None
    for path in pages_citing(tree, days):
        if pages.page_name(path) is None or path == pages.map_path():
            continue
        facts = page_facts(tree, path)
        if facts is None or facts.meta is None or not set(days) <= set(pages.source_days(facts.meta)):
            continue
        text = page_text(tree, path)
        if text is not None and _stands_in(body, text):
            return path
    return None


def _link(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    path = resolve_page(tree, ctx, op.get("page"))
    target = resolve_page(tree, ctx, op.get("target"))
    if path is None or target is None:
        # Say which: "the page or the target" left the person (and the repair round) guessing.
        missing = [f"{what} {name!r}" for what, name, found in (("page", op.get("page"), path), ("link target", op.get("target"), target)) if found is None]
        verb = "do" if len(missing) > 1 else "does"
        return Refusal(op, f"{' and '.join(missing)} {verb} not exist (use a page name as the page list shows it)")
    if _persons(page_text(tree, path)):
        return Refusal(op, f"{path} is the person's page: a pass only appends to it")
    old = page_text(tree, path)
    new = None if old is None else linking.wrap_first_mention(old, op.get("phrase"), pages.page_name(target) or "")
    if new is None:
        return Refusal(op, f"no unlinked mention of {op.get('phrase')!r} in {path}")
    return Applied(op, writes={path: file(new)})


def _set_state(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    path = resolve_page(tree, ctx, op.get("page"))
    old = None if path is None else page_text(tree, path)
    if path is None or old is None:
        return Refusal(op, f"page {op.get('page')!r} does not exist")
    if _persons(old):
        return Refusal(op, f"{path} is the person's page: its state is theirs to set")
    new = pages.patch_meta(old, {"state": op.get("state")})
    return Applied(op, writes={path: file(new)}, state_evidence={path: op.get("evidence")})


def _open_question(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    old = page_text(tree, pages.map_path()) or ""
    names = []
    for page in op.get("pages"):
        path = resolve_page(tree, ctx, page)
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


# An overflow page is filled to this, short of the page budget: the link job may still add links.
_OVERFLOW_FILL = pages.PAGE_BUDGET - 600


def _open_overflow(op: Op, tree: Tree, ctx: ApplyContext, line: str, old_map: str) -> Applied | Refusal:
    """An Open line the map has no room for goes to the gardener's "Open questions" page ("Open
    questions 2" and on when that one is full), which the map's Open section links to once: an Open
    question is never refused for room."""
    days = cited_days(op, ctx)
    writes: dict[str, Entry] = {}
    for n in range(1, 100):
        title = OPEN_OVERFLOW if n == 1 else f"{OPEN_OVERFLOW} {n}"
        path = resolve_page(tree, ctx, title)
        if path is not None and not _persons(page_text(tree, path)):
            page = page_text(tree, path) or ""
            if line in pages.split_frontmatter(page)[1].splitlines():
                return Applied(op)
            grown = pages.append_body(with_source(page, days), line)
            if len(grown) > _OVERFLOW_FILL:
                continue  # full: the next one
            writes[path] = file(grown)
            break
        slug = "open-questions" if n == 1 else f"open-questions-{n}"
        name = ctx.place.new_page(slug, title) if ctx.place is not None else slug
        if unsafe_name(name) or pages.page_path(name) in tree:
            name = slug
        if pages.page_path(name) in tree:
            return Refusal(op, f"the map is full and {pages.page_path(name)} is not the gardener's to add Open questions to")
        path = pages.page_path(name)
        writes[path] = file(pages.new_page(title, line + "\n", source=days))
        break
    else:
        return Refusal(op, "the map and 99 pages of Open questions are full")
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
    old = page_text(tree, path) or ""
    quote = " ".join(evidence.split()) if " ".join(evidence.split()) in ctx.conversation else evidence
    line = f'[recovered] {text} (evidence: "{quote}")'
    if old and not old.endswith("\n"):
        old += "\n"
    return Applied(op, writes={path: file(old + line + "\n")})


def _already_said(text: str, lines: tuple[str, ...]) -> bool:
    """True when some journal line holds nearly all of `text`'s content words (a duplicate
    recovered line would become a second page, or a page that argues with itself)."""
    for line in lines:
        scores = score_text(text, [line])
        if scores and min(s.score for s in scores) >= 0.8:
            return True
    return False


def _split(op: Op, tree: Tree, ctx: ApplyContext) -> Applied | Refusal:
    path = resolve_page(tree, ctx, op.get("page"))
    old = None if path is None else page_text(tree, path)
    if path is None or old is None:
        return Refusal(op, f"page {op.get('page')!r} does not exist")
    parts = op.get("parts")
    for part in parts:
        unsafe = unsafe_name(part["page"])
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
    old = page_text(tree, pages.map_path()) or ""
    new = old
    writes: dict[str, Entry] = {}
    entries = []
    for entry in op.get("entries", []):
        path = resolve_page(tree, ctx, entry["page"])
        if path is None:
            return Refusal(op, f"map entry for missing page {entry['page']!r}")
        summary = " ".join(entry["summary"].split())
        entries.append(f"- [[{pages.page_name(path)}]]" + (f" — {summary}" if summary else ""))
    new = pages.add_map_entries(new, entries)
    for move in op.get("moves", []):
        dest = resolve_page(tree, ctx, move["to"])
        if dest is None or dest == pages.map_path():
            return Refusal(op, f"cannot move map prose to {move['to']!r}")
        chunk = move["text"].strip("\n")
        if chunk not in new or any(chunk in ln or ln in chunk for ln in pages.open_lines(new) if ln.strip()):
            return Refusal(op, "moved prose must be map text, word for word, outside the Open section")
        name = pages.page_name(dest)
        new = new.replace(chunk, f"See [[{name}]].", 1)
        dest_text = writes[dest].data.decode() if dest in writes else page_text(tree, dest) or ""
        writes[dest] = file(pages.append_body(dest_text, chunk))
    if new != old:
        writes[pages.map_path()] = file(new)
    return Applied(op, writes=writes)


_HANDLERS = {
    "promote_to_hub": reshape.promote_to_hub,
    "supersede": reshape.supersede,
    "merge": reshape.merge,
    "create_page": _create_page,
    "append": _append,
    "link": _link,
    "set_state": _set_state,
    "open_question": _open_question,
    "recover_line": _recover_line,
    "split": _split,
    "map": _map,
}
