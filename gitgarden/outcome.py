"""What a pass ends in: the outcomes with their exit statuses, and the record a pass leaves.

Kept apart from the pass itself so the CLI, the scheduler and the history
read one definition.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

__all__ = ["OUTCOMES", "NO_MODEL_HINT", "LOG_DIR", "PassResult", "log_path"]

# outcome -> (exit status, sentence). Exit 0 is the pass doing its job.
OUTCOMES: dict[str, tuple[int, str]] = {
    "nothing_new": (0, "nothing new in the journal"),
    "nothing_earned": (0, "nothing earned a page; the journal lines are marked read"),
    "pages_written": (0, "pages written; the journal lines are marked read"),
    "tidied": (0, "map and links tidied; nothing new in the journal"),
    "no_model": (0, "no model configured: promotion skipped, the journal left unread"),
    "finished_without_writing": (10, "finished without writing; the journal left unread"),
    "some_refused": (11, "pages written, some writes refused; the journal left unread"),
    "stood_down": (12, "stood down: the person came back; the journal left unread"),
    "stopped": (13, "stopped on request; the journal left unread"),
    "refused": (14, "refused"),
    "failed": (15, "failed; the journal left unread"),
}

NO_MODEL_HINT = (
    "No model is configured: set GITGARDEN_MODEL (e.g. openai/gpt-4o-mini, or ollama_chat/llama3.2 "
    "with GITGARDEN_API_BASE) to promote journal lines."
)
LOG_DIR = "log"


@dataclass
class PassResult:
    """What a pass did, for the CLI, the log record and the commit trailers."""

    pass_id: str
    outcome: str
    detail: str = ""
    started: str = ""
    finished: str = ""
    record_path: str = ""  # the month's log file of the pass's start: one file per pass, whatever the clock does
    offered: list[str] = field(default_factory=list)
    overflow: int = 0
    marked_read: int = 0
    created: list[str] = field(default_factory=list)
    appended: list[str] = field(default_factory=list)
    split: list[str] = field(default_factory=list)
    tidied: list[str] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    model: str = ""
    snapshot: str = ""
    snapshot_error: str = ""
    journal_commit: str = ""
    commit: str = ""
    recovery: str = ""
    trigger: str = "run"  # who started the pass: "run by NAME <EMAIL>", "tick", "ci"
    stop: dict[str, Any] | None = None
    dry_run: bool = False
    diff: str = ""
    hints: list[str] = field(default_factory=list)
    grounding_min_score: float | None = None  # lowest rule-11 score of the prose that landed
    map_chars: int | None = None
    health_before: dict[str, int] = field(default_factory=dict)
    health_after: dict[str, int] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return OUTCOMES[self.outcome][0]

    @property
    def sentence(self) -> str:
        base = OUTCOMES[self.outcome][1]
        return f"{base}: {self.detail}" if self.detail else base

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def record(self) -> dict[str, Any]:
        """The log record (JSON-ready); never holds a key or a prompt."""
        data = asdict(self)
        data.pop("diff")
        data["exit_code"] = self.exit_code
        data["message"] = self.sentence
        return data


def log_path(now: datetime) -> str:
    """The month's log file a record goes to, relative to the project root."""
    return f"{LOG_DIR}/{now:%Y-%m}.jsonl"
