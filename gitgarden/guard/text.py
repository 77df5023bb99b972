"""Text matching for the guard: finding links and code, and aligning old lines with new.

The guard's rules ("no rewording", "verbatim split", "links resolve") ask the same
few questions of two texts: which lines of the old text stand in the new one, as
written or with words wrapped as links; which links a range of lines holds,
outside code. This module answers them and judges nothing; the rules and their
verdicts stay in `guard`. It is separate so each can be read on its own, and
because it is the part tuned for speed on large pages (searches in C instead of
wiki/linking.py's whole-text regexes), which wants its own careful reading. Its public names are for the guard's rules
(`guard.rules`, `guard.diff`), not for the rest of gitgarden.

Lines are compared as they are: split on "\\n" only, so a CRLF file keeps its
"\\r" on every line.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import AnyStr, NamedTuple

from gitgarden.wiki.linking import MD_LINK, md_destination

_DIFF_LINES = 20_000  # beyond this many changed lines, pairing stays greedy (difflib is slow)
# These mirror wiki/linking.py's link and code patterns: the guard finds the links of a page's
# changed lines only, and linking.find_links reads the whole text (too slow on a 5 MB page).
LINK = re.compile(r"\[\[([^\[\]\n]+?)\]\]")
_FENCE_MARK = re.compile(r"```|~~~")  # a fence when it opens a line after 0-3 spaces/tabs
_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"  # where str.splitlines breaks
_BREAK = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


class _Link(NamedTuple):
    start: int
    end: int
    target: str
    shown: str  # the text a reader sees; what the link unwraps to


class _MdLink(NamedTuple):
    start: int
    end: int
    path: str  # decoded, without its anchor (linking.MdLink.path)
    anchor: str


def _display(inner: str) -> tuple[str, str]:
    inner = inner.replace("\\|", "|")
    target, _, shown = inner.partition("|")
    return target.partition("#")[0].strip(), shown or target


def _fences(text: str) -> Iterator[tuple[int, str]]:
    """(start of line, marker) for every line that linking.code_mask takes for a fence."""
    for m in _FENCE_MARK.finditer(text):
        k = m.start()
        while k > 0 and text[k - 1] in " \t" and m.start() - k < 4:
            k -= 1
        if m.start() - k <= 3 and (k == 0 or text[k - 1] in _BREAKS):
            yield k, m.group()


def _inline_end(text: str, pos: int) -> int | None:
    """Where wiki's inline-code regex, (`+)(?:(?!\\1).)+?\\1 with DOTALL, matched at `pos`
    ends (None: no match), found by str.find.

    The regex tests a lookahead at every character, which takes a third of a second
    over a 5 MB fenced block; this walks its backtracking in C searches instead.
    """
    run = pos
    while run < len(text) and text[run] == "`":
        run += 1
    for n in range(run - pos, 0, -1):  # the greedy opening run backtracks
        tick, content = "`" * n, pos + n
        if content >= len(text) or text.startswith(tick, content):
            continue  # the span needs a first character that does not close it
        close = text.find(tick, content + 1)
        if close >= 0:
            return close + n
    return None


def _code_spans(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Merged ranges of code (fenced blocks, inline spans) meeting text[lo:hi].

    They are the ranges linking.code_mask marks, found from the start of the text
    (either kind may open before `lo`) by searches that skip ahead in C.
    """
    spans: list[tuple[int, int]] = []
    fence: str | None = None
    start = 0
    for at, marker in _fences(text):
        if fence is None:
            fence, start = marker, at
        elif marker == fence:
            brk = _BREAK.search(text, at)
            spans.append((start, brk.end() if brk else len(text)))
            fence = None
    if fence is not None:
        spans.append((start, len(text)))
    fenced = list(spans)
    starts = [s for s, _ in fenced]
    # Where wiki's regex finds inline code scanning the text, tried only at backticks.
    # A span that opens inside a fence counts for nothing but still consumes its text,
    # exactly as in linking.code_mask.
    pos = text.find("`")
    while 0 <= pos < hi:
        e = _inline_end(text, pos)
        if e is None:
            pos = text.find("`", pos + 1)
            continue
        k = bisect.bisect_right(starts, pos) - 1
        if e > lo and (k < 0 or pos >= fenced[k][1]):
            spans.append((pos, e))
        pos = text.find("`", e)
    merged: list[tuple[int, int]] = []
    for s, e in sorted(spans):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        elif e > lo and s < hi:
            merged.append((s, e))
    return merged


