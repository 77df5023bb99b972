"""Small mode: the model judges each line, code decides and writes (docs/architecture.md, "Small mode and full mode").

A 0.3–2B model is asked one thing per line, alone — is it worth keeping? (`model.judge`) — and
everything else is code:

- **fact or chatter**: the model's P(yes), nudged by what code sees (an amount or a date counts
  for a fact; weather, meals, sleep count against), against a threshold set per model from
  labelled lines. A line too close to call stays unread with "unsure" as its reason; a line whose
  request failed stays unread with what failed. Chatter is skipped with its kind ("chatter: weather").
- **a decision** ("Decision: …", "we agreed", "we go with") or **a question** ("…?", "Ask X
  whether …") by its words;
- **its subject** (`wiki.subjects`): a name, a role, an id or a topic, resolved to one page across
  spellings and passes ("Tomasz" → "Tomasz Wójcik"; "the electrician" → "Piotr Nowak"); a line that
  begins "He …" goes where the line before it went. A new page's title is that noun phrase;
- **a change** (`wiki.changes`): a line that changes an amount or a date an earlier line gave is
  written beside the old one, on the old one's page, with an Open line quoting both in full;
- the fact itself is written verbatim, a bullet ending in its day, so grounding holds by construction.

`operations` turns the readings into ordinary operations, applied through the same guard as a
full-mode reply.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from gitgarden.gardener.calls import call_model, reading_seconds
from gitgarden.gardener.homes import Planner
from gitgarden.gardener.project_page import general_title
from gitgarden.gardener.reading import Reading, read_lines, settled
from gitgarden.gardener.state import Pass, Work
from gitgarden.gardener.steps import Step
from gitgarden.model import judge, llm, speed
from gitgarden.model.operations import Op
from gitgarden.wiki import changes, pages, phrases, subjects, wordlists
from gitgarden.wiki.chatter import domain_words
from gitgarden.wiki.journal import JournalLine
from gitgarden.wiki.subject_index import SubjectIndex
from gitgarden.wiki.tree import Tree

if TYPE_CHECKING:
    from gitgarden.model.llm import Answer, Model

__all__ = ["ask", "operations", "bullet", "THRESHOLD"]

THRESHOLD = 0.5  # where a model's threshold is unknown (a model that cannot be measured)
_RECENT_DAYS = 62  # how far back a change is looked for among the pages' bullets


def ask(run: Pass, work: Work, offered: list[JournalLine], premises: str) -> Answer:
    """Judge the offered lines, one short request each, and return the operations code writes."""
    model, budget = run.model, run.budget
    assert model is not None and budget is not None, "small mode asks only when a model is configured"
    # The model and code read what a line says, not how it is set out: "- Decision: …" is a decision,
    # and an Open line quotes "Decision: …", not "- Decision: …" (Obsidian's daily notes are lists).
    offered = [replace(ln, text=ln.said) for ln in offered]
    threshold = _threshold(run, model, premises)
    prompt = judge.messages(premises, offered[0].text if offered else "")
    expect = reading_seconds(model, llm.estimate_tokens(prompt[-1:]) * len(offered) + llm.estimate_tokens(prompt))
    asking = Step("asking", f"{model.name} about {len(offered)} line(s), one short request each (small mode)", expect_s=expect, per_line=True)
    run.on_step(asking)
    general, general_from = general_title(run.project.root)
    domain = domain_words(premises)

    def judge_them(model: llm.Model, _messages: list[dict[str, str]], budget: llm.Budget, **kw: object) -> llm.Answer:
        before = kw.get("before_call") or (lambda: None)

        # A line this model was unsure of before gets the same answer again: it is not asked twice,
        # and after a few passes it is set aside and listed (`gitgarden run --retry` asks again).
        asked = [ln for ln in offered if ln.id not in work.unsure_before]
        # A line whose kind code settles whatever the model says is not sent: its request would be time
        # the person waits for nothing.
        to_ask = [ln for ln in asked if not settled(ln.text, domain)]

        def progress(n: int) -> None:
            done = n + len(offered) - len(to_ask)
            run.on_step(replace(asking, detail=f"{model.name}: {done} of {len(offered)} line(s) read (small mode)"))

        judging = judge.judge(model, premises, [(ln.id, ln.text) for ln in to_ask], budget, before_call=before, on_line=progress)  # type: ignore[arg-type]
        verdicts = [*judging.verdicts, *(judge.Verdict(ln.id, threshold, "code") for ln in asked if ln not in to_ask)]
        known = [name for title, aliases in work.titles.values() for name in (title, *aliases)]
        readings = read_lines(asked, verdicts, threshold, known, domain)
        readings += [Reading(ln, "unsure", work.unsure_before[ln.id]) for ln in offered if ln.id in work.unsure_before]
        run.result.unread.extend(
            {"line": r.line.id, "text": r.line.text, "reason": r.reason} for r in readings if r.kind in ("unsure", "failed")
        )
        ops = operations(readings, work.tree, work.titles, general, general_from=general_from, premises=premises)
        return llm.Answer(ops, judging.usage, [])

    what = f"one short request a line ({len(offered)} line(s), small mode)"
    return call_model(run, model, prompt, budget, None, asker=judge_them, what=what)


def _threshold(run: Pass, model: Model, premises: str) -> float:
    """This model's threshold: measured once per endpoint and model on labelled lines (kept with its
    speed), or THRESHOLD for a model that cannot be measured."""
    found = getattr(model, "speed", None)
    if not isinstance(found, speed.Speed):
        return THRESHOLD
    if found.threshold is not None:
        return found.threshold
    assert run.budget is not None
    run.on_step(Step("measuring", f"where {model.name} puts the line between facts and chatter (once for this endpoint)"))
    lines = [(str(n), text) for n, (text, _fact) in enumerate(judge.CALIBRATION)]
    judging = judge.judge(model, premises, lines, run.budget, before_call=run.interrupts.check)
    scores = {text: v.score for (_, text), v in zip(lines, judging.verdicts, strict=True)}
    measured = judge.calibrate(scores)
    if measured is None:
        return THRESHOLD  # the model could not tell the labelled lines apart: not kept, asked again next time
    found = replace(found, threshold=round(measured, 3))
    setattr(model, "speed", found)  # noqa: B010 - a measurable model keeps its measure
    speed.remember(run.settings, {**os.environ, **getattr(model, "env", {})}, found)
    return measured


def bullet(line: JournalLine) -> str:
    """The line as a page bullet, word for word, ending in its day: `- Acme pays 400 EUR. (2026-11-29)`."""
    return f"- {line.said} ({line.day})\n"


def operations(
    readings: Sequence[Reading],
    tree: Tree,
    titles: Mapping[str, tuple[str, list[str]]],
    general: str = "Notes",
    general_from: str = "",
    premises: str = "",
) -> list[Op]:
    """The operations code writes for the readings, in the lines' order: pages and bullets, changes
    beside what they change with an Open line, decided pages, Open questions, skips."""
    index = SubjectIndex.of(titles)
    # Words of names: "the school nurse" is a role, its words no name ("the nurse" is still decided about).
    labels = [label for title, aliases in titles.values() for label in (title, *aliases) if not re.match(r"(?i)(?:the|our|my)\s", label)]
    known = {w for label in labels for w in label.split()}
    for r in readings:
        for m in subjects.mentions(r.line.text):
            if m.kind == "name" and (m.start > 0 or " " in m.text):
                known.update(m.text.split())
    full_names = subjects.full_names(r.line.text for r in readings)
    plan = Planner(tree, index, known, general, general_from, [], {}, {}, set(), {}, full_names)
    plan.hold_roles(subjects.roles_said(premises))
    plan.hold_household(premises)
    recent = sorted({day for r in readings for day in _days_before(r.line.day)})
    history = plan.earlier(recent) if recent else []
    for old_line in history:
        plan.note_ids(old_line.text, old_line.page)
    skips: dict[str, list[str]] = {}
    for r in sorted(readings, key=lambda r: (r.line.day, r.line.lineno)):
        line = r.line
        if r.kind == "chatter":
            skips.setdefault(r.reason or "chatter", []).append(line.id)
            continue
        if r.kind not in ("fact", "decision", "question"):
            continue  # unsure, or its request failed: unread, with its reason in the record
        name, title, aliases, _roles = plan.decision_home(line) if r.kind == "decision" else plan.home(line)
        if r.kind == "question":
            shown = [name] if name else []
            plan.add("open_question", {"text": " ".join(line.text.split()), "pages": shown}, [line.id])
            continue
        entry = bullet(line)
        old = _changes(plan, r, name or title, history)
        settled_old = old.page if old is not None and old.page and plan.is_decided(old.page) else ""
        if settled_old and (title or (name and name != settled_old and not plan.is_decided(name))):
            pass  # "Rosa's start moved …" after "Going with Rosa for manager, she starts 28 Sept": the
            # decided page takes no line, so the change stays on its own page, the question asked
        elif old is not None and old.page and not _own_name_leads(plan, (name, title, aliases), old.page, line):
            name, title, aliases = old.page, "", []
        if name and plan.is_decided(name) and old is None and r.kind in ("fact", "decision"):
            # A fact that only extends the thing decided ("Tickets live on TicketNest" after "Decision: tickets
            # £12") goes to another subject it names, and may change a line there ("New till … £412": Tillcraft's quote).
            name, title, aliases = plan.besides(line, name) or (name, title, aliases)
            old = _changes(plan, r, name or title, history)
        if name and plan.is_decided(name):
            # A decided page takes no more lines (the guard's rule 10): the person settles it.
            if old is not None:
                said = f"Which holds? “{old.text}” ({old.id}) or “{line.text}” ({line.day}): it is decided"
            else:
                said = f"“{line.text}” ({line.day}) touches a decided page"
            plan.add("open_question", {"text": " ".join(said.split()), "pages": [name]}, [line.id])
            continue
        if name:
            fields: dict[str, object] = {"page": name, "text": entry}
            if aliases and name not in plan.made.values():
                fields["aliases"] = aliases
            plan.add("append", fields, [line.id])
        else:
            name = plan.create(title, entry, line, aliases)
        plan.written.setdefault(name, []).append((line.text, line.day))
        plan.note_ids(line.text, name)
        if r.kind != "decision":
            plan.last_home[line.day] = name  # "He …" on the next line: the subject, not the thing decided
        if old is not None:
            said = f"Which holds? “{old.text}” ({old.id}) or “{line.text}” ({line.day})" + (": it is decided" if settled_old else "")
            plan.add("open_question", {"text": " ".join(said.split()), "pages": [name]}, [line.id])
        if r.kind == "decision" and not plan.is_decided(name) and _may_decide(plan, name, line.text):
            plan.add("set_state", {"page": name, "state": "decided", "evidence": line.text}, [line.id])
            plan.decided.add(name)
    for reason, ids in skips.items():
        plan.add("skip", {"reason": reason}, ids)
    return plan.out


def _own_name_leads(plan: Planner, home: tuple[str, str, list[str]], old_page: str, line: JournalLine) -> bool:
    """True when the line opens with the name of its own home, not the page of the line it changes:
    someone new in full, its new page's title ("Aisha Begum at Wessex Power Networks rang: … the fuse
    is actually 80A", after Tom's 60A), or another page's name ("Hartwood came back with £1,750" after
    Megan's £1,600 on her page). The change goes there, the Open line quoting both lines."""
    name, title, aliases = home
    if title:  # … or a thing the line opens with, where the old line stands on someone's page ("Dry dock moved to …")
        named = any(m.kind == "name" and m.start == 0 for m in plan.mentions(line.text))  # "Carys is £545 a day": hers, beside
        opens = not named and re.match(rf"(?i:{re.escape(title)})\b", line.text) is not None
        return (title in plan.full_names and line.text.startswith(title)) or (opens and _names_someone(plan, _title_of(plan, old_page)))
    # … but not a name's own "'s" ("Dave's van is in for its MOT, so he's starting us on the 28th"): the install's
    return bool(name) and name != old_page and bool(aliases) and re.match(rf"{re.escape(aliases[0])}\b(?!['’])", line.text) is not None


