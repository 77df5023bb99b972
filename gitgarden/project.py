"""A project folder: finding its root, its layout, and `gitgarden init`."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gitgarden.errors import NotAProject

if TYPE_CHECKING:  # `status` and `tick` find a project without the tree and the wiki parser behind the facts
    from gitgarden.facts import FactsCache, PageFacts
    from gitgarden.tree import Entry

__all__ = ["DiskTree", "Project", "find_project", "init_project", "InitReport", "MAP_TEMPLATE", "AGENTS_TEMPLATE"]

AGENTS_TEMPLATE = """\
# AGENTS.md — what this project is

<!-- The gardener reads this before every pass and never writes it. Say, in a few
lines, what the project is about, who the people are, and what deserves a page. -->

This project is about: …

People and names to know: …

What deserves a page here: people, places, decisions, constraints the project
will keep talking about. Chatter and one-off logistics do not.
"""

MAP_TEMPLATE = """\
# Map

This wiki's pages, kept in line by the gardener. Add your own prose here; the
gardener only adds entries and never rewords what you wrote.

## Pages

## Open
"""

CONFIG_TEMPLATE = """\
# gitgarden project settings (see `gitgarden config list`).
# The API key never goes here: `gitgarden keys set NAME`, or GITGARDEN_API_KEY in
# the environment. How often the tick looks (interval_min) is set with --user.
# model = "openai/gpt-4o-mini"
# enabled = true
# idle_min = 30
# min_hours_between_passes = 6
"""

GITIGNORE_TEMPLATE = """\
# gitgarden: present while your chat tool is mid-turn; never committed
.gitgarden/turn-in-flight
"""


@dataclass(frozen=True)
class Project:
    """A gitgarden project: a folder with `.gitgarden/` inside a git work tree."""

    root: Path

    @property
    def wiki(self) -> Path:
        return self.root / "wiki"

    @property
    def journal(self) -> Path:
        return self.root / "raw" / "journal"

    @property
    def chat(self) -> Path:
        return self.root / "raw" / "chat"

    @property
    def log(self) -> Path:
        return self.root / "log"

    @property
    def state(self) -> Path:
        return self.root / ".gitgarden"

    @property
    def map(self) -> Path:
        return self.root / "wiki" / "index.md"

    @property
    def turn_in_flight(self) -> Path:
        return self.state / "turn-in-flight"

    @property
    def name(self) -> str:
        return self.root.name


def find_project(start: Path | None = None) -> Project:
    """The project containing `start` (default: the current folder), searching upwards."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".gitgarden").is_dir() and (folder / "wiki").is_dir():
            return Project(folder)
    sparse = _sparse_project(here)
    if sparse:
        raise NotAProject(sparse)
    raise NotAProject(
        f"{here} is not inside a gitgarden project: run `gitgarden init` to make one here, "
        "or cd into a project folder."
    )


def _sparse_project(here: Path) -> str | None:
    """When a sparse checkout hides the project `here` belongs to, a sentence saying so and what to
    do (only looked for once no project was found: it asks git)."""
    from gitgarden import gitrepo
    from gitgarden.errors import GitError
    from gitgarden.repostate import PROJECT_FOLDERS

    try:
        if gitrepo.git(here, "config", "--bool", "core.sparseCheckout", check=False).strip() != b"true":
            return None
        top = Path(gitrepo.git(here, "rev-parse", "--show-toplevel").decode().strip())
        rel = here.relative_to(top.resolve())
    except (GitError, ValueError):
        return None
    # The project's root is `here` or one of its parents up to the top of the work tree.
    for depth in range(len(rel.parts), -1, -1):
        prefix = "/".join(rel.parts[:depth])
        names = [f"{prefix}/{f}" if prefix else f for f in (".gitgarden", "wiki")]
        out = gitrepo.git(top, "ls-files", "-t", "-z", "--", *names, check=False)
        hidden = {rec[2:].decode("utf-8", "replace") for rec in out.split(b"\0") if rec[:2] == b"S "}
        if all(any(h.startswith(n + "/") for h in hidden) or (top / n).is_dir() for n in names) and hidden:
            folders = " ".join(f"{prefix}/{f}" if prefix else f for f in PROJECT_FOLDERS)
            where = top / prefix if prefix else top
            return (
                f"the sparse checkout leaves out the gitgarden project at {where} (its wiki/ and .gitgarden/ are not "
                f"checked out): bring them back with `git -C {top} sparse-checkout add {folders}` "
                "(or `git sparse-checkout disable`), then run gitgarden again"
            )
    return None


@dataclass
class InitReport:
    """What `init` made (paths relative to the root) and whether it ran `git init` or committed."""

    root: Path
    created: list[str]
    git_initialised: bool
    committed: bool