def find_links(text: str, lo: int = 0, hi: int | None = None) -> list[_Link]:
    """The wiki links outside code that start in text[lo:hi], as linking.find_links finds them."""
    hi = len(text) if hi is None else hi
    if text.find("[[", lo, hi + 1) < 0:
        return []
    spans = _code_spans(text, lo, hi) if "`" in text or "~~~" in text else []
    starts = [s for s, _ in spans]
    links = []
    for m in LINK.finditer(text, lo):
        if m.start() >= hi:
            break
        k = bisect.bisect_right(starts, m.start()) - 1
        if k >= 0 and m.start() < spans[k][1]:
            continue
        target, shown = _display(m.group(1))
        if target:
            links.append(_Link(m.start(), m.end(), target, shown))
    return links


def find_md_links(text: str, lo: int = 0, hi: int | None = None) -> list[_MdLink]:
    """The Markdown links to the vault's files outside code and wiki links that start in
    text[lo:hi], as linking.find_md_links finds them."""
    hi = len(text) if hi is None else hi
    if text.find("](", lo) < 0:
        return []
    # A link stays on its line: code or a wiki link anywhere on the lines of text[lo:hi] may hold
    # one that starts in the region (a wiki link opening before `lo`, code after `hi`).
    start, stop = text.rfind("\n", 0, lo) + 1, text.find("\n", hi)
    stop = len(text) if stop < 0 else stop
    code = _code_spans(text, start, stop) if "`" in text or "~~~" in text else []
    wiki = [(lk.start, lk.end) for lk in find_links(text, start, stop)]
    spans = sorted(code + wiki)
    starts = [s for s, _ in spans]
    links = []
    for m in MD_LINK.finditer(text, start):  # from the line's start, as a scan of the whole text meets it
        if m.start() >= hi:
            break
        if m.start() < lo:
            continue
        k = bisect.bisect_right(starts, m.end() - 1) - 1
        if k >= 0 and spans[k][1] > m.start():
            continue
        dest = md_destination(m.group(3))
        if dest is not None:
            links.append(_MdLink(m.start(), m.end(), dest[0], dest[1]))
    return links


def _md_anchor_key(m: re.Match[str]) -> str:
    """A Markdown link as a line's key reads it: a heading link without its path (`[x](Page.md#H)`
    and `[x](#H)` read `[x](#H)`), so a split's rewired link pairs with the line it was."""
    dest = m.group(3)
    inner = dest[1:-1] if dest.startswith("<") and dest.endswith(">") else dest
    anchor = inner.partition("#")[2]
    return f"{m.group(1)}[{m.group(2)}](#{anchor})" if anchor.strip() else m.group(0)


def _md_key(line: str) -> str:
    return MD_LINK.sub(_md_anchor_key, line) if "](" in line else line


def common_prefix(a: AnyStr, b: AnyStr) -> int:
    """Length of the common prefix of two strings (binary search over C compares)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def split_lines(text: str) -> list[str]:
    """Lines split on "\\n" only, "\\r" kept; a final newline does not make an empty line."""
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


def _seen(inner: str) -> str:
    """What a link reads as, for pairing lines: its shown text; for a heading link without
    one, `#Heading` alone, so a heading link rewired to the page its section moved to
    (`[[Page#H]]` -> `[[Part#H]]`, `[[#H]]` -> `[[Part#H]]`) pairs with the line it was."""
    inner = inner.replace("\\|", "|")
    head, pipe, shown = inner.partition("|")
    if pipe:
        return shown
    _, hash_, anchor = head.partition("#")
    return "#" + anchor if hash_ else head


def _rewired(old_inner: str, new_inner: str) -> bool:
    """True when a link was pointed at another page with the same heading anchor and the same
    shown text: what a split does to a heading link into a moved section."""
    o_head, o_pipe, o_shown = old_inner.replace("\\|", "|").partition("|")
    n_head, n_pipe, n_shown = new_inner.replace("\\|", "|").partition("|")
    o_anchor, n_anchor = o_head.partition("#")[2].strip(), n_head.partition("#")[2].strip()
    return bool(o_anchor) and o_anchor.lower() == n_anchor.lower() and (o_pipe, o_shown) == (n_pipe, n_shown)


def line_key(line: str) -> str:
    """A line with every link unwrapped and no "\\r": equal keys are needed for a match."""
    if "[[" in line:
        line = LINK.sub(lambda m: _seen(m.group(1)), line)
    return _md_key(line).removesuffix("\r")


def same_line(old: str, new: str, links: Sequence[_Link] | None, tail_cr: bool) -> bool:
    """True when `new` is `old` as written, or with some words of it wrapped as links (or a
    heading link, wiki or Markdown, pointed at the page its section moved to).

    `links` are the new line's links; `tail_cr`: `old` was the unterminated last
    line of a CRLF text, so it may now end in the "\\r" of its new line ending.
    """
    if new == old or (tail_cr and new == old + "\r"):
        return True
    if "](" in new and "](" in old:
        o, n = _md_key(old), _md_key(new)
        if (o, n) != (old, new):
            return o == n or (tail_cr and n == o + "\r") or _same_wrapped(o, n, find_links(n) if "[[" in n else None, tail_cr)
    return _same_wrapped(old, new, links, tail_cr)


def _same_wrapped(old: str, new: str, links: Sequence[_Link] | None, tail_cr: bool) -> bool:
    """same_line's wiki-link half: `new` is `old` with some words wrapped as wiki links."""
    if not links:
        return False
    i = pos = 0
    for lk in links:
        seg = new[pos : lk.start]
        if not old.startswith(seg, i):
            return False
        i += len(seg)
        raw = new[lk.start : lk.end]
        if old.startswith(raw, i):  # the link was there already
            i += len(raw)
        elif old.startswith(lk.shown, i):  # an existing word, now wrapped
            i += len(lk.shown)
        elif (m := LINK.match(old, i)) and _rewired(m.group(1), raw[2:-2]):  # a split's heading link
            i = m.end()
        else:
            return False
        pos = lk.end
    rest, tail = old[i:], new[pos:]
    return rest == tail or (tail_cr and rest + "\r" == tail)


