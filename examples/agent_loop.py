"""A complete minimal agent runtime wired to horizon: a model behind any OpenAI-compatible
chat server, two tools, and the bee's memory kept by the daemon.

    python examples/agent_loop.py /srv/hive mia --base-url http://127.0.0.1:11434/v1 \
        --model qwen2.5-coder --mcp

Each line read on stdin is one turn of the operator. Before each turn the bee's view (what
`handoff.md` will hold once every line written so far is read) opens the system prompt.
Every exchange is appended to the bee's journal with `horizon.client.append`: each tool
call with `tool`, `ok` and `files`, then the operator's turn with `from`. With `--mcp`,
`horizon mcp` runs beside the loop and its recall tools are offered to the model too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx

from horizon.client import BeeNotFound, ClientError, append, view

if TYPE_CHECKING:
    from mcp import Client
Json = dict[str, Any]  # the chat API's messages and tools, as httpx gives them

MEMORY = ("Your working memory follows, kept by horizon from your own past exchanges. "
          "The bracketed horizon notice marks where the older past was condensed; each #n "
          "is an entry of your full history, which the horizon_* tools read when you have "
          "them.\n\n")
TOOLS = [
    {"type": "function", "function": {
        "name": "shell", "description": "Run a shell command in the work folder.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}},
                       "required": ["command"]}}},
    {"type": "function", "function": {
        "name": "read_file", "description": "Read a file of the work folder.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                       "required": ["path"]}}},
]
OUTPUT_CHARS = 20_000  # of a tool's output given back to the model
# Of a tool's output kept in the journal: its end, where the verdict is. A line over the
# daemon's max_line_bytes (4 MiB) would be refused.
JOURNAL_CHARS = 1_000_000
STEPS = 8  # model calls per turn at most


def run_tool(name: str, arguments: Json, workdir: Path, run_as: str | None
             ) -> tuple[str, bool, list[str]]:
    """A tool's output, whether it succeeded, and the files it read or changed."""
    if name == "shell":
        command = str(arguments.get("command", ""))
        argv = ["sh", "-c", command]
        if run_as:  # the agent's commands as another user than the one writing the journal
            argv = ["sudo", "-n", "-u", run_as, "--", *argv]
        try:
            done = subprocess.run(argv, cwd=workdir, capture_output=True, text=True,
                                  timeout=300, check=False)
        except subprocess.TimeoutExpired:
            return f"$ {command}\n(timed out after 300 s)", False, []
        output = f"$ {command}\n{done.stdout}{done.stderr}(exit status {done.returncode})"
        return output, done.returncode == 0, []
    if name == "read_file":
        path = str(arguments.get("path", ""))
        target = (workdir / path).resolve()
        if not target.is_relative_to(workdir.resolve()):
            return f"{path}: outside the work folder", False, [path]
        if run_as:  # read as the commands run: the runtime's own files stay its own
            done = subprocess.run(["sudo", "-n", "-u", run_as, "--", "cat", "--", str(target)],
                                  capture_output=True, text=True, check=False)
            return (done.stdout if done.returncode == 0 else done.stderr), (
                done.returncode == 0), [path]
        try:
            return target.read_text(errors="replace"), True, [path]
        except OSError as error:
            return f"{path}: {error.strerror}", False, [path]
    return f"unknown tool {name!r}", False, []


async def chat(client: httpx.AsyncClient, model: str, messages: list[Json],
               tools: list[Json]) -> Json:
    response = await client.post("chat/completions", json={
        "model": model, "messages": messages, "tools": tools})
    response.raise_for_status()
    message: Json = response.json()["choices"][0]["message"]
    return message


