"""Obsidian's own Markdown, as markdown-it rules: callouts (`> [!tip] Title`, folded with `-` or
open with `+`), highlights (`==text==`), tags (`#tag`, `#nested/tag`), block ids (`^block-id` at
a paragraph's end, or on a line of its own after a list, table or callout: hidden, and the block
gets an id a link `[[page#^block-id]]` jumps to), and a few inline HTML tags Obsidian shows
(`<u>`, `<mark>`, `<sub>`, `<sup>`, `<kbd>`…) taken from an allow-list: any other tag, any
attribute, is shown as the text it is, so no note can run a script or restyle the app.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter
from markdown_it.token import Token

__all__ = ["install", "block_anchor", "CALLOUT_KINDS", "BLOCK_ID"]

# Inline tags a note may use, shown as HTML when written bare (`<u>`, never `<u onclick=…>`).
ALLOWED_TAGS = frozenset(
    {
        "u",
        "mark",
        "sub",
        "sup",
        "kbd",
        "s",
        "del",
        "ins",
        "small",
        "b",
        "i",
        "em",
        "strong",
        "abbr",
        "q",
        "cite",
        "var",
        "samp",
    }
)
VOID_TAGS = frozenset({"br", "wbr"})
_OPEN = re.compile(r"<([A-Za-z][A-Za-z0-9]*)\s*>")
_CLOSE = re.compile(r"</([A-Za-z][A-Za-z0-9]*)\s*>")
_VOID = re.compile(r"<([A-Za-z][A-Za-z0-9]*)\s*/?\s*>")
_COMMENT = re.compile(r"<!--.*-->", re.S)

# Callout kinds as Obsidian names them, each with the family that gives its colour and icon.
CALLOUT_KINDS = {
    "note": "note", "abstract": "abstract", "summary": "abstract", "tldr": "abstract", "info": "info", "todo": "todo",
    "tip": "tip", "hint": "tip", "important": "tip", "success": "success", "check": "success", "done": "success",
    "question": "question", "help": "question", "faq": "question", "warning": "warning", "caution": "warning",
    "attention": "warning", "failure": "failure", "fail": "failure", "missing": "failure", "danger": "danger",
    "error": "danger", "bug": "bug", "example": "example", "quote": "quote", "cite": "quote",
}  # fmt: skip
_CALLOUT = re.compile(r"^\[!([\w-]+)\]([+-]?)[ \t]*(.*)$")
# A block id: `^id` (letters, digits, dashes) ending a paragraph's last line, or alone on its line.
BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")
_LONE_ID = re.compile(r"^\^([A-Za-z0-9-]+)$")
# A tag: `#` after a space (or at the start), then letters, digits, `_`, `-`, `/`; not digits alone.
_TAG = re.compile(r"(?<!\S)#([\w/-]+)")
_TAG_WORD = re.compile(r"[^\W\d]|-")


def block_anchor(block_id: str) -> str:
    """The HTML id of a block id (`^Tip-1` -> `b-tip-1`), as links to it name it."""
    return "b-" + block_id.lstrip("^").lower()


def install(md: MarkdownIt) -> MarkdownIt:
    """Teach `md` Obsidian's Markdown (it must have `html` on: the allow-list decides what shows)."""
    md.disable(
        "html_block"
    )  # a block of HTML is a paragraph of text, its bare allowed tags alone HTML
    md.inline.ruler.before("strikethrough", "highlight", _highlight)
    md.inline.ruler2.before("strikethrough", "highlight", _highlight_pairs)
    md.core.ruler.after("block", "callouts", _callouts)
    md.core.ruler.after("callouts", "block_ids", _block_ids)
    md.core.ruler.push("tags", _tags)
    md.core.ruler.push("allowed_html", _allowed_html)
    md.add_render_rule("html_inline", _render_html)
    md.add_render_rule("hashtag", _render_tag)
    return md


# -- highlights: ==text== -----------------------------------------------------------------


