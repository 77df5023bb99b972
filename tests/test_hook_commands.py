"""The hooks in front of every command that makes a commit, and the wall behind them.

Real repositories, the hooks installed by `gitgarden hook install`, driven by real
`git revert`, `git cherry-pick`, `git merge` and `git am` as an agent (GITGARDEN_AGENT
set by its harness) or the person would run them. Then what no client hook can
see: `gitgarden guard --range` over a pushed range, and `--pre-receive` as a bare
remote's own hook.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitgarden.gitguard import hook
from gitgarden.project import Project, init_project
from tests.helpers.project import commit_all, git, page, write

ACME = page("Acme", "Acme signed the pilot.\nThey pay monthly.\n", source="[2026-11-29]")


def run(root: Path, *args: str, agent: str | None = None, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A git command as the person, or as an agent whose harness sets GITGARDEN_AGENT."""
    env = dict(os.environ)
    if agent is not None:
        env["GITGARDEN_AGENT"] = agent
    env.update(extra or {})
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env)


def gitgarden(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gitgarden", *args], cwd=root, capture_output=True, text=True, input=stdin)


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    """A gitgarden project whose person committed a page, with the hooks installed."""
    root = Project(init_project(tmp_path / "wiki").root).root
    write(root, "wiki/acme.md", ACME)
    write(root, "raw/journal/2026-11-29.md", "Acme signed the pilot\n")
    commit_all(root, "the person's page")
    done = gitgarden(root, "hook", "install")
    assert done.returncode == 0, done.stderr
    return root


# -- item 6: revert, cherry-pick, merge, am ----------------------------------------------------


def test_an_agents_revert_of_the_persons_commit_is_refused_and_says_what_it_left(wiki: Path) -> None:
    before = head(wiki)
    done = run(wiki, "revert", "--no-edit", "HEAD", agent="claude-code")
    assert done.returncode != 0
    assert "wiki/acme.md: rule 2 (no-deletion)" in done.stdout + done.stderr
    assert "git reset --merge" in done.stderr and "refused this revert" in done.stderr
    assert head(wiki) == before
    # What git left staged is taken back as the refusal says.
    assert run(wiki, "reset", "--merge").returncode == 0
    assert (wiki / "wiki/acme.md").read_text() == ACME and git(wiki, "status", "--porcelain") == ""


def test_the_persons_own_revert_passes_without_a_word(wiki: Path) -> None:
    done = run(wiki, "revert", "--no-edit", "HEAD")
    assert done.returncode == 0, done.stderr
    assert "gitgarden" not in done.stdout + done.stderr
    assert not (wiki / "wiki/acme.md").exists()


def _side_branch_deleting_the_page(root: Path) -> str:
    """The person deletes the page on a side branch (theirs to do); main moves on too."""
    git(root, "checkout", "-q", "-b", "side")
    git(root, "rm", "-q", "wiki/acme.md")
    git(root, "commit", "-qm", "drop acme on side")
    side = head(root)
    git(root, "checkout", "-q", "main")
    write(root, "wiki/other.md", page("Other", "Something else.\n"))
    commit_all(root, "main moves on")
    return side


def test_an_agents_cherry_pick_of_a_page_deletion_is_refused(wiki: Path) -> None:
    side = _side_branch_deleting_the_page(wiki)
    before = head(wiki)
    done = run(wiki, "cherry-pick", side, agent="codex")
    assert done.returncode != 0
    assert "wiki/acme.md: rule 2 (no-deletion)" in done.stdout + done.stderr
    assert "refused this cherry-pick" in done.stderr
    assert head(wiki) == before


def test_an_agents_no_ff_merge_of_a_branch_deleting_a_page_is_refused(wiki: Path) -> None:
    _side_branch_deleting_the_page(wiki)
    before = head(wiki)
    done = run(wiki, "merge", "--no-ff", "--no-edit", "side", agent="codex")
    assert done.returncode != 0
    assert "wiki/acme.md: rule 2 (no-deletion)" in done.stdout + done.stderr
    assert "git merge --no-verify" in done.stderr
    assert head(wiki) == before
    run(wiki, "merge", "--abort")
    assert run(wiki, "merge", "--no-ff", "--no-edit", "side").returncode == 0  # the person's own merge


def test_an_agents_git_am_of_a_page_deletion_is_refused(wiki: Path, tmp_path: Path) -> None:
    side = _side_branch_deleting_the_page(wiki)
    git(wiki, "format-patch", "-q", "-1", side, "-o", str(tmp_path / "patches"))
    before = head(wiki)
    done = run(wiki, "am", *sorted(str(p) for p in (tmp_path / "patches").iterdir()), agent="aider")
    assert done.returncode != 0
    assert "wiki/acme.md: rule 2 (no-deletion)" in done.stdout + done.stderr
    assert head(wiki) == before
    run(wiki, "am", "--abort")


def test_hook_status_names_what_each_hook_covers_and_what_no_hook_can(wiki: Path) -> None:
    done = gitgarden(wiki, "hook", "status")
    assert done.returncode == 0
    assert done.stdout.startswith("installed:")
    for name in ("pre-commit", "pre-merge-commit", "prepare-commit-msg", "pre-applypatch"):
        assert f"{name}: installed" in done.stdout
    assert "git revert and git cherry-pick" in done.stdout and "git am" in done.stdout
    assert "not covered" in done.stdout and "git rebase" in done.stdout and "--no-verify" in done.stdout
    assert "guard --range" in done.stdout


# -- items 7-10: gitgarden's own state, its marker, binary pages, the agent variable --------------


@pytest.mark.parametrize(
    ("rel", "text"),
    [
        (".gitgarden/read.json", '{\n  "2026-11-29": ["0123456789abcdef"]\n}\n'),
        (".gitgarden/set-aside.json", "{}\n"),
        ("log/2026-11.jsonl", '{"outcome": "pages_written", "pass_id": "forged"}\n'),
        (".gitgarden/evil.sh", "#!/bin/sh\nrm -rf ~\n"),
    ],
)
def test_an_agent_may_not_commit_gitgardens_own_state(wiki: Path, rel: str, text: str) -> None:
    write(wiki, rel, text)
    git(wiki, "add", "-f", rel)
    before = head(wiki)
    done = run(wiki, "commit", "-qm", "mark lines read", agent="claude-code")
    assert done.returncode != 0
    assert f"{rel}: rule 1 (writable-surface)" in done.stderr  # git shows a hook's output on stderr
    assert head(wiki) == before
    assert run(wiki, "commit", "-qm", "the person's own").returncode == 0  # the person may


@pytest.mark.parametrize("marker", ["1", "0123456789abcdef0123456789abcdef"])
def test_no_mark_an_agent_can_mint_in_the_checkout_lets_its_commit_through(wiki: Path, marker: str) -> None:
    """The old own-commit mark: a file named by a token's hash in the git dir and the token in the
    environment. An agent in the same checkout can make both; nothing of the kind is honoured."""
    import hashlib

    own = Path(git(wiki, "rev-parse", "--absolute-git-dir").strip()) / "gitgarden/own-commits"
    own.mkdir(parents=True, exist_ok=True)
    (own / hashlib.sha256(marker.encode()).hexdigest()).write_text("")
    git(wiki, "rm", "-q", "wiki/acme.md")
    before = head(wiki)
    done = run(wiki, "commit", "-qm", "delete", agent="x", extra={"GITGARDEN_OWN_COMMIT": marker})
    assert done.returncode != 0 and "rule 2 (no-deletion)" in done.stderr
    assert head(wiki) == before


def test_a_new_page_with_binary_content_is_refused(wiki: Path) -> None:
    frontmatter = b"---\ntitle: Blob\nstate: open\nsource: []\n---\n"
    for body in (b"hello\x00\x00\x00binary\n", b"hello \x01\x02\x03\x04 binary\n"):
        (wiki / "wiki/blob.md").write_bytes(frontmatter + body)
        git(wiki, "add", "wiki/blob.md")
        done = run(wiki, "commit", "-qm", "a binary page", agent="x")
        assert done.returncode != 0 and "wiki/blob.md: rule 3 (safe-new-file)" in done.stderr, done.stderr
        assert "binary" in done.stderr


def test_a_whitespace_agent_name_is_an_agent_in_the_hook_script_and_in_python(wiki: Path) -> None:
    assert hook.agent_name({"GITGARDEN_AGENT": " "}) == " "
    assert hook.agent_name({"GITGARDEN_AGENT": ""}) is None
    git(wiki, "rm", "-q", "wiki/acme.md")
    done = run(wiki, "commit", "-qm", "delete", agent=" ")
    assert done.returncode != 0 and "rule 2 (no-deletion)" in done.stderr
    assert "GITGARDEN_AGENT=' '" in done.stderr
    # The script's own test, when the guard's interpreter is gone, agrees.
    script = hook.hook_script("/nonexistent/python", "pre-commit", ".")
    said = subprocess.run(["sh", "-c", script, "hook"], env={**os.environ, "GITGARDEN_AGENT": " "}, capture_output=True, text=True)
    assert said.returncode == 1 and "is gone" in said.stderr


# -- items 17-18: where the hooks judge, and where they are installed ---------------------------


def test_in_a_code_repository_the_hook_judges_only_the_project_folder(tmp_path: Path) -> None:
    top = tmp_path / "code"
    top.mkdir()
    git(top, "init", "-q")
    write(top, "src/app.py", "print('hello')\n")
    commit_all(top, "code")
    notes = Project(init_project(top / "notes").root).root
    write(notes, "wiki/acme.md", ACME)
    commit_all(top, "notes")
    assert gitgarden(notes, "hook", "install").returncode == 0
    write(top, "src/app.py", "print('hello, world')\n")
    git(top, "add", "-A")
    done = run(top, "commit", "-qm", "an agent fixes the app", agent="codex")
    assert done.returncode == 0, done.stdout + done.stderr  # outside the project the hook has nothing to say
    git(top, "rm", "-q", "notes/wiki/acme.md")
    done = run(top, "commit", "-qm", "an agent drops a page", agent="codex")
    assert done.returncode != 0 and "wiki/acme.md: rule 2 (no-deletion)" in done.stderr


def test_install_refuses_a_shared_hooks_folder_without_the_flag_and_outside_a_project(tmp_path: Path) -> None:
    root = Project(init_project(tmp_path / "p").root).root
    shared = tmp_path / "everyones-hooks"
    git(root, "config", "--global", "core.hooksPath", str(shared))
    refused = gitgarden(root, "hook", "install")
    assert refused.returncode == 1 and "--global-hooks-path" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert not shared.exists()
    done = gitgarden(root, "hook", "install", "--global-hooks-path")
    assert done.returncode == 0 and "Warning" in done.stderr and (shared / "pre-commit").exists()
    plain = tmp_path / "plain"
    plain.mkdir()
    git(plain, "init", "-q")
    git(plain, "config", "core.hooksPath", ".git/hooks")
    outside = gitgarden(plain, "hook", "install")
    assert outside.returncode == 1 and "not inside a gitgarden project" in outside.stderr
    assert not (plain / ".git/hooks/pre-commit").exists()


# -- the wall: pushed ranges and the remote's own hook -------------------------------------------


@pytest.fixture
def shared_wiki(wiki: Path, tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], check=True)
    git(wiki, "remote", "add", "origin", str(remote))
    git(wiki, "push", "-q", "origin", "main")
    return wiki, remote


