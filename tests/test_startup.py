"""Only a pass that calls a model pays litellm's import (~3 s on these machines)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gitgarden.project import Project


@pytest.mark.parametrize("args", [["--help"], ["status"], ["guard"], ["health"], ["schema"], ["run", "--help"]])
def test_commands_that_call_no_model_never_import_litellm(project: Project, args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitgarden", *args], cwd=project.root, capture_output=True, text=True, timeout=120
    )
    assert done.returncode in (0, 1, 3), done.stderr[-2000:]
    imported = [line for line in done.stderr.splitlines() if line.startswith("import time:")]
    assert imported, "importtime printed nothing: the check would be vacuous"
    assert not [line for line in imported if "litellm" in line or " openai" in line]


def test_a_run_with_nothing_new_never_imports_litellm(project: Project) -> None:
    env_model = {"GITGARDEN_MODEL": "openai/never-called", "GITGARDEN_API_BASE": "http://127.0.0.1:9/v1"}
    import os

    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitgarden", "run"],
        cwd=project.root, capture_output=True, text=True, timeout=120, env={**os.environ, **env_model},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "nothing new" in done.stderr
    assert "litellm" not in done.stderr


# What `status` (and a tick that finds nothing) does not need stays unimported: the YAML and
# page parsers, the tree, the TOML writer, OpenSSL's hashlib, subprocess, rich, the timers, the keys,
# the tick itself and the views of the web app.
DEFERRED = (
    "gitgarden.wiki.facts", "gitgarden.wiki.pages", "gitgarden.wiki.tree", "gitgarden.schedule.timers", "gitgarden.model.keys",
    "gitgarden.gardener.pipeline", "gitgarden.schedule.tick", "gitgarden.services.views",
    "yaml", "frontmatter", "tomli_w", "hashlib", "_hashlib", "subprocess", "shlex", "shutil", "pickle", "rich",
)  # fmt: skip


def test_status_defers_what_it_does_not_need(project: Project) -> None:
    import os

    (project.root / "raw/journal/2026-11-29.md").write_text("a line no model will read\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITGARDEN_MODEL")}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gitgarden", "status"], cwd=project.root, capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "NO MODEL" in done.stdout  # the path that names the timer's env file, too
    names = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "gitgarden.schedule" in names, "importtime printed nothing useful: the check would be vacuous"
    assert sorted(names & set(DEFERRED)) == []


def test_every_command_module_is_loaded_by_the_names_it_registers() -> None:
    """`cli.main` imports a command's module only when the command is named: its table must name
    exactly the commands each module holds, each under its own name, or a command would be missing."""
    import importlib

    import click

    from gitgarden.cli.main import ELSEWHERE, cli

    for module in sorted({m for m, _attr, _summary in ELSEWHERE.values()}):
        loaded = importlib.import_module(f"gitgarden.cli.{module}")
        held = {v for v in vars(loaded).values() if isinstance(v, click.Command) and v.callback and v.callback.__module__ == loaded.__name__}
        subs = {sub for v in held if isinstance(v, click.Group) for sub in v.commands.values()}
        named = {n: getattr(loaded, attr) for n, (m, attr, _summary) in ELSEWHERE.items() if m == module}
        assert all(cmd.name == n for n, cmd in named.items()), module
        assert held - subs == set(named.values()), module
    own = {name for name, command in cli.commands.items() if command.callback and command.callback.__module__ == cli.callback.__module__}
    assert own and not own & set(ELSEWHERE), "a name both in cli.main and in another module"


def test_each_summary_in_the_command_table_is_the_commands_own() -> None:
    """`--help` lists the other modules' commands from the table's summaries, not from the commands:
    each summary is the first sentence click makes of the command's help, so the two cannot drift."""
    import importlib
    import sys

    from gitgarden.cli.main import ELSEWHERE

    for name, (module, attribute, summary) in ELSEWHERE.items():
        command = getattr(importlib.import_module(f"gitgarden.cli.{module}"), attribute)
        assert summary == command.get_short_help_str(sys.maxsize), f"{name}: copy its first sentence into ELSEWHERE"


@pytest.mark.parametrize("width", [40, 80, 200])
def test_help_from_the_table_is_the_help_the_commands_give(width: int) -> None:
    """The lazy listing shortens each summary as click shortens a loaded command's help."""
    import click
    from click.testing import CliRunner

    from gitgarden.cli.main import ELSEWHERE, cli

    lazy = CliRunner().invoke(cli, ["--help"], terminal_width=width)
    eager = click.Group(cli.name, commands=cli.commands, params=cli.params, help=cli.help, context_settings=cli.context_settings)
    for name in ELSEWHERE:
        eager.add_command(cli.get_command(click.Context(cli), name), name)
    loaded = CliRunner().invoke(eager, ["--help"], terminal_width=width)
    assert lazy.exit_code == loaded.exit_code == 0
    assert "Commands:" in lazy.output and lazy.output == loaded.output


