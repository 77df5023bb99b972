"""Review item by item, as `gitgarden review accept PASS --only …` and the web app's review page do
it: the items of a waiting pass (`history.review_items`), and taking some of them — a commit of
the items taken, judged by the guard against the pass's parent as a pass's change is, then brought
in where `review accept PASS` would bring the whole pass.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gitgarden.guard.rules import check
from gitgarden.history import review
from gitgarden.history.review_items import Items, build_partial, land, review_items
from gitgarden.repo import gitrepo
from gitgarden.wiki.tree import Entry, Overlay

__all__ = ["ItemsResult", "items_of", "accept_items", "parse_numbers"]


@dataclass
class ItemsResult:
    """What taking some items did: the commit brought in, the items taken and left out, the lines
    unread again, and the passes still waiting."""

    pass_id: str
    kind: str  # "items" (a commit of the items taken), or how a whole pass came in when every item was taken
    commit: str
    taken: list[int]
    rejected: list[int]
    unread: list[str] = field(default_factory=list)
    followed: list[int] = field(default_factory=list)  # map entries left out with their page
    waiting: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def items_of(root: Path, pass_ref: str) -> Items:
    """The items of a waiting pass, numbered as `review show PASS` lists them."""
    return review_items(root, pass_ref)


def parse_numbers(given: list[str] | tuple[str, ...], count: int) -> set[int]:
    """Item numbers as a person writes them (`1 3`, `1,3`, `2-4`); ReviewRefused naming one that is not an item."""
    out: set[int] = set()
    for word in (w for raw in given for w in raw.replace(",", " ").split()):
        lo, dash, hi = word.partition("-")
        try:
            first, last = int(lo), int(hi) if dash else int(lo)
        except ValueError:
            raise review.ReviewRefused(f"{word!r} is not an item number (the items are 1–{count}, as `gitgarden review show PASS` lists them)") from None
        if not 1 <= first <= last <= count:
            raise review.ReviewRefused(f"there is no item {word} (the items are 1–{count}); nothing changed")
        out.update(range(first, last + 1))
    return out


def accept_items(root: Path, pass_ref: str, taken: set[int], *, keep_read: bool = False) -> ItemsResult:
    """Bring in the items `taken` of the waiting pass `pass_ref` as one commit and drop the rest;
    the lines only the items left out cite come back unread unless `keep_read`. ReviewRefused,
    nothing changed, when no item is taken, when the guard refuses what is taken, or as
    `review accept PASS` refuses."""
    found = review_items(root, pass_ref)
    numbers = {i.number for i in found.items}
    if not taken:
        raise review.ReviewRefused(f"no item of pass {found.pass_id} taken: that is a reject (gitgarden review reject {found.pass_id}); nothing changed")
    if taken >= numbers:  # every item: the pass itself comes in, as `review accept PASS`
        whole = review.accept_one(root, found.pass_id)
        return ItemsResult(found.pass_id, whole.kind, whole.commit, sorted(numbers), [], waiting=whole.waiting)
    partial = build_partial(root, found, taken, keep_read=keep_read)
    base = gitrepo.tree_at(root, found.parent)
    proposed = Overlay(base, {p: Entry("file", data) for p, data in partial.changes.items()})
    verdicts = check(base, proposed, None)
    if verdicts:
        raise review.ReviewRefused(
            f"the guard refuses items {', '.join(map(str, partial.taken))} of pass {found.pass_id} on their own: "
            + "; ".join(map(str, verdicts[:3])) + ". Nothing changed: take the items they need too"
        )
    landed = land(root, found.pass_id, partial)
    return ItemsResult(found.pass_id, "items", landed.commit, partial.taken, partial.rejected, partial.unread, partial.followed, landed.waiting)
