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
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from gitgarden.gardener.calls import call_model, reading_seconds
from gitgarden.gardener.reading import Reading, read_lines, settled
from gitgarden.gardener.state import Pass, Work
from gitgarden.gardener.steps import Step
from gitgarden.model import judge, llm, speed
from gitgarden.model.operations import Op
from gitgarden.wiki import changes, decisions, journal, pages, subjects, tidy
from gitgarden.wiki.chatter import domain_words
from gitgarden.wiki.facts import pages_citing
from gitgarden.wiki.journal import JournalLine
from gitgarden.wiki.subject_index import SubjectIndex
from gitgarden.wiki.tree import Tree

if TYPE_CHECKING:
    from gitgarden.model.llm import Answer, Model

__all__ = ["ask", "operations", "bullet", "changed_fact", "THRESHOLD"]

THRESHOLD = 0.5  # where a model's threshold is unknown (a model that cannot be measured)
_SUBORDINATE = re.compile(r"\b(?:after|because|since|when|while|until|though|although|as)\b", re.I)
_LIST_MARK = re.compile(r"^(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")
_BULLET_LINE = re.compile(r"^[-*+] (?P<text>.+?) \((?P<day>\d{4}-\d{2}-\d{2})\)\s*$")
_RECENT_DAYS = 62  # how far back a change is looked for among the pages' bullets


def ask(run: Pass, work: Work, offered: list[JournalLine], premises: str) -> Answer:
    """Judge the offered lines, one short request each, and return the operations code writes."""
    model, budget = run.model, run.budget
    assert model is not None and budget is not None, "small mode asks only when a model is configured"
    threshold = _threshold(run, model, premises)
    prompt = judge.messages(premises, offered[0].text if offered else "")
    expect = reading_seconds(model, llm.estimate_tokens(prompt[-1:]) * len(offered) + llm.estimate_tokens(prompt))
    asking = Step("asking", f"{model.name} about {len(offered)} line(s), one short request each (small mode)", expect_s=expect, per_line=True)
    run.on_step(asking)
    general = _general_title(run)
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
        ops = operations(readings, work.tree, work.titles, general, general_from_agents=general != _named(run))
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


def _general_title(run: Pass) -> str:
    """The page for a fact code finds no subject in: AGENTS.md's first heading, else the project's name."""
    agents = run.project.root / "AGENTS.md"
    if agents.is_file() and not agents.is_symlink():
        for line in agents.read_text(encoding="utf-8", errors="replace").splitlines():
            m = re.match(r"^#\s+(.+?)\s*#*\s*$", line)
            if m and subjects.is_title(m.group(1)):
                return m.group(1)
    return _named(run)


def _named(run: Pass) -> str:
    name = run.project.name.replace("-", " ").replace("_", " ").strip()
    return name[:1].upper() + name[1:] if subjects.is_title(name) else "Notes"


def bullet(line: JournalLine) -> str:
    """The line as a page bullet, word for word, ending in its day: `- Acme pays 400 EUR. (2026-11-29)`."""
    text = _LIST_MARK.sub("", line.text.strip(), count=1).strip()
    return f"- {text} ({line.day})\n"


def changed_fact(new: str, body: str) -> str | None:
    """A bullet of `body` whose value `new` changes (`wiki.changes`), or None."""
    earlier = [changes.Earlier("", t, "") for t, _day in _bullets(body)]
    found = changes.changed_value(new, "", earlier)
    return None if found is None else found.text


def _bullets(body: str) -> list[tuple[str, str]]:
    return [(m.group("text"), m.group("day")) for raw in body.splitlines() if (m := _BULLET_LINE.match(raw.strip()))]


