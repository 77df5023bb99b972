"""What the wiki graph stores (`graph.WikiGraph`): its tables, and the rows a page's facts make.

The schema's version is part of the key a graph file is kept under: a change of what the
tables hold (a new column, a link read another way) makes the next run build the graph anew.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date
from typing import Any

from gitgarden.wiki import layout, linking, pages
from gitgarden.wiki.health import dup_keys
from gitgarden.wiki.linking import resolve_key

PAGE, FILE, DAY = 0, 1, 2  # a page; an attachment (any other file of the wiki); a daily note whose links count
VERSION = 6  # 6: a block id alone on its line is an anchor

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE files(
    id INTEGER PRIMARY KEY,
    path TEXT UNIQUE NOT NULL,
    kind INTEGER NOT NULL,
    ok INTEGER NOT NULL,          -- a page or day file that is UTF-8 text (else it is nobody's name)
    sig TEXT NOT NULL,            -- the file's stat signature when it was read ('' when not from disk)
    name TEXT,                    -- a page's name; an attachment's path under the wiki
    lname TEXT, lbase TEXT,       -- the name in lower case, and its last segment
    chars INTEGER NOT NULL DEFAULT 0,
    malformed INTEGER NOT NULL DEFAULT 0,
    gardener INTEGER NOT NULL DEFAULT 0,
    superseded INTEGER NOT NULL DEFAULT 0,
    stale_day TEXT,               -- the last source day of an open page not superseded, if a real day
    inlinks INTEGER NOT NULL DEFAULT 0,
    reach INTEGER NOT NULL DEFAULT 0,
    parent INTEGER                -- the page the map's reach came from
);
CREATE INDEX files_lname ON files(lname, name);
CREATE INDEX files_lbase ON files(lbase, name);
CREATE INDEX files_orphan ON files(kind, inlinks);
CREATE INDEX files_reach ON files(kind, reach);
CREATE INDEX files_parent ON files(parent);
CREATE INDEX files_pages ON files(name) WHERE kind = 0 AND ok = 1;
CREATE INDEX files_over ON files(chars) WHERE kind = 0 AND ok = 1;
CREATE INDEX files_flagged ON files(name) WHERE kind = 0 AND ok = 1 AND (malformed = 1 OR superseded = 1);
CREATE INDEX files_stale ON files(stale_day) WHERE stale_day IS NOT NULL;
CREATE TABLE links(
    id INTEGER PRIMARY KEY,
    src INTEGER NOT NULL,
    target TEXT NOT NULL,         -- as written: a wiki link's target, a Markdown link's decoded path
    md INTEGER NOT NULL DEFAULT 0,  -- a Markdown link (found by its path, never by an alias)
    key TEXT NOT NULL,            -- a wiki link: the name (or alias) it takes; Markdown: the first path it may name
    key2 TEXT NOT NULL DEFAULT '',  -- Markdown: the second path (from the wiki's top)
    bare TEXT NOT NULL DEFAULT '',  -- Markdown: a bare file name, found in any folder
    att TEXT NOT NULL,            -- what an attachment's name must be to take it
    att2 TEXT NOT NULL DEFAULT '',
    att3 TEXT NOT NULL DEFAULT '',
    dst INTEGER,                  -- the page it resolves to
    counted INTEGER NOT NULL DEFAULT 0,  -- it counts in dst's in-links (not a link of a page to itself)
    broken INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX links_src ON links(src);
CREATE INDEX links_dst ON links(dst);
CREATE INDEX links_key ON links(key);
CREATE INDEX links_key2 ON links(key2) WHERE md = 1;
CREATE INDEX links_bare ON links(bare) WHERE md = 1;
CREATE INDEX links_att ON links(att);
CREATE INDEX links_att2 ON links(att2) WHERE md = 1;
CREATE INDEX links_att3 ON links(att3) WHERE md = 1;
CREATE INDEX links_broken ON links(broken);
CREATE TABLE aliases(alias TEXT NOT NULL, page INTEGER NOT NULL);
CREATE INDEX aliases_alias ON aliases(alias);
CREATE INDEX aliases_page ON aliases(page);
CREATE TABLE labels(key TEXT NOT NULL, page INTEGER NOT NULL);
CREATE INDEX labels_key ON labels(key);
CREATE INDEX labels_page ON labels(page);
CREATE TABLE dupkeys(key TEXT PRIMARY KEY);
CREATE TABLE anchors(page INTEGER NOT NULL, key TEXT NOT NULL);  -- the headings and block ids a page offers
CREATE INDEX anchors_page ON anchors(page, key);
CREATE TABLE hlinks(                -- a page's wiki links that name a heading or block
    id INTEGER PRIMARY KEY,
    src INTEGER NOT NULL,
    target TEXT NOT NULL,
    anchor TEXT NOT NULL,           -- as written
    key TEXT NOT NULL,              -- the name it takes (resolve_key)
    akey TEXT NOT NULL,             -- the heading it names (anchor_key)
    dst INTEGER
);
CREATE INDEX hlinks_src ON hlinks(src);
CREATE INDEX hlinks_key ON hlinks(key);
"""


