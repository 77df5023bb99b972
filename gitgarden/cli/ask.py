"""`gitgarden ask`: parse, call `services.ask`, render the answer with its citations and the lines cited.

stdout carries the answer (or `--json`); the sentences code dropped go to stderr. An answer
nobody can ground — "Not in the garden" — exits EXIT_NOT_IN_GARDEN, so a script can tell it from
an answer and from an error.
"""

from __future__ import annotations

import sys

import click

from gitgarden.cli.app import App, err, out_json, pass_app
from gitgarden.errors import EXIT_NOT_IN_GARDEN
from gitgarden.services.ask import Answer, ask

__all__ = ["ask_cmd"]  # the commands, which `cli.main` loads by name


def _plain(text: str) -> str:
    """Stored text made safe for a terminal: control characters (an escape sequence could retitle
    the terminal or write its clipboard) shown as U+FFFD."""
    return "".join(ch if ch.isprintable() else "\ufffd" for ch in text)


@click.command("ask")
@click.argument("question", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="Plain JSON: the answer, its sentences and their citations, the lines, whether it abstained.")
@click.option("--model", "model_flag", help="Override the model for this question.")
@pass_app
def ask_cmd(app: App, question: tuple[str, ...], as_json: bool, model_flag: str | None) -> None:
    """Answer QUESTION from the garden: every sentence cites its page and the journal lines it rests
    on (`[[lease]] 2026-11-23#4`), and code checks it as it checks a pass's sentences: a number, name
    or date its lines lack drops it. Where a later line corrected a value, the newest is given and
    the older named as corrected.

    Reads only: no file, commit or setting changes. An answer nobody can ground is "Not in the
    garden", with the nearest pages to read, and exits 4.
    """
    project = app.project()
    settings = app.settings(project, model=model_flag).settings
    answer = ask(project, " ".join(question), env=app.env, now=app.now, model_factory=app.model_factory, settings=settings)
    for text, why in answer.dropped:
        err(f"note: dropped {_plain(text)!r}: {why}")
    if as_json:
        out_json(answer.to_json())
    else:
        _render(answer)
    if answer.abstained:
        sys.exit(EXIT_NOT_IN_GARDEN)


def _render(answer: Answer) -> None:
    if answer.abstained:
        click.echo(answer.text)
        if answer.unknown:
            click.echo(f"The garden holds nothing about: {', '.join(_plain(w) for w in answer.unknown)}.")
        if answer.nearest:
            click.echo("Nearest pages: " + ", ".join(f"[[{_plain(n)}]] {_plain(t)}" for n, t in answer.nearest))
        return
    for sentence in answer.sentences:
        click.echo(_plain(sentence.shown))
        click.echo(f"  {_plain(sentence.citation)}")
    click.echo("\nCited lines:")
    for line in answer.lines:
        click.echo(f"  {line.id}  {_plain(line.text)}")
