"""Linking in the pages a pass writes (`tidy.wrap_mentions`): the first unlinked mention of another
page's title or alias becomes a link, longest titles first, never twice and never in the page itself."""

from __future__ import annotations

from gitgarden.wiki import tidy
from gitgarden.wiki.tree import file, text_of


def wrapped(body: str, titles: dict[str, tuple[str, list[str]]], name: str = "notes") -> str:
    path = f"wiki/{name}.md"
    tree = {path: file(f"---\ntitle: Notes\nstate: open\n---\n{body}")}
    writes = tidy.wrap_mentions(tree, [path], titles)
    out = text_of(writes[path]) if path in writes else text_of(tree[path])
    assert out is not None
    return out.split("---\n", 2)[2]


def test_the_longest_title_wins_and_each_page_is_linked_once() -> None:
    titles = {"acme": ("Acme", []), "acme-corp": ("Acme Corp", []), "pricing": ("Pricing", ["price list"])}
    body = "Acme Corp asked about the price list. Acme Corp again, and Acme.\n"
    # "Acme" then takes its own first whole-word mention, the one left unlinked
    assert wrapped(body, titles) == "[[acme-corp|Acme Corp]] asked about the [[pricing|price list]]. [[acme|Acme]] Corp again, and Acme.\n"


def test_a_page_never_links_itself_nor_a_page_it_links_already() -> None:
    titles = {"notes": ("Notes", []), "pricing": ("Pricing", [])}
    body = "Notes on [[pricing]]; Pricing again.\n"
    assert wrapped(body, titles) == body


def test_a_title_whose_first_letters_occur_but_not_the_title_is_not_wrapped() -> None:
    titles = {"marta": ("Marta Okafor", []), "oven": ("Oven", [])}
    body = "Martin fixed the oven; the Oven is fine.\n"
    assert wrapped(body, titles) == "Martin fixed the oven; the [[oven|Oven]] is fine.\n"


def test_many_titles_on_many_pages_wrap_as_each_alone_would() -> None:
    titles = {f"p{i}": (f"Topic {i:04d}", []) for i in range(2000)}
    body = "Topic 0007 and Topic 1999 meet; Topic 12345 is none of them.\n"
    assert wrapped(body, titles) == "[[p7|Topic 0007]] and [[p1999|Topic 1999]] meet; Topic 12345 is none of them.\n"


def test_titles_that_start_or_end_in_punctuation_are_still_found() -> None:
    titles = {"acme": ("Acme", ["ACME Inc."]), "cpp": ("C++ tips", []), "q": ("(Draft) plan", [])}
    body = "Met ACME Inc. today; read C++ tips and the (Draft) plan.\n"
    assert wrapped(body, titles) == "Met [[acme|ACME Inc.]] today; read [[cpp|C++ tips]] and the [[q|(Draft) plan]].\n"