def _highlight(state: StateInline, silent: bool) -> bool:
    """`==`, a delimiter a closing `==` pairs with (as `~~` is for strikethrough)."""
    if silent or state.src[state.pos] != "=":
        return False
    scanned = state.scanDelims(state.pos, True)
    length = scanned.length
    if length < 2:
        return False
    if length % 2:
        state.push("text", "", 0).content = "="
        length -= 1
    for _ in range(0, length, 2):
        state.push("text", "", 0).content = "=="
        state.delimiters.append(
            Delimiter(ord("="), 0, len(state.tokens) - 1, -1, scanned.can_open, scanned.can_close)
        )
    state.pos += scanned.length
    return True


def _highlight_pairs(state: StateInline) -> None:
    _pair(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair(state, meta["delimiters"])


def _pair(state: StateInline, delimiters: Sequence[Delimiter]) -> None:
    for start in delimiters:
        if start.marker != ord("=") or start.end == -1:
            continue
        opener, closer = state.tokens[start.token], state.tokens[delimiters[start.end].token]
        opener.type, opener.tag, opener.nesting, opener.markup, opener.content = (
            "mark_open",
            "mark",
            1,
            "==",
            "",
        )
        closer.type, closer.tag, closer.nesting, closer.markup, closer.content = (
            "mark_close",
            "mark",
            -1,
            "==",
            "",
        )


# -- callouts ------------------------------------------------------------------------------


def _closer(tokens: Sequence[Token], start: int) -> int:
    """The index of the token closing the one opened at `start`."""
    depth = 0
    for i in range(start, len(tokens)):
        depth += tokens[i].nesting
        if depth == 0:
            return i
    return len(tokens) - 1


def _callouts(state: StateCore) -> None:
    """A quote whose first line is `[!kind]` (then `+`/`-` and a title) becomes a callout: a box
    with its title, folded (`-`) or foldable and open (`+`) as a `<details>`."""
    tokens = state.tokens
    i = 0
    while i < len(tokens):
        token = tokens[i]
        first = tokens[i + 2] if i + 2 < len(tokens) else None
        if (
            token.type != "blockquote_open"
            or first is None
            or first.type != "inline"
            or tokens[i + 1].type != "paragraph_open"
        ):
            i += 1
            continue
        head, _, rest = first.content.partition("\n")
        m = _CALLOUT.match(head)
        if m is None:
            i += 1
            continue
        kind, fold, title = m.group(1).lower(), m.group(2), m.group(3).strip()
        end = _closer(tokens, i)
        box, label = ("details", "summary") if fold else ("div", "div")
        token.type, token.tag = "callout_open", box
        token.attrs = {
            "class": f"callout callout-{CALLOUT_KINDS.get(kind, 'note')}",
            "data-callout": kind,
        }
        if fold == "+":
            token.attrSet("open", "")
        tokens[end].type, tokens[end].tag = "callout_close", box
        heading = Token(
            "inline",
            "",
            0,
            content=title or kind.capitalize(),
            map=first.map,
            level=token.level + 2,
            children=[],
        )
        opened = [
            Token(
                "callout_title_open",
                label,
                1,
                attrs={"class": "callout-title"},
                level=token.level + 1,
                block=True,
            ),
            heading,
            Token("callout_title_close", label, -1, level=token.level + 1, block=True),
            Token(
                "callout_body_open",
                "div",
                1,
                attrs={"class": "callout-body"},
                level=token.level + 1,
                block=True,
            ),
        ]
        tokens.insert(
            end, Token("callout_body_close", "div", -1, level=token.level + 1, block=True)
        )
        if rest.strip():
            first.content = rest
        else:
            del tokens[i + 1 : i + 4]  # the first paragraph held the title line alone
        tokens[i + 1 : i + 1] = opened
        i += 1


# -- block ids -----------------------------------------------------------------------------


def _block_ids(state: StateCore) -> None:
    """Hide each block id and give its block the id a link jumps to: the paragraph (or list item)
    it ends, or — alone in a paragraph of its own — the block before it (a list, table, callout)."""
    tokens = state.tokens
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type != "inline" or i == 0 or tokens[i - 1].type != "paragraph_open":
            i += 1
            continue
        lone = _LONE_ID.match(token.content.strip())
        if lone is not None:
            before = _block_before(tokens, i - 1)
            if before is not None:
                tokens[before].attrSet("id", block_anchor(lone.group(1)))
                del tokens[i - 1 : i + 2]  # the id's own paragraph shows nothing
                continue
        m = BLOCK_ID.search(token.content)
        if m is not None and token.content[: m.start()].strip():
            token.content = token.content[: m.start()].rstrip()
            holder = i - 1
            if tokens[holder].hidden and holder > 0 and tokens[holder - 1].type == "list_item_open":
                holder -= 1  # a tight list's item: its paragraph has no tag of its own
            tokens[holder].attrSet("id", block_anchor(m.group(1)))
        i += 1


def _block_before(tokens: Sequence[Token], opener: int) -> int | None:
    """The index of the opening token of the block just before the one opened at `opener`, at the
    same depth; None when it is the first of its parent."""
    prev = opener - 1
    if prev < 0 or tokens[prev].nesting != -1:
        return None  # the first block in its container (or after a leaf such as a fence: not a box)
    depth = 0
    for j in range(prev, -1, -1):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return None


# -- tags ----------------------------------------------------------------------------------


def _tags(state: StateCore) -> None:
    """`#tag` in a paragraph, list, table or quote becomes a tag (never in a heading, code or a link)."""
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type != "inline" or not token.children or "#" not in token.content:
            continue
        if i > 0 and tokens[i - 1].type == "heading_open":
            continue
        token.children = _tagged(token.children)


def _tagged(children: list[Token]) -> list[Token]:
    out: list[Token] = []
    in_link = 0
    for child in children:
        if child.type == "link_open":
            in_link += 1
        elif child.type == "link_close":
            in_link -= 1
        if child.type != "text" or in_link or "#" not in child.content:
            out.append(child)
            continue
        text, pos = child.content, 0
        after_space = (
            not out
            or out[-1].type in ("softbreak", "hardbreak")
            or (out[-1].type == "text" and out[-1].content[-1:].isspace())
        )
        for m in _TAG.finditer(text):
            name = m.group(1).rstrip("/")
            if not _TAG_WORD.search(name) or (m.start() == 0 and not after_space):
                continue
            if m.start() > pos:
                out.append(_text(text[pos : m.start()]))
            out.append(Token("hashtag", "", 0, content=name, markup="#"))
            pos = m.start() + 1 + len(name)
        if pos < len(text):
            out.append(_text(text[pos:]))
    return out


def _text(content: str) -> Token:
    return Token("text", "", 0, content=content)


def _render_tag(_self: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: Any) -> str:
    name = escapeHtml(tokens[idx].content)
    return f'<span class="hashtag" title="tag #{name}">#{name}</span>'


# -- the HTML allow-list -------------------------------------------------------------------


def _allowed_html(state: StateCore) -> None:
    """Mark each inline HTML tag shown as HTML (`meta["safe"]`): a bare allowed tag, its closing
    tag when it closes the last one opened; tags left open are closed at the end of their block."""
    for token in state.tokens:
        if token.type != "inline" or not token.children:
            continue
        opened: list[str] = []
        for child in token.children:
            if child.type != "html_inline":
                continue
            text = child.content
            if _COMMENT.fullmatch(text):
                child.meta["safe"] = ""  # hidden, as Obsidian hides an HTML comment
            elif (m := _OPEN.fullmatch(text)) and m.group(1).lower() in ALLOWED_TAGS:
                opened.append(m.group(1).lower())
                child.meta["safe"] = f"<{opened[-1]}>"
            elif (m := _CLOSE.fullmatch(text)) and opened and opened[-1] == m.group(1).lower():
                child.meta["safe"] = f"</{opened.pop()}>"
            elif (m := _VOID.fullmatch(text)) and m.group(1).lower() in VOID_TAGS:
                child.meta["safe"] = f"<{m.group(1).lower()}>"
        for tag in reversed(opened):
            token.children.append(
                Token("html_inline", "", 0, content=f"</{tag}>", meta={"safe": f"</{tag}>"})
            )


def _render_html(_self: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: Any) -> str:
    """An allowed tag as the clean tag it names (never the note's own bytes); anything else as text."""
    token = tokens[idx]
    safe = token.meta.get("safe")
    return str(safe) if safe is not None else escapeHtml(token.content)
