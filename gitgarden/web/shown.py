"""Small renderings the templates share: times, commit ids, counts, outcomes as colours, a pass's
diff split per file, a refusal split into its rule and words, and the health chart (an SVG drawn
on the server: no script, no outside library)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape

__all__ = ["FILTERS", "DiffFile", "split_diff", "Refusal", "refusal", "chart", "OUTCOME_KIND", "inline_code"]

# How an outcome looks: the pass did its job (green), needs a look (amber), was stopped (grey), or failed (red).
OUTCOME_KIND = {
    "nothing_new": "quiet",
    "nothing_earned": "good",
    "pages_written": "good",
    "tidied": "good",
    "no_model": "warn",
    "finished_without_writing": "warn",
    "some_refused": "warn",
    "stood_down": "stopped",
    "stopped": "stopped",
    "refused": "bad",
    "failed": "bad",
}


def when(value: Any) -> str:
    """An ISO time as `2026-11-30 09:00` (the day and minute a person reads)."""
    text = str(value or "")
    try:
        return datetime.fromisoformat(text).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return text[:16].replace("T", " ") or "?"


def short(sha: Any) -> str:
    return str(sha or "")[:10]


def count(n: Any, word: str) -> str:
    """`1 line`, `3 lines`."""
    n = int(n or 0)
    if n == 1:
        return f"1 {word}"
    return f"{n:,} {word}" + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def outcome_words(outcome: Any) -> str:
    return str(outcome or "").replace("_", " ")


def url_part(text: Any) -> str:
    """A value put in a URL path (a pass id, a page name, a day)."""
    return quote(str(text))


def asked_by(trigger: Any) -> str:
    """Who started a pass, as a person reads it: a name, the timer, CI."""
    text = str(trigger or "")
    if text.startswith("run by "):
        return text.removeprefix("run by ").split(" <")[0]
    return {"tick": "the timer", "ci": "CI", "run": "gitgarden run", "": "—"}.get(text, text)


def moved(before: Any, after: Any) -> str:
    """The health figures a pass moved, `orphans 3→1, broken links 0→2`; `unchanged` when none."""
    b = before if isinstance(before, dict) else {}
    a = after if isinstance(after, dict) else {}
    if not a:
        return "—"
    parts = [f"{k.replace('_', ' ')} {b.get(k, 0)}→{v}" for k, v in a.items() if b.get(k, 0) != v and k != "unread_lines"]
    return ", ".join(parts) or "unchanged"


def endpoint_short(value: Any) -> str:
    """An endpoint as a table cell shows it: its host and port (`127.0.0.1:8080`), or the words as they are."""
    from urllib.parse import urlsplit

    text = str(value or "")
    try:
        netloc = urlsplit(text).netloc if "://" in text else ""
    except ValueError:
        netloc = ""
    return netloc or (text if len(text) <= 32 else text[:31] + "…")


def number(value: Any) -> str:
    """A number with thousands separators (a float keeps its decimals)."""
    return f"{value:,}" if isinstance(value, int | float) and not isinstance(value, bool) else str(value)


_CODE = re.compile(r"`([^`\n]+)`")


def inline_code(text: Any) -> Markup:
    """A message as HTML: its `backticked` words as code, everything else escaped (the command
    line's messages name commands and settings so)."""
    value = str(text or "")
    parts: list[Markup] = []
    pos = 0
    for m in _CODE.finditer(value):
        parts.append(escape(value[pos : m.start()]))
        parts.append(Markup("<code>{}</code>").format(m.group(1)))
        pos = m.end()
    parts.append(escape(value[pos:]))
    return Markup("").join(parts)


FILTERS = {
    "asked_by": asked_by,
    "code": inline_code,
    "moved": moved,
    "number": number,
    "endpoint_short": endpoint_short,
    "when": when,
    "short": short,
    "count": count,
    "outcome_words": outcome_words,
    "outcome_kind": lambda o: OUTCOME_KIND.get(str(o), "quiet"),
    "url": url_part,
}


@dataclass
class DiffFile:
    """One file of a pass's diff: its path, whether it is a page, and its lines (kind, text):
    kind is `+` added, `-` removed, ` ` context, `@` a hunk's place."""

    path: str
    is_page: bool
    page: str | None
    new: bool = False
    lines: list[tuple[str, str]] = field(default_factory=list)

    @property
    def added(self) -> int:
        return sum(1 for k, _ in self.lines if k == "+")

    @property
    def removed(self) -> int:
        return sum(1 for k, _ in self.lines if k == "-")


def split_diff(diff: str, page_of: Any) -> list[DiffFile]:
    """A diff as files, in its order (pages first, as `show` orders it): git's (`diff --git`
    headers) or a dry run's (`---`/`+++` headers only); `page_of(path)` names the page a path is
    (None: not a page)."""
    files: list[DiffFile] = []
    current: DiffFile | None = None
    headed = False  # a `diff --git` line started the current file: its `+++` line starts none
    was_new = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            path = line.rsplit(" b/", 1)[-1]
            current = DiffFile(path, page_of(path) is not None, page_of(path))
            files.append(current)
            headed = True
            continue
        if line.startswith("--- "):
            was_new = line == "--- /dev/null"
            continue
        if line.startswith("+++ "):
            if not headed:
                path = line[4:].removeprefix("b/")
                current = DiffFile(path, page_of(path) is not None, page_of(path), new=was_new)
                files.append(current)
            headed = False
            continue
        if current is None:
            continue
        if line.startswith("new file"):
            current.new = True
        elif line.startswith("@@"):
            m = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)", line)
            current.lines.append(("@", f"line {m.group(1)}" if m else ""))
        elif line.startswith(("index ", "deleted file", "similarity", "rename ", "old mode", "new mode", "\\")):
            continue
        elif line[:1] in ("+", "-", " "):
            current.lines.append((line[0], line[1:]))
    return files