def test_guard_range_finds_an_agents_commit_made_with_no_verify(shared_wiki: tuple[Path, Path]) -> None:
    root, _remote = shared_wiki
    write(root, "wiki/pricing.md", page("Pricing", "400 EUR a month.\n"))
    commit_all(root, "the person adds pricing")
    git(root, "rm", "-q", "wiki/acme.md")
    done = run(root, "commit", "-q", "--no-verify", "-m", "agent drops acme", agent="claude-code")
    assert done.returncode == 0  # the client hook was skipped …
    assert "Gardener-Agent: claude-code" in git(root, "log", "-1", "--format=%B")  # … but the commit is marked
    judged = gitgarden(root, "guard", "--range", "origin/main..HEAD")
    assert judged.returncode == 3
    assert "wiki/acme.md: rule 2 (no-deletion)" in judged.stdout
    assert judged.stdout.startswith(head(root)[:10])
    assert "1 judged commit(s) of 1" in judged.stderr  # the person's commit is not an agent's
    clean = gitgarden(root, "guard", "--range", "origin/main..HEAD~1")
    assert clean.returncode == 0


def test_guard_range_recognises_guard_agents_authors_by_the_settings_before_the_range(shared_wiki: tuple[Path, Path]) -> None:
    root, _remote = shared_wiki
    write(root, ".gitgarden/config.toml", 'guard_agents = ["* (aider)"]\n')
    commit_all(root, "agents are known")
    git(root, "push", "-q", "origin", "main")
    # The agent empties guard_agents and rewords a page, both without the hook.
    write(root, ".gitgarden/config.toml", "guard_agents = []\n")
    path = root / "wiki/acme.md"
    path.write_text(path.read_text().replace("monthly", "yearly"))
    git(root, "add", "-A")
    assert run(root, "commit", "-q", "--no-verify", "--author", "Bot (aider) <bot@x>", "-m", "aider").returncode == 0
    judged = gitgarden(root, "guard", "--range", "origin/main..HEAD", "--json")
    assert judged.returncode == 3
    import json

    data = json.loads(judged.stdout)
    rules = {(v["path"], v["rule"]) for c in data["commits"] for v in c["verdicts"]}
    assert ("wiki/acme.md", 4) in rules and (".gitgarden/config.toml", 1) in rules


