"""Where the gardener's own pages go in a wiki, and what they are called.

A vault adopted in place is the person's: the gardener's own pages — the hubs
that keep the map lean, and the pages a pass creates when the vault keeps its
notes in folders — go in one folder of the gardener's (`gardener_dir`,
`Gardener/` at the project root, the wiki itself in a gitgarden project). In a
vault whose notes have human names they get human names too ("Ridge Roofing.md"),
made from their title; elsewhere slugs. The model's slug stays the operation's key.

Pure: a tree and the layout in force in, names out. The guard's rule 3 asks the
same question of a new page (`own_name`), so a pass and the guard agree on
exactly which human names the gardener may give.
"""

from __future__ import annotations

from dataclasses import dataclass

from gitgarden.wiki import layout, pages
from gitgarden.wiki.names import is_slug, note_name
from gitgarden.wiki.tree import Tree

__all__ = ["Placement", "of_tree", "own_name"]


@dataclass(frozen=True)
class Placement:
    """The gardener's folder and naming style in one wiki, and whether code makes hubs at all."""

    folder: str = ""  # relative to the wiki; '' is its top
    human: bool = False  # the vault's notes have human names: the gardener's pages do too
    folders: bool = False  # the vault keeps its notes in folders: new pages go to `folder`
    auto_hubs: bool = True  # false: code never makes a hub (the map lists what fits; health says the rest)

    def own_page(self, key: str, title: str) -> str:
        """A page of the gardener's own in its folder: named from its title in a vault of human
        names, else `key` (a slug)."""
        name = note_name(title) if self.human and title.strip() else None
        file_name = name or key
        return f"{self.folder}/{file_name}" if self.folder else file_name

    def hub_name(self, key: str, title: str) -> str:
        """The page name of a hub code makes: `map-<key>` in a wiki of slugs, its title as a note
        name in a vault of human names; in the gardener's folder either way."""
        return self.own_page(f"map-{key}", title)

    def new_page(self, key: str, title: str) -> str:
        """The page name a `create_page` (or a hub the model proposes) keyed `key` takes: a name with
        a folder stays where the model put it; a bare one goes to the gardener's folder when the
        vault keeps its notes in folders, named from its title when the vault's notes have human names."""
        if "/" in key:
            return key
        if self.folders:
            return self.own_page(key, title)
        return (note_name(title) if self.human and title.strip() else None) or key


def of_tree(tree: Tree, *, auto_hubs: bool = True) -> Placement:
    """The placement in `tree` (the layout in force): human names when most of its notes have
    them, folders when any note of the person's stands in one (the gardener's folder and the
    journal apart)."""
    here = layout.current()
    folder = here.gardener_folder
    names = [n for p in tree if (n := pages.page_name(p)) is not None and p != pages.map_path()]
    own = folder + "/" if folder else None
    theirs = [n for n in names if own is None or not n.startswith(own)]
    files = [n.rsplit("/", 1)[-1] for n in theirs]
    human = sum(1 for f in files if not is_slug(f)) * 2 > len(files)
    folders = any("/" in n for n in theirs)
    return Placement(folder, human, folders, auto_hubs)


def own_name(path: str, title: str | None, place: Placement) -> bool:
    """True when `path` (a new page, project-relative) has the human name the gardener gives its own
    pages in a vault of human names (`place`, of the tree before the change): its title's note name,
    in the gardener's folder (or, in a vault that keeps no folders, at the wiki's top). Rule 3 lets
    exactly these through besides slugs (and split parts)."""
    name = layout.current().page_name(path)
    if name is None or not title or not place.human:
        return False
    folder, _, file_name = name.rpartition("/")
    made = note_name(title)
    at_home = folder == place.folder or (not place.folders and folder == "")
    return at_home and made is not None and file_name == made and not is_slug(file_name)