def _title_of(plan: Planner, name: str) -> str:
    """The title of page `name`, made by this pass or read from the page ("" when it has none)."""
    if name in plan.titles:
        return plan.titles[name]
    try:
        return str(pages.read_meta(plan.page_text(name) or "").get("title", ""))
    except pages.PageError:
        return ""


def _changes(plan: Planner, r: Reading, page: str, history: Sequence[changes.Earlier]) -> changes.Earlier | None:
    """The earlier line whose value `r`'s line (going on `page`) changes, or None. A decision settles its
    thing on a page of its own and changes nothing, unless it names no thing it settles and says it goes
    back on something ("the committee voted for £1 a class after all")."""
    if r.kind == "decision" and (plan.settles(r.line) or not changes.reverses(r.line.text)):
        return None
    return changes.changed_value(r.line.text, page, [*history, *plan.earlier([])])


def _may_decide(plan: Planner, name: str, said: str = "") -> bool:
    """A page of the gardener's (or one this pass makes) may be marked decided; the person's never,
    nor the project's own page, nor one about someone (a person or an organisation goes on taking facts after a decision) — but
    a work's title the line `said` in quotes is a thing ("we open with 'Salt Lines'"), as is a word it
    says in lower case ("the scaffolding", though "Apex Scaffolding" is a firm)."""
    text = plan.page_text(name)
    try:
        meta = pages.read_meta(text) if text is not None else {}
    except pages.PageError:
        return False
    title = str(meta.get("title") or plan.titles.get(name, ""))
    if subjects.fold(title) == subjects.fold(plan.general):
        return False  # the project's own page takes every line code finds no other home for
    if _names_someone(plan, title, said) and not _quoted(title, said) and not subjects.said_as_thing(title, [said]):
        return False
    if name in plan.made.values():
        return True
    return pages.is_gardeners(meta) and meta.get("state") in ("open", "hypothesis")


