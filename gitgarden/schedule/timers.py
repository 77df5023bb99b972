"""Timers: the systemd user units and the crontab line that run `gitgarden tick`.

`gitgarden timer print|install|uninstall` writes and removes these. They live
apart from `schedule` because a tick never needs them: the tick itself applies
`enabled` and `interval_min`, so the timer only has to fire every minute, and
what it runs is `tick_command()`. Only files gitgarden wrote (marked with
`MARKER` or `CRON_TAG`) are ever replaced or removed.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from gitgarden.atomic import atomic_write
from gitgarden.config import state_dir, timer_env_file, user_config_path
from gitgarden.errors import GitgardenError

__all__ = [
    "Crontab",
    "SystemCrontab",
    "tick_command",
    "systemd_units",
    "systemd_dir",
    "install_systemd",
    "uninstall_systemd",
    "cron_line",
    "env_file",
    "ensure_env_file",
    "install_cron",
    "uninstall_cron",
]

MARKER = "Written by `gitgarden timer install`"
CRON_TAG = "# gitgarden tick (gitgarden timer install)"
UNIT_NAMES = ("gitgarden.service", "gitgarden.timer")
# Pinned in the unit and the crontab line to what they are where `timer install` runs: a
# timer with another XDG_STATE_HOME would read another project list (and other settings, keys).
_PINNED = ("GITGARDEN_CONFIG", "GITGARDEN_STATE")
ENV_FILE_TEMPLATE = """\
# gitgarden: the environment of the timer's `gitgarden tick` (the systemd service and the
# crontab line both read this file). Plain KEY=value lines; no `export`, no spaces around '='.
# Keep it private (mode 0600). The API key can live in `gitgarden keys set NAME` instead.
# GITGARDEN_MODEL=openai/gpt-4o-mini
# GITGARDEN_API_BASE=http://127.0.0.1:8080/v1
# GITGARDEN_API_KEY=
"""


def tick_command(
    *,
    argv0: str | None = None,
    executable: str | None = None,
    which: Callable[[str], str | None] = shutil.which,
) -> list[str]:
    """The absolute command a timer runs: this `gitgarden` executable, else `<python> -m gitgarden`, plus `tick`."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    executable = sys.executable if executable is None else executable
    here = Path(argv0)
    if here.name == "__main__.py" and here.parent.name == "gitgarden":
        return [str(Path(executable).absolute()), "-m", "gitgarden", "tick"]  # the interpreter in use
    if here.name == "gitgarden" and here.is_file():
        return [str(here.absolute()), "tick"]
    found = which("gitgarden")
    if found:
        return [str(Path(found).absolute()), "tick"]
    return [str(Path(executable).absolute()), "-m", "gitgarden", "tick"]


