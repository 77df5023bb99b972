"""`gitgarden serve`: parse, check the web extra is installed, call `gitgarden.web.server.serve`."""

from __future__ import annotations

import click

from gitgarden.cli.app import App, err, pass_app
from gitgarden.errors import GitgardenError

__all__ = ["serve_cmd"]  # the commands, which `cli.main` loads by name

WEB_EXTRA = "gitgarden serve needs the web extra: pip install 'gitgarden[web]' (pipx: pipx install '.[web]' --force)"


@click.command("serve")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default="a free port", help="The port to serve on.")
@click.option(
    "--host",
    default=None,
    show_default="the garden's own loopback address, 127.x.y.z (127.0.0.1 where the machine has no other)",
    help="The address to bind; another than loopback prints a warning. On 127.0.0.1 other local web apps receive the garden's cookie.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the address in your browser.")
@pass_app
def serve_cmd(app: App, port: int, host: str | None, open_browser: bool) -> None:
    """Serve the garden in your browser (passes, pages and where they came from, journal, review, run)
    until Ctrl-C. The printed address carries a token: only a browser given it gets in, and only its
    page (with scripts on) can change the garden."""
    project = app.project()
    try:
        from gitgarden.web.server import serve
    except ImportError:
        raise GitgardenError(WEB_EXTRA) from None
    app.settings(project)  # a malformed config file: its one line now, not on the first page
    serve(
        project.root,
        host=host,
        port=port,
        open_browser=open_browser,
        env=app.env,
        now=app.now,
        model_factory=app.model_factory,
        say=err,
        show_url=click.echo,
    )
