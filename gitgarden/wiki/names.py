"""The names the wiki's files may have: day files, the gardener's slugs, the person's note names.

Shared by the layout, the journal, the pages and the guard, so that a day or a
name means the same everywhere. Pure: strings in, answers out.
"""

from __future__ import annotations

import re
from datetime import date, datetime

__all__ = ["DAY_RE", "is_day", "is_slug", "unportable_part", "is_note_name", "slugify", "note_name"]

DAY_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def is_day(name: str) -> bool:
    """True when `name` is a real calendar date written YYYY-MM-DD."""
    if not DAY_RE.match(name):
        return False
    try:
        if name.isascii():
            date.fromisoformat(name)  # the same check, without strptime's regex machinery
        else:
            datetime.strptime(name, "%Y-%m-%d")
    except ValueError:
        return False
    return True


def is_slug(name: str) -> bool:
    """True for names the gardener may create: lowercase letters, digits and single `-`."""
    return bool(_SLUG.match(name)) and len(name) <= 80


# Names Windows keeps for devices: a file called `con`, `con.md` or `CON .txt` cannot be checked out
# there (git for Windows refuses the whole checkout). `¹²³` count as digits for COM and LPT.
_WINDOWS_DEVICE = re.compile(r"^(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³])$", re.IGNORECASE)


def unportable_part(path: str) -> str | None:
    """Why `path` (a page name or a project-relative path) cannot be checked out on every
    system, naming the segment; None when every segment is fine.

    Windows refuses device names (`con`, `prn`, `aux`, `nul`, `com0`…`com9`, `lpt0`…`lpt9`,
    in any case, with or without an extension) and names ending in a dot or a space.
    """
    for part in path.split("/"):
        if part in ("", ".", ".."):
            continue
        if part.endswith((".", " ")):
            return f"{part!r} ends in a dot or a space, which Windows drops"
        if _WINDOWS_DEVICE.match(part.split(".", 1)[0].rstrip(" ")):
            return f"{part!r} is a device name on Windows (con, prn, aux, nul, com0–9, lpt0–9)"
    return None


_NOT_IN_NAMES = re.compile(r'[*"\\/<>:|?#^\[\]\x00-\x1f\x7f]')


def is_note_name(name: str) -> bool:
    """True for a safe note name: a slug, or a human name as Obsidian allows ("Version history"):
    no characters links or file systems reserve, not hidden, no space at either end."""
    if is_slug(name):
        return True
    return (
        0 < len(name) <= 120
        and name == name.strip()
        and not name.startswith(".")
        and not name.endswith(".")
        and not _NOT_IN_NAMES.search(name)
    )


def slugify(text: str) -> str:
    """A slug made from free text (`Acme Corp.` -> `acme-corp`)."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:80].rstrip("-")


def note_name(title: str) -> str | None:
    """A human note name made from a title, as a person names a note in Obsidian (`Ridge Roofing`,
    `Pages: A` -> `Pages - A`): the characters links and disks reserve become spaces (`:` a dash),
    runs of spaces one; None when nothing safe is left."""
    text = re.sub(r"\s*:\s*", " - ", title)
    text = " ".join(_NOT_IN_NAMES.sub(" ", text).split()).strip(" .")[:120].rstrip(" .")
    if not text or not is_note_name(text) or unportable_part(text) is not None:
        return None
    return text
