"""A three-way merge of lines, for taking one pass's changes out of files that moved on since.

`git merge-file` counts changes on adjacent lines as a conflict, and every
pass appends right after the last one (map entries, a page's new paragraph):
undoing an older pass would always collide with the newer. Here only a real
overlap conflicts — both sides changing the same lines of the base, or one
side inserting inside lines the other changed. An insertion at the edge of
the other side's change is kept, in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

__all__ = ["Overlap", "merge"]


@dataclass(frozen=True)
class Overlap:
    """Lines of `ours` (1-based, inclusive) that both sides changed."""

    first: int
    last: int

    def describe(self) -> str:
        return f"line {self.first}" if self.first >= self.last else f"lines {self.first}-{self.last}"


@dataclass(frozen=True)
class _Hunk:
    start: int  # base lines [start, end) become `lines`
    end: int
    lines: tuple[bytes, ...]
    at: int  # where the hunk sits in its own side (1-based first line), for messages
    size: int


def _hunks(base: list[bytes], side: list[bytes]) -> list[_Hunk]:
    matcher = SequenceMatcher(None, base, side, autojunk=False)
    return [
        _Hunk(i1, i2, tuple(side[j1:j2]), j1 + 1, j2 - j1)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _overlap(a: _Hunk, b: _Hunk, union: bool = False) -> bool:
    if a.start == a.end and b.start == b.end:
        # Two insertions at one place: which goes first is not ours to guess, except in a list
        # whose order does not matter (the map's entries), where ours go first.
        return a.start == b.start and not union
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return max(a.start, b.start) < min(a.end, b.end)


def merge(base: bytes, ours: bytes, theirs: bytes, *, union: bool = False) -> bytes | list[Overlap]:
    """`ours` with the change base -> theirs applied; the overlaps (in `ours`' lines) when they collide.

    `union`: two insertions at the same place both stand, ours first (as `git merge-file --union`
    keeps both sides' map entries)."""
    b, o, t = (x.splitlines(keepends=True) for x in (base, ours, theirs))
    mine, other = _hunks(b, o), _hunks(b, t)
    overlaps = [
        Overlap(h.at, h.at + max(h.size, 1) - 1)
        for h in mine
        if any(_overlap(h, g, union) and (h.start, h.end, h.lines) != (g.start, g.end, g.lines) for g in other)
    ]
    if overlaps:
        return overlaps
    # Both sides' hunks, by place in the base; at one place an insertion goes before a change there.
    edits = {(h.start, h.end, h.lines): h for h in [*mine, *other]}
    ordered = sorted(edits.values(), key=lambda h: (h.start, h.end != h.start, h.end))
    out: list[bytes] = []
    pos = 0
    for h in ordered:
        out.extend(b[pos : h.start])
        out.extend(h.lines)
        pos = max(pos, h.end)
    out.extend(b[pos:])
    return b"".join(out)
