"""The JSON examples in gitgarden's prompts fit the grammar llama.cpp enforces on the reply.

llama-cpp-python's server turns `response_format: {"type": "json_object",
"schema": …}` into a GBNF grammar (`llama_cpp.llama_grammar.json_schema_to_gbnf`):
at most one space between tokens, no newline, and each object's fields in one
fixed order (required ones as declared, then optional ones). A prompt whose
example breaks any of that teaches the model a reply it cannot write — with the
example spread over lines, 4 of 5 replies of a real instruct model closed the
list at once. Here the grammar is built exactly as the server builds it, from
what gitgarden sends, and every example in the prompts is run through it.
"""

from __future__ import annotations

import json
import re

import pytest

from gitgarden.config import Settings
from gitgarden.gardener import context
from gitgarden.model import endpoints, llm
from gitgarden.model import operations as ops
from gitgarden.project import Project
from tests.helpers.gbnf import Grammar
from tests.helpers.project import FIXED_NOW, FakeModel, write

LOCAL = Settings(model="openai/local", api_base="http://127.0.0.1:8080/v1")


def _sent_schema() -> dict:
    """The schema gitgarden sends a llama.cpp-style server, as that server receives it."""
    fmt = endpoints.response_format(LOCAL, ops.schema())
    assert fmt is not None and fmt["type"] == "json_object", fmt
    return json.loads(json.dumps(fmt["schema"]))


@pytest.fixture(scope="module")
def grammar() -> Grammar:
    gbnf = pytest.importorskip("llama_cpp.llama_grammar", reason="llama-cpp-python not installed (the realmodel extra)")
    # The server falls back to plain JSON when this raises: the schema must convert.
    return Grammar.parse(gbnf.json_schema_to_gbnf(json.dumps(_sent_schema())))


def examples(text: str) -> list[str]:
    """Every JSON reply shown in `text`: each `{"operations"` to the end of the object it opens."""
    decoder = json.JSONDecoder()
    out = []
    for m in re.finditer(r'\{\s*"operations"', text):
        _, end = decoder.raw_decode(text, m.start())  # a malformed example fails here
        out.append(text[m.start() : end])
    return out


def prompt_texts() -> dict[str, str]:
    system = context.system_message("demo")
    bad = llm.Reply(text="not json", usage=llm.Usage(), finish_reason="stop")
    repair = llm._repair_messages([{"role": "system", "content": system}], bad, "the reply is not JSON")[-1]["content"]
    return {"system message": system, "repair request": repair}


def test_the_prompts_show_examples() -> None:
    found = {name: examples(text) for name, text in prompt_texts().items()}
    assert len(found["system message"]) == 1 and len(found["repair request"]) == 1, found
    [main] = found["system message"]
    assert [op["op"] for op in json.loads(main)["operations"]] == ["create_page", "append", "skip"]


@pytest.mark.parametrize("where", ["system message", "repair request"])
def test_every_example_in_the_prompts_is_one_line_the_grammar_accepts(grammar: Grammar, where: str) -> None:
    found = examples(prompt_texts()[where])
    assert found, f"the {where} shows no example"
    for example in found:
        assert "\n" not in example and "  " not in example, example  # the grammar's space rule: ` `?
        assert grammar.accepts(example), example
        assert ops.parse_reply(example)  # and gitgarden's own check takes it too


def test_examples_list_fields_in_the_order_the_grammar_fixes() -> None:
    """Structural twin of the grammar check (runs without llama-cpp-python): keys in required-then-optional order."""
    wire = _sent_schema()["properties"]["operations"]["items"]["oneOf"]
    order = {}
    for sch in wire:
        props = list(sch["properties"])
        required = sch.get("required", [])
        order[sch["properties"]["op"]["const"]] = [p for p in props if p in required] + [p for p in props if p not in required]
    for where, text in prompt_texts().items():
        assert examples(text), f"the {where} shows no example"
        for example in examples(text):
            for op in json.loads(example)["operations"]:
                fixed = [k for k in order[op["op"]] if k in op]
                assert list(op) == fixed, (op["op"], list(op), fixed)
    # The field lists of the other operations are shown in that order too.
    system = prompt_texts()["system message"]
    assert "- set_state [lines, page, state (open|hypothesis|decided|done), evidence]" in system
    assert "- map [lines, entries* [{page, summary}], moves* [{text, to}]]" in system


