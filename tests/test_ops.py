"""The wire format: validated before anything is applied; unknown things refused, never guessed."""

from __future__ import annotations

import json

import pytest

from gitgarden.model.operations import BadOutput, parse_reply, schema


def test_the_three_common_shapes_parse() -> None:
    ops = parse_reply(json.dumps({"operations": [
        {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme is the pilot customer.\n", "lines": ["2026-11-28#1"]},
        {"op": "append", "page": "acme", "text": "They want export.\n", "lines": ["2026-11-29#1"]},
        {"op": "skip", "lines": ["2026-11-28#2"]},
    ]}))
    assert [op.kind for op in ops] == ["create_page", "append", "skip"]
    assert ops[0].lines == ("2026-11-28#1",)


def test_a_fenced_json_reply_is_accepted() -> None:
    assert parse_reply('```json\n{"operations": []}\n```') == []


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        ("", "empty"),
        ("Sure! Here are the pages.", "not JSON"),
        ('{"ops": []}', "operations"),
        ('{"operations": [{"op": "delete_page", "page": "acme", "lines": []}]}', "unknown operation"),
        ('{"operations": [{"op": "append", "page": "acme", "text": "x", "lines": [], "mood": "happy"}]}', "unknown field"),
        ('{"operations": [{"op": "create_page", "page": "Acme Corp", "title": "A", "body": "b", "lines": []}]}', "does not match"),
        ('{"operations": [{"op": "append", "page": "acme", "lines": ["2026-11-29#1"]}]}', "lacks the field 'text'"),
        ('{"operations": [{"op": "skip", "lines": ["yesterday"]}]}', "does not match"),
        ('{"operations": [], "note": "hi"}', "unknown field"),
    ],
)
def test_bad_replies_are_refused_with_a_reason(reply: str, words: str) -> None:
    with pytest.raises(BadOutput, match=words):
        parse_reply(reply)


def test_huge_replies_are_refused() -> None:
    with pytest.raises(BadOutput, match="over the"):
        parse_reply('{"operations": []}' + " " * 300_000)


def test_schema_names_every_operation() -> None:
    names = {item["properties"]["op"]["const"] for item in schema()["properties"]["operations"]["items"]["oneOf"]}
    assert {"create_page", "append", "skip", "link", "set_state", "split", "open_question", "recover_line", "map"} <= names


def test_one_bad_operation_is_marked_and_the_others_stand() -> None:
    ops = parse_reply(json.dumps({"operations": [
        {"op": "delete_page", "page": "acme", "lines": []},
        {"op": "append", "page": "acme", "text": "x", "lines": ["2026-11-29#1"]},
    ]}))
    assert [op.kind for op in ops] == ["invalid", "append"]
    assert "unknown operation 'delete_page'" in ops[0].get("reason")
