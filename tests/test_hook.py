"""`gitgarden hook install`: the guard in front of an agent's commits, never in front of the person's.

Real repositories in temporary folders, the hook installed by the command itself,
commits made by `git commit` as a person or an agent would make them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gitgarden.gitguard import hook
from gitgarden.project import Project
from tests.helpers.project import (
    FakeModel,
    capture_line,
    commit_all,
    garden,
    git,
    page,
    promote,
    write,
)

ACME = page("Acme", "Acme signed the pilot.\nThey pay monthly.\n", source="[2026-11-29]")


def gitgarden(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gitgarden", *args], cwd=root, capture_output=True, text=True, env=env
    )


def commit(
    root: Path, *args: str, agent: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`git commit -q ARGS` as the person, or as an agent whose harness sets GITGARDEN_AGENT."""
    env = dict(env if env is not None else os.environ)
    if agent is not None:
        env["GITGARDEN_AGENT"] = agent
    return subprocess.run(
        ["git", "-C", str(root), "commit", "-q", *args], capture_output=True, text=True, env=env
    )


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A person's git repository, a gitgarden project (settings only, no init), with the hooks installed."""
    root = tmp_path / "vault"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".gitgarden/config.toml", "")
    write(root, "AGENTS.md", "# How agents work here\n")
    write(root, "wiki/acme.md", ACME)
    write(root, "wiki/pricing.md", page("Pricing", "400 EUR a month.\n", source="[2026-11-29]"))
    write(root, "raw/journal/2026-11-29.md", "Acme signed the pilot\n")
    commit_all(root, "notes")
    done = gitgarden(root, "hook", "install")
    assert done.returncode == 0, done.stderr
    return root


def reword(root: Path) -> None:
    path = root / "wiki/acme.md"
    path.write_text(path.read_text().replace("monthly", "yearly"))
    git(root, "add", "-A")


def delete(root: Path) -> None:
    git(root, "rm", "-q", "wiki/acme.md")


def rename(root: Path) -> None:
    git(root, "mv", "wiki/acme.md", "wiki/Acme Corp.md")


def edit_agents(root: Path) -> None:
    write(root, "AGENTS.md", "# How agents work here\nAgents may do anything.\n")
    git(root, "add", "-A")


def human_note(root: Path) -> None:
    write(root, "wiki/New idea.md", "A thought without frontmatter, as people write them.\n")
    git(root, "add", "-A")


def fix_journal_typo(root: Path) -> None:
    write(root, "raw/journal/2026-11-29.md", "Acme signed the pilot.\n")
    git(root, "add", "-A")


def commit_precommit_config(root: Path) -> None:
    write(root, ".pre-commit-config.yaml", "repos: []\n")
    git(root, "add", "-A")


def make_executable(root: Path) -> None:
    (root / "wiki/acme.md").chmod(0o755)
    git(root, "add", "-A")


def add_executable_page(root: Path) -> None:
    write(root, "wiki/run-me.md", page("Run me", "Acme signed the pilot.\n"))
    (root / "wiki/run-me.md").chmod(0o755)
    git(root, "add", "-A")


def append_reversed_price(root: Path) -> None:
    path = root / "wiki/pricing.md"
    path.write_text(path.read_text() + "Acme costs \u202e500 EUR a month.\n")
    git(root, "add", "-A")


def page_with_a_second_frontmatter(root: Path) -> None:
    write(root, "wiki/beta.md", page("Beta", "---\ngardener: false\n---\nBeta signed.\n"))
    git(root, "add", "-A")


