"""What the faces do, written once: the command line, the web app and the agents' door call these,
not the gardener's or the scheduler's insides. Running a pass (`run`), capturing (`capture`), what
`status` shows (`status`), the wiki's health (`health`), and the read views (a journal day with
each line's state, a page with its backlinks, the map with its Open questions: `views`).

May import schedule, gardener, history, search, model, gitguard, guard, project, config, sharing,
store, repo, wiki and errors. Imported by the faces (cli, web, agents).
"""
