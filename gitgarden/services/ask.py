"""`ask`, as every face calls it: the project's settings, its model, its layout in force, then the
answer (`gitgarden.answer`). The command line, the web app's Ask box and the agents' `ask` tool
call this and render what it returns; nothing here writes anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from gitgarden.answer.asking import ask as answer_question
from gitgarden.answer.compose import NOT_IN_GARDEN, Answer, Sentence
from gitgarden.config import Settings, load_settings
from gitgarden.model.llm import Model
from gitgarden.project import Project
from gitgarden.wiki import layout

__all__ = ["ask", "Answer", "Sentence", "NOT_IN_GARDEN", "ModelFactory"]

ModelFactory = Callable[[Settings, Mapping[str, str]], Model | None]


def _configured_model(settings: Settings, env: Mapping[str, str]) -> Model | None:
    from gitgarden.model import provider

    return provider.make_model(settings, env)


def ask(
    project: Project,
    question: str,
    *,
    env: Mapping[str, str],
    now: Callable[[], datetime],
    model_factory: ModelFactory | None = None,
    settings: Settings | None = None,
    flags: Mapping[str, Any] | None = None,
) -> Answer:
    """The garden's answer to `question`: read-only (no file, commit or setting changes). `settings`
    as the face resolved them (else read from the project, the environment and `flags`); the model
    from `model_factory` (else the configured one)."""
    if settings is None:
        settings = load_settings(project.root, env=env, flags=dict(flags or {})).settings
    model = (model_factory or _configured_model)(settings, env)
    with layout.active(project.layout):
        return answer_question(project, question, settings, model, env=env, now=now)