def _quoted(title: str, line: str) -> bool:
    """True when `line` gives `title` in quotes: 'Salt Lines', "Kingfisher", ‘Low Water’."""
    return bool(title) and any(
        subjects.fold(m.group(1)) == subjects.fold(title) for m in re.finditer(r"(?<!\w)['‘\"“]([^'’\"”]{2,60})['’\"”](?!\w)", line)
    )


def _names_someone(plan: Planner, title: str, said: str = "") -> bool:
    """True for a title that is a name: two or more capitalised words ("Ananya Krishnan", "Kamień
    Studio"), one that is a first or last name of a name the journal gives ("Tomasz"), a family word
    ("Mum"), or one word the line `said` names as someone ("Isla plays the Seitz concerto")."""
    if subjects.is_full_name(title) and not phrases.named_thing(title.split()[-1], said):
        return True  # "Skoda Octavia" where the line says "the Octavia": a thing, by its name
    if subjects.fold(title) in wordlists.FAMILY:
        return True
    if phrases.named_thing(title, said):
        return False  # "one Luton rather than two Transits", "the Greenstar": a thing chosen, by its name
    return bool(plan.longer_names(title)) or (
        " " not in title.strip() and any(m.kind == "name" and m.text == title for m in subjects.mentions(said, plan.known))
    )


def _days_before(day: str) -> list[str]:
    from datetime import date, timedelta

    try:
        end = date.fromisoformat(day)
    except ValueError:
        return []
    return [(end - timedelta(days=n)).isoformat() for n in range(_RECENT_DAYS)]
