"""Property tests: whatever edits a writer makes, the guard never accepts a loss.

Random base trees (pages with frontmatter, CRLF or LF, links, a map with an Open
section, journal days) get random edit scripts (insert, delete, reword, move,
split, rename, frontmatter changes, symlinks, link wraps, journal appends and
edits, ...). Whenever `guard.check` accepts, the independent checker in
guard_checker.py must find nothing of the person's lost. A second property
keeps the guard honest the other way: plain appends and new valid pages are
always accepted.

Choices come from a uniformly random `random.Random` that Hypothesis seeds (a
failure is reproducible; it is not shrunk): Hypothesis's own choices favour
simple values, which starved the rarer edits the first property needs (a state
moved backward, a source day dropped). Failures print the whole diff instead.

`GUARD_EXAMPLES` sets the number of examples per property (default 3000). The seeds are the
same on every run (conftest's "deterministic" profile); `HYPOTHESIS_PROFILE=wide` draws new ones.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gitgarden.guard.rules import PassContext, check
from gitgarden.wiki import pages as wiki
from gitgarden.wiki.tree import Entry, file, symlink
from tests.helpers.guard_checker import lost

EXAMPLES = int(os.environ.get("GUARD_EXAMPLES", "3000"))
DAYS = ["2026-11-27", "2026-11-28", "2026-11-29"]
NAMES = ["acme", "dana", "pricing", "Old Notes", "team/sam"]
WORDS = ["Acme", "Dana", "pilot", "signed", "export", "January", "seat", "price", "Sam", "the"]
CONVERSATION = "Dana said the pilot is decided. Sam agreed on the seat price."
Tree = dict[str, Entry]
PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- base trees ----------------------------------------------------------------------------


def body_lines(rnd: random.Random, tag: str) -> list[str]:
    """Body lines, each made unique by a tag, some blank, some with a link, maybe one repeated."""
    out = []
    for n in range(rnd.randint(0, 7)):
        if rnd.random() < 0.15:
            out.append("")
            continue
        words = [rnd.choice(WORDS) for _ in range(rnd.randint(1, 4))]
        if rnd.random() < 0.2:
            words.insert(0, f"[[{rnd.choice(NAMES)}]]")
        out.append(" ".join([*words, f"{tag}{n}"]))
    if out and rnd.random() < 0.15:
        out.append(rnd.choice(out))
    return out


def page_text(rnd: random.Random, tag: str, days: list[str]) -> str:
    body = body_lines(rnd, tag)
    kind = rnd.choice(["fm", "fm", "fm", "fm", "none", "broken"])
    head: list[str] = []
    if kind == "fm":
        sources = rnd.sample(days, rnd.randint(min(1, len(days)), len(days)))
        head = ["---", f"title: {tag.title()}", f"state: {rnd.choice(wiki.STATES)}"]
        head.append(f"source: [{', '.join(sources)}]")
        if rnd.random() < 0.5:
            head.append("tags: [work]")
        head.append("---")
    elif kind == "broken":
        head = ["---", "title: [unclosed", "---"]
    nl = rnd.choice(["\n", "\n", "\r\n"])
    text = nl.join(head + body)
    if rnd.random() < 0.8 or not body:
        text += nl
    return text


def base_tree(rnd: random.Random) -> Tree:
    days = sorted(rnd.sample(DAYS, rnd.randint(1, len(DAYS))))
    tree: Tree = {"AGENTS.md": file("# Premises\n")}
    for n, day in enumerate(days):
        tree[f"raw/journal/{day}.md"] = file(f"journal {n}.0\njournal {n}.1\n")
    names = rnd.sample(NAMES, rnd.randint(1, 4))
    for n, name in enumerate(names):
        tree[f"wiki/{name}.md"] = file(page_text(rnd, f"p{n}x", days))
    if rnd.random() < 0.5:
        opens = "".join(f"- Does [[{names[0]}]] hold? q{k}\n" for k in range(rnd.randint(0, 2)))
        tree[wiki.map_path()] = file("# Map\n\nIntro m0\n\n## Open\n\n" + opens)
    return tree


# --- edits -----------------------------------------------------------------------------------


def pages(tree: Tree) -> list[str]:
    return sorted(p for p, e in tree.items() if p.startswith("wiki/") and e.kind == "file")


def edit_body(rnd: random.Random, tree: Tree, change: Callable[[list[str], str], None]) -> None:
    """Apply `change` to the body lines ("\\r" kept) of a random page."""
    if not pages(tree):
        return
    path = rnd.choice(pages(tree))
    text = tree[path].data.decode("utf-8")
    block, body = wiki.split_frontmatter(text)
    lines = body.split("\n")
    change(lines, wiki.newline_of(text))
    tree[path] = file(block + "\n".join(lines))


def new_line(rnd: random.Random, nl: str) -> str:
    words = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 3)))
    return f"{words} new{rnd.randint(0, 99)}" + ("\r" if nl == "\r\n" else "")


def insert(rnd: random.Random, tree: Tree) -> None:
    edit_body(rnd, tree, lambda b, nl: b.insert(rnd.randint(0, len(b)), new_line(rnd, nl)))


def append(rnd: random.Random, tree: Tree) -> None:
    edit_body(rnd, tree, lambda b, nl: b.insert(len(b) - (b[-1] == ""), new_line(rnd, nl)))


def delete(rnd: random.Random, tree: Tree) -> None:
    edit_body(rnd, tree, lambda b, nl: b.pop(rnd.randrange(len(b))))


def reword(rnd: random.Random, tree: Tree) -> None:
    def change(b: list[str], nl: str) -> None:
        k = rnd.randrange(len(b))
        b[k] = b[k].replace(rnd.choice(WORDS), "CHANGED", 1) if rnd.random() < 0.5 else b[k] + "!"

    edit_body(rnd, tree, change)


def move(rnd: random.Random, tree: Tree) -> None:
    edit_body(
        rnd, tree, lambda b, nl: b.insert(rnd.randrange(len(b)), b.pop(rnd.randrange(len(b))))
    )


def unwrap(rnd: random.Random, tree: Tree) -> None:
    def change(b: list[str], nl: str) -> None:
        b[:] = [x.replace("[[", "").replace("]]", "") for x in b]

    edit_body(rnd, tree, change)


def to_lf(rnd: random.Random, tree: Tree) -> None:
    def change(b: list[str], nl: str) -> None:
        b[:] = [x.rstrip("\r") for x in b]

    edit_body(rnd, tree, change)


def wrap(rnd: random.Random, tree: Tree) -> None:
    """Wrap a word of a line as a link, sometimes changing the word while at it."""

    def change(b: list[str], nl: str) -> None:
        candidates = [k for k, x in enumerate(b) if any(w in x.split() for w in WORDS)]
        if not candidates:
            return
        k = rnd.choice(candidates)
        word = rnd.choice([w for w in WORDS if w in b[k].split()])
        shown = rnd.choice([word, word, word, word + "s"])
        link = f"[[{word}]]" if rnd.random() < 0.25 else f"[[{rnd.choice(NAMES)}|{shown}]]"
        b[k] = b[k].replace(word, link, 1)

    edit_body(rnd, tree, change)


def split(rnd: random.Random, tree: Tree) -> None:
    """Move a run of body lines to a new page, usually verbatim and linked."""
    if not pages(tree):
        return
    path = rnd.choice(pages(tree))
    text = tree[path].data.decode("utf-8")
    block, body = wiki.split_frontmatter(text)
    nl = wiki.newline_of(text)
    lines = body.split("\n")
    if len(lines) < 2:
        return
    i = rnd.randint(0, len(lines) - 2)
    j = rnd.randint(i + 1, len(lines) - 1)
    moved = lines[i:j]
    del lines[i:j]
    slug = f"part-{rnd.randint(0, 3)}"
    if rnd.random() < 0.8:
        lines.insert(i, f"See [[{slug}]]." + ("\r" if nl == "\r\n" else ""))
    if rnd.random() < 0.15:
        moved[0] = moved[0].replace(" ", "  ", 1)  # one line re-spaced on the way
    if len(moved) > 1 and rnd.random() < 0.15:
        moved.reverse()
    try:
        meta = wiki.read_meta(text)
    except wiki.PageError:
        meta = {}
    state = rnd.choice([str(meta.get("state", "open")), "open"])
    head = nl.join(
        [
            "---",
            "title: Part",
            f"state: {state}",
            f"source: [{', '.join(wiki.source_days(meta))}]",
            "---",
            "",
        ]
    )
    tree[f"wiki/{slug}.md"] = file(head + "\n".join(moved) + "\n")
    tree[path] = file(block + "\n".join(lines))


def rename(rnd: random.Random, tree: Tree) -> None:
    if pages(tree):
        tree[f"wiki/renamed-{rnd.randint(0, 9)}.md"] = tree.pop(rnd.choice(pages(tree)))


def delete_page(rnd: random.Random, tree: Tree) -> None:
    if pages(tree):
        del tree[rnd.choice(pages(tree))]


def frontmatter(rnd: random.Random, tree: Tree) -> None:
    """Change state (half the time backward), source (grow or drop), title, or drop the block."""
    if not pages(tree):
        return
    path = rnd.choice(pages(tree))
    text = tree[path].data.decode("utf-8")
    try:
        meta = wiki.read_meta(text)
    except wiki.PageError:
        return
    what = rnd.choice(["state", "state", "source-add", "source-drop", "title", "drop-block"])
    if what == "state":
        now = wiki.STATES.index(meta["state"]) if meta.get("state") in wiki.STATES else 0
        lower, higher = wiki.STATES[:now], wiki.STATES[now + 1 :]
        choices = (lower if rnd.random() < 0.5 else higher) or lower or higher
        tree[path] = file(wiki.patch_meta(text, {"state": rnd.choice(choices)}))
    elif what == "source-add":
        days = {*wiki.source_days(meta), rnd.choice(DAYS)}
        tree[path] = file(wiki.patch_meta(text, {"source": wiki.render_source(days)}))
    elif what == "source-drop":
        days = wiki.source_days(meta)
        if days:
            days.remove(rnd.choice(days))
        tree[path] = file(wiki.patch_meta(text, {"source": wiki.render_source(days)}))
    elif what == "title":
        tree[path] = file(wiki.patch_meta(text, {"title": "Renamed"}))
    else:
        tree[path] = file(wiki.split_frontmatter(text)[1])


def add_symlink(rnd: random.Random, tree: Tree) -> None:
    tree[rnd.choice(["wiki/s.md", *pages(tree)])] = symlink("/etc/passwd")


def new_page(rnd: random.Random, tree: Tree) -> None:
    name = rnd.choice(["export", "Bad Name", ".hidden", "acme-2"])
    text = wiki.new_page(
        "New",
        "Fresh line n0.\n",
        state=rnd.choice(["open", "open", "decided"]),
        source=[rnd.choice(DAYS)],
    )
    tree[f"wiki/{name}.md"] = file(text)


def journal_append(rnd: random.Random, tree: Tree) -> None:
    path = f"raw/journal/{rnd.choice(DAYS)}.md"
    line = rnd.choice(
        [
            "captured fact",
            '[recovered] the pilot is decided (evidence: "the pilot is decided")',
            '[recovered] the pilot is done (evidence: "the pilot is done")',
        ]
    )
    tree[path] = file((tree[path].data if path in tree else b"") + line.encode() + b"\n")


def journal_edit(rnd: random.Random, tree: Tree) -> None:
    days = sorted(p for p in tree if p.startswith("raw/journal/"))
    if days:
        path = rnd.choice(days)
        tree[path] = file(tree[path].data.replace(b"journal", b"JOURNAL", 1))


def agents(rnd: random.Random, tree: Tree) -> None:
    tree["AGENTS.md"] = file("# Premises, rewritten\n")


def open_line(rnd: random.Random, tree: Tree) -> None:
    if wiki.map_path() in tree and tree[wiki.map_path()].kind == "file":
        text = tree[wiki.map_path()].data.decode("utf-8")
        if rnd.random() < 0.5:
            tree[wiki.map_path()] = file(
                wiki.add_open_line(text, "- Is [[acme]] or [[dana]] right? q9")
            )
        else:
            tree[wiki.map_path()] = file(text.replace(" q0\n", " q0 (answered)\n"))


EDITS: list[Callable[[random.Random, Tree], None]] = [
    insert, append, delete, reword, move, wrap, unwrap, to_lf, split, split, rename, delete_page,
    frontmatter, frontmatter, frontmatter, add_symlink, new_page, journal_append, journal_edit,
    agents, open_line,
]  # fmt: skip


def context(rnd: random.Random, tree: Tree) -> PassContext | None:
    """Outside a pass, or a pass whose state evidence is verbatim, paraphrased or missing."""
    if rnd.random() < 0.5:
        return None
    quote = rnd.choice(["the pilot is decided", "the pilot was decided", ""])
    return PassContext(
        conversation=CONVERSATION,
        journal_lines=("journal 0.0",),
        state_evidence={p: quote for p in pages(tree)},
    )


def show(base: Tree, proposed: Tree) -> str:
    out = []
    for path in sorted(set(base) | set(proposed)):
        if base.get(path) != proposed.get(path):
            out.append(f"{path}:\n  before {base.get(path)!r}\n  after  {proposed.get(path)!r}")
    return "\n".join(out)


# --- properties ---------------------------------------------------------------------------------


@PROPERTY
@given(st.randoms(use_true_random=True))
def test_whatever_the_guard_accepts_loses_nothing(rnd: random.Random) -> None:
    base = base_tree(rnd)
    proposed = dict(base)
    for edit in rnd.choices(EDITS, k=rnd.choice([1, 1, 2, 3])):
        edit(rnd, proposed)
    verdicts = check(base, proposed, context(rnd, base))
    event("accepted" if not verdicts else "refused")
    if not verdicts:
        assert lost(base, proposed) == [], show(base, proposed)


@PROPERTY
@given(st.randoms(use_true_random=True))
def test_appends_and_new_valid_pages_are_always_accepted(rnd: random.Random) -> None:
    base = base_tree(rnd)
    proposed = dict(base)
    days = sorted(
        p[len("raw/journal/") : -len(".md")] for p in base if p.startswith("raw/journal/")
    )
    names = [p.removeprefix("wiki/").removesuffix(".md") for p in pages(base)]
    for path in pages(base):
        text = base[path].data.decode("utf-8")
        try:
            decided = wiki.read_meta(text).get("state") == "decided"
        except wiki.PageError:
            decided = False
        if decided or rnd.random() < 0.5:
            continue  # a decided page takes no new lines (rule 10)
        addition = rnd.choice(
            ["A new fact.", f"More about [[{rnd.choice(names)}]].", "Two\nlines."]
        )
        proposed[path] = file(wiki.append_body(text, addition))
    for n in range(rnd.randint(0, 2)):
        source = rnd.sample(days, rnd.randint(0, len(days)))
        proposed[f"wiki/new-page-{n}.md"] = file(
            wiki.new_page(f"New {n}", "A fresh page.\n", source=source)
        )
    ctx = rnd.choice([None, PassContext()])
    if ctx is None and rnd.random() < 0.5:
        path = f"raw/journal/{days[0]}.md"
        proposed[path] = file(base[path].data + b"captured one\ncaptured two\n")
    assert check(base, proposed, ctx) == [], show(base, proposed)
