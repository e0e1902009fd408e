"""`horizon mcp` against a hostile client: raw JSON-RPC lines written to its stdin (what
the SDK's client would never send), and many calls sent at once over a history whose text
is costly to search."""

from __future__ import annotations

import json
import os
import select
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_cli import HORIZON
from tests.e2e.test_mcp import BEE, build_hive

ANSWER_S = 120.0


class RawServer:
    """`horizon mcp HIVE BEE` spoken to line by line, as a careless or hostile client."""

    def __init__(self, hive: Path, config: Path) -> None:
        self.process = subprocess.Popen(
            [HORIZON, "mcp", str(hive), BEE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env={**os.environ, "HORIZON_CONFIG": str(config)})
        self.answers: dict[Any, dict[str, Any]] = {}
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "1"}}})
        assert self.answer(0)["result"]["serverInfo"]["name"] == "horizon"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any] | bytes) -> None:
        assert self.process.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def call(self, number: int, tool: str, arguments: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": number, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}})

    def answer(self, number: int) -> dict[str, Any]:
        """The answer to request `number` (others that come first are kept for later)."""
        assert self.process.stdout is not None
        while number not in self.answers:
            ready, _, _ = select.select([self.process.stdout], [], [], ANSWER_S)
            assert ready, f"no answer to request {number}"
            line = self.process.stdout.readline()
            assert line, f"the server ended before answering request {number}"
            message = json.loads(line)
            self.answers[message.get("id")] = message
        return self.answers.pop(number)

    def peak_kib(self) -> int:
        """The server's peak resident memory so far (VmHWM)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(next(line for line in status.splitlines()
                        if line.startswith("VmHWM:")).split()[1])

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=30)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text("{}", encoding="utf-8")
    return path


@pytest.fixture
def serve(config: Path) -> Iterator[Any]:
    servers: list[RawServer] = []

    def start(hive: Path) -> RawServer:
        servers.append(RawServer(hive, config))
        return servers[-1]

    yield start
    for server in servers:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()


def text_of(answer: dict[str, Any]) -> str:
    [content] = answer["result"]["content"]
    text: str = content["text"]
    return text


def test_garbage_and_hostile_arguments_never_stop_the_server(tmp_path: Path,
                                                            serve: Any) -> None:
    server = serve(build_hive(tmp_path))
    for garbage in (b"{not json", b"[]", b"[1, 2]", b"\xff\xfe\x00", b"null", b'"text"',
                    b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}',
                    b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"}',
                    # A lone surrogate: the SDK drops the line without an answer.
                    b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": '
                    b'{"name": "horizon_search", "arguments": {"query": "\\ud800"}}}'):
        server.send(garbage)
    calls: list[tuple[str, Any]] = [
        ("horizon_nope", {}),
        ("horizon_show", None),
        ("horizon_show", {"seqs": [1e400]}),
        ("horizon_show", {"seqs": [10**30]}),
        ("horizon_show", {"seqs": [[1]]}),
        ("horizon_show", {"seqs": [3], "offset": 10**30}),
        ("horizon_show", {"seqs": [3], "max_chars": "a lot"}),
        ("horizon_search", {"query": ["a"]}),
        ("horizon_search", {"query": "w" * 1_000_000}),
        ("horizon_search", {"query": "\x1b\u202e\u2028\x07"}),
        ("horizon_search", {"query": "word", "limit": -1}),
        ("horizon_view", {"bee": "noe", "hive": "/"}),
    ]
    for number, (tool, arguments) in enumerate(calls, start=10):
        server.call(number, tool, arguments)
    answers = [server.answer(number) for number in range(10, 10 + len(calls))]
    for (tool, arguments), answer in zip(calls, answers, strict=True):
        result = answer.get("result")
        assert result is not None or "error" in answer, (tool, arguments, answer)
        if result is not None and result["isError"]:
            assert "Traceback" not in text_of(answer)
    assert "holds 14 lines" in text_of(answers[3])
    assert text_of(answers[5]).startswith("### #3 ")  # read past its end: said so
    assert "no word" in text_of(answers[9])
    assert text_of(answers[11]).startswith("<!-- horizon format=1 bee=mia")
    server.call(99, "horizon_show", {"seqs": [1]})
    assert text_of(server.answer(99)).startswith("### #1 ")
    assert server.close() == 0


def costly_hive(root: Path) -> Path:
    """A history whose one line, about 1 MiB, folds to six million characters."""
    hive = root / "costly"
    (hive / "window").mkdir(parents=True)
    question = "\ufdfa" * 330_000 + " needle"
    line = json.dumps({"ts": 1_780_000_000, "type": "task", "question": question,
                       "answer": "needle"}, ensure_ascii=False)
    (hive / "window" / f"{BEE}-messages.jsonl").write_text(line + "\n", encoding="utf-8")
    return hive


def search_peak(server: RawServer, calls: int) -> int:
    """What `calls` searches sent at once add to the server's peak memory (KiB)."""
    server.call(1, "horizon_show", {"seqs": [1], "max_chars": 10})
    assert not server.answer(1)["result"]["isError"]
    before = server.peak_kib()
    for number in range(100, 100 + calls):
        server.call(number, "horizon_search", {"query": "needle"})
    for number in range(100, 100 + calls):
        assert "needle" in text_of(server.answer(number))
    return server.peak_kib() - before


def test_calls_sent_at_once_are_read_one_at_a_time(tmp_path: Path, serve: Any) -> None:
    """The SDK runs each call in its own thread: eight searches at once would hold eight
    readings of a costly history; one after the other, they hold one."""
    hive = costly_hive(tmp_path)
    alone = search_peak(serve(hive), 1)
    together = search_peak(serve(hive), 8)
    assert together < 2 * alone + 20 * 1024, (together, alone)
