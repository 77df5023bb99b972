"""A fake OpenAI-compatible model server on loopback, with scripted replies.

Tests drive the real model path (litellm, HTTP, headers, errors) without a
model: enqueue the replies, run the code, then read `.requests` to see exactly
what reached the server — which path, which headers, which JSON body.

    with FakeOpenAI() as server:
        server.enqueue('{"operations": []}')
        settings = Settings(model="openai/fake", api_base=server.base_url)
        ...
        assert server.requests[0]["json"]["response_format"]["type"] == "json_object"

It also answers Ollama's `/api/chat` with the same queue, so a test can point
`ollama_chat/…` (through `OLLAMA_API_BASE`) at it.

A request with `"stream": true` gets the same scripted answer as server-sent
events, the way OpenAI sends them: `data: {chunk}` events whose
`choices[0].delta.content` carry the text a few characters at a time (optionally
`chunk_delay` seconds apart: a slow model), a final usage chunk when the request
asked for it with `stream_options.include_usage`, then `data: [DONE]`.
`refuse_streams` makes the server answer every streamed request with an error
instead, as servers that cannot stream do; `ignore_streams` makes it answer a
streamed request with the plain JSON completion, as servers (and proxies) that
do not stream but do not say so either do. A streamed `/api/chat` request gets
Ollama's form: one JSON object a line, the last with `done` and the counts.
"""

from __future__ import annotations

import json
import select
import socket
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

__all__ = ["FakeOpenAI", "Scripted"]

GATE_LIMIT = 120.0


@dataclass
class Scripted:
    """One scripted answer: a completion, or an HTTP error when `status` is not 200."""

    content: str = ""
    finish_reason: str = "stop"
    prompt_tokens: int = 100
    completion_tokens: int = 20
    status: int = 200
    error_body: dict[str, Any] | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    gate: threading.Event | None = (
        None  # when given, the reply waits until it is set (at most GATE_LIMIT s)
    )
    chunk_chars: int = 8  # a streamed reply's text per chunk
    chunk_delay: float = 0.0  # seconds before each streamed chunk
    gate_after: int | None = (
        None  # a streamed reply waits for `gate` after this many chunks (not before the first)
    )
    usage_chunk: bool = (
        True  # a streamed reply ends with a usage chunk when the request asks for one
    )
    # The first token's alternatives {token: log-probability}, sent (plain, or with the first streamed
    # piece) when the request asks for `logprobs`, as llama.cpp with `--logits_all` does.
    logprobs: dict[str, float] | None = None
    plain_logprobs_only: bool = False  # a stream carries none (some servers): only a plain reply does


