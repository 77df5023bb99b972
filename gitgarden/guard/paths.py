"""What a changed path is, for the guard's rules (`path_kind`), and whether a new file may take its
name (`new_file_problem`, `case_twin`): plain judgements of a path and its bytes, no rule applied.
"""

from __future__ import annotations

import re

from gitgarden.guard.names import Names
from gitgarden.wiki import layout, pages
from gitgarden.wiki.names import is_note_name, is_slug, unportable_part
from gitgarden.wiki.tree import Entry, is_lfs_pointer, text_of

__all__ = ["OBSIDIAN_DIR", "case_twin", "encoding_change", "new_file_problem", "obsidian_settings", "path_kind", "slug_rule"]


# What a vault's human page name may not hold: path and shell trouble on some disk, or a
# character that ends an Obsidian link ([[name#heading|shown]], ^block).
_NOT_IN_NAMES = re.compile(r'[\x00-\x1f\x7f\\/:*?"<>|#^\[\]]')
# What text never holds but binary content does: control characters other than tab, the line
# endings, form feed and escape (terminal output pasted into a note keeps its colours).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")


def slug_rule(here: layout.Layout) -> str:
    return f"a new page is named {here.wiki_prefix}<slug>.md (lowercase letters, digits, '-')"


# --- small judgements ---------------------------------------------------------------


def _unsafe_path(path: str) -> bool:
    """True for paths that are not plain, relative and inside the project, or that some
    system cannot check out (a Windows device name like `con`, a name ending in a dot)."""
    return (
        not path
        or path.startswith("/")
        or "\\" in path
        or "\0" in path
        or any(part in ("", ".", "..") for part in path.split("/"))
        or unportable_part(path) is not None
    )


def _human_name(segment: str) -> bool:
    """A name a person's vault holds (spaces, capitals): nothing a disk or a link chokes on."""
    return (
        bool(segment)
        and not _NOT_IN_NAMES.search(segment)
        and segment == segment.strip()
        and not segment.endswith(".")
    )


_BOM = b"\xef\xbb\xbf"


def _newline_style(data: bytes) -> str | None:
    """"CRLF" or "LF" when every line of `data` ends so, "mixed", or None for a text of one line."""
    lf = data.count(b"\n")
    if not lf:
        return None
    crlf = data.count(b"\r\n")
    return "CRLF" if crlf == lf else "LF" if not crlf else "mixed"


def encoding_change(old: bytes, new: bytes) -> str | None:
    """What changed in how a text is stored rather than in what it says — a byte-order mark added or
    removed, every line ending turned to CRLF or to LF — named in words; None when neither did.
    Either would change every line (or hide the frontmatter), and is reported as what it is."""
    changes = []
    if new.startswith(_BOM) != old.startswith(_BOM):
        changes.append("a byte-order mark was added" if new.startswith(_BOM) else "its byte-order mark was removed")
    before, after = _newline_style(old), _newline_style(new)
    if before in ("LF", "CRLF") and after in ("LF", "CRLF") and before != after:
        changes.append(f"its line endings changed to {after}")
    return " and ".join(changes) or None


OBSIDIAN_DIR = ".obsidian/"  # the vault's settings, workspace and plugins: Obsidian writes them as it runs


def _is_obsidians(here: layout.Layout, path: str) -> bool:
    """True for a file of Obsidian's own settings folder, at the vault's top (the project root or
    the wiki folder): outside the guard's subject for the person and their agents, since Obsidian
    rewrites `workspace.json` whenever a note is opened; a pass still never writes one."""
    return path.startswith(OBSIDIAN_DIR) or (bool(here.wiki_prefix) and path.startswith(here.wiki_prefix + OBSIDIAN_DIR))


def obsidian_settings(here: layout.Layout, path: str) -> bool:
    """True for the part of Obsidian's folder it rewrites as it runs: the JSON settings at its top
    (`workspace.json`, `app.json`, …) and a plugin's `data.json`. The rest — plugins' code,
    CSS snippets, themes — is code Obsidian runs, which an agent's commit may not bring in."""
    rel = path[len(here.wiki_prefix) :] if here.wiki_prefix and path.startswith(here.wiki_prefix) else path
    parts = rel[len(OBSIDIAN_DIR) :].split("/")
    return (len(parts) == 1 and parts[0].endswith(".json")) or (
        len(parts) == 3 and parts[0] == "plugins" and parts[2] == "data.json"
    )