@dataclass(frozen=True)
class Refusal:
    """A refusal as a person reads it: the rule (number and name), the page, why, and the words."""

    rule: str
    path: str
    why: str
    words: str
    raw: str


_VERDICT = re.compile(r"^(?:(?P<job>[\w ]+): )?rule (?P<n>\d+) \((?P<name>[^)]*)\) (?P<path>\S*): (?P<rest>.*)$", re.S)


def refusal(text: str) -> Refusal:
    """Split a recorded refusal (`rule 11 (grounded) wiki/acme.md: … : 'the line'`) into its parts;
    one that is not a verdict stays whole."""
    m = _VERDICT.match(text)
    if not m:
        return Refusal("", "", text, "", text)
    rest = m.group("rest")
    why, words = rest, ""
    q = re.search(r": (['\"])(.*)\1$", rest, re.S)
    if q:
        why, words = rest[: q.start()], q.group(2)
    return Refusal(f"rule {m.group('n')} ({m.group('name')})", m.group("path"), why, words, text)


def chart(series: Sequence[tuple[str, Sequence[int]]], *, width: int = 240, height: int = 44) -> Markup:
    """A small line chart per figure (oldest pass left, newest right), each scaled to its own range,
    with its last value; SVG presentation attributes only (the page allows no inline style)."""
    rows = []
    for label, values in series:
        if not values:
            continue
        lo, hi = min(values), max(values)
        span = hi - lo or 1
        n = len(values)
        step = (width - 8) / max(1, n - 1)
        points = " ".join(
            f"{4 + i * step:.1f},{height - 6 - (v - lo) / span * (height - 14):.1f}" for i, v in enumerate(values)
        )
        last_x, last_y = points.rsplit(" ", 1)[-1].split(",")
        trend = "up" if values[-1] > values[0] else "down" if values[-1] < values[0] else "flat"
        rows.append(
            Markup(
                '<figure class="spark {trend}"><figcaption>{label} <b>{last:,}</b> <small>({lo:,}–{hi:,})</small></figcaption>'
                '<svg viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" aria-label="{label}: {vals}">'
                '<polyline fill="none" stroke-width="2" points="{points}"/>'
                '<circle cx="{x}" cy="{y}" r="3"/></svg></figure>'
            ).format(
                trend=trend, label=label, last=values[-1], lo=lo, hi=hi, w=width, h=height,
                vals=", ".join(map(str, values)), points=points, x=last_x, y=last_y,
            )  # fmt: skip
        )
    return Markup("").join(rows) if rows else Markup('<p class="muted">{}</p>').format(escape("No pass has recorded health figures yet."))
