"""The guard (DESIGN §5): the rules over two trees (`rules.check`, one function per rule), the change
they read (`diff`), the text matching they share (`text`), grounding (rule 11), the commit hooks
(`hook`) and the pushed-range check (`pushed`).

Pure but for the hook and the pushed ranges, which read the index and git objects. May import
project, config, repo, wiki and errors.
"""