CHANGES: list[tuple[Callable[[Path], None], str]] = [
    (reword, "rule 4 (no-rewording)"),
    (delete, "rule 2 (no-deletion)"),
    (rename, "rule 2 (no-deletion)"),
    (edit_agents, "rule 1 (writable-surface)"),
    (human_note, "rule 7 (valid-page)"),  # a human name is fine; a page without a state is not
    (fix_journal_typo, "rule 6 (journal)"),
    (commit_precommit_config, "rule 1 (writable-surface)"),
    (make_executable, "rule 4 (no-rewording)"),
    (add_executable_page, "rule 3 (safe-new-file)"),
    (append_reversed_price, "rule 7 (valid-page)"),
    (page_with_a_second_frontmatter, "rule 7 (valid-page)"),
]


@pytest.mark.parametrize(("change", "rule"), CHANGES, ids=[c.__name__ for c, _ in CHANGES])
def test_the_persons_own_commit_never_notices_the_hook(vault: Path, change: Callable[[Path], None], rule: str) -> None:
    before = head(vault)
    change(vault)
    done = commit(vault, "-m", "my own edit")
    assert done.returncode == 0, done.stderr
    assert done.stdout + done.stderr == ""  # silent on success
    assert head(vault) != before


@pytest.mark.parametrize(("change", "rule"), CHANGES, ids=[c.__name__ for c, _ in CHANGES])
def test_an_agents_commit_that_breaks_a_rule_is_refused_and_named(vault: Path, change: Callable[[Path], None], rule: str) -> None:
    before = head(vault)
    change(vault)
    done = commit(vault, "-m", "an agent overreaches", agent="claude-code")
    assert done.returncode != 0
    said = (done.stdout + done.stderr).strip().splitlines()
    assert any(rule in line for line in said[:-1]), said
    assert all(line.startswith(("wiki/", "raw/", "AGENTS.md", ".pre-commit")) for line in said[:-1])
    assert "git commit --no-verify" in said[-1] and "SKIP=gitgarden-guard" in said[-1]
    assert "GITGARDEN_AGENT=claude-code" in said[-1]
    assert head(vault) == before  # nothing committed
    assert git(vault, "diff", "--cached", "--name-only") != ""  # and nothing unstaged either


def test_a_verdict_names_the_file_and_line(vault: Path) -> None:
    reword(vault)
    done = commit(vault, "-m", "reword", agent="x")
    first = (done.stdout + done.stderr).splitlines()[0]
    # The reworded line is line 7 of the committed page (after five lines of frontmatter).
    assert first == "wiki/acme.md:7: rule 4 (no-rewording): a line of the page was changed or removed: 'They pay monthly.'"


def test_an_agent_may_create_a_page_with_a_human_name_and_append(vault: Path) -> None:
    write(vault, "wiki/New idea.md", page("New idea", "A thought worth keeping.\n", source="[2026-11-29]"))
    with (vault / "wiki/acme.md").open("a") as fh:
        fh.write("They want export before January.\n")
    with (vault / "raw/journal/2026-11-29.md").open("a") as fh:
        fh.write("Acme wants export\n")  # journal appends are capture, not a pass's [recovered] line
    git(vault, "add", "-A")
    done = commit(vault, "-m", "an agent's notes", agent="x")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout + done.stderr == ""
    assert "wiki/New idea.md" in git(vault, "show", "--name-only", "--format=", "HEAD")


def test_an_unsafe_human_name_is_still_refused(vault: Path) -> None:
    write(vault, "wiki/What? Why.md", page("What", "x\n"))
    git(vault, "add", "-A")
    done = commit(vault, "-m", "odd name", agent="x")
    assert done.returncode != 0 and "rule 3 (safe-new-file)" in done.stdout + done.stderr


def test_an_agents_unstaging_of_a_page_is_refused(vault: Path) -> None:
    """`git rm --cached` leaves the file on disk: only the index shows the page leaving the repository."""
    before = head(vault)
    git(vault, "rm", "-q", "--cached", "wiki/acme.md")
    done = commit(vault, "-m", "untrack a page", agent="x")
    assert done.returncode != 0
    assert "wiki/acme.md: rule 2 (no-deletion)" in done.stdout + done.stderr
    assert head(vault) == before
    # By hand: --staged sees it, the work-tree check does not (the file is still there).
    assert gitgarden(vault, "guard", "--staged").returncode == 3
    assert gitgarden(vault, "guard").returncode == 0


