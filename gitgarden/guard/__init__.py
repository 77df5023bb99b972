"""The guard (docs/guard.md): the rules over two trees (`rules.check`, one function per rule), the change
they read (`diff`), the text matching they share (`text`) and grounding (rule 11). Pure: two
trees in, verdicts out; the hooks and the pushed-range check that feed it from git are `gitguard`.

May import wiki and errors.
"""
