"""Adopting a folder of notes where it stands: an Obsidian vault (its daily-notes settings read) or
a plain folder of Markdown notes (its folder of day files found), each given the layout that keeps
every note where it is — the wiki at the folder's top, the journal in the folder of day files —
rather than a `wiki/` built beside them. `init` asks; nothing here writes.

What a folder holds is found from names alone: hidden names and symlinks are never walked.
"""

from __future__ import annotations

import errno
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from gitgarden.errors import ConfigError
from gitgarden.wiki.layout import Layout, check_dir

__all__ = ["Survey", "survey", "holds_notes", "obsidian_layout", "notes_layout", "spelt_on_disk"]

DAY_FILE = re.compile(r"\d{4}-\d{2}-\d{2}\.md")
_NOTE = (".md",)
# What sits beside notes in a vault without being one: attachments, Obsidian canvases.
_ATTACHMENT = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".pdf", ".canvas", ".excalidraw", ".mp3", ".mp4", ".m4a")
_OWN = frozenset({"raw", "log", "AGENTS.md"})  # gitgarden's own names at the top: never the person's notes here
_GIVE_UP = 2_000  # other files past this, with far fewer notes: a code repository, not a folder of notes


@dataclass(frozen=True)
class Survey:
    """What a folder holds: notes, attachments and other files (outside hidden names and gitgarden's
    own folders), the folders holding day files with how many each, and the day files at the top."""

    notes: int = 0
    attachments: int = 0
    others: int = 0
    day_folders: dict[str, int] = field(default_factory=dict)
    days_at_top: int = 0

    @property
    def is_notes(self) -> bool:
        """A folder of notes: Markdown notes, and more notes and attachments than anything else
        (a code repository's README and docs do not make it one)."""
        return self.notes > 0 and self.notes + self.attachments > self.others

    @property
    def journal(self) -> str:
        """The folder holding the most day files ('' when none does); the shorter path on a tie."""
        if not self.day_folders:
            return ""
        return min(self.day_folders, key=lambda f: (-self.day_folders[f], len(f), f))


def survey(root: Path) -> Survey:
    """Walk `root` (no hidden name, no symlink, none of gitgarden's own folders at the top) and count."""
    notes = attachments = others = days_at_top = 0
    day_folders: dict[str, int] = {}
    for here, folders, files in os.walk(root):
        rel = Path(here).relative_to(root).as_posix()
        folders[:] = sorted(
            f for f in folders if not f.startswith(".") and not (rel == "." and f in _OWN) and not os.path.islink(os.path.join(here, f))
        )
        for name in files:
            if name.startswith(".") or (rel == "." and name in _OWN) or os.path.islink(os.path.join(here, name)):
                continue
            lower = name.lower()
            if lower.endswith(_NOTE):
                notes += 1
                if DAY_FILE.fullmatch(name):
                    if rel == ".":
                        days_at_top += 1
                    else:
                        day_folders[rel] = day_folders.get(rel, 0) + 1
            elif lower.endswith(_ATTACHMENT):
                attachments += 1
            else:
                others += 1
        if others > _GIVE_UP and others > 2 * (notes + attachments):
            break
    return Survey(notes, attachments, others, day_folders, days_at_top)


