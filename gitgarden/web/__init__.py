"""`gitgarden serve`: the garden in a browser — passes, pages traced to their journal lines, the
journal, review, a run panel, settings and health. Server-rendered pages (Starlette and Jinja2,
served by uvicorn on loopback), a stylesheet and one small script shipped in the package.

Everything shown is read through the same `services` the command line calls (status, health, the
journal, page and map views) and `history` (the log, a pass, its undo, review), and everything
changed (capture, run, stop, undo, accept, reject) goes through the same code and the same pass
lock. `safety` holds the gate every request passes: the Host header, the
per-start token, the CSRF check on every POST, paths kept inside the project's layout.

May import services, history, project, config, wiki and errors; only `cli` imports it, inside
the `serve` command, so the web libraries load only there.
"""
