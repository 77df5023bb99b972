"""A person's search words as an FTS5 query: phrases, prefixes and the operators kept, every
word quoted so that no punctuation of theirs is read as FTS5 syntax.

FTS5 has a query language of its own (`"phrases"`, `word*`, `AND`/`OR`/`NOT`,
`NEAR(…)`, `column:`), and text that breaks it (`c++`, `a:b`, a lone `OR`) is
an error, not a search. So a query is read the way people type into a search
box: words, `"a phrase"`, `acme*` (words starting so), and `AND`, `OR`, `NOT`
in capitals between words. Every word and phrase goes to FTS5 quoted; when
FTS5 still refuses the operators' order, `plain` gives the same words with the
operators taken as words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Term", "parse", "to_fts", "plain", "OPERATORS"]

OPERATORS = frozenset({"AND", "OR", "NOT"})
_TOKEN = re.compile(r'"([^"]*)"?(\*?)|(\S+)')


@dataclass(frozen=True)
class Term:
    """One piece of a query: a word or phrase (`prefix`: any word starting so), or an operator."""

    text: str
    prefix: bool = False
    operator: bool = False


def parse(query: str) -> list[Term]:
    """The terms of `query` in order. An unclosed quote runs to the end of the query."""
    terms: list[Term] = []
    for m in _TOKEN.finditer(query):
        phrase, star, word = m.group(1), m.group(2), m.group(3)
        if word is None:
            if phrase.strip():
                terms.append(Term(" ".join(phrase.split()), prefix=bool(star)))
            continue
        if word in OPERATORS:
            terms.append(Term(word, operator=True))
            continue
        prefix = word.endswith("*")
        word = word.rstrip("*")
        if word:
            terms.append(Term(word, prefix=prefix))
    return terms


def _quoted(term: Term) -> str:
    return '"' + term.text.replace('"', '""') + '"' + ("*" if term.prefix else "")


def to_fts(terms: list[Term]) -> str:
    """The FTS5 query for `terms` as typed (operators kept); '' when there is nothing to find."""
    return " ".join(t.text if t.operator else _quoted(t) for t in terms)


def plain(terms: list[Term]) -> str:
    """The FTS5 query for `terms` with the operators taken as words: always valid syntax."""
    return " ".join(_quoted(Term(t.text) if t.operator else t) for t in terms)
