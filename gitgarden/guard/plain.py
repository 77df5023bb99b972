"""What a written page may hold beyond its words: nothing a reader cannot see, no second
frontmatter, no executable bit. The rules (`guard.rules`) call these finders from rules 3, 4 and 7.

- **Hidden characters** (rule 7): a bidi control reorders what is shown ("costs \u202e500 EUR" reads
  "costs RUE 005"), and an invisible format character (a zero-width space, a word joiner, a soft
  hyphen, a byte-order mark inside the text, a tag character) or a control character hides what
  the words are: the page no longer shows what it says, and grounding reads other words than the
  reader does. Refused in every line a change writes, whatever the journal line holds. Two kinds
  are kept where a script needs them: a zero-width joiner or non-joiner between two letters (Persian,
  Indic scripts) or two emoji, and the tag characters of an emoji flag (🏴 and its tags).
  Lines the change carries over from the person's pages (a split, a merge) are theirs, not written.
- **A frontmatter block opening a body** (rule 7): `---` / `gardener: false` / `---` under the real
  frontmatter renders as a rule and a heading and reads as the page's settings to a tool that
  takes the first block it finds.
- **An executable bit** (rules 3 and 4): a page or any file of the wiki that a change makes
  executable (mode 100755) where it was not.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from gitgarden.guard.diff import Diff
from gitgarden.guard.text import split_lines
from gitgarden.wiki import pages
from gitgarden.wiki.tree import text_of

__all__ = ["hidden_character", "hidden_findings", "body_frontmatter_findings", "mode_findings"]

Finding = tuple[str, str, str]

# Every Cc, Cf, Zl and Zp character but the tab and the visible Cf marks (the Arabic number signs and
# other prepended concatenation marks); `\r` ends a CRLF line and is judged where it stands.
_SUSPECT = re.compile(
    "[\\x00-\\x08\\x0a-\\x1f\\x7f-\\x9f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2064\\u2066-\\u206f"
    "\\ufeff\\ufff9-\\ufffb\\U00013430-\\U0001343f\\U0001bca0-\\U0001bca3\\U0001d173-\\U0001d17a\\U000e0001\\U000e0020-\\U000e007f]"
)
_BIDI = frozenset([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
_JOINERS = "\u200c\u200d"
_FLAG = "\U0001f3f4"  # 🏴, which the tag characters of a flag (England, Scotland, Wales) follow
_TAG_END = "\U000e007f"
_FRONTMATTER_OPEN = re.compile(r"^---[ \t]*\r?$")


def _what(ch: str) -> str:
    code = ord(ch)
    if code in _BIDI:
        return "a bidi control, which reorders what is shown"
    if ch in "\u2028\u2029":
        return "a line break inside a line"
    if 0xE0000 <= code <= 0xE007F:
        return "a tag character, which is invisible"
    if unicodedata.category(ch) == "Cc":
        return "a control character"
    return "an invisible format character"


def _joins(text: str, i: int) -> bool:
    """True for a joiner between two letters (or marks) or two emoji: where a script needs it."""
    if i == 0 or i + 1 >= len(text):
        return False
    kinds = {unicodedata.category(text[i - 1])[0], unicodedata.category(text[i + 1])[0]}
    return kinds <= {"L", "M"} or kinds <= {"S", "M"}


def _in_flag(text: str, i: int) -> bool:
    """True for a tag character of an emoji flag: 🏴, tags, the cancel tag."""
    start = i
    while start > 0 and "\U000e0020" <= text[start - 1] <= _TAG_END:
        start -= 1
    end = i
    while end < len(text) and "\U000e0020" <= text[end] <= "\U000e007e":
        end += 1
    return start > 0 and text[start - 1] == _FLAG and end < len(text) and text[end] == _TAG_END


def hidden_character(line: str) -> str | None:
    """The first character of `line` a reader would not see as what it is, named with its code point
    and kind (`U+202E, a bidi control, which reorders what is shown`); None when there is none."""
    for found in _SUSPECT.finditer(line):
        ch, i = found.group(), found.start()
        if ch == "\r" and i == len(line) - 1:
            continue  # the end of a CRLF line
        if (ch in _JOINERS and _joins(line, i)) or ("\U000e0020" <= ch <= _TAG_END and _in_flag(line, i)):
            continue
        return f"U+{ord(ch):04X}, {_what(ch)}"
    return None


def _carried(d: Diff) -> set[str]:
    """The lines of the person's pages this change moves or keeps (a split part's, a merge's): not written by it."""
    out: set[str] = set()
    for page in d.pages.values():
        out.update(page.old)
    for path in d.changed:
        if path in d.base and path not in d.proposed:
            old = text_of(d.base[path])
            out.update(split_lines(old) if old else [])
    for parent in d.parents.values():
        old = text_of(d.base[parent]) if parent in d.base else None
        out.update(split_lines(old) if old else [])
    if d.ctx is not None:
        for parent in d.ctx.split_parents.values():
            old = text_of(d.base[parent]) if parent in d.base else None
            out.update(split_lines(old) if old else [])
    return out


def _written_lines(d: Diff) -> Iterator[tuple[str, str]]:
    """(path, line) for every line the change writes in a page: a new page's lines, a changed
    page's inserted lines and new frontmatter lines."""
    for path, text in d.new_pages.items():
        for line in split_lines(text):
            yield path, line
    for path, page in d.pages.items():
        for j in page.fate.inserted:
            yield path, page.new.lines[j]
        if page.front_changed:
            old_block = pages.split_frontmatter(d.texts(path)[0] or "")[0]
            kept = set(split_lines(old_block))
            for line in split_lines(pages.split_frontmatter(page.new_text)[0]):
                if line not in kept:
                    yield path, line


def hidden_findings(d: Diff) -> Iterator[Finding]:
    """Rule 7's finding for each written line holding a character the reader would not see."""
    carried: set[str] | None = None
    for path, line in _written_lines(d):
        what = hidden_character(line)
        if what is None:
            continue
        carried = _carried(d) if carried is None else carried
        if line in carried:
            continue
        yield path, f"the text holds {what}; a page holds only what it shows, whatever the journal line holds", line


def body_frontmatter_findings(d: Diff) -> Iterator[Finding]:
    """Rule 7's finding for a written body that opens with a frontmatter block (`---`)."""
    for path, text in d.new_pages.items():
        if path.endswith(".md") and _opens_with_block(pages.split_frontmatter(text)[1]):
            yield path, "a page's body never starts with a frontmatter block ('---'): the page has its frontmatter", "---"
    for path, page in d.pages.items():
        lines = page.new.lines
        first = next((j for j, ln in enumerate(lines) if ln.strip()), None)
        if path.endswith(".md") and first is not None and first in page.fate.inserted and _opens_with_block("\n".join(lines[first:])):
            yield path, "a page's body never starts with a frontmatter block ('---'): the page has its frontmatter", "---"


def _opens_with_block(body: str) -> bool:
    first = next((ln for ln in split_lines(body) if ln.strip()), "")
    return bool(_FRONTMATTER_OPEN.match(first))


def mode_findings(d: Diff, *, new: bool) -> Iterator[Finding]:
    """Rule 3's (`new`) or rule 4's finding for each file of the wiki a change makes executable."""
    for path in d.changed:
        after = d.proposed.get(path)
        before = d.base.get(path)
        if after is None or not after.executable or not d.layout.in_wiki(path):
            continue
        if (before is None) == new and not (before is not None and before.executable):
            why = "a new file of the wiki is never executable (mode 100755)" if new else "a file of the wiki never becomes executable (mode 100644 to 100755)"
            yield path, why, ""
