"""What an agent's commit changes, read from git in proportion to the change, not to the wiki.

The pre-commit hook runs on every agent commit, so it must feel like `git status` in a vault of
50,000 notes. `staged_trees` asks git which paths the index changes (`git diff-index --cached`)
and reads the old and new blobs of those paths only (one `cat-file --batch`). The rest of HEAD
stays in git: `HeadTree` reads a path only when a rule asks for it, and `IndexNames` answers
what the rules ask of the whole tree — a name taken in other letter case, the folders, which
page a link names — with pathspec queries git matches in C (`ls-files ':(icase,glob)wiki/**/x.md'`).
Only two rarer questions read more: a link that names no page by name (its aliases are looked
for with `git grep --cached`), and a split's heading links (the pages naming a moved heading).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from pathlib import Path

from gitgarden.guard.names import Names, aliases_in
from gitgarden.repo import gitrepo
from gitgarden.wiki import layout, linking
from gitgarden.wiki.linking import resolve_key
from gitgarden.wiki.tree import Entry, Overlay, Tree, from_git

__all__ = ["HeadTree", "IndexNames", "staged_trees"]

_GLOB_SPECIAL = str.maketrans({c: "\\" + c for c in "*?[]\\"})


def _unsafe(path: str) -> bool:
    """True for a name no pathspec should carry (it could not be a file of the tree anyway)."""
    return not path or path.startswith("/") or "\0" in path or "\n" in path or ".." in path.split("/")


class HeadTree(Mapping[str, Entry]):
    """HEAD's files, read from git only where a rule asks.

    The changed paths come with their old blobs (`known`); any other path is looked up
    (`ls-tree`) and read (`cat-file`) on first access. Only iterating lists the whole tree,
    which no rule of an agent's commit needs.
    """

    def __init__(self, root: Path, head: str | None, known: Mapping[str, Entry | None], env: Mapping[str, str] | None) -> None:
        self.root, self.head, self.env = root, head, dict(env) if env else None
        self._known: dict[str, Entry | None] = dict(known)
        self._paths: list[str] | None = None

    def names(self, proposed: Tree, here: layout.Layout) -> Names:
        """The rules' questions about the whole tree, answered from git (see `IndexNames`)."""
        return IndexNames(self, proposed, here)

    def load(self, paths: Iterable[str]) -> None:
        """Read the paths not read yet, in two git processes whatever their number."""
        todo = sorted({p for p in paths if p not in self._known and not _unsafe(p)})
        if not todo:
            return
        if self.head is None:
            self._known.update(dict.fromkeys(todo))
            return
        found = gitrepo.entries(self.root, ["ls-tree", "-z", self.head, "--", *todo])
        files = [(p, mode, oid) for p, (mode, oid) in found.items() if mode in ("100644", "100755", "120000")]
        blobs = gitrepo.read_blobs(self.root, [oid for _, _, oid in files])
        self._known.update(dict.fromkeys(todo))  # a folder is no entry of a tree
        for (path, mode, _), data in zip(files, blobs, strict=True):
            self._known[path] = from_git(mode, data)
        # A submodule: known, so no rule lets it go, but never read (its id names a commit).
        self._known.update((p, Entry("gitlink", b"")) for p, (mode, _) in found.items() if mode == "160000")

    def __getitem__(self, path: str) -> Entry:
        if path not in self._known:
            self.load([path])
        entry = self._known.get(path)
        if entry is None:
            raise KeyError(path)
        return entry

    def __contains__(self, path: object) -> bool:
        if not isinstance(path, str):
            return False
        if path not in self._known:
            self.load([path])
        return self._known.get(path) is not None

    def _listing(self) -> list[str]:
        if self._paths is None:
            out = gitrepo.git(self.root, "ls-tree", "-r", "-z", "--name-only", self.head, "--") if self.head else b""
            self._paths = sorted(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)
        return self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._listing())

    def __len__(self) -> int:
        return len(self._listing())