def path_kind(here: layout.Layout, path: str, old: Entry | None, new: Entry | None) -> str:
    """What a changed path is, for the rules: unsafe, obsidian (its settings folder), submodule_gone /
    submodule_new (a gitlink), deleted, symlink, filtered (a Git LFS pointer), reencoded (a BOM or
    the line endings changed), new, modified (all in the wiki), journal (a day file), or other. (A
    path inside a submodule is `in_submodule`, decided by `Diff`.)"""
    if _unsafe_path(path):
        return "unsafe"
    if _is_obsidians(here, path):
        return "obsidian"
    if old is not None and old.is_gitlink:
        return "submodule_gone"  # removed, or replaced by a file (a bump of its commit is no change)
    if new is not None and new.is_gitlink:
        return "submodule_new" if old is None else "deleted"
    symlink = any(e is not None and e.is_symlink for e in (old, new))
    if here.in_wiki(path):
        if new is None:
            return "deleted"
        if symlink:
            return "symlink"
        if old is not None and pages.is_attachment(path):
            return "attachment"  # a file that is not a page: never written (rule 4)
        if old is not None and is_lfs_pointer(old):
            return "filtered"  # git keeps the file elsewhere; its pointer is no page (rule 4)
        if old is not None and encoding_change(old.data, new.data):
            return "reencoded"  # named as what it is (rule 4), not as every line changed
        return "new" if old is None else "modified"
    if symlink:
        return "symlink"
    if here.is_journal_file(path):
        return "journal"
    return "other"


def new_file_problem(
    here: layout.Layout, path: str, entry: Entry, agent: bool, names: Names, folders: set[str]
) -> str | None:
    """Why a new file in the wiki may not be created (rule 3), or None.

    Outside an agent's commit a new page has a slug name, except a note name in the
    human style of a vault inside folders the wiki has already: only a split part may
    take one (checked once the parts are known, `Diff.human_named`).
    """
    segments = here.wiki_relative(path).removesuffix(".md").split("/")
    if any(s.startswith(".") for s in segments):
        return f"a new file under {here.wiki_shown} is never hidden"
    if agent:
        if not path.endswith(".md") or not all(_human_name(s) for s in segments):
            return f'a new page is named {here.wiki_prefix}<name>.md, without \\ / : * ? " < > | # ^ [ ]'
    elif not path.endswith(".md") or not (
        is_note_name(segments[-1])
        and all(
            is_slug(s) or here.wiki_prefix + "/".join(segments[: i + 1]) in folders or _gardeners_folder(here, segments[: i + 1])
            for i, s in enumerate(segments[:-1])
        )
    ):
        return slug_rule(here)
    text = text_of(entry)
    if text is None or _CONTROL.search(text):
        return "a new page is UTF-8 text without NUL bytes or other control characters (binary content)"
    if names.taken_folded(path):
        # On a case-insensitive disk this file would overwrite the person's page.
        return "a file with this name in other letter case exists already"
    return None


def _gardeners_folder(here: layout.Layout, segments: list[str]) -> bool:
    """True when `segments` are the gardener's own folder (`Gardener/`) or a folder above it: it
    may be made by the pass that writes its first page there."""
    own = here.gardener_folder.split("/") if here.gardener_folder else []
    return bool(segments) and own[: len(segments)] == segments


def case_twin(here: layout.Layout, path: str, names: Names) -> str | None:
    """Why a new wiki file named like a folder or reserved name in other letter case may not be
    created (rule 3), or None: on a case-insensitive disk (macOS, Windows) `Raw/x.md` lands in
    raw/, and `daily notes/x.md` in the journal folder, past the rules that guard them."""
    reserved = here.case_twin(path)
    twins = [reserved] if reserved else []
    parts = path.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        folder = "/".join(parts[:i])
        spelt = names.folder_spellings(folder)
        if spelt and folder not in spelt:
            twins.append(min(spelt) + "/")
    if not twins:
        return None
    return f"its name differs only in letter case from {twins[0]}, the same name on a case-insensitive disk (macOS, Windows)"
