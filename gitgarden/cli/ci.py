"""`gitgarden ci`: a scheduled CI job as the gardener of a shared wiki.

The job checks the wiki out, runs one pass (which fetches, commits and pushes
through the project's `remote` setting) and ends with the exit status cron
would get. Nothing asks a question; the summary goes to the job's log and, on
GitHub, to the step summary. `gitgarden ci init github|gitlab` prints a
ready workflow.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from gitgarden.cli.app import App, err, out_json, pass_app

if TYPE_CHECKING:
    from gitgarden.gardener.outcome import PassResult

__all__ = ["register", "TEMPLATES", "summary_markdown"]

# One run per branch at a time (the remote is the lock between machines anyway; this saves
# the second job from doing the work only to have its push replayed or taken back).
GITHUB = """\
# .github/workflows/gitgarden.yml: one gardener pass every few hours on this wiki.
# Repository settings: a variable GITGARDEN_MODEL (e.g. openai/gpt-4o-mini) and a secret
# GITGARDEN_API_KEY. The project's .gitgarden/config.toml sets remote = "origin".
name: gitgarden
on:
  schedule:
    - cron: "17 */3 * * *"
  workflow_dispatch:
concurrency:
  group: gitgarden-${{ github.ref }}
  cancel-in-progress: false
permissions:
  contents: write
jobs:
  garden:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - run: pip install "gitgarden @ git+<URL of your gitgarden clone>@v0.2.0"
      - run: gitgarden ci
        env:
          GITGARDEN_MODEL: ${{ vars.GITGARDEN_MODEL }}
          GITGARDEN_API_KEY: ${{ secrets.GITGARDEN_API_KEY }}
"""

GITLAB = """\
# .gitlab-ci.yml (or include it): one gardener pass per scheduled pipeline.
# CI/CD settings: a variable GITGARDEN_MODEL, a masked variable GITGARDEN_API_KEY, and a
# project access token with write_repository as GITGARDEN_PUSH_TOKEN; a pipeline schedule.
# The project's .gitgarden/config.toml sets remote = "origin".
gitgarden:
  image: python:3.12
  rules:
    - if: $CI_PIPELINE_SOURCE == "schedule"
  resource_group: gitgarden-$CI_COMMIT_REF_NAME
  variables:
    GIT_DEPTH: "0"
  script:
    - pip install "gitgarden @ git+<URL of your gitgarden clone>@v0.2.0"
    - git checkout -B "$CI_COMMIT_REF_NAME" "origin/$CI_COMMIT_REF_NAME"
    - git remote set-url origin "https://oauth2:${GITGARDEN_PUSH_TOKEN}@${CI_SERVER_HOST}/${CI_PROJECT_PATH}.git"
    - gitgarden ci
"""

TEMPLATES = {"github": GITHUB, "gitlab": GITLAB}


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


@ci.command("init")
@click.argument("kind", type=click.Choice(sorted(TEMPLATES)))
@pass_app
def ci_init(app: App, kind: str) -> None:
    """Print a ready workflow for KIND (github or gitlab) to save in the repository."""
    click.echo(TEMPLATES[kind], nl=False)


def register(cli: click.Group) -> None:
    """Add `ci` to the command group."""
    cli.add_command(ci)


def _run_ci(app: App, as_json: bool) -> None:
    from gitgarden.gardener.pipeline import run_pass
    from gitgarden.schedule import registry

    project = app.project()
    settings = app.settings(project).settings
    model = app.model_factory(settings, app.env) if settings.model else None
    result = run_pass(project, settings, model=model, now=app.now, on_progress=err, trigger="ci")
    registry.record_attempt(project.root, result, app.env, app.now())
    summary = summary_markdown(result, project.name)
    if as_json:
        out_json(result.record())
    else:
        click.echo(summary, nl=False)
    step_summary = app.env.get("GITHUB_STEP_SUMMARY")
    if step_summary:
        try:
            with Path(step_summary).open("a", encoding="utf-8") as fh:
                fh.write(summary)
        except OSError as exc:
            err(f"gitgarden: could not write the step summary ({exc.strerror})")
    sys.exit(result.exit_code)
