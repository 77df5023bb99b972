"""`gitgarden ci`: a scheduled CI job as the gardener of a shared wiki, and the guard on pushes.

The job checks the wiki out, runs one pass (which fetches, commits and pushes
through the project's `remote` setting) and ends with the exit status cron
would get. Nothing asks a question; the summary goes to the job's log and, on
GitHub, to the step summary. `gitgarden ci init github|gitlab` prints a
ready workflow, which also runs `gitgarden guard --range` on every push and
pull request: the check on the remote's side (what it judges: `gitguard.pushed`).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

import click

from gitgarden.cli.app import App, echo, err, out_json, pass_app, settle_model_threads
from gitgarden.errors import GitError, GitgardenError
from gitgarden.repo import gitrepo
from gitgarden.services import run as passes

if TYPE_CHECKING:
    from gitgarden.gardener.outcome import PassResult

__all__ = ["ci", "TEMPLATES", "summary_markdown", "Source", "source_of"]

# One run per branch at a time (the remote is the lock between machines anyway; this saves
# the second job from doing the work only to have its push replayed or taken back).
# `{url}`, `{rev}` and `{remote}` are filled in for this clone by `ci init` (`_source`, `_remote_note`).
GITHUB = """\
# .github/workflows/gitgarden.yml: one gardener pass every few hours on this wiki, and the guard
# on every push and pull request (an agent's commit that breaks a rule fails the check, whatever
# its machine's hooks let through). Repository settings: a variable GITGARDEN_MODEL (e.g.
# openai/gpt-4o-mini) and a secret GITGARDEN_API_KEY. {remote}
name: gitgarden
on:
  schedule:
    - cron: "17 */3 * * *"
  workflow_dispatch:
  push:
  pull_request:
permissions:
  contents: read
jobs:
  guard:
    if: github.event_name == 'push' || github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: pip install "gitgarden @ git+{url}@{rev}"
      - name: gitgarden guard --range (every agent commit pushed)
        env:
          BASE: ${{{{ github.event.pull_request.base.sha || github.event.before }}}}
          TIP: ${{{{ github.event.pull_request.head.sha || github.sha }}}}
        run: |
          if [ -z "$BASE" ] || [ "$BASE" = 0000000000000000000000000000000000000000 ]; then
            BASE=$(git merge-base "origin/${{{{ github.event.repository.default_branch }}}}" "$TIP")
          fi
          gitgarden guard --range "$BASE..$TIP"
  garden:
    if: github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'
    concurrency:
      group: gitgarden-${{{{ github.ref }}}}
      cancel-in-progress: false
    permissions:
      contents: write
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: pip install "gitgarden @ git+{url}@{rev}"
      - run: gitgarden ci
        env:
          GITGARDEN_MODEL: ${{{{ vars.GITGARDEN_MODEL }}}}
          GITGARDEN_API_KEY: ${{{{ secrets.GITGARDEN_API_KEY }}}}
"""

GITLAB = """\
# .gitlab-ci.yml (or include it): one gardener pass per scheduled pipeline, and the guard on every
# push and merge request (an agent's commit that breaks a rule fails the pipeline, whatever its
# machine's hooks let through).
# CI/CD settings: a variable GITGARDEN_MODEL, a masked variable GITGARDEN_API_KEY, and a
# project access token with write_repository as GITGARDEN_PUSH_TOKEN; a pipeline schedule.
# {remote}
gitgarden-guard:
  image: python:3.12
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
    - if: $CI_PIPELINE_SOURCE == "push"
  variables:
    GIT_DEPTH: "0"
  script:
    - pip install "gitgarden @ git+{url}@{rev}"
    - BASE="${{CI_MERGE_REQUEST_DIFF_BASE_SHA:-$CI_COMMIT_BEFORE_SHA}}"
    - if [ "$BASE" = 0000000000000000000000000000000000000000 ]; then BASE=$(git merge-base "origin/$CI_DEFAULT_BRANCH" "$CI_COMMIT_SHA"); fi
    - gitgarden guard --range "$BASE..$CI_COMMIT_SHA"

gitgarden:
  image: python:3.12
  rules:
    - if: $CI_PIPELINE_SOURCE == "schedule"
  resource_group: gitgarden-$CI_COMMIT_REF_NAME
  variables:
    GIT_DEPTH: "0"
  script:
    - pip install "gitgarden @ git+{url}@{rev}"
    - git checkout -B "$CI_COMMIT_REF_NAME" "origin/$CI_COMMIT_REF_NAME"
    - git remote set-url origin "https://oauth2:${{GITGARDEN_PUSH_TOKEN}}@${{CI_SERVER_HOST}}/${{CI_PROJECT_PATH}}.git"
    - gitgarden ci
"""

# The pre-commit framework's config: the guard in front of agents (docs/agents.md, "The commit hooks").
PRE_COMMIT = """\
# .pre-commit-config.yaml: gitgarden's guard in front of agents' commits.
repos:
  - repo: {hook_repo}
    rev: {rev}
    hooks:
      - id: gitgarden-guard
