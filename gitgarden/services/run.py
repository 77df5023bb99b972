"""Running one pass, as every face runs it: the command line (`run`, `ci`, `tick`) and the web app's
run panel call `run` and only render what it returns.

`run` makes the model from the settings (only when the pass will ask it), runs the pass, and
records the attempt for the tick's clocks. Whether the model's reply is streamed is the display's
to say (`gardener.steps.token_steps`: a display that redraws tokens gets them as they come); the
model reads a plain reply either way, so no face depends on how its endpoint answers. A pass is
stopped by `stop`, from any face: the pass watches for the request and ends within a second.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from gitgarden.config import Settings
from gitgarden.errors import LockHeld
from gitgarden.gardener.outcome import JOBS, PassResult
from gitgarden.gardener.pipeline import request_stop, run_pass
from gitgarden.gardener.steps import Step
from gitgarden.model.llm import Model
from gitgarden.model.provider import make_model
from gitgarden.project import Project
from gitgarden.repo import gitdir, gitrepo, lock
from gitgarden.repo.lock import PassLock
from gitgarden.schedule.registry import Attempt, record_attempt

__all__ = ["JOBS", "ModelFactory", "Step", "make_model", "run", "shown", "stop", "running", "person_trigger", "exclusive"]

ModelFactory = Callable[[Settings, Mapping[str, str]], Model | None]


def run(
    project: Project,
    settings: Settings,
    *,
    env: Mapping[str, str],
    now: Callable[[], datetime],
    model_factory: ModelFactory = make_model,
    on_progress: Callable[[str], None] = lambda _msg: None,
    on_step: Callable[[Step], None] = lambda _step: None,
    dry_run: bool = False,
    retry: bool = False,
    jobs: Sequence[str] = (),
    trigger: str | None = None,
    record: bool = True,
    on_attempt: Callable[[Attempt | None], None] = lambda _attempt: None,
) -> PassResult:
    """One pass on `project` with `settings` (read by the face, which shows their warnings its way).

    `on_progress` hears the pass's messages, `on_step` its steps (and the reply's tokens, when it is
    a display that shows them). `trigger` says who asked (None: the person of this checkout, as
    `run by NAME <EMAIL>`). `record` False leaves the attempt to the caller (the tick records a
    pass that could not even start, too); else the attempt is recorded and handed to `on_attempt`.
    """
    promote = not jobs or "promote" in jobs
    # The model-free jobs never make a model: its library stays unimported.
    model = model_factory(settings, env) if settings.model and promote else None
    result = run_pass(
        project,
        settings,
        model=model,
        now=now,
        dry_run=dry_run,
        on_progress=on_progress,
        on_step=on_step,
        retry=retry,
        trigger=trigger or person_trigger(project),
        jobs=list(jobs) or None,
    )
    if record:
        on_attempt(record_attempt(project.root, result, env, now(), on_message=on_progress))
    return result


def person_trigger(project: Project) -> str:
    """`run by NAME <EMAIL>`: the person whose git identity this checkout commits under."""
    name, email = gitrepo.person_identity(project.root)
    return f"run by {name} <{email}>"


def shown(result: PassResult) -> dict[str, Any]:
    """The pass as `--json` and the run panel show it: its record, with the diff of a dry run."""
    data = result.record()
    if result.dry_run:
        data["diff"] = result.diff
    return data


def running(project: Project) -> dict[str, Any] | None:
    """The pass holding the project's lock (its id, pid, start), or None when none runs."""
    return lock.holder(gitdir.git_dir(project.root))


def stop(project: Project, *, who: str, when: datetime) -> dict[str, Any] | None:
    """Ask the running pass to stop (it ends within a second and writes nothing more); the pass it
    asked, or None when none was running and nothing was asked."""
    holder = running(project)
    if holder is not None:
        request_stop(gitdir.git_dir(project.root), who=who, when=when)
    return holder


@contextmanager
def exclusive(project: Project, settings: Settings, what: str, when: datetime) -> Iterator[None]:
    """Hold the project's pass lock (as `what`), with the git settings a pass runs under, while a face
    changes the project (an undo, a review decision): no pass writes meanwhile. LockHeld, naming the
    holder, when one is running."""
    policy = gitrepo.GitPolicy(timeout=float(settings.git_timeout), sign_commits=settings.sign_commits)
    try:
        with PassLock(gitdir.git_dir(project.root), {"pass_id": what, "started": when.isoformat()}), gitrepo.git_policy(policy):
            yield
    except LockHeld as exc:
        raise LockHeld(f"{exc}: try again when it has finished; nothing changed") from None
