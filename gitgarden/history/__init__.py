"""What the gardener did, read back from git and the pass records: `log`, `show` (`passlog`), `undo`,
the review branch (`review`; a waiting pass cut into items and some of them taken, `review_items`),
the record files (`records`) and what they share (`common`).

May import project, config, repo, wiki and errors. Imported by the gardener (the review branch,
the records it writes), schedule and the front ends.
"""
