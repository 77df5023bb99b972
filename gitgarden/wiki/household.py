"""The writer's household as AGENTS.md names it: "Jonny and I", "our daughter Isla", "our two, Isla (9)
and Jack (7)". Their one-word names title no page and are never a thing decided (`homes.Planner.owns`).
Pure.
"""

from __future__ import annotations

import re

__all__ = ["household"]

# "my husband Dev", "our daughter Isla", "Jonny and I"
_HOUSEHOLD = re.compile(
    r"\b(?:(?:[Mm]y|[Oo]ur)\s+(?:husband|wife|partner|son|daughter|boy|girl|fianc[ée]e?|boyfriend|girlfriend)\s+([A-Z][^\W\d_]+)|([A-Z][^\W\d_]+)\s+and\s+I\b)"
)
# "our two, Isla (9) and Jack (7)", "my kids Tom, Ellie and Sam"
_HOUSEHOLD_LIST = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+(?:(?:two|three|four)\s+)?(?:kids|children|sons|daughters|boys|girls|twins|two|three|four)\b,?\s+"
    r"((?:[A-Z][^\W\d_]+(?:\s*\(\d+\))?(?:,\s*|\s+and\s+)?){1,5})"
)


def household(premises: str) -> set[str]:
    """The one-word names `premises` (AGENTS.md) gives the writer's household by."""
    listed = {w for m in _HOUSEHOLD_LIST.finditer(premises) for w in re.findall(r"[A-Z][^\W\d_]+", m.group(1))}
    return ({a or b for a, b in _HOUSEHOLD.findall(premises)} | listed) - {"I"}
