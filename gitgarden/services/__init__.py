"""What the faces do, written once: the command line, the web app and the agents' door call these,
not the gardener's or the scheduler's insides. The read views (a journal day with each line's
state, a page with its backlinks, the map with its Open questions: `views`), what `status`
shows (`overview`) and a question answered from the garden (`ask`).

May import answer, schedule, gardener, history, search, model, gitguard, guard, project, config, sharing,
store, repo, wiki and errors. Imported by the faces (cli, web, agents).
"""
