"""The project's own page: the one a fact goes on when code finds no subject in it, titled from the
person's AGENTS.md heading ("Back fence at 27 Orchard Rise") or the project folder's name."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from gitgarden.wiki import subjects

__all__ = ["general_title", "named_project_thing", "projects_thing", "thing_of"]


def thing_of(title: str) -> str:
    """A title up to where or what for: "Back fence" of "Back fence at 27 Orchard Rise", of "Leak claim, 27 Alder Road"."""
    return re.split(r",\s|\s(?:on|at|in|for|with)\s", title, maxsplit=1)[0]


def projects_thing(general: str, topic: str) -> bool:
    """True when `topic` is the project's own thing, its title's head: "open meet" or "the club" of
    "Kestrel Masters open meet", "Half-term holiday club"."""
    thing = thing_of(subjects.fold(general))
    return thing == subjects.fold(topic) or thing.endswith(" " + subjects.fold(topic))


def named_project_thing(general: str, text: str, lead: str, found: Sequence[subjects.Mention]) -> bool:
    """True when the line gives the project's own thing `lead` right after a name, as that name's:
    "Committee fixed the Holloway Lane Allotment Society open day for …" of "Holloway Lane open day"."""
    after = (text[m.start + len(m.text) :] for m in found if m.kind == "name")
    return projects_thing(general, lead) and any(re.match(rf"\s+{re.escape(lead)}\b", rest, re.I) for rest in after)


def general_title(root: Path) -> tuple[str, str]:
    """(title, where it comes from) of the page for a fact code finds no subject in: AGENTS.md's first
    heading ("Hollins Park Juniors U11 tournament", digits and all: the person's own words; of "Crumb &
    Co: the Fennel & Fig order" what follows the colon, "Fennel & Fig order", else its head), else the
    project folder's name, else "Notes". The guard takes either from code (`title_from`): neither is
    grounded in the line the page is made for."""
    agents = root / "AGENTS.md"
    if agents.is_file() and not agents.is_symlink():
        for line in agents.read_text(encoding="utf-8", errors="replace").splitlines():
            m = re.match(r"^#\s+(.+?)\s*#*\s*$", line)
            if not m:
                continue
            # "Crumb & Co: the Fennel & Fig order": what the notes are about, after the colon
            head, _, about = m.group(1).partition(": ")
            about = re.sub(r"^(?:the|a|an|our|my)\s+", "", about.strip(), flags=re.I)
            for title in (m.group(1), subjects.upper_first(about), head.strip()):
                if title and subjects.is_title(re.sub(r"\d", "", title)):
                    return title, "AGENTS.md"
            thing = thing_of(m.group(1))  # "Back fence at 27 Orchard Rise": a thing and where it is
            if thing != m.group(1) and len(m.group(1)) <= 60 and subjects.is_title(re.sub(r"\d", "", thing)):
                return m.group(1), "AGENTS.md"
            # "Front driveway and dropped kerb", "Mum's move to Larchmont": titles joined, each one
            parts = re.split(r",\s|\s(?:and|&|to|of|out of)\s", m.group(1))
            if len(parts) > 1 and len(m.group(1)) <= 60 and all(subjects.is_title(re.sub(r"\d", "", p)) for p in parts):
                return m.group(1), "AGENTS.md"
            break
    name = root.name.replace("-", " ").replace("_", " ").strip()
    return (name[:1].upper() + name[1:] if subjects.is_title(name) else "Notes"), "project"
