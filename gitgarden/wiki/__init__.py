"""The wiki as data: pages and their frontmatter (`pages`), links as Obsidian reads them
(`linking`), names (`names`), the journal, the layout, health, tidy (links and the map), split,
trees and the facts cache. Data in, data out.

May import errors only (the facts cache keeps a file in the git dir, handed its path).
"""
