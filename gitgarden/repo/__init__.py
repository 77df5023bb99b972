"""git at the edge: running git (`gitrepo`), the commits gitgarden makes (`commits`), repository
states (`states`), the shared remote (`remote`, the sync before a pass `sync`, and merging two
clones' files by their meaning `meaning`), crash recovery and safe writes (`recovery`), the pass
lock (`lock`), the three-way text merge (`textmerge`) and the files under the wiki's folders as a
tree read from disk (`disktree`).

May import wiki (trees, the layout, the journal) and errors.
"""
