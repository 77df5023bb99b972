"""Property tests: whatever edits a writer makes, the guard never accepts a loss.

Random base trees (pages with frontmatter, CRLF or LF, links, a map with an Open
section, journal days) get random edit scripts (insert, delete, reword, move,
split, rename, frontmatter changes, symlinks, link wraps, journal appends and
edits, ...). Whenever `guard.check` accepts, the independent checker in
guard_checker.py must find nothing of the person's lost. A second property
keeps the guard honest the other way: plain appends and new valid pages are
always accepted.

`GUARD_EXAMPLES` sets the number of examples per property (default 1500);
`HYPOTHESIS_PROFILE=ci` loads the "ci" profile.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gitgarden import wiki
from gitgarden.guard import PassContext, check
from gitgarden.tree import Entry, file, symlink

try:  # tests/ on sys.path (pytest's default import mode) or tests as a package
    from guard_checker import lost
except ImportError:  # pragma: no cover
    from tests.guard_checker import lost

settings.register_profile("ci", max_examples=2000, deadline=None)
if os.environ.get("HYPOTHESIS_PROFILE"):
    settings.load_profile(os.environ["HYPOTHESIS_PROFILE"])

EXAMPLES = int(os.environ.get("GUARD_EXAMPLES", "1500"))
DAYS = ["2026-11-27", "2026-11-28", "2026-11-29"]
NAMES = ["acme", "dana", "pricing", "Old Notes", "team/sam"]
WORDS = ["Acme", "Dana", "pilot", "signed", "export", "January", "seat", "price", "Sam", "the"]
CONVERSATION = "Dana said the pilot is decided. Sam agreed on the seat price."
Tree = dict[str, Entry]


# --- base trees ----------------------------------------------------------------------------


@st.composite
def lines(draw: st.DrawFn, tag: str) -> list[str]:
    """Body lines, each made unique by a tag, some blank, some with a link."""
    out = []
    for n in range(draw(st.integers(0, 7))):
        if draw(st.integers(0, 5)) == 0:
            out.append("")
            continue
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
        if draw(st.integers(0, 4)) == 0:
            words.insert(0, f"[[{draw(st.sampled_from(NAMES))}]]")
        out.append(" ".join([*words, f"{tag}{n}"]))
    if out and draw(st.integers(0, 6)) == 0:
        out.append(draw(st.sampled_from(out)))  # a repeated line
    return out


@st.composite
def page_text(draw: st.DrawFn, tag: str, days: list[str]) -> str:
    body = draw(lines(tag))
    kind = draw(st.sampled_from(["fm", "fm", "fm", "fm", "none", "broken"]))
    head: list[str] = []
    if kind == "fm":
        state = draw(st.sampled_from(["hypothesis", "done", "open", "decided"]))
        head = ["---", f"title: {tag.title()}", f"state: {state}"]
        sources = draw(
            st.lists(st.sampled_from(days), min_size=draw(st.sampled_from([0, 1, 1])), unique=True)
        )
        head.append(f"source: [{', '.join(sources)}]")
        if draw(st.booleans()):
            head.append("tags: [work]")
        head.append("---")
    elif kind == "broken":
        head = ["---", "title: [unclosed", "---"]
    nl = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = nl.join(head + body)
    if draw(st.integers(0, 4)) > 0 or not body:
        text += nl
    return text


@st.composite
def base_trees(draw: st.DrawFn) -> Tree:
    days = draw(st.lists(st.sampled_from(DAYS), min_size=1, unique=True))
    tree: Tree = {"AGENTS.md": file("# Premises\n")}
    for n, day in enumerate(days):
        tree[f"raw/journal/{day}.md"] = file("".join(f"journal {n}.{k}\n" for k in range(2)))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=4, unique=True))
    for n, name in enumerate(names):
        tree[f"wiki/{name}.md"] = file(draw(page_text(f"p{n}x", days)))
    if draw(st.booleans()):
        opens = [f"- Does [[{names[0]}]] hold? q{k}" for k in range(draw(st.integers(0, 2)))]
        tree[wiki.MAP_PATH] = file(
            "# Map\n\nIntro m0\n\n## Open\n\n" + "".join(o + "\n" for o in opens)
        )
    return tree


# --- edits -----------------------------------------------------------------------------------


def pages(tree: Tree) -> list[str]:
    return sorted(p for p, e in tree.items() if p.startswith("wiki/") and e.kind == "file")


def body_of(text: str) -> tuple[str, list[str], str]:
    """(frontmatter block, body lines, newline) of a page as the generator sees it."""
    block, body = wiki.split_frontmatter(text)
    return block, body.split("\n"), wiki.newline_of(text)


def edit_body(draw: st.DrawFn, tree: Tree, change: Callable[[list[str], str], None]) -> None:
    paths = pages(tree)
    if not paths:
        return
    path = draw(st.sampled_from(paths))
    text = tree[path].data.decode("utf-8")
    block, body, nl = body_of(text)
    change(body, nl)
    tree[path] = file(block + "\n".join(body))


def new_line(draw: st.DrawFn, nl: str) -> str:
    words = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)))
    return words + " new" + str(draw(st.integers(0, 99))) + ("\r" if nl == "\r\n" else "")


def apply_edit(draw: st.DrawFn, kind: str, tree: Tree) -> None:  # noqa: C901 - one branch per edit kind
    if kind == "insert":
        edit_body(
            draw, tree, lambda b, nl: b.insert(draw(st.integers(0, len(b))), new_line(draw, nl))
        )
    elif kind == "append":
        edit_body(draw, tree, lambda b, nl: b.insert(len(b) - (b[-1] == ""), new_line(draw, nl)))
    elif kind == "delete":
        edit_body(draw, tree, lambda b, nl: b.pop(draw(st.integers(0, len(b) - 1))) if b else None)
    elif kind == "reword":

        def reword(b: list[str], nl: str) -> None:
            k = draw(st.integers(0, len(b) - 1))
            b[k] = (
                b[k].replace(draw(st.sampled_from(WORDS)), "CHANGED", 1)
                if draw(st.booleans())
                else b[k] + "!"
            )

        edit_body(draw, tree, lambda b, nl: reword(b, nl) if b else None)
    elif kind == "move":

        def move(b: list[str], nl: str) -> None:
            b.insert(draw(st.integers(0, len(b) - 1)), b.pop(draw(st.integers(0, len(b) - 1))))

        edit_body(draw, tree, lambda b, nl: move(b, nl) if b else None)
    elif kind == "wrap":
        wrap_word(draw, tree)
    elif kind == "unwrap":
        edit_body(
            draw,
            tree,
            lambda b, nl: b.__setitem__(
                slice(None), [x.replace("[[", "").replace("]]", "") for x in b]
            ),
        )
    elif kind == "crlf":
        edit_body(draw, tree, lambda b, nl: b.__setitem__(slice(None), [x.rstrip("\r") for x in b]))
    elif kind == "split":
        split(draw, tree)
    elif kind == "rename" and pages(tree):
        path = draw(st.sampled_from(pages(tree)))
        tree[f"wiki/renamed-{draw(st.integers(0, 9))}.md"] = tree.pop(path)
    elif kind == "delete-page" and pages(tree):
        del tree[draw(st.sampled_from(pages(tree)))]
    elif kind == "frontmatter":
        frontmatter(draw, tree)
    elif kind == "symlink":
        tree[draw(st.sampled_from(["wiki/s.md", *pages(tree)]))] = symlink("/etc/passwd")
    elif kind == "new-page":
        state = draw(st.sampled_from(["open", "open", "decided"]))
        tree[f"wiki/{draw(st.sampled_from(['export', 'Bad Name', '.hidden', 'acme-2']))}.md"] = (
            file(
                wiki.new_page(
                    "New", "Fresh line n0.\n", state=state, source=[draw(st.sampled_from(DAYS))]
                )
            )
        )
    elif kind == "journal-append":
        journal_append(draw, tree)
    elif kind == "journal-edit":
        days = sorted(p for p in tree if p.startswith("raw/journal/"))
        if days:
            path = draw(st.sampled_from(days))
            tree[path] = file(tree[path].data.replace(b"journal", b"JOURNAL", 1))
    elif kind == "agents":
        tree["AGENTS.md"] = file("# Premises, rewritten\n")
    elif kind == "open-line" and wiki.MAP_PATH in tree:
        text = tree[wiki.MAP_PATH].data.decode("utf-8")
        if draw(st.booleans()):
            tree[wiki.MAP_PATH] = file(
                wiki.add_open_line(text, "- Is [[acme]] or [[dana]] right? q9")
            )
        else:
            tree[wiki.MAP_PATH] = file(text.replace(" q0\n", " q0 (answered)\n"))


def wrap_word(draw: st.DrawFn, tree: Tree) -> None:
    """Wrap a word of a line as a link, sometimes changing the word while at it."""

    def wrap(b: list[str], nl: str) -> None:
        candidates = [k for k, x in enumerate(b) if any(w in x.split() for w in WORDS)]
        if not candidates:
            return
        k = draw(st.sampled_from(candidates))
        word = draw(st.sampled_from([w for w in WORDS if w in b[k].split()]))
        target = draw(st.sampled_from(NAMES))
        shown = draw(st.sampled_from([word, word, word, word + "s"]))
        link = f"[[{word}]]" if draw(st.integers(0, 3)) == 0 else f"[[{target}|{shown}]]"
        b[k] = b[k].replace(word, link, 1)

    edit_body(draw, tree, wrap)


def split(draw: st.DrawFn, tree: Tree) -> None:
    """Move a run of body lines to a new page, usually verbatim and linked."""
    paths = pages(tree)
    if not paths:
        return
    path = draw(st.sampled_from(paths))
    text = tree[path].data.decode("utf-8")
    block, body, nl = body_of(text)
    if len(body) < 2:
        return
    i = draw(st.integers(0, len(body) - 2))
    j = draw(st.integers(i + 1, len(body) - 1))
    moved = body[i:j]
    del body[i:j]
    slug = f"part-{draw(st.integers(0, 3))}"
    cr = "\r" if nl == "\r\n" else ""  # body lines keep their "\r"
    if draw(st.integers(0, 4)) > 0:
        body.insert(i, f"See [[{slug}]].{cr}")
    if moved and draw(st.integers(0, 5)) == 0:
        moved[0] = moved[0].replace(" ", "  ", 1)  # one reworded (re-spaced) line
    if len(moved) > 1 and draw(st.integers(0, 5)) == 0:
        moved.reverse()
    try:
        meta = wiki.read_meta(text)
    except wiki.PageError:
        meta = {}
    state = draw(st.sampled_from([str(meta.get("state", "open")), "open"]))
    head = f"---{nl}title: Part{nl}state: {state}{nl}source: [{', '.join(wiki.source_days(meta))}]{nl}---{nl}"
    tree[f"wiki/{slug}.md"] = file(head + "\n".join(moved) + "\n")
    tree[path] = file(block + "\n".join(body))


def frontmatter(draw: st.DrawFn, tree: Tree) -> None:
    paths = pages(tree)
    if not paths:
        return
    path = draw(st.sampled_from(paths))
    text = tree[path].data.decode("utf-8")
    try:
        meta = wiki.read_meta(text)
    except wiki.PageError:
        return
    what = draw(st.sampled_from(["state", "source-add", "source-drop", "title", "drop-block"]))
    if what == "state":
        now = wiki.STATES.index(meta["state"]) if meta.get("state") in wiki.STATES else 0
        lower, higher = wiki.STATES[:now], wiki.STATES[now + 1 :]
        choices = (lower if draw(st.booleans()) else higher) or lower or higher
        tree[path] = file(wiki.patch_meta(text, {"state": draw(st.sampled_from(choices))}))
    elif what == "source-add":
        days = {*wiki.source_days(meta), draw(st.sampled_from(DAYS))}
        tree[path] = file(wiki.patch_meta(text, {"source": wiki.render_source(days)}))
    elif what == "source-drop":
        days = wiki.source_days(meta)
        days = [d for d in days if d != draw(st.sampled_from(days))] if days else []
        tree[path] = file(wiki.patch_meta(text, {"source": wiki.render_source(days)}))
    elif what == "title":
        tree[path] = file(wiki.patch_meta(text, {"title": "Renamed"}))
    else:
        tree[path] = file(wiki.split_frontmatter(text)[1])


def journal_append(draw: st.DrawFn, tree: Tree) -> None:
    day = draw(st.sampled_from(DAYS))
    path = f"raw/journal/{day}.md"
    old = tree[path].data if path in tree else b""
    line = draw(
        st.sampled_from(
            [
                "captured fact",
                '[recovered] the pilot is decided (evidence: "the pilot is decided")',
                '[recovered] the pilot is done (evidence: "the pilot is done")',
            ]
        )
    )
    tree[path] = file(old + line.encode() + b"\n")


EDITS = [
    "insert", "append", "delete", "reword", "move", "wrap", "unwrap", "crlf", "split", "split",
    "rename", "delete-page", "frontmatter", "frontmatter", "frontmatter", "frontmatter",
    "symlink", "new-page",
    "journal-append", "journal-edit", "agents", "open-line",
]  # fmt: skip


@st.composite
def contexts(draw: st.DrawFn, tree: Tree) -> PassContext | None:
    if draw(st.booleans()):
        return None
    quote = draw(st.sampled_from(["the pilot is decided", "the pilot was decided", ""]))
    return PassContext(
        conversation=CONVERSATION,
        journal_lines=("journal 0.0",),
        state_evidence={p: quote for p in pages(tree)},
    )


# --- properties ---------------------------------------------------------------------------------


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_whatever_the_guard_accepts_loses_nothing(data: st.DataObject) -> None:
    base = data.draw(base_trees(), label="base")
    proposed = dict(base)
    count = data.draw(st.sampled_from([1, 1, 2, 3]), label="count")
    for kind in data.draw(
        st.lists(st.sampled_from(EDITS), min_size=count, max_size=count), label="edits"
    ):
        apply_edit(data.draw, kind, proposed)
    ctx = data.draw(contexts(base), label="ctx")
    verdicts = check(base, proposed, ctx)
    event("accepted" if not verdicts else "refused")
    if not verdicts:
        assert lost(base, proposed) == [], _show(base, proposed)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.data())
def test_appends_and_new_valid_pages_are_always_accepted(data: st.DataObject) -> None:
    base = data.draw(base_trees(), label="base")
    proposed = dict(base)
    days = sorted(p[len("raw/journal/") : -3] for p in base if p.startswith("raw/journal/"))
    for path in pages(base):
        text = base[path].data.decode("utf-8")
        try:
            decided = wiki.read_meta(text).get("state") == "decided"
        except wiki.PageError:
            decided = False
        if decided or not data.draw(st.booleans()):
            continue  # a decided page takes no new lines (rule 10)
        target = data.draw(
            st.sampled_from([p.removeprefix("wiki/").removesuffix(".md") for p in pages(base)])
        )
        addition = data.draw(
            st.sampled_from(["A new fact.", f"More about [[{target}]].", "Two\nlines."])
        )
        proposed[path] = file(wiki.append_body(text, addition))
    for n in range(data.draw(st.integers(0, 2))):
        proposed[f"wiki/new-page-{n}.md"] = file(
            wiki.new_page(
                f"New {n}",
                "A fresh page.\n",
                source=data.draw(st.lists(st.sampled_from(days), unique=True)),
            )
        )
    ctx = data.draw(st.sampled_from([None, PassContext()]))
    if ctx is None and data.draw(st.booleans()):
        path = f"raw/journal/{days[0]}.md"
        proposed[path] = file(base[path].data + b"captured one\ncaptured two\n")
    assert check(base, proposed, ctx) == [], _show(base, proposed)


def _show(base: dict[str, Any], proposed: dict[str, Any]) -> str:
    out = []
    for path in sorted(set(base) | set(proposed)):
        if base.get(path) != proposed.get(path):
            out.append(f"{path}:\n  before {base.get(path)!r}\n  after  {proposed.get(path)!r}")
    return "\n".join(out)
