"""The model: litellm behind one small interface (`llm`: lazy import, budgets, streaming; `provider`),
the operations a model returns and their validation (`operations`), and the stored API keys (`keys`).

May import project, config, wiki and errors. litellm is imported only inside the call that needs it.
"""