class FakeOpenAI:
    """A loopback HTTP server speaking enough of the OpenAI chat API for tests.

    `base_url` is "http://127.0.0.1:PORT/v1". Each POST to `/v1/chat/completions`
    (or `/api/chat`) takes the next scripted answer; when none is left it answers
    500 with a message saying so, which the code under test reports as an error.
    `requests` lists every request received as {"path", "headers", "json"} with
    header names in lower case.
    """

    def __init__(self, model_id: str = "fake") -> None:
        self.model_id = model_id
        self.requests: list[dict[str, Any]] = []
        self._queue: deque[Scripted] = deque()
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self.replied = 0  # completions answered (gated ones count once their gate opens)
        self.chunks_sent = 0  # streamed content chunks written, all replies together
        self.refuse_streams: tuple[int, str] | None = (
            None  # (status, message) for every `stream: true` request
        )
        self.ignore_streams = False  # answer `stream: true` with a plain JSON completion, no events
        self.stream_ends: list[
            str
        ] = []  # how each stream ended: "complete" or "closed by the client"
        # gitgarden's speed probe (its prompt starts "gitgarden speed probe") is answered at once with
        # "ok", apart from the scripted queue and not listed in `requests`: `probes` lists them.
        # `probe_delay` holds its first token (a server reading the prompt), `probe_chunk_delay` paces its reply.
        self.probes: list[dict[str, Any]] = []
        self.probe_delay = 0.0
        self.probe_chunk_delay = 0.0
        self.probe_usage = (600, 200)  # a fast pace even on a busy machine: the pass is not shrunk
        self._ends_seen = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------

    def enqueue(
        self,
        content: str,
        *,
        finish_reason: str = "stop",
        prompt_tokens: int = 100,
        completion_tokens: int = 20,
        delay: float = 0.0,
        gate: threading.Event | None = None,
        chunk_chars: int = 8,
        chunk_delay: float = 0.0,
        gate_after: int | None = None,
        usage_chunk: bool = True,
        logprobs: dict[str, float] | None = None,
        plain_logprobs_only: bool = False,
    ) -> None:
        """Script the next completion: its text, finish reason, reported usage, and an optional delay
        or `gate` (the reply is held until the test sets it: a slow model without a sleep).

        Streamed, the text goes out `chunk_chars` characters a chunk, `chunk_delay` seconds apart;
        with `gate_after` the stream sends that many chunks, then waits for `gate`. `usage_chunk`
        False plays a server that ignores `stream_options.include_usage`. `logprobs` are the first
        token's alternatives, sent when asked for (`plain_logprobs_only`: not in a stream).
        """
        with self._lock:
            self._queue.append(
                Scripted(
                    content,
                    finish_reason,
                    prompt_tokens,
                    completion_tokens,
                    delay=delay,
                    gate=gate,
                    chunk_chars=max(1, chunk_chars),
                    chunk_delay=chunk_delay,
                    gate_after=gate_after,
                    usage_chunk=usage_chunk,
                    logprobs=logprobs,
                    plain_logprobs_only=plain_logprobs_only,
                )
            )

    def enqueue_error(
        self,
        status: int,
        message: str = "scripted error",
        *,
        body: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Script the next answer as an HTTP error (401, 429, 500, …) with an OpenAI-style error body."""
        error = (
            body
            if body is not None
            else {"error": {"message": message, "type": "fake_error", "code": status}}
        )
        with self._lock:
            self._queue.append(
                Scripted(status=status, error_body=error, headers=dict(headers or {}))
            )

    @property
    def pending(self) -> int:
        """Scripted answers not yet taken."""
        with self._lock:
            return len(self._queue)

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, ending in /v1."""
        return f"{self.root_url}/v1"

    @property
    def root_url(self) -> str:
        """http://127.0.0.1:PORT (for APIs that are not under /v1, such as Ollama's)."""
        if self._server is None:
            raise RuntimeError("FakeOpenAI is not running (use it as a context manager)")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._server is None:
            raise RuntimeError("FakeOpenAI is not running (use it as a context manager)")
        return int(self._server.server_address[1])

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        """Listen on a free loopback port in a daemon thread."""
        handler = type("_BoundHandler", (_Handler,), {"fake": self})
        self._server = _QuietServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="FakeOpenAI",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and join the server thread."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- used by the handler ---------------------------------------------------

    def _record(self, path: str, headers: dict[str, str], body: Any) -> None:
        with self._lock:
            self.requests.append({"path": path, "headers": headers, "json": body})
            self._arrived.notify_all()

    def wait_for_requests(self, count: int, timeout: float = 60.0) -> bool:
        """Wait until `count` requests have arrived; False when they did not within `timeout` seconds."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    def wait_for_stream_end(self, timeout: float = 60.0) -> str | None:
        """How the next stream not yet waited for ended ("complete", "closed by the client"); None if it did not."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.stream_ends) > self._ends_seen, timeout):
                return None
            self._ends_seen += 1
            return self.stream_ends[self._ends_seen - 1]

    def _ended(self, how: str) -> None:
        with self._lock:
            self.stream_ends.append(how)
            self._arrived.notify_all()

    def _next(self) -> Scripted | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout test) leaves a broken pipe behind: expected, not news.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOpenAI  # set on the per-server subclass
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass  # keep test output clean

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.fake._record(self.path, self._headers(), None)
        if self.path.rstrip("/").endswith("/models"):
            self._send(
                200,
                {
                    "object": "list",
                    "data": [{"id": self.fake.model_id, "object": "model", "owned_by": "fake"}],
                },
            )
        elif self.path.rstrip("/") == "/api/tags":
            self._send(200, {"models": [{"name": self.fake.model_id, "model": self.fake.model_id}]})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        path = self.path.rstrip("/")
        if _is_probe(body):
            with self.fake._lock:
                self.fake.probes.append(
                    {"path": self.path, "headers": self._headers(), "json": body}
                )
            prompt, completion = self.fake.probe_usage
            probe = Scripted("ok " * 7 + "ok", prompt_tokens=prompt, completion_tokens=completion, delay=self.fake.probe_delay,
                             chunk_chars=3, chunk_delay=self.fake.probe_chunk_delay)  # fmt: skip
            if probe.delay:
                time.sleep(probe.delay)
            usage = bool(((body or {}).get("stream_options") or {}).get("include_usage"))
            if (body or {}).get("stream"):
                self._stream(
                    _openai_chunks(str((body or {}).get("model") or "fake"), probe, 0, usage=usage),
                    probe,
                    count=False,
                )
            else:
                self._send(200, _openai_reply(str((body or {}).get("model") or "fake"), probe, 0))
            return
        self.fake._record(self.path, self._headers(), body)
        if path == "/api/show":
            self._send(
                200,
                {
                    "modelfile": "",
                    "parameters": "",
                    "template": "",
                    "details": {},
                    "model_info": {},
                },
            )
            return
        ollama = path == "/api/chat"
        if not (path.endswith("/chat/completions") or ollama):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        streamed = bool((body or {}).get("stream"))
        if streamed and self.fake.refuse_streams is not None:
            status, message = self.fake.refuse_streams
            self._send(
                status,
                {"error": {"message": message, "type": "invalid_request_error", "code": status}},
            )
            return
        scripted = self.fake._next()
        if scripted is None:
            self._send(
                500,
                {
                    "error": {
                        "message": "FakeOpenAI: no scripted reply left",
                        "type": "server_error",
                    }
                },
            )
            return
        if scripted.delay:
            time.sleep(scripted.delay)
        # A server reading the prompt: nothing is sent until the gate opens, but a client that goes
        # away (its socket shut) is seen at once, as a real server sees it.
        held = scripted.gate is not None and not (streamed and scripted.gate_after is not None)
        if held and scripted.gate is not None and not self._wait_or_gone(scripted.gate):
            self.close_connection = True
            self.fake._ended("closed by the client before the first token")
            return
        with self.fake._lock:
            self.fake.replied += 1
        if scripted.status != 200:
            self._send(scripted.status, scripted.error_body, scripted.headers)
            return
        model = (body or {}).get("model") or self.fake.model_id
        if ollama and streamed:
            self._stream_lines(_ollama_chunks(model, scripted), scripted)
        elif ollama:
            self._send(200, _ollama_reply(model, scripted))
        elif streamed and not self.fake.ignore_streams:
            usage = scripted.usage_chunk and bool(
                ((body or {}).get("stream_options") or {}).get("include_usage")
            )
            asked = bool((body or {}).get("logprobs")) and not scripted.plain_logprobs_only
            self._stream(
                _openai_chunks(model, scripted, len(self.fake.requests), usage=usage, logprobs=asked),
                scripted,
            )
        else:
            reply = _openai_reply(model, scripted, len(self.fake.requests))
            if (body or {}).get("logprobs") and scripted.logprobs is not None:
                reply["choices"][0]["logprobs"] = _logprobs_of(scripted)
            self._send(200, reply)

    def _wait_or_gone(self, gate: threading.Event) -> bool:
        """Wait for `gate` (at most GATE_LIMIT s); False as soon as the client closed its end."""
        end = time.monotonic() + GATE_LIMIT
        while not gate.wait(0.02):
            if time.monotonic() > end:
                return True
            try:
                ready, _, _ = select.select([self.connection], [], [], 0)
                if ready and self.connection.recv(1, socket.MSG_PEEK) == b"":
                    return False
            except OSError:
                return False
        return True

    def _stream(self, chunks: list[dict[str, Any]], s: Scripted, *, count: bool = True) -> None:
        """Server-sent events in HTTP chunked encoding, one event per chunk, then `data: [DONE]`."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for n, chunk in enumerate(chunks):
                content = bool(chunk["choices"] and chunk["choices"][0]["delta"].get("content"))
                if content and s.gate is not None and s.gate_after is not None and n > s.gate_after:
                    gone = not self._wait_or_gone(
                        s.gate
                    )  # a client that shut its socket is seen at once
                    s.gate = None  # waited once
                    if gone:
                        raise ConnectionResetError
                if content and s.chunk_delay:
                    time.sleep(s.chunk_delay)
                self._event(f"data: {json.dumps(chunk)}\n\n")
                if content and count:
                    with self.fake._lock:
                        self.fake.chunks_sent += 1
            self._event("data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = (
                True  # the client closed the stream (a stopped pass): nothing to finish
            )
            if count:
                self.fake._ended("closed by the client")
            return
        if count:
            self.fake._ended("complete")

    def _stream_lines(self, lines: list[dict[str, Any]], s: Scripted) -> None:
        """Ollama's stream: one JSON object a line, in HTTP chunked encoding."""
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for line in lines:
                if s.chunk_delay and not line["done"]:
                    time.sleep(s.chunk_delay)
                self._event(json.dumps(line) + "\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            self.fake._ended("closed by the client")
            return
        self.fake._ended("complete")

    def _event(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _is_probe(body: Any) -> bool:
    """A request of gitgarden's speed probe (its prompt starts with the probe's own words)."""
    messages = (body or {}).get("messages") if isinstance(body, dict) else None
    first = (
        messages[0].get("content")
        if isinstance(messages, list) and messages and isinstance(messages[0], dict)
        else ""
    )
    return isinstance(first, str) and first.startswith("gitgarden speed probe")


def _openai_reply(model: str, s: Scripted, n: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-fake-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": s.content},
                "finish_reason": s.finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": s.prompt_tokens,
            "completion_tokens": s.completion_tokens,
            "total_tokens": s.prompt_tokens + s.completion_tokens,
        },
    }


def _logprobs_of(s: Scripted) -> dict[str, Any]:
    """OpenAI's `logprobs` for the reply's first token, its alternatives from `s.logprobs`."""
    assert s.logprobs is not None
    top = [{"token": t, "logprob": lp, "bytes": None} for t, lp in s.logprobs.items()]
    first = max(s.logprobs, key=lambda t: s.logprobs[t] if s.logprobs else 0.0)
    return {"content": [{"token": first, "logprob": s.logprobs[first], "bytes": None, "top_logprobs": top}]}


def _openai_chunks(
    model: str, s: Scripted, n: int, *, usage: bool, logprobs: bool = False
) -> list[dict[str, Any]]:
    """The chunks OpenAI streams for `s`: the role, the text in pieces, the finish reason, and the usage if asked."""
    base = {
        "id": f"chatcmpl-fake-{n}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    pieces = [s.content[i : i + s.chunk_chars] for i in range(0, len(s.content), s.chunk_chars)]
    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": piece}) for piece in pieces]
    if logprobs and s.logprobs is not None and len(out) > 1:
        out[1]["choices"][0]["logprobs"] = _logprobs_of(s)
    out.append(chunk({}, s.finish_reason))
    if usage:
        total = s.prompt_tokens + s.completion_tokens
        out.append(
            {
                **base,
                "choices": [],
                "usage": {
                    "prompt_tokens": s.prompt_tokens,
                    "completion_tokens": s.completion_tokens,
                    "total_tokens": total,
                },
            }
        )
    return out


def _ollama_chunks(model: str, s: Scripted) -> list[dict[str, Any]]:
    """The lines Ollama streams for `s`: the text in pieces, then `done` with the counts."""
    pieces = [s.content[i : i + s.chunk_chars] for i in range(0, len(s.content), s.chunk_chars)]
    at = "2026-11-30T00:00:00Z"
    out = [
        {
            "model": model,
            "created_at": at,
            "message": {"role": "assistant", "content": p},
            "done": False,
        }
        for p in pieces
    ]
    last = {**_ollama_reply(model, s), "message": {"role": "assistant", "content": ""}}
    return [*out, last]


def _ollama_reply(model: str, s: Scripted) -> dict[str, Any]:
    return {
        "model": model,
        "created_at": "2026-11-30T00:00:00Z",
        "message": {"role": "assistant", "content": s.content},
        "done": True,
        "done_reason": s.finish_reason,
        "prompt_eval_count": s.prompt_tokens,
        "eval_count": s.completion_tokens,
    }
