"""git at the edge: running git (`gitrepo`), the commits gitgarden makes (`commits`), repository
states (`states`), the repository as a pass finds it (`worktree`: refs and one `git status`), crash
recovery and safe writes (`recovery`), the pass lock (`lock`) and the three-way text merge
(`textmerge`). What knows the wiki's meaning lives above: `store` (the tree read from disk, the
graph kept in step) and `sharing` (the remote).

May import wiki (tree entries, the layout) and errors.
"""