@dataclass
class _Planner:
    """The pages this sort writes to, as it goes: subjects resolved, pages made, bullets written."""

    tree: Tree
    index: SubjectIndex
    known: set[str]
    general: str
    general_from: str
    out: list[Op]
    made: dict[str, str]  # folded title -> name of a page this pass creates
    written: dict[str, list[tuple[str, str]]]  # page name -> (text, day) of bullets written or found
    decided: set[str]
    last_home: dict[str, str]  # day -> the page the line before went to
    full_names: set[str]  # names of two words or more the lines give ("Kamień Studio", "Chiamaka Eze")
    ids: dict[str, str] = field(default_factory=dict)  # an id (upper case) -> the page its line went to
    titles: dict[str, str] = field(default_factory=dict)  # name -> title of a page this pass creates
    orders: dict[str, dict[str, int]] = field(default_factory=dict)  # day -> its journal lines' places, read once

    def add(self, kind: str, fields: dict[str, object], lines: list[str]) -> None:
        self.out.append(Op(kind, fields, tuple(lines), len(self.out)))

    def page_text(self, name: str) -> str | None:
        return tidy.read_text(self.tree, pages.page_path(name))

    def is_decided(self, name: str) -> bool:
        if name in self.decided:
            return True
        text = self.page_text(name)
        try:
            return text is not None and pages.read_meta(text).get("state") == "decided"
        except pages.PageError:
            return False

    def home(self, line: JournalLine) -> tuple[str, str, list[str], dict[str, str]]:
        """(existing or planned page name, title for a new page, aliases, roles given) of a line."""
        text = line.text
        found = subjects.mentions(text, self.known)
        roles = subjects.roles_given(text, found)
        for name, role in roles.items():
            page = self.index.resolve(name) or self.made.get(subjects.fold(name))
            if page:
                self.index.add_role(page, role)
        subject_start = re.sub(r"^(?:decision|correction|update|note)\s*[:\-–]\s*", "", text, flags=re.I)
        before = self.last_home.get(line.day)
        if before and subjects.PRONOUN_START.match(subject_start) and not any(m.kind == "name" for m in found):
            return before, "", [], roles  # "He wants …": the line before's subject
        first_name = next((m.start for m in found if m.kind == "name"), len(text))
        for m in found:  # an id written before goes where its first line went ("BH-2210 reissued: …")
            page = (self.resolve(m.text, "id") or self.ids.get(m.text.upper())) if m.kind == "id" and m.start < first_name else None
            if page and page != self.resolve(self.general):  # a name before it leads; the catch-all page never does
                return page, "", [], roles
        if before and found and all(m.kind == "id" and not self.resolve(m.text, "id") for m in found):
            topic = subjects.topic_title(text)
            if not topic or _plural_free(subjects.fold(topic.split()[-1])) in _PAPERWORK:
                return before, "", [], roles  # "PO number LB-90412, …" after the job it belongs to
            # "Ordered 50 tour polo shirts, order no. SC-55812": a thing of its own, not the line before's
        # A sentence's first word known only from a title ("Raffle tickets printed …") is no name of
        # its own: the topic it begins is looked for first.
        lone = bool(found) and found[0].start == 0 and found[0].kind == "name" and " " not in found[0].text
        lead = subjects.topic_title(text) if not found or found[0].start > 0 or (lone and not self.resolve(found[0].text)) else ""
        lead_page = (self.resolve(lead) or self.index.starting(lead)) if lead else None
        if lead_page:
            return lead_page, "", [], roles
        names = [m for m in found if not _placed(text, m)]
        if lead and names and all(_SUBORDINATE.search(text[: m.start]) for m in names):
            return "", lead, [], roles  # "Guest list at 120 after Arjun's mum added …": the list's line
        # A name that opens the line is its subject: it is not passed over for a later one with a page.
        opening = names[:1] if names and names[0].kind == "name" and names[0].start == 0 else []
        for m in opening or names or found:
            page = self.resolve(m.text, m.kind)
            if page:
                return page, "", [m.text] if m.kind == "name" else [], roles
        # Ids alone, with no page yet, do not title a page while the line names something else: "Hotel
        # in Ghent holding 26 rooms, ref GH-7730" is the hotel's; "Pitch 3 at Millbrook Park booked
        # …, ref MP-7781" (a numbered part of a place) the park's.
        refs_only = bool(names) and all(m.kind == "id" for m in names)
        place = next((m for m in found if m.kind == "name" and _placed(text, m)), None)
        numbered = bool(lead) and re.match(rf"\W*{re.escape(lead)}\s+\d", text, re.I) is not None
        if place and refs_only and (numbered or not lead):
            page = self.resolve(place.text)
            return (page, "", [], roles) if page else ("", place.text, [], roles)
        if lead and (not names or refs_only):
            return self.topic_home(lead) + (roles,)
        if names:
            m = next((m for m in names if m.kind == "name"), names[0])  # a name before a role or an id
            title = m.text if m.kind != "role" else m.text[:1].upper() + m.text[1:]
            aliases = [f"the {roles[m.text]}"] if m.text in roles else []
            fuller = self.full_name(title) if m.kind == "name" else ""
            if fuller:  # "Chiamaka" where the journal says "Chiamaka Eze" too: one page, both names
                page = self.resolve(fuller)
                # The title stays the line's own word (a title is grounded in its line); the full name
                # is its alias, so the page answers to both.
                return (page, "", [title], roles) if page else ("", title, [fuller, *aliases], roles)
            return "", title, aliases, roles
        topic = subjects.topic_title(text)
        if topic:
            page = self.resolve(topic)
            return (page, "", [], roles) if page else self.topic_home(topic) + (roles,)
        page = self.resolve(self.general)
        return (page, "", [], roles) if page else ("", self.general, [], roles)

    def topic_home(self, topic: str) -> tuple[str, str, list[str]]:
        """(page, title for a new page, aliases) of a topic no page answers to yet. "The festival"
        where the journal names the Kestrel Bay Food Festival is that festival: a page titled with
        the line's word, its full name an alias (or that name's page, made earlier this pass)."""
        key = subjects.fold(topic)
        fuller = {n for n in self.full_names if " " not in key and subjects.fold(n).split()[-1] == key}
        if len(fuller) == 1:
            name = fuller.pop()
            page = self.resolve(name)
            return (page, "", []) if page else ("", topic, [name])
        return "", topic, []

    def decision_home(self, line: JournalLine) -> tuple[str, str, list[str], dict[str, str]]:
        """Where a decision goes: the thing decided (the worktop, the polytunnel), never a person's
        page — a decided page takes no more lines, and the person goes on having facts."""
        things = decisions.decided_things(line.text, self.known)
        if not things:
            topic = decisions.decision_topic(line.text)
            if not topic:
                return self.home(line)
            things = [topic]
        for thing in things:  # a thing that has a page already ("the open day"), its head noun too
            for title in dict.fromkeys((thing, subjects.upper_first(thing.split()[-1]))):
                page = self.resolve(title, "topic")
                if page:
                    return page, "", [], {}
        return "", things[0], [], {}

    def besides(self, line: JournalLine, decided: str) -> tuple[str, str, list[str]] | None:
        """(page, title for a new page, aliases) of a name or id the line gives other than the
        decided page `decided`, or None when it gives none."""
        found = [m for m in subjects.mentions(line.text, self.known) if m.kind == "id" or (m.kind == "name" and (m.start > 0 or " " in m.text))]
        for m in found:
            page = self.resolve(m.text, m.kind)
            if page and page != decided and not self.is_decided(page):
                return page, "", []
        fresh = next((m for m in found if m.kind == "name" and not self.resolve(m.text, m.kind)), None)
        return ("", fresh.text, []) if fresh is not None else None

    def note_ids(self, text: str, page: str) -> None:
        """Remember the page the ids of `text` went to (the first line that gave an id keeps it)."""
        for m in subjects.mentions(text):
            if m.kind == "id":
                self.ids.setdefault(m.text.upper(), page)

    def full_name(self, name: str) -> str:
        """The one longer name the journal gives that begins or ends with the one-word `name`, or ""."""
        found = self.longer_names(name)
        return found.pop() if len(found) == 1 else ""

    def longer_names(self, name: str) -> set[str]:
        """The longer names the journal gives that begin or end with the one-word `name`."""
        if " " in name.strip() or not name.strip():
            return set()
        key = subjects.fold(name)
        return {n for n in self.full_names if key in (subjects.fold(n).split()[0], subjects.fold(n).split()[-1])}

    def resolve(self, text: str, kind: str = "name") -> str | None:
        return self.index.resolve(subjects.Mention(text, kind, 0)) or self.made.get(subjects.fold(text))

    def create(self, title: str, entry: str, line: JournalLine, aliases: list[str]) -> str:
        name = _slug(title)
        while pages.page_path(name) in self.tree or name in self.made.values():
            name += "-2"
        self.made[subjects.fold(title)] = name
        self.titles[name] = title
        self.index.add(name, title, aliases)
        fields: dict[str, object] = {"page": name, "title": title, "body": entry}
        if title == self.general and self.general_from:
            fields["title_from"] = self.general_from  # the person's own heading: grounded there, not in the line
        if aliases:
            fields["aliases"] = [a for a in aliases if subjects.fold(a) != subjects.fold(title)]
        self.add("create_page", fields, [line.id])
        return name

    def earlier(self, days: Sequence[str]) -> list[changes.Earlier]:
        """Bullets already on the gardener's pages for the recent days, then this pass's, oldest first."""
        found: list[tuple[str, str, str]] = []
        for day in days:
            for path in pages_citing(self.tree, [day]):
                name = pages.page_name(path)
                text = tidy.read_text(self.tree, path)
                if name is None or text is None:
                    continue
                found += [(d, t, name) for t, d in _bullets(pages.split_frontmatter(text)[1]) if d == day]
        seen = {(t, n) for _d, t, n in found}
        for name, items in self.written.items():
            found += [(d, t, name) for t, d in items if (t, name) not in seen]
        # In the journal's order, so the first line that gave an id is the first one noted.
        for day in {d for d, _t, _n in found} - self.orders.keys():
            self.orders[day] = _line_order(self.tree, day)  # asked again for every line of the pass
        found.sort(key=lambda x: (x[0], self.orders[x[0]].get(x[1], len(self.orders[x[0]]))))
        return [changes.Earlier(d, t, n) for d, t, n in found]