def init_layout(root: Path) -> list[str]:
    """Create the folders and template files that are missing; never overwrite. Returns what it made."""
    made: list[str] = []
    for folder in ("raw/journal", "raw/chat", "wiki", "log", ".gitgarden"):
        path = root / folder
        if not path.is_dir():
            path.mkdir(parents=True, exist_ok=True)
            made.append(folder + "/")
    files = {
        "AGENTS.md": AGENTS_TEMPLATE,
        "wiki/index.md": MAP_TEMPLATE,
        ".gitgarden/config.toml": CONFIG_TEMPLATE,
        ".gitignore": GITIGNORE_TEMPLATE,
        "raw/journal/.gitkeep": "",
        "raw/chat/.gitkeep": "",
        "log/.gitkeep": "",
    }
    for rel, text in files.items():
        path = root / rel
        if rel == ".gitignore" and path.is_file() and not path.is_symlink():
            if _ignore_turn_file(path):
                made.append(rel)
            continue
        if path.exists() or path.is_symlink():
            continue
        path.write_text(text, encoding="utf-8")
        made.append(rel)
    return made


def _ignore_turn_file(gitignore: Path) -> bool:
    """Add the turn-in-flight line to the person's own .gitignore when it lacks it (their lines kept)."""
    data = gitignore.read_bytes()
    if any(ln.strip() in (b".gitgarden/turn-in-flight", b"/.gitgarden/turn-in-flight") for ln in data.splitlines()):
        return False
    nl = b"\r\n" if b"\r\n" in data else b"\n"
    sep = nl if data and not data.endswith(b"\n") else b""
    lines = GITIGNORE_TEMPLATE.encode().replace(b"\n", nl)
    gitignore.write_bytes(data + sep + lines)
    return True


def init_project(root: Path) -> InitReport:
    """Make `root` a gitgarden project and a git repository, committing what init made."""
    from gitgarden import gitrepo  # git is only needed here, not by every command

    root = root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    git_initialised = gitrepo.ensure_repo(root)
    made = init_layout(root)
    committed = False
    # What the folder already held of the project (the person's AGENTS.md, their notes under
    # wiki/) is committed with the layout when git does not track it yet: a pass judges and
    # protects pages against HEAD, and would leave untracked ones alone forever.
    adopted = gitrepo.git(
        root, "ls-files", "-z", "--others", "--exclude-standard", "--", "AGENTS.md", "wiki"
    ).decode("utf-8", "surrogateescape").split("\0")
    files = sorted({m for m in made if not m.endswith("/")} | {p for p in adopted if p})
    if files:
        committed = gitrepo.commit_paths(
            root, files, message="gitgarden init: project layout", author=None
        )
    return InitReport(root, made, git_initialised, committed)


class DiskTree(Mapping[str, "Entry"]):
    """The files under some folders of a project, listed once and read on first access.

    Symlinks are listed as symlinks and never followed, so nothing outside the
    project is ever read through one.
    """

    def __init__(
        self,
        root: Path,
        folders: Sequence[str],
        extra_files: Sequence[str] = (),
        *,
        facts_cache: FactsCache | None = None,
    ) -> None:
        self.root = root
        self.facts_cache = facts_cache
        self._stats: dict[str, tuple[int, ...]] = {}
        self._paths: set[str] = set()
        self._sorted: list[str] | None = None  # the listing never changes: sorted once, not per iteration
        self._cache: dict[str, Entry] = {}
        for folder in folders:
            self._walk(root / folder, folder)
        for rel in extra_files:
            if os.path.lexists(root / rel):
                self._paths.add(rel)
        if facts_cache is not None:
            facts_cache.keep = self._paths

    def _walk(self, path: Path, rel: str) -> None:
        try:
            entries = list(os.scandir(path))
        except (FileNotFoundError, NotADirectoryError):
            return
        for entry in entries:
            child = f"{rel}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                self._walk(Path(entry.path), child)
            elif entry.is_symlink() or entry.is_file(follow_symlinks=False):
                self._paths.add(child)
                if self.facts_cache is not None:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    self._stats[child] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode)

    def __getitem__(self, rel: str) -> Entry:
        if rel not in self._paths:
            raise KeyError(rel)
        entry = self._cache.get(rel)
        if entry is None:
            from gitgarden.tree import Entry

            path = os.path.join(self.root, rel)
            # O_NOFOLLOW: a symlink is never read through, even one swapped in since the listing,
            # and one syscall replaces the separate is_symlink check (a pass reads every page).
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
            except OSError as exc:
                if exc.errno != errno.ELOOP:
                    raise
                entry = Entry("symlink", os.fsencode(os.readlink(path)))
            else:
                with open(fd, "rb") as fh:
                    entry = Entry("file", fh.read())
            self._cache[rel] = entry
        return entry

    def facts(self, rel: str) -> PageFacts | None:
        """The page facts of `rel`, from the cache while the file is unchanged on disk."""
        from gitgarden.facts import facts_of

        signature = self._stats.get(rel)
        if self.facts_cache is None or signature is None:
            return facts_of(self[rel])
        found, cached = self.facts_cache.get(rel, signature)
        if found:
            return cached
        fresh = facts_of(self[rel])
        self.facts_cache.put(rel, signature, fresh)
        return fresh

    def __iter__(self) -> Iterator[str]:
        if self._sorted is None:
            self._sorted = sorted(self._paths)
        return iter(self._sorted)

    def __len__(self) -> int:
        return len(self._paths)

    def __contains__(self, rel: object) -> bool:
        return rel in self._paths
