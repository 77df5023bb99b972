"""The guard at git's doors: the commit hooks (`hook`: an agent's commit judged from the staged
index), what such a commit stages (`staged`) and the pushed-range check behind `guard --range` and
`--pre-receive` (`pushed`). The rules themselves are the guard's (`guard.rules`); this part reads
the index and git objects to hand them two trees.

May import guard, project, config, store, repo, wiki and errors.
"""
