"""Where a project keeps its wiki and its journal: the layout settings `wiki_dir` and `journal_dir`.

The default is `wiki/` and `raw/journal/`. An Obsidian vault adopted in place has
`wiki_dir = "."` (the project root is the wiki) and its daily-notes folder as the
journal. In that layout the project's own folders (`raw/`, `log/`, `.gitgarden/`),
every hidden name (`.obsidian/`, `.trash/`, `.git*`), the journal folder, `AGENTS.md`
and the configured identity files are not pages, and a pass never writes them.

The layout in force is a context variable: an entry point that works on a project
activates the project's layout (`with layout.active(project.layout): ...`) and the
pure cores (`pages.page_name`, `journal.day_path`, the guard) read `current()`.
Outside any entry point the default layout applies, as it always did.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from gitgarden.errors import ConfigError
from gitgarden.wiki.names import is_day, is_note_name

__all__ = [
    "LOG_DIR",
    "Layout",
    "DEFAULT",
    "RESERVED_TOP",
    "current",
    "active",
    "from_table",
    "check_dir",
    "check_map_page",
    "check_layout_value",
    "check_journal_from",
    "check_gardener_dir",
    "DEFAULT_GARDENER_DIR",
    "reserved_at_top",
]

# Top-level names of a project that are never pages, whatever the layout: the raw sources,
# the pass records, and (as any hidden name) gitgarden's state, git, Obsidian's settings and trash.
# The folder of the pass records (`log/YYYY-MM.jsonl`), written by code, never a page.
LOG_DIR = "log"
RESERVED_TOP = frozenset({"raw", LOG_DIR, "AGENTS.md"})
_MAX_KNOWN_NAMES = 250_000  # page names a layout keeps (Layout.page_name): more than the largest wiki lists


def reserved_at_top(name: str) -> bool:
    """True for a top-level name a listing of the project root leaves out (`raw`, `log`, any
    hidden name such as `.git`, `.gitgarden`, `.obsidian`, `.trash`)."""
    return name.startswith(".") or name in ("raw", "log")


@dataclass(frozen=True)
class Layout:
    """The project's wiki folder and journal folder, relative to its root (`.` is the root)."""

    wiki_dir: str = "wiki"
    journal_dir: str = "raw/journal"
    identity: tuple[str, ...] = ()  # identity files: shown to the model, never pages
    map_page: str = "index"  # the map's page name: another when an adopted vault's index.md is the person's
    journal_from: str = ""  # YYYY-MM-DD: day files before it are history, never offered ('' = every day)
    # The folder of the gardener's own pages (hubs; new pages in a vault of folders), relative to the
    # wiki: None is the default, `Gardener` for a vault at the project root, the wiki itself otherwise.
    gardener_dir: str | None = None
    # Worked out once: `page_name` runs for every path of every listing, several times a pass.
    at_root: bool = field(init=False, repr=False, compare=False)
    wiki_prefix: str = field(init=False, repr=False, compare=False)  # `wiki/`, or '' at the root
    journal_prefix: str = field(init=False, repr=False, compare=False)  # `raw/journal/`

    def __post_init__(self) -> None:
        object.__setattr__(self, "at_root", self.wiki_dir == ".")
        object.__setattr__(self, "wiki_prefix", "" if self.wiki_dir == "." else self.wiki_dir + "/")
        object.__setattr__(self, "journal_prefix", self.journal_dir + "/")
        # path -> page name (or None), as `page_name` found it: a pass asks it of every path a
        # dozen times (titles, the map's reach, hubs, the guard). Not a field: no part of equality.
        object.__setattr__(self, "_page_names", {})

    @property
    def gardener_folder(self) -> str:
        """The gardener's own folder, relative to the wiki ('' is the wiki's top)."""
        if self.gardener_dir is None:
            return DEFAULT_GARDENER_DIR if self.at_root else ""
        return "" if self.gardener_dir == "." else self.gardener_dir

    @property
    def wiki_shown(self) -> str:
        """The wiki folder as messages name it."""
        return "the wiki (the project root)" if self.at_root else self.wiki_prefix

    def map_path(self) -> str:
        """The map: `<wiki_dir>/<map_page>.md` (`index.md` unless `map_page` says otherwise)."""
        return f"{self.wiki_prefix}{self.map_page}.md"

    def page_path(self, name: str) -> str:
        """The project-relative path of page `name`."""
        return f"{self.wiki_prefix}{name}.md"

    def in_wiki(self, path: str) -> bool:
        """True for a project-relative path inside the wiki (a page or an attachment): under
        wiki_dir, outside the journal folder, and at the root not a reserved name."""
        if not path.startswith(self.wiki_prefix) or path.startswith(self.journal_prefix):
            return False
        if not self.at_root:
            return path not in self.identity
        top = path.split("/", 1)[0]
        return not (reserved_at_top(top) or top in RESERVED_TOP or path in self.identity or path == "")

    def page_name(self, path: str) -> str | None:
        """The page name of a project-relative path, or None when it is not a page."""
        known: dict[str, str | None] = self._page_names  # type: ignore[attr-defined]
        try:
            return known[path]
        except KeyError:
            pass
        name = self._page_name(path)
        if len(known) < _MAX_KNOWN_NAMES:
            known[path] = name
        return name

    def _page_name(self, path: str) -> str | None:
        prefix = self.wiki_prefix
        if not path.endswith(".md") or not path.startswith(prefix) or len(path) <= len(prefix) + 3:
            return None
        if path.startswith(self.journal_prefix) or path in self.identity:
            return None
        if self.at_root:
            top = path.split("/", 1)[0]
            if reserved_at_top(top) or top in RESERVED_TOP:
                return None
        name = path[len(prefix) : -3]
        # Hidden at any depth (`.trash/`, `.obsidian/` of a vault kept in wiki/): Obsidian shows no such note.
        return None if name.startswith(".") or "/." in name else name

    def case_twin(self, path: str) -> str | None:
        """The reserved name `path` names in other letter case (`raw/`, `log/`, the journal folder,
        `AGENTS.md`, an identity file), or None: on a case-insensitive disk (macOS, Windows)
        `Raw/x.md` is `raw/x.md`."""
        lower = path.lower()
        for folder in ("raw/", "log/", self.journal_prefix):
            if lower.startswith(folder.lower()) and not path.startswith(folder):
                return folder
        return next((f for f in ("AGENTS.md", *self.identity) if lower == f.lower() and path != f), None)

    def wiki_relative(self, path: str) -> str:
        """`path` relative to the wiki folder (an attachment's name as links give it)."""
        return path[len(self.wiki_prefix) :]

    def day_path(self, day: str) -> str:
        """The project-relative path of a day file."""
        return f"{self.journal_prefix}{day}.md"

    def is_journal_file(self, path: str) -> bool:
        """True for a `.md` file directly in the journal folder (a day file, or a misnamed one)."""
        rest = path[len(self.journal_prefix) :]
        return path.startswith(self.journal_prefix) and "/" not in rest and path.endswith(".md")

    def journal_in_wiki(self) -> bool:
        """True when the journal folder sits inside the wiki folder (a vault's daily notes), so a
        listing of the wiki lists it too. At the root a journal under a reserved name (`raw/…`, a
        hidden `.journal`) is not: the root's listing leaves those names out."""
        if not self.journal_prefix.startswith(self.wiki_prefix):
            return False
        top = self.journal_dir.split("/", 1)[0]
        return not (self.at_root and (reserved_at_top(top) or top in RESERVED_TOP))

    def wiki_folders(self) -> list[str]:
        """The folders a listing of the wiki walks (`.` walks the root, leaving reserved names out)."""
        return [self.wiki_dir]

    def tree_folders(self) -> list[str]:
        """The folders a pass lists: the wiki and the journal (once when the journal is inside)."""
        return [self.wiki_dir] if self.journal_in_wiki() else [self.wiki_dir, self.journal_dir]

    def with_identity(self, files: Iterable[str]) -> Layout:
        """This layout with more identity files (project-relative ones; others are not pages anyway)."""
        extra = tuple(f.replace("\\", "/").removeprefix("./") for f in files if not f.startswith(("/", "~")))
        return replace(self, identity=tuple(dict.fromkeys((*self.identity, *extra))))


