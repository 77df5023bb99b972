"""Where small mode writes each line: the page of its subject, found by code (docs/architecture.md,
"Small mode and full mode").

`Planner` goes through a pass's lines in the journal's order and answers, for each, the page it
goes on (one that exists, or one this pass makes, with its title and aliases): a name, a role or
an id resolved across spellings and passes (`SubjectIndex`), a topic the line leads with, an id's
first page, the line before's subject for "He …", the thing a decision decides. It keeps what the
pass has written so a later line finds it, and the bullets of recent days so a change finds the
value it changes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from gitgarden.gardener import leads
from gitgarden.gardener.project_page import named_project_thing, projects_thing
from gitgarden.model.operations import Op
from gitgarden.wiki import (
    changes,
    decisions,
    journal,
    linking,
    pages,
    phrases,
    subjects,
    tidy,
    wordlists,
)
from gitgarden.wiki.facts import pages_citing
from gitgarden.wiki.household import household
from gitgarden.wiki.journal import JournalLine
from gitgarden.wiki.subject_index import CHOICE, HONORIFICS, SubjectIndex, name_parts
from gitgarden.wiki.tree import Tree

__all__ = ["Planner"]

_PUNCTUATION = re.compile(r"[^\w\s'’]")
_SUBORDINATE = re.compile(r"\b(?:after|because|since|when|while|until|though|although|as|now(?=\s+(?:[A-Z]|$)))\b", re.I)  # "… now Auntie Pat has rung"
# A choice of someone by name, where the name comes straight after: "Decision: going with Hartwell", "… keep Kit on nights".
_GOES_WITH = re.compile(r"^\s*(?:[-*]\s+)?decision\s*[:\-–]\s*(?:(?:we|i)(?:['’](?:re|ll|ve)|\s+(?:are|will|have))?\s+)?(?:(?:go|going|gone|stick|sticking|stay|staying)\s+with|(?:hire|hiring)\s+from|keep|keeping)\s+", re.I)
# "Decision: Coppice Print from the April issue, …": a name alone as the choice, right after the cue
_NAMED_CHOICE = re.compile(r"^\s*(?:[-*]\s+)?(?i:decision)\s*[:\-–]\s*(?=[A-Z])")
_OFFERED = re.compile(r"\bquot(?:e|es|ed|ing)\b|[£€$]\s?\d", re.I)  # a quote, or a price
_BULLET_LINE = re.compile(r"^[-*+] (?P<text>.+?) \((?P<day>\d{4}-\d{2}-\d{2})\)\s*$")


def _bullets(body: str) -> list[tuple[str, str]]:
    """A page's bullets as (the line's words, its day): the words without the links a pass added, so an
    Open line quotes what the person wrote ("Megan Doyle from Hartwood Tree Care", not "[[hartwood|…]]")."""
    return [(linking.unlinked(m.group("text")), m.group("day")) for raw in body.splitlines() if (m := _BULLET_LINE.match(raw.strip()))]


@dataclass
class Planner:
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
    said_roles: dict[str, str] = field(default_factory=dict)  # folded role -> name, as AGENTS.md says them, no page yet
    said_on: dict[str, list[str]] = field(default_factory=dict)  # page -> the lines of recent days on it
    household: set[str] = field(default_factory=set)  # "our daughter Isla", "Jonny and I", as AGENTS.md says them

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
        found = [m for m in self.mentions(text) if not self.owns(m)]
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
            topic = phrases.topic_title(text)
            if not topic or (_plural_free(subjects.fold(topic.split()[-1])) in _PAPERWORK and self._said_before(topic, before, line)):
                return before, "", [], roles  # "PO number LB-90412, …" after the job it belongs to
            # "Ordered 50 tour polo shirts, order no. SC-55812": a thing of its own, not the line before's
        # A sentence's first word known only from a title ("Raffle tickets printed …") is no name of
        # its own: the topic it begins is looked for first.
        lone = bool(found) and found[0].start == 0 and found[0].kind == "name" and " " not in found[0].text
        lead = self.topic_of(text) if not found or found[0].start > 0 or (lone and not self.resolve(found[0].text)) else ""
        # … or said short: "Tech" of "Tech rehearsal", "Target …" of "Fundraising target"; or a figure of a
        # thing with a page: "The fuel card limit …" after "Fuel card"
        opens = bool(lead) and re.match(rf"\W*{re.escape(lead)}\b", text, re.I) is not None
        lead_page = (self.resolve(lead) or self.index.starting(lead) or (self.index.ending(lead) if opens else None) or self.index.owning(lead, text)) if lead else None
        if lead_page or (lead and named_project_thing(self.general, text, lead, found)):  # "… Society open day for …"
            return (lead_page, "", [], roles) if lead_page else self.topic_home(lead) + (roles,)
        names = [m for m in found if not leads.placed(text, m)]
        after = self.after_colon(text, names)
        if after:
            return after + (roles,)
        names = leads.passed_over(text, names)
        if lead and names and all(_SUBORDINATE.search(text[: m.start]) or leads.describing(text, m) for m in names):
            return "", lead, [], roles  # "Guest list at 120 after Arjun's mum added …", "Lunch … so the Exeter cousins …": the list's, the lunch's
        if lead and names and leads.done_to(text, lead) and subjects.fold(lead) not in self.known_roles:
            return self.topic_home(lead) + (roles,)  # "Environmental health inspection booked with …": what was booked
        # A name that opens the line is its subject: it is not passed over for a later one with a page.
        opening = leads.opening(text, names)
        # A role AGENTS.md says someone holds, first, leads ("The landlord wants … before Ferhat …").
        held = names[0] if names and names[0].kind == "role" and subjects.fold(names[0].text) in self.said_roles else None
        if any(m.kind == "name" and " " in m.text for m in names):
            # "… Joanne Sykes is Mum's social worker": a family word is passed over for a name in full
            names = [m for m in names if subjects.fold(m.text) not in wordlists.FAMILY]
        for m in opening or names or found:
            page = self.resolve(m.text, m.kind) or (self.by_deed(m.text) if m.kind == "role" else None)
            if page:
                return page, "", [m.text] if m.kind == "name" else [], roles
            if m is held:
                break
        # Ids alone, with no page yet, do not title a page while the line names something else: "Hotel
        # in Ghent holding 26 rooms, ref GH-7730" is the hotel's; "Pitch 3 at Millbrook Park booked
        # …, ref MP-7781" (a numbered part of a place) the park's.
        refs_only = bool(names) and all(m.kind == "id" for m in names)
        place = next((m for m in found if m.kind == "name" and leads.placed(text, m)), None)
        numbered = bool(lead) and re.match(rf"\W*{re.escape(lead)}(?<=\d)|\W*{re.escape(lead)}\s+\d", text, re.I) is not None  # "Pitch 3 at …"
        if place and refs_only and (numbered or not lead):
            page = self.resolve(place.text)  # "at Meadowbank" where the journal says "Meadowbank Sports Centre" too
            return (page, "", [], roles) if page else self.named_home(place, roles) + (roles,)
        if lead and (not names or refs_only):
            return self.topic_home(lead) + (roles,)
        if names:
            # a name before a role or an id; a brand before its thing ("four Velux roof windows from Skyline
            # Roof Windows") is no one's name while the line gives one in full
            m = held or next((m for m in opening + names if m.kind == "name" and not leads.brand(text, m, names)), names[0])
            return self.named_home(m, roles) + (roles,)
        topic = self.topic_of(text)
        if topic:
            page = self.resolve(topic)
            return (page, "", [], roles) if page else self.topic_home(topic) + (roles,)
        page = self.said_title(text)  # "…, so team entries are now 15": the page "Team entries"
        if page:
            return page, "", [], roles
        page = self.resolve(self.general)
        return (page, "", [], roles) if page else ("", self.general, [], roles)

    def _said_before(self, topic: str, before: str, line: JournalLine) -> bool:
        """True when the paper `topic` names is of nothing, of a thing the lines on page `before` name, or
        the line just before `line` went there: "Venue deposit" right after the venue's line ("Village hall
        booking" after the grant's and a line of chatter is the hall's)."""
        thing = {_plural_free(w) for w in subjects.content_words(" ".join(topic.split()[:-1]))} - _PAPERWORK
        on_page = self.said_on.get(before, [])
        if not thing or thing & {_plural_free(w) for t in on_page for w in subjects.content_words(t)}:
            return True
        if line.day not in self.orders:
            self.orders[line.day] = _line_order(self.tree, line.day)
        just_before = {t for t, n in self.orders[line.day].items() if n == line.lineno - 2}  # its place is 0-based
        return bool(just_before & {journal.LIST_MARK.sub("", t.strip(), count=1).strip() for t in on_page})

    def after_colon(self, text: str, names: list[subjects.Mention]) -> tuple[str, str, list[str]] | None:
        """(page, title for a new page, aliases) of the thing the clause after a colon opens with and
        what was done to it, when no name but a place stands there ("Gala sub-committee met in the
        Crown …: open meet pencilled for Sunday 18 October at Northgate Pool"), or None."""
        tail = text.split(": ", 1)[1] if ": " in text else ""
        lead = phrases.topic_title(tail) if tail else ""
        if not lead or not leads.done_to(tail, lead) or any(m.start >= len(text) - len(tail) for m in names):
            return None
        page = self.resolve(lead) or self.index.starting(lead)
        return (page, "", []) if page else self.topic_home(lead)

    def hold_household(self, premises: str) -> None:
        """Know the writer's household AGENTS.md names ("Jonny and I") as names, never things decided."""
        self.household = household(premises)
        self.known.update(self.household)

    def owns(self, m: subjects.Mention) -> bool:
        """True for the one-word name whose project this is, by the project page's title ("Isla" of "Isla's
        seventh birthday"): the whole garden is hers, so a line naming her goes to what else it says."""
        if m.kind != "name" or subjects.fold(m.text) in wordlists.FAMILY:
            return False
        # … as is the writer's household AGENTS.md names ("Jonny and I", "our daughter Isla"), unless the
        # journal gives them a name in full ("Femi and I" where the lines say "Femi Adeyemi")
        return m.text == self.owner or (m.text in self.household and not self.full_name(m.text))

    @cached_property
    def owner(self) -> str:
        """The one-word name the project page's title is someone's by ("Isla" of "Isla's seventh birthday"), or ""."""
        found = re.match(r"([A-Z][^\W\d_]+)['’]s\s", self.general)
        return found.group(1) if found else ""

    def topic_of(self, text: str) -> str:
        """`phrases.topic_title` of a line, or "" where that is the writer's household or the project's
        owner ("Helen and I have settled on …" with AGENTS.md's "Helen and I": no page "Helen")."""
        topic = phrases.topic_title(text)
        return "" if topic in self.household or (topic and topic == self.owner) else topic

    def named_home(self, m: subjects.Mention, roles: Mapping[str, str]) -> tuple[str, str, list[str]]:
        """(page, title for a new page, aliases) of a name or role no page answers to yet."""
        title = m.text if m.kind != "role" else m.text[:1].upper() + m.text[1:]
        aliases = [f"the {roles[m.text]}"] if m.text in roles else []
        holder = self.said_roles.get(subjects.fold(m.text)) if m.kind == "role" else None
        if holder:  # "Our treasurer reckons …" where AGENTS.md says Conor is: Conor's page, to be
            aliases = list(dict.fromkeys([holder, self.full_name(holder) or holder, f"the {m.text}"]))
        fuller = self.full_name(title) if m.kind == "name" else ""
        if fuller:  # "Chiamaka" where the journal says "Chiamaka Eze" too: one page, both names
            page = self.resolve(fuller)
            # The title stays the line's own word (a title is grounded in its line); the full name
            # is its alias, so the page answers to both.
            return (page, "", [title]) if page else ("", title, [fuller, *aliases])
        return "", title, aliases

    def said_title(self, text: str) -> str | None:
        """The one page whose title or alias of two words or more the line says among its words
        ("…, so team entries are now 15": "Team entries"), or None."""
        said = " " + subjects.fold(_PUNCTUATION.sub(" ", text)) + " "
        found = {page for label, pages_ in self.index.exact.items() if " " in label and f" {label} " in said for page in pages_}
        return found.pop() if len(found) == 1 else None

    def topic_home(self, topic: str) -> tuple[str, str, list[str]]:
        """(page, title for a new page, aliases) of a topic no page answers to yet. "The festival"
        where the journal names the Kestrel Bay Food Festival is that festival: a page titled with
        the line's word, its full name an alias (or that name's page, made earlier this pass); "open
        meet" the project's own page, "Kestrel Masters open meet"."""
        key = subjects.fold(topic)
        if projects_thing(self.general, topic):  # "open meet", "the club" of "Half-term holiday club"
            page = self.resolve(self.general)
            return (page, "", []) if page else ("", self.general, [])
        fuller = {n for n in self.full_names if " " not in key and subjects.fold(n).split()[-1] == key}
        if len(fuller) == 1:
            name = fuller.pop()
            page = self.resolve(name)
            return (page, "", []) if page else ("", topic, [name])
        page = self.index.ending(topic)  # "Target put up to …" after "Fundraising target"
        return (page, "", []) if page else ("", topic, [])

    def decision_home(self, line: JournalLine) -> tuple[str, str, list[str], dict[str, str]]:
        """Where a decision goes: the thing decided (the worktop, the polytunnel), never a person's
        page — a decided page takes no more lines, and the person goes on having facts."""
        things = decisions.decided_things(line.text, self.known)
        topic = "" if things else decisions.decision_topic(line.text)
        taken = "" if topic or (things and not _NAMED_CHOICE.match(line.text)) else self.offer_taken(line.text)
        page = self.resolve(taken, "topic") if taken else None
        if taken and not (page and self.is_decided(page)):
            return (page, "", [], {}) if page else ("", taken, [], {})  # "Decision: going with Hartwell": the Hartwell decision
        if not things:
            if not topic:
                # "…, not the Year 12 Barcelona trip": the option turned down is not where the line goes
                kept = decisions.chosen(line.text)
                return self.home(replace(line, text=kept) if kept.strip() and kept != line.text else line)
            things = [topic]
        # The role someone holds, first ("We agreed the nurse comes as our fifth adult"): the person's line.
        page = self.resolve(things[0], "role") if self.index.roles.get(subjects.fold(things[0])) else None
        if page and not self.is_decided(page):
            return page, "", [], {}
        settled = None  # the first thing's page when it is decided already: asked about, on its page
        # "…, Janet's letting us store the boxes till then": a thing in a later clause than the first thing
        # decided is no home for the decision, even with a page
        lowered = line.text.lower()
        first_at = lowered.find(things[0].split()[-1].lower())
        clause = re.search(r"[,;—–]\s(?!and\b)", lowered[max(first_at, 0) :])
        clause_end = max(first_at, 0) + clause.start() if clause else len(lowered)
        things = [t for t in things if t == things[0] or lowered.find(t.split()[-1].lower()) < clause_end]
        for thing in things:  # a thing that has a page already ("the open day"), its head noun too
            for title in dict.fromkeys((thing, subjects.upper_first(thing.split()[-1]))):
                # "the opening" where the page is "Opening night": a calendar word only says when
                page = self.resolve(title, "topic") or self.index.starting(title, ends=wordlists.CALENDAR)
                if page and not self.is_decided(page):
                    return page, "", [], {}
                settled = settled or (page if thing == things[0] else None)
        # "the fence panels go up after the patio is laid", the patio decided: the panels' own page
        if settled:
            return settled, "", [], {}
        # "the Trelawney 49-seater" where the page is "Trelawney Coaches": the name's page, as the guard
        # would make of a new page for it (and a name's page is never decided)
        named = None if subjects.said_as_thing(things[0], [line.text]) else self.resolve(things[0], "name")
        return (named, "", [], {}) if named else ("", things[0], [], {})

    def offer_taken(self, text: str) -> str:
        """"Hartwell decision" for "Decision: going with Hartwell, …" (or "keep Kit on …", or a name alone,
        "Decision: Coppice Print from …") when a line of the pass or of
        recent days names Hartwell on a page that gives a price or a quote: the choice between offers is
        the thing decided, on a page of its own, titled with the line's own words, while the firm's (or
        the person's) page goes on taking facts. "" otherwise."""
        cue = _GOES_WITH.match(text) or _NAMED_CHOICE.match(text)
        if cue is None:
            return ""
        name = next((m.text for m in self.mentions(text) if m.start == cue.end() and m.kind == "name"), "")
        alone = cue.re is _GOES_WITH or re.match(r"\s+from\b|\s+it\s+is\b|\s*[,.]", text[cue.end() + len(name) :])  # not "Decision: Maya starts …"; "Inkly it is"
        if not name or not alone or subjects.fold(name) in wordlists.FAMILY or re.match(r"['’]s\b", text[cue.end() + len(name) :]):
            return ""  # "going with Jen's plan": hers
        said = re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")
        for lines in self.said_on.values():
            if any(said.search(t) for t in lines) and any(_OFFERED.search(t) for t in lines):
                return name + CHOICE
        return ""

    def settles(self, line: JournalLine) -> bool:
        """Whether a decision line names what it settles (a thing, or a topic by its verb). One that
        names none ("Hazel rang: the committee voted for £1 a class after all") may change a value."""
        return bool(decisions.decided_things(line.text, self.known) or decisions.decision_topic(line.text))

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

    def mentions(self, text: str) -> list[subjects.Mention]:
        """The line's mentions, with a role AGENTS.md gives someone ("our conductor") among them."""
        found = {m.start: m for m in subjects.mentions(text, self.known)}
        for role in self.known_roles:
            for m in re.finditer(rf"\b(?:[Tt]he|[Oo]ur|[Mm]y)\s+((?i:{re.escape(role)}))(?:['’]s)?\b", text):
                if m.start(1) not in found or subjects.fold(found[m.start(1)].text) == subjects.fold(m.group(1)):
                    found[m.start(1)] = subjects.Mention(m.group(1), "role", m.start(1))  # "the DoP's": a role, no name
        for kin in list(found.values()):  # "Mum's Honda Jazz": the car, not Mum; "… once Dad's golf lot are in"
            if subjects.fold(kin.text) in wordlists.FAMILY and re.match(r"['’]s\s+[A-Z]" if kin.start == 0 else r"['’]s\s+\w", text[kin.start + len(kin.text) :]):
                del found[kin.start]
        return sorted(found.values(), key=lambda m: m.start)

    @property
    def known_roles(self) -> set[str]:
        """The roles a line may name someone by: given beside a name, or said in AGENTS.md."""
        return set(self.said_roles) | set(self.index.roles)

    def hold_roles(self, said: Mapping[str, str]) -> None:
        """Register the roles AGENTS.md says people hold: on their pages, or kept until one is made."""
        for name, role in said.items():
            page = self.resolve(name) or (self.resolve(self.full_name(name)) if self.full_name(name) else None)
            if page:
                self.index.add_role(page, role)
            else:
                self.said_roles[subjects.fold(role)] = name

    def note_ids(self, text: str, page: str) -> None:
        """Remember the page the ids of `text` went to (the first line that gave an id keeps it),
        and the line itself, for a role its deed names (`by_deed`)."""
        self.said_on.setdefault(page, []).append(text)
        for m in subjects.mentions(text):
            if m.kind == "id":
                self.ids.setdefault(m.text.upper(), page)

    def by_deed(self, role: str) -> str | None:
        """The one page of someone named in full (a person or a firm) whose lines say the deed a role
        is named for — "the surveyor's report" after "Siobhán Kearney did the survey" — the role
        theirs from then on; else, when no one's lines say it, the deed's own page ("Roof survey"); or None."""
        deed = subjects.role_deed(role) if " " not in role.strip() else ""  # "the cleaners": a cleaner's deed
        if len(deed) < 5:
            return None  # "electrician": "electric" is said of too much
        people = {page for pages_ in self.index.parts.values() for page in pages_}
        role_word = subjects.fold(role)
        found = {
            page
            for page, said in self.said_on.items()
            if page in people and any(_says_deed(t, deed, role_word) for t in said)
        }
        if not found:  # no one named did it: "The surveyor says …" after "Roof survey booked with …" is the survey's
            return self.resolve(deed) or self.index.ending(deed)
        if len(found) != 1:
            return None
        page = found.pop()
        self.index.add_role(page, role)
        return page

    def full_name(self, name: str) -> str:
        """The one longer name the journal gives that begins or ends with the one-word `name`, or ""."""
        found = self.longer_names(name)
        return found.pop() if len(found) == 1 else ""

    def longer_names(self, name: str) -> set[str]:
        """The longer names the journal gives that begin or end with the one-word `name`, or that
        end with the last name of a title and a last name ("Mrs Janet Okoro" for "Mrs Okoro")."""
        words = name.split()
        if len(words) == 2 and subjects.fold(words[0]) in HONORIFICS:
            last = subjects.fold(words[1])
            return {n for n in self.full_names if subjects.fold(n) != subjects.fold(name) and subjects.fold(name_parts(n)[1]) == last}
        if len(words) != 1:
            return set()
        key = subjects.fold(name)
        return {n for n in self.full_names if key in {subjects.fold(p) for p in name_parts(n)}}

    def resolve(self, text: str, kind: str = "name") -> str | None:
        return self.index.resolve(subjects.Mention(text, kind, 0)) or self.made.get(subjects.fold(text))

    def create(self, title: str, entry: str, line: JournalLine, aliases: list[str]) -> str:
        name = _slug(title)
        while pages.page_path(name) in self.tree or name in self.made.values():
            name += "-2"
        self.made[subjects.fold(title)] = name
        self.titles[name] = title
        for role, holder in list(self.said_roles.items()):
            said = {subjects.fold(holder), subjects.fold(self.full_name(holder) or holder), subjects.fold(holder.split()[0])}
            if said & {subjects.fold(x) for x in (title, *aliases)}:  # AGENTS.md's role for this person,
                extra = [holder, f"the {role}"]  # and their full name where the journal gives only "Bethan"
                aliases = [*aliases, *(a for a in extra if subjects.fold(a) not in {subjects.fold(x) for x in (title, *aliases)})]
                del self.said_roles[role]
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


