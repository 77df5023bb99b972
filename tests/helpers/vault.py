"""A small Obsidian vault built by hand, as people keep them: folders, human names, attachments,
heading links, embeds, Markdown links (relative, from the vault's top, in angle brackets,
URL-encoded, with headings, a broken one and a URL), Obsidian's own `.obsidian/` files, a
daily-notes folder and notes over the 6,000-character page budget.

`build_vault(root, "wiki")` writes it under `root/wiki`; `OBSIDIAN_VIEW` is what Obsidian
itself says of it (broken links, orphans), which gitgarden's health must match.
"""

from __future__ import annotations

import json
from pathlib import Path

from gitgarden.project import Project, init_project
from gitgarden.wiki.layout import Layout
from tests.helpers.project import write

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


# A vault the size of Obsidian's help vault (173 notes in 11 folders, 8 orphans): a home note links
# each folder's overview note, which links every note of its folder; a few notes link across.
HELP_FOLDERS = (
    "Bases", "Editing and formatting", "Files and folders", "Getting started", "Linking notes and files",
    "Plugins", "Obsidian Sync", "Obsidian Publish", "User interface", "Teams", "Extending Obsidian",
)  # fmt: skip
_TOPICS = ("Views", "Functions", "Filters", "Formulas", "Properties", "Callouts", "Tables", "Embeds", "Aliases",
           "Tags", "Hotkeys", "Themes", "Snippets", "Layouts", "Search")  # fmt: skip


def build_help_vault(root: Path, notes: int = 173, orphans: int = 8) -> list[str]:
    """Write a vault like Obsidian's help vault at `root` (`.obsidian/` included); returns the note
    names (paths without .md). Every note is reached from `Home` except the `orphans` last ones."""
    names: list[str] = ["Home"]
    per_folder = (notes - 1 - orphans) // len(HELP_FOLDERS)
    folders: dict[str, list[str]] = {}
    for f in HELP_FOLDERS:
        members = [f"{f}/{f} overview"] + [f"{f}/{_TOPICS[i % len(_TOPICS)]} in {f.lower()} {i}" for i in range(per_folder - 1)]
        folders[f] = members
        names.extend(members)
    while len(names) < notes - orphans:  # the remainder in the last folder
        extra = f"{HELP_FOLDERS[-1]}/More about extending {len(names)}"
        folders[HELP_FOLDERS[-1]].append(extra)
        names.append(extra)
    lone = [f"{HELP_FOLDERS[i % len(HELP_FOLDERS)]}/Unlinked note {i}" for i in range(orphans)]
    texts: dict[str, str] = {"Home": "Welcome. " + ", ".join(f"[[{f} overview]]" for f in HELP_FOLDERS) + ".\n"}
    for f, members in folders.items():
        overview, rest = members[0], members[1:]
        texts[overview] = f"About {f.lower()}: " + ", ".join(f"[[{m.rsplit('/', 1)[-1]}]]" for m in rest) + ".\n"
        for i, m in enumerate(rest):
            across = f" See also [[{rest[(i + 3) % len(rest)].rsplit('/', 1)[-1]}]]." if i % 4 == 0 else ""
            texts[m] = f"A help page about {m.rsplit('/', 1)[-1].lower()}, back to [[{f} overview]].{across}\n"
    for m in lone:
        texts[m] = f"Nothing links to {m.rsplit('/', 1)[-1].lower()}; it links to [[Home]].\n"
    for name, text in texts.items():
        path = root / f"{name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / ".obsidian").mkdir(parents=True, exist_ok=True)
    (root / ".obsidian" / "app.json").write_text("{}\n", encoding="utf-8")
    (root / "Attachments").mkdir(exist_ok=True)
    (root / "Attachments" / "logo.png").write_bytes(b"\x89PNG fake")
    return [*names, *lone]


LAYOUTS = {"wiki": Layout("wiki", "wiki/Daily notes"), "root": Layout(".", "Daily notes")}


def make_vault(root: Path, kind: str) -> Project:
    """The vault of tests/helpers/vault.py in layout `kind`, then `gitgarden init` on the folder."""
    if kind == "root":
        build_vault(root, ".")
        write(root, ".obsidian/daily-notes.json", json.dumps({"folder": "Daily notes", "format": "YYYY-MM-DD"}))
        write(root, ".obsidian/app.json", "{}\n")
    else:
        build_vault(root, "wiki")
        write(root, ".gitgarden/config.toml", 'journal_dir = "wiki/Daily notes"\n')
    project = Project(init_project(root).root)
    assert project.layout == LAYOUTS[kind].with_identity(["AGENTS.md"])
    return project


def at(project: Project, rel: str) -> str:
    """A path of the vault (as tests/helpers/vault.py names it) inside the project."""
    return project.layout.wiki_prefix + rel


# Notes written with Obsidian's own Markdown (callouts, highlights, inline HTML, block ids, embeds,
# tags, a wide table), for the tests of how a page shows them. Kept apart from VAULT so OBSIDIAN_VIEW
# stays what Obsidian says of that vault.
FORMATTED = "Formatting/Weekly review.md"
QUOTED = "Formatting/Reading list.md"
FORMATTED_NOTES: dict[str, str] = {
    FORMATTED: (
        "---\ntags: [review]\n---\n"
        "# Weekly review\n\n"
        "> [!tip] Keep it short\n"
        "> One ==highlight== a week, the rest in <u>plain</u> words. Press <kbd>Ctrl</kbd>+<kbd>S</kbd>.\n\n"
        "> [!warning]- Folded until opened\n"
        "> > [!note] A note inside\n"
        "> > Nested callouts keep their own box.\n\n"
        "What went well #review/weekly and #focus, H<sub>2</sub>O and x<sup>2</sup>. ^went-well\n\n"
        "- Ship the export\n- Call the landlord\n\n^todo-list\n\n"
        "| day | hours | what | where | who | why | notes that run long enough to need a scroll bar of their own |\n"
        "| --- | --- | --- | --- | --- | --- | --- |\n"
        "| Monday | 6 | writing the long middle part of the report | the library on the third floor | Dana and Erin | the deadline | "
        "nothing_that_breaks_in_a_narrow_column_without_spaces_anywhere_at_all_in_this_very_long_cell |\n\n"
        "The list above: [[#^todo-list]]. From elsewhere: [[Reading list#^best-book|the best book]].\n\n"
        "![[Reading list#Fiction]]\n\n"
        "![[diagram.png|120]]\n\n"
        "Not run: <img src=x onerror=alert(1)>, <u onclick=alert(1)>no handler</u>, [a trap](javascript:alert(1)), "
        "<script>alert(1)</script>, `#not-a-tag` in code.\n"
    ),
    QUOTED: (
        "# Reading list\n\n"
        "## Fiction\n\n"
        "The novel everyone should read first. ^best-book\n\n"
        "It embeds [[Weekly review]] back: ![[Weekly review]]\n\n"
        "## Essays\n\n"
        "Short pieces.\n"
    ),
}


def build_formatted(root: Path, folder: str = "wiki") -> None:
    """Write FORMATTED_NOTES under `root/folder` (beside a vault `build_vault` wrote there)."""
    for rel, text in FORMATTED_NOTES.items():
        write(root, f"{folder}/{rel}" if folder not in ("", ".") else rel, text)
