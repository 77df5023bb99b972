"""Settings: every setting in force and the layer it comes from (as `gitgarden config list`), the
model's status (as `gitgarden llm status`), and forms that change them with the rules of
`gitgarden config set` (`services.settings`: the same checks, the same files, the value read back).

"Check the model" is `llm status`'s probe (one small request, a POST: it reaches the network). A
key typed into the key form is stored as `gitgarden keys set` stores it: the field is masked, and
the key is never shown back — not on the page, not in a message, not in the address a form
redirects to. Nothing is written when any value of a form is refused.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gitgarden.config import SPECS, env_name, load_settings, read_toml, unset_value, write_value
from gitgarden.errors import ConfigError
from gitgarden.project import Project
from gitgarden.services.llm import llm_status
from gitgarden.services.settings import (
    SCOPES,
    check_setting,
    key_lookup_name,
    key_names,
    setting_path,
    spec_of,
    store_key,
    where_the_key_goes,
)
from gitgarden.web.site import Site, action, view

__all__ = ["ROUTES", "FORMS"]

# The forms of the page: (id, heading, keys, the file they go to unless the person picks the other).
FORMS: tuple[tuple[str, str, tuple[str, ...], str], ...] = (
    ("model", "The model", ("model", "api_base", "mode"), "user"),
    ("budgets", "Budgets", ("token_budget", "seconds_budget", "max_output_tokens", "context_window", "timeout", "max_lines"), "project"),
    ("review", "Review mode", ("review",), "project"),
)


def _field(spec: Any, resolved: Any, env: dict[str, str] | Any) -> dict[str, Any]:
    """What a form shows of one setting: its value here, its layer, its limits, and whether the
    environment holds it (then it cannot be changed here)."""
    var = env_name(spec.key)
    return {
        "key": spec.key,
        "value": getattr(resolved.settings, spec.key),
        "source": resolved.sources[spec.key],
        "type": spec.type.__name__,
        "lo": spec.lo,
        "hi": spec.hi,
        "step": "any" if spec.type is float else 1,
        "choices": spec.choices,
        "help": spec.help,
        "env": var if env.get(var, "") != "" else "",
        "user_only": not spec.project_ok,
    }


def settings_page(site: Site, project: Project, request: Request) -> Response:
    """The settings with their layers and the forms that change them, and the model's status (with the
    result of "Check the model" when the person just asked)."""
    resolved = site.settings(project)
    s = resolved.settings
    rows = [
        {
            "key": spec.key,
            "value": getattr(s, spec.key),
            "source": resolved.sources[spec.key],
            "range": None if spec.lo is None else (spec.type(spec.lo), spec.type(spec.hi)),
            "help": spec.help,
        }
        for spec in SPECS
    ]
    checked = site.notes.get(request.query_params.get("checked", ""), "")
    status = json.loads(checked) if checked.startswith("{") else llm_status(s, site.env, probe=False, now=site.now())
    forms = [(fid, heading, [_field(spec_of(k), resolved, site.env) for k in fkeys], scope) for fid, heading, fkeys, scope in FORMS]
    try:
        stored = key_names(site.env)
    except ConfigError as exc:
        stored, resolved.warnings = [], [*resolved.warnings, str(exc)]
    return site.page(
        request,
        "settings.html",
        rows=rows,
        llm=status,  # llm_status takes the key out of every text: it never reaches a page
        warnings=resolved.warnings,
        probed=bool(checked),
        forms=forms,
        other=[spec.key for spec in SPECS if not any(spec.key in f[2] for f in FORMS)],
        stored=stored,
        # The name a key is looked up by: api_key_name, else (with no api_base) the model's provider.
        key_name=key_lookup_name(s),
        user_file=str(setting_path("user", None, site.env)),
    )


def set_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden config set KEY VALUE` for every setting of one form, in the file the person chose;
    every value is checked before any is written. Back to the settings with what was done."""
    scope = form.get("scope", "project")
    if scope not in SCOPES:
        return site.back("/settings", "Nothing was written: the file is either this project's or yours (user).")
    wanted = [k for k in form.get("keys", "").split(",") if k]
    checkboxes = True
    if form.get("form") == "every":  # the form for any other setting: its key and a value as `config set` takes it
        wanted, checkboxes = [form.get("key", "")], False
        form = {**form, form.get("key", ""): form.get("value", "")}
    path = setting_path(scope, project.root, site.env)
    resolved = site.settings(project)
    changes: dict[str, Any] = {}
    unset: list[str] = []
    try:
        for key in wanted:
            spec = spec_of(key)
            if spec.type is bool and checkboxes:  # an unchecked box sends nothing: off
                raw = "true" if form.get(key) == "true" else "false"
            elif key in form:
                raw = form[key].strip()
            else:
                continue  # a field the environment holds: the browser does not send a disabled input
            if raw == "" and spec.type is str:
                if key in read_toml(path):
                    unset.append(key)
                continue
            value = check_setting(key, raw, scope=scope, path=path, env=site.env, root=project.root)
            if value != getattr(resolved.settings, key):  # what the form showed, unchanged: nothing to write
                changes[key] = value
    except ConfigError as exc:
        return site.back(f"/settings#{form.get('form', 'every')}", f"Nothing was written: {exc}")
    if not changes and not unset:
        return site.back(f"/settings#{form.get('form', 'every')}", "Nothing to change: every value was already in force.")
    for key, value in changes.items():
        write_value(path, key, value)
    for key in unset:
        unset_value(path, key)
    return site.back(f"/settings#{form.get('form', 'every')}", _said(site, project, path, changes, unset))


