"""The wiki's health, as `gitgarden health` and the web app's health page show it: the figures read
off the wiki graph in the git dir (only the files git says changed are read again), the journal
lines set aside, the heading lines of the journal, and the journal files a pass never reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from gitgarden.gardener import setaside
from gitgarden.gardener.setaside import Entry
from gitgarden.project import Project
from gitgarden.store import wikisync
from gitgarden.store.disktree import DiskTree
from gitgarden.wiki import journal, layout
from gitgarden.wiki.health import Health as Figures

__all__ = ["Entry", "Figures", "Health", "health"]


@dataclass(frozen=True)
class Health:
    """The figures (`wiki.health.Health`), the set-aside lines, the journal's heading lines, and
    warnings for the person."""

    figures: Figures
    aside: list[Entry]
    headings: list[dict[str, str]]
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """What `health --json` prints."""
        return {**self.figures.to_json(), "set_aside": [setaside.summary(e) for e in self.aside], "journal_headings": self.headings}


def health(project: Project, today: date) -> Health:
    """The health of `project` as it stands on disk, on the day `today` (stale pages are counted from it)."""
    with layout.active(project.layout):
        not_read = journal.not_read_names(project.journal)
        offerable, aside = setaside.on_disk(project.root)
        figures = wikisync.health(
            project.root,
            lambda: DiskTree(project.root, project.layout.wiki_folders()),
            unread_lines=len(offerable),
            today=today,
        )
        headings = journal.journal_headings(project.journal, project.layout.journal_from)
    warnings = [journal.not_read_warning(not_read)] if not_read else []
    return Health(figures, [e for _, e in aside], headings, warnings)
