"""A small Obsidian vault built by hand, as people keep them: folders, human names, attachments,
heading links, embeds, Markdown links (relative, from the vault's top, in angle brackets,
URL-encoded, with headings, a broken one and a URL), Obsidian's own `.obsidian/` files, a
daily-notes folder and notes over the 6,000-character page budget.

`build_vault(root, "wiki")` writes it under `root/wiki`; `OBSIDIAN_VIEW` is what Obsidian
itself says of it (broken links, orphans), which gitgarden's health must match.
"""

from __future__ import annotations

from pathlib import Path

_FILLER = "This paragraph explains the setting in the detail a help page needs, step by step. "


def _section(heading: str, paragraphs: int, extra: str = "") -> str:
    body = "\n\n".join(_FILLER * 6 for _ in range(paragraphs))
    return f"## {heading}\n\n{extra}{body}\n\n"


SYNC = "Obsidian Sync/Sync your notes across devices.md"  # the person's, no frontmatter, over budget
START = "Getting started/Start here.md"
HISTORY = "Obsidian Sync/Version history.md"
REFERENCE = "Getting started/Long reference.md"  # the person's, with frontmatter, over budget
ORPHAN = "Orphan note.md"
DAILY = "Daily notes/2026-11-27.md"
PNG = "Attachments/diagram.png"
SVG = "Attachments/Lucide-Cog.svg"
# Notes Obsidian links with "Use [[Wikilinks]]" off: reached only through Markdown links.
BUDGET = "Projects/Budget.md"
VENUE = "Projects/Venue list.md"
PLAN_B = "Projects/Plan B.md"
APP_JSON = ".obsidian/app.json"
WORKSPACE = ".obsidian/workspace.json"

VAULT: dict[str, str | bytes] = {
    SYNC: (
        "Keep your notes in step on every device.\n\n"
        "See [[#Git]] for the manual way.\n\n"
        + _section("iCloud", 5, "### Setup\n\nTurn it on, then see [[#Dropbox]] for another way. ^icloud-tip\n\n")
        + _section("Dropbox", 5)
        + _section("Git", 3, "Git is what [[Version history]] builds on.\n\n")
    ),
    START: (
        "Welcome. Start with [[Sync your notes across devices#iCloud]] or\n"
        "[[Sync your notes across devices#Dropbox|Dropbox sync]], then [[Version history]].\n\n"
        "![[diagram.png|400]]\n\n"
        "The settings icon: ![[lucide-cog.svg#icon]]\n\n"
        "| topic | page |\n| --- | --- |\n| history | [[Version history\\|history]] |\n\n"
        "Read the [[Long reference]] when you need it; the [[Missing note]] is not written yet.\n"
        "A tip: [[Sync your notes across devices#^icloud-tip]].\n"
        "Plans: [the budget](../Projects/Budget.md).\n"
    ),
    HISTORY: "Every change is kept for a year. See [[Sync your notes across devices#Git|how Git fits]].\n",
    REFERENCE: (
        "---\ntags: [reference]\n---\n"
        "Everything in one place.\n\n"
        + _section("Hotkeys", 5)
        + _section("Plugins", 5)
        + _section("Themes", 3)
    ),
    ORPHAN: "Nobody links here; it links to [[Start here]].\n",
    DAILY: "- Looked at [[Start here]] today.\n",
    BUDGET: (
        "The budget for the [venue](<Venue list.md>) and the [backup plan](Plan%20B.md#Costs).\n\n"
        "See the ![diagram](../Attachments/diagram.png) and [Obsidian's site](https://obsidian.md).\n"
        "The [old sheet](Old%20sheet.md) is gone.\n"
    ),
    VENUE: "Three venues, one a [quarter](../Getting%20started/Start%20here.md#Welcome).\n",
    PLAN_B: "## Costs\n\nHalf of [the budget](Projects/Budget.md), as [[Start here]] says.\n",
    APP_JSON: '{"useMarkdownLinks": true, "newLinkFormat": "relative"}\n',
    WORKSPACE: '{"active": "Getting started/Start here.md"}\n',
    PNG: b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR fake image bytes",
    SVG: '<svg xmlns="http://www.w3.org/2000/svg"><g id="icon"/></svg>\n',
}

# What Obsidian says of the vault (pages named by their path without .md; the map excluded).
OBSIDIAN_VIEW = {
    "broken_links": [("Getting started/Start here", "Missing note"), ("Projects/Budget", "Old sheet.md")],
    "orphans": ["Daily notes/2026-11-27", "Orphan note"],
}


def build_vault(root: Path, folder: str = "wiki") -> dict[str, bytes]:
    """Write the vault under `root/folder`; returns its files by project-relative path."""
    out: dict[str, bytes] = {}
    for rel, content in VAULT.items():
        path = root / folder / rel if folder not in ("", ".") else root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        path.write_bytes(data)
        out[str(path.relative_to(root))] = data
    return out
