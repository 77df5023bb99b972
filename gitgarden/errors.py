"""One error hierarchy; the CLI turns each into a one-line message and a fixed exit code."""

from __future__ import annotations

# Exit statuses (documented in docs/exit-statuses.md).
EXIT_OK = 0
EXIT_USER = 1
EXIT_USAGE = 2
EXIT_GUARD = 3
EXIT_NOT_IN_GARDEN = 4  # `gitgarden ask`: no answer the garden can ground
EXIT_INTERRUPTED = 130


class GitgardenError(Exception):
    """A failure the person can act on: shown as one line, never as a traceback."""

    exit_code = EXIT_USER

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self) -> str:
        return str(self)


class NotAProject(GitgardenError):
    """The current folder is not inside a gitgarden project."""


class ConfigError(GitgardenError):
    """A settings file or value is malformed."""


class GitError(GitgardenError):
    """A git command failed in a way the person can see and fix."""


class ModelError(GitgardenError):
    """The model could not be reached or answered unusably; `reply` holds what it answered, when
    that was the trouble, and `request` which request failed, in words (both '' when unknown)."""

    def __init__(self, message: str, *, kind: str = "error", reply: str = "", request: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.reply = reply
        self.request = request


class LockHeld(GitgardenError):
    """Another pass holds the project's lock."""
