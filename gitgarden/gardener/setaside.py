"""Journal lines set aside: lines a pass no longer offers, and why.

Two kinds of line would otherwise come back every pass and change nothing:

- a line whose operations are refused in `STRIKES` passes in a row (the same
  prompt gets the same refusals), and
- a line too long for the room any prompt gives journal lines (it would stop
  every line behind it from being offered).

Both are set aside: not offered, listed by `status` and `health` with the last
refusal or the line's size and what to do. Like the read position, the state
is kept by content key in `.gitgarden/set-aside.json` and committed with the
pass, so editing a line offers it again, and `gitgarden run --retry` offers
the refused ones again. A too-long line is looked at again by every pass: once
the budget lets it fit, it is offered. Pure: the pass reads and writes the file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.wiki.journal import JournalLine

if TYPE_CHECKING:
    from gitgarden.config import Settings

__all__ = [
    "SET_ASIDE_PATH",
    "STRIKES",
    "REFUSED",
    "TOO_LONG",
    "Entry",
    "load",
    "render",
    "is_aside",
    "listed",
    "retry",
    "account",
    "line_room",
    "row_tokens",
    "too_long",
    "summary",
    "on_disk",
    "aside_on_disk",
]

SET_ASIDE_PATH = ".gitgarden/set-aside.json"
STRIKES = 3  # passes in a row whose refusals set a line aside
REFUSED = "refused"
TOO_LONG = "too_long"
_TEXT_SHOWN = 120  # characters of a line kept in the file, for people
_REASON_CAP = 400


@dataclass(frozen=True)
class Entry:
    """One line being counted or set aside, by content key."""

    day: str
    key: str
    line: str  # its id when last seen (`2026-11-29#14`)
    text: str  # its first characters, for people
    strikes: int = 0  # passes in a row its operations were refused
    why: str = ""  # "" while counted only; REFUSED or TOO_LONG once set aside
    reason: str = ""  # the last refusal, or the line's size against the room
    since: str = ""  # the pass that set it aside

    @property
    def ident(self) -> str:
        return f"{self.day}/{self.key}"

    @property
    def aside(self) -> bool:
        return bool(self.why)

    def advice(self) -> str:
        """What the person can do about it, in one sentence."""
        if self.why == TOO_LONG:
            return "shorten or split the line, or raise context_window / token_budget"
        return "edit the line, or run `gitgarden run --retry` to offer it again"


def _ident(line: JournalLine) -> str:
    return f"{line.day}/{line.key}"


def load(text: str | None) -> dict[str, Entry]:
    """The state from the file's text; unreadable text counts as empty (losing it only re-offers lines)."""
    if not text:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return {}
    rows = data.get("lines") if isinstance(data, dict) else None
    out: dict[str, Entry] = {}
    for row in rows if isinstance(rows, list) else []:
        try:
            entry = Entry(
                day=str(row["day"]),
                key=str(row["key"]),
                line=str(row.get("line", "")),
                text=str(row.get("text", "")),
                strikes=int(row.get("strikes", 0)),
                why=str(row.get("why", "")),
                reason=str(row.get("reason", "")),
                since=str(row.get("since", "")),
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        out[entry.ident] = entry
    return out


def render(state: Mapping[str, Entry]) -> str:
    """The state as stable JSON, one object a line, in journal order (small diffs)."""
    rows = sorted(state.values(), key=lambda e: (e.day, _lineno(e.line), e.key))
    body = ",\n".join("  " + json.dumps(asdict(e), ensure_ascii=False) for e in rows)
    return '{"lines": [\n' + body + "\n]}\n" if rows else '{"lines": []}\n'


def _lineno(line_id: str) -> int:
    tail = line_id.rpartition("#")[2]
    return int(tail) if tail.isascii() and tail.isdigit() else 0


def is_aside(state: Mapping[str, Entry], line: JournalLine, why: str = "") -> bool:
    """True when `line` (this exact content) is set aside (for `why`, when given)."""
    entry = state.get(_ident(line))
    return entry is not None and entry.aside and (not why or entry.why == why)


def listed(state: Mapping[str, Entry], unread: Iterable[JournalLine]) -> list[tuple[JournalLine, Entry]]:
    """The unread lines that are set aside, with their entries (a line edited since is not listed)."""
    return [(ln, state[_ident(ln)]) for ln in unread if is_aside(state, ln)]


def retry(state: Mapping[str, Entry]) -> dict[str, Entry]:
    """The state with the refused lines given another chance (their count starts again)."""
    return {k: e for k, e in state.items() if e.why != REFUSED}


def account(
    state: Mapping[str, Entry],
    *,
    unread: Iterable[JournalLine],
    offered: Iterable[JournalLine],
    refused: Mapping[str, str],
    long_lines: Mapping[str, str],
    pass_id: str,
) -> tuple[dict[str, Entry], list[Entry]]:
    """The state after a pass, and the entries it newly set aside.

    `refused` maps the id of each offered line that stays unread because its
    operations were refused to the last refusal; `long_lines` maps the id of
    each unread line too long for any prompt to its size. An offered line that
    was not refused breaks its run; entries of lines no longer unread (read,
    edited, gone) are dropped, and a too-long line that now fits is released.
    """
    unread = list(unread)
    present = {_ident(ln) for ln in unread}
    out = {k: e for k, e in state.items() if k in present and e.why != TOO_LONG}
    newly: list[Entry] = []
    for ln in unread:
        if ln.id in long_lines:
            old = state.get(_ident(ln))
            entry = Entry(ln.day, ln.key, ln.id, _shown(ln.text), 0, TOO_LONG, long_lines[ln.id], pass_id)
            if old is not None and old.why == TOO_LONG:
                entry = replace(old, line=ln.id, reason=long_lines[ln.id])
            else:
                newly.append(entry)
            out[entry.ident] = entry
    for ln in offered:
        ident = _ident(ln)
        if ln.id not in refused:
            out.pop(ident, None)  # the run is broken: the count starts again
            continue
        old = out.get(ident)
        strikes = (old.strikes if old is not None else 0) + 1
        entry = Entry(ln.day, ln.key, ln.id, _shown(ln.text), strikes, reason=_cap(refused[ln.id]))
        if strikes >= STRIKES:
            entry = replace(entry, why=REFUSED, since=pass_id)
            newly.append(entry)
        out[ident] = entry
    return out, newly


def _shown(text: str) -> str:
    return text if len(text) <= _TEXT_SHOWN else text[: _TEXT_SHOWN - 1] + "…"


def _cap(text: str) -> str:
    return text if len(text) <= _REASON_CAP else text[: _REASON_CAP - 1] + "…"


# -- lines no prompt can hold ----------------------------------------------------------------------


def line_room(settings: Settings, project_name: str) -> float:
    """The tokens a prompt always leaves the unread lines, whatever else it holds.

    Mirrors `context.build_messages`: the lines get at least MIN_LINES_SHARE of
    what the budget leaves after the system message, so a line whose row fits
    here is always offered once it comes first, and one that does not can never be.
    """
    from gitgarden.gardener import context

    limit = min(settings.context_window - settings.max_output_tokens, settings.token_budget)
    avail = limit * context.SAFETY - context.estimate_tokens(context.system_message(project_name)) - 60
    return max(0.0, context.MIN_LINES_SHARE * avail)


def row_tokens(line: JournalLine) -> int:
    """The most tokens a line's row can take in the prompt, its note of similar pages included."""
    from gitgarden.gardener import context

    note = "  (similar pages: " + ", ".join(["x" * 120] * context.MAX_SIMILAR_SHOWN) + ")"
    return context.estimate_tokens(f"[{line.id}] {line.text}{note}") + 1


def too_long(lines: Iterable[JournalLine], room: float) -> dict[str, str]:
    """The lines whose row cannot fit `room`, by id, each with its size in words for the record.

    With no room at all the settings leave no prompt (the pass fails saying so): no line is
    blamed for that."""
    out: dict[str, str] = {}
    if room <= 0:
        return out
    for ln in lines:
        cost = row_tokens(ln)
        if cost > room:
            out[ln.id] = (
                f"{len(ln.text):,} characters (about {cost:,} tokens); a prompt holds {math.floor(room):,} "
                "tokens of journal lines"
            )
    return out


def summary(entry: Entry) -> dict[str, Any]:
    """The entry as `status --json` and `health --json` show it."""
    return {**asdict(entry), "advice": entry.advice()}


def aside_on_disk(root: Path) -> list[tuple[JournalLine, Entry]]:
    """The unread lines set aside of the project at `root` (`on_disk`'s second half); the journal is
    read only when the set-aside file lists a line, so `status` reads it once (for the count)."""
    from gitgarden.project import file_text

    if not load(file_text(root, SET_ASIDE_PATH)):
        return []
    return on_disk(root)[1]


def on_disk(root: Path) -> tuple[list[JournalLine], list[tuple[JournalLine, Entry]]]:
    """(the unread lines a pass would offer, the unread lines set aside) of the project at `root`,
    from its files as they stand (what `status`, `health` and the scheduler show). Nothing
    is read through a symlink."""
    from gitgarden.project import file_text
    from gitgarden.wiki import journal, layout

    here = layout.current()
    read = journal.load_read(file_text(root, journal.READ_PATH))
    unread = journal.unread_lines(journal.all_lines(root / here.journal_dir), read, here.journal_from)
    state = load(file_text(root, SET_ASIDE_PATH))
    aside = listed(state, unread)
    held = {id(ln) for ln, _ in aside}
    return [ln for ln in unread if id(ln) not in held], aside
