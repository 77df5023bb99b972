"""An independent judge of "was anything of the person's lost?", for the guard's property test.

Written apart from gitgarden/guard.py on purpose: it imports nothing of the
guard or of wiki.py, and re-derives everything from the raw bytes. It is
simpler and more lenient than the guard (it unwraps every link, ignores code,
line endings and blank lines), so it only asks what matters to the person:

- every file of the base tree is still there, and still a regular file;
- files outside wiki/, the journal, log/ and .gitgarden/ are byte for byte the same;
- a journal file's old bytes are a prefix of its new bytes;
- no symlink was written;
- every non-blank line of every wiki page (its body when the frontmatter parses,
  else the whole text) still stands in some wiki page, and the lines of one old
  page that went to the same page keep their order there;
- frontmatter keys other than state and source are unchanged (a `superseded_by`
  may be added where there was none), state did not move backward, and no source
  day was dropped.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import yaml

from gitgarden.wiki.tree import Tree

ORDER = ["open", "hypothesis", "decided", "done"]
_LINKS = re.compile(r"\[\[([^\[\]\n]*?)\]\]")


def _shown(match: re.Match[str]) -> str:
    inner = match.group(1)
    if "|" in inner:
        target, shown = inner.split("|", 1)
        return shown or target
    return inner


def plain(line: str) -> str:
    """The line as a reader sees it: links unwrapped, no line ending, no edge spaces."""
    return _LINKS.sub(_shown, line).strip()


def split_page(text: str) -> tuple[dict[str, Any] | None, str]:
    """(frontmatter mapping, body); (None, whole text) when there is none or it is broken."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        return None, text
    for n in range(1, len(lines)):
        if lines[n].rstrip("\r").rstrip() == "---" or re.fullmatch(r"-{3,}\s*", lines[n]):
            block = "\n".join(lines[1:n])
            try:
                meta = yaml.safe_load(block)
            except yaml.YAMLError:
                return None, text
            if meta is None:
                meta = {}
            if not isinstance(meta, dict):
                return None, text
            return {str(k): v for k, v in meta.items()}, "\n".join(lines[n + 1 :])
    return None, text


def _text(data: bytes) -> str | None:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _days(meta: dict[str, Any]) -> set[str]:
    raw = meta.get("source")
    if raw is None:
        return set()
    return {str(x) for x in (raw if isinstance(raw, list) else [raw])}


def _placed(lines: list[str], pages: dict[str, list[str]]) -> bool:
    """Can every line be found in some page, in order within each page it lands in?"""
    names = sorted(pages)

    @cache
    def go(k: int, last: tuple[int, ...]) -> bool:
        if k == len(lines):
            return True
        for d, name in enumerate(names):
            body = pages[name]
            for pos in range(last[d] + 1, len(body)):
                if body[pos] == lines[k]:
                    # The earliest fitting position dominates later ones in this page.
                    if go(k + 1, last[:d] + (pos,) + last[d + 1 :]):
                        return True
                    break
        return False

    return go(0, tuple(-1 for _ in names))


def lost(base: Tree, proposed: Tree) -> list[str]:
    """What of the person's is lost or reworded between two trees; [] when nothing is."""
    problems: list[str] = []
    for path, entry in proposed.items():
        if entry.kind == "symlink" and base.get(path) != entry:
            problems.append(f"{path}: a symlink was written")
    wiki_now: dict[str, list[str]] = {}
    for path, entry in proposed.items():
        if path.startswith("wiki/") and entry.kind == "file":
            text = _text(entry.data)
            if text is not None:
                _, body = split_page(text)
                wiki_now[path] = [plain(x) for x in body.split("\n")]
    for path, old in base.items():
        new = proposed.get(path)
        if new is None:
            problems.append(f"{path}: gone")
            continue
        if new.kind != old.kind:
            problems.append(f"{path}: kind changed")
            continue
        if path.startswith("raw/journal/"):
            if not new.data.startswith(old.data):
                problems.append(f"{path}: journal bytes changed")
        elif path.startswith("wiki/"):
            problems.extend(_page_lost(path, old.data, new.data, wiki_now))
        elif not path.startswith(("log/", ".gitgarden/")) and new.data != old.data:
            problems.append(f"{path}: changed")
    return problems


def _page_lost(path: str, old: bytes, new: bytes, wiki_now: dict[str, list[str]]) -> list[str]:
    if old == new:
        return []
    old_text, new_text = _text(old), _text(new)
    if old_text is None:
        return [f"{path}: a binary file changed"]
    if new_text is None:
        return [f"{path}: a text file became binary"]
    problems = []
    old_meta, old_body = split_page(old_text)
    new_meta, _ = split_page(new_text)
    if old_meta is not None:
        if new_meta is None:
            return [f"{path}: frontmatter lost"]
        for key in set(old_meta) | set(new_meta):
            added_once = key == "superseded_by" and old_meta.get(key) is None
            if (
                key not in ("state", "source")
                and old_meta.get(key) != new_meta.get(key)
                and not added_once
            ):
                problems.append(f"{path}: frontmatter {key} changed")
        before, after = old_meta.get("state"), new_meta.get("state")
        if before in ORDER and (after not in ORDER or ORDER.index(after) < ORDER.index(before)):
            problems.append(f"{path}: state moved from {before} to {after}")
        if not _days(old_meta) <= _days(new_meta):
            problems.append(f"{path}: source days dropped")
    lines = [plain(x) for x in old_body.split("\n") if plain(x)]
    if not _placed(lines, {p: [x for x in body if x] for p, body in wiki_now.items()}):
        problems.append(f"{path}: a line is lost, reworded or out of order")
    return problems