def test_an_agents_append_commits_with_an_untracked_scratch_file_around(vault: Path) -> None:
    write(vault, "scratch.txt", "agent's scratch, never committed\n")
    write(vault, "wiki/Unfinished draft", "not a page, not staged\n")
    with (vault / "wiki/acme.md").open("a") as fh:
        fh.write("They want export before January.\n")
    git(vault, "add", "wiki/acme.md")
    done = commit(vault, "-m", "append", agent="x")
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(vault, "show", "--name-only", "--format=", "HEAD").split() == ["wiki/acme.md"]


def test_commit_a_and_commit_paths_are_judged_by_the_index_git_builds_for_them(vault: Path) -> None:
    """`commit -a` and `commit <paths>` commit a temporary index (GIT_INDEX_FILE), not .git/index."""
    reword(vault)  # staged in the real index, and not what the next commit holds
    with (vault / "wiki/pricing.md").open("a") as fh:
        fh.write("Volume discounts from ten seats.\n")
    done = commit(vault, "-m", "append only", "--", "wiki/pricing.md", agent="x")
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(vault, "show", "--name-only", "--format=", "HEAD").split() == ["wiki/pricing.md"]
    assert "M  wiki/acme.md" in git(vault, "status", "--porcelain")  # the reword is still only staged
    before = head(vault)
    done = commit(vault, "-a", "-m", "everything", agent="x")
    assert done.returncode != 0 and "rule 4 (no-rewording)" in done.stdout + done.stderr
    assert head(vault) == before


def test_the_hook_works_without_gitgarden_on_path(vault: Path) -> None:
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    before = head(vault)
    reword(vault)
    refused = commit(vault, "-m", "agent", agent="x", env=env)
    assert refused.returncode != 0 and "rule 4 (no-rewording)" in refused.stdout + refused.stderr
    assert "not found" not in refused.stderr
    assert head(vault) == before
    done = commit(vault, "-m", "person", env=env)
    assert done.returncode == 0 and done.stdout + done.stderr == ""


def test_an_author_matching_guard_agents_is_an_agent(vault: Path) -> None:
    write(vault, ".gitgarden/config.toml", 'guard_agents = ["* (aider)"]\n')
    commit_all(vault, "settings")
    before = head(vault)
    reword(vault)
    done = commit(vault, "--author", "Pat (aider) <pat@example.com>", "-m", "aider: reword")
    assert done.returncode != 0 and "matches guard_agents '* (aider)'" in done.stderr
    assert head(vault) == before
    assert commit(vault, "-m", "the person").returncode == 0


@pytest.mark.parametrize(
    ("pattern", "author", "hit"),
    [
        ("* (aider)", "Pat (aider) <pat@example.com>", True),
        ("* (aider)", "Pat <pat@example.com>", False),
        ("*@bots.example.com", "Bot <ci@bots.example.com>", True),
        ("codex", "Codex Agent <a@b>", True),  # no glob: a substring, any case
        ("", "Pat <pat@example.com>", False),
    ],
)
def test_guard_agents_patterns(pattern: str, author: str, hit: bool) -> None:
    assert hook.matches_author(pattern, author) is hit


