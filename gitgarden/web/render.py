"""Pages as HTML: Markdown (markdown-it) with Obsidian's own (`obsidian`: callouts, highlights,
tags, block ids, an allow-list of inline HTML — a note's `<script>` is text) and links resolved as
Obsidian resolves them, through gitgarden's own resolver (`wiki.linking.LinkIndex`): `[[page]]`,
`[[page|shown]]`, `[[page#Heading]]`, `[[page#^block-id]]`, embeds of notes (`![[note#Heading]]`,
the note's text in a box, one level deep) and of attachments (`![[diagram.png|400]]`), and
Markdown links to notes and attachments. A page's blocks come out one by one, so each paragraph a
pass wrote can carry its provenance beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from gitgarden.history.provenance import Source, paragraphs
from gitgarden.web.obsidian import BLOCK_ID, block_anchor, install
from gitgarden.wiki import linking

__all__ = ["Links", "Block", "render_blocks", "render_line", "anchor_id", "page_url", "file_url"]

_IMAGE = re.compile(r"\.(png|jpe?g|gif|webp|svg|bmp|avif)$", re.I)
_AUDIO = re.compile(r"\.(mp3|ogg|wav|m4a|flac|webm)$", re.I)
_VIDEO = re.compile(r"\.(mp4|mov|ogv)$", re.I)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
# An embed's size, `|400` or `|400x300`, in ASCII digits only (`int` would take `٤٠٠`, and `²` not at all).
_SIZE = re.compile(r"([0-9]{1,5})(?:x([0-9]{1,5}))?")
_ALT_SIZE = re.compile(r"\|([0-9]{1,5})(?:x([0-9]{1,5}))?$")


def anchor_id(anchor: str) -> str:
    """The HTML id a link's anchor jumps to: a heading's (`[[page#Heading]]`, case and punctuation
    ignored) or a block's (`[[page#^block-id]]`)."""
    if anchor.strip().startswith("^"):
        return block_anchor(anchor.strip())
    words = re.sub(r"[^\w\s-]", "", anchor.lower(), flags=re.U).split()
    return "h-" + "-".join(words)


def page_url(name: str, anchor: str = "") -> str:
    """The address of a page in the app."""
    return "/page/" + quote(name) + (f"#{anchor_id(anchor)}" if anchor else "")


def file_url(rel: str) -> str:
    """The address of an attachment (project-relative path) in the app."""
    return "/file/" + quote(rel)


@dataclass
class Links:
    """How the links of one page resolve: the wiki's `LinkIndex`, the page's folder (for relative
    Markdown links), and where the wiki's files live (`wiki_prefix`, to name an attachment)."""

    index: linking.LinkIndex | None  # None: every target is taken for a page name (the page route resolves it)
    folder: str = ""
    wiki_prefix: str = ""
    broken: list[str] = field(default_factory=list)
    # The body of a page by name (None: not readable), for `![[note]]`; None: embeds show as links.
    read: Callable[[str], str | None] | None = None

    def inside(self, name: str) -> Links:
        """How the links of page `name`, embedded in this one, resolve: from its own folder, its
        own embeds shown as links (one level deep: no loop), its broken links not this page's."""
        return Links(self.index, folder=linking.folder_of(name), wiki_prefix=self.wiki_prefix)

    def page(self, target: str) -> str | None:
        """The page a wikilink target names."""
        return target if self.index is None else self.index.resolve(target)

    def attachment(self, target: str) -> str | None:
        """The project-relative path of the attachment a target names."""
        found = None if self.index is None else self.index.attachment(target)
        return None if found is None else self.wiki_prefix + found

    def markdown_target(self, href: str) -> str | None:
        """Where a Markdown link's address goes in the app: a note or attachment of the wiki, resolved
        by gitgarden's resolver as Obsidian resolves it (relative to the page, then from the wiki's
        top, then a bare file name anywhere), an outside address as it is; None when it names nothing."""
        if _SCHEME.match(href):
            return href if href.lower().startswith(("http:", "https:", "mailto:")) else None
        if href.startswith("#"):
            return "#" + anchor_id(unquote(href[1:]))
        dest = linking.md_destination(href)
        if dest is not None:
            path, anchor, _raw, _angle = dest
            if self.index is None:
                return page_url(path.removesuffix(".md"), anchor)
            name = self.index.resolve_md(path, self.folder)
            if name is not None:
                return page_url(name, anchor)
            found = self.index.attachment_md(path, self.folder)
            if found is not None:
                return file_url(self.wiki_prefix + found)
        self.broken.append(href)
        return None