DEFAULT = Layout()
DEFAULT_GARDENER_DIR = "Gardener"  # the gardener's own folder in a vault adopted at the project root

_CURRENT: contextvars.ContextVar[Layout] = contextvars.ContextVar("gitgarden_layout", default=DEFAULT)


def current() -> Layout:
    """The layout in force (the default outside any project's entry point)."""
    return _CURRENT.get()


@contextmanager
def active(layout: Layout) -> Iterator[Layout]:
    """Make `layout` the one in force for the duration of the block."""
    token = _CURRENT.set(layout)
    try:
        yield layout
    finally:
        _CURRENT.reset(token)


def check_dir(key: str, value: Any, *, where: str) -> str:
    """`value` as a layout folder (`wiki_dir`, `journal_dir`), or ConfigError saying why not."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}: {key} must be a folder inside the project, not {value!r}")
    text = value.strip()
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ConfigError(f"{where}: {key} = {value!r} holds a control character (a newline, a tab, NUL): name a plain folder")
    if "\\" in text:
        raise ConfigError(f"{where}: {key} = {value!r}: write folders with /, not \\")
    if text.startswith(("/", "~")) or (len(text) > 1 and text[1] == ":"):
        raise ConfigError(f"{where}: {key} = {value!r} must be relative to the project root")
    parts = [p for p in text.strip("/").split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ConfigError(f"{where}: {key} = {value!r} may not leave the project (no ..)")
    if parts and (parts[0] in (".git", ".gitgarden", "log") or parts[0].startswith(".git")):
        raise ConfigError(f"{where}: {key} = {value!r} is inside {parts[0]}/, which gitgarden keeps for itself")
    if key == "journal_dir" and not parts:
        raise ConfigError(f"{where}: journal_dir may not be the project root: name a folder, e.g. \"Daily notes\"")
    if key == "journal_dir" and parts[:2] == ["raw", "chat"]:
        raise ConfigError(f"{where}: journal_dir = {value!r} is inside raw/chat/, which holds the conversation")
    if key == "wiki_dir" and parts and parts[0] == "raw":
        raise ConfigError(f"{where}: wiki_dir = {value!r} is inside raw/, which holds the journal and the conversation")
    return "/".join(parts) or "."


def from_table(table: Mapping[str, Any], *, where: str) -> Layout:
    """The layout a project's `.gitgarden/config.toml` table sets (defaults for what it leaves out)."""
    wiki_dir = check_dir("wiki_dir", table.get("wiki_dir", DEFAULT.wiki_dir), where=where)
    journal_dir = check_dir("journal_dir", table.get("journal_dir", DEFAULT.journal_dir), where=where)
    if wiki_dir == journal_dir:
        raise ConfigError(f"{where}: wiki_dir and journal_dir are both {wiki_dir!r}: the journal needs a folder of its own")
    if wiki_dir != "." and (wiki_dir + "/").startswith(journal_dir + "/"):
        raise ConfigError(f"{where}: wiki_dir {wiki_dir!r} lies inside journal_dir {journal_dir!r}")
    map_page = check_map_page(table.get("map_page", DEFAULT.map_page), where=where)
    journal_from = check_journal_from(table.get("journal_from", DEFAULT.journal_from), where=where)
    raw_gardener = table.get("gardener_dir", "")
    gardener_dir = check_gardener_dir(raw_gardener, where=where) if raw_gardener != "" else None
    identity = table.get("identity_files", [])
    files = [str(f) for f in identity] if isinstance(identity, list) else []
    found = Layout(wiki_dir, journal_dir, map_page=map_page, journal_from=journal_from, gardener_dir=gardener_dir)
    found = found.with_identity(["AGENTS.md", *files])
    own = found.page_path(f"{found.gardener_folder}/x" if found.gardener_folder else "x")
    if found.gardener_folder and (found.page_name(own) is None or found.case_twin(own)):
        raise ConfigError(
            f"{where}: gardener_dir = {gardener_dir!r} puts the gardener's pages where no page may be "
            f"({own.rsplit('/', 1)[0]}/: the journal, raw/, log/ or a hidden folder): choose another folder, such as \"Gardener\""
        )
    if found.page_name(found.map_path()) is None or found.case_twin(found.map_path()):
        # The map would be a file no pass may write (AGENTS.md, an identity file): every map refused.
        raise ConfigError(
            f"{where}: map_page = {map_page!r} makes the map {found.map_path()}, a file no pass may write "
            "(AGENTS.md and the identity files, in any letter case, are no pages): choose another name, such as \"Map\""
        )
    return found