async def turn(args: argparse.Namespace, client: httpx.AsyncClient, recall: Client | None,
               tools: list[Json], said: str) -> str:
    try:
        memory = view(args.hive, args.bee, config=args.config).text
    except BeeNotFound:  # the bee's first turn: its journal starts with it
        memory = ""
    messages: list[Json] = [
        {"role": "system", "content": MEMORY + memory + "\n" + args.system},
        {"role": "user", "content": said}]
    answer = ""
    for _ in range(STEPS):
        message = await chat(client, args.model, messages, tools)
        calls = message.get("tool_calls") or []
        answer = message.get("content") or ""
        if not calls:
            break
        messages.append(message)
        for call in calls:
            name = str(call["function"]["name"])
            try:
                arguments = json.loads(call["function"].get("arguments") or "{}")
            except json.JSONDecodeError:
                arguments = None
            if not isinstance(arguments, dict):
                output, ok, files = "the arguments are not a JSON object", False, []
            elif name.startswith("horizon_") and recall is not None:
                result = await recall.call_tool(name, arguments)
                output = "\n".join(part.text for part in result.content
                                   if hasattr(part, "text"))
                ok, files = not result.is_error, list[str]()
            else:
                output, ok, files = run_tool(name, arguments, args.workdir, args.run_as)
            # The runtime knows how the call went: it says so (`ok`), and which files.
            append(args.hive, args.bee, {
                "ts": time.time(), "type": "tool", "tool": name,
                "question": called_on(arguments), "answer": output[-JOURNAL_CHARS:],
                "ok": ok, "files": files}, create=True)
            messages.append({"role": "tool", "tool_call_id": call["id"],
                             "content": output[-OUTPUT_CHARS:]})
    # The operator's words, marked as theirs: the view quotes them in its own section.
    append(args.hive, args.bee, {"ts": time.time(), "type": "conversation",
                                 "from": args.operator, "question": said, "answer": answer},
           create=True)
    return answer


def called_on(arguments: object) -> str:
    """What a tool call's journal entry asks: the command or the path, else its
    arguments as JSON."""
    if isinstance(arguments, dict):
        for key in ("command", "path", "query"):
            value = arguments.get(key)
            if isinstance(value, str) and value:
                return value
    return json.dumps(arguments, ensure_ascii=False)


async def recall_tools(stack: contextlib.AsyncExitStack, args: argparse.Namespace
                       ) -> tuple[Client, list[Json]]:
    """`horizon mcp` over stdio, and its tools in the chat API's terms."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, **({"HORIZON_CONFIG": args.config} if args.config else {})}
    server = StdioServerParameters(command=args.horizon,
                                   args=["mcp", str(args.hive), args.bee], env=env)
    recall = await stack.enter_async_context(Client(server))
    listed = (await recall.list_tools()).tools
    return recall, [{"type": "function", "function": {
        "name": tool.name, "description": tool.description or "",
        "parameters": tool.input_schema}} for tool in listed]


async def main_loop(args: argparse.Namespace) -> int:
    headers = {"Authorization": f"Bearer {os.environ[args.api_key_env]}"} if (
        args.api_key_env in os.environ) else {}
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(httpx.AsyncClient(
            base_url=args.base_url.rstrip("/") + "/", headers=headers, timeout=300))
        recall: Client | None = None
        extra: list[Json] = []
        for line in sys.stdin:
            if line.strip():
                try:
                    # `horizon mcp` serves a bee that has a journal: from its first line on.
                    if args.mcp and recall is None and (
                            args.hive / "window" / f"{args.bee}-messages.jsonl").exists():
                        recall, extra = await recall_tools(stack, args)
                    print(await turn(args, client, recall, TOOLS + extra, line.strip()),
                          flush=True)
                except (ClientError, httpx.HTTPError) as error:
                    print(f"agent_loop: {error}", file=sys.stderr)
                    return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("hive", type=Path)
    parser.add_argument("bee")
    parser.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8000/v1")
    parser.add_argument("--model", required=True)
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY",
                        help="the variable holding the key, when the server wants one")
    parser.add_argument("--config", help="horizon's config.json, as the daemon's")
    parser.add_argument("--operator", default="apicultrice", help="the `from` of your turns")
    parser.add_argument("--system", default="You are a careful coding agent.")
    parser.add_argument("--workdir", type=Path, default=Path.cwd())
    parser.add_argument("--run-as", help="run shell commands as this user (sudo -n -u)")
    parser.add_argument("--mcp", action="store_true", help="offer horizon's recall tools")
    parser.add_argument("--horizon", default="horizon", help="the horizon command")
    args = parser.parse_args()
    if args.mcp:
        try:
            import mcp  # noqa: F401  (only asked whether it is there)
        except ImportError:
            print("agent_loop: --mcp needs the MCP client: pip install 'horizon[mcp]'",
                  file=sys.stderr)
            return 2
    return anyio.run(main_loop, args)


if __name__ == "__main__":
    sys.exit(main())