def test_help_imports_no_command_module(project: Project) -> None:
    """`gitgarden --help` lists every command from the table in `cli.main`, loading none of them."""
    names = _imported(project, ["--help"])
    assert "gitgarden.cli.main" in names, "importtime printed nothing useful: the check would be vacuous"
    assert sorted(n for n in names if n.startswith("gitgarden.cli.") and n not in {"gitgarden.cli.main", "gitgarden.cli.app"}) == []


@pytest.mark.parametrize(("args", "loaded", "not_loaded"), [
    (["status"], "gitgarden.cli.schedule", ["gitgarden.cli.history", "gitgarden.cli.agents", "gitgarden.cli.settings", "gitgarden.cli.guard"]),
    (["capture", "a line"], "gitgarden.cli.main", ["gitgarden.cli.schedule", "gitgarden.cli.history", "gitgarden.cli.guard", "gitgarden.cli.ci"]),
    (["guard", "--staged"], "gitgarden.cli.guard", ["gitgarden.cli.schedule", "gitgarden.cli.history", "gitgarden.cli.settings"]),
])  # fmt: skip
def test_a_command_imports_only_its_own_cli_module(project: Project, args: list[str], loaded: str, not_loaded: list[str]) -> None:
    names = _imported(project, args)
    assert loaded in names, "importtime printed nothing useful: the check would be vacuous"
    assert sorted(names & {*not_loaded, "gitgarden.gardener.outcome"}) == []


# Prints the modules loaded when the command ends (on stderr, after a marker). Read from sys.modules,
# not `-X importtime`: importtime does not see a module loaded by importlib.import_module, as
# `cli.main` loads the command modules.
_RUN_AND_LIST = (
    "import atexit, sys\n"
    "atexit.register(lambda: print('MODULES', *sorted(sys.modules), sep='\\n', file=sys.stderr))\n"
    "sys.argv = ['gitgarden', *sys.argv[1:]]\n"
    "from gitgarden.cli.main import main\n"
    "main()\n"
)


def _imported(project: Project, args: list[str], env: dict[str, str] | None = None) -> set[str]:
    """The modules `gitgarden ARGS` has loaded when it ends, run in the project."""
    done = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST, *args], cwd=project.root, capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode in (0, 3), done.stderr[-2000:]
    return set(done.stderr.rpartition("MODULES\n")[2].split())


def test_status_with_nothing_unread_reads_health_without_openssl_or_the_facts_pickle(project: Project) -> None:
    """Nothing unread: `status` asks the wiki graph whether health calls for a pass (git and SQLite,
    which it needs), and no more."""
    names = _imported(project, ["status"])
    assert "gitgarden.store.wikisync" in names, "status took another path: the check would be vacuous"
    assert sorted(names & {"hashlib", "_hashlib", "pickle", "shutil", "rich", "gitgarden.schedule.tick", "gitgarden.services.views"}) == []


def test_the_hook_passes_a_persons_commit_without_the_rules(project: Project) -> None:
    """The installed hook runs on every commit; a person's commit only learns it is not an agent's."""
    (project.wiki / "notes.md").write_text("a person's page\n")
    subprocess.run(["git", "add", "-A"], cwd=project.root, check=True)
    names = _imported(project, ["guard", "--hook", "--hook-name", "pre-commit"])
    assert "gitgarden.gitguard.hook" in names, "the hook took another path: the check would be vacuous"
    assert sorted(names & {"gitgarden.guard.rules", "hashlib", "_hashlib", "shutil", "difflib", "rich"}) == []


def test_an_agents_staged_append_is_judged_without_difflib_or_the_commit_machinery(project: Project) -> None:
    """`guard --staged` on an append (the usual agent's commit): the rules, not the code that makes
    gitgarden's own commits, nor difflib (only for lines an append leaves unpaired)."""
    import os

    (project.wiki / "index.md").write_text((project.wiki / "index.md").read_text() + "\nOne more line.\n")
    subprocess.run(["git", "add", "-A"], cwd=project.root, check=True)
    names = _imported(project, ["guard", "--staged"], env={**os.environ, "GITGARDEN_AGENT": "test-agent"})
    assert "gitgarden.guard.rules" in names, "the guard judged nothing: the check would be vacuous"
    assert sorted(names & {"gitgarden.repo.commits", "difflib", "shutil", "hashlib", "_hashlib", "rich"}) == []


def test_the_registry_knows_where_the_read_position_lives() -> None:
    from gitgarden.schedule import registry
    from gitgarden.wiki import journal

    assert registry.READ_PATH == journal.READ_PATH
