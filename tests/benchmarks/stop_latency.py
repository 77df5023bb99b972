"""How long `gitgarden run` takes to end after `gitgarden stop` during a streamed reply: a script, not a test.

    python3 tests/benchmarks/stop_latency.py --tries 50

Each try makes a project with one unread line, starts `gitgarden run` on a pseudo-terminal (so the
reply streams, as on a person's terminal) against tests/helpers/fake_openai.py's server, whose reply is
held either before its first token (a server reading the prompt) or after a few chunks (mid-reply),
runs `gitgarden stop` at a varied moment, and measures the seconds from the stop command's return
to the run's exit — the whole process, not only the pass. It prints, per moment, the median, the 90th
percentile and the worst of two delays: until the pass says "stopped on request", and until the process
has exited (litellm's own teardown at exit adds a second or two on a busy machine). Run it beside a busy
machine to see the figures under load.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.helpers.fake_openai import FakeOpenAI  # noqa: E402

SKIP = '{"operations": [{"op": "skip", "lines": ["2026-11-29#1"], "reason": "chatter"}]}'


def one(moment: str, n: int, work: Path) -> tuple[float, float]:
    """Seconds from `gitgarden stop` returning to the pass saying "stopped on request", and to `gitgarden run` ending."""
    home = work / f"home-{moment}-{n}"
    home.mkdir(parents=True)
    (home / ".gitconfig").write_text("[user]\n\tname = Pat\n\temail = pat@example.com\n[init]\n\tdefaultBranch = main\n")
    env = dict(os.environ, HOME=str(home), GIT_CONFIG_GLOBAL=str(home / ".gitconfig"), GIT_CONFIG_NOSYSTEM="1",
               GITGARDEN_CONFIG=str(home / "u.toml"), GITGARDEN_STATE=str(home / "state"), PYTHONPATH=str(ROOT),
               TERM="xterm-256color", LITELLM_LOCAL_MODEL_COST_MAP="True")  # fmt: skip
    cli = [sys.executable, "-m", "gitgarden"]
    root = home / "proj"
    subprocess.run([*cli, "init", str(root), "--no-register"], env=env, check=True, capture_output=True)
    (root / "raw/journal").mkdir(parents=True, exist_ok=True)
    (root / "raw/journal/2026-11-29.md").write_text("lunch was good\n")
    subprocess.run(["git", "-C", str(root), "add", "-A"], env=env, check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "notes"], env=env, check=True)
    gate = threading.Event()
    with FakeOpenAI() as server:
        if moment == "mid-reply":
            server.enqueue(SKIP, gate=gate, gate_after=2 + n % 3, chunk_chars=2)
        else:
            server.enqueue(SKIP, gate=gate)
        env.update(GITGARDEN_MODEL="openai/fake", GITGARDEN_API_BASE=server.base_url, GITGARDEN_NUM_RETRIES="0", GITGARDEN_MODE="full")
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        run = subprocess.Popen([*cli, "run"], cwd=root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)

        said: list[float] = []

        def drain() -> None:
            while True:
                try:
                    data = os.read(master, 4096)
                except OSError:
                    return
                if not data:
                    return
                if b"stopped on request" in data and not said:
                    said.append(time.monotonic())

        threading.Thread(target=drain, daemon=True).start()
        server.wait_for_requests(1, 120)
        time.sleep(0.2 + 0.1 * (n % 5))  # stops at varied moments
        subprocess.run([*cli, "stop"], cwd=root, env=env, capture_output=True, check=True)
        stopped = time.monotonic()
        run.wait(300)
        ended = time.monotonic()
        gate.set()
        os.close(master)
    if run.returncode != 13:
        raise SystemExit(f"try {n} ({moment}): run exited {run.returncode}, not 13 (stopped)")
    return (said[0] if said else ended) - stopped, ended - stopped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=50, help="tries per moment (default 50)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gitgarden-stop-"))
    print("| moment | tries | pass ended: median / 90th pct / worst s | process exited: median / 90th pct / worst s | exited within 2 s / 5 s |")
    print("|---|---|---|---|---|")
    for moment in ("before the first token", "mid-reply"):
        pairs = [one(moment, n, work) for n in range(args.tries)]
        cells = []
        for times in (sorted(p[0] for p in pairs), sorted(p[1] for p in pairs)):
            p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
            cells.append(f"{statistics.median(times):.2f} / {p90:.2f} / {times[-1]:.2f}")
        exits = [p[1] for p in pairs]
        within = f"{sum(t <= 2 for t in exits)}/{len(exits)} / {sum(t <= 5 for t in exits)}/{len(exits)}"
        print(f"| {moment} | {len(pairs)} | {cells[0]} | {cells[1]} | {within} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
