"""Starts gitgarden's MCP server on a fixed clock, for the tests that drive it over stdio:

    python tests/helpers/mcp_server.py PROJECT_ROOT ISO_INSTANT

The same server `gitgarden mcp` runs (`agents.server.build`), handed the clock a
test passes, so no test depends on the day it runs.
"""

from __future__ import annotations

import os
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gitgarden.agents.server import build  # noqa: E402
from gitgarden.project import find_project  # noqa: E402

if __name__ == "__main__":
    root, instant = Path(sys.argv[1]), datetime.fromisoformat(sys.argv[2])
    build(find_project(root), dict(os.environ), lambda: instant).run("stdio")