class IndexNames(Names):
    """`Names` answered from git's index (the tree the commit will hold) and HEAD: each question
    is a pathspec query git matches in C, asked once for every path or target the rules need."""

    def __init__(self, base: HeadTree, proposed: Tree, here: layout.Layout) -> None:
        super().__init__(base, proposed, here)
        self.head_tree = base
        changes = proposed.changes if isinstance(proposed, Overlay) else {}
        self.added = {p for p, e in changes.items() if e is not None and base._known.get(p) is None}
        self.removed = {p for p, e in changes.items() if e is None}
        self._asked: set[str] = set()  # target keys already matched against the index
        self._asked_md: set[tuple[str, str]] = set()  # (Markdown path, folder) pairs already matched
        self._matched: set[str] = set()  # wiki paths of the index those queries found
        self._link_index: linking.LinkIndex | None = None
        self._aliases: dict[str, list[str]] | None = None
        self._taken: set[str] | None = None

    def _ls(self, pathspecs: list[str]) -> list[str]:
        if not pathspecs:
            return []
        out = gitrepo.git(self.head_tree.root, "ls-files", "-z", "--", *pathspecs, env=self.head_tree.env)
        return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]

    # -- a name taken in other letter case; the folders --------------------------------------

    def taken_folded(self, path: str) -> bool:
        if self._taken is None:
            # Every new path at once: which of them the index holds in some letter case.
            specs = [f":(icase,literal){p}" for p in sorted(self.added) if not _unsafe(p)]
            self._taken = {p.lower() for p in self._ls(specs) if p not in self.added}
            self._taken |= {p.lower() for p in self.removed}  # in HEAD, leaving with this commit
        return path.lower() in self._taken

    @cached_property
    def _folders(self) -> dict[str, set[str]]:
        head = self.head_tree.head
        out = gitrepo.git(self.head_tree.root, "ls-tree", "-r", "-d", "-z", "--name-only", head, "--") if head else b""
        found: dict[str, set[str]] = {}
        for raw in out.split(b"\0"):
            if raw:
                folder = raw.decode("utf-8", "surrogateescape")
                found.setdefault(folder.lower(), set()).add(folder)
        return found

    def folder_spellings(self, folder: str) -> set[str]:
        return self._folders.get(folder.lower(), set())

    # -- which page a link names -------------------------------------------------------------

    def prefetch(self, targets: Iterable[str], paths: Iterable[tuple[str, str]] = ()) -> None:
        """Match every new wiki link target and Markdown link path against the index in one
        `ls-files`: a page named like it in any folder (`**/name.md`, any letter case), the file
        it names with its extension, and a Markdown path from the page's folder or the wiki's top."""
        prefix = self.here.wiki_prefix
        specs: list[str] = []

        def by_name(key: str, bare: str) -> None:
            if "/" in key:
                specs.extend([f":(icase,literal){prefix}{key}.md", f":(icase,literal){prefix}{bare}"])
            else:
                specs.append(f":(icase,glob){prefix}**/{key.translate(_GLOB_SPECIAL)}.md")
                if bare != key:  # an attachment keeps its extension
                    specs.append(f":(icase,glob){prefix}**/{bare.translate(_GLOB_SPECIAL)}")

        for target in targets:
            key = resolve_key(target)
            if key in self._asked or _unsafe(key) or "\\" in key:
                continue  # asked already, or names no file
            self._asked.add(key)
            by_name(key, target.strip().lower())
        for path, folder in paths:
            if (path, folder) in self._asked_md:
                continue
            self._asked_md.add((path, folder))
            for cand in linking.md_candidates(path, folder):
                if not _unsafe(cand) and "\\" not in cand:
                    specs.extend([f":(icase,literal){prefix}{cand.removesuffix('.md')}.md", f":(icase,literal){prefix}{cand}"])
            bare = path.strip("/").lower()
            if bare and "/" not in bare and not _unsafe(bare):
                by_name(bare.removesuffix(".md"), bare)
        found = {p for p in self._ls(sorted(set(specs))) if self.here.in_wiki(p)}
        if found - self._matched:
            self._matched |= found
            self._link_index = None

    def resolve_md(self, path: str, folder: str) -> str | None:
        if (path, folder) not in self._asked_md:
            self.prefetch((), [(path, folder)])
        if self._link_index is None:
            self._link_index = linking.LinkIndex([self._name(p) for p in self._matched])
        return self._link_index.resolve_md(path, folder)  # a Markdown link takes no alias

    def _name(self, path: str) -> str:
        return self.here.page_name(path) or self.here.wiki_relative(path)

    def resolve(self, target: str) -> str | None:
        if resolve_key(target) not in self._asked:
            self.prefetch([target])
        if self._link_index is None:
            self._link_index = linking.LinkIndex([self._name(p) for p in self._matched])
        hit = self._link_index.resolve(target)
        if hit is not None:
            return hit
        # No page is named so: an alias, if any page of the index has one by that name.
        if self._aliases is None:
            self._aliases = self._all_aliases()
        names = {self._name(p) for p in self._matched} | set(self._aliases)
        return linking.LinkIndex(names, self._aliases).resolve(target)

    def _all_aliases(self) -> dict[str, list[str]]:
        """Page name -> aliases, for every page of the index whose text says `alias` (git greps
        the index's blobs; only those pages are read)."""
        prefix = self.here.wiki_prefix or "."
        out = gitrepo.git(
            self.head_tree.root, "grep", "--cached", "-l", "-z", "-F", "-e", "alias", "--", prefix,
            env=self.head_tree.env, check=False,
        )  # fmt: skip
        paths = sorted(p for p in (r.decode("utf-8", "surrogateescape") for r in out.split(b"\0") if r) if self.here.page_name(p))
        return aliases_in(self._index_entries(paths))

    def _index_entries(self, paths: list[str]) -> list[tuple[str, Entry]]:
        """The index's version of `paths` (the commit's), read in one `cat-file --batch`."""
        changes = self.proposed.changes if isinstance(self.proposed, Overlay) else {}
        ready = [(p, e) for p in paths if (e := changes.get(p)) is not None]
        rest = [p for p in paths if p not in changes and not _unsafe(p)]
        blobs = gitrepo.read_blobs(self.head_tree.root, [f":{p}" for p in rest], env=self.head_tree.env)
        return sorted(ready + [(p, Entry("file", b)) for p, b in zip(rest, blobs, strict=True)])

    def linking_pages(self, anchors: Iterable[str]) -> Iterator[str]:
        """The index's pages that may link to one of `anchors`: those whose text holds the longest
        plain word of each (git greps the index's blobs; a Markdown link's anchor may be written
        `Heading%20one`, so a whole anchor is not looked for), and the pages the commit writes. An
        anchor without a plain word has every page looked at."""
        words: set[str] = set()
        for anchor in anchors:
            plain = re.findall(r"[A-Za-z0-9]+", anchor)
            if not plain:
                yield from super().linking_pages(anchors)
                return
            words.add(max(plain, key=len))
        changes = self.proposed.changes if isinstance(self.proposed, Overlay) else {}
        found = {p for p, e in changes.items() if e is not None}
        if words:
            args = ["grep", "--cached", "-l", "-z", "-i", "-F"]
            for word in sorted(words):
                args += ["-e", word]
            out = gitrepo.git(self.head_tree.root, *args, "--", self.here.wiki_prefix or ".", env=self.head_tree.env, check=False)
            found |= {r.decode("utf-8", "surrogateescape") for r in out.split(b"\0") if r}
        for path in sorted(found):
            if path.endswith(".md") and self.here.in_wiki(path) and path in self.proposed:
                yield path