def test_an_existing_hook_is_chained_its_refusal_respected_and_restored(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".gitgarden/config.toml", "")
    write(root, "wiki/acme.md", ACME)
    commit_all(root)
    mine = root / ".git/hooks/pre-commit"
    ran = tmp_path / "ran"
    text = f'#!/bin/sh\necho ran >> "{ran}"\ntest ! -e "{tmp_path / "block"}" || {{ echo "not on Fridays"; exit 7; }}\n'
    mine.write_text(text)
    mine.chmod(0o750)

    assert hook.status(root).state == "foreign"
    assert gitgarden(root, "hook", "install").returncode == 0
    installed = mine.read_bytes()
    assert gitgarden(root, "hook", "install").returncode == 0  # idempotent
    assert mine.read_bytes() == installed
    found = hook.status(root)
    assert found.state == "installed" and found.chained == root / ".git/hooks" / hook.CHAINED_NAME
    assert found.python == sys.executable

    write(root, "wiki/new-page.md", page("New page", "x\n"))
    git(root, "add", "-A")
    assert commit(root, "-m", "person").returncode == 0
    assert ran.read_text() == "ran\n"  # the person's hook ran first
    (tmp_path / "block").touch()
    write(root, "wiki/other.md", page("Other", "y\n"))
    git(root, "add", "-A")
    refused = commit(root, "-m", "blocked")
    assert refused.returncode != 0 and "not on Fridays" in refused.stdout + refused.stderr

    assert gitgarden(root, "hook", "uninstall").returncode == 0
    assert mine.read_text() == text and (mine.stat().st_mode & 0o777) == 0o750
    assert not (root / ".git/hooks" / hook.CHAINED_NAME).exists()
    again = gitgarden(root, "hook", "uninstall")
    assert again.returncode == 0 and "not gitgarden's" in again.stderr
    assert mine.read_text() == text