def test_the_recogniser_refuses_what_the_grammar_forbids(grammar: Grammar) -> None:
    """The check can fail: each way the old example broke the grammar is refused."""
    good = '{"operations": [{"op": "skip", "lines": ["2026-11-29#1"]}]}'
    assert grammar.accepts(good)
    assert grammar.accepts('{"operations": []}')
    assert grammar.accepts('{ "operations" : [ { "op" : "skip", "lines" : [ "2026-11-29#1" ] } ] } ')
    forbidden = [
        '{"operations": [\n  {"op": "skip", "lines": ["2026-11-29#1"]}\n]}',  # a newline after "["
        '{"operations":  [{"op": "skip", "lines": ["2026-11-29#1"]}]}',  # two spaces
        '{"operations": [{"op": "append", "page": "a", "text": "b", "lines": ["2026-11-29#1"]}]}',  # lines last
        '{"operations": [{"op": "create_page", "lines": ["2026-11-29#1"], "page": "<page-name>", "title": "T", "body": "b"}]}',
        '{"operations": [{"op": "skip", "lines": ["<day>#<n>"]}]}',  # not a line id
        '{"operations": [{"op": "skip", "lines": ["2026-11-29#1"], "why": "x"}]}',  # an unknown field
        '{"operations": [{"op": "skip", "lines": ["2026-11-29#1"]}]}\n',  # a trailing newline
        '{"operations": [{"op": "skip" , "lines": ["2026-11-29#1"]}]}',  # no space may follow a fixed value
    ]
    for text in forbidden:
        assert not grammar.accepts(text), text
    old = (
        '{"operations": [\n'
        '  {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme is the pilot customer.\\n", "lines": ["2026-11-28#1"]},\n'
        '  {"op": "skip", "lines": ["2026-11-28#2"]}\n'
        "]}"
    )
    assert not grammar.accepts(old)
    assert not grammar.accepts(" ".join(part.strip() for part in old.splitlines()))  # one line, keys still out of order


# -- examples the model copies ------------------------------------------------------


def test_every_value_in_the_examples_is_a_placeholder() -> None:
    """Nothing in an example reads like a fact or a real line: a copy cites nothing and says nothing."""
    for where, text in prompt_texts().items():
        assert examples(text), f"the {where} shows no example"
        for example in examples(text):
            for op in json.loads(example)["operations"]:
                assert all(i.startswith("0000-00-00#") for i in op["lines"]), op
                for key in ("title", "body", "text"):
                    if key in op:
                        assert re.fullmatch(r"<[^<>]+>(\\n|\n)?", op[key]), op[key]
                if "page" in op:
                    assert op["page"] == "new-page-name" or op["page"].startswith("<"), op["page"]
    system = prompt_texts()["system message"]
    assert "acme" not in system.lower() and "pilot customer" not in system


def test_a_model_that_copies_the_example_lands_nothing(project: Project, fake_model: FakeModel) -> None:
    """The guard is the backstop: the example copied whole, or with real line ids, writes no page."""
    from gitgarden.gardener.pipeline import run_pass

    write(project.root, "raw/journal/2026-11-29.md", "Kessler Mill delivers flour on Tuesdays\nlunch was good\n")
    [example] = examples(context.system_message("demo"))
    fake_model.enqueue(example).enqueue({"operations": []})  # and nothing in the repair round
    result = run_pass(project, Settings(model="fake/scripted"), model=fake_model, now=lambda: FIXED_NOW)
    assert result.created == [] and result.appended == [], result
    assert any("not offered" in r for r in result.refusals), result.refusals

    real_ids = example.replace("0000-00-00#1", "2026-11-29#1").replace("0000-00-00#2", "2026-11-29#1")
    real_ids = real_ids.replace("0000-00-00#3", "2026-11-29#2").replace(', "0000-00-00#4"', "")
    write(project.root, "wiki/suppliers.md", "---\ntitle: Suppliers\nstate: open\n---\nWho delivers what.\n")
    fake_model.enqueue(real_ids.replace("<name of a listed page>", "suppliers")).enqueue({"operations": []})
    again = run_pass(project, Settings(model="fake/scripted"), model=fake_model, now=lambda: FIXED_NOW)
    assert again.created == [] and again.appended == [], again.refusals
    assert not (project.root / "wiki/new-page-name.md").exists()
    assert "<" not in (project.root / "wiki/suppliers.md").read_text()
    assert any("rule 11 (grounded)" in r for r in again.refusals), again.refusals