def kind_of(here: layout.Layout, path: str) -> int | None:
    """What `path` is to the graph: PAGE, FILE (an attachment), DAY (a daily note inside the wiki,
    whose links count as Obsidian counts them), or None (not the wiki's)."""
    if here.page_name(path) is not None:
        return PAGE
    if here.journal_in_wiki() and here.is_journal_file(path):
        return DAY
    if here.in_wiki(path) and not path.endswith("/"):
        return FILE
    return None


def layout_key(here: layout.Layout) -> str:
    """What a graph file was built for: the schema's version and the layout (another wiki folder,
    journal or map makes every row wrong)."""
    return json.dumps([VERSION, here.wiki_dir, here.journal_dir, here.map_page, list(here.identity)])


def page_labels(name: str, meta: Mapping[str, Any]) -> set[str]:
    """The duplicate-candidate keys of a page (its file name, title and aliases), as health buckets them."""
    keys: set[str] = set()
    for label in (name.rsplit("/", 1)[-1], str(meta.get("title") or ""), *pages.aliases_of(meta)):
        keys.update(dup_keys(label))
    return keys


def stale_day_of(meta: Mapping[str, Any]) -> str | None:
    """The last source day of an open page not superseded (None when it cannot go stale)."""
    if str(meta.get("state", "open")) != "open" or meta.get("superseded_by"):
        return None
    days = sorted(pages.source_days(meta))
    if not days:
        return None
    try:
        return date.fromisoformat(days[-1]).isoformat()
    except ValueError:
        return None


# SQL conditions on `links`: the link is a page's (a daily note's links count for in-links only);
# its target is an attachment (a broken link is one that names neither a page nor a file).
FROM_PAGE = "src IN (SELECT id FROM files WHERE kind = 0)"
AN_ATTACHMENT = (
    "EXISTS (SELECT 1 FROM files f WHERE f.kind = 1 AND (f.lname IN (links.att, links.att2, links.att3)"
    " OR f.lbase IN (links.att, links.att2, links.att3)))"
)

# A link as the graph keeps it: (target, md, key, key2, bare, att, att2, att3).
LinkRow = tuple[str, int, str, str, str, str, str, str]


def wiki_link(target: str) -> LinkRow:
    """A wiki link's target: the name it takes, and the attachment name that would take it."""
    return (target, 0, resolve_key(target), "", "", target.strip().lower(), "", "")


def md_link(path: str, folder: str) -> LinkRow:
    """A Markdown link's path, from a page in `folder`: the paths it may name (`md_candidates`),
    and, for a bare file name, that name (as `LinkIndex.resolve_md` and `attachment_md` read it)."""
    cands = linking.md_candidates(path, folder)
    first, second = (cands + ["", ""])[:2]
    name = path.strip("/").lower()
    bare = name if name and "/" not in name else ""
    return (path, 1, first.removesuffix(".md"), second.removesuffix(".md"), bare.removesuffix(".md"), first, second, bare)


def page_aliases(meta: Mapping[str, Any]) -> list[str]:
    """A page's aliases in lower case, once each (as links name them)."""
    return sorted({a.lower() for a in pages.aliases_of(meta)})
