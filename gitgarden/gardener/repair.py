"""The guard talks back: refused operations, and the follow-up that shows them to the model.

When operations are refused, the pass continues the same conversation with
one more user message: each refused operation as the model sent it, the lines
it cites, and every verdict against it (the rule, the offending sentence, and
whatever the verdict carries — a grounding score, the words not found in the
cited lines, the other offered lines that hold them, quoted). The model
answers with corrections or skips, which go through the same apply and guard.
Pure: builds text, calls nothing.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gitgarden.model.operations import INVALID, Op
from gitgarden.wiki.journal import JournalLine

__all__ = ["Refused", "request", "describe_verdict"]

_OP_ECHO_CHARS = 1500  # an operation is echoed up to this many characters
_LINE_CHARS = 300  # characters of each cited line shown
_STANDARD = ("rule", "name", "path", "line", "message")

_ASK = (
    "Some of your operations were refused, so nothing of them was written. The operations that "
    "were not listed below landed and stand: do not send them again.\n"
    "For each refused operation, answer with a corrected operation that says only what its cited "
    "journal lines say (their words, their numbers, their names), or with a skip of its lines. "
    "A sentence is judged only against the lines its own operation cites: where a verdict says "
    "that missing words are in another offered line, add that line's id to the operation's "
    '"lines" if the sentence really comes from it too, or leave those words out.\n'
    'Reply with exactly one JSON object and nothing else, of the form {"operations": [...]}, '
    "holding only the corrections and skips."
)


@dataclass
class Refused:
    """One operation a round refused, with every verdict against it (guard verdicts or plain reasons)."""

    op: Op
    verdicts: list[Any] = field(default_factory=list)

    def reasons(self) -> list[str]:
        """The verdicts as sentences, each once (a body that repeats a sentence repeats its verdict)."""
        return list(dict.fromkeys(str(v) for v in self.verdicts))

    def cited(self, offered: Mapping[str, JournalLine]) -> list[str]:
        """The ids this operation cites that were offered in the pass."""
        return [i for i in dict.fromkeys(self.op.lines) if i in offered]


def describe_verdict(verdict: Any) -> list[str]:
    """A verdict as lines for the model: the rule and its message, the offending text, then any
    further detail the verdict object carries (so new verdict fields reach the model unchanged)."""
    rule = getattr(verdict, "rule", None)
    if rule is None:
        return [str(verdict)]
    name = getattr(verdict, "name", "")
    out = [f"rule {rule} ({name}): {getattr(verdict, 'message', '')}".rstrip(": ")]
    line = getattr(verdict, "line", "")
    if line:
        out.append(f"offending text: {json.dumps(str(line), ensure_ascii=False)}")
    if dataclasses.is_dataclass(verdict):
        for f in dataclasses.fields(verdict):
            value = getattr(verdict, f.name)
            if f.name not in _STANDARD and value not in (None, "", (), []):
                shown = _shown(value)
                out.append(f"{f.name.replace('_', ' ')}: {shown}")
    return out


def _holding_ids(verdicts: Sequence[Any]) -> list[str]:
    """The line ids rule-11 verdicts name as holding missing words, in order, each once."""
    ids: list[str] = []
    for v in verdicts:
        for line_id, _words in getattr(v, "lines_holding", ()) or ():
            if line_id not in ids:
                ids.append(line_id)
    return ids


def _shown(value: Any) -> str:
    """A verdict field for the model: a list as "a, b"; pairs ((id, words), …) as "id: a, b; id2: c"."""
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[1], list | tuple) for v in value):
            return "; ".join(f"{k}: {', '.join(map(str, words))}" for k, words in value)
        return ", ".join(map(str, value))
    return str(value)


def _echo(op: Op) -> str:
    if op.kind == INVALID:
        return f"operations[{op.index}] ({op.get('op')}), which did not match the schema"
    data = {"op": op.kind, "lines": list(op.lines), **dict(op.fields)}
    text = json.dumps(data, ensure_ascii=False)
    return text if len(text) <= _OP_ECHO_CHARS else text[: _OP_ECHO_CHARS - 1] + "…"


def request(refused: Sequence[Refused], offered: Mapping[str, JournalLine]) -> str:
    """The follow-up message: what to do, then each refused operation with its cited lines and verdicts."""
    parts = [_ASK]
    for n, item in enumerate(refused, start=1):
        block = [f"Refused operation {n}: {_echo(item.op)}"]
        cited = item.cited(offered)
        if cited:
            block.append("  cited lines:")
            for line_id in cited:
                text = offered[line_id].text
                text = text if len(text) <= _LINE_CHARS else text[: _LINE_CHARS - 1] + "…"
                block.append(f"    [{line_id}] {text}")
        holding = [i for i in _holding_ids(item.verdicts) if i in offered and i not in cited]
        if holding:
            block.append("  other offered lines that hold words it lacks (not cited, so they ground nothing yet):")
            for line_id in holding:
                text = offered[line_id].text
                text = text if len(text) <= _LINE_CHARS else text[: _LINE_CHARS - 1] + "…"
                block.append(f"    [{line_id}] {text}")
        block.append("  why:")
        seen: set[str] = set()
        for verdict in item.verdicts:
            lines = describe_verdict(verdict)
            key = "\n".join(lines)
            if key in seen:
                continue
            seen.add(key)
            block.append(f"  - {lines[0]}")
            block.extend(f"    {more}" for more in lines[1:])
        parts.append("\n".join(block))
    return "\n\n".join(parts)
