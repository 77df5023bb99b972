"""The line merge undo uses: a change on one side only is taken whole; adjacent changes do not collide."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gitgarden.repo.textmerge import Overlap, merge

LINES = st.lists(st.sampled_from([b"a\n", b"b\n", b"c\n", b"\n", b"- [[x]]\n", b"d"]), max_size=8).map(b"".join)


@given(LINES, LINES)
def test_a_change_on_one_side_only_is_taken_whole(base: bytes, other: bytes) -> None:
    assert merge(base, base, other) == other
    assert merge(base, other, base) == other


def test_taking_out_an_entry_keeps_the_one_added_right_after_it() -> None:
    # undo of an older pass: it added "A"; a later pass added "B" on the next line.
    assert merge(b"map\nA\n", b"map\nA\nB\n", b"map\n") == b"map\nB\n"


def test_a_line_both_sides_changed_is_an_overlap_in_ours_lines() -> None:
    assert merge(b"x\nA\ny\n", b"x\nA, edited\ny\n", b"x\ny\n") == [Overlap(2, 2)]
    assert Overlap(2, 4).describe() == "lines 2-4"


def test_two_insertions_at_one_place_are_an_overlap() -> None:
    assert isinstance(merge(b"", b"mine\n", b"theirs\n"), list)
    assert merge(b"", b"mine\n", b"theirs\n") == [Overlap(1, 1)]  # which goes first is not ours to guess
    assert merge(b"map\n", b"map\nA\nB\n", b"map\nC\n") == [Overlap(2, 3)]  # named in ours' lines


def test_in_a_list_two_insertions_at_one_place_both_stand_ours_first() -> None:
    # The map: two passes each added an entry at the end of the list.
    base = b"## Pages\n\n- [[pricing]]\n\n## Open\n"
    ours = b"## Pages\n\n- [[pricing]]\n- [[dana]]\n\n## Open\n"
    theirs = b"## Pages\n\n- [[pricing]]\n- [[acme]]\n\n## Open\n"
    assert isinstance(merge(base, ours, theirs), list)
    assert merge(base, ours, theirs, union=True) == b"## Pages\n\n- [[pricing]]\n- [[dana]]\n- [[acme]]\n\n## Open\n"
    # A line both sides changed still collides in a list.
    assert isinstance(merge(b"x\nA\n", b"x\nA1\n", b"x\nA2\n", union=True), list)
