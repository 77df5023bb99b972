"""A project folder: finding its root, its layout, and `gitgarden init`."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from gitgarden.adopt import notes_layout, obsidian_layout, spelt_on_disk, survey
from gitgarden.atomic import atomic_write
from gitgarden.config import read_toml
from gitgarden.errors import ConfigError, NotAProject
from gitgarden.wiki.layout import DEFAULT, Layout, from_table

if TYPE_CHECKING:  # `status` and `tick` find a project without the tree and the wiki parser behind the facts
    pass

__all__ = [
    "Project",
    "find_project",
    "init_project",
    "InitReport",
    "MAP_TEMPLATE",
    "AGENTS_TEMPLATE",
    "of_root",
    "of_root_or_default",
    "check_on_disk",
    "spelt_on_disk",
    "file_text",
    "journal_went_missing",
]

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


def file_text(root: Path, rel: str) -> str | None:
    """A project file's text (bad bytes replaced); None when it is missing, not a file, or a symlink,
    which is never read through."""
    path = root / rel
    if path.is_symlink() or not path.is_file():
        return None
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None


# -- the layout on disk ----------------------------------------------------------------------


def of_root(root: Path | str) -> Layout:
    """The layout of the project at `root`, read from its `.gitgarden/config.toml`; ConfigError when
    the file sets it badly or its wiki or journal folder is reached through a symlink."""
    path = Path(root) / ".gitgarden" / "config.toml"
    found = from_table(read_toml(path), where=str(path))
    check_on_disk(found, Path(root), where=str(path))
    return found


def check_on_disk(found: Layout, root: Path, *, where: str) -> None:
    """ConfigError when the wiki or journal folder of `found` is, or lies inside, a symlink (a pass
    reads only inside its project and never follows a symlink out, nor writes through one), or is a file."""
    for key in ("wiki_dir", "journal_dir"):
        folder = getattr(found, key)
        parts = [] if folder == "." else folder.split("/")
        for depth in range(1, len(parts) + 1):
            here, shown = root.joinpath(*parts[:depth]), "/".join(parts[:depth])
            disk = spelt_on_disk(here.parent, parts[depth - 1])
            if disk is None:
                break  # not made yet: capture or init makes it as the setting spells it
            if disk.lower() == parts[depth - 1].lower() and disk != parts[depth - 1]:
                # A case-insensitive disk (macOS, Windows) opens it, but the listing spells it otherwise:
                # its day files would be taken for pages. On Linux it would be a second folder.
                fixed = "/".join([*parts[: depth - 1], disk, *parts[depth:]])
                raise ConfigError(f"{where}: {key} = {folder!r}, but the folder is spelt {disk!r}: set {key} to {fixed!r}")
            if here.is_symlink():
                raise ConfigError(
                    f"{where}: {key} = {folder!r}, but {shown} is a symlink, and gitgarden never reads or writes "
                    f"through one: make {shown} a real folder, or set {key} to another"
                )
            if here.exists() and not here.is_dir():
                raise ConfigError(f"{where}: {key} = {folder!r}, but {shown} is a file, not a folder: set {key} to another")


def of_root_or_default(root: Path | str) -> Layout:
    """`of_root`, or the default layout when the settings file cannot say (for bookkeeping that
    must never fail: the command that reads the settings properly says what is wrong)."""
    try:
        return of_root(root)
    except ConfigError:
        return DEFAULT


@dataclass(frozen=True)
class Project:
    """A gitgarden project: a folder with `.gitgarden/` inside a git work tree."""

    root: Path

    @cached_property
    def layout(self) -> Layout:
        """Where the wiki and the journal are (`.gitgarden/config.toml`'s wiki_dir and journal_dir);
        ConfigError when the file sets them badly."""
        return of_root(self.root)

    @property
    def wiki(self) -> Path:
        return self.root / self.layout.wiki_dir if not self.layout.at_root else self.root

    @property
    def journal(self) -> Path:
        return self.root / self.layout.journal_dir

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
        return self.root / self.layout.map_path()

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
        if (folder / ".gitgarden").is_dir() and wiki_exists(found := Project(folder)):
            return found  # its layout read once, kept for the command
    sparse = _sparse_project(here)
    if sparse:
        raise NotAProject(sparse)
    raise NotAProject(
        f"{here} is not inside a gitgarden project: run `gitgarden init` to make one here, "
        "or cd into a project folder."
    )


def wiki_exists(project: Project) -> bool:
    """True when the wiki folder the project names exists (the root always does).
    A malformed layout counts as a project: the command then says what is wrong with it,
    and `gitgarden config set` can mend it."""
    try:
        layout = project.layout
    except ConfigError:
        return True
    return layout.at_root or (project.root / layout.wiki_dir).is_dir()


def _sparse_project(here: Path) -> str | None:
    """When a sparse checkout hides the project `here` belongs to, a sentence saying so and what to
    do (only looked for once no project was found: it asks git)."""
    from gitgarden.errors import GitError
    from gitgarden.repo import gitrepo
    from gitgarden.repo.states import PROJECT_FOLDERS

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


def journal_went_missing(root: Path, journal_dir: str) -> bool:
    """True when the journal folder is gone although the project had a journal there: its day files
    are in HEAD, or lines of it were read (renamed or removed behind gitgarden's back). A fresh
    clone whose journal has no day file yet (git keeps no empty folder) is not that."""
    if (root / journal_dir).is_dir():
        return False
    if (file_text(root, ".gitgarden/read.json") or "").strip() not in ("", "{}"):
        return True
    from gitgarden.repo import gitrepo

    return bool(gitrepo.git(root, "ls-tree", "--name-only", "HEAD", "--", journal_dir.rstrip("/") + "/", check=False).strip())


@dataclass
class InitReport:
    """What `init` made (paths relative to the root), whether it ran `git init` or committed,
    and what it decided for the person to read (an Obsidian vault adopted in place)."""

    root: Path
    created: list[str]
    git_initialised: bool
    committed: bool
    notes: list[str] = field(default_factory=list)
    adopted: list[str] = field(default_factory=list)  # the person's files git did not track, committed as theirs


def init_layout(root: Path, layout: Layout | None = None) -> list[str]:
    """Create the folders and template files that are missing; never overwrite. Returns what it made.

    In the default layout: raw/journal, raw/chat, wiki/ with its map, log/, .gitgarden/ and
    AGENTS.md. A wiki at the root (an adopted vault) gets only what gitgarden needs and the
    vault lacks: .gitgarden/, log/, the map and the journal folder; no file of the person's moves.
    """
    layout = layout or Layout()
    made: list[str] = []
    if layout.at_root:
        folders = [layout.journal_dir, "log", ".gitgarden"]
    else:
        folders = list(dict.fromkeys([layout.journal_dir, "raw/chat", layout.wiki_dir, "log", ".gitgarden"]))
    for folder in folders:
        path = root / folder
        if not path.is_dir():
            path.mkdir(parents=True, exist_ok=True)
            made.append(folder + "/")
    keep_journal = f"{layout.journal_dir}/" in made or not layout.at_root
    files = {
        "AGENTS.md": None if layout.at_root else AGENTS_TEMPLATE,
        layout.map_path(): MAP_TEMPLATE,
        ".gitgarden/config.toml": CONFIG_TEMPLATE + _layout_lines(layout),
        ".gitignore": GITIGNORE_TEMPLATE,
        f"{layout.journal_dir}/.gitkeep": "" if keep_journal else None,
        "raw/chat/.gitkeep": None if layout.at_root else "",
        "log/.gitkeep": "",
    }
    for rel, text in files.items():
        path = root / rel
        if text is None:
            continue
        if rel == ".gitignore" and path.is_file() and not path.is_symlink():
            if _ignore_turn_file(path):
                made.append(rel)
            continue
        if path.exists() or path.is_symlink():
            continue
        path.write_text(text, encoding="utf-8")
        made.append(rel)
    return made


def _layout_lines(layout: Layout) -> str:
    """The layout settings a new config file states (none for the default layout)."""
    import tomli_w

    keys = ("wiki_dir", "journal_dir", "map_page")
    table = {k: getattr(layout, k) for k in keys if getattr(layout, k) != getattr(Layout(), k)}
    return tomli_w.dumps(table) if table else ""


def _ignore_turn_file(gitignore: Path) -> bool:
    """Add the turn-in-flight line to the person's own .gitignore when it lacks it (their lines kept)."""
    data = gitignore.read_bytes()
    if any(ln.strip() in (b".gitgarden/turn-in-flight", b"/.gitgarden/turn-in-flight") for ln in data.splitlines()):
        return False
    nl = b"\r\n" if b"\r\n" in data else b"\n"
    sep = nl if data and not data.endswith(b"\n") else b""
    lines = GITIGNORE_TEMPLATE.encode().replace(b"\n", nl)
    atomic_write(gitignore, data + sep + lines)  # the person's file: whole, with its mode
    return True


def init_project(root: Path) -> InitReport:
    """Make `root` a gitgarden project and a git repository, committing what init made.

    A folder holding `.obsidian/` (and no gitgarden settings yet) is an Obsidian vault: it is
    adopted in place (wiki_dir = ".", the journal its daily-notes folder); nothing moves. So is a
    folder of notes without it (more Markdown notes and attachments than other files, no `wiki/`):
    the journal is the folder of its day files, else a new `Daily notes/` (`adopt`).
    """
    from gitgarden.repo import commits, gitrepo  # git is only needed here, not by every command

    root = root.resolve()
    root.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    # The layout first: a folder it cannot use (a daily-notes folder that is a symlink) is refused before anything is made.
    fresh = not (root / ".gitgarden" / "config.toml").exists()
    found = survey(root) if fresh and not (root / ".obsidian").is_dir() and not (root / DEFAULT.wiki_dir).exists() else None
    if fresh and ((root / ".obsidian").is_dir() or (found is not None and found.is_notes)):
        if found is None:
            layout, notes = obsidian_layout(root)
            notes.insert(0, f"adopted the Obsidian vault in place: wiki_dir = {layout.wiki_dir}, journal_dir = {layout.journal_dir}")
        else:  # a folder of notes: adopted where it stands, never a second tree beside it
            layout, notes = notes_layout(root, found)
        try:
            check_on_disk(layout, root, where=str(root))
        except ConfigError as exc:  # no settings file yet: say where journal_dir goes
            raise ConfigError(f'{exc} (before init: journal_dir = "…" in .gitgarden/config.toml)') from None
    else:
        layout = of_root(root)
    git_initialised = gitrepo.ensure_repo(root)
    made = init_layout(root, layout)
    committed = False
    # What the folder already held of the project (the person's AGENTS.md, their notes in the
    # wiki, their daily notes) is committed with the layout when git does not track it yet: a
    # pass judges and protects pages against HEAD, and would leave untracked ones alone forever.
    owned = layout.with_identity(["AGENTS.md"])
    # A project copied into a new repository also holds gitgarden's own state (settings, the read
    # position, pass records) and the conversation: committed too, or a pass would find them untracked.
    own = [".gitgarden", "log", ".gitignore", *([] if layout.at_root else ["raw/chat"])]
    listed = list(dict.fromkeys(["AGENTS.md", *layout.tree_folders(), *own]))
    untracked = gitrepo.git(root, "ls-files", "-z", "--others", "--exclude-standard", "--", *listed).decode("utf-8", "surrogateescape").split("\0")
    adopted = [p for p in untracked if p and (p == "AGENTS.md" or owned.in_wiki(p) or p.startswith(layout.journal_prefix) or _own_state(p, layout))]
    ours = sorted(m for m in made if not m.endswith("/"))
    theirs = sorted(set(adopted) - set(ours))
    if ours or theirs:
        # The commit says what it holds: run again, init commits only the notes git did not track yet.
        what = " and ".join(
            part for part in ("project layout" if ours else "", f"{len(theirs)} of your files git did not track yet" if theirs else "") if part
        )
        # Never a command line of thousands of pathspecs: the folders walked by `git add` (a first
        # commit), or one `update-index` of every file — a vault of 50,000 notes is adopted about as
        # fast as `git add -A && git commit` commits it.
        files = sorted({*ours, *theirs})
        walk = _walk_specs(listed, untracked, files, ours)
        new = commits.commit_files(root, files, message=f"gitgarden init: {what}", ident=gitrepo.person_identity(root), walk=walk)
        committed = new is not None
    return InitReport(root, made, git_initialised, committed, notes, adopted=theirs if committed else [])


def _own_state(path: str, layout: Layout) -> bool:
    """A file of gitgarden's own a copied project brings: its settings and state, its pass records
    (only records: an adopted vault's own log/ may hold notes), the conversation, the .gitignore."""
    if path == ".gitignore" or path.startswith(".gitgarden/"):
        return True
    if path.startswith("log/"):
        return path.endswith(".jsonl") or path == "log/.gitkeep"
    return not layout.at_root and path.startswith("raw/chat/")
_MAX_EXCLUDED = 100  # more untracked files to leave out than this: the files are listed, not walked


def _walk_specs(listed: list[str], untracked: list[str], files: list[str], made: list[str]) -> list[str]:
    """Pathspecs that name exactly `files` for `git add` to walk: the folders `listed` (whose
    untracked files `untracked` are), the files init `made` outside them, and exclusions for what
    lies there but is not to be committed (`.obsidian/`, a `raw/` of notes). [] when that would
    take more than a few exclusions."""
    chosen = set(files)
    left = [p for p in untracked if p and p not in chosen]
    if any(p.endswith("/") for p in left) or any(p.endswith("/") for p in chosen):
        return []  # a nested repository or such: `git add` would take it whole
    tops = {p.split("/", 1)[0] for p in chosen if "/" in p}
    excluded = sorted({p.split("/", 1)[0] if p.split("/", 1)[0] not in tops and "/" in p else p for p in left})
    if len(excluded) > _MAX_EXCLUDED:
        return []
    folders = [f for f in dict.fromkeys(listed) if f == "." or (f in chosen or any(c.startswith(f.rstrip("/") + "/") for c in chosen))]
    return [*(f":(literal){f}" for f in folders), *(f":(literal){m}" for m in made), *(f":(exclude,literal){e}" for e in excluded)]
