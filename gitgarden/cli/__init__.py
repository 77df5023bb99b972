"""The command line: click commands that parse, call a library function and render (rich; `--json`
where scripts read it), and the terminal's live progress line. `main` is the entry point.

May import every other part; nothing imports it. Commands import `cli.app` (the shared `App`,
messages, JSON), and `cli.main` imports the commands (a module only when one of its commands is
named): the imports run one way.
"""