def check_journal_from(value: Any, *, where: str) -> str:
    """`value` as the first journal day a pass reads (YYYY-MM-DD, or '' for every day), or ConfigError."""
    from datetime import date


    if isinstance(value, date):  # TOML's bare `journal_from = 2026-12-01`
        value = value.isoformat()
    text = value.strip() if isinstance(value, str) else None
    if text is None or (text and not is_day(text)):
        raise ConfigError(f"{where}: journal_from must be a day written YYYY-MM-DD (or empty for every day), not {value!r}")
    return text or ""


def check_gardener_dir(value: Any, *, where: str) -> str:
    """`value` as the gardener's own folder, relative to the wiki (`.` is the wiki itself), or
    ConfigError: a plain folder of note names inside the wiki, never hidden."""
    text = value.strip() if isinstance(value, str) else None
    if not text:
        raise ConfigError(f"{where}: gardener_dir must be a folder inside the wiki, such as \"Gardener\" (\".\" is the wiki itself), not {value!r}")
    if text in (".", "./"):
        return "."
    parts = [p for p in text.strip("/").split("/") if p not in ("", ".")]
    if (
        text.startswith(("/", "~"))
        or "\\" in text
        or not parts
        or any(p == ".." or p.startswith(".") or not is_note_name(p) for p in parts)
    ):
        raise ConfigError(
            f"{where}: gardener_dir = {value!r} must be a plain folder inside the wiki (relative to it, no .., "
            "nothing hidden), such as \"Gardener\""
        )
    return "/".join(parts)


def check_layout_value(key: str, value: Any, *, where: str) -> str:
    """A layout setting's value checked (`map_page` a note name, the others folders), or ConfigError."""
    if key == "journal_from":
        return check_journal_from(value, where=where)
    if key == "gardener_dir":
        return "" if value == "" else check_gardener_dir(value, where=where)
    return check_map_page(value, where=where) if key == "map_page" else check_dir(key, value, where=where)


def check_map_page(value: Any, *, where: str) -> str:
    """`value` as the map's page name (a note name at the top of the wiki), or ConfigError saying why not."""
    if value == DEFAULT.map_page:
        return value
    text = value.strip().removesuffix(".md") if isinstance(value, str) else ""
    if not text or "/" in text or not is_note_name(text) or reserved_at_top(text) or text in RESERVED_TOP:
        raise ConfigError(
            f"{where}: map_page must be a note name at the top of the wiki folder, such as \"Map\" (no folder, no .md), not {value!r}"
        )
    return text