def test_a_bare_remote_with_the_pre_receive_hook_refuses_an_agents_push(shared_wiki: tuple[Path, Path]) -> None:
    root, remote = shared_wiki
    receive = remote / "hooks" / "pre-receive"
    receive.write_text(f"#!/bin/sh\nexec {sys.executable} -m gitgarden guard --pre-receive\n")
    receive.chmod(0o755)
    before = git(remote, "rev-parse", "main").strip()
    git(root, "rm", "-q", "wiki/acme.md")
    assert run(root, "commit", "-q", "--no-verify", "-m", "agent drops acme", agent="codex").returncode == 0
    pushed = run(root, "push", "origin", "main")
    assert pushed.returncode != 0
    assert "wiki/acme.md: rule 2 (no-deletion)" in pushed.stderr
    assert git(remote, "rev-parse", "main").strip() == before
    # The person's own push goes through.
    git(root, "reset", "-q", "--hard", "HEAD~1")
    write(root, "wiki/pricing.md", page("Pricing", "400 EUR a month.\n"))
    commit_all(root, "the person adds pricing")
    assert run(root, "push", "origin", "main").returncode == 0
    # A new branch's agent commits are judged too.
    git(root, "checkout", "-q", "-b", "agent-work")
    git(root, "rm", "-q", "wiki/pricing.md")
    assert run(root, "commit", "-q", "--no-verify", "-m", "agent drops pricing", agent="codex").returncode == 0
    assert run(root, "push", "origin", "agent-work").returncode != 0


