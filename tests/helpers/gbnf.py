"""A small recogniser for llama.cpp's GBNF grammars, enough for what `json_schema_to_gbnf` writes.

llama-cpp-python hands the grammar to llama.cpp's C sampler, which needs a
loaded model to run; the tests need to ask "would the grammar let a model
write this text?" without one. The subset read here is what the JSON-schema
converter emits: `name ::= alternatives` one rule a line, quoted literals,
character classes (ranges, `^` negation, escapes), rule references, groups and
the `?`, `*`, `+` operators. Matching is by sets of end positions (no
backtracking blow-up); repetitions iterate instead of recursing, so long
strings cost no stack.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Grammar", "GrammarError"]


class GrammarError(ValueError):
    """The grammar text uses something this recogniser does not read."""


# Nodes: ("lit", str) | ("cls", negated, ((lo, hi), ...)) | ("ref", name) | ("seq", (nodes)) |
# ("alt", (nodes)) | ("opt" | "star" | "plus", node)
Node = tuple

_NAME = re.compile(r"[a-zA-Z0-9_-]+")
_ESCAPES = {
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "\\": "\\",
    '"': '"',
    "[": "[",
    "]": "]",
    "-": "-",
    "^": "^",
    "/": "/",
}


@dataclass
class _Reader:
    text: str
    pos: int = 0

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def char(self) -> str:
        """One character of a literal or class, escapes decoded."""
        c = self.text[self.pos]
        self.pos += 1
        if c != "\\":
            return c
        e = self.text[self.pos]
        self.pos += 1
        for prefix, width in (("x", 2), ("u", 4), ("U", 8)):
            if e == prefix:
                code = self.text[self.pos : self.pos + width]
                self.pos += width
                return chr(int(code, 16))
        if e not in _ESCAPES:
            raise GrammarError(f"unknown escape \\{e}")
        return _ESCAPES[e]


def _alternatives(r: _Reader) -> Node:
    options = [_sequence(r)]
    while r.peek() == "|":
        r.pos += 1
        options.append(_sequence(r))
    return options[0] if len(options) == 1 else ("alt", tuple(options))


def _sequence(r: _Reader) -> Node:
    items: list[Node] = []
    while True:
        r.skip_space()
        c = r.peek()
        if c in ("", "|", ")"):
            break
        item = _atom(r)
        c = r.peek()
        if c in "?*+" and c:
            r.pos += 1
            item = ({"?": "opt", "*": "star", "+": "plus"}[c], item)
        items.append(item)
    r.skip_space()
    return items[0] if len(items) == 1 else ("seq", tuple(items))


def _atom(r: _Reader) -> Node:
    c = r.peek()
    if c == '"':
        r.pos += 1
        out = []
        while r.peek() != '"':
            if not r.peek():
                raise GrammarError("unterminated literal")
            out.append(r.char())
        r.pos += 1
        return ("lit", "".join(out))
    if c == "[":
        r.pos += 1
        negated = r.peek() == "^"
        if negated:
            r.pos += 1
        ranges = []
        while r.peek() != "]":
            if not r.peek():
                raise GrammarError("unterminated character class")
            lo = r.char()
            hi = lo
            if r.peek() == "-" and r.text[r.pos + 1 : r.pos + 2] != "]":
                r.pos += 1
                hi = r.char()
            ranges.append((lo, hi))
        r.pos += 1
        return ("cls", negated, tuple(ranges))
    if c == "(":
        r.pos += 1
        inner = _alternatives(r)
        if r.peek() != ")":
            raise GrammarError(f"expected ) at {r.pos}")
        r.pos += 1
        return inner
    m = _NAME.match(r.text, r.pos)
    if not m:
        raise GrammarError(f"unexpected {c!r} at {r.pos}")
    r.pos = m.end()
    return ("ref", m.group(0))


@dataclass
class Grammar:
    """A parsed GBNF grammar; `accepts(text)` says whether `root` derives exactly `text`."""

    rules: dict[str, Node]
    _memo: dict[tuple[str, int], frozenset[int]] = field(default_factory=dict, repr=False)
    _text: str = ""

    @classmethod
    def parse(cls, source: str) -> Grammar:
        """Read one `name ::= body` rule a line (the converter's output)."""
        rules: dict[str, Node] = {}
        for line in source.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, sep, body = line.partition("::=")
            if not sep:
                raise GrammarError(f"not a rule: {line!r}")
            r = _Reader(body)
            r.skip_space()
            node = _alternatives(r)
            if r.pos != len(body):
                raise GrammarError(f"trailing text in rule {name.strip()}: {body[r.pos :]!r}")
            rules[name.strip()] = node
        missing = {n for node in rules.values() for n in _refs(node)} - rules.keys()
        if missing or "root" not in rules:
            raise GrammarError(f"undefined rules: {sorted(missing | ({'root'} - rules.keys()))}")
        return cls(rules)

    def accepts(self, text: str) -> bool:
        """True when the grammar's `root` derives exactly `text`."""
        self._memo, self._text = {}, text
        return len(text) in self._match(("ref", "root"), 0)

    def _match(self, node: Node, pos: int) -> frozenset[int]:
        kind = node[0]
        text = self._text
        if kind == "lit":
            return frozenset([pos + len(node[1])]) if text.startswith(node[1], pos) else frozenset()
        if kind == "cls":
            if pos >= len(text):
                return frozenset()
            c = text[pos]
            inside = any(lo <= c <= hi for lo, hi in node[2])
            return frozenset([pos + 1]) if inside != node[1] else frozenset()
        if kind == "ref":
            key = (node[1], pos)
            if key not in self._memo:
                self._memo[key] = (
                    frozenset()
                )  # no left recursion in converter output; this only stops a loop
                self._memo[key] = self._match(self.rules[node[1]], pos)
            return self._memo[key]
        if kind == "seq":
            ends = frozenset([pos])
            for item in node[1]:
                ends = frozenset().union(*(self._match(item, p) for p in ends))
                if not ends:
                    break
            return ends
        if kind == "alt":
            return frozenset().union(*(self._match(option, pos) for option in node[1]))
        if kind == "opt":
            return frozenset([pos]) | self._match(node[1], pos)
        if kind in ("star", "plus"):
            first = self._match(node[1], pos)
            seen = set(first) | ({pos} if kind == "star" else set())
            frontier = set(first)
            while frontier:
                nxt = set().union(*(self._match(node[1], p) for p in frontier)) - seen
                seen |= nxt
                frontier = nxt
            return frozenset(seen)
        raise GrammarError(f"unknown node {kind}")


def _refs(node: Node) -> list[str]:
    kind = node[0]
    if kind == "ref":
        return [node[1]]
    if kind in ("seq", "alt"):
        return [n for child in node[1] for n in _refs(child)]
    if kind in ("opt", "star", "plus"):
        return _refs(node[1])
    return []
