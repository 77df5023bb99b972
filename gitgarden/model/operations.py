"""The operations a model returns: their schema and their validation.

The wire format is one JSON object `{"operations": [...]}` (docs/architecture.md, "What the model returns"). Every
field is checked here before anything is applied; unknown operations and
unknown fields are refused with a message, never guessed at. How code applies
them is the gardener's (`gardener.operations`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gitgarden.wiki import pages

__all__ = [
    "OPERATIONS",
    "schema",
    "BadOutput",
    "Op",
    "parse_reply",
    "MAX_REPLY_CHARS",
]

MAX_REPLY_CHARS = 200_000

_LINES = {"type": "array", "items": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}#\d+$"}}
_PAGE = {"type": "string", "minLength": 1, "maxLength": 120}
_TEXT = {"type": "string", "minLength": 1, "maxLength": 20_000}


def _op(name: str, props: dict[str, Any], required: list[str], doc: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": doc,
        "properties": {"op": {"const": name}, "lines": _LINES, **props},
        "required": ["op", "lines", *required],
        "additionalProperties": False,
    }


OPERATIONS: dict[str, dict[str, Any]] = {
    "create_page": _op(
        "create_page",
        {"page": {**_PAGE, "pattern": r"^[a-z0-9]+(-[a-z0-9]+)*$"}, "title": _PAGE, "body": _TEXT},
        ["page", "title", "body"],
        "A new page named after its thing (a slug); starts `state: open`; `source:` is written by code from `lines`.",
    ),
    "append": _op(
        "append",
        {"page": _PAGE, "text": _TEXT},
        ["page", "text"],
        "Text appended to the end of an existing page's body.",
    ),
    "link": _op(
        "link",
        {"page": _PAGE, "phrase": _PAGE, "target": _PAGE},
        ["page", "phrase", "target"],
        "Wrap the first unlinked mention of `phrase` in `page` as [[target|phrase]].",
    ),
    "set_state": _op(
        "set_state",
        {"page": _PAGE, "state": {"enum": list(pages.STATES)}, "evidence": _TEXT},
        ["page", "state", "evidence"],
        "Move a page's state forward (open → hypothesis → decided → done); `evidence` quotes a journal or conversation line word for word.",
    ),
    "split": _op(
        "split",
        {
            "page": _PAGE,
            "parts": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "properties": {
                        "page": {**_PAGE, "pattern": r"^[a-z0-9]+(-[a-z0-9]+)*$"},
                        "title": _PAGE,
                        "headings": {"type": "array", "items": _PAGE, "minItems": 1},
                    },
                    "required": ["page", "title", "headings"],
                    "additionalProperties": False,
                },
            },
        },
        ["page", "parts"],
        "Move the named `##` sections of an over-budget page, word for word, into new pages the original links to.",
    ),
    "open_question": _op(
        "open_question",
        {"text": _TEXT, "pages": {"type": "array", "items": _PAGE, "minItems": 1, "maxItems": 4}},
        ["text", "pages"],
        "One line in the map's Open section naming the pages involved and the question; nothing is settled.",
    ),
    "recover_line": _op(
        "recover_line",
        {"text": _TEXT, "evidence": _TEXT},
        ["text", "evidence"],
        "Append `[recovered] text` to today's journal; `evidence` quotes the conversation word for word.",
    ),
    "map": _op(
        "map",
        {
            "entries": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"page": _PAGE, "summary": {"type": "string", "maxLength": 200}},
                    "required": ["page", "summary"],
                    "additionalProperties": False,
                },
            },
            "moves": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"text": _TEXT, "to": _PAGE},
                    "required": ["text", "to"],
                    "additionalProperties": False,
                },
            },
        },
        [],
        "Map entries to add, and map prose to move word for word to the page it belongs to.",
    ),
    "promote_to_hub": _op(
        "promote_to_hub",
        {
            "page": {**_PAGE, "pattern": r"^[a-z0-9]+(-[a-z0-9]+)*$"},
            "title": _PAGE,
            "children": {"type": "array", "items": _PAGE, "minItems": 2, "maxItems": 100},
        },
        ["page", "title", "children"],
        "A hub: a new page (or an existing hub) gathering related existing pages; code writes its list of links and moves their map entries into it.",
    ),
    "supersede": _op(
        "supersede",
        {"page": _PAGE, "by": _PAGE},
        ["page", "by"],
        "A later line makes `page` out of date: it gets `superseded_by` and a first line pointing to `by` (a decided page gets an Open line instead); its text stays.",
    ),
    "merge": _op(
        "merge",
        {"from": _PAGE, "into": _PAGE},
        ["from", "into"],
        "Two pages health names as duplicate candidates: the body of `from` moves word for word under a heading in `into`; `from` keeps its name and one line linking to `into`.",
    ),
    "skip": _op(
        "skip",
        {"reason": {"type": "string", "maxLength": 200}},
        [],
        "Lines left as they are: chatter, logistics, one-off details. Most lines. `reason`: a few words why (the person sees it).",
    ),
}


def schema() -> dict[str, Any]:
    """The JSON Schema of a model reply."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "gitgarden operations",
        "type": "object",
        "properties": {"operations": {"type": "array", "items": {"oneOf": list(OPERATIONS.values())}}},
        "required": ["operations"],
        "additionalProperties": False,
    }


