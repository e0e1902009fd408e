"""`horizon mcp`, driven by the official SDK's client over stdio as an agent runtime
drives it: the server is a real subprocess, the hive real files with rotated segments."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, TextContent

from horizon.core.settings import Effective, GlobalConfig, HorizonSettings
from horizon.engine.bee_engine import BeeEngine, ReadNew
from tests.e2e.test_cli import HORIZON, entry

BEE = "mia"
OTHER = "noe"
ROTATION = 4


def build_hive(root: Path) -> Path:
    """Two bees; mia's history spans several rotated segments, with a rejected line."""
    hive = root / "hive"
    window = hive / "window"
    window.mkdir(parents=True)
    engine = BeeEngine(hive, BEE, GlobalConfig(rotation_entries=ROTATION),
                       Effective(HorizonSettings(actif=True), {}))
    live = window / f"{BEE}-messages.jsonl"
    for n in range(1, 15):
        with live.open("a", encoding="utf-8") as stream:
            if n == 6:
                stream.write("{not json\n")
            else:
                stream.write(entry(f"question {n}", f"answer {n} " + "word " * 40
                                   + ("the Ticket #5385 Été" if n == 3 else ""),
                                   tool="bash") + "\n")
        assert engine.run(ReadNew(), time.time()) is not None
    (window / f"{OTHER}-messages.jsonl").write_text(
        entry("secret of noe", "only noe knows zanzibar") + "\n", encoding="utf-8")
    return hive


def snapshot(hive: Path) -> dict[str, tuple[bytes, int]]:
    return {str(path.relative_to(hive)): (path.read_bytes(), path.stat().st_mtime_ns)
            for path in sorted(hive.rglob("*")) if path.is_file()}


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1 and isinstance(result.content[0], TextContent)
    return result.content[0].text


def session(hive: Path, config: Path, bee: str = BEE) -> Callable[
        [Callable[[Client], Awaitable[Any]]], Any]:
    """Runs `scenario(client)` against `horizon mcp HIVE BEE` started over stdio."""
    params = StdioServerParameters(
        command=HORIZON, args=["mcp", str(hive), bee],
        env={**os.environ, "HORIZON_CONFIG": str(config)})

    def run(scenario: Callable[[Client], Awaitable[Any]]) -> Any:
        async def main() -> Any:
            async with Client(params) as client:
                return await scenario(client)
        return anyio.run(main)

    return run


@pytest.fixture
def hive(tmp_path: Path) -> Path:
    return build_hive(tmp_path)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"rotation_entries": ROTATION}), encoding="utf-8")
    return path


def test_the_tools_are_listed_with_their_arguments_and_marked_read_only(
        hive: Path, config: Path) -> None:
    async def scenario(client: Client) -> Any:
        return (await client.list_tools()).tools

    tools = {tool.name: tool for tool in session(hive, config)(scenario)}
    assert set(tools) == {"horizon_show", "horizon_search", "horizon_view"}
    show = tools["horizon_show"].input_schema["properties"]
    assert set(show) == {"seqs", "max_chars", "offset"}
    assert show["max_chars"]["default"] == 8000 and show["offset"]["default"] == 0
    assert tools["horizon_show"].input_schema["required"] == ["seqs"]
    search = tools["horizon_search"].input_schema["properties"]
    assert set(search) == {"query", "limit"} and search["limit"]["default"] == 10
    assert tools["horizon_view"].input_schema["properties"] == {}
    for tool in tools.values():
        assert tool.description and "seq" in tool.description
        assert tool.annotations is not None and tool.annotations.read_only_hint


def test_each_tool_returns_what_the_matching_command_prints(hive: Path, config: Path) -> None:
    env = {**os.environ, "HORIZON_CONFIG": str(config)}

    def command(*args: str) -> str:
        return subprocess.run([HORIZON, *args], capture_output=True, text=True, env=env,
                              timeout=60, check=True).stdout

    async def scenario(client: Client) -> list[CallToolResult]:
        return [await client.call_tool("horizon_show", {"seqs": [3, 12], "max_chars": 8000}),
                await client.call_tool("horizon_search", {"query": "ticket ete", "limit": 10}),
                await client.call_tool("horizon_view", {})]

    before = snapshot(hive)
    show, search, view = session(hive, config)(scenario)
    assert not (show.is_error or search.is_error or view.is_error)
    assert text_of(show) == command("show", str(hive), BEE, "3", "12", "--max-chars", "8000")
    assert text_of(search) == command("search", str(hive), BEE, "ticket ete", "--limit", "10")
    assert text_of(view) == command("render", str(hive), BEE)
    assert "### #3 " in text_of(show) and "### #12 " in text_of(show)
    assert text_of(search).startswith("### #3 ")
    assert snapshot(hive) == before  # nothing written, not even a cache or a lock file