def test_status_says_not_installed_and_json(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    done = gitgarden(tmp_path, "hook", "status", "--json")
    assert json.loads(done.stdout)["state"] == "not installed"
    assert gitgarden(tmp_path, "hook", "uninstall").returncode == 0
    assert not (tmp_path / ".git/hooks/pre-commit").exists()


def test_install_respects_core_hooks_path_and_worktrees(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".gitgarden/config.toml", "")
    write(root, "wiki/acme.md", ACME)
    commit_all(root)
    git(root, "worktree", "add", "-q", str(tmp_path / "second"))
    assert gitgarden(tmp_path / "second", "hook", "install").returncode == 0
    assert hook.status(root).state == "installed"  # one hooks folder for every worktree
    assert (root / ".git/hooks/pre-commit").exists()

    git(root, "config", "core.hooksPath", "shared-hooks")
    assert gitgarden(root, "hook", "install").returncode == 0
    assert hook.status(root).hook == root / "shared-hooks/pre-commit"
    assert (root / "shared-hooks/pre-commit").read_text().startswith("#!/bin/sh")


def test_a_first_commit_by_an_agent_is_judged_against_the_empty_tree(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    write(tmp_path, ".gitgarden/config.toml", "")
    (tmp_path / "wiki").mkdir()
    assert gitgarden(tmp_path, "hook", "install").returncode == 0
    write(tmp_path, "wiki/start.md", page("Start", "First page.\n"))
    write(tmp_path, "AGENTS.md", "# rules\n")
    git(tmp_path, "add", "-A")
    done = commit(tmp_path, "-m", "first", agent="x")
    assert done.returncode != 0
    assert "AGENTS.md: rule 1 (writable-surface)" in done.stdout + done.stderr
    assert "wiki/start.md" not in done.stdout + done.stderr


def test_verbose_and_json_list_the_skipped_checks(vault: Path) -> None:
    quiet = gitgarden(vault, "guard", "--hook", env={**os.environ, "GITGARDEN_AGENT": "x"})
    assert quiet.returncode == 0 and quiet.stdout + quiet.stderr == ""
    loud = gitgarden(vault, "guard", "--hook", "--verbose", env={**os.environ, "GITGARDEN_AGENT": "x"})
    assert loud.returncode == 0 and "skipped: rule 11" in loud.stderr
    data = json.loads(gitgarden(vault, "guard", "--staged", "--json").stdout)
    assert data["ok"] is True and data["skipped"]


# -- gitgarden's own commits under the hook ---------------------------------------------------


def pass_creates_acme(project: Project, model: FakeModel) -> None:
    """One pass that makes capture_line's line the page `acme` (helpers.project's promote), committed."""
    capture_line(project)
    result = garden(project, model.enqueue(promote()))
    assert result.created == ["wiki/acme.md"] and result.commit, (result.outcome, result.detail)


def test_a_pass_and_undo_run_by_an_agent_commit_under_the_hook(
    project: Project, fake_model: FakeModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert gitgarden(project.root, "hook", "install").returncode == 0
    monkeypatch.setenv("GITGARDEN_AGENT", "claude-code")  # the agent's harness runs gitgarden
    pass_creates_acme(project, fake_model)
    assert (project.root / "wiki/acme.md").exists()
    # Undo removes the page the pass created: an agent's deletion, but gitgarden's own commit.
    done = gitgarden(project.root, "undo")
    assert done.returncode == 0, done.stderr
    assert not (project.root / "wiki/acme.md").exists()
    assert "Gardener-Undoes" in git(project.root, "log", "-1", "--format=%B")


def test_a_persons_hook_refusing_undo_is_quoted_in_the_error(project: Project, fake_model: FakeModel) -> None:
    pass_creates_acme(project, fake_model)
    mine = project.root / ".git/hooks/pre-commit"
    mine.write_text("#!/bin/sh\necho 'lint: wiki/index.md is not sorted'\necho 'run make lint'\nexit 1\n")
    mine.chmod(0o755)
    assert gitgarden(project.root, "hook", "install").returncode == 0
    before = head(project.root)
    done = gitgarden(project.root, "undo")
    assert done.returncode != 0
    assert "lint: wiki/index.md is not sorted" in done.stderr and "run make lint" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert head(project.root) == before


# -- the pre-commit framework -------------------------------------------------------------


@pytest.mark.slow
def test_the_pre_commit_framework_runs_the_hook_from_a_commit(tmp_path: Path) -> None:
    """`pre-commit try-repo` installs gitgarden from a local clone at a commit id, as a person's
    `.pre-commit-config.yaml` would (`rev: <commit>`: a clone need not have the release tag),
    and runs the hook on what is staged."""
    pytest.importorskip("pre_commit", reason="pre-commit is not installed (pip install -e '.[dev]')")
    source = Path(__file__).resolve().parent.parent
    sha = subprocess.run(["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True)
    if sha.returncode != 0:
        pytest.skip("the gitgarden source is not a git checkout")
    clone = tmp_path / "gitgarden-clone"
    git(tmp_path, "clone", "-q", "--no-checkout", str(source), str(clone))
    git(clone, "checkout", "-q", sha.stdout.strip())
    root = tmp_path / "vault"
    root.mkdir()
    git(root, "init", "-q")
    write(root, "wiki/acme.md", ACME)
    commit_all(root)
    reword(root)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the hook's own install runs
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")
    # pre-commit builds the hook's environment with pip from the package index: without the index
    # the test cannot run (a skip); with it, any failure to build or run the hook is a failure.
    probe = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir", "--dest", str(tmp_path / "probe"), "tomli-w"],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    if probe.returncode != 0:
        pytest.skip(f"pip cannot fetch from the package index (offline?): {(probe.stderr.strip() or probe.stdout.strip()).splitlines()[-1:]}")

    def try_repo(**extra: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "pre_commit", "try-repo", str(clone), hook.HOOK_ID, "--ref", sha.stdout.strip()]
        return subprocess.run(argv, cwd=root, capture_output=True, text=True, env={**env, **extra}, timeout=900)

    person = try_repo()
    said = person.stdout + person.stderr
    assert person.returncode == 0, said
    assert "Passed" in said and "rule 4" not in said
    agent = try_repo(GITGARDEN_AGENT="codex")
    said = agent.stdout + agent.stderr
    assert agent.returncode != 0, said
    assert "wiki/acme.md:7: rule 4 (no-rewording)" in said and "SKIP=gitgarden-guard" in said
