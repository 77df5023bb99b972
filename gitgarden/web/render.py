"""Pages as HTML: Markdown (markdown-it, raw HTML off: a note's `<script>` is text) with links
resolved as Obsidian resolves them, through gitgarden's own resolver (`wiki.linking.LinkIndex`):
`[[page]]`, `[[page|shown]]`, `[[page#Heading]]`, `![[diagram.png|400]]`, and Markdown links to
notes and attachments. A page's blocks come out one by one, so each paragraph a pass wrote can
carry its provenance beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token

from gitgarden.history.provenance import Source, paragraphs
from gitgarden.wiki import linking

__all__ = ["Links", "Block", "render_blocks", "render_line", "anchor_id", "page_url", "file_url"]

_IMAGE = re.compile(r"\.(png|jpe?g|gif|webp|svg|bmp|avif)$", re.I)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def anchor_id(heading: str) -> str:
    """The HTML id of a heading, as `[[page#Heading]]` links to it (case and punctuation ignored)."""
    words = re.sub(r"[^\w\s-]", "", heading.lower(), flags=re.U).split()
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
            title = escapeHtml(name)
            return f'<a class="wl" href="{escapeHtml(page_url(name, anchor))}" title="{title}">{escapeHtml(label)}</a>'
        found = links.attachment(target)
        if found is not None:
            url = escapeHtml(file_url(found))
            if embed and _IMAGE.search(found):
                width = f' width="{int(shown)}"' if shown.isascii() and shown.isdigit() else ""  # isdigit alone takes ²
                return f'<img class="embed" src="{url}" alt="{escapeHtml(target)}"{width}>'
            return f'<a class="wl file" href="{url}">{escapeHtml(shown or target)}</a>'
        links.broken.append(target)
        return f'<span class="wl broken" title="no page or file is named {escapeHtml(target)}">{escapeHtml(label)}</span>'

    return render


def _markdown(links: Links) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.inline.ruler.before("link", "wikilink", _wikilink_rule)
    md.add_render_rule("wikilink", _render_wikilink(links))

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
        return str(self.image(tokens, idx, options, env))

    def heading_open(self: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        inline = tokens[idx + 1]
        tokens[idx].attrSet("id", anchor_id(inline.content))
        return str(self.renderToken(tokens, idx, options, env))

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("image", image)
    md.add_render_rule("heading_open", heading_open)
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