def test_a_long_entry_is_read_on_with_the_offset_the_tool_names(hive: Path,
                                                                config: Path) -> None:
    async def scenario(client: Client) -> tuple[str, str]:
        first = text_of(await client.call_tool("horizon_show",
                                               {"seqs": [5], "max_chars": 50}))
        hint = first.rstrip("\n").split("\n")[-1]
        assert "horizon_show(seqs=[5], offset=50, max_chars=50)" in hint
        rest = text_of(await client.call_tool("horizon_show",
                                              {"seqs": [5], "offset": 50, "max_chars": 20000}))
        return first, rest

    first, rest = session(hive, config)(scenario)
    answer = "answer 5 " + "word " * 40
    assert "question 5" in first and "answer 5" in first
    assert "encore 169 caractères" in first  # 10 + 209 characters, 50 shown
    assert rest.endswith("> " + answer[40:] + "\n")
    assert "horizon_show(" not in rest


def test_bad_arguments_are_tool_errors_and_the_server_goes_on(hive: Path,
                                                             config: Path) -> None:
    bad_calls: list[tuple[str, dict[str, Any]]] = [
        ("horizon_show", {"seqs": [0]}),
        ("horizon_show", {"seqs": []}),
        ("horizon_show", {"seqs": "3"}),
        ("horizon_show", {"seqs": list(range(1, 30))}),
        ("horizon_show", {"seqs": [3], "max_chars": 10**9}),
        ("horizon_show", {"seqs": [3], "offset": -1}),
        ("horizon_show", {"seqs": [9999]}),
        ("horizon_show", {"seqs": [6]}),
        ("horizon_search", {"query": ""}),
        ("horizon_search", {"query": "   "}),
        ("horizon_search", {"query": "x" * 600}),
        ("horizon_search", {"query": "word", "limit": 0}),
        ("horizon_search", {"query": "word", "limit": 10**6}),
    ]

    async def scenario(client: Client) -> tuple[list[CallToolResult], CallToolResult]:
        results = [await client.call_tool(name, arguments) for name, arguments in bad_calls]
        return results, await client.call_tool("horizon_show", {"seqs": [1]})

    results, after = session(hive, config)(scenario)
    for (name, arguments), result in zip(bad_calls, results, strict=True):
        assert result.is_error, (name, arguments, text_of(result))
        assert "Traceback" not in text_of(result)
    texts = [text_of(result) for result in results]
    assert "holds 14 lines" in texts[6]
    assert "#6 of mia was rejected (bad_json" in texts[7]
    assert "no word" in texts[9]
    assert not after.is_error and "### #1 " in text_of(after)


def test_a_bee_reaches_its_own_history_only(hive: Path, config: Path) -> None:
    async def scenario(client: Client) -> list[CallToolResult]:
        return [await client.call_tool("horizon_search", {"query": "zanzibar"}),
                await client.call_tool("horizon_search", {"query": "zanzibar", "bee": OTHER}),
                await client.call_tool("horizon_show", {"seqs": [1], "bee": OTHER})]

    by_words, with_bee, shown = session(hive, config)(scenario)
    # An extra argument naming another bee is ignored: the bee is the server's.
    for result in (by_words, with_bee):
        assert text_of(result) == "No entry of mia matches 'zanzibar'.\n"
    assert "question 1" in text_of(shown) and "only noe knows" not in text_of(shown)
    # Started for noe, the same server finds it.
    found = session(hive, config, OTHER)(
        lambda client: client.call_tool("horizon_search", {"query": "zanzibar"}))
    assert "zanzibar" in text_of(found)


def test_the_server_reads_while_a_daemon_holds_the_lock(hive: Path, config: Path) -> None:
    with (hive / ".horizon.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = session(hive, config)(
            lambda client: client.call_tool("horizon_show", {"seqs": [14]}))
    assert not result.is_error and "question 14" in text_of(result)


def test_an_unknown_bee_or_hive_fails_before_serving(hive: Path, config: Path,
                                                     tmp_path: Path) -> None:
    env = {**os.environ, "HORIZON_CONFIG": str(config)}
    for args in (["mcp", str(hive), "nobody"], ["mcp", str(tmp_path / "nowhere"), BEE]):
        done = subprocess.run([HORIZON, *args], capture_output=True, text=True, env=env,
                              stdin=subprocess.DEVNULL, timeout=60, check=False)
        assert done.returncode == 1, done.stderr
        assert done.stdout == "" and "Traceback" not in done.stderr
        assert done.stderr.startswith("horizon: ")


def test_the_module_entry_point_serves_too(hive: Path, config: Path) -> None:
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "horizon", "mcp", str(hive), BEE],
                                   env={**os.environ, "HORIZON_CONFIG": str(config)})

    async def main() -> CallToolResult:
        async with Client(params) as client:
            return await client.call_tool("horizon_view", {})

    assert text_of(anyio.run(main)).startswith("<!-- horizon format=1 bee=mia")