def staged_trees(root: Path, env: Mapping[str, str]) -> tuple[Tree, Tree]:
    """(HEAD's files, the files the commit will hold): the index git names in GIT_INDEX_FILE
    (for `commit -a` or `commit <paths>` a temporary one) or the repository's own index.

    Only the paths the commit changes are read; the rest of HEAD is read where a rule asks
    (`HeadTree`). HEAD is the empty tree before the first commit. The index is only read,
    never locked.
    """
    index_file = env.get("GIT_INDEX_FILE") or None
    if index_file and not os.path.isabs(index_file):
        index_file = os.path.abspath(index_file)  # git names it relative to the hook's folder
    git_env = {"GIT_INDEX_FILE": index_file} if index_file else None
    head = gitrepo.head(root)
    changed = staged_paths(root, index_file, has_head=head is not None)
    oids = sorted({side[1] for _, old, new in changed for side in (old, new) if side is not None and side[0] != "160000"})
    blobs = dict(zip(oids, gitrepo.read_blobs(root, oids), strict=True))

    def entry(mode_oid: tuple[str, str] | None) -> Entry | None:
        if mode_oid is None:
            return None
        mode, oid = mode_oid
        if mode == "160000":  # a submodule's commit id: no file of this repository
            return Entry("gitlink", b"")
        return from_git(mode, blobs[oid])

    olds = {path: entry(old) for path, old, _ in changed}
    base = HeadTree(root, head, olds, git_env)
    # The folders the changed paths stand in, in one query: a rule asks whether one is a submodule.
    base.load({"/".join(path.split("/")[:i]) for path, _, _ in changed for i in range(1, path.count("/") + 1)})
    return base, Overlay(base, {path: entry(new) for path, _, new in changed})


def staged_paths(
    root: Path, index_file: str | None, *, has_head: bool
) -> list[tuple[str, tuple[str, str] | None, tuple[str, str] | None]]:
    """What the index changes against HEAD, without reading a file: (path, (mode, blob id) in HEAD
    or None, (mode, blob id) in the index or None when the commit removes it), sorted.

    `index_file` as for `staged_changes`. Before the first commit every entry is new. A
    submodule's entry has mode 160000 (its id names a commit, never read here); unmerged paths
    (git refuses the commit itself) are left out.
    """
    env = {"GIT_INDEX_FILE": index_file} if index_file else None
    out: list[tuple[str, tuple[str, str] | None, tuple[str, str] | None]] = []
    if has_head:
        # --relative: a project below the top of its repository sees its own paths only.
        raw = gitrepo.git(root, "diff-index", "--cached", "-z", "--no-renames", "--relative", "HEAD", env=env)
        fields = raw.split(b"\0")
        for meta, name in zip(fields[0:-1:2], fields[1::2], strict=True):
            old_mode, mode, old_id, oid, status = meta.decode().lstrip(":").split()
            if status == "U":
                continue
            path = name.decode("utf-8", "surrogateescape")
            old = (old_mode, old_id) if status != "A" and old_mode != "000000" else None
            new = (mode, oid) if status != "D" and mode != "000000" else None
            if old or new:
                out.append((path, old, new))
    else:
        for rec in gitrepo.git(root, "ls-files", "-s", "-z", env=env).split(b"\0"):
            if rec:
                meta, name = rec.split(b"\t", 1)
                mode, oid, stage = meta.decode().split()
                if stage == "0":
                    out.append((name.decode("utf-8", "surrogateescape"), None, (mode, oid)))
    return sorted(out)