def _wikilink_rule(state: StateInline, silent: bool) -> bool:
    """`[[target#anchor|shown]]` and `![[embed|size]]` as one token each (`\\|` inside tables counts as `|`)."""
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    if not embed and not src.startswith("[[", pos):
        return False
    start = pos + (3 if embed else 2)
    end = src.find("]]", start)
    if end < 0 or "\n" in src[start:end] or "[" in src[start:end]:
        return False
    inner = src[start:end].replace("\\|", "|")
    target, _, shown = inner.partition("|")
    target, _, anchor = target.partition("#")
    if not target.strip() and not anchor.strip():
        return False
    if not silent:
        token = state.push("wikilink", "", 0)
        token.meta = {"target": target.strip(), "anchor": anchor.strip(), "shown": shown.strip(), "embed": embed}
    state.pos = end + 2
    return True


def _render_wikilink(links: Links) -> Callable[..., str]:
    def render(_self: Any, tokens: Sequence[Token], idx: int, _options: Any, _env: Any) -> str:
        meta = tokens[idx].meta
        target, anchor, shown, embed = meta["target"], meta["anchor"], meta["shown"], meta["embed"]
        label = shown or (f"{target} › {anchor}" if target and anchor else target or anchor)  # as Obsidian shows it
        if not target:  # [[#Heading]]: a heading of this page
            return f'<a class="wl" href="#{escapeHtml(anchor_id(anchor))}">{escapeHtml(label)}</a>'
        name = links.page(target)
        if name is not None:
            if embed and links.read is not None:
                return _embedded_note(links, name, anchor, label)
            title = escapeHtml(name)
            return f'<a class="wl" href="{escapeHtml(page_url(name, anchor))}" title="{title}">{escapeHtml(label)}</a>'
        found = links.attachment(target)
        if found is not None:
            return _attachment(found, target, shown, embed)
        links.broken.append(target)
        return f'<span class="wl broken" title="no page or file is named {escapeHtml(target)}">{escapeHtml(label)}</span>'

    return render


def _attachment(found: str, target: str, shown: str, embed: bool) -> str:
    """An attachment a wikilink names: an embedded image at its size (`|400`, `|400x300`; other
    words are its alt text), audio or video with controls, else a link to the file."""
    url = escapeHtml(file_url(found))
    if embed and _IMAGE.search(found):
        size = _SIZE.fullmatch(shown)
        alt = escapeHtml(target if size or not shown else shown)
        dims = (f' width="{int(size.group(1))}"' + (f' height="{int(size.group(2))}"' if size.group(2) else "")) if size else ""
        return f'<img class="embed" src="{url}" alt="{alt}"{dims}>'
    if embed and _AUDIO.search(found):
        return f'<audio class="embed" controls preload="none" src="{url}"></audio>'
    if embed and _VIDEO.search(found):
        return f'<video class="embed" controls preload="none" src="{url}"></video>'
    return f'<a class="wl file" href="{url}">{escapeHtml(shown or target)}</a>'


def _embedded_note(links: Links, name: str, anchor: str, label: str) -> str:
    """`![[note]]`, `![[note#Heading]]`, `![[note#^block]]`: the note's text (or that part of it)
    rendered in a box, with a link to the note; its own embeds show as links."""
    body = links.read(name) if links.read is not None else None
    part = None if body is None else section(body, anchor)
    url = escapeHtml(page_url(name, anchor))
    head = f'<div class="embed-title"><a class="wl" href="{url}" title="{escapeHtml(name)}">{escapeHtml(label)}</a></div>'
    if part is None:
        missing = f"no part {anchor!r} in this note" if body is not None else "this note cannot be read"
        return f'<div class="embed-note missing">{head}<p class="muted">{escapeHtml(missing)}</p></div>'
    inner = links.inside(name)
    html = str(_markdown(inner).render(part)).replace(' id="', ' data-id="')  # this page's own ids stay unique
    return f'<div class="embed-note" data-note="{escapeHtml(name)}">{head}<div class="embed-body">{html}</div></div>'


def _embed_kind(links: Links, token: Token) -> str:
    """What an inline token is to `unwrap_embeds`: an embedded note, blank, or other."""
    if token.type == "wikilink":
        meta = token.meta
        return "note" if meta["embed"] and links.read is not None and meta["target"] and links.page(meta["target"]) else "other"
    return "space" if token.type == "softbreak" or (token.type == "text" and not token.content.strip()) else "other"


_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def section(body: str, anchor: str) -> str | None:
    """The part of a note's body an embed's anchor names: all of it (no anchor), a heading's section
    (the heading and what follows it up to the next heading as high), or a block (`^id`: its
    paragraph or list item, or the block above an id alone on its line); None when there is none."""
    if not anchor.strip():
        return body
    lines = body.replace("\r\n", "\n").split("\n")
    fence = False
    want = linking.anchor_key(anchor)
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if fence:
            continue
        if want.startswith("^"):
            m = BLOCK_ID.search(line)
            if m is not None and "^" + m.group(1).lower() == want:
                return _block_at(lines, i)
        elif (h := _HEADING.match(line)) and linking.heading_key(h.group(2)) == want:
            level = len(h.group(1))
            end = next((j for j in range(i + 1, len(lines)) if (n := _HEADING.match(lines[j])) and len(n.group(1)) <= level), len(lines))
            return "\n".join(lines[i:end])
    return None


