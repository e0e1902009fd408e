"""Real HTTP servers on 127.0.0.1 that speak Ollama's and OpenAI's chat wire formats.

Each checks the request's shape (path, model, messages, `stream: false` for Ollama, the
bearer key for OpenAI when one is expected) and answers in the mode the test chose.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from horizon.core.recit import SECTIONS

MODES = ("good", "slow", "http500", "empty", "garbage", "missing_sections", "overlong")
CONDENSED = "L'agent a composé la page demandée. Le fichier honey/page.html est prêt."


def good_recit(marker: str = "modèle") -> str:
    lines = []
    for section in SECTIONS:
        lines.append(f"### {section}")
        if section == "Mission":
            lines.append("- une mission inventée par le modèle, ignorée par le démon")
        elif section == "Paroles de l'apicultrice":
            lines.append("- une parole inventée, ignorée")
        else:
            lines.append(f"- {section.lower()} selon le {marker}")
    return "\n".join(lines)


@dataclass
class ModelServer:
    wire: str  # "ollama" or "openai"
    model: str
    mode: str = "good"
    api_key: str | None = None
    slow_s: float = 3.0
    requests: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def calls(self, kind: str | None = None) -> int:
        with self.lock:
            return sum(1 for r in self.requests if kind is None or r["kind"] == kind)

    def reply_text(self, is_fold: bool) -> str:
        if self.mode == "empty":
            return ""
        if self.mode == "overlong":
            return "très long " * 5000
        if is_fold:
            if self.mode == "missing_sections":
                return "### Mission\n- x\n### Décisions\n- y"
            return good_recit()
        return CONDENSED

    def check(self, path: str, headers: Any, body: dict[str, Any]) -> None:
        expected = "/api/chat" if self.wire == "ollama" else "/v1/chat/completions"
        if path != expected:
            self.problems.append(f"path {path}")
        if body.get("model") != self.model:
            self.problems.append(f"model {body.get('model')!r}")
        messages = body.get("messages")
        if not (isinstance(messages, list) and [m.get("role") for m in messages]
                == ["system", "user"] and all(isinstance(m.get("content"), str)
                                              for m in messages)):
            self.problems.append("messages")
        if self.wire == "ollama" and body.get("stream") is not False:
            self.problems.append("stream is not false")
        if (self.wire == "openai" and self.api_key is not None
                and headers.get("Authorization") != f"Bearer {self.api_key}"):
            self.problems.append("authorization header")


def _handler(server: ModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet test output

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            raw = self.rfile.read(length)
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                server.problems.append("request body is not JSON")
                body = {}
            system = (body.get("messages") or [{}])[0].get("content", "")
            is_fold = "récit de soi" in system
            with server.lock:
                server.requests.append({"kind": "fold" if is_fold else "condense",
                                        "body": body, "headers": dict(self.headers)})
            server.check(self.path, self.headers, body)
            if server.mode == "slow":
                time.sleep(server.slow_s)
            if server.mode == "http500":
                self._send(500, b'{"error": "boom"}')
                return
            if server.mode == "garbage":
                self._send(200, b"<html>not json at all")
                return
            text = server.reply_text(is_fold)
            content: object = None if server.mode == "null_text" else text
            if server.wire == "ollama":
                payload: dict[str, Any] = {
                    "model": server.model, "done": True,
                    "message": {"role": "assistant", "content": content}}
            else:
                choices = [] if server.mode == "no_choices" else [
                    {"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": content}}]
                if server.mode == "many":  # `n` > 1: only the first is read
                    choices.append({"index": 1, "message": None})
                payload = {"id": "x", "object": "chat.completion", "choices": choices}
            if server.mode == "nan":  # Python-made servers write NaN where they please
                payload["usage"] = {"score": float("nan")}
            data = json.dumps(payload).encode()
            if server.mode == "bom":
                data = "\ufeff".encode() + data
            self._send(200, data)

        def _send(self, status: int, data: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): nothing to answer

    return Handler


@contextmanager
def serving(server: ModelServer) -> Iterator[ModelServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(server))
    httpd.daemon_threads = True
    server.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()


def refused_url() -> str:
    """A loopback URL where nothing listens: connection refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