def _line_order(tree: Tree, day: str) -> dict[str, int]:
    """Each line of the day's journal file -> its place in the file ({} when the tree has none)."""
    text = tidy.read_text(tree, journal.day_path(day)) or ""
    order: dict[str, int] = {}
    for n, raw in enumerate(text.splitlines()):
        order.setdefault(journal.LIST_MARK.sub("", raw.strip(), count=1).strip(), n)
    return order


# What an id on a line about nothing else is (the paper of the line before's job): "Venue deposit
# £2,500, invoice BH-2210" follows the venue.
_PAPERWORK = frozenset(
    {"deposit", "invoice", "payment", "receipt", "balance", "bill", "order", "ref", "reference", "booking"}
    | {"confirmation", "number", "quote", "estimate", "fee", "po", "transfer", "instalment", "installment"}
)


def _plural_free(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _says_deed(text: str, deed: str, role: str) -> bool:
    """True when `text` says the deed ("did the survey", "surveyed it"), not someone's own ("her
    survey", "Leah's survey": what she is having done) nor the role itself ("the surveyor")."""
    for m in re.finditer(r"[^\W\d_]+", subjects.fold(text)):
        w = m.group()
        if role.endswith("ian") and w not in (f"{deed}al", f"{deed}s"):
            continue  # "the electrician" of "Sparkwise Electrical" or "the electrics", not of "electrified the fence"
        if w.startswith(deed) and not w.startswith(role):
            return not re.search(r"(?:\b(?:her|his|their|my|our|your)|'s)\s+$", subjects.fold(text)[: m.start()])
    return False


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", subjects.fold(title)).strip("-")
    return slug[:60].strip("-") or "note"
