"""Small mode: the model sorts the lines, code writes them (docs/architecture.md, "Small mode and full mode").

`ask` offers the model each line with the pages code found for it (`tidy.candidates`:
pages whose title or alias words stand in the line) and gets back a kind and a page
per line (`model.sort`). `operations` turns that sort into ordinary operations, which
the pass applies through the same guard as a full-mode reply:

- a fact goes under its page as the line itself, a bullet ending in its day
  (`- Acme pays 400 EUR a month (2026-11-29)`), so rule 11 holds by construction;
  a new page takes a title made of the line's own words;
- a decision is written the same way, and moves an existing page of the
  gardener's to `decided` with the line as its evidence (a new page starts open);
- a question goes to the map's Open section, naming its page when it has one;
- a fact that says the same about the same subject with another number or date
  than a line already on the page is written beside the old one, with an Open
  line asking which holds: code never picks one;
- what touches a decided page becomes an Open line (a decided page takes no
  appends); chatter is a skip whose reason is its kind.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from gitgarden.gardener.state import Pass, Work
from gitgarden.model import sort
from gitgarden.model.operations import Op
from gitgarden.wiki import pages, tidy
from gitgarden.wiki.journal import JournalLine
from gitgarden.wiki.tree import Tree

if TYPE_CHECKING:
    from gitgarden.model.llm import Answer

__all__ = ["ask", "operations", "bullet", "changed_fact", "title_from_line"]

_OPEN_QUOTE = 70  # characters of each line quoted in an Open line (the map has a 2,000-char ceiling)
_WORD = re.compile(r"[^\W_]+(?:[.,'’][^\W_]+)*")
_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_LIST_MARK = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")
_STOP = frozenset(
    ["the", "a", "an", "and", "or", "but", "for", "with", "from", "that", "this", "are", "was", "were", "has", "have", "had", "not", "you", "your", "our", "their", "about", "into", "over", "under", "after", "before", "what", "when", "where", "which", "who", "will", "would", "can", "could", "should", "may", "might", "must", "new", "also", "just", "very", "only", "out", "off", "via", "per", "did", "does", "done", "get", "got", "let", "make", "made", "is", "it", "its", "on", "in", "at", "to", "of", "by", "be", "as", "we", "they", "he", "she", "them", "then", "than", "there", "here", "some", "any", "all", "one", "two", "more", "most", "now", "today", "tomorrow", "yesterday", "week", "month", "year"]
)


def ask(run: Pass, work: Work, offered: list[JournalLine], premises: str) -> Answer:
    """Sort the offered lines and return the operations code writes from the sort, as an Answer."""
    from gitgarden.gardener.calls import call_model, reading_seconds
    from gitgarden.gardener.steps import Step, token_steps
    from gitgarden.model import llm

    model, budget = run.model, run.budget
    assert model is not None and budget is not None, "small mode asks only when a model is configured"
    found = tidy.candidates(offered, work.titles)
    items = [sort.Item(ln.id, ln.text, tuple(found.get(ln.id, ()))) for ln in offered]
    batch = run.sort_batch or sort.BATCH
    batches = -(-len(items) // batch)
    prompt = sort.messages(run.project.name, items[:batch], premises)
    expect = reading_seconds(model, llm.estimate_tokens(prompt))
    asking = Step("asking", f"{model.name} to sort {len(items)} line(s) ({batches} short request(s), small mode)", expect_s=expect)
    run.on_step(asking)

    def sort_them(model: llm.Model, _messages: list[dict[str, str]], budget: llm.Budget, **kw: object) -> llm.Answer:
        sorting = sort.ask_sort(model, run.project.name, items, budget, premises=premises, batch=batch, **kw)  # type: ignore[arg-type]
        run.result.hints.extend(f"sort: {why}" for why in sorting.dropped[:5])
        ops = operations(sorting.items, work.offered, work.tree, work.titles)
        return llm.Answer(ops, sorting.usage, [])

    what = f"the sort request{'s' if batches > 1 else ''} ({batches} short one{'s' if batches > 1 else ''} of up to {batch} lines, small mode)"
    return call_model(run, model, prompt, budget, token_steps(run.on_step, asking), asker=sort_them, what=what)


def bullet(line: JournalLine) -> str:
    """The line as a page bullet, word for word, ending in its day: `- Acme pays 400 EUR (2026-11-29)`."""
    text = _LIST_MARK.sub("", line.text.strip(), count=1).strip()
    return f"- {text} ({line.day})\n"


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if not any(c.isdigit() for c in w)]


def title_from_line(proposed: str, line: str) -> str:
    """A new page's title made of words that stand in the line: the model's, when every one of its
    words is in the line; else the line's first run of capitalised words; else its first content words."""
    have = {w.casefold() for w in _WORD.findall(line)}
    words = _WORD.findall(proposed)
    if words and all(w.casefold() in have for w in words) and any(w.casefold() not in _STOP for w in words):
        return " ".join(words)
    run: list[str] = []
    best: list[str] = []
    for w in _WORD.findall(_LIST_MARK.sub("", line)):
        if w[:1].isupper() and w.casefold() not in _STOP:
            run.append(w)
            best = run if len(run) > len(best) else best
        else:
            run = []
    if best:
        best[-1] = re.sub(r"['’]s$", "", best[-1])  # "Ana's birthday": the page is Ana's, titled "Ana"
        return " ".join(best[:4])
    content = [w for w in _words(line) if w.casefold() not in _STOP and len(w) > 2]
    return " ".join(content[:3]) or " ".join(_WORD.findall(line)[:3]) or "Note"


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.casefold()).strip("-")
    return slug[:60].strip("-") or "note"