class Lines:
    """A text's lines, and the links (positions relative to their line) of a range of them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self.links: dict[int, list[_Link]] = {}
        self.md_links: dict[int, list[_MdLink]] = {}  # Markdown links of the loaded lines (rule 8)
        self._keys: dict[int, str] = {}

    def key(self, j: int) -> str:
        """`line_key` of line j, computed once."""
        if j not in self._keys:
            self._keys[j] = line_key(self.lines[j])
        return self._keys[j]

    def load_links(self, lo: int = 0, hi: int | None = None) -> None:
        """Find the links of lines lo..hi; the rest of the text is read only for code context."""
        hi = len(self.lines) if hi is None else hi
        pos = sum(map(len, self.lines[:lo])) + lo
        end = pos + sum(map(len, self.lines[lo:hi])) + (hi - lo)
        start = pos
        found = find_links(self.text, pos, end)
        k = 0
        for i in range(lo, hi):
            nxt = pos + len(self.lines[i]) + 1
            while k < len(found) and found[k].start < nxt:
                lk = found[k]
                self.links.setdefault(i, []).append(
                    _Link(lk.start - pos, lk.end - pos, lk.target, lk.shown)
                )
                k += 1
            pos = nxt
        if self.text.find("](", start, end) >= 0:
            pos, k = start, 0
            found_md = find_md_links(self.text, start, end)
            for i in range(lo, hi):
                nxt = pos + len(self.lines[i]) + 1
                while k < len(found_md) and found_md[k].start < nxt:
                    md = found_md[k]
                    self.md_links.setdefault(i, []).append(_MdLink(md.start - pos, md.end - pos, md.path, md.anchor))
                    k += 1
                pos = nxt

    def finder(self, positions: Iterable[int] | None = None) -> Finder:
        """A finder over these lines (all, or only `positions`, in increasing order)."""
        return Finder(self, range(len(self.lines)) if positions is None else positions)


class Finder:
    """Finds lines (maybe link-wrapped) among some positions of a text's lines, in order."""

    def __init__(self, lines: Lines, positions: Iterable[int]) -> None:
        self.lines = lines
        self.exact: dict[str, list[int]] = {}  # line as written -> positions
        self.wrapped: dict[str, list[int]] = {}  # key -> positions of lines holding links
        for j in positions:
            self.exact.setdefault(lines.lines[j], []).append(j)
            if j in lines.links or "](" in lines.lines[j]:
                self.wrapped.setdefault(lines.key(j), []).append(j)

    def find(
        self, line: str, after: int, tail_cr: bool, taken: set[int], key: str = ""
    ) -> int | None:
        """The first free position after `after` holding `line`, as written or link-wrapped."""
        best: int | None = None
        for variant in (line, line + "\r") if tail_cr else (line,):
            cands = self.exact.get(variant)
            if cands:
                k = bisect.bisect_right(cands, after)
                while k < len(cands) and cands[k] in taken:
                    k += 1
                if k < len(cands) and (best is None or cands[k] < best):
                    best = cands[k]
        if not self.wrapped:
            return best
        cands = self.wrapped.get(key or line_key(line))
        if cands:
            new, links = self.lines.lines, self.lines.links
            for k in range(bisect.bisect_right(cands, after), len(cands)):
                j = cands[k]
                if best is not None and j > best:
                    break
                if j not in taken and same_line(line, new[j], links.get(j), tail_cr):
                    return j
        return best


