"""Make real OpenAI Codex CLI rollout files for tests/fixtures/codex/, with a scripted model.

The Codex CLI itself (the npm package `@openai/codex`, Rust binary) runs `codex exec`
against a model server this script serves on 127.0.0.1 (the Responses API's streaming
wire format: `POST /v1/responses` answered with server-sent events). Codex writes its
rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`) as it would for any model; the
script copies each rollout into the fixtures folder with the temporary paths replaced by
stable ones (`/tmp/codex-fixture/tree` for the work tree, `/tmp/codex-fixture/home` for
CODEX_HOME), and nothing else changed.

Made with codex-cli 0.171.0 and 0.50.0 (2026-12-06):

    apt-get update && apt-get install -y nodejs npm      # (node 20 was already there)
    npm install --prefix /tmp/codexcli @openai/codex     # codex-cli 0.171.0
    npm install --prefix /tmp/codexold @openai/codex@0.50.0  # codex-cli 0.50.0
    python3 bench/codex_rollout/make_rollout.py --codex /tmp/codexcli/node_modules/.bin/codex \
        --old-codex /tmp/codexold/node_modules/.bin/codex

Two sessions are made, each in a fresh git work tree with a fresh CODEX_HOME:

- `unified`: Codex's defaults for a model whose catalog entry asks for the freeform
  `apply_patch` tool: commands go through `exec_command` (unified exec). Two turns: a first
  `codex exec`, then `codex exec resume --last`, which appends to the same rollout. The
  model answers text, lists the files (succeeds), reads a missing file (fails), creates
  hello.py with apply_patch; then, resumed, edits hello.py with apply_patch, runs it, runs a
  command that exits 3, and answers.
- `shell`, made by an older Codex (codex-cli 0.50.0, `npm install --prefix /tmp/codexold
  @openai/codex@0.50.0`, passed as `--old-codex`): 0.171.0 always offers `exec_command`
  (unified exec cannot be turned off there), while 0.50.0 offers the `shell` tool (an argv
  array, its output JSON with `metadata.exit_code`) and writes the prompt as an `event_msg`
  `user_message`. It offers no apply_patch tool to a model it does not know (neither
  `include_apply_patch_tool` nor a function or custom call named apply_patch worked), so
  the patch goes as the shell call `["apply_patch", PATCH]`, which Codex intercepts and
  applies itself. One turn: lists the files, cats a missing file (fails), adds NOTES.md
  with apply_patch, answers.

Each `codex exec` runs with `--dangerously-bypass-approvals-and-sandbox` (no sandbox is
needed for the scripted commands, and none may work in a container) and
`--skip-git-repo-check`. The model server answers only on 127.0.0.1 and stops with the script.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "codex"
STABLE_ROOT = "/tmp/codex-fixture"

FIRST_PROMPT = "Look around, check what missing.txt says, then add a hello.py that greets me."
SECOND_PROMPT = "Make hello.py greet the world, run it, and check how exit codes show up."
SHELL_PROMPT = "Show me the files here, cat missing.txt, and add NOTES.md saying hi."

Step = list[dict[str, Any]]  # the output items of one model response


def message(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def exec_command(call_id: str, cmd: str) -> dict[str, Any]:
    return {"type": "function_call", "name": "exec_command", "call_id": call_id,
            "arguments": json.dumps({"cmd": cmd, "yield_time_ms": 2000})}


def shell(call_id: str, *argv: str) -> dict[str, Any]:
    return {"type": "function_call", "name": "shell", "call_id": call_id,
            "arguments": json.dumps({"command": list(argv), "timeout_ms": 10000})}


def patch_custom(call_id: str, patch: str) -> dict[str, Any]:
    return {"type": "custom_tool_call", "name": "apply_patch", "call_id": call_id,
            "input": patch}


# What the model says: for each prompt, one response per step; a step's index is the number
# of tool outputs Codex has sent back since the prompt.
SCRIPT: dict[str, list[Step]] = {
    FIRST_PROMPT: [
        [message("I'll start by listing the work tree."), exec_command("call_ls", "ls -a")],
        [exec_command("call_cat", "cat missing.txt")],
        [message("There is no missing.txt. Adding hello.py now."),
         patch_custom("call_add", "*** Begin Patch\n*** Add File: hello.py\n"
                                  "+print('hello, operator')\n*** End Patch\n")],
        [message("hello.py is added; missing.txt does not exist in the work tree.")],
    ],
    SECOND_PROMPT: [
        [patch_custom("call_edit", "*** Begin Patch\n*** Update File: hello.py\n@@\n"
                                   "-print('hello, operator')\n+print('hello, world')\n"
                                   "*** End Patch\n")],
        [exec_command("call_run", "python3 hello.py")],
        [exec_command("call_exit3", "python3 -c 'import sys; sys.exit(3)'")],
        [message("hello.py now prints `hello, world`. The last command exited with code 3, "
                 "which Codex reports in the tool output.")],
    ],
    SHELL_PROMPT: [
        [shell("call_sh_ls", "bash", "-lc", "ls -la")],
        [shell("call_sh_cat", "cat", "missing.txt")],
        [shell("call_sh_add", "apply_patch", "*** Begin Patch\n*** Add File: NOTES.md\n+hi\n"
                                             "*** End Patch\n")],
        [message("Listed the files, missing.txt is absent, and NOTES.md now says hi.")],
    ],
}


def prompt_and_step(body: dict[str, Any]) -> tuple[str, int]:
    """The last scripted prompt in the request's input, and how many tool outputs follow it."""
    items = body.get("input", [])
    prompt, outputs = "", 0
    for item in items:
        if item.get("type") == "message" and item.get("role") == "user":
            for part in item.get("content", []):
                if part.get("type") == "input_text" and part.get("text") in SCRIPT:
                    prompt, outputs = part["text"], 0
        elif item.get("type") in ("function_call_output", "custom_tool_call_output"):
            outputs += 1
    return prompt, outputs


def sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def response(number: int, items: Step) -> bytes:
    rid = f"resp_{number}"
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {"id": rid}}]
    for index, given in enumerate(items):
        item = dict(given)
        if item["type"] == "message":
            item["id"] = f"msg_{number}_{index}"
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "content": []}})
            events.append({"type": "response.output_text.delta", "output_index": index,
                           "item_id": item["id"], "content_index": 0,
                           "delta": item["content"][0]["text"]})
        else:
            item["id"] = f"fc_{number}_{index}"
        events.append({"type": "response.output_item.done", "output_index": index,
                       "item": item})
    events.append({"type": "response.completed", "response": {
        "id": rid, "usage": {"input_tokens": 1000, "input_tokens_details": None,
                             "output_tokens": 20, "output_tokens_details": None,
                             "total_tokens": 1020}}})
    return sse(events)


class Model(BaseHTTPRequestHandler):
    counter: ClassVar[list[int]] = [0]
    lock = threading.Lock()

    def log_message(self, format: str, *args: Any) -> None:  # the base's names
        pass

    def do_GET(self) -> None:
        self.send_response(404)
        self.end_headers()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        prompt, step = prompt_and_step(body)
        with self.lock:
            self.counter[0] += 1
            number = self.counter[0]
        steps = SCRIPT.get(prompt, [])
        items = steps[step] if step < len(steps) else [message("(nothing scripted)")]
        payload = response(number, items)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def catalog(shell_type: str, apply_patch: str) -> dict[str, Any]:
    """A model catalog (`model_catalog_json`) naming the scripted model and its tools."""
    return {"models": [{
        "slug": "scripted-model", "display_name": "Scripted", "description": "scripted",
        "default_reasoning_level": None, "supported_reasoning_levels": [],
        "shell_type": shell_type, "visibility": "list", "supported_in_api": True,
        "priority": 1, "upgrade": None,
        "base_instructions": "You are a scripted test model.",
        "supports_reasoning_summaries": False, "support_verbosity": False,
        "default_verbosity": None, "apply_patch_tool_type": apply_patch,
        "truncation_policy": {"mode": "bytes", "limit": 10000},
        "supports_parallel_tool_calls": False, "context_window": 200000,
        "experimental_supported_tools": [], "input_modalities": ["text"]}]}


