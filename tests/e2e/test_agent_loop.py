"""examples/agent_loop.py end to end: the runtime against a real OpenAI-compatible HTTP
server on 127.0.0.1 playing a scripted model, with `horizon mcp` beside it. Three turns of
the operator, one failing tool call; the journal holds every exchange with the fields the
runtime knows, and each turn's prompt opens with the view of the turns before."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.daemon_harness import HORIZON, clean_env

ROOT = Path(__file__).resolve().parents[2]
LOOP = ROOT / "examples" / "agent_loop.py"
BEE = "mia"
MODEL = "scripted-coder"
FAILING = "python3 -c \"import sys; print('2 failed, 7 passed'); sys.exit(1)\""


def call(name: str, arguments: dict[str, Any], number: int) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [{
        "id": f"call_{number}", "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)}}]}


def said(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


SCRIPT = [
    call("shell", {"command": FAILING}, 1),
    said("The tests fail: 2 failed. Next I will look at tests/test_wind.py."),
    call("read_file", {"path": "notes.txt"}, 2),
    said("notes.txt says: calibrate the wind sensor first."),
    call("horizon_search", {"query": "run the tests"}, 3),
    said("You first asked me to run the tests."),
]
TURNS = ["Run the tests please", "What does notes.txt say?", "What did I ask first?"]


class ScriptedModel:
    """An OpenAI-compatible /v1/chat/completions answering SCRIPT in order."""

    def __init__(self, script: list[dict[str, Any]] = SCRIPT) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.problems: list[str] = []
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path != "/v1/chat/completions" or body.get("model") != MODEL:
                    model.problems.append(f"{self.path} {body.get('model')}")
                model.requests.append(body)
                index = len(model.requests) - 1
                reply = (model.script[index] if index < len(model.script)
                         else said("(script over)"))
                data = json.dumps({"id": f"r{index}", "object": "chat.completion",
                                   "model": MODEL, "choices": [{
                                       "index": 0, "message": reply,
                                       "finish_reason": "tool_calls" if reply.get(
                                           "tool_calls") else "stop"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    scripted = ScriptedModel()
    thread = threading.Thread(target=scripted.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield scripted
    finally:
        scripted.server.shutdown()
        scripted.server.server_close()


def test_three_turns_land_in_the_journal_and_each_prompt_opens_with_the_view(
        tmp_path: Path, model: ScriptedModel) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    (hive / "horizon.toml").write_text("[horizon]\nactif = true\n")
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hives": [str(hive)]}))
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("calibrate the wind sensor first\n")

    done = subprocess.run(
        [sys.executable, str(LOOP), str(hive), BEE, "--base-url", model.url, "--model",
         MODEL, "--config", str(config), "--workdir", str(work), "--mcp",
         "--horizon", HORIZON],
        input="\n".join(TURNS) + "\n", capture_output=True, text=True, timeout=120,
        env=clean_env(), check=False)

    assert done.returncode == 0, done.stderr
    assert model.problems == []
    assert done.stdout.splitlines() == [SCRIPT[1]["content"], SCRIPT[3]["content"],
                                        SCRIPT[5]["content"]]
    lines = [json.loads(line) for line in
             (hive / "window" / f"{BEE}-messages.jsonl").read_text().splitlines()]
    shape = [(line["type"], line.get("tool"), line.get("ok"), line.get("files"),
              line.get("from")) for line in lines]
    assert shape == [("tool", "shell", False, [], None),
                     ("conversation", None, None, None, "apicultrice"),
                     ("tool", "read_file", True, ["notes.txt"], None),
                     ("conversation", None, None, None, "apicultrice"),
                     ("tool", "horizon_search", True, [], None),
                     ("conversation", None, None, None, "apicultrice")]
    assert lines[0]["question"] == FAILING and "2 failed, 7 passed" in lines[0]["answer"]
    assert lines[2]["question"] == "notes.txt"  # what was read, not "None"
    assert lines[4]["question"] == "run the tests"
    assert "(exit status 1)" in lines[0]["answer"]
    assert [line["question"] for line in lines[1::2]] == TURNS
    assert lines[3]["answer"] == SCRIPT[3]["content"]

    first_prompt = model.requests[0]["messages"][0]["content"]
    second_prompt = model.requests[2]["messages"][0]["content"]
    assert first_prompt.startswith("Your working memory follows, kept by horizon")
    assert "<!-- horizon" not in first_prompt, "a bee's first turn has no view yet"
    # The second turn's prompt holds the first turn: its words, the failure, the answer.
    assert f"bee={BEE} mode=horizon up_to=2 " in second_prompt
    for text in ("Run the tests please", "2 failed, 7 passed", SCRIPT[1]["content"]):
        assert text in second_prompt, text
    # The recall tools were offered, and the search found the first turn by its seq.
    offered = {tool["function"]["name"] for tool in model.requests[4]["tools"]}
    assert {"shell", "read_file", "horizon_search", "horizon_show"} <= offered
    found = model.requests[5]["messages"][-1]
    assert found["role"] == "tool" and "#2" in found["content"]
    assert "Run the tests please" in lines[4]["answer"]


def test_a_server_error_is_one_line_and_exit_1(tmp_path: Path) -> None:
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    done = subprocess.run(
        [sys.executable, str(LOOP), str(hive), BEE, "--base-url", "http://127.0.0.1:9/v1",
         "--model", MODEL], input="hello\n", capture_output=True, text=True, timeout=60,
        env=clean_env(), check=False)
    assert done.returncode == 1
    assert done.stderr.startswith("agent_loop: ") and "Traceback" not in done.stderr
    assert not (hive / "window" / f"{BEE}-messages.jsonl").exists()


def test_read_file_stays_in_the_work_folder(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("agent_loop", LOOP)
    assert spec is not None and spec.loader is not None
    loop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loop)
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("wind\n")
    (tmp_path / "secret.txt").write_text("key\n")
    assert loop.run_tool("read_file", {"path": "notes.txt"}, work, None) == (
        "wind\n", True, ["notes.txt"])
    for outside in ("../secret.txt", str(tmp_path / "secret.txt")):
        output, ok, _ = loop.run_tool("read_file", {"path": outside}, work, None)
        assert not ok and "outside the work folder" in output


def test_a_model_s_malformed_tool_call_is_a_failed_call_not_a_crash(tmp_path: Path) -> None:
    broken = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "[]"}},
        {"id": "c2", "type": "function", "function": {"name": "shell", "arguments": "{no"}},
    ]}, said("Sorry.")]
    scripted = ScriptedModel(broken)
    thread = threading.Thread(target=scripted.server.serve_forever, daemon=True)
    thread.start()
    try:
        hive = tmp_path / "hive"
        (hive / "window").mkdir(parents=True)
        done = subprocess.run(
            [sys.executable, str(LOOP), str(hive), BEE, "--base-url", scripted.url,
             "--model", MODEL, "--workdir", str(tmp_path)], input="go\n",
            capture_output=True, text=True, timeout=60, env=clean_env(), check=False)
    finally:
        scripted.server.shutdown()
        scripted.server.server_close()
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in
             (hive / "window" / f"{BEE}-messages.jsonl").read_text().splitlines()]
    assert [(line["type"], line.get("ok")) for line in lines] == [
        ("tool", False), ("tool", False), ("conversation", None)]
    assert all(line["answer"] == "the arguments are not a JSON object" for line in lines[:2])


def test_mcp_without_its_extra_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    """As where the mcp extra is not installed (`make run`'s venv): an `mcp` that cannot
    be imported."""
    missing = tmp_path / "no-mcp"
    missing.mkdir()
    (missing / "mcp.py").write_text("raise ImportError(\"No module named 'mcp'\")\n")
    hive = tmp_path / "hive"
    (hive / "window").mkdir(parents=True)
    done = subprocess.run(
        [sys.executable, str(LOOP), str(hive), BEE, "--base-url", "http://127.0.0.1:9/v1",
         "--model", MODEL, "--mcp"], input="hello\n", capture_output=True, text=True,
        timeout=60, env=clean_env(PYTHONPATH=str(missing)), check=False)
    assert done.returncode == 2
    assert done.stderr == ("agent_loop: --mcp needs the MCP client: "
                           "pip install 'horizon[mcp]'\n")