INVALID = "invalid"  # the kind of an operation that failed validation: refused when applied


class BadOutput(ValueError):
    """The model's reply is not a valid set of operations."""


@dataclass(frozen=True)
class Op:
    """One validated operation: its kind, its fields, the line ids it cites, its position."""

    kind: str
    fields: Mapping[str, Any]
    lines: tuple[str, ...]
    index: int

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def describe(self) -> str:
        if self.kind == INVALID:
            return f"operations[{self.index}] ({self.fields.get('op')})"
        target = self.fields.get("page") or self.fields.get("text", "")[:40]
        return f"{self.kind} {target}".strip()


def _check(value: Any, sch: Mapping[str, Any], where: str) -> None:
    if "const" in sch and value != sch["const"]:
        raise BadOutput(f"{where} must be {sch['const']!r}")
    if "enum" in sch and value not in sch["enum"]:
        raise BadOutput(f"{where} must be one of {', '.join(map(str, sch['enum']))}")
    kind = sch.get("type")
    if kind == "string":
        if not isinstance(value, str):
            raise BadOutput(f"{where} must be a string")
        if len(value) < sch.get("minLength", 0) or len(value) > sch.get("maxLength", 10**9):
            raise BadOutput(f"{where} has a length outside {sch.get('minLength', 0)}–{sch.get('maxLength')}")
        if "pattern" in sch and not re.match(sch["pattern"], value):
            raise BadOutput(f"{where} {value!r} does not match {sch['pattern']}")
    elif kind == "array":
        if not isinstance(value, list):
            raise BadOutput(f"{where} must be a list")
        if len(value) < sch.get("minItems", 0) or len(value) > sch.get("maxItems", 10**9):
            raise BadOutput(f"{where} has a number of items outside the allowed range")
        for i, item in enumerate(value):
            _check(item, sch["items"], f"{where}[{i}]")
    elif kind == "object":
        if not isinstance(value, dict):
            raise BadOutput(f"{where} must be an object")
        props = sch.get("properties", {})
        unknown = sorted(set(value) - set(props))
        if unknown and sch.get("additionalProperties") is False:
            raise BadOutput(f"{where} has unknown field(s): {', '.join(unknown)}")
        for name in sch.get("required", []):
            if name not in value:
                raise BadOutput(f"{where} lacks the field {name!r}")
        for name, item in value.items():
            if name in props:
                _check(item, props[name], f"{where}.{name}")


def _extract_json(text: str) -> Any:
    stripped = text.strip()
    fence = re.match(r"^```(?:json)?\s*\n(.*)\n```\s*$", stripped, re.S)
    if fence:
        stripped = fence.group(1)
    try:
        return json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise BadOutput(f"the reply is not JSON ({exc.msg} at character {exc.pos})") from None
    except RecursionError:
        # Thousands of nested brackets fit under the size cap; Python's parser gives up on them.
        raise BadOutput("the reply nests lists or objects too deeply to read") from None


def parse_reply(text: str) -> list[Op]:
    """Validated operations from a model reply; BadOutput naming the first problem."""
    if not text or not text.strip():
        raise BadOutput("the reply is empty")
    if len(text) > MAX_REPLY_CHARS:
        raise BadOutput(f"the reply is {len(text):,} characters, over the {MAX_REPLY_CHARS:,} accepted")
    data = _extract_json(text)
    if not isinstance(data, dict) or "operations" not in data:
        raise BadOutput('the reply is not an object with an "operations" list')
    extra = sorted(set(data) - {"operations"})
    if extra:
        raise BadOutput(f"the reply has unknown field(s): {', '.join(extra)}")
    if not isinstance(data["operations"], list):
        raise BadOutput('"operations" must be a list')
    ops: list[Op] = []
    for i, raw in enumerate(data["operations"]):
        where = f"operations[{i}]"
        try:
            if not isinstance(raw, dict) or not isinstance(raw.get("op"), str):
                raise BadOutput(f'{where} has no "op"')
            sch = OPERATIONS.get(raw["op"])
            if sch is None:
                raise BadOutput(f"{where}: unknown operation {raw['op']!r} (known: {', '.join(OPERATIONS)})")
            _check(raw, sch, where)
        except BadOutput as exc:
            # One bad operation is refused on its own; the others of the reply still stand.
            name = raw.get("op") if isinstance(raw, dict) and isinstance(raw.get("op"), str) else "?"
            ops.append(Op(INVALID, {"reason": str(exc), "op": name}, (), i))
            continue
        fields_ = {k: v for k, v in raw.items() if k not in ("op", "lines")}
        ops.append(Op(raw["op"], fields_, tuple(raw["lines"]), i))
    invalid = [op for op in ops if op.kind == INVALID]
    if invalid and len(invalid) == len(ops):
        raise BadOutput(invalid[0].get("reason"))
    return ops
