"""The guard (DESIGN §5): the rules over two trees (`rules.check`, one function per rule), the change
they read (`diff`), the text matching they share (`text`), grounding (rule 11) and the pre-commit hook.

Pure but for the hook, which reads the index. May import project, config, repo, wiki and errors.
"""
