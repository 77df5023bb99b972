"""What the tests share: real git projects, a scripted model and the fixed clock.

Imported as `from tests.helpers.project import …`; the fixtures built on these live in
`tests/conftest.py`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.config import Settings
from gitgarden.project import Project

if TYPE_CHECKING:
    from gitgarden.gardener.pipeline import PassResult


FIXED_NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
# The month's record file of a pass run on FIXED_NOW (a pass on another clock writes another).
FIXED_LOG = f"log/{FIXED_NOW:%Y-%m}.jsonl"
SETTINGS = Settings(model="fake/scripted")  # the scripted model; every other setting its default
LINE = "Acme signed the pilot contract"  # the one journal line of capture_line, on 2026-11-29


# litellm reads these from the process environment: a developer's own key or endpoint must not steer a test.
PROVIDER_ENV = frozenset({"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "OLLAMA_API_BASE", "ANTHROPIC_API_BASE"})


SAMPLE = Path(__file__).resolve().parents[2] / "sample-project"


def sample_repo(tmp: Path) -> Path:
    """The repository's sample project (a week of a bakery's notes and seven pages) copied to
    tmp/sample and committed, as a person would have it before `gitgarden init`."""
    root = tmp / "sample"
    shutil.copytree(SAMPLE, root)
    git(root, "init", "-q")
    commit_all(root, "A week of notes")
    return root


def git(root: Path, *args: str) -> str:
    """Run git in `root` (the test's isolated identity) and return stdout."""
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout


def write(root: Path, rel: str, text: str) -> Path:
    """Write a file (parents made) and return its path."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def page(title: str, body: str, *, state: str = "open", source: str = "[]", gardener: bool = False) -> str:
    """A page's text with frontmatter; `gardener`: a page a pass made (the person's otherwise)."""
    mark = "gardener: true\n" if gardener else ""
    return f"---\ntitle: {title}\nstate: {state}\nsource: {source}\n{mark}---\n{body}"


def commit_all(root: Path, message: str = "person's work") -> None:
    """Commit everything as the person."""
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


class FakeModel:
    """A scripted model: `enqueue()` replies (dicts become JSON), `history` holds the prompts seen."""

    name = "fake/scripted"

    def __init__(self) -> None:
        self.replies: list[tuple[str, str]] = []
        self.history: list[list[dict[str, str]]] = []

    def enqueue(self, reply: dict[str, Any] | str, *, finish_reason: str = "stop") -> FakeModel:
        self.replies.append((reply if isinstance(reply, str) else json.dumps(reply), finish_reason))
        return self

    def complete(self, messages: list[dict[str, str]], schema: dict[str, Any], budget: Any) -> Any:
        from gitgarden.model.llm import Reply, Usage

        self.history.append([dict(m) for m in messages])
        if not self.replies:
            raise AssertionError("FakeModel was called more often than replies were enqueued")
        text, finish = self.replies.pop(0)
        usage = Usage(prompt_tokens=sum(len(m["content"]) for m in messages) // 4, completion_tokens=len(text) // 4)
        budget.charge(usage)
        return Reply(text=text, usage=usage, finish_reason=finish, model=self.name)

    @property
    def prompt(self) -> str:
        """The text of the last prompt seen."""
        return "\n".join(m["content"] for m in self.history[-1])


def garden(project: Project, model: FakeModel | None, settings: Settings = SETTINGS, **kw: Any) -> PassResult:
    """One pass on `project` with the scripted `model` (None: no model) on the fixed clock;
    `kw` goes to run_pass (`step`, `jobs`, …)."""
    from gitgarden.gardener.pipeline import run_pass

    return run_pass(project, settings, model=model, now=lambda: FIXED_NOW, **kw)


def capture(project: Project, day: str, *lines: str) -> str:
    """Append `lines` to the journal's day file `day` as a person types them (no gitgarden code);
    returns the file's project-relative path."""
    path = project.journal / f"{day}.md"
    old = path.read_text() if path.exists() else ""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(old + "".join(line + "\n" for line in lines))
    return str(path.relative_to(project.root))


def capture_line(project: Project) -> Path:
    """LINE captured (appended) on 2026-11-29, the line `promote()` makes a page of; its day file."""
    return project.root / capture(project, "2026-11-29", LINE)


def promote() -> dict[str, Any]:
    """A reply that makes capture_line's line the page `acme`."""
    return {"operations": [{"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]}]}


def promote_reply(*older: str) -> dict[str, Any]:
    """A reply over three lines of 2026-11-29 (Acme signed; export before January; chatter): a
    new page `acme`, an append to `pricing`, the third line skipped with the `older` line ids."""
    return {
        "operations": [
            {"op": "create_page", "page": "acme", "title": "Acme", "body": "Acme signed the pilot contract.\n", "lines": ["2026-11-29#1"]},
            {"op": "append", "page": "pricing", "text": "Acme wants export before January.\n", "lines": ["2026-11-29#2"]},
            {"op": "skip", "lines": [*older, "2026-11-29#3"]},
        ]
    }

def invoke(project: Project, *args: str, model: FakeModel | None = None, env: dict[str, str] | None = None, input: str | None = None) -> Any:
    """Run a `gitgarden` command inside `project` with the scripted model and the fixed clock; `env`
    adds to (or, with "", clears) the command's environment (GITGARDEN_MODEL=fake/scripted)."""
    from click.testing import CliRunner

    from gitgarden.cli.main import App, cli

    cwd = os.getcwd()
    os.chdir(project.root)
    try:
        app = App(env={"GITGARDEN_MODEL": "fake/scripted", **(env or {})}, now=lambda: FIXED_NOW, model_factory=lambda s, e: model)
        return CliRunner().invoke(cli, list(args), obj=app, input=input)
    finally:
        os.chdir(cwd)


def workspace(root: Path) -> dict[str, bytes]:
    """Every file of a project outside .git, by relative path: to check that nothing changed."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            out[str(path.relative_to(root))] = path.read_bytes()
    return out
