"""Pages: frontmatter is read, never re-emitted; bodies only grow; links resolve like Obsidian."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitgarden.wiki import linking
from gitgarden.wiki import pages as wiki


def test_patch_meta_changes_only_the_named_lines() -> None:
    text = "---\n# my comment\ntitle:   Acme   Corp\nstate: open\nsource:\n  - 2026-11-28\ntags: [b, a]\n---\n  indented first line\nbody\n"
    out = wiki.patch_meta(text, {"state": "hypothesis", "source": wiki.render_source(["2026-11-28", "2026-11-29"])})
    assert out == "---\n# my comment\ntitle:   Acme   Corp\nstate: hypothesis\nsource: [2026-11-28, 2026-11-29]\ntags: [b, a]\n---\n  indented first line\nbody\n"


def test_patch_and_append_keep_crlf() -> None:
    text = "---\r\ntitle: A\r\nstate: open\r\nsource: []\r\n---\r\nLine one.\r\n"
    out = wiki.append_body(wiki.patch_meta(text, {"source": "[2026-11-29]"}), "Line two.\n")
    assert out == "---\r\ntitle: A\r\nstate: open\r\nsource: [2026-11-29]\r\n---\r\nLine one.\r\n\r\nLine two.\r\n"


def test_append_keeps_a_body_without_final_newline() -> None:
    assert wiki.append_body("---\ntitle: A\n---\nno newline", "more") == "---\ntitle: A\n---\nno newline\n\nmore\n"


def test_malformed_frontmatter_is_an_error_not_a_crash() -> None:
    try:
        wiki.read_meta("---\ntitle: [unclosed\n---\nbody\n")
    except wiki.PageError as exc:
        assert "YAML" in str(exc)
    else:
        raise AssertionError("expected PageError")


def test_links_resolve_by_file_name_alias_and_skip_code() -> None:
    text = "See [[Acme Corp#History|the history]] and `[[not-a-link]]`.\n```\n[[nor-this]]\n```\n| [[dana\\|Dana]] |\n"
    links = linking.find_links(text)
    assert [(lk.target, lk.anchor, lk.shown) for lk in links] == [("Acme Corp", "History", "the history"), ("dana", "", "Dana")]
    index = linking.LinkIndex(["people/Acme Corp", "dana"], {"dana": ["Dana Reyes"]})
    assert index.resolve("acme corp") == "people/Acme Corp"
    assert index.resolve("Dana Reyes") == "dana"
    assert index.resolve("nobody") is None


def test_wrap_first_mention_skips_headings_code_links_and_frontmatter() -> None:
    text = "---\ntitle: Dana\n---\n# Dana\n`Dana` and [[x|Dana]] then Danae, then Dana again, and Dana.\n"
    out = linking.wrap_first_mention(text, "Dana", "dana")
    assert out == "---\ntitle: Dana\n---\n# Dana\n`Dana` and [[x|Dana]] then Danae, then [[dana|Dana]] again, and Dana.\n"


def test_map_entries_go_before_open_and_open_lines_are_kept() -> None:
    text = "# Map\n\nProse.\n\n## Open\n\n- Is the lease 3 or 5 years? ([[lease]])\n"
    out = wiki.add_map_entries(text, ["- [[acme]] — Acme"])
    assert out.index("[[acme]]") < out.index("## Open")
    assert wiki.open_lines(out) == ["- Is the lease 3 or 5 years? ([[lease]])"]


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=200), st.text(min_size=1, max_size=80))
def test_append_never_changes_existing_bytes(body: str, addition: str) -> None:
    text = "---\ntitle: T\nstate: open\nsource: []\n---\n" + body
    out = wiki.append_body(text, addition)
    assert out.startswith(text)


@given(st.lists(st.sampled_from(["2026-11-28", "2026-11-29", "2026-11-30"]), max_size=3))
def test_patched_source_round_trips(days: list[str]) -> None:
    text = "---\ntitle: T\nstate: open\nsource: [2026-11-01]\n---\nbody\n"
    out = wiki.patch_meta(text, {"source": wiki.render_source(["2026-11-01", *days])})
    assert sorted(wiki.source_days(wiki.read_meta(out))) == sorted({"2026-11-01", *days})
    assert out.endswith("---\nbody\n")


_title = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ,.'()&/+-:#", min_size=1, max_size=30)


@given(_title, st.sampled_from([*wiki.STATES, "closed", "Open"]), st.lists(st.dates(), max_size=3), st.booleans())
def test_the_fast_frontmatter_path_agrees_with_yaml(title: str, state: str, days: list, crlf: bool) -> None:  # type: ignore[type-arg]
    import frontmatter

    nl = "\r\n" if crlf else "\n"
    source = "[" + ", ".join(d.isoformat() for d in days) + "]"
    block = nl.join(["---", f"title: {title}", f"state: {state}", f"source: {source}", "---"]) + nl
    fast = wiki._fast_block(block)
    if fast is not None:
        assert fast == frontmatter.loads(block).metadata
    if state in wiki.STATES and wiki._plain_title(title):  # the shapes code writes: read without YAML
        assert fast is not None, block


@pytest.mark.parametrize("title", ["A", "Acme", "Acme Corp", "Dana's notes (2026)", "R&D/Ops 2.0"])
@pytest.mark.parametrize("gardener", [True, False])
def test_the_fast_frontmatter_path_reads_every_page_code_writes(title: str, gardener: bool) -> None:
    """The speed-up is real: a page `new_page` writes is read without YAML, with YAML's values."""
    import frontmatter

    for days in ([], ["2026-11-28"], ["2026-11-28", "2026-11-29"]):
        block, _ = wiki.split_frontmatter(wiki.new_page(title, "Body.\n", source=days, gardener=gardener))
        fast = wiki._fast_block(block)
        assert fast is not None, block
        assert fast == frontmatter.loads(block).metadata
