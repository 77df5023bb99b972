"""When passes run (docs/architecture.md, "When passes run"): the tick over registered projects (`tick`), the machine-local registry
and attempts (`registry`), and the systemd/cron timers (`timers`).

May import gardener, history, model, guard, project, config, sharing, store, repo, wiki and errors; a tick that
finds nothing imports neither the gardener's pipeline nor the model.
"""