def _systemd_quote(arg: str, *, dollar: bool = False) -> str:
    text = arg.replace("%", "%%")  # systemd expands %-specifiers in these lines
    if dollar:
        text = text.replace("$", "$$")
    if any(c in text for c in " \t\"'\\;"):
        text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def _passed_on(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """GITGARDEN_CONFIG and GITGARDEN_STATE as absolute paths, as they resolve here and now."""
    return [
        ("GITGARDEN_CONFIG", str(user_config_path(env).expanduser().absolute())),
        ("GITGARDEN_STATE", str(state_dir(env).expanduser().absolute())),
    ]


def _xdg_config(env: Mapping[str, str]) -> Path:
    return Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME", "~")).expanduser() / ".config")


def env_file(env: Mapping[str, str]) -> Path:
    """The optional KEY=value file the timer reads (model, endpoint, API key): `$XDG_CONFIG_HOME/gitgarden/env`."""
    return timer_env_file(env)


def ensure_env_file(env: Mapping[str, str]) -> bool:
    """Write a commented env file (mode 0600) when there is none; True when it was written."""
    path = env_file(env)
    if os.path.lexists(path):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(ENV_FILE_TEMPLATE)
    return True


def systemd_units(command: Sequence[str], env: Mapping[str, str]) -> dict[str, str]:
    """The texts of gitgarden.service and gitgarden.timer."""
    # systemd expands $VARS in the arguments but not in the executable's path.
    exec_start = " ".join([_systemd_quote(command[0]), *(_systemd_quote(a, dollar=True) for a in command[1:])])
    environment = "".join(f"Environment={_systemd_quote(f'{k}={v}')}\n" for k, v in _passed_on(env))
    service = f"""\
# {MARKER}; `gitgarden timer uninstall` removes it.
# One tick: look at every registered project and run at most one gardener pass.
# Start: systemctl --user daemon-reload && systemctl --user enable --now gitgarden.timer
# Look:  systemctl --user list-timers gitgarden.timer; journalctl --user -u gitgarden.service
# Stop:  systemctl --user disable --now gitgarden.timer
[Unit]
Description=gitgarden tick: one gardener pass on the registered project that is due

[Service]
Type=oneshot
ExecStart={exec_start}
{environment}\
# A user service does not see your shell's environment: put GITGARDEN_MODEL,
# GITGARDEN_API_BASE and GITGARDEN_API_KEY (KEY=value lines) in this file; the
# crontab line of `gitgarden timer install --cron` reads the same file.
# The leading '-' makes it optional.
EnvironmentFile=-{str(env_file(env)).replace("%", "%%")}
Nice=10
"""
    timer = f"""\
# {MARKER}; `gitgarden timer uninstall` removes it.
# Start: systemctl --user daemon-reload && systemctl --user enable --now gitgarden.timer
# Stop:  systemctl --user disable --now gitgarden.timer
# It fires every minute on purpose: `gitgarden tick` applies `enabled` and
# `interval_min` itself (a tick that is not due reads one small file and ends),
# so `gitgarden config set --user interval_min 60` takes effect at once, with no
# reinstall and no daemon-reload. Persistent=true runs a tick missed while the
# machine slept or was off.
[Unit]
Description=Run gitgarden tick every minute (the tick applies interval_min)

[Timer]
OnCalendar=*-*-* *:*:00
Persistent=true

[Install]
WantedBy=timers.target
"""
    return {"gitgarden.service": service, "gitgarden.timer": timer}


def systemd_dir(env: Mapping[str, str]) -> Path:
    """`$XDG_CONFIG_HOME/systemd/user` (else `~/.config/systemd/user`)."""
    return _xdg_config(env) / "systemd" / "user"


def install_systemd(env: Mapping[str, str], command: Sequence[str]) -> list[tuple[Path, bool]]:
    """Write the two units (never over a file gitgarden did not write); (path, changed) for each."""
    folder = systemd_dir(env)
    plan: list[tuple[Path, str, bool]] = []
    for name, text in systemd_units(command, env).items():
        path = folder / name
        try:
            old = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            old = None
        if old is not None and old != text and MARKER not in old:
            raise GitgardenError(f"{path} exists and was not written by gitgarden: left alone (move it away first)")
        plan.append((path, text, old != text))
    for path, text, changed in plan:
        if changed:
            atomic_write(path, text)
    return [(path, changed) for path, _text, changed in plan]


def uninstall_systemd(env: Mapping[str, str]) -> tuple[list[Path], list[Path]]:
    """Remove the units gitgarden wrote: (removed, left alone because someone else wrote them)."""
    folder = systemd_dir(env)
    wants = folder / "timers.target.wants" / "gitgarden.timer"
    if os.path.lexists(wants):
        raise GitgardenError(
            "gitgarden.timer is enabled: run `systemctl --user disable --now gitgarden.timer` first, "
            "then `gitgarden timer uninstall`"
        )
    removed, left = [], []
    for name in UNIT_NAMES:
        path = folder / name
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue
        if MARKER in text:
            path.unlink()
            removed.append(path)
        else:
            left.append(path)
    return removed, left


def cron_line(command: Sequence[str], env: Mapping[str, str], *, which: Callable[[str], str | None] = shutil.which) -> str:
    """The crontab line: every minute, absolute paths, PATH and the state and config folders
    pinned, the same env file as the systemd service read (model, endpoint, key), output
    appended to `tick.log`."""
    dirs: list[str] = []
    git = which("git")
    for d in (str(Path(command[0]).parent), str(Path(git).parent) if git else "", "/usr/local/bin", "/usr/bin", "/bin"):
        if d and d not in dirs:
            dirs.append(d)
    assigns = [f"PATH={shlex.quote(':'.join(dirs))}"] + [f"{k}={shlex.quote(v)}" for k, v in _passed_on(env)]
    log = state_dir(env).expanduser().absolute() / "tick.log"
    envf = shlex.quote(str(env_file(env)))
    # `set -a` exports what follows; the env file comes last and wins, as EnvironmentFile= does in the unit.
    # The braces send a broken env file's error to the log too.
    body = (
        f"{{ set -a; {'; '.join(assigns)}; [ ! -r {envf} ] || . {envf}; set +a; "
        f"exec {' '.join(shlex.quote(a) for a in command)}; }} >> {shlex.quote(str(log))} 2>&1"
    )
    # cron turns an unescaped % into a newline; interval_min is applied by the tick itself.
    return f"* * * * * {body.replace('%', chr(92) + '%')} {CRON_TAG}"


class Crontab(Protocol):
    """The user's crontab, read and written whole (tests pass a fake)."""

    def read(self) -> str: ...

    def write(self, text: str) -> None: ...


@dataclass
class SystemCrontab:
    """The real crontab through `crontab -l` and `crontab -`."""

    env: Mapping[str, str]

    def _bin(self) -> str:
        found = shutil.which("crontab", path=self.env.get("PATH"))
        if not found:
            raise GitgardenError("crontab is not installed (or not on PATH): use `gitgarden timer install --systemd`")
        return found

    def read(self) -> str:
        proc = subprocess.run([self._bin(), "-l"], capture_output=True, text=True, check=False, timeout=30)
        if proc.returncode == 0:
            return proc.stdout
        if "no crontab" in proc.stderr.lower():
            return ""
        raise GitgardenError(f"crontab -l failed: {proc.stderr.strip() or proc.returncode}")

    def write(self, text: str) -> None:
        proc = subprocess.run([self._bin(), "-"], input=text, capture_output=True, text=True, check=False, timeout=30)
        if proc.returncode != 0:
            raise GitgardenError(f"crontab - failed: {proc.stderr.strip() or proc.returncode}")


def install_cron(line: str, crontab: Crontab) -> str:
    """Put `line` in the crontab in place of any earlier gitgarden line: 'added', 'updated' or 'unchanged'."""
    lines = crontab.read().splitlines()
    ours = [i for i, ln in enumerate(lines) if CRON_TAG in ln]
    if [lines[i] for i in ours] == [line]:
        return "unchanged"
    others = [ln for ln in lines if CRON_TAG not in ln]
    at = ours[0] if ours else len(others)
    crontab.write("\n".join([*others[:at], line, *others[at:]]) + "\n")
    return "updated" if ours else "added"


def uninstall_cron(crontab: Crontab) -> int:
    """Remove gitgarden's crontab line(s), leaving every other line; how many were removed."""
    lines = crontab.read().splitlines()
    keep = [ln for ln in lines if CRON_TAG not in ln]
    if len(keep) == len(lines):
        return 0
    crontab.write("\n".join(keep) + "\n" if keep else "")
    return len(lines) - len(keep)