def operations(
    readings: Sequence[Reading],
    tree: Tree,
    titles: Mapping[str, tuple[str, list[str]]],
    general: str = "Notes",
    general_from_agents: bool = False,
) -> list[Op]:
    """The operations code writes for the readings, in the lines' order: pages and bullets, changes
    beside what they change with an Open line, decided pages, Open questions, skips."""
    index = SubjectIndex.of(titles)
    known = {w for title, aliases in titles.values() for label in (title, *aliases) for w in label.split()}
    for r in readings:
        for m in subjects.mentions(r.line.text):
            if m.kind == "name" and (m.start > 0 or " " in m.text):
                known.update(m.text.split())
    full_names = subjects.full_names(r.line.text for r in readings)
    plan = _Planner(tree, index, known, general, "AGENTS.md" if general_from_agents else "", [], {}, {}, set(), {}, full_names)
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
        # A decision settles its thing on a page of its own; it is not a change of an earlier value.
        old = None if r.kind == "decision" else changes.changed_value(line.text, name or title, [*history, *plan.earlier([])])
        settled_old = old is not None and bool(old.page) and plan.is_decided(old.page)
        if settled_old and (title or (name and name != old.page and not plan.is_decided(name))):
            pass  # "Rosa's start moved …" after "Going with Rosa for manager, she starts 28 Sept": the
            # decided page takes no line, so the change stays on its own page, the question asked
        elif old is not None and old.page:
            name, title, aliases = old.page, "", []
        if name and plan.is_decided(name) and old is None and r.kind == "fact":
            # "Tickets live on TicketNest" after "Decision: tickets £12": a fact that only extends
            # the thing decided goes to the other subject it names, when it names one.
            name, title, aliases = plan.besides(line, name) or (name, title, aliases)
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
        if r.kind == "decision" and not plan.is_decided(name) and _may_decide(plan, name):
            plan.add("set_state", {"page": name, "state": "decided", "evidence": line.text}, [line.id])
            plan.decided.add(name)
    for reason, ids in skips.items():
        plan.add("skip", {"reason": reason}, ids)
    return plan.out


