"""Sharing a wiki through a git remote: fetch, push and the take-back of a refused push (`remote`),
the sync before a pass (`sync`), and merging two clones' versions of a file by what the file means
(`meaning`: day files and records by a union of lines, the map by its entries).

May import repo, wiki and errors.
"""