@dataclass
class Alignment:
    """How an old text's lines fared in a new one, by line index."""

    left: list[int]  # old lines found nowhere in the new text
    inserted: list[int]  # new lines that match no old line
    rewrapped: list[tuple[int, int]]  # (old, new) pairs equal only once added links unwrap


def _greedy(
    old: list[str], okey: list[str], a0: int, new: Lines, b0: int, b1: int, tail: int
) -> dict[int, int]:
    """Old lines a0.. matched, in order, each to the first fitting new line in b0..b1.

    Earliest-first is optimal when every old line can be matched (pure insertions
    and link wraps); when some cannot, it may pair lines worse than a diff does.
    """
    finder = new.finder(range(b0, b1))
    matched: dict[int, int] = {}
    after = b0 - 1
    for i in range(a0, a0 + len(okey)):
        hit = finder.find(old[i], after, i == tail, set(), okey[i - a0])
        if hit is not None:
            matched[i] = after = hit
    return matched


def _diff(
    old: list[str], okey: list[str], a0: int, new: Lines, b0: int, b1: int, tail: int
) -> dict[int, int]:
    """Like `_greedy`, but anchored on difflib's matching blocks, so a moved or removed
    block does not throw the pairing of the lines after it off."""
    import difflib  # here only: the usual agent's commit (an append) never gets this far

    nkeys = [new.key(j) for j in range(b0, b1)]
    matcher = difflib.SequenceMatcher(None, okey, nkeys, autojunk=True)
    pairs: list[tuple[int, int]] = []
    for blk in matcher.get_matching_blocks():
        for k in range(blk.size):
            i, j = a0 + blk.a + k, b0 + blk.b + k
            if same_line(old[i], new.lines[j], new.links.get(j), i == tail):
                pairs.append((i, j))
    matched = dict(pairs)
    # difflib skips very common lines (blank ones) in long texts: match them per gap.
    bounds = [(a0 - 1, b0 - 1), *pairs, (a0 + len(okey), b1)]
    for (pi, pj), (ni, nj) in zip(bounds, bounds[1:], strict=False):
        if ni - pi > 1 and nj - pj > 1:
            gap = _greedy(old, okey[pi + 1 - a0 : ni - a0], pi + 1, new, pj + 1, nj, tail)
            matched.update(gap)
    return matched


def align(old_text: str, old: list[str], new: Lines, tail: int) -> Alignment:
    """Align an old text's lines with a new text's, allowing link wrapping.

    Whole lines in the common head and tail are skipped first (the usual change is
    an append) and only the middle's links are read. The middle is matched
    greedily; if lines are left over, difflib gets a try (skipped for huge
    middles, where it is slow and the change is refused anyway).
    """
    nl = new.lines

    def eq(i: int, j: int) -> bool:
        return old[i] == nl[j] or (i == tail and nl[j] == old[i] + "\r")

    # Whole lines inside the texts' common head and tail, found by string compares in C.
    k = common_prefix(old_text, new.text)
    p = old_text.count("\n", 0, k)
    while p < len(old) and p < len(nl) and eq(p, p):
        p += 1
    k = common_prefix(old_text[::-1], new.text[::-1])
    rest = old_text[len(old_text) - k :]
    rest = rest[rest.find("\n") + 1 :] if "\n" in rest else ""
    s = min(rest.count("\n") + (1 if rest and not rest.endswith("\n") else 0), len(old) - p)
    s = min(s, len(nl) - p)
    while s < len(old) - p and s < len(nl) - p and eq(len(old) - 1 - s, len(nl) - 1 - s):
        s += 1
    a0, a1, b0, b1 = p, len(old) - s, p, len(nl) - s
    new.load_links(b0, b1)
    okey = [line_key(x) for x in old[a0:a1]]
    matched = _greedy(old, okey, a0, new, b0, b1, tail)
    if len(matched) < a1 - a0 and a1 - a0 <= _DIFF_LINES and b1 - b0 <= _DIFF_LINES:
        other = _diff(old, okey, a0, new, b0, b1, tail)
        if len(other) > len(matched):
            matched = other
    kept = set(matched.values())
    return Alignment(
        left=[i for i in range(a0, a1) if i not in matched],
        inserted=[j for j in range(b0, b1) if j not in kept],
        rewrapped=[(i, j) for i, j in sorted(matched.items()) if old[i] != nl[j]],
    )
