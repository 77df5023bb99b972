"""search: the full-text index over the wiki's pages and the journal's lines (SQLite FTS5, an
embedded default that needs no server), kept in a cache file in the git dir and brought up to
date on each search. `gitgarden search`, the MCP server's `search` tool and the pass's end use it.

May import: project, config, repo, wiki, errors.
"""