"""

TEMPLATES = {"github": GITHUB, "gitlab": GITLAB, "pre-commit": PRE_COMMIT}


def summary_markdown(result: PassResult, project_name: str) -> str:
    """The pass in a few Markdown lines, for GitHub's step summary."""
    lines = [f"### gitgarden pass on {project_name}: {result.outcome}", "", result.sentence, ""]
    for label, items in (("created", result.created), ("appended", result.appended), ("split", result.split)):
        if items:
            lines.append(f"- {label}: {', '.join(f'`{p}`' for p in items)}")
    if result.offered:
        lines.append(f"- lines offered: {len(result.offered)}, read: {result.marked_read}")
    if result.refusals:
        lines.append(f"- refused: {len(result.refusals)}")
    if result.remote:
        lines.append(f"- remote: {result.remote}")
    if result.commit:
        lines.append(f"- commit: `{result.commit[:10]}`")
    return "\n".join(lines) + "\n"


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the pass record as JSON.")
@click.pass_context
def ci(ctx: click.Context, as_json: bool) -> None:
    """Run one pass as a scheduled CI job: no questions, the exit status cron would get, a summary."""
    if ctx.invoked_subcommand is not None:
        return
    app = ctx.find_object(App) or ctx.ensure_object(App)
    _run_ci(app, as_json)


@dataclass(frozen=True)
class Source:
    """Where this gitgarden can be installed from: a git URL (or '' when none is known), a local
    clone (or None), and the commit (or '')."""

    url: str
    clone: Path | None
    rev: str


URL_HOLE = "<a git URL your CI can clone gitgarden from>"
REV_HOLE = "<a commit id: git rev-parse HEAD in your gitgarden clone>"


def source_of(direct_url: str | None) -> Source:
    """Where the installed gitgarden came from, read from pip's `direct_url.json` (PEP 610): a git
    URL and its commit, or a clone on this disk, whose `origin` remote and HEAD commit are asked
    of git. A release tag is not carried with a push of a branch, so the commit is what names it."""


    try:
        data = json.loads(direct_url or "{}")
    except ValueError:
        data = {}
    url = str(data.get("url") or "") if isinstance(data, dict) else ""
    vcs = data.get("vcs_info") if isinstance(data, dict) else None
    if isinstance(vcs, dict) and vcs.get("vcs") == "git":
        return Source(url, None, str(vcs.get("commit_id") or ""))
    parsed = urlparse(url)
    if parsed.scheme != "file":
        return Source("", None, "")
    clone = Path(unquote(parsed.path))

    def ask(*args: str) -> str:
        try:
            return gitrepo.git(clone, *args, check=False).decode("utf-8", "replace").strip()
        except (GitError, OSError):
            return ""

    if not clone.is_dir() or not ask("rev-parse", "--show-toplevel"):
        return Source("", None, "")
    remote = ask("config", "--get", "remote.origin.url") or next(
        (ask("config", "--get", f"remote.{r}.url") for r in ask("remote").split()), ""
    )
    local = not remote or "://" not in remote and "@" not in remote  # a path: no CI can clone it
    return Source("" if local else remote, clone, ask("rev-parse", "HEAD"))


def _installed_source() -> Source:

    try:
        return source_of(metadata.distribution("gitgarden").read_text("direct_url.json"))
    except metadata.PackageNotFoundError:
        return Source("", None, "")


def _remote_note(remote: str | None) -> str:
    """What the template says of the project's `remote` setting (None: not run in a project)."""
    if remote == "origin":
        return 'The project\'s .gitgarden/config.toml sets remote = "origin" (commit it).'
    if remote:
        return f'WARNING: the project\'s remote is "{remote}", but the CI checkout names its remote origin: gitgarden config set remote origin'
    return 'Set the project\'s remote first: gitgarden config set remote origin (and commit .gitgarden/config.toml).'


@ci.command("init")
@click.argument("kind", type=click.Choice(sorted(TEMPLATES)))
@pass_app
def ci_init(app: App, kind: str) -> None:
    """Print a ready workflow for KIND (github, gitlab) or the pre-commit framework's config, filled
    in for this clone: the gitgarden commit and URL to install, the project's remote."""

    source = _installed_source()
    try:
        project = app.project()
        remote: str | None = app.settings(project).settings.remote
    except GitgardenError:
        remote = None
    hook_repo = source.url or (str(source.clone) if source.clone else "<the URL or path of your gitgarden clone>")
    echo(
        TEMPLATES[kind].format(url=source.url or URL_HOLE, rev=source.rev or REV_HOLE, remote=_remote_note(remote), hook_repo=hook_repo),
        nl=False,
    )
    if source.rev:
        where = f"the clone at {source.clone}" if source.clone else source.url
        err(f"gitgarden {source.rev[:10]} from {where}: the commit, since a release tag is not pushed with a branch.")
    if not source.url and kind != "pre-commit":
        err("No git URL is known for this gitgarden (installed from a folder without a remote): fill in the URL a CI job can clone.")
    if kind != "pre-commit" and remote != "origin":
        err(f"note: {_remote_note(remote)}")


def _run_ci(app: App, as_json: bool) -> None:

    project = app.project()
    settings = app.settings(project).settings
    result = passes.run(project, settings, env=app.env, now=app.now, model_factory=app.model_factory, on_progress=err, trigger="ci")
    summary = summary_markdown(result, project.name)
    if as_json:
        out_json(passes.shown(result))
    else:
        echo(summary, nl=False)
    step_summary = app.env.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        try:
            with Path(step_summary).open("a", encoding="utf-8") as fh:
                fh.write(summary)
        except OSError as exc:
            err(f"gitgarden: could not write the step summary ({exc.strerror})")
    settle_model_threads()
    sys.exit(result.exit_code)
