"""The gate every request to `gitgarden serve` passes, and the paths it may serve.

It runs on the person's machine, next to their notes, so:
- a request whose `Host` is not the address the server bound gets nothing (a page of another
  site that resolves its own name to 127.0.0.1 — DNS rebinding — cannot read the garden);
- every request needs the per-start token: given once in the printed URL, it becomes a cookie
  (HttpOnly, SameSite=Strict, named for the port) and the URL loses it. The cookie holds a value
  derived from the token, never the token: cookies are not kept apart by port, so another web app
  on the same address receives it, and must not be able to trade it for what follows;
- every change is a POST that comes from the server's own origin (`Origin`, `Sec-Fetch-Site`) and
  carries two values: the form's CSRF value, and the key of this start. The key reaches the browser
  once, in the fragment of the address the token redirects to (never sent to a server), and lives in
  the page's own origin storage, which is kept apart by port: a form gets it from the page's script
  when it is sent. So a cookie another local app received, even with a page read with it, changes
  nothing. A GET never changes anything;
- redirects go only to the app's own paths (`//evil.example/` is the path `/evil.example/`);
- a file is served only from the wiki's attachments: no `..`, no hidden name (`.git`,
  `.gitgarden`, `.obsidian`), no symlink anywhere on the way, nothing outside the layout.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlencode

from gitgarden.errors import GitgardenError
from gitgarden.wiki.layout import Layout

__all__ = [
    "Gate",
    "new_token",
    "csrf_value",
    "cookie_value",
    "form_key",
    "own_path",
    "KEY_FIELD",
    "allowed_hosts",
    "cookie_name",
    "Refused",
    "read_post",
    "attachment_path",
    "HEADERS",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Every response: no script or style but the package's own, no framing, nothing cached, no referrer.
HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (
        b"content-security-policy",
        b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
        b"base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    ),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),  # no-referrer would make the browser send `Origin: null` on our own forms
    (b"cache-control", b"no-store"),
)
KEY_FRAGMENT = "gitgarden-key"  # the name in the redirect's fragment the page's script keeps (static/garden.js)
KEY_FIELD = "gitgarden_start_key"  # the form field the script adds it as (no form of the app has a field so named)
POST_LIMIT = 1_000_000  # bytes of a form: a capture of a long note fits, a flood does not


class Refused(GitgardenError):
    """A request the gate turns away (403): no token, a foreign origin, a path outside the layout."""


def new_token() -> str:
    """A fresh secret for one start of the server."""
    return secrets.token_urlsafe(32)


def csrf_value(token: str) -> str:
    """The value every form carries: derived from the token, so a page of another site cannot know it."""
    return hmac.new(token.encode(), b"gitgarden-csrf", hashlib.sha256).hexdigest()


def cookie_value(token: str) -> str:
    """What the cookie holds: derived from the token, so whoever receives the cookie cannot present
    the token (and be given the key the token's redirect carries)."""
    return hmac.new(token.encode(), b"gitgarden-cookie", hashlib.sha256).hexdigest()


def form_key(token: str) -> str:
    """The key of this start every change carries: given once, in the fragment of the token's
    redirect, and kept by the page in its own origin's storage; no cookie and no page holds it."""
    return hmac.new(token.encode(), b"gitgarden-form-key", hashlib.sha256).hexdigest()


def own_path(path: str) -> str:
    """`path` as a redirect target that stays on this server: one leading slash (`//host/` and
    `/\\host/` name another server to a browser), every character outside a path's own quoted."""
    return "/" + quote(path.lstrip("/\\"), safe="/!$&'()*+,;=:@-._~")


def cookie_name(port: int) -> str:
    """The cookie that holds the token; cookies are not kept apart by port, so its name is."""
    return f"gitgarden-{port}"


def allowed_hosts(host: str, port: int) -> set[str]:
    """The `Host` values the server answers: the address it bound (and `localhost` for loopback)."""
    shown = f"[{host}]" if ":" in host else host
    names = {f"{shown}:{port}".lower()}
    if host in ("127.0.0.1", "::1"):
        names.add(f"localhost:{port}")
    return names


def _same(given: str, token: str) -> bool:
    return hmac.compare_digest(given.encode(), token.encode())


class Gate:
    """ASGI middleware: the Host check, the token (URL once, then the cookie), the security headers."""

    def __init__(self, app: ASGIApp, *, token: str, hosts: Iterable[str], port: int) -> None:
        self.app = app
        self.token = token
        self.hosts = {h.lower() for h in hosts}
        self.cookie = cookie_name(port)
        self.session = cookie_value(token)
        self.key = form_key(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        if headers.get("host", "").lower() not in self.hosts:
            await _plain(send, 403, "gitgarden serve answers only to the address it printed.")
            return
        path = scope.get("path", "")
        if path.startswith("/static/") or path == "/favicon.ico":  # the package's own files: nothing of the project
            await self.app(scope, receive, _with_headers(send))
            return
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        given = query.get("token")
        if given is not None:
            if scope.get("method") != "GET" or not _same(given[-1], self.token):
                await _plain(send, 403, "This token is not the one gitgarden serve printed: nothing shown.")
                return
            rest = urlencode([(k, v) for k, vs in query.items() if k != "token" for v in vs], doseq=True)
            cookie = f"{self.cookie}={self.session}; HttpOnly; SameSite=Strict; Path=/"
            await _redirect(send, own_path(path) + (f"?{rest}" if rest else "") + f"#{KEY_FRAGMENT}={self.key}", cookie)
            return
        if not _same(_cookie(headers.get("cookie", ""), self.cookie), self.session):
            await _plain(
                send, 403,
                "This page needs the token gitgarden serve printed: open the address it printed (with ?token=…).",
            )  # fmt: skip
            return
        await self.app(scope, receive, _with_headers(send))


def _cookie(header: str, name: str) -> str:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return ""


def _with_headers(send: Send) -> Send:
    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            have = {k.lower() for k, _ in message.get("headers", [])}
            message["headers"] = list(message.get("headers", [])) + [(k, v) for k, v in HEADERS if k not in have]
        await send(message)

    return wrapped


async def _plain(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()), *HEADERS]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _redirect(send: Send, location: str, cookie: str) -> None:
    headers = [(b"location", location.encode("latin-1")), (b"set-cookie", cookie.encode()), (b"content-length", b"0"), *HEADERS]
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def read_post(request: Any, *, csrf: str, key: str, hosts: Iterable[str]) -> dict[str, str]:
    """The fields of a POST form from the server's own page; Refused otherwise (nothing is changed).

    The form must carry the CSRF value and this start's key (which the page's script adds from its
    origin's storage), the browser's `Origin` (when it sends one) must be the server's own, and
    `Sec-Fetch-Site` (when sent) must not say another site.
    """
    headers = request.headers
    origins = {f"http://{h}" for h in hosts}
    origin = headers.get("origin")
    if origin is not None and origin.lower() not in origins:
        raise Refused(f"refused: this request came from {origin}, not from gitgarden's own page; nothing changed")
    if headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        raise Refused("refused: this request came from another site; nothing changed")
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Refused("refused: a change is sent as a form of gitgarden's own page; nothing changed")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > POST_LIMIT:
            raise Refused(f"refused: more than {POST_LIMIT:,} bytes in one form; nothing changed")
    fields = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
    if not hmac.compare_digest(fields.get("csrf", "").encode(), csrf.encode()):
        raise Refused("refused: this form does not carry this server's token (reload the page); nothing changed")
    if not hmac.compare_digest(fields.pop(KEY_FIELD, "").encode(), key.encode()):
        raise Refused(
            "refused: this page does not hold the key of this start of gitgarden serve; "
            "open the address it printed (with ?token=…) again, in a browser with scripts on; nothing changed"
        )
    return fields


def attachment_path(root: Path, layout: Layout, rel: str) -> Path:
    """The file an attachment link names (`rel`, relative to the project), checked: inside the
    wiki, not a page, no `..` or hidden name, no symlink on the way, a regular file. Refused otherwise."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or "\\" in rel or "\0" in rel or any(p in ("", ".", "..") or p.startswith(".") for p in parts):
        raise Refused(f"refused: {rel!r} is not a file of the wiki")
    if not layout.in_wiki(rel) or layout.page_name(rel) is not None or rel.startswith(layout.journal_prefix):
        raise Refused(f"refused: {rel!r} is not an attachment of the wiki")
    here = root
    for part in parts:
        here = here / part
        try:
            info = os.lstat(here)
        except OSError:
            raise Refused(f"refused: {rel!r} is not a file of the wiki") from None
        if stat.S_ISLNK(info.st_mode):
            raise Refused(f"refused: {rel!r} goes through a symlink, which gitgarden never follows")
    if not stat.S_ISREG(info.st_mode):
        raise Refused(f"refused: {rel!r} is not a file of the wiki")
    return here
