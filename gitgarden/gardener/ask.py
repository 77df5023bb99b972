"""The context and ask steps of a pass (docs/architecture.md, "One pass", step 8): what the model sees, and the call itself.

`ask` chooses how the model is used (`model.provider.choose_mode`): in full
mode it builds the prompt from the project's files (never outside its root,
never through a symlink), narrows the offered lines to those the prompt
really held, and makes the call (`calls.call_model`); small mode's judging of each
line is `small.ask`. The stop request and the token/time budget are checked before
every call.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gitgarden.config import Settings
from gitgarden.errors import ModelError
from gitgarden.gardener import calls, changed, context
from gitgarden.gardener.context import PageInfo, estimate_tokens
from gitgarden.gardener.state import Pass, Work
from gitgarden.gardener.steps import Step, token_steps
from gitgarden.history.passlog import review_summary
from gitgarden.model import llm, speed
from gitgarden.model.operations import Op
from gitgarden.model.provider import choose_mode
from gitgarden.project import Project
from gitgarden.wiki import pages, tidy
from gitgarden.wiki.facts import page_facts
from gitgarden.wiki.journal import JournalLine
from gitgarden.wiki.tree import Tree

if TYPE_CHECKING:
    from gitgarden.model.llm import Answer, Budget, Model

__all__ = ["ask", "no_room_for", "premises"]

_REPAIR_OUTPUT_MIN = 256  # tokens a repair round must have left for its answer


def ask(run: Pass, work: Work) -> Answer:
    """Ask the model about the offered lines; returns its answer. The lines the prompt could not
    hold wait for a later pass: `work.offered` (and the result's `offered`) keep only the rest."""
    project, result, now = run.project, run.result, run.now
    model = run.model
    assert model is not None, "the pipeline asks only when a model is configured"
    result.mode = choose_mode(run.settings)[0]
    _fit_to_speed(run, model)  # a slow local server: fewer lines, a smaller prompt (said in one line)
    settings = run.settings
    run.budget = llm.Budget(tokens=settings.token_budget, seconds=float(settings.seconds_budget))
    offered = work.offered_lines()
    if len(offered) > settings.max_lines:
        result.overflow += len(offered) - settings.max_lines
        offered = offered[: settings.max_lines]
        work.offered = {ln.id: ln for ln in offered}
    result.offered = [ln.id for ln in offered]
    agents = project.root / "AGENTS.md"
    agents_md = agents.read_text(encoding="utf-8", errors="replace") if agents.is_file() and not agents.is_symlink() else ""
    if result.mode == "small":
        from gitgarden.gardener import small

        return small.ask(run, work, offered, premises=premises(agents_md))
    work.ctx_conversation = _conversation(project, settings.chat_window_chars)
    titles = work.titles
    inputs = context.ContextInputs(
        project_name=project.name,
        agents_md=agents_md,
        identity=_identity_texts(project, settings),
        map_text=tidy.read_text(work.base, pages.map_path()) or "",
        pages=_page_infos(work.base, titles),
        read_page=lambda name: tidy.read_text(work.base, pages.page_path(name)),
        unread=offered,
        overflow=result.overflow,
        conversation=work.ctx_conversation,
        today=f"{now().astimezone():%Y-%m-%d}",  # the person's day, as capture writes it
        candidates=tidy.candidates(offered, titles),
        review_summary=_review_summary(project.root) if settings.review else "",
    )
    messages, report = context.build_messages(inputs, settings)
    shown = set(report.lines_offered)
    held_back = [ln for ln in offered if ln.id not in shown]
    offered = [ln for ln in offered if ln.id in shown]
    result.overflow += len(held_back)
    result.offered = [ln.id for ln in offered]
    work.offered = {ln.id: ln for ln in offered}
    if report.conversation_chars < len(work.ctx_conversation):
        # A recovered line's evidence must come from what the model was shown.
        work.ctx_conversation = work.ctx_conversation[len(work.ctx_conversation) - report.conversation_chars :]
    answer = _ask_halving(run, messages, offered, lambda lines: context.build_messages(dataclasses.replace(inputs, unread=lines, candidates=tidy.candidates(lines, titles)), settings)[0])
    # A line that changes an earlier value gets its Open line from code, whatever the model noticed.
    return dataclasses.replace(answer, operations=changed.open_changes(answer.operations, work.offered, work.base))


def _ask_halving(
    run: Pass, messages: list[dict[str, str]], lines: list[JournalLine], prompt_for: Callable[[list[JournalLine]], list[dict[str, str]]]
) -> Answer:
    """One full-mode request; a reply cut off at the output limit (twice: `llm.ask` repairs once) is
    asked again as two smaller requests, each holding half the lines, down to one line: no line is
    dropped because a reply ran long."""
    model, budget = run.model, run.budget
    assert model is not None and budget is not None
    prompt_tokens = llm.estimate_tokens(messages)
    asking = Step("asking", f"{model.name} (about {prompt_tokens:,} prompt tokens)", expect_s=calls.reading_seconds(model, prompt_tokens))
    run.on_step(asking)
    try:
        return calls.call_model(run, model, messages, budget, token_steps(run.on_step, asking))
    except ModelError as exc:
        if exc.kind != "bad_output" or "cut off at the output limit" not in str(exc) or len(lines) < 2:
            raise
    half = len(lines) // 2
    run.on_progress(f"The reply was cut off at the output limit: asking again in two requests of {half} and {len(lines) - half} lines.")
    first = _ask_halving(run, prompt_for(lines[:half]), lines[:half], prompt_for)
    second = _ask_halving(run, prompt_for(lines[half:]), lines[half:], prompt_for)
    ops = [Op(op.kind, op.fields, op.lines, n) for n, op in enumerate([*first.operations, *second.operations])]
    return llm.Answer(ops, first.usage + second.usage, second.messages)


def _fit_to_speed(run: Pass, model: Model) -> None:
    """Measure the endpoint once (kept per endpoint and model) and fit the pass to it: `run.settings`
    shrink so each request fits `timeout`; said in one line when they did.
    A model that cannot be measured (a scripted one) is asked as configured."""
    if not callable(getattr(model, "measure_speed", None)):
        return
    # The state folder of this process (GITGARDEN_STATE), whatever environment the model was handed for its key.
    settings, env = run.settings, {**os.environ, **getattr(model, "env", {})}
    found = speed.cached(settings, env, run.now())
    if found is None:
        run.on_step(Step("measuring", f"how fast {model.name} reads and writes (once for this endpoint)"))
        found = speed.measure(model, settings, run.now())
        speed.remember(settings, env, found)
    setattr(model, "speed", found)  # noqa: B010 - a measurable model has it; a timeout then says what the server needed
    fitted = speed.fit(settings, found, run.result.mode)
    run.settings = fitted.settings
    if hasattr(model, "settings"):
        setattr(model, "settings", fitted.settings)  # noqa: B010 - its requests take the fitted output bound
    if fitted.sentence:  # said once, as the pass starts (its record keeps it as `fit`)
        run.result.fit = fitted.sentence[:1].upper() + fitted.sentence[1:] + "."
        run.on_progress(run.result.fit)


def premises(agents_md: str, limit: int = 600) -> str:
    """The start of AGENTS.md, for small mode's short prompt: what the project is about. A heading
    ends with a colon, so it never runs into the name that follows ("Fennel & Fig: Graham …")."""
    headed = re.sub(r"(?m)^#+[ \t]*(.*?)[ \t]*$", lambda m: m.group(1) + (":" if m.group(1) and m.group(1)[-1] not in ".:!?" else ""), agents_md)
    text = " ".join(headed.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def no_room_for(convo: list[dict[str, str]], settings: Settings, budget: Budget) -> str:
    """Why the budget cannot take a repair call with this conversation ('' when it can)."""
    need = sum(estimate_tokens(m["content"]) + 4 for m in convo) + _REPAIR_OUTPUT_MIN
    if budget.seconds_left() <= 0:
        return "the pass's seconds_budget is spent"
    if need > budget.tokens_left():
        return f"it needs about {need:,} tokens and the token_budget has {max(0, budget.tokens_left()):,} left"
    if need > settings.context_window:
        return f"it needs about {need:,} tokens, over the model's context_window of {settings.context_window:,}"
    return ""


def _conversation(project: Project, limit: int) -> str:
    """The last `limit` characters of the newest conversation transcripts (symlinks not followed:
    not a transcript, nor raw/ or raw/chat/ themselves, which a vault at the root may hold as its own)."""
    if limit <= 0 or not project.chat.is_dir() or project.chat.is_symlink() or project.chat.parent.is_symlink():
        return ""
    files = sorted(
        (p for p in project.chat.iterdir() if p.is_file() and not p.is_symlink() and not p.name.startswith(".")),
        key=lambda p: (p.stat().st_mtime, p.name),
    )
    chunks: list[str] = []
    size = 0
    for path in reversed(files):
        text = path.read_bytes().decode("utf-8", "replace")
        chunks.append(text)
        size += len(text)
        if size >= limit:
            break
    return "\n".join(reversed(chunks))[-limit:]


def _identity_texts(project: Project, settings: Settings) -> list[tuple[str, str]]:
    """Configured identity files, never through a symlink. Relative names must stay inside the
    project; absolute ones only come from the person's own settings (config drops them from a
    project file)."""
    out: list[tuple[str, str]] = []
    root = project.root.resolve()
    for name in settings.identity_files:
        given = Path(name).expanduser()
        path = given if given.is_absolute() else project.root / given
        if path.is_symlink() or not path.is_file():
            continue
        if not given.is_absolute():
            try:
                path.resolve().relative_to(root)
            except ValueError:
                continue
            if any((project.root / Path(*given.parts[: i + 1])).is_symlink() for i in range(len(given.parts))):
                continue
        out.append((name, path.read_text(encoding="utf-8", errors="replace")[:20_000]))
    return out


def _review_summary(root: Path) -> str:
    return review_summary(root)


def _page_infos(tree: Tree, titles: Mapping[str, tuple[str, list[str]]]) -> list[Any]:
    infos = []
    for name, (title, aliases) in sorted(titles.items()):
        path = pages.page_path(name)
        found = page_facts(tree, path) if path in tree else None
        state = "open" if found is None else "?" if found.meta is None else str(found.meta.get("state", "open"))
        infos.append(PageInfo(name, title, state, 0 if found is None else found.chars, tuple(aliases)))
    return infos

