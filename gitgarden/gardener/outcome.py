"""What a pass ends in: the outcomes with their exit statuses, and the record a pass leaves.

Kept apart from the pass itself so the CLI, the scheduler and the history
read one definition.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from gitgarden.gardener.jobs import JOBS

__all__ = [
    "JOBS",
    "OUTCOMES",
    "NO_MODEL_HINT",
    "PassResult",
]

# outcome -> (exit status, sentence). Exit 0 is the pass doing its job.
OUTCOMES: dict[str, tuple[int, str]] = {
    "nothing_new": (0, "nothing new in the journal"),
    "nothing_earned": (0, "nothing earned a page; the skipped lines are marked read"),
    "pages_written": (0, "pages written; the lines that landed or were skipped are marked read"),
    "tidied": (0, "map and links tidied; nothing new in the journal"),
    "no_model": (0, "no model configured: promotion skipped, the journal left unread"),
    "finished_without_writing": (10, "finished without writing a page; the journal left unread"),
    "some_refused": (11, "some operations refused; their lines left unread, the landed and skipped ones marked read"),
    "stood_down": (12, "stood down: the person came back; the journal left unread"),
    "stopped": (13, "stopped on request; the journal left unread"),
    "refused": (14, "refused"),
    "failed": (15, "failed; the journal left unread"),
}
# A dry run marks nothing: its sentences say what a real pass would do.
_DRY_RUN = {
    "nothing_earned": "nothing earned a page; the skipped lines would be marked read",
    "pages_written": "pages would be written; the lines that landed or were skipped would be marked read",
    "some_refused": "some operations would be refused; the landed and skipped lines would be marked read",
}
# A pass without the promote job never looks at the journal: its sentences say so.
_NO_PROMOTE = {"tidied": "tidied", "nothing_new": "nothing to do"}

NO_MODEL_HINT = (
    "No model is configured: set GITGARDEN_MODEL (e.g. openai/gpt-4o-mini, or ollama_chat/llama3.2 "
    "with GITGARDEN_API_BASE) to promote journal lines."
)



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
    not_cited: list[str] = field(default_factory=list)  # offered lines no landed operation or skip cites: unread
    # Lines read only because a skip cited them: {"line": id, "text": the line, "reason": the skip's reason}.
    skipped: list[dict[str, str]] = field(default_factory=list)
    # Lines offered and left unread, each with why: {"line": id, "text": the line, "reason": why}
    # (its request failed and how, the model was unsure, an operation citing it was refused, no
    # operation cited it). Offered lines are read, skipped or here: none leaves without a word.
    unread: list[dict[str, str]] = field(default_factory=list)
    already_there: list[str] = field(default_factory=list)  # operations whose text already stood: landed, nothing written
    # What each landed operation wrote, traced to the lines it cites (`history.provenance` reads it):
    # {"page": name, "op": kind, "text": the text written, "lines": [{"id": …, "text": the line word for word}]}.
    provenance: list[dict[str, Any]] = field(default_factory=list)
    # The lines the pass read that came through `gitgarden mcp` (its capture log): the name each client gave (its claim, never proof of who) -> line ids.
    captured_by: dict[str, list[str]] = field(default_factory=dict)
    rounds: list[dict[str, Any]] = field(default_factory=list)  # per model round: refused, landed (and why no repair)
    set_aside: list[str] = field(default_factory=list)  # lines this pass set aside, with why
    retry: bool = False  # `run --retry`: the set-aside lines were offered again
    created: list[str] = field(default_factory=list)
    appended: list[str] = field(default_factory=list)
    split: list[str] = field(default_factory=list)
    tidied: list[str] = field(default_factory=list)
    # What the pass meant to write but did not (it stopped, stood down, failed): the lists above
    # name only writes that landed in a commit.
    not_written: dict[str, list[str]] = field(default_factory=dict)
    refusals: list[str] = field(default_factory=list)
    # Rule 11's refused sentences, one object each: {"round", "op", "page", "sentence", "score",
    # "threshold", "missing", "unfounded", "cited", "lines_holding": {line id: [words]}}.
    grounding: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    tokens_estimated: bool = False  # a call was abandoned (stop, stand-down): its prompt tokens are an estimate
    model: str = ""
    endpoint: str = ""  # where the model's requests went, in words ('' for a model that has none, a scripted one)
    served_by: str = ""  # the model the endpoint said answered, when it named another than `model`
    # Why a failed pass failed, when a model request did it: {"error", "kind", "request": which request,
    # in words, "reply": the start of what the model answered (when that was the trouble)}.
    failure: dict[str, str] = field(default_factory=dict)
    mode: str = ""  # how the model was used: "full" (it writes operations) or "small" (it only judges each line; code writes)
    fit: str = ""  # what a slow endpoint's measured pace made the pass shrink, in one sentence ('' when nothing)
    snapshot: str = ""
    snapshot_error: str = ""
    journal_commit: str = ""
    commit: str = ""
    recovery: str = ""
    remote: str = ""  # what the pass did with the remote (fetched, fast-forwarded, pushed…)
    taken_back: str = ""  # the pass commit undone in this clone because the remote would not take it
    trigger: str = "run"  # who started the pass: "run by NAME <EMAIL>", "tick", "ci"
    stop: dict[str, Any] | None = None
    dry_run: bool = False
    diff: str = ""
    hints: list[str] = field(default_factory=list)
    grounding_min_score: float | None = None  # lowest rule-11 score of the prose that landed
    map_chars: int | None = None
    health_before: dict[str, int] = field(default_factory=dict)
    health_after: dict[str, int] = field(default_factory=dict)
    jobs: list[str] = field(default_factory=lambda: list(JOBS))  # the jobs the pass ran, in JOBS order
    job_figures: dict[str, dict[str, Any]] = field(default_factory=dict)  # job -> what it came to

    @property
    def all_jobs(self) -> bool:
        """True when the pass ran every job (the default)."""
        return tuple(self.jobs) == JOBS

    def hold_back_writes(self) -> None:
        """Move what the pass meant to write to `not_written`: nothing of it landed."""
        for label in ("created", "appended", "split", "tidied"):
            items = getattr(self, label)
            if items:
                self.not_written.setdefault(label, []).extend(items)
                setattr(self, label, [])

    @property
    def exit_code(self) -> int:
        return OUTCOMES[self.outcome][0]

    @property
    def sentence(self) -> str:
        base = _DRY_RUN.get(self.outcome, OUTCOMES[self.outcome][1]) if self.dry_run else OUTCOMES[self.outcome][1]
        if "promote" not in self.jobs and self.outcome in _NO_PROMOTE:
            base = f"{_NO_PROMOTE[self.outcome]} (jobs: {', '.join(self.jobs)}); the journal left unread"
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