def holds_notes(folder: Path) -> bool:
    """True when `folder` (a real folder, not a symlink) holds a `.md` note at any depth."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    return any(name.endswith(".md") for _, _, files in os.walk(folder) for name in files)


def spelt_on_disk(parent: Path, name: str) -> str | None:
    """The entry of `parent` that is `name` up to letter case and Unicode composition (`name` itself
    when it is there), or None when there is none."""
    try:
        names = os.listdir(parent)
    except OSError:
        return None
    if name in names:
        return name
    want = unicodedata.normalize("NFC", name).casefold()
    return next((n for n in sorted(names) if unicodedata.normalize("NFC", n).casefold() == want), None)


def obsidian_layout(root: Path) -> tuple[Layout, list[str]]:
    """The layout that adopts the Obsidian vault at `root` in place, and sentences saying what
    was chosen: the wiki is the root, the journal the daily-notes folder of
    `.obsidian/daily-notes.json` (Obsidian's own default, the vault root, cannot hold a journal)."""
    settings, unread = _daily_notes_settings(root / ".obsidian" / "daily-notes.json")
    notes: list[str] = []
    given = settings.get("folder")
    folder = given.strip().strip("/") if isinstance(given, str) else ""
    journal_dir = "Daily notes"
    if unread or (given and not isinstance(given, str)):
        notes.append(f".obsidian/daily-notes.json {unread or f'names the folder {given!r}'}: the journal is {journal_dir}/")
    elif folder:
        try:
            journal_dir = _as_on_disk(root, check_dir("journal_dir", folder, where=".obsidian/daily-notes.json"))
        except ConfigError as exc:
            notes.append(f"{exc}; the journal is {journal_dir}/ instead")
    else:
        notes.append(
            f"Obsidian keeps daily notes at the vault root, which cannot be the journal: the journal is {journal_dir}/ "
            f"(set Obsidian's daily notes folder to {journal_dir!r} to write it there)"
        )
    fmt = str(settings.get("format") or "YYYY-MM-DD").strip()
    if fmt != "YYYY-MM-DD":
        notes.append(
            f"Obsidian names daily notes {fmt!r}, but gitgarden reads only YYYY-MM-DD.md files: set the daily notes "
            "format to YYYY-MM-DD in Obsidian (notes already named otherwise are left as they are, and not read)"
        )
    return _in_place(root, journal_dir, notes)


def notes_layout(root: Path, survey: Survey) -> tuple[Layout, list[str]]:
    """The layout that adopts a folder of notes (no `.obsidian/`) where it stands: the wiki is the
    folder, the journal the folder of its day files (`YYYY-MM-DD.md`), else a new `Daily notes/`."""
    journal_dir = survey.journal or "Daily notes"
    notes = [
        f"adopted your folder of notes in place: wiki_dir = ., journal_dir = {journal_dir} ({survey.notes:,} note(s) stay where "
        "they are; no wiki/ is made beside them)"
    ]
    if survey.journal:
        notes.append(f"the journal is {journal_dir}/, the folder of {survey.day_folders[journal_dir]:,} day file(s) named YYYY-MM-DD.md")
    else:
        notes.append(f"no folder holds day files named YYYY-MM-DD.md: the journal is {journal_dir}/, where `gitgarden capture` writes")
    if survey.days_at_top:
        notes.append(
            f"{survey.days_at_top:,} day file(s) at the top stay notes, not journal (the wiki's top cannot be the journal): "
            f"move them into {journal_dir}/ to have their lines read"
        )
    return _in_place(root, journal_dir, notes)


def _in_place(root: Path, journal_dir: str, notes: list[str]) -> tuple[Layout, list[str]]:
    """A layout with the wiki at `root` and the journal in `journal_dir`, the map page chosen so a
    note of the person's is never the map, and what they should know about raw/ and log/."""
    held = [f"{n}/" for n in ("raw", "log") if holds_notes(root / n)]
    if held:
        notes.append(
            f"the vault's own {' and '.join(held)} {'hold' if len(held) > 1 else 'holds'} notes, which stay where they are but are no pages: gitgarden "
            "keeps its pass records in log/ and the conversation in raw/ (move the notes to another folder to garden them)"
        )
    map_page = Layout().map_page
    if any(p.name.lower() == Layout(".").map_path() for p in root.iterdir()):  # Index.md, or a symlink, is theirs too
        # The vault's own index.md is the person's note: the map gets a page of its own.
        map_page = next(
            (n for n in ("Map", "Gardener map", "gitgarden map") if not any(p.name.lower() == f"{n.lower()}.md" for p in root.iterdir())),
            "gitgarden-map",
        )
        notes.append(f"the vault's own index.md stays yours: the gardener's map is {map_page}.md (map_page = {map_page!r})")
    return Layout(".", journal_dir, map_page=map_page), notes


def _as_on_disk(root: Path, folder: str) -> str:
    """`folder` as the disk spells it: Obsidian on a Mac finds `daily notes` in `Daily notes/`, and a
    vault copied from a Mac may hold `Tägliche Notizen` decomposed (NFD) while its settings name it
    composed (NFC); the journal is the folder that holds the daily notes, not a look-alike new one."""
    here, parts = root, []
    for part in folder.split("/"):
        part = spelt_on_disk(here, part) or part
        parts.append(part)
        here = here / part
    return "/".join(parts)


_SETTINGS_LIMIT = 64 * 1024  # Obsidian writes a few hundred bytes: a bigger file is no settings file of its own


def _daily_notes_settings(path: Path) -> tuple[dict[str, object], str]:
    """`.obsidian/daily-notes.json` as a table, and why it was not read ('' when it was, or is absent):
    never through a symlink, never a huge file, never a file that is not a JSON object."""
    if not os.path.lexists(path):
        return {}, ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return {}, "is a symlink, not read" if exc.errno == errno.ELOOP else f"cannot be read ({exc.strerror})"
    try:
        with open(fd, "rb") as fh:
            data = fh.read(_SETTINGS_LIMIT + 1)
    except OSError as exc:  # a folder of that name
        return {}, f"cannot be read ({exc.strerror})"
    if len(data) > _SETTINGS_LIMIT:
        return {}, "is too large to be Obsidian's settings, not read"
    try:
        loaded = json.loads(data.decode("utf-8"))
    except ValueError:
        return {}, "is not valid JSON, not read"
    return (loaded, "") if isinstance(loaded, dict) else ({}, "is not a JSON object, not read")
