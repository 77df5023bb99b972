"""The two reference pages that are made, not written: `docs/commands.md` from the `--help` of
every command and subcommand, and `docs/settings.md` from `config.SPECS`.

    python -m gitgarden.cli.docs            # write both (run it after changing a command or a setting)
    python -m gitgarden.cli.docs --check    # exit 1, naming the stale file, when either differs

Both are read from the package itself, so they cannot say what the code does not do;
`tests/test_docs.py` fails when a file on disk differs from what this makes now.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gitgarden.cli.main import cli
from gitgarden.config import SPECS, Spec, env_name

__all__ = ["REGENERATE", "commands_page", "settings_page", "pages", "main"]

REGENERATE = "python -m gitgarden.cli.docs"
_WIDTH = 100  # help is wrapped at a fixed width, whatever the terminal: the page is the same everywhere
_MADE = f"<!-- Made by `{REGENERATE}` from the code; edit the code, then run it again. -->"


def _walk(command: click.Command, parent: click.Context | None, name: str) -> list[tuple[str, str]]:
    """(the full command line, its help text) for `command` and every subcommand below it, in order."""
    # make_context applies the command's own context settings (`-h` beside `--help`), as a real call does.
    ctx = command.make_context(name, [], parent=parent, resilient_parsing=True, terminal_width=_WIDTH, max_content_width=_WIDTH)
    found = [(ctx.command_path, command.get_help(ctx))]
    if isinstance(command, click.Group):
        for sub in command.list_commands(ctx):
            child = command.get_command(ctx, sub)
            if child is not None and not child.hidden:
                found += _walk(child, ctx, sub)
    return found


def commands_page() -> str:
    """`docs/commands.md`: every command's `--help`, as the command prints it."""
    helps = _walk(cli, None, "gitgarden")
    parts = [
        "# Commands",
        "",
        _MADE,
        "",
        "Every command and subcommand with its `--help`. `--debug` (before the command: "
        "`gitgarden --debug run`) shows a traceback instead of a one-line error; exit statuses are in "
        "[exit-statuses.md](exit-statuses.md), settings in [settings.md](settings.md).",
        "",
        *(f"- [`{path}`](#{_anchor(path)})" for path, _ in helps),
    ]
    for path, text in helps:
        parts += ["", f"## {path}", "", "```text", text.rstrip(), "```"]
    return "\n".join(parts) + "\n"


def _anchor(heading: str) -> str:
    """The anchor a forge gives a heading: lower case, spaces to hyphens, other punctuation dropped."""
    kept = "".join(c for c in heading.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def _range(spec: Spec) -> str:
    if spec.choices:
        return " / ".join(f"`{c}`" for c in spec.choices)
    if spec.lo is not None or spec.hi is not None:
        return f"{_number(spec.lo)} – {_number(spec.hi)}"
    if spec.type is bool:
        return "`true` / `false`"
    if spec.type is list:
        return "a list"
    return "text"


def _number(value: float | None) -> str:
    if value is None:
        return "…"
    return f"{int(value):,}" if float(value).is_integer() else str(value)


def _default(spec: Spec) -> str:
    value = spec.default
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if value in ("", [], ()):
        return "(empty)"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"`{value}`"


def _env(spec: Spec) -> str:
    return "—" if spec.project_only else f"`{env_name(spec.key)}`"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _scope(spec: Spec) -> str:
    if spec.project_only:
        return "project file only"
    if not spec.project_ok:
        return "environment, user file (never a project file)"
    return "any"


def settings_page() -> str:
    """`docs/settings.md`: one row a setting, from `config.SPECS`."""
    rows = [f"| `{s.key}` | {_default(s)} | {_range(s)} | {_env(s)} | {_scope(s)} | {_cell(s.help)} |" for s in SPECS]
    return "\n".join(
        [
            "# Settings",
            "",
            _MADE,
            "",
            "A setting is read from, first match wins: a flag of the command (`run --model`), the environment "
            "(`GITGARDEN_<KEY>`), the project's `.gitgarden/config.toml`, your user file (`GITGARDEN_CONFIG`, "
            "else `~/.config/gitgarden/config.toml`), the default. `gitgarden config list` shows each value and "
            "the layer it came from; `gitgarden config set KEY VALUE` writes the project file, `--user` your "
            "user file. A number out of range in a file is clamped to the range, with a warning; a misspelt "
            "key gets a suggestion. A list (`guard_agents`, `identity_files`) takes a TOML or JSON list or "
            "plain text, items separated by commas.",
            "",
            "Scope: *project file only* settings are the project's layout, the same on every machine (the "
            "environment and your user file are not read for them); *never a project file* settings are "
            "this machine's or yours alone (a committed file must not choose where a key goes or what command "
            "runs). Where a setting is explained at length: the model's in [local-models.md](local-models.md), "
            "the clocks in [scheduling.md](scheduling.md), the remote in [remotes-and-ci.md](remotes-and-ci.md), "
            "`grounding_min` and `guard_agents` in [guard.md](guard.md), the layout in [obsidian.md](obsidian.md).",
            "",
            "| setting | default | range | environment | scope | meaning |",
            "|---|---|---|---|---|---|",
            *rows,
        ]
    ) + "\n"


def pages() -> dict[str, str]:
    """The generated pages by their path from the repository's top."""
    return {"docs/commands.md": commands_page(), "docs/settings.md": settings_page()}


def main(argv: list[str] | None = None) -> int:
    """Write the pages under the current folder (the repository's top), or with `--check` say which differ."""
    args = sys.argv[1:] if argv is None else argv
    check = "--check" in args
    stale = []
    for rel, text in pages().items():
        path = Path.cwd() / rel
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        if check:
            stale.append(rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {rel}", file=sys.stderr)
    if stale:
        print(f"out of date: {', '.join(stale)}; run `{REGENERATE}` at the repository's top", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