def _block_at(lines: list[str], i: int) -> str:
    """The block holding a block id found on line `i`."""
    if _ITEM.match(lines[i]):
        return lines[i]
    if not lines[i].strip().startswith("^"):  # the id ends a paragraph: that paragraph
        start = i
        while start > 0 and lines[start - 1].strip():
            start -= 1
        return "\n".join(lines[start : i + 1])
    end = i - 1
    while end >= 0 and not lines[end].strip():
        end -= 1
    start = end
    while start > 0 and lines[start - 1].strip():
        start -= 1
    return "\n".join(lines[start : end + 1] + ["", lines[i]])


def _markdown(links: Links) -> MarkdownIt:
    # `html` on for the inline tags of obsidian's allow-list alone: every other tag is escaped there.
    md = install(MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]))
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.add_render_rule("wikilink", _render_wikilink(links))

    def unwrap_embeds(state: StateCore) -> None:
        """A paragraph of note embeds alone is no paragraph: each embed is a box of its own."""
        tokens = state.tokens
        for i, token in enumerate(tokens):
            if token.type != "inline" or i == 0 or tokens[i - 1].type != "paragraph_open" or not token.children:
                continue
            kinds = {_embed_kind(links, child) for child in token.children}
            if "note" in kinds and kinds <= {"note", "space"}:
                tokens[i - 1].hidden = tokens[i + 1].hidden = True

    md.core.ruler.push("unwrap_embeds", unwrap_embeds)

    def link_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        href = str(token.attrGet("href") or "")
        target = links.markdown_target(href)
        if target is None:
            token.attrSet("href", "#")
            token.attrSet("class", "broken")
            token.attrSet("title", f"{href} names no page or file here")
        else:
            token.attrSet("href", target)
            if _SCHEME.match(target):
                token.attrSet("rel", "noopener noreferrer")
        return str(self.renderToken(tokens, idx, options, env))

    def image(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        found = None if _SCHEME.match(src) else links.markdown_target(src)
        token.attrSet("src", found if found and found.startswith("/file/") else "")  # no image from outside: offline, private
        size = _ALT_SIZE.search(token.content)
        if size is not None and token.children and token.children[-1].type == "text":  # `![alt|400](…)`, as Obsidian sizes it
            token.attrSet("width", str(int(size.group(1))))
            if size.group(2):
                token.attrSet("height", str(int(size.group(2))))
            last = token.children[-1]
            last.content = last.content.removesuffix(size.group(0))
        return str(self.image(tokens, idx, options, env))

    def table_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        return '<div class="table-wrap">' + str(self.renderToken(tokens, idx, options, env))  # a wide table scrolls in its box

    def table_close(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        return str(self.renderToken(tokens, idx, options, env)) + "</div>\n"

    def heading_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        inline = tokens[idx + 1]
        tokens[idx].attrSet("id", anchor_id(inline.content))
        return str(self.renderToken(tokens, idx, options, env))

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("image", image)
    md.add_render_rule("heading_open", heading_open)
    md.add_render_rule("table_open", table_open)
    md.add_render_rule("table_close", table_close)
    return md


@dataclass
class Block:
    """One top-level block of a page (a paragraph, a list, a heading, a table…) as HTML, with the
    passes' paragraphs it holds (empty: the person's words, or older than provenance)."""

    html: str
    sources: list[Source] = field(default_factory=list)


def render_blocks(body: str, links: Links, sources: Sequence[Source] = ()) -> list[Block]:
    """The page body as HTML blocks in order, each with the sources of the paragraphs it holds."""
    md = _markdown(links)
    env: dict[str, Any] = {}
    tokens = md.parse(body, env)
    lines = body.replace("\r\n", "\n").split("\n")
    by_text = {s.text: s for s in sources}
    blocks: list[Block] = []
    start = 0
    depth = 0
    for i, token in enumerate(tokens):
        depth += token.nesting
        if depth != 0:
            continue
        group = tokens[start : i + 1]
        start = i + 1
        html = md.renderer.render(group, md.options, env)
        first = group[0].map
        found: list[Source] = []
        if first is not None:
            text = "\n".join(lines[first[0] : first[1]])
            for para in paragraphs(text):
                source = by_text.get(para)
                if source is not None and source not in found:
                    found.append(source)
            flat = " ".join(text.split())
            if not found and flat:  # a block that is part of a pass's paragraph (a heading right above its text)
                found = [s for s in sources if flat in s.text][:1]
        blocks.append(Block(html, found))
    return blocks


def render_line(text: str, links: Links) -> str:
    """One line (an Open question, a map entry) as inline HTML, its links resolved."""
    return str(_markdown(links).renderInline(text.lstrip("-* ").strip()))
