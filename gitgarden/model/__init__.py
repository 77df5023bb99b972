"""The model: litellm behind one small interface (`llm`: lazy import, budgets, streaming; `provider`),
where requests go and in what form (`endpoints`: keys to endpoints, structured output, the mode),
what a request needs beneath litellm (`wire`: sockets a stop can shut, one deadline, usage checked),
one-line failures (`failures`), `llm status` (`status`), the endpoint's measured pace and the pass
fitted to it (`speed`), small mode's one question a line (`judge`), the operations a model returns and their
validation (`operations`), and the stored API keys (`keys`).

May import project, config, wiki and errors. litellm is imported only inside the call that needs it.
"""
