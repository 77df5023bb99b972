"""`python -m gitgarden` is the `gitgarden` command."""

from __future__ import annotations

from gitgarden.cli.main import main

if __name__ == "__main__":
    main()