def _said(site: Site, project: Project, path: Any, changes: dict[str, Any], unset: list[str]) -> str:
    """What a saved form did, in a few sentences: the values written, and what applies here now."""
    resolved = load_settings(project.root, env=site.env)
    s = resolved.settings
    bits = [f"{k} = {_shown(v)}" for k, v in changes.items()] + [f"{k} removed" for k in unset]
    out = [f"Saved {', '.join(bits)} in {path}."]
    here = path.name == "config.toml" and path.parent.name == ".gitgarden"
    for key in [*changes, *unset]:
        layer = resolved.sources[key]
        if layer != ("project" if here else "user"):
            out.append(f"Here the {layer} layer wins: {key} = {_shown(getattr(s, key))}.")
    if "api_base" in changes or "model" in changes:
        out.append(where_the_key_goes(s, site.env))
    return " ".join(o for o in out if o)


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return json.dumps(list(value))
    return '""' if value == "" else str(value)


def key_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden keys set NAME` with the key from a masked field: stored in the user's config folder,
    never in the project, and never repeated (a refusal says why without it)."""
    try:
        said = store_key(form.get("name", ""), form.get("secret", ""), site.settings(project).settings, site.env)
    except ConfigError as exc:  # its message never holds the key
        return site.back("/settings#key", f"No key was stored: {exc}")
    return site.back("/settings#key", said)


def check_post(site: Site, project: Project, request: Request, form: dict[str, str]) -> Response:
    """`gitgarden llm status`: one small request to the model; its answer shown on the settings page."""
    s = site.settings(project).settings
    if not s.model:
        return site.back("/settings#model", "No model is configured: set one first, then check it.")
    status = llm_status(s, site.env, probe=True, now=site.now())
    key = site.note(json.dumps(status, default=str))
    said = "The model answered." if status.get("reachable") else f"The model did not answer: {status.get('error')}"
    return site.back(f"/settings?checked={key}#model", said)


ROUTES = [
    ("/settings", view(settings_page), "GET"),
    ("/settings/set", action(set_post), "POST"),
    ("/settings/key", action(key_post), "POST"),
    ("/settings/check", action(check_post), "POST"),
]
