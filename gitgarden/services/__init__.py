"""What the faces do, written once: the command line, the web app and the agents' door call these,
not the gardener's or the scheduler's insides. Running a pass (`run`), capturing (`capture`), what
`status` shows (`status`), the wiki's health (`health`), the read views (a journal day with each
line's state, a page with its backlinks, the map with its Open questions: `views`; why each line
stands where it does, from the passes' records: `lines`), changing a setting with `config set`'s
rules (`settings`), review item by item, through the guard (`review`), and a question answered
from the garden (`ask`).

May import answer, schedule, gardener, history, search, model, gitguard, guard, project, config, sharing,
store, repo, wiki and errors. Imported by the faces (cli, web, agents).
"""
