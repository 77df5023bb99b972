"""How a page's state may move (open -> hypothesis -> decided -> done): one decision, shared by
rules 4, 7 and 10 of the guard (`guard.rules`, `guard.pagerules`), so a move is judged by exactly
one of them.
"""

from __future__ import annotations

from typing import Any

from gitgarden.guard.diff import PassContext
from gitgarden.wiki import pages

__all__ = ["KNOWN_STATES", "state_move", "state_rank"]


KNOWN_STATES = ", ".join(pages.STATES)


def state_rank(state: Any) -> int | None:
    """A state's place in open -> hypothesis -> decided -> done; None when unknown."""
    return pages.STATES.index(state) if isinstance(state, str) and state in pages.STATES else None


def state_move(
    path: str, before: Any, after: Any, ctx: PassContext | None
) -> tuple[int, str] | None:
    """(rule, why) when a page's state may not move from `before` to `after`, else None.

    One decision shared by rules 4, 7 and 10, so a move is judged by exactly one of them.
    """
    if before == "decided":
        return 10, "a decided page's state never changes; a contradiction becomes an Open line"
    if after is None:
        return 4, "the page's state was removed"
    if before is not None and state_rank(before) is None:
        return 4, f"state '{before}' is not a known state, so it cannot move"
    if state_rank(after) is None:
        return 7, f"state must be one of {KNOWN_STATES}"
    if before is not None and (state_rank(after) or 0) < (state_rank(before) or 0):
        return 4, f"state moved backward from {before}; it only moves forward"
    if ctx is not None and not (before is None and after == "open"):
        # Giving a page its first state, `open`, claims nothing; every other move does.
        quote = ctx.state_evidence.get(path, "").strip()
        if not quote:
            return 4, "a state change needs evidence quoted from the journal or the conversation"
        if not any(quote in source for source in (ctx.conversation, *ctx.journal_lines)):
            return 4, "the quoted evidence is not in the journal or the conversation word for word"
    return None
