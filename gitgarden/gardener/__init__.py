"""One gardener pass (docs/architecture.md, "One pass, step by step"): the pipeline (`pipeline.run_pass`, where to start reading) over
its state, and its steps — read, ask, apply and guard, repair, tidy, commit, publish — with the
set-aside lines, the outcome and the prompt's context; small mode (`small`: the model sorts, code
writes); one model call in a thread of its own (`calls`); `reread` (lines made unread again).

May import history (the review branch, the records), model, guard, search, project, config,
sharing, store, repo, wiki and errors. Imported by schedule, services and the front ends.
"""