def _subject(text: str) -> set[str]:
    return {w.casefold() for w in _words(text) if w.casefold() not in _STOP and len(w) > 2}


def changed_fact(new: str, body: str) -> str | None:
    """A line of `body` about the same subject as `new` whose numbers or dates differ (as code can
    see: most content words shared, the numbers not), or None."""
    new_subject, new_numbers = _subject(new), set(_NUMBER.findall(new))
    if len(new_subject) < 2 or not new_numbers:
        return None
    for raw in body.splitlines():
        old = _LIST_MARK.sub("", raw.strip())
        old = re.sub(r"\s*\(\d{4}-\d{2}-\d{2}\)$", "", old)  # the day a bullet ends in is no fact of its own
        old_numbers = set(_NUMBER.findall(old))
        if not old_numbers or old_numbers == new_numbers:
            continue
        shared = new_subject & _subject(old)
        if len(shared) >= 2 and len(shared) >= 0.6 * min(len(new_subject), len(_subject(old))):
            return old
    return None


def _quote(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _OPEN_QUOTE else text[: _OPEN_QUOTE - 1] + "…"


def operations(
    items: list[sort.Sorted],
    offered: Mapping[str, JournalLine],
    tree: Tree,
    titles: Mapping[str, tuple[str, list[str]]],
) -> list[Op]:
    """The operations code writes for a sort, in the lines' order: pages, bullets, states, Open lines, skips."""
    out: list[Op] = []
    links = tidy.link_index(titles)
    made: dict[str, str] = {}  # new page title (folded) -> its name, made by an earlier line of this sort
    written: dict[str, list[str]] = {}  # page name -> bullets this sort already put there
    skips: dict[str, list[str]] = {}  # reason -> line ids

    def add(kind: str, fields: dict[str, object], lines: list[str]) -> None:
        out.append(Op(kind, fields, tuple(lines), len(out)))

    for item in sorted(items, key=lambda it: _order(it.line, offered)):
        line = offered.get(item.line)
        if line is None:
            continue
        if item.kind == "chatter":
            skips.setdefault("chatter", []).append(line.id)
            continue
        name = item.page if item.page != sort.NEW else ""
        title = ""
        if not name:
            title = title_from_line(item.title, line.text)
            found = links.resolve(title) or made.get(title.casefold())
            name = found or ""
        path = pages.page_path(name) if name else ""
        text = tidy.read_text(tree, path) if path else None
        meta = pages.read_meta(text) if text is not None and _parses(text) else {}
        decided = meta.get("state") == "decided"
        if item.kind == "question" or decided:
            shown = [name] if name and (text is not None or name in made.values()) else []
            said = line.text if item.kind == "question" else f"{line.text} — [[{name}]] is decided"
            add("open_question", {"text": _quote(said), "pages": shown}, [line.id])
            continue
        entry = bullet(line)
        if not name:
            name = _slug(title)
            while pages.page_path(name) in tree and name not in made.values():
                name += "-2"
            made[title.casefold()] = name
            add("create_page", {"page": name, "title": title, "body": entry}, [line.id])
        else:
            old = changed_fact(line.text, "".join(written.get(name, [])) + (pages.split_frontmatter(text)[1] if text else ""))
            add("append", {"page": name, "text": entry}, [line.id])
            if old is not None:
                said = f"Which holds? “{_quote(old)}” or “{_quote(line.text)}” ({line.day})"
                add("open_question", {"text": said, "pages": [name]}, [line.id])
        written.setdefault(name, []).append(entry)
        if item.kind == "decision" and text is not None and pages.is_gardeners(meta) and meta.get("state") in ("open", "hypothesis"):
            add("set_state", {"page": name, "state": "decided", "evidence": line.text}, [line.id])
    for reason, ids in skips.items():
        add("skip", {"reason": reason}, ids)
    return out


def _order(line_id: str, offered: Mapping[str, JournalLine]) -> tuple[str, int]:
    line = offered.get(line_id)
    return (line.day, line.lineno) if line is not None else ("", 0)


def _parses(text: str) -> bool:
    try:
        pages.read_meta(text)
    except pages.PageError:
        return False
    return True
