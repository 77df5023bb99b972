"""Full mode's changes caught by code: a line that changes a value an earlier line gave gets an Open line.

In small mode code writes every fact and sees each change as it writes (`small.operations`). In
full mode the model writes; whether it noticed that "the deposit is now 2,000 EUR" changes "a
1,500 EUR deposit" is not left to it. For each line an operation of the reply writes from, the
journal's earlier lines (the day files of the weeks before, and this pass's own earlier lines) are
searched the same way (`wiki.changes`), and a change found adds an Open line quoting both lines in
full — unless the reply already asks it (quotes both, or asks a question from the line).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, timedelta

from gitgarden.model.operations import Op
from gitgarden.wiki import changes, journal, pages, tidy
from gitgarden.wiki.journal import JournalLine
from gitgarden.wiki.tree import Tree

__all__ = ["open_changes"]

_WRITES = ("create_page", "append")
_DAYS_BACK = 62


def open_changes(ops: Sequence[Op], offered: Mapping[str, JournalLine], tree: Tree) -> list[Op]:
    """`ops` and, after them, an Open line for each offered line they write from that changes an
    earlier line's value (none the reply already asks)."""
    asked = " ".join(str(op.get("text", "")) for op in ops if op.kind == "open_question")
    # A question the reply asks from the line is its question about it, however it is worded.
    asked_from = {i for op in ops if op.kind == "open_question" for i in op.lines}
    out = list(ops)
    cited = sorted({i for op in ops if op.kind in _WRITES for i in op.lines if i in offered}, key=lambda i: (offered[i].day, offered[i].lineno))
    pages_of = {i: str(op.get("page", "")) for op in ops if op.kind in _WRITES for i in op.lines}
    for line_id in cited:
        if line_id in asked_from:
            continue
        line = offered[line_id]
        earlier = _earlier(tree, line, offered)
        old = changes.changed_value(line.said, pages_of.get(line_id, ""), earlier)
        if old is None or (old.text in asked and line.said in asked):
            continue
        said = f"Which holds? “{old.text}” ({old.id}) or “{line.said}” ({line.id})"
        page = pages_of.get(line_id, "")
        shown = [page] if page and _exists(tree, page, ops) else []
        out.append(Op("open_question", {"text": said, "pages": shown}, (line_id,), len(out)))
    return out


def _earlier(tree: Tree, line: JournalLine, offered: Mapping[str, JournalLine]) -> list[changes.Earlier]:
    """The journal's lines before `line`, oldest first, from the day files of the weeks before it."""
    try:
        end = date.fromisoformat(line.day)
    except ValueError:
        return []
    found: list[changes.Earlier] = []
    for back in range(_DAYS_BACK, -1, -1):
        day = (end - timedelta(days=back)).isoformat()
        text = tidy.read_text(tree, journal.day_path(day))
        if text is None:
            continue
        for n, raw in enumerate(text.splitlines(), start=1):
            if (day, n) >= (line.day, line.lineno):
                break
            if raw.strip() and not journal.is_heading(raw):
                found.append(changes.Earlier(f"{day}#{n}", journal.LIST_MARK.sub("", raw.strip(), count=1).strip(), "?"))
    return found


def _exists(tree: Tree, page: str, ops: Sequence[Op]) -> bool:
    return pages.page_path(page) in tree or any(op.kind == "create_page" and op.get("page") == page for op in ops)