def _may_decide(plan: _Planner, name: str) -> bool:
    """A page of the gardener's (or one this pass makes) may be marked decided; the person's never,
    nor one about someone (a person or an organisation goes on taking facts after a decision)."""
    text = plan.page_text(name)
    try:
        meta = pages.read_meta(text) if text is not None else {}
    except pages.PageError:
        return False
    if _names_someone(plan, str(meta.get("title") or plan.titles.get(name, ""))):
        return False
    if name in plan.made.values():
        return True
    return pages.is_gardeners(meta) and meta.get("state") in ("open", "hypothesis")


def _names_someone(plan: _Planner, title: str) -> bool:
    """True for a title that is a name: two or more capitalised words ("Ananya Krishnan", "Kamień
    Studio"), or one that is a first or last name of a name the journal gives ("Tomasz")."""
    return subjects.is_full_name(title) or bool(plan.longer_names(title))


def _line_order(tree: Tree, day: str) -> dict[str, int]:
    """Each line of the day's journal file -> its place in the file ({} when the tree has none)."""
    text = tidy.read_text(tree, journal.day_path(day)) or ""
    order: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines()):
        order.setdefault(_LIST_MARK.sub("", raw.strip(), count=1).strip(), n)
    return order


# What an id on a line about nothing else is (the paper of the line before's job): "Venue deposit
# £2,500, invoice BH-2210" follows the venue.
_PAPERWORK = frozenset(
    {"deposit", "invoice", "payment", "receipt", "balance", "bill", "order", "ref", "reference", "booking"}
    | {"confirmation", "number", "quote", "estimate", "fee", "po", "transfer", "instalment", "installment"}
)


def _plural_free(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _placed(text: str, mention: subjects.Mention) -> bool:
    """True for a name that only says where ("… on Mill Road", "at Green Bean"): never a line's home
    while the line names something else."""
    before = text[: mention.start].rstrip().rsplit(" ", 1)[-1].lower()
    return before in ("on", "at", "in", "near", "along", "via")


def _days_before(day: str) -> list[str]:
    from datetime import date, timedelta

    try:
        end = date.fromisoformat(day)
    except ValueError:
        return []
    return [(end - timedelta(days=n)).isoformat() for n in range(_RECENT_DAYS)]


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", subjects.fold(title)).strip("-")
    return slug[:60].strip("-") or "note"