def test_ci_init_templates_run_the_range_check_on_pushes_and_pull_requests() -> None:
    from gitgarden.cli.ci import TEMPLATES

    assert "gitgarden guard --range" in TEMPLATES["github"] and "pull_request" in TEMPLATES["github"]
    assert "gitgarden guard --range" in TEMPLATES["gitlab"] and "merge_request" in TEMPLATES["gitlab"]


# -- the wall judges what it can prove: the people, signatures ---------------------------------------


PAT = "Pat Person <pat@example.com>"  # the identity the tests' git config gives the person


def _people(root: Path, extra: str = "") -> None:
    write(root, ".gitgarden/config.toml", f'people = ["{PAT}"]\n{extra}')
    commit_all(root, "the people of the project")
    git(root, "push", "-q", "origin", "main")


def test_with_people_set_an_unmarked_agent_commit_made_with_hooks_off_is_judged(shared_wiki: tuple[Path, Path]) -> None:
    root, _remote = shared_wiki
    _people(root)
    git(root, "rm", "-q", "wiki/acme.md")
    # An agent with its own identity commits with no hook at all: no trailer.
    done = run(root, "-c", "core.hooksPath=/nonexistent", "commit", "-q", "-m", "tidy", agent="codex",
               extra={"GIT_AUTHOR_NAME": "Codex", "GIT_AUTHOR_EMAIL": "codex@agents.example"})  # fmt: skip
    assert done.returncode == 0 and "Gardener-Agent" not in git(root, "log", "-1", "--format=%B")
    judged = gitgarden(root, "guard", "--range", "origin/main..HEAD")
    assert judged.returncode == 3 and "wiki/acme.md: rule 2 (no-deletion)" in judged.stdout
    assert "author Codex <codex@agents.example> not among the people" in judged.stderr
    # Under the person's name the commit is the person's to the wall, and the message says it cannot tell.
    git(root, "commit", "-q", "--amend", "--no-edit", "--reset-author")
    passed = gitgarden(root, "guard", "--range", "origin/main..HEAD")
    assert passed.returncode == 0
    assert "What it cannot see: who typed a commit: an agent that writes a person's name and email" in passed.stderr
    assert "What the wall cannot see" in gitgarden(root, "guard", "--help").stdout


