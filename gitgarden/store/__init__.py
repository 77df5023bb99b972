"""The wiki as it stands on disk: the files under the layout's folders as a tree read from the work
tree (`disktree`, symlinks never followed) and the wiki graph kept in step with it, with health
read off the graph (`wikisync`).

May import repo, wiki and errors.
"""