def run_session(codex: str, port: int, name: str, turns: list[list[str]],
                shell_type: str | None, apply_patch: str) -> None:
    """One session of `codex exec` turns in a new work tree; its rollout into FIXTURES.
    With `shell_type` None, no model catalog is given (Codex's own defaults for an unknown
    model, before 0.171.0) and no apply_patch tool is offered."""
    root = Path(tempfile.mkdtemp(prefix="codex-rollout-"))
    home, tree = root / "home", root / "tree"
    home.mkdir()
    tree.mkdir()
    if shell_type is not None:
        (home / "catalog.json").write_text(json.dumps(catalog(shell_type, apply_patch)))
        models = f'model_catalog_json = "{home / "catalog.json"}"\n'
    else:
        models = ""
    (home / "config.toml").write_text(
        'model = "scripted-model"\nmodel_provider = "scripted"\n' + models +
        "[model_providers.scripted]\n"
        'name = "scripted"\n'
        f'base_url = "http://127.0.0.1:{port}/v1"\n'
        'wire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\n')
    git: Callable[..., Any] = lambda *a: subprocess.run(  # noqa: E731
        ["git", *a], cwd=tree, check=True, capture_output=True)
    git("init", "-q")
    (tree / "README.md").write_text("A scratch work tree for a Codex rollout fixture.\n")
    git("add", ".")
    git("-c", "user.name=fixture", "-c", "user.email=fixture@example.invalid",
        "commit", "-qm", "start")
    env = {**os.environ, "CODEX_HOME": str(home)}
    for args in turns:
        command = [codex, "exec", *args[:-1], "--skip-git-repo-check",
                   "--dangerously-bypass-approvals-and-sandbox", args[-1]]
        done = subprocess.run(command, check=False, cwd=tree, env=env, capture_output=True,
                              text=True, timeout=120, stdin=subprocess.DEVNULL)
        print("$", " ".join(command[1:]), "->", done.returncode)
        print(done.stdout[-2000:], done.stderr[-2000:])
        done.check_returncode()
    rollouts = sorted((home / "sessions").rglob("rollout-*.jsonl"))
    assert len(rollouts) == 1, rollouts
    text = rollouts[0].read_text()
    text = text.replace(str(tree), f"{STABLE_ROOT}/tree").replace(
        str(home), f"{STABLE_ROOT}/home").replace(str(root), STABLE_ROOT)
    FIXTURES.mkdir(parents=True, exist_ok=True)
    out = FIXTURES / f"{rollouts[0].stem}-{name}.jsonl"
    out.write_text(text)
    print("wrote", out, len(text), "bytes")
    shutil.rmtree(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codex", default="codex", help="codex-cli 0.171.0")
    parser.add_argument("--old-codex", help="codex-cli 0.50.0 (else the shell session is not made)")
    given = parser.parse_args()
    codex = given.codex
    server = ThreadingHTTPServer(("127.0.0.1", 0), Model)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    for old in FIXTURES.glob("rollout-*.jsonl"):
        old.unlink()
    try:
        print(subprocess.run([codex, "--version"], check=False, capture_output=True,
                             text=True).stdout)
        run_session(codex, port, "unified", [[FIRST_PROMPT], ["resume", "--last", SECOND_PROMPT]],
                    "shell_command", "freeform")
        if given.old_codex:
            print(subprocess.run([given.old_codex, "--version"], check=False,
                                 capture_output=True, text=True).stdout)
            run_session(given.old_codex, port, "shell", [[SHELL_PROMPT]], None, "")
    finally:
        server.shutdown()


if __name__ == "__main__":
    main()