def test_with_people_set_gitgardens_own_pass_is_judged_as_a_pass_and_lands(shared_wiki: tuple[Path, Path]) -> None:
    from tests.helpers.project import FakeModel, garden

    root, _remote = shared_wiki
    _people(root)
    write(root, "raw/journal/2026-11-30.md", "Beta signed the pilot too\n")
    commit_all(root, "a line")
    reply = {"operations": [{"op": "create_page", "page": "beta", "title": "Beta", "body": "Beta signed the pilot too.\n", "lines": ["2026-11-30#1"]}]}
    assert garden(Project(root), FakeModel().enqueue(reply)).outcome == "pages_written"
    judged = gitgarden(root, "guard", "--range", "origin/main..HEAD", "--json")
    assert judged.returncode == 0, judged.stdout
    import json

    whys = [c["agent"] for c in json.loads(judged.stdout)["commits"]]
    assert whys == ["gitgarden's own identity (gitgarden <gitgarden@localhost>), judged as a pass"]


def test_with_require_signed_an_unsigned_commit_is_judged_and_a_signed_one_passes(shared_wiki: tuple[Path, Path], tmp_path: Path) -> None:
    root, _remote = shared_wiki
    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    signers = tmp_path / "allowed_signers"
    signers.write_text(f"pat@example.com {(tmp_path / 'key.pub').read_text()}")
    for k, v in (("gpg.format", "ssh"), ("user.signingkey", str(key)), ("gpg.ssh.allowedSignersFile", str(signers))):
        git(root, "config", k, v)
    _people(root, "require_signed = true\n")
    path = root / "wiki/acme.md"
    path.write_text(path.read_text().replace("monthly", "yearly"))
    commit_all(root, "unsigned, under the person's name")
    judged = gitgarden(root, "guard", "--range", "origin/main..HEAD")
    assert judged.returncode == 3 and "rule 4 (no-rewording)" in judged.stdout
    assert "no good signature (git says N) where require_signed is set" in judged.stderr
    git(root, "commit", "-q", "--amend", "--no-edit", "-S")
    assert gitgarden(root, "guard", "--range", "origin/main..HEAD").returncode == 0
